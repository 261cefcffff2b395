/* stream_cgroup.c — consumer groups, consumers and their pending entries;
 * see stream_cgroup.h. */
#include "store/stream_cgroup.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/xmalloc.h"

/* --- named tables ------------------------------------------------------- */

static uint64_t named_hash(const struct dict_node *n)
{
    const struct stream_named *e = (const struct stream_named *)n;
    return hash_bytes(e->name, e->len);
}

static bool named_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct stream_named *e = (const struct stream_named *)n;
    return e->len == len && memcmp(e->name, key, len) == 0;
}

static const struct dict_type named_type = {named_hash, named_has_key};

static void names_init(struct stream_names *t)
{
    dict_init(&t->d, &named_type);
    t->sorted = NULL;
    t->sorted_cap = 0;
    t->sorted_valid = false;
}

static struct stream_named *names_find(const struct stream_names *t, const char *name, size_t len)
{
    return (struct stream_named *)dict_find((struct dict *)&t->d, name, len, hash_bytes(name, len));
}

static void names_add(struct stream_names *t, struct stream_named *e)
{
    dict_insert(&t->d, &e->node, hash_bytes(e->name, e->len));
    t->sorted_valid = false;
}

static void names_remove(struct stream_names *t, struct stream_named *e)
{
    dict_remove(&t->d, e->name, e->len, hash_bytes(e->name, e->len));
    t->sorted_valid = false;
}

/* Radix-tree order: bytes compared unsigned, a prefix before its extensions. */
static int named_cmp(const void *a, const void *b)
{
    const struct stream_named *x = *(struct stream_named *const *)a;
    const struct stream_named *y = *(struct stream_named *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    if (c) return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static bool collect_named(struct dict_node *n, void *arg)
{
    struct stream_named ***at = arg;
    *(*at)++ = (struct stream_named *)n;
    return true;
}

static struct stream_named **names_sorted(const struct stream_names *ct, size_t *count)
{
    struct stream_names *t = (struct stream_names *)ct; /* the view is a cache */
    size_t n = dict_size(&t->d);
    *count = n;
    if (!t->sorted_valid && n) {
        if (n > t->sorted_cap) {
            xfree(t->sorted);
            t->sorted = xmalloc(n * sizeof *t->sorted);
            t->sorted_cap = n;
        }
        struct stream_named **at = t->sorted;
        dict_foreach(&t->d, collect_named, &at);
        qsort(t->sorted, n, sizeof *t->sorted, named_cmp);
        t->sorted_valid = true;
    }
    return t->sorted;
}

/* Allocates a T with its name bytes after it; `named` is its first member. */
static void *named_new(size_t size, const char *name, size_t len)
{
    char *p = xcalloc(1, size + len + 1);
    struct stream_named *e = (struct stream_named *)p;
    e->name = p + size;
    e->len = (uint32_t)len;
    memcpy(e->name, name, len);
    return p;
}

static size_t names_memory_usage(const struct stream_names *t)
{
    return dict_bucket_count(&t->d) * sizeof(void *) + t->sorted_cap * sizeof(void *);
}

/* --- consumers ---------------------------------------------------------- */

static void consumer_free(struct stream_consumer *c)
{
    idtree_release(&c->pel, NULL, NULL); /* the group's PEL owns the entries */
    xfree(c);
}

static void free_consumer_node(struct dict_node *n, void *arg)
{
    (void)arg;
    consumer_free((struct stream_consumer *)n);
}

size_t stream_consumer_count(const struct stream_cgroup *g)
{
    return dict_size(&g->consumers.d);
}

struct stream_consumer *stream_consumer_find(const struct stream_cgroup *g, const char *name,
                                             size_t len)
{
    return (struct stream_consumer *)names_find(&g->consumers, name, len);
}

struct stream_consumer *stream_consumer_create(struct stream_cgroup *g, const char *name,
                                               size_t len, int64_t now_ms)
{
    if (stream_consumer_find(g, name, len)) return NULL;
    struct stream_consumer *c = named_new(sizeof *c, name, len);
    idtree_init(&c->pel);
    c->seen_time = now_ms;
    names_add(&g->consumers, &c->named);
    return c;
}

void stream_consumer_delete(struct stream_cgroup *g, struct stream_consumer *c)
{
    for (struct idtree_pos p = idtree_first(&c->pel); idtree_pos_valid(&p); idtree_next(&p)) {
        xfree(idtree_remove(&g->pel, idtree_pos_key(&p)));
    }
    names_remove(&g->consumers, &c->named);
    consumer_free(c);
}

struct stream_consumer *const *stream_consumer_list(const struct stream_cgroup *g, size_t *n)
{
    return (struct stream_consumer *const *)names_sorted(&g->consumers, n);
}

/* --- groups ------------------------------------------------------------- */

static void free_nack(void *value, void *arg)
{
    (void)arg;
    xfree(value);
}

static void group_free(struct stream_cgroup *g)
{
    idtree_release(&g->pel, free_nack, NULL);
    dict_release(&g->consumers.d, free_consumer_node, NULL);
    xfree(g->consumers.sorted);
    xfree(g);
}

static void free_group_node(struct dict_node *n, void *arg)
{
    (void)arg;
    group_free((struct stream_cgroup *)n);
}

void stream_cgroups_free(struct stream_cgroups *gs)
{
    dict_release(&gs->groups.d, free_group_node, NULL);
    xfree(gs->groups.sorted);
    xfree(gs);
}

size_t stream_cg_count(const struct stream *s)
{
    return s->groups ? dict_size(&s->groups->groups.d) : 0;
}

struct stream_cgroup *stream_cg_find(const struct stream *s, const char *name, size_t len)
{
    if (!s->groups) return NULL;
    return (struct stream_cgroup *)names_find(&s->groups->groups, name, len);
}

struct stream_cgroup *stream_cg_create(struct stream *s, const char *name, size_t len,
                                       const struct stream_id *last_id, long long entries_read)
{
    if (!s->groups) {
        s->groups = xcalloc(1, sizeof *s->groups);
        names_init(&s->groups->groups);
    }
    if (stream_cg_find(s, name, len)) return NULL;
    struct stream_cgroup *g = named_new(sizeof *g, name, len);
    g->last_id = *last_id;
    g->entries_read = entries_read;
    idtree_init(&g->pel);
    names_init(&g->consumers);
    names_add(&s->groups->groups, &g->named);
    return g;
}

bool stream_cg_destroy(struct stream *s, const char *name, size_t len)
{
    struct stream_cgroup *g = stream_cg_find(s, name, len);
    if (!g) return false;
    names_remove(&s->groups->groups, &g->named);
    group_free(g);
    return true;
}

struct stream_cgroup *const *stream_cg_list(const struct stream *s, size_t *n)
{
    if (!s->groups) {
        *n = 0;
        return NULL;
    }
    return (struct stream_cgroup *const *)names_sorted(&s->groups->groups, n);
}

struct stream_cgroups *stream_cgroups_dup(const struct stream_cgroups *gs)
{
    struct stream_cgroups *d = xcalloc(1, sizeof *d);
    names_init(&d->groups);
    struct stream fake = {.groups = d};
    size_t ng;
    struct stream_cgroup *const *groups =
        (struct stream_cgroup *const *)names_sorted(&gs->groups, &ng);
    for (size_t i = 0; i < ng; i++) {
        const struct stream_cgroup *g = groups[i];
        struct stream_cgroup *c =
            stream_cg_create(&fake, g->named.name, g->named.len, &g->last_id, g->entries_read);
        for (struct idtree_pos p = idtree_first(&g->pel); idtree_pos_valid(&p); idtree_next(&p)) {
            const struct stream_nack *n = idtree_pos_value(&p);
            stream_pel_add_unowned(c, idtree_pos_key(&p), n->delivery_time, n->delivery_count);
        }
        size_t nc;
        struct stream_consumer *const *cons = stream_consumer_list(g, &nc);
        for (size_t j = 0; j < nc; j++) {
            struct stream_consumer *cc =
                stream_consumer_create(c, cons[j]->named.name, cons[j]->named.len, 0);
            cc->seen_time = cons[j]->seen_time;
            for (struct idtree_pos p = idtree_first(&cons[j]->pel); idtree_pos_valid(&p);
                 idtree_next(&p)) {
                struct stream_nack *n = stream_pel_find(c, idtree_pos_key(&p));
                stream_pel_assign(n, idtree_pos_key(&p), cc);
            }
        }
    }
    return d;
}

size_t stream_cgroups_memory_usage(const struct stream_cgroups *gs)
{
    size_t bytes = xmalloc_usable_size(gs) + names_memory_usage(&gs->groups);
    size_t ng;
    struct stream_cgroup *const *groups =
        (struct stream_cgroup *const *)names_sorted(&gs->groups, &ng);
    for (size_t i = 0; i < ng; i++) {
        const struct stream_cgroup *g = groups[i];
        bytes += xmalloc_usable_size(g) + idtree_memory_usage(&g->pel) +
                 idtree_count(&g->pel) * sizeof(struct stream_nack) +
                 names_memory_usage(&g->consumers);
        size_t nc;
        struct stream_consumer *const *cons = stream_consumer_list(g, &nc);
        for (size_t j = 0; j < nc; j++)
            bytes += xmalloc_usable_size(cons[j]) + idtree_memory_usage(&cons[j]->pel);
    }
    return bytes;
}

/* --- pending entries ---------------------------------------------------- */

struct stream_nack *stream_pel_deliver(struct stream_cgroup *g, struct stream_consumer *c,
                                       const struct stream_id *id, int64_t now_ms)
{
    struct stream_nack *nack = stream_pel_find(g, id);
    if (!nack) {
        nack = xmalloc(sizeof *nack);
        nack->consumer = NULL;
        idtree_insert(&g->pel, id, nack);
    }
    stream_pel_assign(nack, id, c);
    nack->delivery_time = now_ms;
    nack->delivery_count = 1;
    return nack;
}

bool stream_pel_ack(struct stream_cgroup *g, const struct stream_id *id)
{
    struct stream_nack *nack = idtree_remove(&g->pel, id);
    if (!nack) return false;
    if (nack->consumer) idtree_remove(&nack->consumer->pel, id);
    xfree(nack);
    return true;
}

struct stream_nack *stream_pel_add_unowned(struct stream_cgroup *g, const struct stream_id *id,
                                           int64_t delivery_time, uint64_t delivery_count)
{
    struct stream_nack *nack = xmalloc(sizeof *nack);
    nack->delivery_time = delivery_time;
    nack->delivery_count = delivery_count;
    nack->consumer = NULL;
    bool inserted;
    struct stream_nack *there = idtree_insert_or_get(&g->pel, id, nack, &inserted);
    if (!inserted) {
        xfree(nack);
        return NULL;
    }
    return there;
}

void stream_pel_assign(struct stream_nack *nack, const struct stream_id *id,
                       struct stream_consumer *c)
{
    if (nack->consumer == c) return;
    if (nack->consumer) idtree_remove(&nack->consumer->pel, id);
    nack->consumer = c;
    idtree_insert(&c->pel, id, nack);
}

/* --- read counters ------------------------------------------------------ */

bool stream_range_has_tombstones(const struct stream *s, const struct stream_id *start,
                                 const struct stream_id *end)
{
    if (!s->length || stream_id_is_zero(&s->max_deleted_id)) return false;
    if (stream_id_cmp(&s->first_id, &s->max_deleted_id) > 0) return false;
    struct stream_id lo = start ? *start : (struct stream_id){0, 0};
    struct stream_id hi = end ? *end : (struct stream_id){UINT64_MAX, UINT64_MAX};
    return stream_id_cmp(&lo, &s->max_deleted_id) <= 0 &&
           stream_id_cmp(&s->max_deleted_id, &hi) <= 0;
}

long long stream_estimate_distance(const struct stream *s, const struct stream_id *id)
{
    if (!s->entries_added) return 0;
    if (!s->length && stream_id_cmp(id, &s->last_id) < 1) return (long long)s->entries_added;
    int cmp_last = stream_id_cmp(id, &s->last_id);
    if (cmp_last == 0) return (long long)s->entries_added;
    if (cmp_last > 0) return STREAM_ENTRIES_READ_INVALID;
    int cmp_first = stream_id_cmp(id, &s->first_id);
    if (stream_id_is_zero(&s->max_deleted_id) ||
        stream_id_cmp(&s->max_deleted_id, &s->first_id) < 0) {
        if (cmp_first < 0) return (long long)(s->entries_added - s->length);
        if (cmp_first == 0) return (long long)(s->entries_added - s->length + 1);
    }
    return STREAM_ENTRIES_READ_INVALID;
}

bool stream_cg_lag(const struct stream *s, const struct stream_cgroup *g, long long *lag)
{
    if (!s->entries_added) {
        *lag = 0;
        return true;
    }
    if (g->entries_read != STREAM_ENTRIES_READ_INVALID &&
        !stream_range_has_tombstones(s, &g->last_id, NULL)) {
        *lag = (long long)s->entries_added - g->entries_read;
        return true;
    }
    long long read = stream_estimate_distance(s, &g->last_id);
    if (read == STREAM_ENTRIES_READ_INVALID) return false;
    *lag = (long long)s->entries_added - read;
    return true;
}

bool stream_cg_advance(const struct stream *s, struct stream_cgroup *g, const struct stream_id *id)
{
    if (stream_id_cmp(id, &g->last_id) <= 0) return false;
    if (g->entries_read != STREAM_ENTRIES_READ_INVALID && !stream_range_has_tombstones(s, id, NULL))
        g->entries_read++;
    else if (s->entries_added)
        g->entries_read = stream_estimate_distance(s, id);
    g->last_id = *id;
    return true;
}

const char *stream_cgroups_verify(const struct stream *s)
{
    size_t ng;
    struct stream_cgroup *const *groups = stream_cg_list(s, &ng);
    for (size_t i = 0; i < ng; i++) {
        const struct stream_cgroup *g = groups[i];
        const char *err = idtree_verify(&g->pel);
        if (err) return err;
        size_t owned = 0, nc;
        struct stream_consumer *const *cons = stream_consumer_list(g, &nc);
        for (size_t j = 0; j < nc; j++) {
            if ((err = idtree_verify(&cons[j]->pel))) return err;
            for (struct idtree_pos p = idtree_first(&cons[j]->pel); idtree_pos_valid(&p);
                 idtree_next(&p)) {
                struct stream_nack *n = stream_pel_find(g, idtree_pos_key(&p));
                if (!n || n != idtree_pos_value(&p)) return "consumer entry not in its group's PEL";
                if (n->consumer != cons[j]) return "consumer entry owned by another consumer";
                owned++;
            }
        }
        if (owned != idtree_count(&g->pel)) return "group PEL entry without a consumer";
    }
    return NULL;
}
