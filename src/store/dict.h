/*
 * dict.h — intrusive chained hash table with incremental rehash.
 *
 * Owns only buckets: nodes are embedded in the caller's entries (a key in the
 * keyspace, a field of a hash, a member of a sorted set), so an entry is one
 * allocation and lookup touches no wrapper objects. The caller's dict_type
 * says how to hash a node and whether a node holds a key.
 *
 * Growth and shrink never stop the world: a resize allocates the new bucket
 * array and then each dict call moves at most one bucket (plus a bounded
 * number of empty ones); dict_rehash_for_us() lets idle time finish the job.
 * The table grows at load factor 1 and shrinks below 1/8.
 *
 * Contracts:
 *  - Hashes are computed by the caller (hash_bytes()) and passed in, so a
 *    lookup hashes once even when it goes on to insert.
 *  - A link returned by dict_find_link() is valid until the next dict call.
 *  - dict_foreach() pauses rehashing; its callback may remove (only) the node
 *    it was handed.
 *  - dict_scan() gives Redis's SCAN guarantee: every node present for the
 *    whole scan is returned at least once, across any number of resizes.
 */
#ifndef GOBLIN_DICT_H
#define GOBLIN_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dict_node {
    struct dict_node *next;
};

struct dict_type {
    uint64_t (*node_hash)(const struct dict_node *node);
    bool (*node_has_key)(const struct dict_node *node, const void *key, size_t len);
};

struct dict_table {
    struct dict_node **buckets;
    size_t mask; /* bucket count - 1; buckets == NULL when empty */
};

struct dict {
    const struct dict_type *type;
    struct dict_table t[2]; /* t[1] is the destination while rehashing */
    size_t count;           /* nodes over both tables */
    long long rehash_index; /* next t[0] bucket to move; -1 when not rehashing */
    int pause_rehash;       /* > 0 while an iteration must see a stable layout */
};

void dict_init(struct dict *d, const struct dict_type *type);

/* Releases the bucket arrays; each node is handed to free_node (may be NULL). */
void dict_release(struct dict *d, void (*free_node)(struct dict_node *node, void *arg), void *arg);

static inline size_t dict_size(const struct dict *d)
{
    return d->count;
}

static inline bool dict_is_rehashing(const struct dict *d)
{
    return d->rehash_index >= 0;
}

/* Total buckets over both tables (for INFO / MEMORY USAGE). */
size_t dict_bucket_count(const struct dict *d);

struct dict_node *dict_find(struct dict *d, const void *key, size_t len, uint64_t hash);

/* Sizes the table for `count` nodes ahead of inserting them (loading a
 * snapshot that declares its size): no growth rehashes on the way. An
 * empty dict gets the table at once; a non-empty one starts the usual
 * incremental move; a larger or rehashing table is left alone. */
void dict_reserve(struct dict *d, size_t count);

/* Pointer to the link that points at the node holding key, or NULL. */
struct dict_node **dict_find_link(struct dict *d, const void *key, size_t len, uint64_t hash);

/* Adds a node whose key is known to be absent. */
void dict_insert(struct dict *d, struct dict_node *node, uint64_t hash);

/* Unlinks and returns the node holding key, or NULL. */
struct dict_node *dict_remove(struct dict *d, const void *key, size_t len, uint64_t hash);

/* Unlinks the node found through link (from dict_find_link). */
void dict_remove_link(struct dict *d, struct dict_node **link);

/* Puts replacement where the node at *link is (same key, e.g. a reallocated entry). */
static inline void dict_replace_link(struct dict_node **link, struct dict_node *replacement)
{
    replacement->next = (*link)->next;
    *link = replacement;
}

/* Moves buckets for up to `budget_us` microseconds; returns true if more remain. */
bool dict_rehash_for_us(struct dict *d, long long budget_us);

/* Resizes when the fill warrants it (called after bulk deletes, from cron). */
void dict_shrink_if_sparse(struct dict *d);

typedef void dict_scan_fn(struct dict_node *node, void *arg);

/* One SCAN step from cursor; returns the next cursor (0 when done). */
unsigned long long dict_scan(struct dict *d, unsigned long long cursor, dict_scan_fn *fn,
                             void *arg);

/* Visits every node; fn returns false to stop. fn may remove the node it got. */
void dict_foreach(struct dict *d, bool (*fn)(struct dict_node *node, void *arg), void *arg);

/* A uniformly chosen bucket's random node; NULL when empty. rnd supplies randomness. */
struct dict_node *dict_random_node(struct dict *d, uint64_t (*rnd)(void));

/* Redis's dictGetFairRandomKey: one node drawn uniformly from a run of up
 * to DICT_FAIR_SAMPLE nodes collected from consecutive buckets (from a
 * random one), which evens out the bias dict_random_node has towards nodes
 * in short chains; NULL when empty. SRANDMEMBER, SPOP and HRANDFIELD
 * draw with it, as Redis's do (their distribution tests need it). */
#define DICT_FAIR_SAMPLE 15
struct dict_node *dict_fair_random_node(struct dict *d, uint64_t (*rnd)(void));

#endif
