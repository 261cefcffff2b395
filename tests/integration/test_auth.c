/* Integration: --auth-file users with libsodium hashes (made by goblin-passwd),
 * --requirepass kept only as a hash, NOAUTH before authentication, the
 * unauthenticated protocol bounds, and a bad auth file refusing to start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

static void expect_reply(struct rconn *c, const char *expected)
{
    char *r = rconn_read_reply(c, NULL);
    CHECK_STR(r, expected);
    free(r);
}

static void make_hash(const char *password, char *out, size_t cap)
{
    const char *build = getenv("GOBLIN_BUILD_DIR");
    CHECKF(build, "GOBLIN_BUILD_DIR is not set");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "echo '%s' | '%s/goblin-passwd' --ops 1 --mem 8192", password, build);
    FILE *p = popen(cmd, "r");
    CHECK(p);
    CHECK(fgets(out, (int)cap, p) != NULL);
    CHECK(pclose(p) == 0);
    out[strcspn(out, "\n")] = '\0';
    CHECKF(strncmp(out, "$argon2id$", 10) == 0, "goblin-passwd printed '%s'", out);
}

static void auth_file_users(void)
{
    char alice[256], bob[256], path[] = "/tmp/goblin-auth-XXXXXX";
    make_hash("alice-pw", alice, sizeof alice);
    make_hash("bob pw with spaces", bob, sizeof bob);
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
    bad_auth_file_refuses_to_start();
    return 0;
}
