/* Integration: --auth-file users with libsodium hashes (made by goblin-passwd),
 * --requirepass kept only as a hash and scrubbed from the command line,
 * NOAUTH before authentication, the unauthenticated protocol bounds, a bad
 * auth file refusing to start, and the cost model of core/auth.h: failure
 * budgets per source and per user (counted, never timed), and an unknown
 * user costing the same verification as a wrong password. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

/* The budgets refill with time (one failure per 2 s per source, one per
 * second per user): a check of how many guesses were refused allows for
 * the time the guesses took, so a slow (loaded, ASan) run cannot fail it. */
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
    rconn_close(&c);
    test_server_stop(&s);
}

#define WRONGPASS "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
#define THROTTLED                                                                                  \
    "-ERR too many failed AUTH attempts from this client address or for this user, try again "     \
    "later\r\n"

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

/* (a) Wrong guesses after a successful login are checked against the cached
 * digest; they must still spend the source's failure budget: after it, the
 * reply is the throttle error and even the right password is not looked at. */
static void cached_guesses_are_throttled(void)
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
    int wrong = 0, throttled = 0;
    char *last = NULL;
    double started = seconds_now();
    for (int i = 0; i < 30; i++) {
        char guess[32];
        snprintf(guess, sizeof guess, "guess-%d", i);
        free(last);
        last = rconn_call(&c, "AUTH", "alice", guess, NULL);
        if (strcmp(last, WRONGPASS) == 0)
            wrong++;
        else if (strcmp(last, THROTTLED) == 0)
            throttled++;
        else
            CHECKF(false, "guess %d answered %s", i, last);
    }
    /* Burst of 5 per source, then one per 2 s of the time the guesses took. */
    int refilled = (int)((seconds_now() - started) / 2.0) + 1;
    CHECKF(wrong >= 5 && wrong <= 5 + refilled, "%d of 30 guesses were evaluated (want 5, burst)",
           wrong);
    CHECKF(throttled == 30 - wrong, "%d guesses throttled", throttled);
    CHECK_STR(last, THROTTLED);
    free(last);
    rconn_send(&c, "AUTH", "alice", "alice-pw", NULL);
    expect_reply(&c, THROTTLED);
    /* Unknown users spend the same budget and get the same answer. */
    rconn_send(&c, "AUTH", "nobody", "x", NULL);
    expect_reply(&c, THROTTLED);
    CHECKF(info_stat(&c, "auth_throttled") >= 24, "auth_throttled not counted");
    /* The connection stays logged in as alice: a failed AUTH logs nobody out. */
    rconn_send(&c, "SET", "k", "v", NULL);
    expect_reply(&c, "+OK\r\n");
    rconn_close(&c);
    test_server_stop(&s);
    unlink(path);
}

/* (b) While one source address is throttled, a client from another address
 * logs in — for the very user being guessed at, on its first (uncached)
 * login: one source can spend neither the user's budget nor the server-wide
 * verification cap. */
static void other_source_logs_in_during_attack(void)
{
    char path[] = "/tmp/goblin-auth-XXXXXX";
    write_auth_file(path);
    const char *const extra[] = {"--auth-file", path, NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn attacker, user;
    rconn_open_tcp_from(&attacker, s.port, "127.0.0.1");
    rconn_open_tcp_from(&user, s.port, "127.0.0.2");
    bool refused = false;
    for (int i = 0; i < 40 && !refused; i++) {
        char guess[32];
        snprintf(guess, sizeof guess, "guess-%d", i);
        char *r = rconn_call(&attacker, "AUTH", i % 2 ? "alice" : "nobody", guess, NULL);
        refused = strcmp(r, WRONGPASS) != 0;
        free(r);
    }
    CHECKF(refused, "40 guesses from one address were all evaluated");
    rconn_send(&user, "AUTH", "alice", "alice-pw", NULL);
    expect_reply(&user, "+OK\r\n");
    rconn_send(&user, "HELLO", "2", "AUTH", "bob", "bob-pw", NULL);
    char *hello = rconn_read_reply(&user, NULL);
    CHECKF(hello[0] == '*', "HELLO 2 AUTH bob from 127.0.0.2 answered %s", hello);
    free(hello);
    /* The attacker's address is still refused. */
    rconn_send(&attacker, "AUTH", "bob", "bob-pw", NULL);
    expect_reply(&attacker, THROTTLED);
    rconn_close(&attacker);
    rconn_close(&user);
    test_server_stop(&s);
    unlink(path);
}

/* Guessers at "default" from several addresses spend the user's budget; it
 * then refuses the addresses that failed, while a client from a clean
 * address still logs in (with --requirepass every client is "default"). */
static void many_sources_cannot_lock_out_a_user(void)
{
    const char *const extra[] = {"--requirepass", "s3cret", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    static const char *const guessers[] = {"127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.14"};
    int refused = 0;
    double started = seconds_now();
    for (int g = 0; g < 4; g++) {
        struct rconn c;
        rconn_open_tcp_from(&c, s.port, guessers[g]);
        for (int i = 0; i < 8; i++) {
            char *r = rconn_call(&c, "AUTH", "wrong", NULL);
            if (strcmp(r, THROTTLED) == 0)
                refused++;
            else
                CHECK_STR(r, WRONGPASS);
            free(r);
        }
        rconn_close(&c);
    }
    /* The user's budget (10, then one per second) admits at most 10 + the
     * seconds taken + 1 of the 32; each source's (5, then one per 2 s) at
     * most 5 + its share. Only a run slow enough for both to refill them
     * all can see no refusal. */
    double took = seconds_now() - started;
    if (took < 20.0)
        CHECKF(refused > 0, "32 guesses from 4 addresses in %.1f s were never refused", took);
    else
        fprintf(stderr, "test_auth: 32 guesses took %.1f s; budgets refilled\n", took);
    struct rconn clean;
    rconn_open_tcp_from(&clean, s.port, "127.0.0.20");
    rconn_send(&clean, "AUTH", "s3cret", NULL);
    expect_reply(&clean, "+OK\r\n");
    rconn_close(&clean);
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

    /* The same with only --requirepass: a wrong password for the default user
     * is verified like a guess at a user that does not exist. */
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
        CHECKF(after == before + 1, "HELLO AUTH %s ran %lld verifications, want 1", guesses[i][0],
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
    cached_guesses_are_throttled();
    other_source_logs_in_during_attack();
    many_sources_cannot_lock_out_a_user();
    unknown_user_costs_a_verification();
    requirepass_is_scrubbed_from_cmdline();
    bad_auth_file_refuses_to_start();
    return 0;
}
