/* script_struct.c — the `struct` Lua library (binary packing), as the copy
 * bundled with Redis 7.0 behaves; see script_libs.h. */
#include <ctype.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scripting/script_libs.h"

#define STRUCT_MAX_INT_SIZE 32

/* The default of '!': the larger of a double's alignment and an int's size. */
struct double_align {
    char c;
    double d;
};
#define STRUCT_MAX_ALIGN                                                                           \
    (offsetof(struct double_align, d) > sizeof(int) ? offsetof(struct double_align, d)             \
                                                    : sizeof(int))

enum { BIG, LITTLE };

struct format {
    const char *p; /* next option */
    int endian;
    size_t align;
};

static int native_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one ? LITTLE : BIG;
}

static void format_init(struct format *f, const char *text)
{
    f->p = text;
    f->endian = native_endian();
    f->align = 1;
}

/* The decimal number at the format's cursor, or `dflt` when none. */
static int read_number(lua_State *L, struct format *f, int dflt)
{
    if (!isdigit((unsigned char)*f->p)) return dflt;
    int a = 0;
    do {
        int digit = *f->p - '0';
        if (a > INT_MAX / 10 || a * 10 > INT_MAX - digit) luaL_error(L, "integral size overflow");
        a = a * 10 + digit;
        f->p++;
    } while (isdigit((unsigned char)*f->p));
    return a;
}

/* The size of option `opt` (its count read from the format); 0 for the
 * options that take no room. */
static size_t option_size(lua_State *L, int opt, struct format *f)
{
    switch (opt) {
    case 'B':
    case 'b':
        return 1;
    case 'H':
    case 'h':
        return sizeof(short);
    case 'L':
    case 'l':
        return sizeof(long);
    case 'T':
        return sizeof(size_t);
    case 'f':
        return sizeof(float);
    case 'd':
        return sizeof(double);
    case 'x':
        return 1;
    case 'c':
        return (size_t)read_number(L, f, 1);
    case 'i':
    case 'I': {
        int size = read_number(L, f, (int)sizeof(int));
        if (size > STRUCT_MAX_INT_SIZE)
            luaL_error(L, "integral size %d is larger than limit of %d", size, STRUCT_MAX_INT_SIZE);
        return (size_t)size;
    }
    default:
        return 0;
    }
}

/* Padding before an item of `size` at offset `at`. */
static size_t padding(size_t at, const struct format *f, int opt, size_t size)
{
    if (size == 0 || opt == 'c') return 0;
    if (size > f->align) size = f->align;
    return (size - (at & (size - 1))) & (size - 1);
}

/* The options that set state: ' ', '<', '>', '!n'; others are an error. */
static void control_option(lua_State *L, int opt, struct format *f)
{
    switch (opt) {
    case ' ':
        return;
    case '>':
        f->endian = BIG;
        return;
    case '<':
        f->endian = LITTLE;
        return;
    case '!': {
        int a = read_number(L, f, (int)STRUCT_MAX_ALIGN);
        if (!(a > 0 && (a & (a - 1)) == 0)) luaL_error(L, "alignment %d is not a power of 2", a);
        f->align = (size_t)a;
        return;
    }
    default:
        luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
    }
}

/* x86-64's cvttsd2si: out of range and NaN give INT64_MIN (what Redis's
 * casts do there; C leaves them undefined). */
static int64_t x86_to_int64(double d)
{
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) return (int64_t)d;
    return INT64_MIN;
}

/* The bits Redis's putinteger takes from a number: (unsigned long)(long)n
 * for negatives, (unsigned long)n otherwise, as gcc compiles both on
 * x86-64 (2^63 and above: converted less 2^63, the top bit flipped). */
static uint64_t integer_bits(double n)
{
    if (n < 0) return (uint64_t)x86_to_int64(n);
    if (n >= 9223372036854775808.0)
        return (uint64_t)x86_to_int64(n - 9223372036854775808.0) ^ 0x8000000000000000ULL;
    return (uint64_t)x86_to_int64(n);
}

static void put_integer(luaL_Buffer *b, uint64_t value, int endian, size_t size)
{
    char out[STRUCT_MAX_INT_SIZE];
    for (size_t i = 0; i < size; i++) {
        out[endian == LITTLE ? i : size - 1 - i] = (char)(value & 0xff);
        value = i < 7 ? value >> 8 : 0; /* past 8 bytes: zeros, as Redis's 64-bit shifts */
    }
    luaL_addlstring(b, out, size);
}

/* Reverses b's bytes unless `endian` is the machine's. */
static void fix_endian(char *b, size_t size, int endian)
{
    if (endian == native_endian()) return;
    for (size_t i = 0, j = size - 1; i < j; i++, j--) {
        char t = b[i];
        b[i] = b[j];
        b[j] = t;
    }
}

static int struct_pack(lua_State *L)
{
    struct format f;
    format_init(&f, luaL_checkstring(L, 1));
    int arg = 2;
    size_t total = 0;
    lua_pushnil(L); /* separates the arguments from the buffer's stack use */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (*f.p) {
        int opt = *f.p++;
        size_t size = option_size(L, opt, &f);
        size_t pad = padding(total, &f, opt, size);
        total += pad;
        while (pad-- > 0) luaL_addchar(&b, '\0');
        switch (opt) {
        case 'b':
        case 'B':
        case 'h':
        case 'H':
        case 'l':
        case 'L':
        case 'T':
        case 'i':
        case 'I':
            put_integer(&b, integer_bits(luaL_checknumber(L, arg++)), f.endian, size);
            break;
        case 'x':
            luaL_addchar(&b, '\0');
            break;
        case 'f': {
            float v = (float)luaL_checknumber(L, arg++);
            fix_endian((char *)&v, size, f.endian);
            luaL_addlstring(&b, (const char *)&v, size);
            break;
        }
        case 'd': {
            double v = luaL_checknumber(L, arg++);
            fix_endian((char *)&v, size, f.endian);
            luaL_addlstring(&b, (const char *)&v, size);
            break;
        }
        case 'c':
        case 's': {
            size_t len;
            const char *s = luaL_checklstring(L, arg++, &len);
            if (size == 0) size = len;
            luaL_argcheck(L, len >= size, arg, "string too short");
            luaL_addlstring(&b, s, size);
            if (opt == 's') {
                luaL_addchar(&b, '\0');
                size++;
            }
            break;
        }
        default:
            control_option(L, opt, &f);
        }
        total += size;
    }
    luaL_pushresult(&b);
    return 1;
}

/* An integer of `size` bytes; past 8 bytes the high ones are shifted out
 * and the sign mask's shift count wraps at 64, as Redis's code runs on
 * x86-64. */
static lua_Number get_integer(const unsigned char *p, int endian, bool is_signed, size_t size)
{
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) v = (v << 8) | p[endian == BIG ? i : size - 1 - i];
    if (!is_signed) return (lua_Number)v;
    if (size == 0) return 0;
    uint64_t mask = ~(uint64_t)0 << ((size * 8 - 1) & 63);
    if (v & mask) v |= mask;
    return (lua_Number)(int64_t)v;
}

static int struct_unpack(lua_State *L)
{
    struct format f;
    format_init(&f, luaL_checkstring(L, 1));
    size_t ld;
    const char *data = luaL_checklstring(L, 2, &ld);
    size_t pos = (size_t)luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
    pos--;
    int n = 0;
    while (*f.p) {
        int opt = *f.p++;
        size_t size = option_size(L, opt, &f);
        pos += padding(pos, &f, opt, size);
        luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
        luaL_checkstack(L, 2, "too many results");
        switch (opt) {
        case 'b':
        case 'B':
        case 'h':
        case 'H':
        case 'l':
        case 'L':
        case 'T':
        case 'i':
        case 'I':
            lua_pushnumber(L, get_integer((const unsigned char *)data + pos, f.endian,
                                          islower(opt) != 0, size));
            n++;
            break;
        case 'x':
            break;
        case 'f': {
            float v;
            memcpy(&v, data + pos, size);
            fix_endian((char *)&v, sizeof v, f.endian);
            lua_pushnumber(L, v);
            n++;
            break;
        }
        case 'd': {
            double v;
            memcpy(&v, data + pos, size);
            fix_endian((char *)&v, sizeof v, f.endian);
            lua_pushnumber(L, v);
            n++;
            break;
        }
        case 'c':
            if (size == 0) {
                if (n == 0 || !lua_isnumber(L, -1))
                    luaL_error(L, "format 'c0' needs a previous size");
                double want = lua_tonumber(L, -1);
                size = want >= 0 && want < 1e18 ? (size_t)want : SIZE_MAX; /* too short below */
                lua_pop(L, 1);
                n--;
                luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
            }
            lua_pushlstring(L, data + pos, size);
            n++;
            break;
        case 's': {
            const char *end = memchr(data + pos, '\0', ld - pos);
            if (!end) luaL_error(L, "unfinished string in data");
            size = (size_t)(end - (data + pos)) + 1;
            lua_pushlstring(L, data + pos, size - 1);
            n++;
            break;
        }
        default:
            control_option(L, opt, &f);
        }
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)pos + 1);
    return n + 1;
}

static int struct_size(lua_State *L)
{
    struct format f;
    format_init(&f, luaL_checkstring(L, 1));
    size_t pos = 0;
    while (*f.p) {
        int opt = *f.p++;
        size_t size = option_size(L, opt, &f);
        pos += padding(pos, &f, opt, size);
        if (opt == 's')
            luaL_argerror(L, 1, "option 's' has no fixed size");
        else if (opt == 'c' && size == 0)
            luaL_argerror(L, 1, "option 'c0' has no fixed size");
        if (!isalnum(opt)) control_option(L, opt, &f);
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)pos);
    return 1;
}

int script_open_struct(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"pack", struct_pack}, {"unpack", struct_unpack}, {"size", struct_size}, {NULL, NULL}};
    lua_newtable(L);
    for (const luaL_Reg *f = fns; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    return 1;
}
