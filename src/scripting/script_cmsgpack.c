/* script_cmsgpack.c — the `cmsgpack` Lua library (MessagePack), as Redis's
 * lua-cmsgpack 0.4.0 behaves; see script_libs.h. */
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "scripting/script_libs.h"

/* Tables nested deeper are encoded as nil (cycles end there too). */
#define MP_MAX_NESTING 16

/* --- encoding ------------------------------------------------------------ */

/* The output lives in a Lua userdata at stack slot `slot`, replaced by a
 * larger one when it grows: an error raised mid-encoding (a metamethod, a
 * full stack) leaks nothing. */
struct mp_out {
    lua_State *L;
    int slot;
    unsigned char *p;
    size_t len, cap;
};

static void out_init(struct mp_out *o, lua_State *L)
{
    o->L = L;
    o->cap = 64;
    o->len = 0;
    o->p = lua_newuserdata(L, o->cap);
    o->slot = lua_gettop(L);
}

static void out_append(struct mp_out *o, const void *data, size_t n)
{
    if (o->cap - o->len < n) {
        size_t cap = o->cap * 2;
        while (cap - o->len < n) cap *= 2;
        unsigned char *p = lua_newuserdata(o->L, cap);
        memcpy(p, o->p, o->len);
        lua_replace(o->L, o->slot);
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, data, n);
    o->len += n;
}

/* Big-endian header: the type byte and `n` bytes of `v`. */
static void out_header(struct mp_out *o, unsigned char type, uint64_t v, int n)
{
    unsigned char b[9];
    b[0] = type;
    for (int i = 0; i < n; i++) b[1 + i] = (unsigned char)(v >> (8 * (n - 1 - i)));
    out_append(o, b, (size_t)n + 1);
}

static void encode_int(struct mp_out *o, int64_t n)
{
    if (n >= 0) {
        if (n <= 127) {
            unsigned char b = (unsigned char)n;
            out_append(o, &b, 1);
        } else if (n <= 0xff) {
            out_header(o, 0xcc, (uint64_t)n, 1);
        } else if (n <= 0xffff) {
            out_header(o, 0xcd, (uint64_t)n, 2);
        } else if (n <= 0xffffffffLL) {
            out_header(o, 0xce, (uint64_t)n, 4);
        } else {
            out_header(o, 0xcf, (uint64_t)n, 8);
        }
    } else if (n >= -32) {
        unsigned char b = (unsigned char)(int8_t)n;
        out_append(o, &b, 1);
    } else if (n >= -128) {
        out_header(o, 0xd0, (uint64_t)n, 1);
    } else if (n >= -32768) {
        out_header(o, 0xd1, (uint64_t)n, 2);
    } else if (n >= -2147483648LL) {
        out_header(o, 0xd2, (uint64_t)n, 4);
    } else {
        out_header(o, 0xd3, (uint64_t)n, 8);
    }
}

static void encode_number(struct mp_out *o, lua_Number d)
{
    /* An int64 when the double is one (the range check keeps the cast defined). */
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(int64_t)d == d) {
        encode_int(o, (int64_t)d);
        return;
    }
    float f = (float)d;
    if ((double)f == d) {
        uint32_t bits;
        memcpy(&bits, &f, 4);
        out_header(o, 0xca, bits, 4);
    } else {
        uint64_t bits;
        memcpy(&bits, &d, 8);
        out_header(o, 0xcb, bits, 8);
    }
}

static void encode_string(struct mp_out *o, const char *s, size_t len)
{
    if (len < 32) {
        unsigned char b = (unsigned char)(0xa0 | len);
        out_append(o, &b, 1);
    } else if (len <= 0xff) {
        out_header(o, 0xd9, len, 1);
    } else if (len <= 0xffff) {
        out_header(o, 0xda, len, 2);
    } else {
        out_header(o, 0xdb, len, 4);
    }
    out_append(o, s, len);
}

/* Array or map header: fix form (up to 15), 16-bit, 32-bit. */
static void encode_container(struct mp_out *o, size_t n, unsigned char fix, unsigned char w16)
{
    if (n <= 15) {
        unsigned char b = (unsigned char)(fix | n);
        out_append(o, &b, 1);
    } else if (n <= 0xffff) {
        out_header(o, w16, n, 2);
    } else {
        out_header(o, (unsigned char)(w16 + 1), n, 4);
    }
}

/* The table on top of the stack is an array when its keys are exactly the
 * integers 1..n (lua-cmsgpack's test: positive integral numbers whose
 * largest equals their count; an empty table is an empty array). */
static bool table_is_array(lua_State *L)
{
    long long count = 0;
    lua_Number max = 0;
    int top = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        lua_Number n;
        if (lua_type(L, -1) != LUA_TNUMBER || !((n = lua_tonumber(L, -1)) > 0) ||
            !(n <= INT_MAX && (double)(int)n == n)) {
            lua_settop(L, top);
            return false;
        }
        if (n > max) max = n;
        count++;
    }
    lua_settop(L, top);
    return max == (lua_Number)count;
}

static void encode_value(struct mp_out *o, int level);

static void encode_table(struct mp_out *o, int level)
{
    lua_State *L = o->L;
    luaL_checkstack(L, 3, "in function mp_encode_lua_table");
    if (table_is_array(L)) {
        size_t n = lua_objlen(L, -1);
        encode_container(o, n, 0x90, 0xdc);
        for (size_t j = 1; j <= n; j++) {
            lua_pushnumber(L, (lua_Number)j);
            lua_gettable(L, -2);
            encode_value(o, level + 1);
        }
        return;
    }
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        n++;
    }
    encode_container(o, n, 0x80, 0xde);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2); /* key value key */
        encode_value(o, level + 1);
        encode_value(o, level + 1);
    }
}

/* Encodes the value on top of the stack and pops it. */
static void encode_value(struct mp_out *o, int level)
{
    lua_State *L = o->L;
    int t = lua_type(L, -1);
    if (t == LUA_TTABLE && level == MP_MAX_NESTING) t = LUA_TNIL;
    switch (t) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        encode_string(o, s, len);
        break;
    }
    case LUA_TBOOLEAN: {
        unsigned char b = lua_toboolean(L, -1) ? 0xc3 : 0xc2;
        out_append(o, &b, 1);
        break;
    }
    case LUA_TNUMBER:
        encode_number(o, lua_tonumber(L, -1));
        break;
    case LUA_TTABLE:
        encode_table(o, level);
        break;
    default: {
        unsigned char b = 0xc0;
        out_append(o, &b, 1);
        break;
    }
    }
    lua_pop(L, 1);
}

static int mp_pack(lua_State *L)
{
    int nargs = lua_gettop(L);
    if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
    if (!lua_checkstack(L, nargs))
        return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
    struct mp_out o;
    out_init(&o, L);
    for (int i = 1; i <= nargs; i++) {
        luaL_checkstack(L, 1, "in function mp_check");
        lua_pushvalue(L, i);
        encode_value(&o, 0);
    }
    lua_pushlstring(L, (const char *)o.p, o.len);
    return 1;
}

/* --- decoding ------------------------------------------------------------ */

enum mp_error { MP_OK, MP_EOF, MP_BADFMT };

struct mp_cursor {
    const unsigned char *p;
    size_t left;
    enum mp_error err;
};

/* Returns from the decoding function when fewer than n bytes are left. */
#define MP_NEED(c, n)                                                                              \
    do {                                                                                           \
        if ((c)->left < (size_t)(n)) {                                                             \
            (c)->err = MP_EOF;                                                                     \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void consume(struct mp_cursor *c, size_t n)
{
    c->p += n;
    c->left -= n;
}

/* The n bytes after the type byte, big-endian. */
static uint64_t read_be(const struct mp_cursor *c, int n)
{
    uint64_t v = 0;
    for (int i = 1; i <= n; i++) v = (v << 8) | c->p[i];
    return v;
}

static void decode_value(lua_State *L, struct mp_cursor *c);

static void decode_array(lua_State *L, struct mp_cursor *c, size_t n)
{
    lua_newtable(L);
    luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
    for (lua_Number index = 1; n > 0; n--, index++) {
        lua_pushnumber(L, index);
        decode_value(L, c);
        if (c->err) return;
        lua_settable(L, -3);
    }
}

static void decode_map(lua_State *L, struct mp_cursor *c, size_t n)
{
    lua_newtable(L);
    for (; n > 0; n--) {
        decode_value(L, c); /* key */
        if (c->err) return;
        decode_value(L, c); /* value */
        if (c->err) return;
        lua_settable(L, -3); /* a nil or NaN key raises Lua's error, as in Redis */
    }
}

/* A string of n bytes after a header of h bytes. */
static void decode_string(lua_State *L, struct mp_cursor *c, size_t h, size_t n)
{
    MP_NEED(c, h + n);
    lua_pushlstring(L, (const char *)c->p + h, n);
    consume(c, h + n);
}

/* Sizes of the fixed-width types 0xcc..0xd3 and 0xca/0xcb, after the type byte. */
static int width_of(unsigned char type)
{
    switch (type) {
    case 0xcc:
    case 0xd0:
        return 1;
    case 0xcd:
    case 0xd1:
        return 2;
    case 0xce:
    case 0xd2:
    case 0xca:
        return 4;
    default:
        return 8; /* 0xcf, 0xd3, 0xcb */
    }
}

/* Pushes the value at the cursor (or sets c->err, maybe after pushing). */
static void decode_value(lua_State *L, struct mp_cursor *c)
{
    MP_NEED(c, 1);
    /* One more slot per value: top-level values all stay on the stack. */
    luaL_checkstack(L, 1,
                    "too many return values at once; use unpack_one or unpack_limit instead.");
    unsigned char type = c->p[0];
    switch (type) {
    case 0xc0:
        lua_pushnil(L);
        consume(c, 1);
        return;
    case 0xc2:
        lua_pushboolean(L, 0);
        consume(c, 1);
        return;
    case 0xc3:
        lua_pushboolean(L, 1);
        consume(c, 1);
        return;
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf:
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3:
    case 0xca:
    case 0xcb: {
        int w = width_of(type);
        MP_NEED(c, 1 + w);
        uint64_t v = read_be(c, w);
        if (type == 0xca) {
            uint32_t bits = (uint32_t)v;
            float f;
            memcpy(&f, &bits, 4);
            lua_pushnumber(L, f);
        } else if (type == 0xcb) {
            double d;
            memcpy(&d, &v, 8);
            lua_pushnumber(L, d);
        } else if (type == 0xd0) {
            lua_pushnumber(L, (int8_t)v);
        } else if (type == 0xd1) {
            lua_pushnumber(L, (int16_t)v);
        } else if (type == 0xd2) {
            lua_pushnumber(L, (int32_t)v);
        } else if (type == 0xd3 || type == 0xcf) { /* uint 64 too: Redis pushes it signed */
            lua_pushnumber(L, (lua_Number)(int64_t)v);
        } else {
            lua_pushnumber(L, (lua_Number)v);
        }
        consume(c, 1 + (size_t)w);
        return;
    }
    case 0xd9:
        MP_NEED(c, 2);
        decode_string(L, c, 2, read_be(c, 1));
        return;
    case 0xda:
        MP_NEED(c, 3);
        decode_string(L, c, 3, read_be(c, 2));
        return;
    case 0xdb:
        MP_NEED(c, 5);
        decode_string(L, c, 5, read_be(c, 4));
        return;
    case 0xdc:
    case 0xde: {
        MP_NEED(c, 3);
        size_t n = read_be(c, 2);
        consume(c, 3);
        (type == 0xdc ? decode_array : decode_map)(L, c, n);
        return;
    }
    case 0xdd:
    case 0xdf: {
        MP_NEED(c, 5);
        size_t n = read_be(c, 4);
        consume(c, 5);
        (type == 0xdd ? decode_array : decode_map)(L, c, n);
        return;
    }
    default:
        break;
    }
    if ((type & 0x80) == 0) { /* positive fixint */
        lua_pushnumber(L, type);
        consume(c, 1);
    } else if ((type & 0xe0) == 0xe0) { /* negative fixint */
        lua_pushnumber(L, (int8_t)type);
        consume(c, 1);
    } else if ((type & 0xe0) == 0xa0) { /* fixstr */
        decode_string(L, c, 1, type & 0x1f);
    } else if ((type & 0xf0) == 0x90) { /* fixarray */
        consume(c, 1);
        decode_array(L, c, type & 0xf);
    } else if ((type & 0xf0) == 0x80) { /* fixmap */
        consume(c, 1);
        decode_map(L, c, type & 0xf);
    } else {
        c->err = MP_BADFMT; /* bin, ext, 0xc1 */
    }
}

/* Decodes up to `limit` values (0 with offset 0: all of them, returning
 * only them) from argument 1 starting at `offset`; otherwise the next
 * offset (-1 at the end) comes first. */
static int unpack_from(lua_State *L, int limit, int offset)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    bool all = limit == 0 && offset == 0;
    /* Redis's text prints the input length as the limit. */
    if (offset < 0 || limit < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", offset,
                          (int)len);
    if ((size_t)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.", offset, (int)len);
    if (all) limit = INT_MAX;
    struct mp_cursor c = {(const unsigned char *)s + offset, len - (size_t)offset, MP_OK};
    int count = 0;
    for (; c.left > 0 && count < limit; count++) {
        decode_value(L, &c);
        if (c.err == MP_EOF) return luaL_error(L, "Missing bytes in input.");
        if (c.err == MP_BADFMT) return luaL_error(L, "Bad data format in input.");
    }
    if (all) return count;
    luaL_checkstack(L, 1, "in function mp_unpack_full");
    lua_pushinteger(L, c.left == 0 ? -1 : (lua_Integer)(len - c.left));
    lua_insert(L, 2);
    return count + 1;
}

static int mp_unpack(lua_State *L)
{
    return unpack_from(L, 0, 0);
}

static int mp_unpack_one(lua_State *L)
{
    int offset = (int)luaL_optinteger(L, 2, 0);
    lua_settop(L, 1);
    return unpack_from(L, 1, offset);
}

static int mp_unpack_limit(lua_State *L)
{
    int limit = (int)luaL_checkinteger(L, 2);
    int offset = (int)luaL_optinteger(L, 3, 0);
    lua_settop(L, 1);
    return unpack_from(L, limit, offset);
}

int script_open_cmsgpack(lua_State *L)
{
    static const luaL_Reg fns[] = {{"pack", mp_pack},
                                   {"unpack", mp_unpack},
                                   {"unpack_one", mp_unpack_one},
                                   {"unpack_limit", mp_unpack_limit},
                                   {NULL, NULL}};
    lua_newtable(L);
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    static const char *const meta[][2] = {
        {"_NAME", "cmsgpack"},
        {"_VERSION", "lua-cmsgpack 0.4.0"},
        {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
        {"_DESCRIPTION", "MessagePack C implementation for Lua"},
    };
    for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++) {
        lua_pushstring(L, meta[i][1]);
        lua_setfield(L, -2, meta[i][0]);
    }
    return 1;
}
