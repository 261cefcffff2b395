/*
 * Security holes of issue 25 (configuration, authentication, memory), each
 * reproduced against a real server; where Redis answers, redis-server
 * 7.0.15 is run beside it and the replies must be the same bytes.
 *
 *  - protected configs: CONFIG SET dir / dbfilename refused with Redis's
 *    text unless enable-protected-configs allows it (yes, or local: from
 *    127.0.0.1 but not from 127.0.0.2, as Redis); Redis's check order
 *    (unknown name first, nothing applied when any is refused); the
 *    enable-* settings read back as Redis's;
 *  - DEBUG SLEEP of values whose microseconds overflow answers at once as
 *    Redis's does; DEBUG POPULATE with a huge count or value size answers
 *    an error instead of aborting or eating the machine (Redis does both:
 *    there is nothing to compare), and stops at maxmemory;
 *  - SBE with a password: NOAUTH for every frame but the Auth template
 *    (also a generic Command carrying AUTH), AUTH's texts, over TCP, Unix
 *    and a ring; --auth-file users by the Auth template's username; the
 *    failure throttle is one budget per source for both wires (its
 *    allowance computed from the elapsed time, never a timing asserted);
 *    a frame longer than an Auth frame before authenticating closes the
 *    connection; --no-auth-sbe skips it on sockets only; ring files 0600,
 *    ours;
 *  - unauthenticated clients: the parser's argument bounds answer Redis's
 *    bytes; four clients pipelining GET without reading are disconnected by
 *    both servers, and four SBE clients pipelining Ping frames (answered
 *    NOAUTH by the wire) by goblin-core, whose used memory and peak RSS
 *    stay near their baseline;
 *  - cluster bus: 20 links declaring 64 MiB messages are closed and leave
 *    used_memory near its baseline and evict nothing (redis-server: the
 *    same data set survives too); 200 KB bus messages (PUBLISH between two
 *    nodes) leave the receiver's accounting where it was; a link that names
 *    a known node and declares 64 MiB holds only what it sent, and gives it
 *    back when it closes.
 */
#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <goblin/sbe_client.h>

#include "diff.h"

/* Monotonic seconds: bounds of waits for an event, and the elapsed time a
 * rate limit's allowance is computed from (never a speed asserted). */
static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long long info_ll(struct rconn *c, const char *section, const char *field)
{
    size_t len;
    char *r = rconn_call(c, "INFO", section, NULL);
    char key[96];
    snprintf(key, sizeof key, "\r\n%s:", field);
    char *at = strstr(r, key);
    CHECKF(at != NULL, "INFO %s has no %s", section, field);
    long long v = atoll(at + strlen(key));
    (void)len;
    free(r);
    return v;
}

static void expect_reply(struct rconn *c, const char *want, ...)
{
    va_list ap;
    va_start(ap, want);
    const char *argv[16];
    size_t lens[16];
    int argc = 0;
    for (const char *a; (a = va_arg(ap, const char *)) != NULL;) {
        argv[argc] = a;
        lens[argc++] = strlen(a);
    }
    va_end(ap);
    rconn_send_argv(c, argc, argv, lens);
    size_t len;
    char *r = rconn_read_reply(c, &len);
    CHECKF(len == strlen(want) && memcmp(r, want, len) == 0, "%s: got %.*s, want %s", argv[0],
           (int)len, r, want);
    free(r);
}

/* --- protected configs ------------------------------------------------ */

static void protected_configs(unsigned long long seed)
{
    struct diff_pair d;
    diff_start(&d, "security_protected_configs", seed, NULL, NULL);
    diff_check(&d, "CONFIG", "SET", "dir", "/tmp", NULL);
    diff_check(&d, "CONFIG", "SET", "dbfilename", "authorized_keys", NULL);
    diff_check(&d, "CONFIG", "SET", "DIR", "/tmp", "maxmemory", "1", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory", "1", "dbfilename", "x", NULL);
    diff_check(&d, "CONFIG", "GET", "maxmemory", NULL); /* nothing was applied */
    diff_check(&d, "CONFIG", "SET", "dir", "/tmp", "nosuch", "1", NULL);
    diff_check(&d, "CONFIG", "SET", "nosuch", "1", "dir", "/tmp", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory", "1", "maxmemory", "2", "dir", "/tmp", NULL);
    diff_check(&d, "CONFIG", "SET", "dir", "/tmp", "port", "1", NULL);
    diff_check(&d, "CONFIG", "SET", "enable-protected-configs", "yes", NULL);
    diff_check(&d, "CONFIG", "SET", "enable-module-command", "yes", NULL);
    diff_check(&d, "CONFIG", "GET", "enable-protected-configs", NULL);
    diff_check(&d, "CONFIG", "GET", "enable-module-command", NULL);
    diff_check(&d, "CONFIG", "GET", "enable-debug-command", NULL);
    diff_check(&d, "CONFIG", "GET", "dbfilename", NULL);
    /* No file may be written where a client chose: SAVE still goes to the
     * configured place. */
    diff_check(&d, "SET", "x", "\n\nssh-rsa AAAA\n\n", NULL);
    diff_stop(&d);

    /* local: from 127.0.0.1, not from 127.0.0.2 (Redis's islocalClient). */
    const char *const local[] = {"--enable-protected-configs", "local", "--protected-mode", "no",
                                 NULL};
    diff_start(&d, "security_protected_local", seed, local, local);
    diff_check(&d, "CONFIG", "SET", "dbfilename", "local.rdb", NULL);
    diff_check(&d, "CONFIG", "GET", "dbfilename", NULL);
    diff_check(&d, "CONFIG", "GET", "enable-protected-configs", NULL);
    struct rconn g, r;
    rconn_open_tcp_from(&g, d.goblin.port, "127.0.0.2");
    rconn_open_tcp_from(&r, d.redis.port, "127.0.0.2");
    diff_check_on(&d, &g, &r, "CONFIG", "SET", "dbfilename", "remote.rdb", NULL);
    diff_check_on(&d, &g, &r, "CONFIG", "SET", "dir", "/tmp", NULL);
    diff_check_on(&d, &g, &r, "CONFIG", "GET", "dbfilename", NULL);
    rconn_close(&g);
    rconn_close(&r);
    diff_stop(&d);

    const char *const yes[] = {"--enable-protected-configs", "yes", NULL};
    diff_start(&d, "security_protected_yes", seed, yes, yes);
    diff_check(&d, "CONFIG", "SET", "dbfilename", "yes.rdb", NULL);
    diff_check(&d, "CONFIG", "GET", "dbfilename", NULL);
    diff_stop(&d);
    printf("protected configs: ok\n");
}

/* --- DEBUG ------------------------------------------------------------ */

static void debug_bounds(unsigned long long seed)
{
    struct diff_pair d;
    const char *const extra[] = {"--enable-debug-command", "yes", NULL};
    diff_start(&d, "security_debug", seed, extra, extra);
    /* Each answers at once on both (rconn's 10 s timeout would fail a
     * sleep for ever): microseconds out of a long long's range, NaN,
     * negatives and text sleep not at all. */
    static const char *const sleeps[] = {
        "1e300",  "-1",  "inf", "-inf", "nan",   "1e18", "9223372036854775807",
        "9.3e12", "abc", "0",   "-0.5", "1e-300"};
    for (size_t i = 0; i < sizeof sleeps / sizeof sleeps[0]; i++)
        diff_check(&d, "DEBUG", "SLEEP", sleeps[i], NULL);
    diff_check(&d, "DEBUG", "POPULATE", "5", "p", "3", NULL);
    diff_check(&d, "DEBUG", "POPULATE", "-1", NULL);
    diff_check(&d, "MGET", "p:0", "p:4", NULL);
    /* Redis aborts here (zmalloc of 2^63 bytes) or fills the machine with
     * keys; goblin-core answers errors and goes on. */
    expect_reply(&d.g, "-ERR DEBUG POPULATE value size is larger than proto-max-bulk-len\r\n",
                 "DEBUG", "POPULATE", "1", "x", "9223372036854775807", NULL);
    expect_reply(&d.g, "-ERR OOM in dictTryExpand\r\n", "DEBUG", "POPULATE", "9223372036854775807",
                 NULL);
    expect_reply(&d.g, "-ERR OOM in dictTryExpand\r\n", "DEBUG", "POPULATE", "4611686018427387904",
                 "k", "1", NULL);
    expect_reply(&d.g, "+PONG\r\n", "PING", NULL);
    diff_stop(&d);

    struct test_server s;
    const char *const capped[] = {"--enable-debug-command", "yes", "--maxmemory", "20mb", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, capped);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    size_t len;
    char *r = rconn_call(&c, "DEBUG", "POPULATE", "1000000", "big", "100", NULL);
    CHECKF(strncmp(r, "-ERR DEBUG POPULATE stopped after ", 34) == 0 &&
               strstr(r, "used memory reached maxmemory"),
           "populate past maxmemory: %s", r);
    free(r);
    (void)len;
    long long used = info_ll(&c, "memory", "used_memory");
    CHECKF(used < 24LL << 20, "used_memory %lld after a populate capped at 20mb", used);
    rconn_close(&c);
    test_server_stop(&s);
    printf("debug bounds: ok\n");
}

/* --- SBE authentication ------------------------------------------------ */

static void sbe_expect(struct goblin_sbe *s, int64_t id, const char *want_resp3)
{
    CHECKF(id >= 0, "request: %s", strerror((int)-id)); /* 0: a connection-level error */
    struct goblin_sbe_reply r;
    int rc = goblin_sbe_read_reply(s, &r, 10 * 1000000LL);
    CHECKF(rc == 0, "read_reply: %s", strerror(-rc));
    CHECK_EQ_LL(r.correlation, (uint64_t)id);
    char *out = NULL;
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < r.count;) i = goblin_sbe_to_resp3(&r, i, &out, &len, &cap);
    CHECKF(len == strlen(want_resp3) && memcmp(out, want_resp3, len) == 0, "got %.*s want %s",
           (int)len, out, want_resp3);
    free(out);
    goblin_sbe_reply_free(&r);
}

/* The RESP bytes AUTH answers on a fresh connection to the same server. */
static char *resp_auth_reply(int port, const char *password)
{
    struct rconn c;
    rconn_open_tcp(&c, port);
    char *r = rconn_call(&c, "AUTH", password, NULL);
    rconn_close(&c);
    return r;
}

static void sbe_session_requires_auth(struct goblin_sbe *s, int port)
{
    const char *auth_cmd[] = {"AUTH", "secret"};
    sbe_expect(s, goblin_sbe_ping(s), "-NOAUTH Authentication required.\r\n");
    sbe_expect(s, goblin_sbe_get(s, "k", 1), "-NOAUTH Authentication required.\r\n");
    sbe_expect(s, goblin_sbe_command(s, 2, auth_cmd, NULL), "-NOAUTH Authentication required.\r\n");
    char *wrong = resp_auth_reply(port, "wrong");
    sbe_expect(s, goblin_sbe_auth(s, NULL, 0, "wrong", 5), wrong);
    free(wrong);
    sbe_expect(s, goblin_sbe_ping(s), "-NOAUTH Authentication required.\r\n");
    char err[256];
    CHECK_EQ_LL(goblin_sbe_authenticate(s, "default", "secret", 10000000, err, sizeof err), 0);
    sbe_expect(s, goblin_sbe_ping(s), "+PONG\r\n");
    sbe_expect(s, goblin_sbe_set(s, "k", 1, "v", 1, 0, GOBLIN_SBE_EXPIRE_KIND_NONE, 0), "+OK\r\n");
    sbe_expect(s, goblin_sbe_get(s, "k", 1), "$1\r\nv\r\n");
    /* RESET ends the authentication, as over RESP. */
    const char *reset[] = {"RESET"};
    sbe_expect(s, goblin_sbe_command(s, 1, reset, NULL), "+RESET\r\n");
    sbe_expect(s, goblin_sbe_ping(s), "-NOAUTH Authentication required.\r\n");
    CHECK_EQ_LL(goblin_sbe_authenticate(s, NULL, "secret", 10000000, err, sizeof err), 0);
    sbe_expect(s, goblin_sbe_ping(s), "+PONG\r\n");
}

/* The failure throttle is AUTH's, one budget per source for both wires.
 * From 127.0.0.1 on a fresh server, SBE Auth frames and RESP AUTHs take
 * turns, each with a wrong password: both wires get the login throttle's
 * treatment (core/auth.h) — a WRONGPASS answered after the back-off, never
 * a refusal — whichever wire they came on. */
static void sbe_auth_throttle_shared(void)
{
    struct test_server s;
    const char *const extra[] = {"--requirepass", "secret", "--enable-sbe", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    enum { GUESSES = 16 };
    int evaluated = 0, refused = 0;
    double started = seconds_now();
    for (int i = 0; i < GUESSES; i++) {
        char text[512];
        if (i % 2 == 0) {
            struct goblin_sbe *c;
            CHECK_EQ_LL(goblin_sbe_connect_tcp("127.0.0.1", s.port, &c), 0);
            char err[256];
            CHECK_EQ_LL(goblin_sbe_authenticate(c, NULL, "guess", 10000000, err, sizeof err),
                        -EACCES);
            snprintf(text, sizeof text, "-%s\r\n", err);
            goblin_sbe_close(c);
        } else {
            char *r = resp_auth_reply(s.port, "guess");
            snprintf(text, sizeof text, "%s", r);
            free(r);
        }
        if (strcmp(text, "-WRONGPASS invalid username-password pair or user is disabled.\r\n") == 0)
            evaluated++;
        else
            CHECKF(false, "guess %d (%s) answered %s", i, i % 2 ? "RESP" : "SBE", text);
    }
    (void)refused;
    /* Every guess is answered WRONGPASS (never refused), each after its
     * connection's back-off: a lower bound only. */
    double took = seconds_now() - started;
    CHECK_EQ_LL(evaluated, GUESSES);
    CHECKF(took >= GUESSES * 0.1, "%d SBE/RESP failures answered in %.2f s", GUESSES, took);
    test_server_stop(&s);
}

/* --auth-file users authenticate over SBE with the Auth template's
 * username, with the same texts as RESP's AUTH user password. */
static void sbe_auth_file_user(void)
{
    char hash[256], path[] = "/tmp/goblin-sec-auth-XXXXXX";
    test_password_hash("alice-pw", hash, sizeof hash);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "alice %s\n", hash);
    fclose(f);
    struct test_server s;
    const char *const extra[] = {"--auth-file", path, "--enable-sbe", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct goblin_sbe *c;
    CHECK_EQ_LL(goblin_sbe_connect_unix(s.unix_path, &c), 0);
    sbe_expect(c, goblin_sbe_ping(c), "-NOAUTH Authentication required.\r\n");
    struct rconn r;
    rconn_open_tcp(&r, s.port);
    char *wrong = rconn_call(&r, "AUTH", "alice", "bob-pw", NULL);
    rconn_close(&r);
    sbe_expect(c, goblin_sbe_auth(c, "alice", 5, "bob-pw", 6), wrong);
    free(wrong);
    char err[256];
    CHECK_EQ_LL(goblin_sbe_authenticate(c, "alice", "alice-pw", 10000000, err, sizeof err), 0);
    sbe_expect(c, goblin_sbe_set(c, "k", 1, "v", 1, 0, GOBLIN_SBE_EXPIRE_KIND_NONE, 0), "+OK\r\n");
    sbe_expect(c, goblin_sbe_get(c, "k", 1), "$1\r\nv\r\n");
    goblin_sbe_close(c);
    test_server_stop(&s);
    unlink(path);
}

static void sbe_auth(void)
{
    char dir[] = "/dev/shm/goblin-sec-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char ring[128], pool[128];
    snprintf(ring, sizeof ring, "%s/a.ring", dir);
    snprintf(pool, sizeof pool, "%s/pool", dir);
    struct test_server s;
    const char *const extra[] = {
        "--requirepass", "secret", "--enable-sbe", "--ring", ring, "64k", "--ring-pool", pool, "2",
        "64k",           NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    /* Rings are their own access control: 0600 files of the server's user. */
    char pooled[160];
    snprintf(pooled, sizeof pooled, "%s/ring-1", pool);
    const char *files[] = {ring, pooled};
    for (int i = 0; i < 2; i++) {
        struct stat st;
        CHECK(stat(files[i], &st) == 0);
        CHECKF((st.st_mode & 07777) == 0600 && st.st_uid == getuid(), "%s: mode %o uid %u",
               files[i], (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
    }
    struct goblin_sbe *c;
    CHECK_EQ_LL(goblin_sbe_connect_tcp("127.0.0.1", s.port, &c), 0);
    sbe_session_requires_auth(c, s.port);
    goblin_sbe_close(c);
    CHECK_EQ_LL(goblin_sbe_connect_unix(s.unix_path, &c), 0);
    sbe_session_requires_auth(c, s.port);
    goblin_sbe_close(c);
    CHECK_EQ_LL(goblin_sbe_open_ring(ring, 2000, &c), 0);
    sbe_expect(c, goblin_sbe_ping(c), "-NOAUTH Authentication required.\r\n");
    char err[256];
    CHECK_EQ_LL(goblin_sbe_authenticate(c, NULL, "secret", 10000000, err, sizeof err), 0);
    sbe_expect(c, goblin_sbe_get(c, "k", 1), "$1\r\nv\r\n");
    goblin_sbe_close(c);

    /* Before authenticating, a frame longer than an Auth frame can be ends
     * the connection: a stranger holds no more than that. */
    CHECK_EQ_LL(goblin_sbe_connect_tcp("127.0.0.1", s.port, &c), 0);
    uint8_t hdr[12] = {0};
    goblin_sbe_put_u32(hdr, 64u << 20);
    CHECK_EQ_LL(goblin_sbe_send_raw(c, hdr, sizeof hdr), 0);
    sbe_expect(c, 0,
               "-ERR Protocol error: unauthenticated SBE frame length 67108864 (at most "
               "32832 before Auth)\r\n");
    struct goblin_sbe_reply r;
    CHECK(goblin_sbe_read_reply(c, &r, 10 * 1000000LL) == -EPIPE);
    goblin_sbe_close(c);

    test_server_stop(&s);
    sbe_auth_throttle_shared();
    sbe_auth_file_user();

    /* --no-auth-sbe: sockets' SBE trusted; RESP still asks, rings too. */
    const char *const trusted[] = {"--requirepass", "secret", "--enable-sbe", "--no-auth-sbe",
                                   "--ring",        ring,     "64k",          NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, trusted);
    CHECK_EQ_LL(goblin_sbe_connect_tcp("127.0.0.1", s.port, &c), 0);
    sbe_expect(c, goblin_sbe_ping(c), "+PONG\r\n");
    goblin_sbe_close(c);
    CHECK_EQ_LL(goblin_sbe_open_ring(ring, 2000, &c), 0);
    sbe_expect(c, goblin_sbe_ping(c), "-NOAUTH Authentication required.\r\n");
    goblin_sbe_close(c);
    struct rconn rc;
    rconn_open_tcp(&rc, s.port);
    expect_reply(&rc, "-NOAUTH Authentication required.\r\n", "PING", NULL);
    rconn_close(&rc);
    test_server_stop(&s);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    printf("sbe auth: ok\n");
}

/* --- unauthenticated clients ------------------------------------------ */

/* How long a server may neither take a byte nor close before
 * pipeline_until_closed() concludes it stopped reading and holds what it
 * has: a bound on waiting for the server's event, far past any stall of a
 * loaded machine; a server that closes ends the wait at once. */
#define STALL_SECONDS 120.0

/* Sends `request` (one request's bytes) again and again without reading a
 * reply, until the server closes the connection (true), `cap` bytes were
 * sent, or it took nothing for STALL_SECONDS (false: it kept the client). */
static bool pipeline_until_closed(int fd, const void *request, size_t request_len, size_t cap)
{
    char chunk[64 * 1024];
    size_t n = 0;
    while (n + request_len <= sizeof chunk) {
        memcpy(chunk + n, request, request_len);
        n += request_len;
    }
    size_t sent = 0;
    double progress = seconds_now();
    while (sent < cap && seconds_now() - progress < STALL_SECONDS) {
        /* From where the last send stopped: the stream stays whole requests. */
        size_t at = sent % n;
        ssize_t w = send(fd, chunk + at, n - at, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT | POLLRDHUP};
            poll(&p, 1, 100);
            if (p.revents & (POLLERR | POLLHUP | POLLRDHUP)) return true;
            continue;
        }
        if (w < 0) return true; /* EPIPE, ECONNRESET: closed by the server */
        sent += (size_t)w;
        progress = seconds_now();
    }
    return false;
}

/* Four strangers to `srv` that pipeline `request` without reading: each
 * must be closed before it has sent 1 GiB (client-query-buffer-limit: a
 * server that parks their input closes them only past it) or stalled. */
static void four_strangers(const struct test_server *srv, const char *who, const char *handshake,
                           const void *request, size_t request_len)
{
    struct rconn c[4];
    for (int i = 0; i < 4; i++) {
        rconn_open_tcp(&c[i], srv->port);
        if (handshake) rconn_send_raw(&c[i], handshake, strlen(handshake));
    }
    for (int i = 0; i < 4; i++)
        CHECKF(pipeline_until_closed(c[i].fd, request, request_len, 1u << 30),
               "%s kept stranger %d (sent 1 GiB, or it stopped reading)", who, i);
    for (int i = 0; i < 4; i++) rconn_close(&c[i]);
}

static void unauthenticated(unsigned long long seed)
{
    struct diff_pair d;
    const char *const gx[] = {"--requirepass", "p", "--enable-sbe", NULL};
    const char *const rx[] = {"--requirepass", "p", NULL};
    diff_start(&d, "security_unauthenticated", seed, gx, rx);
    /* The parser's bounds before AUTH: Redis's texts, then closed. */
    struct rconn g, r;
    diff_open_extra(&d, &g, &r);
    rconn_send_raw(&g, "*11\r\n", 5);
    rconn_send_raw(&r, "*11\r\n", 5);
    size_t gl, rl;
    char *gr = rconn_read_reply(&g, &gl), *rr = rconn_read_reply(&r, &rl);
    CHECKF(gl == rl && memcmp(gr, rr, gl) == 0, "multibulk: %.*s vs %.*s", (int)gl, gr, (int)rl,
           rr);
    free(gr);
    free(rr);
    CHECK(rconn_wait_closed(&g, 10000) && rconn_wait_closed(&r, 10000));
    rconn_close(&g);
    rconn_close(&r);
    diff_open_extra(&d, &g, &r);
    rconn_send_raw(&g, "*2\r\n$16385\r\n", 12);
    rconn_send_raw(&r, "*2\r\n$16385\r\n", 12);
    gr = rconn_read_reply(&g, &gl);
    rr = rconn_read_reply(&r, &rl);
    CHECKF(gl == rl && memcmp(gr, rr, gl) == 0, "bulk: %.*s vs %.*s", (int)gl, gr, (int)rl, rr);
    free(gr);
    free(rr);
    CHECK(rconn_wait_closed(&g, 10000) && rconn_wait_closed(&r, 10000));
    rconn_close(&g);
    rconn_close(&r);

    /* Four strangers pipelining GET without reading: both servers close
     * them. Then four over SBE pipelining Ping frames (each answered
     * NOAUTH by the wire, not by a command): goblin-core closes them too.
     * Its memory stays near where it was, at its peak as well. */
    diff_check(&d, "AUTH", "p", NULL);
    long long before = info_ll(&d.g, "memory", "used_memory");
    long peak_before = test_server_peak_rss_kb(&d.goblin);
    long long dropped = info_ll(&d.g, "stats", "client_output_buffer_limit_disconnections");
    static const char get[] = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
    four_strangers(&d.goblin, "goblin-core (RESP)", NULL, get, sizeof get - 1);
    four_strangers(&d.redis, "redis-server (RESP)", NULL, get, sizeof get - 1);
    uint8_t ping[GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH + GOBLIN_SBE_PING_BLOCK_LENGTH];
    goblin_sbe_put_u32(ping, sizeof ping - GOBLIN_SBE_FRAME_PREFIX);
    goblin_sbe_put_u16(ping + 4, GOBLIN_SBE_PING_BLOCK_LENGTH);
    goblin_sbe_put_u16(ping + 6, GOBLIN_SBE_PING_TEMPLATE_ID);
    goblin_sbe_put_u16(ping + 8, GOBLIN_SBE_SCHEMA_ID);
    goblin_sbe_put_u16(ping + 10, GOBLIN_SBE_SCHEMA_VERSION);
    goblin_sbe_put_u64(ping + 12, 1);
    four_strangers(&d.goblin, "goblin-core (SBE)", "GOBLINS!", ping, sizeof ping);
    long long after = info_ll(&d.g, "memory", "used_memory");
    long peak_after = test_server_peak_rss_kb(&d.goblin);
    CHECKF(after < before + (4 << 20), "used_memory %lld -> %lld", before, after);
    CHECKF(peak_after < peak_before + 64 * 1024, "peak RSS %ld -> %ld KiB", peak_before,
           peak_after);
    CHECK_EQ_LL(info_ll(&d.g, "stats", "client_output_buffer_limit_disconnections") - dropped, 8);
    diff_check(&d, "PING", NULL);
    diff_stop(&d);
    printf("unauthenticated clients: ok\n");
}

/* --- cluster bus -------------------------------------------------------- */

static int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    return fd;
}

static void wait_cluster_ok(struct rconn *c)
{
    for (int i = 0; i < 500; i++) {
        char *r = rconn_call(c, "CLUSTER", "INFO", NULL);
        bool ok = strstr(r, "cluster_state:ok") != NULL;
        free(r);
        if (ok) return;
        usleep(20000);
    }
    CHECKF(false, "cluster_state never became ok");
}

static void bus_strangers(unsigned long long seed)
{
    char gbus[16], rbus[16];
    snprintf(gbus, sizeof gbus, "%d", test_free_port());
    snprintf(rbus, sizeof rbus, "%d", test_free_port());
    const char *const gx[] = {"--cluster-enabled",
                              "yes",
                              "--cluster-port",
                              gbus,
                              "--maxmemory",
                              "200mb",
                              "--maxmemory-policy",
                              "allkeys-lru",
                              NULL};
    const char *const rx[] = {"--cluster-enabled",
                              "yes",
                              "--cluster-port",
                              rbus,
                              "--maxmemory",
                              "200mb",
                              "--maxmemory-policy",
                              "allkeys-lru",
                              NULL};
    struct diff_pair d;
    diff_start(&d, "security_bus", seed, gx, rx);
    diff_check(&d, "CLUSTER", "ADDSLOTSRANGE", "0", "16383", NULL);
    wait_cluster_ok(&d.g);
    wait_cluster_ok(&d.r);
    diff_check(&d, "DEBUG", "POPULATE", "1000", NULL); /* refused alike: DEBUG is off */
    for (int i = 0; i < 1000; i++) {
        char key[32];
        snprintf(key, sizeof key, "key:{a}%d", i);
        diff_check(&d, "SET", key, "value", NULL);
    }
    long long before = info_ll(&d.g, "memory", "used_memory");
    int fds[2][20];
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 20; i++) {
            fds[k][i] = tcp_connect(atoi(k ? rbus : gbus));
            static const uint8_t hdr[8] = {'R', 'C', 'm', 'b', 0x04, 0x00, 0x00, 0x00}; /* 64 MiB */
            CHECK(send(fds[k][i], hdr, sizeof hdr, MSG_NOSIGNAL) == 8);
            char junk[4096];
            memset(junk, 'x', sizeof junk);
            send(fds[k][i], junk, sizeof junk, MSG_NOSIGNAL); /* may find it closed */
        }
    }
    /* goblin-core closes each (a link from an unknown node may declare at
     * most 32 KiB): waiting for that is waiting until it has read them. */
    for (int i = 0; i < 20; i++)
        CHECKF(test_fd_wait_closed(fds[0][i], 60000),
               "goblin-core kept bus stranger %d, which declared a 64 MiB message", i);
    diff_check(&d, "DBSIZE", NULL); /* 1000 on both: nothing evicted */
    long long after = info_ll(&d.g, "memory", "used_memory");
    CHECKF(after < before + (2 << 20), "used_memory %lld -> %lld after 20 bus strangers", before,
           after);
    CHECK_EQ_LL(info_ll(&d.g, "stats", "evicted_keys"), 0);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 20; i++) close(fds[k][i]);
    diff_stop(&d);
    printf("cluster bus strangers: ok\n");
}

static void put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    put_be16(p, (uint16_t)(v >> 16));
    put_be16(p + 2, (uint16_t)v);
}

static void send_all(int fd, const void *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = send(fd, (const char *)p + off, n - off, MSG_NOSIGNAL);
        CHECKF(w > 0, "send: %s", strerror(errno));
        off += (size_t)w;
    }
}

/* Bytes the process has read through read() and friends (/proc/PID/io). */
static long long process_read_bytes(const struct test_server *s)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/io", (int)s->pid);
    FILE *f = fopen(path, "r");
    CHECKF(f, "cannot open %s: %s", path, strerror(errno));
    long long v = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "rchar:", 6) == 0) v = atoll(line + 6);
    fclose(f);
    CHECKF(v >= 0, "no rchar in %s", path);
    return v;
}

/* A link that names a node b knows (a's name: bus peers learn it from any
 * PONG) is past the stranger's bound and may send long messages, but b's
 * memory still follows the bytes that arrived: a header declaring 64 MiB
 * and 1 MiB of the message add about that MiB to used_memory (the old
 * reading reserved the declared length up front), and closing the link
 * gives it back through the accounting allocator. */
static void forged_known_peer(const struct test_server *b, struct rconn *ca, struct rconn *cb,
                              struct rconn *sub, const char *bus_b)
{
    char *id = rconn_call(ca, "CLUSTER", "MYID", NULL);
    CHECKF(strncmp(id, "$40\r\n", 5) == 0, "CLUSTER MYID: %s", id);
    free(rconn_call(sub, "SUBSCRIBE", "forged", NULL));
    /* A PUBLISH "forged" "hi" as a's (header, lengths, data padded to 8). */
    uint8_t msg[2256 + 16] = {0};
    memcpy(msg, "RCmb", 4);
    put_be32(msg + 4, sizeof msg);
    put_be16(msg + 8, 1);  /* protocol version */
    put_be16(msg + 12, 4); /* CLUSTERMSG_TYPE_PUBLISH */
    memcpy(msg + 40, id + 5, 40);
    put_be32(msg + 2256, 6);
    put_be32(msg + 2260, 2);
    memcpy(msg + 2264, "forgedhi", 8);
    free(id);
    int fd = tcp_connect(atoi(bus_b));
    send_all(fd, msg, sizeof msg);
    /* Its delivery: b took the link's message as a's. */
    for (bool delivered = false; !delivered;) {
        size_t len;
        char *m = rconn_read_reply(sub, &len);
        delivered = strstr(m, "$6\r\nforged\r\n$2\r\nhi\r\n") != NULL;
        free(m);
    }
    long long before = info_ll(cb, "memory", "used_memory");
    long long read_before = process_read_bytes(b);
    size_t part = 1u << 20;
    uint8_t *head = calloc(1, part);
    memcpy(head, "RCmb", 4);
    put_be32(head + 4, 64u << 20);
    send_all(fd, head, part);
    free(head);
    /* Until b has read the whole part (60 s bound on that event). */
    double started = seconds_now();
    while (process_read_bytes(b) - read_before < (long long)part) {
        CHECKF(seconds_now() - started < 60, "the cluster node did not read 1 MiB from its link");
        usleep(10000);
    }
    long long during = info_ll(cb, "memory", "used_memory");
    CHECKF(during < before + (8 << 20),
           "used_memory %lld -> %lld holding 1 MiB of a message declared 64 MiB", before, during);
    close(fd);
    for (long long now = during; now >= before + (1 << 20);
         now = info_ll(cb, "memory", "used_memory")) {
        CHECKF(seconds_now() - started < 120,
               "used_memory %lld -> %lld after the link closed: its buffer was not given back",
               before, now);
        usleep(10000);
    }
}

static void bus_big_messages(void)
{
    char bus_a[16], bus_b[16];
    snprintf(bus_a, sizeof bus_a, "%d", test_free_port());
    snprintf(bus_b, sizeof bus_b, "%d", test_free_port());
    const char *const ax[] = {"--cluster-enabled", "yes", "--cluster-port", bus_a, NULL};
    const char *const bx[] = {"--cluster-enabled", "yes", "--cluster-port", bus_b, NULL};
    struct test_server a, b;
    test_server_start(&a, TEST_SERVER_GOBLIN, ax);
    test_server_start(&b, TEST_SERVER_GOBLIN, bx);
    struct rconn ca, cb, sub;
    rconn_open_tcp(&ca, a.port);
    rconn_open_tcp(&cb, b.port);
    free(rconn_call(&ca, "CLUSTER", "ADDSLOTSRANGE", "0", "16383", NULL));
    char port[16];
    snprintf(port, sizeof port, "%d", b.port);
    free(rconn_call(&ca, "CLUSTER", "MEET", "127.0.0.1", port, bus_b, NULL));
    wait_cluster_ok(&cb);
    rconn_open_tcp(&sub, b.port);
    free(rconn_call(&sub, "SUBSCRIBE", "big", NULL));
    /* One PUBLISH first: links and the subscriber settle. */
    size_t big_len = 200 * 1024;
    char *big = malloc(big_len + 1);
    memset(big, 'm', big_len);
    big[big_len] = '\0';
    /* PUBLISH until the first arrives: the nodes' links are then up. */
    char *first = NULL;
    for (int i = 0; i < 100 && !first; i++) {
        free(rconn_call(&ca, "PUBLISH", "big", big, NULL));
        first = rconn_try_read_reply(&sub, &(size_t){0}, 200);
    }
    CHECKF(first != NULL, "no PUBLISH crossed the bus");
    free(first);
    /* Late copies of the retries. */
    while ((first = rconn_try_read_reply(&sub, &(size_t){0}, 500)) != NULL) free(first);
    long long before = info_ll(&cb, "memory", "used_memory");
    for (int i = 0; i < 20; i++) {
        free(rconn_call(&ca, "PUBLISH", "big", big, NULL));
        size_t len;
        char *m = rconn_read_reply(&sub, &len);
        CHECKF(len > big_len, "message %d of %zu bytes", i, len);
        free(m);
    }
    long long after = info_ll(&cb, "memory", "used_memory");
    CHECKF(after < before + (1 << 20), "used_memory %lld -> %lld after 20 bus messages of 200 KB",
           before, after);
    free(big);
    forged_known_peer(&b, &ca, &cb, &sub, bus_b);
    rconn_close(&sub);
    rconn_close(&ca);
    rconn_close(&cb);
    test_server_stop(&a);
    test_server_stop(&b);
    printf("cluster bus big messages: ok\n");
}

int main(void)
{
    unsigned long long seed = test_seed("security");
    protected_configs(seed);
    debug_bounds(seed);
    sbe_auth();
    unauthenticated(seed);
    bus_strangers(seed);
    bus_big_messages();
    printf("security: ok\n");
    return 0;
}
