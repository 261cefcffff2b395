/*
 * cycles.h — a cheap timestamp for per-command statistics (INFO
 * commandstats usec). On x86-64 the TSC (invariant on every CPU this server
 * targets) read without serialisation costs a few ns, against ~20 ns for a
 * clock_gettime pair; precision of a few cycles is plenty for statistics.
 * cycles_init() calibrates ticks per microsecond once at startup.
 */
#ifndef GOBLIN_CYCLES_H
#define GOBLIN_CYCLES_H

#include <stdint.h>

#include "util/clock.h"

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t cycles_now(void)
{
    return __rdtsc();
}
#else
static inline uint64_t cycles_now(void)
{
    return (uint64_t)clock_mono_ns();
}
#endif

extern double cycles_per_us;

/* Measures cycles_per_us over a few milliseconds. */
void cycles_init(void);

static inline long long cycles_to_us(uint64_t cycles)
{
    return (long long)((double)cycles / cycles_per_us);
}

#endif
