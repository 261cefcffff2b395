/* dict.c — intrusive hash table with incremental rehash; contracts in dict.h. */
#include "store/dict.h"

#include "util/clock.h"
#include "util/xmalloc.h"

#define DICT_MIN_BUCKETS 4
/* Empty buckets one rehash step may skip before yielding. */
#define DICT_EMPTY_VISITS_PER_STEP 10

void dict_init(struct dict *d, const struct dict_type *type)
{
    d->type = type;
    d->t[0] = d->t[1] = (struct dict_table){0};
    d->count = 0;
    d->rehash_index = -1;
    d->pause_rehash = 0;
}

static void table_release(struct dict_table *t, void (*free_node)(struct dict_node *, void *),
                          void *arg)
{
    if (!t->buckets) return;
    if (free_node) {
        for (size_t i = 0; i <= t->mask; i++) {
            struct dict_node *n = t->buckets[i];
            while (n) {
                struct dict_node *next = n->next;
                free_node(n, arg);
                n = next;
            }
        }
    }
    xfree(t->buckets);
    *t = (struct dict_table){0};
}

void dict_release(struct dict *d, void (*free_node)(struct dict_node *, void *), void *arg)
{
    table_release(&d->t[0], free_node, arg);
    table_release(&d->t[1], free_node, arg);
    d->count = 0;
    d->rehash_index = -1;
}

size_t dict_bucket_count(const struct dict *d)
{
    size_t n = 0;
    for (int i = 0; i < 2; i++)
        if (d->t[i].buckets) n += d->t[i].mask + 1;
    return n;
}

static size_t buckets_for(size_t entries)
{
    size_t n = DICT_MIN_BUCKETS;
    while (n < entries) n <<= 1;
    return n;
}

/* Starts moving into a table of `count` buckets (a power of two). */
static void dict_resize_to(struct dict *d, size_t count)
{
    if (dict_is_rehashing(d)) return;
    if (d->t[0].buckets && d->t[0].mask + 1 == count) return;
    struct dict_table fresh = {
        .buckets = xcalloc(count, sizeof(struct dict_node *)),
        .mask = count - 1,
    };
    if (!d->t[0].buckets) {
        d->t[0] = fresh;
        return;
    }
    d->t[1] = fresh;
    d->rehash_index = 0;
}

void dict_reserve(struct dict *d, size_t count)
{
    if (dict_is_rehashing(d)) return;
    size_t want = DICT_MIN_BUCKETS;
    while (want < count && want < ((size_t)1 << 40)) want *= 2;
    if (!d->t[0].buckets || d->t[0].mask + 1 < want) dict_resize_to(d, want);
}

/* Moves one non-empty bucket (visiting at most a few empty ones). */
static void dict_rehash_step(struct dict *d)
{
    struct dict_table *from = &d->t[0], *to = &d->t[1];
    int empty_visits = DICT_EMPTY_VISITS_PER_STEP;
    while ((size_t)d->rehash_index <= from->mask && !from->buckets[d->rehash_index]) {
        d->rehash_index++;
        if (--empty_visits == 0) break;
    }
    if ((size_t)d->rehash_index <= from->mask) {
        struct dict_node *n = from->buckets[d->rehash_index];
        while (n) {
            struct dict_node *next = n->next;
            size_t b = d->type->node_hash(n) & to->mask;
            n->next = to->buckets[b];
            to->buckets[b] = n;
            n = next;
        }
        from->buckets[d->rehash_index] = NULL;
        d->rehash_index++;
    }
    if ((size_t)d->rehash_index > from->mask) {
        xfree(from->buckets);
        *from = *to;
        *to = (struct dict_table){0};
        d->rehash_index = -1;
    }
}

static inline void dict_maybe_step(struct dict *d)
{
    if (dict_is_rehashing(d) && d->pause_rehash == 0) dict_rehash_step(d);
}

bool dict_rehash_for_us(struct dict *d, long long budget_us)
{
    if (!dict_is_rehashing(d) || d->pause_rehash) return dict_is_rehashing(d);
    long long deadline = clock_mono_us() + budget_us;
    do {
        for (int i = 0; i < 100 && dict_is_rehashing(d); i++) dict_rehash_step(d);
    } while (dict_is_rehashing(d) && clock_mono_us() < deadline);
    return dict_is_rehashing(d);
}

struct dict_node **dict_find_link(struct dict *d, const void *key, size_t len, uint64_t hash)
{
    dict_maybe_step(d);
    for (int i = 0; i < 2; i++) {
        struct dict_table *t = &d->t[i];
        if (!t->buckets) break;
        struct dict_node **link = &t->buckets[hash & t->mask];
        for (; *link; link = &(*link)->next)
            if (d->type->node_has_key(*link, key, len)) return link;
        if (!dict_is_rehashing(d)) break;
    }
    return NULL;
}

struct dict_node *dict_find(struct dict *d, const void *key, size_t len, uint64_t hash)
{
    struct dict_node **link = dict_find_link(d, key, len, hash);
    return link ? *link : NULL;
}

void dict_insert(struct dict *d, struct dict_node *node, uint64_t hash)
{
    dict_maybe_step(d);
    if (!d->t[0].buckets)
        dict_resize_to(d, DICT_MIN_BUCKETS);
    else if (!dict_is_rehashing(d) && d->count >= d->t[0].mask + 1 && !d->pause_rehash)
        dict_resize_to(d, (d->t[0].mask + 1) * 2);
    /* While rehashing, new nodes go to the destination so t[0] only drains. */
    struct dict_table *t = dict_is_rehashing(d) ? &d->t[1] : &d->t[0];
    struct dict_node **bucket = &t->buckets[hash & t->mask];
    node->next = *bucket;
    *bucket = node;
    d->count++;
}

void dict_remove_link(struct dict *d, struct dict_node **link)
{
    *link = (*link)->next;
    d->count--;
    dict_shrink_if_sparse(d);
}

struct dict_node *dict_remove(struct dict *d, const void *key, size_t len, uint64_t hash)
{
    dict_maybe_step(d);
    for (int i = 0; i < 2; i++) {
        struct dict_table *t = &d->t[i];
        if (!t->buckets) break;
        for (struct dict_node **link = &t->buckets[hash & t->mask]; *link; link = &(*link)->next) {
            if (d->type->node_has_key(*link, key, len)) {
                struct dict_node *n = *link;
                *link = n->next;
                d->count--;
                dict_shrink_if_sparse(d);
                return n;
            }
        }
        if (!dict_is_rehashing(d)) break;
    }
    return NULL;
}

void dict_shrink_if_sparse(struct dict *d)
{
    if (dict_is_rehashing(d) || d->pause_rehash || !d->t[0].buckets) return;
    size_t count = d->t[0].mask + 1;
    size_t used = d->count;
    if (used == 0) {
        xfree(d->t[0].buckets);
        d->t[0] = (struct dict_table){0};
        return;
    }
    if (count > DICT_MIN_BUCKETS && used * 8 < count) dict_resize_to(d, buckets_for(used));
}

static unsigned long long bit_reverse(unsigned long long v)
{
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return __builtin_bswap64(v);
}

/* Increments the cursor's masked bits in reverse-binary order, so a cursor
 * taken before a resize still covers every bucket after it (Redis SCAN). */
static unsigned long long cursor_next(unsigned long long v, unsigned long long mask)
{
    v |= ~mask;
    v = bit_reverse(v);
    v++;
    return bit_reverse(v);
}

static void scan_bucket(struct dict_node *n, dict_scan_fn *fn, void *arg)
{
    while (n) {
        struct dict_node *next = n->next;
        fn(n, arg);
        n = next;
    }
}

unsigned long long dict_scan(struct dict *d, unsigned long long cursor, dict_scan_fn *fn, void *arg)
{
    if (dict_size(d) == 0) return 0;
    d->pause_rehash++;
    if (!dict_is_rehashing(d)) {
        struct dict_table *t = &d->t[0];
        scan_bucket(t->buckets[cursor & t->mask], fn, arg);
        cursor = cursor_next(cursor, t->mask);
    } else {
        struct dict_table *small = &d->t[0], *large = &d->t[1];
        if (small->mask > large->mask) {
            struct dict_table *tmp = small;
            small = large;
            large = tmp;
        }
        scan_bucket(small->buckets[cursor & small->mask], fn, arg);
        /* Visit every bucket of the larger table that expands this one. */
        do {
            scan_bucket(large->buckets[cursor & large->mask], fn, arg);
            cursor = cursor_next(cursor, large->mask);
        } while (cursor & (small->mask ^ large->mask));
    }
    d->pause_rehash--;
    return cursor;
}

void dict_foreach(struct dict *d, bool (*fn)(struct dict_node *node, void *arg), void *arg)
{
    d->pause_rehash++;
    for (int i = 0; i < 2; i++) {
        struct dict_table *t = &d->t[i];
        if (!t->buckets) continue;
        for (size_t b = 0; b <= t->mask; b++) {
            struct dict_node *n = t->buckets[b];
            while (n) {
                struct dict_node *next = n->next;
                if (!fn(n, arg)) goto done;
                n = next;
            }
        }
    }
done:
    d->pause_rehash--;
    dict_shrink_if_sparse(d);
}

/* Redis's dictGetSomeKeys: up to count nodes from consecutive buckets of
 * both tables, starting at a random index, jumping elsewhere after a run of
 * empty buckets; at most count * 10 steps. */
static size_t dict_some_nodes(struct dict *d, struct dict_node **out, size_t count,
                              uint64_t (*rnd)(void))
{
    if (dict_size(d) < count) count = dict_size(d);
    bool rehashing = dict_is_rehashing(d);
    int tables = rehashing ? 2 : 1;
    size_t maxmask = d->t[0].mask;
    if (rehashing && d->t[1].mask > maxmask) maxmask = d->t[1].mask;
    size_t i = rnd() & maxmask, empty = 0, stored = 0, steps = count * 10;
    while (stored < count && steps--) {
        for (int j = 0; j < tables; j++) {
            /* t[0] below rehash_index is empty (moved to t[1]). */
            if (tables == 2 && j == 0 && i < (size_t)d->rehash_index) {
                if (i > d->t[1].mask)
                    i = (size_t)d->rehash_index;
                else
                    continue;
            }
            if (!d->t[j].buckets || i > d->t[j].mask) continue;
            struct dict_node *n = d->t[j].buckets[i];
            if (!n) {
                if (++empty >= 5 && empty > count) {
                    i = rnd() & maxmask;
                    empty = 0;
                }
                continue;
            }
            empty = 0;
            for (; n; n = n->next) {
                out[stored++] = n;
                if (stored == count) return stored;
            }
        }
        i = (i + 1) & maxmask;
    }
    return stored;
}

struct dict_node *dict_fair_random_node(struct dict *d, uint64_t (*rnd)(void))
{
    if (dict_size(d) == 0) return NULL;
    struct dict_node *picked[DICT_FAIR_SAMPLE];
    size_t n = dict_some_nodes(d, picked, DICT_FAIR_SAMPLE, rnd);
    if (n == 0) return dict_random_node(d, rnd);
    return picked[rnd() % n];
}

struct dict_node *dict_random_node(struct dict *d, uint64_t (*rnd)(void))
{
    if (dict_size(d) == 0) return NULL;
    dict_maybe_step(d);
    struct dict_node *bucket = NULL;
    /* Pick a non-empty bucket uniformly over both tables' live range. */
    while (!bucket) {
        if (dict_is_rehashing(d)) {
            size_t span0 = d->t[0].mask + 1 - (size_t)d->rehash_index;
            size_t span = span0 + d->t[1].mask + 1;
            size_t i = rnd() % span;
            bucket = i < span0 ? d->t[0].buckets[(size_t)d->rehash_index + i]
                               : d->t[1].buckets[i - span0];
        } else {
            bucket = d->t[0].buckets[rnd() & d->t[0].mask];
        }
    }
    size_t chain = 0;
    for (struct dict_node *n = bucket; n; n = n->next) chain++;
    size_t pick = rnd() % chain;
    while (pick--) bucket = bucket->next;
    return bucket;
}
