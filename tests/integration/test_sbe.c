/* Integration: the SBE wire against a real server — the handshake and
 * RESP fallback, trust flags, every typed template and the generic one over
 * TCP, Unix sockets and a ring, pipelining, malformed frames (answered and
 * skipped, or closing the connection), oversized replies, and Pub/Sub with
 * pushes on each transport. The differential suites run over SBE too
 * (sbe.integration.test_diff_*, tests/lib/diff.h). */
#include <errno.h>
#include <goblin/sbe_client.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static struct goblin_sbe_reply reply(struct goblin_sbe *s, int64_t correlation)
{
    struct goblin_sbe_reply r;
    int rc = goblin_sbe_read_reply(s, &r, 10 * 1000000LL);
    CHECKF(rc == 0, "read_reply: %s", strerror(-rc));
    CHECK_EQ_LL(r.correlation, correlation);
    CHECK(r.count >= 1);
    return r;
}

static char *render(const struct goblin_sbe_reply *r)
{
    char *out = NULL;
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < r->count;) i = goblin_sbe_to_resp3(r, i, &out, &len, &cap);
    return out ? out : calloc(1, 1);
}

/* The reply to `correlation`, rendered as RESP3, must be `resp3`. */
static void expect(struct goblin_sbe *s, int64_t correlation, const char *resp3)
{
    CHECKF(correlation > 0, "request failed: %lld", (long long)correlation);
    struct goblin_sbe_reply r = reply(s, correlation);
    char *out = render(&r);
    CHECKF(strcmp(out, resp3) == 0, "got %s, want %s", out, resp3);
    free(out);
    goblin_sbe_reply_free(&r);
}

#define ARGS(...)                                                                                  \
    (const char *[])                                                                               \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }
#define NARGS(...) (int)(sizeof(ARGS(__VA_ARGS__)) / sizeof(const char *))
#define CMD(s, ...) goblin_sbe_command(s, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__), NULL)

static void typed_and_generic(struct goblin_sbe *s)
{
    expect(s, CMD(s, "FLUSHALL"), "+OK\r\n");
    expect(s, goblin_sbe_ping(s), "+PONG\r\n");
    expect(s, goblin_sbe_set(s, "k", 1, "v1", 2, 0, GOBLIN_SBE_EXPIRE_KIND_NONE, 0), "+OK\r\n");
    expect(s, goblin_sbe_get(s, "k", 1), "$2\r\nv1\r\n");
    expect(s, goblin_sbe_set(s, "k", 1, "v2", 2, GOBLIN_SBE_SET_FLAGS_NX, 0, 0), "_\r\n");
    expect(s,
           goblin_sbe_set(s, "k", 1, "v3", 2, GOBLIN_SBE_SET_FLAGS_XX | GOBLIN_SBE_SET_FLAGS_GET,
                          GOBLIN_SBE_EXPIRE_KIND_EX, 1000),
           "$2\r\nv1\r\n");
    expect(s, CMD(s, "TTL", "k"), ":1000\r\n");
    expect(s, goblin_sbe_set(s, "k", 1, "v4", 2, 0, GOBLIN_SBE_EXPIRE_KIND_KEEPTTL, 0), "+OK\r\n");
    expect(s, CMD(s, "TTL", "k"), ":1000\r\n");
    /* Redis's own errors, through the typed path. */
    expect(s, goblin_sbe_set(s, "k", 1, "v", 1, 0, GOBLIN_SBE_EXPIRE_KIND_EX, 0),
           "-ERR invalid expire time in 'set' command\r\n");
    expect(s, goblin_sbe_set(s, "k", 1, "v", 1, 0, 9, 0), "-ERR SBE Set: unknown expireKind 9\r\n");
    expect(s, goblin_sbe_incr(s, "n", 1), ":1\r\n");
    expect(s, goblin_sbe_incrby(s, "n", 1, -43), ":-42\r\n");
    expect(s, goblin_sbe_incr(s, "k", 1), "-ERR value is not an integer or out of range\r\n");
    expect(s, goblin_sbe_hset(s, "h", 1, "f", 1, "x", 1), ":1\r\n");
    expect(s, goblin_sbe_hset(s, "h", 1, "f", 1, "y", 1), ":0\r\n");
    expect(s, goblin_sbe_hget(s, "h", 1, "f", 1), "$1\r\ny\r\n");
    expect(s, goblin_sbe_hget(s, "h", 1, "g", 1), "_\r\n");
    expect(s, goblin_sbe_hget(s, "k", 1, "g", 1),
           "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    expect(s, goblin_sbe_zadd(s, "z", 1, 0, 1.5, "m", 1), ":1\r\n");
    expect(s,
           goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_GT | GOBLIN_SBE_ZADD_FLAGS_CH, 1.0, "m",
                           1),
           ":0\r\n");
    expect(s, goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_INCR, 0.25, "m", 1), ",1.75\r\n");
    expect(
        s,
        goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_NX | GOBLIN_SBE_ZADD_FLAGS_XX, 1, "m", 1),
        "-ERR XX and NX options at the same time are not compatible\r\n");
    expect(s, goblin_sbe_zscore(s, "z", 1, "m", 1), ",1.75\r\n");
    expect(s, goblin_sbe_zscore(s, "z", 1, "nope", 4), "_\r\n");
    expect(s, goblin_sbe_del(s, 3, ARGS("k", "n", "absent"), NULL), ":2\r\n");
    /* Every reply shape through the generic template. */
    expect(s, CMD(s, "HGETALL", "h"), "%1\r\n$1\r\nf\r\n$1\r\ny\r\n");
    expect(s, CMD(s, "ZRANGE", "z", "0", "-1", "WITHSCORES"), "*1\r\n*2\r\n$1\r\nm\r\n,1.75\r\n");
    expect(s, CMD(s, "HSET", "h", "a", "1", "b", "2"), ":2\r\n");
    expect(s, CMD(s, "HRANDFIELD", "nokey", "-5", "WITHVALUES"), "*0\r\n");
    expect(s, CMD(s, "EXISTS", "h", "z"), ":2\r\n");
    expect(s, CMD(s, "nosuch", "x"),
           "-ERR unknown command 'nosuch', with args beginning with: 'x' \r\n");
    expect(s, CMD(s, "GET"), "-ERR wrong number of arguments for 'get' command\r\n");
    /* A binary-safe value with CR/LF and NUL. */
    expect(s, goblin_sbe_set(s, "bin", 3, "a\r\n\0b", 5, 0, 0, 0), "+OK\r\n");
    int64_t c = goblin_sbe_get(s, "bin", 3);
    struct goblin_sbe_reply r = reply(s, c);
    CHECK(r.count == 1 && r.values[0].len == 5 && memcmp(r.values[0].data, "a\r\n\0b", 5) == 0);
    goblin_sbe_reply_free(&r);
    /* HELLO does not switch an SBE conn to RESP. */
    c = CMD(s, "HELLO", "2");
    r = reply(s, c);
    CHECK_EQ_LL(r.values[0].kind, GOBLIN_SBE_VALUE_KIND_MAP);
    goblin_sbe_reply_free(&r);
    expect(s, CMD(s, "HGET", "h", "a"), "$1\r\n1\r\n");
}

/* Appends the RESP3 rendering of the reply to `correlation` to *acc. */
static void collect(struct goblin_sbe *s, int64_t correlation, char **acc)
{
    CHECKF(correlation > 0, "request failed: %lld", (long long)correlation);
    struct goblin_sbe_reply r = reply(s, correlation);
    char *one = render(&r);
    size_t had = *acc ? strlen(*acc) : 0;
    *acc = realloc(*acc, had + strlen(one) + 1);
    strcpy(*acc + had, one);
    free(one);
    goblin_sbe_reply_free(&r);
}

/* One step, typed or as the generic template's text form. */
#define STEP(typed_call, ...) collect(s, typed ? (typed_call) : CMD(s, __VA_ARGS__), &acc)
#define GEN(...) collect(s, CMD(s, __VA_ARGS__), &acc)

/* The hot commands' edge cases, every step typed or generic: the two runs
 * must render the same replies and leave the same state. */
static char *edge_cases(struct goblin_sbe *s, bool typed)
{
    char *acc = NULL;
    GEN("FLUSHALL");
    GEN("HSET", "h", "f", "v");
    GEN("SET", "s", "abc");
    /* SET: NX/XX/GET, expiries, their errors, an expired key, wrong type. */
    STEP(goblin_sbe_set(s, "k", 1, "v", 1, GOBLIN_SBE_SET_FLAGS_NX, 0, 0), "SET", "k", "v", "NX");
    STEP(goblin_sbe_set(s, "k", 1, "w", 1, GOBLIN_SBE_SET_FLAGS_NX, 0, 0), "SET", "k", "w", "NX");
    STEP(
        goblin_sbe_set(s, "k", 1, "x", 1, GOBLIN_SBE_SET_FLAGS_XX | GOBLIN_SBE_SET_FLAGS_GET, 0, 0),
        "SET", "k", "x", "XX", "GET");
    STEP(goblin_sbe_set(s, "k", 1, "y", 1, GOBLIN_SBE_SET_FLAGS_NX | GOBLIN_SBE_SET_FLAGS_XX, 0, 0),
         "SET", "k", "y", "NX", "XX");
    STEP(goblin_sbe_set(s, "n", 1, "y", 1, GOBLIN_SBE_SET_FLAGS_XX, 0, 0), "SET", "n", "y", "XX");
    STEP(goblin_sbe_set(s, "k", 1, "y", 1, 0, GOBLIN_SBE_EXPIRE_KIND_PX, -5), "SET", "k", "y", "PX",
         "-5");
    STEP(goblin_sbe_set(s, "k", 1, "y", 1, 0, GOBLIN_SBE_EXPIRE_KIND_EX, 9223372036854775807LL),
         "SET", "k", "y", "EX", "9223372036854775807");
    STEP(goblin_sbe_set(s, "k", 1, "y", 1, 0, GOBLIN_SBE_EXPIRE_KIND_EXAT, 4000000000LL), "SET",
         "k", "y", "EXAT", "4000000000");
    GEN("EXPIRETIME", "k"); /* absolute: the two runs are seconds apart */
    STEP(goblin_sbe_set(s, "k", 1, "z", 1, 0, GOBLIN_SBE_EXPIRE_KIND_KEEPTTL, 0), "SET", "k", "z",
         "KEEPTTL");
    GEN("EXPIRETIME", "k");
    STEP(goblin_sbe_set(s, "gone", 4, "1", 1, 0, GOBLIN_SBE_EXPIRE_KIND_PXAT, 1), "SET", "gone",
         "1", "PXAT", "1");
    STEP(goblin_sbe_get(s, "gone", 4), "GET", "gone");
    GEN("SET", "soon", "1", "PX", "1");
    usleep(5000);
    STEP(goblin_sbe_get(s, "soon", 4), "GET", "soon");
    STEP(goblin_sbe_incr(s, "soon", 4), "INCR", "soon");
    STEP(goblin_sbe_get(s, "h", 1), "GET", "h");
    STEP(goblin_sbe_set(s, "h", 1, "v", 1, GOBLIN_SBE_SET_FLAGS_GET, 0, 0), "SET", "h", "v", "GET");
    /* INCR / INCRBY: overflow both ways, not an integer, wrong type. */
    STEP(goblin_sbe_incrby(s, "c", 1, 9223372036854775807LL), "INCRBY", "c", "9223372036854775807");
    STEP(goblin_sbe_incr(s, "c", 1), "INCR", "c");
    STEP(goblin_sbe_incrby(s, "c", 1, (-9223372036854775807LL - 1)), "INCRBY", "c",
         "-9223372036854775808");
    STEP(goblin_sbe_incrby(s, "c", 1, -2), "INCRBY", "c", "-2");
    STEP(goblin_sbe_incrby(s, "s", 1, 1), "INCRBY", "s", "1");
    STEP(goblin_sbe_incrby(s, "h", 1, 1), "INCRBY", "h", "1");
    /* ZADD: every flag combination's replies and errors. */
    static const char *const words[] = {"NX", "XX", "GT", "LT", "CH", "INCR"};
    for (unsigned flags = 0; flags < 64; flags++) {
        const char *argv[12] = {"ZADD", "z"};
        int argc = 2;
        for (unsigned i = 0; i < 6; i++)
            if (flags & (1u << i)) argv[argc++] = words[i];
        double score = (flags % 3) + 0.5;
        char text[32];
        snprintf(text, sizeof text, "%.17g", score);
        argv[argc++] = text;
        argv[argc++] = flags & 1 ? "m" : "n";
        collect(s,
                typed ? goblin_sbe_zadd(s, "z", 1, (uint8_t)flags, score, argv[argc - 1], 1)
                      : goblin_sbe_command(s, argc, argv, NULL),
                &acc);
    }
    GEN("ZRANGE", "z", "0", "-1", "WITHSCORES");
    STEP(goblin_sbe_zadd(s, "z", 1, 0, 0.0 / 0.0, "m", 1), "ZADD", "z", "nan", "m");
    STEP(goblin_sbe_zadd(s, "z", 1, 0, 1.0 / 0.0, "i", 1), "ZADD", "z", "inf", "i");
    STEP(goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_INCR, -1.0 / 0.0, "i", 1), "ZADD", "z",
         "INCR", "-inf", "i");
    STEP(goblin_sbe_zadd(s, "z2", 2, GOBLIN_SBE_ZADD_FLAGS_XX, 1, "m", 1), "ZADD", "z2", "XX", "1",
         "m");
    GEN("EXISTS", "z2");
    STEP(goblin_sbe_zadd(s, "s", 1, 0, 1, "m", 1), "ZADD", "s", "1", "m");
    STEP(goblin_sbe_zscore(s, "z", 1, "i", 1), "ZSCORE", "z", "i");
    STEP(goblin_sbe_zscore(s, "z", 1, "x", 1), "ZSCORE", "z", "x");
    STEP(goblin_sbe_zscore(s, "s", 1, "x", 1), "ZSCORE", "s", "x");
    /* HSET / HGET. */
    STEP(goblin_sbe_hset(s, "h2", 2, "f", 1, "1", 1), "HSET", "h2", "f", "1");
    STEP(goblin_sbe_hset(s, "s", 1, "f", 1, "1", 1), "HSET", "s", "f", "1");
    STEP(goblin_sbe_hget(s, "h2", 2, "f", 1), "HGET", "h2", "f");
    STEP(goblin_sbe_hget(s, "s", 1, "f", 1), "HGET", "s", "f");
    STEP(goblin_sbe_publish(s, "ch", 2, "m", 1), "PUBLISH", "ch", "m");
    STEP(goblin_sbe_ping(s), "PING");
    GEN("DBSIZE");
    return acc;
}

/* The INFO field `name` (e.g. "cmdstat_set:calls=") as the text up to the
 * line's end. */
static char *info_field(struct goblin_sbe *s, const char *section, const char *name)
{
    struct goblin_sbe_reply r = reply(s, CMD(s, "INFO", section));
    char *text = strndup(r.values[0].data, r.values[0].len);
    goblin_sbe_reply_free(&r);
    char *at = strstr(text, name);
    CHECKF(at != NULL, "INFO %s has no %s", section, name);
    size_t n = strcspn(at, "\r\n");
    char *out = strndup(at, n);
    free(text);
    return out;
}

static void expect_info(struct goblin_sbe *s, const char *section, const char *prefix,
                        const char *want)
{
    char *got = info_field(s, section, prefix);
    CHECKF(strncmp(got, want, strlen(want)) == 0, "got %s, want %s", got, want);
    free(got);
}

static long long dirty_now(struct goblin_sbe *s)
{
    char *field = info_field(s, "persistence", "rdb_changes_since_last_save:");
    long long n = atoll(strchr(field, ':') + 1);
    free(field);
    return n;
}

/* How far the writes of the hot commands move the dirty counter. */
static long long dirty_of_writes(struct goblin_sbe *s, bool typed)
{
    char *acc = NULL;
    GEN("FLUSHALL");
    long long before = dirty_now(s);
    STEP(goblin_sbe_set(s, "k", 1, "1", 1, 0, 0, 0), "SET", "k", "1");
    STEP(goblin_sbe_set(s, "k", 1, "2", 1, GOBLIN_SBE_SET_FLAGS_NX, 0, 0), "SET", "k", "2", "NX");
    STEP(goblin_sbe_incrby(s, "k", 1, 5), "INCRBY", "k", "5");
    STEP(goblin_sbe_hset(s, "h", 1, "f", 1, "v", 1), "HSET", "h", "f", "v");
    STEP(goblin_sbe_zadd(s, "z", 1, 0, 2.5, "m", 1), "ZADD", "z", "2.5", "m");
    STEP(goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_GT, 1, "m", 1), "ZADD", "z", "GT", "1",
         "m");
    free(acc);
    return dirty_now(s) - before;
}

/* The typed path: same replies as the text form, and the same accounting
 * (INFO commandstats calls and failures, keyspace hits and misses, the
 * dirty counter). */
static void typed_path(struct goblin_sbe *s)
{
    char *typed = edge_cases(s, true);
    char *generic = edge_cases(s, false);
    CHECKF(strcmp(typed, generic) == 0, "typed:\n%s\ngeneric:\n%s", typed, generic);
    free(typed);
    free(generic);

    /* The dirty counter moves alike on both paths. */
    long long typed_dirty = dirty_of_writes(s, true);
    CHECK_EQ_LL(typed_dirty, dirty_of_writes(s, false));
    expect(s, CMD(s, "FLUSHALL"), "+OK\r\n");
    expect(s, CMD(s, "CONFIG", "RESETSTAT"), "+OK\r\n");
    expect(s, goblin_sbe_set(s, "k", 1, "1", 1, 0, 0, 0), "+OK\r\n");
    expect(s, goblin_sbe_set(s, "k", 1, "2", 1, 0, 0, 0), "+OK\r\n");
    expect(s, goblin_sbe_get(s, "k", 1), "$1\r\n2\r\n");
    expect(s, goblin_sbe_get(s, "absent", 6), "_\r\n");
    expect(s, goblin_sbe_incrby(s, "k", 1, 5), ":7\r\n");
    expect(s, goblin_sbe_hset(s, "h", 1, "f", 1, "v", 1), ":1\r\n");
    expect(s, goblin_sbe_hget(s, "h", 1, "f", 1), "$1\r\nv\r\n");
    expect(s, goblin_sbe_zadd(s, "z", 1, 0, 2.5, "m", 1), ":1\r\n");
    expect(
        s,
        goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_GT | GOBLIN_SBE_ZADD_FLAGS_LT, 1, "m", 1),
        "-ERR GT, LT, and/or NX options at the same time are not compatible\r\n");
    expect(s, goblin_sbe_zscore(s, "z", 1, "m", 1), ",2.5\r\n");
    expect(s, goblin_sbe_zscore(s, "h", 1, "m", 1),
           "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    expect(s, goblin_sbe_ping(s), "+PONG\r\n");
    expect_info(s, "commandstats", "cmdstat_set:calls=", "cmdstat_set:calls=2,");
    expect_info(s, "commandstats", "cmdstat_get:calls=", "cmdstat_get:calls=2,");
    expect_info(s, "commandstats", "cmdstat_incrby:calls=", "cmdstat_incrby:calls=1,");
    expect_info(s, "commandstats", "cmdstat_hset:calls=", "cmdstat_hset:calls=1,");
    expect_info(s, "commandstats", "cmdstat_hget:calls=", "cmdstat_hget:calls=1,");
    expect_info(s, "commandstats", "cmdstat_ping:calls=", "cmdstat_ping:calls=1,");
    char *z = info_field(s, "commandstats", "cmdstat_zadd:calls=");
    CHECKF(strncmp(z, "cmdstat_zadd:calls=2,", 21) == 0 && strstr(z, "failed_calls=1"), "got %s",
           z);
    free(z);
    z = info_field(s, "commandstats", "cmdstat_zscore:calls=");
    CHECKF(strncmp(z, "cmdstat_zscore:calls=2,", 23) == 0 && strstr(z, "failed_calls=1"), "got %s",
           z);
    free(z);
    /* Hits: GET k, HGET h, ZSCORE z, ZSCORE h (found, wrong type); miss: GET absent. */
    char *hits = info_field(s, "stats", "keyspace_hits:");
    char *misses = info_field(s, "stats", "keyspace_misses:");
    CHECK_STR(hits, "keyspace_hits:4");
    CHECK_STR(misses, "keyspace_misses:1");
    free(hits);
    free(misses);
    /* Twelve typed calls above, none lowered to the generic path. */
    char *calls = info_field(s, "stats", "sbe_typed_calls:");
    CHECK_STR(calls, "sbe_typed_calls:12");
    free(calls);
    /* maxmemory: a typed write that may grow is refused as the text form
     * is (a rejected call), reads and PING still run. */
    expect(s, CMD(s, "CONFIG", "SET", "maxmemory", "1"), "+OK\r\n");
    const char *oom = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";
    expect(s, goblin_sbe_set(s, "k", 1, "1", 1, 0, 0, 0), oom);
    expect(s, goblin_sbe_zadd(s, "z", 1, 0, 1, "n", 1), oom);
    expect(s, CMD(s, "SET", "k", "1"), oom);
    expect(s, goblin_sbe_get(s, "k", 1), "$1\r\n7\r\n");
    expect(s, goblin_sbe_ping(s), "+PONG\r\n");
    expect(s, CMD(s, "CONFIG", "SET", "maxmemory", "0"), "+OK\r\n");
    expect_info(s, "commandstats", "cmdstat_set:calls=", "cmdstat_set:calls=2,");
    z = info_field(s, "commandstats", "cmdstat_set:calls=");
    CHECKF(strstr(z, "rejected_calls=2,") != NULL, "got %s", z);
    free(z);
}

/* SLOWLOG's newest entry (before the SLOWLOG GET itself) must show the
 * arguments `args` (RESP3, the entry's argument array). */
static void expect_slowlog_args(struct goblin_sbe *s, const char *args)
{
    int64_t id = CMD(s, "SLOWLOG", "GET", "1");
    CHECK(id > 0);
    struct goblin_sbe_reply r = reply(s, id);
    char *out = render(&r);
    CHECKF(strstr(out, args) != NULL, "SLOWLOG GET 1: %s, want arguments %s", out, args);
    free(out);
    goblin_sbe_reply_free(&r);
}

/* A typed call's SLOWLOG entry shows its RESP form, numbers as text, as
 * the same command sent as text shows. */
static void slowlog(struct goblin_sbe *s)
{
    expect(s, CMD(s, "FLUSHALL"), "+OK\r\n");
    expect(s, CMD(s, "CONFIG", "SET", "slowlog-log-slower-than", "0"), "+OK\r\n");
    const char *set_nx = "*7\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n$3\r\n"
                         "GET\r\n$2\r\nEX\r\n$3\r\n100\r\n";
    expect(s,
           goblin_sbe_set(s, "k", 1, "v", 1, GOBLIN_SBE_SET_FLAGS_NX | GOBLIN_SBE_SET_FLAGS_GET,
                          GOBLIN_SBE_EXPIRE_KIND_EX, 100),
           "_\r\n");
    expect_slowlog_args(s, set_nx);
    expect(s, CMD(s, "SET", "k", "v", "NX", "GET", "EX", "100"), "$1\r\nv\r\n");
    expect_slowlog_args(s, set_nx);
    const char *set_keep = "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nw\r\n$2\r\nXX\r\n$7\r\n"
                           "KEEPTTL\r\n";
    expect(s,
           goblin_sbe_set(s, "k", 1, "w", 1, GOBLIN_SBE_SET_FLAGS_XX,
                          GOBLIN_SBE_EXPIRE_KIND_KEEPTTL, 0),
           "+OK\r\n");
    expect_slowlog_args(s, set_keep);
    const char *incrby = "*3\r\n$6\r\nINCRBY\r\n$1\r\nn\r\n$2\r\n-5\r\n";
    expect(s, goblin_sbe_incrby(s, "n", 1, -5), ":-5\r\n");
    expect_slowlog_args(s, incrby);
    expect(s, CMD(s, "INCRBY", "n", "-5"), ":-10\r\n");
    expect_slowlog_args(s, incrby);
    const char *zadd = "*6\r\n$4\r\nZADD\r\n$1\r\nz\r\n$2\r\nCH\r\n$4\r\nINCR\r\n$5\r\n"
                       "-0.25\r\n$1\r\nm\r\n";
    expect(s,
           goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_CH | GOBLIN_SBE_ZADD_FLAGS_INCR, -0.25,
                           "m", 1),
           ",-0.25\r\n");
    expect_slowlog_args(s, zadd);
    expect(s, CMD(s, "ZADD", "z", "CH", "INCR", "-0.25", "m"), ",-0.5\r\n");
    expect_slowlog_args(s, zadd);
    /* A typed call without numbers shows its byte fields. */
    expect(s, goblin_sbe_hset(s, "h", 1, "f", 1, "v", 1), ":1\r\n");
    expect_slowlog_args(s, "*4\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\nf\r\n$1\r\nv\r\n");
    expect(s, CMD(s, "CONFIG", "SET", "slowlog-log-slower-than", "10000"), "+OK\r\n");
    expect(s, CMD(s, "SLOWLOG", "RESET"), "+OK\r\n");
}

/* One transaction of the hot commands, every step typed or as the generic
 * template's text form: each is answered QUEUED, then EXEC's array. */
static char *transaction(struct goblin_sbe *s, bool typed)
{
    char *acc = NULL;
    GEN("FLUSHALL");
    GEN("SET", "s", "abc");
    GEN("MULTI");
    STEP(goblin_sbe_ping(s), "PING");
    STEP(goblin_sbe_set(s, "k", 1, "v", 1, GOBLIN_SBE_SET_FLAGS_NX, GOBLIN_SBE_EXPIRE_KIND_EX, 100),
         "SET", "k", "v", "NX", "EX", "100");
    STEP(goblin_sbe_set(s, "k", 1, "w", 1, GOBLIN_SBE_SET_FLAGS_XX | GOBLIN_SBE_SET_FLAGS_GET,
                        GOBLIN_SBE_EXPIRE_KIND_KEEPTTL, 0),
         "SET", "k", "w", "XX", "GET", "KEEPTTL");
    STEP(goblin_sbe_set(s, "k", 1, "y", 1, GOBLIN_SBE_SET_FLAGS_NX | GOBLIN_SBE_SET_FLAGS_XX, 0, 0),
         "SET", "k", "y", "NX", "XX");
    STEP(goblin_sbe_get(s, "k", 1), "GET", "k");
    STEP(goblin_sbe_incr(s, "n", 1), "INCR", "n");
    STEP(goblin_sbe_incrby(s, "n", 1, -9223372036854775807LL), "INCRBY", "n",
         "-9223372036854775807");
    STEP(goblin_sbe_incrby(s, "s", 1, 1), "INCRBY", "s", "1");
    STEP(goblin_sbe_hset(s, "h", 1, "f", 1, "v", 1), "HSET", "h", "f", "v");
    STEP(goblin_sbe_hget(s, "h", 1, "f", 1), "HGET", "h", "f");
    STEP(goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_CH, 0.1, "m", 1), "ZADD", "z", "CH",
         "0.10000000000000001", "m");
    STEP(goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_INCR | GOBLIN_SBE_ZADD_FLAGS_GT, -1e300,
                         "m", 1),
         "ZADD", "z", "GT", "INCR", "-1.0000000000000001e+300", "m");
    STEP(goblin_sbe_zadd(s, "z", 1, GOBLIN_SBE_ZADD_FLAGS_NX | GOBLIN_SBE_ZADD_FLAGS_GT, 1, "m", 1),
         "ZADD", "z", "NX", "GT", "1", "m");
    STEP(goblin_sbe_zscore(s, "z", 1, "m", 1), "ZSCORE", "z", "m");
    STEP(goblin_sbe_publish(s, "nobody", 6, "m", 1), "PUBLISH", "nobody", "m");
    STEP(goblin_sbe_del(s, 2, ARGS("k", "absent"), NULL), "DEL", "k", "absent");
    GEN("EXEC");
    GEN("MGET", "k", "n", "s");
    GEN("ZRANGE", "z", "0", "-1", "WITHSCORES");
    GEN("DBSIZE");
    return acc;
}

/* Typed writes from another connection invalidate WATCH as their text
 * forms do; a typed read does not. */
static void watch(struct goblin_sbe *s, struct goblin_sbe *other)
{
    expect(s, CMD(s, "FLUSHALL"), "+OK\r\n");
    expect(s, CMD(s, "HSET", "h", "f", "v"), ":1\r\n");
    expect(s, CMD(s, "ZADD", "z", "1", "m"), ":1\r\n");
    expect(s, CMD(s, "SET", "n", "1"), "+OK\r\n");
    for (int w = 0; w < 6; w++) {
        static const char *const keys[] = {"k", "n", "h", "z", "k", "n"};
        expect(s, CMD(s, "WATCH", keys[w]), "+OK\r\n");
        int64_t c = 0;
        switch (w) {
        case 0:
            c = goblin_sbe_set(other, "k", 1, "v", 1, 0, GOBLIN_SBE_EXPIRE_KIND_PX, 100000);
            break;
        case 1:
            c = goblin_sbe_incrby(other, "n", 1, 5);
            break;
        case 2:
            c = goblin_sbe_hset(other, "h", 1, "f", 1, "w", 1);
            break;
        case 3:
            c = goblin_sbe_zadd(other, "z", 1, GOBLIN_SBE_ZADD_FLAGS_INCR, 2, "m", 1);
            break;
        case 4:
            c = goblin_sbe_del(other, 1, ARGS("k"), NULL);
            break;
        case 5:
            c = goblin_sbe_incr(other, "n", 1);
            break;
        }
        struct goblin_sbe_reply r = reply(other, c);
        CHECKF(r.values[0].kind != GOBLIN_SBE_VALUE_KIND_ERROR, "write %d failed", w);
        goblin_sbe_reply_free(&r);
        expect(s, CMD(s, "MULTI"), "+OK\r\n");
        expect(s, goblin_sbe_get(s, "n", 1), "+QUEUED\r\n");
        expect(s, CMD(s, "EXEC"), "_\r\n");
    }
    /* Reads from the other side leave the watch intact. */
    expect(s, CMD(s, "WATCH", "n"), "+OK\r\n");
    expect(other, goblin_sbe_get(other, "n", 1), "$1\r\n7\r\n");
    expect(s, CMD(s, "MULTI"), "+OK\r\n");
    expect(s, goblin_sbe_incrby(s, "n", 1, 3), "+QUEUED\r\n");
    expect(s, CMD(s, "EXEC"), "*1\r\n:10\r\n");
}

/* Inside MULTI typed frames are queued exactly as their generic forms (and
 * counted as text: lowered); WATCH sees typed writes. */
static void transactions(struct goblin_sbe *s, struct goblin_sbe *other)
{
    char *typed = transaction(s, true);
    char *generic = transaction(s, false);
    CHECKF(strcmp(typed, generic) == 0, "typed:\n%s\ngeneric:\n%s", typed, generic);
    CHECKF(strstr(typed, "+QUEUED\r\n") != NULL, "nothing queued:\n%s", typed);
    free(typed);
    free(generic);
    watch(s, other);
}

/* 2000 requests queued before the first read: replies come in order. */
static void pipelining(struct goblin_sbe *s)
{
    enum { N = 2000 };
    static int64_t ids[N];
    for (int i = 0; i < N; i++) {
        char v[16];
        int n = snprintf(v, sizeof v, "%d", i);
        ids[i] =
            i % 2 ? goblin_sbe_get(s, "p", 1) : goblin_sbe_set(s, "p", 1, v, (size_t)n, 0, 0, 0);
        CHECK(ids[i] > 0);
    }
    for (int i = 0; i < N; i++) {
        struct goblin_sbe_reply r = reply(s, ids[i]);
        if (i % 2) {
            char v[16];
            int n = snprintf(v, sizeof v, "%d", i - 1);
            CHECK(r.values[0].len == (uint32_t)n && memcmp(r.values[0].data, v, (size_t)n) == 0);
        }
        goblin_sbe_reply_free(&r);
    }
}

/* A frame built by hand: header fields as given, then `body`. */
static size_t raw_frame(uint8_t *out, uint16_t block_length, uint16_t template_id,
                        uint16_t schema_id, uint16_t version, const void *body, size_t body_len)
{
    goblin_sbe_put_u32(out, (uint32_t)(GOBLIN_SBE_HEADER_LENGTH + body_len));
    goblin_sbe_put_u16(out + 4, block_length);
    goblin_sbe_put_u16(out + 6, template_id);
    goblin_sbe_put_u16(out + 8, schema_id);
    goblin_sbe_put_u16(out + 10, version);
    memcpy(out + 12, body, body_len);
    return 12 + body_len;
}

static void expect_error_frame(struct goblin_sbe *s, uint64_t correlation, const char *text)
{
    struct goblin_sbe_reply r;
    int rc = goblin_sbe_read_reply(s, &r, 10 * 1000000LL);
    CHECKF(rc == 0, "read_reply: %s", strerror(-rc));
    CHECK_EQ_LL(r.template_id, GOBLIN_SBE_ERROR_REPLY_TEMPLATE_ID);
    CHECK_EQ_LL(r.correlation, correlation);
    char *out = render(&r);
    CHECKF(strstr(out, text) != NULL, "error %s lacks %s", out, text);
    free(out);
    goblin_sbe_reply_free(&r);
}

static void malformed(struct goblin_sbe *s)
{
    uint8_t f[256], body[64] = {0};
    goblin_sbe_put_u64(body, 77); /* correlation id */
    /* Well framed, refused, connection kept. */
    size_t n = raw_frame(f, 8, 999, GOBLIN_SBE_SCHEMA_ID, 1, body, 8);
    CHECK(goblin_sbe_send_raw(s, f, n) == 0);
    expect_error_frame(s, 77, "unknown SBE template 999");
    n = raw_frame(f, 8, GOBLIN_SBE_INT_REPLY_TEMPLATE_ID, GOBLIN_SBE_SCHEMA_ID, 1, body, 16);
    CHECK(goblin_sbe_send_raw(s, f, n) == 0);
    expect_error_frame(s, 77, "(IntReply) is not a request");
    n = raw_frame(f, 8, GOBLIN_SBE_GET_TEMPLATE_ID, GOBLIN_SBE_SCHEMA_ID,
                  GOBLIN_SBE_SCHEMA_VERSION + 1, body, 8);
    CHECK(goblin_sbe_send_raw(s, f, n) == 0);
    expect_error_frame(
        s, 77, "unsupported SBE schema 7447 version 3 (this server speaks schema 7447 version 2)");
    n = raw_frame(f, 8, GOBLIN_SBE_GET_TEMPLATE_ID, 1234, 1, body, 8);
    CHECK(goblin_sbe_send_raw(s, f, n) == 0);
    expect_error_frame(s, 77, "unsupported SBE schema 1234");
    n = raw_frame(f, 4, GOBLIN_SBE_GET_TEMPLATE_ID, GOBLIN_SBE_SCHEMA_ID, 1, body, 8);
    CHECK(goblin_sbe_send_raw(s, f, n) == 0);
    expect_error_frame(s, 0, "blockLength is shorter");
    /* Get whose key length runs past the frame. */
    goblin_sbe_put_u32(body + 8, 100);
    n = raw_frame(f, 8, GOBLIN_SBE_GET_TEMPLATE_ID, GOBLIN_SBE_SCHEMA_ID, 1, body, 14);
    CHECK(goblin_sbe_send_raw(s, f, n) == 0);
    expect_error_frame(s, 77, "var-data runs past the frame");
    /* Command whose group claims 65535 arguments in 12 bytes. */
    goblin_sbe_put_u16(body + 8, 0);
    goblin_sbe_put_u16(body + 10, 65535);
    n = raw_frame(f, 8, GOBLIN_SBE_COMMAND_TEMPLATE_ID, GOBLIN_SBE_SCHEMA_ID, 1, body, 12);
    CHECK(goblin_sbe_send_raw(s, f, n) == 0);
    expect_error_frame(s, 77, "repeating group runs past the frame");
    /* A Command with no arguments. */
    goblin_sbe_put_u16(body + 10, 0);
    n = raw_frame(f, 8, GOBLIN_SBE_COMMAND_TEMPLATE_ID, GOBLIN_SBE_SCHEMA_ID, 1, body, 12);
    CHECK(goblin_sbe_send_raw(s, f, n) == 0);
    expect_error_frame(s, 77, "without a command name");
    /* Still in step. */
    expect(s, goblin_sbe_ping(s), "+PONG\r\n");
}

/* A frame length that cannot be trusted: an error, then the close. */
static void untrustworthy_length(struct test_server *srv, uint32_t length)
{
    struct goblin_sbe *s;
    CHECK(goblin_sbe_connect_tcp("127.0.0.1", srv->port, &s) == 0);
    uint8_t f[16] = {0};
    goblin_sbe_put_u32(f, length);
    CHECK(goblin_sbe_send_raw(s, f, sizeof f) == 0);
    expect_error_frame(s, 0, "Protocol error: SBE frame length");
    struct goblin_sbe_reply r;
    CHECK_EQ_LL(goblin_sbe_read_reply(s, &r, 10 * 1000000LL), -EPIPE);
    goblin_sbe_close(s);
}

/* A reply of more values than a group can count is an error, not a cut. */
static void oversized_reply(struct goblin_sbe *s)
{
    /* A hash of 40000 fields (two HSETs of 20000), whose HGETALL is
     * 1 + 80000 values. */
    enum { FIELDS = 20000 };
    const char **argv = malloc(sizeof *argv * (2 + 2 * FIELDS));
    char *names = malloc((size_t)FIELDS * 2 * 16);
    for (int half = 0; half < 2; half++) {
        argv[0] = "HSET";
        argv[1] = "bigh";
        for (int i = 0; i < FIELDS; i++) {
            char *f = names + (size_t)(half * FIELDS + i) * 16;
            snprintf(f, 16, "f%d", half * FIELDS + i);
            argv[2 + 2 * i] = f;
            argv[3 + 2 * i] = "v";
        }
        expect(s, goblin_sbe_command(s, 2 + 2 * FIELDS, argv, NULL), ":20000\r\n");
    }
    free(argv);
    free(names);
    int64_t c = CMD(s, "HGETALL", "bigh");
    expect_error_frame(s, (uint64_t)c, "exceeds an SBE frame");
    /* The connection stays usable. */
    expect(s, CMD(s, "HLEN", "bigh"), ":40000\r\n");
    expect(s, CMD(s, "DEL", "bigh"), ":1\r\n");
}

static void expect_push(struct goblin_sbe *s, uint8_t kind, const char *resp3)
{
    struct goblin_sbe_reply r;
    int rc = goblin_sbe_read_push(s, &r, 10 * 1000000LL);
    CHECKF(rc == 0, "read_push: %s", strerror(-rc));
    CHECK_EQ_LL(r.correlation, 0);
    CHECK_EQ_LL(r.template_id, GOBLIN_SBE_PUSH_TEMPLATE_ID);
    CHECK_EQ_LL(r.push_kind, kind);
    char *out = render(&r);
    CHECKF(strcmp(out, resp3) == 0, "push %s, want %s", out, resp3);
    free(out);
    goblin_sbe_reply_free(&r);
}

/* Subscriber and publisher on two SBE conns of one transport. */
static void pubsub(struct goblin_sbe *sub, struct goblin_sbe *pub)
{
    int64_t c =
        goblin_sbe_subscribe(sub, GOBLIN_SBE_SUBSCRIBE_TEMPLATE_ID, 2, ARGS("ch", "other"), NULL);
    struct goblin_sbe_reply r = reply(sub, c);
    CHECK_EQ_LL(r.template_id, GOBLIN_SBE_PUSH_TEMPLATE_ID);
    CHECK_EQ_LL(r.push_kind, GOBLIN_SBE_PUSH_KIND_SUBSCRIBE);
    char *out = render(&r);
    CHECK_STR(out, ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
                   ">3\r\n$9\r\nsubscribe\r\n$5\r\nother\r\n:2\r\n");
    free(out);
    goblin_sbe_reply_free(&r);
    expect(sub, goblin_sbe_subscribe(sub, GOBLIN_SBE_PSUBSCRIBE_TEMPLATE_ID, 1, ARGS("c*"), NULL),
           ">3\r\n$10\r\npsubscribe\r\n$2\r\nc*\r\n:3\r\n");
    expect(pub, goblin_sbe_publish(pub, "ch", 2, "hello", 5), ":2\r\n");
    expect_push(sub, GOBLIN_SBE_PUSH_KIND_MESSAGE,
                ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n");
    expect_push(sub, GOBLIN_SBE_PUSH_KIND_PMESSAGE,
                ">4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nch\r\n$5\r\nhello\r\n");
    /* A subscriber may run any command (RESP3 rules) ... */
    expect(sub, goblin_sbe_ping(sub), "+PONG\r\n");
    /* ... and a message it publishes to itself precedes the PUBLISH reply. */
    CHECK(!goblin_sbe_pushes_queued(sub));
    expect(sub, goblin_sbe_publish(sub, "other", 5, "self", 4), ":1\r\n");
    CHECK(goblin_sbe_pushes_queued(sub));
    expect_push(sub, GOBLIN_SBE_PUSH_KIND_MESSAGE,
                ">3\r\n$7\r\nmessage\r\n$5\r\nother\r\n$4\r\nself\r\n");
    /* Many messages, pipelined, arrive whole and in order. */
    for (int i = 0; i < 300; i++) {
        char m[16];
        int n = snprintf(m, sizeof m, "m%d", i);
        CHECK(goblin_sbe_publish(pub, "other", 5, m, (size_t)n) > 0);
    }
    CHECK(goblin_sbe_flush(pub) == 0);
    for (int i = 0; i < 300; i++) {
        struct goblin_sbe_reply p;
        CHECK(goblin_sbe_read_push(sub, &p, 10 * 1000000LL) == 0);
        char m[16];
        int n = snprintf(m, sizeof m, "m%d", i);
        CHECK(p.count == 4 && p.values[3].len == (uint32_t)n &&
              memcmp(p.values[3].data, m, (size_t)n) == 0);
        goblin_sbe_reply_free(&p);
        CHECK(goblin_sbe_read_reply(pub, &p, 10 * 1000000LL) == 0);
        goblin_sbe_reply_free(&p);
    }
    expect(
        sub,
        goblin_sbe_subscribe(sub, GOBLIN_SBE_UNSUBSCRIBE_TEMPLATE_ID, 2, ARGS("ch", "other"), NULL),
        ">3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:2\r\n"
        ">3\r\n$11\r\nunsubscribe\r\n$5\r\nother\r\n:1\r\n");
    expect(sub, goblin_sbe_subscribe(sub, GOBLIN_SBE_PUNSUBSCRIBE_TEMPLATE_ID, 0, NULL, NULL),
           ">3\r\n$12\r\npunsubscribe\r\n$2\r\nc*\r\n:0\r\n");
}

/* Reads raw bytes from fd until `want` bytes arrived or it closes. */
static size_t read_raw(int fd, char *buf, size_t want)
{
    size_t got = 0;
    while (got < want) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10000) <= 0) break;
        ssize_t n = read(fd, buf + got, want - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    return got;
}

static void write_all(int fd, const void *p, size_t n)
{
    CHECK(write(fd, p, n) == (ssize_t)n);
}

/* Handshake detection and RESP fallback. */
static void handshake(struct test_server *srv)
{
    struct rconn c;
    char buf[256];
    /* A prefix of the handshake that diverges is RESP, decided at once. */
    rconn_open_tcp(&c, srv->port);
    write_all(c.fd, "GOBLIN\r\n", 8);
    size_t n = read_raw(c.fd, buf, 44);
    buf[n] = '\0';
    CHECKF(strstr(buf, "-ERR unknown command 'GOBLIN'") == buf, "got %s", buf);
    rconn_close(&c);
    /* A short inline PING is never stalled waiting for 8 bytes. */
    rconn_open_tcp(&c, srv->port);
    write_all(c.fd, "PING\r\n", 6);
    n = read_raw(c.fd, buf, 7);
    CHECK(n == 7 && memcmp(buf, "+PONG\r\n", 7) == 0);
    rconn_close(&c);
    /* The handshake split across writes still selects SBE. */
    rconn_open_tcp(&c, srv->port);
    write_all(c.fd, "GOBL", 4);
    usleep(20000);
    uint8_t f[64], body[8] = {0};
    goblin_sbe_put_u64(body, 5);
    size_t fl = raw_frame(f, 8, GOBLIN_SBE_PING_TEMPLATE_ID, GOBLIN_SBE_SCHEMA_ID, 1, body, 8);
    char msg[80];
    memcpy(msg, "INS!", 4);
    memcpy(msg + 4, f, fl);
    write_all(c.fd, msg, 2);
    usleep(20000);
    write_all(c.fd, msg + 2, 4 + fl - 2);
    n = read_raw(c.fd, buf, 4 + 8 + 8 + 4 + 4);
    CHECK_EQ_LL(n, 28);
    CHECK_EQ_LL(goblin_sbe_get_u16((uint8_t *)buf + 6), GOBLIN_SBE_STATUS_REPLY_TEMPLATE_ID);
    CHECK_EQ_LL(goblin_sbe_get_u64((uint8_t *)buf + 12), 5);
    CHECK(memcmp(buf + 24, "PONG", 4) == 0);
    rconn_close(&c);
}

/* SBE from a peer that is not local (127.0.0.2 is not loopback's
 * 127.0.0.1 to conn_is_local, as in Redis 7.0) needs --sbe-allow-remote.
 * Such a peer is also outside protected mode's loopback: the servers it
 * reaches run with --protected-mode no. */
static void remote_peer(struct test_server *srv, bool allowed)
{
    struct rconn c;
    rconn_open_tcp_from(&c, srv->port, "127.0.0.2");
    uint8_t f[64], body[8] = {0};
    goblin_sbe_put_u64(body, 9);
    char msg[80];
    memcpy(msg, "GOBLINS!", 8);
    size_t fl = raw_frame(f, 8, GOBLIN_SBE_PING_TEMPLATE_ID, GOBLIN_SBE_SCHEMA_ID, 1, body, 8);
    memcpy(msg + 8, f, fl);
    write_all(c.fd, msg, 8 + fl);
    char buf[256];
    size_t n = read_raw(c.fd, buf, sizeof buf - 1);
    buf[n] = '\0';
    if (allowed) {
        CHECK_EQ_LL(n, 28);
        CHECK_EQ_LL(goblin_sbe_get_u64((uint8_t *)buf + 12), 9);
    } else {
        CHECK_STR(buf, "-ERR SBE from a non-local peer needs --sbe-allow-remote\r\n");
    }
    rconn_close(&c);
}

/* Replies of a few KiB, many times round the reply queue of a ring: a
 * reply written in place that meets the queue's end outgrows its room and
 * is sent buffered (conn.h, "Replies written in place"); every reply must
 * arrive whole and in order on any transport. */
static void replies_round_the_queue(struct goblin_sbe *s)
{
    static char value[5000];
    memset(value, 'v', sizeof value);
    value[0] = '<';
    value[sizeof value - 1] = '>';
    expect(s, goblin_sbe_set(s, "big", 3, value, sizeof value, 0, 0, 0), "+OK\r\n");
    for (int i = 0; i < 150; i++) {
        int64_t id = goblin_sbe_get(s, "big", 3);
        CHECK(id > 0);
        struct goblin_sbe_reply r = reply(s, id);
        CHECK_EQ_LL((long long)r.values[0].len, (long long)sizeof value);
        CHECK(memcmp(r.values[0].data, value, sizeof value) == 0);
        goblin_sbe_reply_free(&r);
        expect(s, goblin_sbe_ping(s), "+PONG\r\n");
    }
}

static void with_transport(const char *name, struct goblin_sbe *a, struct goblin_sbe *b)
{
    typed_and_generic(a);
    typed_path(a);
    slowlog(a);
    transactions(a, b);
    pipelining(a);
    replies_round_the_queue(a);
    malformed(a);
    pubsub(a, b);
    fprintf(stderr, "sbe over %s: ok\n", name);
}

int main(void)
{
    /* Without --enable-sbe, GOBLINS! is an unknown RESP command, as in Redis. */
    struct test_server plain;
    test_server_start(&plain, TEST_SERVER_GOBLIN, NULL);
    struct rconn c;
    rconn_open_tcp(&c, plain.port);
    write_all(c.fd, "GOBLINS!\r\n", 10);
    char buf[128];
    size_t n = read_raw(c.fd, buf, 46);
    buf[n] = '\0';
    CHECKF(strstr(buf, "-ERR unknown command 'GOBLINS!'") == buf, "got %s", buf);
    rconn_close(&c);
    test_server_stop(&plain);

    char dir[] = "/dev/shm/goblin-sbe-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char ring_a[128], ring_b[128];
    snprintf(ring_a, sizeof ring_a, "%s/a.ring", dir);
    snprintf(ring_b, sizeof ring_b, "%s/b.ring", dir);
    const char *extra[] = {
        "--enable-sbe", "--enable-debug-command", "yes", "--ring", ring_a, "256k", "--ring", ring_b,
        "256k",         "--protected-mode",       "no",  NULL};
    struct test_server srv;
    test_server_start(&srv, TEST_SERVER_GOBLIN, extra);
    handshake(&srv);
    remote_peer(&srv, false);

    struct goblin_sbe *a, *b;
    CHECK(goblin_sbe_connect_tcp("127.0.0.1", srv.port, &a) == 0);
    CHECK(goblin_sbe_connect_tcp("127.0.0.1", srv.port, &b) == 0);
    with_transport("tcp", a, b);
    oversized_reply(a);
    goblin_sbe_close(a);
    goblin_sbe_close(b);
    CHECK(goblin_sbe_connect_unix(srv.unix_path, &a) == 0);
    CHECK(goblin_sbe_connect_unix(srv.unix_path, &b) == 0);
    with_transport("unix", a, b);
    goblin_sbe_close(a);
    goblin_sbe_close(b);
    CHECK(goblin_sbe_open_ring(ring_a, 10000, &a) == 0);
    CHECK(goblin_sbe_open_ring(ring_b, 10000, &b) == 0);
    with_transport("ring", a, b);
    goblin_sbe_close(a);
    goblin_sbe_close(b);
    untrustworthy_length(&srv, 3);
    untrustworthy_length(&srv, 0xffffffffu);
    test_server_stop(&srv);

    const char *remote[] = {"--enable-sbe", "--sbe-allow-remote", "--protected-mode", "no", NULL};
    test_server_start(&srv, TEST_SERVER_GOBLIN, remote);
    remote_peer(&srv, true);
    test_server_stop(&srv);
    unlink(ring_a);
    unlink(ring_b);
    rmdir(dir);
    fprintf(stderr, "sbe: ok\n");
    return 0;
}
