/*
 * Differential test of the set family (and sorted-set algebra over plain
 * sets) against redis-server: directed edge cases and encodings, then a
 * seeded random stream over a few keys and a small member pool (so sets
 * collide, cross types and cross set-max-intset-entries), then the same
 * with a tiny threshold; in RESP2 and again in RESP3.
 *
 * Replies are compared byte for byte, except where they legitimately differ:
 *  - SMEMBERS/SINTER/SUNION/SDIFF of a hashtable set list members in hash
 *    order: compared as multisets (intset order, ascending, is exact).
 *  - SRANDMEMBER/SPOP: errors and nils exactly; otherwise the reply type,
 *    the count, membership and (positive counts, SPOP) distinctness. After
 *    an SPOP that popped the same members, the encodings are compared; when
 *    the members differ, both servers' sets are rebuilt (DEL, SADD) from
 *    goblin-core's remaining members.
 *  - SSCAN: exact for intsets (one step), else a full iteration on each
 *    server must return the same members.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "resp_value.h"
#include "util/rand.h"

static struct diff_pair d;
static bool resp3;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_ARGS 16

static size_t pick(size_t n)
{
    return (size_t)(rand_u64() % n);
}

static void fail(const char *why, int argc, const char *const *argv, const char *g, const char *r)
{
    fprintf(stderr, "%s: %s after %lld commands (seed %llu; rerun with TEST_SEED=%llu, %s)\n",
            d.name, why, d.commands, d.seed, d.seed, resp3 ? "RESP3" : "RESP2");
    fprintf(stderr, "  command:");
    for (int i = 0; i < argc; i++) fprintf(stderr, " '%s'", argv[i]);
    char gt[4096], rt[4096];
    fprintf(stderr, "\n  redis-server: %s\n  goblin-core:  %s\n",
            r ? resp_render(r, strlen(r), rt, sizeof rt) : "-",
            g ? resp_render(g, strlen(g), gt, sizeof gt) : "-");
    exit(1);
}

static char *call_one(struct rconn *c, int argc, const char *const *argv, const size_t *lens)
{
    rconn_send_argv(c, argc, argv, lens);
    return rconn_read_reply(c, NULL);
}

static void send_both(int argc, const char *const *argv, char **g, char **r)
{
    rconn_send_argv(&d.g, argc, argv, NULL);
    rconn_send_argv(&d.r, argc, argv, NULL);
    *g = rconn_read_reply(&d.g, NULL);
    *r = rconn_read_reply(&d.r, NULL);
    d.commands++;
}

/* SMEMBERS & co: exact when byte-equal, else the same members. */
static void check_unordered(int argc, const char *const *argv)
{
    char *g, *r;
    send_both(argc, argv, &g, &r);
    if (strcmp(g, r) != 0) {
        struct rv gv, rv;
        rv_parse(g, &gv);
        rv_parse(r, &rv);
        if (gv.type == '-' || !same_multiset(&gv, &rv, 1))
            fail("MISMATCH (as multisets)", argc, argv, g, r);
        rv_free(&gv);
        rv_free(&rv);
    }
    free(g);
    free(r);
}

/* Runs `cmd key m` on redis-server only for each member m of v; with
 * want_one the reply must be 1. */
static void redis_each(const char *cmd, const char *key, const struct rv *v, bool want_one)
{
    for (size_t i = 0; i < v->count || (v->type == '$' && i == 0); i++) {
        const struct rv *m = v->type == '$' ? v : &v->elems[i];
        const char *argv[] = {cmd, key, m->str};
        size_t lens[] = {strlen(cmd), strlen(key), m->len};
        char *raw = call_one(&d.r, 3, argv, lens);
        if (want_one && strcmp(raw, ":1\r\n") != 0)
            fail("random member not in redis-server's set", 3, argv, NULL, raw);
        free(raw);
    }
}

static bool has_repeats(const struct rv *v)
{
    for (size_t i = 0; i < v->count; i++)
        for (size_t k = 0; k < i; k++)
            if (v->elems[i].len == v->elems[k].len &&
                memcmp(v->elems[i].str, v->elems[k].str, v->elems[i].len) == 0)
                return true;
    return false;
}

static long long redis_card(const char *key)
{
    const char *argv[] = {"SCARD", key};
    char *raw = call_one(&d.r, 2, argv, NULL);
    long long n = strtoll(raw + 1, NULL, 10);
    free(raw);
    return n;
}

/* SRANDMEMBER key [count] / SPOP key [count]. */
static void check_random(bool pop, int argc, const char *const *argv)
{
    const char *key = argv[1];
    long long size = redis_card(key);
    char *g, *r;
    send_both(argc, argv, &g, &r);
    struct rv gv, rv;
    rv_parse(g, &gv);
    rv_parse(r, &rv);
    if (strcmp(g, r) != 0) {
        if (rv.type == '-' || gv.type == '-' || rv_is_nil(&rv) || rv_is_nil(&gv) ||
            gv.type != rv.type || gv.count != rv.count)
            fail("MISMATCH", argc, argv, g, r);
        if (argc == 3) {
            long long count = strtoll(argv[2], NULL, 10);
            long long want = count >= 0 ? (count < size ? count : size) : -count;
            if ((long long)gv.count != want) fail("wrong count", argc, argv, g, r);
            if ((count > 0 || pop) && has_repeats(&gv)) fail("repeated member", argc, argv, g, r);
        }
    }
    bool same = strcmp(g, r) == 0;
    if (!pop && !rv_is_nil(&gv) && gv.type != '-') redis_each("SISMEMBER", key, &gv, true);
    if (pop && !same) {
        /* Different members popped: the popped ones must have been in the
         * set, then both servers get goblin-core's remaining members. */
        redis_each("SADD", key, &rv, false);
        redis_each("SISMEMBER", key, &gv, true);
        const char *mem[] = {"SMEMBERS", key};
        char *raw = call_one(&d.g, 2, mem, NULL);
        struct rv left;
        rv_parse(raw, &left);
        const char *del[] = {"DEL", key};
        free(diff_send_both(&d, 2, del, NULL)); /* redis may hold more */
        for (size_t i = 0; i < left.count; i++) {
            const char *sadd[] = {"SADD", key, left.elems[i].str};
            size_t lens[] = {4, strlen(key), left.elems[i].len};
            diff_check_argv(&d, 3, sadd, lens);
        }
        rv_free(&left);
        free(raw);
    }
    rv_free(&gv);
    rv_free(&rv);
    free(g);
    free(r);
    if (pop) {
        const char *enc[] = {"OBJECT", "ENCODING", key};
        diff_check_argv(&d, 3, enc, NULL);
        const char *card[] = {"SCARD", key};
        diff_check_argv(&d, 2, card, NULL);
    }
}

/* Every member a full SSCAN returns on one server, sorted and distinct. */
static struct rv scan_all(struct rconn *c, int argc, const char **argv, char **raws, size_t *nraw)
{
    struct rv all = {.type = '*'};
    char cursor[32] = "0";
    do {
        argv[2] = cursor;
        char *raw = call_one(c, argc, argv, NULL);
        raws[(*nraw)++] = raw;
        struct rv v;
        rv_parse(raw, &v);
        if (v.type == '-') return v;
        CHECK(v.type == '*' && v.count == 2);
        snprintf(cursor, sizeof cursor, "%.*s", (int)v.elems[0].len, v.elems[0].str);
        all.elems = realloc(all.elems, (all.count + v.elems[1].count + 1) * sizeof *all.elems);
        for (size_t i = 0; i < v.elems[1].count; i++) all.elems[all.count++] = v.elems[1].elems[i];
        v.elems[1].count = 0;
        rv_free(&v);
        CHECK(*nraw < 4000);
    } while (strcmp(cursor, "0") != 0);
    /* A scan may return a member twice across a resize: keep one of each. */
    size_t kept = 0;
    for (size_t i = 0; i < all.count; i++) {
        bool dup = false;
        for (size_t k = 0; k < kept && !dup; k++)
            dup = all.elems[k].len == all.elems[i].len &&
                  memcmp(all.elems[k].str, all.elems[i].str, all.elems[i].len) == 0;
        if (!dup) all.elems[kept++] = all.elems[i];
    }
    all.count = kept;
    return all;
}

static void check_scan(int argc, const char **argv)
{
    char *g, *r;
    send_both(argc, argv, &g, &r);
    bool equal = strcmp(g, r) == 0;
    if (equal || g[0] == '-' || r[0] == '-') {
        if (!equal) fail("SSCAN MISMATCH", argc, argv, g, r);
        free(g);
        free(r);
        return;
    }
    static char *graws[4000], *rraws[4000];
    size_t gn = 0, rn = 0;
    struct rv ga = scan_all(&d.g, argc, argv, graws, &gn);
    struct rv ra = scan_all(&d.r, argc, argv, rraws, &rn);
    if (!same_multiset(&ga, &ra, 1)) fail("SSCAN MISMATCH (as sets)", argc, argv, g, r);
    rv_free(&ga);
    rv_free(&ra);
    for (size_t i = 0; i < gn; i++) free(graws[i]);
    for (size_t i = 0; i < rn; i++) free(rraws[i]);
    free(g);
    free(r);
}

static void directed_sort(void);

/* --- directed cases ------------------------------------------------------------ */

static void directed(void)
{
    C("FLUSHALL");
    /* Arity and errors. */
    C("SADD", "s");
    C("SREM", "s");
    C("SMOVE", "a", "b");
    C("SINTERCARD", "0", "s");
    C("SINTERCARD", "-1", "s");
    C("SINTERCARD", "x", "s");
    C("SINTERCARD", "3", "s", "t");
    C("SINTERCARD", "1", "s", "LIMIT");
    C("SINTERCARD", "1", "s", "LIMIT", "-1");
    C("SINTERCARD", "1", "s", "LIMIT", "x");
    C("SINTERCARD", "1", "s", "FOO", "1");
    C("SPOP", "s", "-1");
    C("SPOP", "s", "x");
    C("SPOP", "s", "1", "2");
    C("SRANDMEMBER", "s", "x");
    C("SRANDMEMBER", "s", "1", "2");
    C("SRANDMEMBER", "s", "-9223372036854775808");
    C("SSCAN", "s", "x");
    C("SSCAN", "s", "0", "COUNT", "0");
    /* Missing keys. */
    C("SCARD", "s");
    C("SMEMBERS", "s");
    C("SISMEMBER", "s", "a");
    C("SMISMEMBER", "s", "a", "b");
    C("SPOP", "s");
    C("SPOP", "s", "3");
    C("SPOP", "s", "0");
    C("SRANDMEMBER", "s");
    C("SRANDMEMBER", "s", "3");
    C("SRANDMEMBER", "s", "0");
    C("SINTER", "s", "t");
    C("SINTERCARD", "2", "s", "t");
    C("SUNION", "s", "t");
    C("SDIFF", "s", "t");
    C("SINTERSTORE", "d", "s");
    C("SUNIONSTORE", "d", "s");
    C("SDIFFSTORE", "d", "s");
    C("SSCAN", "s", "0");
    C("SMOVE", "s", "t", "a");
    /* Encodings: intset widths, conversion by member and by count. */
    C("SADD", "s", "5", "-3", "70000", "-9223372036854775808", "9223372036854775807", "5");
    C("SMEMBERS", "s");
    C("OBJECT", "ENCODING", "s");
    C("SADD", "s", "007");
    C("OBJECT", "ENCODING", "s");
    C("SADD", "n", "abc", "1", "2");
    C("OBJECT", "ENCODING", "n");
    C("SADD", "i", "1");
    C("CONFIG", "SET", "set-max-intset-entries", "3");
    C("CONFIG", "GET", "set-max-intset-entries");
    C("SADD", "i", "2", "3");
    C("OBJECT", "ENCODING", "i");
    C("SADD", "i", "4");
    C("OBJECT", "ENCODING", "i");
    C("SREM", "i", "4", "3");
    C("OBJECT", "ENCODING", "i");
    C("SADD", "j", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10");
    C("OBJECT", "ENCODING", "j");
    /* SPOP with a large count rebuilds the rest: back to an intset. */
    C("SADD", "k", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12");
    C("OBJECT", "ENCODING", "k");
    {
        const char *argv[] = {"SPOP", "k", "10"};
        check_random(true, 3, argv);
    }
    /* SDIFFSTORE's encoding follows Redis's algorithm choice. */
    C("DEL", "k", "j");
    C("SADD", "j", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10");
    C("SADD", "k", "1", "2", "3", "4", "5", "6", "7", "8");
    C("SDIFFSTORE", "d", "j", "k");
    C("OBJECT", "ENCODING", "d");
    C("SDIFFSTORE", "d", "j", "x");
    C("OBJECT", "ENCODING", "d");
    C("SDIFFSTORE", "d", "j", "j");
    C("EXISTS", "d");
    C("SINTERSTORE", "d", "j", "k");
    C("OBJECT", "ENCODING", "d");
    C("SUNIONSTORE", "d", "i", "s");
    C("OBJECT", "ENCODING", "d");
    C("CONFIG", "SET", "set-max-intset-entries", "512");
    C("SINTERCARD", "2", "j", "k");
    C("SINTERCARD", "2", "j", "k", "LIMIT", "3");
    C("SINTERCARD", "2", "j", "k", "LIMIT", "0");
    /* SMOVE corners. */
    C("SMOVE", "j", "j", "1");
    C("SMOVE", "j", "j", "100");
    C("SMOVE", "j", "newset", "1");
    C("OBJECT", "ENCODING", "newset");
    C("SMOVE", "n", "newset", "abc");
    C("OBJECT", "ENCODING", "newset");
    C("SET", "str", "v");
    C("SMOVE", "str", "j", "1");
    C("SMOVE", "j", "str", "2");
    C("SMOVE", "nokey", "str", "2");
    /* Wrong types both ways. */
    C("SADD", "str", "a");
    C("SCARD", "str");
    C("SINTER", "str", "nokey");
    C("SINTER", "nokey", "str");
    C("SUNION", "j", "str");
    C("SDIFF", "nokey", "str");
    C("SINTERCARD", "2", "nokey", "str");
    C("SUNIONSTORE", "str", "j");
    C("TYPE", "str");
    C("TYPE", "j");
    C("GET", "j");
    C("HGET", "j", "a");
    C("ZSCORE", "j", "a");
    C("APPEND", "j", "a");
    {
        /* Key order is the keyspace's hash order: compare the keys found. */
        const char *argv[] = {"SCAN", "0", "TYPE", "set", "COUNT", "1000"};
        char *g, *r;
        send_both(6, argv, &g, &r);
        struct rv gv, rv;
        rv_parse(g, &gv);
        rv_parse(r, &rv);
        if (gv.type != '*' || gv.count != 2 || !same_multiset(&gv.elems[1], &rv.elems[1], 1))
            fail("SCAN TYPE set MISMATCH", 6, argv, g, r);
        rv_free(&gv), rv_free(&rv), free(g), free(r);
    }
    /* Sorted-set algebra over plain sets (score 1). */
    C("ZADD", "z", "2", "1", "3.5", "abc", "-1", "zz");
    C("ZUNION", "3", "j", "z", "n", "WITHSCORES");
    C("ZUNION", "2", "j", "z", "WEIGHTS", "2", "0.5", "AGGREGATE", "MAX", "WITHSCORES");
    C("ZINTER", "2", "n", "z", "WITHSCORES");
    C("ZDIFF", "2", "j", "z", "WITHSCORES");
    C("ZDIFF", "2", "z", "n", "WITHSCORES");
    C("ZINTERCARD", "2", "z", "n");
    C("ZUNIONSTORE", "zd", "2", "j", "n");
    C("ZRANGE", "zd", "0", "-1", "WITHSCORES");
    C("OBJECT", "ENCODING", "zd");
    C("ZUNION", "2", "j", "str");
    C("MEMORY", "USAGE", "nokey");
    /* COPY: every type keeps its encoding; DB, REPLACE, TTL, errors. */
    C("FLUSHALL");
    C("SADD", "ci", "1", "2", "3");
    C("SADD", "ch", "a", "1");
    C("ZADD", "cz", "1", "a", "2", "b");
    C("HSET", "chash", "f", "v");
    C("SET", "cint", "123");
    C("SET", "cemb", "hello");
    C("SET", "craw", "x");
    C("APPEND", "craw", "y");
    C("EXPIRE", "ci", "1000");
    const char *const copied[] = {"ci", "ch", "cz", "chash", "cint", "cemb", "craw"};
    for (size_t i = 0; i < ARRAY_LEN(copied); i++) {
        C("COPY", copied[i], "dst");
        C("OBJECT", "ENCODING", "dst");
        C("TYPE", "dst");
        C("TTL", "dst");
        C("COPY", copied[i], "dst");
        C("COPY", copied[i], "dst", "DB", "1", "REPLACE");
        C("DEL", "dst");
    }
    C("SELECT", "1");
    C("OBJECT", "ENCODING", "dst");
    C("SMEMBERS", "dst");
    C("SELECT", "0");
    C("SADD", "big", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a");
    C("COPY", "big", "big2");
    C("OBJECT", "ENCODING", "big2");
    C("SCARD", "big2");
    C("SINTERCARD", "2", "big", "big2");
    C("COPY", "ci", "ci");
    C("COPY", "ci", "ci", "DB", "0");
    C("COPY", "ci", "ci", "DB", "1");
    C("COPY", "ci", "x", "DB");
    C("COPY", "ci", "x", "DB", "16");
    C("COPY", "ci", "x", "DB", "-1");
    C("COPY", "ci", "x", "DB", "9999999999");
    C("COPY", "ci", "x", "REPLACE", "FOO");
    C("COPY", "nokey", "x");
    C("CONFIG", "SET", "hash-max-listpack-entries", "1");
    C("CONFIG", "SET", "zset-max-listpack-entries", "1");
    C("HSET", "hh", "a", "1", "b", "2");
    C("ZADD", "zz", "1", "a", "2", "b", "-0", "c");
    C("COPY", "hh", "hh2");
    C("COPY", "zz", "zz2");
    C("OBJECT", "ENCODING", "hh2");
    C("OBJECT", "ENCODING", "zz2");
    C("HMGET", "hh2", "a", "b", "c");
    C("ZRANGE", "zz2", "0", "-1", "WITHSCORES");
    C("CONFIG", "SET", "hash-max-listpack-entries", "512");
    C("CONFIG", "SET", "zset-max-listpack-entries", "128");
    C("FLUSHALL");
    directed_sort();
}

/* SORT / SORT_RO over sets and sorted sets (lists and STORE are in
 * test_diff_lists.c): only orders that are deterministic on both servers (sorted
 * results, intsets, sorted sets in their own order). */
static void directed_sort(void)
{
    C("SADD", "is", "3", "1", "2", "10", "-4");
    C("SADD", "hs", "b", "a", "c", "10", "9", "d e");
    C("ZADD", "zs", "1", "b", "2", "a", "0", "c", "2", "d");
    C("MSET", "w_1", "30", "w_2", "20", "w_3", "10", "w_10", "5", "w_-4", "7", "w_a", "3");
    C("MSET", "w_b", "2.5", "w_c", "-1", "w_d", "1e3", "x_1", "z", "x_2", "y", "x_3", "x");
    C("HSET", "h_1", "f", "5", "g", "x");
    C("HSET", "h_2", "f", "-5");
    C("HSET", "h_a", "f", "1");
    const char *const sources[] = {"is", "zs", "hs", "nokey"};
    for (size_t i = 0; i < ARRAY_LEN(sources); i++) {
        const char *k = sources[i];
        C("SORT", k);
        C("SORT", k, "ALPHA");
        C("SORT", k, "ALPHA", "DESC");
        C("SORT_RO", k, "ALPHA", "LIMIT", "1", "2");
        C("SORT", k, "ALPHA", "LIMIT", "-1", "2");
        C("SORT", k, "ALPHA", "LIMIT", "2", "-1");
        C("SORT", k, "ALPHA", "LIMIT", "10", "2");
        C("SORT", k, "ALPHA", "LIMIT", "0", "0");
        C("SORT", k, "BY", "w_*");
        C("SORT", k, "BY", "w_*", "DESC", "LIMIT", "1", "3");
        C("SORT", k, "BY", "h_*->f", "GET", "#", "GET", "w_*", "GET", "h_*->f", "GET", "h_*->g");
        C("SORT", k, "BY", "x_*", "ALPHA", "GET", "x_*");
        C("SORT_RO", k, "ALPHA", "GET", "nostar", "GET", "h_*->", "GET", "#");
    }
    C("SORT", "is", "BY", "nosort");
    C("SORT", "is", "BY", "nosort", "DESC", "LIMIT", "1", "2");
    C("SORT", "zs", "BY", "nosort");
    C("SORT", "zs", "BY", "nosort", "DESC");
    C("SORT", "zs", "BY", "nosort", "LIMIT", "1", "2");
    C("SORT", "zs", "BY", "nosort", "DESC", "LIMIT", "1", "5");
    C("SORT", "zs", "BY", "nosort", "DESC", "LIMIT", "3", "5", "GET", "w_*");
    C("OBJECT", "ENCODING", "zs");
    C("SORT", "hs");
    C("SORT", "is", "LIMIT", "x", "1");
    C("SORT", "is", "LIMIT", "1");
    C("SORT", "is", "FOO");
    C("SORT", "is", "BY");
    C("SORT", "is", "GET");
    C("SORT_RO", "is", "STORE", "dst");
    C("SET", "str", "1");
    C("SORT", "str");
    C("SORT", "str", "FOO");
    C("SORT", "nokey", "FOO");
    C("HSET", "hash", "a", "1");
    C("SORT_RO", "hash");
    C("FLUSHALL");
}

/* --- random stream ---------------------------------------------------------- */

static const char *const set_keys[] = {"s0", "s1", "s2", "s3"};
static const char *const other_keys[] = {"z0", "str", "none"};
static const char *const members[] = {"1",  "2",   "3",   "10",  "-5", "70000", "5000000000",
                                      "a",  "b",   "c",   "007", "m1", "m2",    "m3",
                                      "12", "-99", "300", "x:y", "",   "4"};
static const char *const counts[] = {"0", "1", "2", "3", "5", "-1", "-3", "20", "x", "-0"};

static const char *set_key(void)
{
    return pick(12) ? set_keys[pick(ARRAY_LEN(set_keys))] : other_keys[pick(ARRAY_LEN(other_keys))];
}

static const char *member(void)
{
    return members[pick(ARRAY_LEN(members))];
}

struct cmd {
    int argc;
    const char *argv[MAX_ARGS];
};

static void add(struct cmd *c, const char *a)
{
    c->argv[c->argc++] = a;
}

static void add_keys(struct cmd *c, int max)
{
    int n = 1 + (int)pick((size_t)max);
    for (int i = 0; i < n; i++) add(c, set_key());
}

static void trace(const struct cmd *c)
{
    if (!getenv("DIFF_TRACE")) return;
    for (int i = 0; i < c->argc; i++) fprintf(stderr, "%s ", c->argv[i]);
    fprintf(stderr, "\n");
}

static void random_command(void)
{
    struct cmd c = {0};
    static char numbuf[8];
    switch (pick(23)) {
    case 0:
    case 1:
    case 2:
        add(&c, "SADD");
        add(&c, set_key());
        for (size_t i = 0, n = 1 + pick(4); i < n; i++) add(&c, member());
        break;
    case 3:
        add(&c, "SREM");
        add(&c, set_key());
        for (size_t i = 0, n = 1 + pick(3); i < n; i++) add(&c, member());
        break;
    case 4:
        add(&c, pick(2) ? "SCARD" : "TYPE");
        add(&c, set_key());
        break;
    case 5:
        add(&c, "SISMEMBER");
        add(&c, set_key());
        add(&c, member());
        break;
    case 6:
        add(&c, "SMISMEMBER");
        add(&c, set_key());
        for (size_t i = 0, n = 1 + pick(3); i < n; i++) add(&c, member());
        break;
    case 7:
        add(&c, "SMEMBERS");
        add(&c, set_key());
        check_unordered(c.argc, c.argv);
        return;
    case 8:
        add(&c, "SRANDMEMBER");
        add(&c, set_key());
        if (pick(4)) add(&c, counts[pick(ARRAY_LEN(counts))]);
        trace(&c);
        check_random(false, c.argc, c.argv);
        return;
    case 9:
        add(&c, "SPOP");
        add(&c, set_key());
        if (pick(3)) add(&c, counts[pick(5)]);
        trace(&c);
        check_random(true, c.argc, c.argv);
        return;
    case 10:
        add(&c, "SMOVE");
        add(&c, set_key());
        add(&c, set_key());
        add(&c, member());
        break;
    case 11:
    case 12:
    case 13: {
        static const char *const ops[] = {"SINTER", "SUNION", "SDIFF"};
        add(&c, ops[pick(3)]);
        add_keys(&c, 3);
        check_unordered(c.argc, c.argv);
        return;
    }
    case 14:
    case 15: {
        static const char *const ops[] = {"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"};
        add(&c, ops[pick(3)]);
        add(&c, set_key());
        add_keys(&c, 3);
        break;
    }
    case 16:
        add(&c, "SINTERCARD");
        snprintf(numbuf, sizeof numbuf, "%d", 1 + (int)pick(3));
        add(&c, numbuf);
        add_keys(&c, 3);
        if (pick(2)) add(&c, "LIMIT"), add(&c, counts[pick(5)]);
        break;
    case 17: {
        add(&c, "SSCAN");
        add(&c, set_key());
        add(&c, "0");
        if (pick(2)) add(&c, "COUNT"), add(&c, counts[1 + pick(4)]);
        if (pick(3) == 0) add(&c, "MATCH"), add(&c, pick(2) ? "*1*" : "m*");
        check_scan(c.argc, c.argv);
        return;
    }
    case 18:
        add(&c, "OBJECT");
        add(&c, "ENCODING");
        add(&c, set_key());
        break;
    case 19: {
        static const char *const ops[] = {"ZUNION", "ZINTER", "ZDIFF"};
        add(&c, ops[pick(3)]);
        add(&c, "2");
        add(&c, set_key());
        add(&c, pick(2) ? "z0" : set_key());
        add(&c, "WITHSCORES");
        break;
    }
    case 20:
        add(&c, "ZADD");
        add(&c, "z0");
        add(&c, counts[1 + pick(4)]);
        add(&c, member());
        break;
    case 21:
        add(&c, "COPY");
        add(&c, set_key());
        add(&c, set_key());
        if (pick(2)) add(&c, "REPLACE");
        break;
    default:
        add(&c, pick(4) ? "EXISTS" : "DEL");
        add(&c, set_key());
        break;
    }
    trace(&c);
    diff_check_argv(&d, c.argc, c.argv, NULL);
}

static void run_all(int random_count)
{
    directed();
    C("FLUSHALL");
    C("SET", "str", "a string");
    for (int i = 0; i < random_count; i++) random_command();
    C("CONFIG", "SET", "set-max-intset-entries", "3");
    for (int i = 0; i < random_count; i++) random_command();
    C("CONFIG", "SET", "set-max-intset-entries", "512");
    C("FLUSHALL");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_sets");
    rand_seed(seed);
    diff_start(&d, "diff_sets", seed, NULL, NULL);
    int random_count = getenv("GOBLIN_ASAN") ? 2000 : 4000;
    run_all(random_count);
    diff_hello3(&d);
    resp3 = true;
    run_all(random_count);
    diff_stop(&d);
    return 0;
}
