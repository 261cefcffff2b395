/* cmd_keys.c — generic keyspace commands. */
#include <string.h>

#include "commands/command.h"

static void cmd_del(struct cmd_ctx *ctx)
{
    long long removed = 0;
    for (int i = 1; i < ctx->argc; i++)
        if (db_delete(ctx->db, ctx->argv[i], ctx->argv_len[i])) removed++;
    reply_int(ctx->reply, removed);
}

static void cmd_exists(struct cmd_ctx *ctx)
{
    long long found = 0;
    for (int i = 1; i < ctx->argc; i++)
        if (db_lookup_read(ctx->db, ctx->argv[i], ctx->argv_len[i])) found++;
    reply_int(ctx->reply, found);
}

struct command key_commands[] = {
    {.name = "del", .arity = -2, .flags = CMD_WRITE, .fn = cmd_del, .first_key = 1,
     .last_key = -1, .key_step = 1, .summary = "Deletes one or more keys.", .since = "1.0.0",
     .group = "generic", .complexity = "O(N) where N is the number of keys that will be removed."},
    {.name = "exists", .arity = -2, .flags = CMD_READONLY | CMD_FAST, .fn = cmd_exists,
     .first_key = 1, .last_key = -1, .key_step = 1,
     .summary = "Determines whether one or more keys exist.", .since = "1.0.0",
     .group = "generic", .complexity = "O(N) where N is the number of keys to check."},
    COMMAND_END,
};
