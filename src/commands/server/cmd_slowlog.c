/* cmd_slowlog.c — SLOWLOG GET/LEN/RESET/HELP and the log itself; see slowlog.h. */
#include "commands/slowlog.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "commands/command.h"
#include "protocol/typed_call.h"
#include "connection/session.h"
#include "core/config.h"
#include "util/clock.h"
#include "util/cycles.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

/* Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING. */
#define SLOWLOG_MAX_ARGC 32
#define SLOWLOG_MAX_STRING 128

struct slowlog_entry {
    struct slowlog_entry *newer, *older;
    long long id, time_s, duration_us;
    int argc;
    char **argv;
    size_t *argv_len;
    char *addr, *name;
};

uint64_t slowlog_threshold_cycles = UINT64_MAX;

static struct {
    struct slowlog_entry *newest, *oldest;
    long long len;
    long long next_id;
} slowlog;

static void entry_free(struct slowlog_entry *e)
{
    for (int i = 0; i < e->argc; i++) xfree(e->argv[i]);
    xfree(e->argv);
    xfree(e->argv_len);
    xfree(e->addr);
    xfree(e->name);
    xfree(e);
}

static void trim_to(long long max)
{
    while (slowlog.len > max && slowlog.oldest) {
        struct slowlog_entry *e = slowlog.oldest;
        slowlog.oldest = e->newer;
        if (slowlog.oldest)
            slowlog.oldest->older = NULL;
        else
            slowlog.newest = NULL;
        entry_free(e);
        slowlog.len--;
    }
}

void slowlog_apply_config(void)
{
    long long us = config.slowlog_log_slower_than;
    if (us < 0 || cycles_per_us <= 0)
        slowlog_threshold_cycles = UINT64_MAX;
    else
        slowlog_threshold_cycles = (uint64_t)((double)us * cycles_per_us);
    trim_to(config.slowlog_max_len);
}

static char *dup_fmt(const char *fmt, long long n, size_t *len)
{
    char tmp[64];
    int k = snprintf(tmp, sizeof tmp, fmt, n);
    *len = (size_t)k;
    return xmemdup(tmp, (size_t)k);
}

void slowlog_record(const struct cmd_ctx *ctx, const struct typed_call *typed, uint64_t cycles)
{
    if (config.slowlog_max_len == 0 || (ctx->cmd->flags & CMD_SKIP_SLOWLOG)) return;
    /* A typed call's argv has no text for its numbers: show its RESP form. */
    const char *lowered_argv[TYPED_LOWERED_MAX];
    size_t lowered_len[TYPED_LOWERED_MAX];
    char number[TYPED_NUMBER_CAP];
    struct cmd_ctx lowered;
    if (typed && typed_call_has_numbers(typed->op)) {
        lowered = *ctx;
        lowered.argc = typed_call_lower(typed, lowered_argv, lowered_len, number);
        lowered.argv = lowered_argv;
        lowered.argv_len = lowered_len;
        ctx = &lowered;
    }
    struct slowlog_entry *e = xcalloc(1, sizeof *e);
    e->id = slowlog.next_id++;
    e->time_s = clock_unix_ms() / 1000;
    e->duration_us = cycles_to_us(cycles);
    e->argc = ctx->argc > SLOWLOG_MAX_ARGC ? SLOWLOG_MAX_ARGC : ctx->argc;
    e->argv = xmalloc(sizeof *e->argv * (size_t)e->argc);
    e->argv_len = xmalloc(sizeof *e->argv_len * (size_t)e->argc);
    for (int i = 0; i < e->argc; i++) {
        size_t len = ctx->argv_len[i];
        if (e->argc != ctx->argc && i == e->argc - 1) {
            e->argv[i] =
                dup_fmt("... (%lld more arguments)", ctx->argc - e->argc + 1, &e->argv_len[i]);
        } else if (command_arg_redacted(ctx, i)) {
            e->argv[i] = xmemdup("(redacted)", 10);
            e->argv_len[i] = 10;
        } else if (len > SLOWLOG_MAX_STRING) {
            char tail[64];
            int k = snprintf(tail, sizeof tail, "... (%zu more bytes)", len - SLOWLOG_MAX_STRING);
            e->argv[i] = xmalloc(SLOWLOG_MAX_STRING + (size_t)k);
            memcpy(e->argv[i], ctx->argv[i], SLOWLOG_MAX_STRING);
            memcpy(e->argv[i] + SLOWLOG_MAX_STRING, tail, (size_t)k);
            e->argv_len[i] = SLOWLOG_MAX_STRING + (size_t)k;
        } else {
            e->argv[i] = xmemdup(ctx->argv[i], len);
            e->argv_len[i] = len;
        }
    }
    e->addr = xstrdup(session_addr(ctx->conn));
    const char *name = session_name(ctx->conn);
    e->name = xstrdup(name ? name : "");
    e->older = slowlog.newest;
    if (slowlog.newest)
        slowlog.newest->newer = e;
    else
        slowlog.oldest = e;
    slowlog.newest = e;
    slowlog.len++;
    trim_to(config.slowlog_max_len);
}

static void cmd_slowlog_get(struct cmd_ctx *ctx)
{
    long long count = 10;
    if (ctx->argc == 3) {
        if (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &count) || count < -1) {
            reply_error(ctx->reply, "ERR count should be greater than or equal to -1");
            return;
        }
        if (count == -1) count = slowlog.len;
    }
    if (count > slowlog.len) count = slowlog.len;
    reply_array_len(ctx->reply, count);
    struct slowlog_entry *e = slowlog.newest;
    for (long long n = 0; n < count; n++, e = e->older) {
        reply_array_len(ctx->reply, 6);
        reply_int(ctx->reply, e->id);
        reply_int(ctx->reply, e->time_s);
        reply_int(ctx->reply, e->duration_us);
        reply_array_len(ctx->reply, e->argc);
        for (int i = 0; i < e->argc; i++) reply_bulk(ctx->reply, e->argv[i], e->argv_len[i]);
        reply_bulk(ctx->reply, e->addr, strlen(e->addr));
        reply_bulk(ctx->reply, e->name, strlen(e->name));
    }
}

static void cmd_slowlog_len(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, slowlog.len);
}

static void cmd_slowlog_reset(struct cmd_ctx *ctx)
{
    trim_to(0);
    reply_ok(ctx->reply);
}

static void cmd_slowlog_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

#define SLOWLOG_FLAGS (CMD_ADMIN | CMD_LOADING | CMD_STALE)

static struct command slowlog_subcommands[] = {
    {.name = "get",
     .arity = -2,
     .flags = SLOWLOG_FLAGS,
     .fn = cmd_slowlog_get,
     .summary = "Get the slow log's entries",
     .since = "2.2.12",
     .group = "server",
     .complexity = "O(N) where N is the number of entries returned"},
    {.name = "len",
     .arity = 2,
     .flags = SLOWLOG_FLAGS,
     .fn = cmd_slowlog_len,
     .summary = "Get the slow log's length",
     .since = "2.2.12",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "reset",
     .arity = 2,
     .flags = SLOWLOG_FLAGS,
     .fn = cmd_slowlog_reset,
     .summary = "Clear all entries from the slow log",
     .since = "2.2.12",
     .group = "server",
     .complexity = "O(N) where N is the number of entries in the slowlog"},
    {.name = "help",
     .arity = 2,
     .flags = CMD_LOADING | CMD_STALE,
     .fn = cmd_slowlog_help,
     .summary = "Show helpful text about the different subcommands",
     .since = "6.2.0",
     .group = "server",
     .complexity = "O(1)"},
    COMMAND_END,
};

struct command slowlog_commands[] = {
    {.name = "slowlog",
     .arity = -2,
     .subcommands = slowlog_subcommands,
     .summary = "A container for slow log commands",
     .since = "2.2.12",
     .group = "server",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param slowlog_params[] = {
    {.name = "slowlog-log-slower-than",
     .kind = CFG_INT,
     .value = &config.slowlog_log_slower_than,
     .min = -1,
     .max = LLONG_MAX,
     .value_name = "US",
     .help = "SLOWLOG records commands that ran at least this long; negative = off (default 10000)",
     .apply = slowlog_apply_config},
    {.name = "slowlog-max-len",
     .kind = CFG_INT,
     .value = &config.slowlog_max_len,
     .max = LLONG_MAX,
     .value_name = "N",
     .help = "SLOWLOG keeps this many entries (default 128)",
     .apply = slowlog_apply_config},
};

const struct config_table slowlog_config = CONFIG_TABLE(slowlog_params, NULL);
