/*
 * Differential test of CLIENT TRACKING (server-assisted client-side
 * caching) against redis-server, byte for byte, with several clients:
 * RESP3 invalidation pushes (default mode: keys read by GET/MGET, the
 * modifier's own invalidation after its reply, NOLOOP, FLUSHDB/FLUSHALL's
 * null), RESP2 through a REDIRECT client subscribed to
 * __redis__:invalidate, BCAST with prefixes (sorted keys of one command in
 * one push, NOLOOP), OPTIN/OPTOUT with CLIENT CACHING, CLIENT GETREDIR and
 * TRACKINGINFO, a redirect target that disconnects (broken_redirect,
 * tracking-redir-broken), RESET, every option error, tracking-table-max-keys
 * for a command queued in MULTI, and a maxmemory eviction's invalidation
 * before the reply of the command that caused it. "Nothing was
 * sent" is checked by state, not time: a PING on the same connection must
 * answer first.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

static struct diff_pair d;
static struct rconn bg, br; /* client B: writes, and tracks in RESP2 with a redirect */
static struct rconn rg, rr; /* client R: the redirect target, subscribed */

#define A(...) diff_check(&d, __VA_ARGS__, NULL)

#define B(...) diff_check_on(&d, &bg, &br, __VA_ARGS__, NULL)
#define R(...) diff_check_on(&d, &rg, &rr, __VA_ARGS__, NULL)

/* Reads the next value on both connections of a pair (a push or message
 * already sent) and compares them, and with `expected`. */
static void expect_pair(struct rconn *g, struct rconn *r, const char *expected)
{
    size_t glen, rlen;
    char *gr = rconn_read_reply(g, &glen);
    char *rs = rconn_read_reply(r, &rlen);
    CHECKF(gr && rs && glen == rlen && memcmp(gr, rs, glen) == 0,
           "push differs: goblin '%s' redis '%s'", gr ? gr : "(none)", rs ? rs : "(none)");
    if (expected) CHECKF(strcmp(rs, expected) == 0, "got '%s' expected '%s'", rs, expected);
    free(gr);
    free(rs);
}

#define PUSH_A(e) expect_pair(&d.g, &d.r, e)
#define PUSH_B(e) expect_pair(&bg, &br, e)
#define PUSH_R(e) expect_pair(&rg, &rr, e)

static long long client_id(struct rconn *c)
{
    char *r = rconn_call(c, "CLIENT", "ID", NULL);
    long long id = atoll(r + 1);
    free(r);
    return id;
}

/* B: CLIENT TRACKING ON REDIRECT <R's id on that server> [opt] (R's ids
 * read before it subscribed). */
static char gid[32], rid[32];

static void read_r_ids(void)
{
    snprintf(gid, sizeof gid, "%lld", client_id(&rg));
    snprintf(rid, sizeof rid, "%lld", client_id(&rr));
}

static void b_redirect_to_r(const char *opt)
{
    const char *ga[] = {"CLIENT", "TRACKING", "on", "REDIRECT", gid, opt};
    const char *ra[] = {"CLIENT", "TRACKING", "on", "REDIRECT", rid, opt};
    int argc = opt ? 6 : 5;
    rconn_send_argv(&bg, argc, ga, NULL);
    rconn_send_argv(&br, argc, ra, NULL);
    PUSH_B("+OK\r\n");
}

#define INV(key) ">2\r\n$10\r\ninvalidate\r\n*1\r\n$" key "\r\n"
#define MSG(key) "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$" key "\r\n"

static void errors(void)
{
    A("CLIENT", "TRACKING");
    A("CLIENT", "TRACKING", "maybe");
    A("CLIENT", "TRACKING", "on", "BOGUS");
    A("CLIENT", "TRACKING", "on", "PREFIX");
    A("CLIENT", "TRACKING", "on", "PREFIX", "x");
    A("CLIENT", "TRACKING", "on", "REDIRECT");
    A("CLIENT", "TRACKING", "on", "REDIRECT", "abc");
    A("CLIENT", "TRACKING", "on", "REDIRECT", "999999");
    A("CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT");
    A("CLIENT", "TRACKING", "on", "BCAST", "OPTIN");
    A("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "x", "PREFIX", "xy");
    A("CLIENT", "CACHING", "yes");
    A("CLIENT", "CACHING", "maybe");
    A("CLIENT", "GETREDIR");
    A("CLIENT", "TRACKINGINFO");
    A("CLIENT", "TRACKING", "on", "OPTIN");
    A("CLIENT", "TRACKING", "on", "OPTOUT");
    A("CLIENT", "TRACKING", "on", "BCAST");
    A("CLIENT", "CACHING", "no");
    A("CLIENT", "CACHING", "maybe");
    A("CLIENT", "TRACKING", "off");
    A("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab");
    A("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a");
    A("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "abc");
    A("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab");
    A("CLIENT", "TRACKING", "on");
    A("CLIENT", "TRACKINGINFO");
    A("CLIENT", "TRACKING", "off");
    A("CLIENT", "TRACKINGINFO");
}

/* RESP3, default mode. */
static void default_mode(void)
{
    A("FLUSHALL");
    A("CLIENT", "TRACKING", "on");
    A("CLIENT", "TRACKINGINFO");
    A("GET", "k");
    A("MGET", "k2", "k3");
    A("HGET", "h", "f");
    B("SET", "k", "1");
    PUSH_A(INV("1\r\nk"));
    B("SET", "k", "2"); /* no longer remembered: no push */
    B("HSET", "h", "f", "v");
    PUSH_A(INV("1\r\nh"));
    A("PING"); /* nothing else was pending */
    /* Its own write: the invalidation follows the reply. */
    A("GET", "k");
    rconn_send(&d.g, "SET", "k", "3", NULL);
    rconn_send(&d.r, "SET", "k", "3", NULL);
    PUSH_A("+OK\r\n");
    PUSH_A(INV("1\r\nk"));
    /* Expiry and DEL invalidate too; a write that changes nothing does not. */
    A("GET", "k");
    B("DEL", "k");
    PUSH_A(INV("1\r\nk"));
    A("GET", "k2");
    B("SET", "k2", "x", "XX");
    A("PING");
    B("SET", "k2", "y");
    PUSH_A(INV("2\r\nk2"));
    /* NOLOOP: its own writes are not announced, others' are. */
    A("CLIENT", "TRACKING", "on", "NOLOOP");
    A("GET", "k");
    A("SET", "k", "4");
    A("PING");
    A("GET", "k");
    B("SET", "k", "5");
    PUSH_A(INV("1\r\nk"));
    /* FLUSHDB / FLUSHALL: a null invalidation, whatever was read. */
    B("FLUSHDB");
    PUSH_A(">2\r\n$10\r\ninvalidate\r\n_\r\n");
    A("FLUSHALL");
    PUSH_A(">2\r\n$10\r\ninvalidate\r\n_\r\n");
    /* A transaction's reads are remembered; its writes are sent after EXEC. */
    A("MULTI");
    A("GET", "t1");
    A("SET", "t2", "v");
    A("EXEC");
    A("GET", "t2");
    A("CLIENT", "TRACKING", "on");
    B("MSET", "t1", "1", "t2", "2");
    PUSH_A(INV("2\r\nt1"));
    PUSH_A(INV("2\r\nt2"));
    A("CLIENT", "TRACKING", "off");
    B("SET", "k", "6");
    A("PING");
    /* Streams: XRANGE / XREAD / XINFO reads are remembered (XREAD's keys
     * found by its key spec); XADD, XDEL, XTRIM invalidate; XSETID and
     * group changes, which signal no modified key in Redis, do not. */
    A("CLIENT", "TRACKING", "on");
    B("XADD", "x1", "1-1", "f", "v");
    A("XRANGE", "x1", "-", "+");
    A("XREAD", "STREAMS", "x2", "x3", "0", "0");
    B("XADD", "x1", "1-2", "f", "v");
    PUSH_A(INV("2\r\nx1"));
    B("XADD", "x3", "1-1", "f", "v");
    PUSH_A(INV("2\r\nx3"));
    A("XLEN", "x1");
    B("XSETID", "x1", "5-0");
    B("XGROUP", "CREATE", "x1", "g", "0");
    A("PING");
    B("XDEL", "x1", "1-1");
    PUSH_A(INV("2\r\nx1"));
    /* Scripts: a read inside remembers the script's declared keys, not
     * the key it read (Redis remembers the caller's command's keys); a
     * script that only writes remembers nothing. */
    A("EVAL", "return redis.call('get','sread')", "2", "sk1", "sk2");
    A("EVAL_RO", "return redis.call('get','sread')", "1", "sk3");
    A("EVAL", "return redis.call('set','sw','1')", "1", "sk4");
    B("SET", "sread", "1");
    B("SET", "sk4", "1");
    B("SET", "sk1", "1");
    PUSH_A(INV("3\r\nsk1"));
    B("SET", "sk2", "1");
    PUSH_A(INV("3\r\nsk2"));
    B("SET", "sk3", "1");
    PUSH_A(INV("3\r\nsk3"));
    A("PING");
    A("CLIENT", "TRACKING", "off");
}

/* RESP2 through a subscribed redirect target. */
static void redirect_mode(void)
{
    B("FLUSHALL");
    read_r_ids();
    R("SUBSCRIBE", "__redis__:invalidate");
    b_redirect_to_r(NULL);
    B("GET", "x");
    B("MGET", "y", "z");
    A("SET", "x", "1");
    PUSH_R(MSG("1\r\nx"));
    A("MSET", "y", "1", "z", "2");
    PUSH_R(MSG("1\r\ny"));
    PUSH_R(MSG("1\r\nz"));
    B("FLUSHALL"); /* B's own null, in B's protocol */
    PUSH_R("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n");
    /* RESP2 without a redirect gets nothing (nowhere to say it). */
    B("CLIENT", "TRACKING", "off");
    B("CLIENT", "TRACKING", "on");
    B("GET", "x");
    A("SET", "x", "2");
    B("PING");
    R("PING");
    /* A shrunk tracking-table-max-keys evicts keys while the server is
     * idle (Redis's serverCron), and a REDIRECT ... NOLOOP client's target
     * is told even when that client set the limit: three of five keys,
     * which three is random, so only the count and shape are compared. */
    B("CLIENT", "TRACKING", "off");
    b_redirect_to_r("NOLOOP");
    B("MGET", "e1", "e2", "e3", "e4", "e5");
    B("CONFIG", "SET", "tracking-table-max-keys", "2");
    struct rconn *targets[] = {&rg, &rr};
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < 3; i++) {
            char *m = rconn_read_reply(targets[side], NULL);
            static const char want[] =
                "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$2\r\ne";
            CHECKF(m && strncmp(m, want, strlen(want)) == 0,
                   "%s: no idle eviction message %d: '%s'", side ? "redis" : "goblin", i,
                   m ? m : "");
            free(m);
        }
    R("PING");
    B("CONFIG", "SET", "tracking-table-max-keys", "1000000");
    B("CLIENT", "TRACKING", "off");
    B("CLIENT", "TRACKING", "on");
    /* The redirect target leaves: broken_redirect, and RESP3 is told. */
    B("CLIENT", "TRACKING", "off");
    rconn_close(&rg);
    rconn_close(&rr);
    diff_open_extra(&d, &rg, &rr);
    read_r_ids();
    const char *ga[] = {"CLIENT", "TRACKING", "on", "REDIRECT", gid};
    const char *ra[] = {"CLIENT", "TRACKING", "on", "REDIRECT", rid};
    A("CLIENT", "TRACKING", "off");
    rconn_send_argv(&d.g, 5, ga, NULL);
    rconn_send_argv(&d.r, 5, ra, NULL);
    PUSH_A("+OK\r\n");
    A("GET", "x");
    rconn_close(&rg);
    rconn_close(&rr);
    B("SET", "x", "3");
    size_t glen, rlen;
    char *g = rconn_read_reply(&d.g, &glen), *r = rconn_read_reply(&d.r, &rlen);
    CHECKF(g && r && strncmp(g, ">2\r\n$21\r\ntracking-redir-broken\r\n:", 33) == 0 &&
               strncmp(r, ">2\r\n$21\r\ntracking-redir-broken\r\n:", 33) == 0,
           "broken redirect: goblin '%s' redis '%s'", g ? g : "", r ? r : "");
    free(g);
    free(r);
    char *info = rconn_call(&d.g, "CLIENT", "TRACKINGINFO", NULL);
    CHECKF(strstr(info, "broken_redirect"), "TRACKINGINFO: %s", info);
    free(info);
    info = rconn_call(&d.r, "CLIENT", "TRACKINGINFO", NULL);
    CHECKF(strstr(info, "broken_redirect"), "redis TRACKINGINFO: %s", info);
    free(info);
    A("CLIENT", "TRACKING", "off");
    diff_open_extra(&d, &rg, &rr);
}

/* BCAST: prefixes, one push per command with its keys sorted, NOLOOP. */
static void bcast_mode(void)
{
    A("FLUSHALL");
    A("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "p:", "PREFIX", "q");
    A("CLIENT", "TRACKINGINFO");
    B("MSET", "p:2", "1", "p:1", "2", "z", "3", "qq", "4");
    PUSH_A(">2\r\n$10\r\ninvalidate\r\n*2\r\n$3\r\np:1\r\n$3\r\np:2\r\n");
    PUSH_A(">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\nqq\r\n");
    B("SET", "z", "4");
    A("PING");
    A("SET", "p:3", "x"); /* its own write: after the reply */
    PUSH_A(">2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\np:3\r\n");
    A("CLIENT", "TRACKING", "off");
    A("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP");
    A("SET", "mine", "1");
    A("PING");
    B("SET", "theirs", "1");
    PUSH_A(">2\r\n$10\r\ninvalidate\r\n*1\r\n$6\r\ntheirs\r\n");
    /* An expiry is no client's change: NOLOOP still announces it, also
     * when this client's own read deletes the key (or active expiry did). */
    A("SET", "short", "1", "PX", "1");
    A("PING");
    usleep(20 * 1000);
    struct rconn *sides[] = {&d.g, &d.r};
    for (int i = 0; i < 2; i++) {
        rconn_send(sides[i], "GET", "short", NULL);
        /* The push comes before the reply when active expiry was first. */
        char *first = rconn_read_reply(sides[i], NULL);
        char *second = rconn_read_reply(sides[i], NULL);
        bool pushed_first = first && first[0] == '>';
        CHECK_STR(pushed_first ? first : second, INV("5\r\nshort"));
        CHECK_STR(pushed_first ? second : first, "_\r\n");
        free(first);
        free(second);
    }
    A("CLIENT", "TRACKING", "off");
}

/* OPTIN / OPTOUT with CLIENT CACHING. */
static void opt_modes(void)
{
    A("FLUSHALL");
    A("CLIENT", "TRACKING", "on", "OPTIN");
    A("GET", "o1");
    A("CLIENT", "CACHING", "yes");
    A("CLIENT", "TRACKINGINFO");
    A("GET", "o2");
    A("CLIENT", "TRACKINGINFO"); /* caching-yes lasted one command */
    B("MSET", "o1", "1", "o2", "2");
    PUSH_A(INV("2\r\no2"));
    A("PING");
    A("CLIENT", "TRACKING", "off");
    A("CLIENT", "TRACKING", "on", "OPTOUT");
    A("GET", "o1");
    A("CLIENT", "CACHING", "no");
    A("GET", "o2");
    B("MSET", "o1", "3", "o2", "4");
    PUSH_A(INV("2\r\no1"));
    A("PING");
    A("CLIENT", "TRACKING", "off");
    /* RESET ends tracking. */
    A("CLIENT", "TRACKING", "on");
    A("RESET");
    A("CLIENT", "TRACKINGINFO");
}

/* tracking-table-max-keys: past it, a random remembered key is
 * invalidated before the next command (which one is random on both). */
static void table_limit(void)
{
    diff_hello3(&d); /* RESET in opt_modes went back to RESP2 */
    A("FLUSHALL");
    A("CONFIG", "SET", "tracking-table-max-keys", "1");
    A("CLIENT", "TRACKING", "on");
    A("GET", "l1");
    A("GET", "l2"); /* two keys now: one goes before the next command */
    struct rconn *sides[] = {&d.g, &d.r};
    for (int i = 0; i < 2; i++) {
        rconn_send(sides[i], "PING", NULL);
        char *push = rconn_read_reply(sides[i], NULL);
        CHECKF(push && (strcmp(push, INV("2\r\nl1")) == 0 || strcmp(push, INV("2\r\nl2")) == 0),
               "no eviction push: '%s'", push ? push : "");
        free(push);
        char *pong = rconn_read_reply(sides[i], NULL);
        CHECK_STR(pong, "+PONG\r\n");
        free(pong);
        char *info = rconn_call(sides[i], "INFO", "stats", NULL);
        CHECKF(strstr(info, "tracking_total_keys:1\r\n"), "INFO: %s", info);
        free(info);
    }
    /* A command queued in MULTI also keeps the table within the limit,
     * its push before QUEUED (Redis's #11715): two keys within a limit of
     * 2, MULTI, the limit lowered by another client, then a queued PING. */
    A("CONFIG", "SET", "tracking-table-max-keys", "2");
    A("GET", "l3");
    A("MULTI");
    B("CONFIG", "SET", "tracking-table-max-keys", "1");
    for (int i = 0; i < 2; i++) {
        rconn_send(sides[i], "PING", NULL);
        char *push = rconn_read_reply(sides[i], NULL);
        const char *lkey = ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\nl"; /* l1..l3 */
        CHECKF(push && strncmp(push, lkey, strlen(lkey)) == 0,
               "no eviction push before QUEUED: '%s'", push ? push : "");
        free(push);
        char *queued = rconn_read_reply(sides[i], NULL);
        CHECK_STR(queued, "+QUEUED\r\n");
        free(queued);
    }
    A("EXEC");
    A("CONFIG", "SET", "tracking-table-max-keys", "1000000");
    A("CLIENT", "TRACKING", "off");
}

/* maxmemory evicting a key the client tracks, before its command: the
 * invalidation precedes the reply (unit/tracking's "Tracking invalidation
 * message of eviction keys should be before response"). The limit is each
 * server's own used memory plus 100 KB, a 200 KB bitmap pushes it over. */
static void eviction_before_reply(void)
{
    A("FLUSHALL");
    A("CLIENT", "TRACKING", "on");
    A("SETEX", "volatile-key", "10000", "x");
    A("GET", "volatile-key");
    A("CONFIG", "SET", "maxmemory-policy", "volatile-random");
    struct rconn *sides[] = {&d.g, &d.r};
    for (int i = 0; i < 2; i++) {
        char *info = rconn_call(sides[i], "INFO", "memory", NULL);
        const char *at = strstr(info, "\nused_memory:");
        CHECK(at != NULL);
        char limit[32];
        snprintf(limit, sizeof limit, "%lld", atoll(at + strlen("\nused_memory:")) + 100 * 1024);
        free(info);
        char *ok = rconn_call(sides[i], "CONFIG", "SET", "maxmemory", limit, NULL);
        CHECK_STR(ok, "+OK\r\n");
        free(ok);
    }
    A("SETBIT", "big-key", "1600000", "0");
    for (int i = 0; i < 2; i++) {
        rconn_send(sides[i], "GETBIT", "big-key", "0", NULL);
        char *push = rconn_read_reply(sides[i], NULL);
        CHECK_STR(push, INV("12\r\nvolatile-key"));
        free(push);
        char *bit = rconn_read_reply(sides[i], NULL);
        CHECK_STR(bit, ":0\r\n");
        free(bit);
    }
    A("CONFIG", "SET", "maxmemory", "0");
    A("CONFIG", "SET", "maxmemory-policy", "noeviction");
    A("CLIENT", "TRACKING", "off");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_tracking");
    diff_start(&d, "diff_tracking", seed, NULL, NULL);
    diff_open_extra(&d, &bg, &br);
    diff_open_extra(&d, &rg, &rr);
    errors();
    diff_hello3(&d);
    default_mode();
    redirect_mode();
    bcast_mode();
    opt_modes();
    table_limit();
    eviction_before_reply();
    diff_stop(&d);
    return 0;
}
