/*
 * script_lua.h — the Lua 5.1 engine behind EVAL and FCALL (Redis 7.0's).
 *
 * One engine is one lua_State with Redis 7.0's library surface: base,
 * table, string, math, cjson (Debian lua-cjson), bit (Debian lua-bitop) and
 * the `redis` table (call, pcall, error_reply, status_reply, sha1hex, log,
 * setresp, set_repl, replicate_commands, breakpoint, debug, the LOG_* and
 * REPL_* constants, REDIS_VERSION, REDIS_VERSION_NUM). EVAL uses one engine,
 * FUNCTION another (FUNCTION FLUSH and SCRIPT FLUSH each drop only theirs).
 *
 * Sandbox (script_sandbox.h): Redis 7.0.15's globals exactly, every shared
 * table read-only, no bytecode through any load path, the library
 * functions behind Redis's Lua CVEs replaced, and a heap bounded by
 * lua-memory-limit while a script runs. No script can leave anything
 * behind for the next one, as in Redis 7.0.
 *
 * redis.call runs a command through the same checks Redis applies to a
 * script's command (unknown command, arity, noscript, read-only script,
 * OOM at the script's first write, MISCONF) and then command_call(), the
 * path every client command takes (statistics, WATCH signals). Its reply is
 * encoded in the script's protocol (redis.setresp) into a scratch buffer and
 * decoded into Lua values by Redis's conversion table; the script's result
 * goes back through reply_* (Redis's Lua-to-reply table), so every wire
 * gets it. Blocking commands are refused as Redis refuses them (noscript)
 * or act as their non-blocking forms (cmd_ctx.deny_blocking).
 *
 * A script's effects are atomic: no other client's command runs while it
 * runs, on any transport (one thread). Busy scripts, as Redis 7.0: once a
 * script has run busy-reply-threshold (lua-time-limit) ms, a Lua count hook
 * serves the other clients from inside the script (ev_process_nested) with
 * the caller's conn protected: their commands are refused with BUSY except
 * the allow-busy ones (CMD_ALLOW_BUSY: SCRIPT KILL, FUNCTION KILL,
 * SHUTDOWN NOSAVE, AUTH, HELLO, MULTI, ...); SCRIPT KILL / FUNCTION KILL
 * stop a script that has not written (the caller gets Redis's "Script
 * killed by user" error), one that wrote is UNKILLABLE.
 */
#ifndef GOBLIN_SCRIPT_LUA_H
#define GOBLIN_SCRIPT_LUA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cmd_ctx;
struct reply;
struct lua_State;

/* Script flags (shebang `#!lua flags=...`, register_function flags). */
enum script_flag {
    SCRIPT_FLAG_NO_WRITES = 1u << 0,
    SCRIPT_FLAG_ALLOW_OOM = 1u << 1,
    SCRIPT_FLAG_ALLOW_STALE = 1u << 2,
    SCRIPT_FLAG_NO_CLUSTER = 1u << 3,
    SCRIPT_FLAG_EVAL_COMPAT_MODE = 1u << 4, /* an EVAL script without a shebang */
    SCRIPT_FLAG_ALLOW_CROSS_SLOT = 1u << 5,
};

/* The flag named `name` (Redis's spelling), 0 when unknown. */
uint32_t script_flag_by_name(const char *name, size_t len);
/* Visits the flags set in `flags` in Redis's order (FUNCTION LIST). */
void script_flags_foreach(uint32_t flags, void (*fn)(const char *name, void *arg), void *arg);

/* A new engine. With register_function (the FUNCTION engine), the engine
 * also has a loading mode (script_lua_set_loading) in which scripts see
 * only Redis's load-time API: a `redis` table of register_function, log,
 * the LOG_* constants and the versions. Aborts on allocation failure, as
 * every allocation does. */
struct lua_State *script_lua_new(int (*register_function)(struct lua_State *L));
void script_lua_set_loading(struct lua_State *L, bool loading);
void script_lua_free(struct lua_State *L);

/* Compiles `code` (len bytes) as chunk `chunkname`; on success the function
 * is on the stack and true is returned, otherwise the error text is in
 * err (cap bytes) and nothing is pushed. */
bool script_lua_compile(struct lua_State *L, const char *code, size_t len, const char *chunkname,
                        char *err, size_t cap);

/* What one script run needs to know. */
struct script_run {
    const char *name; /* the SHA1 (EVAL) or the function's name (FCALL) */
    uint32_t flags;   /* enum script_flag */
    bool read_only;   /* EVAL_RO, FCALL_RO, or flag no-writes */
    bool function;    /* FCALL/FCALL_RO (the FUNCTION engine), not EVAL */
};

/* Runs the function on top of L's stack with KEYS/ARGV (EVAL: globals;
 * FCALL: the two arguments) from ctx->argv[first_key..], nkeys of them
 * keys, and answers ctx->reply with its result or Redis's error. Pops the
 * function. */
void script_lua_run(struct lua_State *L, struct cmd_ctx *ctx, const struct script_run *run,
                    int first_key, long long nkeys, bool keys_as_globals);

/* EVAL/FCALL argument checks shared by both (cmd_script.c): numkeys in
 * argv[2] (answers and returns -1 when bad), and Redis's
 * scriptPrepareForRun refusals for a script that declared flags. */
long long script_numkeys(struct cmd_ctx *ctx);
bool script_may_run(struct cmd_ctx *ctx, uint32_t flags, bool ro);

/* The flags of the loaded function `name` (cmd_function.c); false if none. */
bool function_flags(const char *name, size_t len, uint32_t *flags);

/* The script running now, or NULL (SCRIPT KILL, FUNCTION KILL, FUNCTION STATS). */
const struct script_run *script_lua_running(void);

/* While a script is busy (past busy-reply-threshold): the error every
 * other command without CMD_ALLOW_BUSY gets (Redis's slowevalerr or
 * slowscripterr), else NULL. One load for command_dispatch. */
extern const char *script_busy_reply;

/* DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may call commands flagged
 * noscript (a testing hack of Redis's suite, as Redis). */
extern bool script_disable_deny_scripts;

/* SCRIPT KILL (function false) and FUNCTION KILL (true): NOTBUSY,
 * UNKILLABLE, the other engine's BUSY error, or +OK and the script stops
 * at its next hook. */
void script_kill(struct cmd_ctx *ctx, bool function);

/* FUNCTION STATS' running_script: nil, or the busy function's name, its
 * command line and how long it has run. */
void script_reply_running(struct reply *r);

/* Lets snapshots (persist/rdb.h) save and load the FUNCTION libraries
 * (cmd_function.c); command_table_init() calls it. */
void function_register_persistence(void);

/* SHA1 of data as 40 lowercase hex digits and a NUL. */
void script_sha1hex(const char *data, size_t len, char out[41]);

/* For INFO memory and MEMORY STATS: the EVAL script cache (cmd_script.c)
 * — scripts cached and the bytes of its Lua VM (0 before the first use) —
 * and the loaded functions (cmd_function.c): functions, libraries, the
 * bytes held for them outside the VM (names, code) and the VM's bytes. */
void script_cache_stats(size_t *scripts, size_t *vm_bytes);
void function_stats(size_t *functions, size_t *libraries, size_t *bytes, size_t *vm_bytes);

/* The busy-reply-threshold setting (core/config.h). */
struct config_table;
extern const struct config_table script_lua_config;

#endif
