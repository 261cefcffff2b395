/*
 * tls.h — TLS over TCP with Debian's OpenSSL: `--tls-port` listeners on the
 * --bind addresses, and the conn transport that reads and writes through an
 * SSL object (docs/tls.md).
 *
 * The registry entry is `tls_transport` (transport/transport.h). The conn
 * layer sees only read/write/set_interest/close/release: the handshake, the
 * readiness OpenSSL needs (a read that must write, a write that must read)
 * and decrypted bytes already inside OpenSSL's buffers (SSL_pending, which
 * epoll cannot report) are handled here, so flow control and backpressure
 * work as over TCP.
 *
 * Certificates and settings form one SSL_CTX. CONFIG SET of any tls-*
 * parameter builds a new one from the new value; when that fails the value
 * is refused and the old context stays. New connections use the current
 * context; established ones keep the one they started with (OpenSSL counts
 * the references).
 */
#ifndef GOBLIN_TLS_H
#define GOBLIN_TLS_H

/* The commit hook of the tls-* parameters (core/config.c): once a CONFIG
 * SET has stored its values, builds a context from them (when TLS runs);
 * NULL when it is now in use, else Redis's error text (the reason is
 * logged) and the old context stays. */
const char *tls_config_commit(void);

/* Settings (core/config.h): tls-*. */
struct config_table;
extern const struct config_table tls_config;

#endif
