/* rand.c — state of the sampling generator; see rand.h. */
#include "util/rand.h"

uint64_t rand_state = 0x9E3779B97F4A7C15ULL;

void rand_seed(uint64_t seed)
{
    rand_state = seed ? seed : 0x9E3779B97F4A7C15ULL;
}
