/* conn_pubsub.c — the connection side of Pub/Sub: subscribing, push encoding,
 * the bounded unsolicited FIFO and slow consumers. Contract and wire-order
 * rules in conn.h; the registry is store/pubsub.h. */
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "connection/conn.h"
#include "core/command_hooks.h"
#include "core/config.h"
#include "util/stats.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Encodings of the message being fanned out, one per protocol, so N
 * subscribers cost one encoding and N copies (pubsub_message.id says when
 * the cached bytes are stale). Index: enum proto. */
#define PUSH_CACHE_PROTOS 5
_Static_assert(PROTO_SBE < PUSH_CACHE_PROTOS, "every protocol needs a push cache slot");
/* A cache buffer grown past this by a large message is shrunk back after
 * the publish (smaller ones are kept: no allocation per publish). */
#define PUSH_CACHE_KEEP (64 * 1024)

static struct {
    uint64_t id;
    bool valid[PUSH_CACHE_PROTOS];
    struct buf enc[PUSH_CACHE_PROTOS];
} push_cache;

/* Conns that took pushes during the current publish; written (or closed as
 * slow consumers) once the registry iteration is over. */
static struct conn *push_pending_head;

static size_t page_size(void)
{
    static size_t size;
    if (!size) {
        long p = sysconf(_SC_PAGESIZE);
        size = p > 0 ? (size_t)p : 4096;
    }
    return size;
}

/* A message as Redis sends it: ["message", channel, payload],
 * ["pmessage", pattern, channel, payload] or ["smessage", channel, payload],
 * a push in RESP3 (`>`) and an array in RESP2 — whatever the sink's
 * protocol says. */
static void push_encode(struct reply *r, const struct pubsub_message *m)
{
    if (m->kind == PUBSUB_PATTERN) {
        reply_push_len(r, 4);
        reply_bulk(r, "pmessage", 8);
        reply_bulk(r, m->pattern, m->pattern_len);
    } else {
        reply_push_len(r, 3);
        if (m->kind == PUBSUB_SHARD)
            reply_bulk(r, "smessage", 8);
        else
            reply_bulk(r, "message", 7);
    }
    reply_bulk(r, m->channel, m->channel_len);
    reply_bulk(r, m->payload, m->payload_len);
}

static const struct buf *push_encoded(const struct pubsub_message *m, enum proto proto)
{
    if (push_cache.id != m->id) {
        memset(push_cache.valid, 0, sizeof push_cache.valid);
        push_cache.id = m->id;
    }
    struct buf *b = &push_cache.enc[proto];
    if (!push_cache.valid[proto]) {
        b->start = b->end = 0;
        struct reply r;
        reply_init(&r, b, proto);
        reply_frame_begin(&r, 0); /* a push answers no request */
        push_encode(&r, m);
        reply_frame_end(&r);
        push_cache.valid[proto] = true;
    }
    return b;
}

static void push_mark_pending(struct conn *c)
{
    if (c->flags & CONN_PUSH_PENDING) return;
    c->flags |= CONN_PUSH_PENDING;
    c->push_pending_next = push_pending_head;
    push_pending_head = c;
}

/* The registry's delivery callback (runs inside pubsub_publish(): must not
 * change subscriptions, so it only copies bytes and marks conns). */
static bool push_append(struct conn *c, const char *p, size_t n);

static bool conn_deliver(struct pubsub_subscriber *s, const struct pubsub_message *m)
{
    struct conn *c = (struct conn *)((char *)s - offsetof(struct conn, pubsub));
    /* Closing conns take nothing more (Redis: no output after QUIT's +OK). */
    if (c->flags & (CONN_CLOSED | CONN_SLOW_CONSUMER | CONN_CLOSE_AFTER_REPLY)) return false;
    const struct buf *enc = push_encoded(m, reply_protocol(&c->reply));
    if (c == conn_executing) {
        /* Published by c's own command: before that command's reply. */
        conn_push_before_reply(c, buf_head(enc), buf_len(enc));
        return true;
    }
    return push_append(c, buf_head(enc), buf_len(enc));
}

void conn_push_before_reply(struct conn *c, const char *p, size_t n)
{
    /* In `out` (wire order, see conn.h); framed, a unit of its own between
     * the parts of the reply unit. */
    uint64_t correlation = reply_frame_end(&c->reply);
    if (c->framed) {
        conn_unit_close(c);
        conn_unit_open(c, OUT_PUSH, 0);
    }
    buf_append(&c->out, p, n);
    if (c->framed) {
        conn_unit_close(c);
        conn_unit_open(c, OUT_REPLY, c->requests);
    }
    reply_frame_begin(&c->reply, correlation);
}

/* Appends one encoded push (n bytes at p) to c's FIFO, or judges c a slow
 * consumer: the bound every unsolicited byte (Pub/Sub, MONITOR) obeys. */
static bool push_append(struct conn *c, const char *p, size_t n)
{
    struct out_unit unit = {.len = (uint32_t)n, .kind = OUT_PUSH, .correlation = 0};
    size_t framing = c->framed ? sizeof unit : 0;
    struct buf *fifo = &c->push_fifo;
    if (!c->push_fifo_fixed) {
        /* Growable: a backlog past the backpressure mark (pipelined
         * PUBLISHes in one batch) goes to the transport first, so a
         * subscriber that keeps up is not judged by one batch's output. */
        if (buf_len(fifo) >= CONN_OUTPUT_BACKPRESSURE) conn_write_pending_quietly(c);
        buf_reserve(fifo, n + framing);
        memcpy(buf_tail(fifo), &unit, framing);
        fifo->end += framing;
        memcpy(buf_tail(fifo), p, n);
        fifo->end += n;
        /* Redis counts a client past its limit as a receiver, then closes it. */
        if (conn_output_limit_reached(c)) c->flags |= CONN_SLOW_CONSUMER;
        push_mark_pending(c);
        return true;
    }
    /* Full of earlier messages (e.g. this publish matched c twice): hand
     * them to the transport now before judging c a slow consumer. */
    if (fifo->cap - buf_len(fifo) < n + framing && buf_len(fifo) > 0) conn_write_pending_quietly(c);
    if (fifo->cap - buf_len(fifo) < n + framing) {
        /* The whole message does not fit: never queue part of it, never
         * skip it and carry on. */
        c->flags |= CONN_SLOW_CONSUMER;
        push_mark_pending(c);
        return false;
    }
    if (buf_room(fifo) < n + framing) buf_compact(fifo); /* at most the FIFO's capacity moved */
    memcpy(buf_tail(fifo), &unit, framing);
    fifo->end += framing;
    memcpy(buf_tail(fifo), p, n);
    fifo->end += n;
    push_mark_pending(c);
    return true;
}

static void push_fifo_create(struct conn *c);

bool conn_push_append(struct conn *c, const char *p, size_t n)
{
    if (c->flags & (CONN_CLOSED | CONN_SLOW_CONSUMER | CONN_CLOSE_AFTER_REPLY)) return false;
    if (!c->push_fifo.data) push_fifo_create(c);
    return push_append(c, p, n);
}

void conn_pubsub_init(struct conn *c)
{
    pubsub_subscriber_init(&c->pubsub, conn_deliver);
    c->push_fifo = (struct buf){0};
    c->push_pending_next = NULL;
}

/* Fixed mode (--unsolicited-output-buffer-bytes N): allocates the FIFO at
 * its final size and touches every page, so no delivery ever allocates or
 * page-faults for it. Growable mode: one page to start, grown and shrunk
 * with the backlog (conn_flush). */
static void push_fifo_create(struct conn *c)
{
    size_t page = page_size();
    size_t want = (size_t)config.unsolicited_output_buffer_bytes;
    c->push_fifo_fixed = want > 0;
    if (!c->push_fifo_fixed) {
        buf_init(&c->push_fifo, page);
        return;
    }
    size_t cap = want < page ? page : (want + page - 1) / page * page;
    buf_init(&c->push_fifo, cap);
    memset(c->push_fifo.data, 0, cap);
}

bool conn_subscribe(struct conn *c, enum pubsub_kind kind, const char *name, size_t len)
{
    if (!c->push_fifo.data) push_fifo_create(c);
    return pubsub_subscribe(&c->pubsub, kind, name, len);
}

/* --- MONITOR ------------------------------------------------------------ */

/* The monitors, in the order they started; few, so an array. */
static struct conn **monitors;
static size_t monitors_cap;
size_t conn_monitor_count;

bool conn_monitor_start(struct conn *c)
{
    if (c->flags & CONN_MONITOR) return false;
    if (!c->push_fifo.data) push_fifo_create(c);
    if (conn_monitor_count == monitors_cap) {
        monitors_cap = monitors_cap ? monitors_cap * 2 : 4;
        monitors = xrealloc(monitors, sizeof *monitors * monitors_cap);
    }
    monitors[conn_monitor_count++] = c;
    command_hook_set(HOOK_MONITOR, true);
    c->flags |= CONN_MONITOR;
    return true;
}

static void monitor_stop(struct conn *c)
{
    if (!(c->flags & CONN_MONITOR)) return;
    c->flags &= ~CONN_MONITOR;
    for (size_t i = 0; i < conn_monitor_count; i++) {
        if (monitors[i] != c) continue;
        memmove(&monitors[i], &monitors[i + 1], sizeof *monitors * (conn_monitor_count - i - 1));
        conn_monitor_count--;
        command_hook_set(HOOK_MONITOR, conn_monitor_count != 0);
        break;
    }
}

void conn_monitor_feed(const char *line, size_t len)
{
    for (size_t i = 0; i < conn_monitor_count; i++) {
        struct conn *c = monitors[i];
        if (c->flags & (CONN_CLOSED | CONN_SLOW_CONSUMER | CONN_CLOSE_AFTER_REPLY)) continue;
        push_append(c, line, len);
    }
}

void conn_pubsub_release(struct conn *c)
{
    monitor_stop(c);
    for (int k = 0; k < PUBSUB_KINDS; k++)
        pubsub_unsubscribe_all(&c->pubsub, (enum pubsub_kind)k, NULL, NULL);
}

void conn_pubsub_free(struct conn *c)
{
    buf_free(&c->push_fifo);
}

/* A push did not fit c's FIFO: unsubscribe c and close it in this loop
 * pass, discarding its unsent output (Redis frees such a client the same
 * way). Waiting to flush would let a peer that never reads keep its
 * descriptor and maxclients slot for ever. */
static void conn_drop_slow_consumer(struct conn *c)
{
    static struct log_limiter limiter;
    if (!c->push_fifo_fixed) {
        conn_drop_over_output_limit(c);
        return;
    }
    stats.pubsub_slow_consumer_disconnections++;
    log_warning_limited(&limiter,
                        "closing client id=%llu addr=%s: a Pub/Sub message did not fit its "
                        "unsolicited output buffer (%zu bytes; --unsolicited-output-buffer-bytes)",
                        (unsigned long long)c->id, c->addr, c->push_fifo.cap);
    conn_close(c, NULL);
}

long long conn_publish(enum pubsub_kind kind, const char *channel, size_t channel_len,
                       const char *payload, size_t payload_len)
{
    return pubsub_publish(kind, channel, channel_len, payload, payload_len);
}

void conn_write_pending_pushes(void)
{
    if (!push_pending_head) return; /* the common case: one load */
    while (push_pending_head) {
        struct conn *c = push_pending_head;
        push_pending_head = c->push_pending_next;
        c->push_pending_next = NULL;
        c->flags &= ~CONN_PUSH_PENDING;
        if (c->flags & CONN_CLOSED) continue;
        if (c->flags & CONN_SLOW_CONSUMER)
            conn_drop_slow_consumer(c);
        else
            conn_flush(c);
    }
    for (int p = 0; p < PUSH_CACHE_PROTOS; p++)
        if (push_cache.enc[p].cap > PUSH_CACHE_KEEP) {
            buf_reset(&push_cache.enc[p], PUSH_CACHE_KEEP);
            push_cache.valid[p] = false;
        }
}
