/* Unit tests of the RDB encoding (persist/): CRC-64 against Redis's test
 * vector, listpack entries at every width, a keyspace holding every type
 * and encoding written and read back (compressed or not, checksummed or
 * not), DUMP payloads, and hostile input: every truncation of a small
 * snapshot and random bit flips are refused with an error, never a crash
 * (the ASan build runs this too). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "persist/crc64.h"
#include "store/listpack.h"
#include "persist/rdb.h"
#include "store/db.h"
#include "store/hash.h"
#include "store/list.h"
#include "store/set.h"
#include "store/zset.h"
#include "util/rand.h"
#include "util/xmalloc.h"

static void test_crc64(void)
{
    CHECK(crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9caULL);
    /* Slice-by-8 and byte-wise paths agree at every split. */
    const char *text = "The quick brown fox jumps over the lazy dog, 0123456789 times.";
    uint64_t whole = crc64(0, text, strlen(text));
    for (size_t cut = 0; cut <= strlen(text); cut++)
        CHECK(crc64(crc64(0, text, cut), text + cut, strlen(text) - cut) == whole);
}

static void test_listpack(void)
{
    static const long long ints[] = {
        0,         1,        127,     128,       -1,        -4096,
        4095,      4096,     -4097,   -32768,    32767,     32768,
        -8388608,  8388607,  8388608, INT32_MIN, INT32_MAX, (long long)INT32_MAX + 1,
        LLONG_MIN, LLONG_MAX};
    static const size_t lens[] = {0, 1, 63, 64, 127, 128, 4095, 4096, 20000};
    struct buf b;
    buf_init(&b, 64);
    size_t start = lp_begin(&b);
    size_t n = 0;
    char text[32];
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++, n++) {
        int len = snprintf(text, sizeof text, "%lld", ints[i]);
        lp_append(&b, text, (size_t)len);
    }
    char *big = xmalloc(20000);
    for (size_t i = 0; i < 20000; i++) big[i] = (char)('a' + i % 26);
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++, n++) lp_append(&b, big, lens[i]);
    lp_append(&b, "007", 3); /* not canonical: stays a string */
    n++;
    lp_end(&b, start, n);

    struct lp_iter it;
    struct lp_entry e;
    CHECK(lp_iter_init(&it, buf_head(&b), buf_len(&b)));
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        CHECK(lp_iter_next(&it, &e) == 1);
        CHECK(e.is_int && e.value == ints[i]);
    }
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        CHECK(lp_iter_next(&it, &e) == 1);
        CHECK(!e.is_int && e.len == lens[i] && memcmp(e.ptr, big, lens[i]) == 0);
    }
    CHECK(lp_iter_next(&it, &e) == 1);
    CHECK(!e.is_int && e.len == 3);
    CHECK(lp_iter_next(&it, &e) == 0);
    CHECK(lp_iter_end(&it));

    /* Every single-byte corruption is either rejected or still decodes
     * within bounds (ASan would catch a read outside the blob). */
    for (size_t pos = 0; pos < buf_len(&b) && pos < 600; pos++) {
        unsigned char *copy = (unsigned char *)xmemdup(buf_head(&b), buf_len(&b));
        copy[pos] ^= 0x5a;
        if (lp_iter_init(&it, copy, buf_len(&b))) {
            int got;
            while ((got = lp_iter_next(&it, &e)) == 1) {
            }
            if (got == 0) lp_iter_end(&it);
        }
        xfree(copy);
    }
    xfree(big);
    buf_free(&b);
}

/* --- a keyspace with every type and encoding --------------------------- */

static void add_kv(int dbi, struct kv *kv, int64_t expire_ms)
{
    struct db *db = keyspace_db(dbi);
    db_add(db, kv);
    if (expire_ms) db_set_expire(db, kv, expire_ms);
}

static void fill_keyspace(void)
{
    char big[5000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + (i * 7) % 5);
    add_kv(0, kv_new_string("int", 3, "12345", 5, KV_STR_TRY_INT), 0);
    add_kv(0, kv_new_string("int64", 5, "-9223372036854775808", 20, KV_STR_TRY_INT), 0);
    add_kv(0, kv_new_string("emb", 3, "hello", 5, KV_STR_TRY_INT), 0);
    add_kv(0, kv_new_string("empty", 5, "", 0, KV_STR_TRY_INT), 0);
    add_kv(0, kv_new_string("raw", 3, big, sizeof big, KV_STR_TRY_INT), 0);
    add_kv(0, kv_new_string("bin\0key", 7, "\x00\xff\x01", 3, KV_STR_TRY_INT), 0);
    add_kv(0, kv_new_string("ttl", 3, "v", 1, KV_STR_TRY_INT), 4102444800000LL); /* 2100 */

    struct hash *small = hash_new();
    hash_set(small, "f1", 2, "v1", 2);
    hash_set(small, "n", 1, "-42", 3);
    hash_set(small, "e", 1, "", 0);
    CHECK(hash_is_compact(small));
    add_kv(0, kv_new_container("hsmall", 6, OBJ_HASH, ENC_LISTPACK, small), 0);
    struct hash *large = hash_new();
    char f[32], v[32];
    for (int i = 0; i < 1000; i++) {
        int fl = snprintf(f, sizeof f, "field:%d", i);
        int vl = snprintf(v, sizeof v, "%d", i * 3 - 500);
        hash_set(large, f, (size_t)fl, v, (size_t)vl);
    }
    hash_set(large, "long", 4, big, 300);
    CHECK(!hash_is_compact(large));
    add_kv(1, kv_new_container("hlarge", 6, OBJ_HASH, ENC_HASHTABLE, large), 0);

    struct zset *zs = zset_new();
    double out;
    static const double scores[] = {
        0, 1, -1, 2.5, 1e300, -1e-300, INFINITY, -INFINITY, 4503599627370497.0};
    for (size_t i = 0; i < sizeof scores / sizeof scores[0]; i++) {
        int ml = snprintf(f, sizeof f, "m%zu", i);
        zset_add(zs, f, (size_t)ml, scores[i], 0, &out);
    }
    CHECK(zset_is_compact(zs));
    add_kv(0, kv_new_container("zsmall", 6, OBJ_ZSET, ENC_LISTPACK, zs), 4102444800123LL);
    struct zset *zl = zset_new();
    for (int i = 0; i < 500; i++) {
        int ml = snprintf(f, sizeof f, "member-%d", i);
        zset_add(zl, f, (size_t)ml, i * 0.25 - 10, 0, &out);
    }
    CHECK(!zset_is_compact(zl));
    add_kv(15, kv_new_container("zlarge", 6, OBJ_ZSET, ENC_SKIPLIST, zl), 0);

    struct set *si = set_new_intset(), *sh = set_new_intset();
    set_add(si, "-5", 2);
    set_add(si, "70000", 5);
    set_add(si, "9223372036854775807", 19);
    CHECK(set_is_intset(si));
    set_add(sh, "a", 1);
    set_add(sh, "12", 2);
    CHECK(!set_is_intset(sh));
    add_kv(2, kv_new_container("sint", 4, OBJ_SET, ENC_INTSET, si), 0);
    add_kv(2, kv_new_container("stab", 4, OBJ_SET, ENC_HASHTABLE, sh), 0);

    /* Lists: more entries than one RDB node (128), integers, long elements. */
    struct list *ls = list_new();
    for (int i = 0; i < 300; i++) {
        int ml = snprintf(f, sizeof f, i % 3 ? "elem-%d" : "%d", i - 100);
        list_push(ls, i % 2 ? LIST_TAIL : LIST_HEAD, f, (size_t)ml);
    }
    char longer[5000];
    memset(longer, 'q', sizeof longer);
    list_push(ls, LIST_TAIL, longer, sizeof longer);
    add_kv(3, kv_new_container("list", 4, OBJ_LIST, ENC_QUICKLIST, ls), 0);
}

/* A canonical text of the keyspace: keys sorted, hash fields sorted,
 * sorted sets in rank order, scores exact (%a), TTLs, encodings. */
struct fp_state {
    struct buf *out;
    char **lines;
    size_t n, cap;
};

static bool fp_field(const char *fl, size_t fll, const char *v, size_t vl, void *arg)
{
    struct fp_state *s = arg;
    struct buf line;
    buf_init(&line, 64);
    buf_append(&line, fl, fll);
    buf_append_char(&line, '=');
    buf_append(&line, v, vl);
    buf_append_char(&line, '\0');
    if (s->n == s->cap) s->lines = xrealloc(s->lines, sizeof(char *) * (s->cap = s->cap * 2 + 16));
    s->lines[s->n++] = xmemdup(buf_head(&line), buf_len(&line));
    buf_free(&line);
    return true;
}

static bool fp_set_member(const char *m, size_t len, void *arg)
{
    return fp_field(m, len, "", 0, arg);
}

static bool fp_member(const char *m, size_t len, double score, void *arg)
{
    char text[64];
    int n = snprintf(text, sizeof text, " %a:", score);
    buf_append(arg, text, (size_t)n);
    buf_append(arg, m, len);
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void fp_key(struct kv *kv, void *arg)
{
    struct fp_state *keys = arg;
    struct buf line;
    buf_init(&line, 128);
    char head[96];
    int n = snprintf(head, sizeof head, "%s %s %lld ", kv_type_name(kv), kv_encoding_name(kv),
                     (long long)kv->expire_ms);
    for (uint32_t i = 0; i < kv->key_len; i++) {
        char hex[3];
        snprintf(hex, sizeof hex, "%02x", (unsigned char)kv->key[i]);
        buf_append(&line, hex, 2);
    }
    buf_append_char(&line, ' ');
    buf_append(&line, head, (size_t)n);
    if (kv->type == OBJ_STRING) {
        struct strview v;
        kv_string_view(kv, &v);
        buf_append(&line, v.ptr, v.len);
    } else if (kv->type == OBJ_HASH) {
        struct fp_state fields = {0};
        hash_foreach(kv->v.ptr, fp_field, &fields);
        if (fields.n) qsort(fields.lines, fields.n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < fields.n; i++) {
            buf_append(&line, fields.lines[i], strlen(fields.lines[i]));
            buf_append_char(&line, ';');
            xfree(fields.lines[i]);
        }
        xfree(fields.lines);
    } else if (kv->type == OBJ_ZSET) {
        zset_visit_ranks(kv->v.ptr, 0, zset_len(kv->v.ptr), false, fp_member, &line);
    } else if (kv->type == OBJ_LIST) {
        struct list_iter it;
        struct strview v;
        list_iter_init(&it, kv->v.ptr, 0, false);
        while (list_iter_next(&it, &v)) {
            buf_append(&line, v.ptr, v.len);
            buf_append_char(&line, ';');
        }
        list_iter_release(&it);
    } else if (kv->type == OBJ_SET) {
        struct fp_state members = {0};
        set_foreach(kv->v.ptr, fp_set_member, &members);
        if (members.n) qsort(members.lines, members.n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < members.n; i++) {
            buf_append(&line, members.lines[i], strlen(members.lines[i]));
            buf_append_char(&line, ';');
            xfree(members.lines[i]);
        }
        xfree(members.lines);
    }
    buf_append_char(&line, '\0');
    if (keys->n == keys->cap)
        keys->lines = xrealloc(keys->lines, sizeof(char *) * (keys->cap = keys->cap * 2 + 16));
    keys->lines[keys->n++] = xmemdup(buf_head(&line), buf_len(&line));
    buf_free(&line);
}

static char *fingerprint(void)
{
    struct buf out;
    buf_init(&out, 4096);
    for (int i = 0; i < keyspace.count; i++) {
        struct fp_state keys = {0};
        db_foreach_key(keyspace_db(i), fp_key, &keys);
        if (keys.n) qsort(keys.lines, keys.n, sizeof(char *), cmp_str);
        char head[32];
        int n = snprintf(head, sizeof head, "db%d:\n", i);
        buf_append(&out, head, (size_t)n);
        for (size_t k = 0; k < keys.n; k++) {
            buf_append(&out, keys.lines[k], strlen(keys.lines[k]));
            buf_append_char(&out, '\n');
            xfree(keys.lines[k]);
        }
        xfree(keys.lines);
    }
    buf_append_char(&out, '\0');
    char *s = xstrdup(buf_head(&out));
    buf_free(&out);
    return s;
}

static struct buf snapshot(bool compress, bool checksum)
{
    struct rdb_writer w;
    rdbw_init(&w, -1, compress);
    CHECK(rdb_write_keyspace(&w, checksum));
    struct buf out;
    buf_init(&out, buf_len(&w.buf));
    buf_append(&out, buf_head(&w.buf), buf_len(&w.buf));
    rdbw_free(&w);
    return out;
}

static void test_round_trip(void)
{
    fill_keyspace();
    char *before = fingerprint();
    for (int variant = 0; variant < 4; variant++) {
        bool compress = variant & 1, checksum = variant & 2;
        struct buf file = snapshot(compress, checksum);
        CHECK(memcmp(buf_head(&file), "REDIS0010", 9) == 0);
        keyspace_flush_all();
        struct rdb_load_info info;
        char err[512];
        CHECKF(rdb_load_buffer(buf_head(&file), buf_len(&file), true, &info, err, sizeof err),
               "variant %d: %s", variant, err);
        CHECK(info.checksum_verified == checksum);
        CHECK_EQ_LL(info.keys_loaded, 14);
        char *after = fingerprint();
        CHECKF(strcmp(before, after) == 0, "variant %d:\n%s\nvs\n%s", variant, before, after);
        xfree(after);
        /* The file of the reloaded keyspace is the same size (same encodings). */
        struct buf again = snapshot(compress, checksum);
        CHECK_EQ_LL(buf_len(&again), buf_len(&file));
        buf_free(&again);
        buf_free(&file);
    }
    xfree(before);
}

static void test_dump_payloads(void)
{
    static const char *const names[] = {"int", "raw", "hsmall", "zsmall"};
    for (size_t i = 0; i < 4; i++) {
        struct kv *kv = db_lookup_quiet(keyspace_db(0), names[i], strlen(names[i]));
        CHECK(kv);
        struct buf p;
        buf_init(&p, 64);
        rdb_dump_payload(kv, true, &p);
        CHECK(rdb_payload_verify(buf_head(&p), buf_len(&p)));
        struct kv *copy;
        char why[256];
        CHECKF(rdb_payload_decode(buf_head(&p), buf_len(&p), "copy", 4, &copy, why, sizeof why),
               "%s", why);
        CHECK(copy->type == kv->type);
        kv_free(copy);
        /* Any flipped bit fails the footer check. */
        for (size_t bit = 0; bit < buf_len(&p) * 8; bit += 7) {
            buf_head(&p)[bit / 8] ^= (char)(1 << (bit % 8));
            CHECK(!rdb_payload_verify(buf_head(&p), buf_len(&p)));
            buf_head(&p)[bit / 8] ^= (char)(1 << (bit % 8));
        }
        buf_free(&p);
    }
}

/* A small keyspace with every encoding: thresholds lowered so that a few
 * fields already make a hash table and a skiplist. */
static void fill_small_keyspace(void)
{
    keyspace_flush_all();
    struct hash_limits saved_h = hash_limits;
    struct zset_limits saved_z = zset_limits;
    hash_limits.max_listpack_entries = 2;
    zset_limits.max_listpack_entries = 2;
    double out;
    add_kv(0, kv_new_string("i", 1, "-70000", 6, KV_STR_TRY_INT), 0);
    add_kv(0, kv_new_string("s", 1, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 40, KV_STR_TRY_INT),
           4102444800000LL);
    struct hash *hs = hash_new(), *ht = hash_new();
    hash_set(hs, "f", 1, "v", 1);
    for (int i = 0; i < 4; i++) hash_set(ht, "abcd" + i, 1, "1234" + i, 1);
    add_kv(0, kv_new_container("hs", 2, OBJ_HASH, ENC_LISTPACK, hs), 0);
    add_kv(0, kv_new_container("ht", 2, OBJ_HASH, ENC_HASHTABLE, ht), 0);
    struct zset *zs = zset_new(), *zt = zset_new();
    zset_add(zs, "m", 1, 1.5, 0, &out);
    for (int i = 0; i < 4; i++) zset_add(zt, "abcd" + i, 1, i * 0.5, 0, &out);
    add_kv(1, kv_new_container("zs", 2, OBJ_ZSET, ENC_LISTPACK, zs), 0);
    add_kv(1, kv_new_container("zt", 2, OBJ_ZSET, ENC_SKIPLIST, zt), 0);
    hash_limits = saved_h;
    zset_limits = saved_z;
}

static void test_hostile_files(void)
{
    fill_small_keyspace();
    struct buf file = snapshot(true, true);
    struct rdb_load_info info;
    char err[512];
    /* Every truncation is refused. */
    for (size_t len = 0; len < buf_len(&file); len++) {
        keyspace_flush_all();
        CHECKF(!rdb_load_buffer(buf_head(&file), len, true, &info, err, sizeof err),
               "truncated to %zu bytes accepted", len);
        CHECK(err[0]);
    }
    /* Every single-bit flip is refused (CRC-64 catches all of them);
     * without checksum verification, a flip may load but never crashes. */
    rand_seed(12345);
    for (int round = 0; round < 2000; round++) {
        size_t bit = (size_t)(rand_u64() % (buf_len(&file) * 8));
        unsigned char *copy = (unsigned char *)xmemdup(buf_head(&file), buf_len(&file));
        copy[bit / 8] ^= (unsigned char)(1 << (bit % 8));
        keyspace_flush_all();
        CHECKF(!rdb_load_buffer(copy, buf_len(&file), true, &info, err, sizeof err),
               "bit %zu flipped accepted", bit);
        keyspace_flush_all();
        (void)rdb_load_buffer(copy, buf_len(&file), false, &info, err, sizeof err);
        /* A few random bytes as well. */
        for (int k = 0; k < 4; k++) copy[rand_u64() % buf_len(&file)] = (unsigned char)rand_u64();
        keyspace_flush_all();
        (void)rdb_load_buffer(copy, buf_len(&file), false, &info, err, sizeof err);
        xfree(copy);
    }
    keyspace_flush_all();
    buf_free(&file);
}

static void test_unimplemented_type(void)
{
    /* A Redis 7.0 list (RDB_TYPE_LIST_QUICKLIST_2) under key "s": refused, naming both. */
    static const unsigned char file[] = "REDIS0010\xfe\x00\x12\x01s\x01\x02\x00\xff";
    struct rdb_load_info info;
    char err[512];
    CHECK(!rdb_load_buffer(file, sizeof file - 1, false, &info, err, sizeof err));
    CHECKF(strstr(err, "key 's'") && strstr(err, "list"), "%s", err);
}

int main(void)
{
    keyspace_init(16);
    test_crc64();
    test_listpack();
    test_round_trip();
    test_dump_payloads();
    test_hostile_files();
    test_unimplemented_type();
    keyspace_release();
    printf("test_rdb: ok\n");
    return 0;
}
