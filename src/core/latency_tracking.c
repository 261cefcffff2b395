/* latency_tracking.c — per-command latency histograms and the percentiles
 * INFO prints; see latency_tracking.h. */
#include "core/latency_tracking.h"
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cycles.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

bool latency_tracking = true;
uint64_t latency_ns_per_cycle_q32 = 1ULL << 32;

static double default_percentiles[] = {50.0, 99.0, 99.9};
double *latency_tracking_percentiles = default_percentiles;
int latency_tracking_percentile_count = 3;
char *latency_tracking_percentiles_text;

void latency_tracking_calibrate(void)
{
    latency_ns_per_cycle_q32 = (uint64_t)(1000.0 / cycles_per_us * 4294967296.0);
}

struct histogram *latency_tracking_create(struct histogram **slot)
{
    *slot = xcalloc(1, sizeof **slot);
    return *slot;
}

void latency_tracking_release(struct histogram **slot)
{
    xfree(*slot);
    *slot = NULL;
}

/* Redis's "%f" with the trailing zeros (and dot) trimmed: 50, 99.9. */
static size_t format_percentile(char *out, size_t cap, double p)
{
    int n = snprintf(out, cap, "%f", p);
    if (n < 0 || (size_t)n >= cap) return 0;
    if (strchr(out, '.')) {
        while (out[n - 1] == '0') n--;
        if (out[n - 1] == '.') n--;
    }
    out[n] = '\0';
    return (size_t)n;
}

/* Splits text on spaces into percentiles; NULL or the reason. *out gets
 * a new array (NULL when there are none) when `out` is given. */
static const char *parse_percentiles(const char *text, double **out, int *count)
{
    int n = 0;
    double *values = NULL;
    for (const char *p = text; *p;) {
        while (*p == ' ') p++;
        if (!*p) break;
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        double v;
        const char *why = NULL;
        if (!num_parse_double(p, len, &v))
            why = "Invalid latency-tracking-info-percentiles parameters";
        else if (v > 100.0 || v < 0.0)
            why = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
        if (why) {
            xfree(values);
            return why;
        }
        values = xrealloc(values, sizeof *values * (size_t)(n + 1));
        values[n++] = v;
        p += len;
    }
    if (out)
        *out = values;
    else
        xfree(values);
    *count = n;
    return NULL;
}

const char *latency_tracking_validate_percentiles(const char *text)
{
    int n;
    return parse_percentiles(text, NULL, &n);
}

void latency_tracking_apply_percentiles(void)
{
    double *values;
    int n;
    if (parse_percentiles(latency_tracking_percentiles_text, &values, &n)) return; /* validated */
    if (latency_tracking_percentiles != default_percentiles) xfree(latency_tracking_percentiles);
    latency_tracking_percentiles = values;
    latency_tracking_percentile_count = n;
    /* CONFIG GET shows the values as Redis prints them back. */
    char *text = xmalloc((size_t)n * 40 + 1);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        if (i) text[used++] = ' ';
        used += format_percentile(text + used, 40, values[i]);
    }
    text[used] = '\0';
    xfree(latency_tracking_percentiles_text);
    latency_tracking_percentiles_text = text;
}

void latency_tracking_format(const char *name, const struct histogram *h, char *out, size_t cap)
{
    size_t used = (size_t)snprintf(out, cap, "latency_percentiles_usec_%s:", name);
    for (int i = 0; i < latency_tracking_percentile_count && used < cap; i++) {
        char p[40];
        format_percentile(p, sizeof p, latency_tracking_percentiles[i]);
        double usec =
            (double)histogram_value_at_percentile(h, latency_tracking_percentiles[i]) / 1000.0;
        used += (size_t)snprintf(out + used, cap - used, "%sp%s=%.3f", i ? "," : "", p, usec);
    }
    if (used >= cap) out[cap - 1] = '\0';
}

static void latency_tracking_defaults(void)
{
    latency_tracking_percentiles_text = xstrdup("50 99 99.9");
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param latency_tracking_params[] = {
    {.name = "latency-tracking",
     .kind = CFG_BOOL,
     .value = &latency_tracking,
     .value_name = "yes|no",
     .help = "a latency histogram per command, for LATENCY HISTOGRAM and INFO latencystats "
             "(default yes)"},
    {.name = "latency-tracking-info-percentiles",
     .kind = CFG_STRING,
     .value = &latency_tracking_percentiles_text,
     .flags = CFG_MULTI_ARG,
     .value_name = "\"P ...\"",
     .help = "percentiles INFO latencystats prints (default \"50 99 99.9\")",
     .apply = latency_tracking_apply_percentiles,
     .validate = latency_tracking_validate_percentiles},
};

const struct config_table latency_tracking_config =
    CONFIG_TABLE(latency_tracking_params, latency_tracking_defaults);
