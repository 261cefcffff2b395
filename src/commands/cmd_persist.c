/* cmd_persist.c — persistence commands: SAVE, BGSAVE, LASTSAVE (DUMP and
 * RESTORE serialize single values; SHUTDOWN and DEBUG RELOAD are in
 * cmd_server.c). The work is in persist/. */
#include "commands/command.h"
#include "persist/persist.h"

static void cmd_save(struct cmd_ctx *ctx)
{
    char err[1024];
    if (persist_bgsave_in_progress()) {
        reply_error(ctx->reply, "ERR Background save already in progress");
        return;
    }
    if (persist_save(err, sizeof err))
        reply_ok(ctx->reply);
    else
        reply_error(ctx->reply, "ERR"); /* Redis's shared.err; the log has the reason */
}

static void cmd_bgsave(struct cmd_ctx *ctx)
{
    bool schedule = false;
    if (ctx->argc > 1) {
        if (ctx->argc == 2 && arg_equals(ctx, 1, "schedule")) {
            schedule = true;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    if (persist_bgsave_in_progress()) {
        if (schedule) {
            persist_schedule_bgsave();
            reply_status(ctx->reply, "Background saving scheduled");
        } else {
            reply_error(ctx->reply, "ERR Background save already in progress");
        }
        return;
    }
    if (persist_bgsave() == PERSIST_BGSAVE_STARTED)
        reply_status(ctx->reply, "Background saving started");
    else
        reply_error(ctx->reply, "ERR");
}

static void cmd_lastsave(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, persist_lastsave());
}

struct command persist_commands[] = {
    {.name = "save",
     .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .fn = cmd_save,
     .summary = "Synchronously saves the database(s) to disk.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(N) where N is the total number of keys in all databases"},
    {.name = "bgsave",
     .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .fn = cmd_bgsave,
     .summary = "Asynchronously saves the database(s) to disk.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "lastsave",
     .arity = 1,
     .flags = CMD_LOADING | CMD_STALE | CMD_FAST | CMD_RANDOM,
     .fn = cmd_lastsave,
     .summary = "Returns the Unix timestamp of the last successful save to disk.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(1)"},
    COMMAND_END,
};
