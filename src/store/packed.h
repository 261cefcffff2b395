/*
 * packed.h — a sequence of byte strings in one contiguous allocation: the
 * compact ("listpack") encoding of small hashes and sorted sets.
 *
 *   [used u32][count u32][cap u32][entry][entry]...
 *   entry = [length, LEB128 varint (1 byte below 128)][bytes]
 *
 * Positions are byte offsets into data[]; 0 is the first entry and `used`
 * is one past the last. Every edit is a memmove of the tail, so operations
 * cost O(bytes): the structure is meant for the few hundred entries the
 * *-max-listpack-* thresholds allow, where one block read front to back
 * costs fewer cache misses and far less allocator overhead than a node per
 * element. Edits may move the block, so they take `struct packed **`.
 *
 * The total size is kept below PACKED_MAX_BYTES (the owner converts to an
 * indexed encoding before that, as Redis does with lpSafeToAdd).
 */
#ifndef GOBLIN_PACKED_H
#define GOBLIN_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/varint.h"

/* Largest block the owners let a packed sequence grow to. */
#define PACKED_MAX_BYTES (1u << 30)

struct packed {
    uint32_t used;  /* bytes of entries in data[] */
    uint32_t count; /* entries */
    uint32_t cap;   /* bytes available in data[] */
    unsigned char data[];
};

struct packed *packed_new(void);
void packed_free(struct packed *p);

static inline size_t packed_count(const struct packed *p)
{
    return p->count;
}

/* Allocated bytes (allocator's usable size), for MEMORY USAGE. */
size_t packed_alloc_size(const struct packed *p);

/* Whether adding `extra` payload bytes keeps the block under PACKED_MAX_BYTES. */
static inline bool packed_safe_to_add(const struct packed *p, size_t extra)
{
    return (size_t)p->used + extra + 10 < PACKED_MAX_BYTES;
}

/* Reads the entry at `off` (which must be < used); returns the next offset. */
static inline size_t packed_read(const struct packed *p, size_t off, const char **ptr, size_t *len)
{
    const unsigned char *d = p->data + off;
    size_t n = (size_t)varint_get(&d);
    *ptr = (const char *)d;
    *len = n;
    return (size_t)(d - p->data) + n;
}

/* Offset of the entry after the one at `off`. */
static inline size_t packed_skip(const struct packed *p, size_t off)
{
    const char *ptr;
    size_t len;
    return packed_read(p, off, &ptr, &len);
}

/* An exact copy (COPY). */
struct packed *packed_dup(const struct packed *p);

/* Inserts an entry before offset `off` (off == used appends). */
void packed_insert(struct packed **pp, size_t off, const void *bytes, size_t len);

/* Removes `n` consecutive entries starting at `off`. */
void packed_delete(struct packed **pp, size_t off, size_t n);

/* Replaces the bytes of the entry at `off`. */
void packed_replace(struct packed **pp, size_t off, const void *bytes, size_t len);

#endif
