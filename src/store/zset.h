/*
 * zset.h — the sorted-set type: members with double scores, ordered by
 * (score, member bytes). Protocol-free and typed: scores are native doubles
 * in and out, so any wire (RESP text or binary) calls the same operations.
 *
 * Encodings, named as Redis names them in OBJECT ENCODING:
 *   listpack  member, score (8 raw bytes), member, score, ... in one packed
 *             block kept in order; used while the set has at most
 *             zset_limits.max_listpack_entries members, each at most
 *             max_listpack_value bytes.
 *   skiplist  (Redis's name; here a counted B+tree, see zindex.h) plus the
 *             intrusive dict for O(1) member → score; both index the same
 *             struct zmember allocation.
 * Growth converts once and never goes back; only sets built whole by a
 * command (ZUNIONSTORE & co) are turned compact at the end when they fit,
 * as Redis does. Like Redis's listpack, the compact encoding keeps no sign
 * on a zero score: -0 is stored as 0 (the index keeps -0).
 *
 * Ranges are expressed as ranks: a score or lex range is first turned into
 * the half-open rank interval [first, end) it covers, and every read or
 * removal then works on ranks. Lex ranges assume all members share a score
 * (Redis documents the same; with mixed scores the answer is the rank
 * interval between the two bounds' binary-search positions).
 *
 * Pointers handed to visitors are valid until the next write to the set.
 */
#ifndef GOBLIN_ZSET_H
#define GOBLIN_ZSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/packed.h"
#include "store/zindex.h"

struct zset_limits {
    long long max_listpack_entries; /* zset-max-listpack-entries (128) */
    long long max_listpack_value;   /* zset-max-listpack-value (64) */
};

extern struct zset_limits zset_limits;

struct zset_big; /* dict + index of the indexed encoding */

struct zset {
    struct packed *lp;    /* compact encoding, or NULL */
    struct zset_big *big; /* indexed encoding, when lp == NULL */
};

struct zset *zset_new(void);

/* A new set for about `expected` members: indexed from the start when that
 * is more than the compact encoding allows (ZRANGESTORE of a rank range). */
struct zset *zset_new_sized(size_t expected);

/* Turns an indexed set that fits the compact limits compact (results of
 * ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE, built indexed as in Redis). */
void zset_compact_if_small(struct zset *z);

/* Converts a compact set to the indexed encoding (no-op when indexed):
 * SORT does this to its input, as Redis 7.0 does. */
void zset_convert_to_index(struct zset *z);
void zset_free(struct zset *z);

/* A deep copy in the same encoding (COPY). */
struct zset *zset_dup(struct zset *z);

size_t zset_len(const struct zset *z);

static inline bool zset_is_compact(const struct zset *z)
{
    return z->lp != NULL;
}

/* ZADD's conditions. NX: only add; XX: only update; GT/LT: update only to a
 * greater/lower score (new members are still added); INCR: the score is an
 * increment of the current one (0 when absent). */
enum zset_add_flag {
    ZSET_ADD_NX = 1 << 0,
    ZSET_ADD_XX = 1 << 1,
    ZSET_ADD_GT = 1 << 2,
    ZSET_ADD_LT = 1 << 3,
    ZSET_ADD_INCR = 1 << 4,
};

enum zset_add_result {
    ZSET_ADD_ADDED,     /* new member */
    ZSET_ADD_UPDATED,   /* score changed */
    ZSET_ADD_UNCHANGED, /* member present, same score */
    ZSET_ADD_SKIPPED,   /* a condition (NX/XX/GT/LT) held the write back */
    ZSET_ADD_NAN,       /* the score (or the increment's result) is NaN; nothing written */
};

/* Adds or updates a member; *new_score receives the resulting score unless
 * the write was skipped or NaN. */
enum zset_add_result zset_add(struct zset *z, const char *member, size_t len, double score,
                              int flags, double *new_score);

bool zset_score(struct zset *z, const char *member, size_t len, double *score);

/* Removes a member; returns whether it was present. */
bool zset_delete(struct zset *z, const char *member, size_t len);

/* 0-based rank (from the highest score when reverse) and score of a member. */
bool zset_rank(struct zset *z, const char *member, size_t len, bool reverse, size_t *rank,
               double *score);

struct zset_score_range {
    double min, max;
    bool min_exclusive, max_exclusive;
};

enum zset_lex_kind {
    ZSET_LEX_MINUS_INF,
    ZSET_LEX_PLUS_INF,
    ZSET_LEX_INCLUSIVE,
    ZSET_LEX_EXCLUSIVE
};

struct zset_lex_bound {
    enum zset_lex_kind kind;
    const char *bytes; /* inclusive/exclusive bounds */
    size_t len;
};

struct zset_lex_range {
    struct zset_lex_bound min, max;
};

/* The rank interval [*first, *end) of the members within the range
 * (*first == *end when none are). */
void zset_score_range_ranks(struct zset *z, const struct zset_score_range *r, size_t *first,
                            size_t *end);
void zset_lex_range_ranks(struct zset *z, const struct zset_lex_range *r, size_t *first,
                          size_t *end);

/* A visitor returns false to stop; it must not write to the set. */
typedef bool zset_visit_fn(const char *member, size_t len, double score, void *arg);

/* Visits ranks [first, end) in order, or from end-1 down to first. */
void zset_visit_ranks(struct zset *z, size_t first, size_t end, bool reverse, zset_visit_fn *fn,
                      void *arg);

/* Visits ranks [first, end) in order, calling fn only for members whose
 * score `want` accepts: a scan that rejects most members by score alone
 * (GEO searches) never reads their bytes, which in the indexed encoding
 * live in an allocation of their own. fn returns false to stop. */
typedef bool zset_score_filter_fn(double score, void *arg);
void zset_visit_ranks_filtered(struct zset *z, size_t first, size_t end, zset_score_filter_fn *want,
                               zset_visit_fn *fn, void *arg);

/* Removes ranks [first, end); returns how many were removed. */
size_t zset_delete_ranks(struct zset *z, size_t first, size_t end);

/* One ZSCAN step (see hash_scan for the contract). */
unsigned long long zset_scan(struct zset *z, unsigned long long cursor, long long count,
                             zset_visit_fn *fn, void *arg);

/* Random members: `count` draws with repeats (set not empty), or `count`
 * distinct members with count < zset_len(z). */
void zset_random_with_repeats(struct zset *z, size_t count, zset_visit_fn *fn, void *arg);
void zset_random_distinct(struct zset *z, size_t count, zset_visit_fn *fn, void *arg);

/* Allocated bytes; `samples` members are measured and extrapolated for the
 * indexed encoding (0 = all). */
size_t zset_memory_usage(const struct zset *z, size_t samples);

/* Checks the encoding's invariants (dict and index agree, index ordered
 * and counted); NULL or what is wrong. For tests. */
const char *zset_verify(const struct zset *z);

/* The rows of zset_limits (core/config.h). */
struct config_table;
extern const struct config_table zset_config;

#endif
