/* backlog.c — the replication backlog ring; see backlog.h. */
#include "repl/backlog.h"

#include <string.h>

#include "core/server_state.h"
#include "util/xmalloc.h"

void backlog_create(struct backlog *b, size_t size)
{
    b->ring = xmalloc(size);
    b->size = size;
    b->head = 0;
    b->histlen = 0;
    repl_stats.backlog_bytes = size; /* the one backlog: INFO mem_replication_backlog */
}

void backlog_free(struct backlog *b)
{
    xfree(b->ring);
    b->ring = NULL;
    b->size = b->head = b->histlen = 0;
    repl_stats.backlog_bytes = 0;
}

void backlog_feed(struct backlog *b, const char *p, size_t n)
{
    b->offset += (long long)n;
    if (!b->ring) return;
    if (n > b->size) { /* only the newest `size` bytes can stay */
        p += n - b->size;
        n = b->size;
    }
    size_t first = b->size - b->head < n ? b->size - b->head : n;
    memcpy(b->ring + b->head, p, first);
    memcpy(b->ring, p + first, n - first);
    b->head = (b->head + n) % b->size;
    b->histlen = b->histlen + n > b->size ? b->size : b->histlen + n;
}

long long backlog_first_offset(const struct backlog *b)
{
    return b->offset - (long long)b->histlen + 1;
}

bool backlog_covers(const struct backlog *b, long long offset)
{
    return b->ring && offset + 1 >= backlog_first_offset(b) && offset <= b->offset;
}

void backlog_copy_from(const struct backlog *b, long long offset, struct buf *out)
{
    size_t n = (size_t)(b->offset - offset); /* bytes after offset */
    size_t start = (b->head + b->size - n) % b->size;
    size_t first = b->size - start < n ? b->size - start : n;
    buf_append(out, b->ring + start, first);
    buf_append(out, b->ring, n - first);
}

void backlog_resize(struct backlog *b, size_t size)
{
    if (!b->ring || size == b->size) return;
    struct buf keep;
    buf_init(&keep, b->histlen ? b->histlen : 1);
    backlog_copy_from(b, b->offset - (long long)b->histlen, &keep);
    long long offset = b->offset;
    backlog_free(b);
    backlog_create(b, size);
    b->offset = offset - (long long)buf_len(&keep);
    backlog_feed(b, buf_head(&keep), buf_len(&keep));
    buf_free(&keep);
}
