/* cmd_zset_range.c — the sorted-set range commands: ZRANGE (BYSCORE,
 * BYLEX, REV, LIMIT, WITHSCORES), ZRANGESTORE, the legacy ZREVRANGE /
 * Z[REV]RANGEBYSCORE / Z[REV]RANGEBYLEX, ZCOUNT, ZLEXCOUNT and the
 * ZREMRANGEBY* family. Every range becomes a rank interval of the store
 * (zset_*_range_ranks) before anything is read or removed. */
#include "commands/sorted_set/cmd_zset.h"

#include "commands/typed_args.h"

enum range_type { RANGE_AUTO, RANGE_RANK, RANGE_SCORE, RANGE_LEX };
enum range_direction { DIRECTION_AUTO, DIRECTION_FORWARD, DIRECTION_REVERSE };

static const char ERR_NOT_FLOAT[] = "ERR min or max is not a float";
static const char ERR_NOT_LEX[] = "ERR min or max not valid string range item";

/* Rank interval of Redis's start/stop indexes (negative from the end),
 * in the order the command names them: for a reverse range, index 0 is
 * the highest score. */
static void rank_interval(long long start, long long stop, size_t len, bool reverse, size_t *first,
                          size_t *end)
{
    long long llen = (long long)len;
    if (start < 0) start += llen;
    if (stop < 0) stop += llen;
    if (start < 0) start = 0;
    if (start > stop || start >= llen) {
        *first = *end = 0;
        return;
    }
    if (stop >= llen) stop = llen - 1;
    if (reverse) {
        *first = (size_t)(llen - 1 - stop);
        *end = (size_t)(llen - start);
    } else {
        *first = (size_t)start;
        *end = (size_t)stop + 1;
    }
}

/* Applies LIMIT offset count to [first, end), counted from the end the
 * iteration starts at. A negative offset selects nothing and a negative
 * count means "all", as in Redis. */
static void apply_limit(size_t *first, size_t *end, bool reverse, long long offset, long long count)
{
    size_t n = *end - *first;
    if (offset < 0 || (size_t)offset >= n) {
        *first = *end;
        return;
    }
    n -= (size_t)offset;
    if (count >= 0 && (size_t)count < n) n = (size_t)count;
    if (reverse) {
        *end -= (size_t)offset;
        *first = *end - n;
    } else {
        *first += (size_t)offset;
        *end = *first + n;
    }
}

struct store_state {
    struct zset *result;
};

static bool store_member(const char *member, size_t len, double score, void *arg)
{
    struct store_state *st = arg;
    double out;
    zset_add(st->result, member, len, score, 0, &out);
    return true;
}

/* Redis's zrangeGenericCommand: argv[key_i] is the source, followed by
 * min and max, then options. `dst_i` > 0 stores the result there. */
static void zrange_generic(struct cmd_ctx *ctx, int key_i, int dst_i, enum range_type type,
                           enum range_direction direction)
{
    int min_i = key_i + 1, max_i = key_i + 2;
    bool store = dst_i > 0, with_scores = false;
    long long offset = 0, limit = -1;
    for (int j = key_i + 3; j < ctx->argc; j++) {
        int left = ctx->argc - j - 1;
        if (!store && arg_equals(ctx, j, "withscores")) {
            with_scores = true;
        } else if (arg_equals(ctx, j, "limit") && left >= 2) {
            if (!arg_to_ll(ctx, j + 1, &offset) || !arg_to_ll(ctx, j + 2, &limit)) return;
            j += 2;
        } else if (direction == DIRECTION_AUTO && arg_equals(ctx, j, "rev")) {
            direction = DIRECTION_REVERSE;
        } else if (type == RANGE_AUTO && arg_equals(ctx, j, "bylex")) {
            type = RANGE_LEX;
        } else if (type == RANGE_AUTO && arg_equals(ctx, j, "byscore")) {
            type = RANGE_SCORE;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    if (direction == DIRECTION_AUTO) direction = DIRECTION_FORWARD;
    if (type == RANGE_AUTO) type = RANGE_RANK;
    bool reverse = direction == DIRECTION_REVERSE;
    if (limit != -1 && type == RANGE_RANK) {
        reply_error(ctx->reply, "ERR syntax error, LIMIT is only supported in combination with "
                                "either BYSCORE or BYLEX");
        return;
    }
    if (with_scores && type == RANGE_LEX) {
        reply_error(ctx->reply,
                    "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    /* Score and lex ranges are written max first when reversed. */
    if (reverse && type != RANGE_RANK) {
        int tmp = min_i;
        min_i = max_i;
        max_i = tmp;
    }
    long long start = 0, stop = 0;
    struct zset_score_range score_range;
    struct zset_lex_range lex_range;
    switch (type) {
    case RANGE_SCORE:
        if (!zset_parse_score_range(ctx, min_i, max_i, &score_range)) {
            reply_error(ctx->reply, ERR_NOT_FLOAT);
            return;
        }
        break;
    case RANGE_LEX:
        if (!zset_parse_lex_range(ctx, min_i, max_i, &lex_range)) {
            reply_error(ctx->reply, ERR_NOT_LEX);
            return;
        }
        break;
    default:
        if (!arg_to_ll(ctx, min_i, &start) || !arg_to_ll(ctx, max_i, &stop)) return;
        break;
    }
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, key_i, OBJ_ZSET, &replied);
    if (replied) return;
    size_t first = 0, end = 0;
    if (kv) {
        struct zset *z = zset_of(kv);
        if (type == RANGE_RANK) {
            rank_interval(start, stop, zset_len(z), reverse, &first, &end);
        } else {
            if (type == RANGE_SCORE)
                zset_score_range_ranks(z, &score_range, &first, &end);
            else
                zset_lex_range_ranks(z, &lex_range, &first, &end);
            apply_limit(&first, &end, reverse, offset, limit);
        }
    }
    if (store) {
        /* Redis sizes the destination by the rank range when it knows it. */
        struct store_state st = {zset_new_sized(type == RANGE_RANK ? end - first : 0)};
        if (kv) zset_visit_ranks(zset_of(kv), first, end, reverse, store_member, &st);
        zset_store_result(ctx, dst_i, st.result);
        return;
    }
    struct zset_reply zr = {ctx->reply, with_scores, false};
    zset_reply_begin(&zr, (long long)(end - first));
    if (kv) zset_visit_ranks(zset_of(kv), first, end, reverse, zset_reply_member, &zr);
}

void cmd_zrange(struct cmd_ctx *ctx)
{
    zrange_generic(ctx, 1, 0, RANGE_AUTO, DIRECTION_AUTO);
}

void cmd_zrangestore(struct cmd_ctx *ctx)
{
    zrange_generic(ctx, 2, 1, RANGE_AUTO, DIRECTION_AUTO);
}

void cmd_zrevrange(struct cmd_ctx *ctx)
{
    zrange_generic(ctx, 1, 0, RANGE_RANK, DIRECTION_REVERSE);
}

void cmd_zrangebyscore(struct cmd_ctx *ctx)
{
    zrange_generic(ctx, 1, 0, RANGE_SCORE, DIRECTION_FORWARD);
}

void cmd_zrevrangebyscore(struct cmd_ctx *ctx)
{
    zrange_generic(ctx, 1, 0, RANGE_SCORE, DIRECTION_REVERSE);
}

void cmd_zrangebylex(struct cmd_ctx *ctx)
{
    zrange_generic(ctx, 1, 0, RANGE_LEX, DIRECTION_FORWARD);
}

void cmd_zrevrangebylex(struct cmd_ctx *ctx)
{
    zrange_generic(ctx, 1, 0, RANGE_LEX, DIRECTION_REVERSE);
}

/* ZCOUNT / ZLEXCOUNT: the range is parsed before the key is looked up. */
static void count_generic(struct cmd_ctx *ctx, enum range_type type)
{
    struct zset_score_range score_range;
    struct zset_lex_range lex_range;
    if (type == RANGE_SCORE && !zset_parse_score_range(ctx, 2, 3, &score_range)) {
        reply_error(ctx->reply, ERR_NOT_FLOAT);
        return;
    }
    if (type == RANGE_LEX && !zset_parse_lex_range(ctx, 2, 3, &lex_range)) {
        reply_error(ctx->reply, ERR_NOT_LEX);
        return;
    }
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    size_t first = 0, end = 0;
    if (kv && type == RANGE_SCORE) zset_score_range_ranks(zset_of(kv), &score_range, &first, &end);
    if (kv && type == RANGE_LEX) zset_lex_range_ranks(zset_of(kv), &lex_range, &first, &end);
    reply_int(ctx->reply, (long long)(end - first));
}

void cmd_zcount(struct cmd_ctx *ctx)
{
    count_generic(ctx, RANGE_SCORE);
}

void cmd_zlexcount(struct cmd_ctx *ctx)
{
    count_generic(ctx, RANGE_LEX);
}

/* ZREMRANGEBYRANK / BYSCORE / BYLEX. */
static void remrange_generic(struct cmd_ctx *ctx, enum range_type type)
{
    long long start = 0, stop = 0;
    struct zset_score_range score_range;
    struct zset_lex_range lex_range;
    if (type == RANGE_RANK && (!arg_to_ll(ctx, 2, &start) || !arg_to_ll(ctx, 3, &stop))) return;
    if (type == RANGE_SCORE && !zset_parse_score_range(ctx, 2, 3, &score_range)) {
        reply_error(ctx->reply, ERR_NOT_FLOAT);
        return;
    }
    if (type == RANGE_LEX && !zset_parse_lex_range(ctx, 2, 3, &lex_range)) {
        reply_error(ctx->reply, ERR_NOT_LEX);
        return;
    }
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    if (!kv) {
        reply_int(ctx->reply, 0);
        return;
    }
    struct zset *z = zset_of(kv);
    size_t first, end;
    if (type == RANGE_RANK)
        rank_interval(start, stop, zset_len(z), false, &first, &end);
    else if (type == RANGE_SCORE)
        zset_score_range_ranks(z, &score_range, &first, &end);
    else
        zset_lex_range_ranks(z, &lex_range, &first, &end);
    size_t removed = zset_delete_ranks(z, first, end);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], (long long)removed);
    if (removed) cmd_notify(ctx, NOTIFY_ZSET, ctx->cmd->name, 1); /* zremrangebyrank... */
    if (zset_len(z) == 0) {
        db_delete_kv(ctx->db, kv);
        cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
    }
    reply_int(ctx->reply, (long long)removed);
}

void cmd_zremrangebyrank(struct cmd_ctx *ctx)
{
    remrange_generic(ctx, RANGE_RANK);
}

void cmd_zremrangebyscore(struct cmd_ctx *ctx)
{
    remrange_generic(ctx, RANGE_SCORE);
}

void cmd_zremrangebylex(struct cmd_ctx *ctx)
{
    remrange_generic(ctx, RANGE_LEX);
}
