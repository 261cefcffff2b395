/*
 * echo_floor.c — goblin-echo-floor, the physical floor of a transport.
 *
 * A minimal echo server: every byte read from a connection is written back
 * unchanged. It does no parsing and no work, so goblin-bench --ops ECHO
 * against it (same client, same timer, same pinning, a message of the size
 * of a RESP PING) measures what the transport itself costs for one depth-one
 * round trip. A server's p50 divided by this floor's p50 on the same
 * transport is the server's own overhead factor.
 *
 * Each connection is served by its own thread blocking in read() and
 * write(): the cheapest kernel path there is (no epoll between messages).
 * The listeners are all created before the first accept, so once TCP accepts
 * connections the Unix socket does too (bench/matrix.sh relies on that).
 * SIGTERM/SIGINT remove the Unix socket file and exit 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *socket_path;

static void die(const char *what)
{
    fprintf(stderr, "goblin-echo-floor: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int parse_int(const char *flag, const char *text, int max)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0 || v > max) {
        fprintf(stderr, "goblin-echo-floor: %s: '%s' is not a number in 0..%d\n", flag, text, max);
        exit(2);
    }
    return (int)v;
}

static void on_signal(int sig)
{
    (void)sig;
    if (socket_path) unlink(socket_path);
    _exit(0);
}

static int listen_tcp(const char *bind_addr, int port)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, bind_addr, &addr.sin_addr) != 1) {
        fprintf(stderr, "goblin-echo-floor: --bind: '%s' is not an IPv4 address\n", bind_addr);
        exit(2);
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0) die("socket");
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) die("binding the TCP port");
    if (listen(fd, 16) != 0) die("listen");
    return fd;
}

static int listen_unix(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) {
        fprintf(stderr, "goblin-echo-floor: --socket: path too long\n");
        exit(2);
    }
    memcpy(addr.sun_path, path, strlen(path) + 1);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) die("binding the Unix socket");
    if (listen(fd, 16) != 0) die("listen");
    return fd;
}

/* Echoes until the peer closes or an error; then closes the connection. */
static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) goto done;
            off += w;
        }
    }
done:
    close(fd);
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: goblin-echo-floor [--port P] [--bind ADDR] [--socket PATH] [--cpu K]\n"
               "Echo server measuring a transport's floor with goblin-bench --ops ECHO.\n"
               "  --port P       TCP port (0 or absent: no TCP listener)\n"
               "  --bind ADDR    IPv4 address for --port (default 127.0.0.1)\n"
               "  --socket PATH  Unix stream socket\n"
               "  --cpu K        pin the server to CPU K\n");
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"port", required_argument, NULL, 'p'},   {"bind", required_argument, NULL, 'b'},
        {"socket", required_argument, NULL, 's'}, {"cpu", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    int port = 0, cpu = -1;
    const char *bind_addr = "127.0.0.1";
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            port = parse_int("--port", optarg, 65535);
            break;
        case 'b':
            bind_addr = optarg;
            break;
        case 's':
            socket_path = optarg;
            break;
        case 'c':
            cpu = parse_int("--cpu", optarg, CPU_SETSIZE - 1);
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (port <= 0 && !socket_path) {
        usage(stderr);
        return 2;
    }
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) die("--cpu: sched_setaffinity");
    }

    struct pollfd listeners[2];
    int count = 0;
    if (port > 0)
        listeners[count++] = (struct pollfd){.fd = listen_tcp(bind_addr, port), .events = POLLIN};
    if (socket_path)
        listeners[count++] = (struct pollfd){.fd = listen_unix(socket_path), .events = POLLIN};
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);

    /* Accept only when poll() says a listener is readable (never a
     * speculative accept; see DESIGN.md §3). */
    for (;;) {
        if (poll(listeners, (nfds_t)count, -1) < 0) {
            if (errno == EINTR) continue;
            die("poll");
        }
        for (int i = 0; i < count; i++) {
            if (!(listeners[i].revents & POLLIN)) continue;
            int fd = accept4(listeners[i].fd, NULL, NULL, SOCK_CLOEXEC);
            if (fd < 0) continue;
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
                       sizeof one); /* fails harmlessly on Unix */
            pthread_t thread;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            if (pthread_create(&thread, &attr, serve, (void *)(intptr_t)fd) != 0) close(fd);
            pthread_attr_destroy(&attr);
        }
    }
}
