/* allocator.c — allocator statistics, purging and tuning; see allocator.h. */
#include "util/allocator.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/log.h"

#ifdef GOBLIN_JEMALLOC
#include <jemalloc/jemalloc.h>

/* Read by jemalloc at its initialisation (the first malloc, before main).
 * dirty_decay_ms: a freed page is purged within about a second rather than
 *   jemalloc's default ten, so RSS follows FLUSHALL promptly.
 * muzzy_decay_ms:0: purge with MADV_DONTNEED straight away; MADV_FREE'd
 *   ("muzzy") pages stay in RSS until the kernel is short of memory.
 * retain:false: give address space back with munmap. Pages locked by
 *   --mlockall (MCL_FUTURE) cannot be purged with madvise (EINVAL), so
 *   without this a locked heap would never shrink. */
const char *malloc_conf = "dirty_decay_ms:1000,muzzy_decay_ms:0,retain:false";

static bool stat_read(const char *name, size_t *out)
{
    size_t len = sizeof *out;
    return mallctl(name, out, &len, NULL, 0) == 0;
}

bool allocator_stats_read(struct allocator_stats *out)
{
    /* jemalloc's statistics are a snapshot taken when the epoch advances. */
    uint64_t epoch = 1;
    size_t len = sizeof epoch;
    if (mallctl("epoch", &epoch, &len, &epoch, len) != 0) return false;
    return stat_read("stats.allocated", &out->allocated) &&
           stat_read("stats.active", &out->active) && stat_read("stats.resident", &out->resident);
}

bool allocator_purge(void)
{
    /* Cached blocks of this thread first, so they are free to be purged. */
    mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
    char name[64];
    snprintf(name, sizeof name, "arena.%u.purge", (unsigned)MALLCTL_ARENAS_ALL);
    return mallctl(name, NULL, NULL, NULL, 0) == 0;
}

static void stats_text_write(void *arg, const char *text)
{
    buf_append(arg, text, strlen(text));
}

bool allocator_stats_text(struct buf *out)
{
    malloc_stats_print(stats_text_write, out, NULL);
    return true;
}

void allocator_decay(void)
{
    char name[64];
    snprintf(name, sizeof name, "arena.%u.decay", (unsigned)MALLCTL_ARENAS_ALL);
    mallctl(name, NULL, NULL, NULL, 0);
}

#else
#include <malloc.h>

bool allocator_stats_read(struct allocator_stats *out)
{
    memset(out, 0, sizeof *out);
    return false;
}

bool allocator_purge(void)
{
    malloc_trim(0);
    return true;
}

bool allocator_stats_text(struct buf *out)
{
    (void)out;
    return false;
}

void allocator_decay(void) {}
#endif
