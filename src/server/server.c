/* server.c — startup, housekeeping and shutdown; see server.h. */
#include "server/server.h"
#include "commands/server/memory_report.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "commands/acl_check.h"
#include "commands/command.h"
#include "connection/conn.h"
#include "core/auth.h"
#include "core/config.h"
#include "core/server_state.h"
#include "core/event_loop.h"
#include "core/latency.h"
#include "server/daemon.h"
#include "server/placement.h"
#include "server/shutdown.h"
#include "core/version.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "repl/repl.h"
#include "store/db.h"
#include "store/stream.h"
#include "store/evict.h"
#include "transport/transport.h"
#include "cluster/cluster.h"
#include "util/allocator.h"
#include "util/clock.h"
#include "util/cycles.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/stats.h"

/* Every client holds a descriptor: raise the soft RLIMIT_NOFILE to
 * maxclients plus a reserve for listeners, epoll, rings and logs (as Redis
 * does) and one per ring for its doorbell, within the hard limit. Short of that, lower maxclients
 * to what the limit allows, with one warning (Redis's behaviour): otherwise accept() would fail
 * with EMFILE before maxclients is reached. */
#define SERVER_RESERVED_FDS 32

/* Each ring holds its doorbell FIFO open (transport/ring.c). */
static rlim_t ring_doorbell_fds(void)
{
    rlim_t n = 0;
    for (int i = 0; i < config.polled_count; i++)
        if (config.polled[i].kind == POLLED_RING)
            n++;
        else if (config.polled[i].kind == POLLED_RING_POOL)
            n += (rlim_t)config.polled[i].count;
    return n;
}

static bool fit_maxclients_to_open_files_limit(void)
{
    rlim_t reserved = SERVER_RESERVED_FDS + ring_doorbell_fds();
    rlim_t want = (rlim_t)config.maxclients + reserved;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want) return true;
    rlim_t target = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
    if (target > rl.rlim_cur) {
        struct rlimit raised = {.rlim_cur = target, .rlim_max = rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl.rlim_cur = target;
    }
    if (rl.rlim_cur >= want) return true;
    if (rl.rlim_cur <= reserved) {
        log_warning("open files limit (ulimit -n) is %llu: not enough to start; raise it to at "
                    "least %llu",
                    (unsigned long long)rl.rlim_cur, (unsigned long long)reserved + 1);
        return false;
    }
    long long reduced = (long long)(rl.rlim_cur - reserved);
    log_warning("open files limit is %llu; --maxclients %lld needs %llu: maxclients reduced to "
                "%lld (raise the limit, e.g. ulimit -n, for more)",
                (unsigned long long)rl.rlim_cur, config.maxclients, (unsigned long long)want,
                reduced);
    config.maxclients = reduced;
    return true;
}

bool server_start(void)
{
    server_state_init();
    if (!placement_apply()) return false;
    hash_seed_init();
    cycles_init();

    if (!auth_init()) {
        log_warning("libsodium failed to initialise");
        return false;
    }
    if (config.auth_file && *config.auth_file) { /* "" (a rewritten default): none */
        char err[512];
        if (!auth_load_file(config.auth_file, err, sizeof err)) {
            log_warning("%s", err);
            return false;
        }
    }
    if (!fit_maxclients_to_open_files_limit()) return false;
    repl_init(); /* its commands and role checks, before the table is built */
    shutdown_init();
    command_table_init();
    if (!acl_file_load_startup()) return false;
    keyspace_init((int)config.databases);
    repl_start_early();
    /* The end of every loop pass (core/event_loop.h): the AOF's buffer,
     * then the replies held for it, then the replication stream, then the
     * conns closed in the pass. */
    ev_on_pass_end(EV_PASS_FLUSH, aof_flush_buffer);
    ev_on_pass_end(EV_PASS_WRITE, conn_write_held);
    ev_on_pass_end(EV_PASS_REPLICAS, repl_flush_replicas);
    ev_on_pass_end(EV_PASS_REAP, conn_reap_closed);
    if (!persist_startup()) return false;
    repl_after_load(persist_last_load());
    if (!ev_init()) {
        log_warning("epoll_create1 failed: %m");
        return false;
    }
    if (!transports_start()) return false;
    if (!cluster_start()) return false;
    repl_start();
    ev_apply_idle_settings();
    /* Lock after every startup allocation and mapping exists (the rings in
     * particular). */
    placement_lock_memory();

    shutdown_install_signal_handlers();
    signal(SIGPIPE, SIG_IGN);
    memory_report_note_startup();
    /* Redis's words: its test suite and log watchers wait for them. */
    log_notice("Ready to accept connections");
    return true;
}

static long long housekeeping_hz(void)
{
    return config.hz;
}

/* Commands per second over about the last second, for INFO. */
static void sample_ops_per_sec(void)
{
    int64_t now = clock_mono_us();
    int64_t elapsed = now - server.ops_sample_us;
    if (elapsed < 1000000) return;
    long long done = stats.commands_processed - server.ops_sample_count;
    stats.instantaneous_ops_per_sec = done * 1000000 / elapsed;
    /* Kilobytes per second, as Redis's instantaneous_*_kbps. */
    stats.instantaneous_input_kbps =
        (double)(stats.net_input_bytes - server.input_sample_bytes) * 1e6 / elapsed / 1024;
    stats.instantaneous_output_kbps =
        (double)(stats.net_output_bytes - server.output_sample_bytes) * 1e6 / elapsed / 1024;
    server.ops_sample_us = now;
    server.ops_sample_count = stats.commands_processed;
    server.input_sample_bytes = stats.net_input_bytes;
    server.output_sample_bytes = stats.net_output_bytes;
}

void server_housekeeping(void)
{
    if (server.cron_paused) return;
    keyspace_update_lru_clock();
    evict_housekeeping((size_t)config.maxmemory);
    sample_ops_per_sec();
    memory_report_update_peak();
    keyspace_begin_command();
    long long budget_us = config.active_expire_effort * 1000;
    int64_t deadline = clock_mono_us() + budget_us;
    for (int i = 0; i < keyspace.count && !keyspace.expire_paused &&
                    !keyspace.active_expire_disabled && !keyspace.replica;
         i++) {
        int64_t left = deadline - clock_mono_us();
        if (left <= 0) {
            stats.expired_time_cap_reached++;
            break;
        }
        db_active_expire(keyspace_db(i), left);
    }
    stats.expire_cycle_cpu_ms_us += clock_mono_us() - (deadline - budget_us);
    stats.expire_cycle_cpu_ms = stats.expire_cycle_cpu_ms_us / 1000;
    if (latency_enabled())
        latency_consider("expire-cycle", clock_mono_us() - (deadline - budget_us));
    conn_tracking_limit_table(); /* tracking-table-max-keys, idle or not */
    conn_tracking_broadcast();   /* BCAST invalidations of expired keys */
    conn_write_pending_pushes(); /* "expired" events the cycle published */
    /* Finish pending resizes in idle time, one millisecond per run at most. */
    for (int i = 0; i < keyspace.count; i++) {
        struct db *db = keyspace_db(i);
        dict_rehash_for_us(&db->keys, 500);
        dict_rehash_for_us(&db->expires, 100);
    }
    stream_lazy_free_step(1000); /* big streams deleted since: a millisecond's worth */
    daemon_housekeeping();       /* the log file reopened after SIGHUP */
    conn_close_idle();
    conn_resize_reply_buffers();
    conn_evict_housekeeping();
    persist_housekeeping();
    repl_housekeeping();
    aof_housekeeping();
    conn_blocked_expire(); /* BLPOP & co: timeouts at housekeeping granularity, as Redis */
    conn_pause_expire();   /* CLIENT PAUSE's timeout, likewise */
    transports_housekeeping();
    cluster_housekeeping();
    allocator_decay();
    shutdown_housekeeping(); /* last: it may stop the loop */
}

void server_run(void)
{
    ev_run(server_housekeeping, housekeeping_hz); /* until the shutdown (shutdown.c) stops it */
}

void server_stop(void)
{
    cluster_stop();
    transports_stop();
}

static const char *const loglevels[] = {"debug", "verbose", "notice", "warning", NULL};

static void apply_loglevel(void)
{
    for (int i = 0; loglevels[i]; i++)
        if (strcmp(loglevels[i], config.loglevel) == 0) log_min_level = (enum log_level)i;
}

/* Like Redis, hz accepts any non-negative value and clamps it. */
static void apply_hz(void)
{
    config.hz = config.hz < 1 ? 1 : config.hz > 500 ? 500 : config.hz;
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param server_params[] = {
    {.name = "hz",
     .kind = CFG_INT,
     .value = &config.hz,
     .max = INT_MAX,
     .value_name = "N",
     .help = "housekeeping runs per second, clamped to 1..500 (default 10)",
     .apply = apply_hz},
    {.name = "active-expire-effort",
     .kind = CFG_INT,
     .value = &config.active_expire_effort,
     .min = 1,
     .max = 10,
     .value_name = "N",
     .help = "active expiry budget: N ms per housekeeping run at most (default 1)"},
    {.name = "loglevel",
     .kind = CFG_ENUM,
     .value = &config.loglevel,
     .value_name = "LEVEL",
     .help = "debug, verbose, notice or warning (default notice)",
     .choices = loglevels,
     .apply = apply_loglevel},
};

const struct config_table server_config = CONFIG_TABLE(server_params, NULL);
