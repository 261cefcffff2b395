/* cmd_server.c — commands about the server: DBSIZE, FLUSHALL, FLUSHDB, TIME,
 * CONFIG, COMMAND, INFO, SHUTDOWN. */
#include <string.h>

#include "commands/command.h"
#include "connection/conn.h"
#include "server/config.h"
#include "server/event_loop.h"
#include "util/clock.h"

static void cmd_dbsize(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, (long long)dict_size(&ctx->db->keys));
}

static void cmd_flushall(struct cmd_ctx *ctx)
{
    keyspace_flush_all();
    reply_ok(ctx->reply);
}

static void cmd_flushdb(struct cmd_ctx *ctx)
{
    db_flush(ctx->db);
    reply_ok(ctx->reply);
}

static void cmd_time(struct cmd_ctx *ctx)
{
    int64_t us = clock_unix_us();
    reply_array_len(ctx->reply, 2);
    reply_bulk_ll(ctx->reply, us / 1000000);
    reply_bulk_ll(ctx->reply, us % 1000000);
}

struct config_get_state {
    struct reply *reply;
    long long pairs;
};

static void config_get_emit(const char *name, const char *value, void *arg)
{
    struct config_get_state *st = arg;
    reply_bulk_cstr(st->reply, name);
    reply_bulk_cstr(st->reply, value);
    st->pairs++;
}

static void cmd_config_get(struct cmd_ctx *ctx)
{
    struct config_get_state st = {.reply = ctx->reply};
    reply_mark m = reply_defer(ctx->reply);
    for (int i = 2; i < ctx->argc; i++)
        config_get_matching(ctx->argv[i], ctx->argv_len[i], config_get_emit, &st, NULL);
    reply_defer_map(ctx->reply, m, st.pairs);
}

static void cmd_config_set(struct cmd_ctx *ctx)
{
    if ((ctx->argc - 2) % 2 != 0) {
        reply_error_arity(ctx->reply, "config|set");
        return;
    }
    for (int i = 2; i < ctx->argc; i += 2) {
        const char *err = config_set(ctx->argv[i], ctx->argv_len[i], ctx->argv[i + 1],
                                     ctx->argv_len[i + 1]);
        if (err) {
            reply_error_fmt(ctx->reply, "ERR %s", err);
            return;
        }
    }
    reply_ok(ctx->reply);
}

static struct command config_subcommands[] = {
    {.name = "get", .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_config_get, .summary = "Returns the effective values of configuration parameters.",
     .since = "2.0.0", .group = "server", .complexity = "O(N) when N is the number of configuration parameters provided"},
    {.name = "set", .arity = -4, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_config_set, .summary = "Sets configuration parameters in-flight.", .since = "2.0.0",
     .group = "server", .complexity = "O(N) when N is the number of configuration parameters provided"},
    COMMAND_END,
};

static void cmd_shutdown(struct cmd_ctx *ctx)
{
    (void)ctx;
    /* Nothing to persist: stop the loop; the connection closes with the server. */
    ev_stop();
}

struct command server_commands[] = {
    {.name = "dbsize", .arity = 1, .flags = CMD_READONLY | CMD_FAST, .fn = cmd_dbsize,
     .summary = "Returns the number of keys in the database.", .since = "1.0.0",
     .group = "server", .complexity = "O(1)"},
    {.name = "flushall", .arity = -1, .flags = CMD_WRITE, .fn = cmd_flushall,
     .summary = "Removes all keys from all databases.", .since = "1.0.0", .group = "server",
     .complexity = "O(N) where N is the total number of keys in all databases"},
    {.name = "flushdb", .arity = -1, .flags = CMD_WRITE, .fn = cmd_flushdb,
     .summary = "Remove all keys from the current database.", .since = "1.0.0",
     .group = "server", .complexity = "O(N) where N is the number of keys in the selected database"},
    {.name = "time", .arity = 1, .flags = CMD_LOADING | CMD_STALE | CMD_FAST | CMD_RANDOM,
     .fn = cmd_time, .summary = "Returns the server time.", .since = "2.6.0", .group = "server",
     .complexity = "O(1)"},
    {.name = "config", .arity = -2, .flags = 0, .fn = NULL, .subcommands = config_subcommands,
     .summary = "A container for server configuration commands.", .since = "2.0.0",
     .group = "server", .complexity = "Depends on subcommand."},
    {.name = "shutdown", .arity = -1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_shutdown, .summary = "Synchronously saves the database(s) to disk and shuts down the server.",
     .since = "1.0.0", .group = "server", .complexity = "O(N) when saving, where N is the total number of keys in all databases"},
    COMMAND_END,
};
