/* output.c — table and CSV writers; see output.h. */
#include "output.h"

void bench_csv_write_header(FILE *f)
{
    fputs(BENCH_CSV_HEADER "\n", f);
}

void bench_csv_write_row(FILE *f, const struct bench_run_meta *meta, const char *op,
                         const struct bench_summary *s)
{
    fprintf(f, "%s,%s,%s,%s,%s,%s,%zu,%llu,%.3f", meta->label, meta->server, meta->transport,
            meta->wire, meta->send_mode, op, s->samples, (unsigned long long)meta->warmup,
            s->min_us);
    for (int i = 0; i < BENCH_PERCENTILE_COUNT; i++) fprintf(f, ",%.3f", s->percentile_us[i]);
    fprintf(f, ",%.3f,%.3f,%.1f\n", s->max_us, s->mean_us, s->ops_per_sec);
    fflush(f); /* a later failure must not lose the rows already measured */
}

void bench_table_write_header(FILE *f, const struct bench_run_meta *meta)
{
    fprintf(f, "# %s: server %s, transport %s, wire %s, send mode %s; latency in microseconds\n",
            meta->label, meta->server, meta->transport, meta->wire, meta->send_mode);
    fprintf(f, "%-7s %8s %9s %9s %9s %9s %9s %9s %9s %9s %10s %9s %10s\n", "op", "samples", "min",
            "p50", "p75", "p90", "p95", "p99", "p99.9", "p99.99", "max", "mean", "ops/s");
}

void bench_table_write_row(FILE *f, const char *op, const struct bench_summary *s)
{
    fprintf(f, "%-7s %8zu %9.2f", op, s->samples, s->min_us);
    for (int i = 0; i < BENCH_PERCENTILE_COUNT; i++) fprintf(f, " %9.2f", s->percentile_us[i]);
    fprintf(f, " %10.2f %9.2f %10.0f\n", s->max_us, s->mean_us, s->ops_per_sec);
    fflush(f);
}
