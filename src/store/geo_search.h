/*
 * geo_search.h — the members of a sorted set inside a GEO shape, found
 * and ordered exactly as Redis 7.0 finds and orders them.
 *
 * A search scans the cells of geo_plan_search() in order, each as the
 * score range [min, max) of the sorted set (zset_score_range_ranks, then
 * a walk by rank), decodes every member in it and keeps those inside the
 * shape, in the order met. With a limit (COUNT ... ANY) it stops as soon
 * as that many are held.
 *
 * Ordering by distance must reproduce Redis's ties too (members at the
 * same point, or mirrored ones). Redis sorts the whole result with the C
 * library's qsort — on Debian 12's glibc a top-down merge sort, stable —
 * and a COUNT smaller than the result with its pqsort, Bentley and
 * McIlroy's quicksort that only finishes the partitions holding the first
 * COUNT positions, which is not stable. geo_points_sort() implements both
 * algorithms step for step, so equal distances come out in Redis's order.
 *
 * Points refer to members inside the set (no copy): they are valid until
 * the next write to it.
 */
#ifndef GOBLIN_GEO_SEARCH_H
#define GOBLIN_GEO_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/geohash.h"
#include "store/zset.h"

struct geo_point {
    double lon, lat;
    double dist; /* metres from the shape's centre */
    double score;
    const char *member; /* inside the set */
    size_t len;
};

/* Small results stay on the caller's stack. */
#define GEO_POINTS_INLINE 32

struct geo_points {
    struct geo_point *items;
    size_t used, cap;
    struct geo_point inline_items[GEO_POINTS_INLINE];
};

void geo_points_init(struct geo_points *p);
void geo_points_release(struct geo_points *p);

/* Appends the members of z inside the shape; stops once p holds `limit`
 * points (0: no limit). */
void geo_search(struct zset *z, const struct geo_shape *shape, size_t limit, struct geo_points *p);

/* Orders the points by distance, nearest first or farthest first: all of
 * them when count >= p->used (Redis's qsort), else only the first `count`
 * positions (Redis's pqsort; the rest are left in no useful order). */
void geo_points_sort(struct geo_points *p, bool descending, size_t count);

#endif
