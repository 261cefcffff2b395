/*
 * idtree.h — an ordered map from stream IDs to pointers: a B+tree. It
 * indexes a stream's nodes by master ID and holds each consumer group's
 * and consumer's pending entries (store/stream.h).
 *
 * Cost model: lookup, insert and remove are O(log n) (32-way nodes, so a
 * million keys are four levels); inserting a key larger than every other
 * (a stream's append, a PEL receiving new deliveries) touches only the
 * last leaf until it fills, then starts a new one, so ascending loads keep
 * leaves full. A tree of one leaf grows that leaf from 4 slots up, so a
 * small PEL costs a few dozen bytes, not a full node.
 *
 * Separators: inner node slot i (i > 0) holds a lower bound of child i's
 * keys and an upper bound (exclusive) of child i-1's; slot 0 is unused.
 * Removals never need to rewrite them. A leaf or inner node left below a
 * quarter full merges into a sibling when both fit in one, so a tree
 * after removals holds at most about four times the slots it needs.
 *
 * Positions (struct idtree_pos) are valid until the next insert or remove.
 * The tree never frees the values: idtree_release hands each to a callback.
 */
#ifndef GOBLIN_IDTREE_H
#define GOBLIN_IDTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "store/stream_id.h"

#define IDTREE_CAP 32

struct idtree_leaf;

struct idtree {
    void *root; /* a leaf when height == 0, else an inner node; NULL when empty */
    unsigned height;
    size_t count;
    struct idtree_leaf *head, *tail;
    size_t leaves, inners; /* node counts, for MEMORY USAGE */
};

/* A key and its slot, or end (leaf == NULL). */
struct idtree_pos {
    struct idtree_leaf *leaf;
    unsigned slot;
};

void idtree_init(struct idtree *t);

/* Frees the tree's nodes, handing each value to free_value (may be NULL). */
void idtree_release(struct idtree *t, void (*free_value)(void *value, void *arg), void *arg);

static inline size_t idtree_count(const struct idtree *t)
{
    return t->count;
}

/* The value of key, or NULL. */
void *idtree_find(const struct idtree *t, const struct stream_id *key);

/* Adds key (which must be absent) with value. */
void idtree_insert(struct idtree *t, const struct stream_id *key, void *value);

/* Inserts key unless present; returns the value now stored under it (the
 * old one when present, `value` otherwise) and sets *inserted. */
void *idtree_insert_or_get(struct idtree *t, const struct stream_id *key, void *value,
                           bool *inserted);

/* Replaces the value of a present key. */
void idtree_set(struct idtree *t, const struct stream_id *key, void *value);

/* Removes key; returns its value, or NULL when absent. */
void *idtree_remove(struct idtree *t, const struct stream_id *key);

/* Positions: the first / last key, the first key >= k, the last key <= k. */
struct idtree_pos idtree_first(const struct idtree *t);
struct idtree_pos idtree_last(const struct idtree *t);
struct idtree_pos idtree_seek_ge(const struct idtree *t, const struct stream_id *k);
struct idtree_pos idtree_seek_le(const struct idtree *t, const struct stream_id *k);

static inline bool idtree_pos_valid(const struct idtree_pos *p)
{
    return p->leaf != NULL;
}

void idtree_next(struct idtree_pos *p);
void idtree_prev(struct idtree_pos *p);
const struct stream_id *idtree_pos_key(const struct idtree_pos *p);
void *idtree_pos_value(const struct idtree_pos *p);

/* Bytes the tree's nodes take (allocator's view). */
size_t idtree_memory_usage(const struct idtree *t);

/* Checks the invariants (tests); NULL when sound, else what is wrong. */
const char *idtree_verify(const struct idtree *t);

#endif
