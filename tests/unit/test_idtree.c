/* Unit tests of the stream ID B+tree (store/idtree.h) against a reference
 * model (a sorted array): seeded random inserts in ascending, descending
 * and random order, lookups, removals (random, from the front as stream
 * trimming does, and all), seeks >= and <= with iteration both ways from
 * them, with idtree_verify() (order, separators, leaf list, counts) after
 * every change. Also the text forms of stream IDs (stream_id.h) with
 * Redis's parsing quirks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/idtree.h"
#include "util/rand.h"

static size_t below(size_t n)
{
    return (size_t)(rand_u64() % n);
}

struct model {
    struct stream_id *k;
    size_t n;
};

static size_t model_lower(const struct model *m, const struct stream_id *k)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (stream_id_cmp(&m->k[mid], k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void *val_of(const struct stream_id *k)
{
    return (void *)(uintptr_t)(k->ms * 1000003u + k->seq + 1);
}

static void check_tree(struct idtree *t, const struct model *m)
{
    const char *err = idtree_verify(t);
    CHECKF(err == NULL, "%s", err);
    CHECK_EQ_LL(idtree_count(t), m->n);
    size_t i = 0;
    for (struct idtree_pos p = idtree_first(t); idtree_pos_valid(&p); idtree_next(&p), i++) {
        CHECK(i < m->n);
        CHECK(stream_id_cmp(idtree_pos_key(&p), &m->k[i]) == 0);
        CHECK(idtree_pos_value(&p) == val_of(&m->k[i]));
    }
    CHECK_EQ_LL(i, m->n);
}

static struct stream_id random_key(size_t space)
{
    return (struct stream_id){below(space), below(4)};
}

static void insert_both(struct idtree *t, struct model *m, const struct stream_id *k)
{
    size_t at = model_lower(m, k);
    bool present = at < m->n && stream_id_cmp(&m->k[at], k) == 0;
    bool inserted;
    void *v = idtree_insert_or_get(t, k, val_of(k), &inserted);
    CHECK(inserted == !present);
    CHECK(v == val_of(k));
    if (present) return;
    memmove(&m->k[at + 1], &m->k[at], (m->n - at) * sizeof m->k[0]);
    m->k[at] = *k;
    m->n++;
}

static void remove_both(struct idtree *t, struct model *m, const struct stream_id *k)
{
    size_t at = model_lower(m, k);
    bool present = at < m->n && stream_id_cmp(&m->k[at], k) == 0;
    void *v = idtree_remove(t, k);
    CHECK(v == (present ? val_of(k) : NULL));
    if (!present) return;
    memmove(&m->k[at], &m->k[at + 1], (m->n - at - 1) * sizeof m->k[0]);
    m->n--;
}

static void check_seeks(struct idtree *t, const struct model *m, size_t space)
{
    for (int j = 0; j < 20; j++) {
        struct stream_id k = random_key(space + 2);
        size_t at = model_lower(m, &k);
        struct idtree_pos ge = idtree_seek_ge(t, &k);
        if (at == m->n) {
            CHECK(!idtree_pos_valid(&ge));
        } else {
            CHECK(idtree_pos_valid(&ge));
            CHECK(stream_id_cmp(idtree_pos_key(&ge), &m->k[at]) == 0);
            idtree_prev(&ge);
            if (at == 0)
                CHECK(!idtree_pos_valid(&ge));
            else
                CHECK(stream_id_cmp(idtree_pos_key(&ge), &m->k[at - 1]) == 0);
        }
        size_t le = at < m->n && stream_id_cmp(&m->k[at], &k) == 0 ? at + 1 : at;
        struct idtree_pos p = idtree_seek_le(t, &k);
        if (le == 0) {
            CHECK(!idtree_pos_valid(&p));
        } else {
            CHECK(idtree_pos_valid(&p));
            CHECK(stream_id_cmp(idtree_pos_key(&p), &m->k[le - 1]) == 0);
            CHECK(idtree_find(t, &k) == (le - 1 == at ? val_of(&k) : NULL));
        }
    }
}

static void run_round(unsigned order, size_t n, size_t space)
{
    struct idtree t;
    idtree_init(&t);
    struct model m = {calloc(space * 4 + n + 1, sizeof(struct stream_id)), 0};
    for (size_t i = 0; i < n; i++) {
        struct stream_id k = order == 0   ? (struct stream_id){i, 0}
                             : order == 1 ? (struct stream_id){n - i, 1}
                                          : random_key(space);
        insert_both(&t, &m, &k);
        if (i % 97 == 0) check_tree(&t, &m);
    }
    check_tree(&t, &m);
    check_seeks(&t, &m, space);
    /* Mixed removals and inserts, then front removals, then all. */
    for (size_t i = 0; i < n; i++) {
        struct stream_id k = random_key(order == 2 ? space : n + 1);
        if (below(3))
            remove_both(&t, &m, &k);
        else
            insert_both(&t, &m, &k);
        if (i % 53 == 0) {
            check_tree(&t, &m);
            check_seeks(&t, &m, space);
        }
    }
    while (m.n > n / 4) {
        struct stream_id k = m.k[0];
        remove_both(&t, &m, &k);
    }
    check_tree(&t, &m);
    while (m.n) {
        struct stream_id k = m.k[below(m.n)];
        remove_both(&t, &m, &k);
        if (m.n % 31 == 0) check_tree(&t, &m);
    }
    check_tree(&t, &m);
    CHECK(t.root == NULL && t.leaves == 0 && t.inners == 0);
    idtree_release(&t, NULL, NULL);
    free(m.k);
}

static void check_parse(const char *text, unsigned flags, bool ok, uint64_t ms, uint64_t seq)
{
    struct stream_id id;
    bool seq_given = true;
    bool got = stream_id_parse(text, strlen(text), 7, flags, &id,
                               flags & STREAM_ID_SEQ_STAR ? &seq_given : NULL);
    CHECKF(got == ok, "parse %s", text);
    if (ok) CHECKF(id.ms == ms && id.seq == seq, "parse %s", text);
}

static void test_text_forms(void)
{
    check_parse("1-2", 0, true, 1, 2);
    check_parse("5", 0, true, 5, 7);
    check_parse("-", 0, true, 0, 0);
    check_parse("+", 0, true, UINT64_MAX, UINT64_MAX);
    check_parse("-", STREAM_ID_STRICT, false, 0, 0);
    check_parse("18446744073709551615-18446744073709551615", 0, true, UINT64_MAX, UINT64_MAX);
    check_parse("18446744073709551616-0", 0, false, 0, 0);
    check_parse("1-x", 0, false, 0, 0);
    check_parse("", 0, false, 0, 0);
    check_parse("1-", 0, false, 0, 0);
    check_parse("-1", 0, false, 0, 0);
    /* strtoull's leniency, as Redis's string2ull falls back to it. */
    check_parse("+5-01", 0, true, 5, 1);
    check_parse(" 3-0", 0, true, 3, 0);
    check_parse("1--01", 0, true, 1, (uint64_t)-1);
    check_parse("1--1", 0, false, 0, 0);
    check_parse("3-*", STREAM_ID_SEQ_STAR, true, 3, 0);
    check_parse("3-*", 0, false, 0, 0);
    char buf[STREAM_ID_STR_MAX];
    struct stream_id id = {UINT64_MAX, 12};
    size_t n = stream_id_format(buf, &id);
    CHECK(n == 23 && memcmp(buf, "18446744073709551615-12", n) == 0);
    unsigned char raw[16];
    stream_id_encode(raw, &id);
    struct stream_id back;
    stream_id_decode(raw, &back);
    CHECK(stream_id_cmp(&id, &back) == 0 && raw[0] == 0xff && raw[15] == 12);
    id = (struct stream_id){UINT64_MAX, UINT64_MAX};
    CHECK(!stream_id_incr(&id) && stream_id_is_zero(&id));
    CHECK(!stream_id_decr(&id) && id.ms == UINT64_MAX && id.seq == UINT64_MAX);
}

int main(void)
{
    rand_seed(42);
    test_text_forms();
    for (unsigned order = 0; order < 3; order++) {
        run_round(order, 3, 10);
        run_round(order, 40, 60);
        run_round(order, 2000, 3000);
        run_round(order, 20000, 8000);
    }
    printf("test_idtree: ok\n");
    return 0;
}
