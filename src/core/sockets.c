/* sockets.c — socket helpers shared by the transports and the cluster bus; see sockets.h. */
#include "core/sockets.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int socket_listen_tcp(const char *host, int port, int backlog)
{
    struct sockaddr_storage ss;
    socklen_t len;
    memset(&ss, 0, sizeof ss);
    if (strchr(host, ':')) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1) goto bad_address;
        len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &a->sin_addr) != 1) goto bad_address;
        len = sizeof *a;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss.ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, backlog) < 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;

bad_address:
    errno = EINVAL;
    return -1;
}

/* Redis 7.0.15's clientAcceptHandler(): the peer is 127.0.0.1 or ::1
 * exactly. Other 127.0.0.0/8 sources are not loopback to it (7.2 widened
 * that; test_protected_mode compares with redis-server), and the same rule
 * makes a conn local for enable-debug-command (conn_is_local), over TCP and
 * over libfabric (fabric.c). */
bool socket_addr_is_loopback(const struct sockaddr_storage *peer)
{
    if (peer->ss_family == AF_INET)
        return ntohl(((const struct sockaddr_in *)peer)->sin_addr.s_addr) == INADDR_LOOPBACK;
    if (peer->ss_family == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)peer)->sin6_addr);
    return false;
}

void socket_format_addr(const struct sockaddr_storage *ss, char *out, size_t cap)
{
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        port = ntohs(a->sin_port);
        snprintf(out, cap, "%s:%d", host, port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        port = ntohs(a->sin6_port);
        snprintf(out, cap, "%s:%d", host, port);
    } else {
        snprintf(out, cap, "?:0");
    }
}

bool socket_bind_source(int fd, int family, const char *addr)
{
    struct sockaddr_storage ss = {0};
    socklen_t len;
    if (family == AF_INET) {
        struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
        if (inet_pton(AF_INET, addr, &in4->sin_addr) != 1) return false;
        in4->sin_family = AF_INET;
        len = sizeof *in4;
    } else if (family == AF_INET6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        if (inet_pton(AF_INET6, addr, &in6->sin6_addr) != 1) return false;
        in6->sin6_family = AF_INET6;
        len = sizeof *in6;
    } else {
        return false;
    }
    return bind(fd, (struct sockaddr *)&ss, len) == 0;
}
