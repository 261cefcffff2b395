/*
 * Differential test of the list family, the blocking commands' non-blocking
 * paths and errors, ZMPOP/BZPOPMIN/BZMPOP, against redis-server: directed
 * edge cases, then a seeded random stream over a few keys of mixed types
 * (so commands cross WRONGTYPE and node boundaries) with the default node
 * size and with tiny nodes (list-max-listpack-size 3 and -1), in RESP2 and
 * in RESP3. Replies are compared byte for byte. Blocking proper (clients
 * waiting, timeouts, CLIENT UNBLOCK) is in test_blocking.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "util/rand.h"

static struct diff_pair d;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)

static size_t pick(size_t n)
{
    return (size_t)(rand_u64() % n);
}

static const char *const keys[] = {"l1", "l2", "l3", "str", "zs", "none"};
static const char *const values[] = {
    "a",
    "b",
    "c",
    "0",
    "1",
    "-1",
    "127",
    "128",
    "-4096",
    "4095",
    "4096",
    "524287",
    "524288",
    "-67108864",
    "67108863",
    "67108864",
    "9223372036854775807",
    "-9223372036854775808",
    "012",
    "+5",
    "-0",
    "1.5",
    "",
    "hello world",
    "0123456789012345678901234567890123456789012345678901234567890123",
    "a longer value that is more than sixty-four bytes long so that it takes the two-byte length",
};

static const char *key(void)
{
    return keys[pick(sizeof keys / sizeof keys[0])];
}

static const char *value(void)
{
    static char big[70000];
    if (pick(200) == 0) { /* a value past the 16-bit length */
        size_t n = 300 + pick(sizeof big - 301);
        if (pick(4) == 0) n = 65536 + pick(3000);
        memset(big, 'x', n);
        big[n] = '\0';
        big[0] = (char)('a' + pick(3));
        return big;
    }
    return values[pick(sizeof values / sizeof values[0])];
}

static const char *num(char *buf, long long lo, long long hi)
{
    snprintf(buf, 32, "%lld", lo + (long long)pick((size_t)(hi - lo + 1)));
    return buf;
}

static void random_op(void)
{
    char a[32], b[32], c[32];
    const char *end[] = {"LEFT", "RIGHT", "left", "middle"};
    switch (pick(24)) {
    case 0:
        C("LPUSH", key(), value(), value());
        break;
    case 1:
        C("RPUSH", key(), value());
        break;
    case 2:
        C("RPUSH", key(), value(), value(), value(), value());
        break;
    case 3:
        C(pick(2) ? "LPUSHX" : "RPUSHX", key(), value());
        break;
    case 4:
        C(pick(2) ? "LPOP" : "RPOP", key());
        break;
    case 5:
        C(pick(2) ? "LPOP" : "RPOP", key(), num(a, -1, 4));
        break;
    case 6:
        C("LLEN", key());
        break;
    case 7:
        C("LRANGE", key(), num(a, -12, 12), num(b, -12, 12));
        break;
    case 8:
        C("LINDEX", key(), num(a, -12, 12));
        break;
    case 9:
        C("LSET", key(), num(a, -8, 8), value());
        break;
    case 10:
        C("LINSERT", key(), pick(2) ? "BEFORE" : "after", value(), value());
        break;
    case 11:
        C("LREM", key(), num(a, -3, 3), value());
        break;
    case 12:
        C("LTRIM", key(), num(a, -10, 10), num(b, -10, 10));
        break;
    case 13:
        C("LPOS", key(), value());
        break;
    case 14:
        C("LPOS", key(), value(), "RANK", num(a, -3, 3), "COUNT", num(b, 0, 3), "MAXLEN",
          num(c, 0, 8));
        break;
    case 15:
        C("LMOVE", key(), key(), end[pick(4)], end[pick(3)]);
        break;
    case 16:
        C("RPOPLPUSH", key(), key());
        break;
    case 17:
        C("LMPOP", num(a, 1, 2), key(), key(), pick(2) ? "LEFT" : "RIGHT", "COUNT", num(b, 1, 3));
        break;
    case 18:
        C("LMPOP", "1", key(), pick(2) ? "LEFT" : "RIGHT");
        break;
    case 19:
        C("ZADD", "zs", num(a, 0, 9), value());
        break;
    case 20:
        C("ZMPOP", "2", key(), "zs", pick(2) ? "MIN" : "MAX", "COUNT", num(a, 1, 3));
        break;
    case 21:
        C("TYPE", key());
        break;
    case 22:
        C("OBJECT", "ENCODING", key());
        break;
    default:
        if (pick(20) == 0)
            C("DEL", key());
        else
            C("LRANGE", key(), "0", "-1");
        break;
    }
}

/* An integer reply from both servers, each within [lo, hi] (values that
 * legitimately differ: MEMORY USAGE, OBJECT IDLETIME); a nil or an error
 * must be the same on both. */
static void check_int_range(long long lo, long long hi, int argc, const char *const *argv)
{
    size_t lens[8], glen, rlen;
    char *g, *r;
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    diff_exchange(&d, argc, argv, lens, &g, &glen, &r, &rlen);
    bool ok = r[0] == ':' ? g[0] == ':' && strtoll(g + 1, NULL, 10) >= lo &&
                                strtoll(g + 1, NULL, 10) <= hi && strtoll(r + 1, NULL, 10) >= lo &&
                                strtoll(r + 1, NULL, 10) <= hi
                          : glen == rlen && memcmp(g, r, glen) == 0;
    if (!ok) {
        fprintf(stderr, "diff_lists: %s %s: goblin %.*s, redis %.*s\n", argv[0], argv[1], (int)glen,
                g, (int)rlen, r);
        exit(1);
    }
    free(g);
    free(r);
}

/* Issue 13 item 7 for every type: TYPE, SCAN TYPE, OBJECT ENCODING exactly;
 * MEMORY USAGE a positive size and OBJECT IDLETIME a fresh key's (0..2 s)
 * on both. */
static void directed_introspection(void)
{
    C("FLUSHALL");
    C("RPUSH", "t:list", "a", "1");
    C("SADD", "t:iset", "1", "2");
    C("SADD", "t:set", "a", "b");
    C("PFADD", "t:hll", "a", "b");
    C("SETBIT", "t:bits", "100", "1");
    C("HSET", "t:hash", "f", "v");
    C("ZADD", "t:zset", "1", "m");
    C("SET", "t:str", "v");
    static const char *const keys_of_types[] = {"t:list", "t:iset", "t:set",  "t:hll",
                                                "t:bits", "t:hash", "t:zset", "t:str"};
    for (size_t i = 0; i < sizeof keys_of_types / sizeof keys_of_types[0]; i++) {
        const char *k = keys_of_types[i];
        C("TYPE", k);
        C("OBJECT", "ENCODING", k);
        check_int_range(1, 1 << 20, 3, (const char *const[]){"MEMORY", "USAGE", k});
        check_int_range(1, 1 << 20, 5, (const char *const[]){"MEMORY", "USAGE", k, "SAMPLES", "0"});
        check_int_range(0, 2, 3, (const char *const[]){"OBJECT", "IDLETIME", k});
    }
    static const char *const types[] = {"list", "set", "string", "hash", "zset", "none"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i], "string") != 0 && strcmp(types[i], "set") != 0)
            C("SCAN", "0", "TYPE", types[i], "COUNT", "1000"); /* at most one key each */
    check_int_range(0, 2, 3, (const char *const[]){"OBJECT", "IDLETIME", "nokey"});
    C("FLUSHALL");
}

static void directed(void)
{
    directed_introspection();
    C("FLUSHALL");
    C("SET", "str", "x");
    C("ZADD", "zs", "1", "a", "2", "b", "3", "c");
    /* Errors and replies on absent keys. */
    C("LPOP", "none");
    C("LPOP", "none", "0");
    C("LPOP", "none", "2");
    C("LPOP", "none", "-1");
    C("LPOP", "none", "x");
    C("LPOP", "a", "1", "2");
    C("RPUSH", "l", "a", "b", "c", "d", "a");
    C("LPOP", "l", "0");
    C("RPOP", "l", "2");
    C("LPOP", "str");
    C("LPOP", "str", "1");
    C("LLEN", "str");
    C("LINDEX", "none", "x");
    C("LINDEX", "l", "x");
    C("LINDEX", "l", "-1");
    C("LSET", "none", "0", "x");
    C("LSET", "l", "9", "x");
    C("LSET", "l", "x", "x");
    C("LINSERT", "l", "middle", "a", "b");
    C("LINSERT", "none", "before", "a", "b");
    C("LINSERT", "l", "before", "zzz", "b");
    C("LREM", "l", "x", "a");
    C("LRANGE", "l", "a", "1");
    C("LTRIM", "l", "0", "x");
    C("LPOS", "l", "a", "RANK", "0");
    C("LPOS", "l", "a", "RANK", "-9223372036854775808");
    C("LPOS", "l", "a", "RANK", "x");
    C("LPOS", "l", "a", "COUNT", "-1");
    C("LPOS", "l", "a", "COUNT", "x");
    C("LPOS", "l", "a", "MAXLEN", "-1");
    C("LPOS", "l", "a", "FOO", "1");
    C("LPOS", "l", "a", "COUNT");
    C("LPOS", "none", "a");
    C("LPOS", "none", "a", "COUNT", "0");
    C("LPOS", "str", "a");
    C("LMOVE", "l", "l2", "LEFT", "UP");
    C("LMOVE", "none", "l2", "LEFT", "RIGHT");
    C("LMOVE", "l", "str", "LEFT", "RIGHT");
    C("LMOVE", "str", "l", "LEFT", "RIGHT");
    C("LMOVE", "l", "l", "LEFT", "RIGHT");
    C("LRANGE", "l", "0", "-1");
    C("LMPOP", "0", "l", "LEFT");
    C("LMPOP", "x", "l", "LEFT");
    C("LMPOP", "2", "l", "LEFT");
    C("LMPOP", "1", "l", "UP");
    C("LMPOP", "1", "l", "LEFT", "COUNT", "0");
    C("LMPOP", "1", "l", "LEFT", "COUNT", "1", "COUNT", "1");
    C("LMPOP", "1", "l", "LEFT", "COUNT");
    C("LMPOP", "2", "str", "l", "LEFT");
    C("LMPOP", "2", "none", "l", "RIGHT", "COUNT", "10");
    C("LMPOP", "1", "none", "LEFT");
    C("LPUSHX", "none", "a");
    C("EXISTS", "none");
    /* Blocking commands on the paths that do not block. */
    C("RPUSH", "q", "1", "2", "3");
    C("BLPOP", "none", "q", "0");
    C("BRPOP", "q", "0.5");
    C("BLPOP", "q", "x");
    C("BLPOP", "q", "-1");
    C("BLPOP", "q", "inf");
    C("BLPOP", "q", "1e30");
    C("BLPOP", "str", "q", "0");
    C("BRPOPLPUSH", "q", "q2", "0");
    C("BLMOVE", "q2", "q", "RIGHT", "LEFT", "0");
    C("BLMOVE", "q2", "q", "RIGHT", "UP", "0");
    C("BLMOVE", "q", "str", "RIGHT", "LEFT", "0");
    C("BLMPOP", "0", "2", "none", "q", "LEFT", "COUNT", "5");
    C("BLMPOP", "x", "1", "q", "LEFT");
    C("BLMPOP", "0", "0", "q", "LEFT");
    C("BLMPOP", "0", "1", "q", "UP");
    C("BZPOPMIN", "none", "zs", "0");
    C("BZPOPMAX", "zs", "0");
    C("BZPOPMIN", "str", "0");
    C("BZPOPMIN", "zs", "x");
    C("ZADD", "zs", "1.5", "a", "2", "b", "3", "c");
    C("BZMPOP", "0", "1", "zs", "MIN", "COUNT", "2");
    C("BZMPOP", "0", "1", "zs", "UP");
    C("ZMPOP", "1", "zs", "MAX");
    C("ZMPOP", "1", "none", "MAX");
    C("ZMPOP", "0", "zs", "MAX");
    C("ZMPOP", "1", "zs", "MAX", "COUNT", "0");
    C("ZMPOP", "2", "str", "zs", "MIN");
    C("TYPE", "q");
    C("OBJECT", "ENCODING", "q");
    C("GET", "q");
    C("HSET", "q", "a", "b");
    C("ZADD", "q", "1", "a");
    C("RPUSH", "str", "a");
    C("SCAN", "0", "TYPE", "list", "COUNT", "1000");
    /* SORT over a list: numeric, ALPHA, DESC, LIMIT, BY nosort (list order). */
    C("RPUSH", "sl", "3", "10", "1", "2.5", "-4", "7");
    C("SORT", "sl");
    C("SORT", "sl", "DESC", "LIMIT", "1", "3");
    C("SORT", "sl", "ALPHA");
    C("SORT_RO", "sl", "BY", "nosort");
    C("SORT", "sl", "BY", "nosort", "DESC", "LIMIT", "1", "2");
    C("SORT", "sl", "BY", "nosort", "LIMIT", "4", "10");
    C("RPUSH", "sl", "x");
    C("SORT", "sl");
    C("SORT", "sl", "ALPHA", "GET", "#");
    /* SORT ... STORE: a list under dst (replacing any type, dropping the
     * TTL), missing GET values stored as "", an empty result deletes dst,
     * a set without BY stored in ALPHA order; SORT_RO has no STORE. */
    C("MSET", "w_3", "30", "w_10", "5", "str2", "s");
    C("HSET", "h_1", "f", "one");
    C("SET", "dst", "old", "EX", "100");
    C("SORT", "sl", "ALPHA", "STORE", "dst");
    C("TYPE", "dst");
    C("TTL", "dst");
    C("OBJECT", "ENCODING", "dst");
    C("LRANGE", "dst", "0", "-1");
    C("SORT", "sl", "ALPHA", "DESC", "LIMIT", "1", "3", "GET", "#", "GET", "w_*", "GET", "h_*->f",
      "STORE", "dst");
    C("LRANGE", "dst", "0", "-1");
    C("SORT", "sl", "BY", "nosort", "DESC", "STORE", "dst");
    C("LRANGE", "dst", "0", "-1");
    C("SORT", "sl", "STORE", "dst");
    C("EXISTS", "dst");
    C("SORT", "sl", "BY", "w_*", "STORE", "dst", "LIMIT", "0", "4"); /* numeric: ties by element */
    C("LRANGE", "dst", "0", "-1");
    C("SADD", "ss", "pear", "apple", "fig", "10", "9");
    C("SORT", "ss", "BY", "nosort", "STORE", "dst");
    C("LRANGE", "dst", "0", "-1");
    C("SORT", "ss", "BY", "nosort", "DESC", "LIMIT", "1", "2", "STORE", "dst");
    C("LRANGE", "dst", "0", "-1");
    C("SORT", "sl", "LIMIT", "10", "5", "ALPHA", "STORE", "dst");
    C("EXISTS", "dst");
    C("SORT", "nokey", "STORE", "dst");
    C("SORT", "sl", "ALPHA", "STORE", "sl");
    C("LRANGE", "sl", "0", "-1");
    C("SORT", "str2", "STORE", "dst");
    C("SORT", "sl", "STORE");
    C("SORT", "sl", "STORE", "a", "STORE", "dst");
    C("LRANGE", "dst", "0", "-1");
    C("SORT_RO", "sl", "STORE", "dst");
    /* The stored key signals WATCH (and the deletion of an empty result). */
    C("WATCH", "dst");
    C("SORT", "sl", "ALPHA", "LIMIT", "0", "2", "STORE", "dst");
    C("MULTI");
    C("LLEN", "dst");
    C("EXEC");
    C("WATCH", "dst");
    C("SORT", "nokey", "STORE", "dst");
    C("MULTI");
    C("EXISTS", "dst");
    C("EXEC");
    C("WATCH", "dst");
    C("SORT", "nokey", "STORE", "dst");
    C("MULTI");
    C("EXISTS", "dst");
    C("EXEC");
    /* Integer encodings and boundaries read back as the same text. */
    C("DEL", "ints");
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) C("RPUSH", "ints", values[i]);
    C("LRANGE", "ints", "0", "-1");
    C("LRANGE", "ints", "-3", "-1");
    C("LINDEX", "ints", "-2");
    /* A long list across many nodes, trimmed from both sides. */
    C("DEL", "big");
    for (int i = 0; i < 3000; i++) {
        char v[32];
        snprintf(v, sizeof v, i % 3 ? "%d" : "v%d", i);
        C(i % 2 ? "RPUSH" : "LPUSH", "big", v);
    }
    C("LRANGE", "big", "1000", "1020");
    C("LINDEX", "big", "1500");
    C("LPOS", "big", "v1500", "RANK", "-1");
    C("LTRIM", "big", "100", "-100");
    C("LLEN", "big");
    C("LREM", "big", "-2", "7");
    C("LRANGE", "big", "-5", "-1");
    for (int i = 0; i < 2000; i++) C(i % 3 ? "RPOP" : "LPOP", "big");
    C("LRANGE", "big", "0", "-1");
}

static void run_all(int n)
{
    directed();
    C("FLUSHALL");
    C("SET", "str", "x");
    for (int i = 0; i < n; i++) random_op();
    C("CONFIG", "SET", "list-max-listpack-size", "3");
    for (int i = 0; i < n; i++) random_op();
    /* Compressed interior nodes (lists created from here on). */
    C("CONFIG", "SET", "list-compress-depth", "1");
    C("CONFIG", "GET", "list-compress-depth");
    C("FLUSHALL");
    C("SET", "str", "x");
    for (int i = 0; i < n; i++) random_op();
    C("CONFIG", "SET", "list-compress-depth", "0");
    C("CONFIG", "SET", "list-max-listpack-size", "-1");
    for (int i = 0; i < n; i++) random_op();
    C("CONFIG", "SET", "list-max-listpack-size", "-2");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_lists");
    rand_seed(seed);
    diff_start(&d, "diff_lists", seed, NULL, NULL);
    int n = getenv("GOBLIN_ASAN") ? 1500 : 4000;
    run_all(n);
    diff_hello3(&d);
    run_all(n);
    diff_stop(&d);
    return 0;
}
