/*
 * sockets.h — socket helpers every layer that opens sockets shares: the
 * socket transport and TLS (transport/), the libfabric bootstrap listener
 * and the cluster bus. Plain system calls, no event loop, no state.
 */
#ifndef GOBLIN_SOCKETS_H
#define GOBLIN_SOCKETS_H

#include <stdbool.h>
#include <stddef.h>

struct sockaddr_storage;

/* A nonblocking TCP listening socket on numeric host (IPv4 or IPv6, no
 * brackets) and port, SO_REUSEADDR (IPV6_V6ONLY for IPv6); -1 with errno
 * (EINVAL: not a numeric address). */
int socket_listen_tcp(const char *host, int port, int backlog);

/* Binds fd, before its connect(), to the numeric address addr of family
 * (port 0: the kernel picks one); false (fd unchanged) when addr is of
 * another family or cannot be bound. */
bool socket_bind_source(int fd, int family, const char *addr);

/* Redis 7.0.15's loopback: 127.0.0.1 or ::1 exactly (protected mode,
 * enable-debug-command local). */
bool socket_addr_is_loopback(const struct sockaddr_storage *peer);

/* "ip:port" of an IPv4 or IPv6 address ("?:0" for any other family). */
void socket_format_addr(const struct sockaddr_storage *ss, char *out, size_t cap);

#endif
