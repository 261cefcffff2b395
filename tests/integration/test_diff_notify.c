/*
 * Differential test of keyspace notifications against redis-server: a
 * subscriber on `__key*__:*` on each server, the same commands on both, and
 * after every command the messages each subscriber received (up to a PING
 * marker) compared byte for byte — event names, order, channels, payloads.
 *
 * Covers: notify-keyspace-events CONFIG SET/GET (canonical form, invalid
 * letters), directed commands of every family (strings, keys, lists, sets,
 * hashes, zsets, bitmaps, HLL, expire/persist, rename/move/copy, restore,
 * blocking pops served at once, STORE forms), lazy and active "expired"
 * events, class filtering (K only, E only, single classes, n), then a seeded
 * random stream over a few keys of mixed types; with a RESP2 subscriber and
 * again with a RESP3 one (push frames).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "goblin/resp_reader.h"
#include "util/rand.h"

static struct diff_pair d;
static struct rconn sub_g, sub_r;
static bool resp3;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)

static void fail(const char *what, const char *g, size_t glen, const char *r, size_t rlen)
{
    static char gt[8192], rt[8192];
    fprintf(stderr,
            "diff_notify: MISMATCH after %s (%lld commands matched; seed %llu, rerun with "
            "TEST_SEED=%llu)\n  redis-server: %s\n  goblin-core:  %s\n",
            what, d.commands, d.seed, d.seed, resp_render(r, rlen, rt, sizeof rt),
            resp_render(g, glen, gt, sizeof gt));
    exit(1);
}

/* Reads what one subscriber received up to the reply to a PING marker. */
static char *collect(struct rconn *c, size_t *len)
{
    const char *pong = resp3 ? "+PONG\r\n" : "*2\r\n$4\r\npong\r\n$0\r\n\r\n";
    rconn_send(c, "PING", NULL);
    size_t cap = 256, used = 0;
    char *all = malloc(cap);
    for (;;) {
        size_t n;
        char *m = rconn_try_read_reply(c, &n, 10000);
        CHECK(m != NULL);
        if (n == strlen(pong) && memcmp(m, pong, n) == 0) {
            free(m);
            break;
        }
        while (used + n + 1 > cap) all = realloc(all, cap *= 2);
        memcpy(all + used, m, n);
        used += n;
        free(m);
    }
    all[used] = '\0';
    *len = used;
    return all;
}

/* Both subscribers must have received the same messages since the last drain. */
static void drain(const char *what)
{
    size_t glen, rlen;
    char *g = collect(&sub_g, &glen);
    char *r = collect(&sub_r, &rlen);
    if (glen != rlen || memcmp(g, r, glen) != 0) fail(what, g, glen, r, rlen);
    free(g);
    free(r);
}

/* Sends one command to both (replies compared), then compares the events. */
static void check_argv(int argc, const char *const *argv)
{
    diff_check_argv(&d, argc, argv, NULL);
    drain(argv[0]);
}

#define N(...)                                                                                     \
    do {                                                                                           \
        const char *const argv_[] = {__VA_ARGS__};                                                 \
        check_argv((int)(sizeof argv_ / sizeof argv_[0]), argv_);                                  \
    } while (0)

/* The same for a command whose reply is in hash order (SPOP): only the
 * events are compared. */
#define NR(...)                                                                                    \
    do {                                                                                           \
        const char *const argv_[] = {__VA_ARGS__};                                                 \
        free(diff_send_both(&d, (int)(sizeof argv_ / sizeof argv_[0]), argv_, NULL));              \
        drain(argv_[0]);                                                                           \
    } while (0)

static void subscribe(void)
{
    diff_open_extra(&d, &sub_g, &sub_r);
    if (resp3) {
        free(rconn_call(&sub_g, "HELLO", "3", NULL));
        free(rconn_call(&sub_r, "HELLO", "3", NULL));
    }
    rconn_send(&sub_g, "PSUBSCRIBE", "__key*__:*", NULL);
    rconn_send(&sub_r, "PSUBSCRIBE", "__key*__:*", NULL);
    size_t glen, rlen;
    char *g = rconn_read_reply(&sub_g, &glen);
    char *r = rconn_read_reply(&sub_r, &rlen);
    if (glen != rlen || memcmp(g, r, glen) != 0) fail("PSUBSCRIBE", g, glen, r, rlen);
    free(g);
    free(r);
}

static void config_cases(void)
{
    static const char *const flags[] = {"KEA", "AKE",   "Kg$lshzxetd", "",   "KEn",
                                        "Am",  "gK",    "KA",          "Ed", "xe",
                                        "em",  "AnmKE", "X",           "K?", "KEA"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        C("CONFIG", "SET", "notify-keyspace-events", flags[i]);
        C("CONFIG", "GET", "notify-keyspace-events");
    }
}

static void directed(void)
{
    N("FLUSHALL");
    /* strings */
    N("SET", "s", "v");
    N("SET", "s", "v2", "EX", "100");
    N("SET", "s", "v3", "KEEPTTL", "GET");
    N("SET", "s", "x", "NX");
    N("SET", "absent", "x", "XX");
    N("SETNX", "s2", "1");
    N("SETEX", "s3", "100", "v");
    N("PSETEX", "s4", "100000", "v");
    N("GETSET", "s2", "5");
    N("GETDEL", "s4");
    N("GETDEL", "s4");
    N("GETEX", "s3", "PERSIST");
    N("GETEX", "s3", "PERSIST");
    N("GETEX", "s3", "EX", "50");
    N("GETEX", "s3", "PXAT", "1");
    N("MSET", "m1", "1", "m2", "2");
    N("MSETNX", "m1", "1", "m3", "3");
    N("MSETNX", "m4", "1", "m5", "3");
    N("INCR", "n");
    N("INCRBY", "n", "5");
    N("DECR", "n");
    N("DECRBY", "n", "2");
    N("INCRBYFLOAT", "f", "1.5");
    N("INCR", "s");
    N("APPEND", "a", "x");
    N("APPEND", "a", "yz");
    N("SETRANGE", "a", "1", "Q");
    N("SETRANGE", "a", "1", "");
    N("SETRANGE", "r", "3", "x");
    /* keys */
    N("DEL", "m1", "m2", "nope");
    N("UNLINK", "m3");
    N("EXPIRE", "a", "100");
    N("EXPIRE", "a", "100", "NX");
    N("PEXPIRE", "a", "100000", "XX");
    N("PERSIST", "a");
    N("PERSIST", "a");
    N("EXPIREAT", "r", "1");
    N("PEXPIREAT", "nothere", "1");
    N("RENAME", "a", "b");
    N("RENAME", "b", "b");
    N("SET", "c", "1");
    N("RENAME", "b", "c");
    N("RENAMENX", "c", "n");
    N("RENAMENX", "c", "d");
    N("MOVE", "d", "1");
    N("MOVE", "nothere", "1");
    N("COPY", "n", "n2");
    N("COPY", "n", "n2");
    N("COPY", "n", "n2", "DB", "2", "REPLACE");
    N("COPY", "n", "n2", "REPLACE");
    N("TOUCH", "n");
    N("SELECT", "1");
    N("SET", "indb1", "v");
    N("DEL", "indb1");
    N("SELECT", "0");
    /* lists */
    N("LPUSH", "l", "a", "b", "c");
    N("RPUSH", "l", "d");
    N("LPUSHX", "l", "e");
    N("RPUSHX", "nl", "e");
    N("LINSERT", "l", "BEFORE", "a", "z");
    N("LINSERT", "l", "BEFORE", "missing", "z");
    N("LSET", "l", "0", "q");
    N("LREM", "l", "0", "z");
    N("LREM", "l", "0", "missing");
    N("LTRIM", "l", "0", "3");
    N("LPOP", "l");
    N("RPOP", "l", "2");
    N("LPOP", "l", "0");
    N("RPUSH", "l", "1", "2", "3");
    N("LMOVE", "l", "l2", "LEFT", "RIGHT");
    N("RPOPLPUSH", "l", "l2");
    N("LMOVE", "l", "l", "LEFT", "LEFT");
    N("LMOVE", "l", "l2", "RIGHT", "LEFT");
    N("BLPOP", "l2", "0");
    N("BRPOP", "none", "l2", "0");
    N("BLMOVE", "l2", "l3", "LEFT", "LEFT", "0");
    N("LMPOP", "2", "none", "l3", "RIGHT", "COUNT", "5");
    N("RPUSH", "l4", "a", "b", "c");
    N("BLMPOP", "0", "1", "l4", "LEFT", "COUNT", "2");
    N("LTRIM", "l4", "1", "0");
    /* sets */
    N("SADD", "st", "a", "b", "c", "1");
    N("SADD", "st", "a");
    N("SREM", "st", "a", "nope");
    N("SREM", "st", "nope");
    N("SMOVE", "st", "st2", "b");
    N("SMOVE", "st", "st2", "nope");
    N("SADD", "so", "x");
    N("SMOVE", "so", "st2", "x");
    N("SINTERSTORE", "dst", "st", "st2");
    N("SUNIONSTORE", "dst", "st", "st2");
    N("SDIFFSTORE", "dst", "st", "st");
    N("SDIFFSTORE", "dst", "st", "st");
    NR("SPOP", "st2", "10");
    N("SADD", "one", "x");
    N("SPOP", "one");
    N("SPOP", "one");
    N("SADD", "five", "1", "2", "3", "4", "5");
    N("SPOP", "five", "0");
    N("SREM", "five", "1", "2", "3", "4", "5");
    /* hashes */
    N("HSET", "h", "f", "1", "g", "2");
    N("HMSET", "h", "f", "3");
    N("HSETNX", "h", "f", "4");
    N("HSETNX", "h", "k", "4");
    N("HINCRBY", "h", "f", "2");
    N("HINCRBYFLOAT", "h", "g", "0.5");
    N("HDEL", "h", "f", "nope");
    N("HDEL", "h", "nope");
    N("HDEL", "h", "g", "k");
    /* sorted sets */
    N("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d");
    N("ZADD", "z", "1", "a");
    N("ZADD", "z", "XX", "CH", "5", "a");
    N("ZADD", "z", "INCR", "1", "a");
    N("ZADD", "z", "NX", "INCR", "1", "a");
    N("ZINCRBY", "z", "2", "b");
    N("ZREM", "z", "a", "nope");
    N("ZREM", "z", "nope");
    N("ZPOPMIN", "z");
    N("ZPOPMAX", "z", "0");
    N("ZADD", "z", "1", "x", "2", "y", "3", "w");
    N("ZREMRANGEBYRANK", "z", "0", "0");
    N("ZREMRANGEBYSCORE", "z", "100", "200");
    N("ZREMRANGEBYSCORE", "z", "2", "2");
    N("ZREMRANGEBYLEX", "z", "[a", "[b");
    N("ZADD", "z2", "1", "a", "2", "b");
    N("ZUNIONSTORE", "zd", "2", "z", "z2");
    N("ZINTERSTORE", "zd", "2", "z", "z2");
    N("ZDIFFSTORE", "zd", "1", "z2");
    N("ZRANGESTORE", "zd2", "z2", "0", "0");
    N("ZRANGESTORE", "zd2", "z2", "5", "6");
    N("BZPOPMIN", "z2", "0");
    N("BZPOPMAX", "none", "z2", "0");
    N("ZADD", "z3", "1", "a", "2", "b");
    N("ZMPOP", "1", "z3", "MIN", "COUNT", "5");
    N("ZADD", "z3", "1", "a", "2", "b");
    N("BZMPOP", "0", "1", "z3", "MAX");
    N("ZPOPMAX", "z3", "5");
    N("ZPOPMAX", "z", "5");
    /* bitmaps and HyperLogLog */
    N("SETBIT", "bm", "7", "1");
    N("SETBIT", "bm", "7", "1");
    N("SETBIT", "bm", "7", "0");
    N("SETBIT", "bm", "100", "0");
    N("BITFIELD", "bf", "SET", "u8", "0", "255", "GET", "u8", "0");
    N("BITFIELD", "bf", "INCRBY", "u2", "0", "1", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "9");
    N("BITFIELD", "bf", "GET", "u8", "0");
    N("BITOP", "AND", "bd", "bm", "bf");
    N("BITOP", "OR", "bd", "nope1", "nope2");
    N("PFADD", "hl", "a", "b");
    N("PFADD", "hl", "a");
    N("PFADD", "hl2");
    N("PFMERGE", "hl3", "hl", "hl2");
    N("PFCOUNT", "hl");
    /* RESTORE from a DUMP taken on each server */
    N("SET", "dumped", "payload");
    size_t rlen;
    rconn_send(&d.r, "DUMP", "dumped", NULL);
    char *r = rconn_read_reply(&d.r, &rlen);
    CHECK(r[0] == '$');
    char *payload = strstr(r, "\r\n") + 2;
    size_t payload_len = (size_t)atol(r + 1);
    const char *const restore[] = {"RESTORE", "restored", "0", payload};
    const size_t lens[] = {7, 8, 1, payload_len};
    diff_check_argv(&d, 4, restore, lens);
    drain("RESTORE");
    diff_check_argv(&d, 4, restore, lens); /* BUSYKEY: no event */
    drain("RESTORE");
    free(r);
    /* wrong types and errors publish nothing */
    N("LPUSH", "s", "x");
    N("SADD", "l", "x");
    N("INCR", "h");
    N("FLUSHDB");
    N("SWAPDB", "0", "1");
    N("FLUSHALL");
}

/* A client blocked on an empty key is served by another client's push: the
 * push's event, then the pop's (and the move's push, the del). */
static void served_later(const char *const *block, int block_argc, const char *const *push,
                         int push_argc)
{
    struct rconn bg, br;
    diff_open_extra(&d, &bg, &br);
    rconn_send_argv(&bg, block_argc, block, NULL);
    rconn_send_argv(&br, block_argc, block, NULL);
    /* Both are blocked once a PING on the same connection would queue
     * behind them; wait on the servers' own view instead. */
    for (int tries = 0; tries < 200; tries++) {
        char *g = rconn_call(&d.g, "INFO", "clients", NULL);
        bool blocked = strstr(g, "blocked_clients:1") != NULL;
        free(g);
        char *r = rconn_call(&d.r, "INFO", "clients", NULL);
        blocked = blocked && strstr(r, "blocked_clients:1") != NULL;
        free(r);
        if (blocked) break;
        usleep(10000);
    }
    check_argv(push_argc, push);
    size_t glen, rlen;
    char *g = rconn_read_reply(&bg, &glen);
    char *r = rconn_read_reply(&br, &rlen);
    if (glen != rlen || memcmp(g, r, glen) != 0) fail(block[0], g, glen, r, rlen);
    free(g);
    free(r);
    drain(block[0]);
    rconn_close(&bg);
    rconn_close(&br);
}

static void blocking(void)
{
    static const char *const blpop[] = {"BLPOP", "bl", "0"};
    static const char *const lpush[] = {"LPUSH", "bl", "a"};
    served_later(blpop, 3, lpush, 3);
    static const char *const blmove[] = {"BLMOVE", "bl", "bl2", "RIGHT", "LEFT", "0"};
    static const char *const rpush[] = {"RPUSH", "bl", "a", "b"};
    served_later(blmove, 6, rpush, 4);
    static const char *const bzpop[] = {"BZPOPMIN", "bz", "0"};
    static const char *const zadd[] = {"ZADD", "bz", "1", "a"};
    served_later(bzpop, 3, zadd, 4);
    static const char *const blmpop[] = {"BLMPOP", "0", "1", "bl3", "LEFT", "COUNT", "3"};
    static const char *const rpush3[] = {"RPUSH", "bl3", "a", "b"};
    served_later(blmpop, 7, rpush3, 4);
    N("FLUSHALL");
}

/* Streams: Redis's events for every stream write, blocked reads too. */
static void streams(void)
{
    N("FLUSHALL");
    N("XADD", "st", "1-1", "f", "v");
    N("XADD", "st", "MAXLEN", "1", "1-2", "f", "v");
    N("XADD", "st", "MAXLEN", "5", "1-3", "f", "v");
    N("XADD", "none", "NOMKSTREAM", "*", "f", "v");
    N("XADD", "st", "1-1", "f", "v"); /* error: no event */
    N("XTRIM", "st", "MAXLEN", "1");
    N("XTRIM", "st", "MAXLEN", "1");
    N("XDEL", "st", "1-3");
    N("XDEL", "st", "1-3");
    N("XSETID", "st", "2-0");
    N("XGROUP", "CREATE", "st", "g", "$");
    N("XGROUP", "CREATE", "st2", "g", "$", "MKSTREAM");
    N("XGROUP", "CREATE", "st", "g", "$");
    N("XGROUP", "CREATECONSUMER", "st", "g", "c");
    N("XGROUP", "CREATECONSUMER", "st", "g", "c");
    N("XADD", "st", "3-0", "f", "v");
    N("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "st", ">");
    N("XCLAIM", "st", "g", "c3", "0", "3-0", "TIME", "1000");
    N("XAUTOCLAIM", "st", "g", "c4", "0", "0");
    N("XACK", "st", "g", "3-0");
    N("XGROUP", "DELCONSUMER", "st", "g", "c");
    N("XGROUP", "DELCONSUMER", "st", "g", "nobody");
    N("XGROUP", "SETID", "st", "g", "0");
    N("XGROUP", "DESTROY", "st", "g");
    N("XGROUP", "DESTROY", "st", "g");
    N("XGROUP", "CREATE", "st", "g", "$");
    static const char *const xread[] = {"XREAD", "BLOCK", "0", "STREAMS", "st", "$"};
    static const char *const xadd[] = {"XADD", "st", "4-0", "f", "v"};
    served_later(xread, 6, xadd, 5);
    static const char *const xreadgroup[] = {"XREADGROUP", "GROUP",   "g",  "newc", "BLOCK",
                                             "0",          "STREAMS", "st", ">"};
    static const char *const xadd2[] = {"XADD", "st", "5-0", "f", "v"};
    served_later(xreadgroup, 9, xadd2, 5);
    N("FLUSHALL");
}

static void expiry(void)
{
    /* Lazy: the key is found expired by the next access — or by the active
     * cycle just before it, at a moment that differs between the servers:
     * one key at a time, so either way one "expired" arrives before the
     * access's drain. */
    N("SET", "e1", "v", "PX", "100");
    usleep(150000);
    N("GET", "e1");
    N("SET", "e2", "v");
    N("PEXPIRE", "e2", "100");
    usleep(150000);
    N("EXISTS", "e2");
    /* SET with an absolute time already past. */
    C("SET", "e3", "v", "PXAT", "1");
    N("EXISTS", "e3");
    /* Active: nothing touches the key; the cycle expires it. */
    C("SET", "e4", "v", "PX", "1");
    usleep(1500000);
    drain("active expiry");
}

static void classes(void)
{
    static const char *const flags[] = {"Kl", "E$", "Kg", "Ex", "KEn", "KEh", "Kz", "KEs", "K"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        C("CONFIG", "SET", "notify-keyspace-events", flags[i]);
        N("SET", "k", "1");
        N("LPUSH", "L", "1");
        N("SADD", "S", "1");
        N("HSET", "H", "f", "1");
        N("ZADD", "Z", "1", "m");
        N("RENAME", "k", "k2");
        N("DEL", "k2", "L", "S", "H", "Z");
        N("SET", "x", "1", "PX", "100");
        usleep(150000);
        N("GET", "x");
    }
    C("CONFIG", "SET", "notify-keyspace-events", "KEA");
}

static const char *const keys[] = {"k1", "k2", "k3"};
static const char *const vals[] = {"a", "b", "1", "7", "-3", "xyz"};

static const char *key(void)
{
    return keys[rand_u64() % 3];
}

static const char *val(void)
{
    return vals[rand_u64() % 6];
}

static void random_op(void)
{
    char idx[8];
    snprintf(idx, sizeof idx, "%d", (int)(rand_u64() % 5) - 2);
    switch (rand_u64() % 40) {
    case 0:
        N("SET", key(), val());
        break;
    case 1:
        N("SET", key(), val(), "EX", "100");
        break;
    case 2:
        N("INCR", key());
        break;
    case 3:
        N("APPEND", key(), val());
        break;
    case 4:
        N("DEL", key(), key());
        break;
    case 5:
        N("RENAME", key(), key());
        break;
    case 6:
        N("EXPIRE", key(), "100");
        break;
    case 7:
        N("PERSIST", key());
        break;
    case 8:
        N("LPUSH", key(), val(), val());
        break;
    case 9:
        N("RPUSH", key(), val());
        break;
    case 10:
        N("LPOP", key());
        break;
    case 11:
        N("RPOP", key(), "2");
        break;
    case 12:
        N("LREM", key(), idx, val());
        break;
    case 13:
        N("LTRIM", key(), idx, "1");
        break;
    case 14:
        N("LMOVE", key(), key(), "LEFT", "RIGHT");
        break;
    case 15:
        N("LSET", key(), idx, val());
        break;
    case 16:
        N("SADD", key(), val(), val());
        break;
    case 17:
        N("SREM", key(), val(), val());
        break;
    case 18:
        N("SMOVE", key(), key(), val());
        break;
    case 19:
        N("SUNIONSTORE", key(), key(), key());
        break;
    case 20:
        N("SINTERSTORE", key(), key(), key());
        break;
    case 21:
        N("HSET", key(), val(), val());
        break;
    case 22:
        N("HDEL", key(), val(), val());
        break;
    case 23:
        N("HINCRBY", key(), val(), "2");
        break;
    case 24:
        N("ZADD", key(), "1", val(), "2", val());
        break;
    case 25:
        N("ZREM", key(), val());
        break;
    case 26:
        N("ZINCRBY", key(), "1", val());
        break;
    case 27:
        N("ZPOPMIN", key());
        break;
    case 28:
        N("ZUNIONSTORE", key(), "2", key(), key());
        break;
    case 29:
        N("ZREMRANGEBYRANK", key(), "0", idx);
        break;
    case 30:
        N("SETBIT", key(), "3", "1");
        break;
    case 31:
        N("PFADD", key(), val());
        break;
    case 32:
        N("COPY", key(), key(), "REPLACE");
        break;
    case 33:
        N("MOVE", key(), "1");
        break;
    case 34:
        N("GETDEL", key());
        break;
    case 35:
        N("GETEX", key(), "PERSIST");
        break;
    case 36:
        N("SETRANGE", key(), "2", val());
        break;
    case 37:
        N("LINSERT", key(), "AFTER", val(), val());
        break;
    case 38:
        N("HINCRBYFLOAT", key(), val(), "1.5");
        break;
    default:
        N("MSET", key(), val(), key(), val());
        break;
    }
}

static void run_all(int n)
{
    subscribe();
    C("CONFIG", "SET", "notify-keyspace-events", "KEA");
    directed();
    blocking();
    streams();
    expiry();
    classes();
    N("FLUSHALL");
    for (int i = 0; i < n; i++) random_op();
    C("CONFIG", "SET", "notify-keyspace-events", "");
    N("SET", "quiet", "1");
    rconn_close(&sub_g);
    rconn_close(&sub_r);
}

int main(void)
{
    unsigned long long seed = test_seed("diff_notify");
    rand_seed(seed);
    diff_start(&d, "diff_notify", seed, NULL, NULL);
    config_cases();
    int n = getenv("GOBLIN_ASAN") ? 400 : 1500;
    run_all(n);
    resp3 = true;
    run_all(n);
    diff_stop(&d);
    return 0;
}
