/* stream.c — the stream type's entries: nodes, append, trimming,
 * deletion, iteration and the raw access persistence uses; see stream.h. */
#include "store/stream.h"
#include "core/config.h"

#include <limits.h>
#include <string.h>

#include "store/listpack.h"
#include "store/stream_cgroup.h"
#include "util/clock.h"
#include "util/varint.h"
#include "util/xmalloc.h"

struct stream_limits stream_limits = {.node_max_bytes = 4096, .node_max_entries = 100};

/* One node: the master fields, then the entries (see stream.h). */
struct stream_node {
    struct stream_id master;
    struct stream_id last; /* the last entry's ID (a tombstone's too) */
    uint32_t used, cap;    /* bytes of data[] used / available */
    uint32_t live, deleted;
    /* Redis's listpack for this node, in bytes, less its count and
     * deleted elements (whose sizes follow the counts). */
    uint32_t lp_fixed;
    uint32_t nfields;    /* master fields */
    uint32_t entries_at; /* offset of the first entry in data[] */
    uint32_t last_off;   /* offset of the last entry (its flags byte) */
    /* The reference lengths: the first entry's values (when it has the
     * master fields), whose lengths entries flagged SAMELENS share. */
    uint32_t ref_at;    /* offset of its first value; 0: none */
    uint32_t ref_total; /* bytes of its values */
    unsigned char data[];
};

#define KIND_NEXT_SEQ 0u  /* same ms, previous seq + 1 */
#define KIND_SEQ_DELTA 1u /* same ms, previous seq + 1 + varint */
#define KIND_MS_DELTA 2u  /* ms + varint, then seq as a varint */
#define FLAG_BITS 3u
/* Bit 4: the master fields, and values as long as the reference entry's,
 * stored without their lengths (a stream of same-shaped entries, the
 * usual kind, saves a byte per value). */
#define SAMELENS 0x10u

/* Nodes are allocated with this much room to start with (most streams
 * get more entries), then grown by half; a node that closes is shrunk to
 * its size. */
#define NODE_FIRST_CAP 256

/* --- strings (util/varint.h lengths) ------------------------------------ */

static size_t string_put(unsigned char *p, const char *s, size_t n)
{
    size_t h = varint_put(p, n);
    memcpy(p + h, s, n);
    return h + n;
}

static const unsigned char *string_get(const unsigned char *p, const char **s, size_t *n)
{
    *n = (size_t)varint_get(&p);
    *s = (const char *)p;
    return p + *n;
}

static const unsigned char *strings_skip(const unsigned char *p, size_t count)
{
    while (count--) {
        size_t n = (size_t)varint_get(&p);
        p += n;
    }
    return p;
}

/* --- nodes -------------------------------------------------------------- */

static struct stream_node *node_new(size_t cap)
{
    struct stream_node *n = xmalloc(sizeof *n + cap);
    memset(n, 0, sizeof *n);
    n->cap = (uint32_t)(xmalloc_usable_size(n) - sizeof *n);
    return n;
}

/* Room for `more` bytes; may move the node (the caller re-points the tree). */
static struct stream_node *node_reserve(struct stream_node *n, size_t more)
{
    size_t need = (size_t)n->used + more;
    if (need <= n->cap) return n;
    size_t cap = need + need / 2;
    n = xrealloc(n, sizeof *n + cap);
    n->cap = (uint32_t)(xmalloc_usable_size(n) - sizeof *n);
    return n;
}

static struct stream_node *node_shrink(struct stream_node *n)
{
    if (n->cap - n->used < 16) return n;
    n = xrealloc(n, sizeof *n + n->used);
    n->cap = (uint32_t)(xmalloc_usable_size(n) - sizeof *n);
    return n;
}

static size_t node_lp_bytes(const struct stream_node *n)
{
    return (size_t)n->lp_fixed + lp_int_size(n->live) + lp_int_size(n->deleted);
}

static struct stream_node *node_at(const struct idtree_pos *p)
{
    return idtree_pos_value(p);
}

/* The ID the first entry's delta is taken from (the master's minus one
 * sequence, wrapping: the first entry of a node is usually its master). */
static struct stream_id node_virtual_prev(const struct stream_node *n)
{
    return (struct stream_id){n->master.ms, n->master.seq - 1};
}

/* An entry's header, decoded. */
struct entry_head {
    unsigned flags;
    struct stream_id id;
    size_t nfields;
    const unsigned char *strings; /* its first field or value */
    const unsigned char *end;     /* the next entry */
    bool samelens;                /* values without lengths (the reference's) */
};

static void entry_decode(const struct stream_node *n, uint32_t off, const struct stream_id *prev,
                         struct entry_head *e)
{
    const unsigned char *p = n->data + off;
    unsigned hdr = *p++;
    e->flags = hdr & FLAG_BITS;
    e->samelens = hdr & SAMELENS;
    switch ((hdr >> 2) & 3) {
    case KIND_NEXT_SEQ:
        e->id = (struct stream_id){prev->ms, prev->seq + 1};
        break;
    case KIND_SEQ_DELTA:
        e->id.ms = prev->ms;
        e->id.seq = prev->seq + 1 + varint_get(&p);
        break;
    default:
        e->id.ms = prev->ms + varint_get(&p);
        e->id.seq = varint_get(&p);
        break;
    }
    if (e->samelens) {
        e->nfields = n->nfields;
        e->strings = p;
        e->end = p + n->ref_total;
    } else if (e->flags & STREAM_ITEM_SAMEFIELDS) {
        e->nfields = n->nfields;
        e->strings = p;
        e->end = strings_skip(p, e->nfields);
    } else {
        e->nfields = (size_t)varint_get(&p);
        e->strings = p;
        e->end = strings_skip(p, e->nfields * 2);
    }
}

/* Bytes of an entry's header (flags/kind byte and ID delta) after prev. */
static size_t head_len(const struct stream_id *prev, const struct stream_id *id, unsigned *kind)
{
    if (id->ms == prev->ms) {
        uint64_t d = id->seq - prev->seq - 1;
        *kind = d == 0 ? KIND_NEXT_SEQ : KIND_SEQ_DELTA;
        return d == 0 ? 1 : 1 + varint_len(d);
    }
    *kind = KIND_MS_DELTA;
    return 1 + varint_len(id->ms - prev->ms) + varint_len(id->seq);
}

static size_t head_put(unsigned char *p, const struct stream_id *prev, const struct stream_id *id,
                       unsigned kind, unsigned flags)
{
    size_t n = 0;
    p[n++] = (unsigned char)(kind << 2 | flags);
    if (kind == KIND_SEQ_DELTA) n += varint_put(p + n, id->seq - prev->seq - 1);
    if (kind == KIND_MS_DELTA) {
        n += varint_put(p + n, id->ms - prev->ms);
        n += varint_put(p + n, id->seq);
    }
    return n;
}

/* Whether the master fields are exactly these field names. */
static bool same_as_master(const struct stream_node *n, const char *const *fv, const size_t *fvlen,
                           size_t nfields)
{
    if (nfields != n->nfields) return false;
    const unsigned char *p = n->data;
    for (size_t i = 0; i < nfields; i++) {
        const char *f;
        size_t len;
        p = string_get(p, &f, &len);
        if (len != fvlen[2 * i] || memcmp(f, fv[2 * i], len) != 0) return false;
    }
    return true;
}

/* Whether the values have the reference entry's lengths. */
static bool same_lengths(const struct stream_node *n, const size_t *fvlen, size_t nfields)
{
    const unsigned char *p = n->data + n->ref_at;
    for (size_t i = 0; i < nfields; i++) {
        const char *v;
        size_t len;
        p = string_get(p, &v, &len);
        if (len != fvlen[2 * i + 1]) return false;
    }
    return true;
}

static void cursor_start(struct stream_entry_cursor *c, const struct stream_node *n,
                         const struct entry_head *e)
{
    c->fp = e->strings;
    c->master = n->data;
    c->ref = n->data + n->ref_at;
    c->same = e->flags & STREAM_ITEM_SAMEFIELDS;
    c->samelens = e->samelens;
}

/* The entry's next field (its own, or the master's) and value (length
 * prefixed, or as long as the reference entry's). */
static void cursor_field(struct stream_entry_cursor *c, const char **f, size_t *flen,
                         const char **v, size_t *vlen)
{
    if (c->same)
        c->master = string_get(c->master, f, flen);
    else
        c->fp = string_get(c->fp, f, flen);
    if (!c->samelens) {
        c->fp = string_get(c->fp, v, vlen);
        return;
    }
    const char *unused;
    c->ref = string_get(c->ref, &unused, vlen);
    *v = (const char *)c->fp;
    c->fp += *vlen;
}

/* --- life --------------------------------------------------------------- */

struct stream *stream_new(void)
{
    struct stream *s = xcalloc(1, sizeof *s);
    idtree_init(&s->nodes);
    return s;
}

static void free_node(void *value, void *arg)
{
    (void)arg;
    xfree(value);
}

void stream_free(struct stream *s)
{
    idtree_release(&s->nodes, free_node, NULL);
    if (s->groups) stream_cgroups_free(s->groups);
    xfree(s);
}

/* --- lazy free --------------------------------------------------------- */

#define LAZYFREE_THRESHOLD 64

long long stream_lazyfreed;
static struct stream **lazy_queue;
static size_t lazy_n, lazy_cap;

static size_t free_effort(const struct stream *s)
{
    size_t effort = idtree_count(&s->nodes);
    size_t ng;
    struct stream_cgroup *const *groups = stream_cg_list(s, &ng);
    for (size_t i = 0; i < ng && effort <= LAZYFREE_THRESHOLD; i++)
        effort += 1 + idtree_count(&groups[i]->pel);
    return effort;
}

void stream_release(struct stream *s)
{
    if (free_effort(s) <= LAZYFREE_THRESHOLD) {
        stream_free(s);
        return;
    }
    if (lazy_n == lazy_cap) {
        lazy_cap = lazy_cap ? lazy_cap * 2 : 16;
        lazy_queue = xrealloc(lazy_queue, lazy_cap * sizeof *lazy_queue);
    }
    lazy_queue[lazy_n++] = s;
}

size_t stream_lazy_free_pending(void)
{
    return lazy_n;
}

bool stream_lazy_free_step(long long budget_us)
{
    if (!lazy_n) return false;
    int64_t deadline = clock_mono_us() + budget_us;
    while (lazy_n) {
        struct stream *s = lazy_queue[lazy_n - 1];
        /* The nodes in batches, the clock read between them. */
        for (int batch = 0; idtree_count(&s->nodes); batch++) {
            struct idtree_pos first = idtree_first(&s->nodes);
            struct stream_id key = *idtree_pos_key(&first);
            xfree(idtree_remove(&s->nodes, &key));
            if (batch % 64 == 63 && clock_mono_us() >= deadline) return true;
        }
        stream_free(s);
        lazy_n--;
        stream_lazyfreed++;
        if (clock_mono_us() >= deadline) break;
    }
    if (!lazy_n) {
        xfree(lazy_queue);
        lazy_queue = NULL;
        lazy_cap = 0;
    }
    return lazy_n != 0;
}

void stream_lazy_free_all(void)
{
    while (stream_lazy_free_step(1000000)) continue;
}

struct stream *stream_dup(const struct stream *s)
{
    struct stream *d = stream_new();
    for (struct idtree_pos p = idtree_first(&s->nodes); idtree_pos_valid(&p); idtree_next(&p)) {
        const struct stream_node *n = node_at(&p);
        struct stream_node *c = (struct stream_node *)xmemdup(n, sizeof *n + n->used);
        c->cap = (uint32_t)(xmalloc_usable_size(c) - sizeof *c);
        idtree_insert(&d->nodes, &n->master, c);
    }
    d->length = s->length;
    d->last_id = s->last_id;
    d->first_id = s->first_id;
    d->max_deleted_id = s->max_deleted_id;
    d->entries_added = s->entries_added;
    if (s->groups) d->groups = stream_cgroups_dup(s->groups);
    return d;
}

size_t stream_memory_usage(const struct stream *s, size_t samples)
{
    size_t bytes = xmalloc_usable_size(s) + idtree_memory_usage(&s->nodes);
    size_t nodes = idtree_count(&s->nodes), seen = 0, seen_bytes = 0;
    for (struct idtree_pos p = idtree_first(&s->nodes);
         idtree_pos_valid(&p) && (!samples || seen < samples); idtree_next(&p), seen++)
        seen_bytes += xmalloc_usable_size(node_at(&p));
    if (seen) bytes += (size_t)((double)seen_bytes / (double)seen * (double)nodes);
    if (s->groups) bytes += stream_cgroups_memory_usage(s->groups);
    return bytes;
}

size_t stream_node_count(const struct stream *s)
{
    return idtree_count(&s->nodes);
}

/* Nodes of Redis's radix tree holding these sorted 16-byte keys below
 * depth: rax keeps chains of single-child positions in one compressed
 * node and a branching position's children one level down, so its node
 * count is a function of the key set alone. */
static size_t rax_count(const unsigned char (*k)[16], size_t lo, size_t hi, unsigned depth)
{
    if (depth == 16) return 1; /* the key's leaf */
    unsigned d = depth;
    while (d < 16 && k[lo][d] == k[hi - 1][d]) d++;
    if (d > depth) return 1 + rax_count(k, lo, hi, d); /* one compressed node */
    size_t n = 1;                                      /* a branching node */
    for (size_t i = lo; i < hi;) {
        size_t j = i;
        while (j < hi && k[j][depth] == k[i][depth]) j++;
        n += rax_count(k, i, j, depth + 1);
        i = j;
    }
    return n;
}

size_t stream_rax_nodes(const struct stream *s)
{
    size_t n = idtree_count(&s->nodes);
    if (n == 0) return 1; /* the empty head */
    unsigned char(*keys)[16] = xmalloc(n * sizeof *keys);
    size_t i = 0;
    for (struct idtree_pos p = idtree_first(&s->nodes); idtree_pos_valid(&p); idtree_next(&p))
        stream_id_encode(keys[i++], idtree_pos_key(&p));
    size_t nodes = rax_count((const unsigned char(*)[16])keys, 0, n, 0);
    xfree(keys);
    return nodes;
}

/* --- append ------------------------------------------------------------- */

static size_t lp_fields_size(const char *const *fv, const size_t *fvlen, size_t nfields,
                             size_t first, size_t step)
{
    size_t n = 0;
    for (size_t i = first; i < nfields * 2; i += step) n += lp_string_size(fv[i], fvlen[i]);
    return n;
}

static struct stream_node *node_open(struct stream *s, const struct stream_id *id,
                                     const char *const *fv, const size_t *fvlen, size_t nfields)
{
    size_t bytes = 0;
    for (size_t i = 0; i < nfields; i++) bytes += varint_len(fvlen[2 * i]) + fvlen[2 * i];
    struct stream_node *n = node_new(bytes + NODE_FIRST_CAP);
    n = node_reserve(n, bytes);
    n->master = *id;
    n->nfields = (uint32_t)nfields;
    for (size_t i = 0; i < nfields; i++)
        n->used += (uint32_t)string_put(n->data + n->used, fv[2 * i], fvlen[2 * i]);
    n->entries_at = n->used;
    n->lp_fixed = (uint32_t)(LP_EMPTY_BYTES + lp_int_size((long long)nfields) +
                             lp_fields_size(fv, fvlen, nfields, 0, 2) + lp_int_size(0));
    idtree_insert(&s->nodes, id, n);
    return n;
}

/* The tail node if the next entry (of `bytes` field and value bytes) may
 * join it, as Redis decides; a tail that closes is shrunk. */
static struct stream_node *open_tail(struct stream *s, size_t bytes)
{
    if (idtree_count(&s->nodes) == 0) return NULL;
    struct idtree_pos last = idtree_last(&s->nodes);
    struct stream_node *n = node_at(&last);
    size_t max_bytes = (size_t)stream_limits.node_max_bytes;
    if (max_bytes == 0 || max_bytes > STREAM_LISTPACK_MAX_SIZE)
        max_bytes = STREAM_LISTPACK_MAX_SIZE;
    bool full = node_lp_bytes(n) + bytes >= max_bytes ||
                (stream_limits.node_max_entries &&
                 (long long)n->live + n->deleted >= stream_limits.node_max_entries);
    if (!full) return n;
    struct stream_node *shrunk = node_shrink(n);
    if (shrunk != n) idtree_set(&s->nodes, &shrunk->master, shrunk);
    return NULL;
}

/* The ID XADD would generate (Redis's streamNextID). */
static void next_id(const struct stream_id *last, int64_t now_ms, struct stream_id *out)
{
    uint64_t ms = now_ms > 0 ? (uint64_t)now_ms : 0;
    if (ms > last->ms) {
        out->ms = ms;
        out->seq = 0;
    } else {
        *out = *last;
        stream_id_incr(out);
    }
}

enum stream_append_status stream_append(struct stream *s, const char *const *fv,
                                        const size_t *fvlen, size_t nfields,
                                        const struct stream_id *use_id, bool seq_given,
                                        int64_t now_ms, struct stream_id *added)
{
    struct stream_id id;
    if (!use_id) {
        next_id(&s->last_id, now_ms, &id);
    } else if (seq_given || s->last_id.ms != use_id->ms) {
        id = *use_id;
    } else {
        if (s->last_id.seq == UINT64_MAX) return STREAM_APPEND_ID_TOO_SMALL;
        id = s->last_id;
        id.seq++;
    }
    if (stream_id_cmp(&id, &s->last_id) <= 0) return STREAM_APPEND_ID_TOO_SMALL;
    size_t total = 0;
    for (size_t i = 0; i < nfields * 2; i++) total += fvlen[i];
    if (total > STREAM_LISTPACK_MAX_SIZE) return STREAM_APPEND_TOO_LARGE;

    struct stream_node *n = open_tail(s, total);
    bool same = true;
    struct stream_id prev;
    if (!n) {
        n = node_open(s, &id, fv, fvlen, nfields);
        prev = node_virtual_prev(n);
    } else {
        same = same_as_master(n, fv, fvlen, nfields);
        prev = n->live + n->deleted ? n->last : node_virtual_prev(n);
    }
    bool samelens = same && n->live + n->deleted && n->ref_at && same_lengths(n, fvlen, nfields);
    unsigned kind;
    size_t bytes = head_len(&prev, &id, &kind);
    if (!same) bytes += varint_len(nfields);
    for (size_t i = same ? 1 : 0; i < nfields * 2; i += same ? 2 : 1)
        bytes += (samelens ? 0 : varint_len(fvlen[i])) + fvlen[i];
    struct stream_node *grown = node_reserve(n, bytes);
    if (grown != n) idtree_set(&s->nodes, &grown->master, grown);
    n = grown;
    n->last_off = n->used;
    unsigned char *p = n->data + n->used;
    p += head_put(p, &prev, &id, kind,
                  (same ? STREAM_ITEM_SAMEFIELDS : 0) | (samelens ? SAMELENS : 0));
    if (!same) p += varint_put(p, nfields);
    if (same && n->live + n->deleted == 0) { /* the first entry: the reference */
        n->ref_at = (uint32_t)(p - n->data);
        n->ref_total = 0;
        for (size_t i = 1; i < nfields * 2; i += 2) n->ref_total += (uint32_t)fvlen[i];
    }
    for (size_t i = same ? 1 : 0; i < nfields * 2; i += same ? 2 : 1) {
        if (samelens) {
            memcpy(p, fv[i], fvlen[i]);
            p += fvlen[i];
        } else {
            p += string_put(p, fv[i], fvlen[i]);
        }
    }
    n->used = (uint32_t)(p - n->data);

    /* Redis's listpack grows by: flags, ms and seq deltas, [num-fields,
     * fields,] values, lp-count. */
    size_t lp = lp_int_size(same ? STREAM_ITEM_SAMEFIELDS : 0) +
                lp_int_size((long long)(id.ms - n->master.ms)) +
                lp_int_size((long long)(id.seq - n->master.seq)) +
                lp_fields_size(fv, fvlen, nfields, 1, 2);
    long long lp_count = (long long)nfields + 3;
    if (!same) {
        lp += lp_int_size((long long)nfields) + lp_fields_size(fv, fvlen, nfields, 0, 2);
        lp_count += (long long)nfields + 1;
    }
    n->lp_fixed += (uint32_t)(lp + lp_int_size(lp_count));
    n->live++;
    n->last = id;

    s->length++;
    s->entries_added++;
    s->last_id = id;
    if (s->length == 1) s->first_id = id;
    *added = id;
    return STREAM_APPEND_OK;
}

/* --- removal ------------------------------------------------------------ */

static void node_remove(struct stream *s, struct stream_node *n)
{
    idtree_remove(&s->nodes, &n->master);
    xfree(n);
}

static void mark_deleted(struct stream_node *n, uint32_t off)
{
    n->data[off] |= STREAM_ITEM_DELETED;
}

int64_t stream_trim(struct stream *s, const struct stream_trim *t)
{
    if (t->strategy == STREAM_TRIM_NONE) return 0;
    bool by_len = t->strategy == STREAM_TRIM_MAXLEN;
    uint64_t maxlen = t->maxlen > 0 ? (uint64_t)t->maxlen : 0;
    int64_t deleted = 0;
    struct idtree_pos p = idtree_first(&s->nodes);
    while (idtree_pos_valid(&p)) {
        if (by_len && s->length <= maxlen) break;
        struct stream_node *n = node_at(&p);
        int64_t entries = n->live;
        if (t->limit && deleted + entries > t->limit) break;
        bool whole = by_len ? s->length - (uint64_t)entries >= maxlen
                            : stream_id_cmp(&n->last, &t->minid) < 0;
        if (whole) {
            struct stream_id master = n->master;
            node_remove(s, n);
            s->length -= (uint64_t)entries;
            deleted += entries;
            p = idtree_seek_ge(&s->nodes, &master);
            continue;
        }
        if (t->approx) break;
        /* Mark entries of this node deleted up to the limit. */
        uint32_t marked = 0;
        struct stream_id prev = node_virtual_prev(n);
        for (uint32_t off = n->entries_at; off < n->used;) {
            struct entry_head e;
            entry_decode(n, off, &prev, &e);
            bool stop = by_len ? s->length <= maxlen : stream_id_cmp(&e.id, &t->minid) >= 0;
            if (stop) break;
            if (!(e.flags & STREAM_ITEM_DELETED)) {
                mark_deleted(n, off);
                marked++;
                s->length--;
            }
            prev = e.id;
            off = (uint32_t)(e.end - n->data);
        }
        n->live -= marked;
        n->deleted += marked;
        deleted += marked;
        break; /* this node had enough to delete: no need to go on */
    }
    if (s->length == 0)
        s->first_id = (struct stream_id){0, 0};
    else if (deleted)
        stream_edge_id(s, true, true, &s->first_id);
    return deleted;
}

/* Deletes the live entry id; false when there is none. */
static bool delete_one(struct stream *s, const struct stream_id *id)
{
    struct idtree_pos p = idtree_seek_le(&s->nodes, id);
    if (!idtree_pos_valid(&p)) return false;
    struct stream_node *n = node_at(&p);
    if (stream_id_cmp(id, &n->last) > 0) return false;
    struct stream_id prev = node_virtual_prev(n);
    for (uint32_t off = n->entries_at; off < n->used;) {
        struct entry_head e;
        entry_decode(n, off, &prev, &e);
        int c = stream_id_cmp(&e.id, id);
        if (c > 0) return false;
        if (c == 0) {
            if (e.flags & STREAM_ITEM_DELETED) return false;
            if (n->live == 1) {
                node_remove(s, n);
            } else {
                mark_deleted(n, off);
                n->live--;
                n->deleted++;
            }
            s->length--;
            return true;
        }
        prev = e.id;
        off = (uint32_t)(e.end - n->data);
    }
    return false;
}

size_t stream_delete_ids(struct stream *s, const struct stream_id *ids, size_t count)
{
    size_t deleted = 0;
    bool first_entry = false;
    for (size_t i = 0; i < count; i++) {
        if (!delete_one(s, &ids[i])) continue;
        if (stream_id_cmp(&ids[i], &s->first_id) == 0) first_entry = true;
        if (stream_id_cmp(&ids[i], &s->max_deleted_id) > 0) s->max_deleted_id = ids[i];
        deleted++;
    }
    if (deleted) {
        if (s->length == 0)
            s->first_id = (struct stream_id){0, 0};
        else if (first_entry)
            stream_edge_id(s, true, true, &s->first_id);
    }
    return deleted;
}

/* --- iteration ---------------------------------------------------------- */

void stream_iter_start(struct stream_iter *it, const struct stream *s,
                       const struct stream_id *start, const struct stream_id *end, bool rev)
{
    it->s = s;
    it->start = start ? *start : (struct stream_id){0, 0};
    it->end = end ? *end : (struct stream_id){UINT64_MAX, UINT64_MAX};
    it->rev = rev;
    it->skip_tombstones = true;
    it->done = false;
    it->started = false;
    it->node = NULL;
    it->offs = it->inline_offs;
    it->ids = it->inline_ids;
    it->cap = 32;
    it->nent = it->at = 0;
    /* The node to begin with, as Redis seeks its radix tree. */
    const struct stream_id *from = rev ? end : start;
    if (from && !stream_id_is_zero(from)) {
        it->pos = idtree_seek_le(&s->nodes, from);
        if (!idtree_pos_valid(&it->pos))
            it->pos = rev ? idtree_last(&s->nodes) : idtree_first(&s->nodes);
    } else {
        it->pos = rev ? idtree_last(&s->nodes) : idtree_first(&s->nodes);
    }
}

/* Decodes every entry of the iterator's node (reverse iteration). */
static void load_reverse(struct stream_iter *it)
{
    const struct stream_node *n = it->node;
    uint32_t count = n->live + n->deleted;
    if (count > it->cap) {
        if (it->offs != it->inline_offs) {
            xfree(it->offs);
            xfree(it->ids);
        }
        it->offs = xmalloc(count * sizeof *it->offs);
        it->ids = xmalloc(count * sizeof *it->ids);
        it->cap = count;
    }
    struct stream_id prev = node_virtual_prev(n);
    uint32_t k = 0;
    for (uint32_t off = n->entries_at; off < n->used && k < it->cap;) {
        struct entry_head e;
        entry_decode(n, off, &prev, &e);
        it->offs[k] = off;
        it->ids[k++] = e.id;
        prev = e.id;
        off = (uint32_t)(e.end - n->data);
    }
    it->nent = it->at = k;
}

static bool next_node(struct stream_iter *it)
{
    if (it->started) {
        if (it->rev)
            idtree_prev(&it->pos);
        else
            idtree_next(&it->pos);
    }
    it->started = true;
    if (!idtree_pos_valid(&it->pos)) return false;
    it->node = node_at(&it->pos);
    if (it->rev) {
        load_reverse(it);
    } else {
        it->off = it->node->entries_at;
        it->prev = node_virtual_prev(it->node);
    }
    return true;
}

bool stream_iter_next(struct stream_iter *it, struct stream_id *id, size_t *nfields)
{
    while (!it->done) {
        if (!it->node && !next_node(it)) break;
        const struct stream_node *n = it->node;
        struct entry_head e;
        if (!it->rev) {
            if (it->off >= n->used) {
                it->node = NULL;
                continue;
            }
            entry_decode(n, it->off, &it->prev, &e);
            it->prev = e.id;
            it->off = (uint32_t)(e.end - n->data);
        } else {
            if (it->at == 0) {
                it->node = NULL;
                continue;
            }
            it->at--;
            struct stream_id before = it->at ? it->ids[it->at - 1] : node_virtual_prev(n);
            entry_decode(n, it->offs[it->at], &before, &e);
        }
        if (it->skip_tombstones && (e.flags & STREAM_ITEM_DELETED)) continue;
        if (!it->rev) {
            if (stream_id_cmp(&e.id, &it->start) < 0) continue;
            if (stream_id_cmp(&e.id, &it->end) > 0) break;
        } else {
            if (stream_id_cmp(&e.id, &it->end) > 0) continue;
            if (stream_id_cmp(&e.id, &it->start) < 0) break;
        }
        *id = e.id;
        *nfields = e.nfields;
        cursor_start(&it->cur, n, &e);
        return true;
    }
    it->done = true;
    return false;
}

void stream_iter_field(struct stream_iter *it, const char **f, size_t *flen, const char **v,
                       size_t *vlen)
{
    cursor_field(&it->cur, f, flen, v, vlen);
}

void stream_iter_stop(struct stream_iter *it)
{
    if (it->offs != it->inline_offs) {
        xfree(it->offs);
        xfree(it->ids);
        it->offs = it->inline_offs;
        it->ids = it->inline_ids;
    }
}

void stream_foreach(const struct stream *s, stream_entry_fn *entry, stream_field_fn *field,
                    void *arg)
{
    struct stream_iter it;
    struct stream_id id;
    size_t nfields;
    stream_iter_start(&it, s, NULL, NULL, false);
    while (stream_iter_next(&it, &id, &nfields)) {
        entry(&id, nfields, arg);
        while (nfields--) {
            const char *f, *v;
            size_t fl, vl;
            stream_iter_field(&it, &f, &fl, &v, &vl);
            field(f, fl, v, vl, arg);
        }
    }
    stream_iter_stop(&it);
}

void stream_edge_id(const struct stream *s, bool first, bool skip_tombstones, struct stream_id *out)
{
    struct stream_iter it;
    size_t nfields;
    stream_iter_start(&it, s, NULL, NULL, !first);
    it.skip_tombstones = skip_tombstones;
    if (!stream_iter_next(&it, out, &nfields))
        *out = first ? (struct stream_id){UINT64_MAX, UINT64_MAX} : (struct stream_id){0, 0};
    stream_iter_stop(&it);
}

bool stream_last_live_id(const struct stream *s, struct stream_id *out)
{
    /* The usual case at once: the last entry is live (XREAD and XREADGROUP
     * ask for every stream they read). */
    if (idtree_count(&s->nodes)) {
        struct idtree_pos last = idtree_last(&s->nodes);
        const struct stream_node *n = node_at(&last);
        if (!(n->data[n->last_off] & STREAM_ITEM_DELETED)) {
            *out = n->last;
            return true;
        }
    }
    struct stream_iter it;
    size_t nfields;
    stream_iter_start(&it, s, NULL, NULL, true);
    bool found = stream_iter_next(&it, out, &nfields);
    stream_iter_stop(&it);
    return found;
}

bool stream_entry_exists(const struct stream *s, const struct stream_id *id)
{
    struct stream_iter it;
    struct stream_id got;
    size_t nfields;
    stream_iter_start(&it, s, id, id, false);
    bool found = stream_iter_next(&it, &got, &nfields);
    stream_iter_stop(&it);
    return found;
}

/* --- raw access --------------------------------------------------------- */

void stream_walk_start(struct stream_walk *w, const struct stream *s)
{
    memset(w, 0, sizeof *w);
    w->pos = idtree_first(&s->nodes);
}

bool stream_walk_node(struct stream_walk *w, struct stream_id *master, uint64_t *live,
                      uint64_t *deleted, size_t *master_fields)
{
    if (w->node) idtree_next(&w->pos);
    if (!idtree_pos_valid(&w->pos)) return false;
    const struct stream_node *n = w->node = node_at(&w->pos);
    *master = n->master;
    *live = n->live;
    *deleted = n->deleted;
    *master_fields = n->nfields;
    w->off = n->entries_at;
    w->master_off = 0;
    w->prev = node_virtual_prev(n);
    return true;
}

void stream_walk_master_field(struct stream_walk *w, const char **f, size_t *len)
{
    const unsigned char *p = string_get(w->node->data + w->master_off, f, len);
    w->master_off = (uint32_t)(p - w->node->data);
}

bool stream_walk_entry(struct stream_walk *w, unsigned *flags, struct stream_id *id,
                       size_t *nfields)
{
    const struct stream_node *n = w->node;
    if (w->off >= n->used) return false;
    struct entry_head e;
    entry_decode(n, w->off, &w->prev, &e);
    w->prev = e.id;
    w->off = (uint32_t)(e.end - n->data);
    *flags = e.flags;
    *id = e.id;
    *nfields = e.nfields;
    cursor_start(&w->cur, n, &e);
    return true;
}

void stream_walk_field(struct stream_walk *w, const char **f, size_t *flen, const char **v,
                       size_t *vlen)
{
    cursor_field(&w->cur, f, flen, v, vlen);
}

size_t stream_walk_lp_bytes(const struct stream_walk *w)
{
    return node_lp_bytes(w->node);
}

/* --- loading ------------------------------------------------------------ */

void stream_loader_init(struct stream_loader *l, struct stream *s)
{
    memset(l, 0, sizeof *l);
    l->s = s;
}

/* Nodes may not grow past this (the offsets are 32-bit). */
#define NODE_MAX_BYTES (1u << 31)

static const char *loader_put(struct stream_loader *l, size_t bytes)
{
    if ((size_t)l->node->used + bytes > NODE_MAX_BYTES) return "stream node too large";
    l->node = node_reserve(l->node, bytes);
    return NULL;
}

const char *stream_loader_node(struct stream_loader *l, const struct stream_id *master,
                               size_t master_fields)
{
    if (l->node || l->strings_left) return "stream node inside another";
    if (l->any && stream_id_cmp(master, &l->prev) <= 0) return "stream node IDs not increasing";
    if (master_fields > NODE_MAX_BYTES) return "stream master entry too large";
    l->node = node_new(NODE_FIRST_CAP);
    l->node->master = *master;
    l->node->nfields = (uint32_t)master_fields;
    l->in_master = true;
    l->strings_left = (uint32_t)master_fields;
    l->live = l->deleted = 0;
    if (master_fields == 0) {
        l->in_master = false;
        l->node->entries_at = 0;
    }
    return NULL;
}

const char *stream_loader_entry(struct stream_loader *l, unsigned flags, const struct stream_id *id,
                                size_t nfields)
{
    struct stream_node *n = l->node;
    if (!n || l->in_master || l->strings_left) return "stream entry out of place";
    if (flags & ~FLAG_BITS) return "stream entry with unknown flags";
    if ((flags & STREAM_ITEM_SAMEFIELDS) && nfields != n->nfields)
        return "stream entry field count differs from its master entry";
    if (nfields > NODE_MAX_BYTES / 2) return "stream entry with too many fields";
    if (stream_id_cmp(id, &n->master) < 0) return "stream entry ID below its node's master ID";
    if (l->any && stream_id_cmp(id, &l->prev) <= 0) return "stream entry IDs not increasing";
    struct stream_id prev = l->live + l->deleted ? n->last : node_virtual_prev(n);
    unsigned kind;
    size_t bytes = head_len(&prev, id, &kind) + varint_len(nfields);
    const char *err = loader_put(l, bytes);
    if (err) return err;
    n = l->node;
    n->last_off = n->used;
    unsigned char *p = n->data + n->used;
    p += head_put(p, &prev, id, kind, flags);
    if (!(flags & STREAM_ITEM_SAMEFIELDS)) p += varint_put(p, nfields);
    n->used = (uint32_t)(p - n->data);
    l->entry_strings_at = n->used;
    l->entry_same = flags & STREAM_ITEM_SAMEFIELDS;
    l->entry_first = l->live + l->deleted == 0;
    n->last = *id;
    l->prev = *id;
    l->any = true;
    if (flags & STREAM_ITEM_DELETED)
        l->deleted++;
    else
        l->live++;
    l->strings_left = (uint32_t)((flags & STREAM_ITEM_SAMEFIELDS) ? nfields : nfields * 2);
    return NULL;
}

/* A same-fields entry is complete: the first of its node becomes the
 * reference; a later one with the reference's lengths drops its own
 * (SAMELENS), as appends store it. */
static void loader_entry_done(struct stream_loader *l)
{
    struct stream_node *n = l->node;
    uint32_t at = l->entry_strings_at;
    if (l->entry_first) {
        n->ref_at = at;
        n->ref_total = n->used - at;
        for (const unsigned char *p = n->data + at; p < n->data + n->used;) {
            const char *v;
            size_t len;
            p = string_get(p, &v, &len);
            n->ref_total -= (uint32_t)varint_len(len);
        }
        return;
    }
    if (!n->ref_at) return;
    const unsigned char *p = n->data + at, *ref = n->data + n->ref_at;
    for (uint32_t i = 0; i < n->nfields; i++) {
        const char *v, *rv;
        size_t len, rlen;
        p = string_get(p, &v, &len);
        ref = string_get(ref, &rv, &rlen);
        if (len != rlen) return;
    }
    unsigned char *out = n->data + at;
    p = n->data + at;
    for (uint32_t i = 0; i < n->nfields; i++) {
        const char *v;
        size_t len;
        p = string_get(p, &v, &len);
        memmove(out, v, len);
        out += len;
    }
    n->used = (uint32_t)(out - n->data);
    n->data[n->last_off] |= SAMELENS;
}

const char *stream_loader_string(struct stream_loader *l, const char *s, size_t len)
{
    if (!l->node || !l->strings_left) return "stream string out of place";
    const char *err = loader_put(l, varint_len(len) + len);
    if (err) return err;
    struct stream_node *n = l->node;
    n->used += (uint32_t)string_put(n->data + n->used, s, len);
    if (--l->strings_left == 0 && l->in_master) {
        l->in_master = false;
        n->entries_at = n->used;
    } else if (l->strings_left == 0 && l->entry_same) {
        loader_entry_done(l);
    }
    return NULL;
}

const char *stream_loader_node_end(struct stream_loader *l, uint64_t live, uint64_t deleted,
                                   size_t lp_bytes, size_t count_bytes)
{
    struct stream_node *n = l->node;
    if (!n || l->in_master || l->strings_left) return "stream node ends inside an entry";
    if (l->live + l->deleted == 0) return "empty stream node";
    if (l->live != live || l->deleted != deleted)
        return "stream node counts differ from its entries";
    if (lp_bytes > NODE_MAX_BYTES || count_bytes > lp_bytes) return "stream listpack too large";
    n->live = (uint32_t)live;
    n->deleted = (uint32_t)deleted;
    n->lp_fixed = (uint32_t)(lp_bytes - count_bytes);
    n = node_shrink(n);
    idtree_insert(&l->s->nodes, &n->master, n);
    l->total_live += live;
    l->node = NULL;
    return NULL;
}

const char *stream_loader_finish(struct stream_loader *l, uint64_t length)
{
    if (l->node) return "stream ends inside a node";
    if (l->total_live != length) return "stream length differs from its entries";
    if (l->any && stream_id_cmp(&l->s->last_id, &l->prev) < 0)
        return "stream last ID below its last entry";
    l->s->length = length;
    return NULL;
}

void stream_loader_abort(struct stream_loader *l)
{
    if (l->node) xfree(l->node);
    l->node = NULL;
}

/* --- verification ------------------------------------------------------- */

const char *stream_verify(const struct stream *s)
{
    const char *err = idtree_verify(&s->nodes);
    if (err) return err;
    uint64_t live = 0;
    bool any = false;
    struct stream_id prev_entry = {0, 0};
    for (struct idtree_pos p = idtree_first(&s->nodes); idtree_pos_valid(&p); idtree_next(&p)) {
        const struct stream_node *n = node_at(&p);
        if (stream_id_cmp(idtree_pos_key(&p), &n->master) != 0)
            return "node filed under another ID";
        if (n->used > n->cap) return "node overflows its allocation";
        uint32_t lv = 0, dl = 0;
        struct stream_id prev = node_virtual_prev(n);
        uint32_t off = n->entries_at, last_off = 0;
        while (off < n->used) {
            struct entry_head e;
            last_off = off;
            entry_decode(n, off, &prev, &e);
            if (any && stream_id_cmp(&e.id, &prev_entry) <= 0) return "entry IDs not increasing";
            if (stream_id_cmp(&e.id, &n->master) < 0) return "entry below its master ID";
            if (e.flags & STREAM_ITEM_DELETED)
                dl++;
            else
                lv++;
            prev = prev_entry = e.id;
            any = true;
            off = (uint32_t)(e.end - n->data);
        }
        if (off != n->used) return "entry runs past the node";
        if (lv != n->live || dl != n->deleted) return "node counts differ from its entries";
        if (lv + dl == 0) return "empty node";
        if (stream_id_cmp(&prev, &n->last) != 0) return "node's last ID differs from its entries";
        if (n->last_off != last_off) return "node's last entry offset is wrong";
        live += lv;
    }
    if (live != s->length) return "length differs from the live entries";
    if (any && stream_id_cmp(&prev_entry, &s->last_id) > 0) return "an entry above the last ID";
    return NULL;
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param stream_params[] = {
    {.name = "stream-node-max-bytes",
     .kind = CFG_MEMORY,
     .value = &stream_limits.node_max_bytes,
     .max = LONG_MAX,
     .value_name = "BYTES",
     .help = "stream nodes close at this many bytes of Redis's listpack encoding (default 4096; 0 "
             "= 1 GB)"},
    {.name = "stream-node-max-entries",
     .kind = CFG_INT,
     .value = &stream_limits.node_max_entries,
     .max = LLONG_MAX,
     .value_name = "N",
     .help = "stream nodes close at this many entries, deleted ones included (default 100; 0 = no "
             "limit)"},
};

const struct config_table stream_config = CONFIG_TABLE(stream_params, NULL);
