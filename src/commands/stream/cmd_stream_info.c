/* cmd_stream_info.c — XINFO STREAM [FULL [COUNT n]], GROUPS, CONSUMERS
 * and HELP, with Redis 7.0's replies (xinfoCommand). */
#include <string.h>

#include "commands/stream/cmd_stream.h"

/* The stream every subcommand but HELP names (Redis looks it up before
 * telling the subcommands apart); NULL when it replied an error. */
static struct stream *info_stream(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = stream_lookup_read(ctx, 2, &replied);
    if (replied) return NULL;
    if (!kv) {
        reply_error(ctx->reply, "ERR no such key");
        return NULL;
    }
    return stream_of(kv);
}

static void reply_key(struct reply *r, const char *k)
{
    reply_bulk(r, k, strlen(k));
}

static void reply_name(struct reply *r, const struct stream_named *n)
{
    reply_bulk(r, n->name, n->len);
}

/* A group's position in the stream, as both XINFO GROUPS and STREAM FULL
 * list it: last-delivered-id, entries-read and lag (nil when 7.0 cannot
 * tell them). */
static void reply_group_position(struct reply *r, const struct stream *s,
                                 const struct stream_cgroup *g)
{
    reply_key(r, "last-delivered-id");
    reply_stream_id(r, &g->last_id);
    reply_key(r, "entries-read");
    if (g->entries_read != STREAM_ENTRIES_READ_INVALID)
        reply_int(r, g->entries_read);
    else
        reply_nil(r);
    reply_key(r, "lag");
    long long lag;
    if (stream_cg_lag(s, g, &lag))
        reply_int(r, lag);
    else
        reply_nil(r);
}

/* Pending entries for XINFO STREAM FULL (at most count; 0: all): a
 * group's as [id, consumer, delivery time, deliveries], a consumer's
 * without the consumer. */
static void reply_pel(struct reply *r, const struct idtree *pel, long long count,
                      bool with_consumer)
{
    reply_mark m = reply_defer(r);
    long long n = 0;
    for (struct idtree_pos p = idtree_first(pel); idtree_pos_valid(&p) && (!count || n < count);
         idtree_next(&p), n++) {
        const struct stream_nack *nack = idtree_pos_value(&p);
        reply_array_len(r, with_consumer ? 4 : 3);
        reply_stream_id(r, idtree_pos_key(&p));
        if (with_consumer) reply_name(r, &nack->consumer->named);
        reply_int(r, nack->delivery_time);
        reply_int(r, (long long)nack->delivery_count);
    }
    reply_defer_array(r, m, n);
}

static void reply_consumers_full(struct reply *r, const struct stream_cgroup *g, long long count)
{
    size_t nc;
    struct stream_consumer *const *cons = stream_consumer_list(g, &nc);
    reply_array_len(r, (long long)nc);
    for (size_t i = 0; i < nc; i++) {
        const struct stream_consumer *c = cons[i];
        reply_map_len(r, 4);
        reply_key(r, "name");
        reply_name(r, &c->named);
        reply_key(r, "seen-time");
        reply_int(r, c->seen_time);
        reply_key(r, "pel-count");
        reply_int(r, (long long)idtree_count(&c->pel));
        reply_key(r, "pending");
        reply_pel(r, &c->pel, count, false);
    }
}

static void reply_groups_full(struct reply *r, const struct stream *s, long long count)
{
    size_t ng;
    struct stream_cgroup *const *groups = stream_cg_list(s, &ng);
    reply_array_len(r, (long long)ng);
    for (size_t i = 0; i < ng; i++) {
        const struct stream_cgroup *g = groups[i];
        reply_map_len(r, 7);
        reply_key(r, "name");
        reply_name(r, &g->named);
        reply_group_position(r, s, g);
        reply_key(r, "pel-count");
        reply_int(r, (long long)idtree_count(&g->pel));
        reply_key(r, "pending");
        reply_pel(r, &g->pel, count, true);
        reply_key(r, "consumers");
        reply_consumers_full(r, g, count);
    }
}

void cmd_xinfo_stream(struct cmd_ctx *ctx)
{
    struct stream *s = info_stream(ctx);
    if (!s) return;
    bool full = ctx->argc > 3;
    long long count = 10; /* FULL's default, so the server is not blocked */
    if (full) {
        int optc = ctx->argc - 3;
        if ((optc != 1 && optc != 3) || !arg_equals(ctx, 3, "full") ||
            (optc == 3 && !arg_equals(ctx, 4, "count"))) {
            reply_subcommand_syntax_error(ctx);
            return;
        }
        if (optc == 3) {
            if (!arg_to_ll(ctx, 5, &count)) return;
            if (count < 0) count = 10;
        }
    }
    struct reply *r = ctx->reply;
    reply_map_len(r, full ? 9 : 10);
    reply_key(r, "length");
    reply_int(r, (long long)s->length);
    reply_key(r, "radix-tree-keys");
    reply_int(r, (long long)stream_node_count(s));
    reply_key(r, "radix-tree-nodes");
    reply_int(r, (long long)stream_rax_nodes(s));
    reply_key(r, "last-generated-id");
    reply_stream_id(r, &s->last_id);
    reply_key(r, "max-deleted-entry-id");
    reply_stream_id(r, &s->max_deleted_id);
    reply_key(r, "entries-added");
    reply_int(r, (long long)s->entries_added);
    reply_key(r, "recorded-first-entry-id");
    reply_stream_id(r, &s->first_id);
    if (!full) {
        reply_key(r, "groups");
        reply_int(r, (long long)stream_cg_count(s));
        struct stream_id lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX};
        reply_key(r, "first-entry");
        if (!stream_reply_range(ctx, s, &lo, &hi, 1, false, NULL, NULL, STREAM_RANGE_RAW, NULL, 0))
            reply_nil(r);
        reply_key(r, "last-entry");
        if (!stream_reply_range(ctx, s, &lo, &hi, 1, true, NULL, NULL, STREAM_RANGE_RAW, NULL, 0))
            reply_nil(r);
        return;
    }
    reply_key(r, "entries");
    stream_reply_range(ctx, s, NULL, NULL, (size_t)count, false, NULL, NULL, 0, NULL, 0);
    reply_key(r, "groups");
    reply_groups_full(r, s, count);
}

void cmd_xinfo_groups(struct cmd_ctx *ctx)
{
    struct stream *s = info_stream(ctx);
    if (!s) return;
    struct reply *r = ctx->reply;
    size_t ng;
    struct stream_cgroup *const *groups = stream_cg_list(s, &ng);
    reply_array_len(r, (long long)ng);
    for (size_t i = 0; i < ng; i++) {
        const struct stream_cgroup *g = groups[i];
        reply_map_len(r, 6);
        reply_key(r, "name");
        reply_name(r, &g->named);
        reply_key(r, "consumers");
        reply_int(r, (long long)stream_consumer_count(g));
        reply_key(r, "pending");
        reply_int(r, (long long)idtree_count(&g->pel));
        reply_group_position(r, s, g);
    }
}

void cmd_xinfo_consumers(struct cmd_ctx *ctx)
{
    struct stream *s = info_stream(ctx);
    if (!s) return;
    struct stream_cgroup *g = stream_cg_find(s, ctx->argv[3], ctx->argv_len[3]);
    if (!g) {
        reply_error_fmt(ctx->reply, "NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                        STREAM_CSTR_ARG(ctx, 3), STREAM_CSTR_ARG(ctx, 2));
        return;
    }
    struct reply *r = ctx->reply;
    int64_t now = keyspace_now_ms();
    size_t nc;
    struct stream_consumer *const *cons = stream_consumer_list(g, &nc);
    reply_array_len(r, (long long)nc);
    for (size_t i = 0; i < nc; i++) {
        const struct stream_consumer *c = cons[i];
        int64_t idle = now - c->seen_time;
        reply_map_len(r, 3);
        reply_key(r, "name");
        reply_name(r, &c->named);
        reply_key(r, "pending");
        reply_int(r, (long long)idtree_count(&c->pel));
        reply_key(r, "idle");
        reply_int(r, idle < 0 ? 0 : idle);
    }
}

void cmd_xinfo_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}
