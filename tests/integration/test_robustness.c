/* Integration: bad input and load. Malformed RESP, oversize bulk headers,
 * unknown commands, clients vanishing mid-frame, the query-buffer limit,
 * maxclients, deep pipelining, a client that does not read its replies, and
 * 1,000 concurrent connections — the server keeps serving everyone else and
 * loses nothing it acknowledged. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testlib.h"

static void expect_reply(struct rconn *c, const char *expected)
{
    char *r = rconn_read_reply(c, NULL);
    CHECK_STR(r, expected);
    free(r);
}

/* A protocol error gets a Redis-style error, then that connection (only) is closed. */
static void protocol_errors(int port)
{
    static const struct {
        const char *input;
        const char *error;
    } cases[] = {
        {"*1\r\n$x\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
        {"*1\r\n$999999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
        {"*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
        {"*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"},
        {"SET \"unterminated\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
    };
    struct rconn bystander;
    rconn_open_tcp(&bystander, port);
    rconn_send(&bystander, "SET", "safe", "1", NULL);
    expect_reply(&bystander, "+OK\r\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rconn c;
        rconn_open_tcp(&c, port);
        /* A valid command first: its reply must arrive before the error. */
        rconn_send_raw(&c, "PING\r\n", 6);
        rconn_send_raw(&c, cases[i].input, strlen(cases[i].input));
        expect_reply(&c, "+PONG\r\n");
        expect_reply(&c, cases[i].error);
        CHECKF(rconn_wait_closed(&c, 5000), "connection not closed after '%s'", cases[i].input);
        rconn_close(&c);
    }
    rconn_send(&bystander, "GET", "safe", NULL);
    expect_reply(&bystander, "$1\r\n1\r\n");
    rconn_close(&bystander);
}

/* Unknown commands are errors, not disconnects. */
static void unknown_commands(int port)
{
    struct rconn c;
    rconn_open_tcp(&c, port);
    for (int i = 0; i < 100; i++) {
        rconn_send(&c, "FOOBAR", "x", NULL);
        expect_reply(&c, "-ERR unknown command 'FOOBAR', with args beginning with: 'x' \r\n");
    }
    rconn_send(&c, "PING", NULL);
    expect_reply(&c, "+PONG\r\n");
    rconn_close(&c);
}

/* Clients that vanish mid-frame leave nothing half-applied. */
static void vanishing_clients(int port)
{
    struct rconn a;
    rconn_open_tcp(&a, port);
    rconn_send(&a, "SET", "durable", "before", NULL);
    expect_reply(&a, "+OK\r\n");
    static const char *partials[] = {
        "*3\r\n$3\r\nSET\r\n$7\r\ndurable\r\n$5\r\naft",
        "*3\r\n$3\r\nSET\r\n$7\r\ndurable",
        "*3\r\n$3\r\nSET\r\n$7\r\ndurable\r\n$100000\r\n",
        "*3\r\n",
        "SET durable after",
    };
    for (size_t i = 0; i < sizeof partials / sizeof partials[0]; i++) {
        struct rconn v;
        rconn_open_tcp(&v, port);
        rconn_send_raw(&v, partials[i], strlen(partials[i]));
        rconn_close(&v);
    }
    rconn_send(&a, "GET", "durable", NULL);
    expect_reply(&a, "$6\r\nbefore\r\n");
    rconn_close(&a);
}

/* Thousands of commands in one write, answered in order. */
static void deep_pipeline(int port)
{
    enum { N = 20000 };
    struct buf out;
    buf_init(&out, 0);
    char cmd[128];
    for (int i = 0; i < N; i++) {
        int n = snprintf(cmd, sizeof cmd, "*3\r\n$3\r\nSET\r\n$6\r\npk%04d\r\n$%d\r\n%d\r\n",
                         i % 10000, (int)snprintf(NULL, 0, "%d", i), i);
        buf_append(&out, cmd, (size_t)n);
    }
    struct rconn c;
    rconn_open_tcp(&c, port);
    rconn_send_raw(&c, buf_head(&out), buf_len(&out));
    for (int i = 0; i < N; i++) expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "GET", "pk1234", NULL);
    expect_reply(&c, "$5\r\n11234\r\n");
    buf_free(&out);
    rconn_close(&c);
}

/* A client that pipelines big replies without reading is held back by
 * backpressure; when it finally reads, every reply is there, complete. */
static void slow_reader(int port)
{
    enum { VALUE = 256 * 1024, GETS = 400 };
    char *value = malloc(VALUE);
    for (int i = 0; i < VALUE; i++) value[i] = (char)('a' + i % 26);
    struct rconn c;
    rconn_open_tcp(&c, port);
    const char *set[] = {"SET", "big", value};
    size_t lens[] = {3, 3, VALUE};
    rconn_send_argv(&c, 3, set, lens);
    expect_reply(&c, "+OK\r\n");
    struct buf out;
    buf_init(&out, 0);
    for (int i = 0; i < GETS; i++) buf_append(&out, "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n", 22);
    rconn_send_raw(&c, buf_head(&out), buf_len(&out));
    /* Meanwhile another client is served normally. */
    struct rconn other;
    rconn_open_tcp(&other, port);
    rconn_send(&other, "PING", NULL);
    expect_reply(&other, "+PONG\r\n");
    rconn_close(&other);
    for (int i = 0; i < GETS; i++) {
        size_t len;
        char *r = rconn_read_reply(&c, &len);
        CHECKF(len == VALUE + 11 && memcmp(r + 9, value, VALUE) == 0,
               "reply %d corrupt (%zu bytes)", i, len);
        free(r);
    }
    buf_free(&out);
    free(value);
    rconn_close(&c);
}

static void raise_fd_limit(void)
{
    struct rlimit lim;
    CHECK(getrlimit(RLIMIT_NOFILE, &lim) == 0);
    lim.rlim_cur = lim.rlim_max;
    CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0);
    CHECKF(lim.rlim_cur >= 1100, "need 1100 file descriptors, hard limit is %llu",
           (unsigned long long)lim.rlim_cur);
}

/* 1,000 connections at once, each writing its own key; all acknowledged
 * writes are then visible. */
static void many_connections(int port)
{
    enum { N = 1000 };
    struct rconn *c = calloc(N, sizeof *c);
    char key[32], val[32];
    for (int i = 0; i < N; i++) rconn_open_tcp(&c[i], port);
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "conn:%d", i);
        snprintf(val, sizeof val, "v%d", i);
        rconn_send(&c[i], "SET", key, val, NULL);
    }
    for (int i = 0; i < N; i++) expect_reply(&c[i], "+OK\r\n");
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "conn:%d", (i * 7) % N);
        rconn_send(&c[i], "GET", key, NULL);
    }
    for (int i = 0; i < N; i++) {
        char expected[64];
        snprintf(val, sizeof val, "v%d", (i * 7) % N);
        snprintf(expected, sizeof expected, "$%zu\r\n%s\r\n", strlen(val), val);
        expect_reply(&c[i], expected);
    }
    for (int i = 0; i < N; i++) rconn_close(&c[i]);
    free(c);
}

static void maxclients_limit(void)
{
    const char *const extra[] = {"--maxclients", "5", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn c[5], extra_conn;
    for (int i = 0; i < 5; i++) {
        rconn_open_tcp(&c[i], s.port);
        rconn_send(&c[i], "PING", NULL);
        expect_reply(&c[i], "+PONG\r\n");
    }
    rconn_open_tcp(&extra_conn, s.port);
    expect_reply(&extra_conn, "-ERR max number of clients reached\r\n");
    CHECK(rconn_wait_closed(&extra_conn, 5000));
    rconn_close(&extra_conn);
    rconn_send(&c[0], "PING", NULL);
    expect_reply(&c[0], "+PONG\r\n");
    for (int i = 0; i < 5; i++) rconn_close(&c[i]);
    test_server_stop(&s);
}

static void query_buffer_limit(void)
{
    const char *const extra[] = {"--client-query-buffer-limit", "1mb", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn greedy, other;
    rconn_open_tcp(&greedy, s.port);
    rconn_open_tcp(&other, s.port);
    const char *head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n";
    rconn_send_raw(&greedy, head, strlen(head));
    char chunk[65536];
    memset(chunk, 'x', sizeof chunk);
    /* Keep writing until the server hangs up (it must, at ~1 MB). */
    size_t sent = 0;
    while (sent < 3000000) {
        ssize_t n = write(greedy.fd, chunk, sizeof chunk);
        if (n < 0) break;
        sent += (size_t)n;
    }
    CHECK(rconn_wait_closed(&greedy, 5000));
    rconn_send(&other, "GET", "k", NULL);
    expect_reply(&other, "$-1\r\n");
    rconn_close(&greedy);
    rconn_close(&other);
    test_server_stop(&s);
}

int main(void)
{
    raise_fd_limit();
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, NULL);
    protocol_errors(s.port);
    unknown_commands(s.port);
    vanishing_clients(s.port);
    deep_pipeline(s.port);
    slow_reader(s.port);
    many_connections(s.port);
    test_server_stop(&s);
    maxclients_limit();
    query_buffer_limit();
    return 0;
}
