/* repl_config.c — replication's settings (repl.h): Redis 7.0's names,
 * aliases and defaults, registered by server/settings.c. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/config.h"
#include "repl/repl.h"
#include "util/xmalloc.h"

static const char *const diskless_load_choices[] = {"disabled", "on-empty-db", "swapdb", NULL};

/* replicaof's line as Redis reads it: HOST PORT, or NO ONE (none). */
static const char *validate_replicaof(const char *text)
{
    char host[256], port[32], extra[2];
    int words = sscanf(text, "%255s %31s %1s", host, port, extra);
    if (words <= 0) return NULL; /* "": not a replica */
    if (words != 2) return "wrong number of arguments";
    if (strcasecmp(host, "no") == 0 && strcasecmp(port, "one") == 0) return NULL;
    char *end;
    long n = strtol(port, &end, 10);
    if (n < 0 || n > 65535 || *end) return "Invalid master port";
    return NULL;
}

static void apply_replicaof(void)
{
    if (strncasecmp(repl_replica_settings.replicaof, "no ", 3) == 0) {
        xfree(repl_replica_settings.replicaof); /* NO ONE: the default, none */
        repl_replica_settings.replicaof = xstrdup("");
    }
}

static const struct config_param repl_params[] = {
    /* the master side (master.c) */
    {.name = "repl-backlog-size",
     .kind = CFG_MEMORY,
     .value = &repl_settings.backlog_size,
     .min = 1,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help = "bytes of the replication stream kept for replicas that reconnect (partial "
             "resync) (default 1mb)",
     .apply = repl_apply_backlog_size},
    {.name = "repl-backlog-ttl",
     .kind = CFG_INT,
     .value = &repl_settings.backlog_ttl,
     .max = INT_MAX,
     .value_name = "SECONDS",
     .help = "free the backlog after this long without replicas; 0 = never (default 3600)"},
    {.name = "repl-diskless-sync",
     .kind = CFG_BOOL,
     .value = &repl_settings.diskless_sync,
     .value_name = "yes|no",
     .help = "full syncs stream the RDB from the fork child to the replicas' sockets (yes) or "
             "write it to the RDB file first (default yes)"},
    {.name = "repl-diskless-sync-delay",
     .kind = CFG_INT,
     .value = &repl_settings.diskless_sync_delay,
     .max = INT_MAX,
     .value_name = "SECONDS",
     .help = "wait this long for more replicas before a diskless sync starts (default 5)"},
    {.name = "repl-diskless-sync-max-replicas",
     .kind = CFG_INT,
     .value = &repl_settings.diskless_sync_max_replicas,
     .max = INT_MAX,
     .value_name = "N",
     .help = "start a delayed diskless sync at once when this many replicas wait; 0 = no limit "
             "(default 0)"},
    {.name = "repl-ping-replica-period",
     .alias = "repl-ping-slave-period",
     .kind = CFG_INT,
     .value = &repl_settings.ping_replica_period,
     .min = 1,
     .max = INT_MAX,
     .value_name = "SECONDS",
     .help = "PING the replicas in the stream this often (default 10)"},
    {.name = "repl-timeout",
     .kind = CFG_INT,
     .value = &repl_settings.timeout,
     .min = 1,
     .max = INT_MAX,
     .value_name = "SECONDS",
     .help = "close a replica that has not acknowledged for this long (default 60)"},
    {.name = "min-replicas-to-write",
     .alias = "min-slaves-to-write",
     .kind = CFG_INT,
     .value = &repl_settings.min_replicas_to_write,
     .max = INT_MAX,
     .value_name = "N",
     .help = "refuse writes (NOREPLICAS) with fewer online replicas whose last ack is at most "
             "min-replicas-max-lag old; 0 = off (default 0)",
     .apply = repl_apply_min_replicas},
    {.name = "min-replicas-max-lag",
     .alias = "min-slaves-max-lag",
     .kind = CFG_INT,
     .value = &repl_settings.min_replicas_max_lag,
     .max = INT_MAX,
     .value_name = "SECONDS",
     .help = "see min-replicas-to-write (default 10)",
     .apply = repl_apply_min_replicas},
    /* the replica side (replica.c) */
    {.name = "replicaof",
     .alias = "slaveof",
     .kind = CFG_STRING,
     .value = &repl_replica_settings.replicaof,
     .flags = CFG_IMMUTABLE | CFG_MULTI_ARG,
     .value_name = "'HOST PORT'",
     .help = "start as a replica of HOST PORT (REPLICAOF at run time)",
     .validate = validate_replicaof,
     .apply = apply_replicaof},
    {.name = "masterauth",
     .kind = CFG_STRING,
     .value = &repl_replica_settings.masterauth,
     .value_name = "PASSWORD",
     .help = "AUTH to the master with this password"},
    {.name = "masteruser",
     .kind = CFG_STRING,
     .value = &repl_replica_settings.masteruser,
     .value_name = "USER",
     .help = "AUTH to the master as this user (with masterauth)"},
    {.name = "replica-read-only",
     .alias = "slave-read-only",
     .kind = CFG_BOOL,
     .value = &repl_replica_settings.read_only,
     .value_name = "yes|no",
     .help = "a replica refuses clients' writes with READONLY (default yes)"},
    {.name = "replica-serve-stale-data",
     .alias = "slave-serve-stale-data",
     .kind = CFG_BOOL,
     .value = &repl_replica_settings.serve_stale_data,
     .value_name = "yes|no",
     .help = "no: while the link to the master is down, a replica answers MASTERDOWN to all but "
             "a few commands (default yes)"},
    {.name = "replica-priority",
     .alias = "slave-priority",
     .kind = CFG_INT,
     .value = &repl_replica_settings.priority,
     .max = INT_MAX,
     .value_name = "N",
     .help = "Sentinel's promotion order, lower first; 0 = never promoted (default 100)"},
    {.name = "bind-source-addr",
     .kind = CFG_STRING,
     .value = &repl_replica_settings.bind_source_addr,
     .value_name = "ADDR",
     .help = "the local address the link to the master connects from (best effort, as Redis: "
             "the kernel's when it cannot be bound; default none)"},
    {.name = "replica-announce-ip",
     .alias = "slave-announce-ip",
     .kind = CFG_STRING,
     .value = &repl_replica_settings.announce_ip,
     .value_name = "ADDR",
     .help = "the address a replica gives its master (REPLCONF ip-address)"},
    {.name = "replica-announce-port",
     .alias = "slave-announce-port",
     .kind = CFG_INT,
     .value = &repl_replica_settings.announce_port,
     .max = 65535,
     .value_name = "PORT",
     .help = "the port a replica gives its master (default 0: --port)"},
    {.name = "replica-announced",
     .kind = CFG_BOOL,
     .value = &repl_replica_settings.announced,
     .value_name = "yes|no",
     .help = "whether Sentinel should list this replica (INFO replica_announced; default yes)"},
    {.name = "repl-diskless-load",
     .kind = CFG_ENUM,
     .value = &repl_replica_settings.diskless_load,
     .value_name = "disabled|on-empty-db|swapdb",
     .help = "disabled: a replica writes the master's RDB to disk, then loads it; on-empty-db: "
             "loads it from the socket when it holds no key; swapdb: loads it from the socket "
             "beside the live data set, swapped in once whole (default disabled)",
     .choices = diskless_load_choices},
};

static void repl_config_defaults(void)
{
    repl_replica_settings.replicaof = xstrdup("");
    repl_replica_settings.masterauth = xstrdup("");
    repl_replica_settings.masteruser = xstrdup("");
    repl_replica_settings.announce_ip = xstrdup("");
    repl_replica_settings.bind_source_addr = xstrdup("");
    repl_replica_settings.diskless_load = xstrdup("disabled");
}

const struct config_table repl_config = CONFIG_TABLE(repl_params, repl_config_defaults);
