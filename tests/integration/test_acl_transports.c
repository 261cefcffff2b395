/* Integration: one restricted ACL user (ACL SETUSER ro on >pw ~pub:* +get
 * +ping) is held to its rules on every wire and transport it can log in
 * over — RESP over TCP, the Unix socket, TLS (redis-cli --tls, the
 * certificates from tls_certs.sh) and a ring; SBE over the Unix
 * socket and a ring, where GET and SET are the typed templates (the path
 * that skips argv) — with Redis 7.0's NOPERM texts, and every refusal in
 * ACL LOG under the user's name with the refused command in its
 * client-info (cmd=set, cmd=get). */
#include <goblin/ring_client.h>
#include <goblin/sbe_client.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static const char no_set[] = "-NOPERM this user has no permissions to run the 'set' command\r\n";
static const char no_key[] =
    "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n";

/* --- RESP: a connection as a send/read pair ------------------------------ */

struct resp_conn {
    const char *name;
    struct rconn *sock;       /* TCP or Unix */
    struct goblin_ring *ring; /* or a ring */
};

static char *resp_call(struct resp_conn *c, int argc, const char *const *argv)
{
    if (c->sock) {
        rconn_send_argv(c->sock, argc, argv, NULL);
        return rconn_read_reply(c->sock, NULL);
    }
    CHECK(goblin_ring_send_command(c->ring, argc, argv, NULL) == 0);
    const char *reply;
    ssize_t n = goblin_ring_read_reply(c->ring, &reply, 10 * 1000000LL);
    CHECKF(n > 0, "%s: no reply", c->name);
    char *copy = malloc((size_t)n + 1);
    memcpy(copy, reply, (size_t)n);
    copy[n] = '\0';
    return copy;
}

#define RESP_EXPECT(c, expected, ...)                                                              \
    do {                                                                                           \
        const char *argv_[] = {__VA_ARGS__};                                                       \
        char *got_ = resp_call(c, (int)(sizeof argv_ / sizeof argv_[0]), argv_);                   \
        CHECKF(strcmp(got_, expected) == 0, "%s: %s: got '%s' expected '%s'", (c)->name, argv_[0], \
               got_, expected);                                                                    \
        free(got_);                                                                                \
    } while (0)

static void resp_rules(struct resp_conn *c)
{
    RESP_EXPECT(c, "+OK\r\n", "AUTH", "ro", "pw");
    RESP_EXPECT(c, "+PONG\r\n", "PING");
    RESP_EXPECT(c, "$-1\r\n", "GET", "pub:1");
    RESP_EXPECT(c, no_set, "SET", "pub:1", "v");
    RESP_EXPECT(c, no_key, "GET", "priv:1");
    RESP_EXPECT(c, "-WRONGPASS invalid username-password pair or user is disabled.\r\n", "AUTH",
                "ro", "nope");
    printf("  RESP over %s: ok\n", c->name);
}

/* --- SBE ---------------------------------------------------------------- */

/* The next reply as the RESP3 bytes Redis would send for it. */
static char *sbe_reply(struct goblin_sbe *s, int64_t id)
{
    CHECK(id > 0);
    CHECK(goblin_sbe_flush(s) == 0);
    struct goblin_sbe_reply r;
    CHECK(goblin_sbe_read_reply(s, &r, 10 * 1000000LL) == 0);
    CHECK(r.correlation == (uint64_t)id);
    char *out = NULL;
    size_t len = 0, cap = 0;
    CHECK(goblin_sbe_to_resp3(&r, 0, &out, &len, &cap) != (size_t)-1);
    out = realloc(out, len + 1);
    out[len] = '\0';
    goblin_sbe_reply_free(&r);
    return out;
}

#define SBE_EXPECT(name, s, id, expected)                                                          \
    do {                                                                                           \
        char *got_ = sbe_reply(s, id);                                                             \
        CHECKF(strcmp(got_, expected) == 0, "SBE over %s: got '%s' expected '%s'", name, got_,     \
               expected);                                                                          \
        free(got_);                                                                                \
    } while (0)

static void sbe_rules(const char *name, struct goblin_sbe *s)
{
    char err[256] = "";
    CHECKF(goblin_sbe_authenticate(s, "ro", "pw", 10 * 1000000LL, err, sizeof err) == 0,
           "SBE over %s: Auth refused: %s", name, err);
    SBE_EXPECT(name, s, goblin_sbe_ping(s), "+PONG\r\n");
    SBE_EXPECT(name, s, goblin_sbe_get(s, "pub:1", 5), "_\r\n");
    SBE_EXPECT(name, s, goblin_sbe_set(s, "pub:1", 5, "v", 1, 0, 0, 0), no_set);
    SBE_EXPECT(name, s, goblin_sbe_get(s, "priv:1", 6), no_key);
    const char *argv[] = {"SET", "pub:2", "v"};
    SBE_EXPECT(name, s, goblin_sbe_command(s, 3, argv, NULL), no_set);
    goblin_sbe_close(s);
    printf("  SBE over %s: ok\n", name);
}

/* --- TLS, through redis-cli ---------------------------------------------- */

static void tls_expect(const char *certs, int port, const char *args, const char *expected)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "timeout 10 redis-cli --tls --cacert '%s/ca.crt' -h 127.0.0.1 -p %d --user ro --pass "
             "pw --no-auth-warning %s 2>&1",
             certs, port, args);
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL);
    char out[512] = "";
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    pclose(f);
    CHECKF(strcmp(out, expected) == 0, "TLS: redis-cli %s: got '%s' expected '%s'", args, out,
           expected);
}

/* redis-cli ends an error with an empty line. */
static void tls_rules(const char *certs, int port)
{
    tls_expect(certs, port, "PING", "PONG\n");
    tls_expect(certs, port, "SET pub:1 v",
               "NOPERM this user has no permissions to run the 'set' command\n\n");
    tls_expect(
        certs, port, "GET priv:1",
        "NOPERM this user has no permissions to access one of the keys used as arguments\n\n");
    printf("  RESP over TLS: ok\n");
}

/* --- ACL LOG -------------------------------------------------------------- */

static int count_of(const char *haystack, const char *needle)
{
    int n = 0;
    for (const char *p = haystack; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

int main(void)
{
    char dir[] = "/dev/shm/goblin-acl-transports-XXXXXX";
    CHECK(mkdtemp(dir));
    char ring_resp[96], ring_sbe[96];
    snprintf(ring_resp, sizeof ring_resp, "%s/resp", dir);
    snprintf(ring_sbe, sizeof ring_sbe, "%s/sbe", dir);
    /* tls_certs.sh beside this file (__FILE__ is the absolute path CMake compiles). */
    char certs[128], script[512], cmd[1024];
    snprintf(certs, sizeof certs, "%s/certs", dir);
    snprintf(script, sizeof script, "%s", __FILE__);
    *strrchr(script, '/') = '\0';
    snprintf(cmd, sizeof cmd, "bash '%s/tls_certs.sh' '%s'", script, certs);
    CHECKF(system(cmd) == 0, "%s", cmd);
    char tls_port[16], cert[160], key[160], ca[160];
    snprintf(tls_port, sizeof tls_port, "%d", test_free_port());
    snprintf(cert, sizeof cert, "%s/server.crt", certs);
    snprintf(key, sizeof key, "%s/server.key", certs);
    snprintf(ca, sizeof ca, "%s/ca.crt", certs);
    const char *const args[] = {"--ring",
                                ring_resp,
                                "64k",
                                "--ring",
                                ring_sbe,
                                "64k",
                                "--enable-sbe",
                                "--tls-port",
                                tls_port,
                                "--tls-cert-file",
                                cert,
                                "--tls-key-file",
                                key,
                                "--tls-ca-cert-file",
                                ca,
                                "--tls-auth-clients",
                                "no",
                                NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, args);
    struct rconn admin;
    rconn_open_tcp(&admin, s.port);
    char *ok =
        rconn_call(&admin, "ACL", "SETUSER", "ro", "on", ">pw", "~pub:*", "+get", "+ping", NULL);
    CHECK_STR(ok, "+OK\r\n");
    free(ok);

    struct rconn tcp, unix_sock;
    rconn_open_tcp(&tcp, s.port);
    rconn_open_unix(&unix_sock, s.unix_path);
    struct resp_conn over_tcp = {"tcp", &tcp, NULL}, over_unix = {"unix", &unix_sock, NULL};
    resp_rules(&over_tcp);
    resp_rules(&over_unix);
    struct goblin_ring *ring = NULL;
    CHECK(goblin_ring_open(ring_resp, 10000, &ring) == 0);
    struct resp_conn over_ring = {"ring", NULL, ring};
    resp_rules(&over_ring);
    goblin_ring_close(ring);
    rconn_close(&tcp);
    rconn_close(&unix_sock);
    tls_rules(certs, atoi(tls_port));

    struct goblin_sbe *sbe = NULL;
    CHECK(goblin_sbe_connect_unix(s.unix_path, &sbe) == 0);
    sbe_rules("unix", sbe);
    CHECK(goblin_sbe_open_ring(ring_sbe, 10000, &sbe) == 0);
    sbe_rules("ring", sbe);

    /* ACL LOG merges like entries (reason, context, object, user) and
     * counts them: three RESP sessions x (SET, GET priv:1, a wrong AUTH),
     * TLS (SET, GET priv:1), two SBE sessions x (typed SET, typed GET
     * priv:1, SET by name). */
    char *log = rconn_call(&admin, "ACL", "LOG", NULL);
    CHECKF(strstr(log, ":8\r\n$6\r\nreason\r\n$7\r\ncommand\r\n$7\r\ncontext\r\n$8\r\n"
                       "toplevel\r\n$6\r\nobject\r\n$3\r\nset\r\n$8\r\nusername\r\n$2\r\nro\r\n"),
           "ACL LOG: no entry counting 8 refused SETs\n%s", log);
    CHECKF(strstr(log,
                  ":6\r\n$6\r\nreason\r\n$3\r\nkey\r\n$7\r\ncontext\r\n$8\r\n"
                  "toplevel\r\n$6\r\nobject\r\n$6\r\npriv:1\r\n$8\r\nusername\r\n$2\r\nro\r\n"),
           "ACL LOG: no entry counting 6 refused keys\n%s", log);
    CHECKF(strstr(log, ":3\r\n$6\r\nreason\r\n$4\r\nauth\r\n"), "ACL LOG: 3 failed AUTHs\n%s", log);
    CHECKF(count_of(log, " cmd=set ") == 1 && count_of(log, " cmd=get ") == 1,
           "ACL LOG: client-info names the refused commands\n%s", log);
    free(log);
    rconn_close(&admin);
    test_server_stop(&s);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    printf("test_acl_transports: ok\n");
    return 0;
}
