/* zset_combine.c — ZUNION/ZINTER/ZDIFF arithmetic; see zset_combine.h. */
#include "store/zset_combine.h"

#include <math.h>
#include <stdint.h>

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
    return in->set ? zset_len(in->set) : 0;
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

static double weighted(double score, double weight)
{
    double v = score * weight;
    return isnan(v) ? 0 : v;
}

struct union_state {
    struct zset *result;
    double weight;
    enum zset_aggregate agg;
};

static bool union_visit(const char *m, size_t len, double score, void *arg)
{
    struct union_state *st = arg;
    double v = weighted(score, st->weight), cur, out;
    if (zset_score(st->result, m, len, &cur)) {
        aggregate_into(&cur, v, st->agg);
        v = cur;
    }
    zset_add(st->result, m, len, v, 0, &out);
    return true;
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
        if (st->in[j].set == st->in[0].set)
            s = score;
        else if (!zset_score(st->in[j].set, m, len, &s))
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
        if (st->in[j].set && zset_score(st->in[j].set, m, len, &s)) return true;
    zset_add(st->result, m, len, score, 0, &s);
    return true;
}

static void visit_all(struct zset *z, zset_visit_fn *fn, void *arg)
{
    zset_visit_ranks(z, 0, zset_len(z), false, fn, arg);
}

struct zset *zset_combine(enum zset_combine_op op, struct zset_input *in, size_t n,
                          enum zset_aggregate aggregate)
{
    /* Built indexed as Redis builds it (which decides, for one, whether a
     * -0 score keeps its sign); stores make it compact when it fits. */
    struct zset *result = zset_new_sized(SIZE_MAX);
    if (op == ZSET_DIFF) {
        struct diff_state st = {in, n, result};
        if (in[0].set) visit_all(in[0].set, diff_visit, &st);
    } else if (op == ZSET_UNION) {
        sort_by_size(in, n);
        for (size_t i = 0; i < n; i++) {
            if (!input_len(&in[i])) continue;
            struct union_state st = {result, in[i].weight, aggregate};
            visit_all(in[i].set, union_visit, &st);
        }
    } else {
        sort_by_size(in, n);
        struct inter_state st = {in, n, aggregate, result, 0, 0};
        if (input_len(&in[0]) > 0) visit_all(in[0].set, inter_visit, &st);
    }
    return result;
}

size_t zset_inter_card(struct zset_input *in, size_t n, size_t limit)
{
    sort_by_size(in, n);
    if (input_len(&in[0]) == 0) return 0;
    struct inter_state st = {in, n, ZSET_AGGREGATE_SUM, NULL, 0, limit};
    for (size_t i = 0; i < n; i++) in[i].weight = 1;
    visit_all(in[0].set, inter_visit, &st);
    return st.count;
}
