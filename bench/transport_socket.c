/*
 * transport_socket.c — the kernel socket transports: TCP (IPv4/IPv6, with
 * TCP_NODELAY so a small request leaves at once) and Unix stream sockets.
 *
 * Both block in the kernel: recv() sleeps in read() until the reply arrives,
 * as every ordinary Redis client does, so the numbers include the wakeup the
 * kernel path costs. SO_RCVTIMEO bounds the wait (it costs nothing while
 * replies arrive in time), so a server that stops answering fails the run
 * instead of hanging it.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport.h"

static int socket_set_timeout(struct bench_conn *conn, int timeout_ms)
{
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    if (setsockopt(conn->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(conn->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
        snprintf(conn->error, sizeof conn->error, "setting socket timeouts: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int tcp_open(struct bench_conn *conn, const struct bench_target *target)
{
    char port[16];
    snprintf(port, sizeof port, "%d", target->port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *list;
    int rc = getaddrinfo(target->host, port, &hints, &list);
    if (rc != 0) {
        snprintf(conn->error, sizeof conn->error, "resolving %s:%s: %s", target->host, port,
                 gai_strerror(rc));
        return -1;
    }
    int err = 0;
    for (struct addrinfo *ai = list; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            conn->fd = fd;
            break;
        }
        err = errno;
        close(fd);
    }
    freeaddrinfo(list);
    if (conn->fd < 0) {
        snprintf(conn->error, sizeof conn->error, "connecting to %s:%s: %s", target->host, port,
                 strerror(err));
        return -1;
    }
    int one = 1;
    if (setsockopt(conn->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
        snprintf(conn->error, sizeof conn->error, "setting TCP_NODELAY: %s", strerror(errno));
        return -1;
    }
    return socket_set_timeout(conn, target->timeout_ms);
}

static int unix_open(struct bench_conn *conn, const struct bench_target *target)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (!target->socket_path || strlen(target->socket_path) >= sizeof addr.sun_path) {
        snprintf(conn->error, sizeof conn->error,
                 "--socket: a path shorter than %zu bytes is "
                 "required for the unix transport",
                 sizeof addr.sun_path);
        return -1;
    }
    memcpy(addr.sun_path, target->socket_path, strlen(target->socket_path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        snprintf(conn->error, sizeof conn->error, "connecting to %s: %s", target->socket_path,
                 strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    conn->fd = fd;
    return socket_set_timeout(conn, target->timeout_ms);
}

static int socket_send(struct bench_conn *conn, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = send(conn->fd, p, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            snprintf(conn->error, sizeof conn->error, "sending a request: %s",
                     errno == EAGAIN ? "timed out" : strerror(errno));
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static ssize_t socket_recv(struct bench_conn *conn, void *data, size_t cap)
{
    for (;;) {
        ssize_t n = recv(conn->fd, data, cap, 0);
        if (n >= 0) return n;
        if (errno == EINTR) continue;
        snprintf(conn->error, sizeof conn->error, "waiting for a reply: %s",
                 errno == EAGAIN ? "no reply within the --timeout" : strerror(errno));
        return -1;
    }
}

static void socket_close(struct bench_conn *conn)
{
    if (conn->fd >= 0) close(conn->fd);
    conn->fd = -1;
}

const struct bench_transport bench_transport_tcp = {
    .name = "tcp",
    .send_modes = NULL,
    .open = tcp_open,
    .send = socket_send,
    .recv = socket_recv,
    .close = socket_close,
};

const struct bench_transport bench_transport_unix = {
    .name = "unix",
    .send_modes = NULL,
    .open = unix_open,
    .send = socket_send,
    .recv = socket_recv,
    .close = socket_close,
};
