/*
 * listpack.h — Redis's listpack serialization (listpack.md in the Redis
 * tree), the form small hashes and sorted sets take inside an RDB file:
 *
 *   [total bytes u32 LE][count u16 LE, 65535 = unknown][entry...][0xFF]
 *   entry = [encoding + data][backlen: 1-5 bytes, encoding+data length]
 *
 * Strings that are canonical integers are stored as integers (7, 13, 16,
 * 24, 32 or 64 bits), as Redis's lpAppend does. This is only the wire
 * form: in memory goblin-core keeps its own packed encoding (store/packed.h).
 *
 * The iterator validates every entry as it reads (encoding known, lengths
 * within the blob, backlen consistent), and lp_iter_end() checks the end
 * marker and the header's count, so a listpack read to the end with no
 * error is well-formed — Redis's deep sanitization.
 */
#ifndef GOBLIN_LISTPACK_H
#define GOBLIN_LISTPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Encoder: entries are appended to b after lp_begin; lp_end patches the
 * header. `start` is the offset lp_begin returned. */
size_t lp_begin(struct buf *b);
void lp_append(struct buf *b, const char *p, size_t n);
void lp_append_int(struct buf *b, long long v);
void lp_end(struct buf *b, size_t start, size_t count);

/* Bytes lp_append_int / lp_append would add (the element's encoding and
 * its back length): what Redis's listpack takes for it, so a stream can
 * follow Redis's node-size limits without keeping listpacks. */
size_t lp_int_size(long long v);
size_t lp_string_size(const char *p, size_t n);

/* Header and end marker of an empty listpack. */
#define LP_EMPTY_BYTES 7

struct lp_iter {
    const unsigned char *p;
    size_t len, pos;
    size_t count;      /* entries read so far */
    unsigned declared; /* header count (65535 = not recorded) */
    const char *err;
    size_t prev, tail; /* persist/ziplist.c: the previous entry's size, zltail */
};

struct lp_entry {
    const char *ptr; /* string bytes, or the integer printed into tmp */
    size_t len;
    bool is_int;
    long long value; /* when is_int */
    char tmp[24];
};

/* Checks the header; false (with it->err) when the blob is not a listpack. */
bool lp_iter_init(struct lp_iter *it, const void *blob, size_t len);
/* The next entry: 1 read, 0 at the end marker, -1 malformed (it->err). */
int lp_iter_next(struct lp_iter *it, struct lp_entry *e);
/* After lp_iter_next returned 0: nothing after the end marker, count as declared. */
bool lp_iter_end(struct lp_iter *it);

#endif
