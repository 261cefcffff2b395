/* Unit tests of the hash type against a reference model: seeded random
 * HSET/HDEL/HGET-like operations that cross the listpack → hashtable
 * conversion (by count and by value length), iteration order of the
 * listpack encoding, SCAN coverage across resizes, random sampling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "store/hash.h"
#include "util/hash.h"
#include "util/rand.h"

static unsigned long long seed;
static size_t below(size_t n)
{
    return (size_t)(rand_u64() % n);
}

struct ref_field {
    char f[24], v[96];
    size_t flen, vlen;
    int seen;
};

struct ref {
    struct ref_field *items; /* insertion order (the listpack's order) */
    size_t n, cap;
    long where[4096]; /* field number -> index in items, or -1 */
};

/* Fields are "f<number>": the number indexes `where`. */
static long ref_find(const struct ref *r, const char *f, size_t flen)
{
    char tmp[24];
    memcpy(tmp, f + 1, flen - 1);
    tmp[flen - 1] = '\0';
    return r->where[atoi(tmp)];
}

static void ref_reindex(struct ref *r)
{
    for (size_t i = 0; i < 4096; i++) r->where[i] = -1;
    for (size_t i = 0; i < r->n; i++) {
        char tmp[24];
        memcpy(tmp, r->items[i].f + 1, r->items[i].flen - 1);
        tmp[r->items[i].flen - 1] = '\0';
        r->where[atoi(tmp)] = (long)i;
    }
}

struct collected {
    struct ref *r;
    size_t n;
    bool check_order; /* listpack: insertion order */
    bool mark;
};

static bool visit(const char *f, size_t flen, const char *v, size_t vlen, void *arg)
{
    struct collected *c = arg;
    long i = ref_find(c->r, f, flen);
    CHECKF(i >= 0, "visited a field that is not in the model (seed %llu)", seed);
    CHECK(c->r->items[i].vlen == vlen && memcmp(c->r->items[i].v, v, vlen) == 0);
    if (c->check_order) CHECK_EQ_LL(i, c->n);
    if (c->mark) c->r->items[i].seen++;
    c->n++;
    return true;
}

static void check_all(struct hash *h, struct ref *r)
{
    CHECK_EQ_LL(hash_len(h), r->n);
    struct collected c = {r, 0, hash_is_compact(h), true};
    for (size_t i = 0; i < r->n; i++) r->items[i].seen = 0;
    hash_foreach(h, visit, &c);
    CHECK_EQ_LL(c.n, r->n);
    for (size_t i = 0; i < r->n; i++) {
        CHECK_EQ_LL(r->items[i].seen, 1);
        const char *v;
        size_t vl;
        CHECK(hash_get(h, r->items[i].f, r->items[i].flen, &v, &vl));
        CHECK(vl == r->items[i].vlen && memcmp(v, r->items[i].v, vl) == 0);
    }
}

static void random_value(char *v, size_t *vlen, size_t max)
{
    *vlen = below(max + 1);
    for (size_t i = 0; i < *vlen; i++) v[i] = (char)('a' + below(26));
}

static void run_model(size_t universe, long long max_entries, long long max_value, int ops)
{
    hash_limits.max_listpack_entries = max_entries;
    hash_limits.max_listpack_value = max_value;
    struct hash *h = hash_new();
    static struct ref r;
    memset(&r, 0, sizeof r);
    ref_reindex(&r);
    bool saw_compact = false, saw_table = false;
    for (int op = 0; op < ops; op++) {
        char f[24], v[96];
        size_t flen = (size_t)snprintf(f, sizeof f, "f%zu", below(universe)), vlen;
        switch (below(6)) {
        case 0:
        case 1:
        case 2: {
            /* Mostly short values; a rare long one forces the conversion. */
            random_value(v, &vlen, below(50) == 0 ? 90 : 12);
            long i = ref_find(&r, f, flen);
            CHECK(hash_set(h, f, flen, v, vlen) == (i < 0));
            if (i < 0) {
                if (r.n == r.cap) {
                    r.cap = r.cap ? r.cap * 2 : 64;
                    r.items = realloc(r.items, r.cap * sizeof r.items[0]);
                }
                i = (long)r.n++;
                memcpy(r.items[i].f, f, flen);
                r.items[i].flen = flen;
                r.where[atoi(f + 1)] = i;
            }
            memcpy(r.items[i].v, v, vlen);
            r.items[i].vlen = vlen;
            break;
        }
        case 3: {
            long i = ref_find(&r, f, flen);
            CHECK(hash_delete(h, f, flen) == (i >= 0));
            if (i >= 0) {
                memmove(&r.items[i], &r.items[i + 1], (r.n - (size_t)i - 1) * sizeof r.items[0]);
                r.n--;
                ref_reindex(&r);
            }
            break;
        }
        case 4: {
            const char *gv;
            size_t gl;
            long i = ref_find(&r, f, flen);
            CHECK(hash_get(h, f, flen, &gv, &gl) == (i >= 0));
            if (i >= 0) CHECK(gl == r.items[i].vlen && memcmp(gv, r.items[i].v, gl) == 0);
            break;
        }
        case 5: {
            if (r.n < 2 || below(20) != 0) break;
            /* Distinct sampling: right count, no repeats, real fields. */
            size_t count = 1 + below(r.n - 1);
            for (size_t i = 0; i < r.n; i++) r.items[i].seen = 0;
            struct collected c = {&r, 0, false, true};
            hash_random_distinct(h, count, visit, &c);
            CHECK_EQ_LL(c.n, count);
            for (size_t i = 0; i < r.n; i++) CHECK(r.items[i].seen <= 1);
            c = (struct collected){&r, 0, false, false};
            hash_random_with_repeats(h, 30, visit, &c);
            CHECK_EQ_LL(c.n, 30);
            /* SCAN to completion covers everything. */
            for (size_t i = 0; i < r.n; i++) r.items[i].seen = 0;
            unsigned long long cursor = 0;
            c = (struct collected){&r, 0, false, true};
            do cursor = hash_scan(h, cursor, 1 + (long long)below(10), visit, &c);
            while (cursor);
            for (size_t i = 0; i < r.n; i++) CHECK(r.items[i].seen >= 1);
            break;
        }
        }
        if (hash_is_compact(h))
            saw_compact = true;
        else
            saw_table = true;
        if (op % 1009 == 0) check_all(h, &r);
        if (r.n == 0 && below(4) == 0) {
            hash_free(h);
            h = hash_new();
        }
    }
    check_all(h, &r);
    CHECK(hash_memory_usage(h, 0) > 0 && hash_memory_usage(h, 5) > 0);
    CHECK(saw_compact && saw_table);
    hash_free(h);
    free(r.items);
}

/* A lowered threshold converts at the next write, even an update. */
static void test_threshold_changes(void)
{
    hash_limits.max_listpack_entries = 512;
    hash_limits.max_listpack_value = 64;
    struct hash *h = hash_new();
    for (int i = 0; i < 10; i++) {
        char f[8];
        int n = snprintf(f, sizeof f, "f%d", i);
        hash_set(h, f, (size_t)n, "v", 1);
    }
    CHECK(hash_is_compact(h));
    hash_limits.max_listpack_entries = 5;
    CHECK(!hash_set(h, "f1", 2, "w", 1));
    CHECK(!hash_is_compact(h));
    CHECK_EQ_LL(hash_len(h), 10);
    hash_free(h);
    hash_limits.max_listpack_entries = 512;
    h = hash_new();
    char big[65];
    memset(big, 'x', sizeof big);
    hash_set(h, "a", 1, big, 64);
    CHECK(hash_is_compact(h));
    hash_set(h, "b", 1, big, 65);
    CHECK(!hash_is_compact(h));
    hash_free(h);
}

int main(void)
{
    hash_seed_init();
    const char *env = getenv("TEST_SEED");
    seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL);
    fprintf(stderr, "test_hash: seed %llu (rerun with TEST_SEED=%llu)\n", seed, seed);
    rand_seed(seed * 2654435761ULL + 1);
    rand_seed(seed + 3);
    test_threshold_changes();
    run_model(30, 16, 64, 20000);
    run_model(2000, 512, 64, 60000);
    printf("test_hash: ok\n");
    return 0;
}
