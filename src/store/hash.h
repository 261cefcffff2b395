/*
 * hash.h — the hash type: field → value, protocol-free and typed.
 *
 * Two encodings, named as Redis names them in OBJECT ENCODING:
 *   listpack   fields and values alternate in one packed block (packed.h),
 *              in insertion order; lookups scan it. Used while the hash has
 *              at most hash_limits.max_listpack_entries fields and every
 *              field and value is at most max_listpack_value bytes.
 *   hashtable  the intrusive dict (dict.h); each field is ONE allocation
 *              holding the dict link, both lengths, the field bytes and the
 *              value bytes, so a lookup touches the bucket and the entry.
 * A hash that outgrows the compact form is converted once and never goes
 * back (Redis behaves the same). The thresholds are read at each write, so
 * CONFIG SET affects later writes only.
 *
 * Pointers handed out (hash_get, visitors) are valid until the next write
 * to the same hash.
 */
#ifndef GOBLIN_STORE_HASH_H
#define GOBLIN_STORE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/dict.h"
#include "store/packed.h"

struct hash_limits {
    long long max_listpack_entries; /* hash-max-listpack-entries (512) */
    long long max_listpack_value;   /* hash-max-listpack-value (64) */
};

extern struct hash_limits hash_limits;

struct hash {
    struct packed *lp;  /* compact encoding, or NULL */
    struct dict *table; /* indexed encoding, when lp == NULL */
};

/* One field of the indexed encoding. */
struct hash_field {
    struct dict_node node;
    uint32_t field_len;
    uint32_t value_len;
    char data[]; /* field bytes, then value bytes */
};

struct hash *hash_new(void);
void hash_free(struct hash *h);

/* A deep copy in the same encoding (COPY). */
struct hash *hash_dup(const struct hash *h);

size_t hash_len(const struct hash *h);

static inline bool hash_is_compact(const struct hash *h)
{
    return h->lp != NULL;
}

/* Finds field; on success points *value at its bytes, *value_len bytes long. */
bool hash_get(struct hash *h, const char *field, size_t field_len, const char **value,
              size_t *value_len);

static inline bool hash_exists(struct hash *h, const char *field, size_t field_len)
{
    const char *v;
    size_t n;
    return hash_get(h, field, field_len, &v, &n);
}

/* Sets field to value (value must not point into h). Returns true when the
 * field was created, false when an existing value was replaced. */
bool hash_set(struct hash *h, const char *field, size_t field_len, const char *value,
              size_t value_len);

/* Removes field; returns whether it existed. */
bool hash_delete(struct hash *h, const char *field, size_t field_len);

/* A visitor returns false to stop. It must not write to the hash. */
typedef bool hash_visit_fn(const char *field, size_t field_len, const char *value, size_t value_len,
                           void *arg);

/* Visits every field: insertion order for listpack, table order otherwise. */
void hash_foreach(struct hash *h, hash_visit_fn *fn, void *arg);

/* One HSCAN step: the listpack encoding visits everything and returns 0;
 * the table follows dict_scan's cursor, visiting at least `count` fields
 * when that many remain within 10 x count buckets (Redis's bound). */
unsigned long long hash_scan(struct hash *h, unsigned long long cursor, long long count,
                             hash_visit_fn *fn, void *arg);

/* Visits `count` uniformly chosen fields, repeats allowed (the hash must
 * not be empty). */
void hash_random_with_repeats(struct hash *h, size_t count, hash_visit_fn *fn, void *arg);

/* Visits `count` distinct random fields, count < hash_len(h). */
void hash_random_distinct(struct hash *h, size_t count, hash_visit_fn *fn, void *arg);

/* Allocated bytes of the value; for the table, `samples` fields are measured
 * and extrapolated (0 = measure all). */
size_t hash_memory_usage(const struct hash *h, size_t samples);

/* The rows of hash_limits (core/config.h). */
struct config_table;
extern const struct config_table hash_config;

#endif
