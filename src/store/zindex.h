/*
 * zindex.h — the ordered index of a large sorted set: a counted B+tree of
 * (score, member) items, ordered by score and then by member bytes.
 *
 * Why a B+tree and not Redis's skiplist. Memory: a leaf item is 16 bytes (a
 * copy of the score and a pointer to the member) and leaves stay at least
 * half full, so the index costs 16-32 bytes per member (about 24 for random
 * inserts, about 16 for ascending loads thanks to append splits); inner
 * nodes add ~1/40 of that. A skiplist node costs 24 bytes plus 16 per level
 * (1.33 levels on average), rounded up by the allocator to 48-64 bytes, plus
 * one allocation per member. Cache behaviour: a lookup reads one node per
 * level — 4 levels for a million members — and binary-searches contiguous
 * scores inside it, where a skiplist follows ~2*log2(n) pointers to nodes
 * scattered across the heap. Ranges walk dense leaves linked both ways.
 *
 * Rank: every inner node stores the item count of each child, so rank,
 * select-by-rank, insert and delete are all O(log n).
 *
 * Invariant that makes member pointers in inner nodes safe: a separator is
 * always the exact minimum item of its subtree, so it refers to a live
 * member; deletions that change a subtree's minimum rewrite the separator.
 *
 * The member (struct zmember) is owned by the sorted set (zset.c), which
 * also links it into the member → score dict. The index never allocates or
 * frees members, and reads their bytes only to break score ties.
 */
#ifndef GOBLIN_ZINDEX_H
#define GOBLIN_ZINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store/dict.h"

/* One member of an indexed sorted set: one allocation holding the dict
 * link, the score and the member bytes. */
struct zmember {
    struct dict_node node;
    double score;
    uint32_t len;
    char data[];
};

struct zitem {
    double score;
    struct zmember *member;
};

#define ZINDEX_LEAF_CAP 64
#define ZINDEX_INNER_CAP 64
#define ZINDEX_MAX_HEIGHT 16

struct zleaf {
    struct zleaf *prev, *next;
    uint32_t n;
    struct zitem items[ZINDEX_LEAF_CAP];
};

struct zinner {
    uint32_t n;
    size_t counts[ZINDEX_INNER_CAP]; /* items under each child */
    void *child[ZINDEX_INNER_CAP];
    struct zitem sep[ZINDEX_INNER_CAP]; /* sep[i] = minimum of child i; sep[0] unused */
};

struct zindex {
    void *root; /* a zleaf when height == 0, else a zinner; NULL when empty */
    unsigned height;
    size_t count;
    struct zleaf *head, *tail;
    size_t leaves, inners; /* node counts, for MEMORY USAGE */
};

/* A position in the index: a leaf and a slot in it. */
struct zindex_pos {
    struct zleaf *leaf;
    uint32_t pos;
};

/* Byte order of members, as Redis's sdscmp: memcmp, then the shorter first. */
static inline int zmember_bytes_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

void zindex_init(struct zindex *z);

/* Frees the nodes (not the members). */
void zindex_release(struct zindex *z);

static inline size_t zindex_count(const struct zindex *z)
{
    return z->count;
}

/* Adds (score, m); the pair must not be present. */
void zindex_insert(struct zindex *z, double score, struct zmember *m);

/* Removes (score, m), which must be present. */
void zindex_delete(struct zindex *z, double score, struct zmember *m);

/* Moves m from old_score to new_score (in place when its neighbours allow). */
void zindex_update(struct zindex *z, double old_score, struct zmember *m, double new_score);

/* Removes and returns the member at `rank` (< count). */
struct zmember *zindex_delete_rank(struct zindex *z, size_t rank);

/* 0-based rank of (score, m), which must be present. */
size_t zindex_rank(const struct zindex *z, double score, const struct zmember *m);

/* Position of the item at `rank`; false when rank >= count. */
bool zindex_seek(const struct zindex *z, size_t rank, struct zindex_pos *out);

static inline const struct zitem *zindex_pos_item(const struct zindex_pos *p)
{
    return &p->leaf->items[p->pos];
}

/* Steps forward/backward; false (and an invalid position) past either end. */
static inline bool zindex_pos_next(struct zindex_pos *p)
{
    if (++p->pos < p->leaf->n) return true;
    p->leaf = p->leaf->next;
    p->pos = 0;
    return p->leaf != NULL;
}

static inline bool zindex_pos_prev(struct zindex_pos *p)
{
    if (p->pos > 0) {
        p->pos--;
        return true;
    }
    p->leaf = p->leaf->prev;
    if (!p->leaf) return false;
    p->pos = p->leaf->n - 1;
    return true;
}

/* Rank of the first item for which `pred` holds, given that pred is false
 * then true along the order (count when it never holds). */
typedef bool zindex_pred_fn(const struct zitem *item, const void *arg);
size_t zindex_first_where(const struct zindex *z, zindex_pred_fn *pred, const void *arg);

/* Bytes held by the index nodes (allocator's usable sizes). */
size_t zindex_memory_usage(const struct zindex *z);

/* Checks every invariant (order, counts, separators, links, fill); returns
 * NULL or what is wrong. For tests. */
const char *zindex_verify(const struct zindex *z);

#endif
