/*
 * goblin-cacheline-floor — the physical floor of a shared-memory round trip:
 * two threads on two CPUs bouncing cache lines, timed like goblin-bench
 * (CLOCK_MONOTONIC around each depth-one round trip, same statistics, same
 * CSV). No server, no protocol: what a ring round trip cannot beat.
 *
 *   LINE  one line: the client writes n, the server thread waits for n and
 *         writes n+1 into the same line, the client waits for n+1.
 *   ECHO  the SQ/CQ shape (reported as op ECHO, so bench/report.py divides
 *         ring configurations by it): the client writes n into the
 *         SQ line, the server thread waits for it and writes n into a separate
 *         CQ line, the client waits for it — as a ring request and reply do.
 *   RECORD  the ring protocol itself (include/goblin/ring_layout.h, 64 KiB
 *         queues in this process): the client writes the 14 bytes of a RESP
 *         PING as an SQ record, the server thread takes it (peek, copy aside,
 *         consume; prefetching while it waits, as the server does) and writes
 *         it back as a CQ record, the client copies it out and checks it.
 *         What a ring server answering at once, with no work at all, would
 *         take (one that works first pays more than its work: docs/sbe.md).
 *
 *   goblin-cacheline-floor --client-cpu A --server-cpu B [--samples N] [--warmup N]
 *                          [--label L] [--csv FILE]
 */
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <goblin/ring_layout.h>

#include "output.h"
#include "stats.h"

struct lines {
    alignas(64) _Atomic uint64_t sq; /* LINE mode uses only this one */
    alignas(64) _Atomic uint64_t cq;
    alignas(64) _Atomic int mode; /* 0 = stop, 1 = LINE, 2 = SQ/CQ, 3 = RECORD */
    /* RECORD: the queues' consumer positions, each on its own line. */
    alignas(64) _Atomic uint64_t sq_head;
    alignas(64) _Atomic uint64_t cq_head;
};

static struct lines shared;
static int server_cpu = -1;

static void pin(int cpu)
{
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("goblin-cacheline-floor: sched_setaffinity");
        exit(1);
    }
}

static inline void relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
}

/* RECORD: one SQ and one CQ of RECORD_QUEUE_BYTES each; each side has its
 * own view of both, as a client and the server do. */
#define RECORD_QUEUE_BYTES 65536u
static const char record_message[] = "*1\r\n$4\r\nPING\r\n";
static struct goblin_ring_queue server_sq, server_cq, client_sq, client_cq;
static unsigned char *record_memory;

static void records_init(void)
{
    unsigned char *mem = record_memory = aligned_alloc(4096, 2 * RECORD_QUEUE_BYTES);
    if (!mem) {
        perror("goblin-cacheline-floor: queues");
        exit(1);
    }
    memset(mem, 0, 2 * RECORD_QUEUE_BYTES);
    unsigned char *cq = mem + RECORD_QUEUE_BYTES;
    goblin_ring_queue_init(&server_sq, mem, RECORD_QUEUE_BYTES, &shared.sq_head, 1);
    goblin_ring_queue_init(&client_sq, mem, RECORD_QUEUE_BYTES, &shared.sq_head, 1);
    goblin_ring_queue_init(&server_cq, cq, RECORD_QUEUE_BYTES, &shared.cq_head, 1);
    goblin_ring_queue_init(&client_cq, cq, RECORD_QUEUE_BYTES, &shared.cq_head, 1);
}

/* The server side of one RECORD poll: echoes a waiting record. */
static void record_serve(void)
{
    struct goblin_ring_view v;
    if (!goblin_ring_peek(&server_sq, &v)) {
        goblin_ring_prefetch_next(&server_sq);
        relax();
        return;
    }
    unsigned char msg[64];
    size_t n = v.len < sizeof msg ? v.len : sizeof msg;
    memcpy(msg, v.payload, n);
    goblin_ring_consume(&server_sq, &v);
    while (goblin_ring_write(&server_cq, msg, n) != n) relax();
}

/* The "server" thread: answers every n it sees. Acquire/release so the
 * bounce orders like a ring's tag publication does. */
static void *server_thread(void *arg)
{
    (void)arg;
    pin(server_cpu);
    uint64_t seen = 0;
    for (;;) {
        int mode = atomic_load_explicit(&shared.mode, memory_order_acquire);
        if (mode == 0) return NULL;
        if (mode == 3) {
            record_serve();
            continue;
        }
        uint64_t v = atomic_load_explicit(&shared.sq, memory_order_acquire);
        if (v == seen || (v & 1) == 0) {
            relax();
            continue;
        }
        seen = v;
        if (mode == 1)
            atomic_store_explicit(&shared.sq, v + 1, memory_order_release);
        else
            atomic_store_explicit(&shared.cq, v, memory_order_release);
    }
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* RECORD, the client side: one request record out, its echo back, checked. */
static void record_round_trip(void)
{
    size_t len = sizeof record_message - 1;
    while (goblin_ring_write(&client_sq, record_message, len) != len) relax();
    struct goblin_ring_view v;
    while (!goblin_ring_peek(&client_cq, &v)) relax();
    unsigned char got[64];
    size_t n = v.len < sizeof got ? v.len : sizeof got;
    memcpy(got, v.payload, n);
    goblin_ring_consume(&client_cq, &v);
    if (n != len || memcmp(got, record_message, len) != 0) {
        fprintf(stderr, "goblin-cacheline-floor: RECORD echo differs\n");
        exit(1);
    }
}

/* Runs warmup + samples round trips in `mode`; fills samples_ns. */
static void measure(int mode, uint64_t warmup, uint64_t *samples_ns, uint64_t samples,
                    uint64_t *counter)
{
    atomic_store_explicit(&shared.mode, mode, memory_order_release);
    for (uint64_t i = 0; i < warmup + samples; i++) {
        uint64_t n = (*counter += 2) | 1; /* odd: "a request" */
        uint64_t start = now_ns();
        if (mode == 3) {
            record_round_trip();
            uint64_t end = now_ns();
            if (i >= warmup) samples_ns[i - warmup] = end - start;
            continue;
        }
        atomic_store_explicit(&shared.sq, n, memory_order_release);
        if (mode == 1) {
            while (atomic_load_explicit(&shared.sq, memory_order_acquire) != n + 1) relax();
        } else {
            while (atomic_load_explicit(&shared.cq, memory_order_acquire) != n) relax();
        }
        uint64_t end = now_ns();
        if (i >= warmup) samples_ns[i - warmup] = end - start;
    }
}

int main(int argc, char **argv)
{
    int client_cpu = -1;
    uint64_t samples = 200000, warmup = 20000;
    const char *label = "floor-ring", *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--client-cpu") && more)
            client_cpu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--server-cpu") && more)
            server_cpu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--samples") && more)
            samples = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--warmup") && more)
            warmup = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--label") && more)
            label = argv[++i];
        else if (!strcmp(argv[i], "--csv") && more)
            csv_path = argv[++i];
        else {
            fprintf(stderr, "usage: goblin-cacheline-floor --client-cpu A --server-cpu B "
                            "[--samples N] [--warmup N] [--label L] [--csv FILE]\n");
            return 2;
        }
    }
    if (samples == 0) return 2;
    uint64_t *buf = malloc(sizeof *buf * samples);
    if (!buf) return 1;
    atomic_store(&shared.mode, 1);
    pthread_t t;
    if (pthread_create(&t, NULL, server_thread, NULL) != 0) return 1;
    pin(client_cpu);

    struct bench_run_meta meta = {.label = label,
                                  .server = "floor",
                                  .transport = "ring",
                                  .wire = "resp",
                                  .send_mode = "na",
                                  .warmup = warmup};
    FILE *csv = NULL;
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            perror(csv_path);
            return 1;
        }
        bench_csv_write_header(csv);
    }
    bench_table_write_header(stdout, &meta);
    static const struct {
        const char *op;
        int mode;
    } runs[] = {{"LINE", 1}, {"ECHO", 2}, {"RECORD", 3}};
    records_init();
    uint64_t counter = 0;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        struct bench_summary s;
        measure(runs[r].mode, warmup, buf, samples, &counter);
        bench_summarize(buf, samples, &s);
        bench_table_write_row(stdout, runs[r].op, &s);
        if (csv) bench_csv_write_row(csv, &meta, runs[r].op, &s);
    }
    atomic_store_explicit(&shared.mode, 0, memory_order_release);
    pthread_join(t, NULL);
    if (csv) fclose(csv);
    free(record_memory);
    free(buf);
    return 0;
}
