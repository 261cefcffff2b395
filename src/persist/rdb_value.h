/*
 * rdb_value.h — one value (the object of a key) in Redis's RDB encoding:
 * the type byte and the body, as RDB files and DUMP payloads carry them.
 *
 * Both directions are tables with a row per type (rdb_value.c):
 *   saving   obj_type → which RDB type the value's current encoding maps to
 *            (listpack blob for compact hashes and sorted sets, as Redis
 *            writes them) and the function writing its body;
 *   loading  RDB type byte → the function building the value, or NULL for
 *            a type this build does not implement (modules, pre-7.0
 *            ziplists), which is an error naming the key and the type — a
 *            key is never skipped silently.
 * Adding a type is one row in each table.
 *
 * Loading checks everything it reads (Redis's deep sanitization, always
 * on): well-formed listpacks, element counts, no duplicate fields or
 * members, no NaN scores.
 */
#ifndef GOBLIN_RDB_VALUE_H
#define GOBLIN_RDB_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "persist/rdb_io.h"
#include "store/kv.h"

/* Redis's RDB object types (rdb.h, Redis 7.0). */
enum rdb_type {
    RDB_TYPE_STRING = 0,
    RDB_TYPE_LIST = 1,
    RDB_TYPE_SET = 2,
    RDB_TYPE_ZSET = 3,
    RDB_TYPE_HASH = 4,
    RDB_TYPE_ZSET_2 = 5,
    RDB_TYPE_MODULE_PRE_GA = 6,
    RDB_TYPE_MODULE_2 = 7,
    RDB_TYPE_HASH_ZIPMAP = 9,
    RDB_TYPE_LIST_ZIPLIST = 10,
    RDB_TYPE_SET_INTSET = 11,
    RDB_TYPE_ZSET_ZIPLIST = 12,
    RDB_TYPE_HASH_ZIPLIST = 13,
    RDB_TYPE_LIST_QUICKLIST = 14,
    RDB_TYPE_STREAM_LISTPACKS = 15,
    RDB_TYPE_HASH_LISTPACK = 16,
    RDB_TYPE_ZSET_LISTPACK = 17,
    RDB_TYPE_LIST_QUICKLIST_2 = 18,
    RDB_TYPE_STREAM_LISTPACKS_2 = 19,
    RDB_TYPE_COUNT
};

/* Writes kv's RDB type byte, its key when with_key (RDB files put the key
 * between the two; DUMP payloads have none), then its value. */
void rdb_value_save(struct rdb_writer *w, const struct kv *kv, bool with_key);

/* Whether `type` (a byte read where an opcode or a type may be) is an
 * object type Redis 7.0 defines. */
bool rdb_type_known(unsigned type);

enum rdb_load_status {
    RDB_VALUE_OK,
    RDB_VALUE_EMPTY, /* well-formed but without elements (Redis skips such keys) */
    RDB_VALUE_ERROR, /* r->err says why */
};

/* Reads the body of a value of RDB type `type` for key and returns it as
 * a new kv in *out (no TTL). Types this build does not implement are an
 * error naming the type. */
enum rdb_load_status rdb_value_load(struct rdb_reader *r, unsigned type, const char *key,
                                    size_t key_len, struct kv **out);

/* "hash", "list", ... for an RDB type byte (for messages). */
const char *rdb_type_name(unsigned type);

#endif
