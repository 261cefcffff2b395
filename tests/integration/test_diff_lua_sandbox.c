/*
 * Differential test of the Lua sandbox against redis-server 7.0.15, whose
 * patched Lua is the reference (issue 25; docs/scripting.md, "The
 * sandbox"), RESP2 then RESP3, byte for byte:
 *
 *  - the globals and every library's keys, as pairs() lists them, in EVAL
 *    and in FUNCTION (getfenv, setfenv, newproxy, print, ... absent);
 *  - bytecode refused through every path: an EVAL body, SCRIPT LOAD,
 *    FUNCTION LOAD, loadstring, load with a reader (also after an empty
 *    first piece, and named), string.dump kept as Redis keeps it;
 *  - every shared table and metatable read-only (_G, each library, the
 *    string metatable and its __index, getmetatable(_G)) through
 *    assignment, rawset, table.insert, setmetatable; raw reads (rawget,
 *    next, pairs, table.foreach) seeing the real tables; and the published
 *    string-metatable hijack leaving another client's script untouched;
 *  - the crash reproductions of the issue: unpack with extreme ranges
 *    (CVE-2025-46817), bit.tohex with INT32_MIN (CVE-2024-31449),
 *    newproxy finalizers in EVAL and FUNCTION (CVE-2024-46981 class), and
 *    a load() reader that collects garbage before the parser anchors the
 *    chunk name (CVE-2025-49844: the ASan run catches the use-after-free);
 *  - unpack, bit.*, string.rep, table.concat, table.insert with extreme
 *    arguments; cjson, cmsgpack and struct with the inputs of their CVEs
 *    (CVE-2022-24834, CVE-2018-11218/11219, CVE-2020-14147);
 *  - replies nested past the Lua stack both ways (CVE-2021-32626);
 *  - CR/LF in error and status replies and in the error codes INFO
 *    errorstats counts (CVE-2025-67733);
 *  - SCRIPT FLUSH and FUNCTION FLUSH closing states that hold C
 *    finalizers (cjson.new instances).
 * Every case is a reproduction: if a hole reopens, goblin-core crashes (no
 * reply) or answers differently, and the test fails; the ASan run adds
 * memory errors and leaks. Memory bounds and SCRIPT KILL under growth are
 * in test_lua_sandbox_limits.c (Redis has no lua-memory-limit).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

static struct diff_pair d;
static struct rconn bg, br; /* client B */

#define A(...) diff_check(&d, __VA_ARGS__, NULL)
#define B(...) diff_check_on(&d, &bg, &br, __VA_ARGS__, NULL)

/* EVAL of each script of a NULL-terminated list, compared. */
static void eval_each(const char *const *scripts)
{
    for (int i = 0; scripts[i]; i++) A("EVAL", scripts[i], "0");
}

/* Lists a table's keys with their types, sorted: pairs() order is the hash
 * table's, which differs. */
#define LUA_KEYS_OF                                                                                \
    "local function keys(t, prefix, out) "                                                         \
    "  local ks = {} "                                                                             \
    "  for k, v in pairs(t) do ks[#ks + 1] = prefix .. tostring(k) .. ':' .. type(v) end "         \
    "  table.sort(ks) "                                                                            \
    "  for _, k in ipairs(ks) do out[#out + 1] = k end "                                           \
    "end "

static const char eval_globals[] =
    LUA_KEYS_OF "local out = {} keys(_G, '', out) "
                "for _, lib in ipairs({'string', 'table', 'math', 'coroutine', 'cjson', 'bit', "
                "'cmsgpack', 'struct', 'redis'}) do keys(_G[lib], lib .. '.', out) end "
                "keys(getmetatable(''), 'string metatable.', out) "
                "keys(getmetatable(_G), '_G metatable.', out) "
                "return out";

static const char function_globals[] =
    "#!lua name=globals\n" LUA_KEYS_OF "redis.register_function('globals', function() "
    "  local out = {} keys(_G, '', out) "
    "  for _, lib in ipairs({'string', 'table', 'math', 'coroutine', 'cjson', 'bit', 'cmsgpack', "
    "  'struct', 'redis'}) do keys(_G[lib], lib .. '.', out) end "
    "  return out end)";

static void globals(void)
{
    A("EVAL", eval_globals, "0");
    A("FUNCTION", "LOAD", "REPLACE", function_globals);
    A("FCALL", "globals", "0");
    static const char *const absent[] = {"getfenv",  "setfenv", "newproxy", "print", "dofile",
                                         "loadfile", "module",  "require",  "os",    "io",
                                         "debug",    "package", NULL};
    for (int i = 0; absent[i]; i++) {
        char script[64];
        snprintf(script, sizeof script, "return %s", absent[i]);
        A("EVAL", script, "0");
        snprintf(script, sizeof script, "return rawget(_G, '%s')", absent[i]);
        A("EVAL", script, "0");
    }
    A("EVAL", "return type(string.dump)", "0"); /* Redis 7.0.15 keeps it */
    A("EVAL", "return __redis__err__handler('x')", "0");
    A("EVAL", "return redis.acl_check_cmd('get', 'k')", "0");
    A("EVAL", "return redis.acl_check_cmd('nosuch')", "0");
    A("EVAL", "return redis.acl_check_cmd()", "0");
    A("EVAL", "return redis.acl_check_cmd({})", "0");
    A("EVAL", "return redis.acl_check_cmd('config', 'nosuch')", "0");
    A("EVAL", "return redis.acl_check_cmd('config', 'get')", "0");
    A("FUNCTION", "DELETE", "globals");
}

/* A chunk string.dump made, as the EVAL body and a FUNCTION body. */
static void bytecode(void)
{
    static const char dump_script[] = "return string.dump(function() return 1 end)";
    const char *argv[] = {"EVAL", dump_script, "0"};
    char *g, *r;
    size_t gl, rl;
    diff_exchange(&d, 3, argv, NULL, &g, &gl, &r, &rl);
    CHECKF(gl == rl && memcmp(g, r, gl) == 0, "string.dump differs");
    CHECK(g[0] == '$' || g[0] == '=');
    const char *chunk = strstr(g, "\r\n") + 2;
    size_t chunk_len = strtoul(g + 1, NULL, 10);
    CHECK(chunk[0] == 0x1b);
    const char *eval[] = {"EVAL", chunk, "0"};
    const size_t eval_len[] = {4, chunk_len, 1};
    diff_check_argv(&d, 3, eval, eval_len);
    const char *load[] = {"SCRIPT", "LOAD", chunk};
    const size_t load_len[] = {6, 4, chunk_len};
    diff_check_argv(&d, 3, load, load_len);
    char body[256];
    size_t body_len = (size_t)snprintf(body, sizeof body, "#!lua name=bc\n");
    memcpy(body + body_len, chunk, chunk_len);
    const char *fload[] = {"FUNCTION", "LOAD", body};
    const size_t fload_len[] = {8, 4, body_len + chunk_len};
    diff_check_argv(&d, 3, fload, fload_len);
    body[body_len - 1] = ' '; /* the chunk right after the metadata's line feed is gone */
    diff_check_argv(&d, 3, fload, fload_len);
    free(g);
    free(r);

    A("EVAL", "\x1bLuaQ", "0");
    A("EVAL", "\x1b", "0");
    A("SCRIPT", "LOAD", "\x1bLua");
    A("FUNCTION", "LOAD", "#!lua name=x\n\x1bLua");
    static const char *const scripts[] = {
        "local f, e = loadstring(string.dump(function() return 1 end)) return {type(f), e}",
        "local f, e = loadstring(string.dump(function() return 1 end), 'named') return {type(f), "
        "e}",
        "local f, e = loadstring('\\27Lua') return {type(f), e}",
        "local f, e = loadstring('\\27') return {type(f), e}",
        "local s = string.dump(function() return 1 end) local done = false "
        "local f, e = load(function() if done then return nil end done = true return s end) "
        "return {type(f), e}",
        "local s = string.dump(function() return 1 end) local done = false "
        "local f, e = load(function() if done then return nil end done = true return s end, "
        "'chunk') return {type(f), e}",
        /* An empty first piece: the text parser is chosen, ESC lexed as text. */
        "local p = {'', '\\27', 'Lua'} local i = 0 "
        "local f, e = load(function() i = i + 1 return p[i] end) return {type(f), e}",
        "local p = {'return ', '\\27'} local i = 0 "
        "local f, e = load(function() i = i + 1 return p[i] end) return {type(f), e}",
        "return {load(string.dump(function() return 1 end))}",
        "local f = loadstring('return 7') return f()",
        "local i = 0 local f = load(function() i = i + 1 if i == 1 then return 'return 8' end end) "
        "return f()",
        "return {pcall(load, function() return {} end)}",
        /* CVE-2025-49844: the chunk name is created after the reader's first
         * (empty) piece; the second runs a full collection before the
         * parser anchors it, then the error message reads it. */
        "local i = 0 local f, e = load(function() i = i + 1 if i == 1 then return '' end "
        "if i == 2 then collectgarbage() collectgarbage() return 'return +' end end) return e",
        "local i = 0 local f, e = load(function() i = i + 1 if i == 1 then return '' end "
        "if i == 2 then collectgarbage() return 'return +' end end, '=named') return e",
        NULL,
    };
    eval_each(scripts);
}

static void read_only(void)
{
    A("FLUSHALL");
    static const char *const writes[] = {
        "x = 1",
        "_G.x = 1",
        "_G._G = 1",
        "redis = 1",
        "string.upper = 1",
        "string.newfn = 1",
        "table.insert = nil",
        "math.pi = 3",
        "cjson.encode = nil",
        "bit.band = nil",
        "cmsgpack.pack = nil",
        "struct.pack = nil",
        "coroutine.wrap = nil",
        "redis.call = nil",
        "getmetatable('').__index = 1",
        "getmetatable('').__index.upper = 1",
        "getmetatable('').__newfield = 1",
        "getmetatable(_G).__index = 1",
        "getmetatable(_G).__newindex = 1",
        "rawset(_G, 'x', 1)",
        "rawset(string, 'upper', 1)",
        "rawset(getmetatable(''), '__index', 1)",
        "rawset(getmetatable(_G), '__index', 1)",
        "table.insert(_G, 1)",
        "table.insert(string, 1)",
        "table.insert(string, 1, 1)",
        "table.insert(getmetatable(''), 1)",
        "setmetatable(_G, nil)",
        "setmetatable(string, {})",
        "setmetatable(getmetatable(''), {})",
        "setmetatable(getmetatable(_G), {})",
        "return table.remove(string)",
        "return table.remove(_G, 1)",
        "table.sort(string)",
        "return table.setn(string, 1)",
        NULL,
    };
    eval_each(writes);
    static const char *const reads[] = {
        "return rawget(_G, 'string') == string",
        "return rawget(string, 'upper') == string.upper",
        "return rawget(_G, 'nosuch')",
        "return next(_G) ~= nil",
        "return next(string) ~= nil",
        "local n = 0 for k in pairs(string) do n = n + 1 end return n",
        "local n = 0 table.foreach(math, function() n = n + 1 end) return n",
        "return table.foreach(string, function(k) if k == 'upper' then return k end end)",
        "return type(getmetatable(''))",
        "return getmetatable('').__index == string",
        "return type(getmetatable(_G).__index)",
        "return getmetatable(_G).__index(_G, 'nosuch')",
        "return getmetatable(_G).__index(_G, {})",
        "return getmetatable(_G).__index()",
        "return getmetatable(string)",
        "return getmetatable(redis)",
        "return getmetatable(cjson.null)",
        "return #_G",
        "return #string",
        "return {unpack(string)}",
        "return table.concat(string)",
        "return table.maxn(_G)",
        "return table.getn(string)",
        "return select('#', ipairs(string))",
        "return ('abc'):upper()",
        "return _G == _G._G",
        "return rawequal(string, _G.string)",
        "return tostring(pcall(setmetatable, {}, string))",
        "local t = setmetatable({}, {__metatable = 'locked'}) return getmetatable(t)",
        "local t = setmetatable({}, {__metatable = 'locked'}) return {pcall(setmetatable, t, {})}",
        "local t = setmetatable({}, {__index = string}) return t.upper('x')",
        "KEYS[1] = 'mine' return KEYS[1]",
        NULL,
    };
    eval_each(reads);

    /* The published hijack: client A tries to wrap every string method so
     * that any script's string calls feed its list; client B's script then
     * runs untouched, and nothing was stolen (Redis: read-only). */
    A("EVAL",
      "local mt = getmetatable('') local real = mt.__index "
      "mt.__index = function(s, k) local f = real[k] "
      "return function(...) redis.call('rpush', 'stolen', tostring(s)) return f(...) end end "
      "return 'installed'",
      "0");
    A("EVAL",
      "local real = string.upper string.upper = function(s) redis.call('rpush', 'stolen', s) "
      "return real(s) end",
      "0");
    A("EVAL", "rawset(getmetatable('').__index, 'upper', function() return 'hijacked' end)", "0");
    A("EVAL", "table.insert(getmetatable('').__index, 1)", "0");
    B("EVAL", "return ARGV[1]:upper()", "0", "secret");
    B("EVAL", "return string.upper(ARGV[1])", "0", "secret");
    B("EVAL", "return string[1]", "0");
    A("EXISTS", "stolen");
    A("FUNCTION", "LOAD", "REPLACE",
      "#!lua name=hijack\n"
      "redis.register_function('hijack', function() "
      "  getmetatable('').__index = function() return function() return 'hijacked' end end end)"
      "\nredis.register_function('victim', function(k, a) return a[1]:upper() end)");
    A("FCALL", "hijack", "0");
    B("FCALL", "victim", "0", "secret");
    /* Load-time code cannot reach the library either. */
    A("FUNCTION", "LOAD", "#!lua name=early\nstring.upper = nil");
    A("FUNCTION", "LOAD", "#!lua name=early\nredis.register_function = nil");
    A("FUNCTION", "LOAD", "#!lua name=early\nredis.x = 1");
    A("FUNCTION", "LOAD", "#!lua name=early\nreturn redis.nosuch");
    A("FUNCTION", "DELETE", "hijack");
}

static void crashes(void)
{
    static const char *const scripts[] = {
        /* Issue 25, item 1 (CVE-2025-46817). */
        "return unpack({}, -2147483648, 2147483647)",
        "return unpack({}, -2147483647, 0)",
        "return unpack({}, 0, 2147483647)",
        "return unpack({}, 1, 1e6)",
        "return unpack({1, 2, 3}, 2147483647, 2147483647)",
        "return unpack({1, 2, 3}, -2147483648, -2147483648)",
        "return {unpack({1, 2, 3}, 2)}",
        "return {unpack({1, 2, 3}, 2, 5)}",
        "return {unpack({1, 2, 3}, 3, 1)}",
        "return {unpack({1, 2, 3}, -1, 1)}",
        "return unpack()",
        "return unpack({}, 'x')",
        /* Item 2 (CVE-2024-31449). */
        "return bit.tohex(65535, -2147483648)",
        "return bit.tohex(65535, 2147483648)",
        "return bit.tohex(65535, -2147483647)",
        "return bit.tohex(-1, 2147483647)",
        "return bit.tohex(255, -4)",
        "return bit.tohex(255, 0)",
        "return bit.tohex(255)",
        "return bit.tohex()",
        "return bit.tohex('x')",
        "return bit.tohex(2^53, 8)",
        "return bit.tohex(1/0)",
        "return {bit.lshift(1, 2^31), bit.rshift(-1, -1), bit.arshift(-2^31, 33), bit.rol(1, -1)}",
        "return {bit.tobit(2^53 + 1), bit.bnot(2^32), bit.bswap(-2^31), bit.band()}",
        /* Item 3: finalizers that error or call redis.call after the
         * script ended. */
        "for i = 1, 1000 do local p = newproxy(true); getmetatable(p).__gc = function() "
        "error('boom') end end return 'ok'",
        "local p = newproxy(true) getmetatable(p).__gc = function() redis.call('set', 'gc', 1) "
        "end p = nil collectgarbage() return 'ok'",
        "collectgarbage() collectgarbage('step') return collectgarbage('count') > 0",
        "return {pcall(collectgarbage, 'bogus')}",
        NULL,
    };
    eval_each(scripts);
    A("FUNCTION", "LOAD", "REPLACE",
      "#!lua name=gc\nredis.register_function('gc', function() for i = 1, 1000 do "
      "local p = newproxy(true); getmetatable(p).__gc = function() error('boom') end end "
      "return 'ok' end)");
    A("FCALL", "gc", "0");
    A("FUNCTION", "LOAD", "REPLACE",
      "#!lua name=gc\nlocal p = newproxy(true)\nredis.register_function('gc', function() "
      "return 1 end)");
    A("PING");
}

static void extreme_arguments(void)
{
    static const char *const scripts[] = {
        "return string.rep('x', -1)",
        "return string.rep('x', 0)",
        "return string.rep('x', 2^31)",
        "return string.rep('x', -2^31)",
        "return string.rep('', 1e6)",
        "return #string.rep('ab', 1e6)",
        "return string.rep()",
        "return string.rep('x', 'y')",
        "return table.concat({}, '', 1, 2147483647)",
        "return table.concat({'a'}, 'x', 2147483647, 2147483647)",
        "return table.concat({'a', 'b'}, 'x', 1, -2147483648)",
        "return table.concat({'a', 'b'}, 'x', -2147483648, -2147483647)",
        "return table.concat({'a', {}}, 'x')",
        "return table.concat({1, 2, 3}, string.rep('-', 1000))",
        "local t = {} table.insert(t, 2147483647, 'x') return t[2147483647]",
        "local t = {1, 2} table.insert(t, 1, 0) return t",
        "local t = {} table.insert(t) return t",
        "local t = {} table.insert(t, 1, 2, 3) return t",
        "local t = {} table.insert(t, 'x', 1) return t",
        "return table.insert(nil, 1)",
        "local t = {1, 2, 3} return {table.remove(t, 10), #t}",
        "local t = {3, 1, 2} table.sort(t) return t",
        "return {pcall(table.sort, {3, 1, 2}, function() error('cmp') end)}",
        "return string.format('%5000d', 1)",
        "return string.format('%99s', 'x')",
        "return string.format('%.99f', 1)",
        "return {string.byte('abc', -2147483648, 2147483647)}",
        "return string.sub('abc', -2147483648, 2147483647)",
        "return {string.find('abc', 'b', -2147483648)}",
        "return select(-1, 'a', 'b')",
        "return select(2147483647, 'a')",
        "return {pcall(select, -2147483648, 'a')}",
        "return tostring(tonumber('0x7fffffff', 16))",
        "return math.floor(-0.5)",
        "return {math.frexp(0), math.ldexp(1, 2^31)}",
        "return #coroutine.wrap(function() coroutine.yield(string.rep('y', 10)) end)()",
        NULL,
    };
    eval_each(scripts);
}

/* cjson, cmsgpack and struct with the inputs of their CVEs. */
static void libraries(void)
{
    static const char *const scripts[] = {
        "return cjson.encode({1, 2, {a = 'b'}})",
        "return cjson.encode(function() end)",
        "return cjson.encode()",
        "return cjson.encode(1, 2)",
        "return cjson.encode({[{}] = 1})",
        "return cjson.encode({[1] = 1, [1e9] = 2})",
        "return cjson.encode(math.huge)",
        "local t = {} t[1] = t return cjson.encode(t)",
        "local t = {} for i = 1, 10000 do t = {t} end return cjson.encode(t)",
        "cjson.encode_max_depth(100000) local t = {} for i = 1, 10000 do t = {t} end "
        "return cjson.encode(t)",
        "return cjson.encode_max_depth(1000)",
        "return cjson.decode(string.rep('[', 100000))",
        "cjson.decode_max_depth(100000) return cjson.decode(string.rep('[', 100000))",
        "return cjson.decode_max_depth(1000)",
        "return cjson.decode('[1,2')",
        "return cjson.decode()",
        "return cjson.decode('\\0\\0')",
        "return cjson.decode(12)",
        "return #cjson.encode(string.rep('\\1', 100000))",
        "return cjson.encode(cjson.decode('{\"a\":[1,2,null]}'))",
        "local c = cjson.new() return c.encode({x = c.decode('[true]')})",
        "local c = cjson.new() c.encode_max_depth(2) return c.encode({{{1}}})",
        "return cjson.encode({{{1}}})",
        "local t = {} for i = 1, 100 do t = {t} end return #cmsgpack.pack(t)",
        "local t = {} t[1] = t return #cmsgpack.pack(t)",
        "return cmsgpack.unpack(string.rep(string.char(0x91), 100000))",
        "return cmsgpack.unpack(string.rep(string.char(0x81), 100000))",
        "return cmsgpack.unpack(string.char(0xdd, 0xff, 0xff, 0xff, 0xff))",
        "return cmsgpack.unpack(string.char(0xdf, 0xff, 0xff, 0xff, 0xff))",
        "return cmsgpack.unpack(string.char(0xdb, 0xff, 0xff, 0xff, 0xff))",
        "return cmsgpack.unpack(string.char(0xda, 0xff))",
        "return {cmsgpack.unpack_limit('\\1\\2', -1)}",
        "return {cmsgpack.unpack_one('\\1\\2', -1)}",
        "local s = string.rep(string.char(1), 10000) return select('#', cmsgpack.unpack(s))",
        "local t = {} for i = 1, 10000 do t[i] = i end return #cmsgpack.pack(unpack(t))",
        "return struct.pack('i999999999999', 1)",
        "return struct.pack('i33', 1)",
        "return struct.size('c99999999999')",
        "return struct.unpack('c2147483647', 'x')",
        "return struct.unpack('c-1', 'x')",
        "return {struct.unpack('i4', 'xxxx', -1)}",
        "return {struct.unpack('i4', 'xxxx', 2147483647)}",
        "return {struct.unpack('i4', 'xxxx', 0)}",
        "return struct.pack('!3i', 1)",
        "return struct.pack('!999999999999i', 1)",
        "return {struct.unpack('>I4c0', string.char(0, 0, 0, 255) .. 'x')}",
        "return {struct.unpack('>I4c0', string.char(255, 255, 255, 255) .. 'x')}",
        "return {struct.unpack('s', 'abc')}",
        "return struct.pack('c5', 'ab')",
        "return #struct.pack(string.rep('i', 1000), unpack({}))",
        "local t = {} for i = 1, 10000 do t[i] = 'b' end "
        "return select('#', struct.unpack(table.concat(t), string.rep('x', 10000)))",
        NULL,
    };
    eval_each(scripts);
}

/* The length of the complete reply at the start of buf, 0 while
 * incomplete: counted without recursion, since these replies nest deeper
 * than the test library's reader goes. */
static size_t deep_reply_length(const char *buf, size_t len)
{
    size_t off = 0;
    long long pending = 1;
    while (pending > 0) {
        const char *crlf = memmem(buf + off, len - off, "\r\n", 2);
        if (!crlf) return 0;
        char type = buf[off];
        long long n = strtoll(buf + off + 1, NULL, 10);
        off = (size_t)(crlf - buf) + 2;
        pending--;
        if ((type == '$' || type == '=' || type == '!') && n >= 0) {
            if (len - off < (size_t)n + 2) return 0;
            off += (size_t)n + 2;
        } else if ((type == '*' || type == '~' || type == '>') && n > 0) {
            pending += n;
        } else if (type == '%' && n > 0) {
            pending += 2 * n;
        }
    }
    return off;
}

static char *read_deep_reply(struct rconn *c, size_t *len)
{
    struct buf in;
    buf_init(&in, 1 << 16);
    buf_append(&in, buf_head(&c->in), buf_len(&c->in));
    buf_consume(&c->in, buf_len(&c->in));
    while ((*len = deep_reply_length(buf_head(&in), buf_len(&in))) == 0) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        CHECKF(poll(&p, 1, 20000) == 1, "no complete deep reply");
        buf_reserve(&in, 1 << 16);
        ssize_t n = read(c->fd, buf_tail(&in), buf_room(&in));
        CHECKF(n > 0, "connection closed before the deep reply ended");
        in.end += (size_t)n;
    }
    CHECK(*len == buf_len(&in));
    char *out = malloc(*len);
    memcpy(out, buf_head(&in), *len);
    buf_free(&in);
    return out;
}

/* EVAL of `script` on both; the replies, nested past what the test
 * library reads, must be equal. */
static void deep_check(const char *script)
{
    const char *argv[] = {"EVAL", script, "0"};
    rconn_send_argv(&d.g, 3, argv, NULL);
    rconn_send_argv(&d.r, 3, argv, NULL);
    size_t gl, rl;
    char *g = read_deep_reply(&d.g, &gl);
    char *r = read_deep_reply(&d.r, &rl);
    CHECKF(gl == rl && memcmp(g, r, gl) == 0,
           "deep reply of '%s' differs: goblin %zu bytes ending '%.60s', redis %zu ending '%.60s'",
           script, gl, g + (gl > 60 ? gl - 60 : 0), rl, r + (rl > 60 ? rl - 60 : 0));
    CHECKF(memmem(g, gl, "reached lua stack limit", 23), "'%s' did not reach the stack limit",
           script);
    free(g);
    free(r);
    d.commands++;
}

/* Replies nested past the Lua stack, both ways (CVE-2021-32626). */
static void deep_replies(void)
{
    deep_check("local t = {} for i = 1, 100000 do t = {t} end return t");
    deep_check("local t = {} for i = 1, 100000 do t = {1, t, 'x'} end return t");
    deep_check("redis.setresp(3) local t = {} for i = 1, 100000 do t = {map = {a = t}} end "
               "return t");
    A("EVAL", "local t = {} for i = 1, 100000 do t = {t} end return #cjson.encode(t)", "0");
    A("DEL", "deep");
    A("EVAL",
      "local t = {} for i = 1, 20000 do t[i] = i end "
      "for i = 1, 20000, 5000 do redis.call('rpush', 'deep', unpack(t, i, i + 4999)) end "
      "return #redis.call('lrange', 'deep', 0, -1)",
      "0");
    A("EVAL", "redis.setresp(3) return #redis.call('lrange', 'deep', 0, -1)", "0");
}

/* CR/LF in error and status replies and error codes (CVE-2025-67733). */
static void crlf(void)
{
    static const char *const scripts[] = {
        "return {err='a\\r\\nb'}",
        "return {err='x\\n'}",
        "return {err='\\r\\n'}",
        "return {err='\\r\\nx\\r\\n'}",
        "return {err='\\nx'}",
        "return {err='-X\\ny z'}",
        "return {err=''}",
        "error('a\\r\\nb')",
        "error('x\\n')",
        "error({err='a\\r\\nb'})",
        "error({err='x\\r\\n'})",
        "error({err='-Z\\nW y'})",
        "return redis.error_reply('a\\r\\nb')",
        "return redis.error_reply('x\\r\\n')",
        "return redis.error_reply('\\n\\nx\\n')",
        "return redis.error_reply('-a\\r\\nb c\\r\\nd')",
        "return redis.error_reply('-AB\\r\\nCD x')",
        "return redis.status_reply('a\\r\\nb')",
        "return redis.status_reply('\\r\\nx\\r\\n')",
        "return {ok='\\r\\n'}",
        "redis.setresp(3) return {big_number='1\\r\\n2'}",
        "redis.setresp(3) return {verbatim_string={format='txt', string='a\\r\\nb'}}",
        "return redis.pcall('nosuch\\r\\n')",
        "return redis.call('set', 'a\\r\\n')",
        NULL,
    };
    A("CONFIG", "RESETSTAT");
    eval_each(scripts);
    A("INFO", "errorstats");
}

/* Closing states whose heap holds C finalizers (cjson.new instances). */
static void flushes(void)
{
    A("EVAL", "local c = cjson.new() return c.encode({1})", "0");
    A("EVAL", "for i = 1, 100 do cjson.new() end return 1", "0");
    A("SCRIPT", "FLUSH");
    A("EVAL", "return cjson.encode({2})", "0");
    A("SCRIPT", "FLUSH", "ASYNC");
    A("FUNCTION", "LOAD", "REPLACE",
      "#!lua name=fin\nlocal keep = cjson.new\nredis.register_function('fin', function() "
      "local c = cjson.new() return c.encode({3}) end)");
    A("FCALL", "fin", "0");
    A("FUNCTION", "FLUSH");
    A("FUNCTION", "FLUSH", "SYNC");
    A("PING");
}

static void run_all(void)
{
    globals();
    bytecode();
    read_only();
    crashes();
    extreme_arguments();
    libraries();
    deep_replies();
    crlf();
    flushes();
}

int main(void)
{
    unsigned long long seed = test_seed("diff_lua_sandbox");
    diff_start(&d, "diff_lua_sandbox", seed, NULL, NULL);
    diff_open_extra(&d, &bg, &br);
    run_all();
    diff_hello3(&d);
    run_all();
    diff_stop(&d);
    return 0;
}
