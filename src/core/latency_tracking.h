/*
 * latency_tracking.h — Redis 7.0's latency-tracking: a histogram of every
 * command's run time (LATENCY HISTOGRAM, INFO latencystats), on by
 * default as in Redis.
 *
 * Cost per command while on: one branch on the setting, one multiply to
 * turn the cycle count command_run already took into nanoseconds, and
 * histogram_record() (a count-leading-zeros, a shift and two increments).
 * Off: the one branch. The first call of a command allocates its
 * histogram (24 KiB, util/histogram.h), as Redis allocates it on first
 * use: a command never called costs nothing, and after that first call
 * the command records without allocating (until CONFIG RESETSTAT frees
 * every histogram, as Redis frees them).
 */
#ifndef GOBLIN_LATENCY_TRACKING_H
#define GOBLIN_LATENCY_TRACKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/histogram.h"

/* latency-tracking (default yes). */
extern bool latency_tracking;

/* Nanoseconds per cycle in 32.32 fixed point (latency_tracking_calibrate). */
extern uint64_t latency_ns_per_cycle_q32;

/* latency-tracking-info-percentiles: the percentiles INFO latencystats
 * prints (default 50 99 99.9), and the parameter's text. */
extern double *latency_tracking_percentiles;
extern int latency_tracking_percentile_count;
extern char *latency_tracking_percentiles_text;

/* Once the cycle counter is calibrated (util/cycles.h). */
void latency_tracking_calibrate(void);

/* The config parameter's hooks: the reason a text is refused (Redis's
 * words), and taking a valid one (the text normalised as Redis prints it). */
const char *latency_tracking_validate_percentiles(const char *text);
void latency_tracking_apply_percentiles(void);

/* Allocates a command's histogram on its first call (out of line). */
struct histogram *latency_tracking_create(struct histogram **slot);

static inline void latency_track_command(struct histogram **slot, uint64_t cycles)
{
    if (!latency_tracking) return;
    struct histogram *h = *slot;
    if (__builtin_expect(h == NULL, 0)) h = latency_tracking_create(slot);
    histogram_record(h, (uint64_t)(((unsigned __int128)cycles * latency_ns_per_cycle_q32) >> 32));
}

/* Frees a histogram (CONFIG RESETSTAT) and clears its slot. */
void latency_tracking_release(struct histogram **slot);

/* INFO latencystats' line for one histogram: "latency_percentiles_usec_
 * <name>:p50=1.003,p99=..." (no CRLF), into out (cap bytes). */
void latency_tracking_format(const char *name, const struct histogram *h, char *out, size_t cap);

/* Settings (core/config.h): latency-tracking, latency-tracking-info-percentiles. */
struct config_table;
extern const struct config_table latency_tracking_config;

#endif
