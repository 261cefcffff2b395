/* zset.c — the sorted-set type in its two encodings; see zset.h. */
#include "store/zset.h"
#include "core/config.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "store/sample.h"
#include "util/hash.h"
#include "util/rand.h"
#include "util/xmalloc.h"

struct zset_limits zset_limits = {.max_listpack_entries = 128, .max_listpack_value = 64};

struct zset_big {
    struct dict dict; /* member bytes → struct zmember */
    struct zindex index;
};

/* Member order of the compact encoding and of the index alike. */
static int pair_cmp(double s1, const char *m1, size_t l1, double s2, const char *m2, size_t l2)
{
    if (s1 < s2) return -1;
    if (s1 > s2) return 1;
    return zmember_bytes_cmp(m1, l1, m2, l2);
}

/* --- compact encoding: member, score, member, score, ... -------------------- */

/* Reads the pair at `off`; returns the offset of the next pair. */
static size_t pair_read(const struct packed *p, size_t off, const char **m, size_t *len,
                        double *score)
{
    const char *s;
    size_t slen;
    off = packed_read(p, off, m, len);
    off = packed_read(p, off, &s, &slen);
    memcpy(score, s, sizeof *score);
    return off;
}

/* Offset of the pair holding member (and its score), or -1; *prev gets the
 * offset of the pair before it (-1 for the first). */
static long long packed_find_member(const struct packed *p, const char *member, size_t len,
                                    double *score, long long *prev)
{
    *prev = -1;
    for (size_t off = 0; off < p->used;) {
        const char *m;
        size_t ml;
        double s;
        size_t next = pair_read(p, off, &m, &ml, &s);
        if (ml == len && memcmp(m, member, len) == 0) {
            *score = s;
            return (long long)off;
        }
        *prev = (long long)off;
        off = next;
    }
    return -1;
}

static size_t packed_pair_offset(const struct packed *p, size_t rank)
{
    size_t off = 0;
    while (rank--) off = packed_skip(p, packed_skip(p, off));
    return off;
}

/* Inserts a member known to be absent at its place in the order. */
static void packed_insert_sorted(struct packed **pp, const char *member, size_t len, double score)
{
    size_t off = 0;
    while (off < (*pp)->used) {
        const char *m;
        size_t ml;
        double s;
        size_t next = pair_read(*pp, off, &m, &ml, &s);
        if (pair_cmp(s, m, ml, score, member, len) > 0) break;
        off = next;
    }
    if (score == 0) score = 0.0; /* no -0 here, as in Redis's listpack */
    packed_insert(pp, off, member, len);
    packed_insert(pp, packed_skip(*pp, off), &score, sizeof score);
}

/* Gives the pair of `member` at `off` (its predecessor at `prev`, -1 if
 * none) a new score: rewritten in place when the order allows, moved
 * otherwise. `member` is the caller's copy of the bytes (not in the block). */
static void packed_update_score(struct packed **pp, size_t off, long long prev, const char *member,
                                size_t len, double score)
{
    const char *m, *pm;
    size_t plen, mlen;
    double old, ps;
    size_t next = pair_read(*pp, off, &m, &mlen, &old);
    bool after_prev = prev < 0 || (pair_read(*pp, (size_t)prev, &pm, &plen, &ps),
                                   pair_cmp(ps, pm, plen, score, m, len) < 0);
    bool before_next = true;
    if (next < (*pp)->used) {
        const char *nm;
        size_t nlen;
        double ns;
        pair_read(*pp, next, &nm, &nlen, &ns);
        before_next = pair_cmp(score, m, len, ns, nm, nlen) < 0;
    }
    if (after_prev && before_next) {
        if (score == 0) score = 0.0;
        /* The score entry is [varint 8 (one byte)][8 bytes]. */
        memcpy((*pp)->data + packed_skip(*pp, off) + 1, &score, sizeof score);
        return;
    }
    packed_delete(pp, off, 2);
    packed_insert_sorted(pp, member, len, score);
}

/* --- indexed encoding ---------------------------------------------------------- */

static uint64_t member_node_hash(const struct dict_node *n)
{
    const struct zmember *m = (const struct zmember *)n;
    return hash_bytes(m->data, m->len);
}

static bool member_node_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct zmember *m = (const struct zmember *)n;
    return m->len == len && memcmp(m->data, key, len) == 0;
}

static const struct dict_type member_dict_type = {member_node_hash, member_node_has_key};

static struct zmember *member_new(const char *member, size_t len, double score)
{
    struct zmember *m = xmalloc(sizeof *m + len);
    m->node.next = NULL;
    m->score = score;
    m->len = (uint32_t)len;
    memcpy(m->data, member, len);
    return m;
}

static void member_free_node(struct dict_node *n, void *arg)
{
    (void)arg;
    xfree(n);
}

static struct zmember *big_find(struct zset_big *b, const char *member, size_t len)
{
    return (struct zmember *)dict_find(&b->dict, member, len, hash_bytes(member, len));
}

static void big_add(struct zset_big *b, const char *member, size_t len, double score)
{
    struct zmember *m = member_new(member, len, score);
    dict_insert(&b->dict, &m->node, hash_bytes(member, len));
    zindex_insert(&b->index, score, m);
}

static struct zset_big *big_new(void)
{
    struct zset_big *b = xmalloc(sizeof *b);
    dict_init(&b->dict, &member_dict_type);
    zindex_init(&b->index);
    return b;
}

static void big_free(struct zset_big *b)
{
    zindex_release(&b->index);
    dict_release(&b->dict, member_free_node, NULL);
    xfree(b);
}

void zset_convert_to_index(struct zset *z)
{
    if (!z->lp) return;
    struct zset_big *b = big_new();
    /* Pairs come in order, so the index fills leaves by append splits. */
    for (size_t off = 0; off < z->lp->used;) {
        const char *m;
        size_t len;
        double score;
        off = pair_read(z->lp, off, &m, &len, &score);
        big_add(b, m, len, score);
    }
    packed_free(z->lp);
    z->lp = NULL;
    z->big = b;
}

/* --- public operations ----------------------------------------------------------- */

struct zset *zset_new(void)
{
    struct zset *z = xmalloc(sizeof *z);
    z->lp = packed_new();
    z->big = NULL;
    return z;
}

struct zset *zset_new_sized(size_t expected)
{
    if (expected <= (size_t)zset_limits.max_listpack_entries) return zset_new();
    struct zset *z = xmalloc(sizeof *z);
    z->lp = NULL;
    z->big = big_new();
    return z;
}

static bool dup_member(const char *m, size_t len, double score, void *arg)
{
    double out;
    zset_add(arg, m, len, score, 0, &out);
    return true;
}

struct zset *zset_dup(struct zset *z)
{
    if (z->lp) {
        struct zset *c = zset_new();
        packed_free(c->lp);
        c->lp = packed_dup(z->lp);
        return c;
    }
    struct zset *c = zset_new_sized(SIZE_MAX);
    zset_visit_ranks(z, 0, zset_len(z), false, dup_member, c);
    return c;
}

void zset_free(struct zset *z)
{
    if (z->lp)
        packed_free(z->lp);
    else
        big_free(z->big);
    xfree(z);
}

static bool append_pair(const char *m, size_t len, double score, void *arg)
{
    struct packed **pp = arg;
    if (score == 0) score = 0.0;
    packed_insert(pp, (*pp)->used, m, len);
    packed_insert(pp, (*pp)->used, &score, sizeof score);
    return true;
}

void zset_compact_if_small(struct zset *z)
{
    size_t len = zset_len(z);
    if (z->lp || len > (size_t)zset_limits.max_listpack_entries) return;
    size_t max_value = (size_t)zset_limits.max_listpack_value, total = 0;
    struct zindex_pos pos;
    for (bool more = zindex_seek(&z->big->index, 0, &pos); more; more = zindex_pos_next(&pos)) {
        size_t n = zindex_pos_item(&pos)->member->len;
        if (n > max_value) return;
        total += n + sizeof(double) + 10;
    }
    if (total >= PACKED_MAX_BYTES) return;
    struct packed *p = packed_new();
    zset_visit_ranks(z, 0, len, false, append_pair, &p);
    big_free(z->big);
    z->big = NULL;
    z->lp = p;
}

size_t zset_len(const struct zset *z)
{
    return z->lp ? packed_count(z->lp) / 2 : zindex_count(&z->big->index);
}

/* Applies ZADD's conditions to an existing member with score `cur`.
 * Returns ZSET_ADD_UPDATED when *score (possibly incremented) should be
 * written, or the result to report otherwise. */
static enum zset_add_result decide_update(double cur, double *score, int flags)
{
    if (flags & ZSET_ADD_NX) return ZSET_ADD_SKIPPED;
    if (flags & ZSET_ADD_INCR) {
        *score += cur;
        if (isnan(*score)) return ZSET_ADD_NAN;
    }
    if (((flags & ZSET_ADD_LT) && *score >= cur) || ((flags & ZSET_ADD_GT) && *score <= cur))
        return ZSET_ADD_SKIPPED;
    return *score != cur ? ZSET_ADD_UPDATED : ZSET_ADD_UNCHANGED;
}

static bool fits_compact(const struct zset *z, size_t len)
{
    return zset_len(z) + 1 <= (size_t)zset_limits.max_listpack_entries &&
           len <= (size_t)zset_limits.max_listpack_value &&
           packed_safe_to_add(z->lp, len + sizeof(double));
}

enum zset_add_result zset_add(struct zset *z, const char *member, size_t len, double score,
                              int flags, double *new_score)
{
    if (isnan(score)) return ZSET_ADD_NAN;
    if (z->lp) {
        double cur;
        long long prev;
        long long off = packed_find_member(z->lp, member, len, &cur, &prev);
        if (off >= 0) {
            enum zset_add_result r = decide_update(cur, &score, flags);
            if (r == ZSET_ADD_UPDATED)
                packed_update_score(&z->lp, (size_t)off, prev, member, len, score);
            if (r == ZSET_ADD_UPDATED || r == ZSET_ADD_UNCHANGED) *new_score = score;
            return r;
        }
        if (flags & ZSET_ADD_XX) return ZSET_ADD_SKIPPED;
        if (fits_compact(z, len)) {
            packed_insert_sorted(&z->lp, member, len, score);
            *new_score = score;
            return ZSET_ADD_ADDED;
        }
        zset_convert_to_index(z);
    }
    struct zset_big *b = z->big;
    struct zmember *m = big_find(b, member, len);
    if (m) {
        enum zset_add_result r = decide_update(m->score, &score, flags);
        if (r == ZSET_ADD_UPDATED) {
            zindex_update(&b->index, m->score, m, score);
            m->score = score;
        }
        if (r == ZSET_ADD_UPDATED || r == ZSET_ADD_UNCHANGED) *new_score = score;
        return r;
    }
    if (flags & ZSET_ADD_XX) return ZSET_ADD_SKIPPED;
    big_add(b, member, len, score);
    *new_score = score;
    return ZSET_ADD_ADDED;
}

bool zset_score(struct zset *z, const char *member, size_t len, double *score)
{
    long long prev;
    if (z->lp) return packed_find_member(z->lp, member, len, score, &prev) >= 0;
    struct zmember *m = big_find(z->big, member, len);
    if (!m) return false;
    *score = m->score;
    return true;
}

bool zset_delete(struct zset *z, const char *member, size_t len)
{
    if (z->lp) {
        double s;
        long long prev, off = packed_find_member(z->lp, member, len, &s, &prev);
        if (off < 0) return false;
        packed_delete(&z->lp, (size_t)off, 2);
        return true;
    }
    struct dict_node *n = dict_remove(&z->big->dict, member, len, hash_bytes(member, len));
    if (!n) return false;
    struct zmember *m = (struct zmember *)n;
    zindex_delete(&z->big->index, m->score, m);
    xfree(m);
    return true;
}

bool zset_rank(struct zset *z, const char *member, size_t len, bool reverse, size_t *rank,
               double *score)
{
    size_t r = 0;
    if (z->lp) {
        size_t off = 0;
        for (;; r++) {
            if (off >= z->lp->used) return false;
            const char *m;
            size_t ml;
            off = pair_read(z->lp, off, &m, &ml, score);
            if (ml == len && memcmp(m, member, len) == 0) break;
        }
    } else {
        struct zmember *m = big_find(z->big, member, len);
        if (!m) return false;
        r = zindex_rank(&z->big->index, m->score, m);
        *score = m->score;
    }
    *rank = reverse ? zset_len(z) - 1 - r : r;
    return true;
}

/* --- ranges ------------------------------------------------------------------- */

/* A monotone predicate over members in order (false ... false true ... true). */
typedef bool pair_pred_fn(double score, const char *m, size_t len, const void *arg);

struct pred_bridge {
    pair_pred_fn *pred;
    const void *arg;
};

static bool index_pred(const struct zitem *it, const void *arg)
{
    const struct pred_bridge *b = arg;
    return b->pred(it->score, it->member->data, it->member->len, b->arg);
}

/* Rank of the first member for which pred holds (zset_len when none). */
static size_t first_where(struct zset *z, pair_pred_fn *pred, const void *arg)
{
    if (z->lp) {
        size_t rank = 0;
        for (size_t off = 0; off < z->lp->used; rank++) {
            const char *m;
            size_t len;
            double s;
            off = pair_read(z->lp, off, &m, &len, &s);
            if (pred(s, m, len, arg)) return rank;
        }
        return rank;
    }
    struct pred_bridge b = {pred, arg};
    return zindex_first_where(&z->big->index, index_pred, &b);
}

struct score_bound {
    double value;
    bool strictly_above; /* pred: score > value, else score >= value */
};

static bool score_pred(double score, const char *m, size_t len, const void *arg)
{
    (void)m, (void)len;
    const struct score_bound *b = arg;
    return b->strictly_above ? score > b->value : score >= b->value;
}

void zset_score_range_ranks(struct zset *z, const struct zset_score_range *r, size_t *first,
                            size_t *end)
{
    struct score_bound lo = {r->min, r->min_exclusive};
    struct score_bound hi = {r->max, !r->max_exclusive};
    *first = first_where(z, score_pred, &lo);
    *end = first_where(z, score_pred, &hi);
    if (*end < *first) *end = *first;
}

struct lex_pred {
    const struct zset_lex_bound *bound;
    bool past_max; /* pred: member is beyond the bound as a maximum */
};

static bool lex_pred(double score, const char *m, size_t len, const void *arg)
{
    (void)score;
    const struct lex_pred *p = arg;
    const struct zset_lex_bound *b = p->bound;
    switch (b->kind) {
    case ZSET_LEX_MINUS_INF:
        return true;
    case ZSET_LEX_PLUS_INF:
        return false;
    default:
        break;
    }
    int c = zmember_bytes_cmp(m, len, b->bytes, b->len);
    bool exclusive = b->kind == ZSET_LEX_EXCLUSIVE;
    /* As a minimum: first member >= (or >) bound. As a maximum: first
     * member > (or >=) bound, i.e. the first one past the range. */
    if (p->past_max) return exclusive ? c >= 0 : c > 0;
    return exclusive ? c > 0 : c >= 0;
}

void zset_lex_range_ranks(struct zset *z, const struct zset_lex_range *r, size_t *first,
                          size_t *end)
{
    struct lex_pred lo = {&r->min, false}, hi = {&r->max, true};
    *first = first_where(z, lex_pred, &lo);
    *end = first_where(z, lex_pred, &hi);
    if (*end < *first) *end = *first;
}

/* Buffer of pair offsets for walking a compact set backwards. */
#define REVERSE_STACK_OFFSETS 256

void zset_visit_ranks(struct zset *z, size_t first, size_t end, bool reverse, zset_visit_fn *fn,
                      void *arg)
{
    if (first >= end) return;
    const char *m;
    size_t len;
    double s;
    if (z->lp) {
        size_t off = packed_pair_offset(z->lp, first), n = end - first;
        if (!reverse) {
            for (size_t i = 0; i < n; i++) {
                off = pair_read(z->lp, off, &m, &len, &s);
                if (!fn(m, len, s, arg)) return;
            }
            return;
        }
        /* The packed block reads only forwards: note the offsets, then walk back. */
        size_t stack[REVERSE_STACK_OFFSETS];
        size_t *offs = n <= REVERSE_STACK_OFFSETS ? stack : xmalloc(n * sizeof *offs);
        for (size_t i = 0; i < n; i++) {
            offs[i] = off;
            off = packed_skip(z->lp, packed_skip(z->lp, off));
        }
        for (size_t i = n; i-- > 0;) {
            pair_read(z->lp, offs[i], &m, &len, &s);
            if (!fn(m, len, s, arg)) break;
        }
        if (offs != stack) xfree(offs);
        return;
    }
    struct zindex_pos pos;
    if (!zindex_seek(&z->big->index, reverse ? end - 1 : first, &pos)) return;
    for (size_t n = end - first; n > 0; n--) {
        const struct zitem *it = zindex_pos_item(&pos);
        if (!fn(it->member->data, it->member->len, it->score, arg)) return;
        if (n > 1 && !(reverse ? zindex_pos_prev(&pos) : zindex_pos_next(&pos))) return;
    }
}

void zset_visit_ranks_filtered(struct zset *z, size_t first, size_t end, zset_score_filter_fn *want,
                               zset_visit_fn *fn, void *arg)
{
    if (first >= end) return;
    if (z->lp) {
        size_t off = packed_pair_offset(z->lp, first);
        for (size_t i = first; i < end; i++) {
            const char *m;
            size_t len;
            double s;
            off = pair_read(z->lp, off, &m, &len, &s);
            if (want(s, arg) && !fn(m, len, s, arg)) return;
        }
        return;
    }
    struct zindex_pos pos;
    if (!zindex_seek(&z->big->index, first, &pos)) return;
    for (size_t n = end - first; n > 0; n--) {
        const struct zitem *it = zindex_pos_item(&pos);
        if (want(it->score, arg) && !fn(it->member->data, it->member->len, it->score, arg)) return;
        if (n > 1 && !zindex_pos_next(&pos)) return;
    }
}

size_t zset_delete_ranks(struct zset *z, size_t first, size_t end)
{
    size_t len = zset_len(z);
    if (end > len) end = len;
    if (first >= end) return 0;
    size_t n = end - first;
    if (z->lp) {
        packed_delete(&z->lp, packed_pair_offset(z->lp, first), 2 * n);
        return n;
    }
    struct zset_big *b = z->big;
    for (size_t i = 0; i < n; i++) {
        struct zmember *m = zindex_delete_rank(&b->index, first);
        dict_remove(&b->dict, m->data, m->len, hash_bytes(m->data, m->len));
        xfree(m);
    }
    return n;
}

/* --- scan and random members ------------------------------------------------------ */

struct member_bridge {
    zset_visit_fn *fn;
    void *arg;
    bool stopped;
    long long visited;
};

static void scan_member(struct dict_node *n, void *arg)
{
    struct member_bridge *b = arg;
    if (b->stopped) return;
    const struct zmember *m = (const struct zmember *)n;
    b->visited++;
    if (!b->fn(m->data, m->len, m->score, b->arg)) b->stopped = true;
}

unsigned long long zset_scan(struct zset *z, unsigned long long cursor, long long count,
                             zset_visit_fn *fn, void *arg)
{
    if (z->lp) {
        zset_visit_ranks(z, 0, zset_len(z), false, fn, arg);
        return 0;
    }
    struct member_bridge b = {fn, arg, false, 0};
    long long max_steps = count > LLONG_MAX / 10 ? LLONG_MAX : count * 10;
    do {
        cursor = dict_scan(&z->big->dict, cursor, scan_member, &b);
    } while (cursor && --max_steps > 0 && b.visited < count && !b.stopped);
    return cursor;
}

static bool visit_rank(struct zset *z, size_t rank, zset_visit_fn *fn, void *arg)
{
    const char *m;
    size_t len;
    double s;
    if (z->lp) {
        pair_read(z->lp, packed_pair_offset(z->lp, rank), &m, &len, &s);
        return fn(m, len, s, arg);
    }
    struct zindex_pos pos;
    zindex_seek(&z->big->index, rank, &pos);
    const struct zitem *it = zindex_pos_item(&pos);
    return fn(it->member->data, it->member->len, it->score, arg);
}

void zset_random_with_repeats(struct zset *z, size_t count, zset_visit_fn *fn, void *arg)
{
    size_t len = zset_len(z);
    if (!z->lp) {
        for (size_t i = 0; i < count; i++)
            if (!visit_rank(z, rand_below(len), fn, arg)) return;
        return;
    }
    /* Note where each pair starts once, then draw. */
    size_t stack[REVERSE_STACK_OFFSETS];
    size_t *offs = len <= REVERSE_STACK_OFFSETS ? stack : xmalloc(len * sizeof *offs);
    for (size_t i = 0, off = 0; i < len; i++, off = packed_skip(z->lp, packed_skip(z->lp, off)))
        offs[i] = off;
    for (size_t i = 0; i < count; i++) {
        const char *m;
        size_t ml;
        double s;
        pair_read(z->lp, offs[rand_below(len)], &m, &ml, &s);
        if (!fn(m, ml, s, arg)) break;
    }
    if (offs != stack) xfree(offs);
}

/* Selection sampling: passes each member on with probability needed/left,
 * which yields exactly `needed` members, uniformly, in order. */
struct selection {
    size_t needed, left;
    zset_visit_fn *fn;
    void *arg;
};

static bool select_member(const char *m, size_t len, double score, void *arg)
{
    struct selection *sel = arg;
    bool take = rand_below(sel->left--) < sel->needed;
    if (!take) return true;
    sel->needed--;
    return sel->fn(m, len, score, sel->arg) && sel->needed > 0;
}

void zset_random_distinct(struct zset *z, size_t count, zset_visit_fn *fn, void *arg)
{
    size_t len = zset_len(z);
    if (count == 0) return;
    if (z->lp || count * 3 > len) {
        /* O(len): small sets, or len < 3 * count. */
        struct selection sel = {count, len, fn, arg};
        zset_visit_ranks(z, 0, len, false, select_member, &sel);
        return;
    }
    /* A small share of a big set: draw ranks, skipping members drawn before. */
    struct ptr_set seen;
    ptr_set_init(&seen, count);
    for (size_t got = 0; got < count;) {
        struct zindex_pos pos;
        zindex_seek(&z->big->index, rand_below(len), &pos);
        const struct zitem *it = zindex_pos_item(&pos);
        if (!ptr_set_add(&seen, it->member)) continue;
        got++;
        if (!fn(it->member->data, it->member->len, it->score, arg)) break;
    }
    ptr_set_free(&seen);
}

/* --- memory -------------------------------------------------------------------- */

struct size_sample {
    size_t bytes, seen, limit;
};

static bool sample_member(struct dict_node *n, void *arg)
{
    struct size_sample *s = arg;
    s->bytes += xmalloc_usable_size(n);
    return ++s->seen < s->limit;
}

size_t zset_memory_usage(const struct zset *z, size_t samples)
{
    size_t total = xmalloc_usable_size(z);
    if (z->lp) return total + packed_alloc_size(z->lp);
    struct zset_big *b = z->big;
    total += xmalloc_usable_size(b) + dict_bucket_count(&b->dict) * sizeof(struct dict_node *) +
             zindex_memory_usage(&b->index);
    size_t n = dict_size(&b->dict);
    if (n == 0) return total;
    struct size_sample s = {0, 0, samples ? samples : (size_t)-1};
    dict_foreach(&b->dict, sample_member, &s);
    return total + (size_t)((double)s.bytes / (double)s.seen * (double)n);
}

const char *zset_verify(const struct zset *z)
{
    if (z->lp) {
        size_t n = 0;
        const char *pm = NULL;
        size_t pl = 0;
        double ps = 0;
        for (size_t off = 0; off < z->lp->used; n++) {
            const char *m;
            size_t len;
            double s;
            off = pair_read(z->lp, off, &m, &len, &s);
            if (pm && pair_cmp(ps, pm, pl, s, m, len) >= 0) return "compact pairs out of order";
            pm = m, pl = len, ps = s;
        }
        return n * 2 == packed_count(z->lp) ? NULL : "compact count mismatch";
    }
    if (dict_size(&z->big->dict) != zindex_count(&z->big->index))
        return "dict and index sizes differ";
    return zindex_verify(&z->big->index);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param zset_params[] = {
    {.name = "zset-max-listpack-entries",
     .alias = "zset-max-ziplist-entries",
     .kind = CFG_INT,
     .value = &zset_limits.max_listpack_entries,
     .max = LLONG_MAX,
     .value_name = "N",
     .help = "sorted sets with more members use the indexed encoding (default 128)"},
    {.name = "zset-max-listpack-value",
     .alias = "zset-max-ziplist-value",
     .kind = CFG_MEMORY,
     .value = &zset_limits.max_listpack_value,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help = "sorted sets with a longer member use the indexed encoding (default 64)"},
};

const struct config_table zset_config = CONFIG_TABLE(zset_params, NULL);
