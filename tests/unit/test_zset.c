/* Unit tests of the sorted set: the counted B+tree on its own (large
 * random and ordered workloads, invariants checked), then the zset type
 * against a sorted-array reference model through seeded random operations
 * that cross the listpack → index conversion, with ranks, score and lex
 * ranges, range deletion and random sampling checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "store/zindex.h"
#include "store/zset.h"
#include "util/hash.h"
#include "util/rand.h"
#include "util/xmalloc.h"

static unsigned long long seed;

static size_t below(size_t n)
{
    return (size_t)(rand_u64() % n);
}

static void seed_init(void)
{
    const char *env = getenv("TEST_SEED");
    seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL);
    fprintf(stderr, "test_zset: seed %llu (rerun with TEST_SEED=%llu)\n", seed, seed);
    rand_seed(seed * 2654435761ULL + 1);
    rand_seed(seed + 7);
}

#define VERIFY_INDEX(z)                                                                            \
    do {                                                                                           \
        const char *why_ = zindex_verify(z);                                                       \
        CHECKF(why_ == NULL, "index invariant: %s (seed %llu)", why_, seed);                       \
    } while (0)

/* --- the index alone ---------------------------------------------------------- */

static struct zmember *make_member(int i, double score)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "m%08d", i);
    struct zmember *m = xmalloc(sizeof *m + (size_t)n);
    m->score = score;
    m->len = (uint32_t)n;
    memcpy(m->data, buf, (size_t)n);
    return m;
}

static int cmp_members(const void *a, const void *b)
{
    const struct zmember *x = *(struct zmember *const *)a, *y = *(struct zmember *const *)b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    return zmember_bytes_cmp(x->data, x->len, y->data, y->len);
}

static void check_order(struct zindex *z, struct zmember **sorted, size_t n)
{
    CHECK_EQ_LL(zindex_count(z), n);
    struct zindex_pos pos;
    if (n == 0) {
        CHECK(!zindex_seek(z, 0, &pos));
        return;
    }
    CHECK(zindex_seek(z, 0, &pos));
    for (size_t i = 0; i < n; i++) {
        CHECK(zindex_pos_item(&pos)->member == sorted[i]);
        bool more = zindex_pos_next(&pos);
        CHECK(more == (i + 1 < n));
    }
    /* Spot-check rank and select both ways. */
    for (int k = 0; k < 200; k++) {
        size_t r = below(n);
        CHECK_EQ_LL(zindex_rank(z, sorted[r]->score, sorted[r]), r);
        CHECK(zindex_seek(z, r, &pos));
        CHECK(zindex_pos_item(&pos)->member == sorted[r]);
        if (zindex_pos_prev(&pos))
            CHECK(r > 0 && zindex_pos_item(&pos)->member == sorted[r - 1]);
        else
            CHECK(r == 0);
    }
}

static void test_index_workloads(void)
{
    enum { N = 150000 }; /* enough for three inner levels */
    struct zmember **all = malloc(sizeof *all * N);
    for (int pass = 0; pass < 3; pass++) {
        struct zindex z;
        zindex_init(&z);
        /* pass 0: random scores with many ties; 1: ascending; 2: descending */
        for (int i = 0; i < N; i++) {
            double score = pass == 0 ? (double)below(1000) : pass == 1 ? i : N - i;
            all[i] = make_member(i, score);
            zindex_insert(&z, score, all[i]);
            if (i % 40000 == 0) VERIFY_INDEX(&z);
        }
        VERIFY_INDEX(&z);
        struct zmember **sorted = malloc(sizeof *sorted * N);
        memcpy(sorted, all, sizeof *sorted * N);
        qsort(sorted, N, sizeof *sorted, cmp_members);
        check_order(&z, sorted, N);
        if (pass == 1) {
            /* Append splits keep ascending loads dense. */
            CHECKF(z.leaves * ZINDEX_LEAF_CAP < (size_t)N * 11 / 10, "%zu leaves", z.leaves);
        }
        /* Move a tenth of the members to new scores. */
        for (int k = 0; k < N / 10; k++) {
            struct zmember *m = all[below(N)];
            double ns = (double)below(2000) - 500;
            zindex_update(&z, m->score, m, ns);
            m->score = ns;
        }
        VERIFY_INDEX(&z);
        memcpy(sorted, all, sizeof *sorted * N);
        qsort(sorted, N, sizeof *sorted, cmp_members);
        check_order(&z, sorted, N);
        /* ZPOPMIN-like: the head, one at a time. */
        for (int k = 0; k < 5000; k++) {
            struct zmember *m = zindex_delete_rank(&z, 0);
            CHECK(m == sorted[k]);
            xfree(m);
        }
        size_t n = N - 5000;
        memmove(sorted, &sorted[5000], n * sizeof *sorted);
        VERIFY_INDEX(&z);
        /* Random deletes (by key and by rank) in batches: a batch's slots are
         * deleted from the highest down, so earlier ones keep their ranks,
         * and the reference is compacted once per batch. */
        char *chosen = calloc(N, 1);
        size_t *slots = malloc(sizeof *slots * 1000);
        while (n > 0) {
            size_t k = n < 1000 ? n : 1 + below(1000);
            size_t got = 0;
            while (got < k) {
                size_t i = below(n);
                if (!chosen[i]) chosen[i] = 1, slots[got++] = i;
            }
            for (size_t i = 1; i < k; i++) /* descending insertion sort */
                for (size_t j = i; j > 0 && slots[j - 1] < slots[j]; j--) {
                    size_t t = slots[j];
                    slots[j] = slots[j - 1];
                    slots[j - 1] = t;
                }
            for (size_t i = 0; i < k; i++) {
                struct zmember *m = sorted[slots[i]];
                if (below(2))
                    zindex_delete(&z, m->score, m);
                else
                    CHECK(zindex_delete_rank(&z, slots[i]) == m);
                xfree(m);
            }
            size_t w = 0;
            for (size_t i = 0; i < n; i++) {
                if (chosen[i])
                    chosen[i] = 0;
                else
                    sorted[w++] = sorted[i];
            }
            n = w;
            VERIFY_INDEX(&z);
            if (n % 7 == 0) check_order(&z, sorted, n);
        }
        free(chosen);
        free(slots);
        CHECK(z.root == NULL && z.leaves == 0 && z.inners == 0);
        zindex_release(&z);
        free(sorted);
    }
    free(all);
}

/* --- the zset type against a reference model ------------------------------------ */

struct ref_item {
    char m[24];
    size_t len;
    double score;
};

struct ref {
    struct ref_item *items; /* sorted by (score, member) */
    size_t n, cap;
};

static int ref_cmp(const struct ref_item *a, const struct ref_item *b)
{
    if (a->score != b->score) return a->score < b->score ? -1 : 1;
    return zmember_bytes_cmp(a->m, a->len, b->m, b->len);
}

static long ref_find(const struct ref *r, const char *m, size_t len)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].len == len && memcmp(r->items[i].m, m, len) == 0) return (long)i;
    return -1;
}

static void ref_remove_at(struct ref *r, size_t i)
{
    memmove(&r->items[i], &r->items[i + 1], (r->n - i - 1) * sizeof r->items[0]);
    r->n--;
}

static void ref_insert(struct ref *r, const char *m, size_t len, double score)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->items = realloc(r->items, r->cap * sizeof r->items[0]);
    }
    struct ref_item it = {.len = len, .score = score};
    memcpy(it.m, m, len);
    size_t i = 0;
    while (i < r->n && ref_cmp(&r->items[i], &it) < 0) i++;
    memmove(&r->items[i + 1], &r->items[i], (r->n - i) * sizeof r->items[0]);
    r->items[i] = it;
    r->n++;
}

/* The reference of ZADD's conditions, written from the Redis docs. */
static enum zset_add_result ref_add(struct ref *r, const char *m, size_t len, double score,
                                    int flags, double *out)
{
    long i = ref_find(r, m, len);
    if (i < 0) {
        if (flags & ZSET_ADD_XX) return ZSET_ADD_SKIPPED;
        ref_insert(r, m, len, score);
        *out = score;
        return ZSET_ADD_ADDED;
    }
    if (flags & ZSET_ADD_NX) return ZSET_ADD_SKIPPED;
    double cur = r->items[i].score;
    double ns = flags & ZSET_ADD_INCR ? cur + score : score;
    if (isnan(ns)) return ZSET_ADD_NAN;
    if ((flags & ZSET_ADD_GT) && !(ns > cur)) return ZSET_ADD_SKIPPED;
    if ((flags & ZSET_ADD_LT) && !(ns < cur)) return ZSET_ADD_SKIPPED;
    *out = ns;
    if (ns == cur) return ZSET_ADD_UNCHANGED;
    ref_remove_at(r, (size_t)i);
    ref_insert(r, m, len, ns);
    return ZSET_ADD_UPDATED;
}

struct collected {
    struct ref_item items[4096];
    size_t n;
};

static bool collect(const char *m, size_t len, double score, void *arg)
{
    struct collected *c = arg;
    CHECK(c->n < 4096 && len < sizeof c->items[0].m);
    memcpy(c->items[c->n].m, m, len);
    c->items[c->n].len = len;
    c->items[c->n].score = score;
    c->n++;
    return true;
}

static bool same_item(const struct ref_item *a, const struct ref_item *b)
{
    return a->len == b->len && memcmp(a->m, b->m, a->len) == 0 &&
           (a->score == b->score || (isnan(a->score) && isnan(b->score)));
}

static void random_member(char *buf, size_t *len, size_t universe)
{
    /* Varying lengths so lex order and length order differ. */
    size_t i = below(universe);
    *len = (size_t)snprintf(buf, 24, "%zx%.*s", i, (int)(i % 5), "zzzz");
}

static const double score_pool[] = {0,    -0.0,  1,        1,         2, 2.5, -3,
                                    1e10, -1e-5, INFINITY, -INFINITY, 7, 7,   42};

static double random_score(void)
{
    return score_pool[below(sizeof score_pool / sizeof score_pool[0])];
}

static void check_against(struct zset *z, struct ref *r)
{
    const char *why = zset_verify(z);
    CHECKF(why == NULL, "zset invariant: %s (seed %llu)", why, seed);
    CHECK_EQ_LL(zset_len(z), r->n);
    static struct collected c;
    c.n = 0;
    zset_visit_ranks(z, 0, r->n, false, collect, &c);
    CHECK_EQ_LL(c.n, r->n);
    for (size_t i = 0; i < r->n; i++) CHECKF(same_item(&c.items[i], &r->items[i]), "rank %zu", i);
    c.n = 0;
    zset_visit_ranks(z, 0, r->n, true, collect, &c);
    for (size_t i = 0; i < r->n; i++) CHECK(same_item(&c.items[i], &r->items[r->n - 1 - i]));
}

static void test_zset_model(size_t universe, long long max_entries, int ops)
{
    zset_limits.max_listpack_entries = max_entries;
    zset_limits.max_listpack_value = 6;
    struct zset *z = zset_new();
    struct ref r = {0};
    bool saw_compact = false, saw_index = false;
    static struct collected c;
    for (int op = 0; op < ops; op++) {
        char m[24];
        size_t len;
        random_member(m, &len, universe);
        switch (below(12)) {
        case 0:
        case 1:
        case 2:
        case 3: {
            static const int flag_sets[] = {0,
                                            0,
                                            0,
                                            ZSET_ADD_NX,
                                            ZSET_ADD_XX,
                                            ZSET_ADD_GT,
                                            ZSET_ADD_LT,
                                            ZSET_ADD_INCR,
                                            ZSET_ADD_INCR | ZSET_ADD_XX,
                                            ZSET_ADD_INCR | ZSET_ADD_GT,
                                            ZSET_ADD_XX | ZSET_ADD_LT};
            int flags = flag_sets[below(sizeof flag_sets / sizeof flag_sets[0])];
            double s = random_score(), got = -99, want = -99;
            enum zset_add_result a = zset_add(z, m, len, s, flags, &got);
            enum zset_add_result b = ref_add(&r, m, len, s, flags, &want);
            CHECKF(a == b, "zadd result %d vs %d (op %d)", a, b, op);
            if (a == ZSET_ADD_ADDED || a == ZSET_ADD_UPDATED || a == ZSET_ADD_UNCHANGED)
                CHECK(got == want);
            break;
        }
        case 4: {
            long i = ref_find(&r, m, len);
            CHECK(zset_delete(z, m, len) == (i >= 0));
            if (i >= 0) ref_remove_at(&r, (size_t)i);
            break;
        }
        case 5: {
            double s;
            long i = ref_find(&r, m, len);
            CHECK(zset_score(z, m, len, &s) == (i >= 0));
            if (i >= 0) CHECK(s == r.items[i].score);
            size_t rank;
            bool rev = below(2);
            CHECK(zset_rank(z, m, len, rev, &rank, &s) == (i >= 0));
            if (i >= 0) CHECK_EQ_LL(rank, rev ? r.n - 1 - (size_t)i : (size_t)i);
            break;
        }
        case 6: {
            struct zset_score_range sr = {random_score(), random_score(), below(2), below(2)};
            size_t first, end, want_first = r.n, want_end = 0, count = 0;
            zset_score_range_ranks(z, &sr, &first, &end);
            for (size_t i = 0; i < r.n; i++) {
                double s = r.items[i].score;
                bool in = (sr.min_exclusive ? s > sr.min : s >= sr.min) &&
                          (sr.max_exclusive ? s < sr.max : s <= sr.max);
                if (in) {
                    if (want_first == r.n) want_first = i;
                    want_end = i + 1;
                    count++;
                }
            }
            CHECK_EQ_LL(end - first, count);
            if (count) CHECK(first == want_first && end == want_end);
            if (count && below(3) == 0) {
                CHECK_EQ_LL(zset_delete_ranks(z, first, end), count);
                for (size_t k = 0; k < count; k++) ref_remove_at(&r, first);
            }
            break;
        }
        case 7: {
            size_t first = below(r.n + 2), end = first + below(r.n + 2);
            size_t clamp_end = end > r.n ? r.n : end;
            bool rev = below(2);
            c.n = 0;
            zset_visit_ranks(z, first, clamp_end, rev, collect, &c);
            CHECK_EQ_LL(c.n, clamp_end > first ? clamp_end - first : 0);
            for (size_t k = 0; k < c.n; k++)
                CHECK(same_item(&c.items[k], &r.items[rev ? clamp_end - 1 - k : first + k]));
            if (below(4) == 0) {
                size_t removed = zset_delete_ranks(z, first, end);
                CHECK_EQ_LL(removed, clamp_end > first ? clamp_end - first : 0);
                for (size_t k = 0; k < removed; k++) ref_remove_at(&r, first);
            }
            break;
        }
        case 8: {
            if (r.n == 0) break;
            size_t count = 1 + below(r.n);
            if (count >= r.n) count = r.n - 1;
            if (count == 0) break;
            c.n = 0;
            zset_random_distinct(z, count, collect, &c);
            CHECK_EQ_LL(c.n, count);
            for (size_t a = 0; a < c.n; a++) {
                long i = ref_find(&r, c.items[a].m, c.items[a].len);
                CHECK(i >= 0 && r.items[i].score == c.items[a].score);
                for (size_t b = a + 1; b < c.n; b++) CHECK(!same_item(&c.items[a], &c.items[b]));
            }
            c.n = 0;
            zset_random_with_repeats(z, 50, collect, &c);
            CHECK_EQ_LL(c.n, 50);
            for (size_t a = 0; a < c.n; a++) CHECK(ref_find(&r, c.items[a].m, c.items[a].len) >= 0);
            break;
        }
        case 9: {
            /* ZSCAN to completion returns every member at least once. */
            static char seen[1 << 16];
            unsigned long long cursor = 0;
            memset(seen, 0, r.n);
            do {
                c.n = 0;
                cursor = zset_scan(z, cursor, 1 + (long long)below(20), collect, &c);
                for (size_t a = 0; a < c.n; a++) {
                    long i = ref_find(&r, c.items[a].m, c.items[a].len);
                    CHECK(i >= 0 && r.items[i].score == c.items[a].score);
                    seen[i] = 1;
                }
            } while (cursor);
            for (size_t i = 0; i < r.n; i++) CHECK(seen[i]);
            break;
        }
        default:
            break;
        }
        if (zset_is_compact(z))
            saw_compact = true;
        else
            saw_index = true;
        if (op % 97 == 0 || r.n < 3) check_against(z, &r);
        if (r.n == 0 && below(8) == 0) {
            /* Start over, as the server deletes empty sets. */
            zset_free(z);
            z = zset_new();
        }
    }
    check_against(z, &r);
    CHECK(zset_memory_usage(z, 0) > 0);
    if (max_entries > 0) CHECK(saw_compact);
    if (universe > (size_t)max_entries) CHECK(saw_index);
    zset_free(z);
    free(r.items);
}

/* Lex ranges on a set whose members all share one score. */
static void test_lex_ranges(void)
{
    for (int enc = 0; enc < 2; enc++) {
        zset_limits.max_listpack_entries = enc ? 4 : 128;
        zset_limits.max_listpack_value = 64;
        struct zset *z = zset_new();
        struct ref r = {0};
        for (int i = 0; i < 60; i++) {
            char m[24];
            size_t len;
            random_member(m, &len, 80);
            double out;
            if (ref_add(&r, m, len, 0, 0, &out) == ZSET_ADD_ADDED)
                CHECK(zset_add(z, m, len, 0, 0, &out) == ZSET_ADD_ADDED);
        }
        CHECK(zset_is_compact(z) == !enc);
        for (int k = 0; k < 3000; k++) {
            char a[24], b[24];
            size_t al, bl;
            random_member(a, &al, 90);
            random_member(b, &bl, 90);
            struct zset_lex_range lr = {
                {(enum zset_lex_kind)below(4), a, al},
                {(enum zset_lex_kind)below(4), b, bl},
            };
            size_t first, end, count = 0, want_first = 0;
            zset_lex_range_ranks(z, &lr, &first, &end);
            for (size_t i = 0; i < r.n; i++) {
                const struct ref_item *it = &r.items[i];
                int ca = zmember_bytes_cmp(it->m, it->len, a, al);
                int cb = zmember_bytes_cmp(it->m, it->len, b, bl);
                bool ge_min = lr.min.kind == ZSET_LEX_MINUS_INF   ? true
                              : lr.min.kind == ZSET_LEX_PLUS_INF  ? false
                              : lr.min.kind == ZSET_LEX_INCLUSIVE ? ca >= 0
                                                                  : ca > 0;
                bool le_max = lr.max.kind == ZSET_LEX_MINUS_INF   ? false
                              : lr.max.kind == ZSET_LEX_PLUS_INF  ? true
                              : lr.max.kind == ZSET_LEX_INCLUSIVE ? cb <= 0
                                                                  : cb < 0;
                if (ge_min && le_max) {
                    if (!count) want_first = i;
                    count++;
                }
            }
            CHECK_EQ_LL(end - first, count);
            if (count) CHECK_EQ_LL(first, want_first);
        }
        zset_free(z);
        free(r.items);
    }
}

int main(void)
{
    hash_seed_init();
    seed_init();
    test_index_workloads();
    test_lex_ranges();
    test_zset_model(40, 8, 20000);    /* crosses the threshold often */
    test_zset_model(600, 128, 40000); /* default threshold, large sets */
    test_zset_model(3000, 0, 20000);  /* indexed from the first member */
    printf("test_zset: ok\n");
    return 0;
}
