/* list.c — the list type as a chain of packed nodes; see list.h. */
#include "store/list.h"
#include "core/config.h"

#include <limits.h>
#include <lzf.h>
#include <stdlib.h>
#include <string.h>

#include "util/numparse.h"
#include "util/xmalloc.h"

#define LIST_PACKED_THRESHOLD_DEFAULT (1ULL << 30)

struct list_limits list_limits = {
    .fill = -2, .compress_depth = 0, .packed_threshold = LIST_PACKED_THRESHOLD_DEFAULT};

bool list_set_packed_threshold(unsigned long long size)
{
    if (size == 0) size = LIST_PACKED_THRESHOLD_DEFAULT;
    if (size > (1ULL << 32) - (1ULL << 20)) return false;
    list_limits.packed_threshold = size;
    return true;
}

/* Positive fills are also capped at this many bytes (Redis's SIZE_SAFETY_LIMIT). */
#define LIST_SAFETY_BYTES 8192
/* Give memory back when a node has more slack than this after a delete. */
#define LIST_SHRINK_SLACK 256

/* Bytes of entries a node may hold: the cap counts the node's header, so a
 * full node is exactly one allocator size class (8 KB, not 8 KB + 32). */
static size_t node_limit_bytes(void)
{
    static const size_t caps[] = {4096, 8192, 16384, 32768, 65536};
    long long fill = list_limits.fill;
    size_t cap = fill >= 0 ? LIST_SAFETY_BYTES : caps[(fill < -5 ? 5 : -fill) - 1];
    return cap - sizeof(struct list_node);
}

/* Distance between marks of the tail index: the node cap spread over them. */
static size_t mark_spacing(void)
{
    size_t s = node_limit_bytes() / LIST_MARKS;
    return s < 128 ? 128 : s;
}

/* --- entries ------------------------------------------------------------- */

static uint32_t le_get(const unsigned char *p, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void le_put(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static size_t entry_size(const unsigned char *p)
{
    unsigned char h = p[0];
    if (h < 0x80) return 1;
    if (h < 0xC0) return 1 + (h & 0x3f);
    if (h < 0xE0) return 2;
    if (h < 0xF0) return 3;
    if (h < 0xF8) return 4;
    if (h == 0xF8) return 9;
    if (h == 0xF9) return 3 + le_get(p + 1, 2);
    return 5 + (size_t)le_get(p + 1, 4);
}

/* Header of the entry for s: integers are whole in the header (*payload 0),
 * strings are followed by their `len` bytes (*payload = len). */
static size_t entry_header(unsigned char *dst, const char *s, size_t len, size_t *payload)
{
    long long v;
    *payload = 0;
    if (len > 0 && len <= 20 && num_parse_ll(s, len, &v)) {
        uint64_t u = (uint64_t)v;
        if (v >= 0 && v < 128) {
            dst[0] = (unsigned char)v;
            return 1;
        }
        if (v >= -4096 && v < 4096) {
            dst[0] = (unsigned char)(0xC0 | ((u >> 8) & 0x1f));
            dst[1] = (unsigned char)u;
            return 2;
        }
        if (v >= -(1LL << 19) && v < (1LL << 19)) {
            dst[0] = (unsigned char)(0xE0 | ((u >> 16) & 0x0f));
            le_put(dst + 1, u & 0xffff, 2);
            return 3;
        }
        if (v >= -(1LL << 26) && v < (1LL << 26)) {
            dst[0] = (unsigned char)(0xF0 | ((u >> 24) & 0x07));
            le_put(dst + 1, u & 0xffffff, 3);
            return 4;
        }
        dst[0] = 0xF8;
        le_put(dst + 1, u, 8);
        return 9;
    }
    *payload = len;
    if (len < 64) {
        dst[0] = (unsigned char)(0x80 | len);
        return 1;
    }
    if (len <= 0xffff) {
        dst[0] = 0xF9;
        le_put(dst + 1, len, 2);
        return 3;
    }
    dst[0] = 0xFA;
    le_put(dst + 1, len, 4);
    return 5;
}

size_t list_entry_encode(unsigned char *dst, const char *s, size_t len)
{
    size_t payload;
    size_t h = entry_header(dst, s, len, &payload);
    memcpy(dst + h, s, payload);
    return h + payload;
}

static long long sign_extend(uint64_t u, int bits)
{
    uint64_t m = 1ULL << (bits - 1);
    return (long long)((u ^ m) - m);
}

size_t list_entry_decode(const unsigned char *p, struct strview *out)
{
    unsigned char h = p[0];
    long long v;
    size_t n;
    if (h < 0x80) {
        v = h, n = 1;
    } else if (h < 0xC0) {
        out->ptr = (const char *)p + 1;
        out->len = h & 0x3f;
        return 1 + out->len;
    } else if (h < 0xE0) {
        v = sign_extend((uint64_t)(h & 0x1f) << 8 | p[1], 13), n = 2;
    } else if (h < 0xF0) {
        v = sign_extend((uint64_t)(h & 0x0f) << 16 | le_get(p + 1, 2), 20), n = 3;
    } else if (h < 0xF8) {
        v = sign_extend((uint64_t)(h & 0x07) << 24 | le_get(p + 1, 3), 27), n = 4;
    } else if (h == 0xF8) {
        v = (long long)((uint64_t)le_get(p + 1, 4) | (uint64_t)le_get(p + 5, 4) << 32), n = 9;
    } else {
        int w = h == 0xF9 ? 2 : 4;
        out->ptr = (const char *)p + 1 + w;
        out->len = le_get(p + 1, w);
        return 1 + (size_t)w + out->len;
    }
    out->len = num_format_ll(out->tmp, v);
    out->ptr = out->tmp;
    return n;
}

static bool entry_equals(const unsigned char *p, const char *s, size_t len)
{
    struct strview v;
    list_entry_decode(p, &v);
    return v.len == len && memcmp(v.ptr, s, len) == 0;
}

/* --- compression state ---------------------------------------------------- */

/* Redis's quicklist thresholds: smaller nodes, or smaller savings, stay plain. */
#define LIST_MIN_COMPRESS_BYTES 48
#define LIST_MIN_COMPRESS_IMPROVE 8

/* The plain bytes of the compressed node read last (reads never change a
 * node). Forgotten when that node is freed or decompressed in place. */
static struct {
    const struct list_node *node;
    unsigned char *buf;
    size_t cap;
} plain_copy;

/* Nodes a write decompressed or created, compressed again (when interior)
 * by list_settle() at the end of the write. Best effort: a node left plain
 * only costs memory. */
#define LIST_TOUCHED_MAX 8
static struct touched_node {
    struct list *l;
    struct list_node *n;
} touched[LIST_TOUCHED_MAX];
static int ntouched;

static void touch(struct list *l, struct list_node *n)
{
    if (l->compress && ntouched < LIST_TOUCHED_MAX)
        touched[ntouched++] = (struct touched_node){l, n};
}

/* n is gone or moved to m (NULL: freed): the caches follow. */
static void node_moved(const struct list_node *n, struct list_node *m)
{
    if (plain_copy.node == n) plain_copy.node = NULL;
    for (int i = 0; i < ntouched; i++)
        if (touched[i].n == n) touched[i].n = m;
}

/* --- nodes --------------------------------------------------------------- */

static struct list_node *node_new(size_t cap)
{
    struct list_node *n = xmalloc(sizeof *n + cap);
    n->prev = n->next = NULL;
    n->used = n->count = n->zlen = 0;
    n->cap = (uint32_t)(xmalloc_usable_size(n) - sizeof *n);
    return n;
}

/* m is n reallocated: repoints its neighbours (and the list's ends). */
static void node_repoint(struct list *l, struct list_node *n, struct list_node *m)
{
    if (m == n) return;
    node_moved(n, m);
    if (m->prev)
        m->prev->next = m;
    else
        l->head = m;
    if (m->next)
        m->next->prev = m;
    else
        l->tail = m;
}

/* Reallocates n and repoints its neighbours (and the list's ends) at it. */
static struct list_node *node_resize(struct list *l, struct list_node *n, size_t cap)
{
    struct list_node *m = xrealloc(n, sizeof *m + cap);
    m->cap = (uint32_t)(xmalloc_usable_size(m) - sizeof *m);
    node_repoint(l, n, m);
    return m;
}

/* The entries of n: its data, or for a compressed node a plain copy that
 * stays valid until the next write to any list. */
static const unsigned char *node_bytes(const struct list_node *n)
{
    if (!n->zlen) return n->data;
    if (plain_copy.node != n) {
        if (plain_copy.cap < n->used) {
            plain_copy.buf = xrealloc(plain_copy.buf, n->used);
            plain_copy.cap = n->used;
        }
        if (lzf_decompress(n->data, n->zlen, plain_copy.buf, n->used) != n->used) abort();
        plain_copy.node = n;
    }
    return plain_copy.buf;
}

/* Decompresses n in place, before a write; returns it (moved perhaps). */
static struct list_node *node_plain(struct list *l, struct list_node *n)
{
    if (!n->zlen) return n;
    const unsigned char *plain = node_bytes(n);
    struct list_node *m = xmalloc(sizeof *m + n->used);
    memcpy(m, n, sizeof *m);
    memcpy(m->data, plain, n->used);
    m->zlen = 0;
    m->cap = (uint32_t)(xmalloc_usable_size(m) - sizeof *m);
    node_repoint(l, n, m);
    xfree(n);
    touch(l, m);
    return m;
}

/* Compresses a plain node in place when that pays (see the thresholds). */
static void node_compress(struct list *l, struct list_node *n)
{
    static unsigned char *out;
    static size_t out_cap;
    if (n->zlen || n->used < LIST_MIN_COMPRESS_BYTES) return;
    if (out_cap < n->used) {
        out = xrealloc(out, n->used);
        out_cap = n->used;
    }
    unsigned z = lzf_compress(n->data, n->used, out, n->used - LIST_MIN_COMPRESS_IMPROVE - 1);
    if (z == 0) return;
    memcpy(n->data, out, z);
    n->zlen = z;
    node_resize(l, n, z);
}

/* Whether n is at least `compress` nodes away from both ends. */
static bool node_interior(const struct list *l, const struct list_node *n)
{
    const struct list_node *a = n, *b = n;
    for (uint32_t i = 0; i < l->compress; i++) {
        a = a->prev, b = b->next;
        if (!a || !b) return false;
    }
    return true;
}

/* The end of a write: the nodes it touched are compressed again when
 * interior (`ends`: and the nodes near the ends are put right — the
 * `compress` nodes at each end plain, the next ones compressed). With
 * `ends` false no node but the touched ones moves. */
static void settle(struct list *l, bool ends)
{
    if (!l->compress) return;
    for (int i = 0; i < ntouched; i++)
        if (touched[i].l == l && touched[i].n && node_interior(l, touched[i].n))
            node_compress(l, touched[i].n);
    ntouched = 0;
    if (!ends) return;
    struct list_node *h = l->head, *t;
    for (uint32_t i = 0; i < l->compress && h; i++) h = node_plain(l, h)->next;
    t = l->tail; /* (this may move nodes h walked past: h is found again below) */
    for (uint32_t i = 0; i < l->compress && t; i++) t = node_plain(l, t)->prev;
    h = l->head;
    for (uint32_t i = 0; i < l->compress && h; i++) h = h->next;
    ntouched = 0;
    if (h && node_interior(l, h)) node_compress(l, h);
    if (t && t != h && node_interior(l, t)) node_compress(l, t);
}

static void list_settle(struct list *l)
{
    settle(l, true);
}

static bool node_allows(const struct list_node *n, size_t entry_bytes)
{
    if (n->count == 0) return true;
    /* A large element, or a node holding one, stays alone. */
    if (entry_bytes >= list_limits.packed_threshold) return false;
    if (n->count == 1 && n->used >= list_limits.packed_threshold) return false;
    if (list_limits.fill >= 0 && n->count >= (unsigned long long)list_limits.fill) return false;
    return n->used + entry_bytes <= node_limit_bytes();
}

static void tail_forget(struct list *l)
{
    l->tail_known = false;
    l->nmarks = 0;
}

/* Keeps the tail index right across an edit of the tail node that replaced
 * bytes [a, b) (of a node `old_used` long) with c bytes: entry starts before
 * the edit stay, those after it shift; the index is dropped when the last
 * entry itself was touched. */
static void tail_note_edit(struct list *l, size_t a, size_t b, size_t c, size_t old_used)
{
    if (!l->tail_known) return;
    long long delta = (long long)c - (long long)(b - a);
    if (a == old_used || (l->tail_last >= a && l->tail_last < b)) {
        tail_forget(l);
        return;
    }
    if (l->tail_last >= b) l->tail_last = (uint32_t)((long long)l->tail_last + delta);
    uint8_t k = 0;
    for (uint8_t i = 0; i < l->nmarks; i++) {
        size_t m = l->marks[i];
        if (a < b && m > a && m < b) continue;
        if (m >= b) m = (size_t)((long long)m + delta);
        l->marks[k++] = (uint32_t)m;
    }
    l->nmarks = k;
}

/* Replaces bytes [a, b) of n with hdr then payload; returns n (moved
 * perhaps). The caller adjusts n->count. */
static struct list_node *node_splice(struct list *l, struct list_node *n, size_t a, size_t b,
                                     const unsigned char *hdr, size_t hlen, const char *payload,
                                     size_t plen)
{
    size_t c = hlen + plen, old = b - a, old_used = n->used;
    if (c > old && n->used + (c - old) > n->cap) n = node_resize(l, n, n->used + (c - old));
    memmove(n->data + a + c, n->data + b, n->used - b);
    if (hlen) memcpy(n->data + a, hdr, hlen);
    if (plen) memcpy(n->data + a + hlen, payload, plen);
    n->used = (uint32_t)(n->used - old + c);
    if (n == l->tail) tail_note_edit(l, a, b, c, old_used);
    if (n->cap - n->used > LIST_SHRINK_SLACK && n->cap - n->used > n->used / 2)
        n = node_resize(l, n, n->used);
    return n;
}

static void node_link_after(struct list *l, struct list_node *at, struct list_node *n)
{
    n->prev = at;
    n->next = at ? at->next : l->head;
    if (n->next)
        n->next->prev = n;
    else
        l->tail = n;
    if (at)
        at->next = n;
    else
        l->head = n;
    l->nodes++;
    if (l->tail == n) { /* an empty new tail: its index is trivially known */
        tail_forget(l);
        l->tail_known = n->count == 0;
        l->tail_last = 0;
    }
}

static void node_unlink_free(struct list *l, struct list_node *n)
{
    if (n == l->tail) tail_forget(l);
    if (n->prev)
        n->prev->next = n->next;
    else
        l->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        l->tail = n->prev;
    l->nodes--;
    node_moved(n, NULL);
    xfree(n);
}

/* Rebuilds the tail index with one scan of the tail node. */
static void tail_rebuild(struct list *l)
{
    struct list_node *n = l->tail;
    const unsigned char *d = node_bytes(n);
    size_t spacing = mark_spacing(), last_mark = 0, last = 0;
    l->nmarks = 0;
    for (size_t off = 0; off < n->used; off += entry_size(d + off)) {
        if (off - last_mark >= spacing && l->nmarks < LIST_MARKS)
            l->marks[l->nmarks++] = (uint32_t)(last_mark = off);
        last = off;
    }
    l->tail_last = (uint32_t)last;
    l->tail_known = true;
}

/* --- public operations --------------------------------------------------- */

struct list *list_new(void)
{
    struct list *l = xmalloc(sizeof *l);
    memset(l, 0, sizeof *l);
    long long depth = list_limits.compress_depth;
    l->compress = depth < 0 ? 0 : depth > UINT32_MAX ? UINT32_MAX : (uint32_t)depth;
    return l;
}

struct list *list_dup(const struct list *l)
{
    struct list *copy = list_new();
    copy->compress = l->compress;
    for (const struct list_node *n = l->head; n; n = n->next) {
        size_t bytes = n->zlen ? n->zlen : n->used;
        struct list_node *m = node_new(bytes);
        memcpy(m->data, n->data, bytes);
        m->used = n->used;
        m->count = n->count;
        m->zlen = n->zlen;
        node_link_after(copy, copy->tail, m);
    }
    copy->len = l->len;
    return copy;
}

void list_free(struct list *l)
{
    struct list_node *n = l->head;
    while (n) {
        struct list_node *next = n->next;
        node_moved(n, NULL);
        xfree(n);
        n = next;
    }
    for (int i = 0; i < ntouched; i++)
        if (touched[i].l == l) touched[i].n = NULL;
    xfree(l);
}

/* Inserts an entry at offset off of n (a plain node; off a position
 * between entries), splitting or adding nodes when n is full. */
static void insert_at(struct list *l, struct list_node *n, size_t off, const char *s, size_t len)
{
    unsigned char hdr[LIST_ENTRY_HEADER_MAX];
    size_t plen, hlen = entry_header(hdr, s, len, &plen);
    size_t sz = hlen + plen;
    l->len++;
    if (!node_allows(n, sz)) {
        struct list_node *target;
        if (off == 0 && n->prev && node_allows(n->prev, sz)) {
            target = node_plain(l, n->prev), off = target->used;
        } else if (off == n->used && n->next && node_allows(n->next, sz)) {
            target = node_plain(l, n->next), off = 0;
        } else {
            if (off > 0 && off < n->used) { /* split: the entries from off move on */
                struct list_node *right = node_new(n->used - off);
                memcpy(right->data, n->data + off, n->used - off);
                right->used = n->used - (uint32_t)off;
                for (size_t o = 0; o < right->used; o += entry_size(right->data + o))
                    right->count++;
                node_link_after(l, n, right);
                touch(l, right);
                n->count -= right->count;
                n = node_splice(l, n, off, n->used, hdr, 0, NULL, 0);
                if (node_allows(n, sz)) {
                    n = node_splice(l, n, n->used, n->used, hdr, hlen, s, plen);
                    n->count++;
                    return;
                }
                if (node_allows(right, sz)) {
                    right = node_splice(l, right, 0, 0, hdr, hlen, s, plen);
                    right->count++;
                    return;
                }
            }
            target = node_new(sz);
            node_link_after(l, off == 0 ? n->prev : n, target);
            touch(l, target);
            off = 0;
        }
        n = target;
    }
    bool append_to_tail = n == l->tail && off == n->used && l->tail_known;
    size_t at = off;
    n = node_splice(l, n, off, off, hdr, hlen, s, plen);
    n->count++;
    if (append_to_tail) { /* node_splice forgot the index: the new last entry is known */
        size_t prev_mark = l->nmarks ? l->marks[l->nmarks - 1] : 0;
        l->tail_known = true;
        if (n->count > 1 && at - prev_mark >= mark_spacing() && l->nmarks < LIST_MARKS)
            l->marks[l->nmarks++] = (uint32_t)at;
        l->tail_last = (uint32_t)at;
    }
}

void list_push(struct list *l, enum list_end where, const char *s, size_t len)
{
    if (!l->head) {
        struct list_node *n = node_new(len + LIST_ENTRY_HEADER_MAX);
        node_link_after(l, NULL, n);
    }
    if (where == LIST_HEAD) {
        insert_at(l, node_plain(l, l->head), 0, s, len);
    } else {
        struct list_node *tail = node_plain(l, l->tail);
        insert_at(l, tail, tail->used, s, len);
    }
    list_settle(l);
}

void list_peek(struct list *l, enum list_end where, struct strview *out)
{
    if (where == LIST_HEAD) {
        list_entry_decode(node_bytes(l->head), out);
        return;
    }
    if (!l->tail_known) tail_rebuild(l);
    list_entry_decode(node_bytes(l->tail) + l->tail_last, out);
}

/* Removes entries [a, b) (k of them) from n, freeing it when emptied. */
static void node_delete(struct list *l, struct list_node *n, size_t a, size_t b, size_t k)
{
    l->len -= k;
    if (k == n->count) {
        node_unlink_free(l, n);
        return;
    }
    n = node_splice(l, n, a, b, NULL, 0, NULL, 0);
    n->count -= (uint32_t)k;
}

void list_pop(struct list *l, enum list_end where)
{
    if (where == LIST_HEAD) {
        struct list_node *n = node_plain(l, l->head);
        node_delete(l, n, 0, entry_size(n->data), 1);
        list_settle(l);
        return;
    }
    struct list_node *n = node_plain(l, l->tail);
    if (n->count == 1) {
        node_delete(l, n, 0, n->used, 1);
        list_settle(l);
        return;
    }
    if (!l->tail_known) tail_rebuild(l);
    size_t last = l->tail_last;
    while (l->nmarks && l->marks[l->nmarks - 1] >= last) l->nmarks--;
    size_t prev = l->nmarks ? l->marks[l->nmarks - 1] : 0;
    for (size_t off = prev; off < last; off += entry_size(n->data + off)) prev = off;
    l->tail_known = false; /* node_splice must not adjust it: it is set below */
    node_delete(l, n, last, n->used, 1);
    l->tail_known = true;
    l->tail_last = (uint32_t)prev;
    list_settle(l);
}

/* The node holding index (in range) and the entry's offset in it. */
static struct list_node *locate(struct list *l, size_t index, size_t *off)
{
    struct list_node *n;
    if (index < l->len / 2) {
        n = l->head;
        while (index >= n->count) index -= n->count, n = n->next;
    } else {
        size_t back = l->len - 1 - index;
        n = l->tail;
        while (back >= n->count) back -= n->count, n = n->prev;
        index = n->count - 1 - back;
        if (n == l->tail && back == 0) {
            if (!l->tail_known) tail_rebuild(l);
            *off = l->tail_last;
            return n;
        }
    }
    const unsigned char *d = node_bytes(n);
    size_t o = 0;
    while (index--) o += entry_size(d + o);
    *off = o;
    return n;
}

static bool normalize_index(const struct list *l, long long index, size_t *out)
{
    if (index < 0) index += (long long)l->len;
    if (index < 0 || (size_t)index >= l->len) return false;
    *out = (size_t)index;
    return true;
}

bool list_index(struct list *l, long long index, struct strview *out)
{
    size_t i, off;
    if (!normalize_index(l, index, &i)) return false;
    struct list_node *n = locate(l, i, &off);
    list_entry_decode(node_bytes(n) + off, out);
    return true;
}

void list_set(struct list *l, long long index, const char *s, size_t len)
{
    size_t i = 0, off;
    if (!normalize_index(l, index, &i)) return;
    struct list_node *n = node_plain(l, locate(l, i, &off));
    unsigned char hdr[LIST_ENTRY_HEADER_MAX];
    size_t plen, hlen = entry_header(hdr, s, len, &plen);
    node_splice(l, n, off, off + entry_size(n->data + off), hdr, hlen, s, plen);
    list_settle(l);
}

void list_delete_range(struct list *l, size_t start, size_t count)
{
    size_t off;
    struct list_node *n = locate(l, start, &off);
    while (count > 0) {
        struct list_node *next = n->next;
        size_t end = off, k = 0;
        const unsigned char *d = node_bytes(n);
        while (end < n->used && k < count) end += entry_size(d + end), k++;
        if (k < n->count) n = node_plain(l, n); /* a node deleted whole stays as it is */
        node_delete(l, n, off, end, k);
        settle(l, false);
        count -= k;
        n = next;
        off = 0;
    }
    list_settle(l);
}

/* --- iteration ------------------------------------------------------------ */

static void iter_load_offsets(struct list_iter *it)
{
    struct list_node *n = it->node;
    if (it->offsets_cap < n->count) {
        it->offsets = xrealloc(it->offsets, n->count * sizeof *it->offsets);
        it->offsets_cap = n->count;
    }
    const unsigned char *d = node_bytes(n);
    size_t i = 0;
    for (size_t o = 0; o < n->used; o += entry_size(d + o)) it->offsets[i++] = (uint32_t)o;
}

void list_iter_init(struct list_iter *it, struct list *l, size_t index, bool reverse)
{
    memset(it, 0, sizeof *it);
    it->l = l;
    it->reverse = reverse;
    it->node = locate(l, index, &it->off);
    if (reverse) {
        iter_load_offsets(it);
        size_t i = 0;
        while (it->offsets[i] != it->off) i++;
        it->pos = i + 1;
    }
}

bool list_iter_next(struct list_iter *it, struct strview *out)
{
    if (!it->node) return false;
    if (!it->reverse) {
        it->off += list_entry_decode(node_bytes(it->node) + it->off, out);
        if (it->off >= it->node->used) it->node = it->node->next, it->off = 0;
        return true;
    }
    if (it->pos == 0) { /* a new node: loaded only now, so *out of the last one stays valid */
        iter_load_offsets(it);
        it->pos = it->node->count;
    }
    list_entry_decode(node_bytes(it->node) + it->offsets[--it->pos], out);
    if (it->pos == 0) it->node = it->node->prev;
    return true;
}

void list_iter_release(struct list_iter *it)
{
    xfree(it->offsets);
    it->offsets = NULL;
}

bool list_insert_at_pivot(struct list *l, const char *pivot, size_t pivot_len, bool after,
                          const char *s, size_t len)
{
    for (struct list_node *n = l->head; n; n = n->next) {
        const unsigned char *d = node_bytes(n);
        for (size_t off = 0; off < n->used; off += entry_size(d + off)) {
            if (!entry_equals(d + off, pivot, pivot_len)) continue;
            size_t at = after ? off + entry_size(d + off) : off;
            insert_at(l, node_plain(l, n), at, s, len);
            list_settle(l);
            return true;
        }
    }
    return false;
}

size_t list_remove_value(struct list *l, const char *s, size_t len, size_t limit, bool from_tail)
{
    size_t removed = 0;
    if (!from_tail) {
        for (struct list_node *n = l->head; n && (!limit || removed < limit);) {
            struct list_node *next = n->next;
            size_t off = 0;
            while (off < n->used && (!limit || removed < limit)) {
                const unsigned char *d = node_bytes(n);
                size_t sz = entry_size(d + off);
                if (!entry_equals(d + off, s, len)) {
                    off += sz;
                    continue;
                }
                removed++;
                if (n->count == 1) {
                    node_delete(l, n, 0, n->used, 1);
                    break;
                }
                l->len--;
                n = node_splice(l, node_plain(l, n), off, off + sz, NULL, 0, NULL, 0);
                n->count--;
            }
            settle(l, false);
            n = next;
        }
        list_settle(l);
        return removed;
    }
    struct list_iter it = {0};
    for (struct list_node *n = l->tail; n && (!limit || removed < limit);) {
        struct list_node *prev = n->prev;
        it.node = n;
        iter_load_offsets(&it);
        for (size_t i = n->count; i-- > 0 && (!limit || removed < limit);) {
            size_t off = it.offsets[i];
            const unsigned char *d = node_bytes(n);
            if (!entry_equals(d + off, s, len)) continue;
            removed++;
            if (n->count == 1) {
                node_delete(l, n, 0, n->used, 1);
                break;
            }
            l->len--;
            n = node_splice(l, node_plain(l, n), off, off + entry_size(d + off), NULL, 0, NULL, 0);
            n->count--;
        }
        settle(l, false);
        n = prev;
    }
    list_iter_release(&it);
    list_settle(l);
    return removed;
}

size_t list_compressed_nodes(const struct list *l)
{
    size_t k = 0;
    for (const struct list_node *n = l->head; n; n = n->next) k += n->zlen != 0;
    return k;
}

size_t list_memory_usage(const struct list *l)
{
    size_t bytes = xmalloc_usable_size((void *)l);
    for (const struct list_node *n = l->head; n; n = n->next)
        bytes += xmalloc_usable_size((void *)n);
    return bytes;
}

const char *list_verify(const struct list *l)
{
    size_t total = 0, nodes = 0;
    const struct list_node *prev = NULL;
    for (const struct list_node *n = l->head; n; prev = n, n = n->next) {
        if (n->prev != prev) return "broken prev link";
        if (n->count == 0) return "empty node";
        if ((n->zlen ? n->zlen : n->used) > n->cap) return "used past cap";
        if (n->zlen && (!node_interior(l, n) || !l->compress))
            return "a node near an end is compressed";
        const unsigned char *d = node_bytes(n);
        size_t count = 0, off = 0, last = 0;
        while (off < n->used) last = off, off += entry_size(d + off), count++;
        if (off != n->used) return "entries overrun the node";
        if (count != n->count) return "node count wrong";
        if (n == l->tail && l->tail_known) {
            if (l->tail_last != last) return "tail index: wrong last entry";
            for (uint8_t i = 0; i < l->nmarks; i++) {
                if (i && l->marks[i] <= l->marks[i - 1]) return "tail index: marks unsorted";
                size_t o = 0;
                while (o < l->marks[i]) o += entry_size(d + o);
                if (o != l->marks[i]) return "tail index: mark not at an entry";
            }
        }
        total += count;
        nodes++;
    }
    if (prev != l->tail) return "tail pointer wrong";
    if (total != l->len) return "length wrong";
    if (nodes != l->nodes) return "node count of list wrong";
    return NULL;
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param list_params[] = {
    {.name = "list-max-listpack-size",
     .alias = "list-max-ziplist-size",
     .kind = CFG_INT,
     .value = &list_limits.fill,
     .min = INT_MIN,
     .max = INT_MAX,
     .value_name = "N",
     .help =
         "list node size: N > 0 entries (at most 8 KB), -1..-5 = 4, 8, 16, 32, 64 KB (default -2)"},
    {.name = "list-compress-depth",
     .kind = CFG_INT,
     .value = &list_limits.compress_depth,
     .max = INT_MAX,
     .value_name = "N",
     .help = "LZF-compress list nodes but the N nearest each end, in lists created from then on "
             "(default 0: none)"},
};

const struct config_table list_config = CONFIG_TABLE(list_params, NULL);
