/*
 * The Lua sandbox's bounds, which redis-server does not have (so no
 * differential here; docs/scripting.md, "The sandbox"):
 *
 *  - lua-memory-limit (default 1gb): one library call that would take the
 *    server's memory where SCRIPT KILL cannot reach it (string.rep,
 *    table.concat, string.gsub, cmsgpack.pack of a table shared at every
 *    level, a table filled in a loop, FUNCTION LOAD's top-level code)
 *    fails the script with "not enough memory", the server's resident
 *    memory stays far below what the call asked for, and the next script
 *    runs;
 *  - a script that keeps growing its memory to the limit inside pcall
 *    runs on, bounded, until SCRIPT KILL stops it (its caller gets Redis's
 *    "Script killed by user" error);
 *  - lua-cjson's int-sized buffers: an encode whose worst case passes
 *    1 GiB (a long string, an array made 2^30 long by one key with sparse
 *    checks off) or that walks more than 16M values (a table shared at
 *    every level) is refused with an error instead of overflowing the
 *    heap (CVE-2022-24834);
 *  - a load() reader's chunk is bounded (SANDBOX_MAX_CHUNK), so no chunk
 *    reaches the lexer's int overflow of CVE-2025-46819.
 * The ASan run (asan.integration.test_lua_sandbox_limits) checks each
 * path for memory errors and leaks as well.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static struct test_server server;
static struct rconn c, other;

/* The reply must start with `prefix` and contain `part` (NULL: any). */
static void expect(const char *reply, const char *prefix, const char *part, const char *what)
{
    CHECKF(strncmp(reply, prefix, strlen(prefix)) == 0 && (!part || strstr(reply, part)),
           "%s: got '%s', want '%s...%s'", what, reply, prefix, part ? part : "");
}

/* Some of these scripts walk or lex a gigabyte's worth (seconds under
 * ASan on a loaded machine): the reply may take longer than the test
 * library's usual 10 s. */
static char *call_slow(int argc, const char *const *argv)
{
    rconn_send_argv(&c, argc, argv, NULL);
    char *reply = rconn_try_read_reply(&c, NULL, 300 * 1000);
    CHECKF(reply, "%s: no reply from the server (EOF or 300 s)", argv[argc > 1 ? 1 : 0]);
    return reply;
}

static void eval_expect(const char *script, const char *prefix, const char *part)
{
    const char *argv[] = {"EVAL", script, "0"};
    char *reply = call_slow(3, argv);
    expect(reply, prefix, part, script);
    free(reply);
}

/* The server still answers, and holds far less than the script asked for. */
static void server_fine(const char *after, long max_rss_kb)
{
    char *reply = rconn_call(&c, "PING", NULL);
    CHECK_STR(reply, "+PONG\r\n");
    free(reply);
    long rss = test_server_rss_kb(&server);
    CHECKF(rss > 0 && rss < max_rss_kb, "after %s: resident %ld KiB (bound %ld KiB)", after, rss,
           max_rss_kb);
}

static void memory_limit(void)
{
    char *reply = rconn_call(&c, "CONFIG", "GET", "lua-memory-limit", NULL);
    CHECK_STR(reply, "*2\r\n$16\r\nlua-memory-limit\r\n$10\r\n1073741824\r\n");
    free(reply);
    reply = rconn_call(&c, "CONFIG", "SET", "lua-memory-limit", "32mb", NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);

    /* Each of these asks for a gigabyte or more inside one C call. */
    static const char *const bombs[] = {
        "return #string.rep('x', 2^30)",
        "return #string.rep(string.rep('x', 2^20), 2^12)",
        "local t = {} for i = 1, 1000 do t[i] = 'x' end return #table.concat(t, "
        "string.rep('-', 2^20))",
        "return #string.gsub(string.rep('a', 2^14), 'a', string.rep('b', 2^16))",
        "local t = {} for i = 1, 16 do t = {t, t, t, t, t, t, t, t} end return #cmsgpack.pack(t)",
        "local t = {} for i = 1, 1e9 do t[i] = i end return #t",
        "local t = {} for i = 1, 1e9 do t[#t + 1] = tostring(i) end return #t",
        NULL,
    };
    for (int i = 0; bombs[i]; i++) {
        eval_expect(bombs[i], "-ERR ", "not enough memory");
        server_fine(bombs[i], 512 * 1024);
    }
    /* Caught by pcall, the failure is the script's to handle. */
    eval_expect("local ok, e = pcall(string.rep, 'x', 2^30) return {tostring(ok), e}",
                "*2\r\n$5\r\nfalse\r\n$17\r\nnot enough memory\r\n", NULL);
    eval_expect("return #string.rep('x', 2^20)", ":1048576", NULL);

    /* FUNCTION's engine has the same bound, at load time and at FCALL. */
    reply = rconn_call(&c, "FUNCTION", "LOAD",
                       "#!lua name=big\nlocal s = 'x' while true do s = s .. s end", NULL);
    expect(reply, "-ERR Error registering functions", "not enough memory", "FUNCTION LOAD");
    free(reply);
    reply = rconn_call(&c, "FUNCTION", "LOAD",
                       "#!lua name=big\nredis.register_function('big', function() "
                       "return #string.rep('x', 2^30) end)",
                       NULL);
    CHECK_STR(reply, "$3\r\nbig\r\n");
    free(reply);
    reply = rconn_call(&c, "FCALL", "big", "0", NULL);
    expect(reply, "-ERR ", "not enough memory", "FCALL big");
    free(reply);
    server_fine("FCALL big", 512 * 1024);
}

/* Pings from the other client until it answers BUSY; bounded by
 * attempts, not by time. */
static void wait_busy(void)
{
    for (int i = 0; i < 2000; i++) {
        char *reply = rconn_call(&other, "PING", NULL);
        bool busy = strncmp(reply, "-BUSY", 5) == 0;
        free(reply);
        if (busy) return;
        usleep(10 * 1000);
    }
    CHECKF(false, "the script never became busy");
}

static void kill_while_growing(const char *script)
{
    const char *argv[] = {"EVAL", script, "0"};
    rconn_send_argv(&c, 3, argv, NULL);
    wait_busy();
    /* It runs on, at the limit: memory stays bounded meanwhile. */
    long rss = test_server_rss_kb(&server);
    CHECKF(rss > 0 && rss < 512 * 1024, "%s: resident %ld KiB while running", script, rss);
    char *reply = rconn_call(&other, "SCRIPT", "KILL", NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    reply = rconn_read_reply(&c, NULL);
    expect(reply, "-ERR Script killed by user with SCRIPT KILL", NULL, script);
    free(reply);
    server_fine(script, 512 * 1024);
}

static void kill_under_growth(void)
{
    char *reply = rconn_call(&c, "CONFIG", "SET", "busy-reply-threshold", "50", NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    kill_while_growing("while true do pcall(string.rep, 'x', 2^30) end");
    kill_while_growing("while true do pcall(function() local t = {} "
                       "for i = 1, 1e9 do t[i] = i end end) end");
    kill_while_growing("local keep = {} while true do local ok = pcall(function() "
                       "keep[#keep + 1] = string.rep('y', 2^16) end) if not ok then keep = {} end "
                       "end");
}

static void cjson_bounds(void)
{
    char *reply = rconn_call(&c, "CONFIG", "SET", "lua-memory-limit", "0", NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    static const char *const refused[] = {
        /* One key makes a 2^30-long array of nulls once sparse checks are off. */
        "cjson.encode_sparse_array(true, 0) return #cjson.encode({[2^30] = 1})",
        "cjson.encode_sparse_array(false, 0) return #cjson.encode({[2^31 - 1] = true})",
        "local c = cjson.new() c.encode_sparse_array(true, 0) return #c.encode({[2^30] = 1})",
        /* Shared at every level: 2^40 values. */
        "local t = {} for i = 1, 40 do t = {t, t} end return #cjson.encode(t)",
        "local t = {'x'} for i = 1, 40 do t = {a = t, b = t} end return #cjson.encode(t)",
        NULL,
    };
    for (int i = 0; refused[i]; i++) {
        eval_expect(refused[i], "-ERR user_script:1: Cannot serialise, output too large", NULL);
        server_fine(refused[i], 2 * 1024 * 1024);
    }
    /* Two 96 MiB strings: cjson reserves 6 bytes a byte before writing
     * (the 6n + 2 of CVE-2022-24834), 1.15 GiB in all. */
    eval_expect("local s = string.rep('x', 2^20) for i = 1, 6 do s = s .. s end "
                "s = s .. string.sub(s, 1, 2^25) "
                "local _, e1 = pcall(cjson.encode, {s, s}) "
                "local _, e2 = pcall(cjson.encode, {[s] = 1, a = {s}}) return {e1, e2}",
                "*2\r\n$63\r\nCannot serialise, output too large (more than 1073741824 "
                "bytes)\r\n$63\r\nCannot serialise, output too large",
                NULL);
    server_fine("two 96 MiB strings", 2 * 1024 * 1024);
    /* Just under the bound it still encodes. */
    eval_expect("return #cjson.encode(string.rep('x', 2^20))", ":1048578", NULL);
    eval_expect("cjson.encode_sparse_array(true, 0) return #cjson.encode({[1000] = 1})", ":4998",
                NULL);
    reply = rconn_call(&c, "CONFIG", "SET", "lua-memory-limit", "1gb", NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
}

static void chunk_bound(void)
{
    /* 513 pieces of 1 MiB of spaces: one past SANDBOX_MAX_CHUNK. */
    eval_expect("local piece = string.rep(' ', 2^20) local n = 0 "
                "local f, e = load(function() n = n + 1 if n <= 513 then return piece end end) "
                "return {type(f), e, n}",
                "*3\r\n$3\r\nnil\r\n-ERR user_script:1: chunk too large\r\n:513\r\n", NULL);
    eval_expect("local piece = string.rep(' ', 2^20) local n = 0 "
                "local f, e = load(function() n = n + 1 if n <= 8 then return piece end end) "
                "return {type(f), n}",
                "*2\r\n$8\r\nfunction\r\n:9\r\n", NULL);
}

int main(void)
{
    (void)test_seed("lua_sandbox_limits");
    test_server_start(&server, TEST_SERVER_GOBLIN, NULL);
    rconn_open_tcp(&c, server.port);
    rconn_open_tcp(&other, server.port);
    memory_limit();
    kill_under_growth();
    cjson_bounds();
    chunk_bound();
    rconn_close(&c);
    rconn_close(&other);
    test_server_stop(&server);
    return 0;
}
