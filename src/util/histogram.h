/*
 * histogram.h — an HDR histogram of nanosecond durations in the layout
 * Redis 7.0 gives its per-command latency histograms (hdr_init(1,
 * 1000000000, 2)): values from 1 ns to 1 s at two significant digits, in
 * 23 buckets of 128 sub-buckets each above a first bucket of 256 one-ns
 * slots, 3072 counters in all (24 KiB). Percentiles and the log-2
 * iteration LATENCY HISTOGRAM prints are HdrHistogram's, step for step,
 * so the same samples give Redis's numbers.
 *
 * Recording is a handful of instructions and touches one counter: no
 * allocation, no branch but the clamp to [1 ns, 1 s] (values outside are
 * recorded at the limits, as Redis records them).
 */
#ifndef GOBLIN_HISTOGRAM_H
#define GOBLIN_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#define HISTOGRAM_MIN_NS 1
#define HISTOGRAM_MAX_NS 1000000000
#define HISTOGRAM_SUB_BUCKET_HALF_MAGNITUDE 7 /* 128 sub-buckets per bucket above the first */
#define HISTOGRAM_SUB_BUCKET_COUNT 256
#define HISTOGRAM_COUNTS 3072 /* (23 buckets + 1) * 128 */

struct histogram {
    int64_t total;
    int64_t counts[HISTOGRAM_COUNTS];
};

/* HdrHistogram's counts_index_for() of this layout. */
static inline int histogram_index(uint64_t v)
{
    int bucket = 56 - __builtin_clzll(v | (HISTOGRAM_SUB_BUCKET_COUNT - 1));
    return ((bucket + 1) << HISTOGRAM_SUB_BUCKET_HALF_MAGNITUDE) + (int)(v >> bucket) -
           (HISTOGRAM_SUB_BUCKET_COUNT / 2);
}

static inline void histogram_record(struct histogram *h, uint64_t ns)
{
    ns = ns < HISTOGRAM_MIN_NS ? HISTOGRAM_MIN_NS : ns;
    ns = ns > HISTOGRAM_MAX_NS ? HISTOGRAM_MAX_NS : ns;
    h->counts[histogram_index(ns)]++;
    h->total++;
}

/* hdr_value_at_percentile: the highest value equivalent to the one at
 * `percentile` (0..100; the lowest one for 0); 0 for an empty histogram. */
int64_t histogram_value_at_percentile(const struct histogram *h, double percentile);

/* hdr_iter_log_init(h, first, 2) driven to the end: for each reporting
 * level (first, 2*first, 4*first, ...) the highest equivalent value of
 * the counter that reached it and the count of values up to there. */
struct histogram_log_iter {
    const struct histogram *h;
    int index;
    int64_t cumulative, value, highest_equivalent;
    int64_t next_level, next_level_lowest;
};
void histogram_log_iter_init(struct histogram_log_iter *it, const struct histogram *h,
                             int64_t first);
bool histogram_log_iter_next(struct histogram_log_iter *it);

#endif
