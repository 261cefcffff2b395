/*
 * set.h — the set type: distinct byte strings, protocol-free and typed.
 *
 * Two encodings, named as Redis 7.0 names them in OBJECT ENCODING:
 *   intset     a sorted array of integers at the narrowest width (2, 4 or
 *              8 bytes) holding them all. Used while every member is a
 *              canonical decimal int64 (as Redis's string2ll accepts:
 *              "12", not "012", "+12" or "-0") and the set has at most
 *              set_limits.max_intset_entries members.
 *   hashtable  the intrusive dict (dict.h); each member is ONE allocation:
 *              the dict link, a one-byte length (five bytes past 254) and
 *              the member bytes, so a six-digit member costs one 16-byte
 *              allocation and a bucket slot.
 * As in Redis 7.0: a set is created as an intset when its first member is
 * an integer, a hashtable otherwise; an intset becomes a hashtable when a
 * non-integer is added or it outgrows the limit, and never goes back
 * (except that SPOP with a large count rebuilds the remainder, see
 * set_pop_rebuild).
 *
 * Members are handed out as (ptr, len); intset members are printed into a
 * caller-provided struct strview. Pointers are valid until the next write
 * to the same set.
 */
#ifndef GOBLIN_STORE_SET_H
#define GOBLIN_STORE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/dict.h"
#include "store/kv.h"

struct set_limits {
    long long max_intset_entries; /* set-max-intset-entries (512) */
};

extern struct set_limits set_limits;

struct intset {
    uint32_t width; /* bytes per integer: 2, 4 or 8 */
    uint32_t len;
    unsigned char data[]; /* len integers, ascending, native byte order */
};

struct set {
    struct intset *is;  /* intset encoding, or NULL */
    struct dict *table; /* hashtable encoding, when is == NULL */
};

/* An empty set in the encoding Redis picks for a set whose first member is
 * `first` (intset for an integer). */
struct set *set_new_for(const char *first, size_t len);
/* An empty intset-encoded set (the start of SINTERSTORE & co, as Redis). */
struct set *set_new_intset(void);
void set_free(struct set *s);

/* A deep copy in the same encoding (COPY). */
struct set *set_dup(const struct set *s);

size_t set_len(const struct set *s);

static inline bool set_is_intset(const struct set *s)
{
    return s->is != NULL;
}

bool set_contains(struct set *s, const char *m, size_t len);

/* Adds m; returns whether it was new. Converts the encoding as Redis does. */
bool set_add(struct set *s, const char *m, size_t len);

/* Removes m; returns whether it was there. */
bool set_remove(struct set *s, const char *m, size_t len);

/* A visitor returns false to stop; it must not write to the set. */
typedef bool set_visit_fn(const char *m, size_t len, void *arg);

/* Visits every member: ascending for intset, table order otherwise. */
void set_foreach(struct set *s, set_visit_fn *fn, void *arg);

/* One SSCAN step: the intset visits everything and returns 0; the table
 * follows dict_scan's cursor with Redis's count / 10 x count bound. */
unsigned long long set_scan(struct set *s, unsigned long long cursor, long long count,
                            set_visit_fn *fn, void *arg);

/* One uniformly chosen member (the set must not be empty). */
void set_random_member(struct set *s, struct strview *out);

/* Visits `count` uniformly chosen members, repeats allowed (non-empty set). */
void set_random_with_repeats(struct set *s, size_t count, set_visit_fn *fn, void *arg);

/* Visits `count` distinct random members, count < set_len(s). */
void set_random_distinct(struct set *s, size_t count, set_visit_fn *fn, void *arg);

/* SPOP with a count of more than a fifth of the set, as Redis 7.0 does it:
 * `keep` random members move to a new set (created for the first one moved,
 * so the encoding may go back to intset); *s then holds only the popped
 * members and *rest the new set (NULL when keep is 0). */
void set_pop_rebuild(struct set *s, size_t keep, struct set **rest);

/* Allocated bytes of the value; for the table, `samples` members are
 * measured and extrapolated (0 = all). */
size_t set_memory_usage(const struct set *s, size_t samples);

/* The rows of set_limits (core/config.h). */
struct config_table;
extern const struct config_table set_config;

#endif
