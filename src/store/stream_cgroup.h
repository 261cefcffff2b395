/*
 * stream_cgroup.h — a stream's consumer groups: each group's last
 * delivered ID and read counter, its pending entries list (PEL) and its
 * consumers, each with a PEL of its own. Redis 7.0's semantics
 * (t_stream.c), protocol-free.
 *
 * Ownership: a group's PEL owns the pending entries (struct stream_nack);
 * the owning consumer's PEL points at the same ones, so an entry is in
 * exactly two trees while it has a consumer. Both PELs are ID-ordered
 * B+trees (store/idtree.h): lookup, ack and delivery are O(log n).
 *
 * Groups and consumers are found by name through a hash table; listings
 * (XINFO GROUPS/CONSUMERS, XPENDING's summary, RDB) want Redis's order —
 * its radix tree's, byte-wise with a prefix first — so a sorted view is
 * built on demand and kept until a group or consumer is added or removed.
 *
 * Times (delivery, seen) are the caller's clock in ms: commands pass the
 * command time.
 */
#ifndef GOBLIN_STORE_STREAM_CGROUP_H
#define GOBLIN_STORE_STREAM_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/dict.h"
#include "store/idtree.h"
#include "store/stream.h"

/* entries_read when the read counter is unknown (SCG_INVALID_ENTRIES_READ). */
#define STREAM_ENTRIES_READ_INVALID (-1LL)

struct stream_consumer;

struct stream_nack {
    int64_t delivery_time;
    uint64_t delivery_count;
    struct stream_consumer *consumer; /* NULL only while an entry is being claimed or loaded */
};

/* A name in a group or consumer table: the first member of both. */
struct stream_named {
    struct dict_node node;
    uint32_t len;
    char *name; /* the bytes follow the owning struct */
};

/* Named entries found by hash, listed in Redis's order. */
struct stream_names {
    struct dict d;
    struct stream_named **sorted; /* valid while sorted_valid */
    size_t sorted_cap;
    bool sorted_valid;
};

struct stream_consumer {
    struct stream_named named;
    int64_t seen_time;
    struct idtree pel; /* ID -> struct stream_nack *, shared with the group's */
};

struct stream_cgroup {
    struct stream_named named;
    struct stream_id last_id;
    long long entries_read;
    struct idtree pel; /* ID -> struct stream_nack * (owned) */
    struct stream_names consumers;
};

struct stream_cgroups {
    struct stream_names groups;
};

void stream_cgroups_free(struct stream_cgroups *gs);
struct stream_cgroups *stream_cgroups_dup(const struct stream_cgroups *gs);
size_t stream_cgroups_memory_usage(const struct stream_cgroups *gs);

/* --- groups ------------------------------------------------------------- */

size_t stream_cg_count(const struct stream *s);
struct stream_cgroup *stream_cg_find(const struct stream *s, const char *name, size_t len);
/* NULL when a group of that name exists. */
struct stream_cgroup *stream_cg_create(struct stream *s, const char *name, size_t len,
                                       const struct stream_id *last_id, long long entries_read);
/* Frees the group (its PEL and consumers); false when there is none. */
bool stream_cg_destroy(struct stream *s, const char *name, size_t len);
/* The groups in Redis's order; the array is valid until a group is added or removed. */
struct stream_cgroup *const *stream_cg_list(const struct stream *s, size_t *n);

/* --- consumers ---------------------------------------------------------- */

size_t stream_consumer_count(const struct stream_cgroup *g);
struct stream_consumer *stream_consumer_find(const struct stream_cgroup *g, const char *name,
                                             size_t len);
/* NULL when a consumer of that name exists. */
struct stream_consumer *stream_consumer_create(struct stream_cgroup *g, const char *name,
                                               size_t len, int64_t now_ms);
/* XGROUP DELCONSUMER: drops its pending entries from the group too. */
void stream_consumer_delete(struct stream_cgroup *g, struct stream_consumer *c);
struct stream_consumer *const *stream_consumer_list(const struct stream_cgroup *g, size_t *n);

/* --- pending entries ---------------------------------------------------- */

static inline struct stream_nack *stream_pel_find(const struct stream_cgroup *g,
                                                  const struct stream_id *id)
{
    return idtree_find(&g->pel, id);
}

/* An entry delivered to c (XREADGROUP without NOACK): a new pending entry,
 * or one pending elsewhere moved to c, delivered now, count 1. */
struct stream_nack *stream_pel_deliver(struct stream_cgroup *g, struct stream_consumer *c,
                                       const struct stream_id *id, int64_t now_ms);

/* Removes a pending entry from both PELs and frees it (XACK, XCLAIM of a
 * deleted entry); false when it was not pending. */
bool stream_pel_ack(struct stream_cgroup *g, const struct stream_id *id);

/* A pending entry without a consumer yet (XCLAIM FORCE, loading). */
struct stream_nack *stream_pel_add_unowned(struct stream_cgroup *g, const struct stream_id *id,
                                           int64_t delivery_time, uint64_t delivery_count);

/* Gives a pending entry to c (from its previous consumer, if any). */
void stream_pel_assign(struct stream_nack *nack, const struct stream_id *id,
                       struct stream_consumer *c);

/* --- read counters (Redis's entries_read and lag) ----------------------- */

/* Redis's streamEstimateDistanceFromFirstEverEntry:
 * STREAM_ENTRIES_READ_INVALID when the counter cannot be known. */
long long stream_estimate_distance(const struct stream *s, const struct stream_id *id);

/* Whether [start, end] (NULL: unbounded) may hold a tombstone. */
bool stream_range_has_tombstones(const struct stream *s, const struct stream_id *start,
                                 const struct stream_id *end);

/* The group's lag; false when it cannot be known (Redis answers nil). */
bool stream_cg_lag(const struct stream *s, const struct stream_cgroup *g, long long *lag);

/* The group was served entry id: moves its last ID and read counter
 * forward when id is past its last ID (streamReplyWithRange); true then. */
bool stream_cg_advance(const struct stream *s, struct stream_cgroup *g, const struct stream_id *id);

/* Checks the PELs' consistency (tests, loading): every group entry owned
 * by a consumer holding it, every consumer entry in the group's PEL.
 * NULL when sound. */
const char *stream_cgroups_verify(const struct stream *s);

#endif
