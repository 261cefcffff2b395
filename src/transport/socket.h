/*
 * socket.h — kernel stream sockets: TCP (IPv4/IPv6) and Unix listeners, and
 * the conn transport that reads and writes their fds.
 *
 * A listener is accept()ed from only when epoll reports it readable, and one
 * connection is taken per readiness report (level-triggered: more pending
 * connections report again). No accept() ever runs speculatively, so no
 * failing accept() allocates and retires kernel objects (seed 000).
 *
 * Out of descriptors (EMFILE, ENFILE) or kernel memory, the pending
 * connection stays queued and the listener stays readable: the listener is
 * then taken out of the event loop for LISTENER_BACKOFF_MS (so the loop
 * neither spins on it nor floods the log) and resumed by housekeeping; the
 * failure is logged at most once per backoff, with a count.
 */
#ifndef GOBLIN_SOCKET_H
#define GOBLIN_SOCKET_H

#include <stdbool.h>
#include <stddef.h>

/* The registry entry is `socket_transport` (transport/transport.h). The
 * plain socket helpers (socket_listen_tcp, socket_addr_is_loopback) are in
 * core/sockets.h. */

/* Listeners of another transport that speaks over TCP (TLS, transport/tls.c)
 * share the socket transport's listeners: accept readiness, maxclients,
 * TCP_NODELAY and keepalive, the EMFILE backoff and stop. Such a transport
 * opens them before socket_start() (earlier in the registry), which adds
 * every listener to the event loop; each accepted, tuned, nonblocking fd is
 * handed to `on_accept` with the peer's address. */
struct conn;
struct sockaddr_storage;
typedef void (*socket_accept_fn)(int fd, const struct sockaddr_storage *peer);

/* Listens on `port` at every --bind address; false after logging why. */
bool socket_listen_bind_addresses(int port, socket_accept_fn on_accept);

/* Sets the peer and local addresses ("ip:port") of an accepted TCP conn
 * (conn_set_peer). */
void socket_conn_set_addresses(struct conn *c, const struct sockaddr_storage *peer);

/* A TCP peer's AUTH source (conn_transport.peer_source): its IPv4 address
 * or IPv6 /64. */
void socket_tcp_peer_source(const struct conn *c, char *out, size_t cap);

/* Its settings (core/config.h): the listeners, keepalive, protected mode, --no-auth-sbe. */
struct config_table;
extern const struct config_table socket_config;

#endif
