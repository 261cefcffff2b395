/* Unit: framed output (connection/conn.h, "Framed output"). Real conns run
 * real commands through the dispatcher and the Pub/Sub registry; only the
 * transport below them is the test's: it records the units it is handed,
 * as a ring or fabric transport would send one frame each, and can refuse
 * for lack of room. The wire is RESP marked framed (SBE, the first framed
 * wire, plugs in the same way).
 *
 * Checked: one unit per reply with the request's sequence as correlation;
 * no unit sent while the transport has no room, then all in order; a
 * message published to another conn is one push unit (correlation 0) in
 * its FIFO; a message a RESP3 conn publishes to itself is a push unit
 * before its PUBLISH reply unit; a protocol error is one reply unit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "commands/command.h"
#include "connection/conn.h"
#include "core/config.h"
#include "server/settings.h"
#include "store/db.h"

#define MAX_UNITS 64

struct recorder {
    int count;
    struct out_unit units[MAX_UNITS];
    char *payloads[MAX_UNITS];
    int refuse; /* this many send_unit calls answer "no room" */
};

static int rec_send_unit(struct conn *c, const struct out_unit *u, const char *payload)
{
    struct recorder *r = conn_io(c)->transport_data;
    if (r->refuse > 0) {
        r->refuse--;
        return 0;
    }
    CHECK(r->count < MAX_UNITS);
    r->units[r->count] = *u;
    r->payloads[r->count] = strndup(payload, u->len);
    r->count++;
    return 1;
}

static ssize_t rec_read(struct conn *c, void *dst, size_t cap)
{
    errno = EAGAIN;
    return -1;
}

static ssize_t rec_write(struct conn *c, const void *src, size_t len, enum out_unit_kind kind)
{
    CHECKF(false, "a framed conn wrote %zu bytes as a stream", len);
    return -1;
}

static void rec_set_interest(struct conn *c, bool readable, bool writable) {}

static void rec_close(struct conn *c) {}

static const struct conn_transport recording = {
    .name = "test-frames",
    .read = rec_read,
    .write = rec_write,
    .set_interest = rec_set_interest,
    .close = rec_close,
    .send_unit = rec_send_unit,
};

static struct wire framed_resp;

static struct conn *framed_conn(struct recorder *r)
{
    memset(r, 0, sizeof *r);
    struct conn *c = conn_create(&recording, -1, r);
    conn_set_wire(c, &framed_resp);
    CHECK(c->framed);
    return c;
}

static void run(struct conn *c, const char *bytes)
{
    conn_feed_input(c, bytes, strlen(bytes));
    conn_process_input(c);
    if (!(c->flags & CONN_CLOSED)) conn_flush(c);
}

static void expect_unit(struct recorder *r, int i, enum out_unit_kind kind, uint64_t correlation,
                        const char *payload)
{
    CHECKF(i < r->count, "unit %d missing (%d sent)", i, r->count);
    CHECK_EQ_LL(r->units[i].kind, kind);
    CHECK_EQ_LL(r->units[i].correlation, correlation);
    CHECK_STR(r->payloads[i], payload);
}

static void recorder_free(struct recorder *r)
{
    for (int i = 0; i < r->count; i++) free(r->payloads[i]);
}

static void test_one_unit_per_reply(void)
{
    struct recorder r;
    struct conn *c = framed_conn(&r);
    run(c, "*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n"
           "*2\r\n$3\r\nGET\r\n$1\r\nk\r\nNOSUCH\r\n");
    CHECK_EQ_LL(r.count, 4);
    expect_unit(&r, 0, OUT_REPLY, 1, "+PONG\r\n");
    expect_unit(&r, 1, OUT_REPLY, 2, "+OK\r\n");
    expect_unit(&r, 2, OUT_REPLY, 3, "$5\r\nvalue\r\n");
    expect_unit(&r, 3, OUT_REPLY, 4,
                "-ERR unknown command 'NOSUCH', with args beginning with: \r\n");
    conn_close(c, NULL);
    recorder_free(&r);
}

static void test_no_room_then_in_order(void)
{
    struct recorder r;
    struct conn *c = framed_conn(&r);
    r.refuse = 1000000;
    run(c, "*2\r\n$4\r\nECHO\r\n$1\r\na\r\n*2\r\n$4\r\nECHO\r\n$1\r\nb\r\n");
    CHECK_EQ_LL(r.count, 0);
    r.refuse = 1; /* one more refusal, then room */
    conn_on_writable(c);
    CHECK_EQ_LL(r.count, 0);
    conn_on_writable(c);
    CHECK_EQ_LL(r.count, 2);
    expect_unit(&r, 0, OUT_REPLY, 1, "$1\r\na\r\n");
    expect_unit(&r, 1, OUT_REPLY, 2, "$1\r\nb\r\n");
    conn_close(c, NULL);
    recorder_free(&r);
}

static void test_pushes(void)
{
    struct recorder sr, pr;
    struct conn *sub = framed_conn(&sr);
    struct conn *pub = framed_conn(&pr);
    run(sub, "*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nch\r\n");
    CHECK_EQ_LL(sr.count, 1);
    expect_unit(&sr, 0, OUT_REPLY, 1, "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
    run(pub, "*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$2\r\nhi\r\n");
    expect_unit(&pr, 0, OUT_REPLY, 1, ":1\r\n");
    CHECK_EQ_LL(sr.count, 2);
    expect_unit(&sr, 1, OUT_PUSH, 0, "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n");

    /* RESP3, publishing to itself: the push, then PUBLISH's reply. */
    struct recorder r3;
    struct conn *self = framed_conn(&r3);
    run(self, "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nme\r\n"
              "*3\r\n$7\r\nPUBLISH\r\n$2\r\nme\r\n$1\r\nx\r\n");
    CHECK_EQ_LL(r3.count, 4);
    CHECK_EQ_LL(r3.units[0].correlation, 1); /* HELLO's map */
    expect_unit(&r3, 1, OUT_REPLY, 2, ">3\r\n$9\r\nsubscribe\r\n$2\r\nme\r\n:1\r\n");
    expect_unit(&r3, 2, OUT_PUSH, 0, ">3\r\n$7\r\nmessage\r\n$2\r\nme\r\n$1\r\nx\r\n");
    expect_unit(&r3, 3, OUT_REPLY, 3, ":1\r\n");
    conn_close(self, NULL);
    conn_close(sub, NULL);
    conn_close(pub, NULL);
    recorder_free(&sr);
    recorder_free(&pr);
    recorder_free(&r3);
}

static void test_protocol_error(void)
{
    struct recorder r;
    struct conn *c = framed_conn(&r);
    run(c, "*1\r\n$x\r\n");
    CHECK_EQ_LL(r.count, 1);
    expect_unit(&r, 0, OUT_REPLY, 1, "-ERR Protocol error: invalid bulk length\r\n");
    CHECK(c->flags & CONN_CLOSED);
    recorder_free(&r);
}

/* A message transport may deliver a big argument in several messages and
 * run conn_process_input() after each: the conn must keep receiving into
 * the argument's buffer, not start it over (that leaked the bytes already
 * received and misframed the rest). */
static void test_big_argument_over_messages(void)
{
    enum { VALUE = 40 * 1024 };
    static char value[VALUE];
    memset(value, 'v', sizeof value);
    struct recorder r;
    struct conn *c = framed_conn(&r);
    const char *head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$40960\r\n";
    conn_feed_input(c, head, strlen(head));
    conn_feed_input(c, value, 1000);
    conn_process_input(c);
    conn_feed_input(c, value + 1000, 10000);
    conn_process_input(c);
    conn_feed_input(c, value + 11000, VALUE - 11000);
    conn_process_input(c);
    CHECK_EQ_LL(r.count, 0);
    run(c, "\r\n*2\r\n$6\r\nSTRLEN\r\n$1\r\nk\r\n");
    CHECK_EQ_LL(r.count, 2);
    expect_unit(&r, 0, OUT_REPLY, 1, "+OK\r\n");
    expect_unit(&r, 1, OUT_REPLY, 2, ":40960\r\n");
    conn_close(c, NULL);
    recorder_free(&r);
}

int main(void)
{
    settings_init();
    command_table_init();
    keyspace_init((int)config.databases);
    framed_resp = resp_wire;
    framed_resp.framed = true;
    test_one_unit_per_reply();
    test_no_room_then_in_order();
    test_pushes();
    test_protocol_error();
    test_big_argument_over_messages();
    conn_reap_closed();
    printf("conn units: ok\n");
    return 0;
}
