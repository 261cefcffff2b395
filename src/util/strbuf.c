/* strbuf.c — owned byte strings; contract in strbuf.h. */
#include "util/strbuf.h"

#include <string.h>

#include "util/xmalloc.h"

struct strbuf *strbuf_new(const void *bytes, size_t len, size_t cap)
{
    struct strbuf *sb = xmalloc(sizeof(struct strbuf) + cap);
    sb->len = len;
    sb->cap = xmalloc_usable_size(sb) - sizeof(struct strbuf);
    if (len) memcpy(sb->data, bytes, len);
    return sb;
}

struct strbuf *strbuf_resize(struct strbuf *sb, size_t cap)
{
    sb = xrealloc(sb, sizeof(struct strbuf) + cap);
    sb->cap = xmalloc_usable_size(sb) - sizeof(struct strbuf);
    if (sb->len > sb->cap) sb->len = sb->cap;
    return sb;
}

void strbuf_free(struct strbuf *sb)
{
    xfree(sb);
}

void strbuf_set_add(struct strbuf_set *s, int index, struct strbuf *sb)
{
    if (s->count == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4;
        s->index = xrealloc(s->index, sizeof(int) * (size_t)s->cap);
        s->buf = xrealloc(s->buf, sizeof(struct strbuf *) * (size_t)s->cap);
    }
    s->index[s->count] = index;
    s->buf[s->count] = sb;
    s->count++;
    s->bytes += sb->len;
}

struct strbuf *strbuf_set_take(struct strbuf_set *s, int index)
{
    for (int i = 0; i < s->count; i++) {
        if (s->index[i] != index) continue;
        struct strbuf *sb = s->buf[i];
        s->bytes -= sb->len;
        s->count--;
        s->index[i] = s->index[s->count];
        s->buf[i] = s->buf[s->count];
        return sb;
    }
    return NULL;
}

void strbuf_set_clear(struct strbuf_set *s)
{
    for (int i = 0; i < s->count; i++) strbuf_free(s->buf[i]);
    s->count = 0;
    s->bytes = 0;
}

void strbuf_set_free(struct strbuf_set *s)
{
    strbuf_set_clear(s);
    xfree(s->index);
    xfree(s->buf);
    s->index = NULL;
    s->buf = NULL;
    s->cap = 0;
}
