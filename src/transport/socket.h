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

/* The registry entry is `socket_transport` (transport/transport.h). */

/* A nonblocking TCP listening socket on numeric host (IPv4 or IPv6, no
 * brackets) and port; -1 with errno (EINVAL: not a numeric address). Also
 * used by the libfabric bootstrap listener (transport/fabric.c). */
int socket_listen_tcp(const char *host, int port, int backlog);

#endif
