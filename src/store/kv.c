/* kv.c — key entries and string values; layout in kv.h. */
#include "store/kv.h"

#include <string.h>

#include "store/evict.h"
#include "store/hash.h"
#include "store/set.h"
#include "store/list.h"
#include "store/stream.h"
#include "store/zset.h"
#include "util/xmalloc.h"

static struct kv *kv_alloc(const char *key, size_t key_len, size_t extra)
{
    struct kv *kv = xmalloc(sizeof(struct kv) + key_len + extra);
    kv->node.next = NULL;
    kv->expire_ms = 0;
    kv->v.integer = 0;
    kv->key_len = (uint32_t)key_len;
    kv->type = OBJ_STRING;
    kv->encoding = ENC_EMBSTR;
    kv->lru = evict_new_stamp();
    memcpy(kv->key, key, key_len);
    return kv;
}

static bool as_canonical_int(const char *val, size_t len, enum kv_string_hint hint, long long *out)
{
    return hint == KV_STR_TRY_INT && len <= 20 && num_parse_ll(val, len, out);
}

struct kv *kv_new_string(const char *key, size_t key_len, const char *val, size_t val_len,
                         enum kv_string_hint hint)
{
    long long iv;
    if (as_canonical_int(val, val_len, hint, &iv)) return kv_new_int(key, key_len, iv);
    if (hint != KV_STR_RAW && val_len <= KV_EMBSTR_MAX) {
        struct kv *kv = kv_alloc(key, key_len, val_len);
        kv->encoding = ENC_EMBSTR;
        kv->v.emb_len = val_len;
        memcpy(kv->key + key_len, val, val_len);
        return kv;
    }
    struct kv *kv = kv_alloc(key, key_len, 0);
    kv->encoding = ENC_RAW;
    kv->v.raw = strbuf_new(val, val_len, val_len);
    return kv;
}

struct kv *kv_new_string_adopt(const char *key, size_t key_len, struct strbuf *sb)
{
    if (sb->len <= KV_EMBSTR_MAX) {
        /* Short enough to be an int or embedded: encode as SET would. */
        struct kv *kv = kv_new_string(key, key_len, sb->data, sb->len, KV_STR_TRY_INT);
        strbuf_free(sb);
        return kv;
    }
    struct kv *kv = kv_alloc(key, key_len, 0);
    kv->encoding = ENC_RAW;
    kv->v.raw = sb;
    return kv;
}

struct kv *kv_new_int(const char *key, size_t key_len, long long value)
{
    struct kv *kv = kv_alloc(key, key_len, 0);
    kv->encoding = ENC_INT;
    kv->v.integer = value;
    return kv;
}

struct kv *kv_new_container(const char *key, size_t key_len, enum obj_type type,
                            enum obj_encoding encoding, void *ptr)
{
    struct kv *kv = kv_alloc(key, key_len, 0);
    kv->type = type;
    kv->encoding = encoding;
    kv->v.ptr = ptr;
    return kv;
}

struct kv *kv_rekey(struct kv *old, const char *key, size_t key_len)
{
    size_t extra = old->type == OBJ_STRING && old->encoding == ENC_EMBSTR ? old->v.emb_len : 0;
    struct kv *kv = kv_alloc(key, key_len, extra);
    kv->expire_ms = old->expire_ms;
    kv->v = old->v;
    kv->type = old->type;
    kv->encoding = old->encoding;
    kv->lru = old->lru;
    if (extra) memcpy(kv->key + key_len, kv_embedded_value(old), extra);
    xfree(old);
    return kv;
}

struct kv *kv_dup(struct kv *kv, const char *key, size_t key_len)
{
    switch (kv->type) {
    case OBJ_STRING:
        switch (kv->encoding) {
        case ENC_INT:
            return kv_new_int(key, key_len, kv->v.integer);
        case ENC_RAW:
            return kv_new_string(key, key_len, kv->v.raw->data, kv->v.raw->len, KV_STR_RAW);
        default:
            return kv_new_string(key, key_len, kv_embedded_value(kv), kv->v.emb_len, KV_STR_PLAIN);
        }
    case OBJ_HASH:
        return kv_new_container(key, key_len, OBJ_HASH, kv->encoding, hash_dup(kv->v.ptr));
    case OBJ_ZSET:
        return kv_new_container(key, key_len, OBJ_ZSET, kv->encoding, zset_dup(kv->v.ptr));
    case OBJ_SET:
        return kv_new_container(key, key_len, OBJ_SET, kv->encoding, set_dup(kv->v.ptr));
    case OBJ_LIST:
        return kv_new_container(key, key_len, OBJ_LIST, kv->encoding, list_dup(kv->v.ptr));
    case OBJ_STREAM:
        return kv_new_container(key, key_len, OBJ_STREAM, kv->encoding, stream_dup(kv->v.ptr));
    default:
        return NULL; /* a type without a copy yet (the caller answers) */
    }
}

static void kv_free_value(struct kv *kv)
{
    switch (kv->type) {
    case OBJ_STRING:
        if (kv->encoding == ENC_RAW) strbuf_free(kv->v.raw);
        break;
    case OBJ_HASH:
        hash_free(kv->v.ptr);
        break;
    case OBJ_ZSET:
        zset_free(kv->v.ptr);
        break;
    case OBJ_SET:
        set_free(kv->v.ptr);
        break;
    case OBJ_LIST:
        list_free(kv->v.ptr);
        break;
    case OBJ_STREAM:
        stream_release(kv->v.ptr); /* a big one later, off the request path */
        break;
    default:
        break;
    }
}

void kv_free(struct kv *kv)
{
    kv_free_value(kv);
    xfree(kv);
}

bool kv_string_set_in_place(struct kv *kv, const char *val, size_t val_len,
                            enum kv_string_hint hint)
{
    if (kv->type != OBJ_STRING) return false;
    long long iv;
    if (as_canonical_int(val, val_len, hint, &iv)) {
        if (kv->encoding == ENC_EMBSTR) return false; /* would strand embedded bytes */
        if (kv->encoding == ENC_RAW) strbuf_free(kv->v.raw);
        kv->encoding = ENC_INT;
        kv->v.integer = iv;
        return true;
    }
    switch (kv->encoding) {
    case ENC_EMBSTR:
        if (hint == KV_STR_RAW || kv->v.emb_len != val_len) return false;
        memcpy(kv->key + kv->key_len, val, val_len);
        return true;
    case ENC_RAW:
        /* Reuse the buffer only for values that would not be embedded anyway. */
        if (hint != KV_STR_RAW && val_len <= KV_EMBSTR_MAX) return false;
        if (kv->v.raw->cap < val_len) return false;
        memcpy(kv->v.raw->data, val, val_len);
        kv->v.raw->len = val_len;
        return true;
    default:
        return false;
    }
}

bool kv_string_set_int_in_place(struct kv *kv, long long v)
{
    if (kv->type != OBJ_STRING || kv->encoding == ENC_EMBSTR) return false;
    if (kv->encoding == ENC_RAW) strbuf_free(kv->v.raw);
    kv->encoding = ENC_INT;
    kv->v.integer = v;
    return true;
}

struct kv *kv_new_string_zeroed(const char *key, size_t key_len, size_t len)
{
    struct kv *kv = kv_alloc(key, key_len, 0);
    kv->encoding = ENC_RAW;
    kv->v.raw = strbuf_new(NULL, 0, len);
    memset(kv->v.raw->data, 0, len);
    kv->v.raw->len = len;
    return kv;
}

struct strbuf *kv_string_grow_zeroed(struct kv *kv, size_t len)
{
    struct strbuf *sb = kv_string_make_raw(kv, len);
    if (sb->len < len) {
        memset(sb->data + sb->len, 0, len - sb->len);
        sb->len = len;
    }
    return sb;
}

void kv_string_view(const struct kv *kv, struct strview *out)
{
    switch (kv->encoding) {
    case ENC_INT:
        out->len = num_format_ll(out->tmp, kv->v.integer);
        out->ptr = out->tmp;
        break;
    case ENC_RAW:
        out->ptr = kv->v.raw->data;
        out->len = kv->v.raw->len;
        break;
    default:
        out->ptr = kv_embedded_value(kv);
        out->len = kv->v.emb_len;
        break;
    }
}

size_t kv_string_len(const struct kv *kv)
{
    switch (kv->encoding) {
    case ENC_INT:
        return num_ll_len(kv->v.integer);
    case ENC_RAW:
        return kv->v.raw->len;
    default:
        return kv->v.emb_len;
    }
}

struct strbuf *kv_string_make_raw(struct kv *kv, size_t min_cap)
{
    if (kv->encoding == ENC_RAW) {
        if (kv->v.raw->cap < min_cap) {
            /* Grow geometrically so repeated APPENDs stay amortised O(1). */
            size_t cap = min_cap < 1024 * 1024 ? min_cap * 2 : min_cap + 1024 * 1024;
            kv->v.raw = xrealloc(kv->v.raw, sizeof(struct strbuf) + cap);
            kv->v.raw->cap = xmalloc_usable_size(kv->v.raw) - sizeof(struct strbuf);
        }
        return kv->v.raw;
    }
    struct strview view;
    kv_string_view(kv, &view);
    size_t cap = view.len > min_cap ? view.len : min_cap;
    /* Embedded bytes stay behind in the kv allocation (unused until rewritten). */
    struct strbuf *sb = strbuf_new(view.ptr, view.len, cap);
    kv->encoding = ENC_RAW;
    kv->v.raw = sb;
    return sb;
}

const char *kv_type_name(const struct kv *kv)
{
    switch (kv->type) {
    case OBJ_STRING:
        return "string";
    case OBJ_HASH:
        return "hash";
    case OBJ_ZSET:
        return "zset";
    case OBJ_SET:
        return "set";
    case OBJ_LIST:
        return "list";
    case OBJ_STREAM:
        return "stream";
    default:
        return "none";
    }
}

const char *kv_encoding_name(const struct kv *kv)
{
    /* Containers change encoding inside the store; ask them. */
    if (kv->type == OBJ_HASH) return hash_is_compact(kv->v.ptr) ? "listpack" : "hashtable";
    if (kv->type == OBJ_ZSET) return zset_is_compact(kv->v.ptr) ? "listpack" : "skiplist";
    if (kv->type == OBJ_SET) return set_is_intset(kv->v.ptr) ? "intset" : "hashtable";
    if (kv->type == OBJ_LIST) return "quicklist"; /* Redis 7.0: every list */
    if (kv->type == OBJ_STREAM) return "stream";
    switch (kv->encoding) {
    case ENC_EMBSTR:
        return "embstr";
    case ENC_RAW:
        return "raw";
    case ENC_INT:
        return "int";
    case ENC_LISTPACK:
        return "listpack";
    case ENC_HASHTABLE:
        return "hashtable";
    case ENC_SKIPLIST:
        return "skiplist";
    case ENC_INTSET:
        return "intset";
    default:
        return "unknown";
    }
}

size_t kv_memory_usage(const struct kv *kv, long long samples)
{
    size_t n = xmalloc_usable_size(kv);
    if (kv->type == OBJ_STRING && kv->encoding == ENC_RAW) n += xmalloc_usable_size(kv->v.raw);
    if (kv->type == OBJ_HASH) n += hash_memory_usage(kv->v.ptr, (size_t)samples);
    if (kv->type == OBJ_ZSET) n += zset_memory_usage(kv->v.ptr, (size_t)samples);
    if (kv->type == OBJ_SET) n += set_memory_usage(kv->v.ptr, (size_t)samples);
    if (kv->type == OBJ_LIST) n += list_memory_usage(kv->v.ptr);
    if (kv->type == OBJ_STREAM) n += stream_memory_usage(kv->v.ptr, (size_t)samples);
    return n;
}
