/*
 * backlog.h — the replication backlog: the last repl-backlog-size bytes of
 * the replication stream, so a replica that lost its link (or a replica of
 * a replica promoted by a failover) can continue from its offset with
 * PSYNC instead of a full resynchronisation.
 *
 * Offsets are Redis's: the stream's bytes are numbered from 1, and
 * master_repl_offset is the number of the last byte fed (0 before any).
 * The backlog holds bytes [first, first + histlen), first =
 * master_repl_offset - histlen + 1, in a ring of `size` bytes allocated once
 * when the backlog is created (the first replica that connects, as Redis
 * does) and resized only by CONFIG SET repl-backlog-size. Feeding never
 * allocates: a write larger than the ring keeps only its tail.
 */
#ifndef GOBLIN_REPL_BACKLOG_H
#define GOBLIN_REPL_BACKLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

struct backlog {
    char *ring;       /* NULL: no backlog (repl_backlog_active:0) */
    size_t size;      /* bytes of the ring */
    size_t head;      /* where the next byte goes */
    size_t histlen;   /* bytes held, at most size */
    long long offset; /* master_repl_offset: the last byte fed */
};

/* Creates the ring (the stream so far is not in it: the backlog starts at
 * offset + 1). */
void backlog_create(struct backlog *b, size_t size);
void backlog_free(struct backlog *b);
/* CONFIG SET repl-backlog-size: a new ring keeping the newest bytes. */
void backlog_resize(struct backlog *b, size_t size);

/* Adds stream bytes (the offset advances even without a ring). */
void backlog_feed(struct backlog *b, const char *p, size_t n);

/* The first offset held (Redis's repl_backlog_off); offset + 1 when empty. */
long long backlog_first_offset(const struct backlog *b);

/* Whether a replica that has every byte up to `offset` can continue from
 * here: the backlog exists and holds offset + 1 .. master_repl_offset. */
bool backlog_covers(const struct backlog *b, long long offset);

/* Appends the bytes after `offset` (backlog_covers must hold) to out. */
void backlog_copy_from(const struct backlog *b, long long offset, struct buf *out);

#endif
