/* Integration: the TLS transport (--tls-port) with a real OpenSSL client.
 *
 * Debian 12's hiredis (0.14) has no hiredis_ssl, so the client here is
 * OpenSSL's own TLS client (certificate checked against the test CA) with
 * hiredis's command formatter and reply parser on top. Checked:
 * - PING, SET/GET of 1 MB;
 * - 100k pipelined SETs written whole before any reply is read complete
 *   (flow control over TLS: the server keeps reading while its output waits);
 * - a 1 MB SET followed by a PING in the same write is answered at once:
 *   the PING's bytes sit decrypted inside OpenSSL (SSL_pending) after the
 *   big argument's read, where epoll cannot see them;
 * - Pub/Sub over TLS (small and 200 KB messages);
 * - tls-auth-clients yes: no certificate, or one from an untrusted CA, is
 *   refused; optional: no certificate is accepted, an untrusted one is not;
 * - a plaintext client on the TLS port is refused cleanly (connection
 *   closed, log line, server unaffected);
 * - CONFIG SET tls-cert-file/tls-key-file: new connections see the new
 *   certificate (serial, subject), established ones keep working; a bad
 *   file is Redis's error, byte for byte against redis-server with TLS, and
 *   the old context stays in use. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "testlib.h"

static char certs[128];

struct tclient {
    int fd;
    SSL_CTX *ctx;
    SSL *ssl;
    redisReader *reader;
};

static const char *cert_path(const char *name)
{
    static char paths[8][192];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", certs, name);
    return p;
}

static int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECKF(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect: %s", strerror(errno));
    struct timeval tv = {.tv_sec = 30};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Connects and handshakes with the server's certificate checked against
 * the test CA (and 127.0.0.1); cert/key: the client certificate, or NULL.
 * Returns false when the handshake fails. */
static bool tls_try_open(struct tclient *t, int port, const char *cert, const char *key)
{
    memset(t, 0, sizeof *t);
    t->ctx = SSL_CTX_new(TLS_client_method());
    CHECK(t->ctx);
    CHECK(SSL_CTX_load_verify_locations(t->ctx, cert_path("ca.crt"), NULL) == 1);
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    if (cert) {
        CHECK(SSL_CTX_use_certificate_chain_file(t->ctx, cert) == 1);
        CHECK(SSL_CTX_use_PrivateKey_file(t->ctx, key, SSL_FILETYPE_PEM) == 1);
    }
    t->fd = tcp_connect(port);
    t->ssl = SSL_new(t->ctx);
    SSL_set_fd(t->ssl, t->fd);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), "127.0.0.1");
    t->reader = redisReaderCreate();
    return SSL_connect(t->ssl) == 1;
}

static void tls_open(struct tclient *t, int port)
{
    CHECKF(tls_try_open(t, port, cert_path("client.crt"), cert_path("client.key")),
           "TLS handshake failed: %s", ERR_reason_error_string(ERR_get_error()));
}

static void tls_close(struct tclient *t)
{
    redisReaderFree(t->reader);
    SSL_free(t->ssl);
    SSL_CTX_free(t->ctx);
    close(t->fd);
}

static void tls_send_raw(struct tclient *t, const char *p, size_t n)
{
    while (n > 0) {
        int w = SSL_write(t->ssl, p, n > (1 << 30) ? 1 << 30 : (int)n);
        CHECKF(w > 0, "SSL_write failed (%d)", SSL_get_error(t->ssl, w));
        p += w;
        n -= (size_t)w;
    }
}

static void tls_send_argv(struct tclient *t, int argc, const char **argv, const size_t *lens)
{
    char *cmd;
    int n = redisFormatCommandArgv(&cmd, argc, argv, lens);
    CHECK(n > 0);
    tls_send_raw(t, cmd, (size_t)n);
    free(cmd);
}

/* The next reply, or NULL at EOF or a TLS error (the server refused us). */
static redisReply *tls_try_reply(struct tclient *t)
{
    void *r = NULL;
    for (;;) {
        CHECK(redisReaderGetReply(t->reader, &r) == REDIS_OK);
        if (r) return r;
        char buf[64 * 1024];
        int n = SSL_read(t->ssl, buf, sizeof buf);
        if (n <= 0) return NULL;
        CHECK(redisReaderFeed(t->reader, buf, (size_t)n) == REDIS_OK);
    }
}

static redisReply *tls_reply(struct tclient *t)
{
    redisReply *r = tls_try_reply(t);
    CHECKF(r, "no reply: connection closed or timed out");
    return r;
}

/* Sends a command of C strings (NULL-terminated) and returns its reply. */
static redisReply *tls_call(struct tclient *t, ...)
{
    const char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, t);
    for (const char *a; (a = va_arg(ap, const char *)) != NULL;) argv[argc++] = a;
    va_end(ap);
    tls_send_argv(t, argc, argv, NULL);
    return tls_reply(t);
}

static void expect_status(redisReply *r, const char *text)
{
    CHECKF(r->type == REDIS_REPLY_STATUS && strcmp(r->str, text) == 0,
           "expected +%s, got type %d %s", text, r->type, r->str ? r->str : "");
    freeReplyObject(r);
}

/* The serial (hex) and subject CN of the certificate the server presents
 * to a new connection. */
static void peer_certificate(int port, char *serial, size_t serial_cap, char *cn, size_t cn_cap)
{
    struct tclient t;
    tls_open(&t, port);
    X509 *x = SSL_get1_peer_certificate(t.ssl);
    CHECK(x);
    BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get_serialNumber(x), NULL);
    char *hex = BN_bn2hex(bn);
    snprintf(serial, serial_cap, "%s", hex);
    OPENSSL_free(hex);
    BN_free(bn);
    X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, (int)cn_cap);
    X509_free(x);
    expect_status(tls_call(&t, "PING", NULL), "PONG");
    tls_close(&t);
}

static void test_round_trips(int port)
{
    struct tclient t;
    tls_open(&t, port);
    expect_status(tls_call(&t, "PING", NULL), "PONG");

    size_t big = 1024 * 1024;
    char *value = malloc(big);
    for (size_t i = 0; i < big; i++) value[i] = (char)('a' + i % 26);
    const char *set[] = {"SET", "big", value};
    size_t set_lens[] = {3, 3, big};
    tls_send_argv(&t, 3, set, set_lens);
    expect_status(tls_reply(&t), "OK");
    redisReply *r = tls_call(&t, "GET", "big", NULL);
    CHECK(r->type == REDIS_REPLY_STRING && r->len == big && memcmp(r->str, value, big) == 0);
    freeReplyObject(r);

    /* SET 1 MB + PING in one write: after the value's last read the PING is
     * inside OpenSSL already, and no more bytes will come. */
    char *cmd;
    int n = redisFormatCommandArgv(&cmd, 3, set, set_lens);
    cmd = realloc(cmd, (size_t)n + 14);
    memcpy(cmd + n, "*1\r\n$4\r\nPING\r\n", 14);
    tls_send_raw(&t, cmd, (size_t)n + 14);
    free(cmd);
    expect_status(tls_reply(&t), "OK");
    expect_status(tls_reply(&t), "PONG");
    free(value);
    tls_close(&t);
    fprintf(stderr, "test_tls: PING, 1 MB SET/GET, SET+PING in one write: ok\n");
}

/* 100k SETs written before any reply is read (a hiredis-style pipeline). */
static void test_pipeline(int port)
{
    enum { COUNT = 100000 };
    struct tclient t;
    tls_open(&t, port);
    size_t cap = (size_t)COUNT * 64, len = 0;
    char *batch = malloc(cap);
    for (int i = 0; i < COUNT; i++)
        len += (size_t)snprintf(batch + len, cap - len,
                                "*3\r\n$3\r\nSET\r\n$10\r\nkey:%06d\r\n$8\r\nval%05d\r\n", i,
                                i % 100000);
    tls_send_raw(&t, batch, len);
    free(batch);
    for (int i = 0; i < COUNT; i++) expect_status(tls_reply(&t), "OK");
    redisReply *r = tls_call(&t, "DBSIZE", NULL);
    CHECK(r->type == REDIS_REPLY_INTEGER && r->integer >= COUNT);
    freeReplyObject(r);
    tls_close(&t);
    fprintf(stderr, "test_tls: 100k pipelined SETs written whole, then read: ok\n");
}

static void test_pubsub(int port)
{
    struct tclient sub, pub;
    tls_open(&sub, port);
    tls_open(&pub, port);
    redisReply *r = tls_call(&sub, "SUBSCRIBE", "news", NULL);
    CHECK(r->type == REDIS_REPLY_ARRAY && r->elements == 3);
    freeReplyObject(r);
    size_t big = 200 * 1024;
    char *payload = malloc(big);
    memset(payload, 'p', big);
    for (int i = 0; i < 3; i++) {
        const char *argv[] = {"PUBLISH", "news", i == 1 ? payload : "hello"};
        size_t lens[] = {7, 4, i == 1 ? big : 5};
        tls_send_argv(&pub, 3, argv, lens);
        r = tls_reply(&pub);
        CHECK(r->type == REDIS_REPLY_INTEGER && r->integer == 1);
        freeReplyObject(r);
        r = tls_reply(&sub);
        CHECK(r->type == REDIS_REPLY_ARRAY && r->elements == 3);
        CHECK(strcmp(r->element[0]->str, "message") == 0);
        CHECK(r->element[2]->len == lens[2] && memcmp(r->element[2]->str, argv[2], lens[2]) == 0);
        freeReplyObject(r);
    }
    free(payload);
    tls_close(&sub);
    tls_close(&pub);
    fprintf(stderr, "test_tls: Pub/Sub (5 B and 200 KB messages): ok\n");
}

/* A client the server refuses: the handshake fails, or (TLS 1.3, where the
 * client finishes first) the first read ends in the server's alert. */
static bool refused(int port, const char *cert, const char *key)
{
    struct tclient t;
    bool ok = tls_try_open(&t, port, cert, key);
    if (ok) {
        const char *argv[] = {"PING"};
        char *cmd;
        int n = redisFormatCommandArgv(&cmd, 1, argv, NULL);
        SSL_write(t.ssl, cmd, n); /* may fail: the alert may have arrived */
        free(cmd);
        redisReply *r = tls_try_reply(&t);
        ok = r != NULL;
        if (r) freeReplyObject(r);
    }
    ERR_clear_error();
    tls_close(&t);
    return !ok;
}

static void test_client_auth(int port, struct tclient *admin)
{
    CHECK(refused(port, NULL, NULL));
    CHECK(refused(port, cert_path("rogue.crt"), cert_path("rogue.key")));
    CHECK(!refused(port, cert_path("client.crt"), cert_path("client.key")));
    expect_status(tls_call(admin, "CONFIG", "SET", "tls-auth-clients", "optional", NULL), "OK");
    CHECK(!refused(port, NULL, NULL));
    CHECK(refused(port, cert_path("rogue.crt"), cert_path("rogue.key")));
    expect_status(tls_call(admin, "CONFIG", "SET", "tls-auth-clients", "no", NULL), "OK");
    CHECK(!refused(port, cert_path("rogue.crt"), cert_path("rogue.key")));
    expect_status(tls_call(admin, "CONFIG", "SET", "tls-auth-clients", "yes", NULL), "OK");
    CHECK(refused(port, NULL, NULL));
    fprintf(stderr, "test_tls: tls-auth-clients yes / optional / no: ok\n");
}

static bool log_contains(const struct test_server *s, const char *text)
{
    FILE *f = fopen(s->log_path, "r");
    CHECK(f);
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, text) != NULL;
    fclose(f);
    return found;
}

static void test_plaintext_refused(const struct test_server *s, int port)
{
    struct rconn c;
    rconn_open_tcp(&c, port);
    rconn_send_raw(&c, "PING\r\n", 6);
    CHECK(rconn_wait_closed(&c, 10000));
    rconn_close(&c);
    rconn_open_tcp(&c, port);
    rconn_send(&c, "PING", NULL);
    CHECK(rconn_wait_closed(&c, 10000));
    rconn_close(&c);
    CHECK(log_contains(s, "Error accepting a client connection"));
    fprintf(stderr, "test_tls: plaintext client on the TLS port refused and logged: ok\n");
}

static char *config_set_reply(struct tclient *t, const char *name, const char *value)
{
    redisReply *r = tls_call(t, "CONFIG", "SET", name, value, NULL);
    CHECK(r->type == REDIS_REPLY_ERROR || r->type == REDIS_REPLY_STATUS);
    char *text = strdup(r->str);
    freeReplyObject(r);
    return text;
}

static void test_reload(int port, struct tclient *admin, int redis_port)
{
    char serial[64], cn[128];
    peer_certificate(port, serial, sizeof serial, cn, sizeof cn);
    CHECKF(strcmp(serial, "1001") == 0 && strcmp(cn, "goblin-server") == 0, "%s %s", serial, cn);

    struct tclient old;
    tls_open(&old, port);
    redisReply *r = tls_call(admin, "CONFIG", "SET", "tls-cert-file", cert_path("server2.crt"),
                             "tls-key-file", cert_path("server2.key"), NULL);
    expect_status(r, "OK");
    peer_certificate(port, serial, sizeof serial, cn, sizeof cn);
    CHECKF(strcmp(serial, "1002") == 0 && strcmp(cn, "goblin-server-2") == 0, "%s %s", serial, cn);
    expect_status(tls_call(&old, "PING", NULL), "PONG"); /* established: unaffected */
    tls_close(&old);

    /* A bad value: Redis's error, byte for byte, and nothing changes. */
    struct tclient redis;
    tls_open(&redis, redis_port);
    const char *bad[][2] = {
        {"tls-cert-file", "/nonexistent/cert.pem"},
        {"tls-key-file", cert_path("client.key")}, /* does not match the certificate */
        {"tls-ca-cert-file", cert_path("server.ext")},
        {"tls-protocols", "TLSv1.2 SSLv3"},
        {"tls-ciphersuites", "NO_SUCH_SUITE"},
        {"tls-auth-clients", "maybe"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *g = config_set_reply(admin, bad[i][0], bad[i][1]);
        char *e = config_set_reply(&redis, bad[i][0], bad[i][1]);
        CHECKF(strcmp(g, e) == 0, "CONFIG SET %s %s: goblin '%s', redis '%s'", bad[i][0], bad[i][1],
               g, e);
        CHECKF(strncmp(g, "ERR CONFIG SET failed", 21) == 0, "%s", g);
        free(g);
        free(e);
    }
    tls_close(&redis);
    r = tls_call(admin, "CONFIG", "GET", "tls-cert-file", NULL);
    CHECK(r->type == REDIS_REPLY_ARRAY && r->elements == 2);
    CHECK(strcmp(r->element[1]->str, cert_path("server2.crt")) == 0);
    freeReplyObject(r);
    peer_certificate(port, serial, sizeof serial, cn, sizeof cn);
    CHECKF(strcmp(serial, "1002") == 0, "after a refused reload: serial %s", serial);
    fprintf(stderr, "test_tls: CONFIG SET certificate reload, refused bad files: ok\n");
}

int main(void)
{
    snprintf(certs, sizeof certs, "/tmp/goblin-tls-test-XXXXXX");
    CHECK(mkdtemp(certs));
    char cmd[512];
    snprintf(cmd, sizeof cmd, "bash %s/tls_certs.sh %s", TESTS_INTEGRATION_DIR, certs);
    CHECKF(system(cmd) == 0, "%s failed", cmd);

    int port = test_free_port(), redis_port = test_free_port();
    char port_text[16], redis_port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    snprintf(redis_port_text, sizeof redis_port_text, "%d", redis_port);
    const char *extra[] = {"--tls-port",
                           port_text,
                           "--tls-cert-file",
                           cert_path("server.crt"),
                           "--tls-key-file",
                           cert_path("server.key"),
                           "--tls-ca-cert-file",
                           cert_path("ca.crt"),
                           NULL};
    struct test_server s, rs;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    extra[1] = redis_port_text;
    test_server_start(&rs, TEST_SERVER_REDIS, extra);

    test_plaintext_refused(&s, port); /* first: the log line is rate-limited */
    struct tclient admin;
    tls_open(&admin, port);
    test_round_trips(port);
    test_pipeline(port);
    test_pubsub(port);
    test_client_auth(port, &admin);
    test_reload(port, &admin, redis_port);
    expect_status(tls_call(&admin, "PING", NULL), "PONG");
    tls_close(&admin);

    test_server_stop(&rs);
    test_server_stop(&s);
    snprintf(cmd, sizeof cmd, "rm -rf %s", certs);
    CHECK(system(cmd) == 0);
    fprintf(stderr, "test_tls: ok\n");
    return 0;
}
