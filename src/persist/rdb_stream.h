/*
 * rdb_stream.h — streams in Redis 7.0's RDB encoding,
 * RDB_TYPE_STREAM_LISTPACKS_2 (19): every node as its 16-byte big-endian
 * master ID and the listpack Redis would hold (count, deleted, the master
 * fields, then each entry's flags, ID deltas, fields or values, lp-count),
 * then length, last, first and max-deleted IDs, entries-added, and each
 * consumer group (in name order) with its PEL and its consumers' PELs.
 * The listpacks are the very bytes redis-server writes for the same
 * commands, so DUMP payloads match byte for byte.
 *
 * Loading (types 19 and 15, the pre-7.0 form) trusts nothing: each
 * listpack is read through the validating iterator and must have the
 * entry structure Redis's streamValidateListpackIntegrity checks, and
 * beyond Redis, IDs must increase across the whole stream, counts and the
 * length must agree with the entries, PEL entries must be unique and
 * every one owned by exactly one consumer that lists it.
 */
#ifndef GOBLIN_RDB_STREAM_H
#define GOBLIN_RDB_STREAM_H

#include "persist/rdb_value.h"

void rdb_stream_save(struct rdb_writer *w, const struct kv *kv);

enum rdb_load_status rdb_stream_load(struct rdb_reader *r, unsigned type, const char *key,
                                     size_t key_len, struct kv **out);

#endif
