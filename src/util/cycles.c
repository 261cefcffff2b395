/* cycles.c — calibration of cycles_now() against the monotonic clock. */
#include "util/cycles.h"

#include <time.h>

double cycles_per_us = 1000.0;

void cycles_init(void)
{
    int64_t t0 = clock_mono_ns();
    uint64_t c0 = cycles_now();
    struct timespec nap = {0, 5 * 1000 * 1000};
    nanosleep(&nap, NULL);
    int64_t t1 = clock_mono_ns();
    uint64_t c1 = cycles_now();
    if (t1 > t0 && c1 > c0) cycles_per_us = (double)(c1 - c0) * 1000.0 / (double)(t1 - t0);
}
