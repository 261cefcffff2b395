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
    bool corrupt = false;
    for (unsigned i = 0; i < 64; i++) {
        struct goblin_ring_record *r = goblin_ring_peek(&p.cons, &corrupt);
        CHECK(r && r->len == 48 && check_fill(r->payload, 48, i));
        goblin_ring_consume(&p.cons, r);
        if (i == 0) CHECK(goblin_ring_reserve(&p.prod, 48) != NULL); /* one slot freed */
    }
    CHECK(!corrupt);
    free(p.mem);
}

static void test_wrap_filler(void)
{
    struct pair p;
    pair_init(&p, 4096, 7);
    bool corrupt = false;
    /* Advance to 64 bytes before the end, then publish a 200-byte record:
     * it must go to offset 0 behind a WRAP filler. */
    for (int i = 0; i < 63; i++) {
        struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, 10);
        goblin_ring_publish(&p.prod, r, 10);
        goblin_ring_consume(&p.cons, goblin_ring_peek(&p.cons, &corrupt));
    }
    CHECK_EQ_LL(p.prod.pos % 4096, 4032);
    struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, 200);
    CHECK(r == (struct goblin_ring_record *)p.mem);
    fill(r->payload, 200, 99);
    goblin_ring_publish(&p.prod, r, 200);
    struct goblin_ring_record *got = goblin_ring_peek(&p.cons, &corrupt);
    CHECK(got == r && got->len == 200 && check_fill(got->payload, 200, 99));
    goblin_ring_consume(&p.cons, got);
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
    bool corrupt = false;
    while (received < total) {
        size_t want = step < total - sent ? step : total - sent;
        sent += goblin_ring_write(&p.prod, src + sent, want);
        step = step * 3 % (bytes / 2) + 1;
        /* Consume at most two records per round: the producer often finds the queue full. */
        for (int k = 0; k < 2; k++) {
            struct goblin_ring_record *r = goblin_ring_peek(&p.cons, &corrupt);
            if (!r) break;
            CHECK(r->kind == GOBLIN_RING_DATA);
            CHECK(r->len <= goblin_ring_max_payload(&p.prod));
            memcpy(dst + received, r->payload, r->len);
            received += r->len;
            goblin_ring_consume(&p.cons, r);
        }
    }
    CHECK(!corrupt);
    CHECK(memcmp(src, dst, total) == 0);
    free(src);
    free(dst);
    free(p.mem);
}

static void test_every_payload_size(void)
{
    struct pair p;
    pair_init(&p, 8192, 11);
    bool corrupt = false;
    uint64_t max = goblin_ring_max_payload(&p.prod);
    unsigned char *buf = malloc(max);
    for (uint64_t len = 0; len <= max; len++) {
        struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, len);
        CHECKF(r, "len %llu did not fit an empty queue", (unsigned long long)len);
        fill(r->payload, len, (unsigned)len);
        goblin_ring_publish(&p.prod, r, (uint32_t)len);
        struct goblin_ring_record *got = goblin_ring_peek(&p.cons, &corrupt);
        CHECK(got && got->len == len && check_fill(got->payload, len, (unsigned)len));
        goblin_ring_consume(&p.cons, got);
    }
    free(buf);
    free(p.mem);
}

static void test_stale_and_corrupt(void)
{
    struct pair p;
    pair_init(&p, 4096, 1);
    bool corrupt = false;
    struct goblin_ring_record *r = goblin_ring_reserve(&p.prod, 5);
    goblin_ring_publish(&p.prod, r, 5);
    /* A consumer of the next epoch ignores the old session's record. */
    struct goblin_ring_queue next;
    goblin_ring_queue_init(&next, p.mem, 4096, &p.head, 2);
    CHECK(goblin_ring_peek(&next, &corrupt) == NULL && !corrupt);
    /* A record whose length runs past the end is reported, not read. */
    struct goblin_ring_record *bad = goblin_ring_reserve(&p.prod, 5);
    goblin_ring_publish(&p.prod, bad, 5);
    bad->len = 1u << 30;
    goblin_ring_consume(&p.cons, goblin_ring_peek(&p.cons, &corrupt));
    CHECK(goblin_ring_peek(&p.cons, &corrupt) == NULL && corrupt);
    free(p.mem);
}

int main(void)
{
    test_exact_fit_and_full();
    test_wrap_filler();
    for (uint64_t size = 4096; size <= (1u << 20); size <<= 2) test_stream_every_size(size);
    test_every_payload_size();
    test_stale_and_corrupt();
    printf("ring queue: ok\n");
    return 0;
}
