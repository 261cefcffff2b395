/* Unit tests of the intrusive dict: growth and shrink by incremental rehash,
 * SCAN guarantees across resizes, removal during iteration, random nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/dict.h"
#include "util/hash.h"

struct item {
    struct dict_node node;
    int key;
    int seen;
};

static uint64_t item_hash(const struct dict_node *n)
{
    const struct item *it = (const struct item *)n;
    return hash_bytes(&it->key, sizeof it->key);
}

static bool item_has_key(const struct dict_node *n, const void *key, size_t len)
{
    (void)len;
    return ((const struct item *)n)->key == *(const int *)key;
}

static const struct dict_type item_type = {item_hash, item_has_key};

static uint64_t h(int k)
{
    return hash_bytes(&k, sizeof k);
}

static struct item *find(struct dict *d, int k)
{
    return (struct item *)dict_find(d, &k, sizeof k, h(k));
}

static void scan_mark(struct dict_node *n, void *arg)
{
    (void)arg;
    ((struct item *)n)->seen++;
}

static uint64_t lcg_state = 12345;
static uint64_t lcg(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lcg_state >> 17;
}

static void test_grow_and_shrink(void)
{
    enum { N = 50000 };
    struct dict d;
    dict_init(&d, &item_type);
    struct item *items = calloc(N, sizeof *items);
    for (int i = 0; i < N; i++) {
        items[i].key = i;
        CHECK(find(&d, i) == NULL);
        dict_insert(&d, &items[i].node, h(i));
        /* Every key inserted so far is findable mid-rehash. */
        if (i % 997 == 0)
            for (int k = 0; k <= i; k += 13) CHECK(find(&d, k) == &items[k]);
    }
    CHECK_EQ_LL(dict_size(&d), N);
    for (int i = 0; i < N; i++) CHECK(find(&d, i) == &items[i]);
    size_t big = dict_bucket_count(&d);
    CHECK(big >= N);
    for (int i = 0; i < N - 10; i++) {
        CHECK(dict_remove(&d, &i, sizeof i, h(i)) == &items[i].node);
        CHECK(find(&d, i) == NULL);
    }
    CHECK_EQ_LL(dict_size(&d), 10);
    while (dict_rehash_for_us(&d, 1000)) {
    }
    for (int i = N - 10; i < N; i++) CHECK(find(&d, i) == &items[i]);
    CHECKF(dict_bucket_count(&d) < big / 100, "did not shrink: %zu buckets", dict_bucket_count(&d));
    dict_release(&d, NULL, NULL);
    free(items);
}

/* SCAN returns every element present for the whole scan at least once,
 * even when the table grows and shrinks between steps. */
static void test_scan_across_resizes(void)
{
    enum { N = 20000 };
    struct dict d;
    dict_init(&d, &item_type);
    struct item *items = calloc(2 * N, sizeof *items);
    for (int i = 0; i < N; i++) {
        items[i].key = i;
        dict_insert(&d, &items[i].node, h(i));
    }
    unsigned long long cursor = 0;
    int step = 0, next_new = N;
    do {
        cursor = dict_scan(&d, cursor, scan_mark, NULL);
        step++;
        /* Grow during the first half of the scan, shrink (by removing the
         * temporary items) during the second. */
        if (step % 3 == 0 && next_new < 2 * N) {
            for (int k = 0; k < 50 && next_new < 2 * N; k++, next_new++) {
                items[next_new].key = next_new;
                dict_insert(&d, &items[next_new].node, h(next_new));
            }
        } else if (step % 5 == 0 && next_new >= 2 * N) {
            for (int k = N; k < 2 * N; k++)
                if (find(&d, k)) dict_remove(&d, &k, sizeof k, h(k));
        }
    } while (cursor != 0);
    for (int i = 0; i < N; i++) CHECKF(items[i].seen >= 1, "item %d never returned by scan", i);
    dict_release(&d, NULL, NULL);
    free(items);
}

static bool remove_even(struct dict_node *n, void *arg)
{
    struct dict *d = arg;
    struct item *it = (struct item *)n;
    it->seen++;
    if (it->key % 2 == 0) dict_remove(d, &it->key, sizeof it->key, h(it->key));
    return true;
}

static void test_foreach_with_removal(void)
{
    enum { N = 10000 };
    struct dict d;
    dict_init(&d, &item_type);
    struct item *items = calloc(N, sizeof *items);
    for (int i = 0; i < N; i++) {
        items[i].key = i;
        dict_insert(&d, &items[i].node, h(i));
    }
    CHECK(dict_is_rehashing(&d) || dict_size(&d) == N);
    dict_foreach(&d, remove_even, &d);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_LL(items[i].seen, 1);
        CHECK((find(&d, i) != NULL) == (i % 2 == 1));
    }
    CHECK_EQ_LL(dict_size(&d), N / 2);
    dict_release(&d, NULL, NULL);
    free(items);
}

static void test_random_node(void)
{
    enum { N = 64 };
    struct dict d;
    dict_init(&d, &item_type);
    CHECK(dict_random_node(&d, lcg) == NULL);
    struct item items[N] = {0};
    for (int i = 0; i < N; i++) {
        items[i].key = i;
        dict_insert(&d, &items[i].node, h(i));
    }
    int hits[N] = {0};
    for (int i = 0; i < 64000; i++) hits[((struct item *)dict_random_node(&d, lcg))->key]++;
    /* Every key is reachable. The draw picks a bucket, then a node of its
     * chain, so a key in a long chain is drawn less (the hash seed, random
     * per run, decides the chains): about 64000 / (occupied buckets * chain
     * length), ~260 for a chain of 6 of 64 keys; 50 stays clear of that for
     * any chain a 64-key table makes, where 200 failed about once in a few
     * hundred runs. */
    for (int i = 0; i < N; i++) CHECKF(hits[i] > 50, "key %d drawn only %d times", i, hits[i]);
    dict_release(&d, NULL, NULL);
}

int main(void)
{
    hash_seed_init();
    test_grow_and_shrink();
    test_scan_across_resizes();
    test_foreach_with_removal();
    test_random_node();
    printf("dict: ok\n");
    return 0;
}
