/*
 * fuzz_ring_reader.c — libFuzzer harness for the ring record reader: the
 * consumer side of include/goblin/ring_layout.h (goblin_ring_peek and
 * goblin_ring_consume) as the server drives it on a ring's SQ.
 *
 * fuzz-sources:
 *
 * The queue lives in a heap block of exactly its size (ASan reports any
 * access outside it). The fuzzer plays the client: an honest producer
 * (goblin_ring_write), a hostile one that forges record headers at the
 * position the reader expects or scribbles arbitrary bytes anywhere in the
 * queue — between any two reads, as a process sharing the mapping can —
 * and reconnects (a new epoch on the same, dirty memory).
 *
 * Invariants: the reader never touches memory outside the queue (ASan),
 * its position stays 64-byte aligned and only grows, every record it is
 * handed lies inside the queue, and while the memory has seen only honest
 * producer writes the bytes read are exactly the bytes written, in order —
 * stale records of earlier epochs or laps are never delivered. (Once a
 * hostile write happened, even a later session proves nothing: a previous
 * owner can plant records tagged for the next epoch. The layout's trust
 * model is the file's permissions, see ring_layout.h.)
 *
 * Adapting: reader_read() mirrors the server's ring_read()
 * (src/transport/ring.c) on the public API. When the server's reader
 * becomes a function of a goblin_ring_queue (no struct conn), call it there
 * instead and link its file through the fuzz-sources line.
 *
 * Input: 2 control bytes (queue size, epoch), then operations, each an
 * opcode byte and its operands (see LLVMFuzzerTestOneInput).
 */
#include <stdatomic.h>
#include <stdbool.h>

#include <goblin/ring_layout.h>

#include "fuzz_common.h"

/* The server's view of one ring's SQ: the queue plus the record it has
 * partly copied out (ring_read's ring_endpoint fields). */
struct reader {
    struct goblin_ring_queue q;
    bool has_partial;
    struct goblin_ring_view partial; /* header snapshot taken once, at peek */
    uint32_t partial_offset;
    bool corrupt; /* the session is over; the server waits for a new epoch */
};

/* ring_read(): copies up to cap bytes of the stream out of the queue.
 * Returns the count (0 when nothing is published), -1 on a corrupt record
 * (or a CLOSE in the SQ, which the server treats as a protocol error).
 * Only the view's snapshot of len is used: the producer may rewrite the
 * shared header at any time. */
static long reader_read(struct reader *rd, unsigned char *dst, size_t cap)
{
    size_t copied = 0;
    while (copied < cap) {
        if (!rd->has_partial) {
            if (!goblin_ring_peek(&rd->q, &rd->partial)) {
                if (rd->q.corrupt) return -1;
                break;
            }
            if (rd->partial.kind != GOBLIN_RING_DATA) return -1;
            rd->has_partial = true;
            rd->partial_offset = 0;
            const unsigned char *end = rd->q.base + rd->q.bytes;
            FUZZ_CHECK(rd->partial.payload >= rd->q.base &&
                           rd->partial.payload + rd->partial.len <= end,
                       "record of %u bytes at offset %td runs outside the queue", rd->partial.len,
                       rd->partial.payload - rd->q.base);
        }
        size_t left = rd->partial.len - rd->partial_offset;
        size_t n = left < cap - copied ? left : cap - copied;
        memcpy(dst + copied, rd->partial.payload + rd->partial_offset, n);
        copied += n;
        rd->partial_offset += (uint32_t)n;
        if (rd->partial_offset == rd->partial.len) {
            uint64_t before = rd->q.pos;
            goblin_ring_consume(&rd->q, &rd->partial);
            FUZZ_CHECK(rd->q.pos > before && rd->q.pos % GOBLIN_RING_ALIGN == 0,
                       "consumer position %llu after %llu", (unsigned long long)rd->q.pos,
                       (unsigned long long)before);
            rd->has_partial = false;
        }
    }
    return (long)copied;
}

struct session {
    unsigned char *base;
    uint64_t bytes;
    _Atomic uint64_t head; /* the header's sq_head */
    uint32_t epoch;
    struct goblin_ring_queue producer;
    struct reader reader;
    /* Honest-stream check: what the producer wrote and how much was read. */
    bool honest; /* no hostile write since the memory was zeroed */
    unsigned char *written;
    size_t written_len, written_cap, read_len;
};

/* A new epoch on the same memory, as session_restart() does it. Clients
 * never use epoch 0: on zeroed memory its tag matches an empty record. */
static void session_start(struct session *s, uint32_t epoch)
{
    if (epoch == 0) epoch = 1;
    s->epoch = epoch;
    atomic_store_explicit(&s->head, 0, memory_order_relaxed);
    goblin_ring_queue_init(&s->producer, s->base, s->bytes, &s->head, epoch);
    memset(&s->reader, 0, sizeof s->reader);
    goblin_ring_queue_init(&s->reader.q, s->base, s->bytes, &s->head, epoch);
    s->written_len = s->read_len = 0;
}

static void note_written(struct session *s, const uint8_t *p, size_t n)
{
    if (n == 0) return;
    if (s->written_len + n > s->written_cap) {
        s->written_cap = (s->written_len + n) * 2;
        s->written = realloc(s->written, s->written_cap);
        if (!s->written) abort();
    }
    memcpy(s->written + s->written_len, p, n);
    s->written_len += n;
}

static void do_read(struct session *s, size_t cap)
{
    if (s->reader.corrupt) return;
    unsigned char *dst = malloc(cap);
    if (!dst) abort();
    uint64_t before = s->reader.q.pos;
    long n = reader_read(&s->reader, dst, cap);
    FUZZ_CHECK(s->reader.q.pos >= before && s->reader.q.pos % GOBLIN_RING_ALIGN == 0,
               "consumer position %llu after %llu", (unsigned long long)s->reader.q.pos,
               (unsigned long long)before);
    if (n < 0) {
        FUZZ_CHECK(!s->honest, "an honest producer's queue was reported corrupt");
        s->reader.corrupt = true;
    } else {
        FUZZ_CHECK((size_t)n <= cap, "read %ld bytes into %zu", n, cap);
        if (s->honest && n > 0) {
            FUZZ_CHECK(s->read_len + (size_t)n <= s->written_len &&
                           memcmp(dst, s->written + s->read_len, (size_t)n) == 0,
                       "honest stream differs at byte %zu (read %ld, %zu written)", s->read_len, n,
                       s->written_len);
            s->read_len += (size_t)n;
        }
    }
    free(dst);
}

enum op {
    OP_WRITE,     /* honest producer: u8 length, bytes */
    OP_READ,      /* reader: u8 capacity - 1 */
    OP_FORGE,     /* hostile: u8 record index ahead of the reader, u32 len, u8 kind */
    OP_SCRIBBLE,  /* hostile: u16 offset, u8 length, bytes */
    OP_RECONNECT, /* new epoch: u8 step */
    OP_COUNT
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size, 0};
    struct session s = {0};
    /* 256 B .. 4 KiB: the server's minimum is a page, but small queues wrap
     * after a few records, which is where the bugs are. */
    s.bytes = (uint64_t)256 << (fuzz_u8(&in) % 5);
    s.base = malloc(s.bytes);
    if (!s.base) abort();
    memset(s.base, 0, s.bytes);
    s.honest = true;
    session_start(&s, fuzz_u8(&in));

    while (in.pos < in.size) {
        switch (fuzz_u8(&in) % OP_COUNT) {
        case OP_WRITE: {
            size_t n;
            const uint8_t *p = fuzz_bytes(&in, fuzz_u8(&in), &n);
            size_t done = goblin_ring_write(&s.producer, p, n);
            FUZZ_CHECK(done <= n, "wrote %zu of %zu", done, n);
            note_written(&s, p, done);
            break;
        }
        case OP_READ:
            do_read(&s, 1 + (size_t)fuzz_u8(&in));
            break;
        case OP_FORGE: {
            uint64_t pos = s.reader.q.pos + (uint64_t)(fuzz_u8(&in) % 4) * GOBLIN_RING_ALIGN;
            struct goblin_ring_record *r = goblin_ring_at(&s.reader.q, pos);
            r->len = fuzz_u32(&in);
            r->kind = fuzz_u8(&in) % 4;
            atomic_store_explicit(&r->tag, goblin_ring_tag(s.epoch, pos), memory_order_release);
            s.honest = false;
            break;
        }
        case OP_SCRIBBLE: {
            uint64_t offset = (fuzz_u8(&in) | (uint64_t)fuzz_u8(&in) << 8) % s.bytes;
            size_t n;
            const uint8_t *p = fuzz_bytes(&in, fuzz_u8(&in), &n);
            if (n > s.bytes - offset) n = s.bytes - offset;
            memcpy(s.base + offset, p, n);
            s.honest = false;
            break;
        }
        case OP_RECONNECT:
            session_start(&s, s.epoch + 1 + fuzz_u8(&in));
            break;
        }
    }
    /* An honest producer's session delivers everything written once drained. */
    if (s.honest) {
        for (int i = 0; i < 64 && s.read_len < s.written_len; i++) do_read(&s, 4096);
        FUZZ_CHECK(s.read_len == s.written_len, "%zu of %zu honest bytes read", s.read_len,
                   s.written_len);
    }
    free(s.written);
    free(s.base);
    return 0;
}
