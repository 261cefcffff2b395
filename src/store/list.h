/*
 * list.h — the list type: a doubly linked chain of packed nodes (Redis's
 * quicklist), protocol-free and typed.
 *
 * Each node is one allocation: the links, its counts and its entries back
 * to back. An entry is a one-byte header and its payload, forward-readable
 * only (no back-length byte: that byte is a fifth of a small integer's
 * entry):
 *
 *   0xxxxxxx                 integer 0..127
 *   10xxxxxx + bytes         string of 0..63 bytes
 *   110xxxxx + 1 byte        13-bit signed integer
 *   1110xxxx + 2 bytes       20-bit signed integer
 *   11110xxx + 3 bytes       27-bit signed integer
 *   0xF8 + 8 bytes           64-bit integer
 *   0xF9 + 2-byte length     string up to 65535 bytes
 *   0xFA + 4-byte length     longer string
 *
 * A pushed value that is a canonical integer ("123", not "0123" or "+1")
 * is stored as an integer, as Redis's listpack does, and read back as the
 * same text.
 *
 * Node size follows list-max-listpack-size (Redis's `fill`): a positive N
 * allows N entries per node (and at most 8 KB), a negative one -1..-5 caps
 * the node at 4, 8, 16, 32 or 64 KB. A value larger than the cap gets a
 * node of its own.
 *
 * Cost model. Push and pop at either end are O(1) amortised: the head
 * entry is at offset 0 (a pop is a memmove of the node, like listpack's);
 * for the tail the list keeps an index of the tail node — the offset of its
 * last entry and entry starts every few hundred bytes ("marks") — so the
 * new last entry after RPOP is found by decoding at most one mark's
 * stretch, and the index is rebuilt by one scan of a node only when a node
 * becomes the tail or is edited in the middle (LINSERT, LREM, LSET).
 * Access by index walks nodes by their counts from the nearer end, then
 * decodes within one node.
 *
 * Compression (list-compress-depth D > 0, fixed per list at its creation,
 * as Redis's quicklist): the D nodes at each end stay plain, interior nodes
 * are LZF-compressed (when that saves at least 8 bytes of a node of 48 or
 * more). A read decodes a compressed node into a scratch copy (the node is
 * not changed); a write decompresses the node in place, edits it and
 * compresses it again when it is interior. With D = 0 none of this runs.
 *
 * Pointers into a list (strview results) are valid until its next write,
 * and (with compression) until the next read of any list.
 */
#ifndef GOBLIN_STORE_LIST_H
#define GOBLIN_STORE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/kv.h"

struct list_limits {
    long long fill;           /* list-max-listpack-size (-2) */
    long long compress_depth; /* list-compress-depth (0: no compression) */
    /* An element at least this large gets a node of its own, which no other
     * element joins (Redis's "plain" node); 1 GB unless DEBUG
     * QUICKLIST-PACKED-THRESHOLD lowers it. */
    unsigned long long packed_threshold;
};

extern struct list_limits list_limits;

/* DEBUG QUICKLIST-PACKED-THRESHOLD: sets packed_threshold (0 restores
 * the default); false, leaving it, for 4 GB - 1 MB and more (Redis's
 * limit). */
bool list_set_packed_threshold(unsigned long long size);

enum list_end { LIST_HEAD = 0, LIST_TAIL = 1 };

#define LIST_MARKS 32

struct list_node {
    struct list_node *prev, *next;
    uint32_t used;  /* bytes of entries in data[] */
    uint32_t count; /* entries */
    uint32_t cap;   /* bytes available in data[] */
    uint32_t zlen;  /* compressed: bytes of LZF data in data[] (used is the
                       plain size); 0 when plain */
    unsigned char data[];
};

struct list {
    struct list_node *head, *tail;
    size_t len;
    size_t nodes;
    /* Index of the tail node (see the cost model): valid when tail_known. */
    bool tail_known;
    uint8_t nmarks;
    uint32_t compress;          /* list-compress-depth when the list was created */
    uint32_t tail_last;         /* offset of the tail node's last entry */
    uint32_t marks[LIST_MARKS]; /* entry starts in the tail node, ascending */
};

struct list *list_new(void);
void list_free(struct list *l);

/* A copy of l (COPY). */
struct list *list_dup(const struct list *l);

static inline size_t list_len(const struct list *l)
{
    return l->len;
}

/* Encodes value for an entry: header and payload into dst (at most
 * LIST_ENTRY_HEADER_MAX + len bytes); returns the entry's size. */
#define LIST_ENTRY_HEADER_MAX 9
size_t list_entry_encode(unsigned char *dst, const char *s, size_t len);

/* Decodes the entry at p into *out (integers printed into out->tmp);
 * returns the entry's size. */
size_t list_entry_decode(const unsigned char *p, struct strview *out);

void list_push(struct list *l, enum list_end where, const char *s, size_t len);

/* The element at one end (the list must not be empty). */
void list_peek(struct list *l, enum list_end where, struct strview *out);

/* Removes the element at one end (the list must not be empty). */
void list_pop(struct list *l, enum list_end where);

/* Element at index (negative from the tail); false when out of range. */
bool list_index(struct list *l, long long index, struct strview *out);

/* Replaces the element at index (in range). */
void list_set(struct list *l, long long index, const char *s, size_t len);

/* Removes `count` elements from index `start` on (both in range). */
void list_delete_range(struct list *l, size_t start, size_t count);

/* Iteration from an index, towards the tail or towards the head. */
struct list_iter {
    struct list *l;
    struct list_node *node;
    size_t off;        /* next entry's offset in node (forward) */
    uint32_t *offsets; /* backward: entry starts of node, decoded once */
    size_t offsets_cap;
    size_t pos; /* backward: entries of node still to visit (0: not loaded yet) */
    bool reverse;
};

/* Positions it at `index` (0 <= index < len); reverse walks to the head. */
void list_iter_init(struct list_iter *it, struct list *l, size_t index, bool reverse);
/* The next element, or false at the end. */
bool list_iter_next(struct list_iter *it, struct strview *out);
void list_iter_release(struct list_iter *it);

/* Inserts value before or after the first element equal to pivot; returns
 * false when there is no such element. */
bool list_insert_at_pivot(struct list *l, const char *pivot, size_t pivot_len, bool after,
                          const char *s, size_t len);

/* Removes up to `limit` elements equal to value (0 = all), scanning from
 * the tail when from_tail; returns how many were removed. */
size_t list_remove_value(struct list *l, const char *s, size_t len, size_t limit, bool from_tail);

/* Nodes stored compressed (tests, introspection). */
size_t list_compressed_nodes(const struct list *l);

/* Allocated bytes, for MEMORY USAGE. */
size_t list_memory_usage(const struct list *l);

/* Checks the internal invariants (tests); NULL when sound, else what is wrong. */
const char *list_verify(const struct list *l);

/* The rows of list_limits (core/config.h). */
struct config_table;
extern const struct config_table list_config;

#endif
