/* Unit tests of the reply sink (protocol/reply.h): every row of the RESP2
 * and RESP3 encoder tables, byte for byte as redis-server 7.0 writes them
 * (deferred lengths, nesting, non-finite doubles), the statistics kept in
 * front of the tables, switching protocol on a live sink, and a command
 * level semantic call (ZRANGE WITHSCORES, ZPOPMIN) in each protocol. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "commands/sorted_set/cmd_zset.h"
#include "protocol/reply.h"
#include "util/buf.h"

/* Prints bytes with CR/LF visible, for failure messages. */
static const char *escaped(const char *p, size_t n)
{
    static char out[4096];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < sizeof out; i++) {
        if (p[i] == '\r')
            out[o++] = '\\', out[o++] = 'r';
        else if (p[i] == '\n')
            out[o++] = '\\', out[o++] = 'n';
        else
            out[o++] = p[i];
    }
    out[o] = '\0';
    return out;
}

/* The sink's output so far equals `want`; then the output is consumed. */
static void expect_at(int line, struct reply *r, const char *want)
{
    size_t n = buf_len(r->out), wn = strlen(want);
    if (n != wn || memcmp(buf_head(r->out), want, n) != 0) {
        fprintf(stderr, "test_reply.c:%d: RESP%d got \"%s\"", line, (int)reply_protocol(r),
                escaped(buf_head(r->out), n));
        fprintf(stderr, " expected \"%s\"\n", escaped(want, wn));
        exit(1);
    }
    buf_consume(r->out, n);
}
#define EXPECT(r, want) expect_at(__LINE__, r, want)

/* Each row once, in protocol p; want2/want3 pick the expected spelling. */
#define ROW(call, want2, want3)                                                                    \
    do {                                                                                           \
        call;                                                                                      \
        EXPECT(r, reply_protocol(r) == PROTO_RESP3 ? (want3) : (want2));                           \
    } while (0)

static void check_rows(struct reply *r)
{
    ROW(reply_ok(r), "+OK\r\n", "+OK\r\n");
    ROW(reply_status(r, "PONG"), "+PONG\r\n", "+PONG\r\n");
    ROW(reply_status_len(r, "QUEUEDxx", 6), "+QUEUED\r\n", "+QUEUED\r\n");
    ROW(reply_error(r, "ERR bad\r\nthing"), "-ERR bad  thing\r\n", "-ERR bad  thing\r\n");
    ROW(reply_error_fmt(r, "ERR %s %d", "x", 7), "-ERR x 7\r\n", "-ERR x 7\r\n");
    ROW(reply_error_wrongtype(r),
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    ROW(reply_error_arity(r, "get"), "-ERR wrong number of arguments for 'get' command\r\n",
        "-ERR wrong number of arguments for 'get' command\r\n");
    ROW(reply_int(r, 0), ":0\r\n", ":0\r\n");
    ROW(reply_int(r, -9223372036854775807LL - 1), ":-9223372036854775808\r\n",
        ":-9223372036854775808\r\n");
    ROW(reply_bulk(r, "a\r\n", 3), "$3\r\na\r\n\r\n", "$3\r\na\r\n\r\n");
    reply_bulk(r, "a\0b", 3); /* binary safe */
    CHECK(buf_len(r->out) == 9 && memcmp(buf_head(r->out), "$3\r\na\0b\r\n", 9) == 0);
    buf_consume(r->out, 9);
    ROW(reply_bulk(r, "", 0), "$0\r\n\r\n", "$0\r\n\r\n");
    ROW(reply_bulk_cstr(r, "hi"), "$2\r\nhi\r\n", "$2\r\nhi\r\n");
    ROW(reply_bulk_cstr(r, NULL), "$-1\r\n", "_\r\n");
    ROW(reply_bulk_ll(r, -42), "$3\r\n-42\r\n", "$3\r\n-42\r\n");
    ROW(reply_bulk_double_human(r, 10.5L), "$4\r\n10.5\r\n", "$4\r\n10.5\r\n");
    ROW(reply_double(r, 1.5), "$3\r\n1.5\r\n", ",1.5\r\n");
    ROW(reply_double(r, 3), "$1\r\n3\r\n", ",3\r\n");
    ROW(reply_double(r, -0.0), "$2\r\n-0\r\n", ",-0\r\n");
    ROW(reply_double(r, 0.1), "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n");
    ROW(reply_double(r, INFINITY), "$3\r\ninf\r\n", ",inf\r\n");
    ROW(reply_double(r, -INFINITY), "$4\r\n-inf\r\n", ",-inf\r\n");
    ROW(reply_double(r, NAN), "$3\r\nnan\r\n", ",nan\r\n");
    ROW(reply_bool(r, true), ":1\r\n", "#t\r\n");
    ROW(reply_bool(r, false), ":0\r\n", "#f\r\n");
    ROW(reply_nil(r), "$-1\r\n", "_\r\n");
    ROW(reply_nil_array(r), "*-1\r\n", "_\r\n");
    ROW(reply_array_len(r, 3), "*3\r\n", "*3\r\n");
    ROW(reply_array_len(r, 0), "*0\r\n", "*0\r\n");
    ROW(reply_map_len(r, 2), "*4\r\n", "%2\r\n");
    ROW(reply_set_len(r, 5), "*5\r\n", "~5\r\n");
    ROW(reply_push_len(r, 3), "*3\r\n", ">3\r\n");
    ROW(reply_pair_array_len(r, 2), "*4\r\n", "*2\r\n");
    ROW(reply_pair_begin(r), "", "*2\r\n");
    ROW(reply_verbatim(r, "a:1\r\n", 5, "txt"), "$5\r\na:1\r\n\r\n", "=9\r\ntxt:a:1\r\n\r\n");

    /* Nested aggregates: a map whose value is an array of a set. */
    reply_map_len(r, 1);
    reply_bulk(r, "k", 1);
    reply_array_len(r, 1);
    reply_set_len(r, 1);
    reply_int(r, 1);
    EXPECT(r, reply_protocol(r) == PROTO_RESP3 ? "%1\r\n$1\r\nk\r\n*1\r\n~1\r\n:1\r\n"
                                               : "*2\r\n$1\r\nk\r\n*1\r\n*1\r\n:1\r\n");

    /* Deferred lengths, nested inside each other, with consumed bytes
     * before the marks (marks count from the buffer's live start). */
    buf_append(r->out, "xyz", 3);
    buf_consume(r->out, 2);
    reply_mark outer = reply_defer(r);
    reply_bulk(r, "a", 1);
    reply_mark inner = reply_defer(r);
    reply_bulk(r, "f", 1);
    reply_bulk(r, "v", 1);
    reply_defer_map(r, inner, 1);
    reply_mark set = reply_defer(r);
    reply_defer_set(r, set, 0);
    reply_defer_array(r, outer, 3);
    EXPECT(r, reply_protocol(r) == PROTO_RESP3
                  ? "z*3\r\n$1\r\na\r\n%1\r\n$1\r\nf\r\n$1\r\nv\r\n~0\r\n"
                  : "z*3\r\n$1\r\na\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*0\r\n");
}

/* ZRANGE z 0 -1 WITHSCORES and ZPOPMIN z (no count) through the handlers'
 * own reply helpers: Redis 7.0 nests scored pairs in RESP3 only, and keeps
 * ZPOPMIN's single pair flat in both. */
static void check_zset_reply(struct reply *r)
{
    struct zset_reply zr = {r, true, false};
    zset_reply_begin(&zr, 2);
    zset_reply_member("a", 1, 1, &zr);
    zset_reply_member("b", 1, 2.5, &zr);
    EXPECT(r, reply_protocol(r) == PROTO_RESP3
                  ? "*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n"
                  : "*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$3\r\n2.5\r\n");

    struct zset_reply flat = {r, true, true};
    zset_reply_begin(&flat, 1);
    zset_reply_member("a", 1, -INFINITY, &flat);
    EXPECT(r, reply_protocol(r) == PROTO_RESP3 ? "*2\r\n$1\r\na\r\n,-inf\r\n"
                                               : "*2\r\n$1\r\na\r\n$4\r\n-inf\r\n");

    struct zset_reply plain = {r, false, false};
    zset_reply_begin(&plain, 1);
    zset_reply_member("a", 1, 1, &plain);
    EXPECT(r, "*1\r\n$1\r\na\r\n");
}

int main(void)
{
    struct buf out;
    buf_init(&out, 16); /* small: the rows must grow it themselves */
    struct reply sink;
    struct reply *r = &sink;

    reply_init(r, &out, PROTO_RESP2);
    CHECK(reply_protocol(r) == PROTO_RESP2 && r->enc == &reply_resp2);
    check_rows(r);
    check_zset_reply(r);

    /* HELLO 3 switches a live sink; RESET switches it back. */
    reply_set_encoder(r, &reply_resp3);
    CHECK(reply_protocol(r) == PROTO_RESP3 && r->enc == &reply_resp3);
    check_rows(r);
    check_zset_reply(r);
    reply_set_encoder(r, &reply_resp2);
    ROW(reply_nil(r), "$-1\r\n", "_\r\n");
    CHECK(reply_protocol(r) == PROTO_RESP2);

    /* Every error reply counts once, whichever the wire. */
    long long before = reply_error_count;
    reply_error(r, "ERR one");
    reply_set_encoder(r, &reply_resp3);
    reply_error_syntax(r);
    reply_error_fmt(r, "ERR %d", 3);
    CHECK_EQ_LL(reply_error_count - before, 3);
    EXPECT(r, "-ERR one\r\n-ERR syntax error\r\n-ERR 3\r\n");

    /* A long bulk grows the buffer in one step. */
    static char big[100000];
    memset(big, 'x', sizeof big);
    reply_bulk(r, big, sizeof big);
    CHECK(buf_len(&out) == sizeof big + 11);
    CHECK(memcmp(buf_head(&out), "$100000\r\nx", 10) == 0);
    CHECK(memcmp(buf_head(&out) + buf_len(&out) - 3, "x\r\n", 3) == 0);

    buf_free(&out);
    printf("reply: ok\n");
    return 0;
}
