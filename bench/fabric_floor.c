/*
 * goblin-fabric-floor — the floor of a libfabric round trip: raw FI_EP_RDM
 * ping-pong on the same endpoint module as the server and the client
 * library (goblin/fabric_ep.h: same provider, same hints, same slot pools,
 * fi_inject when the frame fits), timed like goblin-bench (CLOCK_MONOTONIC
 * around each depth-one round trip, same statistics, same CSV, op ECHO so
 * bench/report.py divides the provider's cells by it). The frame is what a
 * RESP PING costs on the wire: one envelope header + 14 payload bytes. No
 * sessions, no reorder window, no command: what a goblin-core PING over
 * the fabric cannot beat. fi_pingpong (fabtests) reports only a mean; this
 * reports every percentile.
 *
 *   goblin-fabric-floor --serve --provider P --address A --port BOOT [--cpu N]
 *   goblin-fabric-floor --provider P --host A --port BOOT [--local-address A]
 *                       [--cpu N] [--samples N] [--warmup N] [--force-send]
 *                       [--label L] [--csv FILE]
 *
 * Bootstrap: the server listens on A:BOOT for one TCP connection, sends its
 * endpoint name and reads the client's (each a u32 little-endian length and
 * the name), then echoes every frame back to the client until a BYE frame.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <goblin/fabric_ep.h>
#include <netinet/in.h>
#include <rdma/fi_cm.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "stats.h"

static const char PING[] = "*1\r\n$4\r\nPING\r\n";

struct options {
    bool serve, force_send;
    const char *provider, *host, *local, *label, *csv;
    int port, cpu;
    uint64_t samples, warmup;
};

static void die(const char *what, const char *why)
{
    fprintf(stderr, "goblin-fabric-floor: %s: %s\n", what, why);
    exit(1);
}

static void pin(int cpu)
{
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) die("sched_setaffinity", strerror(errno));
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void write_name(int fd, const void *name, size_t len)
{
    unsigned char msg[4 + GOBLIN_FABRIC_NAME_MAX];
    goblin_fabric_put32(msg, (uint32_t)len);
    memcpy(msg + 4, name, len);
    if (write(fd, msg, 4 + len) != (ssize_t)(4 + len)) die("bootstrap write", strerror(errno));
}

static size_t read_name(int fd, unsigned char *name)
{
    unsigned char len4[4];
    size_t got = 0;
    while (got < 4) {
        ssize_t n = read(fd, len4 + got, 4 - got);
        if (n <= 0) die("bootstrap read", n ? strerror(errno) : "closed");
        got += (size_t)n;
    }
    uint32_t len = goblin_fabric_get32(len4);
    if (len == 0 || len > GOBLIN_FABRIC_NAME_MAX) die("bootstrap", "bad name length");
    for (got = 0; got < len;) {
        ssize_t n = read(fd, name + got, len - got);
        if (n <= 0) die("bootstrap read", n ? strerror(errno) : "closed");
        got += (size_t)n;
    }
    return len;
}

/* Swaps endpoint names with the peer; returns the peer's AV address. */
static fi_addr_t exchange(struct goblin_fabric_ep *ep, const struct options *o)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
    if (inet_pton(AF_INET, o->host, &a.sin_addr) != 1) die(o->host, "not an IPv4 address");
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket", strerror(errno));
    if (o->serve) {
        int one = 1, lfd = fd;
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 1) != 0)
            die("bootstrap listen", strerror(errno));
        fd = accept(lfd, NULL, NULL);
        close(lfd);
        if (fd < 0) die("bootstrap accept", strerror(errno));
    } else {
        int rc = -1;
        for (int i = 0; i < 100 && (rc = connect(fd, (struct sockaddr *)&a, sizeof a)) != 0; i++) {
            close(fd); /* the server may still be opening its endpoint */
            usleep(50000);
            fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        }
        if (rc != 0) die("bootstrap connect", strerror(errno));
    }
    unsigned char mine[GOBLIN_FABRIC_NAME_MAX], theirs[GOBLIN_FABRIC_NAME_MAX];
    size_t mine_len = sizeof mine;
    int rc = fi_getname(&ep->ep->fid, mine, &mine_len);
    if (rc) die("fi_getname", fi_strerror(-rc));
    write_name(fd, mine, mine_len);
    read_name(fd, theirs);
    close(fd);
    fi_addr_t peer;
    if (fi_av_insert(ep->av, theirs, 1, &peer, 0, NULL) != 1) die("fi_av_insert", "refused");
    return peer;
}

static void send_frame(struct goblin_fabric_ep *ep, fi_addr_t to, uint8_t type, uint64_t seq)
{
    struct goblin_fabric_header h = {.version = 1,
                                     .type = type,
                                     .sequence = seq,
                                     .payload_len =
                                         type == GOBLIN_FABRIC_DATA ? sizeof PING - 1 : 0};
    int rc;
    while ((rc = goblin_fabric_ep_send(ep, to, &h, PING)) == 0) {
    }
    if (rc < 0) die("send", ep->error);
}

/* Spins until one frame arrives; returns its type (slot reposted). */
static uint8_t recv_frame(struct goblin_fabric_ep *ep)
{
    struct fi_cq_msg_entry done;
    ssize_t n;
    for (;;) {
        if (ep->tx_in_flight) goblin_fabric_ep_reap_tx(ep);
        if ((n = goblin_fabric_ep_read_rx(ep, &done, NULL, 1)) != 0) break;
    }
    if (n < 0) die("receive", ep->error);
    struct goblin_fabric_slot *slot = done.op_context;
    struct goblin_fabric_header h;
    const char *bad = goblin_fabric_decode(slot->buf, done.len, &h);
    if (bad) die("frame", bad);
    if (goblin_fabric_ep_post_recv(ep, slot) != 0) die("fi_recv", ep->error);
    return h.type;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: goblin-fabric-floor --serve --provider P --address A --port BOOT [--cpu N]\n"
            "       goblin-fabric-floor --provider P --host A --port BOOT [--local-address A]\n"
            "                           [--cpu N] [--samples N] [--warmup N] [--force-send]\n"
            "                           [--label L] [--csv FILE]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    struct options o = {.cpu = -1, .samples = 200000, .warmup = 20000, .label = "floor-fabric"};
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--serve"))
            o.serve = true;
        else if (!strcmp(argv[i], "--force-send"))
            o.force_send = true;
        else if (!strcmp(argv[i], "--provider") && more)
            o.provider = argv[++i];
        else if ((!strcmp(argv[i], "--host") || !strcmp(argv[i], "--address")) && more)
            o.host = argv[++i];
        else if (!strcmp(argv[i], "--local-address") && more)
            o.local = argv[++i];
        else if (!strcmp(argv[i], "--port") && more)
            o.port = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu") && more)
            o.cpu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--samples") && more)
            o.samples = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--warmup") && more)
            o.warmup = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--label") && more)
            o.label = argv[++i];
        else if (!strcmp(argv[i], "--csv") && more)
            o.csv = argv[++i];
        else
            usage();
    }
    if (!o.provider || !o.host || o.port <= 0 || o.samples == 0) usage();
    pin(o.cpu);
    struct goblin_fabric_ep ep = {0};
    struct goblin_fabric_ep_options eo = {.provider = o.provider,
                                          .address = o.serve ? o.host : o.local,
                                          .tx_slots = 16,
                                          .rx_slots = 16,
                                          .record = 4096,
                                          .force_send = o.force_send};
    if (goblin_fabric_ep_open(&ep, &eo) != 0) die(o.provider, ep.error);
    fi_addr_t peer = exchange(&ep, &o);

    if (o.serve) {
        uint64_t n = 0;
        while (recv_frame(&ep) == GOBLIN_FABRIC_DATA)
            send_frame(&ep, peer, GOBLIN_FABRIC_DATA, ++n);
        goblin_fabric_ep_close(&ep);
        return 0;
    }
    uint64_t *samples = malloc(sizeof *samples * o.samples);
    if (!samples) die("samples", "out of memory");
    for (uint64_t i = 0; i < o.warmup + o.samples; i++) {
        uint64_t start = now_ns();
        send_frame(&ep, peer, GOBLIN_FABRIC_DATA, i + 1);
        if (recv_frame(&ep) != GOBLIN_FABRIC_DATA) die("echo", "unexpected frame");
        uint64_t end = now_ns();
        if (i >= o.warmup) samples[i - o.warmup] = end - start;
    }
    send_frame(&ep, peer, GOBLIN_FABRIC_BYE, 0);
    /* Let the BYE leave before the endpoint goes. */
    for (uint64_t t = now_ns(); ep.tx_in_flight && now_ns() - t < 100000000u;)
        goblin_fabric_ep_reap_tx(&ep);
    usleep(10000);
    goblin_fabric_ep_close(&ep);

    struct bench_summary s;
    bench_summarize(samples, o.samples, &s);
    struct bench_run_meta meta = {.label = o.label,
                                  .server = "floor",
                                  .transport = "fabric",
                                  .wire = "resp",
                                  .send_mode = o.force_send ? "send" : "auto",
                                  .warmup = o.warmup};
    bench_table_write_header(stdout, &meta);
    bench_table_write_row(stdout, "ECHO", &s);
    if (o.csv) {
        FILE *csv = fopen(o.csv, "w");
        if (!csv) die(o.csv, strerror(errno));
        bench_csv_write_header(csv);
        bench_csv_write_row(csv, &meta, "ECHO", &s);
        fclose(csv);
    }
    free(samples);
    return 0;
}
