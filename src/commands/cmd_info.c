/* cmd_info.c — INFO: the server's self-description in Redis's text format. */
#include <stdarg.h>
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
#include "core/info_section.h"
#include "core/latency.h"
#include "core/latency_tracking.h"
#include "commands/memory_report.h"
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

static void add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct buf *b, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;
    buf_append(b, line, (size_t)n);
    buf_append(b, "\r\n", 2);
}

static void section_server(struct buf *b)
{
    struct utsname u;
    uname(&u);
    int64_t uptime = (clock_mono_us() - server.start_mono_us) / 1000000;
    char exe[512] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    add(b, "# Server");
    add(b, "redis_version:%s", GOBLIN_REDIS_VERSION);
    /* Redis's build fields: no git commit is compiled in (Debian's
     * redis-server prints the same zeros); the build id is goblin-core's
     * version. */
    add(b, "redis_git_sha1:00000000");
    add(b, "redis_git_dirty:0");
    add(b, "redis_build_id:goblin-core-%s", GOBLIN_VERSION);
    add(b, "goblin_version:%s", GOBLIN_VERSION);
    add(b, "redis_mode:%s", cluster_enabled ? "cluster" : "standalone");
    add(b, "os:%s %s %s", u.sysname, u.release, u.machine);
    add(b, "arch_bits:%d", (int)(sizeof(void *) * 8));
#if defined(__x86_64__)
    /* The clock of per-command times (util/cycles.h). */
    add(b, "monotonic_clock:X86 TSC @ %.0f ticks/us", cycles_per_us);
#else
    add(b, "monotonic_clock:POSIX clock_gettime");
#endif
    add(b, "multiplexing_api:epoll");
    add(b, "atomicvar_api:c11-builtin");
    add(b, "gcc_version:%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
    add(b, "process_id:%d", (int)getpid());
    add(b, "process_supervised:%s", server.supervised ? server.supervised : "no");
    add(b, "run_id:%s", server.run_id);
    add(b, "tcp_port:%d", server.tcp_port);
    add(b, "server_time_usec:%lld", (long long)clock_unix_us());
    add(b, "uptime_in_seconds:%lld", (long long)uptime);
    add(b, "uptime_in_days:%lld", (long long)(uptime / 86400));
    add(b, "hz:%lld", config.hz);
    add(b, "configured_hz:%lld", config.hz);
    add(b, "lru_clock:%u", keyspace.lru_clock);
    add(b, "executable:%s", exe);
    add(b, "config_file:%s", config_file_path() ? config_file_path() : "");
    add(b, "io_threads_active:0"); /* one thread (DESIGN: run to completion) */
}

static void section_clients(struct buf *b)
{
    add(b, "# Clients");
    size_t links, link_bytes, max_in, max_out;
    cluster_bus_links_stats(&links, &link_bytes);
    session_clients_max_buffers(&max_in, &max_out);
    add(b, "connected_clients:%zu", session_client_count());
    add(b, "cluster_connections:%zu", links);
    add(b, "maxclients:%lld", config.maxclients);
    /* The largest buffers now (Redis: over the last few seconds). */
    add(b, "client_recent_max_input_buffer:%zu", max_in);
    add(b, "client_recent_max_output_buffer:%zu", max_out);
    add(b, "blocked_clients:%zu", session_blocked_count());
    add(b, "tracking_clients:%zu", session_tracking_clients);
    add(b, "clients_in_timeout_table:%zu", session_blocked_with_timeout_count());
}

static void section_memory(struct buf *b)
{
    memory_report_info(b);
}

static void section_persistence(struct buf *b)
{
    add(b, "# Persistence");
    add(b, "loading:%d", persist_loading() ? 1 : 0);
    add(b, "async_loading:0");
    /* Progress of a running fork child: not reported back by goblin-core's
     * children, so 0 (rdb_last_cow_size and aof_last_cow_size are). */
    add(b, "current_cow_peak:0");
    add(b, "current_cow_size:0");
    add(b, "current_cow_size_age:0");
    add(b, "current_fork_perc:0.00");
    add(b, "current_save_keys_processed:0");
    add(b, "current_save_keys_total:0");
    persist_info(b);
    aof_info(b);
    persist_loading_info(b);
}

static void section_stats(struct buf *b)
{
    const struct stats *s = &stats;
    long long exceeded_total, exceeded_now;
    evict_exceeded_ms(&exceeded_total, &exceeded_now);
    add(b, "# Stats");
    add(b, "total_connections_received:%lld", s->connections_received);
    add(b, "total_commands_processed:%lld", s->commands_processed);
    add(b, "instantaneous_ops_per_sec:%lld", s->instantaneous_ops_per_sec);
    add(b, "total_net_input_bytes:%lld", s->net_input_bytes);
    add(b, "total_net_output_bytes:%lld", s->net_output_bytes);
    add(b, "total_net_repl_input_bytes:0");
    add(b, "total_net_repl_output_bytes:%lld", repl_stats.output_bytes);
    add(b, "instantaneous_input_kbps:%.2f", s->instantaneous_input_kbps);
    add(b, "instantaneous_output_kbps:%.2f", s->instantaneous_output_kbps);
    add(b, "instantaneous_input_repl_kbps:0.00");
    add(b, "instantaneous_output_repl_kbps:0.00");
    add(b, "rejected_connections:%lld", s->rejected_connections);
    add(b, "sync_full:%lld", repl_stats.sync_full);
    add(b, "sync_partial_ok:%lld", repl_stats.sync_partial_ok);
    add(b, "sync_partial_err:%lld", repl_stats.sync_partial_err);
    add(b, "expired_keys:%lld", keyspace.stats.expired_keys);
    /* Redis's estimate of the expired share among sampled keys: not kept. */
    add(b, "expired_stale_perc:0.00");
    add(b, "expired_time_cap_reached_count:%lld", s->expired_time_cap_reached);
    add(b, "expire_cycle_cpu_milliseconds:%lld", s->expire_cycle_cpu_ms);
    add(b, "evicted_keys:%lld", keyspace.stats.evicted_keys);
    add(b, "evicted_clients:%lld", s->evicted_clients);
    add(b, "total_eviction_exceeded_time:%lld", exceeded_total);
    add(b, "current_eviction_exceeded_time:%lld", exceeded_now);
    add(b, "keyspace_hits:%lld", keyspace.stats.hits);
    add(b, "keyspace_misses:%lld", keyspace.stats.misses);
    add(b, "pubsub_channels:%zu", pubsub_channel_count(PUBSUB_CHANNEL));
    add(b, "pubsub_patterns:%zu", pubsub_pattern_count());
    add(b, "pubsubshard_channels:%zu", pubsub_channel_count(PUBSUB_SHARD));
    add(b, "latest_fork_usec:%lld", (long long)latency_latest_fork_us);
    add(b, "total_forks:%lld", latency_total_forks);
    /* MIGRATE opens a connection per call and caches none (cmd_migrate.c). */
    add(b, "migrate_cached_sockets:0");
    add(b, "slave_expires_tracked_keys:0");
    /* No active defragmentation: jemalloc's decay returns free pages. */
    add(b, "active_defrag_hits:0");
    add(b, "active_defrag_misses:0");
    add(b, "active_defrag_key_hits:0");
    add(b, "active_defrag_key_misses:0");
    add(b, "total_active_defrag_time:0");
    add(b, "current_active_defrag_time:0");
    add(b, "tracking_total_keys:%zu", session_tracking_keys());
    add(b, "tracking_total_items:%zu", session_tracking_items());
    add(b, "tracking_total_prefixes:%zu", session_tracking_prefixes());
    /* Error replies of a master or the AOF's replay: none to receive. */
    add(b, "unexpected_error_replies:0");
    add(b, "total_error_replies:%lld", reply_error_count);
    /* Deep sanitisation of RESTORE payloads, as Redis's default
     * sanitize-dump-payload no: none counted. */
    add(b, "dump_payload_sanitizations:0");
    add(b, "total_reads_processed:%lld", s->reads_processed);
    add(b, "total_writes_processed:%lld", s->writes_processed);
    add(b, "io_threaded_reads_processed:0");
    add(b, "io_threaded_writes_processed:0");
    /* Redis 7.0 resizes its fixed reply buffers; goblin-core's output
     * buffers grow as needed and none is resized on a schedule. */
    add(b, "reply_buffer_shrinks:0");
    add(b, "reply_buffer_expands:0");
    /* goblin-core's own counters, after Redis's. */
    add(b, "pubsub_slow_consumer_disconnections:%lld", s->pubsub_slow_consumer_disconnections);
    add(b, "client_query_buffer_limit_disconnections:%lld", s->query_buffer_limit_disconnections);
    add(b, "client_output_buffer_limit_disconnections:%lld", s->output_buffer_limit_disconnections);
    add(b, "client_protocol_error_disconnections:%lld", s->protocol_error_disconnections);
    /* Argon2 verifications run, failed AUTHs, AUTHs refused by the
     * verification cap, failure answers delayed (core/auth.h). */
    add(b, "auth_pwhash_verifications:%lld", auth_stats.pwhash_verifications);
    add(b, "auth_failures:%lld", auth_stats.failures);
    add(b, "auth_throttled:%lld", auth_stats.throttled);
    add(b, "auth_failures_delayed:%lld", auth_stats.delayed);
    /* ACL refusals (commands/acl_check.h), as Redis 7.2 names them. */
    add(b, "acl_access_denied_auth:%lld", acl_stats.denied_auth);
    add(b, "acl_access_denied_cmd:%lld", acl_stats.denied_cmd);
    add(b, "acl_access_denied_key:%lld", acl_stats.denied_key);
    add(b, "acl_access_denied_channel:%lld", acl_stats.denied_channel);
    /* Big SET values kept in the buffer they were received into (no copy). */
    add(b, "string_values_adopted:%lld", keyspace.stats.values_adopted);
    /* Commands SBE's typed templates called without argv (protocol/typed_call.h). */
    add(b, "sbe_typed_calls:%lld", s->typed_calls);
}

static void cpu_line(struct buf *b, const char *name, const struct timeval *t)
{
    add(b, "%s:%ld.%06ld", name, (long)t->tv_sec, (long)t->tv_usec);
}

static void section_cpu(struct buf *b)
{
    struct rusage self, children, thread;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    getrusage(RUSAGE_THREAD, &thread);
    add(b, "# CPU");
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
        add(b,
            "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,failed_calls=%"
            "lld",
            cmd->full_name, cmd->calls, usec, cmd->calls ? (double)usec / (double)cmd->calls : 0.0,
            cmd->rejected_calls, cmd->failed_calls);
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
    add(b, "# Modules");
}

static void section_commandstats(struct buf *b)
{
    add(b, "# Commandstats");
    command_foreach(commandstat_visit, b);
}

static void errorstat_line(const char *code, long long count, void *arg)
{
    add(arg, "errorstat_%s:count=%lld", code, count);
}

static void section_errorstats(struct buf *b)
{
    add(b, "# Errorstats");
    reply_error_stats_foreach(errorstat_line, b);
}

static void latencystat_line(struct buf *b, const struct command *cmd)
{
    if (cmd->latency_histogram) {
        char line[1024];
        latency_tracking_format(cmd->full_name, cmd->latency_histogram, line, sizeof line);
        add(b, "%s", line);
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
    add(b, "# Latencystats");
    command_foreach(latencystat_visit, b);
}

static void section_cluster(struct buf *b)
{
    add(b, "# Cluster");
    add(b, "cluster_enabled:%d", cluster_enabled ? 1 : 0);
}

static void section_keyspace(struct buf *b)
{
    add(b, "# Keyspace");
    for (int i = 0; i < keyspace.count; i++) {
        struct db *db = keyspace_db(i);
        size_t keys = dict_size(&db->keys);
        if (!keys) continue;
        add(b, "db%d:keys=%zu,expires=%zu,avg_ttl=%lld", i, keys, dict_size(&db->expires),
            db->avg_ttl_ms);
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
