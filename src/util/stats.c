/* stats.c — the one instance of the server's counters; see stats.h. */
#include "util/stats.h"

struct stats stats;
