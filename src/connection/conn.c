/* conn.c — transport-neutral connection handling; contract in conn.h. */
#include "connection/conn.h"

#include <limits.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/command_hooks.h"
#include "core/auth.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "store/db.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/stats.h"
#include "util/xmalloc.h"

/* Buffers shrink back to this after a burst. */
#define CONN_BUF_KEEP (16 * 1024)

static struct conn *live_head;
/* Where the reply buffer sizing's next housekeeping run goes on. */
static struct conn *resize_cursor;
static size_t live_count;
static size_t replica_link_count; /* live conns marked CONN_REPLICA */
static struct conn *closed_head;  /* torn down, awaiting conn_reap_closed() */
static struct conn *held_head;    /* output held until EV_PASS_WRITE (conn.h, "Held output") */

struct conn *conn_executing;

/* The command layer's entry (request.h), installed at startup. */
static conn_dispatch_fn *dispatch_entry;

void conn_set_dispatch(conn_dispatch_fn *dispatch)
{
    dispatch_entry = dispatch;
}

void conn_dispatch(const struct cmd_request *req)
{
    dispatch_entry(req);
}

/* Per-conn extension slots (session.h): their destructors. */
static void (*ext_destroy[SESSION_EXT_SLOTS])(void *state);
static int ext_count;

int session_ext_register(void (*destroy)(void *state))
{
    if (ext_count == SESSION_EXT_SLOTS) abort(); /* a startup wiring error: raise the bound */
    ext_destroy[ext_count] = destroy;
    return ext_count++;
}

static void conn_unhold(struct conn *c);

/* A fresh session needs AUTH unless no password is set or its transport is
 * trusted for its wire (transport.h: --no-auth-ring, --no-auth-libfabric
 * for both wires, --no-auth-sbe for SBE on sockets). Asked again when the
 * wire is chosen (conn_detect_wire) and by RESET. */
bool conn_starts_authenticated(const struct conn *c)
{
    const struct conn_transport *t = c->io.transport;
    return !auth_required() || (t->skips_auth && t->skips_auth(c->wire == &sbe_wire));
}

/* Whether c may speak SBE at all: a transport that carries it, with
 * --enable-sbe. Which peers may is decided at detection (conn_detect_wire). */
static bool conn_may_speak_sbe(const struct conn *c)
{
    return config.enable_sbe && (c->io.transport->flags & CONN_TRANSPORT_CARRIES_SBE);
}

/* Client ids: 1, 2, ... in order of creation, never reused (Redis). */
static uint64_t next_client_id = 1;

struct conn *conn_create(const struct conn_transport *transport, int fd, void *transport_data)
{
    struct conn *c = xcalloc(1, sizeof *c);
    c->id = next_client_id++;
    c->io.transport = transport;
    c->io.fd = fd;
    c->io.transport_data = transport_data;
    buf_init(&c->in, CONN_READ_CHUNK);
    buf_init(&c->out, CONN_BUF_KEEP);
    c->out_rest = CONN_BUF_KEEP;
    /* Without SBE on this conn, every first byte means RESP: no detection.
     * Otherwise the wire stays NULL until the first bytes choose it. */
    c->unit_open = SIZE_MAX;
    if (!conn_may_speak_sbe(c)) conn_set_wire(c, &resp_wire);
    reply_init(&c->reply, &c->out, PROTO_RESP2);
    c->authenticated = conn_starts_authenticated(c);
    conn_pubsub_init(c);
    c->created_ms = c->last_interaction_ms = clock_unix_ms();
    c->next = live_head;
    if (live_head) live_head->prev = c;
    live_head = c;
    live_count++;
    return c;
}

struct conn *conn_list_head(void)
{
    return live_head;
}

size_t conn_count(void)
{
    return live_count;
}

size_t conn_replica_link_count(void)
{
    return replica_link_count;
}

struct conn *conn_find_by_id(uint64_t id)
{
    for (struct conn *c = live_head; c; c = c->next)
        if (c->id == id) return c;
    return NULL;
}

bool conn_is_local(const struct conn *c)
{
    const struct conn_transport *t = c->io.transport;
    if (t->flags & CONN_TRANSPORT_LOCAL) return true;
    return t->is_local && t->is_local(c); /* fail closed: a transport that cannot say */
}

void conn_set_peer(struct conn *c, const char *addr, const char *laddr)
{
    snprintf(c->addr, sizeof c->addr, "%s", addr);
    snprintf(c->laddr, sizeof c->laddr, "%s", laddr);
}

bool conn_io_suspended(const struct conn *c)
{
    return (c->flags & CONN_PROTECTED) != 0;
}

uint64_t conn_id(const struct conn *c)
{
    return c->id;
}

const char *conn_addr(const struct conn *c)
{
    return c->addr;
}

const char *conn_laddr(const struct conn *c)
{
    return c->laddr;
}

bool conn_auth_required(const struct conn *c)
{
    return !c->authenticated && auth_required();
}

void conn_peer_source(const struct conn *c, char *out, size_t cap)
{
    if (c->io.transport->peer_source)
        c->io.transport->peer_source(c, out, cap);
    else
        snprintf(out, cap, "%s", c->io.transport->name);
}

void conn_close(struct conn *c, const char *reason)
{
    if (c->flags & CONN_CLOSED) return;
    c->flags |= CONN_CLOSED;
    if (reason)
        log_verbose("closing client id=%llu addr=%s: %s", (unsigned long long)c->id, c->addr,
                    reason);
    /* The registry must never deliver to a torn-down conn. */
    conn_pubsub_release(c);
    conn_blocked_forget(c);
    conn_pause_forget(c);
    conn_tracking_forget(c);
    if (c->mem_accounted) conn_evict_forget(c);
    for (int i = 0; i < ext_count; i++) /* a transaction's watches leave the registry now */
        if (c->ext[i]) {
            void *state = c->ext[i];
            c->ext[i] = NULL;
            ext_destroy[i](state);
        }
    if (c->flags & CONN_HELD) conn_unhold(c);
    c->io.transport->close(c);
    if (c == resize_cursor) resize_cursor = c->next;
    if (c->prev)
        c->prev->next = c->next;
    else
        live_head = c->next;
    if (c->next) c->next->prev = c->prev;
    live_count--;
    if (c->flags & CONN_REPLICA) replica_link_count--;
    c->prev = NULL;
    c->next = closed_head;
    closed_head = c;
    ev_pass_request(EV_PASS_REAP);
}

void conn_reap_closed(void)
{
    while (closed_head) {
        struct conn *c = closed_head;
        closed_head = c->next;
        if (c->io.transport->release) c->io.transport->release(c);
        buf_free(&c->in);
        strbuf_free(c->big_arg);
        buf_free(&c->out);
        conn_pubsub_free(c);
        if (c->wire) c->wire->free(&c->wire_state);
        xfree(c->name);
        xfree(c->user);
        xfree(c->lib_name);
        xfree(c->lib_ver);
        xfree(c);
    }
}

/* Held output (conn.h): c's replies wait for the end of the pass. */
static void conn_hold(struct conn *c)
{
    if (!(c->flags & CONN_HELD)) {
        c->flags |= CONN_HELD;
        c->held_next = held_head;
        held_head = c;
    }
    ev_pass_request(EV_PASS_WRITE);
}

static void conn_unhold(struct conn *c)
{
    for (struct conn **p = &held_head; *p; p = &(*p)->held_next)
        if (*p == c) {
            *p = c->held_next;
            break;
        }
    c->flags &= ~CONN_HELD;
    c->held_next = NULL;
}

void conn_write_held(void)
{
    struct conn *c = held_head;
    held_head = NULL;
    while (c) {
        struct conn *next = c->held_next;
        c->flags &= ~CONN_HELD;
        c->held_next = NULL;
        /* A conn whose command serves others meanwhile writes nothing
         * until it ends (a nested pass): it waits for the next pass. */
        if (c->flags & CONN_PROTECTED)
            conn_hold(c);
        else
            conn_flush(c);
        c = next;
    }
}

static bool conn_output_pending(const struct conn *c)
{
    return buf_len(&c->out) > 0 || buf_len(&c->push_fifo) > 0;
}

/* Writability is what resumes a backpressured conn (conn_on_writable), so
 * it keeps asking for it even when its output was drained elsewhere (a
 * PUBLISH writing its pushes): otherwise it would wait for nothing. */
static bool conn_wants_writable(const struct conn *c)
{
    return conn_output_pending(c) || (c->flags & CONN_OUTPUT_BACKPRESSURED);
}

/* A backpressured conn keeps reading (see "Flow control" in conn.h)
 * unless its transport holds the input. */
static bool conn_reads_now(const struct conn *c)
{
    return !(c->flags & CONN_OUTPUT_BACKPRESSURED) ||
           !c->io.transport->holds_input_under_backpressure;
}

/* Tells the transport what to report next: writability while output is
 * pending (or the conn is backpressured), readability while it reads. */
void conn_update_interest(struct conn *c)
{
    bool want_write = conn_wants_writable(c);
    c->io.transport->set_interest(c, conn_reads_now(c), want_write);
    if (want_write)
        c->flags |= CONN_WANT_WRITE;
    else
        c->flags &= ~CONN_WANT_WRITE;
}

/* Framed conns: hands the complete units at the head of b to the transport,
 * one frame each, while it has room (conn_write_buf's contract). The unit
 * a command is still writing is never sent. */
static bool conn_send_units(struct conn *c, struct buf *b, bool close_on_error)
{
    size_t open_at = b == &c->out ? c->unit_open : SIZE_MAX;
    while (buf_len(b) >= sizeof(struct out_unit) && open_at != 0) {
        struct out_unit u;
        memcpy(&u, buf_head(b), sizeof u);
        size_t span = sizeof u + u.len;
        int sent = c->io.transport->send_unit(c, &u, buf_head(b) + sizeof u);
        if (sent == 0) break;
        if (sent < 0) {
            if (!close_on_error) break;
            conn_close(c, strerror(errno));
            return false;
        }
        stats.net_output_bytes += (long long)u.len;
        buf_consume(b, span);
        if (open_at != SIZE_MAX) open_at -= span;
    }
    if (b == &c->out) c->unit_open = open_at;
    return true;
}

void conn_unit_open(struct conn *c, enum out_unit_kind kind, uint64_t correlation)
{
    struct out_unit u = {.len = 0, .kind = kind, .correlation = correlation};
    c->unit_open = buf_len(&c->out);
    buf_append(&c->out, &u, sizeof u);
}

void conn_unit_close(struct conn *c)
{
    if (c->unit_open == SIZE_MAX) return;
    char *header = buf_head(&c->out) + c->unit_open;
    size_t len = buf_len(&c->out) - c->unit_open - sizeof(struct out_unit);
    if (len == 0) {
        c->out.end -= sizeof(struct out_unit); /* nothing was written: no unit */
    } else {
        uint32_t len32 = (uint32_t)len;
        memcpy(header + offsetof(struct out_unit, len), &len32, sizeof len32);
    }
    c->unit_open = SIZE_MAX;
}

void conn_set_wire(struct conn *c, const struct wire *wire)
{
    if (c->wire) c->wire->free(&c->wire_state);
    c->wire = wire;
    wire->init(&c->wire_state);
    c->framed = wire->framed && c->io.transport->send_unit != NULL;
    if (c->io.transport->set_framed) c->io.transport->set_framed(c, c->framed);
}

enum write_result { WRITE_CLOSED, WRITE_DONE, WRITE_HELD };

/* Writes as much of b (`kind`: replies or pushes) as the transport takes
 * now. On a write error, closes c (WRITE_CLOSED) when close_on_error, else
 * just stops (the next conn_flush() meets the error again and closes).
 * While writes that replies acknowledge are pending (the AOF), writes
 * nothing and holds c for the end of the pass (WRITE_HELD, conn.h "Held
 * output"). Inlined: it runs for every reply, and its call frame cost
 * more than its body (bench/instructions_per_request.sh). */
static inline __attribute__((always_inline)) enum write_result
conn_write_buf(struct conn *c, struct buf *b, enum out_unit_kind kind, bool close_on_error)
{
    if (__builtin_expect(ev_pass_pending & EV_PASS_FLUSH, 0)) {
        conn_hold(c);
        return WRITE_HELD;
    }
    stats.writes_processed++;
    if (c->framed) return conn_send_units(c, b, close_on_error) ? WRITE_DONE : WRITE_CLOSED;
    while (buf_len(b) > 0) {
        ssize_t n = c->io.transport->write(c, buf_head(b), buf_len(b), kind);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || !close_on_error) break;
            conn_close(c, strerror(errno));
            return WRITE_CLOSED;
        }
        if (n == 0) break; /* a transport with no room now */
        stats.net_output_bytes += n;
        buf_consume(b, (size_t)n);
    }
    return WRITE_DONE;
}

bool conn_flush(struct conn *c)
{
    /* Nothing to write and no state to leave: done. */
    if (!conn_output_pending(c) && c->out.cap <= c->out_rest &&
        (c->push_fifo_fixed || c->push_fifo.cap <= CONN_BUF_KEEP) &&
        !(c->flags & (CONN_CLOSE_AFTER_REPLY | CONN_WANT_WRITE | CONN_OUTPUT_BACKPRESSURED)))
        return true;
    /* `out` is older than `push_fifo` (see conn.h): never start the FIFO
     * while replies are still unsent. Held (the AOF's writes are pending):
     * nothing more now, not even an interest change. */
    if (buf_len(&c->out) > c->out_peak) c->out_peak = (uint32_t)buf_len(&c->out);
    enum write_result w = conn_write_buf(c, &c->out, OUT_REPLY, true);
    if (__builtin_expect(w != WRITE_DONE, 0)) return w == WRITE_HELD;
    if (buf_len(&c->out) == 0) {
        if (c->out.cap > c->out_rest) buf_reset(&c->out, c->out_rest);
        /* (An empty FIFO is most replies: not even a call.) */
        if (buf_len(&c->push_fifo) > 0 &&
            (w = conn_write_buf(c, &c->push_fifo, OUT_PUSH, true)) != WRITE_DONE)
            return w == WRITE_HELD;
        /* A growable FIFO follows the backlog: a burst's memory goes back. */
        if (buf_len(&c->push_fifo) == 0 && !c->push_fifo_fixed && c->push_fifo.cap > CONN_BUF_KEEP)
            buf_reset(&c->push_fifo, CONN_BUF_KEEP);
    }
    if (!conn_output_pending(c) && (c->flags & CONN_CLOSE_AFTER_REPLY)) {
        conn_close(c, NULL);
        return false;
    }
    bool want_write = conn_wants_writable(c);
    /* Interest changes cost a syscall; make them only on transitions. */
    if (want_write != ((c->flags & CONN_WANT_WRITE) != 0)) conn_update_interest(c);
    return true;
}

void conn_write_pending_quietly(struct conn *c)
{
    if (c->flags & CONN_CLOSED) return;
    if (conn_write_buf(c, &c->out, OUT_REPLY, false) == WRITE_DONE && buf_len(&c->out) == 0)
        conn_write_buf(c, &c->push_fifo, OUT_PUSH, false);
}

/* Input bytes c holds: the input buffer, a big argument being received and
 * the complete ones of the current command (what the query-buffer limit
 * bounds). */
size_t conn_query_bytes(const struct conn *c)
{
    size_t n = buf_len(&c->in) + c->adopted_bytes;
    return c->big_arg ? n + c->big_arg->len : n;
}

/* Room for `extra` more bytes after `have`, growing a peer-driven buffer
 * as conn_make_read_room() does: by as much as has arrived (at least a
 * chunk, at most what the argument still needs) and never past the
 * query-buffer limit. Returns the capacity to allocate. */
static size_t conn_big_arg_cap(const struct conn *c, size_t have, size_t still_needed)
{
    size_t add = have > CONN_READ_CHUNK ? have : CONN_READ_CHUNK;
    if (add > still_needed) add = still_needed;
    size_t held = conn_query_bytes(c);
    size_t limit = (size_t)config.client_query_buffer_limit + 1; /* one byte past closes */
    if (held + add > limit) add = limit > held ? limit - held : 1;
    return have + add;
}

/* After an incomplete parse: when the parser waits for a big bulk, moves
 * what arrived of it out of `in` into its own buffer (see conn.h). */
static void conn_begin_big_arg(struct conn *c)
{
    size_t at;
    if (!c->wire->big_argument) return;
    long long blen = c->wire->big_argument(&c->wire_state, buf_len(&c->in), &at);
    if (blen < 0) return;
    size_t have = buf_len(&c->in) - at, need = (size_t)blen + 2;
    c->big_arg = strbuf_new(buf_head(&c->in) + at, have, conn_big_arg_cap(c, have, need - have));
    c->big_arg_need = need;
    c->in.end = c->in.start + at;
}

/* Hands a complete big argument to the parser; false while incomplete. */
static bool conn_end_big_arg(struct conn *c)
{
    struct strbuf *sb = c->big_arg;
    if (sb->len < c->big_arg_need) return false;
    c->big_arg = NULL;
    sb->len -= 2; /* the CRLF stays behind the value, unused */
    c->adopted_bytes += sb->len;
    c->wire->adopt_argument(&c->wire_state, sb);
    return true;
}

/* Chooses c's wire from its first bytes (protocol/wire.h: wire_detect);
 * false while they are still a prefix of the handshake. SBE from a peer
 * that is not local (Unix socket, ring, loopback TCP) needs
 * --sbe-allow-remote, unless its transport is a trusted fabric
 * (CONN_TRANSPORT_SBE_ANY_PEER: libfabric, docs/sbe.md): such a peer gets an
 * error and is closed. */
static bool conn_detect_wire(struct conn *c)
{
    size_t handshake;
    const struct wire *w = wire_detect(buf_head(&c->in), buf_len(&c->in), true, &handshake);
    if (!w) return false;
    if (w == &sbe_wire && !config.sbe_allow_remote &&
        !(c->io.transport->flags & CONN_TRANSPORT_SBE_ANY_PEER) && !conn_is_local(c)) {
        conn_set_wire(c, &resp_wire);
        buf_consume(&c->in, buf_len(&c->in));
        reply_error(&c->reply, "ERR SBE from a non-local peer needs --sbe-allow-remote");
        c->flags |= CONN_CLOSE_AFTER_REPLY;
        log_verbose("refused SBE from client id=%llu addr=%s (not local)",
                    (unsigned long long)c->id, c->addr);
        return false;
    }
    conn_set_wire(c, w);
    buf_consume(&c->in, handshake);
    reply_set_encoder(&c->reply, wire_encoder(w, PROTO_RESP2));
    /* SBE authenticates with its Auth template as RESP does with AUTH,
     * unless its transport is trusted for SBE (docs/sbe.md). */
    c->authenticated = conn_starts_authenticated(c);
    return true;
}

/* Answers a request the wire refused or could not parse: one reply (a
 * frame of its own on a framed wire) carrying `error`. */
static void conn_reply_wire_error(struct conn *c, const struct request *req)
{
    if (c->framed) conn_unit_open(c, OUT_REPLY, ++c->requests);
    reply_frame_begin(&c->reply, req->correlation);
    reply_error_fmt(&c->reply, "%s", req->error);
    reply_frame_end(&c->reply);
    if (c->framed) conn_unit_close(c);
}

/* CLIENT REPLY OFF/SKIP: drops what the command just answered (an empty
 * framed unit is dropped when closed) and moves SKIP along, as Redis's
 * resetClient() does. */
/* A replica's link answering its master with an error: the data sets
 * diverge, logged as Redis's afterErrorReply does (propagation-error-
 * behavior's panic is not implemented: the replica goes on). */
static void log_error_to_master(const struct conn *c, size_t out_before)
{
    const char *reply = buf_head(&c->out) + out_before + 1;
    size_t n = buf_len(&c->out) - out_before - 1;
    const char *eol = memchr(reply, '\r', n);
    if (eol) n = (size_t)(eol - reply);
    if (n > 4096) n = 4096;
    log_warning("== CRITICAL == This replica is sending an error to its master: '%.*s' after "
                "processing the command '%s'",
                (int)n, reply, c->last_command ? c->last_command : "<unknown>");
}

void conn_apply_reply_mode(struct conn *c, size_t out_before)
{
    if ((c->flags & (CONN_REPLY_OFF | CONN_REPLY_SKIP)) && !(c->flags & CONN_REPLY_PUSHED)) {
        if ((c->flags & CONN_MASTER) && buf_len(&c->out) > out_before &&
            buf_head(&c->out)[out_before] == '-')
            log_error_to_master(c, out_before);
        buf_truncate(&c->out, out_before);
    }
    c->flags &= ~(CONN_REPLY_SKIP | CONN_REPLY_PUSHED);
    if (c->flags & CONN_REPLY_SKIP_NEXT) {
        c->flags &= ~CONN_REPLY_SKIP_NEXT;
        c->flags |= CONN_REPLY_SKIP;
    }
}

/* After a reply: whether c is past its class's output limit or, not yet
 * authenticated, past CONN_UNAUTH_OUTPUT_LIMIT (a stranger that pipelines
 * without reading is closed before it can park output or, through
 * backpressure, a query buffer). Below both: a comparison and a branch. */
static inline bool conn_reply_overflows(struct conn *c, bool auth_required)
{
    return conn_output_limit_reached(c) ||
           (auth_required && conn_output_bytes(c) > CONN_UNAUTH_OUTPUT_LIMIT);
}

/* Runs the complete requests in c's input (see conn_process_input). */
static void conn_run_commands(struct conn *c)
{
    struct request_limits limits = {
        .proto_max_bulk_len = config.proto_max_bulk_len,
    };
    /* A big argument still arriving (conn_feed_input() delivered only part
     * of it): nothing new to parse, and parsing would begin it again. */
    if (c->big_arg) return;
    if (!c->wire && !conn_detect_wire(c)) return;
    while (buf_len(&c->in) > 0 && !(c->flags & (CONN_CLOSED | CONN_CLOSE_AFTER_REPLY |
                                                CONN_BLOCKED_ON_KEYS | CONN_PAUSED))) {
        if (!conn_may_execute(c)) {
            /* Try to hand the backlog to the peer before running more. */
            if (!conn_flush(c)) return;
            if (!conn_may_execute(c)) {
                conn_backpressure_enter(c);
                return;
            }
        }
        limits.auth_required = conn_auth_required(c);
        /* Text where the command's argv is kept or shown as text: queued by
         * MULTI, written to the append-only file, fed to MONITOR (a typed
         * call's argv has no text for its numbers). */
        limits.typed_as_text = (command_hooks & HOOKS_TEXT_ARGV) || (c->flags & CONN_TEXT_ARGV);
        struct request req;
        enum wire_status st =
            c->wire->parse(&c->wire_state, buf_head(&c->in), buf_len(&c->in), &limits, &req);
        if (st == WIRE_INCOMPLETE) {
            conn_begin_big_arg(c);
            break;
        }
        if (st == WIRE_REJECTED) {
            /* A well-framed request the wire refused: answer, go on —
             * within the same output bounds as a command's reply (an
             * unauthenticated SBE peer pipelining frames it may not send
             * is answered NOAUTH here, never by a command). */
            conn_reply_wire_error(c, &req);
            buf_consume(&c->in, req.consumed);
            if (conn_reply_overflows(c, limits.auth_required)) {
                conn_drop_over_output_limit(c);
                return;
            }
            continue;
        }
        if (st == WIRE_ERROR) {
            c->adopted_bytes = 0; /* the parser released them */
            char text[512];
            snprintf(text, sizeof text, "ERR %s", req.error);
            req.error = text;
            req.correlation = 0;
            conn_reply_wire_error(c, &req);
            c->flags |= CONN_CLOSE_AFTER_REPLY;
            stats.protocol_error_disconnections++;
            log_verbose("protocol error from client id=%llu addr=%s: %s", (unsigned long long)c->id,
                        c->addr, req.error);
            break;
        }
        if (st == WIRE_REQUEST) {
            struct cmd_request creq = {
                .conn = c,
                .reply = &c->reply,
                .db_index = c->db_index,
                .auth_required = limits.auth_required,
                .resp2_subscribed = conn_in_resp2_subscribed_mode(c),
                .ext = c->ext,
                .argc = req.argc,
                .argv = req.argv,
                .argv_len = req.argv_len,
                .owned = req.owned,
                .last_command = &c->last_command,
                .typed = req.typed,
            };
            conn_executing = c;
            if (c->framed) conn_unit_open(c, OUT_REPLY, ++c->requests);
            size_t out_before = buf_len(&c->out);
            reply_frame_begin(&c->reply, req.correlation);
            dispatch_entry(&creq);
            reply_frame_end(&c->reply);
            /* A postponed command is answered (and CLIENT REPLY applied) when it runs. */
            if ((c->flags & (CONN_REPLY_OFF | CONN_REPLY_SKIP | CONN_REPLY_SKIP_NEXT)) &&
                !(c->flags & CONN_PAUSED))
                conn_apply_reply_mode(c, out_before);
            c->flags &= ~CONN_REPLY_PUSHED;
            if (c->framed) conn_unit_close(c);
            conn_executing = NULL;
            if (req.owned && req.owned->count) c->wire->request_done(&c->wire_state);
            if (!(c->flags & CONN_CLOSED) && conn_reply_overflows(c, limits.auth_required)) {
                conn_drop_over_output_limit(c);
                return;
            }
            /* Clients blocked on keys this command filled are served
             * before this client's next command, as in Redis. */
            if (blocking_has_ready()) conn_blocked_serve_ready();
        }
        c->adopted_bytes = 0; /* the request's own buffers are released (or taken) */
        buf_consume(&c->in, req.consumed);
        if (__builtin_expect(c->io.transport->request_done != NULL, 0))
            c->io.transport->request_done(c);
    }
    if (c->flags & CONN_CLOSED) return;
    if (buf_len(&c->in) == 0 && c->in.cap > CONN_BUF_KEEP * 4) buf_reset(&c->in, CONN_READ_CHUNK);
}

void conn_process_input(struct conn *c)
{
    conn_run_commands(c);
    conn_tracking_broadcast(); /* BCAST invalidations of the batch (Redis: before sleeping) */
    /* Messages those commands published go out now, before c's own
     * replies: one write per subscriber per batch of pipelined PUBLISHes. */
    conn_write_pending_pushes();
    /* Clients those commands unblocked run what they have buffered. */
    conn_blocked_resume();
}

/* Room for the next read: a chunk; inside a large bulk argument, as much
 * again as has arrived (the buffer doubles with data actually received,
 * never with the length a peer merely declared: one `$536870912` header
 * reserves nothing), and never room past the query-buffer limit, so what a
 * client holds reserved is bounded by that limit too. */
static void conn_make_read_room(struct conn *c)
{
    size_t len = buf_len(&c->in);
    /* Nothing buffered, nothing pending: the common case skips the wire. */
    size_t want = len && c->wire ? c->wire->read_hint(&c->wire_state, len) : 0;
    if (want <= CONN_READ_CHUNK) {
        buf_reserve(&c->in, CONN_READ_CHUNK);
        return;
    }
    if (buf_room(&c->in) >= CONN_READ_CHUNK) return; /* fill what was reserved first */
    if (want > len) want = len;
    size_t limit = (size_t)config.client_query_buffer_limit + 1; /* one byte past closes */
    if (len + want > limit) want = limit > len ? limit - len : 1;
    if (want < CONN_READ_CHUNK) want = CONN_READ_CHUNK;
    buf_reserve_exact(&c->in, want);
}

static int read_and_run(struct conn *c);

int conn_on_readable(struct conn *c)
{
    if ((c->flags & (CONN_CLOSED | CONN_PROTECTED)) || !conn_reads_now(c)) return 0;
    int work = read_and_run(c);
    if (__builtin_expect(conn_evict_on, 0) && !(c->flags & CONN_CLOSED)) conn_evict_account(c);
    return work;
}

/* One read and what it completes: 0 when the transport had nothing (EAGAIN). */
static int read_and_run(struct conn *c)
{
    char *dst;
    size_t room;
    struct strbuf *big = c->big_arg;
    if (big) {
        /* Straight into the argument's buffer, never past its end. */
        size_t still = c->big_arg_need - big->len;
        if (big->cap - big->len < still && big->cap - big->len < CONN_READ_CHUNK)
            c->big_arg = big = strbuf_resize(big, conn_big_arg_cap(c, big->len, still));
        dst = big->data + big->len;
        room = big->cap - big->len < still ? big->cap - big->len : still;
    } else {
        conn_make_read_room(c); /* (an empty buffer is already at offset 0: buf_consume) */
        dst = buf_tail(&c->in);
        room = buf_room(&c->in);
    }
    ssize_t n = c->io.transport->read(c, dst, room);
    stats.reads_processed++;
    if (n == 0) {
        conn_close(c, "peer closed the connection");
        return 1;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        conn_close(c, strerror(errno));
        return 1;
    }
    if (big)
        big->len += (size_t)n;
    else
        c->in.end += (size_t)n;
    c->last_interaction_ms = clock_unix_ms_coarse(); /* idle timeouts are in seconds */
    stats.net_input_bytes += n;
    if ((long long)conn_query_bytes(c) > config.client_query_buffer_limit) {
        log_warning(
            "closing client id=%llu addr=%s that reached max query buffer length (%zu bytes)",
            (unsigned long long)c->id, c->addr, conn_query_bytes(c));
        stats.query_buffer_limit_disconnections++;
        conn_close(c, NULL);
        return 1;
    }
    if (big && !conn_end_big_arg(c)) return 1; /* nothing new to parse */
    /* Backpressured: the input waits for writability to release the conn. */
    if (c->flags & CONN_OUTPUT_BACKPRESSURED) return 1;
    conn_process_input(c);
    if (!(c->flags & CONN_CLOSED)) conn_flush(c);
    return 1;
}

int conn_on_writable(struct conn *c)
{
    if (c->flags & (CONN_CLOSED | CONN_PROTECTED)) return 0;
    size_t before = conn_output_bytes(c);
    if (!conn_flush(c)) return 1; /* closed */
    int work = conn_output_bytes(c) != before;
    if (conn_backpressure_release(c)) {
        /* Commands already buffered run now; the next read waits for epoll. */
        conn_process_input(c);
        if (!(c->flags & CONN_CLOSED)) conn_flush(c);
        work = 1;
    }
    if (__builtin_expect(conn_evict_on, 0) && !(c->flags & CONN_CLOSED)) conn_evict_account(c);
    return work;
}

void conn_feed_input(struct conn *c, const void *data, size_t len)
{
    stats.net_input_bytes += (long long)len;
    struct strbuf *big = c->big_arg;
    if (big) {
        size_t take = c->big_arg_need - big->len;
        if (take > len) take = len;
        if (big->cap - big->len < take) {
            /* Grow as reads do (doubling with what arrived): many small
             * messages must not cost a resize each. */
            size_t cap = conn_big_arg_cap(c, big->len, c->big_arg_need - big->len);
            c->big_arg = big = strbuf_resize(big, cap > big->len + take ? cap : big->len + take);
        }
        memcpy(big->data + big->len, data, take);
        big->len += take;
        conn_end_big_arg(c);
        data = (const char *)data + take;
        len -= take;
    }
    buf_append(&c->in, data, len);
}

void conn_mark_replication_link(struct conn *c, enum conn_flag role)
{
    if ((role & CONN_REPLICA) && !(c->flags & CONN_REPLICA)) replica_link_count++;
    c->flags |= role & (CONN_REPLICA | CONN_MASTER);
}

void conn_close_idle(void)
{
    if (config.timeout <= 0) return;
    int64_t now = clock_unix_ms();
    struct conn *c = live_head;
    while (c) {
        struct conn *next = c->next;
        /* Subscribers wait for messages, not commands: exempt, as in Redis. */
        bool subscriber = pubsub_total_subscription_count(&c->pubsub) > 0;
        /* Blocked on keys: its own timeout; paused: the pause's (Redis). */
        bool blocked = (c->flags & (CONN_BLOCKED_ON_KEYS | CONN_PAUSED)) != 0;
        /* Replication links have repl-timeout instead (Redis). */
        bool replication = (c->flags & (CONN_REPLICA | CONN_MASTER)) != 0;
        if (!subscriber && !blocked && !replication &&
            now - c->last_interaction_ms > config.timeout * 1000)
            conn_close(c, "idle timeout");
        c = next;
    }
}

/* --- reply buffer sizing (Redis 7.0's) --------------------------------- */

#define REPLY_BUFFER_MIN 1024u /* PROTO_REPLY_MIN_BYTES */

struct session_reply_buffer_settings session_reply_buffer = {
    .peak_reset_ms = SESSION_REPLY_PEAK_RESET_DEFAULT_MS, .resizing = true};

size_t conn_reply_buffer_size(const struct conn *c)
{
    return c->out.cap < c->out_rest ? c->out.cap : c->out_rest;
}

size_t conn_reply_buffer_peak(const struct conn *c)
{
    return c->out_peak < c->out_rest ? c->out_peak : c->out_rest;
}

static void resize_reply_buffer(struct conn *c, int64_t now)
{
    uint32_t rest = c->out_rest;
    uint32_t peak = (uint32_t)conn_reply_buffer_peak(c);
    uint32_t next = 0;
    if (rest / 2 >= REPLY_BUFFER_MIN && peak < rest / 2) {
        next = peak + 1 > REPLY_BUFFER_MIN ? peak + 1 : REPLY_BUFFER_MIN;
        stats.reply_buffer_shrinks++;
    } else if (rest < CONN_BUF_KEEP && peak == rest) {
        next = rest * 2 < CONN_BUF_KEEP ? rest * 2 : CONN_BUF_KEEP;
        stats.reply_buffer_expands++;
    }
    if (session_reply_buffer.peak_reset_ms >= 0 &&
        now - c->out_peak_reset_ms >= session_reply_buffer.peak_reset_ms) {
        c->out_peak = (uint32_t)buf_len(&c->out);
        c->out_peak_reset_ms = now;
    }
    if (!next) return;
    c->out_rest = next;
    /* Pending output keeps its buffer: the drain takes it to the new size. */
    if (buf_len(&c->out) == 0 && c->out.cap != next) {
        buf_reset(&c->out, next);
        if (c->out.cap < next) buf_reserve_exact(&c->out, next);
    }
}

void conn_resize_reply_buffers(void)
{
    if (!session_reply_buffer.resizing) return;
    /* As Redis's clientsCron: each run visits a hz-th of the conns, at
     * least 5, so each one about once a second (every run when few). */
    size_t visits = live_count / (size_t)(config.hz > 0 ? config.hz : 1);
    if (visits < 5) visits = 5;
    if (visits > live_count) visits = live_count;
    int64_t now = clock_unix_ms();
    for (size_t i = 0; i < visits; i++) {
        if (!resize_cursor) resize_cursor = live_head;
        struct conn *c = resize_cursor;
        resize_cursor = c->next;
        resize_reply_buffer(c, now);
    }
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param conn_params[] = {
    {.name = "timeout",
     .kind = CFG_INT,
     .value = &config.timeout,
     .max = INT_MAX,
     .value_name = "SECONDS",
     .help = "close clients idle this long (default 0 = never)"},
    {.name = "maxclients",
     .kind = CFG_INT,
     .value = &config.maxclients,
     .min = 1,
     .max = 4294967295LL,
     .value_name = "N",
     .help = "maximum simultaneous clients (default 10000)"},
    {.name = "proto-max-bulk-len",
     .kind = CFG_MEMORY,
     .value = &config.proto_max_bulk_len,
     .min = 1024 * 1024,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help = "largest bulk string a client may send (default 512mb)"},
    {.name = "client-query-buffer-limit",
     .kind = CFG_MEMORY,
     .value = &config.client_query_buffer_limit,
     .min = 1024 * 1024,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help = "close a client whose unparsed input exceeds this (default 1gb)"},
    {.name = "enable-sbe",
     .kind = CFG_FLAG,
     .value = &config.enable_sbe,
     .flags = CFG_IMMUTABLE,
     .value_name = "",
     .help = "accept the binary SBE wire (a connection opening with GOBLINS!) on rings, Unix "
             "sockets, loopback TCP and libfabric; with a password it authenticates (its Auth "
             "template) as RESP does (docs/sbe.md)"},
    {.name = "sbe-allow-remote",
     .kind = CFG_FLAG,
     .value = &config.sbe_allow_remote,
     .flags = CFG_IMMUTABLE,
     .value_name = "",
     .help =
         "with --enable-sbe, accept SBE from non-loopback TCP peers too (a trusted network only)"},
};

const struct config_table conn_config = CONFIG_TABLE(conn_params, NULL);
