/* stats.c — nearest-rank percentiles and distribution summaries; see stats.h. */
#include "stats.h"

#include <stdlib.h>

const uint32_t bench_percentiles_ppm[BENCH_PERCENTILE_COUNT] = {
    500000, 750000, 900000, 950000, 990000, 999000, 999900,
};

uint64_t bench_percentile(const uint64_t *sorted, size_t n, uint32_t ppm)
{
    /* rank = ceil(ppm * n / 1e6), 1-based; ppm * n fits in 64 bits for any
     * n below 2^44 samples. */
    uint64_t rank = ((uint64_t)ppm * n + 999999) / 1000000;
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void bench_summarize(uint64_t *samples_ns, size_t n, struct bench_summary *out)
{
    qsort(samples_ns, n, sizeof *samples_ns, compare_u64);
    /* A uint64 of nanoseconds overflows after 584 years of measured time. */
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += samples_ns[i];
    out->samples = n;
    out->min_us = (double)samples_ns[0] / 1e3;
    out->max_us = (double)samples_ns[n - 1] / 1e3;
    for (int i = 0; i < BENCH_PERCENTILE_COUNT; i++)
        out->percentile_us[i] =
            (double)bench_percentile(samples_ns, n, bench_percentiles_ppm[i]) / 1e3;
    out->mean_us = (double)sum / (double)n / 1e3;
    out->ops_per_sec = out->mean_us > 0 ? 1e6 / out->mean_us : 0;
}
