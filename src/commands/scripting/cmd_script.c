/*
 * cmd_script.c — EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (Redis 7.0).
 *
 * The script cache lives in the EVAL engine (script_lua.h): its registry
 * table maps each SHA1 to the compiled function and another to the
 * script's flags (shebang). SCRIPT FLUSH closes the engine; the next script
 * opens a fresh one. The cache grows with every distinct script a client
 * sends, as Redis's does; SCRIPT FLUSH empties it.
 */
#include <ctype.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <string.h>

#include "cluster/cluster.h"
#include "commands/command.h"
#include "commands/monitor.h"
#include "scripting/script_lua.h"
#include "connection/session.h"
#include "persist/persist.h"
#include "core/config.h"
#include "util/xmalloc.h"

#define REG_SCRIPTS "goblin.scripts"
#define REG_SCRIPT_FLAGS "goblin.script_flags"

static lua_State *eval_engine;

static lua_State *engine(void)
{
    if (!eval_engine) {
        eval_engine = script_lua_new(NULL);
        lua_newtable(eval_engine);
        lua_setfield(eval_engine, LUA_REGISTRYINDEX, REG_SCRIPTS);
        lua_newtable(eval_engine);
        lua_setfield(eval_engine, LUA_REGISTRYINDEX, REG_SCRIPT_FLAGS);
    }
    return eval_engine;
}

static size_t vm_bytes(lua_State *L)
{
    return (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
}

void script_cache_stats(size_t *scripts, size_t *bytes)
{
    *scripts = 0;
    *bytes = 0;
    if (!eval_engine) return;
    lua_State *L = eval_engine;
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SCRIPT_FLAGS);
    for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) (*scripts)++;
    lua_pop(L, 1);
    *bytes = vm_bytes(L);
}

/* Redis's evalExtractShebangFlags: `#!lua [flags=a,b]` on the first line.
 * Sets *flags and *skip (the shebang's length, its line feed kept so line
 * numbers stay the user's); false with the error in err. */
static bool parse_shebang(const char *body, size_t len, uint32_t *flags, size_t *skip, char *err,
                          size_t cap)
{
    *flags = SCRIPT_FLAG_EVAL_COMPAT_MODE;
    *skip = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!') return true;
    const char *nl = memchr(body, '\n', len);
    if (!nl) {
        snprintf(err, cap, "Invalid script shebang");
        return false;
    }
    *skip = (size_t)(nl - body);
    const char *p = body, *end = nl;
    bool first = true;
    while (p < end) {
        while (p < end && isspace((unsigned char)*p)) p++;
        if (p == end) break;
        const char *word = p;
        while (p < end && !isspace((unsigned char)*p)) p++;
        size_t wlen = (size_t)(p - word);
        if (first) {
            if (wlen != 5 || memcmp(word, "#!lua", 5) != 0) {
                snprintf(err, cap, "Unexpected engine in script shebang: %.*s", (int)wlen, word);
                return false;
            }
            *flags &= ~(uint32_t)SCRIPT_FLAG_EVAL_COMPAT_MODE;
            first = false;
            continue;
        }
        if (wlen < 6 || memcmp(word, "flags=", 6) != 0) {
            snprintf(err, cap, "Unknown lua shebang option: %.*s", (int)wlen, word);
            return false;
        }
        const char *f = word + 6, *fend = p;
        while (f < fend || (f == fend && f > word + 6)) { /* "flags=" alone: no flag, as Redis */
            const char *comma = memchr(f, ',', (size_t)(fend - f));
            if (!comma) comma = fend;
            uint32_t flag = script_flag_by_name(f, (size_t)(comma - f));
            if (!flag) {
                snprintf(err, cap, "Unexpected flag in script shebang: %.*s", (int)(comma - f), f);
                return false;
            }
            *flags |= flag;
            f = comma + 1;
        }
    }
    return true;
}

/* Compiles and caches `body` under its SHA1 (in sha). On success the
 * function is on the stack and its flags in *flags; otherwise the error is
 * answered. */
static bool script_create(struct cmd_ctx *ctx, const char *body, size_t len, const char *sha,
                          uint32_t *flags)
{
    lua_State *L = engine();
    char err[1024];
    size_t skip;
    if (!parse_shebang(body, len, flags, &skip, err, sizeof err)) {
        reply_error_fmt(ctx->reply, "ERR %s", err);
        return false;
    }
    if (!script_lua_compile(L, body + skip, len - skip, "@user_script", err, sizeof err)) {
        reply_error_fmt(ctx->reply, "ERR Error compiling script (new function): %s", err);
        return false;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SCRIPTS);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, sha);
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SCRIPT_FLAGS);
    lua_pushnumber(L, *flags);
    lua_setfield(L, -2, sha);
    lua_pop(L, 1);
    return true;
}

/* The flags of the script cached under sha; false if absent. */
static bool script_cached_flags(const char *sha, uint32_t *flags)
{
    lua_State *L = engine();
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SCRIPT_FLAGS);
    lua_getfield(L, -1, sha);
    bool found = lua_isnumber(L, -1);
    *flags = (uint32_t)lua_tonumber(L, -1);
    lua_pop(L, 2);
    return found;
}

/* Pushes the cached function for sha and sets *flags; false if absent. */
static bool script_find(const char *sha, uint32_t *flags)
{
    lua_State *L = engine();
    if (!script_cached_flags(sha, flags)) return false;
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SCRIPTS);
    lua_getfield(L, -1, sha);
    lua_remove(L, -2);
    return true;
}

/* Redis's scriptPrepareForRun checks for a script that declared flags;
 * answers and returns false when it may not run. */
bool script_may_run(struct cmd_ctx *ctx, uint32_t flags, bool ro)
{
    if (flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) return true;
    if ((flags & SCRIPT_FLAG_NO_CLUSTER) && cluster_enabled) {
        reply_error(ctx->reply, "ERR Can not run script on cluster, 'no-cluster' flag is set.");
        return false;
    }
    if (!(flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES)) && config.maxmemory &&
        xmalloc_used_bytes() > (size_t)config.maxmemory) {
        reply_error(ctx->reply, "OOM command not allowed when used memory > 'maxmemory'.");
        return false;
    }
    if (!(flags & SCRIPT_FLAG_NO_WRITES)) {
        const char *why = command_readonly_refusal(ctx->conn);
        if (why) {
            reply_error(ctx->reply, why);
            return false;
        }
        if (persist_writes_refused()) {
            reply_error(ctx->reply,
                        "MISCONF Redis is configured to save RDB snapshots, but it's currently "
                        "unable to persist to disk. Writable scripts are blocked. Use 'no-writes' "
                        "flag for read only scripts.");
            return false;
        }
        if (command_too_few_replicas()) {
            reply_error(ctx->reply, command_noreplicas_error);
            return false;
        }
        if (ro) {
            reply_error(ctx->reply,
                        "ERR Can not execute a script with write flag using *_ro command.");
            return false;
        }
    }
    return true;
}

/* Checks numkeys (argv[2]) as Redis does; answers and returns -1 if bad. */
long long script_numkeys(struct cmd_ctx *ctx)
{
    long long numkeys;
    if (!arg_to_ll(ctx, 2, &numkeys)) return -1;
    if (numkeys > ctx->argc - 3) {
        reply_error(ctx->reply, "ERR Number of keys can't be greater than number of args");
        return -1;
    }
    if (numkeys < 0) {
        reply_error(ctx->reply, "ERR Number of keys can't be negative");
        return -1;
    }
    return numkeys;
}

static void eval_generic(struct cmd_ctx *ctx, bool by_sha, bool ro)
{
    monitor_feed_script_call(ctx);
    long long numkeys = script_numkeys(ctx);
    if (numkeys < 0) return;
    char sha[41];
    uint32_t flags = 0;
    if (by_sha) {
        if (ctx->argv_len[1] != 40) {
            reply_error(ctx->reply, "NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
        for (int i = 0; i < 40; i++) sha[i] = (char)tolower((unsigned char)ctx->argv[1][i]);
        sha[40] = '\0';
        if (!script_find(sha, &flags)) {
            reply_error(ctx->reply, "NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
    } else {
        script_sha1hex(ctx->argv[1], ctx->argv_len[1], sha);
        if (!script_find(sha, &flags) &&
            !script_create(ctx, ctx->argv[1], ctx->argv_len[1], sha, &flags))
            return;
    }
    lua_State *L = engine();
    if (!script_may_run(ctx, flags, ro)) {
        lua_pop(L, 1);
        return;
    }
    struct script_run run = {
        .name = sha,
        .flags = flags,
        .read_only =
            ro || (!(flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) && (flags & SCRIPT_FLAG_NO_WRITES)),
    };
    script_lua_run(L, ctx, &run, 3, numkeys, true);
}

bool script_call_writes(const struct command *cmd, const char *const *argv, const size_t *argv_len)
{
    uint32_t flags;
    bool by_sha = strcmp(cmd->full_name, "evalsha") == 0;
    if (strcmp(cmd->full_name, "fcall") == 0) {
        if (!function_flags(argv[1], argv_len[1], &flags)) return true;
    } else if (by_sha || strcmp(cmd->full_name, "eval") == 0) {
        char sha[41];
        if (by_sha) {
            if (argv_len[1] != 40) return true;
            for (int i = 0; i < 40; i++) sha[i] = (char)tolower((unsigned char)argv[1][i]);
            sha[40] = '\0';
        } else {
            script_sha1hex(argv[1], argv_len[1], sha);
        }
        if (!script_cached_flags(sha, &flags)) {
            char err[128];
            size_t skip;
            if (by_sha || !parse_shebang(argv[1], argv_len[1], &flags, &skip, err, sizeof err))
                return true;
        }
    } else {
        return true; /* PUBLISH, SPUBLISH, PFCOUNT */
    }
    /* Redis's scriptFlagsToCmdFlags: declared flags replace the command's. */
    return (flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) || !(flags & SCRIPT_FLAG_NO_WRITES);
}

static void cmd_eval(struct cmd_ctx *ctx)
{
    eval_generic(ctx, false, false);
}

static void cmd_evalsha(struct cmd_ctx *ctx)
{
    eval_generic(ctx, true, false);
}

static void cmd_eval_ro(struct cmd_ctx *ctx)
{
    eval_generic(ctx, false, true);
}

static void cmd_evalsha_ro(struct cmd_ctx *ctx)
{
    eval_generic(ctx, true, true);
}

static void cmd_script_load(struct cmd_ctx *ctx)
{
    char sha[41];
    uint32_t flags;
    script_sha1hex(ctx->argv[2], ctx->argv_len[2], sha);
    if (!script_find(sha, &flags)) {
        if (!script_create(ctx, ctx->argv[2], ctx->argv_len[2], sha, &flags)) return;
    }
    lua_pop(engine(), 1);
    reply_bulk(ctx->reply, sha, 40);
}

static void cmd_script_exists(struct cmd_ctx *ctx)
{
    reply_array_len(ctx->reply, ctx->argc - 2);
    for (int i = 2; i < ctx->argc; i++) {
        char sha[41];
        uint32_t flags;
        bool found = false;
        if (ctx->argv_len[i] == 40) {
            for (int k = 0; k < 40; k++) sha[k] = (char)tolower((unsigned char)ctx->argv[i][k]);
            sha[40] = '\0';
            found = script_find(sha, &flags);
            if (found) lua_pop(engine(), 1);
        }
        reply_int(ctx->reply, found);
    }
}

static void cmd_script_flush(struct cmd_ctx *ctx)
{
    if (ctx->argc == 3 && !arg_equals(ctx, 2, "sync") && !arg_equals(ctx, 2, "async")) {
        reply_error(ctx->reply, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    script_lua_free(eval_engine);
    eval_engine = NULL;
    reply_ok(ctx->reply);
}

static void cmd_script_kill(struct cmd_ctx *ctx)
{
    script_kill(ctx, false);
}

static void cmd_script_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

static void cmd_script_debug(struct cmd_ctx *ctx)
{
    if (arg_equals(ctx, 2, "no")) {
        reply_ok(ctx->reply);
        return;
    }
    if (arg_equals(ctx, 2, "yes") || arg_equals(ctx, 2, "sync")) {
        reply_error(ctx->reply, "ERR the Lua debugger (SCRIPT DEBUG) is not supported");
        return;
    }
    reply_error(ctx->reply, "ERR Use SCRIPT DEBUG YES/SYNC/NO");
}

static struct command script_subcommands[] = {
    {.name = "debug",
     .arity = 3,
     .flags = CMD_NOSCRIPT,
     .fn = cmd_script_debug,
     .summary = "Set the debug mode for executed scripts.",
     .since = "3.2.0",
     .group = "scripting",
     .complexity = "O(1)"},
    {.name = "exists",
     .arity = -3,
     .flags = CMD_NOSCRIPT,
     .fn = cmd_script_exists,
     .summary = "Check existence of scripts in the script cache.",
     .since = "2.6.0",
     .group = "scripting",
     .complexity = "O(N) with N being the number of scripts to check (so checking a single "
                   "script is an O(1) operation)."},
    {.name = "flush",
     .arity = -2,
     .flags = CMD_NOSCRIPT,
     .fn = cmd_script_flush,
     .summary = "Remove all the scripts from the script cache.",
     .since = "2.6.0",
     .group = "scripting",
     .complexity = "O(N) with N being the number of scripts in cache"},
    {.name = "help",
     .arity = 2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_script_help,
     .summary = "Show helpful text about the different subcommands",
     .since = "5.0.0",
     .group = "scripting",
     .complexity = "O(1)"},
    {.name = "kill",
     .arity = 2,
     .flags = CMD_ALLOW_BUSY | CMD_NOSCRIPT,
     .fn = cmd_script_kill,
     .summary = "Kill the script currently in execution.",
     .since = "2.6.0",
     .group = "scripting",
     .complexity = "O(1)"},
    {.name = "load",
     .arity = 3,
     .flags = CMD_NOSCRIPT | CMD_STALE,
     .fn = cmd_script_load,
     .summary = "Load the specified Lua script into the script cache.",
     .since = "2.6.0",
     .group = "scripting",
     .complexity = "O(N) with N being the length in bytes of the script body."},
    COMMAND_END,
};

struct command script_commands[] = {
    {.name = "eval",
     .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_STALE | CMD_MAY_REPLICATE,
     .fn = cmd_eval,
     .summary = "Execute a Lua script server side",
     .since = "2.6.0",
     .group = "scripting",
     .complexity = "Depends on the script that is executed."},
    {.name = "evalsha",
     .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_STALE | CMD_MAY_REPLICATE,
     .fn = cmd_evalsha,
     .summary = "Execute a Lua script server side",
     .since = "2.6.0",
     .group = "scripting",
     .complexity = "Depends on the script that is executed."},
    {.name = "eval_ro",
     .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_STALE | CMD_READONLY,
     .fn = cmd_eval_ro,
     .summary = "Execute a read-only Lua script server side",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "Depends on the script that is executed."},
    {.name = "evalsha_ro",
     .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_STALE | CMD_READONLY,
     .fn = cmd_evalsha_ro,
     .summary = "Execute a read-only Lua script server side",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "Depends on the script that is executed."},
    {.name = "script",
     .arity = -2,
     .subcommands = script_subcommands,
     .summary = "A container for Lua scripts management commands",
     .since = "2.6.0",
     .group = "scripting",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
