/* cmd_info.c — INFO: the server's self-description in Redis's text format. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "commands/acl_check.h"
#include "commands/command.h"
#include "connection/session.h"
#include "core/auth.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/info_section.h"
#include "core/latency.h"
#include "core/latency_tracking.h"
#include "commands/server/memory_report.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "core/server_state.h"
#include "util/stats.h"
#include "core/version.h"
#include "store/evict.h"
#include "store/pubsub.h"
#include "util/allocator.h"
#include "util/clock.h"
#include "util/cycles.h"
#include "util/xmalloc.h"

static void section_server(struct buf *b)
{
    struct utsname u;
    uname(&u);
    int64_t uptime = (clock_mono_us() - server.start_mono_us) / 1000000;
    char exe[512] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    buf_append_fmt(b, "# Server\r\n");
    buf_append_fmt(b, "redis_version:%s\r\n", GOBLIN_REDIS_VERSION);
    /* Redis's build fields: no git commit is compiled in (Debian's
     * redis-server prints the same zeros); the build id is goblin-core's
     * version. */
    buf_append_fmt(b, "redis_git_sha1:00000000\r\n");
    buf_append_fmt(b, "redis_git_dirty:0\r\n");
    buf_append_fmt(b, "redis_build_id:goblin-core-%s\r\n", GOBLIN_VERSION);
    buf_append_fmt(b, "goblin_version:%s\r\n", GOBLIN_VERSION);
    buf_append_fmt(b, "redis_mode:%s\r\n", cluster_enabled ? "cluster" : "standalone");
    buf_append_fmt(b, "os:%s %s %s\r\n", u.sysname, u.release, u.machine);
    buf_append_fmt(b, "arch_bits:%d\r\n", (int)(sizeof(void *) * 8));
#if defined(__x86_64__)
    /* The clock of per-command times (util/cycles.h). */
    buf_append_fmt(b, "monotonic_clock:X86 TSC @ %.0f ticks/us\r\n", cycles_per_us);
#else
    buf_append_fmt(b, "monotonic_clock:POSIX clock_gettime\r\n");
#endif
    buf_append_fmt(b, "multiplexing_api:epoll\r\n");
    buf_append_fmt(b, "atomicvar_api:c11-builtin\r\n");
    buf_append_fmt(b, "gcc_version:%d.%d.%d\r\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
    buf_append_fmt(b, "process_id:%d\r\n", (int)getpid());
    buf_append_fmt(b, "process_supervised:%s\r\n", server.supervised ? server.supervised : "no");
    buf_append_fmt(b, "run_id:%s\r\n", server.run_id);
    buf_append_fmt(b, "tcp_port:%d\r\n", server.tcp_port);
    buf_append_fmt(b, "server_time_usec:%lld\r\n", (long long)clock_unix_us());
    buf_append_fmt(b, "uptime_in_seconds:%lld\r\n", (long long)uptime);
    buf_append_fmt(b, "uptime_in_days:%lld\r\n", (long long)(uptime / 86400));
    buf_append_fmt(b, "hz:%lld\r\n", config.hz);
    buf_append_fmt(b, "configured_hz:%lld\r\n", config.hz);
    buf_append_fmt(b, "lru_clock:%u\r\n", keyspace.lru_clock);
    buf_append_fmt(b, "executable:%s\r\n", exe);
    buf_append_fmt(b, "config_file:%s\r\n", config_file_path() ? config_file_path() : "");
    buf_append_fmt(b, "io_threads_active:0\r\n"); /* one thread (DESIGN: run to completion) */
    if (server.shutdown_deadline_ms)              /* a shutdown waiting for its replicas */
        buf_append_fmt(b, "shutdown_in_milliseconds:%lld\r\n",
                       (long long)(server.shutdown_deadline_ms - clock_unix_ms()));
}

static void section_clients(struct buf *b)
{
    buf_append_fmt(b, "# Clients\r\n");
    size_t links, link_bytes, max_in, max_out;
    cluster_bus_links_stats(&links, &link_bytes);
    session_clients_max_buffers(&max_in, &max_out);
    buf_append_fmt(b, "connected_clients:%zu\r\n", session_client_count());
    buf_append_fmt(b, "cluster_connections:%zu\r\n", links);
    buf_append_fmt(b, "maxclients:%lld\r\n", config.maxclients);
    /* The largest buffers now (Redis: over the last few seconds). */
    buf_append_fmt(b, "client_recent_max_input_buffer:%zu\r\n", max_in);
    buf_append_fmt(b, "client_recent_max_output_buffer:%zu\r\n", max_out);
    buf_append_fmt(b, "blocked_clients:%zu\r\n", session_blocked_count());
    buf_append_fmt(b, "tracking_clients:%zu\r\n", session_tracking_clients);
    buf_append_fmt(b, "clients_in_timeout_table:%zu\r\n", session_blocked_with_timeout_count());
}

static void section_memory(struct buf *b)
{
    memory_report_info(b);
}

static void section_persistence(struct buf *b)
{
    buf_append_fmt(b, "# Persistence\r\n");
    buf_append_fmt(b, "loading:%d\r\n", persist_loading() && !persist_loading_async() ? 1 : 0);
    buf_append_fmt(b, "async_loading:%d\r\n", persist_loading_async() ? 1 : 0);
    /* Progress of a running fork child: not reported back by goblin-core's
     * children, so 0 (rdb_last_cow_size and aof_last_cow_size are). */
    buf_append_fmt(b, "current_cow_peak:0\r\n");
    buf_append_fmt(b, "current_cow_size:0\r\n");
    buf_append_fmt(b, "current_cow_size_age:0\r\n");
    buf_append_fmt(b, "current_fork_perc:0.00\r\n");
    buf_append_fmt(b, "current_save_keys_processed:0\r\n");
    buf_append_fmt(b, "current_save_keys_total:0\r\n");
    persist_info(b);
    aof_info(b);
    persist_loading_info(b);
}

static void section_stats(struct buf *b)
{
    const struct stats *s = &stats;
    long long exceeded_total, exceeded_now;
    evict_exceeded_ms(&exceeded_total, &exceeded_now);
    buf_append_fmt(b, "# Stats\r\n");
    buf_append_fmt(b, "total_connections_received:%lld\r\n", s->connections_received);
    buf_append_fmt(b, "total_commands_processed:%lld\r\n", s->commands_processed);
    buf_append_fmt(b, "instantaneous_ops_per_sec:%lld\r\n", s->instantaneous_ops_per_sec);
    buf_append_fmt(b, "total_net_input_bytes:%lld\r\n", s->net_input_bytes);
    buf_append_fmt(b, "total_net_output_bytes:%lld\r\n", s->net_output_bytes);
    buf_append_fmt(b, "total_net_repl_input_bytes:0\r\n");
    buf_append_fmt(b, "total_net_repl_output_bytes:%lld\r\n", repl_stats.output_bytes);
    buf_append_fmt(b, "instantaneous_input_kbps:%.2f\r\n", s->instantaneous_input_kbps);
    buf_append_fmt(b, "instantaneous_output_kbps:%.2f\r\n", s->instantaneous_output_kbps);
    buf_append_fmt(b, "instantaneous_input_repl_kbps:0.00\r\n");
    buf_append_fmt(b, "instantaneous_output_repl_kbps:0.00\r\n");
    buf_append_fmt(b, "rejected_connections:%lld\r\n", s->rejected_connections);
    buf_append_fmt(b, "sync_full:%lld\r\n", repl_stats.sync_full);
    buf_append_fmt(b, "sync_partial_ok:%lld\r\n", repl_stats.sync_partial_ok);
    buf_append_fmt(b, "sync_partial_err:%lld\r\n", repl_stats.sync_partial_err);
    buf_append_fmt(b, "expired_keys:%lld\r\n", keyspace.stats.expired_keys);
    /* Redis's estimate of the expired share among sampled keys: not kept. */
    buf_append_fmt(b, "expired_stale_perc:0.00\r\n");
    buf_append_fmt(b, "expired_time_cap_reached_count:%lld\r\n", s->expired_time_cap_reached);
    buf_append_fmt(b, "expire_cycle_cpu_milliseconds:%lld\r\n", s->expire_cycle_cpu_ms);
    buf_append_fmt(b, "evicted_keys:%lld\r\n", keyspace.stats.evicted_keys);
    buf_append_fmt(b, "evicted_clients:%lld\r\n", s->evicted_clients);
    buf_append_fmt(b, "total_eviction_exceeded_time:%lld\r\n", exceeded_total);
    buf_append_fmt(b, "current_eviction_exceeded_time:%lld\r\n", exceeded_now);
    buf_append_fmt(b, "keyspace_hits:%lld\r\n", keyspace.stats.hits);
    buf_append_fmt(b, "keyspace_misses:%lld\r\n", keyspace.stats.misses);
    buf_append_fmt(b, "pubsub_channels:%zu\r\n", pubsub_channel_count(PUBSUB_CHANNEL));
    buf_append_fmt(b, "pubsub_patterns:%zu\r\n", pubsub_pattern_count());
    buf_append_fmt(b, "pubsubshard_channels:%zu\r\n", pubsub_channel_count(PUBSUB_SHARD));
    buf_append_fmt(b, "latest_fork_usec:%lld\r\n", (long long)latency_latest_fork_us);
    buf_append_fmt(b, "total_forks:%lld\r\n", latency_total_forks);
    /* MIGRATE opens a connection per call and caches none (cmd_migrate.c). */
    buf_append_fmt(b, "migrate_cached_sockets:0\r\n");
    buf_append_fmt(b, "slave_expires_tracked_keys:0\r\n");
    /* No active defragmentation: jemalloc's decay returns free pages. */
    buf_append_fmt(b, "active_defrag_hits:0\r\n");
    buf_append_fmt(b, "active_defrag_misses:0\r\n");
    buf_append_fmt(b, "active_defrag_key_hits:0\r\n");
    buf_append_fmt(b, "active_defrag_key_misses:0\r\n");
    buf_append_fmt(b, "total_active_defrag_time:0\r\n");
    buf_append_fmt(b, "current_active_defrag_time:0\r\n");
    buf_append_fmt(b, "tracking_total_keys:%zu\r\n", session_tracking_keys());
    buf_append_fmt(b, "tracking_total_items:%zu\r\n", session_tracking_items());
    buf_append_fmt(b, "tracking_total_prefixes:%zu\r\n", session_tracking_prefixes());
    /* Error replies of a master or the AOF's replay: none to receive. */
    buf_append_fmt(b, "unexpected_error_replies:0\r\n");
    buf_append_fmt(b, "total_error_replies:%lld\r\n", reply_error_count);
    /* Deep sanitisation of RESTORE payloads, as Redis's default
     * sanitize-dump-payload no: none counted. */
    buf_append_fmt(b, "dump_payload_sanitizations:0\r\n");
    buf_append_fmt(b, "total_reads_processed:%lld\r\n", s->reads_processed);
    buf_append_fmt(b, "total_writes_processed:%lld\r\n", s->writes_processed);
    buf_append_fmt(b, "io_threaded_reads_processed:0\r\n");
    buf_append_fmt(b, "io_threaded_writes_processed:0\r\n");
    /* Redis 7.0 resizes its fixed reply buffers; goblin-core's output
     * buffers grow as needed and none is resized on a schedule. */
    buf_append_fmt(b, "reply_buffer_shrinks:%lld\r\n", stats.reply_buffer_shrinks);
    buf_append_fmt(b, "reply_buffer_expands:%lld\r\n", stats.reply_buffer_expands);
    /* goblin-core's own counters, after Redis's. */
    buf_append_fmt(b, "pubsub_slow_consumer_disconnections:%lld\r\n",
                   s->pubsub_slow_consumer_disconnections);
    buf_append_fmt(b, "client_query_buffer_limit_disconnections:%lld\r\n",
                   s->query_buffer_limit_disconnections);
    buf_append_fmt(b, "client_output_buffer_limit_disconnections:%lld\r\n",
                   s->output_buffer_limit_disconnections);
    buf_append_fmt(b, "client_protocol_error_disconnections:%lld\r\n",
                   s->protocol_error_disconnections);
    /* Argon2 verifications run, failed AUTHs, AUTHs refused by the
     * verification cap, failure answers delayed (core/auth.h). */
    buf_append_fmt(b, "auth_pwhash_verifications:%lld\r\n", auth_stats.pwhash_verifications);
    buf_append_fmt(b, "auth_failures:%lld\r\n", auth_stats.failures);
    buf_append_fmt(b, "auth_throttled:%lld\r\n", auth_stats.throttled);
    buf_append_fmt(b, "auth_failures_delayed:%lld\r\n", auth_stats.delayed);
    /* ACL refusals (commands/acl_check.h), as Redis 7.2 names them. */
    buf_append_fmt(b, "acl_access_denied_auth:%lld\r\n", acl_stats.denied_auth);
    buf_append_fmt(b, "acl_access_denied_cmd:%lld\r\n", acl_stats.denied_cmd);
    buf_append_fmt(b, "acl_access_denied_key:%lld\r\n", acl_stats.denied_key);
    buf_append_fmt(b, "acl_access_denied_channel:%lld\r\n", acl_stats.denied_channel);
    /* Big SET values kept in the buffer they were received into (no copy). */
    buf_append_fmt(b, "string_values_adopted:%lld\r\n", keyspace.stats.values_adopted);
    /* Commands SBE's typed templates called without argv (protocol/typed_call.h). */
    buf_append_fmt(b, "sbe_typed_calls:%lld\r\n", s->typed_calls);
    /* Sleeps of a loop with rings or libfabric targets (core/event_loop.h, "Idling"). */
    const struct ev_sleep_stats *sleep = ev_sleep_stats();
    buf_append_fmt(b, "polled_sleep_enabled:%d\r\n", sleep->enabled);
    buf_append_fmt(b, "polled_sleeps:%llu\r\n", sleep->sleeps);
    buf_append_fmt(b, "polled_sleeps_refused:%llu\r\n", sleep->sleeps_refused);
    buf_append_fmt(b, "polled_slept_usec:%llu\r\n", sleep->slept_us);
}

static void cpu_line(struct buf *b, const char *name, const struct timeval *t)
{
    buf_append_fmt(b, "%s:%ld.%06ld\r\n", name, (long)t->tv_sec, (long)t->tv_usec);
}

static void section_cpu(struct buf *b)
{
    struct rusage self, children, thread;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    getrusage(RUSAGE_THREAD, &thread);
    buf_append_fmt(b, "# CPU\r\n");
    cpu_line(b, "used_cpu_sys", &self.ru_stime);
    cpu_line(b, "used_cpu_user", &self.ru_utime);
    cpu_line(b, "used_cpu_sys_children", &children.ru_stime);
    cpu_line(b, "used_cpu_user_children", &children.ru_utime);
    cpu_line(b, "used_cpu_sys_main_thread", &thread.ru_stime);
    cpu_line(b, "used_cpu_user_main_thread", &thread.ru_utime);
}

static void commandstat_line(struct buf *b, const struct command *cmd)
{
    if (cmd->calls || cmd->rejected_calls || cmd->failed_calls) {
        long long usec = cycles_to_us(cmd->cycles);
        buf_append_fmt(b,
                       "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,"
                       "failed_calls=%lld\r\n",
                       cmd->full_name, cmd->calls, usec,
                       cmd->calls ? (double)usec / (double)cmd->calls : 0.0, cmd->rejected_calls,
                       cmd->failed_calls);
    }
    if (cmd->subcommands)
        for (const struct command *sub = cmd->subcommands; sub->name; sub++)
            commandstat_line(b, sub);
}

static void commandstat_visit(struct command *cmd, void *arg)
{
    commandstat_line(arg, cmd);
}

/* No modules load here: the header alone, as Redis with none loaded (client
 * libraries look for the section in the default INFO). */
static void section_modules(struct buf *b)
{
    buf_append_fmt(b, "# Modules\r\n");
}

static void section_commandstats(struct buf *b)
{
    buf_append_fmt(b, "# Commandstats\r\n");
    command_foreach(commandstat_visit, b);
}

static void errorstat_line(const char *code, long long count, void *arg)
{
    buf_append_fmt(arg, "errorstat_%s:count=%lld\r\n", code, count);
}

static void section_errorstats(struct buf *b)
{
    buf_append_fmt(b, "# Errorstats\r\n");
    reply_error_stats_foreach(errorstat_line, b);
}

static void latencystat_line(struct buf *b, const struct command *cmd)
{
    if (cmd->latency_histogram) {
        char line[1024];
        latency_tracking_format(cmd->full_name, cmd->latency_histogram, line, sizeof line);
        buf_append_fmt(b, "%s\r\n", line);
    }
    if (cmd->subcommands)
        for (const struct command *sub = cmd->subcommands; sub->name; sub++)
            latencystat_line(b, sub);
}

static void latencystat_visit(struct command *cmd, void *arg)
{
    latencystat_line(arg, cmd);
}

static void section_latencystats(struct buf *b)
{
    buf_append_fmt(b, "# Latencystats\r\n");
    command_foreach(latencystat_visit, b);
}

static void section_cluster(struct buf *b)
{
    buf_append_fmt(b, "# Cluster\r\n");
    buf_append_fmt(b, "cluster_enabled:%d\r\n", cluster_enabled ? 1 : 0);
}

static void section_keyspace(struct buf *b)
{
    buf_append_fmt(b, "# Keyspace\r\n");
    for (int i = 0; i < keyspace.count; i++) {
        struct db *db = keyspace_db(i);
        size_t keys = dict_size(&db->keys);
        if (!keys) continue;
        buf_append_fmt(b, "db%d:keys=%zu,expires=%zu,avg_ttl=%lld\r\n", i, keys,
                       dict_size(&db->expires), db->avg_ttl_ms);
    }
}

struct info_section {
    const char *name;
    void (*render)(struct buf *b);
    bool in_default;
};

static const struct info_section sections[] = {
    {"server", section_server, true},
    {"clients", section_clients, true},
    {"memory", section_memory, true},
    {"persistence", section_persistence, true},
    {"stats", section_stats, true},
    {"replication", NULL, true}, /* the row repl/ registers (core/info_section.h) */
    {"cpu", section_cpu, true},
    {"modules", section_modules, true},
    {"commandstats", section_commandstats, false},
    {"errorstats", section_errorstats, true},
    {"latencystats", section_latencystats, false},
    {"cluster", section_cluster, true},
    {"keyspace", section_keyspace, true},
};

#define SECTION_COUNT (sizeof sections / sizeof sections[0])

/* A built-in section's name: a row registered under it renders in its
 * place (render NULL), not again among the others. */
static bool builtin_section(const char *name)
{
    for (size_t s = 0; s < SECTION_COUNT; s++)
        if (strcmp(sections[s].name, name) == 0) return true;
    return false;
}

/* INFO [section ...]: the built-in sections, then those other layers add
 * (core/info_section.h: a transport's, never in the default set). A
 * built-in section without a renderer (replication) is the row another
 * layer registers under its name, at its place and in the default set. */
static void cmd_info(struct cmd_ctx *ctx)
{
    size_t extra = info_section_count();
    bool want[SECTION_COUNT] = {0};
    bool *want_extra = extra ? xcalloc(extra, sizeof *want_extra) : NULL;
    if (ctx->argc == 1) {
        for (size_t s = 0; s < SECTION_COUNT; s++) want[s] = sections[s].in_default;
    }
    for (int j = 1; j < ctx->argc; j++) {
        bool every = arg_equals(ctx, j, "all") || arg_equals(ctx, j, "everything");
        bool dflt = arg_equals(ctx, j, "default");
        for (size_t s = 0; s < SECTION_COUNT; s++)
            if (every || (dflt && sections[s].in_default) || arg_equals(ctx, j, sections[s].name))
                want[s] = true;
        for (size_t s = 0; s < extra; s++)
            if ((every || arg_equals(ctx, j, info_section_name(s))) &&
                !builtin_section(info_section_name(s)))
                want_extra[s] = true;
    }
    struct buf text;
    buf_init(&text, 4096);
    bool first = true;
    for (size_t s = 0; s < SECTION_COUNT + extra; s++) {
        if (s < SECTION_COUNT ? !want[s] : !want_extra[s - SECTION_COUNT]) continue;
        if (!first) buf_append(&text, "\r\n", 2);
        if (s < SECTION_COUNT && sections[s].render) {
            sections[s].render(&text);
        } else if (s < SECTION_COUNT) {
            long row = info_section_find(sections[s].name);
            if (row < 0) continue;
            info_section_render((size_t)row, &text);
        } else
            info_section_render(s - SECTION_COUNT, &text);
        first = false;
    }
    reply_verbatim(ctx->reply, buf_head(&text), buf_len(&text), "txt");
    buf_free(&text);
    xfree(want_extra);
}

struct command info_commands[] = {
    {.name = "info",
     .arity = -1,
     .flags = CMD_LOADING | CMD_STALE | CMD_RANDOM,
     .fn = cmd_info,
     .summary = "Returns information and statistics about the server.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(1)"},
    COMMAND_END,
};
