/* rdb_value.c — values in RDB encoding, a row per type; see rdb_value.h. */
#include "persist/rdb_value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/listpack.h"
#include "persist/rdb_stream.h"
#include "persist/ziplist.h"
#include "store/hash.h"
#include "store/list.h"
#include "store/set.h"
#include "store/zset.h"
#include "util/numparse.h"

/* Listpack blobs are built here before being written as one string. The
 * server thread and a snapshot child are each single-threaded, so one
 * buffer serves every save; it keeps the largest size seen. */
static struct buf scratch;

static struct buf *scratch_reset(void)
{
    if (!scratch.data) buf_init(&scratch, 4096);
    scratch.start = scratch.end = 0;
    return &scratch;
}

/* --- saving ---------------------------------------------------------- */

static unsigned string_rdb_type(const struct kv *kv)
{
    (void)kv;
    return RDB_TYPE_STRING;
}

static void string_save(struct rdb_writer *w, const struct kv *kv)
{
    if (kv->encoding == ENC_INT) {
        rdbw_string_ll(w, kv->v.integer);
        return;
    }
    struct strview v;
    kv_string_view(kv, &v);
    rdbw_string(w, v.ptr, v.len);
}

static unsigned hash_rdb_type(const struct kv *kv)
{
    return hash_is_compact(kv->v.ptr) ? RDB_TYPE_HASH_LISTPACK : RDB_TYPE_HASH;
}

static bool hash_field_to_listpack(const char *f, size_t fl, const char *v, size_t vl, void *arg)
{
    lp_append(arg, f, fl);
    lp_append(arg, v, vl);
    return true;
}

static bool hash_field_to_rdb(const char *f, size_t fl, const char *v, size_t vl, void *arg)
{
    rdbw_string(arg, f, fl);
    rdbw_string(arg, v, vl);
    return true;
}

static void hash_save(struct rdb_writer *w, const struct kv *kv)
{
    struct hash *h = kv->v.ptr;
    if (hash_is_compact(h)) {
        struct buf *b = scratch_reset();
        size_t start = lp_begin(b);
        hash_foreach(h, hash_field_to_listpack, b);
        lp_end(b, start, hash_len(h) * 2);
        rdbw_string(w, buf_head(b), buf_len(b));
        return;
    }
    rdbw_len(w, hash_len(h));
    hash_foreach(h, hash_field_to_rdb, w);
}

static unsigned zset_rdb_type(const struct kv *kv)
{
    return zset_is_compact(kv->v.ptr) ? RDB_TYPE_ZSET_LISTPACK : RDB_TYPE_ZSET_2;
}

/* A score as Redis's zzlInsertAt stores it (d2string, then lpAppend's
 * integer detection): integral values within 2^52 as integers, others as
 * %.17g text, which strtod reads back exactly. */
static void score_to_listpack(struct buf *b, double score)
{
    if (score > -4503599627370495.0 && score < 4503599627370496.0 &&
        score == (double)(long long)score) {
        lp_append_int(b, (long long)score);
        return;
    }
    char text[64];
    int n = isinf(score) ? snprintf(text, sizeof text, "%s", score > 0 ? "inf" : "-inf")
                         : snprintf(text, sizeof text, "%.17g", score);
    lp_append(b, text, (size_t)n);
}

static bool zset_member_to_listpack(const char *m, size_t len, double score, void *arg)
{
    lp_append(arg, m, len);
    score_to_listpack(arg, score);
    return true;
}

static bool zset_member_to_rdb(const char *m, size_t len, double score, void *arg)
{
    rdbw_string(arg, m, len);
    rdbw_binary_double(arg, score);
    return true;
}

static void zset_save(struct rdb_writer *w, const struct kv *kv)
{
    struct zset *z = kv->v.ptr;
    size_t n = zset_len(z);
    if (zset_is_compact(z)) {
        struct buf *b = scratch_reset();
        size_t start = lp_begin(b);
        zset_visit_ranks(z, 0, n, false, zset_member_to_listpack, b);
        lp_end(b, start, n * 2);
        rdbw_string(w, buf_head(b), buf_len(b));
        return;
    }
    /* Highest score first, as Redis writes a skiplist (it loads by
     * inserting at the head); any order loads here. */
    rdbw_len(w, n);
    zset_visit_ranks(z, 0, n, true, zset_member_to_rdb, w);
}

/* Sets are written as RDB_TYPE_SET (count, members) in either encoding:
 * every Redis reads it and picks its own encoding; the intset blob Redis
 * writes for integer sets is read (set_load_intset) but not written yet. */
static unsigned set_rdb_type(const struct kv *kv)
{
    (void)kv;
    return RDB_TYPE_SET;
}

static bool set_member_to_rdb(const char *m, size_t len, void *arg)
{
    rdbw_string(arg, m, len);
    return true;
}

static void set_save(struct rdb_writer *w, const struct kv *kv)
{
    rdbw_len(w, set_len(kv->v.ptr));
    set_foreach(kv->v.ptr, set_member_to_rdb, w);
}

/* Lists as Redis 7.0 writes them: RDB_TYPE_LIST_QUICKLIST_2, a node count,
 * then per node its container (2 = packed) and a listpack of its entries.
 * Nodes hold LIST_RDB_NODE_ENTRIES entries each, whatever our own node
 * sizes are: Redis loads any node size and repacks as its fill allows. */
#define QUICKLIST_NODE_PLAIN 1
#define QUICKLIST_NODE_PACKED 2
#define LIST_RDB_NODE_ENTRIES 128

static unsigned list_rdb_type(const struct kv *kv)
{
    (void)kv;
    return RDB_TYPE_LIST_QUICKLIST_2;
}

static void list_save(struct rdb_writer *w, const struct kv *kv)
{
    struct list *l = kv->v.ptr;
    size_t n = list_len(l);
    rdbw_len(w, (n + LIST_RDB_NODE_ENTRIES - 1) / LIST_RDB_NODE_ENTRIES);
    struct list_iter it;
    struct strview v;
    list_iter_init(&it, l, 0, false);
    for (size_t done = 0; done < n;) {
        size_t chunk = n - done < LIST_RDB_NODE_ENTRIES ? n - done : LIST_RDB_NODE_ENTRIES;
        struct buf *b = scratch_reset();
        size_t start = lp_begin(b);
        for (size_t i = 0; i < chunk && list_iter_next(&it, &v); i++) lp_append(b, v.ptr, v.len);
        lp_end(b, start, chunk);
        rdbw_len(w, QUICKLIST_NODE_PACKED);
        rdbw_string(w, buf_head(b), buf_len(b));
        done += chunk;
    }
    list_iter_release(&it);
}

static unsigned stream_rdb_type(const struct kv *kv)
{
    (void)kv;
    return RDB_TYPE_STREAM_LISTPACKS_2;
}

struct value_saver {
    enum obj_type type;
    unsigned (*rdb_type)(const struct kv *kv);
    void (*save)(struct rdb_writer *w, const struct kv *kv);
};

static const struct value_saver savers[] = {
    {OBJ_STRING, string_rdb_type, string_save}, {OBJ_HASH, hash_rdb_type, hash_save},
    {OBJ_ZSET, zset_rdb_type, zset_save},       {OBJ_SET, set_rdb_type, set_save},
    {OBJ_LIST, list_rdb_type, list_save},       {OBJ_STREAM, stream_rdb_type, rdb_stream_save},
};

void rdb_value_save(struct rdb_writer *w, const struct kv *kv, bool with_key)
{
    for (size_t i = 0; i < sizeof savers / sizeof savers[0]; i++) {
        if (savers[i].type != kv->type) continue;
        rdbw_u8(w, savers[i].rdb_type(kv));
        if (with_key) rdbw_string(w, kv->key, kv->key_len);
        savers[i].save(w, kv);
        return;
    }
    /* A type without a row cannot be written: a bug, caught in tests. */
    abort();
}

/* --- loading --------------------------------------------------------- */

typedef enum rdb_load_status value_load_fn(struct rdb_reader *r, unsigned type, const char *key,
                                           size_t key_len, struct kv **out);

static enum rdb_load_status string_load(struct rdb_reader *r, unsigned type, const char *key,
                                        size_t key_len, struct kv **out)
{
    (void)type;
    struct rdb_str s;
    if (!rdbr_string(r, &s)) return RDB_VALUE_ERROR;
    *out = kv_new_string(key, key_len, s.ptr, s.len, KV_STR_TRY_INT);
    rdb_str_free(&s);
    return RDB_VALUE_OK;
}

static enum rdb_load_status hash_finish(struct hash *h, const char *key, size_t key_len,
                                        struct kv **out)
{
    if (hash_len(h) == 0) {
        hash_free(h);
        return RDB_VALUE_EMPTY;
    }
    *out = kv_new_container(key, key_len, OBJ_HASH,
                            hash_is_compact(h) ? ENC_LISTPACK : ENC_HASHTABLE, h);
    return RDB_VALUE_OK;
}

static enum rdb_load_status hash_load_fields(struct rdb_reader *r, unsigned type, const char *key,
                                             size_t key_len, struct kv **out)
{
    (void)type;
    uint64_t n;
    if (!rdbr_count(r, &n)) return RDB_VALUE_ERROR;
    struct hash *h = hash_new();
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str f, v;
        if (!rdbr_string(r, &f)) break;
        if (!rdbr_string(r, &v)) {
            rdb_str_free(&f);
            break;
        }
        bool added = hash_set(h, f.ptr, f.len, v.ptr, v.len);
        rdb_str_free(&f);
        rdb_str_free(&v);
        if (!added) {
            rdbr_fail(r, "duplicate hash field");
            break;
        }
    }
    if (r->err[0]) {
        hash_free(h);
        return RDB_VALUE_ERROR;
    }
    return hash_finish(h, key, key_len, out);
}

/* Reads a string value holding a listpack and checks its header. */
/* A packed blob: a listpack, or a ziplist (the RDB types of Redis before
 * 7.0), read through the same entries. */
enum packed_kind { PACKED_LISTPACK, PACKED_ZIPLIST, PACKED_ZIPMAP };
struct packed_iter {
    struct lp_iter it;
    enum packed_kind kind;
};

static bool packed_open(struct rdb_reader *r, struct rdb_str *blob, struct packed_iter *pi,
                        enum packed_kind kind)
{
    if (!rdbr_string(r, blob)) return false;
    pi->kind = kind;
    bool ok = kind == PACKED_ZIPLIST  ? zl_iter_init(&pi->it, blob->ptr, blob->len)
              : kind == PACKED_ZIPMAP ? zm_iter_init(&pi->it, blob->ptr, blob->len)
                                      : lp_iter_init(&pi->it, blob->ptr, blob->len);
    if (!ok) {
        rdb_str_free(blob);
        return rdbr_fail(r, "%s", pi->it.err);
    }
    return true;
}

static int packed_next(struct packed_iter *pi, struct lp_entry *e)
{
    return pi->kind == PACKED_ZIPLIST  ? zl_iter_next(&pi->it, e)
           : pi->kind == PACKED_ZIPMAP ? zm_iter_next(&pi->it, e)
                                       : lp_iter_next(&pi->it, e);
}

static bool packed_close(struct rdb_reader *r, struct rdb_str *blob, struct packed_iter *pi,
                         int last)
{
    static const char *const names[] = {"malformed listpack", "malformed ziplist",
                                        "malformed zipmap"};
    bool ok = last == 0 && (pi->kind == PACKED_ZIPLIST  ? zl_iter_end(&pi->it)
                            : pi->kind == PACKED_ZIPMAP ? zm_iter_end(&pi->it)
                                                        : lp_iter_end(&pi->it));
    if (!ok && !r->err[0]) rdbr_fail(r, "%s", pi->it.err ? pi->it.err : names[pi->kind]);
    rdb_str_free(blob);
    return ok;
}

static enum rdb_load_status hash_load_packed(struct rdb_reader *r, unsigned type, const char *key,
                                             size_t key_len, struct kv **out)
{
    struct rdb_str blob;
    struct packed_iter it;
    enum packed_kind kind = type == RDB_TYPE_HASH_ZIPLIST  ? PACKED_ZIPLIST
                            : type == RDB_TYPE_HASH_ZIPMAP ? PACKED_ZIPMAP
                                                           : PACKED_LISTPACK;
    if (!packed_open(r, &blob, &it, kind)) return RDB_VALUE_ERROR;
    struct hash *h = hash_new();
    struct lp_entry f, v;
    int got;
    while ((got = packed_next(&it, &f)) == 1) {
        if ((got = packed_next(&it, &v)) != 1) {
            if (got == 0) it.it.err = "packed hash with a field but no value";
            got = -1;
            break;
        }
        if (!hash_set(h, f.ptr, f.len, v.ptr, v.len)) {
            it.it.err = "duplicate hash field in a packed hash";
            got = -1;
            break;
        }
    }
    if (!packed_close(r, &blob, &it, got)) {
        hash_free(h);
        return RDB_VALUE_ERROR;
    }
    return hash_finish(h, key, key_len, out);
}

static enum rdb_load_status zset_finish(struct zset *z, const char *key, size_t key_len,
                                        struct kv **out)
{
    if (zset_len(z) == 0) {
        zset_free(z);
        return RDB_VALUE_EMPTY;
    }
    *out = kv_new_container(key, key_len, OBJ_ZSET,
                            zset_is_compact(z) ? ENC_LISTPACK : ENC_SKIPLIST, z);
    return RDB_VALUE_OK;
}

/* Adds one loaded member; false (with the reason recorded) for NaN or a duplicate. */
static bool zset_load_member(struct rdb_reader *r, struct zset *z, const char *m, size_t len,
                             double score)
{
    if (isnan(score)) return rdbr_fail(r, "sorted set member with a NaN score");
    double ignored;
    if (zset_add(z, m, len, score, ZSET_ADD_NX, &ignored) != ZSET_ADD_ADDED)
        return rdbr_fail(r, "duplicate sorted set member");
    return true;
}

static enum rdb_load_status zset_load_members(struct rdb_reader *r, unsigned type, const char *key,
                                              size_t key_len, struct kv **out)
{
    uint64_t n;
    if (!rdbr_count(r, &n)) return RDB_VALUE_ERROR;
    struct zset *z = zset_new_sized(n);
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str m;
        double score;
        if (!rdbr_string(r, &m)) break;
        bool ok =
            type == RDB_TYPE_ZSET_2 ? rdbr_binary_double(r, &score) : rdbr_ascii_double(r, &score);
        ok = ok && zset_load_member(r, z, m.ptr, m.len, score);
        rdb_str_free(&m);
        if (!ok) break;
    }
    if (r->err[0]) {
        zset_free(z);
        return RDB_VALUE_ERROR;
    }
    zset_compact_if_small(z);
    return zset_finish(z, key, key_len, out);
}

/* A listpack score: an integer entry, or text strtod reads whole. */
static bool listpack_score(const struct lp_entry *e, double *score)
{
    if (e->is_int) {
        *score = (double)e->value;
        return true;
    }
    char text[128];
    if (e->len == 0 || e->len >= sizeof text) return false;
    memcpy(text, e->ptr, e->len);
    text[e->len] = '\0';
    char *end;
    *score = strtod(text, &end);
    return *end == '\0';
}

static enum rdb_load_status zset_load_packed(struct rdb_reader *r, unsigned type, const char *key,
                                             size_t key_len, struct kv **out)
{
    struct rdb_str blob;
    struct packed_iter it;
    if (!packed_open(r, &blob, &it,
                     type == RDB_TYPE_ZSET_ZIPLIST ? PACKED_ZIPLIST : PACKED_LISTPACK))
        return RDB_VALUE_ERROR;
    struct zset *z = zset_new();
    struct lp_entry m, s;
    int got;
    while ((got = packed_next(&it, &m)) == 1) {
        double score;
        if ((got = packed_next(&it, &s)) != 1) {
            if (got == 0) it.it.err = "listpack sorted set with a member but no score";
            got = -1;
            break;
        }
        if (!listpack_score(&s, &score)) {
            it.it.err = "listpack sorted set with an invalid score";
            got = -1;
            break;
        }
        if (!zset_load_member(r, z, m.ptr, m.len, score)) {
            got = -1;
            break;
        }
    }
    if (!packed_close(r, &blob, &it, got)) {
        zset_free(z);
        return RDB_VALUE_ERROR;
    }
    return zset_finish(z, key, key_len, out);
}

static enum rdb_load_status set_finish(struct set *st, const char *key, size_t key_len,
                                       struct kv **out)
{
    if (set_len(st) == 0) {
        set_free(st);
        return RDB_VALUE_EMPTY;
    }
    *out =
        kv_new_container(key, key_len, OBJ_SET, set_is_intset(st) ? ENC_INTSET : ENC_HASHTABLE, st);
    return RDB_VALUE_OK;
}

static enum rdb_load_status set_load_members(struct rdb_reader *r, unsigned type, const char *key,
                                             size_t key_len, struct kv **out)
{
    (void)type;
    uint64_t n;
    if (!rdbr_count(r, &n)) return RDB_VALUE_ERROR;
    struct set *st = set_new_intset();
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str m;
        if (!rdbr_string(r, &m)) break;
        bool added = set_add(st, m.ptr, m.len);
        rdb_str_free(&m);
        if (!added) {
            rdbr_fail(r, "duplicate set member");
            break;
        }
    }
    if (r->err[0]) {
        set_free(st);
        return RDB_VALUE_ERROR;
    }
    return set_finish(st, key, key_len, out);
}

/* Redis's intset blob: [encoding u32 LE: 2, 4 or 8][length u32 LE]
 * [length integers of that width, LE, strictly increasing]. */
static enum rdb_load_status set_load_intset(struct rdb_reader *r, unsigned type, const char *key,
                                            size_t key_len, struct kv **out)
{
    (void)type;
    struct rdb_str blob;
    if (!rdbr_string(r, &blob)) return RDB_VALUE_ERROR;
    const unsigned char *p = (const unsigned char *)blob.ptr;
    uint32_t width = 0, count = 0;
    if (blob.len >= 8) {
        width = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        count = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    }
    if (blob.len < 8 || (width != 2 && width != 4 && width != 8) ||
        (uint64_t)count * width != blob.len - 8) {
        rdb_str_free(&blob);
        rdbr_fail(r, "malformed intset");
        return RDB_VALUE_ERROR;
    }
    struct set *st = set_new_intset();
    long long prev = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t u = 0;
        for (uint32_t b = width; b-- > 0;) u = u << 8 | p[8 + (size_t)i * width + b];
        if (width < 8 && (u >> (width * 8 - 1)) & 1) u |= ~(uint64_t)0 << (width * 8);
        long long v = (long long)u;
        if (i > 0 && v <= prev) {
            rdbr_fail(r, "intset not in increasing order");
            break;
        }
        prev = v;
        char text[NUM_LL_STR_SIZE];
        set_add(st, text, num_format_ll(text, v));
    }
    rdb_str_free(&blob);
    if (r->err[0]) {
        set_free(st);
        return RDB_VALUE_ERROR;
    }
    return set_finish(st, key, key_len, out);
}

static enum rdb_load_status list_finish(struct list *l, const char *key, size_t key_len,
                                        struct kv **out)
{
    if (list_len(l) == 0) {
        list_free(l);
        return RDB_VALUE_EMPTY;
    }
    *out = kv_new_container(key, key_len, OBJ_LIST, ENC_QUICKLIST, l);
    return RDB_VALUE_OK;
}

/* RDB_TYPE_LIST: a count, then the elements as strings. */
static enum rdb_load_status list_load_elements(struct rdb_reader *r, unsigned type, const char *key,
                                               size_t key_len, struct kv **out)
{
    (void)type;
    uint64_t n;
    if (!rdbr_count(r, &n)) return RDB_VALUE_ERROR;
    struct list *l = list_new();
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str e;
        if (!rdbr_string(r, &e)) break;
        list_push(l, LIST_TAIL, e.ptr, e.len);
        rdb_str_free(&e);
    }
    if (r->err[0]) {
        list_free(l);
        return RDB_VALUE_ERROR;
    }
    return list_finish(l, key, key_len, out);
}

/* RDB_TYPE_LIST_QUICKLIST_2: nodes, each a plain element or a listpack. */
static enum rdb_load_status list_load_quicklist(struct rdb_reader *r, unsigned type,
                                                const char *key, size_t key_len, struct kv **out)
{
    /* Type 10: one ziplist; 14: ziplist nodes; 15: listpack or plain nodes. */
    bool ziplist = type != RDB_TYPE_LIST_QUICKLIST_2;
    uint64_t nodes = 1;
    if (type != RDB_TYPE_LIST_ZIPLIST && !rdbr_count(r, &nodes)) return RDB_VALUE_ERROR;
    struct list *l = list_new();
    for (uint64_t i = 0; i < nodes && !r->err[0]; i++) {
        if (type == RDB_TYPE_LIST_QUICKLIST_2) {
            uint64_t container;
            bool encoded;
            if (!rdbr_len(r, &container, &encoded)) break;
            if (encoded ||
                (container != QUICKLIST_NODE_PLAIN && container != QUICKLIST_NODE_PACKED)) {
                rdbr_fail(r, "unknown quicklist container %llu", (unsigned long long)container);
                break;
            }
            if (container == QUICKLIST_NODE_PLAIN) {
                struct rdb_str e;
                if (!rdbr_string(r, &e)) break;
                list_push(l, LIST_TAIL, e.ptr, e.len);
                rdb_str_free(&e);
                continue;
            }
        }
        struct rdb_str blob;
        struct packed_iter it;
        if (!packed_open(r, &blob, &it, ziplist ? PACKED_ZIPLIST : PACKED_LISTPACK)) break;
        struct lp_entry e;
        int got;
        while ((got = packed_next(&it, &e)) == 1) list_push(l, LIST_TAIL, e.ptr, e.len);
        if (!packed_close(r, &blob, &it, got)) break;
    }
    if (r->err[0]) {
        list_free(l);
        return RDB_VALUE_ERROR;
    }
    return list_finish(l, key, key_len, out);
}

struct value_loader {
    const char *type_name; /* as TYPE names it */
    const char *form;      /* the RDB encoding, for messages */
    value_load_fn *load;   /* NULL: not implemented by this build */
};

static const struct value_loader loaders[RDB_TYPE_COUNT] = {
    [RDB_TYPE_STRING] = {"string", "string", string_load},
    [RDB_TYPE_LIST] = {"list", "linked list", list_load_elements},
    [RDB_TYPE_SET] = {"set", "hash table", set_load_members},
    [RDB_TYPE_ZSET] = {"zset", "skiplist, text scores", zset_load_members},
    [RDB_TYPE_HASH] = {"hash", "hash table", hash_load_fields},
    [RDB_TYPE_ZSET_2] = {"zset", "skiplist", zset_load_members},
    [RDB_TYPE_MODULE_PRE_GA] = {"module", "module (pre-GA)", NULL},
    [RDB_TYPE_MODULE_2] = {"module", "module", NULL},
    [RDB_TYPE_HASH_ZIPMAP] = {"hash", "zipmap (Redis < 2.6)", hash_load_packed},
    [RDB_TYPE_LIST_ZIPLIST] = {"list", "ziplist", list_load_quicklist},
    [RDB_TYPE_SET_INTSET] = {"set", "intset", set_load_intset},
    [RDB_TYPE_ZSET_ZIPLIST] = {"zset", "ziplist (Redis < 7.0)", zset_load_packed},
    [RDB_TYPE_HASH_ZIPLIST] = {"hash", "ziplist (Redis < 7.0)", hash_load_packed},
    [RDB_TYPE_LIST_QUICKLIST] = {"list", "quicklist of ziplists (Redis < 7.0)",
                                 list_load_quicklist},
    [RDB_TYPE_STREAM_LISTPACKS] = {"stream", "listpacks (Redis < 7.0)", rdb_stream_load},
    [RDB_TYPE_HASH_LISTPACK] = {"hash", "listpack", hash_load_packed},
    [RDB_TYPE_ZSET_LISTPACK] = {"zset", "listpack", zset_load_packed},
    [RDB_TYPE_LIST_QUICKLIST_2] = {"list", "quicklist", list_load_quicklist},
    [RDB_TYPE_STREAM_LISTPACKS_2] = {"stream", "listpacks", rdb_stream_load},
};

bool rdb_type_known(unsigned type)
{
    return type < RDB_TYPE_COUNT && loaders[type].type_name != NULL;
}

const char *rdb_type_name(unsigned type)
{
    return rdb_type_known(type) ? loaders[type].type_name : "unknown";
}

enum rdb_load_status rdb_value_load(struct rdb_reader *r, unsigned type, const char *key,
                                    size_t key_len, struct kv **out)
{
    *out = NULL;
    if (!rdb_type_known(type)) {
        rdbr_fail(r, "unknown value type %u", type);
        return RDB_VALUE_ERROR;
    }
    const struct value_loader *l = &loaders[type];
    if (!l->load) {
        rdbr_fail(r, "type %s (RDB type %u, %s) is not implemented by goblin-core", l->type_name,
                  type, l->form);
        return RDB_VALUE_ERROR;
    }
    return l->load(r, type, key, key_len, out);
}
