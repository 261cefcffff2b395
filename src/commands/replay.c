/* replay.c — the AOF's executor (persist/aof_load.h): runs a replayed
 * command as Redis's fake client does, through command_call() with a
 * reply that is discarded. Installed by command_table_init(). */
#include "commands/replay.h"

#include <stdio.h>

#include "commands/command.h"
#include "persist/aof_load.h"
#include "protocol/reply.h"
#include "store/db.h"
#include "util/buf.h"

static struct buf replies; /* what the replayed commands answer, discarded */

static bool replay_execute(int db, int argc, const char **argv, const size_t *len, const char *file,
                           size_t offset, char *err, size_t err_len)
{
    struct command *cmd = command_lookup(argv[0], len[0]);
    if (cmd && cmd->subcommands && argc >= 2) cmd = command_lookup_sub(cmd, argv[1], len[1]);
    if (!cmd) {
        snprintf(err, err_len, "Unknown command '%.*s' reading the append only file %s",
                 (int)(len[0] < 64 ? len[0] : 64), argv[0], file);
        return false;
    }
    if (!(cmd->flags & CMD_WRITE) || (cmd->flags & CMD_ADMIN)) {
        snprintf(err, err_len,
                 "command '%s' at offset %zu of the append only file %s is not a data write",
                 cmd->full_name, offset, file);
        return false;
    }
    if (cmd->arity >= 0 ? argc != cmd->arity : argc < -cmd->arity) {
        snprintf(err, err_len,
                 "wrong number of arguments for '%s' at offset %zu of the append only file %s",
                 cmd->full_name, offset, file);
        return false;
    }
    struct reply reply;
    reply_init(&reply, &replies, PROTO_RESP2);
    struct cmd_ctx ctx = {
        .reply = &reply,
        .db = keyspace_db(db),
        .argc = argc,
        .argv = argv,
        .argv_len = len,
        .cmd = cmd,
        .deny_blocking = true,
    };
    keyspace_begin_command();
    command_call(&ctx);
    buf_reset(&replies, 256);
    return true;
}

void replay_init(void)
{
    buf_init(&replies, 256);
    aof_set_executor(replay_execute);
}
