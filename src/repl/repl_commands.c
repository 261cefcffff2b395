/*
 * repl_commands.c — the replication commands: SYNC, PSYNC, REPLCONF, WAIT,
 * REPLICAOF/SLAVEOF, ROLE. Arguments are checked here with Redis 7.0's texts; the work is
 * repl/master.c's (repl.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "commands/command.h"
#include "connection/session.h"
#include "core/info_section.h"
#include "repl/repl.h"
#include "repl/repl_internal.h"
#include "store/db.h"
#include "util/numparse.h"

static void cmd_sync(struct cmd_ctx *ctx)
{
    repl_master_sync(ctx->conn, ctx->reply, false, NULL, 0, NULL, 0, false);
}

/* PSYNC replid offset [FAILOVER]. */
static void cmd_psync(struct cmd_ctx *ctx)
{
    bool failover = ctx->argc > 3 && arg_equals(ctx, 3, "failover");
    repl_master_sync(ctx->conn, ctx->reply, true, ctx->argv[1], ctx->argv_len[1], ctx->argv[2],
                     ctx->argv_len[2], failover);
}

static void cmd_replconf(struct cmd_ctx *ctx)
{
    if (ctx->argc % 2 == 0) {
        reply_error_syntax(ctx->reply);
        return;
    }
    for (int j = 1; j < ctx->argc; j += 2) {
        bool reply_ok;
        const char *err = NULL;
        if (!repl_master_replconf(ctx->conn, ctx->argv[j], ctx->argv_len[j], ctx->argv[j + 1],
                                  ctx->argv_len[j + 1], &reply_ok, &err)) {
            reply_error(ctx->reply, err);
            return;
        }
        if (!reply_ok) return; /* ACK and GETACK are never answered */
    }
    reply_ok(ctx->reply);
}

static void cmd_wait(struct cmd_ctx *ctx)
{
    long long numreplicas, timeout;
    if (!arg_to_ll(ctx, 1, &numreplicas)) return;
    if (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &timeout)) {
        reply_error(ctx->reply, "ERR timeout is not an integer or out of range");
        return;
    }
    if (timeout < 0) {
        reply_error(ctx->reply, "ERR timeout is negative");
        return;
    }
    repl_wait(ctx->conn, ctx->reply, numreplicas, timeout, !ctx->deny_blocking);
}

/* REPLICAOF / SLAVEOF host port | NO ONE. */
static void cmd_replicaof(struct cmd_ctx *ctx)
{
    if (cluster_enabled) {
        reply_error(ctx->reply, "ERR REPLICAOF not allowed in cluster mode.");
        return;
    }
    struct buf ok;
    buf_init(&ok, 64);
    const char *err = NULL;
    if (arg_equals(ctx, 1, "no") && arg_equals(ctx, 2, "one")) {
        err = repl_replicaof(NULL, 0, 0, &ok);
    } else {
        long long port;
        if (session_client_type(ctx->conn) == SESSION_CLIENT_REPLICA) {
            reply_error(ctx->reply, "ERR Command is not valid when client is a replica.");
            buf_free(&ok);
            return;
        }
        if (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &port) || port < 0 || port > 65535) {
            reply_error(ctx->reply, "ERR Invalid master port");
            buf_free(&ok);
            return;
        }
        err = repl_replicaof(ctx->argv[1], ctx->argv_len[1], port, &ok);
    }
    if (err)
        reply_error(ctx->reply, err);
    else
        reply_status_len(ctx->reply, buf_head(&ok), buf_len(&ok));
    buf_free(&ok);
}

/* FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms], Redis 7.0's parsing. */
static void cmd_failover(struct cmd_ctx *ctx)
{
    if (cluster_enabled) {
        reply_error(ctx->reply, "ERR FAILOVER not allowed in cluster mode.");
        return;
    }
    const char *err;
    if (ctx->argc == 2 && arg_equals(ctx, 1, "abort")) {
        err = repl_failover_command(NULL, 0, 0, false, 0, true);
        if (err)
            reply_error(ctx->reply, err);
        else
            reply_ok(ctx->reply);
        return;
    }
    long long timeout = 0, port = 0;
    bool force = false;
    int host_at = 0;
    for (int j = 1; j < ctx->argc; j++) {
        if (arg_equals(ctx, j, "timeout") && j + 1 < ctx->argc && timeout == 0) {
            if (!arg_to_ll(ctx, j + 1, &timeout)) return;
            if (timeout <= 0) {
                reply_error(ctx->reply, "ERR FAILOVER timeout must be greater than 0");
                return;
            }
            j++;
        } else if (arg_equals(ctx, j, "to") && j + 2 < ctx->argc && !host_at) {
            if (!arg_to_ll(ctx, j + 2, &port)) return;
            host_at = j + 1;
            j += 2;
        } else if (arg_equals(ctx, j, "force") && !force) {
            force = true;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    err = repl_failover_command(host_at ? ctx->argv[host_at] : NULL,
                                host_at ? ctx->argv_len[host_at] : 0, port, force, timeout, false);
    if (err)
        reply_error(ctx->reply, err);
    else
        reply_ok(ctx->reply);
}

static void cmd_role(struct cmd_ctx *ctx)
{
    repl_reply_role(ctx->reply);
}

static struct command repl_commands[] = {
    {.name = "sync",
     .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .fn = cmd_sync,
     .summary = "An internal command used in replication.",
     .since = "1.0.0",
     .group = "server",
     .complexity = ""},
    {.name = "psync",
     .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .fn = cmd_psync,
     .summary = "An internal command used in replication.",
     .since = "2.8.0",
     .group = "server",
     .complexity = ""},
    {.name = "replconf",
     .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY,
     .fn = cmd_replconf,
     .summary = "An internal command for configuring the replication stream.",
     .since = "3.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "wait",
     .arity = 3,
     .flags = CMD_NOSCRIPT,
     .fn = cmd_wait,
     .summary = "Blocks until the asynchronous replication of all preceding write commands sent by "
                "the connection is completed.",
     .since = "3.0.0",
     .group = "generic",
     .complexity = "O(1)"},
    {.name = "replicaof",
     .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE,
     .fn = cmd_replicaof,
     .summary = "Configure a server as replica of another, or promote it to a master.",
     .since = "5.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "slaveof",
     .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE,
     .fn = cmd_replicaof,
     .summary = "Sets a Redis server as a replica of another, or promotes it to being a master.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "failover",
     .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE,
     .fn = cmd_failover,
     .summary = "Starts a coordinated failover between this server and one of its replicas.",
     .since = "6.2.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "role",
     .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST,
     .fn = cmd_role,
     .summary = "Returns the replication role.",
     .since = "2.8.12",
     .group = "server",
     .complexity = "O(1)"},
    COMMAND_END,
};

/* --- the seams (repl.h: repl_init) ---------------------------------------- */

static bool role_checks_on(void)
{
    return keyspace.replica ||
           (repl_settings.min_replicas_to_write && repl_settings.min_replicas_max_lag);
}

static const struct command_role_checks role_checks = {
    .too_few_replicas = repl_writes_refused,
    .readonly_refusal = repl_readonly_refusal,
    .stale_refusal = repl_stale_refusal,
    .on = role_checks_on,
};

void repl_init(void)
{
    command_add_family(repl_commands);
    command_set_role_checks(&role_checks);
    info_section_add("replication", repl_info);
    repl_cluster_init();
}
