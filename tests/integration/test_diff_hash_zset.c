/*
 * Differential test of the hash and sorted-set families (and OBJECT /
 * MEMORY) against redis-server: directed edge cases, a seeded random stream
 * over a small key space (so commands collide, cross types and cross the
 * listpack thresholds), then the same with tiny thresholds; in RESP2 and
 * again in RESP3 when goblin-core knows HELLO.
 *
 * Replies are compared byte for byte, except where answers legitimately
 * differ, which are checked by meaning instead:
 *  - HGETALL/HKEYS/HVALS of a hashtable-encoded hash list fields in hash
 *    order: compared as sorted multisets (listpack order is exact).
 *  - HRANDFIELD/ZRANDMEMBER: errors exactly; otherwise the shape, the
 *    count, membership, values/scores and distinctness are checked.
 *  - HSCAN/ZSCAN: a full iteration on each server must return the same set
 *    of elements (cursors differ by hash function).
 *  - MEMORY USAGE: nil exactly, otherwise any positive integer.
 * Extensions from later Redis versions (HSCAN NOVALUES from 7.4, ZRANK
 * WITHSCORE from 7.2), which 7.0.15 rejects, are checked against what
 * redis-server's other commands say.
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
static size_t pick(size_t n)
{
    return (size_t)(rand_u64() % n);
}

#define C(...) diff_check(&d, __VA_ARGS__, NULL)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* --- sending ------------------------------------------------------------- */

static bool resp3; /* both connections speak RESP3 */

static void send_both(int argc, const char *const *argv, const size_t *lens, char **g, char **r,
                      size_t *glen, size_t *rlen)
{
    diff_exchange(&d, argc, argv, lens, g, glen, r, rlen);
}

static void describe(int argc, const char *const *argv, const size_t *lens, char *out, size_t cap)
{
    size_t o = 0;
    for (int i = 0; i < argc && o + 16 < cap; i++) {
        size_t n = lens ? lens[i] : strlen(argv[i]);
        char part[256];
        resp_render(argv[i], n > 100 ? 100 : n, part, sizeof part);
        o += (size_t)snprintf(out + o, cap - o, "%s'%s'", i ? " " : "", part);
    }
}

static void fail(const char *why, int argc, const char *const *argv, const size_t *lens,
                 const char *g, size_t glen, const char *r, size_t rlen)
{
    char cmd[1024], gt[4096], rt[4096];
    describe(argc, argv, lens, cmd, sizeof cmd);
    fprintf(stderr,
            "%s: %s after %lld commands (seed %llu; rerun with TEST_SEED=%llu, %s)\n"
            "  command:      %s\n  redis-server: %s\n  goblin-core:  %s\n",
            d.name, why, d.commands, d.seed, d.seed, resp3 ? "RESP3" : "RESP2", cmd,
            r ? resp_render(r, rlen, rt, sizeof rt) : "-",
            g ? resp_render(g, glen, gt, sizeof gt) : "-");
    exit(1);
}

/* Reply of one server only (for follow-up questions while checking). */
static char *call_one(struct rconn *c, int argc, const char *const *argv, const size_t *lens)
{
    rconn_send_argv(c, argc, argv, lens);
    return rconn_read_reply(c, NULL);
}

/* --- checks by meaning --------------------------------------------------------- */

/* HGETALL/HKEYS/HVALS: exact when both are byte-equal, else as multisets. */
static void check_unordered(int argc, const char *const *argv, const size_t *lens, size_t unit)
{
    char *g, *r;
    size_t glen, rlen;
    send_both(argc, argv, lens, &g, &r, &glen, &rlen);
    if (glen != rlen || memcmp(g, r, glen) != 0) {
        struct rv gv, rv;
        rv_parse(g, &gv);
        rv_parse(r, &rv);
        if (gv.type == '-' || !same_multiset(&gv, &rv, unit))
            fail("MISMATCH (as multisets)", argc, argv, lens, g, glen, r, rlen);
        rv_free(&gv);
        rv_free(&rv);
    }
    free(g);
    free(r);
    d.commands++;
}

/* Whether `member` is in `key` on redis-server, and its score/value. */
static bool redis_lookup(bool zset, const char *key, const struct rv *member, struct rv *out,
                         char **raw)
{
    const char *argv[] = {zset ? "ZSCORE" : "HGET", key, member->str};
    size_t lens[] = {strlen(argv[0]), strlen(key), member->len};
    *raw = call_one(&d.r, 3, argv, lens);
    rv_parse(*raw, out);
    return !rv_is_nil(out);
}

/* HRANDFIELD / ZRANDMEMBER key [count [WITHVALUES|WITHSCORES]]. */
static void check_random(bool zset, int argc, const char *const *argv, const size_t *lens)
{
    char *g, *r;
    size_t glen, rlen;
    send_both(argc, argv, lens, &g, &r, &glen, &rlen);
    struct rv gv, rv;
    rv_parse(g, &gv);
    rv_parse(r, &rv);
    const char *key = argv[1];
    if (glen == rlen && memcmp(g, r, glen) == 0) goto out; /* identical is always right */
    if (rv.type == '-' || gv.type == '-' || rv_is_nil(&rv) || rv_is_nil(&gv) || argc == 2) {
        if (argc == 2 && rv.type == '$' && gv.type == '$' && rv.integer >= 0) {
            struct rv look;
            char *raw;
            if (!redis_lookup(zset, key, &gv, &look, &raw))
                fail("random member not in the set", argc, argv, lens, g, glen, r, rlen);
            rv_free(&look);
            free(raw);
        } else if (glen != rlen || memcmp(g, r, glen) != 0) {
            fail("MISMATCH", argc, argv, lens, g, glen, r, rlen);
        }
        goto out;
    }
    long long count = strtoll(argv[2], NULL, 10);
    bool with = argc == 4;
    /* Size of the set, from redis-server. */
    const char *card_argv[] = {zset ? "ZCARD" : "HLEN", key};
    char *card_raw = call_one(&d.r, 2, card_argv, NULL);
    long long size = strtoll(card_raw + 1, NULL, 10);
    free(card_raw);
    long long want = count >= 0 ? (count < size ? count : size) : -count;
    bool nested = with && resp3;
    size_t per = with && !nested ? 2 : 1;
    if (gv.type != '*' || gv.count != (size_t)want * per)
        fail("random reply of the wrong length", argc, argv, lens, g, glen, r, rlen);
    for (size_t i = 0; i < (size_t)want; i++) {
        const struct rv *member, *value = NULL;
        if (nested) {
            const struct rv *pair = &gv.elems[i];
            if (pair->type != '*' || pair->count != 2)
                fail("random pair not nested", argc, argv, lens, g, glen, r, rlen);
            member = &pair->elems[0];
            value = &pair->elems[1];
        } else {
            member = &gv.elems[i * per];
            if (with) value = &gv.elems[i * per + 1];
        }
        struct rv look;
        char *raw;
        if (!redis_lookup(zset, key, member, &look, &raw))
            fail("random member not in the set", argc, argv, lens, g, glen, r, rlen);
        if (value && (value->type != look.type || value->len != look.len ||
                      memcmp(value->str, look.str, look.len) != 0))
            fail("random member with a wrong value/score", argc, argv, lens, g, glen, r, rlen);
        rv_free(&look);
        free(raw);
        if (count > 0) {
            for (size_t k = 0; k < i; k++) {
                const struct rv *other = nested ? &gv.elems[k].elems[0] : &gv.elems[k * per];
                if (other->len == member->len && memcmp(other->str, member->str, member->len) == 0)
                    fail("repeated member with a positive count", argc, argv, lens, g, glen, r,
                         rlen);
            }
        }
    }
out:
    rv_free(&gv);
    rv_free(&rv);
    free(g);
    free(r);
    d.commands++;
}

/* Runs a whole HSCAN/ZSCAN iteration on one server; appends elements to out. */
static void scan_all(struct rconn *c, int argc, const char **argv, const size_t *lens,
                     struct rv *out_items, size_t *n_items, char **raws, size_t *n_raws)
{
    char cursor[32] = "0";
    for (int rounds = 0; rounds < 100000; rounds++) {
        argv[2] = cursor;
        size_t l[16];
        for (int i = 0; i < argc; i++) l[i] = i == 2 || !lens ? strlen(argv[i]) : lens[i];
        char *raw = call_one(c, argc, argv, l);
        raws[(*n_raws)++] = raw;
        struct rv v;
        rv_parse(raw, &v);
        if (v.type == '-') {
            out_items[(*n_items)++] = v; /* the error itself is compared */
            return;
        }
        CHECK(v.type == '*' && v.count == 2);
        snprintf(cursor, sizeof cursor, "%.*s", (int)v.elems[0].len, v.elems[0].str);
        for (size_t i = 0; i < v.elems[1].count; i++) out_items[(*n_items)++] = v.elems[1].elems[i];
        free(v.elems[1].elems);
        v.elems[1].count = 0;
        v.elems[1].elems = NULL;
        rv_free(&v);
        if (strcmp(cursor, "0") == 0) return;
    }
    CHECKF(false, "scan did not finish");
}

/* The elements a full SCAN returns, on both servers, as sets of units. */
static void check_scan(int argc, const char **argv, const size_t *lens, size_t unit)
{
    enum { MAX = 1 << 16 };
    static struct rv gi[MAX], ri[MAX];
    static char *graws[MAX], *rraws[MAX];
    size_t gn = 0, rn = 0, grn = 0, rrn = 0;
    scan_all(&d.g, argc, argv, lens, gi, &gn, graws, &grn);
    scan_all(&d.r, argc, argv, lens, ri, &rn, rraws, &rrn);
    bool same;
    if (rn == 1 && ri[0].type == '-') {
        same = gn == 1 && gi[0].type == '-' && gi[0].len == ri[0].len &&
               memcmp(gi[0].str, ri[0].str, ri[0].len) == 0;
    } else {
        /* A scan may repeat elements across a resize: compare distinct units. */
        struct rv ga = {.type = '*', .elems = gi, .count = gn},
                  ra = {.type = '*', .elems = ri, .count = rn};
        size_t gu, ru;
        char *garena, *rarena;
        struct bytes *gs = sorted_units(&ga, unit, &gu, &garena);
        struct bytes *rs = sorted_units(&ra, unit, &ru, &rarena);
        size_t gd = 0, rd = 0;
        for (size_t i = 0; i < gu; i++)
            if (i == 0 || bytes_cmp(&gs[i], &gs[gd - 1])) gs[gd++] = gs[i];
        for (size_t i = 0; i < ru; i++)
            if (i == 0 || bytes_cmp(&rs[i], &rs[rd - 1])) rs[rd++] = rs[i];
        same = gd == rd;
        for (size_t i = 0; same && i < gd; i++) same = bytes_cmp(&gs[i], &rs[i]) == 0;
        free(gs), free(rs), free(garena), free(rarena);
    }
    if (!same)
        fail("SCAN MISMATCH (as sets)", argc, argv, lens, graws[0], strlen(graws[0]), rraws[0],
             strlen(rraws[0]));
    for (size_t i = 0; i < grn; i++) free(graws[i]);
    for (size_t i = 0; i < rrn; i++) free(rraws[i]);
    d.commands++;
}

/* MEMORY USAGE: nil (or an error) exactly, else any positive integer. */
static void check_memory_usage(int argc, const char *const *argv, const size_t *lens)
{
    char *g, *r;
    size_t glen, rlen;
    send_both(argc, argv, lens, &g, &r, &glen, &rlen);
    bool ok = r[0] == ':' ? g[0] == ':' && strtoll(g + 1, NULL, 10) > 0
                          : glen == rlen && memcmp(g, r, glen) == 0;
    if (!ok) fail("MEMORY USAGE MISMATCH", argc, argv, lens, g, glen, r, rlen);
    free(g);
    free(r);
    d.commands++;
}

/* --- directed cases ------------------------------------------------------------ */

static void directed_hash(void)
{
    C("DEL", "h", "h2", "s");
    C("SET", "s", "string");
    C("HSET", "h", "a", "1", "b", "2", "c", "3");
    C("HSET", "h", "a");
    C("HSET", "h", "a", "1", "b");
    C("HMSET", "h", "a");
    C("HMSET", "h", "x", "1", "y", "2");
    C("HGET", "h", "a");
    C("HGET", "h", "nope");
    C("HGET", "nokey", "a");
    C("HMGET", "h", "a", "nope", "b");
    C("HMGET", "nokey", "a", "b");
    C("HDEL", "h", "a", "nope", "a");
    C("HLEN", "h");
    C("HLEN", "nokey");
    C("HSTRLEN", "h", "b");
    C("HSTRLEN", "h", "nope");
    C("HEXISTS", "h", "b");
    C("HEXISTS", "h", "nope");
    C("HGETALL", "h");
    C("HKEYS", "h");
    C("HVALS", "h");
    C("HGETALL", "nokey");
    C("HKEYS", "nokey");
    C("HSETNX", "h", "b", "9");
    C("HSETNX", "h", "n", "9");
    C("HSETNX", "newhash", "f", "v");
    /* HSCAN arguments. */
    C("HSCAN", "h", "x");
    C("HSCAN", "h", " 0");
    C("HSCAN", "h", "0", "count", "0");
    C("HSCAN", "h", "0", "count", "-1");
    C("HSCAN", "h", "0", "count", "x");
    C("HSCAN", "h", "0", "match");
    C("HSCAN", "h", "0", "foo");
    C("HSCAN", "h", "0", "type", "hash");
    C("HSCAN", "nokey", "0", "foo");
    C("HSCAN", "nokey", "x");
    C("HSCAN", "h", "0");
    C("HSCAN", "h", "0", "match", "*");
    C("HSCAN", "h", "0", "match", "b*", "count", "1");
    C("HSCAN", "h", "18446744073709551615");
    C("HSCAN", "h", "18446744073709551616");
    C("HSCAN", "h", "-1");
    C("HSCAN", "h", "+0");
    C("HSCAN", "h", "");
    /* HINCRBY: parse, overflow, non-integer values. */
    C("HINCRBY", "h", "b", "5");
    C("HINCRBY", "h", "b", "-15");
    C("HINCRBY", "h", "b", "x");
    C("HINCRBY", "h", "b", "1.5");
    C("HINCRBY", "h", "b", "");
    C("HINCRBY", "h", "big", "9223372036854775807");
    C("HINCRBY", "h", "big", "1");
    C("HINCRBY", "h", "small", "-9223372036854775808");
    C("HINCRBY", "h", "small", "-1");
    C("HSET", "h", "txt", "abc", "ws", " 1", "plus", "+1", "lead0", "01", "neg0", "-0");
    C("HINCRBY", "h", "txt", "1");
    C("HINCRBY", "h", "ws", "1");
    C("HINCRBY", "h", "plus", "1");
    C("HINCRBY", "h", "lead0", "1");
    C("HINCRBY", "h", "neg0", "1");
    C("HINCRBY", "nokey2", "f", "7");
    /* HINCRBYFLOAT formatting. */
    C("HINCRBYFLOAT", "h", "f", "1.5");
    C("HINCRBYFLOAT", "h", "f", "0.1");
    C("HINCRBYFLOAT", "h", "f", "-1.6");
    C("HINCRBYFLOAT", "h", "f", "1e3");
    C("HINCRBYFLOAT", "h", "f", "3.0e-5");
    C("HINCRBYFLOAT", "h", "g", "5.0");
    C("HINCRBYFLOAT", "h", "g", "-5");
    C("HINCRBYFLOAT", "h", "g", "-0.0");
    C("HINCRBYFLOAT", "h", "f", "inf");
    C("HINCRBYFLOAT", "h", "f", "-inf");
    C("HINCRBYFLOAT", "h", "f", "nan");
    C("HINCRBYFLOAT", "h", "f", "abc");
    C("HINCRBYFLOAT", "h", "f", "");
    C("HINCRBYFLOAT", "h", "txt", "1");
    C("HINCRBYFLOAT", "h", "f", "1e308");
    C("HINCRBYFLOAT", "h", "f", "1e308");
    C("HINCRBYFLOAT", "h", "huge", "1e4000");
    C("HINCRBYFLOAT", "h", "huge", "1e4000");
    C("HINCRBYFLOAT", "h", "huge", "1e4932");
    C("HINCRBYFLOAT", "h", "tiny", "1e-20");
    C("HINCRBYFLOAT", "h", "b", "0.5");
    C("HGET", "h", "f");
    C("OBJECT", "ENCODING", "h");
    /* HRANDFIELD argument errors (replies with elements are random). */
    C("HRANDFIELD", "h", "x");
    C("HRANDFIELD", "h", "1", "withvalue");
    C("HRANDFIELD", "h", "1", "withvalues", "x");
    C("HRANDFIELD", "h", "-9223372036854775808");
    C("HRANDFIELD", "h", "9223372036854775807", "withvalues");
    C("HRANDFIELD", "h", "-9223372036854775807", "withvalues");
    C("HRANDFIELD", "h", "0");
    C("HRANDFIELD", "h", "0", "withvalues");
    C("HRANDFIELD", "nokey");
    C("HRANDFIELD", "nokey", "5");
    C("HRANDFIELD", "nokey", "-5", "withvalues");
    /* Wrong types, both ways. */
    C("HGET", "s", "a");
    C("HSET", "s", "a", "b");
    C("HSETNX", "s", "a", "b");
    C("HMGET", "s", "a");
    C("HDEL", "s", "a");
    C("HLEN", "s");
    C("HSTRLEN", "s", "a");
    C("HEXISTS", "s", "a");
    C("HGETALL", "s");
    C("HKEYS", "s");
    C("HVALS", "s");
    C("HINCRBY", "s", "a", "1");
    C("HINCRBY", "s", "a", "x");
    C("HINCRBYFLOAT", "s", "a", "1");
    C("HRANDFIELD", "s");
    C("HRANDFIELD", "s", "0");
    C("HSCAN", "s", "0");
    C("GET", "h");
    C("GET", "s");
    C("SET", "h2", "x");
    C("HSET", "h2", "a", "b");
    C("DEL", "h2");
    C("HSET", "h2", "a", "b");
    C("SET", "h2", "x");
    C("GET", "h2");
    C("ZADD", "h", "1", "a");
    C("ZSCORE", "h", "a");
    /* The last field deleted deletes the key. */
    C("HSET", "e", "only", "1");
    C("HDEL", "e", "only");
    C("EXISTS", "e");
    C("HDEL", "e", "only");
    C("HSET", "e", "a", "1", "b", "2");
    C("HDEL", "e", "a", "b", "c");
    C("EXISTS", "e");
    /* Binary-safe fields and values, empty ones. */
    C("HSET", "bin", "", "empty field", "e", "");
    C("HGET", "bin", "");
    C("HGET", "bin", "e");
    C("HSTRLEN", "bin", "e");
    C("HGETALL", "bin");
}

static void directed_encodings(void)
{
    /* Thresholds: exactly at and one past, both settings, both types. */
    char field[80], value[80];
    C("DEL", "h", "z");
    C("CONFIG", "SET", "hash-max-listpack-entries", "4");
    C("CONFIG", "GET", "hash-max-listpack-entries");
    C("CONFIG", "GET", "hash-max-ziplist-entries");
    for (int i = 0; i < 5; i++) {
        snprintf(field, sizeof field, "f%d", i);
        C("HSET", "h", field, "v");
        C("OBJECT", "ENCODING", "h");
    }
    C("HDEL", "h", "f0", "f1", "f2");
    C("OBJECT", "ENCODING", "h");
    C("CONFIG", "SET", "hash-max-listpack-entries", "512");
    C("DEL", "h");
    memset(value, 'v', 65);
    value[64] = '\0';
    C("HSET", "h", "a", value);
    C("OBJECT", "ENCODING", "h");
    value[64] = 'v';
    value[65] = '\0';
    C("HSET", "h", "b", value);
    C("OBJECT", "ENCODING", "h");
    C("DEL", "h");
    memset(field, 'f', 65);
    field[65] = '\0';
    C("HSETNX", "h", field, "1");
    C("OBJECT", "ENCODING", "h");
    C("DEL", "h");
    C("HINCRBY", "h", field, "1");
    C("OBJECT", "ENCODING", "h");
    C("DEL", "h");
    C("HSET", "h", "a", "1");
    C("HINCRBYFLOAT", "h", "a", "1e70");
    C("OBJECT", "ENCODING", "h");
    C("CONFIG", "SET", "hash-max-ziplist-value", "1kb");
    C("CONFIG", "GET", "hash-max-listpack-value");
    C("CONFIG", "SET", "hash-max-listpack-value", "64");
    C("CONFIG", "SET", "hash-max-listpack-entries", "x");
    C("CONFIG", "SET", "zset-max-listpack-value", "1k");
    C("CONFIG", "GET", "zset-max-ziplist-value");
    C("CONFIG", "SET", "zset-max-listpack-value", "64");
    C("CONFIG", "GET", "zset-max-ziplist-entries");
    /* zset: 128 members, then 129; a long member; lowered threshold. */
    C("DEL", "z");
    for (int i = 0; i < 129; i++) {
        char score[16];
        snprintf(score, sizeof score, "%d", i);
        snprintf(field, sizeof field, "m%d", i);
        C("ZADD", "z", score, field);
        if (i >= 126) C("OBJECT", "ENCODING", "z");
    }
    C("ZREMRANGEBYRANK", "z", "0", "-3");
    C("OBJECT", "ENCODING", "z");
    C("ZRANGESTORE", "z2", "z", "0", "-1");
    C("OBJECT", "ENCODING", "z2");
    C("ZUNIONSTORE", "z3", "1", "z");
    C("OBJECT", "ENCODING", "z3");
    C("DEL", "z");
    memset(field, 'm', 65);
    field[65] = '\0';
    C("ZADD", "z", "1", field);
    C("OBJECT", "ENCODING", "z");
    C("DEL", "z");
    C("ZADD", "z", "1", "a", "1", "a", "1", "a");
    C("OBJECT", "ENCODING", "z");
    C("CONFIG", "SET", "zset-max-listpack-entries", "2");
    C("ZADD", "z", "2", "b", "3", "c");
    C("OBJECT", "ENCODING", "z");
    C("ZRANGESTORE", "z2", "z", "0", "1");
    C("OBJECT", "ENCODING", "z2");
    C("ZRANGESTORE", "z2", "z", "0", "0");
    C("OBJECT", "ENCODING", "z2");
    C("CONFIG", "SET", "zset-max-listpack-entries", "0");
    C("ZADD", "z4", "1", "a");
    C("OBJECT", "ENCODING", "z4");
    C("CONFIG", "SET", "zset-max-listpack-entries", "128");
    /* OBJECT and MEMORY in general. */
    C("SET", "int", "123");
    C("SET", "int2", "12345");
    C("SET", "emb", "hello");
    C("SET", "raw", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    C("OBJECT", "ENCODING", "int");
    C("OBJECT", "ENCODING", "emb");
    C("OBJECT", "ENCODING", "raw");
    C("OBJECT", "ENCODING", "nokey");
    C("OBJECT", "REFCOUNT", "int");
    C("OBJECT", "REFCOUNT", "int2");
    C("OBJECT", "REFCOUNT", "emb");
    C("OBJECT", "REFCOUNT", "z");
    C("OBJECT", "REFCOUNT", "nokey");
    C("OBJECT", "FREQ", "z");
    C("OBJECT", "FREQ", "nokey");
    C("OBJECT", "IDLETIME", "nokey");
    C("OBJECT", "HELP");
    C("OBJECT", "HELP", "x");
    C("OBJECT");
    C("OBJECT", "ENCODING");
    C("OBJECT", "ENCODING", "a", "b");
    C("OBJECT", "NOSUCH", "x");
    C("MEMORY", "USAGE");
    C("MEMORY", "USAGE", "nokey");
    C("MEMORY", "USAGE", "z", "samples");
    C("MEMORY", "USAGE", "z", "samples", "-1");
    C("MEMORY", "USAGE", "z", "samples", "x");
    C("MEMORY", "USAGE", "z", "foo", "1");
    C("MEMORY", "NOSUCH");
    const char *usage[][5] = {{"MEMORY", "USAGE", "z"},
                              {"MEMORY", "USAGE", "z", "SAMPLES", "0"},
                              {"MEMORY", "USAGE", "int"},
                              {"MEMORY", "USAGE", "raw"},
                              {"MEMORY", "USAGE", "h"}};
    for (size_t i = 0; i < ARRAY_LEN(usage); i++)
        check_memory_usage(usage[i][3] ? 5 : 3, usage[i], NULL);
}

static void directed_zset(void)
{
    C("DEL", "z", "a", "b", "s", "l", "d");
    C("SET", "s", "string");
    /* ZADD options and their combinations. */
    C("ZADD", "z");
    C("ZADD", "z", "1");
    C("ZADD", "z", "nx", "1");
    C("ZADD", "z", "1", "a", "2");
    C("ZADD", "z", "nx", "xx", "1", "a");
    C("ZADD", "z", "gt", "lt", "1", "a");
    C("ZADD", "z", "gt", "nx", "1", "a");
    C("ZADD", "z", "incr", "1", "a", "2", "b");
    C("ZADD", "z", "x", "a");
    C("ZADD", "z", "1", "a", "x", "b");
    C("ZADD", "z", "nan", "a");
    C("ZADD", "z", "1e400", "a");
    C("ZADD", "z", "", "a");
    C("ZADD", "z", "(1", "a");
    C("EXISTS", "z");
    C("ZADD", "z", "1", "a", "2", "b", "3", "c");
    C("ZADD", "z", "ch", "1", "a", "5", "b", "0", "n");
    C("ZADD", "z", "xx", "ch", "9", "n", "1", "new");
    C("ZADD", "z", "nx", "ch", "9", "n", "1", "new");
    C("ZADD", "z", "gt", "ch", "1", "b", "10", "c");
    C("ZADD", "z", "lt", "ch", "100", "b", "-1", "c");
    C("ZADD", "z", "xx", "gt", "ch", "200", "b");
    C("ZADD", "z", "ch", "incr", "1", "a");
    C("ZADD", "z", "nx", "incr", "1", "a");
    C("ZADD", "z", "xx", "incr", "1", "absent");
    C("ZADD", "z", "gt", "incr", "-1", "a");
    C("ZADD", "z", "gt", "incr", "1", "a");
    C("ZADD", "z", "lt", "incr", "1", "a");
    C("ZADD", "z", "lt", "incr", "-1", "a");
    C("ZADD", "z", "gt", "incr", "5", "brandnew");
    C("ZADD", "z", "lt", "5", "brandnew2");
    C("ZADD", "z", "incr", "0", "a");
    C("ZADD", "nokeyz", "xx", "1", "a");
    C("ZADD", "nokeyz", "xx", "incr", "1", "a");
    C("EXISTS", "nokeyz");
    C("ZADD", "z", "inf", "pinf", "-inf", "ninf", "-0", "negzero", "0", "zero");
    C("ZADD", "z", "incr", "-inf", "pinf");
    C("ZADD", "z", "incr", "+inf", "pinf");
    C("ZINCRBY", "z", "-inf", "pinf");
    C("ZINCRBY", "z", "inf", "ninf");
    C("ZINCRBY", "z", "1.5", "a");
    C("ZINCRBY", "z", "x", "a");
    C("ZINCRBY", "z", "1e308", "big");
    C("ZINCRBY", "z", "1e308", "big");
    C("ZINCRBY", "z", "0.1", "frac");
    C("ZINCRBY", "z", "0.2", "frac");
    C("ZINCRBY", "z", "-0", "mz");
    C("ZSCORE", "z", "mz");
    C("ZSCORE", "z", "frac");
    C("ZSCORE", "z", "negzero");
    C("ZRANGE", "z", "0", "-1", "WITHSCORES");
    C("ZINCRBY", "s", "1", "a");
    /* Reads of members. */
    C("ZSCORE", "z", "a");
    C("ZSCORE", "z", "nope");
    C("ZSCORE", "nokey", "a");
    C("ZMSCORE", "z", "a", "nope", "b");
    C("ZMSCORE", "nokey", "a", "b");
    C("ZCARD", "z");
    C("ZCARD", "nokey");
    C("ZRANK", "z", "a");
    C("ZRANK", "z", "nope");
    C("ZREVRANK", "z", "a");
    C("ZRANK", "nokey", "a");
    C("ZRANK", "z", "a", "withscore", "x");
    C("ZRANK", "z", "a", "b"); /* Redis 7.0: arity (WITHSCORE is 7.2's) */
    C("ZREVRANK", "z", "a", "withscores");
    C("ZRANK", "nokey", "a", "b");
    /* Score ranges: exclusive, infinite, odd numbers strtod accepts. */
    const char *bounds[] = {"-inf",  "+inf",  "inf",    "(1",  "1",  "(3", "3",   "(-inf",
                            "(+inf", "",      "(",      "0x2", " 2", "2 ", "abc", "(nan",
                            "nan",   "1e400", "(1e400", "-0",  "(0", "5",  "(5"};
    for (size_t i = 0; i < ARRAY_LEN(bounds); i++) {
        for (size_t j = 0; j < ARRAY_LEN(bounds); j += 3) {
            C("ZRANGEBYSCORE", "z", bounds[i], bounds[j], "WITHSCORES");
            C("ZREVRANGEBYSCORE", "z", bounds[j], bounds[i]);
            C("ZCOUNT", "z", bounds[i], bounds[j]);
        }
    }
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "2");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "-1", "2");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "-5");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "100", "1");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "0");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "x", "1");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "2", "3", "WITHSCORES");
    C("ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", "1", "3", "WITHSCORES");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "BYSCORE");
    C("ZRANGEBYSCORE", "nokey", "-inf", "+inf");
    C("ZRANGEBYSCORE", "nokey", "x", "+inf");
    C("ZRANGEBYSCORE", "s", "-inf", "+inf");
    /* Rank ranges. */
    const char *ranks[] = {"0",
                           "-1",
                           "1",
                           "-2",
                           "2",
                           "100",
                           "-100",
                           "5",
                           "-5",
                           "9223372036854775807",
                           "-9223372036854775808",
                           "x"};
    for (size_t i = 0; i < ARRAY_LEN(ranks); i++) {
        for (size_t j = 0; j < ARRAY_LEN(ranks); j++) {
            C("ZRANGE", "z", ranks[i], ranks[j]);
            if ((i + j) % 3 == 0) C("ZREVRANGE", "z", ranks[i], ranks[j], "WITHSCORES");
            if ((i + j) % 4 == 0) C("ZRANGE", "z", ranks[i], ranks[j], "REV", "WITHSCORES");
        }
    }
    /* ZRANGE's option grammar. */
    C("ZRANGE", "z", "0", "-1", "LIMIT", "0", "1");
    C("ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES");
    C("ZRANGE", "z", "0", "-1", "REV", "REV");
    C("ZRANGE", "z", "0", "-1", "BYSCORE", "BYLEX");
    C("ZRANGE", "z", "0", "-1", "foo");
    C("ZRANGE", "z", "(1", "5", "BYSCORE", "WITHSCORES");
    C("ZRANGE", "z", "5", "(1", "BYSCORE", "REV", "LIMIT", "0", "2", "WITHSCORES");
    C("ZRANGE", "z", "5", "(1", "BYSCORE", "REV", "LIMIT", "1", "-1");
    C("ZREVRANGE", "z", "0", "-1", "LIMIT", "0", "1");
    C("ZREVRANGE", "z", "0", "-1", "REV");
    C("ZREVRANGE", "z", "0", "-1", "BYSCORE");
    C("ZRANGE", "nokey", "0", "1", "foo");
    C("ZRANGE", "s", "0", "1");
    C("ZRANGE", "s", "0", "1", "foo");
    /* Lex ranges on a set of equal scores. */
    C("ZADD", "l", "0", "a", "0", "aa", "0", "b", "0", "bb", "0", "c", "0", "", "0", "d\xff", "0",
      "ab");
    const char *lex[] = {"-", "+", "[a", "(a", "[b",  "(bb", "[",  "(",
                         "a", "",  "+x", "-x", "[aa", "(c",  "[d", "[\xff"};
    for (size_t i = 0; i < ARRAY_LEN(lex); i++) {
        for (size_t j = 0; j < ARRAY_LEN(lex); j++) {
            C("ZRANGEBYLEX", "l", lex[i], lex[j]);
            if ((i + j) % 2 == 0) C("ZREVRANGEBYLEX", "l", lex[j], lex[i], "LIMIT", "1", "2");
            if ((i + j) % 3 == 0) C("ZLEXCOUNT", "l", lex[i], lex[j]);
            if ((i + j) % 5 == 0) C("ZRANGE", "l", lex[j], lex[i], "BYLEX", "REV");
        }
    }
    C("ZRANGEBYLEX", "l", "-", "+", "LIMIT", "2", "3");
    C("ZRANGEBYLEX", "l", "-", "+", "WITHSCORES");
    C("ZLEXCOUNT", "s", "-", "+");
    C("ZLEXCOUNT", "nokey", "-", "+");
    C("ZLEXCOUNT", "nokey", "x", "+");
    C("ZREMRANGEBYLEX", "l", "[a", "(b");
    C("ZREMRANGEBYLEX", "l", "x", "(b");
    C("ZRANGE", "l", "0", "-1");
    C("ZREMRANGEBYLEX", "l", "-", "+");
    C("EXISTS", "l");
    /* Removal. */
    C("ZREM", "z", "a", "nope", "a");
    C("ZREM", "nokey", "a");
    C("ZREM", "s", "a");
    C("ZREMRANGEBYSCORE", "z", "(10", "+inf");
    C("ZREMRANGEBYSCORE", "z", "x", "+inf");
    C("ZREMRANGEBYSCORE", "nokey", "-inf", "+inf");
    C("ZREMRANGEBYRANK", "z", "x", "1");
    C("ZREMRANGEBYRANK", "z", "5", "1");
    C("ZREMRANGEBYRANK", "z", "-1", "-1");
    C("ZREMRANGEBYRANK", "z", "100", "200");
    C("ZREMRANGEBYRANK", "s", "0", "1");
    C("ZRANGE", "z", "0", "-1", "WITHSCORES");
    /* Pops. */
    C("ZPOPMIN", "z");
    C("ZPOPMAX", "z");
    C("ZPOPMIN", "z", "2");
    C("ZPOPMAX", "z", "0");
    C("ZPOPMIN", "z", "-1");
    C("ZPOPMIN", "z", "x");
    C("ZPOPMIN", "z", "1", "2");
    C("ZPOPMIN", "nokey");
    C("ZPOPMIN", "nokey", "3");
    C("ZPOPMIN", "s");
    C("ZPOPMIN", "s", "0");
    C("ZPOPMAX", "z", "100");
    C("EXISTS", "z");
    /* ZRANDMEMBER errors. */
    C("ZADD", "z", "1", "a", "2", "b");
    C("ZRANDMEMBER", "z", "x");
    C("ZRANDMEMBER", "z", "1", "withscore");
    C("ZRANDMEMBER", "z", "1", "withscores", "x");
    C("ZRANDMEMBER", "z", "-9223372036854775808");
    C("ZRANDMEMBER", "z", "-9223372036854775807", "withscores");
    C("ZRANDMEMBER", "z", "0", "withscores");
    C("ZRANDMEMBER", "nokey");
    C("ZRANDMEMBER", "nokey", "2");
    C("ZRANDMEMBER", "s");
    C("ZRANDMEMBER", "s", "0");
    /* ZSCAN on a listpack set (exact). */
    C("ZADD", "z", "2.5", "c", "-inf", "d", "1e20", "e", "-0", "f");
    C("ZSCAN", "z", "0");
    C("ZSCAN", "z", "0", "MATCH", "[a-c]", "COUNT", "1");
    C("ZSCAN", "z", "x");
    C("ZSCAN", "nokey", "0");
    C("ZSCAN", "s", "0");
    C("ZSCAN", "z", "0", "NOVALUES");
    /* Algebra. */
    C("DEL", "a", "b", "c");
    C("ZADD", "a", "1", "x", "2", "y", "3", "z");
    C("ZADD", "b", "2", "y", "3", "z", "4", "w");
    C("ZADD", "c", "0.1", "x", "0.2", "y", "0.3", "z", "inf", "w");
    const char *ops[] = {"ZUNION", "ZINTER", "ZDIFF"};
    for (size_t i = 0; i < ARRAY_LEN(ops); i++) {
        C(ops[i], "2", "a", "b");
        C(ops[i], "2", "a", "b", "WITHSCORES");
        C(ops[i], "3", "a", "b", "c", "WITHSCORES");
        C(ops[i], "3", "c", "b", "a", "WITHSCORES");
        C(ops[i], "2", "a", "nokey", "WITHSCORES");
        C(ops[i], "2", "nokey", "a", "WITHSCORES");
        C(ops[i], "2", "a", "a", "WITHSCORES");
        C(ops[i], "2", "a", "s");
        C(ops[i], "0", "a");
        C(ops[i], "-1", "a");
        C(ops[i], "x", "a");
        C(ops[i], "3", "a", "b");
        C(ops[i], "9223372036854775807", "a");
        C(ops[i], "2", "a", "b", "WEIGHTS", "2", "3", "WITHSCORES");
        C(ops[i], "2", "a", "b", "WEIGHTS", "2");
        C(ops[i], "2", "a", "b", "WEIGHTS", "2", "x");
        C(ops[i], "2", "a", "b", "WEIGHTS", "1", "1e400");
        C(ops[i], "2", "a", "c", "WEIGHTS", "0", "inf", "WITHSCORES");
        C(ops[i], "2", "a", "c", "WEIGHTS", "-inf", "inf", "WITHSCORES");
        C(ops[i], "2", "a", "b", "AGGREGATE", "MAX", "WITHSCORES");
        C(ops[i], "2", "a", "b", "AGGREGATE", "min", "WITHSCORES");
        C(ops[i], "2", "a", "b", "AGGREGATE", "foo");
        C(ops[i], "2", "a", "b", "AGGREGATE");
        C(ops[i], "2", "a", "b", "WEIGHTS", "1", "2", "WEIGHTS", "3", "4", "WITHSCORES");
        C(ops[i], "2", "a", "b", "WITHSCORES", "WITHSCORES");
        C(ops[i], "2", "a", "b", "LIMIT", "1");
        C(ops[i], "2", "c", "c", "WEIGHTS", "inf", "-inf", "AGGREGATE", "SUM", "WITHSCORES");
    }
    const char *stores[] = {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"};
    for (size_t i = 0; i < ARRAY_LEN(stores); i++) {
        C(stores[i], "d", "2", "a", "b");
        C("ZRANGE", "d", "0", "-1", "WITHSCORES");
        C("OBJECT", "ENCODING", "d");
        C(stores[i], "d", "2", "a", "b", "WITHSCORES");
        C(stores[i], "d", "2", "a", "b", "WEIGHTS", "1", "-1", "AGGREGATE", "MIN");
        C("ZRANGE", "d", "0", "-1", "WITHSCORES");
        C(stores[i], "d", "0", "a");
        C(stores[i], "d", "2", "a", "s");
        C(stores[i], "d", "1", "nokey");
        C("EXISTS", "d");
        C("SET", "d", "string");
        C(stores[i], "d", "2", "a", "b");
        C("ZCARD", "d");
        C(stores[i], "a", "2", "a", "b");
        C("ZRANGE", "a", "0", "-1", "WITHSCORES");
        C("DEL", "a");
        C("ZADD", "a", "1", "x", "2", "y", "3", "z");
    }
    C("ZINTERCARD", "2", "a", "b");
    C("ZINTERCARD", "2", "a", "b", "LIMIT", "1");
    C("ZINTERCARD", "2", "a", "b", "LIMIT", "0");
    C("ZINTERCARD", "2", "a", "b", "LIMIT", "-1");
    C("ZINTERCARD", "2", "a", "b", "LIMIT", "x");
    C("ZINTERCARD", "2", "a", "b", "LIMIT");
    C("ZINTERCARD", "2", "a", "b", "WEIGHTS", "1", "2");
    C("ZINTERCARD", "0", "a");
    C("ZINTERCARD", "3", "a", "b");
    C("ZINTERCARD", "2", "a", "nokey");
    C("ZINTERCARD", "2", "a", "s");
    /* ZRANGESTORE. */
    C("ZRANGESTORE", "d", "a", "0", "-1");
    C("ZRANGESTORE", "d", "a", "(1", "+inf", "BYSCORE", "LIMIT", "0", "1");
    C("ZRANGE", "d", "0", "-1", "WITHSCORES");
    C("ZRANGESTORE", "d", "a", "0", "-1", "WITHSCORES");
    C("ZRANGESTORE", "d", "a", "5", "10");
    C("EXISTS", "d");
    C("ZRANGESTORE", "d", "nokey", "0", "-1");
    C("ZRANGESTORE", "d", "s", "0", "-1");
    C("ZRANGESTORE", "s", "a", "0", "-1");
    C("ZCARD", "s");
    C("SET", "s", "string");
    /* Wrong types against strings, both ways. */
    C("GET", "a");
    C("SET", "a", "x");
    C("ZCARD", "a");
    C("ZADD", "s", "1", "a");
    C("ZSCORE", "s", "a");
    C("ZMSCORE", "s", "a");
    C("ZCARD", "s");
    C("ZCOUNT", "s", "0", "1");
    C("ZRANK", "s", "a");
    C("ZREVRANK", "s", "a");
    C("ZREVRANGE", "s", "0", "1");
    C("ZREMRANGEBYLEX", "s", "-", "+");
    C("ZREMRANGEBYSCORE", "s", "-inf", "+inf");
    C("HGET", "a", "x");
}

/* Bad input leaves the data as it was. */
static void directed_bad_input(void)
{
    C("DEL", "z", "h");
    C("ZADD", "z", "1", "a", "2", "b");
    C("HSET", "h", "f", "1");
    C("ZADD", "z", "3", "c", "abc", "d");
    C("ZADD", "z", "3", "c", "4", "d", "nan", "e");
    C("ZADD", "z", "incr", "1", "a", "1", "b");
    C("ZRANGE", "z", "0", "-1", "WITHSCORES");
    C("ZRANGE", "z", "0", "9223372036854775807");
    C("ZRANGE", "z", "-9223372036854775808", "9223372036854775807", "WITHSCORES");
    C("ZRANGE", "z", "0", "99999999999999999999");
    C("ZREMRANGEBYRANK", "z", "-9223372036854775808", "-9223372036854775808");
    C("ZPOPMIN", "z", "9223372036854775807");
    C("ZPOPMIN", "z", "99999999999999999999");
    C("ZADD", "z", "1", "a", "2", "b");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "9223372036854775807", "9223372036854775807");
    C("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "9223372036854775807");
    C("ZRANDMEMBER", "z", "9223372036854775807");
    C("HRANDFIELD", "h", "9223372036854775807");
    C("HINCRBY", "h", "f", "99999999999999999999");
    C("HGETALL", "h");
    C("ZRANGE", "z", "0", "-1", "WITHSCORES");
}

/* Extensions of later Redis versions, checked against what 7.0 says by
 * other means (7.0 itself rejects their syntax). */
static void extensions(void)
{
    C("DEL", "h", "z");
    C("HSET", "h", "a", "1", "b", "2", "c", "3");
    char *g = rconn_call(&d.g, "HSCAN", "h", "0", "NOVALUES", NULL);
    char *r = rconn_call(&d.r, "HKEYS", "h", NULL);
    /* listpack: HSCAN gives everything in one step, in HKEYS's order. */
    const char *want_prefix = "*2\r\n$1\r\n0\r\n";
    CHECKF(strncmp(g, want_prefix, strlen(want_prefix)) == 0 &&
               strcmp(g + strlen(want_prefix), r) == 0,
           "HSCAN NOVALUES: %s vs HKEYS %s", g, r);
    free(g);
    free(r);
    g = rconn_call(&d.g, "ZSCAN", "h", "0", "NOVALUES", NULL);
    CHECK(strncmp(g, "-WRONGTYPE", 10) == 0);
    free(g);
    C("ZADD", "z", "1", "a", "2.5", "b");
    C("SET", "s", "x");
    g = rconn_call(&d.g, "ZSCAN", "z", "0", "NOVALUES", NULL);
    CHECK(strcmp(g, "-ERR syntax error\r\n") == 0);
    free(g);
    g = rconn_call(&d.g, "ZRANK", "z", "b", "WITHSCORE", NULL);
    CHECK(strcmp(g, resp3 ? "*2\r\n:1\r\n,2.5\r\n" : "*2\r\n:1\r\n$3\r\n2.5\r\n") == 0);
    free(g);
    g = rconn_call(&d.g, "ZREVRANK", "z", "b", "withscore", NULL);
    CHECK(strcmp(g, resp3 ? "*2\r\n:0\r\n,2.5\r\n" : "*2\r\n:0\r\n$3\r\n2.5\r\n") == 0);
    free(g);
    g = rconn_call(&d.g, "ZRANK", "z", "nope", "WITHSCORE", NULL);
    CHECK(strcmp(g, resp3 ? "_\r\n" : "*-1\r\n") == 0);
    free(g);
    g = rconn_call(&d.g, "ZRANK", "z", "b", "WITHSCORES", NULL);
    CHECK(strcmp(g, "-ERR wrong number of arguments for 'zrank' command\r\n") == 0);
    free(g);
    g = rconn_call(&d.g, "ZRANK", "s", "b", "WITHSCORE", NULL);
    CHECK(strncmp(g, "-WRONGTYPE", 10) == 0);
    free(g);
    /* Oversize repetition counts: a clear error, not a multi-GB reply. */
    g = rconn_call(&d.g, "ZRANDMEMBER", "z", "-1000000000", NULL);
    CHECK(strncmp(g, "-ERR count is out of range", 26) == 0);
    free(g);
    g = rconn_call(&d.g, "HRANDFIELD", "h", "-1000000000", NULL);
    CHECK(strncmp(g, "-ERR count is out of range", 26) == 0);
    free(g);
    C("ZRANGE", "z", "0", "-1", "WITHSCORES");
    C("HGETALL", "h");
}

/* Big sets: random members and full scans by meaning. */
static void big_sets(void)
{
    C("DEL", "bh", "bz");
    char field[32], score[32];
    for (int i = 0; i < 1200; i++) {
        snprintf(field, sizeof field, "m%d", i);
        snprintf(score, sizeof score, "%d", (i * 7919) % 1000);
        C("ZADD", "bz", score, field);
        C("HSET", "bh", field, score);
    }
    C("OBJECT", "ENCODING", "bz");
    C("OBJECT", "ENCODING", "bh");
    const char *counts[] = {"1",    "5",    "399", "400", "401",  "1199",
                            "1200", "5000", "-1",  "-7",  "-2000"};
    for (size_t i = 0; i < ARRAY_LEN(counts); i++) {
        const char *hz[] = {"HRANDFIELD", "bh", counts[i], "WITHVALUES"};
        const char *zz[] = {"ZRANDMEMBER", "bz", counts[i], "WITHSCORES"};
        check_random(false, 3, hz, NULL);
        check_random(false, 4, hz, NULL);
        check_random(true, 3, zz, NULL);
        check_random(true, 4, zz, NULL);
    }
    const char *hz1[] = {"HRANDFIELD", "bh"};
    const char *zz1[] = {"ZRANDMEMBER", "bz"};
    check_random(false, 2, hz1, NULL);
    check_random(true, 2, zz1, NULL);
    const char *hs[] = {"HSCAN", "bh", "0", "COUNT", "7"};
    const char *hsm[] = {"HSCAN", "bh", "0", "MATCH", "m1*", "COUNT", "50"};
    const char *zs[] = {"ZSCAN", "bz", "0"};
    const char *zsm[] = {"ZSCAN", "bz", "0", "MATCH", "*9", "COUNT", "1000"};
    check_scan(5, hs, NULL, 2);
    check_scan(7, hsm, NULL, 2);
    check_scan(3, zs, NULL, 2);
    check_scan(7, zsm, NULL, 2);
    const char *hk[] = {"HKEYS", "bh"};
    const char *hv[] = {"HVALS", "bh"};
    const char *ha[] = {"HGETALL", "bh"};
    check_unordered(2, hk, NULL, 1);
    check_unordered(2, hv, NULL, 1);
    check_unordered(2, ha, NULL, 2);
    C("ZRANGE", "bz", "0", "-1", "WITHSCORES");
    C("ZRANGEBYSCORE", "bz", "(100", "500", "WITHSCORES", "LIMIT", "37", "90");
    C("ZREVRANGEBYSCORE", "bz", "500", "(100", "LIMIT", "37", "90");
    C("ZRANK", "bz", "m777");
    C("ZREVRANK", "bz", "m777");
    C("ZCOUNT", "bz", "(250", "750");
    C("ZREMRANGEBYSCORE", "bz", "100", "(200");
    C("ZREMRANGEBYRANK", "bz", "100", "399");
    C("ZPOPMIN", "bz", "50");
    C("ZPOPMAX", "bz", "50");
    C("ZRANGE", "bz", "0", "-1", "WITHSCORES");
    C("ZUNIONSTORE", "bu", "2", "bz", "bz", "WEIGHTS", "1", "0.5");
    C("ZRANGE", "bu", "0", "-1", "WITHSCORES");
    C("OBJECT", "ENCODING", "bu");
}

/* --- the random stream --------------------------------------------------------- */

static const char *const hash_keys[] = {"h0", "h1", "h2"};
static const char *const zset_keys[] = {"z0", "z1", "z2"};
static const char *const lex_keys[] = {"l0", "l1"};
static const char *const other_keys[] = {"s0", "none", "d0"};
static const char *const members[] = {
    "a",
    "b",
    "c",
    "aa",
    "ab",
    "ba",
    "",
    "m1",
    "m2",
    "m3",
    "m4",
    "m5",
    "m6",
    "m7",
    "m8",
    "m9",
    "m10",
    "m11",
    "zz",
    "A",
    "0",
    "1",
    "-1",
    "x y",
    "a-member-that-is-exactly-sixty-four-bytes-long-for-the-threshold",
    "a-member-that-is-sixty-five-bytes-long-and-so-crosses-the-limit!!"};
static const char *const values[] = {
    "1",
    "0",
    "-5",
    "10",
    "x",
    "3.5",
    "1e3",
    "",
    "v",
    "9223372036854775807",
    "-9223372036854775808",
    " 1",
    "0x10",
    "1.0",
    "inf",
    "a-value-that-is-sixty-five-bytes-long-and-so-crosses-the-limit!!!"};
static const char *const scores[] = {
    "0",   "1",  "-1",  "2.5",    "1e10", "-inf", "+inf", "inf",   "3", "4",
    "5",   "-0", "0.1", "1e-320", "nan",  "abc",  "(1",   "1e400", "7", "3.00000000000000044",
    "-2.5"};
static const char *const score_bounds[] = {"-inf",  "+inf", "(1", "1",    "(2.5", "0",
                                           "(-inf", "5",    "(5", "3",    "abc",  "",
                                           "(",     "-1",   "(0", "1e400"};
static const char *const lex_bounds[] = {"-",  "+", "[a", "(a", "[b", "(ba", "[m5",
                                         "(m", "[", "(",  "a",  "",   "[zz", "+x"};
static const char *const indexes[] = {"0", "1", "2", "-1", "-2", "3", "-3", "10", "-10", "x"};
static const char *const counts[] = {"0", "1", "2", "3", "-1", "-3", "5", "100", "abc", "-0"};

#define PICK(a) (a)[pick(ARRAY_LEN(a))]

/* Any key but the lex sets (which must only ever hold score 0). */
static const char *any_key(void)
{
    switch (pick(10)) {
    case 0:
    case 1:
        return PICK(other_keys);
    case 2:
    case 3:
    case 4:
    case 5:
        return PICK(hash_keys);
    default:
        return PICK(zset_keys);
    }
}

/* Mostly the right type, sometimes any key (WRONGTYPE, missing keys). */
static const char *hash_key(void)
{
    return pick(8) ? PICK(hash_keys) : any_key();
}

static const char *zset_key(void)
{
    return pick(8) ? PICK(zset_keys) : any_key();
}

/* Lex commands only on sets whose scores are all 0, a string and a key
 * nothing else writes. */
static const char *lex_key(void)
{
    static const char *const others[] = {"lstring", "lnone"};
    return pick(8) ? PICK(lex_keys) : PICK(others);
}

/* Destinations never hold lex sets (a result has mixed scores). */
static const char *dst_key(void)
{
    return pick(3) ? "d0" : pick(2) ? PICK(zset_keys) : PICK(hash_keys);
}

struct cmd {
    const char *argv[24];
    int argc;
};

static void add(struct cmd *c, const char *a)
{
    c->argv[c->argc++] = a;
}

static void random_command(void)
{
    struct cmd c = {0};
    static char num[8][32];
    switch (pick(44)) {
    case 0:
    case 1:
    case 2: {
        add(&c, pick(5) ? "HSET" : "HMSET");
        add(&c, hash_key());
        int pairs = 1 + (int)pick(3);
        for (int i = 0; i < pairs; i++) add(&c, PICK(members)), add(&c, PICK(values));
        if (pick(20) == 0) c.argc--; /* odd: arity error */
        break;
    }
    case 3:
        add(&c, "HSETNX"), add(&c, hash_key()), add(&c, PICK(members)), add(&c, PICK(values));
        break;
    case 4:
        add(&c, "HGET"), add(&c, hash_key()), add(&c, PICK(members));
        break;
    case 5:
        add(&c, "HMGET"), add(&c, hash_key());
        for (int i = 0, n = 1 + (int)pick(4); i < n; i++) add(&c, PICK(members));
        break;
    case 6:
        add(&c, "HDEL"), add(&c, hash_key());
        for (int i = 0, n = 1 + (int)pick(3); i < n; i++) add(&c, PICK(members));
        break;
    case 7:
        add(&c, pick(2) ? "HLEN" : "HSTRLEN"), add(&c, hash_key());
        if (c.argv[0][1] == 'S') add(&c, PICK(members));
        break;
    case 8:
        add(&c, "HEXISTS"), add(&c, hash_key()), add(&c, PICK(members));
        break;
    case 9: {
        static const char *const all[] = {"HGETALL", "HKEYS", "HVALS"};
        add(&c, PICK(all)), add(&c, hash_key());
        check_unordered(c.argc, c.argv, NULL, c.argv[0][1] == 'G' ? 2 : 1);
        return;
    }
    case 10:
        add(&c, "HINCRBY"), add(&c, hash_key()), add(&c, PICK(members));
        add(&c,
            pick(4) ? (snprintf(num[0], 32, "%d", (int)pick(200) - 100), num[0]) : PICK(values));
        break;
    case 11:
        add(&c, "HINCRBYFLOAT"), add(&c, hash_key()), add(&c, PICK(members));
        add(&c, pick(3) ? PICK(scores) : PICK(values));
        break;
    case 12: {
        add(&c, "HRANDFIELD"), add(&c, hash_key());
        if (pick(4)) add(&c, PICK(counts));
        if (c.argc == 3 && pick(2)) add(&c, pick(8) ? "WITHVALUES" : "withvalue");
        check_random(false, c.argc, c.argv, NULL);
        return;
    }
    case 13: {
        add(&c, "HSCAN"), add(&c, hash_key()), add(&c, "0");
        if (pick(2)) add(&c, "MATCH"), add(&c, pick(2) ? "m*" : "*a*");
        if (pick(2)) add(&c, "COUNT"), add(&c, pick(8) ? "3" : "0");
        check_scan(c.argc, c.argv, NULL, 2);
        return;
    }
    case 14:
    case 15:
    case 16:
    case 17: {
        add(&c, "ZADD"), add(&c, zset_key());
        static const char *const opts[] = {"NX", "XX", "GT", "LT", "CH", "INCR"};
        while (pick(3) == 0) add(&c, PICK(opts));
        int pairs = 1 + (int)pick(3);
        for (int i = 0; i < pairs; i++) add(&c, PICK(scores)), add(&c, PICK(members));
        break;
    }
    case 18: {
        /* Lex sets only ever get score 0. */
        add(&c, "ZADD"), add(&c, lex_key());
        if (pick(4) == 0) add(&c, pick(2) ? "NX" : "XX");
        for (int i = 0, n = 1 + (int)pick(3); i < n; i++)
            add(&c, pick(4) ? "0" : "-0"), add(&c, PICK(members));
        break;
    }
    case 19:
        add(&c, "ZINCRBY"), add(&c, zset_key()), add(&c, PICK(scores)), add(&c, PICK(members));
        break;
    case 20:
        add(&c, "ZSCORE"), add(&c, zset_key()), add(&c, PICK(members));
        break;
    case 21:
        add(&c, "ZMSCORE"), add(&c, zset_key());
        for (int i = 0, n = 1 + (int)pick(3); i < n; i++) add(&c, PICK(members));
        break;
    case 22:
        add(&c, "ZCARD"), add(&c, pick(2) ? zset_key() : lex_key());
        break;
    case 23:
        add(&c, "ZCOUNT"), add(&c, zset_key()), add(&c, PICK(score_bounds)),
            add(&c, PICK(score_bounds));
        break;
    case 24:
        add(&c, "ZLEXCOUNT"), add(&c, lex_key()), add(&c, PICK(lex_bounds)),
            add(&c, PICK(lex_bounds));
        break;
    case 25:
        add(&c, pick(2) ? "ZRANK" : "ZREVRANK"), add(&c, zset_key()), add(&c, PICK(members));
        break;
    case 26:
    case 27: {
        add(&c, "ZRANGE"), add(&c, zset_key());
        int kind = (int)pick(3);
        if (kind == 0)
            add(&c, PICK(indexes)), add(&c, PICK(indexes));
        else
            add(&c, PICK(score_bounds)), add(&c, PICK(score_bounds)), add(&c, "BYSCORE");
        if (pick(2)) add(&c, "REV");
        if (kind && pick(2)) add(&c, "LIMIT"), add(&c, PICK(indexes)), add(&c, PICK(counts));
        if (pick(2)) add(&c, "WITHSCORES");
        break;
    }
    case 28:
        add(&c, pick(2) ? "ZRANGEBYLEX" : "ZREVRANGEBYLEX"), add(&c, lex_key());
        add(&c, PICK(lex_bounds)), add(&c, PICK(lex_bounds));
        if (pick(2)) add(&c, "LIMIT"), add(&c, PICK(indexes)), add(&c, PICK(counts));
        break;
    case 29:
        add(&c, pick(2) ? "ZRANGEBYSCORE" : "ZREVRANGEBYSCORE"), add(&c, zset_key());
        add(&c, PICK(score_bounds)), add(&c, PICK(score_bounds));
        if (pick(2)) add(&c, "WITHSCORES");
        if (pick(2)) add(&c, "LIMIT"), add(&c, PICK(indexes)), add(&c, PICK(counts));
        break;
    case 30:
        add(&c, "ZREVRANGE"), add(&c, zset_key()), add(&c, PICK(indexes)), add(&c, PICK(indexes));
        if (pick(2)) add(&c, "WITHSCORES");
        break;
    case 31:
        add(&c, "ZREM"), add(&c, pick(3) ? zset_key() : lex_key());
        for (int i = 0, n = 1 + (int)pick(3); i < n; i++) add(&c, PICK(members));
        break;
    case 32:
        add(&c, "ZREMRANGEBYSCORE"), add(&c, zset_key()), add(&c, PICK(score_bounds)),
            add(&c, PICK(score_bounds));
        break;
    case 33:
        add(&c, "ZREMRANGEBYRANK"), add(&c, pick(3) ? zset_key() : lex_key());
        add(&c, PICK(indexes)), add(&c, PICK(indexes));
        break;
    case 34:
        add(&c, "ZREMRANGEBYLEX"), add(&c, lex_key()), add(&c, PICK(lex_bounds)),
            add(&c, PICK(lex_bounds));
        break;
    case 35:
        add(&c, pick(2) ? "ZPOPMIN" : "ZPOPMAX"), add(&c, pick(4) ? zset_key() : lex_key());
        if (pick(2)) add(&c, PICK(counts));
        break;
    case 36: {
        add(&c, "ZRANDMEMBER"), add(&c, zset_key());
        if (pick(4)) add(&c, PICK(counts));
        if (c.argc == 3 && pick(2)) add(&c, pick(8) ? "WITHSCORES" : "withscore");
        check_random(true, c.argc, c.argv, NULL);
        return;
    }
    case 37: {
        add(&c, "ZSCAN"), add(&c, zset_key()), add(&c, "0");
        if (pick(2)) add(&c, "MATCH"), add(&c, pick(2) ? "m*" : "?");
        if (pick(2)) add(&c, "COUNT"), add(&c, "2");
        check_scan(c.argc, c.argv, NULL, 2);
        return;
    }
    case 38:
    case 39: {
        static const char *const ops[] = {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZUNION",
                                          "ZINTER",      "ZDIFF",       "ZINTERCARD"};
        const char *op = PICK(ops);
        bool store = strstr(op, "STORE") != NULL, card = strcmp(op, "ZINTERCARD") == 0;
        add(&c, op);
        if (store) add(&c, dst_key());
        int n = 1 + (int)pick(3);
        snprintf(num[1], 32, "%d", pick(30) ? n : n + 1);
        add(&c, num[1]);
        for (int i = 0; i < n; i++) add(&c, pick(6) ? PICK(zset_keys) : any_key());
        if (!card && pick(2)) {
            add(&c, "WEIGHTS");
            for (int i = 0; i < n; i++) add(&c, pick(5) ? PICK(indexes) : PICK(scores));
        }
        if (!card && pick(3) == 0) {
            static const char *const aggs[] = {"SUM", "MIN", "MAX", "max", "foo"};
            add(&c, "AGGREGATE"), add(&c, PICK(aggs));
        }
        if (card && pick(2)) add(&c, "LIMIT"), add(&c, PICK(counts));
        if (!store && !card && pick(2)) add(&c, "WITHSCORES");
        break;
    }
    case 40: {
        add(&c, "ZRANGESTORE"), add(&c, dst_key()), add(&c, zset_key());
        if (pick(2))
            add(&c, PICK(indexes)), add(&c, PICK(indexes));
        else
            add(&c, PICK(score_bounds)), add(&c, PICK(score_bounds)), add(&c, "BYSCORE");
        if (pick(3) == 0) add(&c, "REV");
        break;
    }
    case 41: {
        /* String commands against every type, and resets. */
        static const char *const ops[] = {"GET", "SET", "DEL", "EXISTS", "GET"};
        const char *op = PICK(ops);
        add(&c, op), add(&c, any_key());
        if (op[0] == 'S') add(&c, PICK(values));
        break;
    }
    case 42:
        add(&c, "OBJECT"), add(&c, "ENCODING"), add(&c, any_key());
        break;
    case 43: {
        add(&c, "MEMORY"), add(&c, "USAGE"), add(&c, any_key());
        if (pick(2)) add(&c, "SAMPLES"), add(&c, PICK(counts));
        check_memory_usage(c.argc, c.argv, NULL);
        return;
    }
    }
    diff_check_argv(&d, c.argc, c.argv, NULL);
}

static void random_stream(int n)
{
    C("SET", "lstring", "a string");
    for (int i = 0; i < n; i++) random_command();
}

static void run_all(int random_count)
{
    directed_hash();
    directed_encodings();
    directed_zset();
    directed_bad_input();
    extensions();
    big_sets();
    C("FLUSHALL");
    random_stream(random_count);
    /* Tiny thresholds: conversions in both directions of every path. */
    C("CONFIG", "SET", "hash-max-listpack-entries", "3");
    C("CONFIG", "SET", "zset-max-listpack-entries", "3");
    C("CONFIG", "SET", "hash-max-listpack-value", "2");
    C("CONFIG", "SET", "zset-max-listpack-value", "2");
    random_stream(random_count);
    C("CONFIG", "SET", "hash-max-listpack-entries", "512");
    C("CONFIG", "SET", "zset-max-listpack-entries", "128");
    C("CONFIG", "SET", "hash-max-listpack-value", "64");
    C("CONFIG", "SET", "zset-max-listpack-value", "64");
    C("FLUSHALL");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_hash_zset");
    rand_seed(seed);
    diff_start(&d, "diff_hash_zset", seed, NULL, NULL);
    int random_count = getenv("GOBLIN_ASAN") ? 2500 : 5000;
    run_all(random_count);
    diff_hello3(&d); /* fails the test unless both switch to RESP3 */
    resp3 = true;
    run_all(random_count);
    diff_stop(&d);
    return 0;
}
