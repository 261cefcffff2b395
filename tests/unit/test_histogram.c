/*
 * Unit test of util/histogram.h, the HDR layout of Redis's latency
 * histograms (1 ns .. 1 s, two significant digits). The expected numbers
 * are HdrHistogram's for hdr_init(1, 1000000000, 2), worked out by hand
 * from its bucket rules: 1000 ns is counted in [1000, 1003] (Redis's
 * familiar "p50=1.003"); 1e9 in [998244352, 1002438655]; the log walk
 * from 1024 ns reports at 1031, 2063, 4127, 8255 ns ...
 */
#include <stdlib.h>

#include "check.h"
#include "util/histogram.h"

static struct histogram *fresh(void)
{
    struct histogram *h = calloc(1, sizeof *h);
    CHECK(h != NULL);
    return h;
}

static void percentiles(void)
{
    struct histogram *h = fresh();
    histogram_record(h, 1000);
    CHECK_EQ_LL(h->total, 1);
    CHECK_EQ_LL(histogram_value_at_percentile(h, 50), 1003);
    CHECK_EQ_LL(histogram_value_at_percentile(h, 0), 1000);
    CHECK_EQ_LL(histogram_value_at_percentile(h, 100), 1003);
    /* Below 256 ns every nanosecond has its own counter. */
    histogram_record(h, 7);
    histogram_record(h, 7);
    CHECK_EQ_LL(histogram_value_at_percentile(h, 50), 7);
    CHECK_EQ_LL(histogram_value_at_percentile(h, 99.9), 1003);
    /* Out-of-range values are recorded at the limits. */
    struct histogram *c = fresh();
    histogram_record(c, 0);
    CHECK_EQ_LL(histogram_value_at_percentile(c, 50), 1);
    histogram_record(c, 5000000000ULL);
    histogram_record(c, 5000000000ULL);
    CHECK_EQ_LL(histogram_value_at_percentile(c, 99), 1002438655);
    CHECK_EQ_LL(histogram_value_at_percentile(c, 0), 1);
    /* count_at = (p/100 * total) + 0.5, truncated: 3 values, p50 is the 2nd. */
    CHECK_EQ_LL(histogram_value_at_percentile(c, 50), 1002438655);
    CHECK_EQ_LL(histogram_value_at_percentile(c, 16), 1);
    free(h);
    free(c);
}

static void log_walk(void)
{
    struct histogram *h = fresh();
    for (int i = 0; i < 3; i++) histogram_record(h, 500);
    for (int i = 0; i < 2; i++) histogram_record(h, 1500);
    histogram_record(h, 5000);
    struct histogram_log_iter it;
    histogram_log_iter_init(&it, h, 1024);
    /* (highest equivalent value, cumulative count) at each level reached. */
    static const long long want[][2] = {{1031, 3}, {2063, 5}, {4127, 5}, {8255, 6}};
    size_t n = 0;
    while (histogram_log_iter_next(&it)) {
        CHECKF(n < sizeof want / sizeof want[0], "walk went past %zu levels", n);
        CHECK_EQ_LL(it.highest_equivalent, want[n][0]);
        CHECK_EQ_LL(it.cumulative, want[n][1]);
        n++;
    }
    CHECK_EQ_LL((long long)n, 4);
    free(h);
}

int main(void)
{
    percentiles();
    log_walk();
    return 0;
}
