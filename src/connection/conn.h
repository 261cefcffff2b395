/*
 * conn.h — one client connection, whatever carries its bytes: the
 * connection layer's own header (internals and the features' APIs). A
 * transport sees only connection/conn_transport.h; the command layer only
 * connection/session.h and connection/request.h.
 *
 * A conn owns its input accumulator, its output buffer, its protocol state
 * (RESP2/RESP3/SBE), its selected database, its authentication state and
 * its name. A transport (sockets, TLS, rings, libfabric) owns the byte
 * movement and calls conn_on_readable() / conn_on_writable(); the conn
 * calls back through struct conn_transport, and hands each request to the
 * command layer through the entry that layer installed (request.h).
 *
 * Run to completion: every complete command already in the input buffer is
 * parsed and executed in order, and the replies are written before the next
 * read from the transport. A reply is never held back for a later loop
 * pass, but for one reason: writes it acknowledges wait to be flushed at
 * the end of this pass (the AOF: "Held output" below).
 *
 * Flow control (conn_output.c). When pending replies pass
 * CONN_OUTPUT_BACKPRESSURE bytes the conn is *backpressured*
 * (CONN_OUTPUT_BACKPRESSURED): it stops executing commands until the peer
 * drains its output below half the mark, but keeps reading: what the peer
 * sends meanwhile waits, unparsed, in the query buffer, bounded by
 * client-query-buffer-limit. A client that writes a whole batch before
 * reading any reply (redis-py's pipeline().execute(), hiredis) therefore
 * always completes, and the memory it holds is its own unexecuted requests
 * plus at most the mark and one reply of output. Stopping the reads too
 * would deadlock it: both sides would wait on full socket buffers. (A
 * transport that bounds unread input itself and whose peer drains replies
 * while waiting, a ring, sets holds_input_under_backpressure: its conns
 * stop reading instead.)
 *
 * Output limits (client-output-buffer-limit, Redis's syntax and classes:
 * normal, replica, pubsub). After every command and every delivered push,
 * the conn's pending output (`out` plus `push_fifo`, CLIENT LIST omem) is
 * checked against its class's hard limit and its soft limit held for
 * soft-seconds, as Redis does; a conn past them is closed in the same loop
 * pass, its unsent output discarded, counted in INFO's
 * client_output_buffer_limit_disconnections and logged (rate-limited).
 *
 * Big arguments. When the parser waits for a bulk of at least RESP_BIG_ARG
 * bytes (protocol/resp_parser.h), the bytes of it already read move out of
 * `in` into `big_arg`, a strbuf (util/strbuf.h) laid out as a string value,
 * and reads go straight into it, up to the argument's end and never past:
 * the input buffer never holds the bulk, so it is neither copied out of it
 * nor freed with it. `big_arg` grows as `in` does for a bulk, with the data
 * actually arrived and within the query-buffer limit, which counts it. When
 * complete it goes to the parser as an external argument; a command may
 * take it (SET stores it as the value, no copy), otherwise it is freed when
 * the command is done.
 *
 * Lifetime: conn_close() may be called from anywhere, including a command
 * handler; the conn is torn down at once but its memory is released only at
 * the end of the event-loop pass (conn_reap_closed(), the loop's EV_PASS_REAP
 * stage), so no caller is left with a dangling pointer.
 *
 * Held output. While writes that replies acknowledge wait to be written
 * (the AOF's buffer: the event loop's EV_PASS_FLUSH stage is requested,
 * core/event_loop.h), nothing is written to any transport: a conn with
 * output to write joins the list of held conns (CONN_HELD) and is written
 * by conn_write_held(), the loop's EV_PASS_WRITE stage, right after the
 * flush — at the end of the same pass, as Redis writes replies in
 * beforeSleep after flushAppendOnlyFile. Without pending writes (the AOF
 * off, or a pass that wrote nothing) replies go out as soon as they exist;
 * the test is one load and a branch per flush.
 *
 * Pub/Sub (conn_pubsub.c). A conn is a subscriber of the registry
 * (store/pubsub.h). Messages published by *other* connections go to the
 * conn's unsolicited FIFO, `push_fifo`, in one of two modes:
 *  - by default (--unsolicited-output-buffer-bytes 0) a growable buffer
 *    that follows the backlog (shrunk back once drained): a subscriber that
 *    keeps up receives messages of any size, and is dropped only past the
 *    pubsub class of client-output-buffer-limit (32mb hard, 8mb for 60 s
 *    soft by default, as Redis);
 *  - with --unsolicited-output-buffer-bytes N, a buffer of fixed capacity
 *    (N rounded up to whole pages), allocated and prefaulted when the conn
 *    first subscribes and never grown: no delivery allocates or faults, at
 *    the price of dropping any subscriber whose next message does not fit
 *    (counted in pubsub_slow_consumer_disconnections).
 * A message is encoded once per protocol through the reply sink and copied
 * in whole or not at all: a conn whose message does not fit, or that
 * crosses its output limit, is a slow consumer — it takes no further
 * message and is closed as soon as the publish ends, in the same loop pass,
 * its unsent output discarded (a peer that never reads must not keep its
 * descriptor and maxclients slot; what it received is an in-order,
 * gap-free prefix of its messages).
 *
 * Framed output. A byte-stream wire (RESP) on any transport writes `out`
 * and `push_fifo` as plain bytes. A conn whose wire is framed on a
 * transport with send_unit() instead keeps both buffers as a sequence of
 * units, each a struct out_unit header followed by its payload: every
 * request's reply is one unit (kind OUT_REPLY, correlation = the request's
 * sequence), every Pub/Sub message one unit (OUT_PUSH, correlation 0) —
 * including a message a command publishes to its own conn, which closes the
 * reply unit, adds the push and reopens the reply. The flush hands units to
 * send_unit() one by one, whole, in order; stream conns pay nothing for
 * this (no header, no per-unit call).
 *
 * Wire order of replies and pushes. Redis writes both into one stream in the
 * order they were produced; so does a conn, with two buffers:
 *  - `out` is always drained before `push_fifo`;
 *  - a command is executed only while `push_fifo` is empty (otherwise the
 *    conn flushes, and if the FIFO still holds bytes, waits for
 *    writability as under backpressure), so every byte in `out` is older
 *    than every byte in `push_fifo`;
 *  - a message published by the conn's *own* command (a RESP3 client
 *    publishing to a channel it listens to) is produced while that command
 *    runs, so it is appended to `out` through the conn's reply sink, before
 *    the command's reply — Redis 7.0's byte order (push, then `:n`). Such
 *    pushes are bounded by the command itself and subject to backpressure.
 * Pushes are written when the publishing conn's current batch of commands
 * ends (conn_process_input()), before the publisher's own replies: at depth
 * one that is right after the PUBLISH; pipelined PUBLISHes cost one write
 * per subscriber per batch rather than per message (and a FIFO that fills
 * up mid-batch is written out at once to make room).
 */
#ifndef GOBLIN_CONN_H
#define GOBLIN_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "connection/conn_transport.h"
#include "connection/request.h"
#include "connection/session.h"
#include "protocol/reply.h"
#include "protocol/wire.h"
#include "core/config.h"
#include "store/blocking.h"
#include "store/pubsub.h"
#include "util/buf.h"
#include "util/strbuf.h"

struct conn;

/* Stop executing a conn's commands while this much output is unsent. */
#define CONN_OUTPUT_BACKPRESSURE (256 * 1024)
/* An unauthenticated conn (a password is set, AUTH not yet passed) may hold
 * at most this much unsent output; past it, it is closed as over its output
 * limit. Redis 7.0's bound (the CVE-2025-21605 fix: 1 KB beyond its 16 KB
 * reply buffer), so a stranger that pipelines without reading pins neither
 * output nor, since it is closed before backpressure, a query buffer. */
#define CONN_UNAUTH_OUTPUT_LIMIT (16 * 1024 + 1024)
/* Read at least this much per read call (Redis's PROTO_IOBUF_LEN). */
#define CONN_READ_CHUNK (16 * 1024)

enum conn_flag {
    CONN_CLOSE_AFTER_REPLY = 1u << 0,    /* QUIT, protocol error: flush then close */
    CONN_CLOSED = 1u << 1,               /* torn down; awaiting reap */
    CONN_WANT_WRITE = 1u << 2,           /* transport asked to report writability */
    CONN_OUTPUT_BACKPRESSURED = 1u << 3, /* not executing (still reading): see "Flow control" */
    CONN_PUSH_PENDING = 1u << 4,         /* on the list of conns with new pushes to write */
    CONN_SLOW_CONSUMER =
        1u << 5, /* a push did not fit or crossed a limit: closed after the publish */
    CONN_BLOCKED_ON_KEYS = 1u << 6, /* waiting in BLPOP & co: runs no command (conn_blocked.c) */
    /* CLIENT REPLY: replies are discarded (OFF), or only the next command's
     * (SKIP: SKIP_NEXT while CLIENT REPLY SKIP itself runs, then SKIP). */
    CONN_REPLY_OFF = 1u << 7,
    CONN_REPLY_SKIP_NEXT = 1u << 8,
    CONN_REPLY_SKIP = 1u << 9,
    CONN_REPLY_PUSHED = 1u << 13, /* the command answered with pushes: kept under OFF/SKIP */
    CONN_ASKING = 1u << 20,   /* cluster: ASKING sent; the next command may use an importing slot */
    CONN_READONLY = 1u << 19, /* cluster: READONLY; reads served on a replica */
    CONN_MONITOR = 1u << 10,  /* MONITOR: gets every command as a line in push_fifo */
    /* Its command runs long and serves other clients meanwhile (a busy
     * script: ev_process_nested): no read, write or parse for it until the
     * command ends, as Redis's protectClient. Its input waits in the
     * transport, its output (earlier replies) in `out`. */
    CONN_PROTECTED = 1u << 11,
    CONN_PAUSED =
        1u << 12, /* CLIENT PAUSE: a command waits for the pause to end (conn_blocked.c) */
    CONN_NO_EVICT = 1u << 14,  /* CLIENT NO-EVICT on: maxmemory-clients passes it over */
    CONN_HELD = 1u << 15,      /* on the list of conns whose output waits for EV_PASS_WRITE */
    CONN_TEXT_ARGV = 1u << 16, /* typed calls lowered to text (session_set_text_argv) */
    /* Replication links (repl/; conn_set_replication_role): a replica's
     * link (SYNC/PSYNC; its output is the replication stream, its class
     * the replica one, CLIENT LIST flags=S) and the link to this server's
     * own master (its commands the master's, CLIENT LIST flags=M). Neither
     * has the idle timeout: repl-timeout bounds them. */
    CONN_REPLICA = 1u << 17,
    CONN_MASTER = 1u << 18,
};

/* Blocked on keys (conn_blocked.c). A blocking command that finds nothing
 * to serve (BLPOP on empty keys) calls session_block_on_keys(): the conn
 * keeps a copy of the command, waits in the key registry
 * (store/blocking.h) and runs no further command — its later input is
 * still read, under the query-buffer limit. It leaves the state in exactly
 * one of four ways, each answering the command once:
 *  - a key it waits on becomes ready: the copied command runs again
 *    (through command_dispatch, as that client, in its database); when it
 *    finds nothing again it keeps its place in the queue;
 *  - its deadline passes (checked by housekeeping, as Redis does in its
 *    cron): a nil array;
 *  - CLIENT UNBLOCK: a nil array, or -UNBLOCKED;
 *  - the conn closes: no reply.
 * After leaving it, the conn's buffered commands run (conn_blocked_resume,
 * never nested inside another conn's command). The state is about keys
 * only: pausing for other reasons (output backpressure, MULTI) is separate.
 *
 * Paused (CLIENT PAUSE, CONN_PAUSED). A command that a pause holds
 * (session_postpone()) is parked the same way: the conn keeps a copy of it
 * in `command`, joins the FIFO of paused conns and runs nothing more; its
 * later input is still read. When the pause ends (CLIENT UNPAUSE, its
 * timeout at housekeeping, or a CLIENT PAUSE of a less restrictive kind),
 * the paused conns are resumed in the order they were paused: each runs
 * its copied command through command_dispatch (so a pause that still holds
 * it parks it again, keeping the order), then its buffered commands, before
 * the next conn — Redis 7.0's postponed clients. A conn closing while
 * paused leaves the FIFO with no reply. */
struct conn_blocked {
    struct block_waiter waiter;
    char *command; /* one allocation: argv pointers, lengths, bytes */
    int argc;
    int64_t deadline_ms;   /* 0 = never */
    uint64_t request;      /* the blocked request's sequence (framed replies) */
    bool retrying;         /* the command is being run again */
    bool reblocked;        /* ... and found nothing again */
    const char *ready_key; /* ... for this key (made ready), while retrying */
    size_t ready_len;
    struct conn *prev, *next; /* list of blocked conns */
    struct conn *resume_next; /* list of conns to resume */
    bool resume_pending;
    struct conn *paused_next; /* FIFO of paused conns (CONN_PAUSED) */
    /* Blocked on something else (session_block_custom): how it is answered. */
    const struct session_block_custom *custom;
    void *custom_arg;
};

struct conn {
    struct conn_io io; /* first: the transport's (conn_transport.h) */
    uint64_t id;

    struct buf in;
    struct strbuf *big_arg; /* a big bulk being received, see "Big arguments" */
    size_t big_arg_need;    /* its declared length plus the CRLF */
    struct buf out;
    /* Redis 7.0's reply buffer sizing (conn_resize_reply_buffers): the
     * capacity `out` goes back to once drained (CLIENT LIST rbs), between
     * 1 KB and 16 KB, and the most it held since the peak was last reset
     * (rbp); a bigger reply grows `out` for as long as it is pending. */
    uint32_t out_rest;
    uint32_t out_peak;
    int64_t out_peak_reset_ms;
    const struct wire *wire;      /* protocol/wire.h; RESP unless SBE is possible and chosen */
    bool framed;                  /* output kept as units: a framed wire on a framed transport */
    uint64_t requests;            /* requests parsed: the correlation of the next reply unit */
    size_t adopted_bytes;         /* big arguments handed to the wire for the current request */
    size_t unit_open;             /* framed: offset in `out` (from start) of the open unit */
    struct wire_state wire_state; /* the wire's parser */
    struct reply reply;           /* sink writing to `out` in the conn's protocol */

    int db_index;
    bool authenticated; /* only through session_mark_authenticated() / session_reset() */
    char *user;         /* who AUTH logged in as; NULL: "default" */
    uint32_t flags;
    char *name;     /* CLIENT SETNAME */
    char *lib_name; /* CLIENT SETINFO */
    char *lib_ver;
    const char *last_command;     /* full name, for CLIENT LIST cmd= */
    void *ext[SESSION_EXT_SLOTS]; /* the command layer's per-conn state (session_ext) */

    int64_t created_ms;
    int64_t last_interaction_ms;
    size_t mem_accounted; /* maxmemory-clients: what the total counts it at (conn_evict.c) */
    char addr[64];        /* peer "ip:port" or "path:0" */
    char laddr[64];       /* local address */

    struct pubsub_subscriber pubsub; /* channels, patterns, shard channels (store/pubsub.h) */
    struct buf push_fifo;            /* unsolicited output, see "Pub/Sub" above */
    bool push_fifo_fixed; /* prefaulted, never grown (--unsolicited-output-buffer-bytes) */
    struct conn *push_pending_next;     /* list of conns with unwritten new pushes */
    int64_t output_soft_limit_since_ms; /* when output first passed the soft limit; 0: below */

    struct conn_blocked blocked;    /* CONN_BLOCKED_ON_KEYS */
    struct conn_tracking *tracking; /* CLIENT TRACKING (conn_tracking.c); NULL when off */

    struct conn *prev, *next; /* server's list of live conns */
    struct conn *held_next;   /* list of held conns (CONN_HELD) */
};

/* The conn whose command is executing, NULL between commands: set by
 * conn_process_input() around each dispatch (a path that dispatches
 * otherwise must set it too — self-published pushes depend on it). */
extern struct conn *conn_executing;

/* Executes complete commands already buffered (also used by transports that
 * deliver whole messages). */
void conn_process_input(struct conn *c);

/* Internal to connection/: whether a fresh (or RESET) session starts
 * authenticated (no password, or a trusted transport), and the input bytes
 * c holds in every buffer (what client-query-buffer-limit bounds and
 * CLIENT LIST's qbuf shows). */
bool conn_starts_authenticated(const struct conn *c);
size_t conn_query_bytes(const struct conn *c);

/* Flow control and output limits (conn_output.c, internal to connection/):
 * the pending output that limits and CLIENT LIST's omem count; whether a
 * command may run now (no queued push, replies under the mark); entering
 * the backpressured state, and leaving it once drained to half the mark
 * (true when it did); whether c is past its class's output limit (starts
 * the soft-limit clock); closing c for that reason at once. */
void conn_backpressure_enter(struct conn *c);
bool conn_backpressure_release(struct conn *c);
bool conn_output_limit_check(struct conn *c);
void conn_drop_over_output_limit(struct conn *c);

/* These three run once per command: inline, and the output-limit check is
 * one comparison while the output is below every class's limits (the
 * class lookup and the clock are left to conn_output_limit_check). */
static inline size_t conn_output_bytes(const struct conn *c)
{
    return buf_len(&c->out) + buf_len(&c->push_fifo);
}

static inline bool conn_may_execute(const struct conn *c)
{
    return buf_len(&c->push_fifo) == 0 && buf_len(&c->out) < CONN_OUTPUT_BACKPRESSURE;
}

static inline bool conn_output_limit_reached(struct conn *c)
{
    if (conn_output_bytes(c) < config.output_limit_floor) {
        c->output_soft_limit_since_ms = 0; /* below any soft limit: its clock stops */
        return false;
    }
    return conn_output_limit_check(c);
}

/* Chooses c's wire (after detection); output becomes framed when both the
 * wire and the transport frame. Only before c's first request. */
void conn_set_wire(struct conn *c, const struct wire *wire);

/* Framed conns (internal to connection/): open a unit in `out`, and close
 * it (a unit left empty is dropped). */
void conn_unit_open(struct conn *c, enum out_unit_kind kind, uint64_t correlation);
void conn_unit_close(struct conn *c);

/* CLIENT REPLY OFF/SKIP after a command whose reply began at out_before in
 * `out` (internal to connection/). */
void conn_apply_reply_mode(struct conn *c, size_t out_before);

/* Appends raw bytes as if read from the peer (message transports). */
void conn_feed_input(struct conn *c, const void *data, size_t len);

/* Replication (repl/): c is a replica's link (CONN_REPLICA, after SYNC or
 * PSYNC) or this server's link to its master (CONN_MASTER). */
void conn_mark_replication_link(struct conn *c, enum conn_flag role);

/* Writes pending output now; returns false if the conn was closed. */
bool conn_flush(struct conn *c);

/* The installed dispatch entry (request.h): runs one request of c. */
void conn_dispatch(const struct cmd_request *req);

/* Frees conns closed since the last call (the loop's EV_PASS_REAP hook). */
void conn_reap_closed(void);

/* Writes the output held while EV_PASS_FLUSH was pending (the loop's
 * EV_PASS_WRITE hook; see "Held output"). */
void conn_write_held(void);

/* Server-wide list (conn_count() is in conn_transport.h). */
struct conn *conn_list_head(void);
struct conn *conn_find_by_id(uint64_t id);
/* Of conn_count(), the replicas' links (conn_mark_replication_link). */
size_t conn_replica_link_count(void);

/* Closes conns idle longer than the `timeout` setting (housekeeping). */
void conn_close_idle(void);

/* Redis 7.0's clientsCronResizeOutputBuffer, from housekeeping (each
 * conn about once a second, every run when there are few): a conn's reply
 * buffer shrinks to its peak (at least 1 KB) when the peak is under half
 * of it, doubles (up to 16 KB) when the peak filled it; the peak restarts
 * every session_reply_buffer.peak_reset_ms (connection/session.h). */
void conn_resize_reply_buffers(void);

/* CLIENT LIST's rbs and rbp of c. */
size_t conn_reply_buffer_size(const struct conn *c);
size_t conn_reply_buffer_peak(const struct conn *c);

/* The peer is on this host: a Unix socket or a TCP peer at 127.0.0.1 or
 * ::1 (Redis's islocalClient), else what the transport's is_local says (a
 * ring: always; libfabric: docs/libfabric.md "Locality"). A conn without
 * a file descriptor whose transport does not say is never local. */
bool conn_is_local(const struct conn *c);

/* Authentication is required on this conn before ordinary commands. */
bool conn_auth_required(const struct conn *c);

/* The peer's identity for AUTH failure budgets (see conn_transport.peer_source). */
void conn_peer_source(const struct conn *c, char *out, size_t cap);

/* Asks the transport for the readiness c needs now (internal to connection/). */
void conn_update_interest(struct conn *c);

/* Writes what the transport takes now of `out`, then of `push_fifo`, and
 * never closes c or changes its interest, even on a write error (the next
 * conn_flush() deals with that): safe while the registry is delivering. */
void conn_write_pending_quietly(struct conn *c);

/* --- blocked on keys (conn_blocked.c) ---------------------------------- */

/* Serves the waiters of keys made ready by the command just run (called
 * after every command, cheap when no key is ready). */
void conn_blocked_serve_ready(void);

/* Answers the blocked conns whose deadline has passed (housekeeping). */
void conn_blocked_expire(void);

/* Runs the buffered commands of conns that left the blocked state (called
 * when a batch of commands ends; never nested). */
void conn_blocked_resume(void);

/* Leaves the state without a reply (the conn is closing). */
void conn_blocked_forget(struct conn *c);

/* Conns blocked now (INFO blocked_clients). */
size_t conn_blocked_count(void);

/* maxmemory-clients (conn_evict.c; its parameter's hooks are in
 * session.h): whether it is on (one branch on the read and write paths),
 * recounting a conn (and evicting while the clients are over the limit),
 * forgetting a closed one, and the housekeeping recount of every conn. */
extern bool conn_evict_on;
void conn_evict_account(struct conn *c);
void conn_evict_forget(struct conn *c);
void conn_evict_housekeeping(void);

/* CLIENT PAUSE: ends a pause whose time has passed (housekeeping), and
 * leaves the FIFO of paused conns without a reply (the conn is closing). */
void conn_pause_expire(void);
void conn_pause_forget(struct conn *c);

/* --- Pub/Sub side (conn_pubsub.c) ------------------------------------- */

/* RESP2 subscribed mode: only the subscribe family, PING, QUIT and RESET run. */
static inline bool conn_in_resp2_subscribed_mode(const struct conn *c)
{
    return reply_protocol(&c->reply) == PROTO_RESP2 &&
           pubsub_total_subscription_count(&c->pubsub) > 0;
}

/* Subscribes c (allocating its FIFO on the first subscription); returns
 * false when c already had the subscription. */
bool conn_subscribe(struct conn *c, enum pubsub_kind kind, const char *name, size_t len);

/* MONITOR: c gets every fed line through its unsolicited FIFO, under the
 * pubsub class's output limits (a monitor that cannot keep up is closed
 * like a slow subscriber); false when c already monitors. RESET and close
 * end it (conn_pubsub_release). */
bool conn_monitor_start(struct conn *c);
/* Appends one encoded line to every monitor's FIFO. */
void conn_monitor_feed(const char *line, size_t len);

/* PUBLISH (kind PUBSUB_CHANNEL) / SPUBLISH (PUBSUB_SHARD): delivers to every
 * matching subscriber's FIFO (or, for the executing conn itself, its reply
 * buffer). Returns the number of deliveries. The pushes are written by
 * conn_write_pending_pushes(). */
long long conn_publish(enum pubsub_kind kind, const char *channel, size_t channel_len,
                       const char *payload, size_t payload_len);

/* Writes the pushes queued since the last call and closes slow consumers
 * (called when a conn's batch of commands ends; cheap when nothing is
 * pending). */
void conn_write_pending_pushes(void);

/* Appends one encoded push to c's unsolicited FIFO (created on first use),
 * under the same bounds as Pub/Sub; false when c became a slow consumer. */
bool conn_push_append(struct conn *c, const char *p, size_t n);

/* Appends one encoded push to the executing conn c's `out`, before the
 * reply of the command it runs (a message its own command published). */
void conn_push_before_reply(struct conn *c, const char *p, size_t n);

/* CLIENT TRACKING (conn_tracking.c): sends the BCAST invalidations of the
 * batch that ended; drops c's tracking (closing, RESET); c's CLIENT LIST
 * flags (t, R, B) appended at *f. */
void conn_tracking_broadcast(void);
/* Housekeeping: keeps the table within tracking-table-max-keys while idle
 * too (Redis's serverCron calls trackingLimitUsedSlots), so a shrunk limit
 * or a full table sends its invalidations without waiting for a command. */
void conn_tracking_limit_table(void);
void conn_tracking_forget(struct conn *c);
void session_tracking_flags(const struct conn *c, char **f);

/* Called by conn_create / conn_close / conn_reap_closed. */
void conn_pubsub_init(struct conn *c);
void conn_pubsub_release(struct conn *c); /* unsubscribe from everything, silently */
void conn_pubsub_free(struct conn *c);    /* the FIFO */

/* Settings (core/config.h): client limits and timeouts, the SBE wire. */
struct config_table;
extern const struct config_table conn_config;

/* Settings of conn_output.c: the Pub/Sub FIFO and client-output-buffer-limit. */
struct config_table;
extern const struct config_table conn_output_config;

/* The maxmemory-clients setting (core/config.h). */
struct config_table;
extern const struct config_table conn_evict_config;

/* The tracking-table-max-keys setting (core/config.h). */
struct config_table;
extern const struct config_table conn_tracking_config;

#endif
