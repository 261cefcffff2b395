/* cmd_zset_pop.c — ZMPOP and the blocking pops of sorted sets (BZPOPMIN,
 * BZPOPMAX, BZMPOP); ZPOPMIN/ZPOPMAX are in cmd_zset.c. */
#include "commands/sorted_set/cmd_zset.h"
#include "commands/typed_args.h"
#include "connection/session.h"

static bool reply_nested_pair(const char *member, size_t len, double score, void *arg)
{
    struct reply *r = arg;
    reply_array_len(r, 2);
    reply_bulk(r, member, len);
    reply_double(r, score);
    return true;
}

static bool reply_flat_pair(const char *member, size_t len, double score, void *arg)
{
    struct reply *r = arg;
    reply_bulk(r, member, len);
    reply_double(r, score);
    return true;
}

/* Pops up to count members from the min or max end of kv (not empty),
 * replying [key, [[member, score], ...]] (nested) or [key, member, score]
 * (count 1, flat), and deletes the key when emptied. */
static void pop_and_reply(struct cmd_ctx *ctx, struct kv *kv, bool max, long long count,
                          bool nested)
{
    struct zset *z = zset_of(kv);
    size_t len = zset_len(z);
    size_t n = (size_t)count < len ? (size_t)count : len;
    size_t first = max ? len - n : 0;
    reply_array_len(ctx->reply, nested ? 2 : 3);
    reply_bulk(ctx->reply, kv->key, kv->key_len);
    if (nested) reply_array_len(ctx->reply, (long long)n);
    zset_visit_ranks(z, first, first + n, max, nested ? reply_nested_pair : reply_flat_pair,
                     ctx->reply);
    zset_delete_ranks(z, first, first + n);
    db_note_key_changes(ctx->db, kv->key, kv->key_len, (long long)n);
    if (n)
        notify_keyspace_event(NOTIFY_ZSET, max ? "zpopmax" : "zpopmin", kv->key, kv->key_len,
                              ctx->db->id);
    if (zset_len(z) == 0) {
        notify_keyspace_event(NOTIFY_GENERIC, "del", kv->key, kv->key_len, ctx->db->id);
        db_delete_kv(ctx->db, kv);
    }
}

/* The first existing sorted set among argv[first..first+n) (WRONGTYPE at a
 * key of another type met before). */
static struct kv *first_zset(struct cmd_ctx *ctx, int first, int n, bool *replied)
{
    for (int i = first; i < first + n; i++) {
        struct kv *kv = lookup_write_typed(ctx, i, OBJ_ZSET, replied);
        if (*replied) return NULL;
        if (kv) return kv;
    }
    return NULL;
}

static void mpop_generic(struct cmd_ctx *ctx, bool blocking)
{
    int first, n, dir;
    long long count;
    if (!mpop_args(ctx, blocking ? 2 : 1, "min", "max", &first, &n, &dir, &count)) return;
    int64_t deadline = 0;
    if (blocking && !arg_to_block_deadline(ctx, 1, &deadline)) return;
    bool replied;
    struct kv *kv = first_zset(ctx, first, n, &replied);
    if (replied) return;
    if (kv) {
        pop_and_reply(ctx, kv, dir == 1, count, true);
    } else if (blocking) {
        command_block_on_keys(ctx, OBJ_ZSET, first, n, deadline, false);
    } else {
        reply_nil_array(ctx->reply);
    }
}

void cmd_zmpop(struct cmd_ctx *ctx)
{
    mpop_generic(ctx, false);
}

void cmd_bzmpop(struct cmd_ctx *ctx)
{
    mpop_generic(ctx, true);
}

static void bzpop_generic(struct cmd_ctx *ctx, bool max)
{
    int64_t deadline;
    if (!arg_to_block_deadline(ctx, ctx->argc - 1, &deadline)) return;
    bool replied;
    struct kv *kv = first_zset(ctx, 1, ctx->argc - 2, &replied);
    if (replied) return;
    if (kv)
        pop_and_reply(ctx, kv, max, 1, false);
    else
        command_block_on_keys(ctx, OBJ_ZSET, 1, ctx->argc - 2, deadline, false);
}

void cmd_bzpopmin(struct cmd_ctx *ctx)
{
    bzpop_generic(ctx, false);
}

void cmd_bzpopmax(struct cmd_ctx *ctx)
{
    bzpop_generic(ctx, true);
}
