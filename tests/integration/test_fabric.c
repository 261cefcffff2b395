/* Integration: the libfabric FI_EP_RDM transport against a real server on
 * real providers over loopback — tcp (as tcp;ofi_rxm), shm and udp;ofi_rxd:
 * two logical clients at once, PING, an 8 KiB SET/GET (larger than any
 * provider's inject size here), pipelined HSET/HGET at depth 64, Pub/Sub
 * delivery to a subscriber session (correlation 0), forced fi_send on both
 * sides, heartbeats keeping an idle session alive while a silent one
 * expires, AUTH required / --no-auth-libfabric, a wrong envelope version
 * refused with both ranges named, and an absent provider refused at
 * startup with fi_getinfo's error. The SBE wire over the same sessions
 * (--enable-sbe: PING, SET/GET incl. 8 KiB, HSET/HGET at depth 64, Pub/Sub
 * push frames). Peer-driven state: one AV entry per client endpoint name,
 * at most --libfabric-sessions-per-peer sessions on it (a raw endpoint
 * from goblin/fabric_ep.h opens several), entries removed when sessions
 * end, hello/bye cycles leaving INFO libfabric's tables where they were.
 * Locality: --enable-debug-command local allows DEBUG from 127.0.0.1 and
 * from shm, refuses it from 127.0.0.2 with Redis's error.
 *
 * A provider is skipped only when fi_info reports it absent (and the test
 * says so); with every provider absent the test fails. */
#include <errno.h>
#include <goblin/fabric_client.h>
#include <goblin/fabric_ep.h>
#include <goblin/sbe_client.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/fi_cm.h>
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

/* A field of INFO libfabric for target 0, over TCP (AUTH when password). */
static long long fabric_stat(int tcp_port, const char *password, const char *field)
{
    struct rconn r;
    rconn_open_tcp(&r, tcp_port);
    if (password) free(rconn_call(&r, "AUTH", password, NULL));
    char *info = rconn_call(&r, "INFO", "libfabric", NULL);
    char key[96];
    snprintf(key, sizeof key, "\nlibfabric0_%s:", field);
    const char *at = strstr(info, key);
    CHECKF(at != NULL, "INFO libfabric has no %s: %s", field, info);
    long long n = atoll(at + strlen(key));
    free(info);
    rconn_close(&r);
    return n;
}

/* Waits (polling INFO) until a field reaches want; returns its last value. */
static long long fabric_stat_wait(int tcp_port, const char *password, const char *field,
                                  long long want)
{
    long long v = fabric_stat(tcp_port, password, field);
    for (int i = 0; i < 500 && v != want; i++) { /* ~5 s */
        usleep(10000);
        v = fabric_stat(tcp_port, password, field);
    }
    return v;
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

/* Two clients at once, PING, 8 KiB SET/GET, pipelining, Pub/Sub. Returns
 * the publishing client, still open (sbe_over_fabric publishes with it:
 * a tcp;ofi_rxm endpoint takes seconds to open on a loaded machine). */
static struct goblin_fabric *commands(const char *provider, int port)
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
    goblin_fabric_close(b);
    return a;
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
    CHECK_EQ_LL(fabric_stat(tcp_port, "s3cret", "sessions_expired"), 1);
    CHECK_EQ_LL(fabric_stat(tcp_port, "s3cret", "sessions_active"), 1);
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
    /* Forced: no reply left by fi_inject. */
    CHECK_EQ_LL(fabric_stat(s.port, "s3cret", "frames_tx_inject"), 0);
    CHECK(fabric_stat(s.port, "s3cret", "frames_tx_send") >= 5);
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

/* --- SBE over the fabric (--enable-sbe, GOBLINS! on the first message) --- */

static struct goblin_sbe *open_sbe(const char *provider, int port)
{
    struct goblin_sbe *s = NULL;
    char err[256] = "";
    int rc = goblin_sbe_connect_fabric(provider, "127.0.0.1", port, NULL, &s, err, sizeof err);
    CHECKF(rc == 0, "SBE over %s: %s (%s)", provider, err, strerror(-rc));
    return s;
}

/* The reply to `correlation` is one value of `kind` with bytes `data`
 * (NULL: only the integer `integer` checked). */
static void sbe_expect(struct goblin_sbe *s, int64_t correlation, uint8_t kind, const char *data,
                       long long integer)
{
    CHECKF(correlation > 0, "request failed: %lld", (long long)correlation);
    struct goblin_sbe_reply r;
    int rc = goblin_sbe_read_reply(s, &r, 10 * 1000000LL);
    CHECKF(rc == 0, "read_reply: %s", strerror(-rc));
    CHECK_EQ_LL(r.correlation, correlation);
    CHECKF(r.count >= 1 && r.values[0].kind == kind, "kind %u, want %u",
           r.count ? r.values[0].kind : 255, kind);
    if (data)
        CHECKF(r.values[0].len == strlen(data) &&
                   memcmp(r.values[0].data, data, r.values[0].len) == 0,
               "got '%.*s' want '%.40s'", (int)r.values[0].len, r.values[0].data, data);
    else
        CHECK_EQ_LL(r.values[0].integer, integer);
    goblin_sbe_reply_free(&r);
}

/* PING, SET/GET (8 KiB: fi_send), HSET/HGET at depth 64, and Pub/Sub push
 * frames from a RESP publisher (pub, a RESP session) to an SBE subscriber. */
static void sbe_over_fabric(const char *provider, int port, struct goblin_fabric *pub)
{
    struct goblin_sbe *s = open_sbe(provider, port);
    sbe_expect(s, goblin_sbe_ping(s), GOBLIN_SBE_VALUE_KIND_STATUS, "PONG", 0);
    sbe_expect(s, goblin_sbe_set(s, "sk", 2, "sv", 2, 0, GOBLIN_SBE_EXPIRE_KIND_NONE, 0),
               GOBLIN_SBE_VALUE_KIND_STATUS, "OK", 0);
    sbe_expect(s, goblin_sbe_get(s, "sk", 2), GOBLIN_SBE_VALUE_KIND_BULK, "sv", 0);
    static char big[8192 + 1];
    for (size_t i = 0; i < 8192; i++) big[i] = (char)('A' + i % 26);
    sbe_expect(s, goblin_sbe_set(s, "sbig", 4, big, 8192, 0, GOBLIN_SBE_EXPIRE_KIND_NONE, 0),
               GOBLIN_SBE_VALUE_KIND_STATUS, "OK", 0);
    sbe_expect(s, goblin_sbe_get(s, "sbig", 4), GOBLIN_SBE_VALUE_KIND_BULK, big, 0);

    /* Depth 64: every request queued (one pipelined flush) before a reply. */
    int64_t ids[64];
    char field[16], value[16];
    for (int i = 0; i < 64; i++) {
        int fl = snprintf(field, sizeof field, "f%d", i);
        int vl = snprintf(value, sizeof value, "s%d", i * 3);
        ids[i] = goblin_sbe_hset(s, "sh", 2, field, (size_t)fl, value, (size_t)vl);
    }
    for (int i = 0; i < 64; i++) sbe_expect(s, ids[i], GOBLIN_SBE_VALUE_KIND_INT, NULL, 1);
    for (int i = 0; i < 64; i++) {
        int fl = snprintf(field, sizeof field, "f%d", i);
        ids[i] = goblin_sbe_hget(s, "sh", 2, field, (size_t)fl);
    }
    for (int i = 0; i < 64; i++) {
        snprintf(value, sizeof value, "s%d", i * 3);
        sbe_expect(s, ids[i], GOBLIN_SBE_VALUE_KIND_BULK, value, 0);
    }

    /* Pub/Sub: the SBE session subscribes; a RESP session publishes. */
    int64_t c = goblin_sbe_subscribe(s, GOBLIN_SBE_SUBSCRIBE_TEMPLATE_ID, 1,
                                     (const char *[]){"sbenews"}, NULL);
    struct goblin_sbe_reply r;
    CHECK(c > 0 && goblin_sbe_read_reply(s, &r, 10 * 1000000LL) == 0);
    CHECK_EQ_LL(r.correlation, c);
    CHECK_EQ_LL(r.push_kind, GOBLIN_SBE_PUSH_KIND_SUBSCRIBE);
    goblin_sbe_reply_free(&r);
    for (int i = 0; i < 3; i++) CALL(pub, ":1\r\n", "PUBLISH", "sbenews", "over sbe");
    for (int i = 0; i < 3; i++) {
        int rc = goblin_sbe_read_push(s, &r, 10 * 1000000LL);
        CHECKF(rc == 0, "read_push: %s", strerror(-rc));
        CHECK_EQ_LL(r.correlation, 0);
        CHECK_EQ_LL(r.template_id, GOBLIN_SBE_PUSH_TEMPLATE_ID);
        CHECK_EQ_LL(r.push_kind, GOBLIN_SBE_PUSH_KIND_MESSAGE);
        CHECK(r.count == 4 && r.values[3].len == 8 && memcmp(r.values[3].data, "over sbe", 8) == 0);
        goblin_sbe_reply_free(&r);
    }
    /* A subscribed SBE session still answers typed requests. */
    sbe_expect(s, goblin_sbe_ping(s), GOBLIN_SBE_VALUE_KIND_STATUS, "PONG", 0);
    goblin_sbe_close(s);
}

/* --- peers: the address vector and the per-endpoint session bound --- */

/* The server endpoint's name from its bootstrap listener. */
static size_t bootstrap_name(int port, unsigned char *name)
{
    struct rconn r;
    rconn_open_tcp(&r, port);
    unsigned char msg[4 + GOBLIN_FABRIC_NAME_MAX];
    size_t got = 0;
    for (;;) {
        ssize_t n = read(r.fd, msg + got, sizeof msg - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    rconn_close(&r);
    CHECK(got > 4 && got == 4 + goblin_fabric_get32(msg));
    memcpy(name, msg + 4, got - 4);
    return got - 4;
}

/* The next frame on a raw endpoint (10 s at most). */
static void raw_next(struct goblin_fabric_ep *ep, struct goblin_fabric_header *h, char *payload,
                     size_t cap)
{
    for (long i = 0; i < 20000000; i++) {
        struct fi_cq_msg_entry done;
        goblin_fabric_ep_reap_tx(ep);
        ssize_t n = goblin_fabric_ep_read_rx(ep, &done, NULL, 1);
        CHECKF(n >= 0, "%s", ep->error);
        if (n == 0) {
            if ((i & 1023) == 0) usleep(500);
            continue;
        }
        struct goblin_fabric_slot *slot = done.op_context;
        CHECK(goblin_fabric_decode(slot->buf, done.len, h) == NULL);
        size_t len = h->payload_len < cap ? h->payload_len : cap;
        memcpy(payload, slot->buf + GOBLIN_FABRIC_HEADER_BYTES, len);
        CHECK(goblin_fabric_ep_post_recv(ep, slot) == 0);
        return;
    }
    CHECKF(false, "no frame from the server");
}

static void raw_send(struct goblin_fabric_ep *ep, fi_addr_t to, uint8_t type, uint64_t session,
                     const void *payload, size_t len)
{
    struct goblin_fabric_header h = {.version = type == GOBLIN_FABRIC_HELLO ? 0 : 1,
                                     .type = type,
                                     .session = session,
                                     .payload_len = (uint32_t)len};
    int rc;
    for (int i = 0; (rc = goblin_fabric_ep_send(ep, to, &h, payload)) == 0 && i < 1000000; i++) {
    }
    CHECKF(rc == 1, "raw send: %s", ep->error);
}

/* Hello for `session` from the raw endpoint; returns whether accepted
 * (the refusal's text in why). */
static bool raw_hello(struct goblin_fabric_ep *ep, fi_addr_t server, uint64_t session, char *why,
                      size_t why_cap)
{
    unsigned char name[GOBLIN_FABRIC_NAME_MAX];
    size_t name_len = sizeof name;
    CHECK(fi_getname(&ep->ep->fid, name, &name_len) == 0);
    unsigned char msg[GOBLIN_FABRIC_HELLO_BYTES + GOBLIN_FABRIC_NAME_MAX];
    struct goblin_fabric_hello hello = {.version_min = 1,
                                        .version_max = 1,
                                        .name_len = (uint16_t)name_len,
                                        .window_messages = 64,
                                        .window_bytes = 1 << 20};
    goblin_fabric_hello_encode(msg, &hello);
    memcpy(msg + GOBLIN_FABRIC_HELLO_BYTES, name, name_len);
    raw_send(ep, server, GOBLIN_FABRIC_HELLO, session, msg, GOBLIN_FABRIC_HELLO_BYTES + name_len);
    struct goblin_fabric_header h;
    char payload[512];
    raw_next(ep, &h, payload, sizeof payload - 1);
    CHECK_EQ_LL(h.type, GOBLIN_FABRIC_HELLO_ACK);
    CHECK_EQ_LL(h.session, session);
    struct goblin_fabric_hello_ack ack;
    CHECK(goblin_fabric_hello_ack_decode(payload, h.payload_len, &ack) == NULL);
    size_t n = h.payload_len - GOBLIN_FABRIC_HELLO_ACK_BYTES;
    if (n >= why_cap) n = why_cap - 1;
    memcpy(why, payload + GOBLIN_FABRIC_HELLO_ACK_BYTES, n);
    why[n] = '\0';
    return ack.accepted;
}

/* One endpoint name holds one AV entry for all its sessions, at most
 * --libfabric-sessions-per-peer (4 here) of them; entries go when the
 * sessions end, and hello/bye cycles leave the tables where they were. */
static void peers_bounded(const char *provider, int port, int tcp_port)
{
    long long av0 = fabric_stat_wait(tcp_port, NULL, "av_entries", 0);
    CHECK_EQ_LL(av0, 0);
    long long refused0 = fabric_stat(tcp_port, NULL, "hellos_refused");
    unsigned char server_name[GOBLIN_FABRIC_NAME_MAX];
    bootstrap_name(port, server_name);
    struct goblin_fabric_ep ep = {0};
    struct goblin_fabric_ep_options o = {
        .provider = provider, .address = "127.0.0.1", .tx_slots = 4, .rx_slots = 4, .record = 4096};
    CHECKF(goblin_fabric_ep_open(&ep, &o) == 0, "%s", ep.error);
    fi_addr_t server;
    CHECK(fi_av_insert(ep.av, server_name, 1, &server, 0, NULL) == 1);
    char why[256];
    for (uint64_t id = 1; id <= 4; id++)
        CHECKF(raw_hello(&ep, server, 0x5e55000 + id, why, sizeof why), "hello %llu: %s",
               (unsigned long long)id, why);
    CHECK(!raw_hello(&ep, server, 0x5e55000 + 5, why, sizeof why));
    CHECK_STR(why, "ERR too many libfabric sessions from this endpoint (limit 4)");
    /* A repeated hello of a live session is acknowledged again. */
    CHECK(raw_hello(&ep, server, 0x5e55000 + 2, why, sizeof why));
    CHECK_EQ_LL(fabric_stat(tcp_port, NULL, "sessions_active"), 4);
    CHECK_EQ_LL(fabric_stat(tcp_port, NULL, "av_entries"), 1); /* one name, one entry */
    CHECK_EQ_LL(fabric_stat(tcp_port, NULL, "hellos_refused"), refused0 + 1);
    for (uint64_t id = 1; id <= 4; id++)
        raw_send(&ep, server, GOBLIN_FABRIC_BYE, 0x5e55000 + id, NULL, 0);
    CHECK_EQ_LL(fabric_stat_wait(tcp_port, NULL, "sessions_active", 0), 0);
    CHECK_EQ_LL(fabric_stat_wait(tcp_port, NULL, "av_entries", 0), 0);
    /* The same endpoint after its entry went: a fresh entry, accepted. */
    CHECK(raw_hello(&ep, server, 0x5e55000 + 9, why, sizeof why));
    CHECK_EQ_LL(fabric_stat(tcp_port, NULL, "av_entries"), 1);
    /* Counted while that entry is live: its removal (after the BYE and the
     * linger) may come before the next line runs on a loaded machine. */
    long long removed0 = fabric_stat(tcp_port, NULL, "av_entries_removed");
    raw_send(&ep, server, GOBLIN_FABRIC_BYE, 0x5e55000 + 9, NULL, 0);
    goblin_fabric_ep_close(&ep);

    /* Hello/bye cycles of whole clients (a new endpoint name each time):
     * two show the tables coming back (more only cost endpoint opens). */
    long long total0 = fabric_stat(tcp_port, NULL, "sessions_total");
    for (int i = 0; i < 2; i++) {
        struct goblin_fabric *f = open_client(provider, port, NULL);
        CALL(f, "+PONG\r\n", "PING");
        goblin_fabric_close(f);
    }
    CHECK_EQ_LL(fabric_stat_wait(tcp_port, NULL, "sessions_active", 0), 0);
    CHECK_EQ_LL(fabric_stat_wait(tcp_port, NULL, "av_entries", 0), 0);
    CHECK_EQ_LL(fabric_stat(tcp_port, NULL, "sessions_total"), total0 + 2);
    CHECK(fabric_stat(tcp_port, NULL, "av_entries_removed") >= removed0 + 3);
}

/* --enable-debug-command local (a Redis protected action): allowed from a
 * client endpoint at 127.0.0.1, and from every shm peer (intra-host); from
 * 127.0.0.2 an IP provider's peer is not local (Redis 7.0.15 counts
 * 127.0.0.1 and ::1 only) and gets Redis's error. The other side, a peer
 * on another host, is test_fabric_netns.sh's. */
static void debug_locality(const char *provider, int port)
{
    static const char refused[] =
        "-ERR DEBUG command not allowed. If the enable-debug-command option is set to "
        "\"local\", you can run it from a local connection, otherwise you need to set this "
        "option in the configuration file, and then restart the server.\r\n";
    bool intra_host = strcmp(provider, "shm") == 0;
    struct goblin_fabric_options at = {.local_address = "127.0.0.1"};
    struct goblin_fabric *f = open_client(provider, port, &at);
    CALL(f, "+OK\r\n", "DEBUG", "SLEEP", "0");
    goblin_fabric_close(f);
    at.local_address = "127.0.0.2";
    f = open_client(provider, port, &at);
    CALL(f, intra_host ? "+OK\r\n" : refused, "DEBUG", "SLEEP", "0");
    CALL(f, "+PONG\r\n", "PING"); /* only that command refused */
    goblin_fabric_close(f);
}

/* INFO libfabric after commands(): frames both ways, by both send paths. */
static void counters(int tcp_port)
{
    CHECK(fabric_stat(tcp_port, NULL, "frames_rx") > 64);
    CHECK(fabric_stat(tcp_port, NULL, "frames_tx") > 64);
    CHECK(fabric_stat(tcp_port, NULL, "frames_tx_inject") > 0);
    CHECK(fabric_stat(tcp_port, NULL, "frames_tx_send") > 0); /* the 8 KiB replies */
    CHECK(fabric_stat(tcp_port, NULL, "sessions_total") >= 2);
    CHECK_EQ_LL(fabric_stat(tcp_port, NULL, "reorder_overflow_closes"), 0);
    CHECK_EQ_LL(fabric_stat(tcp_port, NULL, "sessions_per_peer_limit"), 4);
}

static void provider_run(const char *provider)
{
    char boot[16];
    snprintf(boot, sizeof boot, "%d", test_free_port());
    const char *args[] = {"--libfabric",
                          provider,
                          "127.0.0.1",
                          boot,
                          "--efa-heartbeat-timeout-ms",
                          "0",
                          "--enable-sbe",
                          "--enable-debug-command",
                          "local",
                          "--libfabric-sessions-per-peer",
                          "4",
                          NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, args);
    struct goblin_fabric *pub = commands(provider, atoi(boot));
    counters(s.port);
    forced_send(provider, atoi(boot));
    debug_locality(provider, atoi(boot));
    wrong_version(provider, atoi(boot));
    sbe_over_fabric(provider, atoi(boot), pub);
    goblin_fabric_close(pub);
    peers_bounded(provider, atoi(boot), s.port);
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
    const char *providers[] = {"shm", "tcp;ofi_rxm", "udp;ofi_rxd"};
    /* Against the ASan server one provider covers the server's code paths
     * (the providers differ below it): shm, whose endpoints open in a
     * tenth of a second where tcp;ofi_rxm's take ~1 s each on a loaded
     * machine (ofi_rxm touches four 16 MiB buffer pools per endpoint);
     * the plain run takes all three. */
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
