/*
 * MONITOR against redis-server: a monitor on each server, the same commands
 * on both, and the lines each monitor received compared byte for byte once
 * the time and the client's address are normalised — argument quoting
 * (quotes, backslashes, control and binary bytes), the database index,
 * AUTH and HELLO AUTH redacted, admin commands and rejected commands not
 * shown, MULTI/EXEC with its commands, blocked commands, scripts (EVAL or
 * FCALL first, then its commands from "lua"), RESET leaving
 * monitor mode; in RESP2 and with RESP3 monitors.
 *
 * Then goblin-core alone: a monitor that never reads is closed once its
 * backlog passes the pubsub output limit (memory stays bounded), while the
 * clients that write carry on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "goblin/resp_reader.h"

static struct diff_pair d;
static struct rconn mon_g, mon_r;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)

struct text {
    char *p;
    size_t n, cap;
};

static void text_put(struct text *t, const char *p, size_t n)
{
    while (t->n + n + 1 > t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->p = realloc(t->p, t->cap);
    }
    memcpy(t->p + t->n, p, n);
    t->n += n;
    t->p[t->n] = '\0';
}

/* "+1701.123456 [3 127.0.0.1:5555] ..." -> "+T [3 A] ...". */
static void normalise(struct text *t, const char *line, size_t len)
{
    const char *db = memchr(line, '[', len);
    const char *space = db ? memchr(db, ' ', len - (size_t)(db - line)) : NULL;
    const char *close = space ? memchr(space, ']', len - (size_t)(space - line)) : NULL;
    CHECK(line[0] == '+' && close != NULL);
    text_put(t, "+T ", 3);
    text_put(t, db, (size_t)(space - db));
    /* The address is masked, but a script's commands come from "lua". */
    bool lua = close - space == 4 && memcmp(space + 1, "lua", 3) == 0;
    text_put(t, lua ? " lua" : " A", lua ? 4 : 2);
    text_put(t, close, len - (size_t)(close - line));
}

/* Reads one monitor's lines up to the one carrying the marker. */
static struct text collect(struct rconn *c, const char *marker)
{
    struct text t = {0};
    for (;;) {
        size_t n;
        char *m = rconn_try_read_reply(c, &n, 10000);
        CHECK(m != NULL);
        normalise(&t, m, n);
        bool last = strstr(m, marker) != NULL;
        free(m);
        if (last) break;
    }
    return t;
}

static void compare_monitors(const char *marker)
{
    C("ECHO", marker);
    struct text g = collect(&mon_g, marker), r = collect(&mon_r, marker);
    if (g.n != r.n || memcmp(g.p, r.p, g.n) != 0) {
        static char gt[65536], rt[65536];
        fprintf(stderr, "diff_monitor: MISMATCH at %s\n  redis-server: %s\n  goblin-core:  %s\n",
                marker, resp_render(r.p, r.n, rt, sizeof rt), resp_render(g.p, g.n, gt, sizeof gt));
        exit(1);
    }
    free(g.p);
    free(r.p);
    d.commands++;
}

static void start_monitors(bool resp3)
{
    diff_open_extra(&d, &mon_g, &mon_r);
    if (resp3) {
        free(rconn_call(&mon_g, "HELLO", "3", NULL));
        free(rconn_call(&mon_r, "HELLO", "3", NULL));
    }
    char *g = rconn_call(&mon_g, "MONITOR", NULL);
    char *r = rconn_call(&mon_r, "MONITOR", NULL);
    CHECK(strcmp(g, r) == 0 && strcmp(g, "+OK\r\n") == 0);
    free(g);
    free(r);
}

static void run(bool resp3)
{
    start_monitors(resp3);
    C("SET", "k", "v");
    C("GET", "k");
    C("set", "quote\"back\\slash", "line\nfeed\r\ttab\a\b");
    const char bin[] = {'a', 0, 1, (char)0xff, 'z'};
    const char *const argv[] = {"SET", "bin", bin};
    const size_t lens[] = {3, 3, sizeof bin};
    diff_check_argv(&d, 3, argv, lens);
    C("SET", "empty", "");
    C("INCRBY", "n", "12345");
    C("SELECT", "3");
    C("LPUSH", "l", "a", "b");
    C("SELECT", "0");
    C("AUTH", "wrongpass");
    C("AUTH", "user", "wrongpass");
    C("CONFIG", "GET", "maxmemory"); /* admin: not shown */
    C("NOSUCHCOMMAND", "x");         /* rejected: not shown */
    C("GET");                        /* arity: not shown */
    C("MULTI");
    C("SET", "t", "1");
    C("INCR", "t");
    C("EXEC");
    C("BLPOP", "l", "0.01");
    C("CLIENT", "SETNAME", "m");
    C("PING");
    /* Scripts: the EVAL/FCALL line first (also when the script fails to
     * start), then its commands from "lua" in the script's database. */
    C("EVAL", "redis.call('set','a','1') return redis.call('get','a')", "0");
    C("EVAL", "redis.call('select','3') return redis.call('set','x','1')", "0");
    C("EVALSHA", "0000000000000000000000000000000000000000", "0");
    C("EVAL", "return (", "0");
    C("EVAL_RO", "return redis.call('get','a')", "0");
    C("FUNCTION", "LOAD", "REPLACE",
      "#!lua name=ml\nredis.register_function('mf', function() return redis.call('ping') end)");
    C("FCALL", "mf", "0");
    C("FCALL_RO", "nofunc", "0");
    C("MULTI");
    C("EVAL", "return redis.call('echo','in')", "0");
    C("EXEC");
    compare_monitors(resp3 ? "marker-resp3" : "marker-resp2");
    /* A second MONITOR answers nothing; RESET ends monitoring. */
    rconn_send(&mon_g, "MONITOR", NULL);
    rconn_send(&mon_r, "MONITOR", NULL);
    compare_monitors("after-second-monitor");
    char *g = rconn_call(&mon_g, "RESET", NULL);
    char *r = rconn_call(&mon_r, "RESET", NULL);
    CHECK(strcmp(g, r) == 0);
    free(g);
    free(r);
    C("SET", "unseen", "1");
    g = rconn_call(&mon_g, "PING", NULL);
    r = rconn_call(&mon_r, "PING", NULL);
    CHECK(strcmp(g, r) == 0 && strcmp(g, "+PONG\r\n") == 0);
    free(g);
    free(r);
    rconn_close(&mon_g);
    rconn_close(&mon_r);
}

/* A monitor that never reads: closed when its backlog passes the pubsub
 * hard limit; the writer carries on. */
static void slow_monitor(void)
{
    struct test_server s;
    const char *const extra[] = {"--client-output-buffer-limit", "pubsub 256kb 0 0", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn mon, w;
    rconn_open_tcp(&mon, s.port);
    rconn_open_tcp(&w, s.port);
    free(rconn_call(&mon, "MONITOR", NULL));
    char value[8192];
    memset(value, 'v', sizeof value - 1);
    value[sizeof value - 1] = '\0';
    bool closed = false;
    for (int i = 0; i < 4000 && !closed; i++) {
        free(rconn_call(&w, "SET", "k", value, NULL));
        if (i % 100 == 99) {
            char *info = rconn_call(&w, "INFO", "clients", NULL);
            closed = strstr(info, "connected_clients:1\r\n") != NULL;
            free(info);
        }
    }
    CHECK(closed);
    CHECK(rconn_wait_closed(&mon, 10000));
    char *pong = rconn_call(&w, "PING", NULL);
    CHECK(strcmp(pong, "+PONG\r\n") == 0);
    free(pong);
    rconn_close(&mon);
    rconn_close(&w);
    test_server_stop(&s);
}

int main(void)
{
    unsigned long long seed = test_seed("diff_monitor");
    diff_start(&d, "diff_monitor", seed, NULL, NULL);
    run(false);
    run(true);
    diff_stop(&d);
    slow_monitor();
    return 0;
}
