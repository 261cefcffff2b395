/* cmd_memory.c — MEMORY STATS/DOCTOR/MALLOC-STATS/USAGE/PURGE/HELP with
 * Redis 7.0's replies (the figures: commands/server/memory_report.h). USAGE's
 * lookup neither refreshes the key's LRU clock nor counts as a hit. */
#include <stdio.h>
#include <string.h>

#include "commands/command.h"
#include "commands/server/memory_report.h"
#include "util/allocator.h"

/* MEMORY USAGE's default SAMPLES (Redis's OBJ_COMPUTE_SIZE_DEF_SAMPLES). */
#define MEMORY_USAGE_DEFAULT_SAMPLES 5

static void cmd_memory_usage(struct cmd_ctx *ctx)
{
    long long samples = MEMORY_USAGE_DEFAULT_SAMPLES;
    for (int i = 3; i < ctx->argc; i++) {
        if (arg_equals(ctx, i, "samples") && i + 1 < ctx->argc) {
            if (!arg_to_ll(ctx, i + 1, &samples)) return;
            if (samples < 0) {
                reply_error_syntax(ctx->reply);
                return;
            }
            i++;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    struct kv *kv = db_lookup_quiet(ctx->db, ctx->argv[2], ctx->argv_len[2]); /* uncounted */
    if (!kv) reply_nil(ctx->reply);
    /* samples == 0 means every element, which kv_memory_usage also spells 0. */
    if (kv) reply_int(ctx->reply, (long long)kv_memory_usage(kv, samples));
}

/* Redis's MEMORY PURGE: the allocator returns its free pages now instead of
 * when its decay timer (util/allocator.c) would. */
static void cmd_memory_purge(struct cmd_ctx *ctx)
{
    if (allocator_purge())
        reply_ok(ctx->reply);
    else
        reply_error(ctx->reply, "ERR Error purging dirty pages");
}

static void cmd_memory_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

/* MEMORY STATS: Redis 7.0's map, in its order (commands/server/memory_report.h
 * says what each figure covers here). */
static void cmd_memory_stats(struct cmd_ctx *ctx)
{
    struct reply *r = ctx->reply;
    struct memory_report m;
    memory_report_compute(&m);
    static const char *const first[] = {
        "peak.allocated", "total.allocated", "startup.allocated", "replication.backlog",
        "clients.slaves", "clients.normal",  "cluster.links",     "aof.buffer",
        "lua.caches",     "functions.caches"};
    const size_t first_values[] = {
        m.peak,           m.used,          m.startup,    m.repl_backlog, m.clients_replicas,
        m.clients_normal, m.cluster_links, m.aof_buffer, m.scripts_eval, m.functions_bytes};
    reply_map_len(r, 27 + m.db_count);
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
        reply_bulk_cstr(r, first[i]);
        reply_int(r, (long long)first_values[i]);
    }
    for (int i = 0; i < m.db_count; i++) {
        char name[32];
        snprintf(name, sizeof name, "db.%d", m.dbs[i].id);
        reply_bulk_cstr(r, name);
        reply_map_len(r, 3);
        reply_bulk_cstr(r, "overhead.hashtable.main");
        reply_int(r, (long long)m.dbs[i].main);
        reply_bulk_cstr(r, "overhead.hashtable.expires");
        reply_int(r, (long long)m.dbs[i].expires);
        reply_bulk_cstr(r, "overhead.hashtable.slot-to-keys");
        reply_int(r, (long long)m.dbs[i].slot_to_keys);
    }
    reply_bulk_cstr(r, "overhead.total");
    reply_int(r, (long long)m.overhead);
    reply_bulk_cstr(r, "keys.count");
    reply_int(r, (long long)m.keys);
    reply_bulk_cstr(r, "keys.bytes-per-key");
    reply_int(r, (long long)m.bytes_per_key);
    reply_bulk_cstr(r, "dataset.bytes");
    reply_int(r, (long long)m.dataset);
    reply_bulk_cstr(r, "dataset.percentage");
    reply_double(r, (float)m.dataset_perc);
    reply_bulk_cstr(r, "peak.percentage");
    reply_double(r, (float)m.peak_perc);
    const size_t allocated = m.alloc.allocated, active = m.alloc.active,
                 resident = m.alloc.resident;
    reply_bulk_cstr(r, "allocator.allocated");
    reply_int(r, (long long)allocated);
    reply_bulk_cstr(r, "allocator.active");
    reply_int(r, (long long)active);
    reply_bulk_cstr(r, "allocator.resident");
    reply_int(r, (long long)resident);
    /* Ratios as Redis computes them: in float. */
    reply_bulk_cstr(r, "allocator-fragmentation.ratio");
    reply_double(r, allocated ? (float)active / allocated : 0);
    reply_bulk_cstr(r, "allocator-fragmentation.bytes");
    reply_int(r, (long long)active - (long long)allocated);
    reply_bulk_cstr(r, "allocator-rss.ratio");
    reply_double(r, active ? (float)resident / active : 0);
    reply_bulk_cstr(r, "allocator-rss.bytes");
    reply_int(r, (long long)resident - (long long)active);
    reply_bulk_cstr(r, "rss-overhead.ratio");
    reply_double(r, resident ? (float)m.rss / resident : 0);
    reply_bulk_cstr(r, "rss-overhead.bytes");
    reply_int(r, (long long)m.rss - (long long)resident);
    reply_bulk_cstr(r, "fragmentation");
    reply_double(r, m.used ? (float)m.rss / m.used : 0);
    reply_bulk_cstr(r, "fragmentation.bytes");
    reply_int(r, (long long)m.rss - (long long)m.used);
    memory_report_release(&m);
}

static void cmd_memory_doctor(struct cmd_ctx *ctx)
{
    struct buf out;
    buf_init(&out, 1024);
    memory_report_doctor(&out);
    reply_verbatim(ctx->reply, buf_head(&out), buf_len(&out), "txt");
    buf_free(&out);
}

/* jemalloc's own report; Redis's words where the allocator has none. */
static void cmd_memory_malloc_stats(struct cmd_ctx *ctx)
{
    struct buf out;
    buf_init(&out, 16384);
    if (!allocator_stats_text(&out)) {
        buf_truncate(&out, 0);
        buf_append_fmt(&out, "Stats not supported for the current allocator");
    }
    reply_verbatim(ctx->reply, buf_head(&out), buf_len(&out), "txt");
    buf_free(&out);
}

static struct command memory_subcommands[] = {
    {.name = "purge",
     .arity = 2,
     .flags = 0,
     .fn = cmd_memory_purge,
     .summary = "Asks the allocator to release memory.",
     .since = "4.0.0",
     .group = "server",
     .complexity = "Depends on how much memory is allocated, could be slow"},
    {.name = "usage",
     .arity = -3,
     .flags = CMD_READONLY,
     .fn = cmd_memory_usage,
     .first_key = 2,
     .last_key = 2,
     .key_step = 1,
     .summary = "Estimates the memory usage of a key.",
     .since = "4.0.0",
     .group = "server",
     .complexity = "O(N) where N is the number of samples."},
    {.name = "help",
     .arity = 2,
     .flags = CMD_LOADING | CMD_STALE,
     .fn = cmd_memory_help,
     .summary = "Returns helpful text about the different subcommands.",
     .since = "4.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "stats",
     .arity = 2,
     .flags = 0,
     .fn = cmd_memory_stats,
     .summary = "Returns details about memory usage.",
     .since = "4.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "doctor",
     .arity = 2,
     .flags = 0,
     .fn = cmd_memory_doctor,
     .summary = "Outputs a memory problems report.",
     .since = "4.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "malloc-stats",
     .arity = 2,
     .flags = 0,
     .fn = cmd_memory_malloc_stats,
     .summary = "Returns the allocator statistics.",
     .since = "4.0.0",
     .group = "server",
     .complexity = "Depends on how much memory is allocated, could be slow"},
    COMMAND_END,
};

struct command memory_commands[] = {
    {.name = "memory",
     .arity = -2,
     .flags = 0,
     .fn = NULL,
     .subcommands = memory_subcommands,
     .summary = "A container for memory diagnostics commands.",
     .since = "4.0.0",
     .group = "server",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
