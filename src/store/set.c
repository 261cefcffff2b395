/* set.c — the set type in its two encodings; see set.h. */
#include "store/set.h"
#include "core/config.h"

#include <limits.h>
#include <string.h>

#include "store/sample.h"
#include "util/hash.h"
#include "util/numparse.h"
#include "util/rand.h"
#include "util/xmalloc.h"

struct set_limits set_limits = {.max_intset_entries = 512};

/* Redis caps the intset at 2^30 entries whatever the setting says. */
static size_t intset_max_entries(void)
{
    long long m = set_limits.max_intset_entries;
    return m >= (1LL << 30) ? (size_t)1 << 30 : (size_t)(m < 0 ? 0 : m);
}

static bool member_as_int(const char *m, size_t len, long long *out)
{
    return len <= 20 && num_parse_ll(m, len, out);
}

/* --- intset: sorted integers at the narrowest width ------------------------ */

static unsigned width_for(long long v)
{
    if (v >= INT16_MIN && v <= INT16_MAX) return 2;
    if (v >= INT32_MIN && v <= INT32_MAX) return 4;
    return 8;
}

static long long intset_get(const struct intset *is, size_t i)
{
    switch (is->width) {
    case 2: {
        int16_t v;
        memcpy(&v, is->data + i * 2, 2);
        return v;
    }
    case 4: {
        int32_t v;
        memcpy(&v, is->data + i * 4, 4);
        return v;
    }
    default: {
        int64_t v;
        memcpy(&v, is->data + i * 8, 8);
        return v;
    }
    }
}

static void intset_put(struct intset *is, size_t i, long long v)
{
    if (is->width == 2) {
        int16_t x = (int16_t)v;
        memcpy(is->data + i * 2, &x, 2);
    } else if (is->width == 4) {
        int32_t x = (int32_t)v;
        memcpy(is->data + i * 4, &x, 4);
    } else {
        int64_t x = v;
        memcpy(is->data + i * 8, &x, 8);
    }
}

static struct intset *intset_new(void)
{
    struct intset *is = xmalloc(sizeof *is);
    is->width = 2;
    is->len = 0;
    return is;
}

/* Binary search: true and *pos = index when found, else *pos = insertion point. */
static bool intset_search(const struct intset *is, long long v, size_t *pos)
{
    size_t lo = 0, hi = is->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        long long x = intset_get(is, mid);
        if (x == v) {
            *pos = mid;
            return true;
        }
        if (x < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return false;
}

static struct intset *intset_resize(struct intset *is, size_t len, unsigned width)
{
    return xrealloc(is, sizeof *is + len * width);
}

/* Rewrites every integer at a wider width (back to front, in place). */
static struct intset *intset_widen(struct intset *is, unsigned width)
{
    unsigned old = is->width;
    is = intset_resize(is, is->len, width);
    for (size_t i = is->len; i-- > 0;) {
        is->width = old;
        long long v = intset_get(is, i);
        is->width = width;
        intset_put(is, i, v);
    }
    is->width = width;
    return is;
}

static bool intset_add(struct intset **pis, long long v)
{
    struct intset *is = *pis;
    size_t pos;
    if (width_for(v) <= is->width && intset_search(is, v, &pos)) return false;
    if (width_for(v) > is->width) {
        is = intset_widen(is, width_for(v));
        pos = v < 0 ? 0 : is->len; /* a wider value is beyond every present one */
    }
    is = intset_resize(is, is->len + 1, is->width);
    memmove(is->data + (pos + 1) * is->width, is->data + pos * is->width,
            (is->len - pos) * is->width);
    intset_put(is, pos, v);
    is->len++;
    *pis = is;
    return true;
}

static bool intset_remove(struct intset **pis, long long v)
{
    struct intset *is = *pis;
    size_t pos;
    if (width_for(v) > is->width || !intset_search(is, v, &pos)) return false;
    memmove(is->data + pos * is->width, is->data + (pos + 1) * is->width,
            (is->len - pos - 1) * is->width);
    is->len--;
    *pis = intset_resize(is, is->len, is->width);
    return true;
}

/* --- hashtable: one allocation per member ---------------------------------- */

/* A member: the dict link, then a length byte (255 = a 4-byte length
 * follows), then the bytes. */
#define MEMBER_LONG 255

static const unsigned char *member_bytes(const struct dict_node *n, size_t *len)
{
    const unsigned char *p = (const unsigned char *)(n + 1);
    if (p[0] != MEMBER_LONG) {
        *len = p[0];
        return p + 1;
    }
    uint32_t l;
    memcpy(&l, p + 1, 4);
    *len = l;
    return p + 5;
}

static struct dict_node *member_new(const char *m, size_t len)
{
    size_t hdr = len < MEMBER_LONG ? 1 : 5;
    struct dict_node *n = xmalloc(sizeof *n + hdr + len);
    unsigned char *p = (unsigned char *)(n + 1);
    n->next = NULL;
    if (hdr == 1) {
        p[0] = (unsigned char)len;
    } else {
        uint32_t l = (uint32_t)len;
        p[0] = MEMBER_LONG;
        memcpy(p + 1, &l, 4);
    }
    memcpy(p + hdr, m, len);
    return n;
}

static uint64_t member_node_hash(const struct dict_node *n)
{
    size_t len;
    const unsigned char *p = member_bytes(n, &len);
    return hash_bytes(p, len);
}

static bool member_node_has_key(const struct dict_node *n, const void *key, size_t len)
{
    size_t l;
    const unsigned char *p = member_bytes(n, &l);
    return l == len && memcmp(p, key, len) == 0;
}

static const struct dict_type member_dict_type = {member_node_hash, member_node_has_key};

static void member_free_node(struct dict_node *n, void *arg)
{
    (void)arg;
    xfree(n);
}

static struct dict *table_new(void)
{
    struct dict *d = xmalloc(sizeof *d);
    dict_init(d, &member_dict_type);
    return d;
}

static bool table_add(struct dict *d, const char *m, size_t len)
{
    uint64_t hv = hash_bytes(m, len);
    if (dict_find(d, m, len, hv)) return false;
    dict_insert(d, member_new(m, len), hv);
    return true;
}

static void set_convert_to_table(struct set *s)
{
    struct dict *d = table_new();
    struct intset *is = s->is;
    for (size_t i = 0; i < is->len; i++) {
        char buf[NUM_LL_STR_SIZE];
        size_t n = num_format_ll(buf, intset_get(is, i));
        dict_insert(d, member_new(buf, n), hash_bytes(buf, n));
    }
    xfree(is);
    s->is = NULL;
    s->table = d;
}

/* --- public operations ----------------------------------------------------- */

struct set *set_new_intset(void)
{
    struct set *s = xmalloc(sizeof *s);
    s->is = intset_new();
    s->table = NULL;
    return s;
}

struct set *set_new_for(const char *first, size_t len)
{
    long long v;
    if (member_as_int(first, len, &v)) return set_new_intset();
    struct set *s = xmalloc(sizeof *s);
    s->is = NULL;
    s->table = table_new();
    return s;
}

static bool dup_node(struct dict_node *n, void *arg)
{
    size_t len;
    const unsigned char *p = member_bytes(n, &len);
    dict_insert(arg, member_new((const char *)p, len), hash_bytes(p, len));
    return true;
}

struct set *set_dup(const struct set *s)
{
    struct set *c = xmalloc(sizeof *c);
    c->is = NULL;
    c->table = NULL;
    if (s->is) {
        size_t bytes = sizeof *s->is + (size_t)s->is->len * s->is->width;
        c->is = xmalloc(bytes);
        memcpy(c->is, s->is, bytes);
        return c;
    }
    c->table = table_new();
    dict_foreach(s->table, dup_node, c->table);
    return c;
}

void set_free(struct set *s)
{
    if (s->is) {
        xfree(s->is);
    } else {
        dict_release(s->table, member_free_node, NULL);
        xfree(s->table);
    }
    xfree(s);
}

size_t set_len(const struct set *s)
{
    return s->is ? s->is->len : dict_size(s->table);
}

bool set_contains(struct set *s, const char *m, size_t len)
{
    if (s->is) {
        long long v;
        size_t pos;
        return member_as_int(m, len, &v) && width_for(v) <= s->is->width &&
               intset_search(s->is, v, &pos);
    }
    return dict_find(s->table, m, len, hash_bytes(m, len)) != NULL;
}

bool set_add(struct set *s, const char *m, size_t len)
{
    if (s->is) {
        long long v;
        if (member_as_int(m, len, &v)) {
            if (!intset_add(&s->is, v)) return false;
            if (s->is->len > intset_max_entries()) set_convert_to_table(s);
            return true;
        }
        set_convert_to_table(s);
    }
    return table_add(s->table, m, len);
}

bool set_remove(struct set *s, const char *m, size_t len)
{
    if (s->is) {
        long long v;
        return member_as_int(m, len, &v) && intset_remove(&s->is, v);
    }
    struct dict_node *n = dict_remove(s->table, m, len, hash_bytes(m, len));
    if (!n) return false;
    xfree(n);
    return true;
}

/* --- iteration ------------------------------------------------------------- */

static bool intset_visit(const struct intset *is, size_t i, set_visit_fn *fn, void *arg)
{
    char buf[NUM_LL_STR_SIZE];
    size_t n = num_format_ll(buf, intset_get(is, i));
    return fn(buf, n, arg);
}

struct visit_bridge {
    set_visit_fn *fn;
    void *arg;
    bool stopped;
    long long visited;
};

static bool visit_node(struct dict_node *n, void *arg)
{
    struct visit_bridge *b = arg;
    size_t len;
    const unsigned char *p = member_bytes(n, &len);
    b->visited++;
    if (!b->fn((const char *)p, len, b->arg)) b->stopped = true;
    return !b->stopped;
}

static void visit_scanned_node(struct dict_node *n, void *arg)
{
    struct visit_bridge *b = arg;
    if (!b->stopped) visit_node(n, arg);
}

void set_foreach(struct set *s, set_visit_fn *fn, void *arg)
{
    if (s->is) {
        for (size_t i = 0; i < s->is->len; i++)
            if (!intset_visit(s->is, i, fn, arg)) return;
        return;
    }
    struct visit_bridge b = {fn, arg, false, 0};
    dict_foreach(s->table, visit_node, &b);
}

unsigned long long set_scan(struct set *s, unsigned long long cursor, long long count,
                            set_visit_fn *fn, void *arg)
{
    if (s->is) {
        set_foreach(s, fn, arg);
        return 0;
    }
    struct visit_bridge b = {fn, arg, false, 0};
    long long max_steps = count > LLONG_MAX / 10 ? LLONG_MAX : count * 10;
    do {
        cursor = dict_scan(s->table, cursor, visit_scanned_node, &b);
    } while (cursor && --max_steps > 0 && b.visited < count && !b.stopped);
    return cursor;
}

/* --- random members -------------------------------------------------------- */

static uint64_t rand_source(void)
{
    return rand_u64();
}

static bool copy_member(const char *m, size_t len, void *arg)
{
    struct strview *out = arg;
    out->ptr = m;
    out->len = len;
    return false;
}

void set_random_member(struct set *s, struct strview *out)
{
    if (s->is) {
        out->len = num_format_ll(out->tmp, intset_get(s->is, rand_below(s->is->len)));
        out->ptr = out->tmp;
        return;
    }
    struct visit_bridge b = {copy_member, out, false, 0};
    visit_node(dict_fair_random_node(s->table, rand_source), &b);
}

void set_random_with_repeats(struct set *s, size_t count, set_visit_fn *fn, void *arg)
{
    for (size_t i = 0; i < count; i++) {
        struct strview v;
        set_random_member(s, &v);
        if (!fn(v.ptr, v.len, arg)) return;
    }
}

void set_random_distinct(struct set *s, size_t count, set_visit_fn *fn, void *arg)
{
    size_t len = set_len(s);
    if (s->is) {
        /* Selection sampling: each member kept with probability needed/left. */
        size_t needed = count, left = len;
        for (size_t i = 0; i < len && needed; i++, left--) {
            if (rand_below(left) >= needed) continue;
            needed--;
            if (!intset_visit(s->is, i, fn, arg)) return;
        }
        return;
    }
    struct visit_bridge b = {fn, arg, false, 0};
    dict_sample_distinct(s->table, count, visit_node, &b);
}

void set_pop_rebuild(struct set *s, size_t keep, struct set **rest)
{
    *rest = NULL;
    for (size_t i = 0; i < keep; i++) {
        struct strview v;
        set_random_member(s, &v);
        char copy[NUM_LL_STR_SIZE];
        const char *m = v.ptr;
        char *heap = NULL;
        /* The member's bytes live in s (or v.tmp): copy before removing. */
        if (v.ptr != v.tmp) {
            if (v.len <= sizeof copy) {
                memcpy(copy, v.ptr, v.len);
                m = copy;
            } else {
                m = heap = xmalloc(v.len);
                memcpy(heap, v.ptr, v.len);
            }
        }
        if (!*rest) *rest = set_new_for(m, v.len);
        set_add(*rest, m, v.len);
        set_remove(s, m, v.len);
        xfree(heap);
    }
}

/* --- memory ---------------------------------------------------------------- */

size_t set_memory_usage(const struct set *s, size_t samples)
{
    size_t total = xmalloc_usable_size((void *)s);
    if (s->is) return total + xmalloc_usable_size(s->is);
    return total + xmalloc_usable_size(s->table) + dict_sampled_bytes(s->table, samples);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param set_params[] = {
    {.name = "set-max-intset-entries",
     .kind = CFG_INT,
     .value = &set_limits.max_intset_entries,
     .max = LLONG_MAX,
     .value_name = "N",
     .help = "sets of integers with more members use a hash table (default 512)"},
};

const struct config_table set_config = CONFIG_TABLE(set_params, NULL);
