/* Two-thread stress test of the SPSC ring queue, built with ThreadSanitizer:
 * a producer thread streams millions of records of varying sizes, a consumer
 * thread checks every byte and the order. A data race or a lost or
 * reordered byte fails the test. */
#include <goblin/ring_layout.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#ifndef STRESS_RECORDS
#define STRESS_RECORDS 2000000
#endif

static unsigned char *mem;
static _Atomic uint64_t head;
enum { QUEUE_BYTES = 1 << 16 };

static unsigned char byte_at(uint64_t i)
{
    return (unsigned char)(i * 2654435761u >> 13);
}

static void *producer(void *arg)
{
    (void)arg;
    struct goblin_ring_queue q;
    goblin_ring_queue_init(&q, mem, QUEUE_BYTES, &head, 9);
    uint64_t stream = 0;
    unsigned char chunk[3000];
    for (uint64_t n = 0; n < STRESS_RECORDS; n++) {
        size_t len = (size_t)(n * 37 % 700);
        for (size_t i = 0; i < len; i++) chunk[i] = byte_at(stream + i);
        size_t off = 0;
        while (off < len) {
            size_t wrote = goblin_ring_write(&q, chunk + off, len - off);
            /* On a shared 2-core machine, let the consumer run. */
            if (wrote == 0) sched_yield();
            off += wrote;
        }
        stream += len;
    }
    return (void *)(uintptr_t)stream;
}

int main(void)
{
    mem = aligned_alloc(64, QUEUE_BYTES);
    memset(mem, 0, QUEUE_BYTES);
    uint64_t expected_total = 0;
    for (uint64_t n = 0; n < STRESS_RECORDS; n++) expected_total += n * 37 % 700;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, producer, NULL) == 0);
    struct goblin_ring_queue q;
    goblin_ring_queue_init(&q, mem, QUEUE_BYTES, &head, 9);
    uint64_t got = 0, records = 0;
    while (got < expected_total) {
        struct goblin_ring_view r;
        bool ready = goblin_ring_peek(&q, &r);
        CHECK(!q.corrupt);
        if (!ready) {
            sched_yield();
            continue;
        }
        CHECK(r.kind == GOBLIN_RING_DATA);
        for (uint32_t i = 0; i < r.len; i++)
            CHECKF(r.payload[i] == byte_at(got + i), "byte %llu wrong",
                   (unsigned long long)(got + i));
        got += r.len;
        records++;
        goblin_ring_consume(&q, &r);
    }
    void *sent;
    pthread_join(t, &sent);
    CHECK_EQ_LL((uint64_t)(uintptr_t)sent, expected_total);
    printf("ring stress: %llu bytes in %llu records checked\n", (unsigned long long)got,
           (unsigned long long)records);
    free(mem);
    return 0;
}
