/*
 * allocator.h — the process allocator as an operator sees it: its own
 * statistics (INFO memory), returning free pages to the system (MEMORY
 * PURGE) and the periodic decay that does so continuously.
 *
 * The release server links Debian's jemalloc (GOBLIN_JEMALLOC) configured
 * for a server that must give memory back: freed pages are purged after
 * about a second, by housekeeping calling allocator_decay(), so RSS follows
 * the dataset down after FLUSHALL or a wave of closing connections.
 * No jemalloc background thread: a second thread makes glibc's read(),
 * write() and epoll_wait() wrappers take their cancellation-point slow path
 * (measured: ~150 instructions per request more under callgrind), so the
 * server stays single-threaded. Sanitizer
 * builds use glibc malloc (their runtimes replace it), which keeps no such
 * statistics: allocator_stats_read() says so and INFO falls back to Redis's
 * stand-ins.
 */
#ifndef GOBLIN_ALLOCATOR_H
#define GOBLIN_ALLOCATOR_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes as the allocator counts them (jemalloc's stats.*): allocated to the
 * program, in active pages (allocated plus the slack of partly used pages),
 * and resident (active plus dirty pages not yet purged, plus metadata). */
struct allocator_stats {
    size_t allocated;
    size_t active;
    size_t resident;
};

/* Fills *out with fresh figures; false when the allocator has none (libc). */
bool allocator_stats_read(struct allocator_stats *out);

/* Returns every free page to the system now (all arenas); false on error. */
bool allocator_purge(void);

/* Appends the allocator's own statistics report (jemalloc's
 * malloc_stats_print text, what MEMORY MALLOC-STATS shows); false when the
 * allocator has none (libc). */
struct buf;
bool allocator_stats_text(struct buf *out);

/* Purges the pages whose decay time has passed (housekeeping; cheap when
 * there are none). */
void allocator_decay(void);

#endif
