/* script_sandbox.c — read-only proxies, the library functions replaced to
 * close Redis's published Lua holes, the loader that refuses bytecode and
 * the bounded heap; see script_sandbox.h. Each replaced function keeps the
 * original's argument checks and error texts (Lua 5.1.5's, lua-bitop's,
 * lua-cjson's), so a script sees what redis-server's patched copies say. */
#include "scripting/script_sandbox.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define REG_PROXIES "goblin.proxies"           /* proxy -> the real table */
#define REG_ANSWERS "goblin.metatable_answers" /* metatable -> getmetatable()'s answer */
#define REG_GLOBALS_META "goblin.globals_meta" /* the globals proxy's metatable */

/* --- the heap --------------------------------------------------------------- */

struct sandbox_heap {
    lua_State *L;
    size_t used;
    bool enforce;    /* a script is running: lua-memory-limit applies */
    int gc_step_ref; /* registry refs of the protected GC functions */
    int gc_collect_ref;
};

/* Lua's allocator contract: nsize 0 frees; shrinking never fails (it is
 * never refused here); NULL for growth makes Lua raise "not enough memory"
 * in the running script. */
static void *heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    struct sandbox_heap *h = ud;
    if (nsize == 0) {
        free(ptr);
        h->used -= osize;
        return NULL;
    }
    if (h->enforce && nsize > osize && config.lua_memory_limit > 0 &&
        h->used - osize + nsize > (unsigned long long)config.lua_memory_limit) {
        /* The run's count hook fires at the next instruction, so that a
         * script failing allocation after allocation (pcall in a loop)
         * still sees SCRIPT KILL: its C calls run few instructions. Only
         * fields are set: lua_sethook may be called anywhere. */
        lua_Hook hook = lua_gethook(h->L);
        if (hook) lua_sethook(h->L, hook, lua_gethookmask(h->L), 1);
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p) h->used = h->used - osize + nsize;
    return p;
}

static struct sandbox_heap *heap_of(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* An error outside every protected call: the server's own use of the
 * state failed (out of memory), which it cannot recover from. */
static int sandbox_panic(lua_State *L)
{
    log_warning("Lua: unprotected error: %s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    abort();
}

static int gc_step(lua_State *L)
{
    lua_gc(L, LUA_GCSTEP, 1);
    return 0;
}

static int gc_collect(lua_State *L)
{
    lua_gc(L, LUA_GCCOLLECT, 0);
    return 0;
}

lua_State *script_sandbox_newstate(void)
{
    struct sandbox_heap *h = xcalloc(1, sizeof *h);
    lua_State *L = lua_newstate(heap_alloc, h);
    if (!L) {
        log_warning("cannot create a Lua state: out of memory");
        abort();
    }
    h->L = L;
    lua_atpanic(L, sandbox_panic);
    /* Kept in the registry so that each run's step pushes no new closure. */
    lua_pushcfunction(L, gc_step);
    h->gc_step_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushcfunction(L, gc_collect);
    h->gc_collect_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return L;
}

void script_sandbox_enforce(lua_State *L, bool on)
{
    heap_of(L)->enforce = on;
}

void script_sandbox_hook_period(lua_State *L, int count)
{
    int mask = lua_gethookmask(L);
    if ((mask & LUA_MASKCOUNT) && lua_gethookcount(L) != count)
        lua_sethook(L, lua_gethook(L), mask, count);
}

size_t script_sandbox_heap_bytes(lua_State *L)
{
    return heap_of(L)->used;
}

/* Finalizers only come from C libraries here (newproxy is gone), but a
 * collection still runs them: in a protected call, so none reaches the
 * panic. A full one when the heap holds more than half the limit: a
 * script that ended at the limit leaves that much garbage, and Lua 5.1
 * collects nothing before failing the next script's allocation. */
void script_sandbox_after_run(lua_State *L)
{
    struct sandbox_heap *h = heap_of(L);
    bool full =
        config.lua_memory_limit > 0 && h->used > (unsigned long long)config.lua_memory_limit / 2;
    lua_rawgeti(L, LUA_REGISTRYINDEX, full ? h->gc_collect_ref : h->gc_step_ref);
    if (lua_pcall(L, 0, 0, 0) != 0) lua_pop(L, 1);
}

void script_sandbox_close(lua_State *L)
{
    if (!L) return;
    struct sandbox_heap *h = heap_of(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->gc_collect_ref);
    if (lua_pcall(L, 0, 0, 0) != 0) lua_pop(L, 1);
    lua_close(L);
    free(h);
}

/* --- proxies ---------------------------------------------------------------- */

static int abs_index(lua_State *L, int index)
{
    return index > 0 || index <= LUA_REGISTRYINDEX ? index : lua_gettop(L) + index + 1;
}

/* __newindex of every proxy: Redis's error, with the script's position. */
static int readonly_error(lua_State *L)
{
    return luaL_error(L, "Attempt to modify a readonly table");
}

/* rawset, setmetatable and table.insert on a proxy: Redis raises this one
 * from inside its Lua without a position. */
static int readonly_refusal(lua_State *L)
{
    lua_pushliteral(L, "Attempt to modify a readonly table");
    return lua_error(L);
}

/* Redis's luaProtectedTableError: __index of the globals (and of
 * FUNCTION LOAD's load-time tables). */
static int missing_global_error(lua_State *L)
{
    if (lua_gettop(L) != 2)
        return luaL_error(L, "Wrong number of arguments to luaProtectedTableError");
    if (!lua_isstring(L, -1))
        return luaL_error(L,
                          "Second argument to luaProtectedTableError must be a string or number");
    return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                      lua_tostring(L, -1));
}

void script_sandbox_missing_is_error(lua_State *L, int index)
{
    index = abs_index(L, index);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, missing_global_error);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, index);
}

/* What getmetatable() answers for objects whose metatable is `mt_index`:
 * the value on top (popped; false for nil). */
static void set_answer(lua_State *L, int mt_index)
{
    mt_index = abs_index(L, mt_index);
    lua_getfield(L, LUA_REGISTRYINDEX, REG_ANSWERS);
    lua_pushvalue(L, mt_index);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 2);
}

void script_sandbox_push_proxy(lua_State *L, int index)
{
    index = abs_index(L, index);
    lua_newtable(L);
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, readonly_error);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0); /* getmetatable(proxy) is nil, as for Redis's library tables */
    set_answer(L, -2);
    lua_setmetatable(L, -2);
    lua_getfield(L, LUA_REGISTRYINDEX, REG_PROXIES);
    lua_pushvalue(L, -2);
    lua_pushvalue(L, index);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* Pushes a proxy of a new table {__index = value on top}, popping the
 * value: what getmetatable() shows of a protected metatable. */
static void push_metatable_view(lua_State *L)
{
    lua_createtable(L, 0, 1);
    lua_insert(L, -2);
    lua_setfield(L, -2, "__index");
    script_sandbox_push_proxy(L, -1);
    lua_remove(L, -2);
}

/* The replaced functions below get the proxy registry as upvalue 1. */
static bool is_proxy(lua_State *L, int slot)
{
    if (!lua_getmetatable(L, slot)) return false; /* the common case: a plain table */
    lua_pop(L, 1);
    lua_pushvalue(L, slot);
    lua_rawget(L, lua_upvalueindex(1));
    bool proxy = !lua_isnil(L, -1);
    lua_pop(L, 1);
    return proxy;
}

/* Replaces a proxy at `slot` by its real table, for the functions that
 * only read raw (the real table never reaches the script through them). */
static void see_through(lua_State *L, int slot)
{
    if (!lua_getmetatable(L, slot)) return;
    lua_pop(L, 1);
    lua_pushvalue(L, slot);
    lua_rawget(L, lua_upvalueindex(1));
    if (lua_istable(L, -1))
        lua_replace(L, slot);
    else
        lua_pop(L, 1);
}

void script_sandbox_set_globals(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, REG_GLOBALS_META);
    lua_insert(L, -2);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

/* --- the base library ----------------------------------------------------------- */

static int sandbox_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (is_proxy(L, 1)) return readonly_refusal(L);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

static int sandbox_rawget(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    see_through(L, 1);
    lua_rawget(L, 1);
    return 1;
}

static int sandbox_next(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    see_through(L, 1);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

/* Upvalue 2: its own `next` (Lua's pairs has one, not the global). */
static int sandbox_pairs(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int sandbox_setmetatable(lua_State *L)
{
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
    if (is_proxy(L, 1)) return readonly_refusal(L);
    if (luaL_getmetafield(L, 1, "__metatable"))
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* Upvalue 1: the answers registry (not the proxies). */
static int sandbox_getmetatable(lua_State *L)
{
    luaL_checkany(L, 1);
    if (!lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushvalue(L, -1);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) {
        if (!lua_toboolean(L, -1)) lua_pushnil(L);
        return 1;
    }
    lua_pop(L, 1);
    luaL_getmetafield(L, 1, "__metatable");
    return 1;
}

/* Lua's unpack without its int overflow (CVE-2025-46817: e - i + 1
 * wrapped past the stack check and the copy ran off the stack). */
static int sandbox_unpack(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int i = luaL_optint(L, 2, 1);
    int e = luaL_opt(L, luaL_checkint, 3, (int)lua_objlen(L, 1));
    if (i > e) return 0;
    long long n = (long long)e - i + 1;
    if (n >= INT_MAX || !lua_checkstack(L, (int)n))
        return luaL_error(L, "too many results to unpack");
    for (long long k = i; k <= e; k++) lua_rawgeti(L, 1, (int)k);
    return (int)n;
}

/* Redis 7.0's pcall: an error table comes back as its err string, as
 * older versions (whose errors were strings) did. */
static int sandbox_pcall(lua_State *L)
{
    int argc = lua_gettop(L);
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    int status = lua_pcall(L, argc - 1, LUA_MULTRET, 0);
    /* Lua 5.1 collects nothing before failing an allocation: what the
     * failed call built is garbage the script could not allocate past. */
    if (status == LUA_ERRMEM) lua_gc(L, LUA_GCCOLLECT, 0);
    if (status != 0) {
        lua_remove(L, 1);
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "err");
            if (lua_isstring(L, -1))
                lua_replace(L, -2);
            else
                lua_pop(L, 1);
        }
        lua_pushboolean(L, 0);
        lua_insert(L, 1);
    }
    return lua_gettop(L);
}

/* --- loading ------------------------------------------------------------------------ */

/* What the parser is given instead of a binary chunk: Redis's parser
 * always lexes text, so ESC is the first token and the error is "<chunk>:1:
 * unexpected symbol near 'char(27)'"; a space then ESC gets the same. */
static const char binary_as_text[2] = {' ', 0x1b};

static int load_buffer(lua_State *L, const char *code, size_t len, const char *name)
{
    if (len > SANDBOX_MAX_CHUNK) {
        lua_pushliteral(L, "chunk too large");
        return LUA_ERRSYNTAX;
    }
    if (len > 0 && code[0] == LUA_SIGNATURE[0]) {
        code = binary_as_text;
        len = sizeof binary_as_text;
    }
    return luaL_loadbuffer(L, code, len, name);
}

int script_sandbox_load(lua_State *L, const char *code, size_t len, const char *chunkname)
{
    lua_pushstring(L, chunkname); /* the parser's luaS_new finds this one, anchored */
    int status = load_buffer(L, code, len, lua_tostring(L, -1));
    lua_remove(L, -2);
    return status;
}

static int load_result(lua_State *L, int status)
{
    if (status == 0) return 1;
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

static int sandbox_loadstring(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, s); /* both are stack strings: anchored */
    return load_result(L, load_buffer(L, s, len, name));
}

struct piece_reader {
    bool first;
    bool done;
    size_t total;
};

/* load()'s reader: Lua's generic_reader, except that a stream whose first
 * piece starts with ESC is parsed as text (binary_as_text) and a stream
 * longer than SANDBOX_MAX_CHUNK stops with an error. */
static const char *piece_reader(lua_State *L, void *ud, size_t *size)
{
    struct piece_reader *r = ud;
    *size = 0;
    if (r->done) return NULL;
    luaL_checkstack(L, 2, "too many nested functions");
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) return NULL;
    if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
    lua_replace(L, 3); /* keeps the piece alive while the parser reads it */
    const char *s = lua_tolstring(L, 3, size);
    bool first = r->first;
    r->first = false;
    if (first && *size > 0 && s[0] == LUA_SIGNATURE[0]) {
        r->done = true;
        *size = sizeof binary_as_text;
        return binary_as_text;
    }
    r->total += *size;
    if (r->total > SANDBOX_MAX_CHUNK) luaL_error(L, "chunk too large");
    return s;
}

static int sandbox_load(lua_State *L)
{
    bool named = !lua_isnoneornil(L, 2);
    const char *name = luaL_optstring(L, 2, "=(load)");
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 3);
    if (!named) {
        lua_pushstring(L, name); /* slot 4: the default name, anchored (CVE-2025-49844) */
        name = lua_tostring(L, 4);
    }
    struct piece_reader r = {.first = true};
    return load_result(L, lua_load(L, piece_reader, &r, name));
}

/* --- the table library -------------------------------------------------------------- */

/* Lua 5.1.5's table.insert, refusing proxies before its first write. */
static int sandbox_table_insert(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int e = (int)lua_objlen(L, 1) + 1;
    int pos;
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3:
        pos = luaL_checkint(L, 2);
        if (pos > e) e = pos;
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    if (is_proxy(L, 1)) return readonly_refusal(L);
    for (int i = e; i > pos; i--) {
        lua_rawgeti(L, 1, i - 1);
        lua_rawseti(L, 1, i);
    }
    lua_rawseti(L, 1, pos);
    return 0;
}

/* Lua 5.1.5's table.foreach, reading a proxy's real table. */
static int sandbox_table_foreach(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    see_through(L, 1);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pushvalue(L, 2);
        lua_pushvalue(L, -3);
        lua_pushvalue(L, -3);
        lua_call(L, 2, 1);
        if (!lua_isnil(L, -1)) return 1;
        lua_pop(L, 2);
    }
    return 0;
}

/* --- bit ---------------------------------------------------------------------------- */

/* lua-bitop's conversion of a number to 32 bits: the low word of the
 * double after adding 2^52 + 2^51 (rounding to an integer modulo 2^32). */
static uint32_t bit_argument(lua_State *L, int index)
{
    union {
        lua_Number n;
        uint64_t bits;
    } v;
    v.n = lua_tonumber(L, index) + 6755399441055744.0;
    uint32_t b = (uint32_t)v.bits;
    if (b == 0 && !lua_isnumber(L, index)) luaL_typerror(L, index, "number");
    return b;
}

/* lua-bitop's tohex with Redis's fix for INT32_MIN digits (CVE-2024-31449:
 * -n overflowed and the digit loop wrote past its 8-byte buffer). */
static int sandbox_bit_tohex(lua_State *L)
{
    uint32_t b = bit_argument(L, 1);
    int32_t n = lua_isnone(L, 2) ? 8 : (int32_t)bit_argument(L, 2);
    const char *digits = "0123456789abcdef";
    if (n == INT32_MIN) n = INT32_MIN + 1;
    if (n < 0) {
        n = -n;
        digits = "0123456789ABCDEF";
    }
    if (n > 8) n = 8;
    char buf[8];
    for (int i = (int)n; --i >= 0;) {
        buf[i] = digits[b & 15];
        b >>= 4;
    }
    lua_pushlstring(L, buf, (size_t)n);
    return 1;
}

/* --- cjson ------------------------------------------------------------------------- */

/* lua-cjson 2.1.0 sizes its buffers in int and, for a string of n bytes,
 * reserves 6n + 2 before writing unchecked (CVE-2022-24834); its decoder
 * sizes a scratch buffer as the input's length in int. Output whose worst
 * case passes this, and input longer than it, are refused. */
#define JSON_MAX_BYTES (1u << 30)

struct json_budget {
    double total;     /* worst-case output bytes so far */
    long long visits; /* values walked: a table shared many times over is walked each time */
    int max_depth;
    bool sparse_convert;
    double sparse_ratio, sparse_safe;
};

enum json_walk { JSON_FITS, JSON_CJSON_STOPS, JSON_TOO_LARGE };

static enum json_walk json_estimate(lua_State *L, int index, int depth, struct json_budget *b);

/* A table as lua-cjson encodes it, in its order (so that where cjson
 * stops with its own error, the estimate covers what it wrote): an array
 * 1..max, holes as null, when every key is an integer >= 1 and it is not
 * excessively sparse; else an object, in lua_next order, whose keys are
 * strings or numbers. */
static enum json_walk json_estimate_table(lua_State *L, int index, int depth, struct json_budget *b)
{
    if (depth > b->max_depth) return JSON_CJSON_STOPS; /* "excessive nesting" */
    if (!lua_checkstack(L, 3))
        return luaL_error(L, "Cannot serialise, excessive nesting (%d)", depth);
    index = abs_index(L, index);
    double max = 0, items = 0;
    bool array = true;
    lua_pushnil(L);
    while (array && lua_next(L, index)) {
        lua_pop(L, 1);
        double k = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
        if (k >= 1 && floor(k) == k) {
            if (k > max) max = k;
            items++;
        } else {
            array = false;
            lua_pop(L, 1);
        }
    }
    if (array && max > 0 && b->sparse_ratio > 0 && max > items * b->sparse_ratio &&
        max > b->sparse_safe) {
        if (!b->sparse_convert) return JSON_CJSON_STOPS; /* "excessively sparse array" */
        array = false;
    }
    if (array && max > 0) {
        b->total += 2 + max; /* brackets and commas; every slot below */
        if (b->total > JSON_MAX_BYTES) return JSON_TOO_LARGE;
        for (double i = 1; i <= max; i++) {
            lua_rawgeti(L, index, (int)i);
            enum json_walk w = json_estimate(L, -1, depth, b);
            lua_pop(L, 1);
            if (w != JSON_FITS) return w;
        }
        return JSON_FITS;
    }
    b->total += 2;
    lua_pushnil(L);
    while (lua_next(L, index)) {
        int kt = lua_type(L, -2);
        if (kt != LUA_TNUMBER && kt != LUA_TSTRING) {
            lua_pop(L, 2);
            return JSON_CJSON_STOPS; /* "table key must be a number or string" */
        }
        b->total += kt == LUA_TNUMBER ? 32 + 4 : 6.0 * (double)lua_objlen(L, -2) + 4;
        enum json_walk w = json_estimate(L, -1, depth, b);
        lua_pop(L, 1);
        if (w != JSON_FITS) {
            lua_pop(L, 1);
            return w;
        }
    }
    return JSON_FITS;
}

/* The walk runs in C, out of SCRIPT KILL's reach: past this many values
 * (16M: a table shared at every level, t = {t, t} forty times, stands
 * for 2^40) it refuses rather than run for seconds. */
#define JSON_MAX_VISITS (1LL << 24)

static enum json_walk json_estimate(lua_State *L, int index, int depth, struct json_budget *b)
{
    if (++b->visits > JSON_MAX_VISITS) return JSON_TOO_LARGE;
    switch (lua_type(L, index)) {
    case LUA_TSTRING:
        b->total += 6.0 * (double)lua_objlen(L, index) + 2;
        break;
    case LUA_TNUMBER:
        b->total += 32;
        break;
    case LUA_TBOOLEAN:
        b->total += 5;
        break;
    case LUA_TNIL:
    case LUA_TLIGHTUSERDATA:
        b->total += 4;
        break;
    case LUA_TTABLE:
        return json_estimate_table(L, index, depth + 1, b);
    default:
        return JSON_CJSON_STOPS; /* "type not supported" */
    }
    return b->total <= JSON_MAX_BYTES ? JSON_FITS : JSON_TOO_LARGE;
}

/* Calls the function below its `nargs` arguments on top: a library
 * function whose errors, called from C, name no position; re-raised with
 * the script's, as if the script had called it. */
static int call_as_script(lua_State *L, int nargs)
{
    int base = lua_gettop(L) - nargs - 1;
    int status = lua_pcall(L, nargs, LUA_MULTRET, 0);
    if (status == 0) return lua_gettop(L) - base;
    if (status == LUA_ERRRUN && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* Upvalues: cjson's encode, encode_max_depth, encode_sparse_array. */
static int cjson_encode_guard(lua_State *L)
{
    luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument");
    struct json_budget b = {0};
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_call(L, 0, 1);
    b.max_depth = (int)lua_tointeger(L, -1);
    lua_pushvalue(L, lua_upvalueindex(3));
    lua_call(L, 0, 3);
    b.sparse_convert = lua_isboolean(L, -3)
                           ? lua_toboolean(L, -3)
                           : lua_isstring(L, -3) && strcmp(lua_tostring(L, -3), "on") == 0;
    b.sparse_ratio = lua_tonumber(L, -2);
    b.sparse_safe = lua_tonumber(L, -1);
    lua_settop(L, 1);
    if (json_estimate(L, 1, 0, &b) == JSON_TOO_LARGE)
        return luaL_error(L, "Cannot serialise, output too large (more than %d bytes)",
                          (int)JSON_MAX_BYTES);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    return call_as_script(L, 1);
}

/* Upvalue: cjson's decode. */
static int cjson_decode_guard(lua_State *L)
{
    luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument");
    size_t len;
    luaL_checklstring(L, 1, &len);
    if (len > JSON_MAX_BYTES)
        return luaL_error(L, "Cannot decode, input too large (more than %d bytes)",
                          (int)JSON_MAX_BYTES);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    return call_as_script(L, 1);
}

static void guard_cjson(lua_State *L, int t);

/* Upvalue: cjson's new. A new instance is guarded as the module is. */
static int cjson_new_guard(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 0, 1);
    guard_cjson(L, lua_gettop(L));
    return 1;
}

static void guard_cjson(lua_State *L, int t)
{
    lua_getfield(L, t, "encode");
    lua_getfield(L, t, "encode_max_depth");
    lua_getfield(L, t, "encode_sparse_array");
    lua_pushcclosure(L, cjson_encode_guard, 3);
    lua_setfield(L, t, "encode");
    lua_getfield(L, t, "decode");
    lua_pushcclosure(L, cjson_decode_guard, 1);
    lua_setfield(L, t, "decode");
    lua_getfield(L, t, "new");
    lua_pushcclosure(L, cjson_new_guard, 1);
    lua_setfield(L, t, "new");
}

/* --- installing ---------------------------------------------------------------------- */

/* t[name] = fn, a closure over the value on top of the stack (kept). */
static void set_closure(lua_State *L, int t, const char *name, lua_CFunction fn)
{
    t = abs_index(L, t);
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, t, name);
}

void script_sandbox_install(lua_State *L)
{
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    int globals = lua_gettop(L);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_PROXIES);
    int proxies = lua_gettop(L);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_ANSWERS);

    /* What stock Lua has and Redis 7.0.15 does not. */
    static const char *const removed[] = {"dofile",  "loadfile", "print", "getfenv",
                                          "setfenv", "newproxy", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setfield(L, globals, removed[i]);
    }

    /* The base library's functions that write or read raw, or load. */
    set_closure(L, globals, "rawset", sandbox_rawset);
    set_closure(L, globals, "rawget", sandbox_rawget);
    set_closure(L, globals, "setmetatable", sandbox_setmetatable);
    set_closure(L, globals, "next", sandbox_next);
    lua_pushvalue(L, proxies);
    lua_pushvalue(L, proxies);
    lua_pushcclosure(L, sandbox_next, 1);
    lua_pushcclosure(L, sandbox_pairs, 2);
    lua_setfield(L, globals, "pairs");
    lua_getfield(L, LUA_REGISTRYINDEX, REG_ANSWERS);
    lua_pushcclosure(L, sandbox_getmetatable, 1);
    lua_setfield(L, globals, "getmetatable");
    lua_pushcfunction(L, sandbox_unpack);
    lua_setfield(L, globals, "unpack");
    lua_pushcfunction(L, sandbox_pcall);
    lua_setfield(L, globals, "pcall");
    lua_pushcfunction(L, sandbox_loadstring);
    lua_setfield(L, globals, "loadstring");
    lua_pushcfunction(L, sandbox_load);
    lua_setfield(L, globals, "load");

    lua_getfield(L, globals, "table");
    lua_pushvalue(L, proxies);
    set_closure(L, -2, "insert", sandbox_table_insert);
    set_closure(L, -2, "foreach", sandbox_table_foreach);
    lua_pop(L, 2);
    lua_getfield(L, globals, "bit");
    lua_pushcfunction(L, sandbox_bit_tohex);
    lua_setfield(L, -2, "tohex");
    lua_pop(L, 1);
    lua_getfield(L, globals, "cjson");
    if (lua_istable(L, -1)) guard_cjson(L, lua_gettop(L));
    lua_pop(L, 1);

    /* Every library table behind a proxy. */
    static const char *const libs[] = {"string", "table",    "math",   "coroutine", "cjson",
                                       "bit",    "cmsgpack", "struct", "redis",     NULL};
    for (int i = 0; libs[i]; i++) {
        lua_getfield(L, globals, libs[i]);
        if (!lua_istable(L, -1)) { /* a state without it (tests/fuzz) */
            lua_pop(L, 1);
            continue;
        }
        script_sandbox_push_proxy(L, -1);
        lua_setfield(L, globals, libs[i]);
        lua_pop(L, 1);
    }

    /* Strings' methods come from the string proxy; getmetatable('') is a
     * read-only view of {__index = string}, as Redis's. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_getfield(L, globals, "string");
    lua_setfield(L, -2, "__index");
    lua_getfield(L, globals, "string");
    push_metatable_view(L);
    set_answer(L, -2);
    lua_pop(L, 2);

    /* The globals: a missing name is Redis's error; scripts see a proxy
     * (also as _G), whose metatable shows as Redis's {__index = fn}. */
    script_sandbox_missing_is_error(L, globals);
    lua_pushvalue(L, globals);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_SANDBOX_GLOBALS);
    script_sandbox_push_proxy(L, globals);
    lua_getmetatable(L, -1);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_GLOBALS_META);
    lua_pushcfunction(L, missing_global_error);
    push_metatable_view(L);
    set_answer(L, -2);
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, globals, "_G");
    lua_replace(L, LUA_GLOBALSINDEX); /* functions compiled from now on see the proxy */
    lua_settop(L, 0);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param script_sandbox_params[] = {
    {.name = "lua-memory-limit",
     .kind = CFG_MEMORY,
     .value = &config.lua_memory_limit,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help = "the most memory the Lua heap of EVAL's engine, and of FUNCTION's, may hold while a "
             "script or a library's loading runs: an allocation past it fails the script with 'not "
             "enough memory', so no single library call can take the server's memory (default 1gb; "
             "0 = no limit; docs/scripting.md)"},
};

const struct config_table script_sandbox_config = CONFIG_TABLE(script_sandbox_params, NULL);
