/* script_lua.c — the Lua engine: state, sandbox, the redis library and a
 * script run; see script_lua.h. Conversions are in script_convert.c. */
#include "scripting/script_lua.h"

#include <limits.h>
#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua.h>
#include <lualib.h>
#include <dlfcn.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "commands/acl_check.h"
#include "commands/command.h"
#include "core/command_hooks.h"
#include "scripting/script_convert.h"
#include "scripting/script_libs.h"
#include "scripting/script_sandbox.h"
#include "connection/session.h"
#include "persist/persist.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/version.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Registry keys. */
#define REG_LOAD_API "goblin.load_api"     /* FUNCTION LOAD's globals */
#define REG_ERROR_HANDLER "goblin.handler" /* error_handler, pushed without a new closure */

/* The run in progress (one at a time: scripts do not nest). */
struct script_state {
    const struct script_run *run;
    struct cmd_ctx *caller;
    int db_index;
    int resp;
    bool wrote;
    bool oom_at_start;
    int64_t started_us;
    int cluster_slot; /* cluster mode: the slot of the keys used so far, -1 none */
    bool cross_slot;  /* cluster mode: keys of several slots allowed */
    bool busy;        /* past busy-reply-threshold: serving others (script_busy_reply) */
    bool killed;      /* SCRIPT KILL / FUNCTION KILL: stops at the next hook */
};

static struct script_state *current;

const struct script_run *script_lua_running(void)
{
    return current ? current->run : NULL;
}

/* --- busy scripts ---------------------------------------------------------- */

/* Redis 7.0's hook period: the count hook runs every this many VM
 * instructions, reads the clock and, once busy, serves the others. */
#define BUSY_HOOK_INSTRUCTIONS 100000

static const char busy_eval_error[] =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
static const char busy_function_error[] =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

bool script_disable_deny_scripts;
const char *script_busy_reply;

static void busy_begin(struct script_state *st)
{
    st->busy = true;
    script_busy_reply = st->run->function ? busy_function_error : busy_eval_error;
    command_hook_set(HOOK_BUSY_SCRIPT, true);
    log_warning("Slow script detected: still in execution after %lld milliseconds. You can try "
                "killing the script using the %s command. Script name is: %s.",
                (long long)((clock_mono_us() - st->started_us) / 1000),
                st->run->function ? "FUNCTION KILL" : "SCRIPT KILL", st->run->name);
    session_protect(st->caller->conn, true);
}

static void busy_end(struct script_state *st)
{
    if (!st->busy) return;
    st->busy = false;
    script_busy_reply = NULL;
    command_hook_set(HOOK_BUSY_SCRIPT, false);
    session_protect(st->caller->conn, false);
}

/* The count hook of a run. A killed script (or one running when SHUTDOWN
 * NOSAVE stops the server) gets an error at every line from then on, so a
 * pcall in the script cannot swallow it for good (Redis's way). */
static void run_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    script_sandbox_hook_period(L, BUSY_HOOK_INSTRUCTIONS);
    struct script_state *st = current;
    if (!st) return;
    if (!st->busy && !st->killed) {
        int64_t ran_ms = (clock_mono_us() - st->started_us) / 1000;
        if (ran_ms < config.busy_reply_threshold || !st->caller->conn) return;
        busy_begin(st);
    }
    if (!st->killed) ev_process_nested();
    if (st->killed || ev_stopping()) {
        st->killed = true;
        lua_sethook(L, run_hook, LUA_MASKLINE, 0);
        lua_pushstring(L, ev_stopping() ? "Script killed by SHUTDOWN NOSAVE"
                                        : "Script killed by user with SCRIPT KILL...");
        lua_error(L);
    }
}

void script_kill(struct cmd_ctx *ctx, bool function)
{
    struct script_state *st = current;
    if (!st || !st->busy) {
        reply_error(ctx->reply, "NOTBUSY No scripts in execution right now.");
    } else if (st->wrote) {
        reply_error(ctx->reply,
                    "UNKILLABLE Sorry the script already executed write commands against the "
                    "dataset. You can either wait the script termination or kill the server in a "
                    "hard way using the SHUTDOWN NOSAVE command.");
    } else if (function != st->run->function) {
        reply_error(ctx->reply, script_busy_reply); /* the other engine's KILL */
    } else {
        st->killed = true;
        reply_ok(ctx->reply);
    }
}

void script_reply_running(struct reply *r)
{
    struct script_state *st = current;
    if (!st || !st->busy) {
        reply_nil(r);
        return;
    }
    const struct cmd_ctx *caller = st->caller;
    reply_map_len(r, 3);
    reply_bulk_cstr(r, "name");
    reply_bulk_cstr(r, st->run->name);
    reply_bulk_cstr(r, "command");
    reply_array_len(r, caller->argc);
    for (int i = 0; i < caller->argc; i++) reply_bulk(r, caller->argv[i], caller->argv_len[i]);
    reply_bulk_cstr(r, "duration_ms");
    reply_int(r, (clock_mono_us() - st->started_us) / 1000);
}

static const struct {
    const char *name;
    uint32_t flag;
} flag_names[] = {
    {"no-writes", SCRIPT_FLAG_NO_WRITES},
    {"allow-oom", SCRIPT_FLAG_ALLOW_OOM},
    {"allow-stale", SCRIPT_FLAG_ALLOW_STALE},
    {"no-cluster", SCRIPT_FLAG_NO_CLUSTER},
    {"allow-cross-slot-keys", SCRIPT_FLAG_ALLOW_CROSS_SLOT},
};

uint32_t script_flag_by_name(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (strlen(flag_names[i].name) == len && memcmp(flag_names[i].name, name, len) == 0)
            return flag_names[i].flag;
    return 0;
}

void script_flags_foreach(uint32_t flags, void (*fn)(const char *name, void *arg), void *arg)
{
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (flags & flag_names[i].flag) fn(flag_names[i].name, arg);
}

void script_sha1hex(const char *data, size_t len, char out[41])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(data, len, md, &n, EVP_sha1(), NULL);
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < 20; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[40] = '\0';
}

/* --- math.random: Redis's PRNG (rand.c: the 48-bit LCG of drand48) -------
 * One state for the server's life, shared by EVAL and functions, as Redis
 * 7.0: it starts at rand.c's initial X (0x1234ABCD330E) and is never
 * reseeded before a script (Redis 6 reseeded it with 0 at every EVAL; 7.0
 * replicates effects, so each call may draw new numbers); only
 * math.randomseed() sets it. */

static unsigned short rand48_state[3] = {0x330E, 0xABCD, 0x1234};

static int redis_math_random(lua_State *L)
{
    const long max = 2147483647L; /* REDIS_LRAND48_MAX */
    lua_Number r = (lua_Number)(nrand48(rand48_state) % max) / (lua_Number)max;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, r);
        break;
    case 1: {
        int u = luaL_checkint(L, 1);
        luaL_argcheck(L, 1 <= u, 1, "interval is empty");
        lua_pushnumber(L, (lua_Number)((int)(r * u) + 1));
        break;
    }
    case 2: {
        int l = luaL_checkint(L, 1), u = luaL_checkint(L, 2);
        luaL_argcheck(L, l <= u, 2, "interval is empty");
        lua_pushnumber(L, (lua_Number)((int)(r * (u - l + 1)) + l));
        break;
    }
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    return 1;
}

static int redis_math_randomseed(lua_State *L)
{
    long seed = (long)luaL_checkint(L, 1);
    rand48_state[0] = 0x330E;
    rand48_state[1] = (unsigned short)(seed & 0xffff);
    rand48_state[2] = (unsigned short)((seed >> 16) & 0xffff);
    return 0;
}

/* --- the redis library ----------------------------------------------------- */

/* Raises (redis.call) or returns (redis.pcall) Redis's error table for
 * `text` ("-CODE msg" or "msg"). */
static int call_error(lua_State *L, const char *text, bool raise)
{
    script_push_error_table(L, text, strlen(text));
    return raise ? lua_error(L) : 1;
}

/* A command the script called refused before it ran: counted in the error
 * stats now, as Redis's scriptCall does, whether the script catches it or
 * not, and marked so that the script's reply does not count it again. */
static int call_refused(lua_State *L, const char *text, bool raise)
{
    if (text[0] == '-') {
        reply_count_error(text + 1, strlen(text) - 1);
    } else {
        char line[256];
        int n = snprintf(line, sizeof line, "ERR %s", text);
        reply_count_error(line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
    command_settle_errors();
    script_push_error_table(L, text, strlen(text));
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "ignore_error_stats_update");
    return raise ? lua_error(L) : 1;
}

/* Redis's spelling of a number argument ("%.17g"). */
static size_t number_to_text(lua_Number d, char *out, size_t cap)
{
    return (size_t)snprintf(out, cap, "%.17g", (double)d);
}

static int redis_call_generic(lua_State *L, bool raise)
{
    struct script_state *st = current;
    int argc = lua_gettop(L);
    if (argc == 0)
        return call_error(L, "Please specify at least one argument for this redis lib call", raise);
    if (!st) return call_error(L, "redis.call is only available while a script runs", raise);
    /* Arguments: strings, or numbers spelled as Redis spells them. Lua
     * keeps the strings alive on its stack while the command runs. */
    const char *stack_argv[16];
    size_t stack_len[16];
    char numbuf_stack[16][32];
    const char **argv = stack_argv;
    size_t *argv_len = stack_len;
    char(*numbuf)[32] = numbuf_stack;
    if (argc > 16) {
        argv = xmalloc(sizeof *argv * (size_t)argc);
        argv_len = xmalloc(sizeof *argv_len * (size_t)argc);
        numbuf = xmalloc(sizeof *numbuf * (size_t)argc);
    }
    bool bad = false;
    for (int i = 0; i < argc; i++) {
        int t = lua_type(L, i + 1);
        if (t == LUA_TNUMBER) {
            argv_len[i] = number_to_text(lua_tonumber(L, i + 1), numbuf[i], sizeof numbuf[i]);
            argv[i] = numbuf[i];
        } else if (t == LUA_TSTRING) {
            argv[i] = lua_tolstring(L, i + 1, &argv_len[i]);
        } else {
            bad = true;
            break;
        }
    }
    const char *err = NULL;
    struct command *cmd = NULL;
    enum acl_result acl;
    char misconf[512];
    snprintf(misconf, sizeof misconf, "-%s", command_misconf_error);
    if (bad) {
        err = "Lua redis lib command arguments must be strings or integers";
    } else {
        cmd = command_lookup(argv[0], argv_len[0]);
        if (cmd && cmd->subcommands && argc >= 2)
            cmd = command_lookup_sub(cmd, argv[1], argv_len[1]);
        if (!cmd)
            err = "Unknown Redis command called from script";
        else if (cmd->arity >= 0 ? argc != cmd->arity : argc < -cmd->arity)
            err = "Wrong number of args calling Redis command from script";
        else if ((cmd->flags & CMD_NOSCRIPT) && !script_disable_deny_scripts)
            err = "This Redis command is not allowed from script";
        /* The caller's ACL user (Redis's scriptVerifyACL). */
        else if ((acl = acl_check_nested(st->caller->conn, cmd, argc, argv, argv_len, "lua")) !=
                 ACL_OK)
            err = acl_script_refusal(acl);
        /* Redis's scriptVerifyWriteCommandAllow: may-replicate (PUBLISH,
         * PFCOUNT, a nested EVAL) counts as a write for a read-only script. */
        else if ((cmd->flags & (CMD_WRITE | CMD_MAY_REPLICATE)) && st->run->read_only)
            err = "Write commands are not allowed from read-only scripts.";
        else if ((cmd->flags & CMD_WRITE) && command_readonly_refusal(st->caller->conn))
            err = "-READONLY You can't write against a read only replica.";
        else if ((cmd->flags & CMD_WRITE) && persist_writes_refused())
            err = misconf;
        /* min-replicas-to-write: reached by scripts without flags (a
         * shebang script that may write is refused before it runs). */
        else if ((cmd->flags & CMD_WRITE) && command_too_few_replicas())
            err = "-NOREPLICAS Not enough good replicas to write.";
        else if (!(st->run->flags & SCRIPT_FLAG_ALLOW_OOM) && st->oom_at_start && !st->wrote &&
                 (cmd->flags & CMD_DENYOOM))
            err = "-OOM command not allowed when used memory > 'maxmemory'.";
        if (!err) {
            if (cmd->flags & CMD_WRITE) st->wrote = true; /* before the cluster check, as Redis */
            if (cluster_enabled)
                err = cluster_script_check(cmd, argc, argv, argv_len, st->caller->conn,
                                           &st->cluster_slot, st->cross_slot);
        }
    }
    if (err) {
        /* A known command refused (arity, noscript, read-only, OOM, ...)
         * counts as rejected, as Redis's scriptCall (ERROR_COMMAND_REJECTED). */
        if (cmd) cmd->rejected_calls++;
        if (argc > 16) {
            free(argv);
            free(argv_len);
            free(numbuf);
        }
        return bad ? call_error(L, err, raise) : call_refused(L, err, raise);
    }

    /* One scratch buffer for every call's reply: no allocation per call,
     * and nothing to free when converting the reply raises (a reply too
     * deep for the Lua stack, or lua-memory-limit). */
    static struct buf out;
    if (!out.data) buf_init(&out, 256);
    buf_reset(&out, 64 * 1024);
    struct reply r;
    reply_init(&r, &out, st->resp == 3 ? PROTO_RESP3 : PROTO_RESP2);
    struct conn *conn = st->caller->conn;
    int caller_db = session_db_index(conn);
    session_select_db(conn, st->db_index); /* SELECT inside the script stays inside it */
    struct cmd_ctx ctx = {
        .conn = conn,
        .reply = &r,
        .db = keyspace_db(st->db_index),
        .argc = argc,
        .argv = argv,
        .argv_len = argv_len,
        .cmd = cmd,
        .deny_blocking = true,
        .script_caller = st->caller,
    };
    command_call(&ctx);
    st->db_index = session_db_index(conn);
    session_select_db(conn, caller_db);
    if (argc > 16) {
        free(argv);
        free(argv_len);
        free(numbuf);
    }
    lua_settop(L, 0);
    bool is_error = script_push_reply(L, buf_head(&out), buf_len(&out));
    if (is_error && raise) return lua_error(L);
    return 1;
}

static int redis_call(lua_State *L)
{
    return redis_call_generic(L, true);
}

static int redis_pcall(lua_State *L)
{
    return redis_call_generic(L, false);
}

/* redis.error_reply / redis.status_reply: one string argument. */
static int redis_error_reply(lua_State *L)
{
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        script_push_error_table(L, "wrong number or type of arguments", 33);
        return 1;
    }
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    if (len > 0 && s[0] == '-') {
        script_push_error_table(L, s, len);
        return 1;
    }
    /* Built in Lua, so that an allocation failure leaks nothing. */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addchar(&b, '-');
    luaL_addlstring(&b, s, len);
    luaL_pushresult(&b);
    script_push_error_table(L, lua_tostring(L, -1), len + 1);
    return 1;
}

static int redis_status_reply(lua_State *L)
{
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
        script_push_error_table(L, "wrong number or type of arguments", 33);
        return 1;
    }
    lua_newtable(L);
    lua_pushstring(L, "ok");
    lua_pushvalue(L, 1);
    lua_settable(L, -3);
    return 1;
}

static int redis_sha1hex(lua_State *L)
{
    if (lua_gettop(L) != 1) return call_error(L, "wrong number of arguments", true);
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    char hex[41];
    script_sha1hex(s ? s : "", s ? len : 0, hex);
    lua_pushstring(L, hex);
    return 1;
}

static int redis_log(lua_State *L)
{
    int argc = lua_gettop(L);
    if (argc < 2) return call_error(L, "redis.log() requires two arguments or more.", true);
    if (!lua_isnumber(L, 1))
        return call_error(L, "First argument must be a number (log level).", true);
    int level = (int)lua_tonumber(L, 1);
    if (level < LOG_DEBUG || level > LOG_WARNING)
        return call_error(L, "Invalid debug level.", true);
    /* Built in Lua, so that an allocation failure leaks nothing. */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 2; i <= argc; i++) {
        size_t len;
        const char *s = lua_tolstring(L, i, &len);
        if (!s) continue;
        if (i > 2) luaL_addchar(&b, ' ');
        luaL_addlstring(&b, s, len);
    }
    luaL_pushresult(&b);
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    log_msg((enum log_level)level, "%.*s", (int)len, text);
    return 0;
}

static int redis_setresp(lua_State *L)
{
    if (lua_gettop(L) != 1) return call_error(L, "redis.setresp() requires one argument.", true);
    int resp = (int)lua_tonumber(L, 1);
    if (resp != 2 && resp != 3) return call_error(L, "RESP version must be 2 or 3.", true);
    if (current) current->resp = resp;
    return 0;
}

static int redis_set_repl(lua_State *L)
{
    if (lua_gettop(L) != 1) return call_error(L, "redis.set_repl() requires two arguments.", true);
    int flags = (int)lua_tonumber(L, 1);
    if ((flags & ~3) != 0)
        return call_error(
            L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.",
            true);
    return 0; /* no replication, no AOF: nothing to route */
}

static int redis_replicate_commands(lua_State *L)
{
    lua_pushboolean(L, 1);
    return 1;
}

static int redis_breakpoint(lua_State *L)
{
    lua_pushboolean(L, 0); /* no debugger session */
    return 1;
}

static int redis_debug(lua_State *L)
{
    return 0;
}

/* redis.acl_check_cmd: whether the caller's ACL user may run the command
 * with these arguments (Redis's luaRedisAclCheckCmd: nothing logged). */
static int redis_acl_check_cmd(lua_State *L)
{
    if (!current)
        return call_error(L, "redis.acl_check_cmd can only be called inside a script invocation",
                          true);
    int argc = lua_gettop(L);
    if (argc == 0)
        return call_error(L, "Please specify at least one argument for this redis lib call", true);
    const char **argv = xmalloc(sizeof *argv * (size_t)argc);
    size_t *len = xmalloc(sizeof *len * (size_t)argc);
    char(*num)[32] = xmalloc(sizeof *num * (size_t)argc);
    for (int i = 0; i < argc; i++) {
        int t = lua_type(L, i + 1);
        if (t != LUA_TNUMBER && t != LUA_TSTRING) {
            xfree(argv);
            xfree(len);
            xfree(num);
            return call_error(L, "Lua redis lib command arguments must be strings or integers",
                              true);
        }
        if (t == LUA_TNUMBER) {
            len[i] = number_to_text(lua_tonumber(L, i + 1), num[i], sizeof num[i]);
            argv[i] = num[i];
        } else {
            argv[i] = lua_tolstring(L, i + 1, &len[i]);
        }
    }
    struct command *cmd = command_lookup(argv[0], len[0]);
    if (cmd && cmd->subcommands && argc >= 2) cmd = command_lookup_sub(cmd, argv[1], len[1]);
    bool allowed = false;
    if (cmd) {
        const char *name = session_user(current->caller->conn);
        const struct acl_user *u = acl_user_find(name, strlen(name));
        int pos;
        allowed = u && acl_check_call(u, cmd, argc, argv, len, &pos) == ACL_OK;
    }
    xfree(argv);
    xfree(len);
    xfree(num);
    if (!cmd) return call_error(L, "Invalid command passed to redis.acl_check_cmd()", true);
    lua_pushboolean(L, allowed);
    return 1;
}

static void set_int_field(lua_State *L, const char *name, lua_Number v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, name);
}

/* The `redis` global: Redis 7.0's, whose FUNCTION engine has no
 * breakpoint, debug or replicate_commands. */
static void open_redis_library(lua_State *L, bool eval)
{
    static const luaL_Reg fns[] = {
        {"call", redis_call},
        {"pcall", redis_pcall},
        {"error_reply", redis_error_reply},
        {"status_reply", redis_status_reply},
        {"sha1hex", redis_sha1hex},
        {"log", redis_log},
        {"setresp", redis_setresp},
        {"set_repl", redis_set_repl},
        {"acl_check_cmd", redis_acl_check_cmd},
        {NULL, NULL},
    };
    static const luaL_Reg eval_fns[] = {
        {"replicate_commands", redis_replicate_commands},
        {"breakpoint", redis_breakpoint},
        {"debug", redis_debug},
        {NULL, NULL},
    };
    lua_newtable(L);
    luaL_register(L, NULL, fns);
    if (eval) luaL_register(L, NULL, eval_fns);
    set_int_field(L, "LOG_DEBUG", LOG_DEBUG);
    set_int_field(L, "LOG_VERBOSE", LOG_VERBOSE);
    set_int_field(L, "LOG_NOTICE", LOG_NOTICE);
    set_int_field(L, "LOG_WARNING", LOG_WARNING);
    set_int_field(L, "REPL_NONE", 0);
    set_int_field(L, "REPL_AOF", 1);
    set_int_field(L, "REPL_SLAVE", 2);
    set_int_field(L, "REPL_REPLICA", 2);
    set_int_field(L, "REPL_ALL", 3);
    lua_pushstring(L, GOBLIN_REDIS_VERSION);
    lua_setfield(L, -2, "REDIS_VERSION");
    int major = 0, minor = 0, patch = 0;
    sscanf(GOBLIN_REDIS_VERSION, "%d.%d.%d", &major, &minor, &patch);
    set_int_field(L, "REDIS_VERSION_NUM", (major << 16) | (minor << 8) | patch);
    lua_setglobal(L, "redis");
}

static void open_library(lua_State *L, const char *name, lua_CFunction fn)
{
    lua_pushcfunction(L, fn);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

/* Debian's lua-cjson, loaded from its C-module path once (see
 * CMakeLists.txt for why it is not linked). Its luaopen returns the table
 * without setting the global. */
static void open_cjson(lua_State *L)
{
    static lua_CFunction open_fn;
    if (!open_fn) {
        void *handle = dlopen(GOBLIN_LUA_CJSON_MODULE, RTLD_NOW | RTLD_LOCAL);
        if (handle) open_fn = (lua_CFunction)(uintptr_t)dlsym(handle, "luaopen_cjson");
        if (!open_fn) {
            log_warning("cannot load %s (lua-cjson): %s", GOBLIN_LUA_CJSON_MODULE, dlerror());
            abort();
        }
    }
    lua_pushcfunction(L, open_fn);
    lua_call(L, 0, 1);
    lua_setglobal(L, "cjson");
}

/* FUNCTION LOAD's globals (read-only, as the others): only `redis`, with
 * register_function, log, the LOG_* constants and the versions; a missing
 * name or field is the missing-global error. Called after the sandbox is
 * installed, so `redis` here is the run-time library's proxy. */
static void open_load_api(lua_State *L, lua_CFunction register_function)
{
    lua_newtable(L); /* the load-time globals */
    int load_globals = lua_gettop(L);
    lua_newtable(L); /* its redis */
    int redis_real = lua_gettop(L);
    lua_pushcfunction(L, register_function);
    lua_setfield(L, redis_real, "register_function");
    lua_pushcfunction(L, redis_log);
    lua_setfield(L, redis_real, "log");
    lua_getglobal(L, "redis");
    static const char *const copied[] = {"LOG_DEBUG",   "LOG_VERBOSE",   "LOG_NOTICE",
                                         "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM",
                                         NULL};
    for (int i = 0; copied[i]; i++) {
        lua_getfield(L, -1, copied[i]);
        lua_setfield(L, redis_real, copied[i]);
    }
    lua_pop(L, 1);
    script_sandbox_missing_is_error(L, redis_real);
    script_sandbox_push_proxy(L, redis_real);
    lua_setfield(L, load_globals, "redis");
    lua_settop(L, load_globals);
    script_sandbox_missing_is_error(L, load_globals);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_LOAD_API);
}

void script_lua_set_loading(lua_State *L, bool loading)
{
    lua_getfield(L, LUA_REGISTRYINDEX, loading ? REG_LOAD_API : REG_SANDBOX_GLOBALS);
    script_sandbox_set_globals(L);
}

static int error_handler(lua_State *L);

lua_State *script_lua_new(lua_CFunction register_function)
{
    lua_State *L = script_sandbox_newstate();
    open_library(L, "", luaopen_base);
    open_library(L, LUA_TABLIBNAME, luaopen_table);
    open_library(L, LUA_STRLIBNAME, luaopen_string);
    open_library(L, LUA_MATHLIBNAME, luaopen_math);
    open_cjson(L);
    open_library(L, "bit", luaopen_bit);
    script_open_cmsgpack(L);
    lua_setglobal(L, "cmsgpack");
    script_open_struct(L);
    lua_setglobal(L, "struct");
    lua_settop(L, 0);
    lua_getglobal(L, "math");
    lua_pushcfunction(L, redis_math_random);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, redis_math_randomseed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
    bool eval = register_function == NULL;
    open_redis_library(L, eval);
    lua_pushcfunction(L, error_handler);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_ERROR_HANDLER);
    if (eval)
        lua_setglobal(L, "__redis__err__handler"); /* a global of Redis's EVAL engine */
    else
        lua_pop(L, 1);
    script_sandbox_install(L);
    if (register_function) open_load_api(L, register_function);
    return L;
}

void script_lua_free(lua_State *L)
{
    script_sandbox_close(L);
}

bool script_lua_compile(lua_State *L, const char *code, size_t len, const char *chunkname,
                        char *err, size_t cap)
{
    if (script_sandbox_load(L, code, len, chunkname) == 0) return true;
    snprintf(err, cap, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return false;
}

/* The message handler of a run: Redis's __redis__err__handler. Makes every
 * error a table {err=..., source=..., line=...} naming where the script was
 * (the caller of a C function that raised). */
static int error_handler(lua_State *L)
{
    lua_Debug ar;
    bool have = false;
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "nSl", &ar)) {
        have = true;
        if (strcmp(ar.what, "C") == 0) have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "nSl", &ar);
    }
    if (!lua_istable(L, 1)) {
        const char *msg = lua_tostring(L, 1);
        lua_pushfstring(L, "ERR %s", msg ? msg : (lua_isnil(L, 1) ? "nil" : "?"));
        lua_newtable(L);
        lua_pushvalue(L, -2);
        lua_setfield(L, -2, "err");
        lua_replace(L, 1);
        lua_settop(L, 1);
    }
    if (have) {
        lua_pushstring(L, ar.source);
        lua_setfield(L, 1, "source");
        lua_pushnumber(L, ar.currentline);
        lua_setfield(L, 1, "line");
    }
    lua_settop(L, 1);
    return 1;
}

/* Pushes a table of argv[from..from+n) as strings. */
static void push_string_array(lua_State *L, const struct cmd_ctx *ctx, int from, long long n)
{
    lua_createtable(L, (int)n, 0);
    for (long long i = 0; i < n; i++) {
        lua_pushlstring(L, ctx->argv[from + i], ctx->argv_len[from + i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
}

void script_lua_run(lua_State *L, struct cmd_ctx *ctx, const struct script_run *run, int first_key,
                    long long nkeys, bool keys_as_globals)
{
    int fn = lua_gettop(L);
    lua_getfield(L, LUA_REGISTRYINDEX, REG_ERROR_HANDLER);
    lua_insert(L, fn); /* handler below the function */
    int handler = fn;
    fn++;
    long long nargs = ctx->argc - first_key - nkeys;
    int call_args = 0;
    if (keys_as_globals) {
        lua_getfield(L, LUA_REGISTRYINDEX, REG_SANDBOX_GLOBALS);
        push_string_array(L, ctx, first_key, nkeys);
        lua_setfield(L, -2, "KEYS");
        push_string_array(L, ctx, first_key + (int)nkeys, nargs);
        lua_setfield(L, -2, "ARGV");
        lua_pop(L, 1);
    } else {
        push_string_array(L, ctx, first_key, nkeys);
        push_string_array(L, ctx, first_key + (int)nkeys, nargs);
        call_args = 2;
    }
    struct script_state st = {
        .run = run,
        .caller = ctx,
        .db_index = session_db_index(ctx->conn),
        .resp = 2,
        .oom_at_start = config.maxmemory && xmalloc_used_bytes() > (size_t)config.maxmemory,
        .started_us = clock_mono_us(),
        /* The declared keys' slot (all one slot: the call was routed). */
        .cluster_slot = cluster_enabled && nkeys > 0
                            ? (int)cluster_keyslot(ctx->argv[first_key], ctx->argv_len[first_key])
                            : -1,
        .cross_slot = run->flags & (SCRIPT_FLAG_ALLOW_CROSS_SLOT | SCRIPT_FLAG_EVAL_COMPAT_MODE),
    };
    current = &st;
    lua_sethook(L, run_hook, LUA_MASKCOUNT, BUSY_HOOK_INSTRUCTIONS);
    script_sandbox_enforce(L, true);
    int rc = lua_pcall(L, call_args, 1, handler);
    script_sandbox_enforce(L, false);
    lua_sethook(L, NULL, 0, 0);
    busy_end(&st);
    current = NULL;
    if (rc != 0) {
        script_reply_error(L, ctx->reply, run->name);
    } else {
        script_reply_value(L, ctx->reply, st.resp);
    }
    lua_settop(L, handler - 1);
    script_sandbox_after_run(L);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param script_lua_params[] = {
    {.name = "busy-reply-threshold",
     .alias = "lua-time-limit",
     .kind = CFG_INT,
     .value = &config.busy_reply_threshold,
     .max = LLONG_MAX,
     .value_name = "MS",
     .help = "a script running longer serves other clients with BUSY until it ends or SCRIPT KILL "
             "/ FUNCTION KILL (default 5000)"},
};

const struct config_table script_lua_config = CONFIG_TABLE(script_lua_params, NULL);
