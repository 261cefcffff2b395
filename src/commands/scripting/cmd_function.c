/*
 * cmd_function.c — Redis 7.0 functions: FUNCTION LOAD/DELETE/LIST/FLUSH/
 * DUMP/RESTORE/STATS/KILL/HELP, FCALL and FCALL_RO.
 *
 * A library is its name, its code and the functions its code registered
 * (redis.register_function, while FUNCTION LOAD runs the code in the
 * engine's loading mode, script_lua.h). Each function's callback is a
 * reference in the FUNCTION engine's registry. Libraries are a list in
 * load order; a function is found by walking them (a handful of libraries
 * is the common case; each FCALL compares names until it finds its own).
 *
 * FUNCTION DUMP writes Redis's payload: per library the RDB opcode
 * FUNCTION2 (245) and the code as an RDB string, then the RDB version and
 * CRC-64 footer of DUMP payloads, so a payload from redis-server restores
 * here and the other way round. Functions are not saved in RDB snapshots
 * (docs/scripting.md).
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands/command.h"
#include "commands/monitor.h"
#include "scripting/script_lua.h"
#include "scripting/script_sandbox.h"
#include "persist/rdb.h"
#include "util/split_args.h"
#include "persist/rdb_io.h"
#include "core/config.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/glob.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

struct fn_function {
    char *name;
    char *description; /* NULL: none */
    uint32_t flags;
    int ref; /* the callback in the engine's registry */
};

struct fn_library {
    char *name;
    char *code;
    size_t code_len;
    struct fn_function *functions;
    int count, cap;
    struct fn_library *next;
};

static lua_State *fn_engine;
static struct fn_library *libraries; /* load order */
static struct fn_library *loading;   /* the library FUNCTION LOAD is running */

/* A NUL-terminated copy of n bytes. */
static char *dup_text(const char *p, size_t n)
{
    char *s = xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/* --- libraries -------------------------------------------------------------- */

static void library_free(struct fn_library *lib)
{
    if (!lib) return;
    for (int i = 0; i < lib->count; i++) {
        if (fn_engine) luaL_unref(fn_engine, LUA_REGISTRYINDEX, lib->functions[i].ref);
        free(lib->functions[i].name);
        free(lib->functions[i].description);
    }
    free(lib->functions);
    free(lib->name);
    free(lib->code);
    free(lib);
}

static void libraries_free(struct fn_library *list)
{
    while (list) {
        struct fn_library *next = list->next;
        library_free(list);
        list = next;
    }
}

static struct fn_library **library_slot(struct fn_library **list, const char *name)
{
    for (; *list; list = &(*list)->next)
        if (strcmp((*list)->name, name) == 0) return list;
    return NULL;
}

/* Function names are case-insensitive across libraries (Redis's function
 * dictionary compares them ignoring case); inside one library they are not. */
static struct fn_function *function_in(struct fn_library *list, const char *name, size_t len)
{
    for (; list; list = list->next)
        for (int i = 0; i < list->count; i++)
            if (strlen(list->functions[i].name) == len &&
                strncasecmp(list->functions[i].name, name, len) == 0)
                return &list->functions[i];
    return NULL;
}

static void list_append(struct fn_library **list, struct fn_library *lib)
{
    while (*list) list = &(*list)->next;
    lib->next = NULL;
    *list = lib;
}

static bool name_valid(const char *s, size_t len)
{
    if (len == 0) return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

static const char name_rule[] = "Library names can only contain letters, numbers, or "
                                "underscores(_) and must be at least one character long";

/* --- redis.register_function ---------------------------------------------- */

static int register_error(lua_State *L, const char *msg)
{
    lua_newtable(L);
    lua_pushfstring(L, "ERR %s", msg);
    lua_setfield(L, -2, "err");
    return lua_error(L);
}

static bool read_flags(lua_State *L, int index, uint32_t *flags)
{
    for (int j = 1;; j++) {
        lua_rawgeti(L, index, j);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            return true;
        }
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pop(L, 1);
            return false;
        }
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        uint32_t f = script_flag_by_name(s, len);
        lua_pop(L, 1);
        if (!f) return false;
        *flags |= f;
    }
}

static int register_function(lua_State *L)
{
    if (!loading)
        return register_error(L, "redis.register_function can only be called on FUNCTION LOAD "
                                 "command");
    int argc = lua_gettop(L);
    if (argc < 1 || argc > 2)
        return register_error(L, "wrong number of arguments to redis.register_function");
    const char *name = NULL, *desc = NULL;
    size_t name_len = 0, desc_len = 0;
    uint32_t flags = 0;
    int callback = 0; /* stack index */
    if (argc == 2) {
        if (!lua_isstring(L, 1))
            return register_error(L, "first argument to redis.register_function must be a string");
        if (!lua_isfunction(L, 2))
            return register_error(L,
                                  "second argument to redis.register_function must be a function");
        name = lua_tolstring(L, 1, &name_len);
        callback = 2;
    } else {
        if (!lua_istable(L, 1))
            return register_error(L,
                                  "calling redis.register_function with a single argument is "
                                  "only applicable to Lua table (representing named arguments).");
        lua_pushnil(L);
        while (lua_next(L, 1)) {
            if (!lua_isstring(L, -2))
                return register_error(
                    L, "named argument key given to redis.register_function is not a string");
            lua_pushvalue(L, -2);
            const char *key = lua_tostring(L, -1);
            lua_pop(L, 1);
            if (strcasecmp(key, "function_name") == 0) {
                if (!lua_isstring(L, -1))
                    return register_error(L, "function_name argument given to "
                                             "redis.register_function must be a string");
                lua_pushvalue(L, -1);
                lua_setfield(L, LUA_REGISTRYINDEX, "goblin.reg_name");
                name = "";
            } else if (strcasecmp(key, "description") == 0) {
                if (!lua_isstring(L, -1))
                    return register_error(L, "description argument given to "
                                             "redis.register_function must be a string");
                lua_pushvalue(L, -1);
                lua_setfield(L, LUA_REGISTRYINDEX, "goblin.reg_desc");
                desc = "";
            } else if (strcasecmp(key, "callback") == 0) {
                if (!lua_isfunction(L, -1))
                    return register_error(L, "callback argument given to redis.register_function "
                                             "must be a function");
                lua_pushvalue(L, -1);
                lua_setfield(L, LUA_REGISTRYINDEX, "goblin.reg_callback");
                callback = -1;
            } else if (strcasecmp(key, "flags") == 0) {
                if (!lua_istable(L, -1))
                    return register_error(L, "flags argument to redis.register_function must be a "
                                             "table representing function flags");
                if (!read_flags(L, lua_gettop(L), &flags))
                    return register_error(L, "unknown flag given");
            } else {
                return register_error(L, "unknown argument given to redis.register_function");
            }
            lua_pop(L, 1);
        }
        if (!name)
            return register_error(L, "redis.register_function must get a function name "
                                     "argument");
        if (!callback)
            return register_error(L, "redis.register_function must get a callback argument");
        /* The values, kept alive on the stack from here on. */
        lua_getfield(L, LUA_REGISTRYINDEX, "goblin.reg_name");
        name = lua_tolstring(L, -1, &name_len);
        if (desc) {
            lua_getfield(L, LUA_REGISTRYINDEX, "goblin.reg_desc");
            desc = lua_tolstring(L, -1, &desc_len);
        }
        lua_getfield(L, LUA_REGISTRYINDEX, "goblin.reg_callback");
        callback = lua_gettop(L);
    }
    if (!name_valid(name, name_len)) return register_error(L, name_rule);
    for (int i = 0; i < loading->count; i++)
        if (strlen(loading->functions[i].name) == name_len &&
            memcmp(loading->functions[i].name, name, name_len) == 0)
            return register_error(L, "Function already exists in the library");
    if (loading->count == loading->cap) {
        loading->cap = loading->cap ? loading->cap * 2 : 4;
        loading->functions =
            xrealloc(loading->functions, sizeof *loading->functions * (size_t)loading->cap);
    }
    struct fn_function *f = &loading->functions[loading->count++];
    f->name = dup_text(name, name_len);
    f->description = desc ? dup_text(desc, desc_len) : NULL;
    f->flags = flags;
    lua_pushvalue(L, callback);
    f->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

static lua_State *engine(void)
{
    if (!fn_engine) fn_engine = script_lua_new(register_function);
    return fn_engine;
}

void function_stats(size_t *functions, size_t *libraries_out, size_t *bytes, size_t *vm_bytes)
{
    *functions = *libraries_out = *bytes = 0;
    for (const struct fn_library *lib = libraries; lib; lib = lib->next) {
        (*libraries_out)++;
        *functions += (size_t)lib->count;
        *bytes += sizeof *lib + strlen(lib->name) + lib->code_len + 2;
        for (int i = 0; i < lib->count; i++)
            *bytes +=
                sizeof lib->functions[i] + strlen(lib->functions[i].name) + 1 +
                (lib->functions[i].description ? strlen(lib->functions[i].description) + 1 : 0);
    }
    *vm_bytes = fn_engine ? (size_t)lua_gc(fn_engine, LUA_GCCOUNT, 0) * 1024 +
                                (size_t)lua_gc(fn_engine, LUA_GCCOUNTB, 0)
                          : 0;
}

/* --- creating a library (Redis's functionsCreateWithLibraryCtx) ---------- */

/* Parses the `#!<engine> name=<lib>` line; *body is the code from its
 * line feed on (line numbers stay the user's). The line is split into
 * words as Redis's sdssplitargs does (the inline protocol's splitter), so
 * `name="foo"` names foo and an unbalanced quote is invalid metadata. */
static bool parse_metadata(const char *code, size_t len, char **name, size_t *body, char *err,
                           size_t cap)
{
    *name = NULL;
    if (len < 2 || code[0] != '#' || code[1] != '!') {
        snprintf(err, cap, "Missing library metadata");
        return false;
    }
    const char *nl = memchr(code, '\n', len);
    if (!nl) {
        snprintf(err, cap, "Invalid library metadata");
        return false;
    }
    *body = (size_t)(nl - code);
    struct buf words;
    buf_init(&words, 64);
    size_t *lens = NULL;
    int lens_cap = 0;
    int n = split_args(code, *body, &words, &lens, &lens_cap);
    bool ok = false;
    if (n <= 0) {
        snprintf(err, cap, "Invalid library metadata");
        goto done;
    }
    const char *word = buf_head(&words);
    /* The engine: the first word past "#!" (Redis's sdsrange(engine, 2, -1)),
     * looked up after the name is found, as Redis. */
    const char *engine = lens[0] >= 2 ? word + 2 : "";
    size_t engine_len = lens[0] >= 2 ? lens[0] - 2 : 0;
    word += lens[0];
    for (int i = 1; i < n; word += lens[i], i++) {
        size_t wlen = lens[i];
        if (wlen >= 5 && strncasecmp(word, "name=", 5) == 0) {
            if (*name) {
                snprintf(err, cap,
                         "Invalid metadata value, name argument was given multiple times");
                goto done;
            }
            *name = dup_text(word + 5, wlen - 5);
            continue;
        }
        snprintf(err, cap, "Invalid metadata value given: %.*s", (int)wlen, word);
        goto done;
    }
    if (!*name) {
        snprintf(err, cap, "Library name was not given");
        goto done;
    }
    if (engine_len != 3 || strncasecmp(engine, "lua", 3) != 0) {
        snprintf(err, cap, "Engine '%.*s' not found", (int)engine_len, engine);
        goto done;
    }
    ok = true;
done:
    if (!ok) {
        free(*name);
        *name = NULL;
    }
    free(lens);
    buf_free(&words);
    return ok;
}

/* Redis's LOAD_TIMEOUT_MS: a library's top-level code that runs longer is
 * stopped, so FUNCTION LOAD (or RESTORE) cannot hang the server. */
#define LOAD_TIMEOUT_US (500 * 1000)
static int64_t load_started_us;

#define LOAD_HOOK_INSTRUCTIONS 100000

static void load_timeout_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    script_sandbox_hook_period(L, LOAD_HOOK_INSTRUCTIONS);
    if (clock_mono_us() - load_started_us <= LOAD_TIMEOUT_US) return;
    /* Every line from now on, so a pcall in the code cannot swallow it. */
    lua_sethook(L, load_timeout_hook, LUA_MASKLINE, 0);
    register_error(L, "FUNCTION LOAD timeout");
}

/* Compiles and runs `code` in loading mode: a new library (not linked
 * anywhere yet), or NULL with err set. A library of the same name in
 * *refuse is refused before the code runs, as Redis refuses it. */
static struct fn_library *library_create(const char *code, size_t len, struct fn_library **refuse,
                                         char *err, size_t cap)
{
    char *name;
    size_t body;
    if (!parse_metadata(code, len, &name, &body, err, cap)) return NULL;
    if (!name_valid(name, strlen(name))) {
        snprintf(err, cap, "%s", name_rule);
        free(name);
        return NULL;
    }
    if (refuse && library_slot(refuse, name)) {
        snprintf(err, cap, "Library '%s' already exists", name);
        free(name);
        return NULL;
    }
    lua_State *L = engine();
    struct fn_library *lib = xcalloc(1, sizeof *lib);
    lib->name = name;
    lib->code = dup_text(code, len);
    lib->code_len = len;
    char cerr[1024];
    if (!script_lua_compile(L, code + body, len - body, "@user_function", cerr, sizeof cerr)) {
        snprintf(err, cap, "Error compiling function: %s", cerr);
        library_free(lib);
        return NULL;
    }
    loading = lib;
    script_lua_set_loading(L, true);
    load_started_us = clock_mono_us();
    lua_sethook(L, load_timeout_hook, LUA_MASKCOUNT, LOAD_HOOK_INSTRUCTIONS);
    script_sandbox_enforce(L, true);
    int rc = lua_pcall(L, 0, 0, 0);
    script_sandbox_enforce(L, false);
    lua_sethook(L, NULL, 0, 0);
    script_sandbox_after_run(L);
    script_lua_set_loading(L, false);
    loading = NULL;
    if (rc != 0) {
        const char *msg = NULL;
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            msg = lua_tostring(L, -1);
            snprintf(err, cap, "Error registering functions: %s", msg ? msg : "");
            lua_pop(L, 1);
        } else {
            msg = lua_tostring(L, -1);
            snprintf(err, cap, "Error registering functions: ERR %s", msg ? msg : "");
        }
        lua_pop(L, 1);
        library_free(lib);
        return NULL;
    }
    if (lib->count == 0) {
        snprintf(err, cap, "No functions registered");
        library_free(lib);
        return NULL;
    }
    return lib;
}

/* Moves every library of *src into the live list (Redis's libraryJoin):
 * a library name already there is an error unless replace; a function name
 * already there is an error. On error nothing changes and *src is kept. */
static bool libraries_join(struct fn_library **src, bool replace, char *err, size_t cap)
{
    struct fn_library *replaced = NULL;
    for (struct fn_library *lib = *src; lib; lib = lib->next) {
        struct fn_library **slot = library_slot(&libraries, lib->name);
        if (!slot) continue;
        if (!replace) {
            snprintf(err, cap, "Library %s already exists", lib->name);
            goto fail;
        }
        struct fn_library *old = *slot;
        *slot = old->next;
        old->next = replaced;
        replaced = old;
    }
    for (struct fn_library *lib = *src; lib; lib = lib->next)
        for (int i = 0; i < lib->count; i++)
            if (function_in(libraries, lib->functions[i].name, strlen(lib->functions[i].name))) {
                snprintf(err, cap, "Function %s already exists", lib->functions[i].name);
                goto fail;
            }
    while (*src) {
        struct fn_library *lib = *src;
        *src = lib->next;
        list_append(&libraries, lib);
    }
    libraries_free(replaced);
    return true;
fail:
    while (replaced) {
        struct fn_library *lib = replaced;
        replaced = lib->next;
        list_append(&libraries, lib);
    }
    return false;
}

/* --- commands ---------------------------------------------------------------- */

static void cmd_function_load(struct cmd_ctx *ctx)
{
    bool replace = false;
    int code_at = 2;
    while (code_at < ctx->argc - 1) {
        if (!arg_equals(ctx, code_at, "replace")) {
            reply_error_fmt(ctx->reply, "ERR Unknown option given: %.*s",
                            (int)ctx->argv_len[code_at], ctx->argv[code_at]);
            return;
        }
        replace = true;
        code_at++;
    }
    char err[1200];
    struct fn_library *lib = library_create(ctx->argv[code_at], ctx->argv_len[code_at],
                                            replace ? NULL : &libraries, err, sizeof err);
    if (!lib) {
        reply_error_fmt(ctx->reply, "ERR %s", err);
        return;
    }
    struct fn_library *single = lib;
    if (!libraries_join(&single, replace, err, sizeof err)) {
        reply_error_fmt(ctx->reply, "ERR %s", err);
        library_free(lib);
        return;
    }
    keyspace.stats.dirty++; /* a write, as Redis counts it: propagated to the AOF */
    reply_bulk(ctx->reply, lib->name, strlen(lib->name));
}

static void cmd_function_delete(struct cmd_ctx *ctx)
{
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)ctx->argv_len[2], ctx->argv[2]);
    struct fn_library **slot =
        ctx->argv_len[2] < sizeof name ? library_slot(&libraries, name) : NULL;
    if (!slot) {
        reply_error(ctx->reply, "ERR Library not found");
        return;
    }
    struct fn_library *lib = *slot;
    *slot = lib->next;
    library_free(lib);
    keyspace.stats.dirty++;
    reply_ok(ctx->reply);
}

static void flags_reply(const char *name, void *arg)
{
    reply_status((struct reply *)arg, name);
}

static void flags_count(const char *name, void *arg)
{
    (*(long long *)arg)++;
}

static void cmd_function_list(struct cmd_ctx *ctx)
{
    bool with_code = false;
    const char *pattern = NULL;
    size_t pattern_len = 0;
    for (int i = 2; i < ctx->argc; i++) {
        if (!with_code && arg_equals(ctx, i, "withcode")) {
            with_code = true;
            continue;
        }
        if (!pattern && arg_equals(ctx, i, "libraryname")) {
            if (i >= ctx->argc - 1) {
                reply_error(ctx->reply, "ERR library name argument was not given");
                return;
            }
            i++;
            pattern = ctx->argv[i];
            pattern_len = ctx->argv_len[i];
            continue;
        }
        reply_error_fmt(ctx->reply, "ERR Unknown argument %.*s", (int)ctx->argv_len[i],
                        ctx->argv[i]);
        return;
    }
    struct reply *r = ctx->reply;
    reply_mark m = reply_defer(r);
    long long n = 0;
    for (struct fn_library *lib = libraries; lib; lib = lib->next) {
        if (pattern && !glob_match(pattern, pattern_len, lib->name, strlen(lib->name), true))
            continue;
        n++;
        reply_map_len(r, with_code ? 4 : 3);
        reply_bulk_cstr(r, "library_name");
        reply_bulk_cstr(r, lib->name);
        reply_bulk_cstr(r, "engine");
        reply_bulk_cstr(r, "LUA");
        reply_bulk_cstr(r, "functions");
        reply_array_len(r, lib->count);
        for (int i = 0; i < lib->count; i++) {
            struct fn_function *f = &lib->functions[i];
            reply_map_len(r, 3);
            reply_bulk_cstr(r, "name");
            reply_bulk_cstr(r, f->name);
            reply_bulk_cstr(r, "description");
            reply_bulk_cstr(r, f->description); /* nil when none */
            reply_bulk_cstr(r, "flags");
            long long nflags = 0;
            script_flags_foreach(f->flags, flags_count, &nflags);
            reply_set_len(r, nflags);
            script_flags_foreach(f->flags, flags_reply, r);
        }
        if (with_code) {
            reply_bulk_cstr(r, "library_code");
            reply_bulk(r, lib->code, lib->code_len);
        }
    }
    reply_defer_array(r, m, n);
}

static void libraries_flush(void)
{
    libraries_free(libraries);
    libraries = NULL;
    script_lua_free(fn_engine); /* the callbacks go with it */
    fn_engine = NULL;
}

static void cmd_function_flush(struct cmd_ctx *ctx)
{
    if (ctx->argc == 3 && !arg_equals(ctx, 2, "sync") && !arg_equals(ctx, 2, "async")) {
        reply_error(ctx->reply, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    if (ctx->argc > 3) {
        reply_subcommand_syntax_error(ctx);
        return;
    }
    libraries_flush();
    keyspace.stats.dirty++;
    reply_ok(ctx->reply);
}

static void cmd_function_stats(struct cmd_ctx *ctx)
{
    struct reply *r = ctx->reply;
    long long nlibs = 0, nfns = 0;
    for (struct fn_library *lib = libraries; lib; lib = lib->next) {
        nlibs++;
        nfns += lib->count;
    }
    const struct script_run *running = script_lua_running();
    if (running && !running->function) { /* a busy EVAL: Redis answers its BUSY */
        reply_error(r, script_busy_reply);
        return;
    }
    reply_map_len(r, 2);
    reply_bulk_cstr(r, "running_script");
    script_reply_running(r);
    reply_bulk_cstr(r, "engines");
    reply_map_len(r, 1);
    reply_bulk_cstr(r, "LUA");
    reply_map_len(r, 2);
    reply_bulk_cstr(r, "libraries_count");
    reply_int(r, nlibs);
    reply_bulk_cstr(r, "functions_count");
    reply_int(r, nfns);
}

static void cmd_function_kill(struct cmd_ctx *ctx)
{
    script_kill(ctx, true);
}

static void cmd_function_dump(struct cmd_ctx *ctx)
{
    struct rdb_writer w;
    rdbw_init(&w, -1, config.rdbcompression);
    for (struct fn_library *lib = libraries; lib; lib = lib->next)
        rdb_write_function(&w, lib->code, lib->code_len);
    rdb_payload_footer(&w);
    reply_bulk(ctx->reply, buf_head(&w.buf), buf_len(&w.buf));
    rdbw_free(&w);
}

struct restore_state {
    struct fn_library *list;
    char *err;
    size_t cap;
};

static bool restore_library(const char *code, size_t len, void *arg)
{
    struct restore_state *st = arg;
    struct fn_library *lib = library_create(code, len, &st->list, st->err, st->cap);
    if (!lib) return false;
    for (int i = 0; i < lib->count; i++)
        if (function_in(st->list, lib->functions[i].name, strlen(lib->functions[i].name))) {
            snprintf(st->err, st->cap, "Function %s already exists", lib->functions[i].name);
            library_free(lib);
            return false;
        }
    list_append(&st->list, lib);
    return true;
}

/* Decodes a verified FUNCTION DUMP payload into a list of new libraries
 * (Redis's functionRestoreCommand loop); false with err set. */
static bool function_payload_decode(const void *p, size_t len, char *err, size_t cap,
                                    struct fn_library **out)
{
    struct restore_state st = {.list = NULL, .err = err, .cap = cap};
    bool ok = rdb_function_payload_foreach(p, len, restore_library, &st, err, cap);
    *out = st.list;
    return ok;
}

static void cmd_function_restore(struct cmd_ctx *ctx)
{
    enum { POLICY_APPEND, POLICY_REPLACE, POLICY_FLUSH } policy = POLICY_APPEND;
    if (ctx->argc == 4) {
        if (arg_equals(ctx, 3, "flush"))
            policy = POLICY_FLUSH;
        else if (arg_equals(ctx, 3, "append"))
            policy = POLICY_APPEND;
        else if (arg_equals(ctx, 3, "replace"))
            policy = POLICY_REPLACE;
        else {
            reply_error(ctx->reply, "ERR Wrong restore policy given, value should be either FLUSH, "
                                    "APPEND or REPLACE.");
            return;
        }
    } else if (ctx->argc != 3) {
        reply_subcommand_syntax_error(ctx);
        return;
    }
    if (!rdb_payload_verify(ctx->argv[2], ctx->argv_len[2])) {
        reply_error(ctx->reply, "ERR DUMP payload version or checksum are wrong");
        return;
    }
    char err[1200];
    struct fn_library *restored;
    if (!function_payload_decode(ctx->argv[2], ctx->argv_len[2], err, sizeof err, &restored)) {
        libraries_free(restored);
        reply_error_fmt(ctx->reply, "ERR %s", err);
        return;
    }
    if (policy == POLICY_FLUSH) {
        libraries_free(libraries);
        libraries = restored;
    } else if (!libraries_join(&restored, policy == POLICY_REPLACE, err, sizeof err)) {
        libraries_free(restored);
        reply_error_fmt(ctx->reply, "ERR %s", err);
        return;
    }
    keyspace.stats.dirty++;
    reply_ok(ctx->reply);
}

/* --- snapshots (persist/rdb.h) ------------------------------------------ */

static void libraries_foreach_code(void (*fn)(const char *code, size_t len, void *arg), void *arg)
{
    for (struct fn_library *lib = libraries; lib; lib = lib->next)
        fn(lib->code, lib->code_len, arg);
}

/* A library from a snapshot joins the others as FUNCTION RESTORE APPEND
 * would add it: an existing library or function name is an error. */
static bool library_load_from_snapshot(const char *code, size_t len, char *err, size_t cap)
{
    if (rdb_load_merge) { /* DEBUG RELOAD MERGE: it replaces the library of its name */
        struct restore_state fresh = {.list = NULL, .err = err, .cap = cap};
        if (!restore_library(code, len, &fresh)) return false;
        if (libraries_join(&fresh.list, true, err, cap)) return true;
        libraries_free(fresh.list);
        return false;
    }
    struct restore_state st = {.list = libraries, .err = err, .cap = cap};
    bool ok = restore_library(code, len, &st);
    libraries = st.list;
    return ok;
}

void function_register_persistence(void)
{
    static const struct rdb_function_source source = {
        .foreach = libraries_foreach_code,
        .load = library_load_from_snapshot,
        .flush = libraries_flush,
    };
    rdb_set_function_source(&source);
}

static void cmd_function_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME "
        "argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored "
        "using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a "
        "restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
        "abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
        "replace the old",
        "      libraries with the new libraries (notice that even on this option there is a "
        "chance of failure",
        "      in case of functions name collision with another library).",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

bool function_flags(const char *name, size_t len, uint32_t *flags)
{
    struct fn_function *f = function_in(libraries, name, len);
    if (f) *flags = f->flags;
    return f != NULL;
}

static void fcall_generic(struct cmd_ctx *ctx, bool ro)
{
    monitor_feed_script_call(ctx);
    struct fn_function *f = function_in(libraries, ctx->argv[1], ctx->argv_len[1]);
    if (!f) {
        reply_error(ctx->reply, "ERR Function not found");
        return;
    }
    long long numkeys;
    if (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &numkeys)) {
        reply_error(ctx->reply, "ERR Bad number of keys provided");
        return;
    }
    if (numkeys > ctx->argc - 3) {
        reply_error(ctx->reply, "ERR Number of keys can't be greater than number of args");
        return;
    }
    if (numkeys < 0) {
        reply_error(ctx->reply, "ERR Number of keys can't be negative");
        return;
    }
    if (!script_may_run(ctx, f->flags, ro)) return;
    lua_State *L = engine();
    lua_rawgeti(L, LUA_REGISTRYINDEX, f->ref);
    struct script_run run = {
        .name = f->name,
        .flags = f->flags,
        .read_only = ro || (f->flags & SCRIPT_FLAG_NO_WRITES),
        .function = true,
    };
    script_lua_run(L, ctx, &run, 3, numkeys, false);
}

static void cmd_fcall(struct cmd_ctx *ctx)
{
    fcall_generic(ctx, false);
}

static void cmd_fcall_ro(struct cmd_ctx *ctx)
{
    fcall_generic(ctx, true);
}

static struct command function_subcommands[] = {
    {.name = "delete",
     .arity = 3,
     .flags = CMD_WRITE | CMD_NOSCRIPT,
     .fn = cmd_function_delete,
     .summary = "Delete a function by name",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(1)"},
    {.name = "dump",
     .arity = 2,
     .flags = CMD_NOSCRIPT,
     .fn = cmd_function_dump,
     .summary = "Dump all functions into a serialized binary payload",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(N) where N is the number of functions"},
    {.name = "flush",
     .arity = -2,
     .flags = CMD_WRITE | CMD_NOSCRIPT,
     .fn = cmd_function_flush,
     .summary = "Deleting all functions",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(N) where N is the number of functions deleted"},
    {.name = "help",
     .arity = 2,
     .flags = CMD_LOADING | CMD_STALE,
     .fn = cmd_function_help,
     .summary = "Show helpful text about the different subcommands",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(1)"},
    {.name = "kill",
     .arity = 2,
     .flags = CMD_ALLOW_BUSY | CMD_NOSCRIPT,
     .fn = cmd_function_kill,
     .summary = "Kill the function currently in execution.",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(1)"},
    {.name = "list",
     .arity = -2,
     .flags = CMD_NOSCRIPT,
     .fn = cmd_function_list,
     .summary = "List information about all the functions",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(N) where N is the number of functions"},
    {.name = "load",
     .arity = -3,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT,
     .fn = cmd_function_load,
     .summary = "Create a function with the given arguments (name, code, description)",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(1) (considering compilation time is redundant)"},
    {.name = "restore",
     .arity = -3,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT,
     .fn = cmd_function_restore,
     .summary = "Restore all the functions on the given payload",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(N) where N is the number of functions on the payload"},
    {.name = "stats",
     .arity = 2,
     .flags = CMD_ALLOW_BUSY | CMD_NOSCRIPT,
     .fn = cmd_function_stats,
     .summary = "Return information about the function currently running (name, description, "
                "duration)",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "O(1)"},
    COMMAND_END,
};

struct command function_commands[] = {
    {.name = "fcall",
     .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_STALE | CMD_MAY_REPLICATE,
     .fn = cmd_fcall,
     .summary = "Invoke a function",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "Depends on the function that is executed."},
    {.name = "fcall_ro",
     .arity = -3,
     .flags = CMD_NOSCRIPT | CMD_STALE | CMD_READONLY,
     .fn = cmd_fcall_ro,
     .summary = "Invoke a read-only function",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "Depends on the function that is executed."},
    {.name = "function",
     .arity = -2,
     .subcommands = function_subcommands,
     .summary = "A container for function commands",
     .since = "7.0.0",
     .group = "scripting",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
