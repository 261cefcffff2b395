/*
 * xmalloc.h — allocation wrappers. Out of memory is fatal: a server that
 * half-applies a write is worse than one that stops. zmalloc-style accounting
 * (bytes in use) feeds INFO memory.
 */
#ifndef GOBLIN_XMALLOC_H
#define GOBLIN_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xmemdup(const void *p, size_t n);
void xfree(void *p);

/* Usable size of a block returned by these functions (allocator truth). */
size_t xmalloc_usable_size(const void *p);

/* Bytes currently allocated through these wrappers. */
size_t xmalloc_used_bytes(void);

/* Name of the allocator, for INFO ("jemalloc-5.3.0" or "libc"). */
const char *xmalloc_allocator_name(void);

#endif
