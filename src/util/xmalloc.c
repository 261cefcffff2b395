/*
 * xmalloc.c — allocation wrappers with usage accounting.
 *
 * With GOBLIN_JEMALLOC (the release build) the server links Debian's
 * jemalloc through its non-prefixed API, tuned in util/allocator.c;
 * otherwise (sanitizer builds) glibc malloc is used. Accounting uses the
 * allocator's usable size so INFO reports what the heap really holds.
 */
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GOBLIN_JEMALLOC
#include <jemalloc/jemalloc.h>
#define usable_size(p) malloc_usable_size(p)
#else
#include <malloc.h>
#define usable_size(p) malloc_usable_size(p)
#endif

static size_t used_bytes;

static void oom(size_t n)
{
    fprintf(stderr, "goblin-core: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    used_bytes += usable_size(p);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) oom(count * size);
    used_bytes += usable_size(p);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    size_t old = p ? usable_size(p) : 0;
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    used_bytes += usable_size(q) - old;
    return q;
}

void xfree(void *p)
{
    if (!p) return;
    used_bytes -= usable_size(p);
    free(p);
}

char *xstrdup(const char *s)
{
    return xmemdup(s, strlen(s) + 1);
}

char *xmemdup(const void *p, size_t n)
{
    char *q = xmalloc(n + 1);
    memcpy(q, p, n);
    q[n] = '\0';
    return q;
}

size_t xmalloc_usable_size(const void *p)
{
    return p ? usable_size((void *)p) : 0;
}

size_t xmalloc_used_bytes(void)
{
    return used_bytes;
}

const char *xmalloc_allocator_name(void)
{
#ifdef GOBLIN_JEMALLOC
    /* Redis's spelling: major.minor.bugfix, without the git suffix. */
#define XMALLOC_STR(x) #x
#define XMALLOC_XSTR(x) XMALLOC_STR(x)
    return "jemalloc-" XMALLOC_XSTR(JEMALLOC_VERSION_MAJOR) "." XMALLOC_XSTR(
        JEMALLOC_VERSION_MINOR) "." XMALLOC_XSTR(JEMALLOC_VERSION_BUGFIX);
#else
    return "libc";
#endif
}
