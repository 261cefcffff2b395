/*
 * zset_combine.h — union, intersection and difference of sorted sets
 * (ZUNION/ZINTER/ZDIFF, their STORE forms, ZINTERCARD), typed and
 * protocol-free.
 *
 * Redis's arithmetic is kept exactly, because floating-point sums depend on
 * their order: for union and intersection the inputs are visited from the
 * smallest to the largest (stable for equal sizes), each input's members in
 * score order; a weighted score that is NaN (0 * inf) counts as 0, and a
 * SUM that becomes NaN (inf + -inf) is 0. A plain set takes part as a
 * sorted set whose members all score 1, visited in its own order (which
 * changes no result: sums of weights are exact in any order).
 */
#ifndef GOBLIN_ZSET_COMBINE_H
#define GOBLIN_ZSET_COMBINE_H

#include <stddef.h>

#include "store/set.h"
#include "store/zset.h"

enum zset_combine_op { ZSET_UNION, ZSET_INTER, ZSET_DIFF };
enum zset_aggregate { ZSET_AGGREGATE_SUM, ZSET_AGGREGATE_MIN, ZSET_AGGREGATE_MAX };

struct zset_input {
    struct zset *set;  /* NULL for a missing key (an empty set) or a plain set */
    struct set *plain; /* a plain set: every member scores 1 (else NULL) */
    double weight;     /* ignored by ZSET_DIFF */
};

/* A new set holding the result (possibly empty; the caller owns it), in
 * the indexed encoding (a store makes it compact when it fits, see
 * zset_compact_if_small). The inputs may be reordered. */
struct zset *zset_combine(enum zset_combine_op op, struct zset_input *in, size_t n,
                          enum zset_aggregate aggregate);

/* Size of the intersection, counting stops at `limit` (0 = no limit). */
size_t zset_inter_card(struct zset_input *in, size_t n, size_t limit);

#endif
