/* cmd_pubsub.c — Pub/Sub commands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE,
 * PUNSUBSCRIBE, PUBLISH, the shard-channel SSUBSCRIBE, SUNSUBSCRIBE and
 * SPUBLISH, PUBSUB CHANNELS/NUMSUB/NUMPAT/SHARDCHANNELS/SHARDNUMSUB/HELP,
 * and RESET (which is mostly about leaving subscribed mode).
 *
 * Acknowledgements are pushes (`>` in RESP3, `*` in RESP2) of
 * [kind, name-or-nil, subscriptions left], one per argument, exactly as
 * Redis 7.0 sends them; delivery itself is session_publish()'s (connection/session.h). */
#include <ctype.h>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "commands/command.h"
#include "commands/propagate.h"
#include "connection/session.h"

static void reply_subscription_ack(struct reply *r, const char *kind, const char *name, size_t len,
                                   size_t count)
{
    reply_push_len(r, 3);
    reply_bulk_cstr(r, kind);
    if (name)
        reply_bulk(r, name, len);
    else
        reply_nil(r);
    reply_int(r, (long long)count);
}

/* The count an acknowledgement carries: shard subscriptions are counted
 * apart from channels and patterns (Redis 7.0). */
static size_t ack_count(const struct cmd_ctx *ctx, enum pubsub_kind kind)
{
    const struct pubsub_subscriber *s = session_subscriber(ctx->conn);
    return kind == PUBSUB_SHARD ? pubsub_shard_subscription_count(s) : pubsub_subscription_count(s);
}

static void subscribe_each(struct cmd_ctx *ctx, enum pubsub_kind kind, const char *ack)
{
    session_reply_is_push(ctx->conn);
    for (int i = 1; i < ctx->argc; i++) {
        session_subscribe(ctx->conn, kind, ctx->argv[i], ctx->argv_len[i]);
        reply_subscription_ack(ctx->reply, ack, ctx->argv[i], ctx->argv_len[i],
                               ack_count(ctx, kind));
    }
}

static void cmd_subscribe(struct cmd_ctx *ctx)
{
    subscribe_each(ctx, PUBSUB_CHANNEL, "subscribe");
}

static void cmd_psubscribe(struct cmd_ctx *ctx)
{
    subscribe_each(ctx, PUBSUB_PATTERN, "psubscribe");
}

static void cmd_ssubscribe(struct cmd_ctx *ctx)
{
    subscribe_each(ctx, PUBSUB_SHARD, "ssubscribe");
}

struct unsubscribe_all_state {
    struct cmd_ctx *ctx;
    enum pubsub_kind kind;
    const char *ack;
};

static void unsubscribe_all_ack(const char *name, size_t len, void *arg)
{
    struct unsubscribe_all_state *st = arg;
    reply_subscription_ack(st->ctx->reply, st->ack, name, len, ack_count(st->ctx, st->kind));
}

/* Without arguments: everything of that kind in subscription order, or one
 * ack with a nil name when there was nothing. With arguments: one ack per
 * argument, whether or not it was subscribed. */
static void unsubscribe_each(struct cmd_ctx *ctx, enum pubsub_kind kind, const char *ack)
{
    struct pubsub_subscriber *s = session_subscriber(ctx->conn);
    session_reply_is_push(ctx->conn);
    if (ctx->argc == 1) {
        struct unsubscribe_all_state st = {ctx, kind, ack};
        if (pubsub_unsubscribe_all(s, kind, unsubscribe_all_ack, &st) == 0)
            reply_subscription_ack(ctx->reply, ack, NULL, 0, ack_count(ctx, kind));
        return;
    }
    for (int i = 1; i < ctx->argc; i++) {
        pubsub_unsubscribe(s, kind, ctx->argv[i], ctx->argv_len[i]);
        reply_subscription_ack(ctx->reply, ack, ctx->argv[i], ctx->argv_len[i],
                               ack_count(ctx, kind));
    }
}

static void cmd_unsubscribe(struct cmd_ctx *ctx)
{
    unsubscribe_each(ctx, PUBSUB_CHANNEL, "unsubscribe");
}

static void cmd_punsubscribe(struct cmd_ctx *ctx)
{
    unsubscribe_each(ctx, PUBSUB_PATTERN, "punsubscribe");
}

static void cmd_sunsubscribe(struct cmd_ctx *ctx)
{
    unsubscribe_each(ctx, PUBSUB_SHARD, "sunsubscribe");
}

static void cmd_publish(struct cmd_ctx *ctx)
{
    long long receivers = session_publish(PUBSUB_CHANNEL, ctx->argv[1], ctx->argv_len[1],
                                          ctx->argv[2], ctx->argv_len[2]);
    /* Cluster mode: every node's subscribers get it (the count is local);
     * otherwise replicas' subscribers do, through the replication stream. */
    if (cluster_enabled)
        cluster_bus_publish(ctx->argv[1], ctx->argv_len[1], ctx->argv[2], ctx->argv_len[2]);
    else
        propagate_to_replicas(ctx);
    reply_int(ctx->reply, receivers);
}

static void cmd_spublish(struct cmd_ctx *ctx)
{
    long long receivers = session_publish(PUBSUB_SHARD, ctx->argv[1], ctx->argv_len[1],
                                          ctx->argv[2], ctx->argv_len[2]);
    if (!cluster_enabled) propagate_to_replicas(ctx);
    reply_int(ctx->reply, receivers);
}

/* --- PUBSUB ----------------------------------------------------------- */

struct channels_state {
    struct reply *reply;
    long long count;
};

static void channels_emit(const char *name, size_t len, void *arg)
{
    struct channels_state *st = arg;
    reply_bulk(st->reply, name, len);
    st->count++;
}

static void pubsub_channels(struct cmd_ctx *ctx, enum pubsub_kind kind)
{
    if (ctx->argc > 3) {
        reply_subcommand_syntax_error(ctx);
        return;
    }
    struct channels_state st = {ctx->reply, 0};
    reply_mark m = reply_defer(ctx->reply);
    if (ctx->argc == 3)
        pubsub_foreach_channel(kind, ctx->argv[2], ctx->argv_len[2], channels_emit, &st);
    else
        pubsub_foreach_channel(kind, NULL, 0, channels_emit, &st);
    reply_defer_array(ctx->reply, m, st.count);
}

static void pubsub_numsub(struct cmd_ctx *ctx, enum pubsub_kind kind)
{
    reply_array_len(ctx->reply, (long long)(ctx->argc - 2) * 2);
    for (int i = 2; i < ctx->argc; i++) {
        reply_bulk(ctx->reply, ctx->argv[i], ctx->argv_len[i]);
        size_t n = pubsub_channel_subscribers(kind, ctx->argv[i], ctx->argv_len[i]);
        reply_int(ctx->reply, (long long)n);
    }
}

static void cmd_pubsub_channels(struct cmd_ctx *ctx)
{
    pubsub_channels(ctx, PUBSUB_CHANNEL);
}

static void cmd_pubsub_shardchannels(struct cmd_ctx *ctx)
{
    pubsub_channels(ctx, PUBSUB_SHARD);
}

static void cmd_pubsub_numsub(struct cmd_ctx *ctx)
{
    pubsub_numsub(ctx, PUBSUB_CHANNEL);
}

static void cmd_pubsub_shardnumsub(struct cmd_ctx *ctx)
{
    pubsub_numsub(ctx, PUBSUB_SHARD);
}

static void cmd_pubsub_numpat(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, (long long)pubsub_pattern_count());
}

static void cmd_pubsub_help(struct cmd_ctx *ctx)
{
    /* Redis 7.0.15's text, line for line. */
    static const char *const lines[] = {
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: "
        "'*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

static struct command pubsub_subcommands[] = {
    {.name = "channels",
     .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE,
     .fn = cmd_pubsub_channels,
     .summary = "List active channels",
     .since = "2.8.0",
     .group = "pubsub",
     .complexity = "O(N) where N is the number of active channels, and assuming constant time "
                   "pattern matching (relatively short channels and patterns)"},
    {.name = "numsub",
     .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE,
     .fn = cmd_pubsub_numsub,
     .summary = "Get the count of subscribers for channels",
     .since = "2.8.0",
     .group = "pubsub",
     .complexity = "O(N) for the NUMSUB subcommand, where N is the number of requested channels"},
    {.name = "numpat",
     .arity = 2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE,
     .fn = cmd_pubsub_numpat,
     .summary = "Get the count of unique patterns pattern subscriptions",
     .since = "2.8.0",
     .group = "pubsub",
     .complexity = "O(1)"},
    {.name = "shardchannels",
     .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE,
     .fn = cmd_pubsub_shardchannels,
     .summary = "List active shard channels",
     .since = "7.0.0",
     .group = "pubsub",
     .complexity = "O(N) where N is the number of active shard channels, and assuming constant "
                   "time pattern matching (relatively short shard channels)."},
    {.name = "shardnumsub",
     .arity = -2,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE,
     .fn = cmd_pubsub_shardnumsub,
     .summary = "Get the count of subscribers for shard channels",
     .since = "7.0.0",
     .group = "pubsub",
     .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested "
                   "shard channels"},
    {.name = "help",
     .arity = 2,
     .flags = CMD_LOADING | CMD_STALE,
     .fn = cmd_pubsub_help,
     .summary = "Show helpful text about the different subcommands",
     .since = "6.2.0",
     .group = "pubsub",
     .complexity = "O(1)"},
    COMMAND_END,
};

#define SUBSCRIBE_FLAGS (CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_PUBSUB_OK)

struct command pubsub_commands[] = {
    {.name = "subscribe",
     .arity = -2,
     .flags = SUBSCRIBE_FLAGS,
     .fn = cmd_subscribe,
     .summary = "Listen for messages published to the given channels",
     .since = "2.0.0",
     .group = "pubsub",
     .complexity = "O(N) where N is the number of channels to subscribe to."},
    {.name = "unsubscribe",
     .arity = -1,
     .flags = SUBSCRIBE_FLAGS,
     .fn = cmd_unsubscribe,
     .summary = "Stop listening for messages posted to the given channels",
     .since = "2.0.0",
     .group = "pubsub",
     .complexity = "O(N) where N is the number of clients already subscribed to a channel."},
    {.name = "psubscribe",
     .arity = -2,
     .flags = SUBSCRIBE_FLAGS,
     .fn = cmd_psubscribe,
     .summary = "Listen for messages published to channels matching the given patterns",
     .since = "2.0.0",
     .group = "pubsub",
     .complexity = "O(N) where N is the number of patterns the client is already subscribed to."},
    {.name = "punsubscribe",
     .arity = -1,
     .flags = SUBSCRIBE_FLAGS,
     .fn = cmd_punsubscribe,
     .summary = "Stop listening for messages posted to channels matching the given patterns",
     .since = "2.0.0",
     .group = "pubsub",
     .complexity = "O(N+M) where N is the number of patterns the client is already subscribed "
                   "and M is the number of total patterns subscribed in the system (by any "
                   "client)."},
    {.name = "publish",
     .arity = 3,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE,
     .fn = cmd_publish,
     .summary = "Post a message to a channel",
     .since = "2.0.0",
     .group = "pubsub",
     .complexity = "O(N+M) where N is the number of clients subscribed to the receiving channel "
                   "and M is the total number of subscribed patterns (by any client)."},
    {.name = "ssubscribe",
     .arity = -2,
     .flags = SUBSCRIBE_FLAGS,
     .fn = cmd_ssubscribe,
     .first_key = 1,
     .last_key = -1,
     .key_step = 1,
     .summary = "Listen for messages published to the given shard channels",
     .since = "7.0.0",
     .group = "pubsub",
     .complexity = "O(N) where N is the number of shard channels to subscribe to."},
    {.name = "sunsubscribe",
     .arity = -1,
     .flags = SUBSCRIBE_FLAGS,
     .fn = cmd_sunsubscribe,
     .first_key = 1,
     .last_key = -1,
     .key_step = 1,
     .summary = "Stop listening for messages posted to the given shard channels",
     .since = "7.0.0",
     .group = "pubsub",
     .complexity = "O(N) where N is the number of clients already subscribed to a shard "
                   "channel."},
    {.name = "spublish",
     .arity = 3,
     .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE,
     .fn = cmd_spublish,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Post a message to a shard channel",
     .since = "7.0.0",
     .group = "pubsub",
     .complexity = "O(N) where N is the number of clients subscribed to the receiving shard "
                   "channel."},
    {.name = "pubsub",
     .arity = -2,
     .flags = 0,
     .fn = NULL,
     .subcommands = pubsub_subcommands,
     .summary = "A container for Pub/Sub commands",
     .since = "2.8.0",
     .group = "pubsub",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
