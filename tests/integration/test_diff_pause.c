/*
 * Differential test of CLIENT PAUSE / CLIENT UNPAUSE against redis-server,
 * RESP2 then RESP3, byte for byte, with several clients: the errors; WRITE
 * holding writes, may-replicate commands (EVAL, PUBLISH, PFCOUNT), a
 * transaction's write (queued or at EXEC) but not reads, EVAL_RO or a
 * no-writes script (alone or queued in a transaction); held commands answered after UNPAUSE, in the
 * order they were held, a held client's pipelined command after its held one; the held write not
 * applied meanwhile (read by another client); expiry stopped while paused (the expired key reads as
 * missing but DBSIZE still counts it); ALL holding every command, the pauser's own included, until
 * its timeout. No timing is asserted: "held" is checked by state (the write not
 * applied, INFO blocked_clients), never by how long a reply took.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

static struct diff_pair d;
static struct rconn bg, br; /* client B */
static struct rconn cg, cr; /* client C */

#define A(...) diff_check(&d, __VA_ARGS__, NULL)

/* Sends one command on a pair without reading its reply (it is held). */
static void send_pair(struct rconn *g, struct rconn *r, const char *first, ...)
{
    const char *argv[16];
    int argc = 0;
    argv[argc++] = first;
    va_list ap;
    va_start(ap, first);
    for (const char *a; (a = va_arg(ap, const char *)) && argc < 16;) argv[argc++] = a;
    va_end(ap);
    rconn_send_argv(g, argc, argv, NULL);
    rconn_send_argv(r, argc, argv, NULL);
}

/* Reads the next reply of both and compares them (and with `expected`). */
static void expect_pair(struct rconn *g, struct rconn *r, const char *expected)
{
    size_t glen, rlen;
    char *gr = rconn_read_reply(g, &glen);
    char *rr = rconn_read_reply(r, &rlen);
    CHECKF(gr && rr && glen == rlen && memcmp(gr, rr, glen) == 0,
           "held reply differs: goblin '%s' redis '%s'", gr ? gr : "(none)", rr ? rr : "(none)");
    if (expected) CHECKF(strcmp(rr, expected) == 0, "got '%s' expected '%s'", rr, expected);
    free(gr);
    free(rr);
}

/* Polls INFO clients on one connection until blocked_clients is n (held
 * clients count there in Redis 7.0); bounded, never a timing assertion. */
static void wait_blocked_on(struct rconn *c, int n)
{
    char want[64];
    snprintf(want, sizeof want, "blocked_clients:%d\r\n", n);
    for (int tries = 0; tries < 2000; tries++) {
        char *info = rconn_call(c, "INFO", "clients", NULL);
        bool done = strstr(info, want) != NULL;
        free(info);
        if (done) return;
        usleep(5000);
    }
    CHECKF(false, "blocked_clients never reached %d", n);
}

static void wait_blocked(int n)
{
    wait_blocked_on(&d.g, n);
    wait_blocked_on(&d.r, n);
}

static void errors(void)
{
    A("CLIENT", "PAUSE");
    A("CLIENT", "PAUSE", "abc");
    A("CLIENT", "PAUSE", "-1");
    A("CLIENT", "PAUSE", "1.5");
    A("CLIENT", "PAUSE", "10", "foo");
    A("CLIENT", "PAUSE", "abc", "foo"); /* the mode is checked first */
    A("CLIENT", "PAUSE", "10", "write", "extra");
    A("CLIENT", "PAUSE", "9223372036854775807");
    A("CLIENT", "UNPAUSE", "x");
    A("CLIENT", "UNPAUSE");
}

/* WRITE: what runs at once, what is held. */
static void write_pause_classes(void)
{
    A("FLUSHALL");
    A("SET", "k", "v");
    A("PFADD", "h", "a");
    A("SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])");
    A("CLIENT", "PAUSE", "100000", "WRITE");
    /* Not held: reads, admin, errors found before the pause check. */
    A("GET", "k");
    A("PING");
    A("MULTI");
    A("GET", "k");
    A("EXEC");
    A("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k");
    A("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "k");
    /* EXEC of no-writes scripts and reads runs at once (each queued
     * command judged by its script's flags, as Redis's queueMultiCommand). */
    A("MULTI");
    A("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "k");
    A("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k");
    A("GET", "k");
    A("EXEC");
    A("SET", "k");
    A("NOSUCHCOMMAND");
    A("SCRIPT", "FLUSH");
    A("CLIENT", "PAUSE", "100000", "WRITE");
    /* Held, one client at a time, each answered after UNPAUSE. */
    static const char *const held[][6] = {
        {"SET", "k", "w"},      {"EVAL", "return 1", "0"}, {"EVAL", "#!lua\nreturn 1", "0"},
        {"PUBLISH", "ch", "m"}, {"PFCOUNT", "h"},          {"DEL", "nosuch"},
        {"FLUSHALL"},
    };
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        send_pair(&bg, &br, held[i][0], held[i][1], held[i][2], held[i][3], NULL);
        wait_blocked(1);
        A("GET", "k"); /* the held SET has not been applied */
        A("CLIENT", "UNPAUSE");
        expect_pair(&bg, &br, NULL);
        A("CLIENT", "PAUSE", "100000", "WRITE");
    }
    A("CLIENT", "UNPAUSE");
    A("GET", "k");
}

/* A transaction: its queued write is held, then EXEC of writes. */
static void write_pause_transactions(void)
{
    A("FLUSHALL");
    A("CLIENT", "PAUSE", "100000", "WRITE");
    send_pair(&bg, &br, "MULTI", NULL);
    expect_pair(&bg, &br, "+OK\r\n");
    send_pair(&bg, &br, "SET", "t", "1", NULL); /* held before it is queued */
    wait_blocked(1);
    send_pair(&bg, &br, "EXEC", NULL);
    A("CLIENT", "UNPAUSE");
    expect_pair(&bg, &br, "+QUEUED\r\n");
    expect_pair(&bg, &br, "*1\r\n+OK\r\n");
    /* Queued before the pause, held at EXEC. */
    send_pair(&bg, &br, "MULTI", NULL);
    expect_pair(&bg, &br, "+OK\r\n");
    send_pair(&bg, &br, "INCR", "t", NULL);
    expect_pair(&bg, &br, "+QUEUED\r\n");
    A("CLIENT", "PAUSE", "100000", "WRITE");
    send_pair(&bg, &br, "EXEC", NULL);
    wait_blocked(1);
    A("GET", "t");
    A("CLIENT", "UNPAUSE");
    expect_pair(&bg, &br, "*1\r\n:2\r\n");
    A("GET", "t");
}

/* Order: B's held command, then B's pipelined one, then C's. */
static void order_and_pipeline(void)
{
    A("FLUSHALL");
    A("CLIENT", "PAUSE", "100000", "WRITE");
    const char two[] = "*3\r\n$6\r\nAPPEND\r\n$1\r\nk\r\n$1\r\n1\r\n"
                       "*3\r\n$6\r\nAPPEND\r\n$1\r\nk\r\n$1\r\n3\r\n";
    rconn_send_raw(&bg, two, sizeof two - 1);
    rconn_send_raw(&br, two, sizeof two - 1);
    wait_blocked(1);
    send_pair(&cg, &cr, "APPEND", "k", "2", NULL);
    wait_blocked(2);
    A("GET", "k");
    A("CLIENT", "UNPAUSE");
    expect_pair(&bg, &br, ":1\r\n");
    expect_pair(&bg, &br, ":2\r\n");
    expect_pair(&cg, &cr, ":3\r\n");
    A("GET", "k");
}

/* Expiry stops while paused: the key reads as missing, DBSIZE counts it. */
static void expiry_paused(void)
{
    A("FLUSHALL");
    A("SET", "e", "1", "PX", "30");
    A("SET", "f", "1");
    A("CLIENT", "PAUSE", "100000", "WRITE");
    usleep(250 * 1000); /* e's TTL passes; active expiry would have run */
    A("GET", "e");
    A("EXISTS", "e");
    A("DBSIZE");
    A("CLIENT", "UNPAUSE");
    A("GET", "e");
    A("DBSIZE");
}

/* ALL holds everything, its own client's commands and UNPAUSE included,
 * until its timeout; then the held commands run. */
static void all_pause(void)
{
    A("FLUSHALL");
    A("SET", "k", "before");
    A("CLIENT", "PAUSE", "200", "ALL");
    send_pair(&bg, &br, "SET", "k", "after", NULL);
    send_pair(&cg, &cr, "CLIENT", "UNPAUSE", NULL);
    send_pair(&d.g, &d.r, "PING", NULL);
    /* (Which of three sockets the server reads first is not the test's to
     * fix: the order of held commands is checked under WRITE, above.) */
    expect_pair(&bg, &br, "+OK\r\n");
    expect_pair(&cg, &cr, "+OK\r\n");
    expect_pair(&d.g, &d.r, "+PONG\r\n");
    A("GET", "k");
}

static void run_all(void)
{
    errors();
    write_pause_classes();
    write_pause_transactions();
    order_and_pipeline();
    expiry_paused();
    all_pause();
}

int main(void)
{
    unsigned long long seed = test_seed("diff_pause");
    diff_start(&d, "diff_pause", seed, NULL, NULL);
    diff_open_extra(&d, &bg, &br);
    diff_open_extra(&d, &cg, &cr);
    run_all();
    diff_hello3(&d);
    run_all();
    diff_stop(&d);
    return 0;
}
