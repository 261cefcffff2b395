/* packed.c — contiguous sequence of length-prefixed byte strings; see packed.h. */
#include "store/packed.h"

#include <string.h>

#include "util/varint.h"
#include "util/xmalloc.h"

/* Keep at most this much slack after a delete before giving memory back. */
#define PACKED_SHRINK_SLACK 256

static struct packed *packed_resize(struct packed *p, size_t cap)
{
    p = xrealloc(p, sizeof *p + cap);
    p->cap = (uint32_t)(xmalloc_usable_size(p) - sizeof *p);
    return p;
}

struct packed *packed_new(void)
{
    struct packed *p = xmalloc(sizeof *p + 16);
    p->used = 0;
    p->count = 0;
    p->cap = (uint32_t)(xmalloc_usable_size(p) - sizeof *p);
    return p;
}

struct packed *packed_dup(const struct packed *p)
{
    struct packed *c = xmalloc(sizeof *c + p->used);
    memcpy(c, p, sizeof *c + p->used);
    c->cap = (uint32_t)(xmalloc_usable_size(c) - sizeof *c);
    return c;
}

void packed_free(struct packed *p)
{
    xfree(p);
}

size_t packed_alloc_size(const struct packed *p)
{
    return xmalloc_usable_size(p);
}

/* Opens a gap of `n` bytes at `off`, growing the block to the exact size
 * needed (the allocator's rounding gives small appends room for free). */
static unsigned char *packed_open_gap(struct packed **pp, size_t off, size_t n)
{
    struct packed *p = *pp;
    if ((size_t)p->used + n > p->cap) *pp = p = packed_resize(p, p->used + n);
    memmove(p->data + off + n, p->data + off, p->used - off);
    p->used += (uint32_t)n;
    return p->data + off;
}

static void packed_close_gap(struct packed **pp, size_t off, size_t n)
{
    struct packed *p = *pp;
    memmove(p->data + off, p->data + off + n, p->used - off - n);
    p->used -= (uint32_t)n;
    if (p->cap - p->used > PACKED_SHRINK_SLACK && p->cap - p->used > p->used / 2)
        *pp = packed_resize(p, p->used);
}

void packed_insert(struct packed **pp, size_t off, const void *bytes, size_t len)
{
    unsigned char *dst = packed_open_gap(pp, off, varint_len(len) + len);
    dst += varint_put(dst, len);
    memcpy(dst, bytes, len);
    (*pp)->count++;
}

void packed_delete(struct packed **pp, size_t off, size_t n)
{
    size_t end = off;
    for (size_t i = 0; i < n; i++) end = packed_skip(*pp, end);
    (*pp)->count -= (uint32_t)n;
    packed_close_gap(pp, off, end - off);
}

void packed_replace(struct packed **pp, size_t off, const void *bytes, size_t len)
{
    const char *old;
    size_t old_len;
    size_t end = packed_read(*pp, off, &old, &old_len);
    size_t old_total = end - off, new_total = varint_len(len) + len;
    if (new_total > old_total)
        packed_open_gap(pp, off, new_total - old_total);
    else if (new_total < old_total)
        packed_close_gap(pp, off, old_total - new_total);
    unsigned char *dst = (*pp)->data + off;
    dst += varint_put(dst, len);
    memmove(dst, bytes, len);
}
