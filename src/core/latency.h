/*
 * latency.h — Redis's latency monitor (LATENCY DOCTOR/HISTORY/LATEST/
 * RESET/GRAPH): per event class ("command", "fast-command",
 * "expire-cycle", "eviction-cycle", "fork", "aof-fsync-always",
 * "aof-write"), the last LATENCY_SAMPLES per-second maxima of the
 * durations that reached latency-monitor-threshold milliseconds, and the
 * all-time maximum, as Redis 7.0 keeps them.
 *
 * Cost when off (threshold 0, the default): one compare per call site
 * against a threshold kept in cycles or microseconds (LLONG/UINT64 max
 * when off); recording is out of line and allocation-free (a fixed table
 * of at most LATENCY_EVENTS_MAX classes, named by the code, never by a
 * peer).
 */
#ifndef GOBLIN_LATENCY_H
#define GOBLIN_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

#define LATENCY_SAMPLES 160
#define LATENCY_EVENTS_MAX 16

/* The threshold: in cycles (commands) and microseconds (the rest);
 * UINT64_MAX / INT64_MAX when monitoring is off. */
extern uint64_t latency_threshold_cycles;
extern int64_t latency_threshold_us;

/* Sets the thresholds from latency-monitor-threshold (milliseconds, 0 =
 * off): CONFIG SET, and at startup once the cycle counter is calibrated.
 * (The monitor reads no configuration itself, so the store's modules that
 * report events link without the server's.) */
void latency_set_threshold(long long ms);

/* Records a sample of `ms` milliseconds for `event` (a string literal). */
void latency_add_sample(const char *event, long long ms);

/* A command that ran for `cycles`: "fast-command" or "command". */
void latency_record_command(bool fast, uint64_t cycles);

static inline void latency_consider_command(bool fast, uint64_t cycles)
{
    if (__builtin_expect(cycles >= latency_threshold_cycles, 0))
        latency_record_command(fast, cycles);
}

/* Whether monitoring is on: callers that must read a clock to measure
 * test this first, so the off path costs one branch. */
static inline bool latency_enabled(void)
{
    return latency_threshold_us != INT64_MAX;
}

/* Any other event that lasted `us` microseconds. */
static inline void latency_consider(const char *event, int64_t us)
{
    if (__builtin_expect(us >= latency_threshold_us, 0)) latency_add_sample(event, us / 1000);
}

/* A fork that took `us` microseconds: the "fork" event, the fork rate
 * (GB of memory per second of fork) LATENCY DOCTOR judges, and INFO's
 * total_forks / latest_fork_usec (CONFIG RESETSTAT zeroes them). */
void latency_record_fork(int64_t us);
extern long long latency_total_forks;
extern int64_t latency_latest_fork_us;

/* The latency-monitor-threshold setting (core/config.h). */
struct config_table;
extern const struct config_table latency_config;

#endif
