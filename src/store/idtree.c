/* idtree.c — B+tree from stream IDs to pointers; see idtree.h. */
#include "store/idtree.h"

#include <string.h>

#include "util/xmalloc.h"

/* A leaf: its keys, then as many value slots (cap of each). */
struct idtree_leaf {
    struct idtree_leaf *prev, *next;
    uint32_t n, cap;
    struct stream_id keys[];
};

struct idtree_inner {
    uint32_t n;
    struct stream_id keys[IDTREE_CAP]; /* keys[i]: lower bound of child i (i > 0) */
    void *child[IDTREE_CAP];
};

#define IDTREE_MIN_LEAF 4
#define IDTREE_MAX_HEIGHT 24
#define IDTREE_UNDERFULL (IDTREE_CAP / 4)

static inline void **leaf_vals(struct idtree_leaf *l)
{
    return (void **)(l->keys + l->cap);
}

static struct idtree_leaf *leaf_new(struct idtree *t, uint32_t cap)
{
    struct idtree_leaf *l = xmalloc(sizeof *l + cap * (sizeof(struct stream_id) + sizeof(void *)));
    l->prev = l->next = NULL;
    l->n = 0;
    l->cap = cap;
    t->leaves++;
    return l;
}

void idtree_init(struct idtree *t)
{
    memset(t, 0, sizeof *t);
}

static void free_subtree(void *node, unsigned height)
{
    if (height == 0) {
        xfree(node);
        return;
    }
    struct idtree_inner *in = node;
    for (uint32_t i = 0; i < in->n; i++) free_subtree(in->child[i], height - 1);
    xfree(in);
}

void idtree_release(struct idtree *t, void (*free_value)(void *value, void *arg), void *arg)
{
    if (free_value)
        for (struct idtree_leaf *l = t->head; l; l = l->next)
            for (uint32_t i = 0; i < l->n; i++) free_value(leaf_vals(l)[i], arg);
    if (t->root) free_subtree(t->root, t->height);
    idtree_init(t);
}

/* First slot whose key is >= k (n when none). */
static uint32_t lower_bound(const struct stream_id *keys, uint32_t n, const struct stream_id *k)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (stream_id_cmp(&keys[mid], k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The child of an inner node whose range holds k. */
static uint32_t child_for(const struct idtree_inner *in, const struct stream_id *k)
{
    uint32_t lo = 1, hi = in->n; /* first separator > k, among keys[1..n) */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (stream_id_cmp(&in->keys[mid], k) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

struct path {
    struct idtree_inner *node[IDTREE_MAX_HEIGHT];
    uint32_t idx[IDTREE_MAX_HEIGHT];
};

/* Descends to the leaf whose range holds k, recording the way. */
static struct idtree_leaf *descend(const struct idtree *t, const struct stream_id *k,
                                   struct path *p)
{
    void *node = t->root;
    for (unsigned h = 0; h < t->height; h++) {
        struct idtree_inner *in = node;
        uint32_t i = child_for(in, k);
        if (p) {
            p->node[h] = in;
            p->idx[h] = i;
        }
        node = in->child[i];
    }
    return node;
}

void *idtree_find(const struct idtree *t, const struct stream_id *key)
{
    if (!t->root) return NULL;
    struct idtree_leaf *l = descend(t, key, NULL);
    uint32_t i = lower_bound(l->keys, l->n, key);
    return i < l->n && stream_id_cmp(&l->keys[i], key) == 0 ? leaf_vals(l)[i] : NULL;
}

void idtree_set(struct idtree *t, const struct stream_id *key, void *value)
{
    struct idtree_leaf *l = descend(t, key, NULL);
    uint32_t i = lower_bound(l->keys, l->n, key);
    leaf_vals(l)[i] = value;
}

static void leaf_put(struct idtree_leaf *l, uint32_t at, const struct stream_id *k, void *v)
{
    void **vals = leaf_vals(l);
    memmove(&l->keys[at + 1], &l->keys[at], (l->n - at) * sizeof l->keys[0]);
    memmove(&vals[at + 1], &vals[at], (l->n - at) * sizeof vals[0]);
    l->keys[at] = *k;
    vals[at] = v;
    l->n++;
}

/* The only leaf, full below IDTREE_CAP: twice the slots. */
static struct idtree_leaf *root_leaf_grow(struct idtree *t, struct idtree_leaf *l)
{
    uint32_t cap = l->cap * 2 > IDTREE_CAP ? IDTREE_CAP : l->cap * 2;
    struct idtree_leaf *g = leaf_new(t, cap);
    t->leaves--;
    g->n = l->n;
    memcpy(g->keys, l->keys, l->n * sizeof l->keys[0]);
    memcpy(leaf_vals(g), leaf_vals(l), l->n * sizeof(void *));
    xfree(l);
    t->root = t->head = t->tail = g;
    return g;
}

/* Puts (sep, child) into the parent at level h (slot at), splitting up the
 * path as needed. */
static void insert_child(struct idtree *t, struct path *p, int h, uint32_t at,
                         const struct stream_id *sep, void *child)
{
    if (h < 0) { /* the root split: a new root above it */
        struct idtree_inner *root = xmalloc(sizeof *root);
        t->inners++;
        root->n = 2;
        root->child[0] = t->root;
        root->keys[0] = (struct stream_id){0, 0};
        root->keys[1] = *sep;
        root->child[1] = child;
        t->root = root;
        t->height++;
        return;
    }
    struct idtree_inner *in = p->node[h];
    if (in->n < IDTREE_CAP) {
        memmove(&in->keys[at + 1], &in->keys[at], (in->n - at) * sizeof in->keys[0]);
        memmove(&in->child[at + 1], &in->child[at], (in->n - at) * sizeof in->child[0]);
        in->keys[at] = *sep;
        in->child[at] = child;
        in->n++;
        return;
    }
    struct idtree_inner *right = xmalloc(sizeof *right);
    t->inners++;
    /* Appending at the end keeps the left node full (ascending loads). */
    uint32_t mid = at == in->n ? in->n : in->n / 2;
    right->n = in->n - mid;
    memcpy(right->keys, &in->keys[mid], right->n * sizeof in->keys[0]);
    memcpy(right->child, &in->child[mid], right->n * sizeof in->child[0]);
    in->n = mid;
    struct idtree_inner *target = at < mid ? in : right;
    uint32_t tat = at < mid ? at : at - mid;
    memmove(&target->keys[tat + 1], &target->keys[tat], (target->n - tat) * sizeof in->keys[0]);
    memmove(&target->child[tat + 1], &target->child[tat], (target->n - tat) * sizeof in->child[0]);
    target->keys[tat] = *sep;
    target->child[tat] = child;
    target->n++;
    struct stream_id up = right->keys[0];
    insert_child(t, p, h - 1, h > 0 ? p->idx[h - 1] + 1 : 0, &up, right);
}

void *idtree_insert_or_get(struct idtree *t, const struct stream_id *key, void *value,
                           bool *inserted)
{
    *inserted = false;
    if (!t->root) {
        struct idtree_leaf *l = leaf_new(t, IDTREE_MIN_LEAF);
        t->root = t->head = t->tail = l;
    }
    struct idtree_leaf *l;
    struct path p;
    uint32_t at;
    /* Appends go straight to the last leaf while it has room. */
    if (t->tail->n && t->tail->n < t->tail->cap &&
        stream_id_cmp(&t->tail->keys[t->tail->n - 1], key) < 0) {
        l = t->tail;
        at = l->n;
    } else {
        l = descend(t, key, &p);
        at = lower_bound(l->keys, l->n, key);
        if (at < l->n && stream_id_cmp(&l->keys[at], key) == 0) return leaf_vals(l)[at];
        if (l->n == l->cap && l->cap < IDTREE_CAP) l = root_leaf_grow(t, l);
    }
    *inserted = true;
    t->count++;
    if (l->n < l->cap) {
        leaf_put(l, at, key, value);
        return value;
    }
    struct idtree_leaf *right = leaf_new(t, IDTREE_CAP);
    uint32_t mid = at == l->n && !l->next ? l->n : l->n / 2;
    right->n = l->n - mid;
    memcpy(right->keys, &l->keys[mid], right->n * sizeof l->keys[0]);
    memcpy(leaf_vals(right), &leaf_vals(l)[mid], right->n * sizeof(void *));
    l->n = mid;
    right->prev = l;
    right->next = l->next;
    if (l->next)
        l->next->prev = right;
    else
        t->tail = right;
    l->next = right;
    if (at < mid)
        leaf_put(l, at, key, value);
    else
        leaf_put(right, at - mid, key, value);
    struct stream_id sep = right->keys[0];
    int h = (int)t->height - 1;
    insert_child(t, &p, h, h >= 0 ? p.idx[h] + 1 : 0, &sep, right);
    return value;
}

void idtree_insert(struct idtree *t, const struct stream_id *key, void *value)
{
    bool inserted;
    idtree_insert_or_get(t, key, value, &inserted);
}

/* --- removal ------------------------------------------------------------ */

static void inner_drop(struct idtree_inner *in, uint32_t j)
{
    memmove(&in->keys[j], &in->keys[j + 1], (in->n - j - 1) * sizeof in->keys[0]);
    memmove(&in->child[j], &in->child[j + 1], (in->n - j - 1) * sizeof in->child[0]);
    in->n--;
}

static void leaf_unlink(struct idtree *t, struct idtree_leaf *l)
{
    if (l->prev)
        l->prev->next = l->next;
    else
        t->head = l->next;
    if (l->next)
        l->next->prev = l->prev;
    else
        t->tail = l->prev;
    xfree(l);
    t->leaves--;
}

/* Moves all of src's items to the end of dst. */
static void leaf_append_all(struct idtree_leaf *dst, struct idtree_leaf *src)
{
    memcpy(&dst->keys[dst->n], src->keys, src->n * sizeof src->keys[0]);
    memcpy(&leaf_vals(dst)[dst->n], leaf_vals(src), src->n * sizeof(void *));
    dst->n += src->n;
    src->n = 0;
}

/* Child j of the inner node at level h went (emptied, or merged into a
 * sibling): drops it, then fixes that node in turn. */
static void drop_child(struct idtree *t, struct path *p, int h, uint32_t j);

/* The inner node at level h may be underfull: merge it with a sibling. */
static void inner_rebalance(struct idtree *t, struct path *p, int h)
{
    struct idtree_inner *in = p->node[h];
    if (h == 0) {
        /* The root: collapse while it has a single child. */
        while (t->height > 0 && ((struct idtree_inner *)t->root)->n == 1) {
            struct idtree_inner *old = t->root;
            t->root = old->child[0];
            t->height--;
            xfree(old);
            t->inners--;
        }
        return;
    }
    if (in->n >= IDTREE_UNDERFULL) return;
    struct idtree_inner *parent = p->node[h - 1];
    uint32_t i = p->idx[h - 1];
    struct idtree_inner *left, *right;
    uint32_t right_at;
    if (i + 1 < parent->n &&
        in->n + ((struct idtree_inner *)parent->child[i + 1])->n <= IDTREE_CAP) {
        left = in;
        right = parent->child[i + 1];
        right_at = i + 1;
    } else if (i > 0 && ((struct idtree_inner *)parent->child[i - 1])->n + in->n <= IDTREE_CAP) {
        left = parent->child[i - 1];
        right = in;
        right_at = i;
    } else {
        return;
    }
    left->keys[left->n] = parent->keys[right_at];
    left->child[left->n] = right->child[0];
    memcpy(&left->keys[left->n + 1], &right->keys[1], (right->n - 1) * sizeof right->keys[0]);
    memcpy(&left->child[left->n + 1], &right->child[1], (right->n - 1) * sizeof right->child[0]);
    left->n += right->n;
    xfree(right);
    t->inners--;
    drop_child(t, p, h - 1, right_at);
}

static void drop_child(struct idtree *t, struct path *p, int h, uint32_t j)
{
    struct idtree_inner *in = p->node[h];
    inner_drop(in, j);
    if (in->n == 0) { /* (not reached: merges keep a child) */
        if (h == 0) {
            xfree(in);
            t->inners--;
            t->root = NULL;
            t->height = 0;
            return;
        }
        xfree(in);
        t->inners--;
        drop_child(t, p, h - 1, p->idx[h - 1]);
        return;
    }
    inner_rebalance(t, p, h);
}

void *idtree_remove(struct idtree *t, const struct stream_id *key)
{
    if (!t->root) return NULL;
    struct path p;
    struct idtree_leaf *l = descend(t, key, &p);
    uint32_t at = lower_bound(l->keys, l->n, key);
    if (at >= l->n || stream_id_cmp(&l->keys[at], key) != 0) return NULL;
    void **vals = leaf_vals(l);
    void *value = vals[at];
    memmove(&l->keys[at], &l->keys[at + 1], (l->n - at - 1) * sizeof l->keys[0]);
    memmove(&vals[at], &vals[at + 1], (l->n - at - 1) * sizeof vals[0]);
    l->n--;
    t->count--;
    int h = (int)t->height - 1;
    if (h < 0) {
        if (l->n == 0) {
            leaf_unlink(t, l);
            t->root = NULL;
        }
        return value;
    }
    uint32_t i = p.idx[h];
    struct idtree_inner *parent = p.node[h];
    if (l->n == 0) {
        leaf_unlink(t, l);
        drop_child(t, &p, h, i);
    } else if (l->n < IDTREE_UNDERFULL) {
        if (i + 1 < parent->n && l->n + ((struct idtree_leaf *)parent->child[i + 1])->n <= l->cap) {
            struct idtree_leaf *right = parent->child[i + 1];
            leaf_append_all(l, right);
            leaf_unlink(t, right);
            drop_child(t, &p, h, i + 1);
        } else if (i > 0 && ((struct idtree_leaf *)parent->child[i - 1])->n + l->n <=
                                ((struct idtree_leaf *)parent->child[i - 1])->cap) {
            struct idtree_leaf *left = parent->child[i - 1];
            leaf_append_all(left, l);
            leaf_unlink(t, l);
            drop_child(t, &p, h, i);
        }
    }
    return value;
}

/* --- positions ---------------------------------------------------------- */

struct idtree_pos idtree_first(const struct idtree *t)
{
    return (struct idtree_pos){t->head, 0};
}

struct idtree_pos idtree_last(const struct idtree *t)
{
    return (struct idtree_pos){t->tail, t->tail ? t->tail->n - 1 : 0};
}

struct idtree_pos idtree_seek_ge(const struct idtree *t, const struct stream_id *k)
{
    if (!t->root) return (struct idtree_pos){NULL, 0};
    struct idtree_leaf *l = descend(t, k, NULL);
    uint32_t i = lower_bound(l->keys, l->n, k);
    if (i == l->n) return (struct idtree_pos){l->next, 0};
    return (struct idtree_pos){l, i};
}

struct idtree_pos idtree_seek_le(const struct idtree *t, const struct stream_id *k)
{
    if (!t->root) return (struct idtree_pos){NULL, 0};
    struct idtree_leaf *l = descend(t, k, NULL);
    uint32_t i = lower_bound(l->keys, l->n, k);
    if (i < l->n && stream_id_cmp(&l->keys[i], k) == 0) return (struct idtree_pos){l, i};
    if (i == 0) {
        l = l->prev;
        return (struct idtree_pos){l, l ? l->n - 1 : 0};
    }
    return (struct idtree_pos){l, i - 1};
}

void idtree_next(struct idtree_pos *p)
{
    if (++p->slot < p->leaf->n) return;
    p->leaf = p->leaf->next;
    p->slot = 0;
}

void idtree_prev(struct idtree_pos *p)
{
    if (p->slot > 0) {
        p->slot--;
        return;
    }
    p->leaf = p->leaf->prev;
    p->slot = p->leaf ? p->leaf->n - 1 : 0;
}

const struct stream_id *idtree_pos_key(const struct idtree_pos *p)
{
    return &p->leaf->keys[p->slot];
}

void *idtree_pos_value(const struct idtree_pos *p)
{
    return leaf_vals(p->leaf)[p->slot];
}

size_t idtree_memory_usage(const struct idtree *t)
{
    size_t n = t->inners * sizeof(struct idtree_inner);
    for (struct idtree_leaf *l = t->head; l; l = l->next) n += xmalloc_usable_size(l);
    return n;
}

/* --- verification ------------------------------------------------------- */

struct verify_state {
    size_t items, leaves, inners;
    const struct idtree_leaf *expect_leaf; /* leaves must appear in list order */
    const char *err;
};

static void verify_node(const void *node, unsigned height, const struct stream_id *lo,
                        const struct stream_id *hi, struct verify_state *v)
{
    if (v->err) return;
    if (height == 0) {
        const struct idtree_leaf *l = node;
        if (l != v->expect_leaf) {
            v->err = "leaf list out of order";
            return;
        }
        v->expect_leaf = l->next;
        v->leaves++;
        v->items += l->n;
        if (l->n == 0) v->err = "empty leaf";
        for (uint32_t i = 0; i < l->n && !v->err; i++) {
            if (i > 0 && stream_id_cmp(&l->keys[i - 1], &l->keys[i]) >= 0)
                v->err = "leaf keys not increasing";
            if (lo && stream_id_cmp(&l->keys[i], lo) < 0) v->err = "key below its separator";
            if (hi && stream_id_cmp(&l->keys[i], hi) >= 0) v->err = "key above its separator";
        }
        return;
    }
    const struct idtree_inner *in = node;
    v->inners++;
    if (in->n == 0 || in->n > IDTREE_CAP) {
        v->err = "inner node count out of range";
        return;
    }
    for (uint32_t i = 0; i < in->n; i++) {
        const struct stream_id *clo = i == 0 ? lo : &in->keys[i];
        const struct stream_id *chi = i + 1 < in->n ? &in->keys[i + 1] : hi;
        if (i > 1 && stream_id_cmp(&in->keys[i - 1], &in->keys[i]) >= 0)
            v->err = "separators not increasing";
        verify_node(in->child[i], height - 1, clo, chi, v);
    }
}

const char *idtree_verify(const struct idtree *t)
{
    if (!t->root) return t->count || t->head || t->tail ? "empty tree with items" : NULL;
    struct verify_state v = {.expect_leaf = t->head};
    verify_node(t->root, t->height, NULL, NULL, &v);
    if (v.err) return v.err;
    if (v.expect_leaf) return "leaf list longer than the tree";
    if (v.items != t->count) return "count differs from the items";
    if (v.leaves != t->leaves || v.inners != t->inners) return "node counts differ";
    if (t->tail && t->tail->next) return "tail is not the last leaf";
    return NULL;
}
