/*
 * Integration: blocking commands with several real clients, run against
 * goblin-core AND redis-server with the same expected bytes (so every
 * expectation is Redis 7.0's): first blocked first served per key,
 * cascades through BLMOVE, timeouts (nil array / nil, RESP2 and RESP3),
 * disconnect while blocked, CLIENT UNBLOCK (TIMEOUT and ERROR), keys
 * created by MOVE and SWAPDB, sorted sets, commands pipelined behind a
 * blocked one. Then, goblin-core only: a client blocked on a shared-memory
 * ring does not stop the loop from serving a TCP client, and is served.
 * No wall-clock assertion: waits are bounded only to fail instead of hang.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocking_testutil.h"

static int port;

static void open_client(struct rconn *c)
{
    rconn_open_tcp(c, port);
}

static void fifo_order(struct rconn *ctl)
{
    struct rconn a, b, c;
    open_client(&a), open_client(&b), open_client(&c);
    CALL(ctl, ":0\r\n", "DEL", "q", "other");
    rconn_send(&a, "BLPOP", "other", "q", "0", NULL);
    wait_blocked(ctl, 1);
    rconn_send(&b, "BRPOP", "q", "0", NULL);
    wait_blocked(ctl, 2);
    rconn_send(&c, "BLPOP", "q", "other", "0", NULL);
    wait_blocked(ctl, 3);
    no_reply_yet(&a);
    /* One push of three serves the three in the order they blocked. */
    CALL(ctl, ":3\r\n", "RPUSH", "q", "1", "2", "3");
    expect_reply(&a, "*2\r\n$1\r\nq\r\n$1\r\n1\r\n");
    expect_reply(&b, "*2\r\n$1\r\nq\r\n$1\r\n3\r\n");
    expect_reply(&c, "*2\r\n$1\r\nq\r\n$1\r\n2\r\n");
    CALL(ctl, ":0\r\n", "EXISTS", "q");
    /* A cascade: BLMOVE feeds a client blocked on its destination. */
    rconn_send(&a, "BLMOVE", "src", "dst", "LEFT", "RIGHT", "0", NULL);
    wait_blocked(ctl, 1);
    rconn_send(&b, "BLPOP", "dst", "0", NULL);
    wait_blocked(ctl, 2);
    CALL(ctl, ":1\r\n", "LPUSH", "src", "v");
    expect_reply(&a, "$1\r\nv\r\n");
    expect_reply(&b, "*2\r\n$3\r\ndst\r\n$1\r\nv\r\n");
    /* Commands pipelined behind a blocked one run after it is served. */
    const char *pipelined = "*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n*1\r\n$4\r\nPING\r\n";
    rconn_send_raw(&a, pipelined, strlen(pipelined));
    wait_blocked(ctl, 1);
    no_reply_yet(&a);
    CALL(ctl, ":1\r\n", "RPUSH", "q", "x");
    expect_reply(&a, "*2\r\n$1\r\nq\r\n$1\r\nx\r\n");
    expect_reply(&a, "+PONG\r\n");
    /* Sorted sets. */
    rconn_send(&a, "BZPOPMIN", "z", "0", NULL);
    wait_blocked(ctl, 1);
    rconn_send(&b, "BZMPOP", "0", "1", "z", "MAX", "COUNT", "5", NULL);
    wait_blocked(ctl, 2);
    CALL(ctl, ":3\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c");
    expect_reply(&a, "*3\r\n$1\r\nz\r\n$1\r\na\r\n$1\r\n1\r\n");
    expect_reply(&b,
                 "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
    /* A list waiter is not served by a sorted set under its key. */
    rconn_send(&a, "BLPOP", "mixed", "0", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, ":1\r\n", "ZADD", "mixed", "1", "a");
    no_reply_yet(&a);
    CALL(ctl, ":1\r\n", "DEL", "mixed");
    CALL(ctl, ":1\r\n", "RPUSH", "mixed", "l");
    expect_reply(&a, "*2\r\n$5\r\nmixed\r\n$1\r\nl\r\n");
    rconn_close(&a), rconn_close(&b), rconn_close(&c);
}

static void timeouts(struct rconn *ctl)
{
    struct rconn a;
    open_client(&a);
    CALL(&a, "*-1\r\n", "BLPOP", "nothing", "0.05");
    CALL(&a, "*-1\r\n", "BRPOPLPUSH", "nothing", "d", "0.05"); /* an array, as 7.0 */
    CALL(&a, "*-1\r\n", "BLMPOP", "0.05", "1", "nothing", "LEFT");
    CALL(&a, "*-1\r\n", "BZPOPMAX", "nothing", "0.05");
    rconn_send(&a, "HELLO", "3", NULL);
    free(rconn_read_reply(&a, &(size_t){0}));
    CALL(&a, "_\r\n", "BLPOP", "nothing", "0.05");
    CALL(&a, "_\r\n", "BLMOVE", "nothing", "d", "LEFT", "LEFT", "0.05");
    CALL(&a, "_\r\n", "BZMPOP", "0.05", "1", "nothing", "MIN");
    wait_blocked(ctl, 0);
    rconn_close(&a);
}

static void disconnect_and_unblock(struct rconn *ctl)
{
    struct rconn a, b;
    open_client(&a), open_client(&b);
    /* A client that disconnects while blocked takes nothing. */
    rconn_send(&a, "BLPOP", "gone", "0", NULL);
    wait_blocked(ctl, 1);
    rconn_close(&a);
    wait_blocked(ctl, 0);
    CALL(ctl, ":1\r\n", "RPUSH", "gone", "kept");
    CALL(ctl, "*1\r\n$4\r\nkept\r\n", "LRANGE", "gone", "0", "-1");
    /* CLIENT UNBLOCK: TIMEOUT (the default) and ERROR. */
    open_client(&a);
    long long id = client_id(&a);
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", id);
    CALL(ctl, ":0\r\n", "CLIENT", "UNBLOCK", ids);
    rconn_send(&a, "BLPOP", "u", "0", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n", "CLIENT", "UNBLOCK", ids,
         "LATER");
    CALL(ctl, ":1\r\n", "CLIENT", "UNBLOCK", ids);
    expect_reply(&a, "*-1\r\n");
    rconn_send(&a, "BRPOPLPUSH", "u", "v", "0", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, ":1\r\n", "CLIENT", "UNBLOCK", ids, "ERROR");
    expect_reply(&a, "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
    CALL(&a, "+PONG\r\n", "PING");
    /* Keys created in another database and moved in (MOVE), or brought in
     * by SWAPDB, serve the waiters. */
    rconn_send(&a, "BLPOP", "moved", "0", NULL);
    wait_blocked(ctl, 1);
    CALL(&b, "+OK\r\n", "SELECT", "1");
    CALL(&b, ":2\r\n", "RPUSH", "moved", "m1", "m2");
    CALL(&b, ":1\r\n", "MOVE", "moved", "0");
    expect_reply(&a, "*2\r\n$5\r\nmoved\r\n$2\r\nm1\r\n");
    rconn_send(&a, "BLPOP", "swapped", "0", NULL);
    wait_blocked(ctl, 1);
    CALL(&b, ":1\r\n", "RPUSH", "swapped", "s");
    CALL(&b, "+OK\r\n", "SWAPDB", "0", "1");
    expect_reply(&a, "*2\r\n$7\r\nswapped\r\n$1\r\ns\r\n");
    CALL(&b, "+OK\r\n", "SWAPDB", "0", "1");
    rconn_close(&a), rconn_close(&b);
}

static void run(enum test_server_kind kind)
{
    struct test_server s;
    test_server_start(&s, kind, NULL);
    port = s.port;
    struct rconn ctl;
    open_client(&ctl);
    CALL(&ctl, "+OK\r\n", "FLUSHALL");
    fifo_order(&ctl);
    timeouts(&ctl);
    disconnect_and_unblock(&ctl);
    rconn_close(&ctl);
    test_server_stop(&s);
}

/* A client blocked on a ring while a TCP client works, then served. */
static void ring_wake(struct rconn *ctl)
{
    CALL(ctl, "+OK\r\n", "SET", "k", "v");
    CALL(ctl, "$1\r\nv\r\n", "GET", "k");
    CALL(ctl, ":1\r\n", "RPUSH", "ringq", "hello");
}

static void ring_blocked(void)
{
    const char *const blpop[] = {"BLPOP", "ringq", "0"};
    blocking_ring_served(3, blpop, ring_wake, "*2\r\n$5\r\nringq\r\n$5\r\nhello\r\n");
}

int main(void)
{
    run(TEST_SERVER_REDIS);
    run(TEST_SERVER_GOBLIN);
    ring_blocked();
    return 0;
}
