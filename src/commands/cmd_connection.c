/* cmd_connection.c — commands about the connection itself: PING, ECHO, QUIT,
 * SELECT, AUTH, HELLO, CLIENT. */
#include <string.h>

#include "commands/command.h"
#include "connection/conn.h"
#include "server/auth.h"
#include "server/config.h"

static void cmd_ping(struct cmd_ctx *ctx)
{
    if (ctx->argc > 2) {
        reply_error_arity(ctx->reply, "ping");
        return;
    }
    if (conn_in_resp2_subscribed_mode(ctx->conn)) {
        /* Redis answers a subscribed RESP2 client in the shape of a message. */
        reply_array_len(ctx->reply, 2);
        reply_bulk(ctx->reply, "pong", 4);
        if (ctx->argc == 2) reply_bulk(ctx->reply, ctx->argv[1], ctx->argv_len[1]);
        else reply_bulk(ctx->reply, "", 0);
        return;
    }
    if (ctx->argc == 2) reply_bulk(ctx->reply, ctx->argv[1], ctx->argv_len[1]);
    else reply_status(ctx->reply, "PONG");
}

static void cmd_echo(struct cmd_ctx *ctx)
{
    reply_bulk(ctx->reply, ctx->argv[1], ctx->argv_len[1]);
}

static void cmd_quit(struct cmd_ctx *ctx)
{
    reply_ok(ctx->reply);
    ctx->conn->flags |= CONN_CLOSE_AFTER_REPLY;
}

static void cmd_select(struct cmd_ctx *ctx)
{
    long long id;
    if (!arg_to_ll(ctx, 1, &id)) return;
    if (id < 0 || id >= keyspace.count) {
        reply_error(ctx->reply, "ERR DB index is out of range");
        return;
    }
    ctx->conn->db_index = (int)id;
    reply_ok(ctx->reply);
}

struct command connection_commands[] = {
    {.name = "ping", .arity = -1, .flags = CMD_FAST | CMD_PUBSUB_OK, .fn = cmd_ping,
     .summary = "Returns the server's liveliness response.", .since = "1.0.0",
     .group = "connection", .complexity = "O(1)"},
    {.name = "echo", .arity = 2, .flags = CMD_FAST, .fn = cmd_echo,
     .summary = "Returns the given string.", .since = "1.0.0", .group = "connection",
     .complexity = "O(1)"},
    {.name = "quit", .arity = -1, .flags = CMD_NO_AUTH | CMD_PUBSUB_OK | CMD_FAST, .fn = cmd_quit,
     .summary = "Closes the connection.", .since = "1.0.0", .group = "connection",
     .complexity = "O(1)"},
    {.name = "select", .arity = 2, .flags = CMD_FAST | CMD_LOADING | CMD_STALE, .fn = cmd_select,
     .summary = "Changes the selected database.", .since = "1.0.0", .group = "connection",
     .complexity = "O(1)"},
    COMMAND_END,
};
