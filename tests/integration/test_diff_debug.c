/*
 * Differential test of DEBUG (src/commands/server/cmd_debug.c) and of the defects
 * Redis's own test suite found in the data-type commands, against
 * redis-server 7.0.15, in RESP2 and RESP3:
 *  - DEBUG DIGEST and DIGEST-VALUE: the same data set (every type, both
 *    encodings of each, TTLs, several databases, DEBUG POPULATE) gives the
 *    same digests, byte for byte;
 *  - DEBUG OBJECT: the same fields (refcount, encoding, serializedlength,
 *    ql_nodes, ql_avg_node, ql_listpack_max, ql_compressed) for the values
 *    whose RDB form both write alike; the address, LRU clock and
 *    ql_uncompressed_size (node bytes, ours are not listpacks) are ours;
 *  - DEBUG PROTOCOL of every type, including RESP3 attributes and pushes;
 *  - the errors and OKs of SET-ACTIVE-EXPIRE, QUICKLIST-PACKED-THRESHOLD,
 *    LISTPACK, QUICKLIST, POPULATE, STRINGMATCH-TEST, CHANGE-REPL-ID and an
 *    unknown subcommand;
 *  - regressions: SETBIT/BITFIELD count a write (rdb_changes_since_last_save)
 *    exactly when Redis does; SORT with a huge LIMIT (it crashed the
 *    server); HRANDFIELD/SRANDMEMBER with a negative count draw a hashtable's
 *    members uniformly (the suite's chi-square bound); blocking timeouts
 *    under a millisecond round up (they blocked forever).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "resp_value.h"

static struct diff_pair d;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)

static void fill_data_set(void)
{
    C("FLUSHALL");
    C("SET", "str", "hello");
    C("SET", "int", "12345");
    C("SET", "big", "123456789012345678901234567890123456789012345678901234567890");
    C("SET", "ttl", "v", "EX", "1000");
    C("RPUSH", "list", "a", "b", "1", "-7", "300000", "x y z");
    C("HSET", "hsmall", "f1", "v1", "f2", "2");
    C("HSET", "hbig", "f",
      "0123456789012345678901234567890123456789012345678901234567890123456789");
    C("SADD", "sint", "1", "2", "3", "-40");
    C("SADD", "sstr", "a", "b", "c");
    C("ZADD", "zsmall", "1", "a", "2.5", "b", "-inf", "c", "1e100", "d");
    C("ZADD", "zbig", "3", "0123456789012345678901234567890123456789012345678901234567890123456789",
      "0.1", "m");
    C("SELECT", "3");
    C("SET", "in3", "x");
    C("HSET", "h3", "a", "b");
    C("SELECT", "0");
}

static void digests(void)
{
    C("FLUSHALL");
    C("DEBUG", "DIGEST");
    C("DEBUG", "DIGEST-VALUE");
    C("DEBUG", "DIGEST-VALUE", "missing");
    fill_data_set();
    C("DEBUG", "DIGEST");
    C("DEBUG", "DIGEST-VALUE", "str", "int", "big", "ttl", "list", "hsmall", "hbig", "sint", "sstr",
      "zsmall", "zbig", "missing");
    /* The same values in the other encoding digest the same. */
    C("SADD", "sint", "notanint");
    C("SREM", "sint", "notanint");
    C("OBJECT", "ENCODING", "sint");
    C("DEBUG", "DIGEST-VALUE", "sint");
    C("DEBUG", "DIGEST");
    C("PERSIST", "ttl");
    C("DEBUG", "DIGEST-VALUE", "ttl");
    C("DEBUG", "POPULATE", "100");
    C("DEBUG", "POPULATE", "10", "pre", "20");
    C("DEBUG", "POPULATE", "5", "pre", "3");
    C("GET", "pre:3");
    C("DEBUG", "DIGEST");
    C("DEBUG", "POPULATE", "-1");
    C("DEBUG", "POPULATE", "x");
    C("DEBUG", "POPULATE", "1", "k", "-5");
    C("DEBUG", "POPULATE");
}

/* DEBUG OBJECT's fields, less those that are ours (address, lru,
 * lru_seconds_idle, ql_uncompressed_size). */
static void object_fields(const char *raw, char *out, size_t cap, bool with_length)
{
    out[0] = '\0';
    if (raw[0] != '+') {
        snprintf(out, cap, "%s", raw);
        return;
    }
    static const char *const keep[] = {
        "refcount:",    "encoding:",        "serializedlength:", "ql_nodes:",
        "ql_avg_node:", "ql_listpack_max:", "ql_compressed:",    NULL};
    for (int i = 0; keep[i]; i++) {
        const char *p = strstr(raw, keep[i]);
        if (!p || (!with_length && i == 2)) continue;
        size_t n = strcspn(p, " \r");
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%.*s ", (int)n, p);
    }
}

/* with_length: compare serializedlength too (not for lists of several
 * nodes: we write RDB nodes of 128 entries, Redis its own nodes). */
static void object_check(const char *key, bool with_length)
{
    const char *argv[] = {"DEBUG", "OBJECT", key};
    char *g, *r;
    size_t gl, rl;
    diff_exchange(&d, 3, argv, NULL, &g, &gl, &r, &rl);
    char gf[512], rf[512];
    object_fields(g, gf, sizeof gf, with_length);
    object_fields(r, rf, sizeof rf, with_length);
    if (strcmp(gf, rf) != 0 || strncmp(g, "+Value at:0x", 12) != (strncmp(r, "+Value at:0x", 12))) {
        fprintf(stderr, "diff_debug: DEBUG OBJECT %s differs\n goblin: %s redis: %s", key, g, r);
        exit(1);
    }
    free(g);
    free(r);
}

static void objects(void)
{
    fill_data_set();
    static const char *const keys[] = {"str",  "int",  "big",    "ttl",  "list",    "hsmall",
                                       "hbig", "sstr", "zsmall", "zbig", "missing", NULL};
    for (int i = 0; keys[i]; i++) object_check(keys[i], true);
    C("SET", "n", "20000");
    object_check("n", true);
    C("INCR", "n");
    object_check("n", true);
    C("CONFIG", "SET", "list-max-listpack-size", "2");
    C("DEL", "l2");
    C("RPUSH", "l2", "a", "b", "c", "d", "e");
    object_check("l2", false);
    C("CONFIG", "SET", "list-max-listpack-size", "-2");
    C("DEBUG", "OBJECT");
    C("DEBUG", "OBJECT", "a", "b");
}

static void others(bool resp3)
{
    static const char *const types[] = {"string", "integer",  "double", "bignum", "null",
                                        "array",  "set",      "map",    "attrib", "true",
                                        "false",  "verbatim", "bogus",  "STRING", NULL};
    for (int i = 0; types[i]; i++) C("DEBUG", "PROTOCOL", types[i]);
    C("DEBUG", "PROTOCOL", "push");
    if (resp3) {
        /* The push, then the reply that follows it. */
        char *g = rconn_read_reply(&d.g, NULL), *r = rconn_read_reply(&d.r, NULL);
        if (strcmp(g, r) != 0) {
            fprintf(stderr, "diff_debug: DEBUG PROTOCOL push: %s vs %s\n", g, r);
            exit(1);
        }
        free(g);
        free(r);
    }
    C("DEBUG", "PROTOCOL");

    C("DEBUG", "SET-ACTIVE-EXPIRE", "0");
    C("SET", "e", "v", "PX", "1");
    C("DEBUG", "SET-ACTIVE-EXPIRE", "1");
    C("DEBUG", "SET-ACTIVE-EXPIRE");
    C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1b");
    C("DEL", "pl");
    C("RPUSH", "pl", "aaaa", "1", "bbbbbbbbbb");
    C("LINSERT", "pl", "AFTER", "1", "cc");
    C("LRANGE", "pl", "0", "-1");
    C("LPOP", "pl");
    C("LINDEX", "pl", "1");
    C("DEBUG", "DIGEST-VALUE", "pl");
    C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0");
    C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5gb");
    C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "abc");
    C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "-1");
    C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "4095mb");
    C("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0");

    fill_data_set();
    C("DEBUG", "LISTPACK", "hsmall");
    C("DEBUG", "LISTPACK", "zsmall");
    C("DEBUG", "LISTPACK", "hbig");
    C("DEBUG", "LISTPACK", "str");
    C("DEBUG", "LISTPACK", "missing");
    C("DEBUG", "QUICKLIST", "list");
    C("DEBUG", "QUICKLIST", "list", "1");
    C("DEBUG", "QUICKLIST", "str");
    C("DEBUG", "QUICKLIST", "missing");
    C("DEBUG", "ZIPLIST", "hsmall");
    C("DEBUG", "JMAP");
    C("DEBUG", "STRINGMATCH-TEST", "x");
    if (!d.sbe) { /* redis-server's run takes seconds: goblin-core's reply only */
        char *g = rconn_call(&d.g, "DEBUG", "STRINGMATCH-TEST", NULL);
        if (strcmp(g, "+Apparently Redis did not crash: test passed\r\n") != 0) {
            fprintf(stderr, "diff_debug: DEBUG STRINGMATCH-TEST answered %s", g);
            exit(1);
        }
        free(g);
    }
    C("DEBUG", "CHANGE-REPL-ID");
    C("DEBUG", "CHANGE-REPL-ID", "x");
    C("DEBUG", "NOSUCH", "x");
    C("DEBUG", "SLEEP", "0");
    C("DEBUG", "SLEEP");
}

/* rdb_changes_since_last_save after a command, less before: the counts of
 * both servers must move alike. */
static long long changes_of(const char *info)
{
    const char *p = strstr(info, "rdb_changes_since_last_save:");
    return p ? atoll(p + strlen("rdb_changes_since_last_save:")) : -1;
}

static void dirty_check(int argc, const char *const *argv)
{
    static const char *const info[] = {"INFO", "persistence"};
    char *g0, *r0, *g1, *r1;
    size_t l;
    diff_exchange(&d, 2, info, NULL, &g0, &l, &r0, &l);
    diff_check_argv(&d, argc, argv, NULL);
    diff_exchange(&d, 2, info, NULL, &g1, &l, &r1, &l);
    long long gd = changes_of(g1) - changes_of(g0), rd = changes_of(r1) - changes_of(r0);
    if (gd != rd) {
        fprintf(stderr, "diff_debug: %s %s ... counted %lld changes, redis-server %lld\n", argv[0],
                argv[1], gd, rd);
        exit(1);
    }
    free(g0);
    free(r0);
    free(g1);
    free(r1);
}

static void dirty(void)
{
    static const char *const populate[] = {"DEBUG", "POPULATE", "20", "dirty"};
    dirty_check(4, populate);
    C("DEL", "b1", "b2");
    static const char *const cmds[][8] = {
        {"SETBIT", "b1", "0", "0"},                                /* created: a change */
        {"SETBIT", "b1", "0", "0"},                                /* none */
        {"SETBIT", "b1", "100", "0"},                              /* grown: a change */
        {"SETBIT", "b1", "0", "1"},                                /* changed */
        {"SETBIT", "b1", "0", "1"},                                /* none */
        {"BITFIELD", "b2", "SET", "i5", "0", "0"},                 /* created */
        {"BITFIELD", "b2", "SET", "i5", "0", "0"},                 /* none */
        {"BITFIELD", "b2", "SET", "i5", "0", "1", "INCRBY", "u4"}, /* arity error */
        {"BITFIELD", "b2", "SET", "i5", "0", "1"},
        {"BITFIELD", "b2", "INCRBY", "i5", "0", "0"},
        {"BITFIELD", "b2", "SET", "u8", "100", "0"},                        /* grown */
        {"BITFIELD", "b2", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "100"}, /* nil */
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int argc = 0;
        while (argc < 8 && cmds[i][argc]) argc++;
        dirty_check(argc, cmds[i]);
    }
}

static void sort_limits(void)
{
    C("DEL", "L");
    C("LPUSH", "L", "2", "1", "0");
    static const char *const limits[][2] = {
        {"0", "9223372036854775807"},
        {"2", "9223372036854775807"},
        {"1", "2147483647"},
        {"-5", "9223372036854775807"},
        {"9223372036854775807", "9223372036854775807"},
        {"3", "-1"},
        {"1", "-7"},
        {"-9223372036854775807", "-9223372036854775807"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        C("SORT", "L", "LIMIT", limits[i][0], limits[i][1]);
        C("SORT_RO", "L", "BY", "nosort", "LIMIT", limits[i][0], limits[i][1]);
        C("SORT", "L", "BY", "nosort", "DESC", "LIMIT", limits[i][0], limits[i][1]);
        C("SORT", "L", "ALPHA", "DESC", "LIMIT", limits[i][0], limits[i][1]);
    }
}

/* Pearson's chi-square of draws (sorted in place) against equally likely
 * members. */
static double chi_square(struct bytes *u, size_t m)
{
    qsort(u, m, sizeof *u, bytes_cmp);
    size_t distinct = 0;
    for (size_t i = 0; i < m; i++)
        if (i == 0 || bytes_cmp(&u[i], &u[i - 1]) != 0) distinct++;
    double expected = (double)m / (double)distinct, x2 = 0;
    for (size_t i = 0, run = 1; i < m; i++, run++) {
        if (i + 1 == m || bytes_cmp(&u[i], &u[i + 1]) != 0) {
            x2 += pow((double)run - expected, 2) / expected;
            run = 0;
        }
    }
    return x2;
}

/* Draws of HRANDFIELD/SRANDMEMBER over the 10 members of a hashtable,
 * `calls` times: the suite's bound (40 for 9 degrees of freedom, p =
 * 0.00001). Fields only (WITHVALUES: every other element, or the first of
 * each RESP3 pair). */
static void distribution(const char *const *argv, int argc, int calls, size_t step)
{
    size_t cap = 4096, m = 0;
    struct bytes *u = malloc(cap * sizeof *u);
    char **replies = malloc((size_t)calls * sizeof *replies);
    struct rv *vs = malloc((size_t)calls * sizeof *vs);
    for (int c = 0; c < calls; c++) {
        char *r;
        size_t gl, rl;
        diff_exchange(&d, argc, argv, NULL, &replies[c], &gl, &r, &rl);
        free(r);
        rv_parse(replies[c], &vs[c]);
        const struct rv *v = &vs[c];
        size_t st = v->count && v->elems[0].type == '*' ? 1 : step; /* RESP3 pairs */
        for (size_t i = 0; i < v->count; i += st) {
            const struct rv *e = v->elems[i].type == '*' ? &v->elems[i].elems[0] : &v->elems[i];
            if (m == cap) u = realloc(u, (cap *= 2) * sizeof *u);
            u[m++] = (struct bytes){e->str, e->len};
        }
    }
    double x2 = chi_square(u, m);
    if (!(x2 < 40)) {
        fprintf(stderr, "diff_debug: %s %s over a hashtable is not uniform (chi-square %.1f)\n",
                argv[0], argv[2], x2);
        exit(1);
    }
    for (int c = 0; c < calls; c++) {
        rv_free(&vs[c]);
        free(replies[c]);
    }
    free(vs);
    free(replies);
    free(u);
}

static void randomness(void)
{
    C("DEL", "rh", "rs");
    C("HSET", "rh", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "6", "f", "7", "g", "8", "h",
      "9", "i", "0123456789012345678901234567890123456789012345678901234567890123456789", "10");
    C("SADD", "rs", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j");
    C("OBJECT", "ENCODING", "rh");
    C("OBJECT", "ENCODING", "rs");
    static const char *const h[] = {"HRANDFIELD", "rh", "-1000"};
    static const char *const hv[] = {"HRANDFIELD", "rh", "-1000", "WITHVALUES"};
    static const char *const s[] = {"SRANDMEMBER", "rs", "-1000"};
    static const char *const h2[] = {"HRANDFIELD", "rh", "2"};
    static const char *const hv8[] = {"HRANDFIELD", "rh", "8", "WITHVALUES"};
    static const char *const s2[] = {"SRANDMEMBER", "rs", "2"};
    static const char *const s8[] = {"SRANDMEMBER", "rs", "8"};
    distribution(h, 3, 1, 1);
    distribution(hv, 4, 1, 2);
    distribution(s, 3, 1, 1);
    distribution(h2, 3, 500, 1);
    distribution(hv8, 4, 125, 2);
    distribution(s2, 3, 500, 1);
    distribution(s8, 3, 125, 1);
}

/* A timeout under a millisecond rounds up to 1 ms (Redis 7.0.15's ceill),
 * not down to 0, which blocks forever. */
static void short_timeouts(void)
{
    C("DEL", "nothing");
    C("BLPOP", "nothing", "0.001");
    C("BRPOP", "nothing", "0.0001");
    C("BLMPOP", "0.0009", "1", "nothing", "LEFT");
    C("BZPOPMIN", "nothing", "0.0000001");
    C("BLMOVE", "nothing", "x", "LEFT", "RIGHT", "0.0005");
    C("BLPOP", "nothing", "-0.0001x");
    C("BLPOP", "nothing", "-1.5");
}

/* PTTL/TTL read the real clock, as Redis 7.0's mstime(): inside EXEC (and a
 * script) the remaining time moves on across a DEBUG SLEEP, while the key
 * is still judged at the transaction's instant. Checked as a lower bound
 * (the sleep guarantees at least 200 ms passed), on both servers. */
static void ttl_moves_in_exec(void)
{
    C("SET", "ttlk", "v", "PX", "100000");
    C("MULTI");
    C("PTTL", "ttlk");
    C("DEBUG", "SLEEP", "0.2");
    C("PTTL", "ttlk");
    const char *argv[] = {"EXEC"};
    char *g, *r;
    size_t gl, rl;
    diff_exchange(&d, 1, argv, NULL, &g, &gl, &r, &rl);
    const char *replies[] = {g, r}, *who[] = {"goblin-core", "redis-server"};
    for (int i = 0; i < 2; i++) {
        long long before, after;
        if (sscanf(replies[i], "*3\r\n:%lld\r\n+OK\r\n:%lld\r\n", &before, &after) != 2 ||
            before - after < 200) {
            fprintf(stderr, "diff_debug: %s: PTTL inside EXEC did not move: %s\n", who[i],
                    replies[i]);
            exit(1);
        }
    }
    free(g);
    free(r);
    C("DEL", "ttlk");
}

/* DEBUG RELOAD's options: NOFLUSH onto what is loaded fails on the first
 * duplicate (a function library here), MERGE replaces it, NOSAVE loads
 * the file as it is; other words are refused. */
static void reload_options(void)
{
    C("FUNCTION", "FLUSH");
    C("FUNCTION", "LOAD",
      "#!lua name=reloadlib\nredis.register_function('rl', function() return 'hello' end)");
    C("SET", "reloadk", "v1");
    C("DEBUG", "RELOAD");
    C("SET", "reloadk", "v2");
    C("DEBUG", "RELOAD", "NOFLUSH");
    C("DEBUG", "RELOAD", "nosave", "noflush", "merge");
    C("FCALL", "rl", "0");
    C("GET", "reloadk"); /* v1: the file's, not the one set after it was saved */
    C("DEBUG", "RELOAD", "bogus");
    C("DEBUG", "RELOAD", "NOSAVE");
    C("DBSIZE");
    C("FUNCTION", "FLUSH");
    C("DEL", "reloadk");
}

static void run_all(bool resp3)
{
    short_timeouts();
    digests();
    objects();
    others(resp3);
    dirty();
    sort_limits();
    randomness();
    ttl_moves_in_exec();
    reload_options();
}

int main(void)
{
    unsigned long long seed = test_seed("diff_debug");
    static const char *const extra[] = {"--enable-debug-command", "yes", NULL};
    diff_start(&d, "diff_debug", seed, extra, extra);
    run_all(false);
    diff_hello3(&d);
    run_all(true);
    diff_stop(&d);
    return 0;
}
