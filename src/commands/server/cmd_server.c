/* cmd_server.c — commands about the server: DBSIZE, FLUSHALL, FLUSHDB, SWAPDB,
 * TIME, CONFIG, DEBUG (whose subcommands are in cmd_debug.c); SHUTDOWN is
 * server/shutdown.c's.
 * (INFO, COMMAND and the persistence commands have their own files.) */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/cluster.h"
#include "commands/command.h"
#include "commands/server/debug.h"
#include "connection/session.h"
#include "core/config.h"
#include "persist/persist.h"
#include "core/latency.h"
#include "core/server_state.h"
#include "util/stats.h"
#include "store/evict.h"
#include "store/stream.h"
#include "util/clock.h"
#include "util/allocator.h"
#include "util/xmalloc.h"

static void cmd_dbsize(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, (long long)dict_size(&ctx->db->keys));
}

/* FLUSHALL/FLUSHDB take an optional ASYNC|SYNC; freeing is synchronous either
 * way. Like Redis after a synchronous flush, the freed pages are then handed
 * back to the system at once: the flush already costs time proportional to
 * the data, and RSS should not wait for the allocator's decay timer. */
static bool flush_mode_ok(struct cmd_ctx *ctx)
{
    if (ctx->argc == 1) return true;
    if (ctx->argc == 2 && (arg_equals(ctx, 1, "async") || arg_equals(ctx, 1, "sync"))) return true;
    reply_error_syntax(ctx->reply);
    return false;
}

static void cmd_flushall(struct cmd_ctx *ctx)
{
    if (!flush_mode_ok(ctx)) return;
    if (session_tracking_clients || session_tracking_keys()) session_tracking_flush();
    keyspace_flush_all();
    persist_after_flushall();
    allocator_purge();
    reply_ok(ctx->reply);
}

static void cmd_flushdb(struct cmd_ctx *ctx)
{
    if (!flush_mode_ok(ctx)) return;
    if (session_tracking_clients || session_tracking_keys()) session_tracking_flush();
    db_flush(ctx->db);
    allocator_purge();
    reply_ok(ctx->reply);
}

static void cmd_swapdb(struct cmd_ctx *ctx)
{
    if (cluster_enabled) {
        reply_error(ctx->reply, "ERR SWAPDB is not allowed in cluster mode");
        return;
    }
    long long a, b;
    if (!num_parse_ll(ctx->argv[1], ctx->argv_len[1], &a)) {
        reply_error(ctx->reply, "ERR invalid first DB index");
        return;
    }
    if (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &b)) {
        reply_error(ctx->reply, "ERR invalid second DB index");
        return;
    }
    if (a < 0 || a >= keyspace.count || b < 0 || b >= keyspace.count) {
        reply_error(ctx->reply, "ERR DB index is out of range");
        return;
    }
    if (a != b) keyspace_swap((int)a, (int)b);
    keyspace.stats.dirty++; /* also for a database swapped with itself, as Redis */
    reply_ok(ctx->reply);
}

static void cmd_time(struct cmd_ctx *ctx)
{
    int64_t us = clock_unix_us();
    reply_array_len(ctx->reply, 2);
    reply_bulk_ll(ctx->reply, us / 1000000);
    reply_bulk_ll(ctx->reply, us % 1000000);
}

/* --- CONFIG ---------------------------------------------------------- */

struct config_get_state {
    struct reply *reply;
    long long pairs;
    char **seen; /* names already emitted (CONFIG GET a a* returns each once) */
    int nseen, cap;
};

static bool config_get_seen(const char *name, void *arg)
{
    struct config_get_state *st = arg;
    for (int i = 0; i < st->nseen; i++)
        if (strcmp(st->seen[i], name) == 0) return true;
    return false;
}

static void config_get_emit(const char *name, const char *value, void *arg)
{
    struct config_get_state *st = arg;
    if (st->nseen == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 32;
        st->seen = xrealloc(st->seen, sizeof *st->seen * (size_t)st->cap);
    }
    st->seen[st->nseen++] = xstrdup(name); /* emit's name may be a temporary */
    reply_bulk_cstr(st->reply, name);
    reply_bulk_cstr(st->reply, value);
    st->pairs++;
}

static void cmd_config_get(struct cmd_ctx *ctx)
{
    struct config_get_state st = {.reply = ctx->reply};
    reply_mark m = reply_defer(ctx->reply);
    for (int i = 2; i < ctx->argc; i++)
        config_get_matching(ctx->argv[i], ctx->argv_len[i], config_get_emit, &st, config_get_seen);
    reply_defer_map(ctx->reply, m, st.pairs);
    for (int i = 0; i < st.nseen; i++) xfree(st.seen[i]);
    xfree(st.seen);
}

/* CONFIG SET is all-or-nothing, as in Redis 7: names are checked first, then
 * values applied in order; on a failure the ones already applied are put
 * back. Secrets (stored hashed, not restorable) are applied last. */
static void cmd_config_set(struct cmd_ctx *ctx)
{
    if ((ctx->argc - 2) % 2 != 0) {
        reply_error_syntax(ctx->reply);
        return;
    }
    int pairs = (ctx->argc - 2) / 2;
    const char **names = xcalloc((size_t)pairs, sizeof *names);
    int *order = xcalloc((size_t)pairs, sizeof *order);
    struct buf *old = xcalloc((size_t)pairs, sizeof *old);
    int applied = 0, n = 0;
    struct config_error cerr;
    /* Redis 7.0's checks before any value is applied: the first name that
     * is unknown, immutable, protected or a duplicate is reported (named as
     * typed), and nothing is set. */
    bool protected_allowed =
        command_protected_action_allowed(config.enable_protected_configs, ctx->conn);
    const char *refusal = NULL;
    int refused_at = 0;
    for (int i = 0; i < pairs && !refusal; i++) {
        int a = 2 + 2 * i;
        refused_at = a;
        names[i] = config_canonical_name(ctx->argv[a], ctx->argv_len[a]);
        if (!names[i]) {
            reply_error_fmt(ctx->reply,
                            "ERR Unknown option or number of arguments for CONFIG SET - '%.*s'",
                            (int)ctx->argv_len[a], ctx->argv[a]);
            goto done;
        }
        refusal = config_set_refusal(ctx->argv[a], ctx->argv_len[a], ctx->argv[a + 1],
                                     ctx->argv_len[a + 1], protected_allowed);
        for (int k = 0; k < i && !refusal; k++)
            if (strcmp(names[k], names[i]) == 0) refusal = "duplicate parameter";
    }
    if (refusal) {
        reply_error_fmt(ctx->reply,
                        "ERR CONFIG SET failed (possibly related to argument '%.*s') - %s",
                        (int)ctx->argv_len[refused_at], ctx->argv[refused_at], refusal);
        goto done;
    }
    for (int i = 0; i < pairs; i++)
        if (!config_param_is_secret(ctx->argv[2 + 2 * i], ctx->argv_len[2 + 2 * i])) order[n++] = i;
    for (int i = 0; i < pairs; i++)
        if (config_param_is_secret(ctx->argv[2 + 2 * i], ctx->argv_len[2 + 2 * i])) order[n++] = i;
    for (applied = 0; applied < pairs; applied++) {
        int i = order[applied], a = 2 + 2 * i;
        buf_init(&old[i], 64);
        config_get_value(names[i], &old[i]);
        const char *err = config_set(ctx->argv[a], ctx->argv_len[a], ctx->argv[a + 1],
                                     ctx->argv_len[a + 1], &cerr);
        if (err) {
            reply_error_fmt(ctx->reply, "ERR %s", err);
            buf_free(&old[i]);
            break;
        }
    }
    /* Settings that act together (TLS) take effect once all are stored. */
    const char *err = applied == pairs ? config_set_commit(&cerr) : NULL;
    if (err) reply_error_fmt(ctx->reply, "ERR %s", err);
    if (applied < pairs || err) {
        while (applied-- > 0) {
            int k = order[applied];
            struct config_error ignored; /* the value it had was valid */
            config_set(names[k], strlen(names[k]), buf_head(&old[k]), buf_len(&old[k]), &ignored);
            buf_free(&old[k]);
        }
        applied = 0;
        config_set_abandon(); /* the old values are back; so is what they made */
        goto done;
    }
    reply_ok(ctx->reply);
done:
    for (int i = 0; i < applied; i++) buf_free(&old[order[i]]);
    xfree(old);
    xfree(order);
    xfree(names);
}

static void cmd_config_resetstat(struct cmd_ctx *ctx)
{
    memset(&stats, 0, sizeof stats);
    memset(&keyspace.stats, 0, sizeof keyspace.stats);
    latency_total_forks = 0;
    latency_latest_fork_us = 0;
    evict_reset_exceeded();
    stream_lazyfreed = 0;
    reply_error_count = 0;
    reply_error_stats_reset();
    command_reset_stats();
    reply_ok(ctx->reply);
}

static void cmd_config_rewrite(struct cmd_ctx *ctx)
{
    struct config_error err;
    const char *why = config_rewrite(false, &err);
    if (why)
        reply_error(ctx->reply, why);
    else
        reply_ok(ctx->reply);
}

static void cmd_config_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        "HELP",
        "    Print this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

#define CONFIG_FLAGS (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

static struct command config_subcommands[] = {
    {.name = "get",
     .arity = -3,
     .flags = CONFIG_FLAGS,
     .fn = cmd_config_get,
     .summary = "Returns the effective values of configuration parameters.",
     .since = "2.0.0",
     .group = "server",
     .complexity = "O(N) when N is the number of configuration parameters provided"},
    {.name = "set",
     .arity = -4,
     .flags = CONFIG_FLAGS,
     .fn = cmd_config_set,
     .summary = "Sets configuration parameters in-flight.",
     .since = "2.0.0",
     .group = "server",
     .complexity = "O(N) when N is the number of configuration parameters provided"},
    {.name = "resetstat",
     .arity = 2,
     .flags = CONFIG_FLAGS,
     .fn = cmd_config_resetstat,
     .summary = "Resets the server's statistics.",
     .since = "2.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "rewrite",
     .arity = 2,
     .flags = CONFIG_FLAGS,
     .fn = cmd_config_rewrite,
     .summary = "Persists the effective configuration to file.",
     .since = "2.8.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "help",
     .arity = 2,
     .flags = CMD_LOADING | CMD_STALE,
     .fn = cmd_config_help,
     .summary = "Returns helpful text about the different subcommands.",
     .since = "5.0.0",
     .group = "server",
     .complexity = "O(1)"},
    COMMAND_END,
};

struct command server_commands[] = {
    {.name = "dbsize",
     .arity = 1,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_dbsize,
     .summary = "Returns the number of keys in the database.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "flushall",
     .arity = -1,
     .flags = CMD_WRITE,
     .fn = cmd_flushall,
     .summary = "Removes all keys from all databases.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(N) where N is the total number of keys in all databases"},
    {.name = "flushdb",
     .arity = -1,
     .flags = CMD_WRITE,
     .fn = cmd_flushdb,
     .summary = "Remove all keys from the current database.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(N) where N is the number of keys in the selected database"},
    {.name = "swapdb",
     .arity = 3,
     .flags = CMD_WRITE | CMD_FAST,
     .fn = cmd_swapdb,
     .summary = "Swaps two Redis databases.",
     .since = "4.0.0",
     .group = "server",
     .complexity =
         "O(N) where N is the count of clients watching or blocking on keys from both databases."},
    {.name = "time",
     .arity = 1,
     .flags = CMD_LOADING | CMD_STALE | CMD_FAST | CMD_RANDOM,
     .fn = cmd_time,
     .summary = "Returns the server time.",
     .since = "2.6.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "debug",
     .arity = -2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_PROTECTED,
     .fn = cmd_debug,
     .summary = "A container for debugging commands.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "Depends on subcommand."},
    {.name = "config",
     .arity = -2,
     .subcommands = config_subcommands,
     .summary = "A container for server configuration commands.",
     .since = "2.0.0",
     .group = "server",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
