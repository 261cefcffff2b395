/*
 * pubsub_fanout.c — goblin-pubsub-fanout, a Pub/Sub benchmark for any RESP server: one
 * publisher, N subscribers on one literal channel, every delivery validated
 * byte for byte (channel, payload, sequence order) and every PUBLISH reply
 * checked to equal N.
 *
 *   --latency   depth one: publish one message, wait for the publisher's
 *               reply and the delivery on every subscriber, repeat; prints
 *               min/p50/p99/p99.9/max of that round trip (the seeds' PUBSUB
 *               operation with --subscribers 1).
 *   (default)   throughput: keeps up to --window publishes in flight (never
 *               more than --window ahead of the slowest subscriber, so a
 *               correct server never sees a slow consumer) and prints
 *               publishes/s and deliveries/s.
 *
 * Built as build/goblin-pubsub-fanout:
 *   build/goblin-pubsub-fanout --port 6379 --subscribers 100 --messages 200000
 *   build/goblin-pubsub-fanout --port 6379 --subscribers 1 --latency --messages 200000 --warmup
 * 20000 The benchmark harness (goblin-bench) is the reference for recorded numbers; this tool is
 * for smoke runs and fan-out throughput.
 */

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct peer {
    int fd;
    char *in;
    size_t len, cap;
    long next; /* subscribers: next expected sequence; publisher: replies seen */
};

static const char *host = "127.0.0.1", *unix_path, *channel = "fanout";
static int port = 6379, subscribers = 100, payload_len = 16, window = 256;
static long messages = 200000, warmup = 0;
static bool latency_mode;

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "pubsub_fanout: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int connect_server(void)
{
    int fd;
    if (unix_path) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", unix_path);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) die("connect: %s", strerror(errno));
    } else {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        if (inet_pton(AF_INET, host, &a.sin_addr) != 1) die("bad host %s", host);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) die("connect: %s", strerror(errno));
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) die("write: %s", strerror(errno));
        p += w;
        n -= (size_t)w;
    }
}

/* Reads what is there into the peer's buffer; false on EOF. */
static bool fill(struct peer *p)
{
    if (p->cap - p->len < 65536) {
        p->cap = p->cap * 2 + 65536;
        p->in = realloc(p->in, p->cap);
    }
    ssize_t r = read(p->fd, p->in + p->len, p->cap - p->len);
    if (r == 0) return false;
    if (r < 0) {
        if (errno == EAGAIN || errno == EINTR) return true;
        die("read: %s", strerror(errno));
    }
    p->len += (size_t)r;
    return true;
}

static void consume(struct peer *p, size_t n)
{
    memmove(p->in, p->in + n, p->len - n);
    p->len -= n;
}

static size_t format_payload(char *dst, long seq)
{
    return (size_t)snprintf(dst, (size_t)payload_len + 1, "%0*ld", payload_len, seq);
}

/* Expected delivery of message seq. */
static size_t expected_message(char *dst, size_t cap, long seq)
{
    char payload[4096];
    format_payload(payload, seq);
    return (size_t)snprintf(dst, cap, "*3\r\n$7\r\nmessage\r\n$%zu\r\n%s\r\n$%d\r\n%s\r\n",
                            strlen(channel), channel, payload_len, payload);
}

/* Consumes complete validated deliveries; returns how many. */
static long drain_subscriber(struct peer *s)
{
    char want[8192];
    long got = 0;
    for (;;) {
        size_t n = expected_message(want, sizeof want, s->next);
        if (s->len < n) return got;
        if (memcmp(s->in, want, n) != 0) die("unexpected delivery (wanted %s)", want);
        consume(s, n);
        s->next++;
        got++;
    }
}

/* Consumes complete PUBLISH replies (each must be :subscribers). */
static long drain_publisher(struct peer *p)
{
    char want[32];
    int n = snprintf(want, sizeof want, ":%d\r\n", subscribers);
    long got = 0;
    while (p->len >= (size_t)n) {
        if (memcmp(p->in, want, (size_t)n) != 0) die("unexpected PUBLISH reply (wanted %s)", want);
        consume(p, (size_t)n);
        p->next++;
        got++;
    }
    return got;
}

static void subscribe(struct peer *s)
{
    char cmd[512], want[512];
    int n = snprintf(cmd, sizeof cmd, "*2\r\n$9\r\nSUBSCRIBE\r\n$%zu\r\n%s\r\n", strlen(channel),
                     channel);
    send_all(s->fd, cmd, (size_t)n);
    n = snprintf(want, sizeof want, "*3\r\n$9\r\nsubscribe\r\n$%zu\r\n%s\r\n:1\r\n",
                 strlen(channel), channel);
    while (s->len < (size_t)n)
        if (!fill(s)) die("%s", "server closed during SUBSCRIBE");
    if (memcmp(s->in, want, (size_t)n) != 0) die("%s", "unexpected SUBSCRIBE reply");
    consume(s, (size_t)n);
}

static size_t format_publish(char *dst, long seq)
{
    char payload[4096];
    format_payload(payload, seq);
    return (size_t)sprintf(dst, "*3\r\n$7\r\nPUBLISH\r\n$%zu\r\n%s\r\n$%d\r\n%s\r\n",
                           strlen(channel), channel, payload_len, payload);
}

static int compare_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--latency"))
            latency_mode = true;
        else if (!v)
            die("missing value for %s", a);
        else if (!strcmp(a, "--host"))
            host = v, i++;
        else if (!strcmp(a, "--port"))
            port = atoi(v), i++;
        else if (!strcmp(a, "--unix"))
            unix_path = v, i++;
        else if (!strcmp(a, "--channel"))
            channel = v, i++;
        else if (!strcmp(a, "--subscribers"))
            subscribers = atoi(v), i++;
        else if (!strcmp(a, "--messages"))
            messages = atol(v), i++;
        else if (!strcmp(a, "--warmup"))
            warmup = atol(v), i++;
        else if (!strcmp(a, "--payload"))
            payload_len = atoi(v), i++;
        else if (!strcmp(a, "--window"))
            window = atoi(v), i++;
        else
            die("unknown flag %s", a);
    }
    if (subscribers < 1 || messages < 1 || payload_len < 8 || payload_len > 4000 || window < 1)
        die("%s",
            "need --subscribers >= 1, --messages >= 1, 8 <= --payload <= 4000, --window >= 1");
    if (latency_mode) window = 1;

    struct peer *subs = calloc((size_t)subscribers, sizeof *subs), pub = {0};
    int ep = epoll_create1(0);
    for (int i = 0; i < subscribers; i++) {
        subs[i].fd = connect_server();
        subscribe(&subs[i]);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &subs[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, subs[i].fd, &ev);
    }
    pub.fd = connect_server();
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &pub};
    epoll_ctl(ep, EPOLL_CTL_ADD, pub.fd, &ev);

    long total = messages + warmup, sent = 0;
    long long delivered = 0;
    long long *samples = latency_mode ? malloc(sizeof *samples * (size_t)messages) : NULL;
    char *out = malloc((size_t)window * (payload_len + 128) + 1);
    int64_t start = 0, round_start = 0;
    struct epoll_event events[256];
    while (pub.next < total || delivered < (long long)total * subscribers) {
        if (sent == warmup && !start) start = now_ns();
        /* Publish while under the window relative to the slowest subscriber. */
        long slowest = subs[0].next;
        for (int i = 1; i < subscribers; i++)
            if (subs[i].next < slowest) slowest = subs[i].next;
        size_t olen = 0;
        while (sent < total && sent - slowest < window && sent - pub.next < window) {
            if (latency_mode) round_start = now_ns();
            olen += format_publish(out + olen, sent++);
        }
        if (olen) send_all(pub.fd, out, olen);
        int n = epoll_wait(ep, events, 256, 10000);
        if (n == 0) die("%s", "no progress for 10 s");
        for (int e = 0; e < n; e++) {
            struct peer *p = events[e].data.ptr;
            if (!fill(p))
                die("%s", p == &pub ? "publisher closed"
                                    : "a subscriber was closed "
                                      "(slow consumer? raise --unsolicited-output-buffer-bytes)");
            if (p == &pub)
                drain_publisher(p);
            else
                delivered += drain_subscriber(p);
        }
        if (latency_mode && pub.next == sent && delivered == (long long)sent * subscribers &&
            sent > warmup)
            samples[sent - warmup - 1] = now_ns() - round_start;
    }
    double secs = (double)(now_ns() - start) / 1e9;
    if (latency_mode) {
        qsort(samples, (size_t)messages, sizeof *samples, compare_ll);
#define PCT(q) (samples[(size_t)((double)(messages - 1) * (q))] / 1000.0)
        printf("publish->delivery, %d subscriber(s), payload %d B, %ld samples: min %.1f us  "
               "p50 %.1f us  p99 %.1f us  p99.9 %.1f us  max %.1f us\n",
               subscribers, payload_len, messages, PCT(0), PCT(0.5), PCT(0.99), PCT(0.999),
               PCT(1.0));
    } else {
        printf("fan-out to %d subscribers, payload %d B, window %d: %ld publishes in %.3f s = "
               "%.0f publishes/s, %.0f deliveries/s (all validated)\n",
               subscribers, payload_len, window, messages, secs, (double)messages / secs,
               (double)messages * subscribers / secs);
    }
    return 0;
}
