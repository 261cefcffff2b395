/*
 * typed_args.h — helpers shared by the container families (hashes, sorted
 * sets): typed key lookups that answer WRONGTYPE, and the arguments of the
 * HSCAN/ZSCAN family (cursor, MATCH, COUNT, NOVALUES), all with Redis's
 * texts and checking order.
 */
#ifndef GOBLIN_TYPED_ARGS_H
#define GOBLIN_TYPED_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "commands/command.h"

/* The kv of `type` at argv[i] for reading (LRU and hit/miss accounted).
 * NULL when absent, or when of another type: then WRONGTYPE was replied
 * and *replied is set. */
struct kv *lookup_read_typed(struct cmd_ctx *ctx, int i, enum obj_type type, bool *replied);

/* Same for writing. */
struct kv *lookup_write_typed(struct cmd_ctx *ctx, int i, enum obj_type type, bool *replied);

/* Stores a new container value of `n` elements under argv[dst_i]
 * (replacing any value, dropping its TTL) and replies n; when n is 0 the
 * key is deleted instead (the caller frees the empty value) and 0 replied.
 * The *STORE commands of every container family end here. */
void store_container_result(struct cmd_ctx *ctx, int dst_i, enum obj_type type,
                            enum obj_encoding encoding, void *value, size_t n);

/* The same with the keyspace event of a store (`event`, where the above
 * uses the command's name) and the number of changes it counts (`changes`,
 * where the above counts one): GEORADIUS ... STORE fires georadiusstore
 * and counts each member stored, as Redis. */
void store_container_result_as(struct cmd_ctx *ctx, int dst_i, enum obj_type type,
                               enum obj_encoding encoding, void *value, size_t n, const char *event,
                               long long changes);

/* HRANDFIELD / ZRANDMEMBER: `count` at argv[2] and the optional word
 * (WITHVALUES / WITHSCORES) at argv[3], with Redis's errors and checking
 * order. Replies and returns false on error. */
bool random_count_args(struct cmd_ctx *ctx, const char *with_word, long long *count, bool *with);

/* Parses a SCAN cursor as Redis does (strtoul: "+5", "-1" and "" are
 * accepted; a leading space, trailing bytes or overflow are not).
 * Replies "ERR invalid cursor" on failure. */
bool arg_to_scan_cursor(struct cmd_ctx *ctx, int i, unsigned long long *out);

struct scan_options {
    long long count;     /* COUNT, default 10 */
    const char *pattern; /* MATCH, NULL when absent or "*" */
    size_t pattern_len;
    bool no_values; /* NOVALUES (HSCAN) */
};

/* Parses options from argv[first] on; replies on error. */
bool scan_options_parse(struct cmd_ctx *ctx, int first, bool allow_novalues,
                        struct scan_options *out);

/* The cursor element of a SCAN reply (a bulk string, as Redis sends it). */
void reply_scan_cursor(struct reply *r, unsigned long long cursor);

/* Whether a scanned element passes the MATCH filter. */
bool scan_options_match(const struct scan_options *o, const char *s, size_t len);

/* A blocking command's timeout at argv[i] in seconds (fractions allowed,
 * 0 = forever) as an absolute deadline in ms (0 = none), with Redis's
 * errors. Replies and returns false on error. */
bool arg_to_block_deadline(struct cmd_ctx *ctx, int i, int64_t *deadline_ms);

/* LMPOP/ZMPOP-style arguments from argv[numkeys_i]: numkeys, the keys, a
 * direction word (word0 / word1, e.g. LEFT / RIGHT) and COUNT; sets
 * *first_key, *numkeys, *dir (0 or 1) and *count (1 when absent).
 * Replies and returns false on error. */
bool mpop_args(struct cmd_ctx *ctx, int numkeys_i, const char *word0, const char *word1,
               int *first_key, int *numkeys, int *dir, long long *count);

#endif
