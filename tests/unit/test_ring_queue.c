/* Unit tests of the SPSC ring queue (include/goblin/ring_layout.h): exact
 * fit, wrap fillers, records spanning the end, a full queue, every payload
 * size class on several queue sizes, stale tags and corrupt lengths. */
#include <goblin/ring_layout.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

struct pair {
    unsigned char *mem;
    _Atomic uint64_t head;
    struct goblin_ring_queue prod, cons;
};

static void pair_init(struct pair *p, uint64_t bytes, uint32_t epoch)
{
    p->mem = aligned_alloc(64, bytes);
    memset(p->mem, 0, bytes);
    atomic_store(&p->head, 0);
    goblin_ring_queue_init(&p->prod, p->mem, bytes, &p->head, epoch);
    goblin_ring_queue_init(&p->cons, p->mem, bytes, &p->head, epoch);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed * 31 + i * 7);
}

static bool check_fill(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 31 + i * 7)) return false;
    return true;
}

static void test_exact_fit_and_full(void)
{
    struct pair p;
    pair_init(&p, 4096, 1);
    /* 64 records of 48 bytes payload fill 4096 bytes exactly. */
    unsigned char payload[48];
    for (unsigned i = 0; i < 64; i++) {
        struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, 48);
        CHECKF(r, "record %u did not fit", i);
        fill(r->payload, 48, i);
        goblin_ring_publish(&p.prod, r, 48);
    }
    CHECK(goblin_ring_reserve(&p.prod, 0) == NULL); /* full */
    CHECK_EQ_LL(goblin_ring_write(&p.prod, payload, 1), 0);
    for (unsigned i = 0; i < 64; i++) {
        struct goblin_ring_view r;
        CHECK(goblin_ring_peek(&p.cons, &r) && r.len == 48 && check_fill(r.payload, 48, i));
        goblin_ring_consume(&p.cons, &r);
        if (i == 0) CHECK(goblin_ring_reserve(&p.prod, 48) != NULL); /* one slot freed */
    }
    CHECK(!p.cons.corrupt && !p.prod.corrupt);
    free(p.mem);
}

static void test_wrap_filler(void)
{
    struct pair p;
    pair_init(&p, 4096, 7);
    struct goblin_ring_view v;
    /* Advance to 64 bytes before the end, then publish a 200-byte record:
     * it must go to offset 0 behind a WRAP filler. */
    for (int i = 0; i < 63; i++) {
        struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, 10);
        goblin_ring_publish(&p.prod, r, 10);
        CHECK(goblin_ring_peek(&p.cons, &v));
        goblin_ring_consume(&p.cons, &v);
    }
    CHECK_EQ_LL(p.prod.pos % 4096, 4032);
    struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, 200);
    CHECK(r == (struct goblin_ring_record *)p.mem);
    fill(r->payload, 200, 99);
    goblin_ring_publish(&p.prod, r, 200);
    CHECK(goblin_ring_peek(&p.cons, &v));
    CHECK(v.payload == r->payload && v.len == 200 && check_fill(v.payload, 200, 99));
    goblin_ring_consume(&p.cons, &v);
    CHECK_EQ_LL(atomic_load(&p.head), p.prod.pos);
    free(p.mem);
}

/* Streams bytes through goblin_ring_write in odd-sized pieces with the
 * consumer lagging, so records span the end of the queue in every phase. */
static void test_stream_every_size(uint64_t bytes)
{
    struct pair p;
    pair_init(&p, bytes, 3);
    size_t total = bytes * 40;
    unsigned char *src = malloc(total), *dst = malloc(total);
    fill(src, total, 5);
    size_t sent = 0, received = 0, step = 1;
    while (received < total) {
        size_t want = step < total - sent ? step : total - sent;
        sent += goblin_ring_write(&p.prod, src + sent, want);
        step = step * 3 % (bytes / 2) + 1;
        /* Consume at most two records per round: the producer often finds the queue full. */
        for (int k = 0; k < 2; k++) {
            struct goblin_ring_view r;
            if (!goblin_ring_peek(&p.cons, &r)) break;
            CHECK(r.kind == GOBLIN_RING_DATA);
            CHECK(r.len <= goblin_ring_max_payload(&p.prod));
            memcpy(dst + received, r.payload, r.len);
            received += r.len;
            goblin_ring_consume(&p.cons, &r);
        }
    }
    CHECK(!p.cons.corrupt && !p.prod.corrupt);
    CHECK(memcmp(src, dst, total) == 0);
    free(src);
    free(dst);
    free(p.mem);
}

static void test_every_payload_size(void)
{
    struct pair p;
    pair_init(&p, 8192, 11);
    uint64_t max = goblin_ring_max_payload(&p.prod);
    unsigned char *buf = malloc(max);
    for (uint64_t len = 0; len <= max; len++) {
        struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, len);
        CHECKF(r, "len %llu did not fit an empty queue", (unsigned long long)len);
        fill(r->payload, len, (unsigned)len);
        goblin_ring_publish(&p.prod, r, (uint32_t)len);
        struct goblin_ring_view got;
        CHECK(goblin_ring_peek(&p.cons, &got) && got.len == len &&
              check_fill(got.payload, len, (unsigned)len));
        goblin_ring_consume(&p.cons, &got);
    }
    free(buf);
    free(p.mem);
}

static void test_stale_and_corrupt(void)
{
    struct pair p;
    pair_init(&p, 4096, 1);
    struct goblin_ring_view v;
    struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, 5);
    goblin_ring_publish(&p.prod, r, 5);
    /* A consumer of the next epoch ignores the old session's record. */
    struct goblin_ring_queue next;
    goblin_ring_queue_init(&next, p.mem, 4096, &p.head, 2);
    CHECK(!goblin_ring_peek(&next, &v) && !next.corrupt);
    /* A record whose length runs past the end is reported, not read. */
    struct goblin_ring_record *bad = goblin_ring_reserve(&p.prod, 5);
    goblin_ring_publish(&p.prod, bad, 5);
    bad->len = 1u << 30;
    CHECK(goblin_ring_peek(&p.cons, &v));
    goblin_ring_consume(&p.cons, &v);
    CHECK(!goblin_ring_peek(&p.cons, &v) && p.cons.corrupt);
    /* Sticky: a repaired record is not read either. */
    bad->len = 5;
    CHECK(!goblin_ring_peek(&p.cons, &v));
    free(p.mem);
}

/* Lengths that end exactly at the queue end are valid; one more alignment
 * unit is not; a kind outside DATA/WRAP/CLOSE is corrupt. */
static void test_bounds_and_kinds(void)
{
    struct pair p;
    pair_init(&p, 4096, 4);
    struct goblin_ring_view v;
    struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, 0);
    goblin_ring_publish(&p.prod, r, 4096 - GOBLIN_RING_RECORD_HEADER); /* fills the queue */
    CHECK(goblin_ring_peek(&p.cons, &v) && v.len == 4096 - GOBLIN_RING_RECORD_HEADER);
    goblin_ring_consume(&p.cons, &v);
    r = goblin_ring_reserve(&p.prod, 0);
    goblin_ring_publish(&p.prod, r, 4096 - GOBLIN_RING_RECORD_HEADER + 1);
    CHECK(!goblin_ring_peek(&p.cons, &v) && p.cons.corrupt);
    free(p.mem);

    pair_init(&p, 4096, 4);
    r = goblin_ring_reserve(&p.prod, 3);
    goblin_ring_publish_kind(&p.prod, r, 3, 77);
    CHECK(!goblin_ring_peek(&p.cons, &v) && p.cons.corrupt);
    free(p.mem);
}

/* The producer refuses a consumer head it cannot have been given: ahead of
 * what was published, or more than a queue behind. */
static void test_impossible_head(void)
{
    static const uint64_t heads[] = {4096 + 64, (uint64_t)1 << 40};
    unsigned char bytes[4096] = {0};
    for (int i = 0; i < 2; i++) {
        struct pair p;
        pair_init(&p, 4096, 5);
        /* Fill the queue: four records of the largest payload. */
        CHECK_EQ_LL(goblin_ring_write(&p.prod, bytes, sizeof bytes), 4 * 1008);
        CHECK_EQ_LL(p.prod.pos, 4096);
        atomic_store(&p.head, heads[i]);
        CHECK_EQ_LL(goblin_ring_write(&p.prod, bytes, 1), 0);
        CHECK(p.prod.corrupt);
        atomic_store(&p.head, p.prod.pos); /* sticky even once it looks sane */
        CHECK_EQ_LL(goblin_ring_write(&p.prod, bytes, 1), 0);
        free(p.mem);
    }
}

/* goblin_ring_layout_read refuses offsets and sizes outside the mapping. */
static void test_layout_read(void)
{
    enum { Q = 4096, MAP = GOBLIN_RING_HEADER_BYTES + 2 * Q };
    struct goblin_ring_header *h = aligned_alloc(64, GOBLIN_RING_HEADER_BYTES);
    memset(h, 0, GOBLIN_RING_HEADER_BYTES);
    h->magic = GOBLIN_RING_MAGIC;
    h->version = GOBLIN_RING_VERSION;
    h->header_bytes = GOBLIN_RING_HEADER_BYTES;
    h->sq_offset = GOBLIN_RING_HEADER_BYTES;
    h->sq_bytes = Q;
    h->cq_offset = GOBLIN_RING_HEADER_BYTES + Q;
    h->cq_bytes = Q;
    struct goblin_ring_layout l;
    CHECK(goblin_ring_layout_read(h, MAP, &l) && l.cq_offset == GOBLIN_RING_HEADER_BYTES + Q);
    CHECK(!goblin_ring_layout_read(h, MAP - 1, &l));
    h->sq_offset = (uint64_t)1 << 40;
    CHECK(!goblin_ring_layout_read(h, MAP, &l));
    h->sq_offset = UINT64_MAX - 100; /* offset + bytes overflows */
    CHECK(!goblin_ring_layout_read(h, MAP, &l));
    h->sq_offset = GOBLIN_RING_HEADER_BYTES;
    h->sq_bytes = 3 * 4096; /* not a power of two */
    CHECK(!goblin_ring_layout_read(h, MAP, &l));
    h->sq_bytes = Q;
    h->cq_offset = GOBLIN_RING_HEADER_BYTES; /* overlaps the SQ */
    CHECK(!goblin_ring_layout_read(h, MAP, &l));
    h->cq_offset = 0; /* over the header */
    CHECK(!goblin_ring_layout_read(h, MAP, &l));
    free(h);
}

int main(void)
{
    test_exact_fit_and_full();
    test_wrap_filler();
    for (uint64_t size = 4096; size <= (1u << 20); size <<= 2) test_stream_every_size(size);
    test_every_payload_size();
    test_stale_and_corrupt();
    test_bounds_and_kinds();
    test_impossible_head();
    test_layout_read();
    printf("ring queue: ok\n");
    return 0;
}
