/*
 * rand.h — fast non-cryptographic randomness for sampling (HRANDFIELD,
 * ZRANDMEMBER, MEMORY USAGE samples). xorshift64*: spread, not secrecy;
 * one process-wide state (the server is single-threaded).
 */
#ifndef GOBLIN_RAND_H
#define GOBLIN_RAND_H

#include <stdint.h>

extern uint64_t rand_state;

/* Reseeds (tests make runs reproducible with it); 0 is mapped to a constant. */
void rand_seed(uint64_t seed);

static inline uint64_t rand_u64(void)
{
    uint64_t x = rand_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rand_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n) for n > 0 (multiply-shift: no modulo bias worth noting). */
static inline uint64_t rand_below(uint64_t n)
{
    return (uint64_t)(((unsigned __int128)rand_u64() * n) >> 64);
}

#endif
