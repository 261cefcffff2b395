/*
 * goblin/ring_layout.h — the shared-memory ring: file layout and the
 * single-producer/single-consumer queue operations both sides use.
 * docs/rings.md is the protocol description; a client can be written from
 * it and this header alone (tests/integration/test_ring_doc_client.c is one).
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
 * A position is a byte count since the session began (the handshake that
 * published ready_epoch): both queues restart at position 0 every session,
 * and the record at position P lives at offset P mod queue size.
 * The tag is (epoch << 32) | (uint32_t)(P / 64): the consumer spins on
 * the tag of the record it expects next — that record's own first cache
 * line, which for a small request also carries the payload — so one
 * request costs one cache-line transfer each way in the common case. A
 * record that would run past the end of the queue is preceded by a WRAP
 * filler covering the remainder (its len is the remainder minus the
 * 16-byte record header), so every payload is contiguous.
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
 *    Epoch 0 is never served, so the zeroed memory of a new file (tag 0,
 *    which is tag(0, 0)) matches nothing either.
 *
 * Untrusted peer: each side treats what the other writes as input. Every
 * shared field is read once into a local snapshot (goblin_ring_read_u32/u64
 * or an atomic load), validated, and only the snapshot is used; a value
 * the protocol cannot produce (a record that does not fit the queue, an
 * unknown kind, a consumer head outside [pos - bytes, pos]) marks the queue
 * `corrupt`, and the owner of the queue ends that session. The server keeps
 * its own copy of the layout and never takes offsets or sizes from the file.
 *
 * Hazards (see docs/rings.md): the ring is as trusted as its file
 * permissions allow; the server polls rings by busy-waiting while they
 * are active, and sleeps on the doorbell FIFO after an idle period.
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
    GOBLIN_RING_WRAP = 2,  /* filler up to the end of the queue; len = remainder - 16 */
    GOBLIN_RING_CLOSE = 3, /* CQ only, len 0: the server ended this session (QUIT, error, detach) */
};

/* Set in `epoch` by a client that detaches: the server ends the session
 * without starting a new one and acknowledges it in ready_epoch. A detach
 * must follow an attached epoch (no bit); a value carrying the bit that
 * follows another such value, or 0, is refused (never acknowledged). To
 * connect again, clear the bit and advance: ((E & ~DETACHED) + 1), skipping
 * 0 and values with the bit set. */
#define GOBLIN_RING_EPOCH_DETACHED 0x80000000u

struct goblin_ring_header {
    /* Written once by the server when it creates the file; read-only after.
     * The server keeps its own copy and refuses a connect while these
     * differ from it (and rewrites them). */
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

    /* Connection epoch, written by the client: a new value without the
     * DETACHED bit (never 0) connects; see GOBLIN_RING_EPOCH_DETACHED. */
    alignas(64) _Atomic uint32_t epoch;

    /* The epoch the server has acted on (reset both queues for, or ended the
     * session for on a detach); clients wait for it. */
    alignas(64) _Atomic uint32_t ready_epoch;

    /* Consumer positions (bytes since the session began). Each is written by
     * its consumer during a session; the server also zeroes both before it
     * publishes ready_epoch. */
    alignas(64) _Atomic uint64_t sq_head; /* written by the server */
    alignas(64) _Atomic uint64_t cq_head; /* written by the client (and zeroed by the server) */

    /* Nonzero while the server sleeps instead of polling (written by the
     * server only). A client that has published an SQ record, advanced
     * cq_head or changed the epoch issues a full fence, reads this word and,
     * when it is set, writes one byte to the ring's doorbell: the FIFO named
     * as the ring file plus ".wake" (goblin_ring_wake_if_sleeping). The
     * server sets the word, fences and looks at the queues again before it
     * sleeps, so no publish goes unseen (docs/rings.md, "Sleeping"). A
     * client that never rings is still served, within one housekeeping
     * period (1/hz s) after the server went to sleep. */
    alignas(64) _Atomic uint32_t server_sleeping;
};

_Static_assert(sizeof(struct goblin_ring_header) <= GOBLIN_RING_HEADER_BYTES,
               "ring header must fit its page");

struct goblin_ring_record {
    _Atomic uint64_t tag;
    uint32_t len;
    uint32_t kind;
    unsigned char payload[];
};

/* One load of a field the peer may rewrite at any time. The volatile access
 * is a single aligned load the compiler may neither repeat nor split, so the
 * value validated is the value used. */
static inline uint32_t goblin_ring_read_u32(const uint32_t *field)
{
    return *(const volatile uint32_t *)field;
}

static inline uint64_t goblin_ring_read_u64(const uint64_t *field)
{
    return *(const volatile uint64_t *)field;
}

/* The layout fields of a header, read once. */
struct goblin_ring_layout {
    uint64_t sq_offset, sq_bytes, cq_offset, cq_bytes;
};

static inline bool goblin_ring_queue_fits(uint64_t offset, uint64_t bytes, uint64_t map_bytes)
{
    return bytes >= 4096 && (bytes & (bytes - 1)) == 0 && offset % GOBLIN_RING_ALIGN == 0 &&
           offset >= GOBLIN_RING_HEADER_BYTES && bytes <= map_bytes && offset <= map_bytes - bytes;
}

/* Snapshots the header's identity and layout and checks them against a
 * mapping of map_bytes: magic, version, header size, each queue a power of
 * two of at least 4096 bytes on a 64-byte boundary inside the mapping after
 * the header, the two queues disjoint. The caller must already have
 * load-acquired something the server published after the header (or used
 * the fence shown in docs/rings.md). */
static inline bool goblin_ring_layout_read(const struct goblin_ring_header *h, uint64_t map_bytes,
                                           struct goblin_ring_layout *out)
{
    if (map_bytes < GOBLIN_RING_HEADER_BYTES) return false;
    if (goblin_ring_read_u64(&h->magic) != GOBLIN_RING_MAGIC ||
        goblin_ring_read_u32(&h->version) != GOBLIN_RING_VERSION ||
        goblin_ring_read_u32(&h->header_bytes) != GOBLIN_RING_HEADER_BYTES)
        return false;
    struct goblin_ring_layout l = {
        .sq_offset = goblin_ring_read_u64(&h->sq_offset),
        .sq_bytes = goblin_ring_read_u64(&h->sq_bytes),
        .cq_offset = goblin_ring_read_u64(&h->cq_offset),
        .cq_bytes = goblin_ring_read_u64(&h->cq_bytes),
    };
    if (!goblin_ring_queue_fits(l.sq_offset, l.sq_bytes, map_bytes) ||
        !goblin_ring_queue_fits(l.cq_offset, l.cq_bytes, map_bytes))
        return false;
    /* Disjoint: one queue ends before the other starts (no overflow: both fit). */
    if (l.sq_offset < l.cq_offset + l.cq_bytes && l.cq_offset < l.sq_offset + l.sq_bytes)
        return false;
    *out = l;
    return true;
}

/* One side's private view of one queue. */
struct goblin_ring_queue {
    unsigned char *base;
    uint64_t bytes;         /* power of two */
    uint64_t pos;           /* producer: next record; consumer: next record */
    uint64_t cached_head;   /* producer only: last consumer position seen */
    _Atomic uint64_t *head; /* consumer position in shared memory */
    uint32_t epoch;
    /* The peer wrote a value the protocol cannot produce. Sticky: every
     * later operation on the queue fails; the session must end. */
    bool corrupt;
};

/* A published record's header, read once and validated by goblin_ring_peek();
 * use these fields, never the record's own len and kind again. */
struct goblin_ring_view {
    const unsigned char *payload;
    uint32_t len;
    uint32_t kind; /* GOBLIN_RING_DATA or GOBLIN_RING_CLOSE */
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
    q->corrupt = false;
}

static inline struct goblin_ring_record *goblin_ring_at(const struct goblin_ring_queue *q,
                                                        uint64_t pos)
{
    return (struct goblin_ring_record *)(q->base + (pos & (q->bytes - 1)));
}

/* --- producer ------------------------------------------------------------ */

/* True when `need` more bytes fit; refreshes the cached head only when the
 * cached view says no (the one cross-core read of the producer). A head the
 * consumer cannot have written (ahead of pos, or more than a queue behind)
 * marks the queue corrupt. */
static inline bool goblin_ring_has_room(struct goblin_ring_queue *q, uint64_t need)
{
    if (q->pos + need - q->cached_head <= q->bytes) return true;
    if (q->corrupt) return false;
    /* acquire: pairs with the consumer's release of head (see top). */
    uint64_t head = atomic_load_explicit(q->head, memory_order_acquire);
    if (q->pos - head > q->bytes) { /* unsigned: also catches head > pos */
        q->corrupt = true;
        return false;
    }
    q->cached_head = head;
    return q->pos + need - q->cached_head <= q->bytes;
}

/* Reserves a record for up to `len` payload bytes (len <= max_payload).
 * Returns NULL when the queue is full (or corrupt). Writes a WRAP filler if needed. */
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
    goblin_ring_publish_kind(q, r, len, GOBLIN_RING_DATA);
}

/* Copies up to len bytes into as few records as fit now; returns bytes
 * written (0 when the queue is full or corrupt). */
static inline size_t goblin_ring_write(struct goblin_ring_queue *q, const void *src, size_t len)
{
    const unsigned char *p = (const unsigned char *)src;
    size_t done = 0;
    uint64_t max = goblin_ring_max_payload(q);
    while (done < len) {
        uint64_t chunk = len - done < max ? len - done : max;
        struct goblin_ring_record *r = goblin_ring_reserve(q, chunk);
        if (!r) {
            if (q->corrupt) break;
            /* Take what fits in the remaining room rather than nothing
             * (cached_head was validated by has_room, so room <= bytes). */
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

/* Fills *v with the next DATA or CLOSE record and returns true, or returns
 * false when none is published yet. Skips WRAP fillers. The record's len and
 * kind are read once: a len that does not fit between the record and the
 * end of the queue, or an unknown kind, marks the queue corrupt (the caller
 * ends the session; q->corrupt says which false this was). */
static inline bool goblin_ring_peek(struct goblin_ring_queue *q, struct goblin_ring_view *v)
{
    while (!q->corrupt) {
        struct goblin_ring_record *r = goblin_ring_at(q, q->pos);
        /* acquire: pairs with the producer's release of the tag. */
        if (atomic_load_explicit(&r->tag, memory_order_acquire) !=
            goblin_ring_tag(q->epoch, q->pos))
            return false;
        uint32_t len = goblin_ring_read_u32(&r->len);
        uint32_t kind = goblin_ring_read_u32(&r->kind);
        uint64_t offset = q->pos & (q->bytes - 1);
        if (goblin_ring_record_span(len) > q->bytes - offset ||
            (kind != GOBLIN_RING_DATA && kind != GOBLIN_RING_WRAP && kind != GOBLIN_RING_CLOSE)) {
            q->corrupt = true;
            return false;
        }
        if (kind != GOBLIN_RING_WRAP) {
            v->payload = r->payload;
            v->len = len;
            v->kind = kind;
            return true;
        }
        q->pos += goblin_ring_record_span(len);
        /* release: the filler's bytes are free once the producer sees this. */
        atomic_store_explicit(q->head, q->pos, memory_order_release);
    }
    return false;
}

/* For a consumer that found nothing: warms the line after the first line of
 * the record it expects next. A producer writes a record's later lines
 * before the tag on its first line, so when the tag matches, a two-line
 * record's second line is usually here already and the record costs one
 * cache-line transfer on the critical path instead of two in a row
 * (docs/rings.md, "Waiting"). A prefetch only reads: what the peek
 * validates is unaffected. */
static inline void goblin_ring_prefetch_next(const struct goblin_ring_queue *q)
{
    __builtin_prefetch(q->base + ((q->pos + GOBLIN_RING_ALIGN) & (q->bytes - 1)), 0, 3);
}

/* --- doorbell ------------------------------------------------------------ */

/* The client's half of the sleep handshake, after a publish, a consume or
 * an epoch change: the fence orders those stores before the load of
 * server_sleeping (the server's half stores the word, fences, then reads
 * the queues), so either the server sees the store or the client sees the
 * word. True when the server must be woken (write a byte to the doorbell). */
static inline bool goblin_ring_server_sleeping(const struct goblin_ring_header *h)
{
    atomic_thread_fence(memory_order_seq_cst);
    return atomic_load_explicit(&h->server_sleeping, memory_order_relaxed) != 0;
}

/* Releases the record goblin_ring_peek() returned in *v. */
static inline void goblin_ring_consume(struct goblin_ring_queue *q,
                                       const struct goblin_ring_view *v)
{
    q->pos += goblin_ring_record_span(v->len);
    /* release: every read of this record happens before the producer may reuse it. */
    atomic_store_explicit(q->head, q->pos, memory_order_release);
}

#endif
