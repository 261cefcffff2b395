/*
 * Differential test of busy scripts against redis-server, byte for byte:
 * lua-time-limit / busy-reply-threshold (both names), and, while a script
 * runs past it, what the other clients get — BUSY for ordinary commands
 * (the EVAL and the FUNCTION texts), MULTI/EXEC aborted by it, SHUTDOWN
 * without NOSAVE refused, FUNCTION STATS' running_script (its duration
 * masked), SCRIPT KILL / FUNCTION KILL of the other engine refused, KILL of
 * a read-only script (its caller gets Redis's "Script killed" error, also
 * when the script pcalls around the kill), UNKILLABLE once the script
 * wrote, NOTBUSY when nothing runs, and SHUTDOWN NOSAVE ending both servers
 * under a script that never ends. Client A runs the scripts, B is the
 * other client (RESP2, then RESP3 for the FUNCTION case); on goblin-core a
 * ring client is refused with BUSY too and kills a function over the ring.
 */
#include <goblin/ring_client.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

static struct diff_pair d;
static struct rconn ag, ar; /* client A: runs the scripts */
static struct goblin_ring *ring;

#define B(...) diff_check(&d, __VA_ARGS__, NULL)

static const char busy_eval[] =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
static const char busy_function[] =
    "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n";

/* A sends the same command to both servers and does not wait. */
static void a_send(const char *first, ...)
{
    const char *argv[16];
    int argc = 0;
    argv[argc++] = first;
    va_list ap;
    va_start(ap, first);
    for (const char *s; (s = va_arg(ap, const char *)) && argc < 16;) argv[argc++] = s;
    va_end(ap);
    rconn_send_argv(&ag, argc, argv, NULL);
    rconn_send_argv(&ar, argc, argv, NULL);
}

/* A's replies from both servers must be equal. */
static void a_expect_same(void)
{
    size_t gl, rl;
    char *g = rconn_read_reply(&ag, &gl);
    char *r = rconn_read_reply(&ar, &rl);
    CHECKF(gl == rl && memcmp(g, r, gl) == 0, "caller's reply differs: goblin '%.*s' redis '%.*s'",
           (int)gl, g, (int)rl, r);
    free(g);
    free(r);
}

/* Pings until the server answers BUSY (the script passed the threshold).
 * The bound is on attempts, not on time. */
static void wait_busy(struct rconn *c, const char *who)
{
    for (int i = 0; i < 2000; i++) {
        size_t n;
        char *reply = rconn_call(c, "PING", NULL);
        n = strlen(reply);
        bool busy = n > 5 && memcmp(reply, "-BUSY", 5) == 0;
        free(reply);
        if (busy) return;
        usleep(10 * 1000);
    }
    CHECKF(false, "%s never became busy", who);
}

static void wait_both_busy(void)
{
    wait_busy(&d.g, "goblin-core");
    wait_busy(&d.r, "redis-server");
}

/* The goblin-core ring client sends argv and must get `want`. */
static void ring_expect(const char *want, int argc, const char *const *argv)
{
    CHECK(goblin_ring_send_command(ring, argc, argv, NULL) == 0);
    const char *reply;
    ssize_t n = goblin_ring_read_reply(ring, &reply, 20 * 1000000LL);
    CHECKF(n == (ssize_t)strlen(want) && memcmp(reply, want, (size_t)n) == 0,
           "ring %s: got '%.*s', want '%s'", argv[0], (int)(n > 0 ? n : 0), n > 0 ? reply : "",
           want);
}

/* Replaces FUNCTION STATS' duration_ms by a single 0, whatever its digits
 * (the two servers' scripts have run for different times, of different
 * lengths on a loaded machine); *len shrinks accordingly. */
static void mask_duration(char *reply, size_t *len)
{
    char *p = memmem(reply, *len, "duration_ms\r\n:", 14);
    CHECKF(p, "no duration_ms in '%.*s'", (int)*len, reply);
    char *digits = p + 14, *end = digits;
    while (end < reply + *len && *end >= '0' && *end <= '9') end++;
    CHECKF(end > digits, "duration_ms without digits in '%.*s'", (int)*len, reply);
    *digits = '0';
    memmove(digits + 1, end, (size_t)(reply + *len - end));
    *len -= (size_t)(end - digits) - 1;
}

static void function_stats_while_busy(void)
{
    const char *argv[] = {"FUNCTION", "STATS"};
    char *g, *r;
    size_t gl, rl;
    diff_exchange(&d, 2, argv, NULL, &g, &gl, &r, &rl);
    mask_duration(g, &gl);
    mask_duration(r, &rl);
    CHECKF(gl == rl && memcmp(g, r, gl) == 0, "FUNCTION STATS: goblin '%.*s' redis '%.*s'", (int)gl,
           g, (int)rl, r);
    free(g);
    free(r);
}

static void config_and_idle(void)
{
    B("CONFIG", "GET", "lua-time-limit");
    B("CONFIG", "GET", "busy-reply-threshold");
    B("CONFIG", "SET", "lua-time-limit", "100");
    B("CONFIG", "GET", "busy-reply-threshold");
    B("CONFIG", "SET", "busy-reply-threshold", "-1");
    B("CONFIG", "SET", "busy-reply-threshold", "50");
    B("CONFIG", "GET", "lua-time-limit");
    B("SCRIPT", "KILL");
    B("FUNCTION", "KILL");
    B("FUNCTION", "STATS");
    B("SET", "x", "before");
}

static void busy_eval_killed(void)
{
    a_send("EVAL", "local i = 0 while true do i = i + 1 end", "0", NULL);
    wait_both_busy();
    B("GET", "x");
    B("PING");
    B("SET", "x", "during");
    B("SHUTDOWN");
    B("SHUTDOWN", "SAVE");
    B("EXEC"); /* without MULTI */
    B("MULTI");
    B("GET", "x");
    B("EXEC");
    B("DISCARD");
    B("MULTI");
    B("GET", "x");
    B("DISCARD");
    B("WATCH", "x");
    B("UNWATCH");
    B("FUNCTION", "STATS");
    B("FUNCTION", "KILL");
    B("CLIENT", "KILL", "TYPE", "normal");
    B("NOSUCHCOMMAND");
    B("GET"); /* arity is checked before BUSY */
    const char *get[] = {"GET", "x"};
    ring_expect(busy_eval, 2, get);
    B("SCRIPT", "KILL");
    a_expect_same();
    B("SCRIPT", "KILL");
    B("GET", "x");
    a_send("PING", NULL);
    a_expect_same();
}

/* A pcall around the spinning code cannot keep a killed script alive. */
static void busy_eval_pcall_killed(void)
{
    a_send("EVAL",
           "while true do\n"
           "  pcall(function() local i = 0 while true do i = i + 1 end end)\n"
           "end",
           "0", NULL);
    wait_both_busy();
    B("SCRIPT", "KILL");
    a_expect_same();
}

static void busy_function_killed(void)
{
    B("FUNCTION", "LOAD", "REPLACE",
      "#!lua name=busy\n"
      "redis.register_function('spin', function(keys, args) local i = 0 while true do i = i + 1 "
      "end end)\n"
      "redis.register_function{function_name='spin_ro', callback=function(keys, args) while true "
      "do end end, flags={'no-writes'}}\n");
    a_send("FCALL", "spin", "1", "k", "arg", NULL);
    wait_both_busy();
    B("GET", "x");
    B("SCRIPT", "KILL");
    B("MULTI");
    B("EXEC");
    function_stats_while_busy();
    const char *stats[] = {"SCRIPT", "KILL"};
    ring_expect(busy_function, 2, stats);
    const char *kill[] = {"FUNCTION", "KILL"};
    ring_expect("+OK\r\n", 2, kill);
    /* redis-server's script is killed from B instead. */
    char *reply = rconn_call(&d.r, "FUNCTION", "KILL", NULL);
    CHECKF(strcmp(reply, "+OK\r\n") == 0, "redis FUNCTION KILL: %s", reply);
    free(reply);
    a_expect_same();
    a_send("FCALL_RO", "spin_ro", "0", NULL);
    wait_both_busy();
    B("FUNCTION", "KILL");
    a_expect_same();
    B("FUNCTION", "STATS");
}

/* A script that wrote cannot be killed: only SHUTDOWN NOSAVE ends it. */
static void busy_unkillable(void)
{
    a_send("EVAL", "redis.call('SET', 'x', 'written') while true do end", "0", NULL);
    wait_both_busy();
    B("SCRIPT", "KILL");
    B("FUNCTION", "KILL");
    B("SHUTDOWN");
    const char *shutdown[] = {"SHUTDOWN", "NOSAVE"};
    rconn_send_argv(&d.g, 2, shutdown, NULL);
    rconn_send_argv(&d.r, 2, shutdown, NULL);
    CHECKF(rconn_wait_closed(&d.r, 20000), "redis-server did not close on SHUTDOWN NOSAVE");
    CHECKF(rconn_wait_closed(&d.g, 20000), "goblin-core did not close on SHUTDOWN NOSAVE");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_busy_script");
    char dir[] = "/dev/shm/goblin-busy-XXXXXX";
    CHECK(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/r.ring", dir);
    const char *const goblin_extra[] = {"--ring", path, "64k", NULL};
    diff_start(&d, "diff_busy_script", seed, goblin_extra, NULL);
    diff_open_extra(&d, &ag, &ar);
    CHECK(goblin_ring_open(path, 10000, &ring) == 0);
    config_and_idle();
    busy_eval_killed();
    busy_eval_pcall_killed();
    diff_hello3(&d);
    busy_function_killed();
    busy_unkillable();
    goblin_ring_close(ring);
    rconn_close(&ag);
    rconn_close(&ar);
    diff_stop(&d);
    unlink(path);
    rmdir(dir);
    return 0;
}
