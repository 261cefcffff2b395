/*
 * latency_series.h — the latency monitor's stored series, for the LATENCY
 * command (commands/server/cmd_latency.c); writers use latency.h only.
 */
#ifndef GOBLIN_LATENCY_SERIES_H
#define GOBLIN_LATENCY_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "core/latency.h"

struct latency_sample {
    int32_t time;     /* unix seconds; 0 = empty slot */
    uint32_t latency; /* milliseconds: that second's maximum */
};

/* One event class: a ring of samples, idx the next slot to write. */
struct latency_series {
    const char *event;
    int idx;
    uint32_t max; /* all-time maximum, milliseconds */
    struct latency_sample samples[LATENCY_SAMPLES];
};

/* The classes seen since start (or the last LATENCY RESET), in order of
 * first sample. */
extern struct latency_series latency_events[LATENCY_EVENTS_MAX];
extern int latency_event_count;

/* The last fork's rate: GB of used memory per second of fork(). */
extern double latency_fork_rate_gb;

/* The series of an event name (exact, case-sensitive as Redis's); NULL if none. */
struct latency_series *latency_find(const char *event, size_t len);

/* Drops the series named `event` (case-insensitive), every series when
 * NULL; returns how many were dropped. */
int latency_reset(const char *event, size_t len);

#endif
