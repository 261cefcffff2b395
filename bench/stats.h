/*
 * stats.h — the summary of one latency distribution.
 *
 * Every sample is kept (nanoseconds, one uint64 per measured operation) and
 * summarized once, after measurement.
 *
 * Percentile method: nearest rank. With the n samples sorted ascending
 * (x[1] <= ... <= x[n]), the p-th percentile is x[ceil(p/100 * n)], the
 * smallest sample such that at least p% of all samples are <= it. It is
 * always an observed value, never an interpolation, so "p99.99 of 200,000
 * samples" is the 199,980th smallest and exactly 20 observations lie at or
 * above it (the seeds' reading). For an even n the p50 is the lower middle
 * sample. The rank is computed in integer arithmetic from the percentile in
 * parts per million, so p99.99 of 200,000 is rank 199,980 exactly, without
 * floating-point rounding nudging it to the next rank.
 */
#ifndef GOBLIN_BENCH_STATS_H
#define GOBLIN_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* p50, p75, p90, p95, p99, p99.9, p99.99 */
#define BENCH_PERCENTILE_COUNT 7

/* The reported percentiles in parts per million (500000 = p50). */
extern const uint32_t bench_percentiles_ppm[BENCH_PERCENTILE_COUNT];

/* Nearest-rank percentile of sorted[0..n), n >= 1, 0 < ppm <= 1000000. */
uint64_t bench_percentile(const uint64_t *sorted, size_t n, uint32_t ppm);

struct bench_summary {
    size_t samples;
    double min_us;
    double percentile_us[BENCH_PERCENTILE_COUNT]; /* in bench_percentiles_ppm order */
    double max_us;
    double mean_us;
    double ops_per_sec; /* sequential: 1e6 / mean_us */
};

/* Sorts samples_ns[0..n) in place (n >= 1) and summarizes it. */
void bench_summarize(uint64_t *samples_ns, size_t n, struct bench_summary *out);

#endif
