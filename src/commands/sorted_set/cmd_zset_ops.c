/* cmd_zset_ops.c — sorted-set algebra: ZUNION/ZINTER/ZDIFF, their STORE
 * forms and ZINTERCARD, parsed in Redis's order (numkeys, then every key
 * looked up and type-checked, then options); the arithmetic is the store's
 * (store/zset_combine.h). */
#include "commands/sorted_set/cmd_zset.h"

#include "commands/typed_args.h"
#include "store/zset_combine.h"
#include "util/xmalloc.h"

/* Inputs kept on the stack up to this many keys. */
#define COMBINE_STACK_INPUTS 16

enum combine_mode { MODE_REPLY, MODE_STORE, MODE_CARD };

static void combine_generic(struct cmd_ctx *ctx, enum zset_combine_op op, enum combine_mode mode)
{
    int numkeys_i = mode == MODE_STORE ? 2 : 1;
    long long numkeys;
    if (!arg_to_ll(ctx, numkeys_i, &numkeys)) return;
    if (numkeys < 1) {
        reply_error_fmt(ctx->reply, "ERR at least 1 input key is needed for '%s' command",
                        ctx->cmd->full_name);
        return;
    }
    if (numkeys > ctx->argc - (numkeys_i + 1)) {
        reply_error_syntax(ctx->reply);
        return;
    }
    size_t n = (size_t)numkeys;
    struct zset_input stack[COMBINE_STACK_INPUTS];
    struct zset_input *in = n <= COMBINE_STACK_INPUTS ? stack : xmalloc(n * sizeof *in);
    int j = numkeys_i + 1;
    for (size_t i = 0; i < n; i++, j++) {
        /* Read lookups also for a STORE (Redis 7.0 counts their hits and
         * misses; 7.2 changed that). */
        struct kv *kv = db_lookup_read(ctx->db, ctx->argv[j], ctx->argv_len[j]);
        if (kv && kv->type != OBJ_ZSET && kv->type != OBJ_SET) {
            reply_error_wrongtype(ctx->reply);
            goto done;
        }
        in[i] = (struct zset_input){NULL, NULL, 1.0};
        if (kv && kv->type == OBJ_ZSET) in[i].set = zset_of(kv);
        if (kv && kv->type == OBJ_SET) in[i].plain = kv->v.ptr;
    }
    enum zset_aggregate aggregate = ZSET_AGGREGATE_SUM;
    bool with_scores = false;
    long long limit = 0;
    while (j < ctx->argc) {
        int left = ctx->argc - j;
        bool algebra = op != ZSET_DIFF && mode != MODE_CARD;
        if (algebra && left >= numkeys + 1 && arg_equals(ctx, j, "weights")) {
            j++;
            for (size_t i = 0; i < n; i++, j++) {
                if (!num_parse_double(ctx->argv[j], ctx->argv_len[j], &in[i].weight)) {
                    reply_error(ctx->reply, "ERR weight value is not a float");
                    goto done;
                }
            }
        } else if (algebra && left >= 2 && arg_equals(ctx, j, "aggregate")) {
            if (arg_equals(ctx, j + 1, "sum"))
                aggregate = ZSET_AGGREGATE_SUM;
            else if (arg_equals(ctx, j + 1, "min"))
                aggregate = ZSET_AGGREGATE_MIN;
            else if (arg_equals(ctx, j + 1, "max"))
                aggregate = ZSET_AGGREGATE_MAX;
            else {
                reply_error_syntax(ctx->reply);
                goto done;
            }
            j += 2;
        } else if (mode == MODE_REPLY && arg_equals(ctx, j, "withscores")) {
            with_scores = true;
            j++;
        } else if (mode == MODE_CARD && left >= 2 && arg_equals(ctx, j, "limit")) {
            if (!num_parse_ll(ctx->argv[j + 1], ctx->argv_len[j + 1], &limit) || limit < 0) {
                reply_error(ctx->reply, "ERR LIMIT can't be negative");
                goto done;
            }
            j += 2;
        } else {
            reply_error_syntax(ctx->reply);
            goto done;
        }
    }
    if (mode == MODE_CARD) {
        reply_int(ctx->reply, (long long)zset_inter_card(in, n, (size_t)limit));
        goto done;
    }
    struct zset *result = zset_combine(op, in, n, aggregate);
    if (mode == MODE_STORE) {
        zset_compact_if_small(result);
        zset_store_result(ctx, 1, result);
        goto done;
    }
    struct zset_reply zr = {ctx->reply, with_scores, false};
    size_t len = zset_len(result);
    zset_reply_begin(&zr, (long long)len);
    zset_visit_ranks(result, 0, len, false, zset_reply_member, &zr);
    zset_free(result);
done:
    if (in != stack) xfree(in);
}

void cmd_zunionstore(struct cmd_ctx *ctx)
{
    combine_generic(ctx, ZSET_UNION, MODE_STORE);
}

void cmd_zinterstore(struct cmd_ctx *ctx)
{
    combine_generic(ctx, ZSET_INTER, MODE_STORE);
}

void cmd_zdiffstore(struct cmd_ctx *ctx)
{
    combine_generic(ctx, ZSET_DIFF, MODE_STORE);
}

void cmd_zunion(struct cmd_ctx *ctx)
{
    combine_generic(ctx, ZSET_UNION, MODE_REPLY);
}

void cmd_zinter(struct cmd_ctx *ctx)
{
    combine_generic(ctx, ZSET_INTER, MODE_REPLY);
}

void cmd_zdiff(struct cmd_ctx *ctx)
{
    combine_generic(ctx, ZSET_DIFF, MODE_REPLY);
}

void cmd_zintercard(struct cmd_ctx *ctx)
{
    combine_generic(ctx, ZSET_INTER, MODE_CARD);
}
