/*
 * ziplist.h — reading Redis's ziplist (and the older zipmap), the packed encodings RDB files of
 * Redis before 7.0 use for small hashes, sorted sets and lists (RDB types
 * 10, 12, 13 and the nodes of 14). goblin-core never writes one: a loaded
 * ziplist becomes the server's own structures, as Redis 7.0 converts it to
 * a listpack.
 *
 * Layout (all integers little-endian): zlbytes u32 (the blob's size),
 * zltail u32 (offset of the last entry), zllen u16 (entries; 65535: count
 * them), the entries, and the end byte 0xFF. An entry is the previous
 * entry's size (1 byte below 254, else 0xFE and a u32), an encoding and
 * its data: a string of 6, 14 or 32 bits of length (00, 01, 10 prefix;
 * the 32-bit length big-endian), or an integer of 8, 16, 24, 32 or 64 bits
 * (0xFE, 0xC0, 0xF0, 0xD0, 0xE0) or 0..12 in the encoding byte itself
 * (0xF1..0xFD).
 *
 * The reader shares listpack.h's iterator and entry, so a loader walks
 * either encoding the same way. Every read is bounds-checked against the
 * blob; each entry's previous-size field must equal the previous entry's
 * size, zlbytes the blob's size and zltail the last entry's offset, as
 * Redis's deep sanitisation requires; a malformed blob is refused with the
 * reason in it->err, never read past.
 */
#ifndef GOBLIN_ZIPLIST_H
#define GOBLIN_ZIPLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "store/listpack.h"

/* Checks the header; false (with it->err) when the blob is not a ziplist. */
bool zl_iter_init(struct lp_iter *it, const void *blob, size_t len);
/* The next entry: 1 read, 0 at the end byte, -1 malformed (it->err). */
int zl_iter_next(struct lp_iter *it, struct lp_entry *e);
/* After zl_iter_next returned 0: the end byte is the blob's last, the
 * count and the tail offset as the header declared. */
bool zl_iter_end(struct lp_iter *it);

/* The zipmap of Redis before 2.6 (RDB type 9, hashes): a count byte (254:
 * count them), then field and value, each a length (1 byte below 254,
 * else 254 and a u32) and its bytes, a value with one byte of the free
 * bytes that follow it, and the end byte 0xFF. Read as the alternating
 * fields and values a listpack hash holds. */
bool zm_iter_init(struct lp_iter *it, const void *blob, size_t len);
int zm_iter_next(struct lp_iter *it, struct lp_entry *e);
bool zm_iter_end(struct lp_iter *it);

#endif
