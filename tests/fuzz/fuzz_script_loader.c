/*
 * fuzz_script_loader.c — libFuzzer harness for the script loader of the
 * Lua sandbox (src/scripting/script_sandbox.c): the compile path of EVAL,
 * SCRIPT LOAD and FUNCTION LOAD, and loadstring/load as a script calls
 * them, in a state built as the engines build theirs (Debian's liblua5.1,
 * lua-bitop, lua-cjson, the cmsgpack and struct libraries, the sandbox
 * installed). Every byte of a script body comes from a client.
 *
 * fuzz-sources: src/scripting/script_sandbox.c src/scripting/script_cmsgpack.c
 * fuzz-sources: src/scripting/script_struct.c src/util/log.c src/util/xmalloc.c
 * fuzz-sources: src/util/log_syslog.c
 *
 * Input: 1 control byte, then the chunk.
 *   bits 0-1  the path: 0 script_sandbox_load (EVAL's), 1 loadstring, 2
 *             load with a reader that hands the chunk over in pieces and
 *             collects garbage between them (CVE-2025-49844's pattern),
 *             3 a binary chunk: string.dump's output with the input
 *             written over it from byte 12 on
 *   bits 2-7  piece length for path 2 (1..64); an empty first piece when 0
 *
 * Invariants: nothing crashes or leaks (ASan); a chunk that starts with
 * ESC is always refused with the text parser's "unexpected symbol near
 * 'char(27)'" (never undumped); a compiled chunk is a function and is
 * never run (random code could loop); the sandbox is untouched afterwards
 * (the globals and string proxies still raw-empty, the string metatable's
 * __index still the string proxy).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua.h>
#include <lualib.h>

#include "scripting/script_libs.h"
#include "scripting/script_sandbox.h"
#include "fuzz_common.h"
#include "core/config.h"

struct config config; /* the server's is in config.c: only lua_memory_limit is read */

static lua_State *L;

static void open_library(const char *name, lua_CFunction fn)
{
    lua_pushcfunction(L, fn);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

static void build_state(void)
{
    config.lua_memory_limit = 256LL * 1024 * 1024;
    L = script_sandbox_newstate();
    open_library("", luaopen_base);
    open_library(LUA_TABLIBNAME, luaopen_table);
    open_library(LUA_STRLIBNAME, luaopen_string);
    open_library(LUA_MATHLIBNAME, luaopen_math);
    open_library("bit", luaopen_bit);
    void *cjson = dlopen(GOBLIN_LUA_CJSON_MODULE, RTLD_NOW | RTLD_LOCAL);
    FUZZ_CHECK(cjson, "cannot load %s: %s", GOBLIN_LUA_CJSON_MODULE, dlerror());
    lua_pushcfunction(L, (lua_CFunction)(uintptr_t)dlsym(cjson, "luaopen_cjson"));
    lua_call(L, 0, 1);
    lua_setglobal(L, "cjson");
    script_open_cmsgpack(L);
    lua_setglobal(L, "cmsgpack");
    script_open_struct(L);
    lua_setglobal(L, "struct");
    lua_newtable(L);
    lua_setglobal(L, "redis");
    lua_settop(L, 0);
    script_sandbox_install(L);
}

/* The error of a refused binary chunk, whatever the chunk name. */
static void check_binary_refused(int status, const char *what)
{
    FUZZ_CHECK(status != 0, "%s: a binary chunk compiled", what);
    const char *msg = lua_tostring(L, -1);
    FUZZ_CHECK(msg && strstr(msg, ":1: unexpected symbol near 'char(27)'"),
               "%s: binary chunk refused with '%s'", what, msg ? msg : "(not a string)");
}

/* Runs Lua code of the harness's own (trusted), with the chunk as `...`. */
static int run_helper(const char *code, const uint8_t *chunk, size_t n, int piece)
{
    int status = luaL_loadstring(L, code);
    FUZZ_CHECK(status == 0, "helper does not compile: %s", lua_tostring(L, -1));
    lua_pushlstring(L, (const char *)chunk, n);
    lua_pushinteger(L, piece);
    script_sandbox_enforce(L, true);
    status = lua_pcall(L, 2, 2, 0);
    script_sandbox_enforce(L, false);
    return status;
}

/* The sandbox survived: proxies raw-empty, strings' methods the proxy's. */
static void check_sandbox(void)
{
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_pushnil(L);
    FUZZ_CHECK(lua_next(L, -2) == 0, "the globals proxy holds a raw key");
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, REG_SANDBOX_GLOBALS);
    lua_getfield(L, -1, "string");
    lua_pushnil(L);
    FUZZ_CHECK(lua_next(L, -2) == 0, "the string proxy holds a raw key");
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_getfield(L, -1, "__index");
    FUZZ_CHECK(lua_rawequal(L, -1, -4), "the string metatable's __index changed");
    lua_settop(L, 0);
}

static const char loadstring_helper[] =
    "local chunk = ... local f, e = loadstring(chunk) return type(f), e";

static const char reader_helper[] =
    "local chunk, piece = ... local at, calls = 1, 0 "
    "local f, e = load(function() "
    "  calls = calls + 1 collectgarbage() "
    "  if calls == 1 and piece == 0 then return '' end "
    "  local size = piece > 0 and piece or 16 "
    "  local s = string.sub(chunk, at, at + size - 1) at = at + size "
    "  if s == '' then return nil end return s end) "
    "return type(f), e";

static const char dump_helper[] =
    "local chunk = ... local d = string.dump(function(a, b) return a + b, 'k' end) "
    "local bin = string.sub(d, 1, 12) .. chunk "
    "local f, e = loadstring(bin) local g, e2 = load(function() local s = bin bin = nil "
    "return s end) return type(f) .. type(g), e .. '|' .. e2";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!L) build_state();
    struct fuzz_input in = {data, size, 0};
    uint8_t control = fuzz_u8(&in);
    size_t n;
    const uint8_t *chunk = fuzz_bytes(&in, size, &n);
    bool binary = n > 0 && chunk[0] == 0x1b;
    int piece = (control >> 2) & 63;
    int status;
    switch (control & 3) {
    case 0:
        status = script_sandbox_load(L, (const char *)chunk, n, "@user_script");
        if (binary) check_binary_refused(status, "EVAL");
        if (status == 0) FUZZ_CHECK(lua_isfunction(L, -1), "compiled to no function");
        break;
    case 1:
        status = run_helper(loadstring_helper, chunk, n, piece);
        FUZZ_CHECK(status == 0 || status == LUA_ERRMEM, "loadstring raised: %s",
                   lua_tostring(L, -1));
        if (status == 0 && binary) {
            FUZZ_CHECK(strcmp(lua_tostring(L, -2), "nil") == 0, "loadstring took bytecode");
            lua_remove(L, -2);
            check_binary_refused(1, "loadstring");
        }
        break;
    case 2:
        status = run_helper(reader_helper, chunk, n, piece);
        FUZZ_CHECK(status == 0 || status == LUA_ERRMEM, "load raised: %s", lua_tostring(L, -1));
        if (status == 0 && binary) {
            FUZZ_CHECK(strcmp(lua_tostring(L, -2), "nil") == 0, "load took bytecode");
            lua_remove(L, -2);
            check_binary_refused(1, "load");
        }
        break;
    default:
        status = run_helper(dump_helper, chunk, n, piece);
        FUZZ_CHECK(status == 0 || status == LUA_ERRMEM, "dump helper raised: %s",
                   lua_tostring(L, -1));
        if (status == 0) {
            FUZZ_CHECK(strcmp(lua_tostring(L, -2), "nilnil") == 0, "a binary chunk compiled");
            const char *e = lua_tostring(L, -1);
            FUZZ_CHECK(strstr(e, "char(27)'|") && strstr(strchr(e, '|'), "char(27)'"),
                       "binary chunk refused with '%s'", e);
        }
        break;
    }
    lua_settop(L, 0);
    check_sandbox();
    /* Keep the heap from carrying one input's garbage into the next. */
    script_sandbox_after_run(L);
    return 0;
}
