/* inert_settings.c — Redis 7.0 settings goblin-core accepts and keeps but
 * that change nothing here, each with its reason (the row's help; the
 * table in docs/configuration.md lists them all). A config file from a
 * Redis deployment loads, CONFIG GET shows what it set, CONFIG SET
 * validates as Redis does and CONFIG REWRITE writes it back; nothing is
 * silently dropped. A setting that gains an effect moves to its module's
 * table. */
#include "server/settings.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/config.h"
#include "util/xmalloc.h"

static struct {
    long long active_defrag_cycle_max;
    long long active_defrag_cycle_min;
    long long active_defrag_ignore_bytes;
    long long active_defrag_max_scan_fields;
    long long active_defrag_threshold_lower;
    long long active_defrag_threshold_upper;
    bool activedefrag;
    bool activerehashing;
    bool aof_disable_auto_gc;
    bool aof_rewrite_incremental_fsync;
    char *aof_rewrite_cpulist;
    char *bgsave_cpulist;
    char *bio_cpulist;
    bool cluster_allow_pubsubshard_when_down;
    bool cluster_allow_replica_migration;
    char *cluster_announce_hostname;
    long long cluster_announce_tls_port;
    long long cluster_link_sendbuf_limit;
    long long cluster_migration_barrier;
    char *cluster_preferred_endpoint_type;
    bool cluster_replica_no_failover;
    long long cluster_replica_validity_factor;
    bool crash_memcheck_enabled;
    bool disable_thp;
    bool dynamic_hz;
    char *ignore_warnings;
    long long io_threads;
    bool io_threads_do_reads;
    bool jemalloc_bg_thread;
    bool lazyfree_lazy_eviction;
    bool lazyfree_lazy_expire;
    bool lazyfree_lazy_server_del;
    bool lazyfree_lazy_user_del;
    bool lazyfree_lazy_user_flush;
    bool no_appendfsync_on_rewrite;
    char *oom_score_adj;
    char *oom_score_adj_values;
    char *proc_title_template;
    char *propagation_error_behavior;
    bool rdb_del_sync_files;
    bool rdb_save_incremental_fsync;
    bool repl_disable_tcp_nodelay;
    bool replica_ignore_disk_write_errors;
    bool replica_ignore_maxmemory;
    bool replica_lazy_flush;
    char *sanitize_dump_payload;
    char *server_cpulist;
    bool set_proc_title;
    long long socket_mark_id;
    char *tls_client_cert_file;
    char *tls_client_key_file;
    char *tls_client_key_file_pass;
    bool tls_cluster;
    char *tls_dh_params_file;
    char *tls_key_file_pass;
    bool tls_replication;
    long long tls_session_cache_size;
    long long tls_session_cache_timeout;
    bool tls_session_caching;
} inert;

static const char *const cluster_preferred_endpoint_type_choices[] = {"ip", "hostname",
                                                                      "unknown-endpoint", NULL};
static const char *const oom_score_adj_choices[] = {"no", "yes", "relative", "absolute", NULL};
static const char *const propagation_error_behavior_choices[] = {"ignore", "panic",
                                                                 "panic-on-replicas", NULL};
static const char *const sanitize_dump_payload_choices[] = {"no", "yes", "clients", NULL};

static void inert_defaults(void)
{
    inert.active_defrag_cycle_max = 25;
    inert.active_defrag_cycle_min = 1;
    inert.active_defrag_ignore_bytes = 104857600;
    inert.active_defrag_max_scan_fields = 1000;
    inert.active_defrag_threshold_lower = 10;
    inert.active_defrag_threshold_upper = 100;
    inert.activedefrag = false;
    inert.activerehashing = true;
    inert.aof_disable_auto_gc = false;
    inert.aof_rewrite_incremental_fsync = true;
    inert.aof_rewrite_cpulist = xstrdup("");
    inert.bgsave_cpulist = xstrdup("");
    inert.bio_cpulist = xstrdup("");
    inert.cluster_allow_pubsubshard_when_down = true;
    inert.cluster_allow_replica_migration = true;
    inert.cluster_announce_hostname = xstrdup("");
    inert.cluster_announce_tls_port = 0;
    inert.cluster_link_sendbuf_limit = 0;
    inert.cluster_migration_barrier = 1;
    inert.cluster_preferred_endpoint_type = xstrdup("ip");
    inert.cluster_replica_no_failover = false;
    inert.cluster_replica_validity_factor = 10;
    inert.crash_memcheck_enabled = true;
    inert.disable_thp = true;
    inert.dynamic_hz = true;
    inert.ignore_warnings = xstrdup("");
    inert.io_threads = 1;
    inert.io_threads_do_reads = false;
    inert.jemalloc_bg_thread = true;
    inert.lazyfree_lazy_eviction = false;
    inert.lazyfree_lazy_expire = false;
    inert.lazyfree_lazy_server_del = false;
    inert.lazyfree_lazy_user_del = false;
    inert.lazyfree_lazy_user_flush = false;
    inert.no_appendfsync_on_rewrite = false;
    inert.oom_score_adj = xstrdup("no");
    inert.oom_score_adj_values = xstrdup("0 200 800");
    inert.proc_title_template = xstrdup("{title} {listen-addr} {server-mode}");
    inert.propagation_error_behavior = xstrdup("ignore");
    inert.rdb_del_sync_files = false;
    inert.rdb_save_incremental_fsync = true;
    inert.repl_disable_tcp_nodelay = false;
    inert.replica_ignore_disk_write_errors = false;
    inert.replica_ignore_maxmemory = true;
    inert.replica_lazy_flush = false;
    inert.sanitize_dump_payload = xstrdup("no");
    inert.server_cpulist = xstrdup("");
    inert.set_proc_title = true;
    inert.socket_mark_id = 0;
    inert.tls_client_cert_file = xstrdup("");
    inert.tls_client_key_file = xstrdup("");
    inert.tls_client_key_file_pass = xstrdup("");
    inert.tls_cluster = false;
    inert.tls_dh_params_file = xstrdup("");
    inert.tls_key_file_pass = xstrdup("");
    inert.tls_replication = false;
    inert.tls_session_cache_size = 20480;
    inert.tls_session_cache_timeout = 300;
    inert.tls_session_caching = true;
}

/* Redis's check: three integers in -2000..2000. */
static const char *validate_oom_score_adj_values(const char *text)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ') p++;
        if (!*p) break;
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ' ')) return "Invalid oom-score-adj-values value";
        if (v < -2000 || v > 2000) return "Invalid oom-score-adj-values value";
        n++;
        p = end;
    }
    return n == 3 ? NULL : "wrong number of arguments";
}

#define INERT CFG_INERT
#define INERT_STARTUP (CFG_INERT | CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE)

static const struct config_param inert_params[] = {
    {.name = "active-defrag-cycle-max",
     .kind = CFG_INT,
     .value = &inert.active_defrag_cycle_max,
     .min = 1,
     .max = 99,
     .flags = INERT,
     .value_name = "N",
     .help = "no active defragmentation (see activedefrag)"},
    {.name = "active-defrag-cycle-min",
     .kind = CFG_INT,
     .value = &inert.active_defrag_cycle_min,
     .min = 1,
     .max = 99,
     .flags = INERT,
     .value_name = "N",
     .help = "no active defragmentation (see activedefrag)"},
    {.name = "active-defrag-ignore-bytes",
     .kind = CFG_MEMORY,
     .value = &inert.active_defrag_ignore_bytes,
     .min = 1,
     .max = LLONG_MAX,
     .flags = INERT,
     .value_name = "BYTES",
     .help = "no active defragmentation (see activedefrag)"},
    {.name = "active-defrag-max-scan-fields",
     .kind = CFG_INT,
     .value = &inert.active_defrag_max_scan_fields,
     .min = 1,
     .max = LLONG_MAX,
     .flags = INERT,
     .value_name = "N",
     .help = "no active defragmentation (see activedefrag)"},
    {.name = "active-defrag-threshold-lower",
     .kind = CFG_INT,
     .value = &inert.active_defrag_threshold_lower,
     .min = 0,
     .max = 1000,
     .flags = INERT,
     .value_name = "N",
     .help = "no active defragmentation (see activedefrag)"},
    {.name = "active-defrag-threshold-upper",
     .kind = CFG_INT,
     .value = &inert.active_defrag_threshold_upper,
     .min = 0,
     .max = 1000,
     .flags = INERT,
     .value_name = "N",
     .help = "no active defragmentation (see activedefrag)"},
    {.name = "activedefrag",
     .kind = CFG_BOOL,
     .value = &inert.activedefrag,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "active defragmentation moves values with jemalloc's private API, which goblin-core's "
             "allocator does not use"},
    {.name = "activerehashing",
     .kind = CFG_BOOL,
     .value = &inert.activerehashing,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "housekeeping always finishes resizes incrementally in idle time"},
    {.name = "aof-disable-auto-gc",
     .kind = CFG_BOOL,
     .value = &inert.aof_disable_auto_gc,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "old AOF history files are always removed after a rewrite"},
    {.name = "aof-rewrite-incremental-fsync",
     .kind = CFG_BOOL,
     .value = &inert.aof_rewrite_incremental_fsync,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "the rewrite child fsyncs its file once at the end"},
    {.name = "aof_rewrite_cpulist",
     .kind = CFG_STRING,
     .value = &inert.aof_rewrite_cpulist,
     .flags = INERT_STARTUP,
     .value_name = "TEXT",
     .help = "background children are not pinned (use --cpu for the server thread)"},
    {.name = "bgsave_cpulist",
     .kind = CFG_STRING,
     .value = &inert.bgsave_cpulist,
     .flags = INERT_STARTUP,
     .value_name = "TEXT",
     .help = "background children are not pinned (use --cpu for the server thread)"},
    {.name = "bio_cpulist",
     .kind = CFG_STRING,
     .value = &inert.bio_cpulist,
     .flags = INERT_STARTUP,
     .value_name = "TEXT",
     .help = "there are no background I/O threads"},
    {.name = "cluster-allow-pubsubshard-when-down",
     .kind = CFG_BOOL,
     .value = &inert.cluster_allow_pubsubshard_when_down,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "sharded Pub/Sub is not implemented"},
    {.name = "cluster-allow-replica-migration",
     .kind = CFG_BOOL,
     .value = &inert.cluster_allow_replica_migration,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "cluster replicas do not migrate between masters"},
    {.name = "cluster-announce-hostname",
     .kind = CFG_STRING,
     .value = &inert.cluster_announce_hostname,
     .flags = INERT,
     .value_name = "TEXT",
     .help = "the cluster bus announces addresses only"},
    {.name = "cluster-announce-tls-port",
     .kind = CFG_INT,
     .value = &inert.cluster_announce_tls_port,
     .min = 0,
     .max = 65535,
     .flags = INERT,
     .value_name = "N",
     .help = "the cluster bus does not run over TLS"},
    {.name = "cluster-link-sendbuf-limit",
     .kind = CFG_MEMORY,
     .value = &inert.cluster_link_sendbuf_limit,
     .min = 0,
     .max = LLONG_MAX,
     .flags = INERT,
     .value_name = "BYTES",
     .help = "cluster bus links have a fixed bounded buffer"},
    {.name = "cluster-migration-barrier",
     .kind = CFG_INT,
     .value = &inert.cluster_migration_barrier,
     .min = 0,
     .max = INT_MAX,
     .flags = INERT,
     .value_name = "N",
     .help = "cluster replicas do not migrate between masters"},
    {.name = "cluster-preferred-endpoint-type",
     .kind = CFG_ENUM,
     .value = &inert.cluster_preferred_endpoint_type,
     .flags = INERT,
     .value_name = "ip|hostname|unknown-endpoint",
     .help = "redirections always name the IP address",
     .choices = cluster_preferred_endpoint_type_choices},
    {.name = "cluster-replica-no-failover",
     .alias = "cluster-slave-no-failover",
     .kind = CFG_BOOL,
     .value = &inert.cluster_replica_no_failover,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "no automatic cluster failover"},
    {.name = "cluster-replica-validity-factor",
     .alias = "cluster-slave-validity-factor",
     .kind = CFG_INT,
     .value = &inert.cluster_replica_validity_factor,
     .min = 0,
     .max = INT_MAX,
     .flags = INERT,
     .value_name = "N",
     .help = "no automatic cluster failover"},
    {.name = "crash-memcheck-enabled",
     .kind = CFG_BOOL,
     .value = &inert.crash_memcheck_enabled,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "the crash report has no memory test"},
    {.name = "disable-thp",
     .kind = CFG_BOOL,
     .value = &inert.disable_thp,
     .flags = INERT_STARTUP,
     .value_name = "yes|no",
     .help = "transparent huge pages are left as the system sets them (the server does not fork "
             "per request)"},
    {.name = "dynamic-hz",
     .kind = CFG_BOOL,
     .value = &inert.dynamic_hz,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "housekeeping runs at hz; its cost does not grow with the client count"},
    {.name = "ignore-warnings",
     .kind = CFG_STRING,
     .value = &inert.ignore_warnings,
     .flags = INERT,
     .value_name = "TEXT",
     .help = "goblin-core has none of the kernel-bug warnings this silences"},
    {.name = "io-threads",
     .kind = CFG_INT,
     .value = &inert.io_threads,
     .min = 1,
     .max = 128,
     .flags = INERT_STARTUP,
     .value_name = "N",
     .help = "one thread serves every client (run to completion)"},
    {.name = "io-threads-do-reads",
     .kind = CFG_BOOL,
     .value = &inert.io_threads_do_reads,
     .flags = INERT_STARTUP,
     .value_name = "yes|no",
     .help = "one thread serves every client (run to completion)"},
    {.name = "jemalloc-bg-thread",
     .kind = CFG_BOOL,
     .value = &inert.jemalloc_bg_thread,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "allocator tuning of jemalloc's background purge thread; goblin-core decays its "
             "allocator in housekeeping"},
    {.name = "lazyfree-lazy-eviction",
     .kind = CFG_BOOL,
     .value = &inert.lazyfree_lazy_eviction,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "values are freed synchronously (big streams incrementally in housekeeping)"},
    {.name = "lazyfree-lazy-expire",
     .kind = CFG_BOOL,
     .value = &inert.lazyfree_lazy_expire,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "values are freed synchronously (big streams incrementally in housekeeping)"},
    {.name = "lazyfree-lazy-server-del",
     .kind = CFG_BOOL,
     .value = &inert.lazyfree_lazy_server_del,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "values are freed synchronously (big streams incrementally in housekeeping)"},
    {.name = "lazyfree-lazy-user-del",
     .kind = CFG_BOOL,
     .value = &inert.lazyfree_lazy_user_del,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "values are freed synchronously (big streams incrementally in housekeeping)"},
    {.name = "lazyfree-lazy-user-flush",
     .kind = CFG_BOOL,
     .value = &inert.lazyfree_lazy_user_flush,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "values are freed synchronously (big streams incrementally in housekeeping)"},
    {.name = "no-appendfsync-on-rewrite",
     .kind = CFG_BOOL,
     .value = &inert.no_appendfsync_on_rewrite,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "the AOF is fsynced as appendfsync says during rewrites too"},
    {.name = "oom-score-adj",
     .kind = CFG_ENUM,
     .value = &inert.oom_score_adj,
     .flags = INERT,
     .value_name = "no|yes|relative|absolute",
     .help = "the kernel OOM score is left as the service manager sets it",
     .choices = oom_score_adj_choices},
    {.name = "oom-score-adj-values",
     .kind = CFG_STRING,
     .value = &inert.oom_score_adj_values,
     .flags = INERT | CFG_MULTI_ARG,
     .value_name = "TEXT",
     .help = "the kernel OOM score is left as the service manager sets it (see oom-score-adj)",
     .validate = validate_oom_score_adj_values},
    {.name = "proc-title-template",
     .kind = CFG_STRING,
     .value = &inert.proc_title_template,
     .flags = INERT,
     .value_name = "TEXT",
     .help = "the process title is not rewritten (see set-proc-title)"},
    {.name = "propagation-error-behavior",
     .kind = CFG_ENUM,
     .value = &inert.propagation_error_behavior,
     .flags = INERT,
     .value_name = "ignore|panic|panic-on-replicas",
     .help = "errors of propagated commands are ignored, as its default",
     .choices = propagation_error_behavior_choices},
    {.name = "rdb-del-sync-files",
     .kind = CFG_BOOL,
     .value = &inert.rdb_del_sync_files,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "RDB files made for replicas are kept, as its default"},
    {.name = "rdb-save-incremental-fsync",
     .kind = CFG_BOOL,
     .value = &inert.rdb_save_incremental_fsync,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "the save child fsyncs its file once at the end"},
    {.name = "repl-disable-tcp-nodelay",
     .kind = CFG_BOOL,
     .value = &inert.repl_disable_tcp_nodelay,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "replication links keep TCP_NODELAY on, as its default"},
    {.name = "replica-ignore-disk-write-errors",
     .kind = CFG_BOOL,
     .value = &inert.replica_ignore_disk_write_errors,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "a replica behaves as with its default (no)"},
    {.name = "replica-ignore-maxmemory",
     .alias = "slave-ignore-maxmemory",
     .kind = CFG_BOOL,
     .value = &inert.replica_ignore_maxmemory,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "a replica never evicts, as its default"},
    {.name = "replica-lazy-flush",
     .alias = "slave-lazy-flush",
     .kind = CFG_BOOL,
     .value = &inert.replica_lazy_flush,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "values are freed synchronously"},
    {.name = "sanitize-dump-payload",
     .kind = CFG_ENUM,
     .value = &inert.sanitize_dump_payload,
     .flags = INERT,
     .value_name = "no|yes|clients",
     .help = "RESTORE payloads and RDB files are always validated completely",
     .choices = sanitize_dump_payload_choices},
    {.name = "server_cpulist",
     .kind = CFG_STRING,
     .value = &inert.server_cpulist,
     .flags = INERT_STARTUP,
     .value_name = "TEXT",
     .help = "the server thread is pinned with --cpu"},
    {.name = "set-proc-title",
     .kind = CFG_BOOL,
     .value = &inert.set_proc_title,
     .flags = INERT_STARTUP,
     .value_name = "yes|no",
     .help = "the process title is not rewritten"},
    {.name = "socket-mark-id",
     .kind = CFG_INT,
     .value = &inert.socket_mark_id,
     .min = 0,
     .max = UINT_MAX,
     .flags = INERT_STARTUP,
     .value_name = "N",
     .help = "listening sockets are not marked (SO_MARK)"},
    {.name = "tls-client-cert-file",
     .kind = CFG_STRING,
     .value = &inert.tls_client_cert_file,
     .flags = INERT,
     .value_name = "TEXT",
     .help = "outgoing connections (replication, cluster bus) do not use TLS"},
    {.name = "tls-client-key-file",
     .kind = CFG_STRING,
     .value = &inert.tls_client_key_file,
     .flags = INERT,
     .value_name = "TEXT",
     .help = "outgoing connections (replication, cluster bus) do not use TLS"},
    {.name = "tls-client-key-file-pass",
     .kind = CFG_STRING,
     .value = &inert.tls_client_key_file_pass,
     .flags = INERT,
     .value_name = "TEXT",
     .help = "outgoing connections (replication, cluster bus) do not use TLS"},
    {.name = "tls-cluster",
     .kind = CFG_BOOL,
     .value = &inert.tls_cluster,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "the cluster bus does not run over TLS"},
    {.name = "tls-dh-params-file",
     .kind = CFG_STRING,
     .value = &inert.tls_dh_params_file,
     .flags = INERT,
     .value_name = "TEXT",
     .help = "TLS uses OpenSSL's automatic ECDHE groups"},
    {.name = "tls-key-file-pass",
     .kind = CFG_STRING,
     .value = &inert.tls_key_file_pass,
     .flags = INERT,
     .value_name = "TEXT",
     .help = "the TLS key file must be unencrypted"},
    {.name = "tls-replication",
     .kind = CFG_BOOL,
     .value = &inert.tls_replication,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "replication does not run over TLS"},
    {.name = "tls-session-cache-size",
     .kind = CFG_INT,
     .value = &inert.tls_session_cache_size,
     .min = 0,
     .max = INT_MAX,
     .flags = INERT,
     .value_name = "N",
     .help = "TLS session caching is OpenSSL's default"},
    {.name = "tls-session-cache-timeout",
     .kind = CFG_INT,
     .value = &inert.tls_session_cache_timeout,
     .min = 0,
     .max = INT_MAX,
     .flags = INERT,
     .value_name = "N",
     .help = "TLS session caching is OpenSSL's default"},
    {.name = "tls-session-caching",
     .kind = CFG_BOOL,
     .value = &inert.tls_session_caching,
     .flags = INERT,
     .value_name = "yes|no",
     .help = "TLS session caching is OpenSSL's default"},
};

const struct config_table inert_config = CONFIG_TABLE(inert_params, inert_defaults);
