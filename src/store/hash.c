/* hash.c — the hash type in its two encodings; see hash.h. */
#include "store/hash.h"
#include "core/config.h"

#include <limits.h>
#include <string.h>

#include "store/sample.h"
#include "util/hash.h"
#include "util/rand.h"
#include "util/xmalloc.h"

struct hash_limits hash_limits = {.max_listpack_entries = 512, .max_listpack_value = 64};

/* --- indexed encoding: fields in the intrusive dict ------------------------ */

static uint64_t field_node_hash(const struct dict_node *n)
{
    const struct hash_field *f = (const struct hash_field *)n;
    return hash_bytes(f->data, f->field_len);
}

static bool field_node_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct hash_field *f = (const struct hash_field *)n;
    return f->field_len == len && memcmp(f->data, key, len) == 0;
}

static const struct dict_type field_dict_type = {field_node_hash, field_node_has_key};

static struct hash_field *field_new(const char *field, size_t flen, const char *value, size_t vlen)
{
    struct hash_field *f = xmalloc(sizeof *f + flen + vlen);
    f->node.next = NULL;
    f->field_len = (uint32_t)flen;
    f->value_len = (uint32_t)vlen;
    memcpy(f->data, field, flen);
    memcpy(f->data + flen, value, vlen);
    return f;
}

static void field_free_node(struct dict_node *n, void *arg)
{
    (void)arg;
    xfree(n);
}

/* Replaces the value of the field at *link, reallocating when the entry's
 * block is too small, or much too large, for the new value. */
static void table_update(struct dict_node **link, const char *value, size_t vlen)
{
    struct hash_field *f = (struct hash_field *)*link;
    size_t need = sizeof *f + f->field_len + vlen;
    size_t have = xmalloc_usable_size(f);
    if (need <= have && have - need < 64) {
        memcpy(f->data + f->field_len, value, vlen);
        f->value_len = (uint32_t)vlen;
        return;
    }
    struct hash_field *fresh = field_new(f->data, f->field_len, value, vlen);
    dict_replace_link(link, &fresh->node);
    xfree(f);
}

static bool table_set(struct dict *d, const char *field, size_t flen, const char *value,
                      size_t vlen)
{
    uint64_t hv = hash_bytes(field, flen);
    struct dict_node **link = dict_find_link(d, field, flen, hv);
    if (link) {
        table_update(link, value, vlen);
        return false;
    }
    dict_insert(d, &field_new(field, flen, value, vlen)->node, hv);
    return true;
}

/* --- compact encoding: field, value, field, value, ... in a packed block --- */

/* Offset of the field entry equal to `field`, or -1. */
static long long packed_find_field(const struct packed *p, const char *field, size_t flen)
{
    size_t off = 0;
    while (off < p->used) {
        const char *f;
        size_t fl;
        size_t value_off = packed_read(p, off, &f, &fl);
        if (fl == flen && memcmp(f, field, flen) == 0) return (long long)off;
        off = packed_skip(p, value_off);
    }
    return -1;
}

static void hash_convert_to_table(struct hash *h)
{
    struct dict *d = xmalloc(sizeof *d);
    dict_init(d, &field_dict_type);
    struct packed *p = h->lp;
    for (size_t off = 0; off < p->used;) {
        const char *f, *v;
        size_t fl, vl;
        off = packed_read(p, off, &f, &fl);
        off = packed_read(p, off, &v, &vl);
        dict_insert(d, &field_new(f, fl, v, vl)->node, hash_bytes(f, fl));
    }
    packed_free(p);
    h->lp = NULL;
    h->table = d;
}

/* --- public operations ----------------------------------------------------- */

struct hash *hash_new(void)
{
    struct hash *h = xmalloc(sizeof *h);
    h->lp = packed_new();
    h->table = NULL;
    return h;
}

static bool dup_field(struct dict_node *n, void *arg)
{
    const struct hash_field *f = (const struct hash_field *)n;
    dict_insert(arg, &field_new(f->data, f->field_len, f->data + f->field_len, f->value_len)->node,
                hash_bytes(f->data, f->field_len));
    return true;
}

struct hash *hash_dup(const struct hash *h)
{
    struct hash *c = xmalloc(sizeof *c);
    c->lp = NULL;
    c->table = NULL;
    if (h->lp) {
        c->lp = packed_dup(h->lp);
        return c;
    }
    c->table = xmalloc(sizeof *c->table);
    dict_init(c->table, &field_dict_type);
    dict_foreach(h->table, dup_field, c->table);
    return c;
}

void hash_free(struct hash *h)
{
    if (h->lp) {
        packed_free(h->lp);
    } else {
        dict_release(h->table, field_free_node, NULL);
        xfree(h->table);
    }
    xfree(h);
}

size_t hash_len(const struct hash *h)
{
    return h->lp ? packed_count(h->lp) / 2 : dict_size(h->table);
}

bool hash_get(struct hash *h, const char *field, size_t flen, const char **value, size_t *vlen)
{
    if (h->lp) {
        long long off = packed_find_field(h->lp, field, flen);
        if (off < 0) return false;
        packed_read(h->lp, packed_skip(h->lp, (size_t)off), value, vlen);
        return true;
    }
    struct dict_node *n = dict_find(h->table, field, flen, hash_bytes(field, flen));
    if (!n) return false;
    const struct hash_field *f = (const struct hash_field *)n;
    *value = f->data + f->field_len;
    *vlen = f->value_len;
    return true;
}

bool hash_set(struct hash *h, const char *field, size_t flen, const char *value, size_t vlen)
{
    if (h->lp) {
        size_t max_value = (size_t)hash_limits.max_listpack_value;
        if (flen > max_value || vlen > max_value || !packed_safe_to_add(h->lp, flen + vlen)) {
            hash_convert_to_table(h);
            return table_set(h->table, field, flen, value, vlen);
        }
        long long off = packed_find_field(h->lp, field, flen);
        bool created = off < 0;
        if (created) {
            packed_insert(&h->lp, h->lp->used, field, flen);
            packed_insert(&h->lp, h->lp->used, value, vlen);
        } else {
            packed_replace(&h->lp, packed_skip(h->lp, (size_t)off), value, vlen);
        }
        /* Checked on updates too, so a lowered threshold applies at the next write. */
        if (hash_len(h) > (size_t)hash_limits.max_listpack_entries) hash_convert_to_table(h);
        return created;
    }
    return table_set(h->table, field, flen, value, vlen);
}

bool hash_delete(struct hash *h, const char *field, size_t flen)
{
    if (h->lp) {
        long long off = packed_find_field(h->lp, field, flen);
        if (off < 0) return false;
        packed_delete(&h->lp, (size_t)off, 2);
        return true;
    }
    struct dict_node *n = dict_remove(h->table, field, flen, hash_bytes(field, flen));
    if (!n) return false;
    xfree(n);
    return true;
}

/* Bridges a dict node visitor to a field visitor. */
struct visit_bridge {
    hash_visit_fn *fn;
    void *arg;
    bool stopped;
    long long visited;
};

static bool visit_node(struct dict_node *n, void *arg)
{
    struct visit_bridge *b = arg;
    const struct hash_field *f = (const struct hash_field *)n;
    b->visited++;
    if (!b->fn(f->data, f->field_len, f->data + f->field_len, f->value_len, b->arg))
        b->stopped = true;
    return !b->stopped;
}

static void visit_scanned_node(struct dict_node *n, void *arg)
{
    struct visit_bridge *b = arg;
    if (!b->stopped) visit_node(n, arg);
}

static void packed_foreach_pair(const struct packed *p, hash_visit_fn *fn, void *arg)
{
    for (size_t off = 0; off < p->used;) {
        const char *f, *v;
        size_t fl, vl;
        off = packed_read(p, off, &f, &fl);
        off = packed_read(p, off, &v, &vl);
        if (!fn(f, fl, v, vl, arg)) return;
    }
}

void hash_foreach(struct hash *h, hash_visit_fn *fn, void *arg)
{
    if (h->lp) {
        packed_foreach_pair(h->lp, fn, arg);
        return;
    }
    struct visit_bridge b = {fn, arg, false, 0};
    dict_foreach(h->table, visit_node, &b);
}

unsigned long long hash_scan(struct hash *h, unsigned long long cursor, long long count,
                             hash_visit_fn *fn, void *arg)
{
    if (h->lp) {
        packed_foreach_pair(h->lp, fn, arg);
        return 0;
    }
    /* As Redis: step until `count` fields were visited or 10*count buckets
     * were looked at, so a sparse table still answers quickly. */
    struct visit_bridge b = {fn, arg, false, 0};
    long long max_steps = count > LLONG_MAX / 10 ? LLONG_MAX : count * 10;
    do {
        cursor = dict_scan(h->table, cursor, visit_scanned_node, &b);
    } while (cursor && --max_steps > 0 && b.visited < count && !b.stopped);
    return cursor;
}

/* --- random fields -------------------------------------------------------- */

/* Offsets of every field entry of a packed hash (caller frees). */
static size_t *packed_field_offsets(const struct packed *p)
{
    size_t n = packed_count(p) / 2, i = 0;
    size_t *offs = xmalloc(sizeof *offs * (n ? n : 1));
    for (size_t off = 0; off < p->used; off = packed_skip(p, packed_skip(p, off))) offs[i++] = off;
    return offs;
}

static bool visit_packed_at(const struct packed *p, size_t off, hash_visit_fn *fn, void *arg)
{
    const char *f, *v;
    size_t fl, vl;
    off = packed_read(p, off, &f, &fl);
    packed_read(p, off, &v, &vl);
    return fn(f, fl, v, vl, arg);
}

static uint64_t rand_source(void)
{
    return rand_u64();
}

void hash_random_with_repeats(struct hash *h, size_t count, hash_visit_fn *fn, void *arg)
{
    if (h->lp) {
        size_t *offs = packed_field_offsets(h->lp);
        size_t n = hash_len(h);
        for (size_t i = 0; i < count; i++)
            if (!visit_packed_at(h->lp, offs[rand_below(n)], fn, arg)) break;
        xfree(offs);
        return;
    }
    struct visit_bridge b = {fn, arg, false, 0};
    for (size_t i = 0; i < count && !b.stopped; i++)
        visit_node(dict_fair_random_node(h->table, rand_source), &b);
}

void hash_random_distinct(struct hash *h, size_t count, hash_visit_fn *fn, void *arg)
{
    size_t len = hash_len(h);
    if (h->lp) {
        /* Selection sampling: each field kept with probability needed/left. */
        size_t needed = count, left = len;
        for (size_t off = 0; off < h->lp->used && needed; left--) {
            if (rand_below(left) < needed) {
                needed--;
                if (!visit_packed_at(h->lp, off, fn, arg)) return;
            }
            off = packed_skip(h->lp, packed_skip(h->lp, off));
        }
        return;
    }
    struct visit_bridge b = {fn, arg, false, 0};
    dict_sample_distinct(h->table, count, visit_node, &b);
}

/* --- memory ----------------------------------------------------------------- */

size_t hash_memory_usage(const struct hash *h, size_t samples)
{
    size_t total = xmalloc_usable_size(h);
    if (h->lp) return total + packed_alloc_size(h->lp);
    return total + xmalloc_usable_size(h->table) + dict_sampled_bytes(h->table, samples);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param hash_params[] = {
    {.name = "hash-max-listpack-entries",
     .alias = "hash-max-ziplist-entries",
     .kind = CFG_INT,
     .value = &hash_limits.max_listpack_entries,
     .max = LLONG_MAX,
     .value_name = "N",
     .help = "hashes with more fields use a hash table (default 512)"},
    {.name = "hash-max-listpack-value",
     .alias = "hash-max-ziplist-value",
     .kind = CFG_MEMORY,
     .value = &hash_limits.max_listpack_value,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help = "hashes with a longer field or value use a hash table (default 64)"},
};

const struct config_table hash_config = CONFIG_TABLE(hash_params, NULL);
