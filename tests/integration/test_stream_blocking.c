/*
 * Integration: blocking stream reads (XREAD and XREADGROUP BLOCK) with
 * several real clients, run against goblin-core AND redis-server with the
 * same expected bytes, so every expectation is Redis 7.0's: a woken reader
 * gets the one stream that got entries; `$` means the last ID when it
 * blocked; readers of a key are served first blocked first served and a
 * group's readers share its entries; XADD + DEL (or a list) under MULTI
 * wakes nobody; a destroyed group answers -NOGROUP and a deleted,
 * overwritten, flushed or swapped-away stream -UNBLOCKED to XREADGROUP
 * readers (XREAD readers wait on); timeouts, CLIENT UNBLOCK, a reader
 * disconnecting, RESP3's map reply, commands pipelined behind a blocked
 * read. Then, goblin-core only: a reader blocked on a shared-memory ring
 * does not stop the loop from serving a TCP client, and is served.
 * No wall-clock assertion: waits are bounded only to fail instead of hang.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocking_testutil.h"

static int port;

#define ENTRY_1_1 "*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n"
#define ENTRY_1_2 "*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nw\r\n"
#define ENTRY_2_1 "*2\r\n$3\r\n2-1\r\n*2\r\n$1\r\ng\r\n$1\r\nx\r\n"

static void xread_wakeups(struct rconn *ctl)
{
    struct rconn a, b, c;
    rconn_open_tcp(&a, port), rconn_open_tcp(&b, port), rconn_open_tcp(&c, port);
    CALL(ctl, "+OK\r\n", "FLUSHALL");
    CALL(ctl, "$3\r\n0-5\r\n", "XADD", "s2", "0-5", "old", "x");
    /* `$` is the last ID when blocking; only the stream that got entries
     * answers; every reader of the key is served. */
    rconn_send(&a, "XREAD", "BLOCK", "0", "STREAMS", "s1", "s2", "s3", "$", "$", "$", NULL);
    wait_blocked(ctl, 1);
    rconn_send(&b, "XREAD", "BLOCK", "0", "STREAMS", "s2", "0-5", NULL);
    wait_blocked(ctl, 2);
    rconn_send(&c, "XREAD", "BLOCK", "0", "STREAMS", "s2", "9-0", NULL);
    wait_blocked(ctl, 3);
    no_reply_yet(&a);
    CALL(ctl, "$3\r\n1-1\r\n", "XADD", "s2", "1-1", "f", "v");
    expect_reply(&a, "*1\r\n*2\r\n$2\r\ns2\r\n*1\r\n" ENTRY_1_1);
    expect_reply(&b, "*1\r\n*2\r\n$2\r\ns2\r\n*1\r\n" ENTRY_1_1);
    no_reply_yet(&c); /* waits for entries past 9-0 */
    wait_blocked(ctl, 1);
    CALL(ctl, "$4\r\n10-0\r\n", "XADD", "s2", "10-0", "f", "v");
    expect_reply(&c,
                 "*1\r\n*2\r\n$2\r\ns2\r\n*1\r\n*2\r\n$4\r\n10-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    /* Entries added inside one transaction are served together; COUNT holds. */
    CALL(ctl, ":0\r\n", "DEL", "s1");
    rconn_send(&a, "XREAD", "BLOCK", "0", "STREAMS", "s1", "$", NULL);
    rconn_send(&b, "XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "s1", "$", NULL);
    wait_blocked(ctl, 2);
    CALL(ctl, "+OK\r\n", "MULTI");
    CALL(ctl, "+QUEUED\r\n", "XADD", "s1", "1-1", "f", "v");
    CALL(ctl, "+QUEUED\r\n", "XADD", "s1", "1-2", "f", "w");
    CALL(ctl, "*2\r\n$3\r\n1-1\r\n$3\r\n1-2\r\n", "EXEC");
    expect_reply(&a, "*1\r\n*2\r\n$2\r\ns1\r\n*2\r\n" ENTRY_1_1 ENTRY_1_2);
    expect_reply(&b, "*1\r\n*2\r\n$2\r\ns1\r\n*1\r\n" ENTRY_1_1);
    /* XADD + DEL, or a list in its place, wakes nobody; a later XADD does. */
    CALL(ctl, ":1\r\n", "DEL", "s1");
    rconn_send(&a, "XREAD", "BLOCK", "0", "STREAMS", "s1", "$", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, "+OK\r\n", "MULTI");
    CALL(ctl, "+QUEUED\r\n", "XADD", "s1", "1-1", "f", "v");
    CALL(ctl, "+QUEUED\r\n", "DEL", "s1");
    CALL(ctl, "+QUEUED\r\n", "LPUSH", "s1", "x");
    CALL(ctl, "*3\r\n$3\r\n1-1\r\n:1\r\n:1\r\n", "EXEC");
    no_reply_yet(&a);
    CALL(ctl, ":1\r\n", "DEL", "s1");
    CALL(ctl, "$3\r\n2-1\r\n", "XADD", "s1", "2-1", "g", "x");
    expect_reply(&a, "*1\r\n*2\r\n$2\r\ns1\r\n*1\r\n" ENTRY_2_1);
    /* The same key twice waits once. */
    rconn_send(&a, "XREAD", "BLOCK", "0", "STREAMS", "s1", "s1", "$", "$", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, "$3\r\n3-0\r\n", "XADD", "s1", "3-0", "f", "v");
    expect_reply(&a,
                 "*1\r\n*2\r\n$2\r\ns1\r\n*1\r\n*2\r\n$3\r\n3-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    /* A key created by RENAME wakes its readers. */
    rconn_send(&a, "XREAD", "BLOCK", "0", "STREAMS", "moved", "0", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, "+OK\r\n", "RENAME", "s1", "moved");
    expect_reply(&a, "*1\r\n*2\r\n$5\r\nmoved\r\n*2\r\n" ENTRY_2_1
                     "*2\r\n$3\r\n3-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    /* Commands pipelined behind a blocked read run after it is served. */
    const char *pipelined = "*6\r\n$5\r\nXREAD\r\n$5\r\nBLOCK\r\n$1\r\n0\r\n$7\r\nSTREAMS\r\n"
                            "$1\r\np\r\n$1\r\n$\r\n*1\r\n$4\r\nPING\r\n";
    rconn_send_raw(&a, pipelined, strlen(pipelined));
    wait_blocked(ctl, 1);
    no_reply_yet(&a);
    CALL(ctl, "$3\r\n1-1\r\n", "XADD", "p", "1-1", "f", "v");
    expect_reply(&a, "*1\r\n*2\r\n$1\r\np\r\n*1\r\n" ENTRY_1_1);
    expect_reply(&a, "+PONG\r\n");
    /* RESP3: a map of one stream. */
    rconn_send(&b, "HELLO", "3", NULL);
    free(rconn_read_reply(&b, NULL));
    rconn_send(&b, "XREAD", "BLOCK", "0", "STREAMS", "p", "$", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, "$3\r\n1-2\r\n", "XADD", "p", "1-2", "f", "w");
    expect_reply(&b, "%1\r\n$1\r\np\r\n*1\r\n" ENTRY_1_2);
    rconn_close(&a), rconn_close(&b), rconn_close(&c);
}

static void group_wakeups(struct rconn *ctl)
{
    struct rconn a, b, c;
    rconn_open_tcp(&a, port), rconn_open_tcp(&b, port), rconn_open_tcp(&c, port);
    CALL(ctl, "+OK\r\n", "FLUSHALL");
    CALL(ctl, "+OK\r\n", "XGROUP", "CREATE", "q", "g", "$", "MKSTREAM");
    /* Two consumers of one group: each entry goes to the first waiting. */
    rconn_send(&a, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "q", ">", NULL);
    wait_blocked(ctl, 1);
    rconn_send(&b, "XREADGROUP", "GROUP", "g", "bob", "COUNT", "5", "BLOCK", "0", "STREAMS", "q",
               ">", NULL);
    wait_blocked(ctl, 2);
    CALL(ctl, "$3\r\n1-1\r\n", "XADD", "q", "1-1", "f", "v");
    expect_reply(&a, "*1\r\n*2\r\n$1\r\nq\r\n*1\r\n" ENTRY_1_1);
    no_reply_yet(&b);
    CALL(ctl, "$3\r\n1-2\r\n", "XADD", "q", "1-2", "f", "w");
    expect_reply(&b, "*1\r\n*2\r\n$1\r\nq\r\n*1\r\n" ENTRY_1_2);
    CALL(ctl,
         "*4\r\n:2\r\n$3\r\n1-1\r\n$3\r\n1-2\r\n*2\r\n*2\r\n$5\r\nalice\r\n$1\r\n1\r\n*2\r\n$3\r\n"
         "bob\r\n$1\r\n1\r\n",
         "XPENDING", "q", "g");
    /* NOACK: served, nothing pending. */
    rconn_send(&c, "XREADGROUP", "GROUP", "g", "carol", "NOACK", "BLOCK", "0", "STREAMS", "q", ">",
               NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, "$3\r\n2-1\r\n", "XADD", "q", "2-1", "g", "x");
    expect_reply(&c, "*1\r\n*2\r\n$1\r\nq\r\n*1\r\n" ENTRY_2_1);
    CALL(ctl, ":3\r\n", "XLEN", "q");
    CALL(ctl,
         "*4\r\n:2\r\n$3\r\n1-1\r\n$3\r\n1-2\r\n*2\r\n*2\r\n$5\r\nalice\r\n$1\r\n1\r\n*2\r\n$3\r\n"
         "bob\r\n$1\r\n1\r\n",
         "XPENDING", "q", "g");
    /* The group destroyed under its readers: -NOGROUP; XREAD readers stay. */
    rconn_send(&a, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "q", ">", NULL);
    wait_blocked(ctl, 1);
    rconn_send(&b, "XREAD", "BLOCK", "0", "STREAMS", "q", "$", NULL);
    wait_blocked(ctl, 2);
    CALL(ctl, ":1\r\n", "XGROUP", "DESTROY", "q", "g");
    expect_reply(&a, "-NOGROUP the consumer group this client was blocked on no longer exists\r\n");
    no_reply_yet(&b);
    CALL(ctl, ":1\r\n", "DEL", "q");
    no_reply_yet(&b);
    CALL(ctl, "$3\r\n5-0\r\n", "XADD", "q", "5-0", "f", "v");
    expect_reply(&b,
                 "*1\r\n*2\r\n$1\r\nq\r\n*1\r\n*2\r\n$3\r\n5-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    /* The stream deleted, overwritten, flushed, swapped away: -UNBLOCKED. */
    static const char *const unblocked = "-UNBLOCKED the stream key no longer exists\r\n";
    for (int how = 0; how < 5; how++) {
        CALL(ctl, "+OK\r\n", "XGROUP", "CREATE", "q", "g", "$");
        rconn_send(&a, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "q", ">",
                   NULL);
        wait_blocked(ctl, 1);
        if (how == 0) CALL(ctl, ":1\r\n", "DEL", "q");
        if (how == 1) CALL(ctl, "+OK\r\n", "SET", "q", "x");
        if (how == 2) CALL(ctl, "+OK\r\n", "FLUSHDB");
        if (how == 3) CALL(ctl, "+OK\r\n", "SWAPDB", "0", "1");
        if (how == 4) CALL(ctl, "+OK\r\n", "RENAME", "q", "q2");
        expect_reply(&a, unblocked);
        CALL(ctl, "+OK\r\n", "FLUSHALL");
        CALL(ctl, "$3\r\n1-1\r\n", "XADD", "q", "1-1", "f", "v");
    }
    rconn_close(&a), rconn_close(&b), rconn_close(&c);
}

static void timeouts_and_unblock(struct rconn *ctl)
{
    struct rconn a, b;
    rconn_open_tcp(&a, port), rconn_open_tcp(&b, port);
    CALL(ctl, "+OK\r\n", "FLUSHALL");
    CALL(&a, "*-1\r\n", "XREAD", "BLOCK", "20", "STREAMS", "t", "$");
    CALL(&a, "+OK\r\n", "XGROUP", "CREATE", "t", "g", "$", "MKSTREAM");
    CALL(&a, "*-1\r\n", "XREADGROUP", "GROUP", "g", "c", "BLOCK", "20", "STREAMS", "t", ">");
    rconn_send(&b, "HELLO", "3", NULL);
    free(rconn_read_reply(&b, NULL));
    CALL(&b, "_\r\n", "XREAD", "BLOCK", "20", "STREAMS", "t", "$");
    /* A read that finds entries does not block; a consumer's history
     * never blocks. */
    CALL(ctl, "$3\r\n1-1\r\n", "XADD", "t", "1-1", "f", "v");
    CALL(&a, "*1\r\n*2\r\n$1\r\nt\r\n*1\r\n" ENTRY_1_1, "XREAD", "BLOCK", "0", "STREAMS", "t", "0");
    CALL(&a, "*1\r\n*2\r\n$1\r\nt\r\n*0\r\n", "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0",
         "STREAMS", "t", "0");
    CALL(&a, "*1\r\n*2\r\n$1\r\nt\r\n*1\r\n" ENTRY_1_1, "XREADGROUP", "GROUP", "g", "c", "BLOCK",
         "0", "STREAMS", "t", ">");
    /* Deleted last entry: a reader past the remaining ones times out. */
    CALL(ctl, "$3\r\n1-2\r\n", "XADD", "t", "1-2", "f", "w");
    CALL(ctl, ":1\r\n", "XDEL", "t", "1-2");
    CALL(&a, "*-1\r\n", "XREAD", "BLOCK", "20", "STREAMS", "t", "1-1");
    /* CLIENT UNBLOCK: as a timeout, or with -UNBLOCKED. */
    long long id = client_id(&a);
    char idtext[32];
    snprintf(idtext, sizeof idtext, "%lld", id);
    rconn_send(&a, "XREAD", "BLOCK", "0", "STREAMS", "t", "$", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, ":1\r\n", "CLIENT", "UNBLOCK", idtext);
    expect_reply(&a, "*-1\r\n");
    rconn_send(&a, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "t", ">", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, ":1\r\n", "CLIENT", "UNBLOCK", idtext, "ERROR");
    expect_reply(&a, "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
    /* A reader that disconnects leaves no trace; the next one is served. */
    struct rconn gone;
    rconn_open_tcp(&gone, port);
    rconn_send(&gone, "XREADGROUP", "GROUP", "g", "gone", "BLOCK", "0", "STREAMS", "t", ">", NULL);
    wait_blocked(ctl, 1);
    rconn_close(&gone);
    wait_blocked(ctl, 0);
    rconn_send(&a, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "t", ">", NULL);
    wait_blocked(ctl, 1);
    CALL(ctl, "$3\r\n3-0\r\n", "XADD", "t", "3-0", "f", "v");
    expect_reply(&a,
                 "*1\r\n*2\r\n$1\r\nt\r\n*1\r\n*2\r\n$3\r\n3-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    /* In MULTI, BLOCK does not block. */
    CALL(&a, "+OK\r\n", "MULTI");
    CALL(&a, "+QUEUED\r\n", "XREAD", "BLOCK", "0", "STREAMS", "t", "$");
    CALL(&a, "*1\r\n*-1\r\n", "EXEC");
    rconn_close(&a), rconn_close(&b);
}

static void run(enum test_server_kind kind)
{
    struct test_server s;
    test_server_start(&s, kind, NULL);
    port = s.port;
    printf("test_stream_blocking: against %s\n",
           kind == TEST_SERVER_REDIS ? "redis-server" : "goblin-core");
    struct rconn ctl;
    rconn_open_tcp(&ctl, port);
    xread_wakeups(&ctl);
    group_wakeups(&ctl);
    timeouts_and_unblock(&ctl);
    rconn_close(&ctl);
    test_server_stop(&s);
}

/* A reader blocked on a ring while a TCP client works, then served. */
static void ring_wake(struct rconn *ctl)
{
    CALL(ctl, "$3\r\n1-1\r\n", "XADD", "rs", "1-1", "f", "v");
}

static void ring_blocked(void)
{
    const char *const xread[] = {"XREAD", "BLOCK", "0", "STREAMS", "rs", "$"};
    blocking_ring_served(6, xread, ring_wake, "*1\r\n*2\r\n$2\r\nrs\r\n*1\r\n" ENTRY_1_1);
}

int main(void)
{
    run(TEST_SERVER_REDIS);
    run(TEST_SERVER_GOBLIN);
    ring_blocked();
    return 0;
}
