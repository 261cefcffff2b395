/* zset_combine.c — ZUNION/ZINTER/ZDIFF arithmetic; see zset_combine.h. */
#include "store/zset_combine.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/hash.h"
#include "util/xmalloc.h"

static void aggregate_into(double *target, double value, enum zset_aggregate agg)
{
    switch (agg) {
    case ZSET_AGGREGATE_SUM:
        *target += value;
        if (isnan(*target)) *target = 0.0; /* inf + -inf */
        break;
    case ZSET_AGGREGATE_MIN:
        if (value < *target) *target = value;
        break;
    case ZSET_AGGREGATE_MAX:
        if (value > *target) *target = value;
        break;
    }
}

static size_t input_len(const struct zset_input *in)
{
    return in->set ? zset_len(in->set) : in->plain ? set_len(in->plain) : 0;
}

static bool input_score(const struct zset_input *in, const char *m, size_t len, double *score)
{
    if (in->set) return zset_score(in->set, m, len, score);
    *score = 1.0;
    return in->plain && set_contains(in->plain, m, len);
}

static bool input_same(const struct zset_input *a, const struct zset_input *b)
{
    return a->set ? a->set == b->set : a->plain && a->plain == b->plain;
}

/* Stable insertion sort by size (Redis's qsort is glibc's merge sort). */
static void sort_by_size(struct zset_input *in, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct zset_input x = in[i];
        size_t j = i;
        while (j > 0 && input_len(&in[j - 1]) > input_len(&x)) {
            in[j] = in[j - 1];
            j--;
        }
        in[j] = x;
    }
}

struct plain_bridge {
    zset_visit_fn *fn;
    void *arg;
};

static bool plain_visit(const char *m, size_t len, void *arg)
{
    struct plain_bridge *b = arg;
    return b->fn(m, len, 1.0, b->arg);
}

static void visit_all(const struct zset_input *in, zset_visit_fn *fn, void *arg)
{
    if (in->set) {
        zset_visit_ranks(in->set, 0, zset_len(in->set), false, fn, arg);
    } else if (in->plain) {
        struct plain_bridge b = {fn, arg};
        set_foreach(in->plain, plain_visit, &b);
    }
}

static double weighted(double score, double weight)
{
    double v = score * weight;
    return isnan(v) ? 0 : v;
}

/* The union accumulates member -> score in a scratch dict before building
 * the result, so each score is the exact double Redis's accumulator holds
 * (an update through zset_add would keep -0 where the sum is 0). Members
 * point into the inputs, which nothing writes to meanwhile. */
struct union_entry {
    struct dict_node node;
    const char *member;
    size_t len;
    double score;
    bool owned; /* member copied (a plain set prints integers into a temporary) */
};

static uint64_t union_entry_hash(const struct dict_node *n)
{
    const struct union_entry *e = (const struct union_entry *)n;
    return hash_bytes(e->member, e->len);
}

static bool union_entry_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct union_entry *e = (const struct union_entry *)n;
    return e->len == len && memcmp(e->member, key, len) == 0;
}

static const struct dict_type union_dict_type = {union_entry_hash, union_entry_has_key};

struct union_state {
    struct dict acc;
    struct union_entry *entries; /* one per distinct member, in first-seen order */
    size_t used;
    double weight;
    enum zset_aggregate agg;
    bool copy; /* the input being visited hands out temporary members */
};

static bool union_visit(const char *m, size_t len, double score, void *arg)
{
    struct union_state *st = arg;
    double v = weighted(score, st->weight);
    uint64_t h = hash_bytes(m, len);
    struct dict_node *n = dict_find(&st->acc, m, len, h);
    if (n) {
        aggregate_into(&((struct union_entry *)n)->score, v, st->agg);
        return true;
    }
    struct union_entry *e = &st->entries[st->used++];
    *e = (struct union_entry){.member = m, .len = len, .score = v, .owned = st->copy};
    if (st->copy) {
        char *copy = xmalloc(len ? len : 1);
        memcpy(copy, m, len);
        e->member = copy;
    }
    dict_insert(&st->acc, &e->node, h);
    return true;
}

static void zset_union_into(struct zset *result, struct zset_input *in, size_t n,
                            enum zset_aggregate agg)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += input_len(&in[i]);
    struct union_state st = {.entries = xmalloc(sizeof(struct union_entry) * (total ? total : 1)),
                             .agg = agg};
    dict_init(&st.acc, &union_dict_type);
    for (size_t i = 0; i < n; i++) {
        if (!input_len(&in[i])) continue;
        st.weight = in[i].weight;
        st.copy = in[i].plain && set_is_intset(in[i].plain);
        visit_all(&in[i], union_visit, &st);
    }
    for (size_t i = 0; i < st.used; i++) {
        double out;
        zset_add(result, st.entries[i].member, st.entries[i].len, st.entries[i].score, 0, &out);
        if (st.entries[i].owned) xfree((void *)st.entries[i].member);
    }
    dict_release(&st.acc, NULL, NULL);
    xfree(st.entries);
}

struct inter_state {
    struct zset_input *in;
    size_t n;
    enum zset_aggregate agg;
    struct zset *result; /* NULL when only counting */
    size_t count, limit;
};

static bool inter_visit(const char *m, size_t len, double score, void *arg)
{
    struct inter_state *st = arg;
    double acc = weighted(score, st->in[0].weight);
    for (size_t j = 1; j < st->n; j++) {
        double s;
        if (input_same(&st->in[j], &st->in[0]))
            s = score;
        else if (!input_score(&st->in[j], m, len, &s))
            return true;
        aggregate_into(&acc, s * st->in[j].weight, st->agg);
    }
    st->count++;
    if (st->result) {
        double out;
        zset_add(st->result, m, len, acc, 0, &out);
    }
    return !(st->limit && st->count >= st->limit);
}

struct diff_state {
    struct zset_input *in;
    size_t n;
    struct zset *result;
};

static bool diff_visit(const char *m, size_t len, double score, void *arg)
{
    struct diff_state *st = arg;
    double s;
    for (size_t j = 1; j < st->n; j++)
        if (input_score(&st->in[j], m, len, &s)) return true;
    zset_add(st->result, m, len, score, 0, &s);
    return true;
}

struct zset *zset_combine(enum zset_combine_op op, struct zset_input *in, size_t n,
                          enum zset_aggregate aggregate)
{
    /* Built indexed as Redis builds it (which decides, for one, whether a
     * -0 score keeps its sign); stores make it compact when it fits. */
    struct zset *result = zset_new_sized(SIZE_MAX);
    if (op == ZSET_DIFF) {
        struct diff_state st = {in, n, result};
        visit_all(&in[0], diff_visit, &st);
    } else if (op == ZSET_UNION) {
        sort_by_size(in, n);
        zset_union_into(result, in, n, aggregate);
    } else {
        sort_by_size(in, n);
        struct inter_state st = {in, n, aggregate, result, 0, 0};
        if (input_len(&in[0]) > 0) visit_all(&in[0], inter_visit, &st);
    }
    return result;
}

size_t zset_inter_card(struct zset_input *in, size_t n, size_t limit)
{
    sort_by_size(in, n);
    if (input_len(&in[0]) == 0) return 0;
    struct inter_state st = {in, n, ZSET_AGGREGATE_SUM, NULL, 0, limit};
    for (size_t i = 0; i < n; i++) in[i].weight = 1;
    visit_all(&in[0], inter_visit, &st);
    return st.count;
}
