/*
 * output.h — goblin-bench's results: a table for people (stdout) and CSV
 * for the matrix scripts.
 *
 * CSV: one header row, then one row per operation; latencies in
 * microseconds with three decimals (nanosecond resolution), ops_per_sec with
 * one. Text fields never contain commas, quotes or newlines (goblin-bench
 * rejects such labels), so no quoting is needed. The header is fixed; the
 * matrix report reads columns by name.
 */
#ifndef GOBLIN_BENCH_OUTPUT_H
#define GOBLIN_BENCH_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "stats.h"

#define BENCH_CSV_HEADER                                                                           \
    "label,server,transport,wire,send_mode,op,samples,warmup,min_us,p50_us,p75_us,p90_us,"         \
    "p95_us,p99_us,p999_us,p9999_us,max_us,mean_us,ops_per_sec"

/* What identifies a configuration in every row. */
struct bench_run_meta {
    const char *label;
    const char *server;
    const char *transport;
    const char *wire;
    const char *send_mode; /* "na" when the transport has no send modes */
    uint64_t warmup;
};

void bench_csv_write_header(FILE *f);
void bench_csv_write_row(FILE *f, const struct bench_run_meta *meta, const char *op,
                         const struct bench_summary *s);

void bench_table_write_header(FILE *f, const struct bench_run_meta *meta);
void bench_table_write_row(FILE *f, const char *op, const struct bench_summary *s);

#endif
