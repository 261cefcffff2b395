/* Unit tests of the set type against a reference model: seeded random
 * adds/removes over a universe of integers of every intset width, strings
 * that only look like integers ("007", "+1", "-0") and plain strings, with
 * tiny and default set-max-intset-entries, so the intset -> hashtable
 * conversion happens by count and by member; the intset's ascending order;
 * SCAN coverage; random sampling; and SPOP's rebuild, which converts a
 * hashtable back to an intset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/set.h"
#include "util/rand.h"

enum { UNIVERSE = 600 };

static char names[UNIVERSE][32];
static size_t name_len[UNIVERSE];
static bool is_int[UNIVERSE];
static long long int_value[UNIVERSE];

static void build_universe(void)
{
    static const long long ints[] = {0,
                                     1,
                                     -1,
                                     127,
                                     -128,
                                     32767,
                                     -32768,
                                     32768,
                                     -32769,
                                     2147483647,
                                     -2147483648LL,
                                     2147483648LL,
                                     -2147483649LL,
                                     9223372036854775807LL,
                                     -9223372036854775807LL - 1};
    size_t n = 0;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++, n++) {
        name_len[n] = (size_t)snprintf(names[n], sizeof names[n], "%lld", ints[i]);
        is_int[n] = true;
        int_value[n] = ints[i];
    }
    static const char *const fakes[] = {"007",  "+1", "-0", " 1", "1 ", "", "9223372036854775808",
                                        "0x10", "1e3"};
    for (size_t i = 0; i < sizeof fakes / sizeof fakes[0]; i++, n++) {
        name_len[n] = strlen(fakes[i]);
        memcpy(names[n], fakes[i], name_len[n]);
    }
    for (; n < UNIVERSE; n++) {
        if (n % 3) {
            long long v = (long long)(n * 7919) - 1500000;
            if (n % 3 == 2) v *= 100003; /* 4- and 8-byte widths */
            name_len[n] = (size_t)snprintf(names[n], sizeof names[n], "%lld", v);
            is_int[n] = true;
            int_value[n] = v;
        } else {
            name_len[n] = (size_t)snprintf(names[n], sizeof names[n], "member:%zu", n);
        }
    }
}

static long find_name(const char *m, size_t len)
{
    for (long i = 0; i < UNIVERSE; i++)
        if (name_len[i] == len && memcmp(names[i], m, len) == 0) return i;
    return -1;
}

struct walk {
    const bool *model;
    bool *seen;
    size_t count;
    bool ascending;
    long long last;
};

static bool walk_visit(const char *m, size_t len, void *arg)
{
    struct walk *w = arg;
    long i = find_name(m, len);
    CHECKF(i >= 0 && w->model[i], "visited %.*s, not in the model", (int)len, m);
    if (w->ascending) {
        CHECK(is_int[i]);
        CHECK(w->count == 0 || int_value[i] > w->last);
        w->last = int_value[i];
    }
    w->seen[i] = true;
    w->count++;
    return true;
}

static void check_against(struct set *s, const bool *model, size_t model_len, bool want_intset)
{
    CHECK_EQ_LL(set_len(s), model_len);
    CHECK_EQ_LL(set_is_intset(s), want_intset);
    bool seen[UNIVERSE] = {0};
    struct walk w = {model, seen, 0, set_is_intset(s), 0};
    set_foreach(s, walk_visit, &w);
    CHECK_EQ_LL(w.count, model_len);
    for (size_t i = 0; i < UNIVERSE; i++) {
        CHECK_EQ_LL(seen[i], model[i]);
        CHECK_EQ_LL(set_contains(s, names[i], name_len[i]), model[i]);
    }
    /* A full SCAN returns every member at least once. */
    bool scanned[UNIVERSE] = {0};
    struct walk sw = {model, scanned, 0, false, 0};
    unsigned long long cursor = 0;
    do cursor = set_scan(s, cursor, 1 + (long long)(rand_u64() % 20), walk_visit, &sw);
    while (cursor);
    for (size_t i = 0; i < UNIVERSE; i++) CHECK_EQ_LL(scanned[i], model[i]);
}

static void check_random(struct set *s, const bool *model, size_t model_len)
{
    if (model_len == 0) return;
    bool seen[UNIVERSE] = {0};
    struct walk w = {model, seen, 0, false, 0};
    set_random_with_repeats(s, 5, walk_visit, &w);
    CHECK_EQ_LL(w.count, 5);
    if (model_len < 2) return;
    size_t want = 1 + (size_t)(rand_u64() % (model_len - 1));
    memset(seen, 0, sizeof seen);
    w.count = 0;
    set_random_distinct(s, want, walk_visit, &w);
    CHECK_EQ_LL(w.count, want);
    size_t distinct = 0;
    for (size_t i = 0; i < UNIVERSE; i++) distinct += seen[i];
    CHECK_EQ_LL(distinct, want);
}

static void run(unsigned long long steps, long long max_intset)
{
    set_limits.max_intset_entries = max_intset;
    bool model[UNIVERSE] = {0};
    size_t model_len = 0;
    long first = (long)(rand_u64() % UNIVERSE);
    struct set *s = set_new_for(names[first], name_len[first]);
    bool want_intset = is_int[first];
    /* Some runs stay integer-only so the intset sees many operations. */
    bool ints_only = rand_u64() % 2;
    for (unsigned long long step = 0; step < steps; step++) {
        long i = (long)(rand_u64() % UNIVERSE);
        if (ints_only && !is_int[i]) continue;
        if (rand_u64() % 3) {
            bool added = set_add(s, names[i], name_len[i]);
            CHECK_EQ_LL(added, !model[i]);
            if (added) model_len++;
            model[i] = true;
            if (!is_int[i] || model_len > (size_t)max_intset) want_intset = false;
        } else {
            bool removed = set_remove(s, names[i], name_len[i]);
            CHECK_EQ_LL(removed, model[i]);
            if (removed) model_len--;
            model[i] = false;
        }
        if (step % 97 == 0) {
            check_against(s, model, model_len, want_intset);
            check_random(s, model, model_len);
        }
    }
    check_against(s, model, model_len, want_intset);
    /* SPOP's rebuild: keep k random members in a new set, s keeps the rest. */
    if (model_len > 1) {
        size_t keep = 1 + (size_t)(rand_u64() % (model_len - 1));
        struct set *rest;
        set_pop_rebuild(s, keep, &rest);
        CHECK(rest);
        CHECK_EQ_LL(set_len(rest) + set_len(s), model_len);
        CHECK_EQ_LL(set_len(rest), keep);
        bool all_int = true;
        bool seen_rest[UNIVERSE] = {0}, seen_s[UNIVERSE] = {0};
        struct walk wr = {model, seen_rest, 0, set_is_intset(rest), 0};
        struct walk ws = {model, seen_s, 0, false, 0};
        set_foreach(rest, walk_visit, &wr);
        set_foreach(s, walk_visit, &ws);
        for (size_t i = 0; i < UNIVERSE; i++) {
            CHECK(!(seen_rest[i] && seen_s[i]));
            CHECK_EQ_LL(seen_rest[i] || seen_s[i], model[i]);
            if (seen_rest[i] && !is_int[i]) all_int = false;
        }
        /* The rebuilt set is an intset again when it can be. */
        CHECK_EQ_LL(set_is_intset(rest), all_int && keep <= (size_t)max_intset);
        set_free(rest);
    }
    set_free(s);
}

int main(void)
{
    const char *env = getenv("TEST_SEED");
    unsigned long long seed = env ? strtoull(env, NULL, 10) : 0x5e75e7ULL;
    printf("test_set seed %llu\n", seed);
    rand_seed(seed);
    build_universe();
    for (int round = 0; round < 40; round++) {
        static const long long limits[] = {0, 1, 3, 16, 512};
        run(3000, limits[round % 5]);
    }
    set_limits.max_intset_entries = 512;
    /* Width upgrades in place: 2 -> 4 -> 8 bytes, then removals. */
    struct set *s = set_new_intset();
    CHECK(set_add(s, "5", 1));
    CHECK(set_add(s, "-70000", 6));
    CHECK(set_add(s, "9000000000", 10));
    CHECK(!set_add(s, "5", 1));
    CHECK(set_contains(s, "-70000", 6) && set_contains(s, "9000000000", 10));
    CHECK(!set_contains(s, "70000", 5));
    CHECK(set_remove(s, "-70000", 6));
    CHECK(!set_remove(s, "-70000", 6));
    CHECK(set_is_intset(s) && set_len(s) == 2);
    CHECK(set_memory_usage(s, 0) > 0);
    set_free(s);
    printf("test_set: ok\n");
    return 0;
}
