/*
 * goblin/ring_layout.h — the shared-memory ring: file layout and the
 * single-producer/single-consumer queue operations both sides use.
 *
 * One ring file = one client. The server creates it (--ring PATH SIZE);
 * a client maps it, claims it, and talks RESP (or SBE) through two queues:
 * SQ (client -> server) and CQ (server -> client).
 *
 *   offset 0      struct goblin_ring_header   (4096 bytes, fields on separate cache lines)
 *   sq_offset     SQ: sq_bytes (power of two >= page size)
 *   cq_offset     CQ: cq_bytes
 *
 * A queue holds records starting on 64-byte boundaries:
 *
 *   [tag u64][len u32][kind u32][payload len bytes][pad to 64]
 *
 * The tag is (epoch << 32) | (record position / 64): the consumer spins on
 * the tag of the record it expects next — that record's own first cache
 * line, which for a small request also carries the payload — so one
 * request costs one cache-line transfer each way in the common case. A
 * record that would run past the end of the queue is preceded by a WRAP
 * filler covering the remainder, so every payload is contiguous.
 *
 * Memory ordering (C11 atomics; on x86-64 all of these are plain MOVs and
 * the orders only constrain the compiler):
 *  - The producer writes len, kind and payload with plain stores, then stores
 *    the tag with release. A consumer that load-acquires the expected tag
 *    therefore sees the whole record.
 *  - The consumer reads the record, then stores its new position into the
 *    queue's `head` with release. A producer that load-acquires `head` and
 *    sees position P knows every byte before P has been read, so it may
 *    overwrite it.
 *  - The producer re-reads `head` only when its cached copy says the queue
 *    is full, so in steady state the head line stays in the consumer's cache.
 *  - Stale records (an earlier epoch or an earlier lap) never match the tag
 *    the consumer expects, so queues need no clearing between sessions.
 *
 * Hazards (see docs/rings.md): the ring is as trusted as its file
 * permissions allow; a record's len is validated by the reader against the
 * queue size; the server polls rings by busy-waiting.
 */
#ifndef GOBLIN_RING_LAYOUT_H
#define GOBLIN_RING_LAYOUT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GOBLIN_RING_MAGIC 0x474e49524c424f47ULL /* "GOBLRING" little-endian */
#define GOBLIN_RING_VERSION 1u
#define GOBLIN_RING_HEADER_BYTES 4096u
#define GOBLIN_RING_ALIGN 64u
#define GOBLIN_RING_RECORD_HEADER 16u

enum goblin_ring_kind {
    GOBLIN_RING_DATA = 1,  /* payload bytes of the stream */
    GOBLIN_RING_WRAP = 2,  /* filler up to the end of the queue */
    GOBLIN_RING_CLOSE = 3, /* CQ only: the server closed this session (QUIT, error) */
};

/* Set in `epoch` by a client that detaches: the server ends the session
 * without starting a new one. */
#define GOBLIN_RING_EPOCH_DETACHED 0x80000000u

struct goblin_ring_header {
    /* Written once by the server when it creates the file; read-only after. */
    uint64_t magic;
    uint32_t version;
    uint32_t header_bytes;
    uint64_t sq_offset;
    uint64_t sq_bytes;
    uint64_t cq_offset;
    uint64_t cq_bytes;
    /* The serving process (clients check it is alive before waiting). */
    _Atomic uint32_t server_pid;

    /* Claim word: pid of the attached client, 0 when free. Clients take it
     * with compare-and-swap; the server clears it when the owner is gone. */
    alignas(64) _Atomic uint32_t owner_pid;

    /* Connection epoch: a client advances it to (re)connect. */
    alignas(64) _Atomic uint32_t epoch;

    /* The epoch the server has reset both queues for; clients wait for it. */
    alignas(64) _Atomic uint32_t ready_epoch;

    /* Consumer positions (bytes since the session began). */
    alignas(64) _Atomic uint64_t sq_head; /* written by the server */
    alignas(64) _Atomic uint64_t cq_head; /* written by the client */
};

_Static_assert(sizeof(struct goblin_ring_header) <= GOBLIN_RING_HEADER_BYTES,
               "ring header must fit its page");

struct goblin_ring_record {
    _Atomic uint64_t tag;
    uint32_t len;
    uint32_t kind;
    unsigned char payload[];
};

/* One side's private view of one queue. */
struct goblin_ring_queue {
    unsigned char *base;
    uint64_t bytes;          /* power of two */
    uint64_t pos;            /* producer: next record; consumer: next record */
    uint64_t cached_head;    /* producer only: last consumer position seen */
    _Atomic uint64_t *head;  /* consumer position in shared memory */
    uint32_t epoch;
};

static inline uint64_t goblin_ring_record_span(uint64_t payload_len)
{
    return (GOBLIN_RING_RECORD_HEADER + payload_len + GOBLIN_RING_ALIGN - 1) &
           ~(uint64_t)(GOBLIN_RING_ALIGN - 1);
}

/* Largest payload one record may carry: a quarter of the queue keeps wrap
 * fillers and partial fills from starving the producer. */
static inline uint64_t goblin_ring_max_payload(const struct goblin_ring_queue *q)
{
    return q->bytes / 4 - GOBLIN_RING_RECORD_HEADER;
}

static inline uint64_t goblin_ring_tag(uint32_t epoch, uint64_t pos)
{
    return ((uint64_t)epoch << 32) | (uint32_t)(pos / GOBLIN_RING_ALIGN);
}

static inline void goblin_ring_queue_init(struct goblin_ring_queue *q, void *base, uint64_t bytes,
                                          _Atomic uint64_t *head, uint32_t epoch)
{
    q->base = (unsigned char *)base;
    q->bytes = bytes;
    q->pos = 0;
    q->cached_head = 0;
    q->head = head;
    q->epoch = epoch;
}

static inline struct goblin_ring_record *goblin_ring_at(const struct goblin_ring_queue *q,
                                                        uint64_t pos)
{
    return (struct goblin_ring_record *)(q->base + (pos & (q->bytes - 1)));
}

/* --- producer ------------------------------------------------------------ */

/* True when `need` more bytes fit; refreshes the cached head only when the
 * cached view says no (the one cross-core read of the producer). */
static inline bool goblin_ring_has_room(struct goblin_ring_queue *q, uint64_t need)
{
    if (q->pos + need - q->cached_head <= q->bytes) return true;
    /* acquire: pairs with the consumer's release of head (see top). */
    q->cached_head = atomic_load_explicit(q->head, memory_order_acquire);
    return q->pos + need - q->cached_head <= q->bytes;
}

/* Reserves a record for up to `len` payload bytes (len <= max_payload).
 * Returns NULL when the queue is full. Writes a WRAP filler if needed. */
static inline struct goblin_ring_record *goblin_ring_reserve(struct goblin_ring_queue *q,
                                                             uint64_t len)
{
    uint64_t span = goblin_ring_record_span(len);
    uint64_t offset = q->pos & (q->bytes - 1);
    uint64_t filler = offset + span > q->bytes ? q->bytes - offset : 0;
    if (!goblin_ring_has_room(q, filler + span)) return NULL;
    if (filler) {
        struct goblin_ring_record *w = goblin_ring_at(q, q->pos);
        w->len = (uint32_t)(filler - GOBLIN_RING_RECORD_HEADER);
        w->kind = GOBLIN_RING_WRAP;
        /* release: the consumer must see len/kind before it trusts the tag. */
        atomic_store_explicit(&w->tag, goblin_ring_tag(q->epoch, q->pos), memory_order_release);
        q->pos += filler;
    }
    return goblin_ring_at(q, q->pos);
}

/* Publishes a record reserved by goblin_ring_reserve() with `len` bytes of payload. */
static inline void goblin_ring_publish_kind(struct goblin_ring_queue *q,
                                            struct goblin_ring_record *r, uint32_t len,
                                            uint32_t kind)
{
    r->len = len;
    r->kind = kind;
    /* release: payload and header become visible no later than the tag. */
    atomic_store_explicit(&r->tag, goblin_ring_tag(q->epoch, q->pos), memory_order_release);
    q->pos += goblin_ring_record_span(len);
}

static inline void goblin_ring_publish(struct goblin_ring_queue *q, struct goblin_ring_record *r,
                                       uint32_t len)
{
    r->len = len;
    r->kind = GOBLIN_RING_DATA;
    /* release: payload and header become visible no later than the tag. */
    atomic_store_explicit(&r->tag, goblin_ring_tag(q->epoch, q->pos), memory_order_release);
    q->pos += goblin_ring_record_span(len);
}

/* Copies up to len bytes into as few records as fit now; returns bytes
 * written (0 when the queue is full). */
static inline size_t goblin_ring_write(struct goblin_ring_queue *q, const void *src, size_t len)
{
    const unsigned char *p = (const unsigned char *)src;
    size_t done = 0;
    uint64_t max = goblin_ring_max_payload(q);
    while (done < len) {
        uint64_t chunk = len - done < max ? len - done : max;
        struct goblin_ring_record *r = goblin_ring_reserve(q, chunk);
        if (!r) {
            /* Take what fits in the remaining room rather than nothing. */
            uint64_t offset = q->pos & (q->bytes - 1);
            uint64_t room = q->bytes - (q->pos - q->cached_head);
            uint64_t contiguous = q->bytes - offset;
            uint64_t usable = (room < contiguous ? room : contiguous);
            if (usable < GOBLIN_RING_ALIGN * 2) break;
            chunk = usable - GOBLIN_RING_RECORD_HEADER;
            chunk -= chunk % GOBLIN_RING_ALIGN; /* keep the span within usable */
            if (chunk > len - done) chunk = len - done;
            r = goblin_ring_reserve(q, chunk);
            if (!r) break;
        }
        memcpy(r->payload, p + done, chunk);
        goblin_ring_publish(q, r, (uint32_t)chunk);
        done += chunk;
    }
    return done;
}

/* --- consumer ------------------------------------------------------------ */

/* The next data record, or NULL if none is published yet. Skips WRAP
 * fillers. A record whose len cannot fit the queue is reported through
 * *corrupt (the peer is broken; the caller should reset the session). */
static inline struct goblin_ring_record *goblin_ring_peek(struct goblin_ring_queue *q,
                                                          bool *corrupt)
{
    for (;;) {
        struct goblin_ring_record *r = goblin_ring_at(q, q->pos);
        /* acquire: pairs with the producer's release of the tag. */
        if (atomic_load_explicit(&r->tag, memory_order_acquire) !=
            goblin_ring_tag(q->epoch, q->pos))
            return NULL;
        uint64_t offset = q->pos & (q->bytes - 1);
        if (goblin_ring_record_span(r->len) > q->bytes - offset) {
            *corrupt = true;
            return NULL;
        }
        if (r->kind != GOBLIN_RING_WRAP) return r;
        q->pos += goblin_ring_record_span(r->len);
        atomic_store_explicit(q->head, q->pos, memory_order_release);
    }
}

/* Releases the record returned by goblin_ring_peek(). */
static inline void goblin_ring_consume(struct goblin_ring_queue *q, struct goblin_ring_record *r)
{
    q->pos += goblin_ring_record_span(r->len);
    /* release: every read of this record happens before the producer may reuse it. */
    atomic_store_explicit(q->head, q->pos, memory_order_release);
}

#endif
