/*
 * kv.h — one key of the keyspace: a single allocation holding the dict link,
 * the TTL, the key bytes and, for short strings, the value bytes.
 *
 *   [next][expire_ms][value word][key_len][type|encoding|lru][key bytes][embedded value]
 *
 * String encodings mirror Redis's names so OBJECT ENCODING reads the same:
 *   ENC_INT     value word holds a canonical int64 ("123", not "0123")
 *   ENC_EMBSTR  value bytes follow the key in this allocation (<= 44 bytes)
 *   ENC_RAW     value word points at a growable struct strbuf (util/strbuf.h)
 * Container types (hash, sorted set, set, list, stream) keep a pointer in the value word.
 *
 * The store owns kvs; a kv may be reallocated when its value changes size,
 * so callers must not hold a kv across a store call that writes that key.
 */
#ifndef GOBLIN_KV_H
#define GOBLIN_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/dict.h"
#include "util/numparse.h"
#include "util/strbuf.h"

enum obj_type {
    OBJ_STRING = 0,
    OBJ_HASH = 1,
    OBJ_ZSET = 2,
    OBJ_LIST = 3,
    OBJ_SET = 4,
    OBJ_STREAM = 5,
};

enum obj_encoding {
    ENC_EMBSTR = 0,
    ENC_RAW,
    ENC_INT,
    ENC_LISTPACK,
    ENC_HASHTABLE,
    ENC_SKIPLIST,
    ENC_INTSET,
    ENC_QUICKLIST,
    ENC_STREAM,
};

/* Strings at most this long are embedded (Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT). */
#define KV_EMBSTR_MAX 44

struct kv {
    struct dict_node node;
    int64_t expire_ms; /* absolute Unix time in ms; 0 = no TTL */
    union {
        long long integer;  /* ENC_INT */
        struct strbuf *raw; /* ENC_RAW */
        uint64_t emb_len;   /* ENC_EMBSTR: bytes after the key */
        void *ptr;          /* hash, sorted set, set */
    } v;
    uint32_t key_len;
    uint32_t type : 4;
    uint32_t encoding : 4;
    uint32_t lru : 24; /* LRU clock (seconds, wraps) at last access */
    char key[];
};

/* How a string value should be encoded when stored. */
enum kv_string_hint {
    KV_STR_TRY_INT, /* SET and friends: canonical integers become ENC_INT */
    KV_STR_PLAIN,   /* INCRBYFLOAT: embstr/raw only, as Redis */
    KV_STR_RAW,     /* APPEND, SETRANGE results: always a growable buffer */
};

/* A read-only view of string bytes (ints are printed into `tmp`). */
struct strview {
    const char *ptr;
    size_t len;
    char tmp[NUM_LL_STR_SIZE];
};

struct kv *kv_new_string(const char *key, size_t key_len, const char *val, size_t val_len,
                         enum kv_string_hint hint);
/* A new string whose value is sb, adopted as is (no copy; the kv owns sb
 * now) as ENC_RAW: for values received in their own buffer (big
 * arguments). A value of at most KV_EMBSTR_MAX bytes is encoded as
 * kv_new_string(..., KV_STR_TRY_INT) would and sb freed. */
struct kv *kv_new_string_adopt(const char *key, size_t key_len, struct strbuf *sb);
struct kv *kv_new_int(const char *key, size_t key_len, long long value);

/* A kv of a container type holding ptr (ownership moves to the kv). */
struct kv *kv_new_container(const char *key, size_t key_len, enum obj_type type,
                            enum obj_encoding encoding, void *ptr);

/* Same value under another key (RENAME/MOVE); the old kv keeps nothing. */
struct kv *kv_rekey(struct kv *old, const char *key, size_t key_len);

/* A deep copy of kv's value, in the same encoding, under `key` (COPY); no
 * TTL. */
struct kv *kv_dup(struct kv *kv, const char *key, size_t key_len);

/* Frees the kv and the value it owns. */
void kv_free(struct kv *kv);

/* Tries to replace the string value in place; returns false when the new
 * value needs another allocation size (the caller builds a new kv). */
bool kv_string_set_in_place(struct kv *kv, const char *val, size_t val_len,
                            enum kv_string_hint hint);

/* Tries to make the value the integer v in place (ENC_INT or ENC_RAW kvs);
 * returns false for an embedded string (the caller builds a new kv). */
bool kv_string_set_int_in_place(struct kv *kv, long long v);

/* A new ENC_RAW string of len zero bytes (SETRANGE on an absent key). */
struct kv *kv_new_string_zeroed(const char *key, size_t key_len, size_t len);

/* Extends a string value with zero bytes to at least len bytes and returns
 * its buffer, now ENC_RAW (SETRANGE past the end). */
struct strbuf *kv_string_grow_zeroed(struct kv *kv, size_t len);

void kv_string_view(const struct kv *kv, struct strview *out);
size_t kv_string_len(const struct kv *kv);

/* Turns the value into ENC_RAW with capacity for at least `len` bytes and
 * returns the buffer (APPEND, SETRANGE). */
struct strbuf *kv_string_make_raw(struct kv *kv, size_t min_cap);

const char *kv_type_name(const struct kv *kv);
const char *kv_encoding_name(const struct kv *kv);

/* Bytes held by this key (allocator's view), for MEMORY USAGE. `samples`
 * bounds the elements a container inspects (0 = all). */
size_t kv_memory_usage(const struct kv *kv, long long samples);

static inline const char *kv_embedded_value(const struct kv *kv)
{
    return kv->key + kv->key_len;
}

#endif
