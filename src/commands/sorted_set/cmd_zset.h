/*
 * cmd_zset.h — internal to the sorted-set family (cmd_zset*.c): argument
 * parsers with Redis's quirks, the member/score reply writer, and the
 * handlers that live outside cmd_zset.c (which holds the command table).
 */
#ifndef GOBLIN_CMD_ZSET_H
#define GOBLIN_CMD_ZSET_H

#include <stdbool.h>

#include "commands/command.h"
#include "store/zset.h"

static inline struct zset *zset_of(struct kv *kv)
{
    return kv->v.ptr;
}

/* A score range as ZRANGEBYSCORE takes it: "(" marks an exclusive bound;
 * the number is read by strtod up to the first NUL, so "", " 1", "0x10"
 * and "1e999" (inf) are accepted and only NaN or trailing bytes are not.
 * Replies nothing; callers send "ERR min or max is not a float". */
bool zset_parse_score_range(const struct cmd_ctx *ctx, int min_i, int max_i,
                            struct zset_score_range *out);

/* A lex range: "[x" inclusive, "(x" exclusive, "-" and "+" the ends.
 * Replies nothing; callers send "ERR min or max not valid string range item". */
bool zset_parse_lex_range(const struct cmd_ctx *ctx, int min_i, int max_i,
                          struct zset_lex_range *out);

/* Writes members (and scores) as Redis does: with scores, a pair array
 * (reply_pair_array_len: flat [m, s, ...] in RESP2, one [m, s] array per
 * member in RESP3), s through reply_double. */
struct zset_reply {
    struct reply *reply;
    bool with_scores;
    bool flat; /* pairs flat even in RESP3 (ZPOPMIN without a count) */
};

/* Array header for n members. */
void zset_reply_begin(struct zset_reply *zr, long long n);

/* zset_visit_fn writing one member. */
bool zset_reply_member(const char *member, size_t len, double score, void *arg);

/* ZADD's option words (NX, XX, CH, INCR, GT, LT, any case, any order)
 * from argv[i] on, only those in `allowed` (ZSET_ADD_* bits, and
 * ZADD_OPTION_CH for CH): sets *flags and *ch, returns the index of the
 * first other argument. GEOADD takes NX, XX and CH. */
#define ZADD_OPTION_CH (1 << 8)
int zset_parse_add_options(const struct cmd_ctx *ctx, int i, int allowed, int *flags, bool *ch);

/* ZADD's write, once its options are checked and every score parsed:
 * scores[j] for the member at argv[first_member + j * stride], under the
 * key at argv[1]; replies as ZADD (the count, or INCR's score). GEOADD
 * shares it with its own argument layout. */
void zset_add_scored(struct cmd_ctx *ctx, int flags, bool ch, const double *scores, int elements,
                     int first_member, int stride);

/* Stores `result` under argv[dst_i] (replacing any value, dropping its
 * TTL) or deletes the key when the result is empty; replies the size. */
void zset_store_result(struct cmd_ctx *ctx, int dst_i, struct zset *result);

/* cmd_zset_range.c */
void cmd_zrange(struct cmd_ctx *ctx);
void cmd_zrangestore(struct cmd_ctx *ctx);
void cmd_zrevrange(struct cmd_ctx *ctx);
void cmd_zrangebyscore(struct cmd_ctx *ctx);
void cmd_zrevrangebyscore(struct cmd_ctx *ctx);
void cmd_zrangebylex(struct cmd_ctx *ctx);
void cmd_zrevrangebylex(struct cmd_ctx *ctx);
void cmd_zremrangebyrank(struct cmd_ctx *ctx);
void cmd_zremrangebyscore(struct cmd_ctx *ctx);
void cmd_zremrangebylex(struct cmd_ctx *ctx);
void cmd_zcount(struct cmd_ctx *ctx);
void cmd_zlexcount(struct cmd_ctx *ctx);

/* cmd_zset_ops.c */
void cmd_zunionstore(struct cmd_ctx *ctx);
void cmd_zinterstore(struct cmd_ctx *ctx);
void cmd_zdiffstore(struct cmd_ctx *ctx);
void cmd_zunion(struct cmd_ctx *ctx);
void cmd_zinter(struct cmd_ctx *ctx);
void cmd_zdiff(struct cmd_ctx *ctx);
void cmd_zintercard(struct cmd_ctx *ctx);

/* cmd_zset_pop.c */
void cmd_zmpop(struct cmd_ctx *ctx);
void cmd_bzmpop(struct cmd_ctx *ctx);
void cmd_bzpopmin(struct cmd_ctx *ctx);
void cmd_bzpopmax(struct cmd_ctx *ctx);

#endif
