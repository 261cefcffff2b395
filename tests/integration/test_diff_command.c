/*
 * Differential test of the introspection commands against redis-server,
 * RESP2 and RESP3:
 *  - COMMAND INFO and COMMAND DOCS of every command goblin-core implements
 *    (its COMMAND LIST, subcommands included), byte for byte; a container's
 *    subcommands are compared as a set (Redis lists them in its dict's
 *    order, seeded at random per process), restricted to those goblin-core
 *    implements;
 *  - command names in any case (COMMAND INFO of every name upper- and
 *    mixed-case, mixed-case commands run) and near misses of names
 *    (unknown-command errors);
 *  - COMMAND GETKEYS / GETKEYSANDFLAGS: key specs, numkeys and keyword
 *    rules, the commands whose flags depend on their arguments (SET,
 *    BITFIELD), SORT/MIGRATE, and every error;
 *  - LATENCY: DOCTOR with monitoring off and with no event, LATEST,
 *    HISTORY, RESET, errors; then one slow script on both servers, whose
 *    DOCTOR/LATEST/HISTORY replies must match once digits are masked (the
 *    durations and times legitimately differ);
 *  - INFO errorstats after the same errors, CLUSTER/READONLY/READWRITE/
 *    ASKING in a server without cluster support.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "goblin/resp_reader.h"

static struct diff_pair d;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)

/* One RESP value's extent in raw[0..len). */
static size_t elem_len(const char *raw, size_t len)
{
    long long n = resp_reply_length(raw, len);
    CHECK(n > 0);
    return (size_t)n;
}

/* The header line's count of an aggregate at p ("*3\r\n" -> 3). */
static long long header_count(const char *p)
{
    return atoll(p + 1);
}

static size_t header_len(const char *p)
{
    return (size_t)(strstr(p, "\r\n") + 2 - p);
}

struct span {
    const char *p;
    size_t n;
};

static int span_compare(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* Appends the `count` elements (units of `per` values) at *p sorted, keeping
 * only those whose first value names a command goblin implements. */
static void append_sorted(char **out, const char **p, const char *end, long long count, int per,
                          const char *list, bool is_docs)
{
    struct span *units = calloc((size_t)count + 1, sizeof *units);
    long long kept = 0;
    for (long long i = 0; i < count; i++) {
        const char *start = *p;
        for (int k = 0; k < per; k++) *p += elem_len(*p, (size_t)(end - *p));
        /* The unit's name: a bulk (docs) or the first bulk of an array (info). */
        const char *name = is_docs ? start : start + header_len(start);
        size_t nlen = (size_t)atoll(name + 1);
        const char *text = name + header_len(name);
        char needle[96];
        snprintf(needle, sizeof needle, "\n%.*s\n", (int)nlen, text);
        if (strstr(list, needle)) units[kept++] = (struct span){start, (size_t)(*p - start)};
    }
    qsort(units, (size_t)kept, sizeof *units, span_compare);
    *out += sprintf(*out, "<%lld>", kept);
    for (long long i = 0; i < kept; i++) {
        memcpy(*out, units[i].p, units[i].n);
        *out += units[i].n;
    }
    free(units);
}

/* COMMAND INFO <container>: *1 *10 <9 fields> *N <subcommand infos>. */
static char *normalise_info(const char *raw, size_t len, const char *list)
{
    char *out = malloc(len + 64), *o = out;
    const char *p = raw, *end = raw + len;
    p += header_len(p);
    p += header_len(p);
    for (int i = 0; i < 9; i++) p += elem_len(p, (size_t)(end - p));
    memcpy(o, raw, (size_t)(p - raw));
    o += p - raw;
    long long subs = header_count(p);
    p += header_len(p);
    append_sorted(&o, &p, end, subs, 1, list, false);
    *o = '\0';
    return out;
}

/* COMMAND DOCS <container>: a map of one name to a map whose last pair is
 * "subcommands" => map of name => docs. */
static char *normalise_docs(const char *raw, size_t len, const char *list)
{
    char *out = malloc(len + 64), *o = out;
    const char *p = raw, *end = raw + len;
    p += header_len(p);
    p += elem_len(p, (size_t)(end - p)); /* the name */
    long long fields = header_count(p) / (*p == '%' ? 1 : 2);
    p += header_len(p);
    for (long long i = 0; i < 2 * (fields - 1) + 1; i++) p += elem_len(p, (size_t)(end - p));
    memcpy(o, raw, (size_t)(p - raw));
    o += p - raw;
    long long subs = header_count(p) / (*p == '%' ? 1 : 2);
    p += header_len(p);
    append_sorted(&o, &p, end, subs, 2, list, true);
    *o = '\0';
    return out;
}

static void compare_normalised(const char *what, const char *name, char *g, char *r)
{
    if (strcmp(g, r) != 0) {
        static char gt[65536], rt[65536];
        fprintf(stderr, "diff_command: MISMATCH in %s %s\n  redis-server: %s\n  goblin-core:  %s\n",
                what, name, resp_render(r, strlen(r), rt, sizeof rt),
                resp_render(g, strlen(g), gt, sizeof gt));
        exit(1);
    }
    free(g);
    free(r);
}

/* goblin's COMMAND LIST as "\nname\nname\n...". */
static char *command_list(void)
{
    const char *argv[] = {"COMMAND", "LIST"};
    size_t glen;
    char *raw = diff_send_both(&d, 2, argv, NULL);
    glen = strlen(raw);
    char *list = malloc(glen + 2), *o = list;
    *o++ = '\n';
    const char *p = raw + header_len(raw);
    for (long long i = header_count(raw); i > 0; i--) {
        size_t n = (size_t)atoll(p + 1);
        p += header_len(p);
        memcpy(o, p, n);
        o += n;
        *o++ = '\n';
        p += n + 2;
    }
    *o = '\0';
    free(raw);
    return list;
}

/* Whether redis-server 7.0 knows a command goblin-core implements (it
 * lacks CLIENT SETINFO, which keeps a hand-written row). */
static bool redis_has(const char *name)
{
    const char *info[] = {"COMMAND", "INFO", name};
    char *g, *r;
    size_t glen, rlen;
    diff_exchange(&d, 3, info, NULL, &g, &glen, &r, &rlen);
    bool lacks = strcmp(r, "*1\r\n$-1\r\n") == 0 || strcmp(r, "*1\r\n_\r\n") == 0;
    if (lacks) CHECK(glen > 20); /* goblin describes its own */
    free(g);
    free(r);
    return !lacks;
}

static void check_info_and_docs(void)
{
    char *list = command_list();
    /* The names both servers have, in the same "\nname\n" form. */
    char *shared = calloc(strlen(list) + 2, 1), *s = shared;
    *s++ = '\n';
    for (char *line = list + 1; *line; line = strchr(line, '\n') + 1) {
        char name[96];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(line, '\n') - line), line);
        if (redis_has(name)) s += sprintf(s, "%s\n", name);
    }
    long long leaves = 0, containers = 0;
    for (char *line = shared + 1; *line; line = strchr(line, '\n') + 1) {
        char name[96], prefix[100];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(line, '\n') - line), line);
        snprintf(prefix, sizeof prefix, "\n%s|", name);
        const char *info[] = {"COMMAND", "INFO", name}, *docs[] = {"COMMAND", "DOCS", name};
        if (!strstr(list, prefix)) {
            diff_check_argv(&d, 3, info, NULL);
            diff_check_argv(&d, 3, docs, NULL);
            leaves++;
            continue;
        }
        char *g, *r;
        size_t glen, rlen;
        diff_exchange(&d, 3, info, NULL, &g, &glen, &r, &rlen);
        compare_normalised("COMMAND INFO", name, normalise_info(g, glen, shared),
                           normalise_info(r, rlen, shared));
        free(g);
        free(r);
        diff_exchange(&d, 3, docs, NULL, &g, &glen, &r, &rlen);
        compare_normalised("COMMAND DOCS", name, normalise_docs(g, glen, shared),
                           normalise_docs(r, rlen, shared));
        free(g);
        free(r);
        containers++;
    }
    /* The families must not quietly disappear. */
    CHECK(leaves > 200);
    CHECK(containers >= 10);
    free(shared);
    free(list);
}

/* Command names are looked up ignoring case (command.c's index compares
 * a word at a time): every name in goblin's COMMAND LIST, subcommands
 * included, in upper and in mixed case describes the same command as in
 * lower case, and as Redis does for the names it knows; near misses (a
 * bit-5 flip of a non-letter, a letter with its top bit set, a prefix, a
 * name one byte too long) are unknown commands with Redis's error; a name
 * with a NUL is unknown to goblin alone (Redis compares names with
 * strcasecmp, which stops at the NUL, after hashing all the bytes: "get\0"
 * runs GET when the two hashes share a bucket, which depends on the hash
 * seed Redis draws at startup); mixed-case commands run. */
static void check_name_case(void)
{
    char *list = command_list();
    long long names = 0;
    for (char *line = list + 1; *line; line = strchr(line, '\n') + 1) {
        char lower[96], upper[96], mixed[96];
        snprintf(lower, sizeof lower, "%.*s", (int)(strchr(line, '\n') - line), line);
        for (size_t i = 0; i <= strlen(lower); i++) {
            upper[i] = (char)toupper((unsigned char)lower[i]);
            mixed[i] = i % 2 ? upper[i] : lower[i];
        }
        const char *info[] = {"COMMAND", "INFO", lower};
        char *g, *r, *gu, *ru;
        size_t glen, rlen, gulen, rulen;
        diff_exchange(&d, 3, info, NULL, &g, &glen, &r, &rlen);
        CHECK(glen > 20); /* goblin describes every command it lists */
        for (int v = 0; v < 2; v++) {
            info[2] = v ? mixed : upper;
            diff_exchange(&d, 3, info, NULL, &gu, &gulen, &ru, &rulen);
            CHECKF(gulen == glen && memcmp(gu, g, glen) == 0, "COMMAND INFO %s differs from %s",
                   info[2], lower);
            free(gu);
            free(ru);
        }
        if (!strchr(lower, '|')) {
            /* Redis's reply for the same name in another case (a leaf:
             * byte for byte; containers list subcommands in its own order). */
            char prefix[100];
            snprintf(prefix, sizeof prefix, "\n%s|", lower);
            if (!strstr(list, prefix) && strcmp(r, "*1\r\n$-1\r\n") != 0 &&
                strcmp(r, "*1\r\n_\r\n") != 0) {
                info[2] = mixed;
                diff_check_argv(&d, 3, info, NULL);
            }
        }
        free(g);
        free(r);
        names++;
    }
    CHECK(names > 250);
    free(list);

    static const struct {
        const char *name;
        size_t len;
    } misses[] = {
        {"EVAL\x7fRO", 7},
        {"eval\x7fro", 7},
        {"EVAL@RO", 7},
        {"FCALL\x7fRO", 8},
        {"EVALSHA\x7fRO", 10},
        {"G\xc5T", 3},
        {"G\xe5T", 3},
        {"ge", 2},
        {"G", 1},
        {"GETT", 4},
        {"GETDELL", 7},
        {"\x07\x05\x14", 3},
        {"PINGPONGS", 9},
        {"ZRANGEBYSCORES", 14},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
        const char *argv[] = {misses[i].name, "a"};
        size_t lens[] = {misses[i].len, 1};
        diff_check_argv(&d, 2, argv, lens);
    }
    {
        const char *argv[] = {"get\0", "a"};
        size_t lens[] = {4, 1};
        char *g, *r;
        size_t glen, rlen;
        diff_exchange(&d, 2, argv, lens, &g, &glen, &r, &rlen);
        CHECKF(strncmp(g, "-ERR unknown command 'get", 25) == 0, "get\\0: %.*s", (int)glen, g);
        free(g);
        free(r);
    }
    C("sEt", "case:k", "v");
    C("gEt", "case:k");
    C("Get", "case:k");
    C("pInG");
    C("EcHo", "x");
    C("ExIsTs", "case:k");
    C("HiNcRbYfLoAt", "case:h", "f", "1.5");
    C("zAdD", "case:z", "1", "m");
    C("ZrAnGeByScOrE", "case:z", "0", "1");
    C("eVaL_rO", "return 1", "0");
    C("EVALSHA_RO", "0000000000000000000000000000000000000000", "0");
    C("DeL", "case:k", "case:h", "case:z");
}

static void check_getkeys(void)
{
    static const char *const cases[][12] = {
        {"GET", "k"},
        {"MSET", "a", "1", "b", "2"},
        {"MGET", "a", "b", "c"},
        {"ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"},
        {"ZUNIONSTORE", "d", "1x", "a"},
        {"ZUNIONSTORE", "d", "0", "a"},
        {"ZUNION", "2", "a", "b"},
        {"ZUNION", "0", "a"},
        {"ZUNION", "5", "a"},
        {"ZINTERCARD", "1x", "a"},
        {"ZDIFF", "1", "a", "WITHSCORES"},
        {"EVAL", "return 1", "2", "k1", "k2", "arg"},
        {"EVAL", "return 1", "0"},
        {"EVAL", "return 1", "x"},
        {"EVAL", "return 1", "5", "a"},
        {"EVAL", "return 1", "1x", "a"},
        {"EVALSHA_RO", "abc", "1", "k"},
        {"FCALL", "f", "1", "k", "a"},
        {"FCALL_RO", "f", "-1", "k"},
        {"LMPOP", "2", "a", "b", "LEFT"},
        {"BLMPOP", "0", "1", "a", "LEFT"},
        {"ZMPOP", "1x", "a", "MIN"},
        {"BZMPOP", "0", "2", "a", "b", "MAX"},
        {"SINTERCARD", "2", "a", "b", "LIMIT", "1"},
        {"SORT", "a", "LIMIT", "0", "1", "STORE", "b"},
        {"SORT", "a", "STORE"},
        {"SORT", "a", "BY", "store", "STORE", "x", "STORE", "y"},
        {"SORT_RO", "a", "BY", "x"},
        {"MIGRATE", "h", "1", "", "0", "0", "KEYS", "a", "b"},
        {"MIGRATE", "h", "1", "k", "0", "0", "KEYS", "a"},
        {"MIGRATE", "h", "1", "", "0", "0", "AUTH", "KEYS", "a"},
        {"MIGRATE", "h", "1", "k", "0", "0", "COPY", "REPLACE"},
        {"BITFIELD", "a", "GET", "u8", "0"},
        {"BITFIELD", "a", "GET", "u8"},
        {"BITFIELD", "a", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "1"},
        {"BITFIELD_RO", "a", "GET", "u8", "0"},
        {"SET", "a", "b"},
        {"SET", "a", "b", "EX", "1", "GET"},
        {"LMOVE", "a", "b", "LEFT", "RIGHT"},
        {"RENAMENX", "a", "b"},
        {"SDIFFSTORE", "d", "a", "b"},
        {"COPY", "a", "b"},
        {"PFMERGE", "d", "a", "b"},
        {"OBJECT", "ENCODING", "k"},
        {"HSET", "h", "f", "v"},
        {"SPUBLISH", "c", "m"},
        {"PUBLISH", "c", "m"},
        {"CONFIG", "GET", "x"},
        {"CONFIG"},
        {"CONFIG", "NOSUCH"},
        {"CLIENT", "LIST"},
        {"GET"},
        {"GET", "a", "b"},
        {"NOSUCH", "a"},
        {"PING"},
        {"get", "k"},
        {"EXPIRE", "k", "10"},
        {"DEL", "a", "b", "c"},
        {"BLPOP", "a", "b", "0"},
        {"WATCH", "a", "b"},
    };
    for (int sub = 0; sub < 2; sub++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const char *argv[16] = {"COMMAND", sub ? "GETKEYSANDFLAGS" : "GETKEYS"};
            int argc = 2;
            for (int k = 0; k < 12 && cases[i][k]; k++) argv[argc++] = cases[i][k];
            diff_check_argv(&d, argc, argv, NULL);
        }
        const char *bare[] = {"COMMAND", sub ? "GETKEYSANDFLAGS" : "GETKEYS"};
        diff_check_argv(&d, 2, bare, NULL);
    }
    C("COMMAND", "HELP");
    C("COMMAND", "GETKEYS", "COMMAND", "GETKEYS", "GET", "k");
}

/* Replaces every run of digits by one '#' (durations, times and
 * lengths differ); returns the new length. */
static size_t mask_digits(char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        bool digit = s[i] >= '0' && s[i] <= '9';
        if (digit && o && s[o - 1] == '#') continue;
        s[o++] = digit ? '#' : s[i];
    }
    s[o] = '\0';
    return o;
}

/* Events a loaded machine may add on either server besides the script's
 * (a fast command or a cycle preempted past the threshold). */
static bool has_noise_event(const char *reply)
{
    return strstr(reply, "fast-command") || strstr(reply, "-cycle") || strstr(reply, "fork") ||
           strstr(reply, "aof-");
}

/* Compares with digits masked; goblin's reply must contain `needle`.
 * Returns false (to retry) on a mismatch that noise explains. */
static bool check_masked(int argc, const char *const *argv, const char *needle)
{
    char *g, *r;
    size_t glen, rlen;
    diff_exchange(&d, argc, argv, NULL, &g, &glen, &r, &rlen);
    CHECK(strstr(g, needle) != NULL);
    glen = mask_digits(g, glen);
    rlen = mask_digits(r, rlen);
    bool same = glen == rlen && memcmp(g, r, glen) == 0;
    if (!same && !has_noise_event(g) && !has_noise_event(r)) {
        static char gt[16384], rt[16384];
        fprintf(stderr,
                "diff_command: MISMATCH in %s %s (digits masked)\n  redis-server: %s\n"
                "  goblin-core:  %s\n",
                argv[0], argv[1], resp_render(r, rlen, rt, sizeof rt),
                resp_render(g, glen, gt, sizeof gt));
        exit(1);
    }
    free(g);
    free(r);
    return same;
}

/* One slow script on both servers, then the reports compared. */
static bool slow_script_reports(void)
{
    C("LATENCY", "RESET");
    C("CONFIG", "SET", "slowlog-log-slower-than", "10000");
    C("EVAL", "local i = 0 while i < 30000000 do i = i + 1 end return i", "0");
    const char *doctor[] = {"LATENCY", "DOCTOR"}, *latest[] = {"LATENCY", "LATEST"},
               *history[] = {"LATENCY", "HISTORY", "command"},
               *graph[] = {"LATENCY", "GRAPH", "command"};
    /* A second slow sample on either side (a preempted command) would
     * change the graph's shape: noise, retried. */
    char *g, *r;
    size_t glen, rlen;
    diff_exchange(&d, 3, history, NULL, &g, &glen, &r, &rlen);
    bool single = strncmp(g, "*1\r\n", 4) == 0 && strncmp(r, "*1\r\n", 4) == 0;
    free(g);
    free(r);
    if (!single) return false;
    if (!check_masked(3, graph, "command - high ")) return false;
    if (!check_masked(2, doctor, "1. command: ")) return false;
    if (!check_masked(2, latest, "command")) return false;
    if (!check_masked(3, history, ":")) return false;
    C("CONFIG", "SET", "slowlog-log-slower-than", "-1");
    return check_masked(2, doctor, "Try to enable the Slow Log"); /* the other advice */
}

static void check_latency(void)
{
    C("CONFIG", "GET", "latency-monitor-threshold");
    C("LATENCY", "DOCTOR");
    C("LATENCY", "LATEST");
    C("LATENCY", "HISTORY", "command");
    C("LATENCY", "RESET");
    C("LATENCY", "RESET", "command", "nosuch");
    C("LATENCY");
    C("LATENCY", "BOGUS");
    C("LATENCY", "HISTORY");
    C("LATENCY", "HISTORY", "a", "b");
    C("LATENCY", "LATEST", "x");
    C("LATENCY", "DOCTOR", "x");
    C("LATENCY", "HELP", "x");
    C("LATENCY", "GRAPH", "nosuch");
    C("LATENCY", "GRAPH");
    C("LATENCY", "HELP");
    C("CONFIG", "SET", "latency-monitor-threshold", "-1");
    C("CONFIG", "SET", "latency-monitor-threshold", "x");
    /* On, nothing slow yet. A high threshold keeps a loaded machine's
     * hiccups mostly out of the comparison; the script takes far longer. */
    C("CONFIG", "SET", "latency-monitor-threshold", "50");
    C("CONFIG", "GET", "latency-monitor-threshold");
    C("LATENCY", "DOCTOR");
    C("LATENCY", "LATEST");
    int attempts = 0;
    while (!slow_script_reports()) CHECK(++attempts < 3);
    C("LATENCY", "HISTORY", "COMMAND"); /* names are case-sensitive here ... */
    C("CONFIG", "SET", "slowlog-log-slower-than", "10000");
    C("LATENCY", "RESET", "COMMAND"); /* ... and not here */
    C("LATENCY", "LATEST");
    C("LATENCY", "DOCTOR");
    C("CONFIG", "SET", "latency-monitor-threshold", "0");
    C("LATENCY", "DOCTOR");
}

static void check_errorstats_and_cluster(void)
{
    C("CONFIG", "RESETSTAT");
    C("NOSUCH");
    C("GET");
    C("SET", "ls", "v");
    C("LPUSH", "ls", "x");
    C("EVALSHA", "0000000000000000000000000000000000000000", "0");
    C("MULTI");
    C("NOSUCH");
    C("EXEC");
    C("INCR", "ls");
    C("CLUSTER", "INFO");
    C("CLUSTER", "NODES");
    C("CLUSTER", "KEYSLOT", "a");
    C("CLUSTER");
    C("READONLY");
    C("READWRITE");
    C("INFO", "errorstats");
    C("DEL", "ls");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_command");
    diff_start(&d, "diff_command/resp2", seed, NULL, NULL);
    check_info_and_docs();
    check_name_case();
    check_getkeys();
    check_latency();
    check_errorstats_and_cluster();
    diff_stop(&d);

    diff_start(&d, "diff_command/resp3", seed, NULL, NULL);
    diff_hello3(&d);
    check_info_and_docs();
    check_name_case();
    check_getkeys();
    check_latency();
    check_errorstats_and_cluster();
    diff_stop(&d);
    return 0;
}
