/* sample.c — random sampling and size estimation over a dict; see sample.h. */
#include "store/sample.h"

#include "store/dict.h"
#include "util/rand.h"

static uint64_t rand_source(void)
{
    return rand_u64();
}

struct node_array {
    struct dict_node **nodes;
    size_t n;
};

static bool collect_node(struct dict_node *n, void *arg)
{
    struct node_array *a = arg;
    a->nodes[a->n++] = n;
    return true;
}

void dict_sample_distinct(struct dict *d, size_t count,
                          bool (*visit)(struct dict_node *n, void *arg), void *arg)
{
    size_t len = dict_size(d);
    if (count * 3 > len) {
        /* A large share: shuffle the first `count` of all nodes. */
        struct node_array a = {xmalloc(sizeof(struct dict_node *) * (len ? len : 1)), 0};
        dict_foreach(d, collect_node, &a);
        for (size_t i = 0; i < count; i++) {
            size_t j = i + rand_below(a.n - i);
            struct dict_node *tmp = a.nodes[i];
            a.nodes[i] = a.nodes[j];
            a.nodes[j] = tmp;
            if (!visit(a.nodes[i], arg)) break;
        }
        xfree(a.nodes);
        return;
    }
    /* A small share: draw random nodes, skipping ones already drawn. */
    struct ptr_set seen;
    ptr_set_init(&seen, count);
    for (size_t got = 0; got < count;) {
        struct dict_node *n = dict_fair_random_node(d, rand_source);
        if (!ptr_set_add(&seen, n)) continue;
        got++;
        if (!visit(n, arg)) break;
    }
    ptr_set_free(&seen);
}

struct size_sample {
    size_t bytes, seen, limit;
};

static bool sample_node(struct dict_node *n, void *arg)
{
    struct size_sample *s = arg;
    s->bytes += xmalloc_usable_size(n);
    return ++s->seen < s->limit;
}

size_t dict_sampled_bytes(struct dict *d, size_t samples)
{
    size_t total = dict_bucket_count(d) * sizeof(struct dict_node *);
    size_t n = dict_size(d);
    if (n == 0) return total;
    struct size_sample s = {0, 0, samples ? samples : (size_t)-1};
    dict_foreach(d, sample_node, &s);
    return total + (size_t)((double)s.bytes / (double)s.seen * (double)n);
}
