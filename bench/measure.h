/*
 * measure.h — the timed depth-one loop and the untimed request helper.
 */
#ifndef GOBLIN_BENCH_MEASURE_H
#define GOBLIN_BENCH_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "ops.h"
#include "transport.h"
#include "wire.h"

struct bench_measure_args {
    enum bench_op_id op;
    const struct bench_plan *plan;
    const struct bench_wire *wire;
    struct bench_conn *conn; /* requests and their replies */
    struct bench_conn *sub;  /* the subscriber (PUBSUB), else NULL */
    uint64_t warmup;
    uint64_t samples;
    uint64_t *samples_ns; /* samples entries, preallocated and touched */
    bool progress;        /* draw a percentage on stderr */
};

/*
 * Runs args->warmup then args->samples depth-one operations and stores each
 * measured round trip in samples_ns. Every reply (and delivery) of warmup
 * and measurement is compared with the exact expected bytes. On a mismatch
 * or a transport failure prints the op, the operation index, the expected
 * and the received bytes (escaped) to stderr and returns -1.
 */
int bench_measure(const struct bench_measure_args *args);

/*
 * Untimed: sends one request (argv) on conn and reads its reply. With
 * expected != NULL the reply must equal it exactly; otherwise it must not be
 * an error reply. `what` names the request in diagnostics. Returns 0, or -1
 * after printing what went wrong.
 */
int bench_call(struct bench_conn *conn, const struct bench_wire *wire, const char *what, int argc,
               const char *const *argv, const char *expected, size_t expected_len);

/* Untimed: reads one reply on conn and compares it with expected. */
int bench_expect(struct bench_conn *conn, const struct bench_wire *wire, const char *what,
                 const char *expected, size_t expected_len);

#endif
