/*
 * Differential test of the HyperLogLog commands (PFADD, PFCOUNT, PFMERGE)
 * against redis-server, byte for byte: the replies and the HYLL values
 * themselves (GET after every kind of update, sparse and dense, the
 * sparse→dense promotion at hll-sparse-max-bytes), errors on wrong types
 * and corrupted values (directed blobs and random byte mutations), then a
 * seeded random stream over many keys, in RESP2 and RESP3. Finally values
 * cross between the servers: Redis's bytes SET into goblin-core and
 * goblin-core's into Redis must count and grow the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "util/rand.h"

static struct diff_pair d;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum { HDR = 16, DENSE_SIZE = 16 + 12288 };

static size_t pick(size_t n)
{
    return (size_t)(rand_u64() % n);
}

static void fail(const char *what)
{
    fprintf(stderr, "diff_hll: %s (seed %llu)\n", what, d.seed);
    exit(1);
}

/* The value of a bulk reply (malloc'd, length in *len); NULL for nil. */
static char *bulk_value(char *raw, size_t rawlen, size_t *len)
{
    if (raw[0] != '$') {
        free(raw);
        return NULL;
    }
    long n = strtol(raw + 1, NULL, 10);
    if (n < 0) {
        free(raw);
        return NULL;
    }
    char *body = strstr(raw, "\r\n") + 2;
    if ((size_t)(body - raw) + (size_t)n + 2 != rawlen) fail("malformed bulk reply");
    char *out = malloc((size_t)n + 1);
    memcpy(out, body, (size_t)n);
    *len = (size_t)n;
    free(raw);
    return out;
}

/* GET key on one server. */
static char *get_on(struct rconn *c, const char *key, size_t *len)
{
    size_t rawlen;
    const char *argv[] = {"GET", key};
    size_t lens[] = {3, strlen(key)};
    rconn_send_argv(c, 2, argv, lens);
    char *raw = rconn_read_reply(c, &rawlen);
    return bulk_value(raw, rawlen, len);
}

/* SET key to binary bytes on one server (must answer +OK). */
static void set_on(struct rconn *c, const char *key, const char *val, size_t len)
{
    const char *argv[] = {"SET", key, val};
    size_t lens[] = {3, strlen(key), len};
    rconn_send_argv(c, 3, argv, lens);
    size_t rawlen;
    char *raw = rconn_read_reply(c, &rawlen);
    if (strcmp(raw, "+OK\r\n") != 0) fail("SET did not answer +OK");
    free(raw);
}

/* SET key to binary bytes on both servers (replies compared). */
static void set_both(const char *key, const char *val, size_t len)
{
    const char *argv[] = {"SET", key, val};
    size_t lens[] = {3, strlen(key), len};
    diff_check_argv(&d, 3, argv, lens);
}

/* A HYLL header of the given encoding; cached cardinality `card` (valid)
 * or stale when card < 0. */
static size_t header(char *p, int encoding, long long card)
{
    memcpy(p, "HYLL", 4);
    p[4] = (char)encoding;
    memset(p + 5, 0, 11);
    if (card < 0)
        p[15] = (char)0x80;
    else
        for (int i = 0; i < 8; i++) p[8 + i] = (char)((unsigned long long)card >> (8 * i));
    return HDR;
}

/* A sparse value from opcode bytes. */
static void set_sparse(const char *key, long long card, const char *ops, size_t n)
{
    char buf[256];
    size_t len = header(buf, 1, card);
    memcpy(buf + len, ops, n);
    set_both(key, buf, len + n);
}

#define SPARSE(key, card, lit) set_sparse(key, card, lit, sizeof(lit) - 1)

/* Each command on a key that holds a (possibly corrupt) value. */
static void exercise(const char *key)
{
    C("PFCOUNT", key);
    C("PFCOUNT", key, "nokey");
    C("PFMERGE", "merged", key);
    C("GET", "merged");
    C("PFADD", key, "a", "b", "c", "d", "e", "f", "g", "h");
    C("GET", key);
    C("PFCOUNT", key);
    C("GET", key);
}

/* PFDEBUG: its errors and checking order (key, type, subcommand), every
 * subcommand on sparse and dense values. */
static void directed_pfdebug(void)
{
    C("PFDEBUG");
    C("PFDEBUG", "ENCODING");
    C("PFDEBUG", "ENCODING", "dbg", "x");
    C("PFDEBUG", "ENCODING", "nokey");
    C("PFDEBUG", "nosuch", "nokey");
    C("SET", "dbgstr", "not an hll");
    C("PFDEBUG", "ENCODING", "dbgstr");
    C("PFDEBUG", "nosuch", "dbgstr");
    C("SET", "dbgint", "12345");
    C("PFDEBUG", "DECODE", "dbgint");
    C("HSET", "dbghash", "f", "v");
    C("PFDEBUG", "GETREG", "dbghash");
    C("PFADD", "dbg", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k");
    C("PFDEBUG", "nosuch", "dbg");
    C("PFDEBUG", "ENCODING", "dbg");
    C("PFDEBUG", "DECODE", "dbg");
    C("PFDEBUG", "TODENSE", "dbg");
    C("PFDEBUG", "TODENSE", "dbg");
    C("PFDEBUG", "ENCODING", "dbg");
    C("PFDEBUG", "DECODE", "dbg");
    C("GET", "dbg");
    C("PFCOUNT", "dbg");
    C("PFADD", "dbg2", "x", "y");
    C("PFDEBUG", "getreg", "dbg2");
    C("PFDEBUG", "Encoding", "dbg2");
    C("GET", "dbg2");
    /* A sparse value with a register past 16384 (corrupt): conversions fail. */
    SPARSE("dbg3", 0, "\x7f\xff\x80");
    C("PFDEBUG", "DECODE", "dbg3");
    C("PFDEBUG", "TODENSE", "dbg3");
    C("PFDEBUG", "GETREG", "dbg3");
    C("PFSELFTEST", "x");
}

static void directed(void)
{
    directed_pfdebug();
    C("FLUSHALL");
    C("PFADD");
    C("PFCOUNT");
    C("PFMERGE");
    C("PFADD", "h0");
    C("GET", "h0");
    C("OBJECT", "ENCODING", "h0");
    C("PFADD", "h0");
    C("PFADD", "h0", "a", "b", "c");
    C("PFADD", "h0", "a", "b", "c");
    C("GET", "h0");
    C("PFCOUNT", "h0");
    C("GET", "h0");
    C("PFCOUNT", "nokey");
    C("PFCOUNT", "nokey", "nokey2");
    C("EXISTS", "nokey");
    C("PFMERGE", "dst", "nokey");
    C("GET", "dst");
    C("PFMERGE", "dst2");
    C("GET", "dst2");
    C("PFMERGE", "dst", "h0");
    C("GET", "dst");
    C("PFCOUNT", "dst", "h0");
    C("TYPE", "h0");
    /* Wrong types and strings that are not HLLs. */
    C("HSET", "h", "f", "v");
    C("PFADD", "h", "a");
    C("PFADD", "h");
    C("PFCOUNT", "h");
    C("PFCOUNT", "h0", "h");
    C("PFMERGE", "h", "h0");
    C("PFMERGE", "h0", "h");
    C("SET", "s", "hello");
    C("PFADD", "s", "a");
    C("PFCOUNT", "s");
    C("PFCOUNT", "h0", "s");
    C("PFMERGE", "s", "h0");
    C("PFMERGE", "h0", "s");
    C("SET", "n", "12345");
    C("PFADD", "n", "a");
    C("PFCOUNT", "n");
    C("SET", "e", "");
    C("PFADD", "e", "a");
    C("SET", "hy", "HYLL");
    C("PFCOUNT", "hy");
    char buf[DENSE_SIZE + 64];
    header(buf, 2, 0);
    set_both("enc2", buf, HDR);
    C("PFCOUNT", "enc2");
    C("PFADD", "enc2", "x");
    header(buf, 0, 0);
    memset(buf + HDR, 0, sizeof buf - HDR);
    set_both("dshort", buf, DENSE_SIZE - 1);
    C("PFCOUNT", "dshort");
    set_both("dlong", buf, DENSE_SIZE + 1);
    C("PFADD", "dlong", "x");
    /* A dense value of zeros: cached 0, then stale. */
    set_both("dz", buf, DENSE_SIZE);
    C("PFCOUNT", "dz");
    header(buf, 0, -1);
    set_both("dz", buf, DENSE_SIZE);
    exercise("dz");
    /* Registers out of the hash's range (63) and the cache. */
    header(buf, 0, -1);
    memset(buf + HDR, 0xff, DENSE_SIZE - HDR);
    set_both("d63", buf, DENSE_SIZE);
    C("PFCOUNT", "d63");
    C("PFCOUNT", "d63", "h0");
    C("PFMERGE", "m63", "h0", "d63");
    C("GET", "m63");
    C("PFMERGE", "h0copy", "h0");
    C("PFMERGE", "h0copy", "d63");
    C("GET", "h0copy");
    /* Cached cardinalities are trusted as they are. */
    header(buf, 0, 0x7fffffffffffffffLL);
    memset(buf + HDR, 0, DENSE_SIZE - HDR);
    set_both("dcache", buf, DENSE_SIZE);
    C("PFCOUNT", "dcache");
    C("PFCOUNT", "dcache", "h0");
    header(buf, 0, 12345);
    set_both("dcache", buf, DENSE_SIZE);
    C("PFCOUNT", "dcache");
    /* Sparse values, valid and corrupt. */
    SPARSE("sp", -1, "\x7f\xff");
    exercise("sp");
    SPARSE("sp", 77, "\x7f\xfe\x80"); /* valid, with a cache */
    exercise("sp");
    SPARSE("sp", -1, "\x7f\xfe"); /* one register short */
    exercise("sp");
    SPARSE("sp", 5, "\x7f\xfe"); /* short but cached */
    exercise("sp");
    SPARSE("sp", -1, "\x7f\xff\x00"); /* one register too many */
    exercise("sp");
    SPARSE("sp", -1, "\x7f\xff\x83"); /* a VAL past the end */
    exercise("sp");
    SPARSE("sp", -1, "\x7f"); /* truncated XZERO */
    exercise("sp");
    SPARSE("sp", -1, "\x3f\x7f"); /* truncated XZERO after a ZERO */
    exercise("sp");
    SPARSE("sp", -1, "");
    exercise("sp");
    SPARSE("sp", -1, "\x40\x00\x7f\xfe"); /* XZERO of one register */
    exercise("sp");
    SPARSE("sp", -1, "\x80\x80\x80\x80\x7f\xfb"); /* unmerged VALs */
    exercise("sp");
    SPARSE("sp", -1, "\xfc\xfc\x7f\xf7"); /* VAL 32 runs of 1 */
    exercise("sp");
    SPARSE("sp", -1, "\x00\x7f\xfe");
    C("PFMERGE", "sp", "d63");
    C("GET", "sp");
    SPARSE("sp", -1, "\x7f\xff");
    C("OBJECT", "ENCODING", "sp");
    C("PFCOUNT", "sp");
    C("OBJECT", "ENCODING", "sp");
    C("APPEND", "sp", "x");
    exercise("sp");
    C("SETRANGE", "h0", "17", "\x01\x02");
    exercise("h0");
    /* hll-sparse-max-bytes. */
    C("CONFIG", "GET", "hll-sparse-max-bytes");
    C("CONFIG", "SET", "hll-sparse-max-bytes", "-1");
    C("CONFIG", "SET", "hll-sparse-max-bytes", "x");
    C("CONFIG", "SET", "hll-sparse-max-bytes", "1kb");
    C("CONFIG", "GET", "hll-sparse-max-bytes");
    C("CONFIG", "SET", "hll-sparse-max-bytes", "0");
    C("PFADD", "z", "a");
    C("GET", "z");
    C("PFADD", "z", "b");
    C("STRLEN", "z");
    C("CONFIG", "SET", "hll-sparse-max-bytes", "3000");
}

static const char *const keys[] = {"p0", "p1", "p2", "p3", "p4", "p5",  "p6",
                                   "p7", "p8", "p9", "s",  "h",  "none"};
#define HLL_KEYS 10
static const char *const limits[] = {"3000", "3000", "3000", "200", "1000", "10000"};

#define MAX_ARGS 1100

static char elem_store[MAX_ARGS][24];

/* An element: usually "e<N>" from a pool, sometimes binary of any length. */
static size_t element(int i)
{
    char *p = elem_store[i];
    if (pick(10)) return (size_t)snprintf(p, sizeof elem_store[i], "e%zu", pick(60000));
    size_t n = pick(sizeof elem_store[i]);
    for (size_t k = 0; k < n; k++) p[k] = (char)rand_u64();
    return n;
}

/* Whether a sparse value ends in an XZERO opcode missing its second byte.
 * Redis reads its string terminator there (and, once a write has moved
 * bytes, whatever byte was left past the end); goblin-core reads 0, so such
 * values count the same but may differ after a write: not compared. */
static bool truncated_xzero(const char *v, size_t len)
{
    if (len < HDR || v[4] != 1) return false;
    for (size_t i = HDR; i < len; i++) {
        if ((v[i] & 0xc0) != 0x40) continue;
        if (i + 1 == len) return true;
        i++;
    }
    return false;
}

/* Corrupts a key's value: a byte changed, the value cut or extended. */
static void mutate(const char *key)
{
    size_t len;
    char *v = get_on(&d.g, key, &len);
    if (!v || len == 0) {
        free(v);
        return;
    }
    v = realloc(v, len + 4);
    switch (pick(4)) {
    case 0:
        len = pick(len);
        break;
    case 1:
        memcpy(v + len, "\x7f\xff\x80\x01", 4);
        len += 1 + pick(3);
        break;
    default: {
        size_t pos = len > HDR && pick(4) ? HDR + pick(len - HDR) : pick(len);
        v[pos] ^= (char)(1 + pick(255));
        break;
    }
    }
    if (truncated_xzero(v, len)) {
        free(v);
        return;
    }
    if (getenv("DIFF_TRACE")) {
        fprintf(stderr, "SET %s <corrupted:", key);
        for (size_t i = 0; i < len; i++) fprintf(stderr, "%02x", (unsigned char)v[i]);
        fprintf(stderr, ">\n");
    }
    set_both(key, v, len);
    free(v);
}

static void random_command(void)
{
    const char *argv[MAX_ARGS];
    size_t lens[MAX_ARGS];
    int argc = 0;
#define A(x) (argv[argc] = (x), lens[argc] = strlen(argv[argc]), argc++)
    const char *key = pick(20) ? keys[pick(HLL_KEYS)] : keys[pick(ARRAY_LEN(keys))];
    switch (pick(17)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5: {
        size_t r = pick(10), n = r < 7 ? pick(6) : r < 9 ? pick(60) : 200 + pick(800);
        A("PFADD"), A(key);
        for (size_t i = 0; i < n; i++) {
            argv[argc] = elem_store[argc];
            lens[argc] = element(argc);
            argc++;
        }
        break;
    }
    case 6:
    case 7:
        A("PFCOUNT"), A(key);
        break;
    case 8:
        A("PFCOUNT"), A(key);
        for (size_t i = 0, n = 1 + pick(3); i < n; i++) A(keys[pick(ARRAY_LEN(keys))]);
        break;
    case 9:
        A("PFMERGE"), A(key);
        for (size_t i = 0, n = pick(4); i < n; i++) A(keys[pick(ARRAY_LEN(keys))]);
        break;
    case 10:
    case 11:
        A("GET"), A(key);
        break;
    case 12:
        if (pick(4) == 0) {
            mutate(key);
            return;
        }
        if (pick(3))
            A("STRLEN"), A(key);
        else
            A("OBJECT"), A("ENCODING"), A(key);
        break;
    case 13:
        A("CONFIG"), A("SET"), A("hll-sparse-max-bytes"), A(limits[pick(ARRAY_LEN(limits))]);
        break;
    case 14:
        A(pick(4) ? "DEL" : "TYPE"), A(key);
        break;
    case 15: {
        static const char *const sub[] = {"ENCODING", "DECODE", "TODENSE", "GETREG",
                                          "encoding", "decode", "nosuch"};
        size_t r = pick(ARRAY_LEN(sub) * 4);
        A("PFDEBUG"), A(sub[r < ARRAY_LEN(sub) ? r : r % 3]), A(key);
        break;
    }
    default:
        A("PFCOUNT"), A(keys[pick(HLL_KEYS)]), A(keys[pick(HLL_KEYS)]);
        break;
    }
#undef A
    if (getenv("DIFF_TRACE")) {
        for (int i = 0; i < argc; i++) {
            for (size_t k = 0; k < lens[i]; k++) fprintf(stderr, "%02x", (unsigned char)argv[i][k]);
            fputc(' ', stderr);
        }
        fputc('\n', stderr);
    }
    diff_check_argv(&d, argc, argv, lens);
}

static long dense_seen, sparse_seen;

/* GET of every key on both; counts the HLLs seen in each encoding so the
 * test fails if the random stream stops reaching both. */
static void compare_all_keys(void)
{
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        C("GET", keys[i]);
        size_t len;
        char *v = get_on(&d.g, keys[i], &len);
        if (v && len >= HDR && memcmp(v, "HYLL", 4) == 0) {
            if (v[4] == 0) dense_seen++;
            if (v[4] == 1) sparse_seen++;
        }
        free(v);
    }
}

/* Moves every HLL key's bytes across: Redis's value into goblin-core as
 * "fromredis", goblin-core's into Redis as "fromgoblin", each with its
 * cache marked stale; both must count (and then grow) like the original. */
static void cross_server(void)
{
    for (int i = 0; i < HLL_KEYS; i++) {
        size_t rlen, glen;
        char *rv = get_on(&d.r, keys[i], &rlen);
        char *gv = get_on(&d.g, keys[i], &glen);
        if (!rv || !gv || rlen != glen || memcmp(rv, gv, rlen) != 0) {
            if (rv || gv) fail("values differ before crossing");
            continue;
        }
        if (rlen >= HDR) rv[15] |= (char)0x80, gv[15] |= (char)0x80;
        set_on(&d.g, "fromredis", rv, rlen);
        set_on(&d.r, "fromgoblin", gv, glen);
        set_on(&d.g, "fromgoblin", gv, glen);
        set_on(&d.r, "fromredis", rv, rlen);
        C("PFCOUNT", "fromredis");
        C("PFCOUNT", "fromgoblin");
        C("GET", "fromredis");
        C("PFCOUNT", keys[i], "fromredis");
        C("PFADD", "fromredis", "one", "more", "element", "or", "two");
        C("GET", "fromredis");
        C("PFMERGE", "fromgoblin", "fromredis", keys[i]);
        C("GET", "fromgoblin");
        free(rv);
        free(gv);
    }
}

static void run_all(int n)
{
    directed();
    C("FLUSHALL");
    C("HSET", "h", "f", "v");
    C("SET", "s", "not an hll");
    for (int i = 0; i < n; i++) {
        random_command();
        if (i % 500 == 499) compare_all_keys();
    }
    C("CONFIG", "SET", "hll-sparse-max-bytes", "3000");
    compare_all_keys();
    cross_server();
}

/* PFSELFTEST: +OK from both. It adds 10M elements (seconds, and far more
 * on a loaded machine or under ASan), so each reply gets five minutes
 * rather than the usual 10 s; the ASan run skips it. */
static void pfselftest(void)
{
    if (getenv("GOBLIN_ASAN")) return;
    struct rconn *conns[] = {&d.g, &d.r};
    for (int i = 0; i < 2; i++) {
        rconn_send(conns[i], "PFSELFTEST", NULL);
        size_t len;
        char *reply = rconn_try_read_reply(conns[i], &len, 300000);
        if (!reply || len != 5 || memcmp(reply, "+OK\r\n", 5) != 0) {
            fprintf(stderr, "diff_hll: PFSELFTEST on %s: %.*s\n", i ? "redis" : "goblin",
                    reply ? (int)len : 4, reply ? reply : "none");
            exit(1);
        }
        free(reply);
    }
}

int main(void)
{
    unsigned long long seed = test_seed("diff_hll");
    rand_seed(seed);
    diff_start(&d, "diff_hll", seed, NULL, NULL);
    int n = getenv("GOBLIN_ASAN") ? 3000 : 10000;
    run_all(n);
    pfselftest();
    diff_hello3(&d);
    run_all(n);
    diff_stop(&d);
    printf("diff_hll: %lld commands compared; HLL snapshots: %ld dense, %ld sparse\n", d.commands,
           dense_seen, sparse_seen);
    if (dense_seen == 0 || sparse_seen == 0) fail("the random stream missed an encoding");
    return 0;
}
