/* latency.c — the latency monitor's time series; see latency.h. The
 * LATENCY command (commands/server/cmd_latency.c) reads them through
 * latency_events. */
#include "core/latency.h"
#include "core/config.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/latency_series.h"
#include "util/clock.h"
#include "util/cycles.h"
#include "util/xmalloc.h"

uint64_t latency_threshold_cycles = UINT64_MAX;
int64_t latency_threshold_us = INT64_MAX;
double latency_fork_rate_gb;
long long latency_total_forks;
int64_t latency_latest_fork_us;

struct latency_series latency_events[LATENCY_EVENTS_MAX];
int latency_event_count;

void latency_set_threshold(long long ms)
{
    if (ms <= 0) {
        latency_threshold_cycles = UINT64_MAX;
        latency_threshold_us = INT64_MAX;
        return;
    }
    latency_threshold_us = ms * 1000;
    latency_threshold_cycles = (uint64_t)((double)ms * 1000.0 * cycles_per_us);
}

struct latency_series *latency_find(const char *event, size_t len)
{
    for (int i = 0; i < latency_event_count; i++)
        if (strlen(latency_events[i].event) == len &&
            memcmp(latency_events[i].event, event, len) == 0)
            return &latency_events[i];
    return NULL;
}

void latency_add_sample(const char *event, long long ms)
{
    struct latency_series *ts = latency_find(event, strlen(event));
    if (!ts) {
        if (latency_event_count == LATENCY_EVENTS_MAX) return; /* the code names fewer */
        ts = &latency_events[latency_event_count++];
        memset(ts, 0, sizeof *ts);
        ts->event = event;
    }
    uint32_t latency = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
    int32_t now = (int32_t)(clock_unix_ms() / 1000);
    /* One sample per second: the same second keeps its maximum. */
    int prev = (ts->idx + LATENCY_SAMPLES - 1) % LATENCY_SAMPLES;
    if (ts->samples[prev].time == now) {
        /* Redis leaves max alone here (a later second may raise it). */
        if (latency > ts->samples[prev].latency) ts->samples[prev].latency = latency;
        return;
    }
    ts->samples[ts->idx].time = now;
    ts->samples[ts->idx].latency = latency;
    if (latency > ts->max) ts->max = latency;
    ts->idx = (ts->idx + 1) % LATENCY_SAMPLES;
}

void latency_record_command(bool fast, uint64_t cycles)
{
    latency_add_sample(fast ? "fast-command" : "command", cycles_to_us(cycles) / 1000);
}

void latency_record_fork(int64_t us)
{
    latency_total_forks++;
    latency_latest_fork_us = us;
    if (us > 0)
        latency_fork_rate_gb =
            (double)xmalloc_used_bytes() * 1000000 / (double)us / (1024.0 * 1024 * 1024);
    latency_consider("fork", us);
}

int latency_reset(const char *event, size_t len)
{
    int resets = 0;
    for (int i = 0; i < latency_event_count;) {
        if (!event || (strlen(latency_events[i].event) == len &&
                       strncasecmp(latency_events[i].event, event, len) == 0)) {
            memmove(&latency_events[i], &latency_events[i + 1],
                    (size_t)(latency_event_count - i - 1) * sizeof latency_events[0]);
            latency_event_count--;
            resets++;
        } else {
            i++;
        }
    }
    return resets;
}

static void apply_latency_monitor_threshold(void)
{
    latency_set_threshold(config.latency_monitor_threshold);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param latency_params[] = {
    {.name = "latency-monitor-threshold",
     .kind = CFG_INT,
     .value = &config.latency_monitor_threshold,
     .max = LLONG_MAX,
     .value_name = "MS",
     .help = "LATENCY records events (commands, expire and eviction cycles, forks, AOF writes) "
             "that took at least this long; 0 = off (default 0; docs/introspection.md)",
     .apply = apply_latency_monitor_threshold},
};

const struct config_table latency_config = CONFIG_TABLE(latency_params, NULL);
