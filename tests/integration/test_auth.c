/* Integration: --auth-file users with libsodium hashes (made by goblin-passwd),
 * --requirepass kept only as a hash and scrubbed from the command line,
 * NOAUTH before authentication, the unauthenticated protocol bounds, a bad
 * auth file refusing to start, and the login throttle of core/auth.h:
 * failures answered late (never a refusal of the right password), one
 * source's guess rate bounded, and an unknown user costing the same
 * verification as a wrong password. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

/* Failure answers are delayed (core/auth.h): checks of elapsed time are
 * lower bounds only, which a slow (loaded, ASan) run cannot fail. */
static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void expect_reply(struct rconn *c, const char *expected)
{
    char *r = rconn_read_reply(c, NULL);
    CHECK_STR(r, expected);
    free(r);
}

static void auth_file_users(void)
{
    char alice[256], bob[256], path[] = "/tmp/goblin-auth-XXXXXX";
    test_password_hash("alice-pw", alice, sizeof alice);
    test_password_hash("bob pw with spaces", bob, sizeof bob);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# users\nalice %s\n\nbob %s\n", alice, bob);
    fclose(f);

    const char *const extra[] = {"--auth-file", path, NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    rconn_send(&c, "GET", "k", NULL);
    expect_reply(&c, "-NOAUTH Authentication required.\r\n");
    /* Bounded before authentication: no big multibulk from strangers. */
    struct rconn stranger;
    rconn_open_tcp(&stranger, s.port);
    rconn_send_raw(&stranger, "*100\r\n", 6);
    expect_reply(&stranger, "-ERR Protocol error: unauthenticated multibulk length\r\n");
    CHECK(rconn_wait_closed(&stranger, 5000));
    rconn_close(&stranger);

    rconn_send(&c, "AUTH", "alice", "wrong", NULL);
    expect_reply(&c, "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    rconn_send(&c, "AUTH", "nobody", "alice-pw", NULL);
    expect_reply(&c, "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    rconn_send(&c, "AUTH", "alice-pw", NULL); /* no default user in this file */
    expect_reply(&c, "-ERR AUTH <password> called without any password configured for the "
                     "default user. Are you sure your configuration is correct?\r\n");
    rconn_send(&c, "AUTH", "alice", "alice-pw", NULL);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "SET", "k", "v", NULL);
    expect_reply(&c, "+OK\r\n");
    /* Second time the cached digest answers; wrong passwords still fail. */
    rconn_send(&c, "AUTH", "alice", "alice-pw", NULL);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "AUTH", "alice", "alice-pw2", NULL);
    expect_reply(&c, "-WRONGPASS invalid username-password pair or user is disabled.\r\n");

    struct rconn b;
    rconn_open_tcp(&b, s.port);
    rconn_send(&b, "HELLO", "3", "AUTH", "bob", "bob pw with spaces", NULL);
    char *hello = rconn_read_reply(&b, NULL);
    CHECKF(hello[0] == '%', "HELLO 3 AUTH bob answered %s", hello);
    free(hello);
    rconn_send(&b, "GET", "k", NULL);
    expect_reply(&b, "$1\r\nv\r\n");
    rconn_close(&b);
    rconn_close(&c);
    test_server_stop(&s);
    unlink(path);
}

static void requirepass_is_not_echoed(void)
{
    const char *const extra[] = {"--requirepass", "plain-secret", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    rconn_send(&c, "AUTH", "plain-secret", NULL);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "CONFIG", "GET", "requirepass", NULL);
    char *r = rconn_read_reply(&c, NULL);
    CHECKF(strstr(r, "plain-secret") == NULL, "CONFIG GET revealed the password: %s", r);
    free(r);
    /* Changing it at runtime takes effect for new authentications. */
    rconn_send(&c, "CONFIG", "SET", "requirepass", "other", NULL);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "AUTH", "plain-secret", NULL);
    expect_reply(&c, "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    rconn_send(&c, "AUTH", "other", NULL);
    expect_reply(&c, "+OK\r\n");
    /* A password may hold any byte, a NUL too (Redis's unit/auth): the
     * whole value is the password, not its text up to the NUL. */
    const char *const set_binary[] = {"CONFIG", "SET", "requirepass", "abc\0def"};
    const size_t set_binary_len[] = {6, 3, 11, 7};
    rconn_send_argv(&c, 4, set_binary, set_binary_len);
    expect_reply(&c, "+OK\r\n");
    rconn_send(&c, "AUTH", "abc", NULL);
    expect_reply(&c, "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    const char *const auth_binary[] = {"AUTH", "abc\0def"};
    const size_t auth_binary_len[] = {4, 7};
    rconn_send_argv(&c, 2, auth_binary, auth_binary_len);
    expect_reply(&c, "+OK\r\n");
    rconn_close(&c);
    test_server_stop(&s);
}

#define WRONGPASS "-WRONGPASS invalid username-password pair or user is disabled.\r\n"

/* Writes an auth file with alice (password "alice-pw") and bob ("bob-pw");
 * `path` must be a mkstemp template. */
static void write_auth_file(char *path)
{
    char alice[256], bob[256];
    test_password_hash("alice-pw", alice, sizeof alice);
    test_password_hash("bob-pw", bob, sizeof bob);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "alice %s\nbob %s\n", alice, bob);
    fclose(f);
}

/* A numeric field of INFO stats; fails the test when it is missing. */
static long long info_stat(struct rconn *c, const char *field)
{
    char *r = rconn_call(c, "INFO", "stats", NULL);
    char key[128];
    snprintf(key, sizeof key, "\r\n%s:", field);
    char *at = strstr(r, key);
    CHECKF(at, "INFO stats has no %s field", field);
    long long v = atoll(at + strlen(key));
    free(r);
    return v;
}

/* (a) Wrong guesses are answered WRONGPASS — slowly, never refused — and
 * a right password on the same connection is answered at once: the
 * back-off slows failures only (core/auth.h). The connection stays logged
 * in; the delays are counted. */
static void guesses_are_slowed_not_refused(void)
{
    char path[] = "/tmp/goblin-auth-XXXXXX";
    write_auth_file(path);
    const char *const extra[] = {"--auth-file", path, NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    rconn_send(&c, "AUTH", "alice", "alice-pw", NULL);
    expect_reply(&c, "+OK\r\n");
    double started = seconds_now();
    for (int i = 0; i < 5; i++) {
        char guess[32];
        snprintf(guess, sizeof guess, "guess-%d", i);
        rconn_send(&c, "AUTH", i % 2 ? "nobody" : "alice", guess, NULL);
        expect_reply(&c, WRONGPASS);
    }
    /* 100 + 200 + 400 + 800 + 1600 ms of back-off at least: a lower bound,
     * which a slow run only exceeds. */
    double took = seconds_now() - started;
    CHECKF(took >= 3.0, "5 failures of one connection answered in %.2f s", took);
    rconn_send(&c, "AUTH", "alice", "alice-pw", NULL);
    expect_reply(&c, "+OK\r\n");
    CHECKF(info_stat(&c, "auth_failures_delayed") >= 5, "auth_failures_delayed not counted");
    rconn_send(&c, "SET", "k", "v", NULL);
    expect_reply(&c, "+OK\r\n");
    rconn_close(&c);
    test_server_stop(&s);
    unlink(path);
}

/* (b) Issue 29's case: while another client of the same address hammers a
 * wrong password (many connections, pipelined), 40 correct logins from
 * that address all succeed. */
static void correct_logins_succeed_during_attack(void)
{
    const char *const extra[] = {"--requirepass", "s3cret", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    enum { ATTACKERS = 8, PIPELINED = 20 };
    struct rconn attacker[ATTACKERS];
    for (int a = 0; a < ATTACKERS; a++) {
        rconn_open_tcp_from(&attacker[a], s.port, "127.0.0.1");
        for (int i = 0; i < PIPELINED; i++) rconn_send(&attacker[a], "AUTH", "wrong", NULL);
    }
    for (int i = 0; i < 40; i++) {
        struct rconn good;
        rconn_open_tcp_from(&good, s.port, "127.0.0.1");
        rconn_send(&good, i % 2 ? "AUTH" : "HELLO", i % 2 ? "s3cret" : "2", i % 2 ? NULL : "AUTH",
                   "default", "s3cret", NULL);
        char *r = rconn_read_reply(&good, NULL);
        CHECKF(strcmp(r, "+OK\r\n") == 0 || r[0] == '*', "correct login %d answered %s", i, r);
        free(r);
        rconn_close(&good);
    }
    for (int a = 0; a < ATTACKERS; a++) rconn_close(&attacker[a]);
    test_server_stop(&s);
}

/* (c) The guess rate of one source: 100 connections from one address each
 * sending one wrong password get their answers no faster than one per
 * AUTH_FAIL_SOURCE_INTERVAL_US (50 ms) — at least 99 intervals for all —
 * and a source's connections beyond AUTH_FAIL_SOURCE_FAILING_MAX queued
 * failures are closed after their answer. Another address meanwhile is
 * answered at its own pace. */
static void source_guess_rate_is_bounded(void)
{
    const char *const extra[] = {"--requirepass", "s3cret", "--maxclients", "1000", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    enum { N = 100 };
    static struct rconn c[N];
    double started = seconds_now();
    for (int i = 0; i < N; i++) {
        rconn_open_tcp_from(&c[i], s.port, "127.0.0.1");
        rconn_send(&c[i], "AUTH", "wrong", NULL);
    }
    struct rconn other;
    rconn_open_tcp_from(&other, s.port, "127.0.0.2");
    rconn_send(&other, "AUTH", "wrong", NULL);
    expect_reply(&other, WRONGPASS);
    rconn_send(&other, "AUTH", "s3cret", NULL);
    expect_reply(&other, "+OK\r\n");
    int closed = 0;
    for (int i = 0; i < N; i++) {
        expect_reply(&c[i], WRONGPASS);
        if (i >= 20) closed += rconn_wait_closed(&c[i], 10000);
    }
    double took = seconds_now() - started;
    CHECKF(took >= 99 * 0.05, "100 failures of one address answered in %.2f s (bound: 20/s)", took);
    CHECKF(closed > 0, "no failing connection of the flooding address was closed");
    for (int i = 0; i < N; i++) rconn_close(&c[i]);
    rconn_close(&other);
    test_server_stop(&s);
}

/* (c) An unknown user answers exactly what a wrong password does and costs
 * the same work: one password-hash verification each, whether the user is
 * cached, uncached or absent (counted by INFO, never timed). */
static void unknown_user_costs_a_verification(void)
{
    char path[] = "/tmp/goblin-auth-XXXXXX";
    write_auth_file(path);
    const char *const extra[] = {"--auth-file", path, NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    rconn_send(&c, "AUTH", "alice", "alice-pw", NULL); /* alice's digest is now cached */
    expect_reply(&c, "+OK\r\n");
    static const char *const attempts[][2] = {
        {"alice", "wrong"}, /* known, cached */
        {"bob", "wrong"},   /* known, not cached */
        {"nobody", "wrong"},
        {"alicf", "alice-pw"},
    };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        long long before = info_stat(&c, "auth_pwhash_verifications");
        rconn_send(&c, "AUTH", attempts[i][0], attempts[i][1], NULL);
        expect_reply(&c, WRONGPASS);
        long long after = info_stat(&c, "auth_pwhash_verifications");
        CHECKF(after == before + 1, "AUTH %s %s ran %lld verifications, want 1", attempts[i][0],
               attempts[i][1], after - before);
    }
    rconn_close(&c);
    test_server_stop(&s);
    unlink(path);

    /* The same with only --requirepass (a SHA-256 password, as Redis keeps
     * it): a wrong password for the default user and a guess at a user
     * that does not exist do the same work — no Argon2 for either. */
    const char *const pass[] = {"--requirepass", "s3cret", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, pass);
    struct rconn admin; /* reads INFO; its right password costs a digest compare only */
    rconn_open_tcp(&admin, s.port);
    rconn_send(&admin, "AUTH", "s3cret", NULL);
    expect_reply(&admin, "+OK\r\n");
    CHECK(info_stat(&admin, "auth_pwhash_verifications") == 0);
    rconn_open_tcp(&c, s.port);
    static const char *const guesses[][2] = {{"default", "wrong"}, {"nobody", "wrong"}};
    for (size_t i = 0; i < 2; i++) {
        long long before = info_stat(&admin, "auth_pwhash_verifications");
        rconn_send(&c, "HELLO", "3", "AUTH", guesses[i][0], guesses[i][1], NULL);
        expect_reply(&c, WRONGPASS);
        long long after = info_stat(&admin, "auth_pwhash_verifications");
        CHECKF(after == before, "HELLO AUTH %s ran %lld verifications, want 0", guesses[i][0],
               after - before);
    }
    rconn_close(&admin);
    rconn_close(&c);
    test_server_stop(&s);
}

/* (d) The password given on the command line is overwritten in the running
 * server's argv, in both flag forms: /proc/<pid>/cmdline does not show it. */
static void requirepass_is_scrubbed_from_cmdline(void)
{
    const char *const extra[] = {"--requirepass=first-cmdline-secret", "--requirepass",
                                 "second-cmdline-secret", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    rconn_send(&c, "AUTH", "second-cmdline-secret", NULL); /* the server is up and parsed */
    expect_reply(&c, "+OK\r\n");
    char proc[64], cmdline[8192];
    snprintf(proc, sizeof proc, "/proc/%d/cmdline", (int)s.pid);
    int fd = open(proc, O_RDONLY);
    CHECKF(fd >= 0, "cannot open %s", proc);
    ssize_t n = read(fd, cmdline, sizeof cmdline - 1);
    close(fd);
    CHECK(n > 0);
    for (ssize_t i = 0; i < n; i++)
        if (cmdline[i] == '\0') cmdline[i] = ' ';
    cmdline[n] = '\0';
    CHECKF(strstr(cmdline, "--requirepass"), "not the server's command line: %s", cmdline);
    CHECKF(!strstr(cmdline, "secret"), "the command line shows the password: %s", cmdline);
    rconn_close(&c);
    test_server_stop(&s);
}

static void bad_auth_file_refuses_to_start(void)
{
    char path[] = "/tmp/goblin-auth-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, "alice plaintext-password\n", 25) == 25);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "'%s' --port 0 --unixsocket /tmp/goblin-never.sock --auth-file %s 2>&1",
             getenv("GOBLIN_SERVER"), path);
    FILE *p = popen(cmd, "r");
    char out[1024] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) != 0, "server started with a bad auth file");
    CHECKF(strstr(out, "line 1") && strstr(out, path), "error does not name file and line: %s",
           out);
    unlink(path);
}

int main(void)
{
    auth_file_users();
    requirepass_is_not_echoed();
    guesses_are_slowed_not_refused();
    correct_logins_succeed_during_attack();
    source_guess_rate_is_bounded();
    unknown_user_costs_a_verification();
    requirepass_is_scrubbed_from_cmdline();
    bad_auth_file_refuses_to_start();
    return 0;
}
