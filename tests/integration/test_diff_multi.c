/*
 * Differential test of transactions (MULTI, EXEC, DISCARD, WATCH, UNWATCH)
 * against redis-server, RESP2 then RESP3, byte for byte: queue-time errors
 * (EXECABORT), runtime errors (no rollback), nested MULTI, WATCH inside
 * MULTI, EXEC/DISCARD without MULTI, SELECT inside a transaction, and WATCH
 * invalidation by a second client through every command family that exists
 * (strings, keys, TTLs, expiry, hashes, sorted sets, sets, bitmaps, FLUSHDB, FLUSHALL,
 * SWAPDB, MOVE, RENAME) — including the changes that must NOT invalidate
 * (no-op writes, another database, a key absent on FLUSHDB). A third client
 * shows every watcher of a key is invalidated and a watcher that disconnects
 * leaves nothing behind (the ASan variant of this test checks the latter);
 * transactions past maxmemory; the no_multi commands (SAVE, SHUTDOWN, SYNC,
 * PSYNC) refused while queuing.
 * Goblin-only: the queued transaction is bounded by
 * client-query-buffer-limit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

static struct diff_pair d;
static struct rconn bg, br; /* client B: the one that changes watched keys */
static struct rconn cg, cr; /* client C: a second watcher */

#define A(...) diff_check(&d, __VA_ARGS__, NULL)

#define B(...) diff_check_on(&d, &bg, &br, __VA_ARGS__, NULL)
#define C(...) diff_check_on(&d, &cg, &cr, __VA_ARGS__, NULL)

static void queue_errors(void)
{
    A("FLUSHALL");
    A("EXEC");
    A("DISCARD");
    A("MULTI");
    A("MULTI");      /* nested: an error that does not abort */
    A("WATCH", "x"); /* inside MULTI: an error that does not abort */
    A("SET", "a", "1");
    A("EXEC");
    A("MULTI");
    A("SET", "a"); /* arity: aborts */
    A("SET", "a", "2");
    A("EXEC");
    A("GET", "a");
    A("MULTI");
    A("NOSUCHCOMMAND", "x", "y");
    A("EXEC");
    A("MULTI");
    A("CONFIG", "NOSUCHSUB");
    A("DISCARD");
    A("EXEC");
    A("MULTI");
    A("DEBUG", "SLEEP", "0"); /* refused: enable-debug-command defaults to no */
    A("EXEC");
    A("MULTI");
    A("EXEC"); /* empty */
    A("WATCH");
    A("UNWATCH", "x");
    A("MULTI", "x");
    A("EXEC", "x");
    A("DISCARD", "x");
}

/* Redis's no_multi commands (SAVE, SHUTDOWN, SYNC, PSYNC) are refused at
 * queue time and abort the transaction: EXEC must neither save nor stop
 * the server (the PING after it answers). */
static void no_multi_commands(void)
{
    A("FLUSHALL");
    A("MULTI");
    A("SET", "nm", "1");
    A("SAVE");
    A("SHUTDOWN");
    A("SHUTDOWN", "NOSAVE");
    A("SYNC");
    A("PSYNC", "?", "-1");
    A("EXEC");
    A("PING");
    A("GET", "nm");
    A("MULTI");
    A("SAVE", "extra"); /* arity first, as Redis */
    A("DISCARD");
    A("MULTI");
    A("SHUTDOWN", "ABORT");
    A("EXEC");
    A("PING");
}

static void runtime_errors(void)
{
    A("FLUSHALL");
    A("MULTI");
    A("SET", "s", "abc");
    A("INCR", "s");           /* not an integer: its reply, no rollback */
    A("HSET", "s", "f", "v"); /* WRONGTYPE */
    A("APPEND", "s", "def");
    A("ZADD", "z", "1", "m");
    A("ZSCORE", "z", "m");
    A("HSET", "h", "f", "1");
    A("HINCRBY", "h", "f", "2");
    A("GET", "s");
    A("EXPIRE", "s", "100");
    A("TTL", "s");
    A("DEL", "nope", "z");
    A("EXEC");
    A("GET", "s");
    A("EXISTS", "z");
    /* SELECT inside the queue applies to the commands after it, and stays. */
    A("MULTI");
    A("SELECT", "3");
    A("SET", "in3", "x");
    A("SELECT", "99");
    A("GET", "in3");
    A("EXEC");
    A("GET", "in3");
    A("SELECT", "0");
    A("GET", "in3");
    /* RESET inside MULTI runs at once and ends the transaction. */
    A("MULTI");
    A("SET", "r", "1");
    A("RESET");
    A("EXEC");
    A("EXISTS", "r");
    /* Blocking commands inside MULTI answer at once, as their
     * non-blocking forms would on empty keys. */
    A("MULTI");
    A("BLPOP", "empty", "0");
    A("BRPOP", "empty", "e2", "0");
    A("BLMOVE", "empty", "dst", "LEFT", "RIGHT", "0");
    A("BRPOPLPUSH", "empty", "dst", "0");
    A("BLMPOP", "0", "1", "empty", "LEFT");
    A("BZPOPMIN", "empty", "0");
    A("BZPOPMAX", "empty", "0");
    A("BZMPOP", "0", "1", "empty", "MIN");
    A("RPUSH", "full", "x", "y");
    A("BLPOP", "full", "0");
    A("BLMOVE", "full", "dst", "LEFT", "RIGHT", "0");
    A("EXEC");
    A("LRANGE", "dst", "0", "-1");
    /* UNWATCH inside MULTI is queued. */
    A("MULTI");
    A("UNWATCH");
    A("PING");
    A("ECHO", "hi");
    A("EXEC");
}

/* One invalidation case: A watches `key` (after `setup` by B), B runs the
 * change, A's transaction then runs or aborts exactly as Redis's does. */
static void watch_case(const char *const *setup, const char *key, const char *const *change)
{
    A("FLUSHALL");
    A("SELECT", "0");
    B("SELECT", "0");
    for (const char *const *c = setup; *c; c++) {
        /* setup: a list of commands separated by "|" entries */
        const char *argv[16];
        int argc = 0;
        while (*c && strcmp(*c, "|") != 0 && argc < 16) argv[argc++] = *c++;
        struct rconn main_g = d.g, main_r = d.r;
        d.g = bg;
        d.r = br;
        diff_check_argv(&d, argc, argv, NULL);
        bg = d.g;
        br = d.r;
        d.g = main_g;
        d.r = main_r;
        if (!*c) break;
    }
    A("WATCH", key);
    {
        const char *argv[16];
        int argc = 0;
        for (const char *const *c = change; *c && argc < 16; c++) argv[argc++] = *c;
        struct rconn main_g = d.g, main_r = d.r;
        d.g = bg;
        d.r = br;
        diff_check_argv(&d, argc, argv, NULL);
        bg = d.g;
        br = d.r;
        d.g = main_g;
        d.r = main_r;
    }
    A("MULTI");
    A("PING");
    A("EXEC");
    A("SELECT", "0");
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static void watch_invalidation(void)
{
    /* Changes that invalidate. */
    watch_case(L("SET", "k", "1"), "k", L("SET", "k", "2"));
    watch_case(L("SET", "k", "1"), "k", L("SET", "k", "1")); /* same value: still a write */
    watch_case(L("PING"), "k", L("SET", "k", "new"));
    watch_case(L("SET", "k", "1"), "k", L("DEL", "k"));
    watch_case(L("SET", "k", "1"), "k", L("UNLINK", "k"));
    watch_case(L("SET", "k", "1"), "k", L("GETDEL", "k"));
    watch_case(L("SET", "k", "1"), "k", L("INCR", "k"));
    watch_case(L("SET", "k", "1"), "k", L("INCRBYFLOAT", "k", "1.5"));
    watch_case(L("SET", "k", "abc"), "k", L("APPEND", "k", "d"));
    watch_case(L("SET", "k", "abc"), "k", L("SETRANGE", "k", "1", "X"));
    watch_case(L("SET", "k", "1"), "k", L("EXPIRE", "k", "100"));
    watch_case(L("SET", "k", "1", "EX", "100"), "k", L("PERSIST", "k"));
    watch_case(L("SET", "k", "1"), "k", L("GETEX", "k", "EX", "100"));
    watch_case(L("SET", "k", "1"), "k", L("RENAME", "k", "k2"));
    watch_case(L("SET", "k2", "1"), "k", L("RENAME", "k2", "k")); /* destination */
    watch_case(L("SET", "k", "1"), "k", L("MOVE", "k", "1"));
    watch_case(L("SET", "k", "1"), "k", L("FLUSHDB"));
    watch_case(L("SET", "k", "1"), "k", L("FLUSHALL"));
    watch_case(L("SET", "k", "1"), "k", L("SWAPDB", "0", "1"));
    watch_case(L("SELECT", "1", "|", "SET", "k", "1", "|", "SELECT", "0"), "k",
               L("SWAPDB", "0", "1"));
    watch_case(L("HSET", "k", "f", "1"), "k", L("HSET", "k", "g", "2"));
    watch_case(L("HSET", "k", "f", "1"), "k", L("HDEL", "k", "f"));
    watch_case(L("HSET", "k", "f", "1"), "k", L("HINCRBY", "k", "f", "1"));
    watch_case(L("HSET", "k", "f", "1"), "k", L("HSETNX", "k", "g", "1"));
    watch_case(L("ZADD", "k", "1", "a"), "k", L("ZADD", "k", "2", "b"));
    watch_case(L("ZADD", "k", "1", "a"), "k", L("ZINCRBY", "k", "1", "a"));
    watch_case(L("ZADD", "k", "1", "a", "2", "b"), "k", L("ZREM", "k", "a"));
    watch_case(L("ZADD", "k", "1", "a", "2", "b"), "k", L("ZPOPMIN", "k"));
    watch_case(L("ZADD", "k", "1", "a", "2", "b"), "k", L("ZREMRANGEBYRANK", "k", "0", "0"));
    watch_case(L("ZADD", "s", "1", "a"), "k", L("ZUNIONSTORE", "k", "1", "s"));
    watch_case(L("SADD", "k", "a"), "k", L("SADD", "k", "b"));
    watch_case(L("SADD", "k", "a", "b"), "k", L("SREM", "k", "a"));
    watch_case(L("SADD", "k", "a"), "k", L("SPOP", "k")); /* one member: not random */
    watch_case(L("SADD", "k", "a"), "k", L("SMOVE", "k", "d", "a"));
    watch_case(L("SADD", "s", "a", "|", "SADD", "k", "a"), "k", L("SMOVE", "s", "k", "a"));
    watch_case(L("SADD", "s", "a"), "k", L("SINTERSTORE", "k", "s"));
    watch_case(L("SET", "k", "a"), "k", L("SETBIT", "k", "0", "1"));
    watch_case(L("SET", "k", "a"), "k", L("BITFIELD", "k", "SET", "u8", "0", "1"));
    watch_case(L("SET", "s", "a"), "k", L("COPY", "s", "k"));
    watch_case(L("RPUSH", "k", "a"), "k", L("RPUSH", "k", "b"));
    watch_case(L("RPUSH", "k", "a", "b"), "k", L("LPOP", "k"));
    watch_case(L("RPUSH", "k", "a", "b"), "k", L("RPOP", "k", "2"));
    watch_case(L("RPUSH", "k", "a", "b"), "k", L("LSET", "k", "0", "z"));
    watch_case(L("RPUSH", "k", "a", "b"), "k", L("LINSERT", "k", "BEFORE", "b", "c"));
    watch_case(L("RPUSH", "k", "a", "b", "a"), "k", L("LREM", "k", "0", "a"));
    watch_case(L("RPUSH", "k", "a", "b", "c"), "k", L("LTRIM", "k", "1", "1"));
    watch_case(L("RPUSH", "k", "a"), "k", L("LTRIM", "k", "0", "-1")); /* Redis: even so */
    watch_case(L("RPUSH", "k", "a", "b"), "k", L("LMOVE", "k", "d", "LEFT", "RIGHT"));
    watch_case(L("RPUSH", "s", "a", "|", "RPUSH", "k", "x"), "k", L("RPOPLPUSH", "s", "k"));
    watch_case(L("RPUSH", "k", "a"), "k", L("LMPOP", "1", "k", "LEFT"));
    watch_case(L("RPUSH", "k", "a"), "k", L("BLPOP", "k", "0"));
    watch_case(L("ZADD", "k", "1", "a"), "k", L("BZPOPMIN", "k", "0"));
    watch_case(L("ZADD", "k", "1", "a"), "k", L("ZMPOP", "1", "k", "MAX"));
    watch_case(L("PFADD", "k", "a"), "k", L("PFADD", "k", "b"));
    watch_case(L("PFADD", "k", "a"), "k", L("PFCOUNT", "k")); /* the cache is written */
    watch_case(L("PFADD", "s", "a"), "k", L("PFMERGE", "k", "s"));
    /* Changes that must not invalidate. */
    watch_case(L("PFADD", "k", "a"), "k", L("PFADD", "k", "a"));
    watch_case(L("RPUSH", "k", "a"), "k", L("LREM", "k", "0", "zz"));
    watch_case(L("RPUSH", "k", "a"), "k", L("LINSERT", "k", "BEFORE", "zz", "c"));
    watch_case(L("SADD", "k", "a"), "k", L("SADD", "k", "a"));
    watch_case(L("SADD", "k", "a"), "k", L("SREM", "k", "zz"));
    watch_case(L("SET", "k", "a"), "k", L("BITFIELD", "k", "GET", "u8", "0"));
    watch_case(L("SET", "k", "a"), "k", L("SETBIT", "k", "1", "1")); /* already 1 */
    watch_case(L("SET", "k", "1"), "k", L("GET", "k"));
    watch_case(L("SET", "k", "1"), "k", L("SET", "other", "1"));
    watch_case(L("PING"), "k", L("DEL", "k"));
    watch_case(L("PING"), "k", L("SET", "k", "v", "XX"));
    watch_case(L("PING"), "k", L("EXPIRE", "k", "100"));
    watch_case(L("SET", "k", "1"), "k", L("PERSIST", "k"));
    watch_case(L("SET", "k", "1"), "k", L("HDEL", "other", "f"));
    watch_case(L("ZADD", "k", "1", "a"), "k", L("ZADD", "k", "NX", "5", "a"));
    watch_case(L("ZADD", "k", "1", "a"), "k", L("ZREM", "k", "zz"));
    watch_case(L("PING"), "k", L("FLUSHDB"));
    watch_case(L("SELECT", "1", "|", "SET", "k", "1"), "k", L("FLUSHDB")); /* B is in db 1 */
    watch_case(L("SELECT", "1", "|", "SET", "k", "1"), "k", L("SET", "k", "2"));
    watch_case(L("PING"), "k", L("SWAPDB", "0", "1"));
    watch_case(L("SET", "k", "1"), "k", L("RENAME", "k", "k"));
}

static void watch_lifecycle(void)
{
    A("FLUSHALL");
    /* A's own write invalidates its watch too. */
    A("WATCH", "k");
    A("SET", "k", "mine");
    A("MULTI");
    A("SET", "k", "tx");
    A("EXEC");
    A("GET", "k");
    /* EXEC forgets the watches, failed or not. */
    B("SET", "k", "again");
    A("MULTI");
    A("SET", "k", "tx");
    A("EXEC");
    /* DISCARD and UNWATCH forget them too. */
    A("WATCH", "k");
    A("MULTI");
    A("DISCARD");
    B("SET", "k", "b1");
    A("MULTI");
    A("GET", "k");
    A("EXEC");
    A("WATCH", "k", "k");
    A("UNWATCH");
    B("SET", "k", "b2");
    A("MULTI");
    A("GET", "k");
    A("EXEC");
    /* Two watchers of one key: both fail; a watcher of another key runs. */
    A("WATCH", "k", "other");
    C("WATCH", "k");
    B("SET", "k", "b3");
    A("MULTI");
    A("GET", "k");
    A("EXEC");
    C("MULTI");
    C("GET", "k");
    C("EXEC");
    A("WATCH", "x");
    C("WATCH", "y");
    B("SET", "y", "1");
    A("MULTI");
    A("EXEC");
    C("MULTI");
    C("EXEC");
    /* A watch in another database is that database's key. */
    A("SELECT", "2");
    A("WATCH", "k");
    A("SELECT", "0");
    B("SET", "k", "db0");
    A("MULTI");
    A("EXEC");
    A("WATCH", "k");
    B("SELECT", "2");
    B("SET", "k", "db2");
    B("SELECT", "0");
    A("MULTI");
    A("EXEC");
    /* A watcher that disconnects leaves nothing behind. */
    C("WATCH", "k", "gone1", "gone2");
    rconn_close(&cg);
    rconn_close(&cr);
    diff_open_extra(&d, &cg, &cr);
    B("SET", "k", "after");
    B("FLUSHALL");
    C("PING");
    /* RESET forgets the watches. */
    A("WATCH", "k");
    A("RESET");
    B("SET", "k", "x");
    A("MULTI");
    A("EXEC");
}

/* A key that expires after WATCH fails EXEC even before anything deletes
 * it; a key already expired at WATCH time does not, unless it is written.
 * Each case has the same outcome whether active expiry or a lookup deletes
 * the key first, so the servers' expiry timing cannot make them differ. */
static void watch_expiry(void)
{
    A("FLUSHALL");
    A("SET", "e", "1", "PX", "40");
    A("WATCH", "e");
    usleep(120 * 1000);
    A("MULTI");
    A("PING");
    A("EXEC");
    A("SET", "e", "1", "PX", "40");
    A("WATCH", "e");
    usleep(120 * 1000);
    A("GET", "e"); /* deletes it lazily (if active expiry did not) */
    A("MULTI");
    A("EXEC");
    A("SET", "e", "1", "PX", "20");
    usleep(80 * 1000);
    A("WATCH", "e"); /* expired at WATCH time: its deletion is no change */
    A("EXISTS", "e");
    A("MULTI");
    A("EXEC");
    A("SET", "e", "1", "PX", "20");
    usleep(80 * 1000);
    A("WATCH", "e");
    B("SET", "e", "2"); /* but a write is one */
    A("MULTI");
    A("EXEC");
}

/* A transaction and a script see one instant (Redis 7.0): a key whose TTL
 * passes while they run still reads as there. The script waits on TIME
 * until 5 ms went by, so the key (PX 1) is past its TTL by wall clock. */
#define WAIT_5MS                                                                                   \
    "local t = redis.call('TIME') local s = t[1] * 1000000 + t[2] "                                \
    "repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - s >= 5000 "

static void one_instant(void)
{
    A("FLUSHALL");
    A("EVAL",
      "redis.call('SET', KEYS[1], 'v', 'PX', 1) " WAIT_5MS "return redis.call('GET', KEYS[1])", "1",
      "s");
    A("MULTI");
    A("SET", "m", "v", "PX", "1");
    A("EVAL", WAIT_5MS "return 1", "0");
    A("GET", "m");
    A("EXEC");
    usleep(20 * 1000);
    A("GET", "m");
    A("GET", "s");
}

/* goblin-core only: the queue is bounded by client-query-buffer-limit. */
static void queue_limit(void)
{
    char *r = rconn_call(&d.g, "CONFIG", "SET", "client-query-buffer-limit", "1mb", NULL);
    CHECK_STR(r, "+OK\r\n");
    free(r);
    size_t n = 600 * 1024;
    char *big = malloc(n + 1);
    memset(big, 'v', n);
    big[n] = '\0';
    const char *argv[] = {"SET", "big", big};
    r = rconn_call(&d.g, "MULTI", NULL);
    CHECK_STR(r, "+OK\r\n");
    free(r);
    for (int i = 0; i < 2; i++) {
        rconn_send_argv(&d.g, 3, argv, NULL);
        r = rconn_read_reply(&d.g, NULL);
        CHECK_STR(r, i == 0 ? "+QUEUED\r\n"
                            : "-ERR the queued transaction exceeds client-query-buffer-limit\r\n");
        free(r);
    }
    r = rconn_call(&d.g, "EXEC", NULL);
    CHECK_STR(r, "-EXECABORT Transaction discarded because of previous errors.\r\n");
    free(r);
    r = rconn_call(&d.g, "EXISTS", "big", NULL);
    CHECK_STR(r, ":0\r\n");
    free(r);
    free(big);
    r = rconn_call(&d.g, "CONFIG", "SET", "client-query-buffer-limit", "1gb", NULL);
    CHECK_STR(r, "+OK\r\n");
    free(r);
}

/* Past maxmemory (noeviction, nothing to evict) Redis refuses EXEC of a
 * transaction holding a command that may grow the data set (EXECABORT
 * naming the OOM error), and inside MULTI refuses queuing anything but
 * EXEC, DISCARD, QUIT and RESET; EXEC of reads alone still runs. */
static void oom_in_transaction(void)
{
    A("FLUSHALL");
    A("SET", "x", "1");
    A("MULTI");
    A("SET", "x", "2");
    A("GET", "x");
    B("CONFIG", "SET", "maxmemory", "1");
    A("EXEC");
    A("GET", "x");
    A("MULTI");
    A("GET", "x");
    A("DISCARD");
    B("CONFIG", "SET", "maxmemory", "0");
    A("MULTI");
    A("GET", "x");
    B("CONFIG", "SET", "maxmemory", "1");
    A("EXEC");
    A("MULTI");
    A("GET", "x");
    B("CONFIG", "SET", "maxmemory", "0");
    A("EXEC");
}

static void run_all(void)
{
    queue_errors();
    no_multi_commands();
    runtime_errors();
    watch_invalidation();
    watch_lifecycle();
    watch_expiry();
    one_instant();
    oom_in_transaction();
}

int main(void)
{
    unsigned long long seed = test_seed("diff_multi");
    diff_start(&d, "diff_multi", seed, NULL, NULL);
    diff_open_extra(&d, &bg, &br);
    diff_open_extra(&d, &cg, &cr);
    queue_limit();
    run_all();
    diff_hello3(&d);
    run_all();
    diff_stop(&d);
    return 0;
}
