/*
 * stream.h — the stream type: an append-only log of entries (an ID and
 * field/value pairs), protocol-free and typed. Consumer groups live in
 * store/stream_cgroup.h.
 *
 * Layout. Entries are kept in nodes of up to a few KB, indexed by the ID
 * of their first entry (the "master" ID) in a B+tree (store/idtree.h):
 * lookup by ID is O(log nodes) plus a scan of one node, append is O(1)
 * (into the last node, or a new one). A node holds its master fields (the
 * first entry's field names) and then its entries back to back:
 *
 *   entry = [flags/kind byte][ID delta][values, or nfields + field/value pairs]
 *   flags: bit 0 deleted (a tombstone XDEL or trimming left), bit 1 same
 *          fields as the master entry (then only the values are stored)
 *   bit 4: same fields, and values as long as the node's first entry's
 *          (the reference): stored without their lengths
 *   kind (bits 2-3), the ID relative to the previous entry in the node
 *          (the first relative to the master ID minus one sequence):
 *          0 same ms, seq + 1 (no bytes); 1 same ms, seq + 1 + varint;
 *          2 ms + varint, then seq as a varint
 *   strings are a LEB128 length and the bytes
 *
 * so an entry of the common shape (same fields and value lengths, IDs
 * from `*`) costs one byte besides its values' bytes: Redis's listpack
 * spends seven more, and a byte per value (flags, two deltas, lp-count,
 * back lengths, value headers).
 *
 * Node boundaries are Redis's. A node closes where Redis 7.0 would start a
 * new listpack (stream-node-max-bytes of *listpack* bytes, which each node
 * computes as Redis would lay its listpack out, and stream-node-max-entries
 * counting tombstones), deleted entries stay in their node until the node
 * goes (XDEL of its last live entry, trimming of whole nodes), and trimming
 * follows streamTrim step by step. So XTRIM ~, XINFO STREAM's
 * radix-tree-keys/-nodes and the RDB listpacks (persist/rdb_stream.c) come
 * out as redis-server's for the same commands.
 *
 * Pointers into a stream (field and value bytes from the iterators) are
 * valid until its next write.
 */
#ifndef GOBLIN_STORE_STREAM_H
#define GOBLIN_STORE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/idtree.h"
#include "store/stream_id.h"

struct stream_limits {
    long long node_max_bytes;   /* stream-node-max-bytes (4096; 0 = 1 GB) */
    long long node_max_entries; /* stream-node-max-entries (100; 0 = no limit) */
};

extern struct stream_limits stream_limits;

/* Redis's cap on a listpack and on the bytes one entry may add. */
#define STREAM_LISTPACK_MAX_SIZE (1u << 30)

/* Entry flags, as Redis's listpacks store them. */
#define STREAM_ITEM_DELETED 1u
#define STREAM_ITEM_SAMEFIELDS 2u

struct stream_node;
struct stream_cgroups; /* store/stream_cgroup.h */

struct stream {
    struct idtree nodes;             /* master ID -> struct stream_node * */
    uint64_t length;                 /* live entries */
    struct stream_id last_id;        /* last-generated-id (0-0 before the first) */
    struct stream_id first_id;       /* recorded-first-entry-id (0-0 when empty) */
    struct stream_id max_deleted_id; /* max-deleted-entry-id */
    uint64_t entries_added;          /* entries-added */
    struct stream_cgroups *groups;   /* NULL until a group is created */
};

struct stream *stream_new(void);
void stream_free(struct stream *s);

/* Lazy free. A stream whose freeing takes more than Redis's
 * LAZYFREE_THRESHOLD steps (nodes, groups and pending entries: 64) is not
 * freed on the request path that dropped it (DEL, UNLINK, an overwrite,
 * expiry, FLUSHALL) but queued, and housekeeping frees queued streams a
 * few nodes at a time for a bounded time (stream_lazy_free_step); others
 * are freed at once. stream_release is what kv_free calls. */
void stream_release(struct stream *s);
/* Frees queued streams for about budget_us; returns whether any remain. */
bool stream_lazy_free_step(long long budget_us);
/* Streams queued and not freed yet. */
size_t stream_lazy_free_pending(void);
/* Streams freed through the queue since start or CONFIG RESETSTAT (INFO
 * lazyfreed_objects: Redis's lazy-free thread counts what it freed). */
extern long long stream_lazyfreed;
/* Frees everything queued now (shutdown, tests). */
void stream_lazy_free_all(void);

/* A deep copy, consumer groups included (COPY). */
struct stream *stream_dup(const struct stream *s);

/* Allocated bytes, for MEMORY USAGE; samples (0 = all) bounds the nodes read. */
size_t stream_memory_usage(const struct stream *s, size_t samples);

/* Nodes (XINFO's radix-tree-keys), and the nodes Redis's radix tree of
 * those keys would have (radix-tree-nodes). */
size_t stream_node_count(const struct stream *s);
size_t stream_rax_nodes(const struct stream *s);

/* --- writes ----------------------------------------------------------- */

enum stream_append_status {
    STREAM_APPEND_OK,
    STREAM_APPEND_ID_TOO_SMALL, /* not above last_id, or no sequence left for "<ms>-*" */
    STREAM_APPEND_TOO_LARGE,    /* the fields and values pass STREAM_LISTPACK_MAX_SIZE */
};

/* Appends an entry of nfields field/value pairs (fv[0] the first field,
 * fv[1] its value, ...). The ID is use_id when given (its sequence
 * generated when !seq_given, Redis's "<ms>-*"), else generated from now_ms
 * as Redis's streamNextID. Sets *added. */
enum stream_append_status stream_append(struct stream *s, const char *const *fv,
                                        const size_t *fvlen, size_t nfields,
                                        const struct stream_id *use_id, bool seq_given,
                                        int64_t now_ms, struct stream_id *added);

enum stream_trim_strategy { STREAM_TRIM_NONE, STREAM_TRIM_MAXLEN, STREAM_TRIM_MINID };

struct stream_trim {
    enum stream_trim_strategy strategy;
    bool approx;            /* '~': whole nodes only */
    long long limit;        /* at most this many entries (0 = no limit) */
    long long maxlen;       /* MAXLEN */
    struct stream_id minid; /* MINID */
};

/* Redis's streamTrim: removes entries from the head; returns how many. */
int64_t stream_trim(struct stream *s, const struct stream_trim *t);

/* XDEL: deletes the live entries with these IDs; returns how many, and
 * keeps recorded-first-entry-id and max-deleted-entry-id as Redis does. */
size_t stream_delete_ids(struct stream *s, const struct stream_id *ids, size_t n);

/* --- reads ------------------------------------------------------------ */

/* The first or last entry's ID, tombstones included unless
 * skip_tombstones; when there is none the largest ID (first) or 0-0
 * (last), as Redis's streamGetEdgeID. */
void stream_edge_id(const struct stream *s, bool first, bool skip_tombstones,
                    struct stream_id *out);

/* The last live entry's ID; false when the stream has none. */
bool stream_last_live_id(const struct stream *s, struct stream_id *out);

/* Whether a live entry has this ID. */
bool stream_entry_exists(const struct stream *s, const struct stream_id *id);

/* Where an entry's fields are read from: its own bytes, the node's master
 * fields (same fields) and the reference entry's value lengths (same
 * lengths). Internal to stream.c, embedded in both iterators. */
struct stream_entry_cursor {
    const unsigned char *fp;     /* the entry's next field or value */
    const unsigned char *master; /* the master field to pair next (same fields) */
    const unsigned char *ref;    /* the reference value whose length is next (same lengths) */
    bool same, samelens;
};

/* Iteration over [start, end] (NULL: unbounded) in ID order or reversed.
 *
 *   struct stream_iter it;
 *   stream_iter_start(&it, s, &start, &end, false);
 *   while (stream_iter_next(&it, &id, &nfields))
 *       for (k = 0; k < nfields; k++) stream_iter_field(&it, &f, &fl, &v, &vl);
 *   stream_iter_stop(&it);
 *
 * Reading the fields is optional. Tombstones are skipped unless
 * skip_tombstones is cleared after start. */
struct stream_iter {
    const struct stream *s;
    struct stream_id start, end;
    bool rev, skip_tombstones, done, started;
    struct idtree_pos pos;
    const struct stream_node *node; /* NULL: move to the next node */
    /* forward: offset of the next entry and the previous entry's ID */
    uint32_t off;
    struct stream_id prev;
    /* reverse: the node's entries, decoded once */
    uint32_t *offs;
    struct stream_id *ids;
    uint32_t nent, at, cap;
    uint32_t inline_offs[32];
    struct stream_id inline_ids[32];
    struct stream_entry_cursor cur; /* the current entry */
};

void stream_iter_start(struct stream_iter *it, const struct stream *s,
                       const struct stream_id *start, const struct stream_id *end, bool rev);
bool stream_iter_next(struct stream_iter *it, struct stream_id *id, size_t *nfields);
void stream_iter_field(struct stream_iter *it, const char **f, size_t *flen, const char **v,
                       size_t *vlen);
void stream_iter_stop(struct stream_iter *it);

/* Every live entry in ID order: entry(id, nfields, arg), then field() for
 * each of its field/value pairs (DEBUG DIGEST, the AOF rewrite's XADDs). */
typedef void stream_entry_fn(const struct stream_id *id, size_t nfields, void *arg);
typedef void stream_field_fn(const char *f, size_t flen, const char *v, size_t vlen, void *arg);
void stream_foreach(const struct stream *s, stream_entry_fn *entry, stream_field_fn *field,
                    void *arg);

/* --- raw access (RDB and DUMP, persist/rdb_stream.c) ------------------ */

/* Walks the nodes as Redis's listpacks hold them: per node its master ID,
 * counts and master fields, then every entry, tombstones included, with
 * its flags. */
struct stream_walk {
    struct idtree_pos pos;
    const struct stream_node *node;
    uint32_t off, master_off, master_left;
    struct stream_id prev;
    struct stream_entry_cursor cur;
};

void stream_walk_start(struct stream_walk *w, const struct stream *s);
bool stream_walk_node(struct stream_walk *w, struct stream_id *master, uint64_t *live,
                      uint64_t *deleted, size_t *master_fields);
void stream_walk_master_field(struct stream_walk *w, const char **f, size_t *len);
bool stream_walk_entry(struct stream_walk *w, unsigned *flags, struct stream_id *id,
                       size_t *nfields);
void stream_walk_field(struct stream_walk *w, const char **f, size_t *flen, const char **v,
                       size_t *vlen);
/* The current node's listpack size as Redis would have it (tests). */
size_t stream_walk_lp_bytes(const struct stream_walk *w);

/* Builds a stream from loaded nodes, checking what Redis's format cannot
 * guarantee: IDs strictly increasing across the whole stream, every entry
 * at or above its node's master ID, field counts, the node's counts, and
 * (at the end) the length and last ID. Each call returns NULL or the
 * reason the data is refused (the stream is then freed by the caller). */
struct stream_loader {
    struct stream *s;
    struct stream_node *node;
    struct stream_id prev; /* the last entry added so far */
    bool any;              /* an entry was added */
    uint32_t strings_left; /* strings the current master entry or entry still needs */
    bool in_master;
    uint64_t live, deleted; /* counted in the current node */
    uint64_t total_live;
    uint32_t entry_strings_at; /* where the current entry's strings begin */
    bool entry_same, entry_first;
};

void stream_loader_init(struct stream_loader *l, struct stream *s);
const char *stream_loader_node(struct stream_loader *l, const struct stream_id *master,
                               size_t master_fields);
const char *stream_loader_entry(struct stream_loader *l, unsigned flags, const struct stream_id *id,
                                size_t nfields);
const char *stream_loader_string(struct stream_loader *l, const char *p, size_t n);
/* lp_bytes: the listpack's size; count_bytes: its count and deleted
 * elements' sizes (Redis's node-size decisions go on from the real size). */
const char *stream_loader_node_end(struct stream_loader *l, uint64_t live, uint64_t deleted,
                                   size_t lp_bytes, size_t count_bytes);
const char *stream_loader_finish(struct stream_loader *l, uint64_t length);
/* Frees a node left half-built by a refused load. */
void stream_loader_abort(struct stream_loader *l);

/* Checks the internal invariants (tests); NULL when sound. */
const char *stream_verify(const struct stream *s);

/* The rows of stream_limits (core/config.h). */
struct config_table;
extern const struct config_table stream_config;

#endif
