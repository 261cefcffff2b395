/* histogram.c — percentiles and the logarithmic walk of an HDR histogram
 * in Redis's latency layout; see histogram.h. */
#include "util/histogram.h"

#define HALF_COUNT (HISTOGRAM_SUB_BUCKET_COUNT / 2)

static inline int bucket_of(int64_t v)
{
    return 56 - __builtin_clzll((uint64_t)v | (HISTOGRAM_SUB_BUCKET_COUNT - 1));
}

/* The lowest value of the counter at `index` (hdr_value_at_index). */
static int64_t value_at_index(int index)
{
    int bucket = (index >> HISTOGRAM_SUB_BUCKET_HALF_MAGNITUDE) - 1;
    int sub = (index & (HALF_COUNT - 1)) + HALF_COUNT;
    if (bucket < 0) {
        sub -= HALF_COUNT;
        bucket = 0;
    }
    return (int64_t)sub << bucket;
}

static int64_t lowest_equivalent(int64_t v)
{
    int bucket = bucket_of(v);
    return (v >> bucket) << bucket;
}

/* The width of the range of values counted with v. */
static int64_t equivalent_range(int64_t v)
{
    int bucket = bucket_of(v);
    int sub = (int)(v >> bucket);
    return INT64_C(1) << (sub >= HISTOGRAM_SUB_BUCKET_COUNT ? bucket + 1 : bucket);
}

static int64_t highest_equivalent(int64_t v)
{
    return lowest_equivalent(v) + equivalent_range(v) - 1;
}

int64_t histogram_value_at_percentile(const struct histogram *h, double percentile)
{
    double requested = percentile < 100.0 ? percentile : 100.0;
    int64_t wanted = (int64_t)(((requested / 100) * h->total) + 0.5);
    if (wanted < 1) wanted = 1;
    int64_t value = 0, seen = 0;
    for (int i = 0; i < HISTOGRAM_COUNTS; i++) {
        seen += h->counts[i];
        if (seen >= wanted) {
            value = value_at_index(i);
            break;
        }
    }
    return percentile == 0.0 ? lowest_equivalent(value) : highest_equivalent(value);
}

void histogram_log_iter_init(struct histogram_log_iter *it, const struct histogram *h,
                             int64_t first)
{
    *it = (struct histogram_log_iter){.h = h, .index = -1, .next_level = first};
    it->next_level_lowest = lowest_equivalent(first);
}

/* One counter further; false past the last. */
static bool move_next(struct histogram_log_iter *it)
{
    if (++it->index >= HISTOGRAM_COUNTS) return false;
    it->cumulative += it->h->counts[it->index];
    it->value = value_at_index(it->index);
    it->highest_equivalent = highest_equivalent(it->value);
    return true;
}

bool histogram_log_iter_next(struct histogram_log_iter *it)
{
    bool more =
        it->cumulative < it->h->total ||
        (it->index < HISTOGRAM_COUNTS && value_at_index(it->index + 1) > it->next_level_lowest);
    if (!more) return false;
    for (;;) {
        if (it->value >= it->next_level_lowest) {
            it->next_level *= 2;
            it->next_level_lowest = lowest_equivalent(it->next_level);
            return true;
        }
        if (!move_next(it)) return true;
    }
}
