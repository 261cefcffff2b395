/*
 * sample.h — helpers for drawing distinct random elements (HRANDFIELD,
 * ZRANDMEMBER with a positive count): a set of pointers already drawn.
 * Open addressing, sized by the caller to at least twice the draws, so it
 * never fills.
 */
#ifndef GOBLIN_SAMPLE_H
#define GOBLIN_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/xmalloc.h"

struct ptr_set {
    const void **slots;
    size_t mask;
};

static inline void ptr_set_init(struct ptr_set *s, size_t draws)
{
    size_t cap = 16;
    while (cap < draws * 2) cap <<= 1;
    s->slots = xcalloc(cap, sizeof(void *));
    s->mask = cap - 1;
}

static inline void ptr_set_free(struct ptr_set *s)
{
    xfree(s->slots);
}

/* Adds p; false when it was already there. */
static inline bool ptr_set_add(struct ptr_set *s, const void *p)
{
    size_t i = (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ULL >> 20) & s->mask;
    while (s->slots[i]) {
        if (s->slots[i] == p) return false;
        i = (i + 1) & s->mask;
    }
    s->slots[i] = p;
    return true;
}

struct dict;
struct dict_node;

/* Visits `count` distinct random nodes of d (count < dict_size(d)): a large
 * share by shuffling all nodes, a small one by redrawing repeats (each draw
 * dict_fair_random_node, as Redis's setTypeRandomElement). visit
 * returns false to stop. Shared by the hash and set types. */
void dict_sample_distinct(struct dict *d, size_t count,
                          bool (*visit)(struct dict_node *n, void *arg), void *arg);

/* Bytes of d's bucket arrays plus its nodes (allocator's view), measured
 * on `samples` nodes and extrapolated (0 = all). */
size_t dict_sampled_bytes(struct dict *d, size_t samples);

#endif
