/* hash.c — process hash seed. */
#include "util/hash.h"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t hash_seed = 0x9e3779b97f4a7c15ULL;

void hash_seed_init(void)
{
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != sizeof seed) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        seed = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid();
    }
    hash_seed = seed;
}
