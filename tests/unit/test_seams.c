/* Unit: the seams between the layers (docs/architecture.md, "Seams").
 * Real conns run real commands through the dispatcher the command layer
 * installed; only the transport below them is the test's (a byte stream
 * that records what it is handed and whether as reply or push).
 *
 * Checked:
 *  - the admission hook (the place of the coming ACL check) runs after
 *    lookup and arity, sees each key with its key-spec flags, refuses with
 *    its own text, aborts a transaction it refuses a command of, costs
 *    nothing once removed (its hook bit cleared);
 *  - a per-conn extension slot's destructor runs when the conn closes;
 *  - held output: while EV_PASS_FLUSH is pending no reply reaches the
 *    transport; at the end of the pass the flush hook runs first, then the
 *    reply is written;
 *  - the propagated stream goes to any registered consumer (the AOF is
 *    one, replicas will be another), its hook bit set exactly while one is;
 *  - write() says reply or push: a message published to a subscriber
 *    arrives as a push, the acknowledgements as replies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "commands/command.h"
#include "commands/command_meta.h"
#include "connection/conn.h"
#include "core/command_hooks.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/propagation.h"
#include "server/settings.h"
#include "store/db.h"
#include "util/buf.h"

/* --- a recording stream transport --------------------------------------- */

struct recorder {
    struct buf replies, pushes; /* bytes written, by kind */
    int writes;
};

static int sequence;      /* order of flushes and writes across the test */
static int last_write_at; /* sequence of the last write */

static ssize_t rec_read(struct conn *c, void *dst, size_t cap)
{
    errno = EAGAIN;
    return -1;
}

static ssize_t rec_write(struct conn *c, const void *src, size_t len, enum out_unit_kind kind)
{
    struct recorder *r = conn_io(c)->transport_data;
    buf_append(kind == OUT_PUSH ? &r->pushes : &r->replies, src, len);
    r->writes++;
    last_write_at = ++sequence;
    return (ssize_t)len;
}

static void rec_set_interest(struct conn *c, bool readable, bool writable) {}

static void rec_close(struct conn *c) {}

static const struct conn_transport recording = {
    .name = "test-stream",
    .read = rec_read,
    .write = rec_write,
    .set_interest = rec_set_interest,
    .close = rec_close,
};

static struct conn *stream_conn(struct recorder *r)
{
    memset(r, 0, sizeof *r);
    buf_init(&r->replies, 256);
    buf_init(&r->pushes, 256);
    struct conn *c = conn_create(&recording, -1, r);
    CHECK(c != NULL);
    return c;
}

static void recorder_free(struct recorder *r)
{
    buf_free(&r->replies);
    buf_free(&r->pushes);
}

static void run(struct conn *c, const char *bytes)
{
    conn_feed_input(c, bytes, strlen(bytes));
    conn_process_input(c);
    if (!(c->flags & CONN_CLOSED)) conn_flush(c);
}

/* The replies written since the last call, as text. */
static const char *take_replies(struct recorder *r)
{
    static char text[1024];
    size_t n = buf_len(&r->replies) < sizeof text - 1 ? buf_len(&r->replies) : sizeof text - 1;
    memcpy(text, buf_head(&r->replies), n);
    text[n] = '\0';
    buf_truncate(&r->replies, 0);
    return text;
}

/* --- admission ---------------------------------------------------------- */

static int admission_calls;
static uint32_t last_key_flags;

/* Refuses any key starting with "secret", as an ACL key pattern would. */
static bool refuse_secret_keys(const struct cmd_request *req, const struct command *cmd)
{
    admission_calls++;
    struct key_ref keys[8];
    int n = command_keys(cmd, req->argc, req->argv, req->argv_len, keys, 8);
    for (int i = 0; i < n; i++) {
        last_key_flags = keys[i].flags;
        if (req->argv_len[keys[i].pos] >= 6 && memcmp(req->argv[keys[i].pos], "secret", 6) == 0) {
            reply_error(req->reply, "NOPERM this user has no permissions to access one of the "
                                    "keys used as arguments");
            return false;
        }
    }
    return true;
}

static void test_admission(void)
{
    struct recorder r;
    struct conn *c = stream_conn(&r);
    command_set_admission(refuse_secret_keys);
    CHECK(command_hooks & HOOK_ADMISSION);

    run(c, "*3\r\n$3\r\nSET\r\n$4\r\nopen\r\n$1\r\n1\r\n");
    CHECK_STR(take_replies(&r), "+OK\r\n");
    CHECK_EQ_LL(admission_calls, 1);
    CHECK(last_key_flags & KEY_SPEC_OW); /* SET's key: overwritten */

    run(c, "*3\r\n$3\r\nSET\r\n$7\r\nsecret1\r\n$1\r\n1\r\n");
    CHECK_STR(take_replies(&r), "-NOPERM this user has no permissions to access one of the keys "
                                "used as arguments\r\n");
    run(c, "*2\r\n$3\r\nGET\r\n$7\r\nsecret1\r\n");
    CHECK(last_key_flags & KEY_SPEC_RO); /* GET's key: read only */
    CHECK(strncmp(take_replies(&r), "-NOPERM", 7) == 0);
    run(c, "*2\r\n$3\r\nGET\r\n$7\r\nsecret1\r\n");
    take_replies(&r);

    /* Lookup and arity come first: the hook never sees those requests. */
    int calls = admission_calls;
    run(c, "*1\r\n$6\r\nNOSUCH\r\n*2\r\n$3\r\nSET\r\n$4\r\nopen\r\n");
    const char *errors = take_replies(&r);
    CHECKF(strstr(errors, "-ERR unknown command 'NOSUCH'") && strstr(errors, "-ERR wrong number"),
           "got '%s'", errors);
    CHECK_EQ_LL(admission_calls, calls);

    /* Inside MULTI a refusal is a queue-time error: EXEC aborts. */
    run(c, "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$4\r\nopen\r\n$1\r\n2\r\n"
           "*3\r\n$3\r\nSET\r\n$7\r\nsecret2\r\n$1\r\n2\r\n*1\r\n$4\r\nEXEC\r\n");
    const char *tx = take_replies(&r);
    CHECKF(strncmp(tx, "+OK\r\n+QUEUED\r\n-NOPERM", 21) == 0 &&
               strstr(tx, "-EXECABORT Transaction discarded because of previous errors."),
           "got '%s'", tx);

    /* Removed: no call, no hook bit, the key is served. */
    command_set_admission(NULL);
    CHECK(!(command_hooks & HOOK_ADMISSION));
    calls = admission_calls;
    run(c, "*3\r\n$3\r\nSET\r\n$7\r\nsecret1\r\n$1\r\n3\r\n");
    CHECK_STR(take_replies(&r), "+OK\r\n");
    CHECK_EQ_LL(admission_calls, calls);
    conn_close(c, NULL);
    recorder_free(&r);
}

/* --- per-conn extension slots ------------------------------------------- */

static int destroyed;

static void count_destroy(void *state)
{
    CHECK(state == &destroyed);
    destroyed++;
}

static void test_extension_slot(void)
{
    int slot = session_ext_register(count_destroy);
    struct recorder r;
    struct conn *c = stream_conn(&r);
    CHECK(session_ext(c, slot) == NULL);
    session_set_ext(c, slot, &destroyed);
    CHECK(session_ext(c, slot) == &destroyed);
    conn_close(c, NULL);
    CHECK_EQ_LL(destroyed, 1);
    conn_close(c, NULL); /* idempotent: not twice */
    CHECK_EQ_LL(destroyed, 1);
    recorder_free(&r);
}

/* --- held output --------------------------------------------------------- */

static int flushed_at;

static void record_flush(void)
{
    flushed_at = ++sequence;
}

static void test_held_output(void)
{
    ev_on_pass_end(EV_PASS_FLUSH, record_flush);
    ev_on_pass_end(EV_PASS_WRITE, conn_write_held);
    ev_on_pass_end(EV_PASS_REAP, conn_reap_closed);
    struct recorder r;
    struct conn *c = stream_conn(&r);
    ev_pass_request(EV_PASS_FLUSH); /* as aof_append() does */
    run(c, "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n");
    CHECK_EQ_LL(r.writes, 0); /* held: the writes they acknowledge come first */
    CHECK(c->flags & CONN_HELD);
    ev_pass_end();
    CHECK(flushed_at > 0 && last_write_at > flushed_at);
    CHECK_STR(take_replies(&r), "+PONG\r\n$2\r\nhi\r\n");
    CHECK(!(c->flags & CONN_HELD));
    /* Nothing pending: a reply goes out at once. */
    int writes = r.writes;
    run(c, "*1\r\n$4\r\nPING\r\n");
    CHECK_EQ_LL(r.writes, writes + 1);
    CHECK_STR(take_replies(&r), "+PONG\r\n");
    /* A held conn that closes leaves the list (nothing written to it). */
    ev_pass_request(EV_PASS_FLUSH);
    run(c, "*1\r\n$4\r\nPING\r\n");
    CHECK(c->flags & CONN_HELD);
    conn_close(c, NULL);
    CHECK(!(c->flags & CONN_HELD));
    writes = r.writes;
    ev_pass_end(); /* also reaps c */
    CHECK_EQ_LL(r.writes, writes);
    recorder_free(&r);
}

/* --- the propagated stream ------------------------------------------------ */

static struct buf fed;
static int fed_db = -1;

static void record_feed(int db, const char *resp, size_t len)
{
    fed_db = db;
    buf_append(&fed, resp, len);
}

static void test_propagation_consumer(void)
{
    buf_init(&fed, 256);
    struct recorder r;
    struct conn *c = stream_conn(&r);
    CHECK(!(command_hooks & HOOK_PROPAGATE));
    propagation_add_consumer(record_feed, false);
    CHECK(command_hooks & HOOK_PROPAGATE);
    run(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
    CHECK_STR(take_replies(&r), "+OK\r\n$1\r\nv\r\n");
    buf_append_char(&fed, '\0');
    CHECK_STR(buf_head(&fed), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"); /* not the GET */
    CHECK_EQ_LL(fed_db, 0);
    buf_truncate(&fed, 0);
    /* A transaction's writes: one unit, wrapped. */
    run(c, "*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
           "*1\r\n$4\r\nEXEC\r\n");
    buf_append_char(&fed, '\0');
    CHECK_STR(buf_head(&fed), "*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
                              "*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n*1\r\n$4\r\nEXEC\r\n");
    buf_truncate(&fed, 0);
    /* PUBLISH is for replicas only: not fed to this consumer (the AOF's
     * kind) ... */
    take_replies(&r);
    run(c, "*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$1\r\nm\r\n");
    CHECK_STR(take_replies(&r), ":0\r\n");
    CHECK_EQ_LL(buf_len(&fed), 0);
    /* ... but to one feeding replicas, inside the transaction's unit too. */
    propagation_remove_consumer(record_feed);
    propagation_add_consumer(record_feed, true);
    run(c, "*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$1\r\nm\r\n");
    buf_append_char(&fed, '\0');
    CHECK_STR(buf_head(&fed), "*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$1\r\nm\r\n");
    buf_truncate(&fed, 0);
    run(c, "*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
           "*3\r\n$8\r\nSPUBLISH\r\n$2\r\nch\r\n$1\r\nm\r\n*1\r\n$4\r\nEXEC\r\n");
    buf_append_char(&fed, '\0');
    CHECK_STR(buf_head(&fed), "*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n"
                              "*3\r\n$8\r\nSPUBLISH\r\n$2\r\nch\r\n$1\r\nm\r\n"
                              "*1\r\n$4\r\nEXEC\r\n");
    buf_truncate(&fed, 0);
    take_replies(&r);
    propagation_remove_consumer(record_feed);
    CHECK(!(command_hooks & HOOK_PROPAGATE));
    run(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nw\r\n");
    CHECK_EQ_LL(buf_len(&fed), 0);
    take_replies(&r);
    conn_close(c, NULL);
    recorder_free(&r);
    buf_free(&fed);
}

/* --- reply or push --------------------------------------------------------- */

static void test_reply_or_push(void)
{
    struct recorder sub, pub;
    struct conn *s = stream_conn(&sub);
    struct conn *p = stream_conn(&pub);
    run(s, "*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nch\r\n");
    CHECK_STR(take_replies(&sub), "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
    run(p, "*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$3\r\nmsg\r\n");
    CHECK_STR(take_replies(&pub), ":1\r\n");
    buf_append_char(&sub.pushes, '\0');
    CHECK_STR(buf_head(&sub.pushes), "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$3\r\nmsg\r\n");
    CHECK_EQ_LL(buf_len(&sub.replies), 0);
    conn_close(s, NULL);
    conn_close(p, NULL);
    recorder_free(&sub);
    recorder_free(&pub);
}

int main(void)
{
    settings_init();
    command_table_init();
    keyspace_init((int)config.databases);
    test_admission();
    test_extension_slot();
    test_held_output();
    test_propagation_consumer();
    test_reply_or_push();
    conn_reap_closed();
    printf("seams: ok\n");
    return 0;
}
