/*
 * buf.h — the one growable byte buffer of the server.
 *
 * A buf is a contiguous region [data, data+cap) holding live bytes in
 * [data+start, data+end). Readers consume from `start`; writers append at
 * `end`. Used for connection input (the RESP parser reads slices of it in
 * place) and output (replies are appended, the transport drains from start).
 *
 * Growth is amortised doubling; buf_compact() slides live bytes to offset 0
 * so a long-lived connection does not keep growing. Allocation failure is
 * fatal (the server cannot continue consistently without memory).
 */
#ifndef GOBLIN_BUF_H
#define GOBLIN_BUF_H

#include <stddef.h>
#include <string.h>

struct buf {
    char *data;
    size_t start; /* first live byte */
    size_t end;   /* one past the last live byte */
    size_t cap;
};

void buf_init(struct buf *b, size_t initial_cap);
void buf_free(struct buf *b);

/* Make room for at least `extra` more bytes after `end`; may move data. */
void buf_reserve_slow(struct buf *b, size_t extra);

static inline void buf_reserve(struct buf *b, size_t extra)
{
    if (b->cap - b->end < extra) buf_reserve_slow(b, extra);
}

/* Make room for exactly `extra` more bytes after `end` (compacting first):
 * no rounding up, for buffers whose size a peer drives. */
void buf_reserve_exact(struct buf *b, size_t extra);

static inline size_t buf_len(const struct buf *b)
{
    return b->end - b->start;
}

static inline char *buf_head(const struct buf *b)
{
    return b->data + b->start;
}

static inline char *buf_tail(const struct buf *b)
{
    return b->data + b->end;
}

static inline size_t buf_room(const struct buf *b)
{
    return b->cap - b->end;
}

static inline void buf_append(struct buf *b, const void *p, size_t n)
{
    if (n == 0) /* an empty buffer may have no storage yet */
        return;
    buf_reserve(b, n);
    memcpy(b->data + b->end, p, n);
    b->end += n;
}

static inline void buf_append_char(struct buf *b, char ch)
{
    buf_reserve(b, 1);
    b->data[b->end++] = ch;
}

/* Consume n bytes from the head; resets offsets to 0 when empty. */
static inline void buf_consume(struct buf *b, size_t n)
{
    b->start += n;
    if (b->start == b->end) b->start = b->end = 0;
}

/* Drops the bytes past the first len live ones (len <= buf_len(b)). */
static inline void buf_truncate(struct buf *b, size_t len)
{
    b->end = b->start + len;
}

/* Slide live bytes to offset 0. */
void buf_compact(struct buf *b);

/* Drop everything and, when the buffer grew beyond `keep_cap`, shrink it. */
void buf_reset(struct buf *b, size_t keep_cap);

/* Insert n bytes at absolute offset `at` (start <= at <= end), moving the tail. */
void buf_insert(struct buf *b, size_t at, const void *p, size_t n);

/* Appends printf-style text, whatever its length (no fixed-size line). */
void buf_append_fmt(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends s as Redis's sdscatrepr writes it: in double quotes, with \\ \" \n
 * \r \t \a \b and \xHH escapes, so split_args reads it back as one word. */
void buf_append_repr(struct buf *b, const char *s, size_t len);

#endif
