/* Unit: goblin-bench's nearest-rank percentiles and summaries (bench/stats.c)
 * against hand-computed values, including tiny sample counts and ties. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "stats.h"

#define P50 500000
#define P75 750000
#define P90 900000
#define P95 950000
#define P99 990000
#define P999 999000
#define P9999 999900

static void check_close(double got, double want)
{
    CHECKF(fabs(got - want) < 1e-9, "got %.12f, want %.12f", got, want);
}

/* rank = ceil(p * n), 1-based, always an observed value. */
static void test_small_counts(void)
{
    const uint64_t one[] = {7};
    CHECK_EQ_LL(bench_percentile(one, 1, P50), 7);
    CHECK_EQ_LL(bench_percentile(one, 1, P9999), 7);
    CHECK_EQ_LL(bench_percentile(one, 1, 1), 7);

    const uint64_t two[] = {10, 20};
    CHECK_EQ_LL(bench_percentile(two, 2, P50), 10); /* rank 1: the lower middle */
    CHECK_EQ_LL(bench_percentile(two, 2, P75), 20); /* ceil(1.5) = 2 */
    CHECK_EQ_LL(bench_percentile(two, 2, P9999), 20);

    const uint64_t three[] = {1, 2, 3};
    CHECK_EQ_LL(bench_percentile(three, 3, P50), 2);    /* ceil(1.5) = 2 */
    CHECK_EQ_LL(bench_percentile(three, 3, P75), 3);    /* ceil(2.25) = 3 */
    CHECK_EQ_LL(bench_percentile(three, 3, 333333), 1); /* ceil(0.999999) = 1 */
    CHECK_EQ_LL(bench_percentile(three, 3, 333334), 2); /* ceil(1.000002) = 2 */

    const uint64_t four[] = {1, 2, 3, 4};
    CHECK_EQ_LL(bench_percentile(four, 4, P50), 2); /* exactly rank 2, not 2.5 */
    CHECK_EQ_LL(bench_percentile(four, 4, P75), 3); /* exactly rank 3 */
    CHECK_EQ_LL(bench_percentile(four, 4, P90), 4); /* ceil(3.6) = 4 */

    const uint64_t ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    CHECK_EQ_LL(bench_percentile(ten, 10, P50), 5);
    CHECK_EQ_LL(bench_percentile(ten, 10, P75), 8); /* ceil(7.5) */
    CHECK_EQ_LL(bench_percentile(ten, 10, P90), 9); /* exactly 9 */
    CHECK_EQ_LL(bench_percentile(ten, 10, P95), 10);
    CHECK_EQ_LL(bench_percentile(ten, 10, 1000000), 10);
}

static void test_ties(void)
{
    const uint64_t a[] = {5, 5, 5, 9};
    CHECK_EQ_LL(bench_percentile(a, 4, P50), 5);
    CHECK_EQ_LL(bench_percentile(a, 4, P75), 5);
    CHECK_EQ_LL(bench_percentile(a, 4, P90), 9);

    const uint64_t b[] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 100};
    CHECK_EQ_LL(bench_percentile(b, 10, P90), 3);   /* rank 9 */
    CHECK_EQ_LL(bench_percentile(b, 10, P95), 100); /* rank 10 */

    const uint64_t all_same[] = {4, 4, 4, 4, 4};
    for (int i = 0; i < BENCH_PERCENTILE_COUNT; i++)
        CHECK_EQ_LL(bench_percentile(all_same, 5, bench_percentiles_ppm[i]), 4);
}

/* The seeds' count: p99.99 of 200,000 is rank 199,980 (20 observations at
 * or above it), p99.9 rank 199,800, p99 rank 198,000. Values equal ranks. */
static void test_seed_sized_run(void)
{
    size_t n = 200000;
    uint64_t *v = malloc(n * sizeof *v);
    CHECK(v);
    for (size_t i = 0; i < n; i++) v[i] = i + 1;
    CHECK_EQ_LL(bench_percentile(v, n, P50), 100000);
    CHECK_EQ_LL(bench_percentile(v, n, P99), 198000);
    CHECK_EQ_LL(bench_percentile(v, n, P999), 199800);
    CHECK_EQ_LL(bench_percentile(v, n, P9999), 199980);
    /* One more sample moves p99.99 to rank ceil(0.9999 * 200001) = 199981. */
    uint64_t *w = realloc(v, (n + 1) * sizeof *w);
    CHECK(w);
    w[n] = n + 1;
    CHECK_EQ_LL(bench_percentile(w, n + 1, P9999), 199981); /* ceil(199980.9999) */
    free(w);
}

static void test_summary(void)
{
    /* Unsorted nanoseconds; summary sorts in place and reports microseconds. */
    uint64_t ns[] = {6000, 1000, 3000, 2000};
    struct bench_summary s;
    bench_summarize(ns, 4, &s);
    CHECK_EQ_LL(s.samples, 4);
    CHECK_EQ_LL(ns[0], 1000);
    CHECK_EQ_LL(ns[3], 6000);
    check_close(s.min_us, 1.0);
    check_close(s.max_us, 6.0);
    check_close(s.percentile_us[0], 2.0); /* p50: rank 2 */
    check_close(s.percentile_us[1], 3.0); /* p75: rank 3 */
    check_close(s.percentile_us[2], 6.0); /* p90: rank 4 */
    check_close(s.percentile_us[6], 6.0); /* p99.99 */
    check_close(s.mean_us, 3.0);
    check_close(s.ops_per_sec, 1e6 / 3.0);

    /* Sub-microsecond resolution survives (ns / 1e3). */
    uint64_t fine[] = {1234, 1235, 99999};
    bench_summarize(fine, 3, &s);
    check_close(s.min_us, 1.234);
    check_close(s.percentile_us[0], 1.235);
    check_close(s.mean_us, (1234.0 + 1235.0 + 99999.0) / 3.0 / 1e3);
}

int main(void)
{
    CHECK_EQ_LL(bench_percentiles_ppm[0], P50);
    CHECK_EQ_LL(bench_percentiles_ppm[6], P9999);
    test_small_counts();
    test_ties();
    test_seed_sized_run();
    test_summary();
    return 0;
}
