/* Integration: big bulk arguments (issue 9, item 9). A bulk of at least
 * RESP_BIG_ARG bytes is received into a buffer of its own and SET stores
 * that buffer as the value without copying it. Checked here without any
 * clock: the values read back are the values sent (GET, STRLEN, GETRANGE,
 * APPEND after), options after the big argument (EX) and commands
 * pipelined after it still work, a client that declares a 512 MB bulk and
 * vanishes mid-way leaves nothing behind (the ASan run checks for leaks),
 * and INFO's string_values_adopted counts the SETs that kept their buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define BIG (64u * 1024 * 1024 + 7) /* odd: the CRLF falls off any page boundary */

static void expect_reply(struct rconn *c, const char *expected)
{
    char *r = rconn_read_reply(c, NULL);
    CHECK_STR(r, expected);
    free(r);
}

/* A byte pattern whose every offset is distinguishable (not all 'x'). */
static char *pattern(size_t len, unsigned seed)
{
    char *p = malloc(len);
    CHECK(p != NULL);
    for (size_t i = 0; i < len; i++) p[i] = (char)('a' + (i * 7 + seed + i / 4093) % 26);
    return p;
}

static void expect_bulk(struct rconn *c, const char *bytes, size_t len)
{
    size_t n;
    char *r = rconn_read_reply(c, &n);
    char head[32];
    int h = snprintf(head, sizeof head, "$%zu\r\n", len);
    CHECKF(n == (size_t)h + len + 2, "bulk of %zu bytes expected, reply of %zu", len, n);
    CHECK(memcmp(r, head, (size_t)h) == 0);
    CHECK(memcmp(r + h, bytes, len) == 0);
    free(r);
}

static long long info_stat(struct rconn *c, const char *field)
{
    char *r = rconn_call(c, "INFO", "stats", NULL);
    const char *at = strstr(r, field);
    CHECKF(at != NULL, "INFO stats lacks %s", field);
    long long v = atoll(at + strlen(field) + 1);
    free(r);
    return v;
}

static void set_get_range(int port)
{
    struct rconn c;
    rconn_open_tcp(&c, port);
    char *v = pattern(BIG, 1);
    long long adopted = info_stat(&c, "string_values_adopted");
    const char *argv[] = {"SET", "big", v};
    size_t lens[] = {3, 3, BIG};
    rconn_send_argv(&c, 3, argv, lens);
    expect_reply(&c, "+OK\r\n");
    CHECK_EQ_LL(info_stat(&c, "string_values_adopted"), adopted + 1);
    rconn_send(&c, "GET", "big", NULL);
    expect_bulk(&c, v, BIG);
    char want[64];
    snprintf(want, sizeof want, ":%u\r\n", BIG);
    rconn_send(&c, "STRLEN", "big", NULL);
    expect_reply(&c, want);
    rconn_send(&c, "GETRANGE", "big", "-5", "-1", NULL);
    expect_bulk(&c, v + BIG - 5, 5);
    rconn_send(&c, "GETRANGE", "big", "1000000", "1000009", NULL);
    expect_bulk(&c, v + 1000000, 10);
    rconn_send(&c, "OBJECT", "ENCODING", "big", NULL);
    expect_reply(&c, "$3\r\nraw\r\n");
    /* The adopted buffer is a normal value: it grows and is overwritten. */
    rconn_send(&c, "APPEND", "big", "tail", NULL);
    snprintf(want, sizeof want, ":%u\r\n", BIG + 4);
    expect_reply(&c, want);
    rconn_send(&c, "GETRANGE", "big", "-6", "-1", NULL);
    char end[6] = {v[BIG - 2], v[BIG - 1], 't', 'a', 'i', 'l'};
    expect_bulk(&c, end, 6);
    rconn_send(&c, "SET", "big", "12345", NULL);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "OBJECT", "ENCODING", "big", NULL);
    expect_reply(&c, "$3\r\nint\r\n");
    rconn_send(&c, "DEL", "big", NULL);
    expect_reply(&c, ":1\r\n");
    free(v);
    rconn_close(&c);
}

/* Options after the big argument, and the SET family's other members. */
static void options_after_big(int port)
{
    struct rconn c;
    rconn_open_tcp(&c, port);
    size_t len = 1024 * 1024 + 1;
    char *v = pattern(len, 2);
    const char *set_ex[] = {"SET", "k", v, "EX", "100"};
    size_t set_ex_lens[] = {3, 1, len, 2, 3};
    rconn_send_argv(&c, 5, set_ex, set_ex_lens);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "TTL", "k", NULL);
    expect_reply(&c, ":100\r\n");
    /* NX on an existing key stores nothing: the big argument is freed. */
    const char *nx[] = {"SET", "k", v, "NX", "GET"};
    size_t nx_lens[] = {3, 1, len, 2, 3};
    rconn_send_argv(&c, 5, nx, nx_lens);
    expect_bulk(&c, v, len);
    /* GETSET returns the old big value and keeps the new one. */
    char *w = pattern(len, 3);
    const char *getset[] = {"GETSET", "k", w};
    size_t getset_lens[] = {6, 1, len};
    rconn_send_argv(&c, 3, getset, getset_lens);
    expect_bulk(&c, v, len);
    rconn_send(&c, "TTL", "k", NULL);
    expect_reply(&c, ":-1\r\n");
    const char *setex[] = {"SETEX", "k", "50", v};
    size_t setex_lens[] = {5, 1, 2, len};
    rconn_send_argv(&c, 4, setex, setex_lens);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "TTL", "k", NULL);
    expect_reply(&c, ":50\r\n");
    rconn_send(&c, "GET", "k", NULL);
    expect_bulk(&c, v, len);
    /* A command that only reads its big argument. */
    const char *echo[] = {"ECHO", w};
    size_t echo_lens[] = {4, len};
    rconn_send_argv(&c, 2, echo, echo_lens);
    expect_bulk(&c, w, len);
    /* Two big arguments in one command (MSET copies them: still correct). */
    const char *mset[] = {"MSET", "a", v, "b", w};
    size_t mset_lens[] = {4, 1, len, 1, len};
    rconn_send_argv(&c, 5, mset, mset_lens);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "GET", "b", NULL);
    expect_bulk(&c, w, len);
    rconn_send(&c, "DEL", "a", "b", "k", NULL);
    expect_reply(&c, ":3\r\n");
    free(v);
    free(w);
    rconn_close(&c);
}

/* [SET big, GET small, APPEND big2, GET big, PING] in one write. */
static void pipeline(int port)
{
    struct rconn c;
    rconn_open_tcp(&c, port);
    rconn_send(&c, "SET", "small", "v", NULL);
    expect_reply(&c, "+OK\r\n");
    size_t len1 = 3 * 1024 * 1024 + 3, len2 = 100000;
    char *v1 = pattern(len1, 4), *v2 = pattern(len2, 5);
    struct buf p;
    buf_init(&p, 0);
    char head[128];
    int n = snprintf(head, sizeof head, "*3\r\n$3\r\nSET\r\n$2\r\nbg\r\n$%zu\r\n", len1);
    buf_append(&p, head, (size_t)n);
    buf_append(&p, v1, len1);
    const char *mid = "\r\n*2\r\n$3\r\nGET\r\n$5\r\nsmall\r\n";
    buf_append(&p, mid, strlen(mid));
    n = snprintf(head, sizeof head, "*3\r\n$6\r\nAPPEND\r\n$2\r\nbg\r\n$%zu\r\n", len2);
    buf_append(&p, head, (size_t)n);
    buf_append(&p, v2, len2);
    const char *tail = "\r\n*2\r\n$3\r\nGET\r\n$2\r\nbg\r\n*1\r\n$4\r\nPING\r\n";
    buf_append(&p, tail, strlen(tail));
    rconn_send_raw(&c, buf_head(&p), buf_len(&p));
    expect_reply(&c, "+OK\r\n");
    expect_reply(&c, "$1\r\nv\r\n");
    char want[64];
    snprintf(want, sizeof want, ":%zu\r\n", len1 + len2);
    expect_reply(&c, want);
    char *both = malloc(len1 + len2);
    memcpy(both, v1, len1);
    memcpy(both + len1, v2, len2);
    expect_bulk(&c, both, len1 + len2);
    expect_reply(&c, "+PONG\r\n");
    rconn_send(&c, "DEL", "bg", "small", NULL);
    expect_reply(&c, ":2\r\n");
    free(both);
    free(v1);
    free(v2);
    buf_free(&p);
    rconn_close(&c);
}

/* Declares 512 MB, sends a few MB, vanishes: the partial argument is
 * freed (ASan would report it at exit) and nothing is stored. A bulk left
 * mid-way by a protocol error after it is freed too. */
static void abandoned(int port)
{
    struct rconn bystander;
    rconn_open_tcp(&bystander, port);
    for (int round = 0; round < 2; round++) {
        struct rconn c;
        rconn_open_tcp(&c, port);
        const char *head = "*3\r\n$3\r\nSET\r\n$4\r\ngone\r\n$536870912\r\n";
        rconn_send_raw(&c, head, strlen(head));
        size_t chunk_len = 1024 * 1024;
        char *chunk = pattern(chunk_len, 6);
        for (int i = 0; i < 4; i++) rconn_send_raw(&c, chunk, chunk_len);
        free(chunk);
        /* The server has read it when it answers the bystander's PING after
         * ours: our bytes are in its socket before the PING is sent. */
        rconn_send(&bystander, "PING", NULL);
        expect_reply(&bystander, "+PONG\r\n");
        rconn_close(&c);
    }
    /* Complete big argument, then a malformed next argument header. */
    struct rconn bad;
    rconn_open_tcp(&bad, port);
    size_t len = 200000;
    char *v = pattern(len, 7);
    char head[128];
    int n = snprintf(head, sizeof head, "*4\r\n$3\r\nSET\r\n$4\r\ngone\r\n$%zu\r\n", len);
    rconn_send_raw(&bad, head, (size_t)n);
    rconn_send_raw(&bad, v, len);
    rconn_send_raw(&bad, "\r\n+EX\r\n", 7);
    expect_reply(&bad, "-ERR Protocol error: expected '$', got '+'\r\n");
    free(v);
    CHECK(rconn_wait_closed(&bad, 5000));
    rconn_close(&bad);
    rconn_send(&bystander, "EXISTS", "gone", NULL);
    expect_reply(&bystander, ":0\r\n");
    rconn_close(&bystander);
}

int main(void)
{
    struct test_server s;
    const char *const extra[] = {"--mlockall", "no", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    set_get_range(s.port);
    options_after_big(s.port);
    pipeline(s.port);
    abandoned(s.port);
    test_server_stop(&s);
    return 0;
}
