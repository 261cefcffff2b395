/* geo_search.c — scanning a sorted set for the members inside a shape, and
 * Redis's two orderings of them; see geo_search.h. */
#include "store/geo_search.h"

#include <string.h>

#include "util/xmalloc.h"

void geo_points_init(struct geo_points *p)
{
    p->items = p->inline_items;
    p->used = 0;
    p->cap = GEO_POINTS_INLINE;
}

void geo_points_release(struct geo_points *p)
{
    if (p->items != p->inline_items) xfree(p->items);
    geo_points_init(p);
}

static struct geo_point *points_append(struct geo_points *p)
{
    if (p->used == p->cap) {
        size_t cap = p->cap * 2;
        if (p->items == p->inline_items) {
            struct geo_point *grown = xmalloc(cap * sizeof *grown);
            memcpy(grown, p->items, p->used * sizeof *grown);
            p->items = grown;
        } else {
            p->items = xrealloc(p->items, cap * sizeof *p->items);
        }
        p->cap = cap;
    }
    return &p->items[p->used++];
}

/* One scan: the shape, where points go, and the decoded point of the
 * member the filter accepted last (handed to take_member). */
struct scan {
    const struct geo_shape *shape;
    struct geo_points *points;
    size_t limit;
    double xy[2], dist;
};

static bool score_inside(double score, void *arg)
{
    struct scan *s = arg;
    s->dist = 0;
    return geo_shape_contains(s->shape, score, s->xy, &s->dist);
}

static bool take_member(const char *member, size_t len, double score, void *arg)
{
    struct scan *s = arg;
    struct geo_point *gp = points_append(s->points);
    *gp = (struct geo_point){.lon = s->xy[0],
                             .lat = s->xy[1],
                             .dist = s->dist,
                             .score = score,
                             .member = member,
                             .len = len};
    return !(s->limit && s->points->used >= s->limit);
}

void geo_search(struct zset *z, const struct geo_shape *shape, size_t limit, struct geo_points *p)
{
    struct geo_plan plan;
    geo_plan_search(shape, &plan);
    struct scan s = {.shape = shape, .points = p, .limit = limit};
    for (int i = 0; i < 9; i++) {
        struct geohash h = plan.boxes[i];
        if (h.bits == 0 && h.step == 0) continue;
        if (limit && p->used >= limit) break;
        uint64_t min, max;
        geo_cell_scores(h, &min, &max);
        struct zset_score_range range = {
            .min = (double)min, .max = (double)max, .min_exclusive = false, .max_exclusive = true};
        size_t first, end;
        zset_score_range_ranks(z, &range, &first, &end);
        zset_visit_ranks_filtered(z, first, end, score_inside, take_member, &s);
    }
}

/* --- ordering ---------------------------------------------------------------- */

/* Redis's comparator: -1, 0, 1 by distance (negated for descending). A
 * NaN distance compares below everything, as there. */
static inline int dist_cmp(const struct geo_point *a, const struct geo_point *b, bool desc)
{
    int c = a->dist > b->dist ? 1 : a->dist == b->dist ? 0 : -1;
    return desc ? -c : c;
}

/* glibc's msort: halves of n/2 and n - n/2, sorted in turn, merged taking
 * from the left half while it compares <= 0 (stable). */
static void merge_sort(struct geo_point *a, size_t n, struct geo_point *tmp, bool desc)
{
    if (n <= 1) return;
    size_t n1 = n / 2, n2 = n - n1;
    struct geo_point *b1 = a, *b2 = a + n1;
    merge_sort(b1, n1, tmp, desc);
    merge_sort(b2, n2, tmp, desc);
    struct geo_point *out = tmp;
    while (n1 > 0 && n2 > 0) {
        if (dist_cmp(b1, b2, desc) <= 0) {
            *out++ = *b1++;
            n1--;
        } else {
            *out++ = *b2++;
            n2--;
        }
    }
    if (n1 > 0) memcpy(out, b1, n1 * sizeof *out);
    memcpy(a, tmp, (n - n2) * sizeof *a);
}

static inline void swap_points(struct geo_point *a, size_t i, size_t j)
{
    struct geo_point t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* Swaps the n points at i with the n at j (the regions do not overlap). */
static inline void swap_runs(struct geo_point *a, size_t i, size_t j, size_t n)
{
    for (size_t k = 0; k < n; k++) swap_points(a, i + k, j + k);
}

static inline size_t median_of_3(const struct geo_point *a, size_t i, size_t j, size_t k, bool desc)
{
    return dist_cmp(&a[i], &a[j], desc) < 0
               ? (dist_cmp(&a[j], &a[k], desc) < 0 ? j : (dist_cmp(&a[i], &a[k], desc) < 0 ? k : i))
               : (dist_cmp(&a[j], &a[k], desc) > 0 ? j
                                                   : (dist_cmp(&a[i], &a[k], desc) < 0 ? i : k));
}

static inline size_t min_size(size_t x, size_t y)
{
    return x < y ? x : y;
}

/* Redis's pqsort over a[base, base + n): Bentley-McIlroy partitioning
 * (median of three, of nine above 40 points, equal keys gathered at both
 * ends then swapped to the middle), insertion sort below 7 points, and a
 * partition entered only when it holds a position <= last. */
static void partial_sort(struct geo_point *all, size_t base, size_t n, size_t last, bool desc)
{
    for (;;) {
        struct geo_point *a = all + base;
        if (n < 7) {
            for (size_t m = 1; m < n; m++)
                for (size_t l = m; l > 0 && dist_cmp(&a[l - 1], &a[l], desc) > 0; l--)
                    swap_points(a, l, l - 1);
            return;
        }
        size_t pm = n / 2;
        if (n > 7) {
            size_t pl = 0, pn = n - 1;
            if (n > 40) {
                size_t d = n / 8;
                pl = median_of_3(a, pl, pl + d, pl + 2 * d, desc);
                pm = median_of_3(a, pm - d, pm, pm + d, desc);
                pn = median_of_3(a, pn - 2 * d, pn - d, pn, desc);
            }
            pm = median_of_3(a, pl, pm, pn, desc);
        }
        swap_points(a, 0, pm);
        /* [0] is the pivot; [1, pa) and (pd, n) hold its equals. */
        size_t pa = 1, pb = 1, pc = n - 1, pd = n - 1;
        for (;;) {
            int c;
            while (pb <= pc && (c = dist_cmp(&a[pb], &a[0], desc)) <= 0) {
                if (c == 0) swap_points(a, pa++, pb);
                pb++;
            }
            while (pb <= pc && (c = dist_cmp(&a[pc], &a[0], desc)) >= 0) {
                if (c == 0) swap_points(a, pc, pd--);
                pc--;
            }
            if (pb > pc) break;
            swap_points(a, pb++, pc--);
        }
        size_t r = min_size(pa, pb - pa);
        swap_runs(a, 0, pb - r, r);
        r = min_size(pd - pc, n - pd - 1);
        swap_runs(a, pb, n - r, r);
        /* The lower partition starts at base, which is <= last in every
         * call made; the upper one is entered only when it starts there too. */
        if ((r = pb - pa) > 1) partial_sort(all, base, r, last, desc);
        if ((r = pd - pc) <= 1) return;
        base = base + n - r;
        n = r;
        if (base > last) return;
    }
}

void geo_points_sort(struct geo_points *p, bool descending, size_t count)
{
    if (p->used <= 1) return;
    if (count >= p->used) {
        struct geo_point stack[GEO_POINTS_INLINE];
        struct geo_point *tmp =
            p->used <= GEO_POINTS_INLINE ? stack : xmalloc(p->used * sizeof *tmp);
        merge_sort(p->items, p->used, tmp, descending);
        if (tmp != stack) xfree(tmp);
        return;
    }
    if (count > 0) partial_sort(p->items, 0, p->used, count - 1, descending);
}
