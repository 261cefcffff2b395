/*
 * strbuf.h — an owned byte string: one allocation, a {len, cap} header,
 * then the bytes. It is the store's raw string value (ENC_RAW) and the
 * connection's buffer for a big bulk argument, so an argument received into
 * one can become a value without a copy (conn.c, kv_new_string_adopt()).
 *
 * struct strbuf_set is the list of such buffers one request owns, by
 * argument index: filled by the RESP parser, read (and partly taken) by the
 * command, the rest freed when the command is done.
 */
#ifndef GOBLIN_STRBUF_H
#define GOBLIN_STRBUF_H

#include <stddef.h>

struct strbuf {
    size_t len; /* bytes in use */
    size_t cap; /* bytes allocated after the header (the allocator's usable size) */
    char data[];
};

/* A strbuf of capacity >= cap holding a copy of bytes[0..len) (len <= cap;
 * bytes may be NULL when len is 0). */
struct strbuf *strbuf_new(const void *bytes, size_t len, size_t cap);

/* Reallocates sb for exactly cap bytes (no rounding beyond the allocator's;
 * len is kept, cut to cap). */
struct strbuf *strbuf_resize(struct strbuf *sb, size_t cap);

void strbuf_free(struct strbuf *sb);

struct strbuf_set {
    int count;
    int cap;
    int *index; /* argument index of buf[i] */
    struct strbuf **buf;
    size_t bytes; /* sum of the buffers' len */
};

/* Adds sb as argument `index` (ownership moves to the set). */
void strbuf_set_add(struct strbuf_set *s, int index, struct strbuf *sb);

/* Removes and returns the buffer of argument `index`; NULL when that
 * argument has none (it is a slice of the input buffer). */
struct strbuf *strbuf_set_take(struct strbuf_set *s, int index);

/* Frees every buffer still in the set and empties it (keeps the arrays). */
void strbuf_set_clear(struct strbuf_set *s);

/* strbuf_set_clear() and the arrays. */
void strbuf_set_free(struct strbuf_set *s);

#endif
