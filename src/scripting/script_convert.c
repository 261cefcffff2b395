/* script_convert.c — replies <-> Lua values; see script_convert.h. */
#include "scripting/script_convert.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/reply.h"
#include "util/buf.h"

void script_push_error_table(lua_State *L, const char *text, size_t len)
{
    /* Redis's luaPushErrorBuff: "-CODE msg" keeps its code (no space: the
     * whole text is the message, code ERR); "msg" gets ERR; trailing CR/LF
     * go. */
    const char *code = "ERR";
    size_t code_len = 3;
    const char *msg = text;
    size_t msg_len = len;
    if (len > 0 && text[0] == '-') {
        const char *space = memchr(text, ' ', len);
        if (!space) {
            msg = text + 1;
            msg_len = len - 1;
        } else {
            code = text + 1;
            code_len = (size_t)(space - text) - 1;
            msg = space + 1;
            msg_len = len - (size_t)(msg - text);
        }
    }
    while (msg_len > 0 && (msg[msg_len - 1] == '\r' || msg[msg_len - 1] == '\n')) msg_len--;
    while (msg_len > 0 && (msg[0] == '\r' || msg[0] == '\n')) {
        msg++;
        msg_len--;
    }
    lua_newtable(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addlstring(&b, code, code_len);
    luaL_addchar(&b, ' ');
    luaL_addlstring(&b, msg, msg_len);
    luaL_pushresult(&b);
    lua_setfield(L, -2, "err");
}

/* --- reply -> Lua ----------------------------------------------------------- */

struct cursor {
    const char *p, *end;
};

/* The line after the type byte, up to CRLF; advances past it. */
static const char *read_line(struct cursor *c, size_t *len)
{
    const char *start = c->p;
    const char *cr = start;
    while (cr + 1 < c->end && !(cr[0] == '\r' && cr[1] == '\n')) cr++;
    *len = (size_t)(cr - start);
    c->p = cr + 2 <= c->end ? cr + 2 : c->end;
    return start;
}

static long long read_number(struct cursor *c)
{
    size_t len;
    const char *s = read_line(c, &len);
    char tmp[32];
    if (len >= sizeof tmp) len = sizeof tmp - 1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    return strtoll(tmp, NULL, 10);
}

static const char *read_bulk(struct cursor *c, long long n)
{
    const char *s = c->p;
    if (n < 0 || n > c->end - c->p) n = c->end - c->p;
    c->p += n;
    if (c->end - c->p >= 2) c->p += 2;
    return s;
}

static void push_value(lua_State *L, struct cursor *c);

static void push_field_table(lua_State *L, const char *field)
{
    lua_newtable(L);
    lua_pushstring(L, field);
}

static void push_value(lua_State *L, struct cursor *c)
{
    luaL_checkstack(L, 8, "reached lua stack limit");
    if (c->p >= c->end) {
        lua_pushboolean(L, 0);
        return;
    }
    char type = *c->p++;
    size_t len;
    const char *s;
    long long n;
    switch (type) {
    case '+':
        s = read_line(c, &len);
        push_field_table(L, "ok");
        lua_pushlstring(L, s, len);
        lua_settable(L, -3);
        return;
    case '-':
        s = read_line(c, &len);
        script_push_error_table(L, s - 1, len + 1);
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "ignore_error_stats_update");
        return;
    case ':':
        lua_pushnumber(L, (lua_Number)read_number(c));
        return;
    case '$':
        n = read_number(c);
        if (n < 0) {
            lua_pushboolean(L, 0);
            return;
        }
        s = read_bulk(c, n);
        lua_pushlstring(L, s, (size_t)n);
        return;
    case '*':
        n = read_number(c);
        if (n < 0) {
            lua_pushboolean(L, 0);
            return;
        }
        lua_createtable(L, (int)n, 0);
        for (long long i = 0; i < n; i++) {
            push_value(L, c);
            lua_rawseti(L, -2, (int)i + 1);
        }
        return;
    case '%':
    case '~':
        n = read_number(c);
        push_field_table(L, type == '%' ? "map" : "set");
        lua_newtable(L);
        for (long long i = 0; i < n; i++) {
            push_value(L, c);
            if (type == '%')
                push_value(L, c);
            else
                lua_pushboolean(L, 1);
            if (lua_isnil(L, -2)) {
                lua_pop(L, 2);
                continue;
            }
            lua_settable(L, -3);
        }
        lua_settable(L, -3);
        return;
    case '_':
        read_line(c, &len);
        lua_pushnil(L);
        return;
    case '#':
        s = read_line(c, &len);
        lua_pushboolean(L, len > 0 && s[0] == 't');
        return;
    case ',': {
        s = read_line(c, &len);
        char tmp[64];
        if (len >= sizeof tmp) len = sizeof tmp - 1;
        memcpy(tmp, s, len);
        tmp[len] = '\0';
        push_field_table(L, "double");
        lua_pushnumber(L, (lua_Number)strtod(tmp, NULL));
        lua_settable(L, -3);
        return;
    }
    case '(':
        s = read_line(c, &len);
        push_field_table(L, "big_number");
        lua_pushlstring(L, s, len);
        lua_settable(L, -3);
        return;
    case '=':
        n = read_number(c);
        s = read_bulk(c, n);
        push_field_table(L, "verbatim_string");
        lua_newtable(L);
        lua_pushlstring(L, s, n >= 3 ? 3 : (size_t)n);
        lua_setfield(L, -2, "format");
        lua_pushlstring(L, n >= 4 ? s + 4 : s, n >= 4 ? (size_t)n - 4 : 0);
        lua_setfield(L, -2, "string");
        lua_settable(L, -3);
        return;
    case '|': /* attributes: skipped, the value follows */
        n = read_number(c);
        for (long long i = 0; i < 2 * n; i++) {
            push_value(L, c);
            lua_pop(L, 1);
        }
        push_value(L, c);
        return;
    default:
        lua_pushboolean(L, 0);
        return;
    }
}

bool script_push_reply(lua_State *L, const char *p, size_t len)
{
    struct cursor c = {p, p + len};
    bool is_error = len > 0 && p[0] == '-';
    push_value(L, &c);
    return is_error;
}

/* --- Lua -> reply ----------------------------------------------------------- */

/* The string field `name` of the table on top, or NULL. */
static const char *string_field(lua_State *L, const char *name, size_t *len)
{
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, len) : NULL;
    lua_pop(L, 1); /* the table keeps the string alive */
    return s;
}

/* CR/LF inside a status or big number become spaces (Redis's sdsmapchars). */
static void reply_mapped_line(struct reply *r, const char *s, size_t len, bool big_number)
{
    char stack[128];
    char *tmp = len <= sizeof stack ? stack : malloc(len);
    for (size_t i = 0; i < len; i++) tmp[i] = (s[i] == '\r' || s[i] == '\n') ? ' ' : s[i];
    if (big_number)
        reply_big_number(r, tmp, len);
    else
        reply_status_len(r, tmp, len);
    if (tmp != stack) free(tmp);
}

/* The error table on top of the stack was counted when the command that
 * produced it answered (or was refused) inside the script. */
static bool counted_already(lua_State *L)
{
    lua_getfield(L, -1, "ignore_error_stats_update");
    bool yes = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return yes;
}

static void reply_table(lua_State *L, struct reply *r, int resp);

static void reply_lua(lua_State *L, struct reply *r, int resp)
{
    if (!lua_checkstack(L, 4)) {
        reply_error(r, "ERR reached lua stack limit");
        return;
    }
    switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        reply_bulk(r, s, len);
        return;
    }
    case LUA_TBOOLEAN:
        if (resp == 2) {
            if (lua_toboolean(L, -1))
                reply_int(r, 1);
            else
                reply_nil(r);
        } else {
            reply_bool(r, lua_toboolean(L, -1));
        }
        return;
    case LUA_TNUMBER:
        reply_int(r, (long long)lua_tonumber(L, -1));
        return;
    case LUA_TTABLE:
        reply_table(L, r, resp);
        return;
    default:
        reply_nil(r);
        return;
    }
}

static void reply_table(lua_State *L, struct reply *r, int resp)
{
    size_t len;
    const char *s;
    if ((s = string_field(L, "err", &len))) {
        /* Redis trims trailing CR/LF (the encoder maps the others). */
        while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == '\n')) len--;
        struct buf b;
        buf_init(&b, len + 1);
        buf_append(&b, s, len);
        buf_append_char(&b, '\0');
        if (counted_already(L))
            reply_error_uncounted(r, buf_head(&b));
        else
            reply_error(r, buf_head(&b));
        buf_free(&b);
        return;
    }
    if ((s = string_field(L, "ok", &len))) {
        reply_mapped_line(r, s, len, false);
        return;
    }
    lua_pushstring(L, "double");
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TNUMBER) {
        reply_double(r, (double)lua_tonumber(L, -1));
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    if ((s = string_field(L, "big_number", &len))) {
        reply_mapped_line(r, s, len, true);
        return;
    }
    lua_pushstring(L, "verbatim_string");
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TTABLE) {
        size_t flen, slen;
        const char *format = string_field(L, "format", &flen);
        const char *str = string_field(L, "string", &slen);
        if (format && str) {
            char fmt[4] = {0};
            memcpy(fmt, format, flen < 3 ? flen : 3);
            reply_verbatim(r, str, slen, fmt);
            lua_pop(L, 1);
            return;
        }
    }
    lua_pop(L, 1);
    lua_pushstring(L, "map");
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TTABLE) {
        reply_mark m = reply_defer(r);
        long long n = 0;
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2); /* the key, converted on top */
            reply_lua(L, r, resp);
            lua_pop(L, 1);
            reply_lua(L, r, resp); /* the value */
            lua_pop(L, 1);
            n++;
        }
        reply_defer_map(r, m, n);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_pushstring(L, "set");
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TTABLE) {
        reply_mark m = reply_defer(r);
        long long n = 0;
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            reply_lua(L, r, resp);
            lua_pop(L, 1);
            n++;
        }
        reply_defer_set(r, m, n);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    reply_mark m = reply_defer(r);
    long long n = 0;
    for (int j = 1;; j++) {
        lua_rawgeti(L, -1, j);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        reply_lua(L, r, resp);
        lua_pop(L, 1);
        n++;
    }
    reply_defer_array(r, m, n);
}

void script_reply_value(lua_State *L, struct reply *r, int resp)
{
    reply_lua(L, r, resp);
}

void script_reply_error(lua_State *L, struct reply *r, const char *name)
{
    struct buf b;
    buf_init(&b, 256);
    if (!lua_istable(L, -1)) {
        const char *msg = lua_tostring(L, -1);
        buf_append_fmt(&b, "ERR Error running script %s, %.100s", name,
                       msg ? msg : "execution failure");
    } else {
        size_t len = 0;
        const char *err = string_field(L, "err", &len);
        if (err) buf_append(&b, err, len);
        lua_getfield(L, -1, "source");
        lua_getfield(L, -2, "line");
        if (lua_isstring(L, -2) && lua_isnumber(L, -1))
            buf_append_fmt(&b, " script: %s, on %s:%lld.", name, lua_tostring(L, -2),
                           (long long)lua_tonumber(L, -1));
        lua_pop(L, 2);
    }
    buf_append_char(&b, '\0');
    if (lua_istable(L, -1) && counted_already(L))
        reply_error_uncounted(r, buf_head(&b));
    else
        reply_error(r, buf_head(&b));
    buf_free(&b);
}
