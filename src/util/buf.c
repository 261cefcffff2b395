/* buf.c — growable byte buffer; see buf.h for the contract. */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/xmalloc.h"

void buf_init(struct buf *b, size_t initial_cap)
{
    b->data = initial_cap ? xmalloc(initial_cap) : NULL;
    b->start = b->end = 0;
    b->cap = initial_cap;
}

void buf_free(struct buf *b)
{
    xfree(b->data);
    b->data = NULL;
    b->start = b->end = b->cap = 0;
}

void buf_compact(struct buf *b)
{
    if (b->start == 0) return;
    size_t live = b->end - b->start;
    if (live) memmove(b->data, b->data + b->start, live);
    b->start = 0;
    b->end = live;
}

void buf_reserve_slow(struct buf *b, size_t extra)
{
    /* Reclaim consumed head space first when that alone is enough and cheap. */
    if (b->start && b->cap - (b->end - b->start) >= extra && b->start >= (b->end - b->start)) {
        buf_compact(b);
        return;
    }
    size_t need = b->end + extra;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap = cap < ((size_t)1 << 40) ? cap * 2 : need;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void buf_reserve_exact(struct buf *b, size_t extra)
{
    if (b->cap - b->end >= extra) return;
    buf_compact(b);
    if (b->cap - b->end >= extra) return;
    b->cap = b->end + extra;
    b->data = xrealloc(b->data, b->cap);
}

void buf_reset(struct buf *b, size_t keep_cap)
{
    b->start = b->end = 0;
    if (b->cap > keep_cap) {
        xfree(b->data);
        b->data = keep_cap ? xmalloc(keep_cap) : NULL;
        b->cap = keep_cap;
    }
}

void buf_insert(struct buf *b, size_t at, const void *p, size_t n)
{
    size_t at_rel = at - b->start;
    buf_reserve(b, n);
    at = b->start + at_rel; /* reserve may have compacted */
    memmove(b->data + at + n, b->data + at, b->end - at);
    memcpy(b->data + at, p, n);
    b->end += n;
}

void buf_append_fmt(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    /* vsnprintf writes n bytes plus a NUL: reserve both, keep the n. */
    buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(buf_tail(b), (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->end += (size_t)n;
}

void buf_append_repr(struct buf *out, const char *s, size_t len)
{
    buf_append_char(out, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\\':
        case '"':
            buf_append_char(out, '\\');
            buf_append_char(out, (char)c);
            break;
        case '\n':
            buf_append(out, "\\n", 2);
            break;
        case '\r':
            buf_append(out, "\\r", 2);
            break;
        case '\t':
            buf_append(out, "\\t", 2);
            break;
        case '\a':
            buf_append(out, "\\a", 2);
            break;
        case '\b':
            buf_append(out, "\\b", 2);
            break;
        default:
            if (c >= 0x20 && c < 0x7f)
                buf_append_char(out, (char)c);
            else
                buf_append_fmt(out, "\\x%02x", c);
        }
    }
    buf_append_char(out, '"');
}
