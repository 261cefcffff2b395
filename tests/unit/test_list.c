/* Unit tests of the list type against a reference model (an array of
 * strings): seeded random pushes, pops, index reads and writes, inserts at
 * a pivot, removals by value from either end, range deletions and
 * iteration both ways, under node sizes from one entry per node to 64 KB,
 * with list_verify() (node counts, entry framing, the tail index) after
 * every operation. Also the entry encoding's integer classes at their
 * boundaries and the text that must stay a string ("012", "-0", "+1"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "store/list.h"
#include "util/rand.h"
#include "util/xmalloc.h"

static size_t below(size_t n)
{
    return (size_t)(rand_u64() % n);
}

struct item {
    char *s;
    size_t len;
};

struct model {
    struct item *v;
    size_t n, cap;
};

static void model_insert(struct model *m, size_t at, const char *s, size_t len)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
    }
    memmove(m->v + at + 1, m->v + at, (m->n - at) * sizeof *m->v);
    m->v[at].s = malloc(len + 1);
    memcpy(m->v[at].s, s, len);
    m->v[at].len = len;
    m->n++;
}

static void model_delete(struct model *m, size_t at)
{
    free(m->v[at].s);
    memmove(m->v + at, m->v + at + 1, (m->n - at - 1) * sizeof *m->v);
    m->n--;
}

static bool same(const struct item *it, const struct strview *v)
{
    return it->len == v->len && memcmp(it->s, v->ptr, v->len) == 0;
}

/* A value: small and big integers of every class, near-integers that must
 * stay strings, short and long strings. */
static const char *random_value(char *buf, size_t *len)
{
    static const char *const fixed[] = {"0",
                                        "-0",
                                        "012",
                                        "+1",
                                        "",
                                        "a",
                                        "abc",
                                        "9223372036854775807",
                                        "-9223372036854775808",
                                        "9223372036854775808"};
    switch (below(6)) {
    case 0:
        *len = (size_t)snprintf(buf, 64, "%lld", (long long)below(300) - 150);
        break;
    case 1: {
        int shift = (int)below(63);
        long long v = (long long)(rand_u64() >> (63 - shift));
        *len = (size_t)snprintf(buf, 64, "%lld", below(2) ? -v : v);
        break;
    }
    case 2: {
        const char *s = fixed[below(sizeof fixed / sizeof fixed[0])];
        *len = strlen(s);
        memcpy(buf, s, *len);
        break;
    }
    case 3:
        *len = 1 + below(80);
        for (size_t i = 0; i < *len; i++) buf[i] = (char)('a' + below(3));
        break;
    default:
        *len = below(4) == 0 ? 60000 + below(10000) : 2 + below(4);
        for (size_t i = 0; i < *len; i++) buf[i] = (char)('a' + below(2));
        break;
    }
    return buf;
}

static void check_all(struct list *l, const struct model *m)
{
    const char *err = list_verify(l);
    CHECKF(err == NULL, "list_verify: %s", err);
    CHECK(list_len(l) == m->n);
}

static void check_iteration(struct list *l, const struct model *m)
{
    if (m->n == 0) return;
    size_t from = below(m->n);
    bool reverse = below(2);
    struct list_iter it;
    list_iter_init(&it, l, from, reverse);
    struct strview v;
    size_t i = from, seen = 0;
    while (list_iter_next(&it, &v)) {
        CHECK(same(&m->v[i], &v));
        seen++;
        if (reverse) {
            if (i == 0) break;
            i--;
        } else {
            i++;
        }
    }
    CHECK(seen == (reverse ? from + 1 : m->n - from));
    list_iter_release(&it);
}

/* A copy (COPY) holds the same elements, compressed nodes included. */
static void check_dup(struct list *l, const struct model *m)
{
    struct list *c = list_dup(l);
    const char *err = list_verify(c);
    CHECKF(err == NULL, "list_verify of a copy: %s", err);
    CHECK(list_compressed_nodes(c) == list_compressed_nodes(l));
    if (m->n) {
        struct list_iter it;
        list_iter_init(&it, c, 0, false);
        struct strview v;
        for (size_t i = 0; i < m->n; i++) CHECK(list_iter_next(&it, &v) && same(&m->v[i], &v));
        list_iter_release(&it);
    }
    list_free(c);
}

/* Random operations against the model with list-max-listpack-size `fill`
 * and list-compress-depth `depth`; returns how many times compressed nodes
 * were seen after an operation. */
static size_t run_model(long long fill, long long depth, int ops)
{
    list_limits.fill = fill;
    list_limits.compress_depth = depth;
    struct list *l = list_new();
    struct model m = {0};
    size_t compressed_seen = 0;
    static char buf[70000];
    for (int op = 0; op < ops; op++) {
        size_t len;
        const char *s = random_value(buf, &len);
        struct strview v;
        switch (below(10)) {
        case 0:
        case 1:
        case 2: {
            bool head = below(2);
            list_push(l, head ? LIST_HEAD : LIST_TAIL, s, len);
            model_insert(&m, head ? 0 : m.n, s, len);
            break;
        }
        case 3:
        case 4:
            if (m.n == 0) break;
            if (below(2)) {
                list_peek(l, LIST_HEAD, &v);
                CHECK(same(&m.v[0], &v));
                list_pop(l, LIST_HEAD);
                model_delete(&m, 0);
            } else {
                list_peek(l, LIST_TAIL, &v);
                CHECK(same(&m.v[m.n - 1], &v));
                list_pop(l, LIST_TAIL);
                model_delete(&m, m.n - 1);
            }
            break;
        case 5: {
            long long idx = (long long)below(m.n + 4) - (long long)(m.n / 2) - 2;
            bool in = idx >= -(long long)m.n && idx < (long long)m.n;
            CHECK(list_index(l, idx, &v) == in);
            size_t at = (size_t)(idx < 0 ? idx + (long long)m.n : idx);
            if (in) CHECK(same(&m.v[at], &v));
            if (in && below(2)) {
                list_set(l, idx, s, len);
                model_delete(&m, at);
                model_insert(&m, at, s, len);
            }
            break;
        }
        case 6: {
            if (m.n == 0) break;
            struct item pivot = m.v[below(m.n)];
            char pbuf[70000];
            memcpy(pbuf, pivot.s, pivot.len);
            bool after = below(2);
            CHECK(list_insert_at_pivot(l, pbuf, pivot.len, after, s, len));
            size_t at = 0;
            while (!(m.v[at].len == pivot.len && memcmp(m.v[at].s, pbuf, pivot.len) == 0)) at++;
            model_insert(&m, after ? at + 1 : at, s, len);
            break;
        }
        case 7: {
            if (m.n == 0) break;
            struct item target = m.v[below(m.n)];
            char tbuf[70000];
            memcpy(tbuf, target.s, target.len);
            size_t limit = below(3);
            bool from_tail = below(2);
            size_t removed = list_remove_value(l, tbuf, target.len, limit, from_tail);
            size_t expect = 0;
            if (from_tail) {
                for (size_t i = m.n; i-- > 0 && (!limit || expect < limit);)
                    if (m.v[i].len == target.len && memcmp(m.v[i].s, tbuf, target.len) == 0)
                        model_delete(&m, i), expect++;
            } else {
                for (size_t i = 0; i < m.n && (!limit || expect < limit);) {
                    if (m.v[i].len == target.len && memcmp(m.v[i].s, tbuf, target.len) == 0)
                        model_delete(&m, i), expect++;
                    else
                        i++;
                }
            }
            CHECK(removed == expect);
            break;
        }
        case 8: {
            if (m.n == 0) break;
            size_t start = below(m.n), count = 1 + below(m.n - start);
            if (below(4)) count = count < 5 ? count : 5;
            list_delete_range(l, start, count);
            for (size_t k = 0; k < count; k++) model_delete(&m, start);
            break;
        }
        default:
            check_iteration(l, &m);
            if (below(8) == 0) check_dup(l, &m);
            break;
        }
        check_all(l, &m);
        if (list_compressed_nodes(l)) compressed_seen++;
    }
    for (size_t i = 0; i < m.n; i++) free(m.v[i].s);
    free(m.v);
    list_free(l);
    return compressed_seen;
}

static void test_entry_classes(void)
{
    static const char *const ints[] = {"0",
                                       "127",
                                       "128",
                                       "-1",
                                       "-4096",
                                       "4095",
                                       "-4097",
                                       "4096",
                                       "-524288",
                                       "524287",
                                       "-524289",
                                       "524288",
                                       "-67108864",
                                       "67108863",
                                       "-67108865",
                                       "67108864",
                                       "9223372036854775807",
                                       "-9223372036854775808"};
    static const size_t sizes[] = {1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 9, 9, 9, 9};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        unsigned char e[32];
        size_t n = list_entry_encode(e, ints[i], strlen(ints[i]));
        CHECKF(n == sizes[i], "%s encoded in %zu bytes, expected %zu", ints[i], n, sizes[i]);
        struct strview v;
        CHECK(list_entry_decode(e, &v) == n);
        CHECK(v.len == strlen(ints[i]) && memcmp(v.ptr, ints[i], v.len) == 0);
    }
    static const char *const strings[] = {"012", "-0", "+1", " 1", "1 ", "9223372036854775808", ""};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        unsigned char e[32];
        size_t n = list_entry_encode(e, strings[i], strlen(strings[i]));
        CHECK(n == 1 + strlen(strings[i])); /* a string entry */
        struct strview v;
        list_entry_decode(e, &v);
        CHECK(v.len == strlen(strings[i]) && memcmp(v.ptr, strings[i], v.len) == 0);
    }
}

int main(void)
{
    const char *env = getenv("TEST_SEED");
    unsigned long long seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL);
    fprintf(stderr, "test_list: seed %llu (rerun with TEST_SEED=%llu)\n", seed, seed);
    rand_seed(seed + 11);
    test_entry_classes();
    static const long long fills[] = {1, 2, 3, 16, -1, -2, -5, 0};
    for (size_t i = 0; i < sizeof fills / sizeof fills[0]; i++)
        CHECK(run_model(fills[i], 0, 6000) == 0);
    /* list-compress-depth on: the same model, and compression must happen
     * (the random strings are repetitive; small fills make many nodes). */
    static const struct {
        long long fill, depth;
    } compressed[] = {{16, 1}, {3, 2}, {-1, 1}, {4, 3}, {1, 1}};
    for (size_t i = 0; i < sizeof compressed / sizeof compressed[0]; i++) {
        size_t seen = run_model(compressed[i].fill, compressed[i].depth, 6000);
        CHECKF(seen > 0, "fill %lld depth %lld: no node was ever compressed", compressed[i].fill,
               compressed[i].depth);
    }
    list_limits.compress_depth = 0;
    printf("test_list: ok\n");
    return 0;
}
