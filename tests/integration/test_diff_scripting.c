/*
 * Differential test of Lua scripting and functions against redis-server,
 * RESP2 then RESP3, byte for byte: EVAL/EVALSHA/EVAL_RO and SCRIPT, every
 * conversion in both directions (integers, bulks, nil -> false, arrays cut
 * at the first nil, numbers truncated, status and error tables, RESP3 map,
 * set, double, boolean, big number, verbatim after redis.setresp(3)), the
 * redis library's functions and their argument errors, the sandbox (no
 * global created or read when absent, read-only library tables, no os /
 * print / debug), shebang flags and EVAL_RO, the commands refused inside a
 * script, error texts with their "script: <sha>, on @user_script:<line>."
 * suffix, pcall's Redis 7 behaviour; FUNCTION LOAD/LIST/DELETE/FLUSH/STATS/
 * KILL/HELP/DUMP/RESTORE and FCALL/FCALL_RO with every metadata and
 * register_function error. Then interplay with other clients: a script's
 * write invalidates another client's WATCH, EVAL inside MULTI, SELECT inside
 * a script leaves the caller's database alone, and a FUNCTION DUMP payload
 * from redis-server restores in goblin-core (and the other way round).
 * Cases whose replies depend on hash order (KEYS, multi-function LIST) or
 * on the PRNG stream's values (math.random) are left out; its behaviour (a
 * new number at every EVAL, the same after the same seed) is compared.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

#define CASE_ARGS 10

static struct diff_pair d;
static struct rconn bg, br; /* client B */

static const char *const script_cases[][CASE_ARGS] = {
    {"flushall", NULL},
    {"set", "s", "a", NULL},
    {"eval", "return redis.call('incr','s')", "0", NULL},
    {"eval", "return redis.pcall('incr','s')", "0", NULL},
    {"eval", "error('x')", "0", NULL},
    {"eval", "return nil + 1", "0", NULL},
    {"eval", "x = 1", "0", NULL},
    {"eval", "return y", "0", NULL},
    {"eval", "return redis.call('nosuch')", "0", NULL},
    {"eval", "return redis.error_reply('My Error')", "0", NULL},
    {"eval", "return redis.error_reply('oops')", "0", NULL},
    {"eval", "return {err='bad'}", "0", NULL},
    {"eval", "return redis.call('subscribe','c')", "0", NULL},
    {"eval", "return redis.call('blpop','l',0)", "0", NULL},
    {"eval", "return redis.call('get')", "0", NULL},
    {"eval", "return redis.call()", "0", NULL},
    {"eval", "return redis.call(1,{})", "0", NULL},
    {"eval", "return os", "0", NULL},
    {"eval", "return loadstring", "0", NULL},
    {"eval", "local t = {1,2,nil,4}; return t", "0", NULL},
    {"eval", "return 3.99", "0", NULL},
    {"eval", "return {1,'a',{2,3},true,false}", "0", NULL},
    {"eval", "return redis.status_reply('FINE')", "0", NULL},
    {"eval", "return redis.sha1hex('')", "0", NULL},
    {"eval", "return redis.REDIS_VERSION .. ' ' .. redis.REDIS_VERSION_NUM", "0", NULL},
    {"eval", "return cjson.encode({1,2})", "0", NULL},
    {"eval", "return bit.band(7,3)", "0", NULL},
    {"eval", "return redis.setresp(3)", "0", NULL},
    {"eval", "redis.setresp(3); return redis.call('hgetall','nokey')", "0", NULL},
    {"eval", "return redis.replicate_commands()", "0", NULL},
    {"eval", "return redis.set_repl(redis.REPL_ALL)", "0", NULL},
    {"eval", "return redis.log(redis.LOG_WARNING,'hi')", "0", NULL},
    {"eval", "return _G", "0", NULL},
    {"eval", "return redis.call('eval','return 1',0)", "0", NULL},
    {"eval", "return redis.call('multi')", "0", NULL},
    {"eval", "return redis.call('select', 1)", "0", NULL},
    {"eval", "table.insert = nil", "0", NULL},
    {"eval", "redis = 1", "0", NULL},
    {"eval", "return string.rep('x',3)", "0", NULL},
    {"eval", "return tostring(redis.breakpoint())", "0", NULL},
    {"eval", "return redis.debug('x')", "0", NULL},
    {"eval", "return type(getmetatable(_G))", "0", NULL},
    {"eval", "return cjson.decode('[1,2,null]')", "0", NULL},
    {"eval", "return redis.call('ping')", "0", NULL},
    {"eval", "return redis.call('set','a','b')", "0", NULL},
    {"eval", "return setmetatable", "0", NULL},
    {"eval", "return print", "0", NULL},
    {"eval", "return rawset(_G,'k',1)", "0", NULL},
    {"eval", "return debug", "0", NULL},
    {"eval", "return type(coroutine)", "0", NULL},
    {"eval", "return unpack({1,2})", "0", NULL},
    {"eval", "return tostring(1e20)", "0", NULL},
    {"eval", "return redis.call('set','k', 1.5)", "0", NULL},
    {"eval", "return redis.call('set','k', 1e20) and redis.call('get','k')", "0", NULL},
    {"eval", "redis.call('set','k', 0.1); return redis.call('get','k')", "0", NULL},
    {"eval", "return {double=3.5}", "0", NULL},
    {"eval", "return {map={a=1}}", "0", NULL},
    {"eval", "return {set={a=true}}", "0", NULL},
    {"eval", "return {big_number='123'}", "0", NULL},
    {"eval", "return {verbatim_string={format='txt',string='hi'}}", "0", NULL},
    {"eval", "return {ok='x\\r\\ny'}", "0", NULL},
    {"eval", "return redis.setresp(4)", "0", NULL},
    {"eval", "return redis.setresp()", "0", NULL},
    {"eval", "return redis.call('hello','3')", "0", NULL},
    {"eval", "return redis.call('client','list')", "0", NULL},
    {"eval", "return redis.call('script','load','return 1')", "0", NULL},
    {"eval", "#!lua flags=no-writes\nreturn redis.call('set','a','b')", "0", NULL},
    {"eval", "#!lua\nreturn redis.call('get','a')", "0", NULL},
    {"eval", "#!lux\nreturn 1", "0", NULL},
    {"eval", "#!lua flags=bogus\nreturn 1", "0", NULL},
    {"eval", "#!lua foo=bar\nreturn 1", "0", NULL},
    {"eval", "return (", "0", NULL},
    {"eval", "#!lua flags=allow-oom,no-cluster,allow-stale,allow-cross-slot-keys\nreturn 2", "0",
     NULL},
    {"eval_ro", "return redis.call('set','a','b')", "0", NULL},
    {"eval", "return 1", "-1", NULL},
    {"eval", "return 1", "2", "a", NULL},
    {"eval", "return 1", "x", NULL},
    {"evalsha", "abc", "0", NULL},
    {"script", "help", NULL},
    {"eval", "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}", "2", "k1", "k2", "a1",
     "a2", NULL},
    {"script", "load", "return 'hello'", NULL},
    {"evalsha", "1B936E3FE509BCBC9CD0664897BBE8FD0AC95A0A", "0", NULL},
    {"script", "exists", "1b936e3fe509bcbc9cd0664897bbe8fd0ac95a0a", "nope", NULL},
    {"script", "flush", "bogus", NULL},
    {"script", "flush", NULL},
    {"script", "exists", "1b936e3fe509bcbc9cd0664897bbe8fd0ac95a0a", NULL},
    {"script", "kill", NULL},
    {"eval", "return redis.call('lpush','l','a','b','c') and redis.call('lrange','l',0,-1)", "0",
     NULL},
    {"eval", "return redis.pcall('lpush','s','a')", "0", NULL},
    {"eval", "return redis.call('lpush','s','a')", "0", NULL},
    {"eval", "local ok, e = pcall(redis.call, 'lpush', 's', 'a'); return e", "0", NULL},
    {"eval", "local ok, e = pcall(error, 'boom'); return e", "0", NULL},
    {"eval", "return redis.call('hset','h','f','v','g','w') and redis.call('hgetall','h')", "0",
     NULL},
    {"eval", "redis.setresp(3); return redis.call('hgetall','h')", "0", NULL},
    {"eval", "redis.setresp(3); local r = redis.call('hgetall','h'); return r.map.f", "0", NULL},
    {"eval", "redis.setresp(3); return redis.call('get','nokey') == nil", "0", NULL},
    {"eval", "return redis.call('get','nokey') == false", "0", NULL},
    {"eval", "redis.setresp(3); return true", "0", NULL},
    {"eval", "redis.setresp(3); return false", "0", NULL},
    {"eval", "return false", "0", NULL},
    {"eval", "return true", "0", NULL},
    {"eval", "return nil", "0", NULL},
    {"eval", "return function() end", "0", NULL},
    {"eval", "redis.setresp(3); return redis.call('sadd','set1','a','b')", "0", NULL},
    {"eval", "redis.setresp(3); local r = redis.call('smembers','set1'); return r", "0", NULL},
    {"eval",
     "redis.setresp(3); return redis.call('zadd','z','1.5','a') and redis.call('zscore','z','a')",
     "0", NULL},
    {"eval", "redis.setresp(3); return redis.call('zscore','z','a').double", "0", NULL},
    {"eval", "return redis.call('ttl', KEYS[1])", "1", "a", NULL},
    {"eval", "return {1,2,3,'ciao',{1,2}}", "0", NULL},
    {"eval", "return redis.call('select', 99)", "0", NULL},
    {"eval", "return redis.call('config','get','maxmemory')", "0", NULL},
    {"eval", "return redis.call('config','nosuch')", "0", NULL},
    {"eval", "return redis.call('config')", "0", NULL},
    {"eval", "return redis.call('info') and 1", "0", NULL},
    {"eval", "return cjson.encode({a=1})", "0", NULL},
    {"eval", "return cjson.decode('{\"a\":[1,2]}').a[2]", "0", NULL},
    {"eval", "local t = {}; t[1] = 'a'; t[3] = 'c'; return t", "0", NULL},
    {"eval", "return #ARGV", "0", NULL},
    {"eval", "return string.format('%d %s', 5, 'x')", "0", NULL},
    {"eval", "return tonumber('0x10')", "0", NULL},
    {"eval", "_G.x = 1", "0", NULL},
    {"eval", "setmetatable(_G, nil)", "0", NULL},
    {"eval", "local f = loadstring('return 1'); return f()", "0", NULL},
    {"eval", "return redis.call('exists', 'a', 'b', 'c')", "0", NULL},
    {"eval", "return redis.call('expire', 'a', '100') .. ''", "0", NULL},
    {"eval", "return math.huge", "0", NULL},
    {"eval", "return -3.7", "0", NULL},
    {"eval", "error({err='MYERR custom'})", "0", NULL},
    {"eval", "error(nil)", "0", NULL},
    {"eval", "return redis.error_reply('-WRONG stuff\\r\\n')", "0", NULL},
    {"eval", "return redis.error_reply()", "0", NULL},
    {"eval", "return redis.status_reply(5)", "0", NULL},
    {"eval", "return redis.sha1hex()", "0", NULL},
    {"eval", "return redis.log()", "0", NULL},
    {"eval", "return redis.log('a','b')", "0", NULL},
    {"eval", "return redis.log(99,'b')", "0\n", NULL},
    /* A read-only script refuses may-replicate commands too (PUBLISH,
     * PFCOUNT), as Redis's scriptVerifyWriteCommandAllow. */
    {"eval_ro", "return redis.call('publish','c','m')", "0", NULL},
    {"eval", "#!lua flags=no-writes\nreturn redis.call('publish','c','m')", "0", NULL},
    {"eval_ro", "return redis.pcall('pfcount','hll')", "1", "hll", NULL},
    {"eval", "#!lua flags=no-writes\nreturn redis.call('pfcount','hll')", "1", "hll", NULL},
    {"eval", "return redis.call('publish','c','m')", "0", NULL},
    /* SORT of a set by a constant from a script sorts ALPHA (Redis forces
     * a deterministic order), as SORT ... STORE does; a list keeps its order. */
    {"del", "ss", "sl", NULL},
    {"sadd", "ss", "3", "1", "2", "10", "b", "a", NULL},
    {"rpush", "sl", "3", "1", "2", "10", NULL},
    {"eval", "return redis.call('sort','ss','by','nokey')", "1", "ss", NULL},
    {"eval", "return redis.call('sort_ro','ss','by','nokey','desc')", "1", "ss", NULL},
    {"eval", "return redis.call('sort','ss','by','nokey','limit','1','3')", "1", "ss", NULL},
    {"eval", "return redis.call('sort','sl','by','nokey')", "1", "sl", NULL},
    {"eval", "return redis.call('sort','ss','by','nokey','get','#')", "1", "ss", NULL},
    /* math.random: one state for the server's life (a new number at every
     * EVAL), and math.randomseed makes what follows reproducible. */
    {"eval", "return redis.call('set','rnd',tostring(math.random()))", "0", NULL},
    {"eval", "return tostring(math.random()) ~= redis.call('get','rnd')", "0", NULL},
    {"eval",
     "math.randomseed(7) local a = math.random(1000000) math.randomseed(7) return a == "
     "math.random(1000000)",
     "0", NULL},
    {"eval", "local a = math.random(5, 9) return a >= 5 and a <= 9", "0", NULL},
};

static const char *const function_cases[][CASE_ARGS] = {
    {"function", "flush", NULL},
    {"flushall", NULL},
    {"function", "load",
     "#!lua name=mylib\nredis.register_function(\"myfunc\", function(keys, args) return {keys[1], "
     "args[1]} end)",
     NULL},
    {"function", "load",
     "#!lua name=mylib\nredis.register_function(\"myfunc\", function(keys, args) return {keys[1], "
     "args[1]} end)",
     NULL},
    {"function", "load", "replace",
     "#!lua name=mylib\nredis.register_function(\"myfunc\", function(keys, args) return {keys[1], "
     "args[1]} end)",
     NULL},
    {"fcall", "myfunc", "1", "k", "a", NULL},
    {"fcall", "nosuch", "0", NULL},
    {"fcall", "myfunc", "x", NULL},
    {"fcall", "myfunc", "3", "a", NULL},
    {"fcall", "myfunc", "-1", NULL},
    {"function", "list", NULL},
    {"function", "list", "withcode", "libraryname", "my*", NULL},
    {"function", "list", "libraryname", "zz", NULL},
    {"function", "stats", NULL},
    {"function", "dump", NULL},
    {"function", "load",
     "#!lua name=lib2\nredis.register_function{function_name=\"ro\", callback=function(keys, args) "
     "return redis.call(\"get\", keys[1]) end, flags={\"no-writes\"}, description=\"read it\"}",
     NULL},
    {"set", "k", "v", NULL},
    {"fcall_ro", "ro", "1", "k", NULL},
    {"fcall", "ro", "1", "k", NULL},
    {"function", "list", "libraryname", "lib2", NULL},
    {"function", "load",
     "#!lua name=lib3\nredis.register_function(\"w\", function(keys, args) return "
     "redis.call(\"set\", keys[1], args[1]) end)",
     NULL},
    {"fcall_ro", "w", "1", "k", "v", NULL},
    {"fcall", "w", "1", "k", "v2", NULL},
    {"get", "k", NULL},
    {"function", "load",
     "#!lua name=lib4\nredis.register_function{function_name=\"w4\", callback=function(keys, args) "
     "return redis.call(\"set\", keys[1], args[1]) end, flags={\"no-writes\"}}",
     NULL},
    {"fcall", "w4", "1", "k", "v", NULL},
    {"function", "load", "return 1", NULL},
    {"function", "load", "#!lua\nreturn 1", NULL},
    {"function", "load", "#!lua name=x", NULL},
    {"function", "load", "#!lua name=x\nredis.call(\"ping\")", NULL},
    {"function", "load",
     "#!lua name=x\nredis.register_function(\"a\", function() end)\nredis.register_function(\"a\", "
     "function() end)",
     NULL},
    {"function", "load", "#!lua name=x\nredis.register_function(\"1a-b\", function() end)", NULL},
    {"function", "load", "#!lua name=x\nredis.register_function(\"a\")", NULL},
    {"function", "load", "#!lua name=x\nredis.register_function(\"a\", 1)", NULL},
    {"function", "load", "#!lua name=x\nredis.register_function(1, 2, 3)", NULL},
    {"function", "load",
     "#!lua name=x\nredis.register_function{function_name=\"a\", callback=function() end, "
     "flags={\"bogus\"}}",
     NULL},
    {"function", "load",
     "#!lua name=x\nredis.register_function{function_name=\"a\", callback=function() end, foo=1}",
     NULL},
    {"function", "load", "#!lua name=x\nredis.register_function{callback=function() end}", NULL},
    {"function", "load", "#!lua name=x\nredis.register_function{function_name=\"a\"}", NULL},
    {"function", "load",
     "#!lua name=x\nredis.register_function{function_name=1, callback=function() end}", NULL},
    {"function", "load",
     "#!lua name=x\nredis.register_function{function_name=\"a\", callback=function() end, "
     "flags=\"x\"}",
     NULL},
    {"function", "load", "#!lua name=x\ny = 1", NULL},
    {"function", "load", "#!lua name=x\nreturn (", NULL},
    {"function", "load", "#!lua name=x foo=bar\nreturn 1", NULL},
    {"function", "load", "#!lua name=x name=y\nreturn 1", NULL},
    {"function", "load", "#!foo name=x\nreturn 1", NULL},
    {"function", "load", "#!lua name=a-b\nreturn 1", NULL},
    {"function", "load", "#!lua name=x\nredis.register_function(\"myfunc\", function() end)", NULL},
    {"function", "load", "#!lua name=x\nredis.setresp(3)", NULL},
    {"function", "load", "#!lua name=x\nreturn redis.log(redis.LOG_NOTICE, \"x\")", NULL},
    {"function", "load", "#!lua name=x\nlocal a = math.random()", NULL},
    {"function", "load", "#!lua name=x\nerror(\"boom\")", NULL},
    {"function", "load", "#!lua name=x\nerror({err=\"MY boom\"})", NULL},
    {"function", "load", "#!LUA name=x\nredis.register_function(\"f\", function() return x end)",
     NULL},
    {"fcall", "f", "0", NULL},
    {"function", "delete", "nosuch", NULL},
    {"function", "delete", "x", NULL},
    {"function", "kill", NULL},
    {"function", "help", NULL},
    {"function", "restore", "bogus", NULL},
    {"function", "flush", "bogus", NULL},
    {"function", "list", "bogus", NULL},
    {"function", "list", "libraryname", NULL},
    {"function", "list", "withcode", "withcode", NULL},
    {"function", "load",
     "#!lua name=x\nredis.register_function(\"zz\", function() return "
     "redis.register_function(\"a\", function() end) end)",
     NULL},
    {"fcall", "zz", "0", NULL},
    {"function", "load", "replace",
     "#!lua name=mylib\nredis.register_function(\"myfunc\", function(keys, args) return {keys[1], "
     "args[1]} end)",
     NULL},
    {"function", "delete", "lib2", NULL},
    {"function", "delete", "lib3", NULL},
    {"function", "delete", "lib4", NULL},
    {"function", "delete", "x", NULL},
    {"function", "dump", NULL},
    {"function", "restore", "x", "bogus", NULL},
    /* Arguments past a subcommand's own: Redis's subcommand syntax error. */
    {"function", "restore", "a", "b", "c", NULL},
    {"function", "flush", "sync", "x", NULL},
    {"function", "FLUSH", "async", "x", "y", NULL},
    /* The shebang line is split as Redis's sdssplitargs: quotes. */
    {"function", "load",
     "#!lua name=\"q1\"\nredis.register_function('fq1', function() return 1 end)", NULL},
    {"function", "load", "#!lua 'name=q2'\nredis.register_function('fq2', function() return 2 end)",
     NULL},
    {"function", "load", "#!\"lua\" name=q3\nreturn 1", NULL},
    {"function", "load", "#!lua name=\"\\x41b\"\nreturn 1", NULL},
    {"fcall", "fq1", "0", NULL},
    {"fcall", "fq2", "0", NULL},
    {"function", "list", "libraryname", "q1", NULL},
    {"function", "load", "#!lua name=\"q4\nreturn 1", NULL},
    {"function", "load", "#!lua name=\"q5\"x\nreturn 1", NULL},
    {"function", "load", "#!lua name=\nreturn 1", NULL},
    {"function", "load", "#!\nreturn 1", NULL},
    {"function", "load", "#!foo bogus\nreturn 1", NULL},
    {"function", "delete", "q1", NULL},
    {"function", "delete", "q2", NULL},
    {"function", "delete", "q3", NULL},
    {"function", "delete", "Ab", NULL},
};

static void run_cases(const char *const (*cases)[CASE_ARGS], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int argc = 0;
        while (argc < CASE_ARGS && cases[i][argc]) argc++;
        diff_check_argv(&d, argc, cases[i], NULL);
    }
}

#define A(...) diff_check(&d, __VA_ARGS__, NULL)

#define B(...) diff_check_on(&d, &bg, &br, __VA_ARGS__, NULL) /* client B */

static void interplay(void)
{
    A("FLUSHALL");
    /* A script's write is a write for WATCH. */
    A("SET", "k", "1");
    A("WATCH", "k");
    B("EVAL", "return redis.call('set', KEYS[1], 'script')", "1", "k");
    A("MULTI");
    A("GET", "k");
    A("EXEC");
    /* A script that only reads does not invalidate. */
    A("WATCH", "k");
    B("EVAL", "return redis.call('get', KEYS[1])", "1", "k");
    A("MULTI");
    A("GET", "k");
    A("EXEC");
    /* EVAL and EVALSHA inside MULTI. */
    A("SCRIPT", "LOAD", "return redis.call('incr', KEYS[1])");
    A("MULTI");
    A("EVAL", "return redis.call('incr', KEYS[1])", "1", "n");
    A("EVALSHA", "2bab3b661081db58bd2341920e0ba7cf5dc77b25", "1", "n");
    A("EVAL", "return redis.call('incr', KEYS[1])", "1", "n");
    A("EXEC");
    /* SELECT inside a script stays inside it (Redis 7.0). */
    A("EVAL", "redis.call('select', 1); redis.call('set', 'in1', 'x'); return 1", "0");
    A("EXISTS", "in1");
    A("SELECT", "1");
    A("GET", "in1");
    A("SELECT", "0");
    /* Blocking commands are refused in scripts. */
    A("EVAL", "return redis.call('brpop', 'nolist', 0)", "0");
    A("EVAL", "return redis.pcall('blmove', 'a', 'b', 'left', 'left', 0)", "0");
    /* Big arrays and nested replies both ways. */
    A("EVAL",
      "local t = {} for i = 1, 1000 do t[i] = i end redis.call('rpush', 'big', unpack(t)) "
      "return redis.call('lrange', 'big', 0, -1)",
      "0");
    A("EVAL", "return {{1, {2, {3, {'four'}}}}, redis.call('llen', 'big')}", "0");
}

/* Pulls the bulk out of a raw "$<n>\r\n<bytes>\r\n" reply. */
static char *bulk_of(char *raw, size_t *len)
{
    CHECK(raw[0] == '$');
    char *crlf = strstr(raw, "\r\n");
    *len = strtoul(raw + 1, NULL, 10);
    return crlf + 2;
}

/* FUNCTION DUMP payloads restore on the other server. */
static void dump_restore(void)
{
    A("FUNCTION", "FLUSH");
    A("FUNCTION", "LOAD",
      "#!lua name=one\nredis.register_function('f1', function(k, a) return 'one:' .. a[1] end)");
    A("FUNCTION", "LOAD",
      "#!lua name=two\nredis.register_function{function_name='f2', callback=function(k) return "
      "redis.call('get', k[1]) end, flags={'no-writes'}, description='two'}");
    size_t rl, gl;
    char *rraw = rconn_call(&d.r, "FUNCTION", "DUMP", NULL);
    char *graw = rconn_call(&d.g, "FUNCTION", "DUMP", NULL);
    const char *rp = bulk_of(rraw, &rl), *gp = bulk_of(graw, &gl);
    A("FUNCTION", "FLUSH");
    /* Each server restores the other's payload. */
    const char *to_g[] = {"FUNCTION", "RESTORE", rp};
    const size_t to_g_len[] = {8, 7, rl};
    rconn_send_argv(&d.g, 3, to_g, to_g_len);
    char *reply = rconn_read_reply(&d.g, NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    const char *to_r[] = {"FUNCTION", "RESTORE", gp};
    const size_t to_r_len[] = {8, 7, gl};
    rconn_send_argv(&d.r, 3, to_r, to_r_len);
    reply = rconn_read_reply(&d.r, NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    free(rraw);
    free(graw);
    A("SET", "kk", "vv");
    A("FCALL", "f1", "0", "arg");
    A("FCALL_RO", "f2", "1", "kk");
    /* Function names are case-insensitive (library names are not). */
    A("FCALL", "F1", "0", "arg");
    A("FCALL_RO", "F2", "1", "kk");
    A("FUNCTION", "LOAD",
      "#!lua name=other\nredis.register_function('F1', function() return 1 end)");
    A("FUNCTION", "LIST", "LIBRARYNAME", "two", "WITHCODE");
    A("FUNCTION", "STATS");
    /* (FUNCTION DUMP of two libraries is not compared: Redis orders them
     * by its hash table.) */
    A("FUNCTION", "RESTORE", "notapayload");
    A("FUNCTION", "FLUSH");
}

/* "calls=N,...,rejected_calls=N,failed_calls=N" of cmdstat_<name> in an
 * INFO commandstats reply, the timings dropped ("absent" when none). */
static void cmdstat_counts(const char *info, const char *name, char *out, size_t cap)
{
    char key[64];
    snprintf(key, sizeof key, "cmdstat_%s:", name);
    const char *line = strstr(info, key);
    if (!line) {
        snprintf(out, cap, "absent");
        return;
    }
    long long calls = -1, rejected = -1, failed = -1;
    const char *p;
    if ((p = strstr(line, "calls="))) calls = atoll(p + 6);
    if ((p = strstr(line, "rejected_calls="))) rejected = atoll(p + 15);
    if ((p = strstr(line, "failed_calls="))) failed = atoll(p + 13);
    snprintf(out, cap, "calls=%lld rejected=%lld failed=%lld", calls, rejected, failed);
}

/* A command refused inside a script (arity, noscript, read-only, OOM) is
 * counted in its cmdstat's rejected_calls, as Redis's scriptCall does. */
static void script_rejected_calls(void)
{
    A("CONFIG", "RESETSTAT");
    A("EVAL", "return redis.pcall('get')", "0");
    A("EVAL_RO", "return redis.pcall('set','k','v')", "1", "k");
    A("EVAL", "return redis.pcall('blpop','k',0)", "1", "k");
    A("CONFIG", "SET", "maxmemory", "1");
    A("EVAL", "return redis.pcall('set','k','v')", "1", "k");
    A("CONFIG", "SET", "maxmemory", "0");
    A("EVAL", "return redis.pcall('incr','s')", "1", "s");
    const char *argv[] = {"INFO", "commandstats"};
    char *g, *r;
    size_t gl, rl;
    diff_exchange(&d, 2, argv, NULL, &g, &gl, &r, &rl);
    const char *names[] = {"get", "set", "blpop", "incr", "eval", "eval_ro"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char want[128], got[128];
        cmdstat_counts(r, names[i], want, sizeof want);
        cmdstat_counts(g, names[i], got, sizeof got);
        if (strcmp(want, got) != 0) {
            fprintf(stderr, "diff_scripting: cmdstat_%s: redis-server %s, goblin-core %s\n",
                    names[i], want, got);
            exit(1);
        }
    }
    free(g);
    free(r);
}

static void run_all(void)
{
    run_cases(script_cases, sizeof script_cases / sizeof script_cases[0]);
    run_cases(function_cases, sizeof function_cases / sizeof function_cases[0]);
    interplay();
    dump_restore();
    script_rejected_calls();
}

int main(void)
{
    unsigned long long seed = test_seed("diff_scripting");
    diff_start(&d, "diff_scripting", seed, NULL, NULL);
    diff_open_extra(&d, &bg, &br);
    run_all();
    diff_hello3(&d);
    run_all();
    diff_stop(&d);
    return 0;
}
