/*
 * hash.h — the keyed hash used by every hash table (keyspace, hash fields,
 * sorted-set members, Pub/Sub channels).
 *
 * XXH3-64 from Debian's libxxhash, inlined, with a per-process random seed
 * chosen at startup so peers cannot precompute colliding keys.
 */
#ifndef GOBLIN_HASH_H
#define GOBLIN_HASH_H

#include <stddef.h>
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

extern uint64_t hash_seed;

/* Draws the process seed from getrandom(); call once before any table exists. */
void hash_seed_init(void);

static inline uint64_t hash_bytes(const void *p, size_t n)
{
    return XXH3_64bits_withSeed(p, n, hash_seed);
}

#endif
