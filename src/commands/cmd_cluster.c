/*
 * cmd_cluster.c — CLUSTER, READONLY, READWRITE, ASKING on a server without
 * cluster support: Redis 7.0's answers when cluster-enabled is no. Every
 * CLUSTER subcommand is known (so arity and unknown-subcommand errors are
 * Redis's), and each answers "ERR This instance has cluster support
 * disabled" — what cluster-aware clients probe for before falling back to
 * a single node.
 */
#include "commands/command.h"

static void cmd_cluster_disabled(struct cmd_ctx *ctx)
{
    reply_error(ctx->reply, "ERR This instance has cluster support disabled");
}

#define CLUSTER_SUB(n, a, f)                                                                       \
    {                                                                                              \
        .name = n, .arity = a, .flags = (f) | CMD_STALE, .fn = cmd_cluster_disabled,               \
        .summary = "Cluster support is disabled on this server", .since = "3.0.0",                 \
        .group = "cluster", .complexity = "O(1)"                                                   \
    }

static struct command cluster_subcommands[] = {
    CLUSTER_SUB("addslots", -3, CMD_ADMIN),
    CLUSTER_SUB("addslotsrange", -4, CMD_ADMIN),
    CLUSTER_SUB("bumpepoch", 2, CMD_ADMIN),
    CLUSTER_SUB("count-failure-reports", 3, CMD_ADMIN),
    CLUSTER_SUB("countkeysinslot", 3, 0),
    CLUSTER_SUB("delslots", -3, CMD_ADMIN),
    CLUSTER_SUB("delslotsrange", -4, CMD_ADMIN),
    CLUSTER_SUB("failover", -2, CMD_ADMIN),
    CLUSTER_SUB("flushslots", 2, CMD_ADMIN),
    CLUSTER_SUB("forget", 3, CMD_ADMIN),
    CLUSTER_SUB("getkeysinslot", 4, 0),
    CLUSTER_SUB("help", 2, CMD_LOADING),
    CLUSTER_SUB("info", 2, 0),
    CLUSTER_SUB("keyslot", 3, 0),
    CLUSTER_SUB("links", 2, 0),
    CLUSTER_SUB("meet", -4, CMD_ADMIN),
    CLUSTER_SUB("myid", 2, 0),
    CLUSTER_SUB("nodes", 2, 0),
    CLUSTER_SUB("replicas", 3, CMD_ADMIN),
    CLUSTER_SUB("replicate", 3, CMD_ADMIN),
    CLUSTER_SUB("reset", -2, CMD_ADMIN | CMD_NOSCRIPT),
    CLUSTER_SUB("saveconfig", 2, CMD_ADMIN),
    CLUSTER_SUB("set-config-epoch", 3, CMD_ADMIN),
    CLUSTER_SUB("setslot", -4, CMD_ADMIN),
    CLUSTER_SUB("shards", 2, 0),
    CLUSTER_SUB("slaves", 3, CMD_ADMIN),
    CLUSTER_SUB("slots", 2, 0),
    COMMAND_END,
};

struct command cluster_commands[] = {
    {.name = "cluster",
     .arity = -2,
     .subcommands = cluster_subcommands,
     .summary = "A container for cluster commands",
     .since = "3.0.0",
     .group = "cluster",
     .complexity = "Depends on subcommand."},
    {.name = "readonly",
     .arity = 1,
     .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .fn = cmd_cluster_disabled,
     .summary = "Enables read queries for a connection to a cluster replica node",
     .since = "3.0.0",
     .group = "cluster",
     .complexity = "O(1)"},
    {.name = "readwrite",
     .arity = 1,
     .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .fn = cmd_cluster_disabled,
     .summary = "Disables read queries for a connection to a cluster replica node",
     .since = "3.0.0",
     .group = "cluster",
     .complexity = "O(1)"},
    {.name = "asking",
     .arity = 1,
     .flags = CMD_FAST,
     .fn = cmd_cluster_disabled,
     .summary = "Sent by cluster clients after an -ASK redirect",
     .since = "3.0.0",
     .group = "cluster",
     .complexity = "O(1)"},
    COMMAND_END,
};
