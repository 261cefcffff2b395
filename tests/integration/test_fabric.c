/* Integration: the libfabric FI_EP_RDM transport against a real server on
 * real providers over loopback — tcp (as tcp;ofi_rxm), shm and udp;ofi_rxd:
 * two logical clients at once, PING, an 8 KiB SET/GET (larger than any
 * provider's inject size here), pipelined HSET/HGET at depth 64, Pub/Sub
 * delivery to a subscriber session (correlation 0), forced fi_send on both
 * sides, heartbeats keeping an idle session alive while a silent one
 * expires, AUTH required / --no-auth-libfabric, a wrong envelope version
 * refused with both ranges named, and an absent provider refused at
 * startup with fi_getinfo's error.
 *
 * A provider is skipped only when fi_info reports it absent (and the test
 * says so); with every provider absent the test fails. */
#include <errno.h>
#include <goblin/fabric_client.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/* Short enough to keep the test quick, long enough that a client's own
 * connect (fi_getinfo scans every provider: seconds on a loaded machine)
 * does not outlast it. */
#define LEASE_MS "3000"

static void expect(struct goblin_fabric *f, const char *expected)
{
    const char *reply;
    ssize_t n = goblin_fabric_read_reply(f, &reply, 10 * 1000000LL);
    CHECKF(n > 0, "no reply (%zd): %s", n, goblin_fabric_error(f));
    CHECKF((size_t)n == strlen(expected) && memcmp(reply, expected, (size_t)n) == 0,
           "got '%.*s' expected '%s'", (int)n, reply, expected);
}

static void call(struct goblin_fabric *f, const char *expected, int argc, const char *const *argv)
{
    CHECK(goblin_fabric_send_command(f, argc, argv, NULL) == 0);
    expect(f, expected);
}

#define CALL(f, expected, ...)                                                                     \
    do {                                                                                           \
        const char *argv_[] = {__VA_ARGS__};                                                       \
        call(f, expected, (int)(sizeof argv_ / sizeof argv_[0]), argv_);                           \
    } while (0)

static struct goblin_fabric *open_client(const char *provider, int port,
                                         const struct goblin_fabric_options *opt)
{
    struct goblin_fabric *f = NULL;
    char err[256] = "";
    int rc = goblin_fabric_connect(provider, "127.0.0.1", port, opt, &f, err, sizeof err);
    CHECKF(rc == 0, "connect over %s to bootstrap port %d: %s (%s)", provider, port, err,
           strerror(-rc));
    return f;
}

static bool provider_present(const char *provider)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "fi_info -p '%s' -t FI_EP_RDM >/dev/null 2>&1", provider);
    return system(cmd) == 0;
}

/* Over TCP, which needs AUTH on these servers (only libfabric skips it). */
static long long connected_clients(int port)
{
    struct rconn r;
    rconn_open_tcp(&r, port);
    size_t len;
    free(rconn_call(&r, "AUTH", "s3cret", NULL));
    char *info = rconn_call(&r, "INFO", "clients", NULL);
    const char *at = strstr(info, "connected_clients:");
    CHECK(at != NULL);
    long long n = atoll(at + strlen("connected_clients:"));
    free(info);
    rconn_close(&r);
    (void)len;
    return n - 1; /* not this one */
}

/* Two clients at once, PING, 8 KiB SET/GET, pipelining, Pub/Sub. */
static void commands(const char *provider, int port)
{
    struct goblin_fabric *a = open_client(provider, port, NULL);
    struct goblin_fabric *b = open_client(provider, port, NULL);
    CALL(a, "+PONG\r\n", "PING");
    CALL(b, "+PONG\r\n", "PING");
    CALL(a, "+OK\r\n", "SET", "shared", "from-a");
    CALL(b, "$6\r\nfrom-a\r\n", "GET", "shared");

    /* 8 KiB: larger than every provider's inject size, so fi_send both ways. */
    static char big[8192 + 1], expected[8192 + 32];
    for (size_t i = 0; i < 8192; i++) big[i] = (char)('a' + i % 26);
    CALL(a, "+OK\r\n", "SET", "big", big);
    snprintf(expected, sizeof expected, "$8192\r\n%s\r\n", big);
    CALL(b, expected, "GET", "big");

    /* Depth 64: every request sent before the first reply is read. */
    char field[32], value[32], reply[64];
    for (int i = 0; i < 64; i++) {
        snprintf(field, sizeof field, "f%d", i);
        snprintf(value, sizeof value, "v%d", i * 7);
        const char *argv[] = {"HSET", "h", field, value};
        CHECK(goblin_fabric_send_command(b, 4, argv, NULL) == 0);
    }
    for (int i = 0; i < 64; i++) expect(b, ":1\r\n");
    for (int i = 0; i < 64; i++) {
        snprintf(field, sizeof field, "f%d", i);
        const char *argv[] = {"HGET", "h", field};
        CHECK(goblin_fabric_send_command(b, 3, argv, NULL) == 0);
    }
    for (int i = 0; i < 64; i++) {
        snprintf(value, sizeof value, "v%d", i * 7);
        snprintf(reply, sizeof reply, "$%zu\r\n%s\r\n", strlen(value), value);
        expect(b, reply);
    }
    struct goblin_fabric_stats st;
    goblin_fabric_get_stats(b, &st);
    CHECKF(st.last_correlation == 3 + 64 + 64, "replies echo the request sequence (got %llu)",
           (unsigned long long)st.last_correlation);

    /* Pub/Sub: b subscribes, a publishes, b receives an unsolicited push. */
    CALL(b, "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n", "SUBSCRIBE", "news");
    CALL(a, ":1\r\n", "PUBLISH", "news", "hello fabric");
    expect(b, "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$12\r\nhello fabric\r\n");
    goblin_fabric_get_stats(b, &st);
    CHECKF(st.last_correlation == 0, "a push carries correlation 0 (got %llu)",
           (unsigned long long)st.last_correlation);
    goblin_fabric_get_stats(a, &st);
    CHECKF(st.injected > 0, "small requests went by fi_inject");
    CHECKF(st.sent_with_fi_send > 0, "the 8 KiB request went by fi_send");
    goblin_fabric_close(a);
    goblin_fabric_close(b);
}

/* Client-side forced fi_send (the server side is forced in auth()). */
static void forced_send(const char *provider, int port)
{
    struct goblin_fabric_options opt = {.force_send = 1};
    struct goblin_fabric *f = open_client(provider, port, &opt);
    CALL(f, "+PONG\r\n", "PING");
    CALL(f, "$6\r\nfrom-a\r\n", "GET", "shared");
    struct goblin_fabric_stats st;
    goblin_fabric_get_stats(f, &st);
    CHECKF(st.injected == 0 && st.sent_with_fi_send >= 3, "injected %llu, fi_send %llu",
           (unsigned long long)st.injected, (unsigned long long)st.sent_with_fi_send);
    goblin_fabric_close(f);
}

/* An idle client that polls pings and stays; a silent one is expired by the
 * server (BYE: -EPIPE on the client) and its conn released. */
static void heartbeat_and_expiry(const char *provider, int port, int tcp_port)
{
    /* The silent one first: it may expire while the other connects. */
    struct goblin_fabric_options silent_opt = {.no_heartbeat = 1};
    struct goblin_fabric *silent = open_client(provider, port, &silent_opt);
    struct goblin_fabric *alive = open_client(provider, port, NULL);
    struct goblin_fabric_stats st;
    goblin_fabric_get_stats(alive, &st);
    CHECK_EQ_LL(st.lease_ms, atoi(LEASE_MS));
    /* Until the silent one is gone and the live one has pinged twice (so
     * it has been idle for two thirds of the lease). */
    int silent_rc = 0;
    for (int i = 0; i < 3000 && (silent_rc == 0 || st.pings_sent < 2); i++) { /* ~30 s max */
        CHECKF(goblin_fabric_poll(alive) == 0, "the pinging client was dropped: %s",
               goblin_fabric_error(alive));
        if (silent_rc == 0) silent_rc = goblin_fabric_poll(silent);
        goblin_fabric_get_stats(alive, &st);
        usleep(10000);
    }
    CHECKF(silent_rc == -EPIPE, "the silent session was not expired");
    CHECKF(strstr(goblin_fabric_error(silent), "expired") != NULL, "why: %s",
           goblin_fabric_error(silent));
    CALL(alive, "+PONG\r\n", "PING");
    goblin_fabric_get_stats(alive, &st);
    CHECKF(st.pings_sent >= 2 && st.pongs_received >= 1, "pings %llu pongs %llu",
           (unsigned long long)st.pings_sent, (unsigned long long)st.pongs_received);
    CHECK_EQ_LL(connected_clients(tcp_port), 1); /* the expired session was released */
    goblin_fabric_close(silent);
    goblin_fabric_close(alive);
    /* A BYE ends the session at once. */
    for (int i = 0; i < 500 && connected_clients(tcp_port) != 0; i++) usleep(10000);
    CHECK_EQ_LL(connected_clients(tcp_port), 0);
}

static void wrong_version(const char *provider, int port)
{
    struct goblin_fabric_options opt = {.version_min = 2, .version_max = 3};
    struct goblin_fabric *f = NULL;
    char err[256] = "";
    int rc = goblin_fabric_connect(provider, "127.0.0.1", port, &opt, &f, err, sizeof err);
    CHECKF(rc == -ECONNREFUSED, "rc %d (%s)", rc, err);
    CHECK_STR(err, "ERR unsupported libfabric envelope versions 2..3: this server speaks 1..1");
    /* A range that includes the server's version is accepted. */
    opt.version_min = 1;
    f = open_client(provider, port, &opt);
    struct goblin_fabric_stats st;
    goblin_fabric_get_stats(f, &st);
    CHECK_EQ_LL(st.version, 1);
    CALL(f, "+PONG\r\n", "PING");
    goblin_fabric_close(f);
}

/* AUTH over the fabric (the server forcing fi_send), then a trusted fabric
 * (--no-auth-libfabric) whose TCP clients still need AUTH; the trusted
 * server has a short lease for the heartbeat test. */
static void auth_and_heartbeat(const char *provider)
{
    char boot[16];
    snprintf(boot, sizeof boot, "%d", test_free_port());
    const char *args[] = {
        "--requirepass",          "s3cret", "--libfabric", provider, "127.0.0.1", boot,
        "--libfabric-force-send", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, args);
    struct goblin_fabric *f = open_client(provider, atoi(boot), NULL);
    CALL(f, "-NOAUTH Authentication required.\r\n", "PING");
    CALL(f, "-WRONGPASS invalid username-password pair or user is disabled.\r\n", "AUTH", "nope");
    CALL(f, "+OK\r\n", "AUTH", "s3cret");
    static char big[8192 + 1], expected[8192 + 32];
    memset(big, 'z', 8192);
    CALL(f, "+OK\r\n", "SET", "big", big); /* server replies by fi_send (forced) */
    snprintf(expected, sizeof expected, "$8192\r\n%s\r\n", big);
    CALL(f, expected, "GET", "big");
    goblin_fabric_close(f);
    test_server_stop(&s);

    snprintf(boot, sizeof boot, "%d", test_free_port());
    const char *trusted[] = {
        "--requirepass", "s3cret", "--libfabric",         provider,
        "127.0.0.1",     boot,     "--no-auth-libfabric", "--efa-heartbeat-timeout-ms",
        LEASE_MS,        NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, trusted);
    f = open_client(provider, atoi(boot), NULL);
    CALL(f, "+PONG\r\n", "PING");
    goblin_fabric_close(f);
    struct rconn r;
    rconn_open_tcp(&r, s.port);
    char *reply = rconn_call(&r, "PING", NULL);
    CHECK_STR(reply, "-NOAUTH Authentication required.\r\n");
    free(reply);
    rconn_close(&r);
    heartbeat_and_expiry(provider, atoi(boot), s.port);
    test_server_stop(&s);
}

static void provider_run(const char *provider)
{
    char boot[16];
    snprintf(boot, sizeof boot, "%d", test_free_port());
    const char *args[] = {"--libfabric", provider, "127.0.0.1", boot, "--efa-heartbeat-timeout-ms",
                          "0",           NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, args);
    commands(provider, atoi(boot));
    forced_send(provider, atoi(boot));
    wrong_version(provider, atoi(boot));
    test_server_stop(&s);
    auth_and_heartbeat(provider);
    printf("  %s: ok\n", provider);
}

/* A provider that cannot give FI_EP_RDM is a startup error naming it. */
static void absent_provider(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "'%s' --port 0 --mlockall no --libfabric no-such-provider 127.0.0.1 %d 2>&1 | "
             "grep -q \"provider 'no-such-provider' offers no FI_EP_RDM endpoint.*fi_getinfo\"",
             getenv("GOBLIN_SERVER"), test_free_port());
    CHECKF(system(cmd) == 0, "startup error for an absent provider");
}

int main(void)
{
    const char *providers[] = {"tcp;ofi_rxm", "shm", "udp;ofi_rxd"};
    /* Against the ASan server one provider covers the server's code paths
     * (the providers differ below it); the plain run takes all three. */
    size_t count = getenv("GOBLIN_ASAN") ? 1 : sizeof providers / sizeof providers[0];
    int ran = 0;
    absent_provider();
    for (size_t i = 0; i < count; i++) {
        if (!provider_present(providers[i])) {
            printf("  SKIP %s: fi_info -p '%s' -t FI_EP_RDM reports it absent\n", providers[i],
                   providers[i]);
            continue;
        }
        provider_run(providers[i]);
        ran++;
    }
    CHECKF(ran > 0, "no libfabric provider present (fi_info)");
    printf("test_fabric: ok (%d providers)\n", ran);
    return 0;
}
