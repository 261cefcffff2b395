/* cmd_info.c — INFO: the server's self-description in Redis's text format. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "commands/command.h"
#include "connection/session.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/latency_tracking.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "server/server.h"
#include "server/version.h"
#include "store/evict.h"
#include "store/pubsub.h"
#include "transport/fabric.h"
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

static void human_bytes(char *out, size_t cap, double n)
{
    const char *units = "BKMGTP";
    int u = 0;
    while (n >= 1024 && u < 5) n /= 1024, u++;
    if (u == 0)
        snprintf(out, cap, "%.0fB", n);
    else
        snprintf(out, cap, "%.2f%c", n, units[u]);
}

static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long pages_total = 0, pages_rss = 0;
    int ok = fscanf(f, "%lu %lu", &pages_total, &pages_rss);
    fclose(f);
    return ok == 2 ? pages_rss * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

static size_t peak_memory;

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
    add(b, "goblin_version:%s", GOBLIN_VERSION);
    add(b, "redis_mode:standalone");
    add(b, "os:%s %s %s", u.sysname, u.release, u.machine);
    add(b, "arch_bits:%d", (int)(sizeof(void *) * 8));
    add(b, "multiplexing_api:epoll");
    add(b, "gcc_version:%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
    add(b, "process_id:%d", (int)getpid());
    add(b, "run_id:%s", server.run_id);
    add(b, "tcp_port:%d", server.tcp_port);
    add(b, "server_time_usec:%lld", (long long)clock_unix_us());
    add(b, "uptime_in_seconds:%lld", (long long)uptime);
    add(b, "uptime_in_days:%lld", (long long)(uptime / 86400));
    add(b, "hz:%lld", config.hz);
    add(b, "configured_hz:%lld", config.hz);
    add(b, "lru_clock:%u", keyspace.lru_clock);
    add(b, "executable:%s", exe);
    add(b, "config_file:");
}

static void section_clients(struct buf *b)
{
    add(b, "# Clients");
    add(b, "connected_clients:%zu", session_client_count());
    add(b, "maxclients:%lld", config.maxclients);
    add(b, "blocked_clients:%zu", session_blocked_count());
    add(b, "tracking_clients:%zu", session_tracking_clients);
}

/* Ratio a / b as Redis prints it (0 when b is 0). */
static double ratio(size_t a, size_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static long long difference(size_t a, size_t b)
{
    return (long long)a - (long long)b;
}

/* Redis 7.0's fields and formulas (server.c genRedisInfoString): the
 * allocator's own view (allocated <= active <= resident) between what the
 * program asked for (used_memory) and what the kernel charges (RSS). Without
 * allocator statistics (libc in sanitizer builds) Redis's stand-ins are used:
 * resident = RSS, active = resident, allocated = used_memory. */
static void section_memory(struct buf *b)
{
    size_t used = xmalloc_used_bytes(), rss = resident_bytes();
    if (used > peak_memory) peak_memory = used;
    struct allocator_stats alloc;
    if (!allocator_stats_read(&alloc)) {
        alloc.resident = rss;
        alloc.active = alloc.resident;
        alloc.allocated = used;
    }
    size_t system = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    char h_used[32], h_rss[32], h_peak[32], h_system[32];
    human_bytes(h_used, sizeof h_used, (double)used);
    human_bytes(h_rss, sizeof h_rss, (double)rss);
    human_bytes(h_peak, sizeof h_peak, (double)peak_memory);
    human_bytes(h_system, sizeof h_system, (double)system);
    add(b, "# Memory");
    add(b, "used_memory:%zu", used);
    add(b, "used_memory_human:%s", h_used);
    add(b, "used_memory_rss:%zu", rss);
    add(b, "used_memory_rss_human:%s", h_rss);
    add(b, "used_memory_peak:%zu", peak_memory);
    add(b, "used_memory_peak_human:%s", h_peak);
    add(b, "allocator_allocated:%zu", alloc.allocated);
    add(b, "allocator_active:%zu", alloc.active);
    add(b, "allocator_resident:%zu", alloc.resident);
    add(b, "total_system_memory:%zu", system);
    add(b, "total_system_memory_human:%s", h_system);
    char h_max[32];
    human_bytes(h_max, sizeof h_max, (double)config.maxmemory);
    add(b, "maxmemory:%lld", config.maxmemory);
    add(b, "maxmemory_human:%s", h_max);
    add(b, "maxmemory_policy:%s", evict_policy_names[evict_settings.policy]);
    add(b, "allocator_frag_ratio:%.2f", ratio(alloc.active, alloc.allocated));
    add(b, "allocator_frag_bytes:%lld", difference(alloc.active, alloc.allocated));
    add(b, "allocator_rss_ratio:%.2f", ratio(alloc.resident, alloc.active));
    add(b, "allocator_rss_bytes:%lld", difference(alloc.resident, alloc.active));
    add(b, "rss_overhead_ratio:%.2f", ratio(rss, alloc.resident));
    add(b, "rss_overhead_bytes:%lld", difference(rss, alloc.resident));
    add(b, "mem_fragmentation_ratio:%.2f", ratio(rss, used));
    add(b, "mem_fragmentation_bytes:%lld", difference(rss, used));
    add(b, "mem_allocator:%s", xmalloc_allocator_name());
}

static void section_persistence(struct buf *b)
{
    add(b, "# Persistence");
    add(b, "loading:0");
    add(b, "async_loading:0");
    persist_info(b);
    aof_info(b);
}

static void section_stats(struct buf *b)
{
    const struct stats *s = &stats;
    add(b, "# Stats");
    add(b, "total_connections_received:%lld", s->connections_received);
    add(b, "total_commands_processed:%lld", s->commands_processed);
    add(b, "instantaneous_ops_per_sec:%lld", s->instantaneous_ops_per_sec);
    add(b, "total_net_input_bytes:%lld", s->net_input_bytes);
    add(b, "total_net_output_bytes:%lld", s->net_output_bytes);
    add(b, "rejected_connections:%lld", s->rejected_connections);
    add(b, "expired_keys:%lld", keyspace.stats.expired_keys);
    add(b, "evicted_keys:%lld", keyspace.stats.evicted_keys);
    add(b, "keyspace_hits:%lld", keyspace.stats.hits);
    add(b, "keyspace_misses:%lld", keyspace.stats.misses);
    add(b, "pubsub_channels:%zu", pubsub_channel_count(PUBSUB_CHANNEL));
    add(b, "pubsub_patterns:%zu", pubsub_pattern_count());
    add(b, "pubsubshard_channels:%zu", pubsub_channel_count(PUBSUB_SHARD));
    /* MIGRATE opens a connection per call and caches none (cmd_migrate.c). */
    add(b, "migrate_cached_sockets:0");
    add(b, "tracking_total_keys:%zu", session_tracking_keys());
    add(b, "tracking_total_items:%zu", session_tracking_items());
    add(b, "tracking_total_prefixes:%zu", session_tracking_prefixes());
    add(b, "pubsub_slow_consumer_disconnections:%lld", s->pubsub_slow_consumer_disconnections);
    add(b, "total_error_replies:%lld", reply_error_count);
    add(b, "client_query_buffer_limit_disconnections:%lld", s->query_buffer_limit_disconnections);
    add(b, "client_output_buffer_limit_disconnections:%lld", s->output_buffer_limit_disconnections);
    add(b, "client_protocol_error_disconnections:%lld", s->protocol_error_disconnections);
    /* Argon2 verifications run, failed AUTHs, AUTHs refused by a failure
     * budget or the verification cap (server/auth.h). */
    add(b, "auth_pwhash_verifications:%lld", auth_stats.pwhash_verifications);
    add(b, "auth_failures:%lld", auth_stats.failures);
    add(b, "auth_throttled:%lld", auth_stats.throttled);
    /* Big SET values kept in the buffer they were received into (no copy). */
    add(b, "string_values_adopted:%lld", keyspace.stats.values_adopted);
    /* Commands SBE's typed templates called without argv (commands/typed_call.h). */
    add(b, "sbe_typed_calls:%lld", s->typed_calls);
}

static void section_replication(struct buf *b)
{
    add(b, "# Replication");
    add(b, "role:master");
    add(b, "connected_slaves:0");
    add(b, "master_replid:%s", server.repl_id);
    add(b, "master_repl_offset:0");
}

static void section_cpu(struct buf *b)
{
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    add(b, "# CPU");
    add(b, "used_cpu_sys:%ld.%06ld", (long)self.ru_stime.tv_sec, (long)self.ru_stime.tv_usec);
    add(b, "used_cpu_user:%ld.%06ld", (long)self.ru_utime.tv_sec, (long)self.ru_utime.tv_usec);
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

/* Not in the default set (Redis has no such section). */
static void section_libfabric(struct buf *b)
{
    add(b, "# Libfabric");
    fabric_info(b);
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
    {"replication", section_replication, true},
    {"cpu", section_cpu, true},
    {"modules", section_modules, true},
    {"commandstats", section_commandstats, false},
    {"errorstats", section_errorstats, true},
    {"latencystats", section_latencystats, false},
    {"cluster", section_cluster, true},
    {"keyspace", section_keyspace, true},
    {"libfabric", section_libfabric, false},
};

#define SECTION_COUNT (sizeof sections / sizeof sections[0])

static void cmd_info(struct cmd_ctx *ctx)
{
    bool want[SECTION_COUNT] = {0};
    if (ctx->argc == 1) {
        for (size_t s = 0; s < SECTION_COUNT; s++) want[s] = sections[s].in_default;
    }
    for (int j = 1; j < ctx->argc; j++) {
        bool every = arg_equals(ctx, j, "all") || arg_equals(ctx, j, "everything");
        bool dflt = arg_equals(ctx, j, "default");
        for (size_t s = 0; s < SECTION_COUNT; s++)
            if (every || (dflt && sections[s].in_default) || arg_equals(ctx, j, sections[s].name))
                want[s] = true;
    }
    struct buf text;
    buf_init(&text, 4096);
    bool first = true;
    for (size_t s = 0; s < SECTION_COUNT; s++) {
        if (!want[s]) continue;
        if (!first) buf_append(&text, "\r\n", 2);
        sections[s].render(&text);
        first = false;
    }
    reply_verbatim(ctx->reply, buf_head(&text), buf_len(&text), "txt");
    buf_free(&text);
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
