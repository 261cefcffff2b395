/*
 * fuzz_cmsgpack.c — libFuzzer harness for the MessagePack decoder of the
 * cmsgpack Lua library (src/scripting/script_cmsgpack.c): a script's
 * cmsgpack.unpack reads bytes a client chose (a key's value, ARGV).
 * Also the struct library's unpack (src/scripting/script_struct.c), whose
 * format and data a script may take from a client as well.
 *
 * fuzz-sources: src/scripting/script_cmsgpack.c src/scripting/script_struct.c
 *
 * Input: 1 control byte, then the bytes.
 *   byte 0  bits 0-2: with struct: the length of the format taken from the
 *           front of the bytes (0: no struct.unpack)
 *
 * Invariants: unpack either fails with a Lua error or returns values that
 * pack again, and those bytes unpack again to as many values (or to a nil
 * map key: a table key nested 16 deep packs as nil); walking the
 * input with unpack_one (offset by offset) visits exactly as many values
 * as unpack returned, ending at offset -1; unpack_limit(s, n) returns
 * min(n, count) values. struct.unpack never reads outside its data (ASan).
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "scripting/script_libs.h"
#include "fuzz_common.h"

/* Calls lib.fn with the n values on top of the stack; true on success,
 * results left on the stack (their count in *results). */
static int call(lua_State *L, const char *fn, int n, int *results)
{
    int base = lua_gettop(L) - n;
    lua_getglobal(L, "cmsgpack");
    lua_getfield(L, -1, fn);
    lua_remove(L, -2);
    lua_insert(L, base + 1);
    int rc = lua_pcall(L, n, LUA_MULTRET, 0);
    *results = lua_gettop(L) - base;
    return rc == 0;
}

static void check_msgpack(lua_State *L, const char *s, size_t len)
{
    int count;
    lua_pushlstring(L, s, len);
    if (!call(L, "unpack", 1, &count)) {
        lua_settop(L, 0);
        return;
    }
    /* Pack what came out, unpack it again. */
    if (count > 0) {
        int packed_n;
        FUZZ_CHECK(call(L, "pack", count, &packed_n) && packed_n == 1, "pack failed: %s",
                   lua_tostring(L, -1));
        size_t plen;
        const char *p = lua_tolstring(L, -1, &plen);
        lua_pushlstring(L, p, plen);
        lua_remove(L, -2);
        int again;
        if (call(L, "unpack", 1, &again)) {
            FUZZ_CHECK(again == count, "repacked %d values, unpacked %d", count, again);
        } else {
            /* A table used as a map key 16 levels down packs as nil. */
            const char *err = lua_tostring(L, -1);
            FUZZ_CHECK(err && strstr(err, "table index is nil"), "repacked bytes fail: %s", err);
        }
    }
    lua_settop(L, 0);
    /* The same values one at a time. */
    int seen = 0;
    lua_Integer offset = 0;
    while (offset != -1) {
        int n;
        lua_pushlstring(L, s, len);
        lua_pushinteger(L, offset);
        FUZZ_CHECK(call(L, "unpack_one", 2, &n), "unpack_one failed where unpack did not: %s",
                   lua_tostring(L, -1));
        FUZZ_CHECK(n == 1 || n == 2, "unpack_one returned %d values", n);
        lua_Integer next = lua_tointeger(L, -n);
        FUZZ_CHECK(next == -1 || next > offset, "offset went from %lld to %lld", (long long)offset,
                   (long long)next);
        seen += n - 1;
        offset = next;
        lua_settop(L, 0);
    }
    FUZZ_CHECK(seen == count, "unpack_one saw %d values, unpack %d", seen, count);
    int limit = count > 2 ? 2 : 1, n;
    lua_pushlstring(L, s, len);
    lua_pushinteger(L, limit);
    FUZZ_CHECK(call(L, "unpack_limit", 2, &n), "unpack_limit failed: %s", lua_tostring(L, -1));
    FUZZ_CHECK(n == 1 + (count < limit ? count : limit), "unpack_limit(%d) of %d gave %d", limit,
               count, n);
    lua_settop(L, 0);
}

static void check_struct(lua_State *L, const char *fmt, size_t fmt_len, const char *s, size_t len)
{
    lua_getglobal(L, "struct");
    lua_getfield(L, -1, "unpack");
    lua_pushlstring(L, fmt, fmt_len);
    lua_pushlstring(L, s, len);
    lua_pcall(L, 2, LUA_MULTRET, 0); /* errors are fine; reads outside s are not */
    lua_settop(L, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size, 0};
    uint8_t control = fuzz_u8(&in);
    size_t n;
    const char *rest = (const char *)fuzz_bytes(&in, size, &n);
    lua_State *L = luaL_newstate();
    script_open_cmsgpack(L);
    lua_setglobal(L, "cmsgpack");
    script_open_struct(L);
    lua_setglobal(L, "struct");
    check_msgpack(L, rest, n);
    size_t fmt_len = control & 7;
    if (fmt_len && fmt_len <= n) check_struct(L, rest, fmt_len, rest + fmt_len, n - fmt_len);
    lua_close(L);
    return 0;
}
