/* zindex.c — counted B+tree of (score, member) items; see zindex.h. */
#include "store/zindex.h"

#include "util/xmalloc.h"

#define LEAF_MIN (ZINDEX_LEAF_CAP / 2)
#define INNER_MIN (ZINDEX_INNER_CAP / 2)

/* The descent from the root to a leaf slot. */
struct zpath {
    struct zinner *node[ZINDEX_MAX_HEIGHT];
    uint32_t idx[ZINDEX_MAX_HEIGHT];
    struct zleaf *leaf;
    uint32_t pos;
};

static int item_cmp(double s1, const struct zmember *m1, double s2, const struct zmember *m2)
{
    if (s1 < s2) return -1;
    if (s1 > s2) return 1;
    if (m1 == m2) return 0;
    return zmember_bytes_cmp(m1->data, m1->len, m2->data, m2->len);
}

static struct zleaf *leaf_new(struct zindex *z)
{
    struct zleaf *l = xmalloc(sizeof *l);
    l->prev = l->next = NULL;
    l->n = 0;
    z->leaves++;
    return l;
}

static struct zinner *inner_new(struct zindex *z)
{
    struct zinner *in = xmalloc(sizeof *in);
    in->n = 0;
    z->inners++;
    return in;
}

static void leaf_free(struct zindex *z, struct zleaf *l)
{
    xfree(l);
    z->leaves--;
}

static void inner_free(struct zindex *z, struct zinner *in)
{
    xfree(in);
    z->inners--;
}

void zindex_init(struct zindex *z)
{
    *z = (struct zindex){0};
}

static void release_node(struct zindex *z, void *node, unsigned levels_below)
{
    if (levels_below == 0) {
        leaf_free(z, node);
        return;
    }
    struct zinner *in = node;
    for (uint32_t i = 0; i < in->n; i++) release_node(z, in->child[i], levels_below - 1);
    inner_free(z, in);
}

void zindex_release(struct zindex *z)
{
    if (z->root) release_node(z, z->root, z->height);
    zindex_init(z);
}

/* Minimum item of a subtree: the first item of its leftmost leaf. */
static struct zitem subtree_min(void *node, unsigned levels_below)
{
    while (levels_below--) node = ((struct zinner *)node)->child[0];
    return ((struct zleaf *)node)->items[0];
}

static size_t subtree_count(void *node, bool is_leaf)
{
    if (is_leaf) return ((struct zleaf *)node)->n;
    struct zinner *in = node;
    size_t sum = 0;
    for (uint32_t i = 0; i < in->n; i++) sum += in->counts[i];
    return sum;
}

static size_t counts_before(const struct zinner *in, uint32_t idx)
{
    size_t sum = 0;
    for (uint32_t i = 0; i < idx; i++) sum += in->counts[i];
    return sum;
}

/* Child of `in` whose range holds (score, m): the last i with sep[i] <= key. */
static uint32_t inner_route(const struct zinner *in, double score, const struct zmember *m)
{
    uint32_t lo = 1, hi = in->n; /* first i in [lo, hi) with sep[i] > key */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (item_cmp(in->sep[mid].score, in->sep[mid].member, score, m) > 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo - 1;
}

/* First slot of a leaf whose item is >= (score, m). */
static uint32_t leaf_lower_bound(const struct zleaf *l, double score, const struct zmember *m)
{
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (item_cmp(l->items[mid].score, l->items[mid].member, score, m) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void descend_by_key(const struct zindex *z, double score, const struct zmember *m,
                           struct zpath *p)
{
    void *node = z->root;
    for (unsigned l = 0; l < z->height; l++) {
        struct zinner *in = node;
        p->node[l] = in;
        p->idx[l] = inner_route(in, score, m);
        node = in->child[p->idx[l]];
    }
    p->leaf = node;
    p->pos = leaf_lower_bound(p->leaf, score, m);
}

static void descend_by_rank(const struct zindex *z, size_t rank, struct zpath *p)
{
    void *node = z->root;
    for (unsigned l = 0; l < z->height; l++) {
        struct zinner *in = node;
        uint32_t i = 0;
        while (i + 1 < in->n && rank >= in->counts[i]) rank -= in->counts[i++];
        p->node[l] = in;
        p->idx[l] = i;
        node = in->child[i];
    }
    p->leaf = node;
    p->pos = (uint32_t)rank;
}

/* --- insertion ------------------------------------------------------------- */

/* Puts (child, count, sep) at slot j of a non-full inner node. */
static void inner_put(struct zinner *in, uint32_t j, void *child, size_t count, struct zitem sep)
{
    uint32_t tail = in->n - j;
    memmove(&in->child[j + 1], &in->child[j], tail * sizeof in->child[0]);
    memmove(&in->counts[j + 1], &in->counts[j], tail * sizeof in->counts[0]);
    memmove(&in->sep[j + 1], &in->sep[j], tail * sizeof in->sep[0]);
    in->child[j] = child;
    in->counts[j] = count;
    in->sep[j] = sep;
    in->n++;
}

/* Hands a new right sibling `right` of path level `level`'s child up to its
 * parent, splitting parents as needed. `left_count`/`right_count` are the
 * item counts of the two halves. */
static void insert_upward(struct zindex *z, struct zpath *p, int level, void *left,
                          size_t left_count, void *right, size_t right_count, struct zitem sep)
{
    for (;;) {
        if (level < 0) {
            /* The root split: grow a level. */
            struct zinner *root = inner_new(z);
            root->n = 2;
            root->child[0] = left;
            root->counts[0] = left_count;
            root->child[1] = right;
            root->counts[1] = right_count;
            root->sep[1] = sep;
            z->root = root;
            z->height++;
            return;
        }
        struct zinner *in = p->node[level];
        uint32_t j = p->idx[level];
        in->counts[j] = left_count;
        if (in->n < ZINDEX_INNER_CAP) {
            inner_put(in, j + 1, right, right_count, sep);
            return;
        }
        /* Split: gather the CAP+1 children, keep the first half here. */
        void *child[ZINDEX_INNER_CAP + 1];
        size_t counts[ZINDEX_INNER_CAP + 1];
        struct zitem seps[ZINDEX_INNER_CAP + 1];
        uint32_t n = in->n;
        memcpy(child, in->child, (j + 1) * sizeof child[0]);
        memcpy(counts, in->counts, (j + 1) * sizeof counts[0]);
        memcpy(seps, in->sep, (j + 1) * sizeof seps[0]);
        child[j + 1] = right;
        counts[j + 1] = right_count;
        seps[j + 1] = sep;
        memcpy(&child[j + 2], &in->child[j + 1], (n - j - 1) * sizeof child[0]);
        memcpy(&counts[j + 2], &in->counts[j + 1], (n - j - 1) * sizeof counts[0]);
        memcpy(&seps[j + 2], &in->sep[j + 1], (n - j - 1) * sizeof seps[0]);
        uint32_t total = n + 1, keep = total / 2;
        struct zinner *sib = inner_new(z);
        in->n = keep;
        memcpy(in->child, child, keep * sizeof child[0]);
        memcpy(in->counts, counts, keep * sizeof counts[0]);
        memcpy(in->sep, seps, keep * sizeof seps[0]);
        sib->n = total - keep;
        memcpy(sib->child, &child[keep], sib->n * sizeof child[0]);
        memcpy(sib->counts, &counts[keep], sib->n * sizeof counts[0]);
        memcpy(sib->sep, &seps[keep], sib->n * sizeof seps[0]);
        left = in;
        right = sib;
        left_count = subtree_count(in, false);
        right_count = subtree_count(sib, false);
        sep = seps[keep];
        level--;
    }
}

static void leaf_put(struct zleaf *l, uint32_t pos, double score, struct zmember *m)
{
    memmove(&l->items[pos + 1], &l->items[pos], (l->n - pos) * sizeof l->items[0]);
    l->items[pos] = (struct zitem){score, m};
    l->n++;
}

void zindex_insert(struct zindex *z, double score, struct zmember *m)
{
    if (!z->root) {
        struct zleaf *l = leaf_new(z);
        z->root = z->head = z->tail = l;
        z->height = 0;
    }
    struct zpath p;
    descend_by_key(z, score, m, &p);
    for (unsigned l = 0; l < z->height; l++) p.node[l]->counts[p.idx[l]]++;
    z->count++;
    struct zleaf *leaf = p.leaf;
    if (leaf->n < ZINDEX_LEAF_CAP) {
        leaf_put(leaf, p.pos, score, m);
        return;
    }
    struct zleaf *right = leaf_new(z);
    if (p.pos == ZINDEX_LEAF_CAP && !leaf->next) {
        /* Appending past the last item: leave this leaf full, so ascending
         * loads (timestamps, counters) fill leaves completely. */
        leaf_put(right, 0, score, m);
    } else {
        uint32_t keep = (ZINDEX_LEAF_CAP + 1) / 2;
        if (p.pos < keep) {
            right->n = ZINDEX_LEAF_CAP - (keep - 1);
            memcpy(right->items, &leaf->items[keep - 1], right->n * sizeof leaf->items[0]);
            leaf->n = keep - 1;
            leaf_put(leaf, p.pos, score, m);
        } else {
            right->n = ZINDEX_LEAF_CAP - keep;
            memcpy(right->items, &leaf->items[keep], right->n * sizeof leaf->items[0]);
            leaf->n = keep;
            leaf_put(right, p.pos - keep, score, m);
        }
    }
    right->prev = leaf;
    right->next = leaf->next;
    if (leaf->next)
        leaf->next->prev = right;
    else
        z->tail = right;
    leaf->next = right;
    insert_upward(z, &p, (int)z->height - 1, leaf, leaf->n, right, right->n, right->items[0]);
}

/* --- deletion -------------------------------------------------------------- */

/* Moves `k` leading children of inner node `src` to the end of `dst`. */
static void inner_shift_left(struct zinner *dst, struct zinner *src, uint32_t k,
                             unsigned levels_below)
{
    for (uint32_t j = 0; j < k; j++) {
        dst->child[dst->n + j] = src->child[j];
        dst->counts[dst->n + j] = src->counts[j];
        dst->sep[dst->n + j] = j ? src->sep[j] : subtree_min(src->child[0], levels_below);
    }
    dst->n += k;
    src->n -= k;
    memmove(src->child, &src->child[k], src->n * sizeof src->child[0]);
    memmove(src->counts, &src->counts[k], src->n * sizeof src->counts[0]);
    memmove(src->sep, &src->sep[k], src->n * sizeof src->sep[0]);
}

/* Moves `k` trailing children of `src` to the front of `dst`. */
static void inner_shift_right(struct zinner *src, struct zinner *dst, uint32_t k,
                              unsigned levels_below)
{
    dst->sep[0] = subtree_min(dst->child[0], levels_below);
    memmove(&dst->child[k], dst->child, dst->n * sizeof dst->child[0]);
    memmove(&dst->counts[k], dst->counts, dst->n * sizeof dst->counts[0]);
    memmove(&dst->sep[k], dst->sep, dst->n * sizeof dst->sep[0]);
    uint32_t from = src->n - k;
    memcpy(dst->child, &src->child[from], k * sizeof dst->child[0]);
    memcpy(dst->counts, &src->counts[from], k * sizeof dst->counts[0]);
    memcpy(dst->sep, &src->sep[from], k * sizeof dst->sep[0]);
    dst->n += k;
    src->n -= k;
}

/* Removes slot j (child, count, separator) from an inner node. */
static void inner_remove(struct zinner *in, uint32_t j)
{
    uint32_t tail = in->n - j - 1;
    memmove(&in->child[j], &in->child[j + 1], tail * sizeof in->child[0]);
    memmove(&in->counts[j], &in->counts[j + 1], tail * sizeof in->counts[0]);
    memmove(&in->sep[j], &in->sep[j + 1], tail * sizeof in->sep[0]);
    in->n--;
}

/* Child i of `parent` is under-full: merge it with a sibling when both fit
 * in one node, otherwise even out the two. Separators of the parent that
 * the move changes are recomputed from the subtrees. */
static void rebalance(struct zindex *z, struct zinner *parent, uint32_t i, unsigned levels_below)
{
    uint32_t a = i > 0 ? i - 1 : 0, b = a + 1; /* a merges/balances with b */
    bool leaves = levels_below == 0;
    void *left = parent->child[a], *right = parent->child[b];
    uint32_t nl = leaves ? ((struct zleaf *)left)->n : ((struct zinner *)left)->n;
    uint32_t nr = leaves ? ((struct zleaf *)right)->n : ((struct zinner *)right)->n;
    uint32_t cap = leaves ? ZINDEX_LEAF_CAP : ZINDEX_INNER_CAP;
    if (nl + nr <= cap) {
        if (leaves) {
            struct zleaf *L = left, *R = right;
            memcpy(&L->items[L->n], R->items, R->n * sizeof R->items[0]);
            L->n += R->n;
            L->next = R->next;
            if (R->next)
                R->next->prev = L;
            else
                z->tail = L;
            leaf_free(z, R);
        } else {
            inner_shift_left(left, right, nr, levels_below - 1);
            inner_free(z, right);
        }
        parent->counts[a] += parent->counts[b];
        inner_remove(parent, b);
        return;
    }
    uint32_t want_left = (nl + nr) / 2;
    if (leaves) {
        struct zleaf *L = left, *R = right;
        if (nl > want_left) {
            uint32_t k = nl - want_left;
            memmove(&R->items[k], R->items, R->n * sizeof R->items[0]);
            memcpy(R->items, &L->items[want_left], k * sizeof R->items[0]);
            R->n += k;
            L->n -= k;
        } else {
            uint32_t k = want_left - nl;
            memcpy(&L->items[L->n], R->items, k * sizeof R->items[0]);
            L->n += k;
            R->n -= k;
            memmove(R->items, &R->items[k], R->n * sizeof R->items[0]);
        }
    } else if (nl > want_left) {
        inner_shift_right(left, right, nl - want_left, levels_below - 1);
    } else {
        inner_shift_left(left, right, want_left - nl, levels_below - 1);
    }
    parent->counts[a] = subtree_count(left, leaves);
    parent->counts[b] = subtree_count(right, leaves);
    parent->sep[b] = subtree_min(right, levels_below);
    if (a > 0) parent->sep[a] = subtree_min(left, levels_below);
}

/* Removes the item at path p, then restores fill and separators bottom-up. */
static struct zmember *remove_at(struct zindex *z, struct zpath *p)
{
    struct zleaf *leaf = p->leaf;
    struct zmember *m = leaf->items[p->pos].member;
    leaf->n--;
    memmove(&leaf->items[p->pos], &leaf->items[p->pos + 1],
            (leaf->n - p->pos) * sizeof leaf->items[0]);
    z->count--;
    for (unsigned l = 0; l < z->height; l++) p->node[l]->counts[p->idx[l]]--;

    bool min_changed = p->pos == 0; /* of the path node at the current level */
    void *child = leaf;
    for (int l = (int)z->height - 1; l >= 0; l--) {
        struct zinner *parent = p->node[l];
        uint32_t i = p->idx[l];
        unsigned levels_below = z->height - 1 - (unsigned)l;
        uint32_t n = levels_below == 0 ? ((struct zleaf *)child)->n : ((struct zinner *)child)->n;
        uint32_t min = levels_below == 0 ? LEAF_MIN : INNER_MIN;
        if (n < min)
            rebalance(z, parent, i, levels_below);
        else if (min_changed && i > 0)
            parent->sep[i] = subtree_min(child, levels_below);
        min_changed = min_changed && i == 0;
        child = parent;
    }
    while (z->height > 0 && ((struct zinner *)z->root)->n == 1) {
        struct zinner *old = z->root;
        z->root = old->child[0];
        z->height--;
        inner_free(z, old);
    }
    if (z->count == 0) {
        leaf_free(z, z->root);
        z->root = z->head = z->tail = NULL;
        z->height = 0;
    }
    return m;
}

void zindex_delete(struct zindex *z, double score, struct zmember *m)
{
    struct zpath p;
    descend_by_key(z, score, m, &p);
    remove_at(z, &p);
}

struct zmember *zindex_delete_rank(struct zindex *z, size_t rank)
{
    struct zpath p;
    descend_by_rank(z, rank, &p);
    return remove_at(z, &p);
}

void zindex_update(struct zindex *z, double old_score, struct zmember *m, double new_score)
{
    struct zpath p;
    descend_by_key(z, old_score, m, &p);
    struct zleaf *l = p.leaf;
    /* Slot 0 may be a separator elsewhere (it holds a copy of the score), so
     * only other slots are rewritten in place, when the order is kept. */
    if (p.pos > 0 &&
        item_cmp(l->items[p.pos - 1].score, l->items[p.pos - 1].member, new_score, m) < 0) {
        const struct zitem *next = p.pos + 1 < l->n ? &l->items[p.pos + 1]
                                   : l->next        ? &l->next->items[0]
                                                    : NULL;
        if (!next || item_cmp(new_score, m, next->score, next->member) < 0) {
            l->items[p.pos].score = new_score;
            return;
        }
    }
    remove_at(z, &p);
    zindex_insert(z, new_score, m);
}

/* --- queries ----------------------------------------------------------------- */

size_t zindex_rank(const struct zindex *z, double score, const struct zmember *m)
{
    if (!z->root) return 0;
    size_t rank = 0;
    const void *node = z->root;
    for (unsigned l = 0; l < z->height; l++) {
        const struct zinner *in = node;
        uint32_t i = inner_route(in, score, m);
        rank += counts_before(in, i);
        node = in->child[i];
    }
    return rank + leaf_lower_bound(node, score, m);
}

bool zindex_seek(const struct zindex *z, size_t rank, struct zindex_pos *out)
{
    if (rank >= z->count) return false;
    struct zpath p;
    descend_by_rank(z, rank, &p);
    out->leaf = p.leaf;
    out->pos = p.pos;
    return true;
}

size_t zindex_first_where(const struct zindex *z, zindex_pred_fn *pred, const void *arg)
{
    if (!z->root) return 0;
    size_t rank = 0;
    const void *node = z->root;
    for (unsigned l = 0; l < z->height; l++) {
        const struct zinner *in = node;
        uint32_t lo = 1, hi = in->n; /* first separator for which pred holds */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (pred(&in->sep[mid], arg))
                hi = mid;
            else
                lo = mid + 1;
        }
        rank += counts_before(in, lo - 1);
        node = in->child[lo - 1];
    }
    const struct zleaf *leaf = node;
    uint32_t lo = 0, hi = leaf->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (pred(&leaf->items[mid], arg))
            hi = mid;
        else
            lo = mid + 1;
    }
    return rank + lo;
}

size_t zindex_memory_usage(const struct zindex *z)
{
    size_t leaf_size = 0, inner_size = 0;
    if (z->head) leaf_size = xmalloc_usable_size(z->head);
    if (z->height) inner_size = xmalloc_usable_size(z->root);
    return z->leaves * leaf_size + z->inners * inner_size;
}

/* --- verification (tests) --------------------------------------------------- */

struct verify_state {
    const char *err;
    const struct zleaf *prev_leaf;
    const struct zitem *prev_item;
    size_t items, leaves, inners;
};

static size_t verify_node(const struct zindex *z, const void *node, unsigned levels_below,
                          bool is_root, struct verify_state *st)
{
    if (st->err) return 0;
    if (levels_below == 0) {
        const struct zleaf *l = node;
        st->leaves++;
        if (l->n == 0 && !(is_root && z->count == 0)) st->err = "empty leaf";
        if (l->prev != st->prev_leaf) st->err = "leaf prev link";
        if (st->prev_leaf && st->prev_leaf->next != l) st->err = "leaf next link";
        for (uint32_t i = 0; i < l->n && !st->err; i++) {
            const struct zitem *it = &l->items[i];
            if (it->member->score != it->score && !(it->score == 0 && it->member->score == 0))
                st->err = "item score differs from member score";
            if (st->prev_item &&
                item_cmp(st->prev_item->score, st->prev_item->member, it->score, it->member) >= 0)
                st->err = "items out of order";
            st->prev_item = it;
        }
        st->prev_leaf = l;
        st->items += l->n;
        return l->n;
    }
    const struct zinner *in = node;
    st->inners++;
    if (in->n < (is_root ? 2u : 1u)) st->err = "inner node too small";
    size_t total = 0;
    for (uint32_t i = 0; i < in->n && !st->err; i++) {
        if (i > 0) {
            struct zitem min = subtree_min(in->child[i], levels_below - 1);
            if (min.member != in->sep[i].member || min.score != in->sep[i].score)
                st->err = "separator is not the subtree minimum";
        }
        size_t c = verify_node(z, in->child[i], levels_below - 1, false, st);
        if (c != in->counts[i]) st->err = "child count mismatch";
        total += c;
    }
    return total;
}

const char *zindex_verify(const struct zindex *z)
{
    if (!z->root) return z->count == 0 && !z->head && !z->tail ? NULL : "empty root, nonzero state";
    struct verify_state st = {0};
    verify_node(z, z->root, z->height, true, &st);
    if (st.err) return st.err;
    if (st.items != z->count) return "total count mismatch";
    if (st.prev_leaf != z->tail) return "tail pointer";
    if (st.leaves != z->leaves || st.inners != z->inners) return "node accounting";
    return NULL;
}
