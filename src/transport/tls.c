/* tls.c — TLS listeners and their conn transport (OpenSSL); see tls.h. */
#include "transport/tls.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "connection/conn_transport.h"
#include "core/sockets.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "transport/socket.h"
#include "transport/transport.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* What one SSL_CTX is built from (config's tls-* values; NULL: not set). */
struct tls_settings {
    const char *cert_file, *key_file, *ca_cert_file, *ca_cert_dir;
    const char *auth_clients, *protocols, *ciphers, *ciphersuites;
    bool prefer_server_ciphers;
};

/* A session reads through a socket BIO and writes into a memory BIO that
 * tls_flush() empties into the socket: SSL_write never waits for the
 * socket, so the bytes it reports taken are taken, whichever buffer of the
 * conn they came from, and what it encrypted but the socket did not take
 * yet (at most one record: partial writes) waits here, with writability
 * asked for, like bytes in a kernel send buffer. */
struct tls_conn {
    struct ev_handler handler; /* first: the event loop hands this back */
    struct conn *conn;
    SSL *ssl;
    BIO *wbio;             /* owned by ssl: ciphertext not yet written */
    uint32_t mask;         /* current epoll interest */
    bool conn_reads;       /* what the conn asked for (set_interest) */
    bool conn_writes;      /* ... */
    bool handshaking;      /* SSL_accept not finished */
    bool handshake_reads;  /* ... and waiting for the peer */
    bool write_needs_read; /* SSL_write wants readability before it can go on */
    bool failed;           /* a fatal TLS error: no close_notify */
    bool read_took;        /* the last tls_read returned bytes */
    bool closed;           /* tls_close ran: the conn is torn down */
    bool local;            /* the peer is 127.0.0.1 or ::1 (conn_is_local) */
};

static SSL_CTX *tls_ctx; /* new connections get this one */
static bool tls_running; /* started with --tls-port: CONFIG SET rebuilds tls_ctx */

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

static void tls_settings_from_config(struct tls_settings *s)
{
    *s = (struct tls_settings){
        .cert_file = nonempty(config.tls_cert_file),
        .key_file = nonempty(config.tls_key_file),
        .ca_cert_file = nonempty(config.tls_ca_cert_file),
        .ca_cert_dir = nonempty(config.tls_ca_cert_dir),
        .auth_clients = config.tls_auth_clients,
        .protocols = nonempty(config.tls_protocols),
        .ciphers = nonempty(config.tls_ciphers),
        .ciphersuites = nonempty(config.tls_ciphersuites),
        .prefer_server_ciphers = config.tls_prefer_server_ciphers,
    };
}

/* The oldest OpenSSL error queued, as text; clears the queue. */
static const char *tls_error_text(char *out, size_t cap)
{
    unsigned long e = ERR_get_error();
    if (e)
        ERR_error_string_n(e, out, cap);
    else
        snprintf(out, cap, "no OpenSSL error queued");
    ERR_clear_error();
    return out;
}

/* tls-protocols (Redis's parseProtocolsConfig): the SSL_OP_NO_* options
 * for the versions not listed; false when a word is not a version or none
 * is listed. Empty: TLSv1.2 and TLSv1.3. */
static bool tls_protocol_options(const char *text, uint64_t *no_options)
{
    static const struct {
        const char *name;
        uint64_t option;
    } versions[] = {
        {"TLSv1", SSL_OP_NO_TLSv1},
        {"TLSv1.1", SSL_OP_NO_TLSv1_1},
        {"TLSv1.2", SSL_OP_NO_TLSv1_2},
        {"TLSv1.3", SSL_OP_NO_TLSv1_3},
    };
    uint64_t all = SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 | SSL_OP_NO_TLSv1_2 | SSL_OP_NO_TLSv1_3;
    if (!text) {
        *no_options = SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1;
        return true;
    }
    uint64_t allowed = 0;
    char *copy = xstrdup(text), *save = NULL;
    bool ok = true;
    for (char *w = strtok_r(copy, " ", &save); w && ok; w = strtok_r(NULL, " ", &save)) {
        size_t i = 0;
        while (i < sizeof versions / sizeof versions[0] && strcasecmp(w, versions[i].name) != 0)
            i++;
        if (i == sizeof versions / sizeof versions[0])
            ok = false;
        else
            allowed |= versions[i].option;
    }
    xfree(copy);
    *no_options = all & ~allowed;
    return ok && allowed;
}

/* A key file must not ask for a passphrase: OpenSSL's default prompts on
 * the terminal, which would stop the server. */
static int tls_no_passphrase(char *buf, int size, int rwflag, void *arg)
{
    (void)buf, (void)size, (void)rwflag, (void)arg;
    return -1;
}

/* A server context from s, or NULL after logging why (Redis's texts). */
static SSL_CTX *tls_context_build(const struct tls_settings *s)
{
    char why[256];
    uint64_t no_protocols;
    bool verify = strcasecmp(s->auth_clients, "no") != 0;
    if (!s->cert_file) {
        log_warning("No tls-cert-file configured!");
        return NULL;
    }
    if (!s->key_file) {
        log_warning("No tls-key-file configured!");
        return NULL;
    }
    if (verify && !s->ca_cert_file && !s->ca_cert_dir) {
        log_warning("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when "
                    "tls-cluster, tls-replication or tls-auth-clients are enabled!");
        return NULL;
    }
    if (!tls_protocol_options(s->protocols, &no_protocols)) {
        log_warning("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', "
                    "'TLSv1.2' and 'TLSv1.3'.");
        return NULL;
    }
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        log_warning("Failed to create TLS context: %s", tls_error_text(why, sizeof why));
        return NULL;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_IGNORE_UNEXPECTED_EOF | no_protocols |
                                 (s->prefer_server_ciphers ? SSL_OP_CIPHER_SERVER_PREFERENCE : 0));
    /* conn's output buffer moves (realloc) and grows between the retries
     * of a write that would block. */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* Reads take what the socket has (one read per request, not one per
     * record header and body); tls_read_pending() hands on what they hold. */
    SSL_CTX_set_read_ahead(ctx, 1);
    /* Resumed sessions with client certificates need a session id context. */
    SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"goblin-core", 11);
    SSL_CTX_set_default_passwd_cb(ctx, tls_no_passphrase);
    if (SSL_CTX_use_certificate_chain_file(ctx, s->cert_file) <= 0) {
        log_warning("Failed to load certificate: %s: %s", s->cert_file,
                    tls_error_text(why, sizeof why));
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, s->key_file, SSL_FILETYPE_PEM) <= 0) {
        log_warning("Failed to load private key: %s: %s", s->key_file,
                    tls_error_text(why, sizeof why));
        goto fail;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        log_warning("The private key %s does not match the certificate %s: %s", s->key_file,
                    s->cert_file, tls_error_text(why, sizeof why));
        goto fail;
    }
    if ((s->ca_cert_file || s->ca_cert_dir) &&
        SSL_CTX_load_verify_locations(ctx, s->ca_cert_file, s->ca_cert_dir) <= 0) {
        log_warning("Failed to configure CA certificate(s) file/directory: %s",
                    tls_error_text(why, sizeof why));
        goto fail;
    }
    if (s->ciphers && !SSL_CTX_set_cipher_list(ctx, s->ciphers)) {
        log_warning("Failed to configure ciphers: %s", tls_error_text(why, sizeof why));
        goto fail;
    }
    if (s->ciphersuites && !SSL_CTX_set_ciphersuites(ctx, s->ciphersuites)) {
        log_warning("Failed to configure ciphersuites: %s", tls_error_text(why, sizeof why));
        goto fail;
    }
    int mode = SSL_VERIFY_NONE;
    if (verify) mode = SSL_VERIFY_PEER;
    if (strcasecmp(s->auth_clients, "yes") == 0) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    SSL_CTX_set_verify(ctx, mode, NULL);
    return ctx;

fail:
    SSL_CTX_free(ctx);
    return NULL;
}

const char *tls_config_commit(void)
{
    if (!tls_running) return NULL; /* the command line: tls_start() builds from it all */
    struct tls_settings s;
    tls_settings_from_config(&s);
    SSL_CTX *ctx = tls_context_build(&s);
    if (!ctx) return "Unable to update TLS configuration. Check server logs.";
    /* Established sessions hold references to the old context. */
    SSL_CTX_free(tls_ctx);
    tls_ctx = ctx;
    log_notice("TLS configuration updated: new connections use it");
    return NULL;
}

/* --- the conn transport --------------------------------------------- */

/* Writes the ciphertext waiting in the memory BIO to the socket: true
 * when none is left, false with errno (EAGAIN: the socket is full). */
static bool tls_flush(struct tls_conn *tc)
{
    char *p;
    long n;
    while ((n = BIO_get_mem_data(tc->wbio, &p)) > 0) {
        ssize_t w;
        do w = write(conn_io(tc->conn)->fd, p, (size_t)n);
        while (w < 0 && errno == EINTR);
        if (w < 0) return false;
        char sink[4096];
        for (ssize_t left = w; left > 0;) {
            int k = BIO_read(tc->wbio, sink,
                             left < (ssize_t)sizeof sink ? (int)left : (int)sizeof sink);
            if (k <= 0) break;
            left -= k;
        }
    }
    return true;
}

/* Epoll interest: the handshake's need, else what the conn asked for plus
 * what the session needs (ciphertext to write out, a write that must read
 * first). */
static void tls_update_mask(struct tls_conn *tc)
{
    struct conn *c = tc->conn;
    bool cipher_waits = BIO_ctrl_pending(tc->wbio) > 0;
    uint32_t mask;
    if (tc->handshaking)
        mask = (tc->handshake_reads ? EV_READABLE : 0) | (cipher_waits ? EV_WRITABLE : 0);
    else
        mask = (tc->conn_reads || tc->write_needs_read ? EV_READABLE : 0) |
               (tc->conn_writes || cipher_waits ? EV_WRITABLE : 0);
    if (mask == tc->mask || tc->closed) return;
    tc->mask = mask;
    /* A conn the loop no longer reports would stall for ever: close it. */
    if (!ev_modify(conn_io(c)->fd, mask, &tc->handler)) {
        log_warning("epoll_ctl for client id=%llu addr=%s failed: %s",
                    (unsigned long long)conn_id(c), conn_addr(c), strerror(errno));
        conn_close(c, "event registration failed");
    }
}

/* A read or write that returned ret <= 0, in the conn transport's terms
 * (conn.h): -1 with errno EAGAIN when OpenSSL waits for the peer (a write
 * that must read first noted), 0 for a read at the peer's close, -1 with
 * errno otherwise. */
static ssize_t tls_io_result(struct tls_conn *tc, int ret, bool reading)
{
    char why[256];
    int saved = errno;
    switch (SSL_get_error(tc->ssl, ret)) {
    case SSL_ERROR_WANT_READ:
        if (!reading && !tc->write_needs_read) {
            tc->write_needs_read = true;
            tls_update_mask(tc);
        }
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_WANT_WRITE: /* not with a memory BIO; harmless */
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN: /* close_notify */
        if (reading) return 0;
        errno = EPIPE;
        return -1;
    case SSL_ERROR_SYSCALL:
        tc->failed = true;
        ERR_clear_error();
        if (reading && saved == 0) return 0;
        errno = saved ? saved : EPIPE;
        return -1;
    default:
        tc->failed = true;
        log_verbose("TLS error on client id=%llu addr=%s: %s",
                    (unsigned long long)conn_id(tc->conn), conn_addr(tc->conn),
                    tls_error_text(why, sizeof why));
        errno = EPROTO;
        return -1;
    }
}

static ssize_t tls_read(struct conn *c, void *dst, size_t cap)
{
    struct tls_conn *tc = conn_io(c)->transport_data;
    if (tc->handshaking) {
        errno = EAGAIN;
        return -1;
    }
    ERR_clear_error();
    errno = 0;
    int n = SSL_read(tc->ssl, dst, cap > INT_MAX ? INT_MAX : (int)cap);
    ssize_t result = n > 0 ? n : tls_io_result(tc, n, true);
    tc->read_took = n > 0;
    int saved = errno;
    /* Reading may have produced records to send (an alert, a key update). */
    if (BIO_ctrl_pending(tc->wbio) > 0) {
        tls_flush(tc);
        tls_update_mask(tc);
    }
    errno = saved;
    return result;
}

static ssize_t tls_write(struct conn *c, const void *src, size_t len, enum out_unit_kind kind)
{
    (void)kind; /* one byte stream for replies and pushes */
    struct tls_conn *tc = conn_io(c)->transport_data;
    if (tc->handshaking) {
        errno = EAGAIN;
        return -1;
    }
    /* Earlier ciphertext first: a full socket takes nothing more. */
    if (!tls_flush(tc)) return -1;
    ERR_clear_error();
    errno = 0;
    int n = SSL_write(tc->ssl, src, len > INT_MAX ? INT_MAX : (int)len);
    if (n <= 0) return tls_io_result(tc, n, false);
    /* The record is taken; what the socket does not take now waits in the
     * BIO (writability asked for), an error shows at the next write. */
    if (!tls_flush(tc) && errno == EAGAIN) tls_update_mask(tc);
    return n;
}

static void tls_set_interest(struct conn *c, bool readable, bool writable)
{
    struct tls_conn *tc = conn_io(c)->transport_data;
    tc->conn_reads = readable;
    tc->conn_writes = writable;
    tls_update_mask(tc);
}

static void tls_close(struct conn *c)
{
    struct tls_conn *tc = conn_io(c)->transport_data;
    /* close_notify, best effort: no waiting for the socket (ciphertext the
     * socket cannot take now, at most a record, is dropped with it). */
    if (!tc->handshaking && !tc->failed) {
        SSL_shutdown(tc->ssl);
        tls_flush(tc);
    }
    ERR_clear_error();
    tc->closed = true;
    struct conn_io *io = conn_io(c);
    ev_remove(io->fd);
    close(io->fd);
    io->fd = -1;
}

/* Freed at the end of the loop pass, as socket.c's (conn.h, Lifetime). */
static void tls_release(struct conn *c)
{
    struct tls_conn *tc = conn_io(c)->transport_data;
    SSL_free(tc->ssl);
    xfree(tc);
    conn_io(c)->transport_data = NULL;
}

static bool tls_start(void);
static int tls_endpoint_count(void);
static void tls_stop(void);

/* The registry entry (transport.h). Its listeners are the socket
 * transport's (socket.h), so it starts before it. */
const struct transport tls_transport = {
    .name = "tls",
    .start = tls_start,
    .endpoint_count = tls_endpoint_count,
    .stop = tls_stop,
};

static bool tls_is_local(const struct conn *c)
{
    const struct tls_conn *tc = conn_io_const(c)->transport_data;
    return tc->local;
}

static const struct conn_transport tls_conn_transport = {
    .name = "tls",
    .is_local = tls_is_local,
    .read = tls_read,
    .write = tls_write,
    .set_interest = tls_set_interest,
    .close = tls_close,
    .release = tls_release,
    .peer_source = socket_tcp_peer_source,
};

/* Runs the handshake as far as the socket allows; true once it is done.
 * A failure (a plaintext client, a missing or untrusted certificate) is
 * logged and closes the conn; nothing is answered. */
static bool tls_handshake(struct tls_conn *tc)
{
    static struct log_limiter failures;
    struct conn *c = tc->conn;
    char why[256];
    ERR_clear_error();
    errno = 0;
    int r = SSL_accept(tc->ssl);
    int e = r == 1 ? SSL_ERROR_NONE : SSL_get_error(tc->ssl, r);
    if (e == SSL_ERROR_NONE || e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        /* The server's flight is in the BIO: out with it. */
        if (!tls_flush(tc) && errno != EAGAIN) {
            conn_close(c, strerror(errno));
            return false;
        }
        tc->handshaking = e != SSL_ERROR_NONE;
        tc->handshake_reads = e == SSL_ERROR_WANT_READ;
        tls_update_mask(tc);
        return e == SSL_ERROR_NONE;
    }
    tc->failed = true;
    tls_flush(tc); /* the alert that tells the client why, best effort */
    if (e == SSL_ERROR_SYSCALL)
        snprintf(why, sizeof why, "%s", errno ? strerror(errno) : "connection closed by peer");
    else
        tls_error_text(why, sizeof why);
    log_warning_limited(&failures, "Error accepting a client connection: %s (addr=%s laddr=%s)",
                        why, conn_addr(c), conn_laddr(c));
    conn_close(c, NULL);
    return false;
}

/* Bytes OpenSSL already holds — read ahead from the socket, or decrypted
 * beyond the room of the last read (the tail of a large argument) — make
 * no epoll event: the conn reads them now, while reads take some, so a
 * pipelined batch never waits for the next packet. */
static void tls_read_pending(struct tls_conn *tc)
{
    struct conn *c = tc->conn;
    while (!tc->closed && SSL_has_pending(tc->ssl)) {
        tc->read_took = false;
        conn_on_readable(c);
        if (!tc->read_took) break; /* an incomplete record: the socket will say */
    }
}

static void on_tls_event(struct ev_handler *h, uint32_t mask)
{
    struct tls_conn *tc = (struct tls_conn *)h;
    struct conn *c = tc->conn;
    if (tc->closed) return;
    if (tc->handshaking) {
        if (!tls_handshake(tc)) return;
        /* The first request may have come with the client's Finished. */
        mask = EV_READABLE;
    }
    if ((mask & EV_WRITABLE) && BIO_ctrl_pending(tc->wbio) > 0) {
        if (!tls_flush(tc) && errno != EAGAIN) {
            conn_close(c, strerror(errno));
            return;
        }
        tls_update_mask(tc);
    }
    if (tc->write_needs_read && (mask & EV_READABLE)) {
        tc->write_needs_read = false;
        mask |= EV_WRITABLE;
        tls_update_mask(tc);
    }
    if ((mask & EV_WRITABLE) && !tc->closed) conn_on_writable(c);
    if ((mask & EV_READABLE) && !tc->closed) conn_on_readable(c);
    tls_read_pending(tc);
}

static void tls_on_accept(int fd, const struct sockaddr_storage *peer)
{
    char why[256];
    ERR_clear_error();
    SSL *ssl = SSL_new(tls_ctx);
    BIO *rbio = BIO_new_socket(fd, BIO_NOCLOSE), *wbio = BIO_new(BIO_s_mem());
    if (!ssl || !rbio || !wbio) {
        log_warning("TLS session for a new client failed: %s", tls_error_text(why, sizeof why));
        SSL_free(ssl);
        BIO_free(rbio);
        BIO_free(wbio);
        close(fd);
        return;
    }
    SSL_set_bio(ssl, rbio, wbio); /* ssl owns both now */
    SSL_set_accept_state(ssl);
    struct tls_conn *tc = xcalloc(1, sizeof *tc);
    tc->handler.on_event = on_tls_event;
    tc->ssl = ssl;
    tc->wbio = wbio;
    tc->handshaking = true;
    tc->handshake_reads = true;
    tc->conn_reads = true;
    tc->mask = EV_READABLE;
    tc->local = socket_addr_is_loopback(peer);
    struct conn *c = conn_create(&tls_conn_transport, fd, tc);
    tc->conn = c;
    socket_conn_set_addresses(c, peer);
    if (!ev_add(fd, EV_READABLE, &tc->handler)) {
        log_warning("epoll_ctl for client %s failed: %s", conn_addr(c), strerror(errno));
        conn_close(c, "epoll registration failed");
    }
}

static bool tls_start(void)
{
    if (config.tls_port <= 0) return true;
    struct tls_settings s;
    tls_settings_from_config(&s);
    tls_ctx = tls_context_build(&s);
    if (!tls_ctx) {
        log_warning("Failed to configure TLS. Check logs for more info.");
        return false;
    }
    if (!socket_listen_bind_addresses((int)config.tls_port, tls_on_accept)) return false;
    tls_running = true;
    return true;
}

/* The listeners are counted by the socket transport, which holds them. */
static int tls_endpoint_count(void)
{
    return 0;
}

static void tls_stop(void)
{
    tls_running = false;
    SSL_CTX_free(tls_ctx); /* live sessions keep their reference */
    tls_ctx = NULL;
}

static const char *const tls_auth_choices[] = {"no", "yes", "optional", NULL};

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param tls_params[] = {
    {.name = "tls-port",
     .kind = CFG_INT,
     .value = &config.tls_port,
     .max = 65535,
     .flags = CFG_IMMUTABLE,
     .value_name = "P",
     .help = "TLS port on the --bind addresses (default 0 = none; docs/tls.md)"},
    {.name = "tls-cert-file",
     .kind = CFG_STRING,
     .value = &config.tls_cert_file,
     .value_name = "FILE",
     .help = "server certificate (PEM, chain allowed); CONFIG SET reloads it for new connections",
     .commit = tls_config_commit},
    {.name = "tls-key-file",
     .kind = CFG_STRING,
     .value = &config.tls_key_file,
     .value_name = "FILE",
     .help = "private key of --tls-cert-file (PEM, unencrypted)",
     .commit = tls_config_commit},
    {.name = "tls-ca-cert-file",
     .kind = CFG_STRING,
     .value = &config.tls_ca_cert_file,
     .value_name = "FILE",
     .help = "CA certificates (PEM) that client certificates must chain to",
     .commit = tls_config_commit},
    {.name = "tls-ca-cert-dir",
     .kind = CFG_STRING,
     .value = &config.tls_ca_cert_dir,
     .value_name = "DIR",
     .help = "directory of CA certificates (c_rehash layout), as --tls-ca-cert-file",
     .commit = tls_config_commit},
    {.name = "tls-auth-clients",
     .kind = CFG_ENUM,
     .value = &config.tls_auth_clients,
     .value_name = "yes|no|optional",
     .help = "client certificates: required, not asked for, or checked when sent (default yes)",
     .choices = tls_auth_choices,
     .commit = tls_config_commit},
    {.name = "tls-protocols",
     .kind = CFG_STRING,
     .value = &config.tls_protocols,
     .value_name = "'TLSv1.2 TLSv1.3'",
     .help =
         "TLS versions accepted: TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (default TLSv1.2 and TLSv1.3)",
     .commit = tls_config_commit},
    {.name = "tls-ciphers",
     .kind = CFG_STRING,
     .value = &config.tls_ciphers,
     .value_name = "LIST",
     .help = "TLSv1.2 and below cipher list, OpenSSL syntax (default OpenSSL's)",
     .commit = tls_config_commit},
    {.name = "tls-ciphersuites",
     .kind = CFG_STRING,
     .value = &config.tls_ciphersuites,
     .value_name = "LIST",
     .help = "TLSv1.3 cipher suites, OpenSSL syntax (default OpenSSL's)",
     .commit = tls_config_commit},
    {.name = "tls-prefer-server-ciphers",
     .kind = CFG_BOOL,
     .value = &config.tls_prefer_server_ciphers,
     .value_name = "yes|no",
     .help = "the server's cipher order wins over the client's (default no)",
     .commit = tls_config_commit},
};

const struct config_table tls_config = CONFIG_TABLE(tls_params, NULL);
