/* fabric_client.c — client side of the libfabric transport; contract in
 * include/goblin/fabric_client.h, envelope in goblin/fabric_envelope.h. */
#include <goblin/fabric_client.h>

#include <errno.h>
#include <goblin/fabric_ep.h>
#include <goblin/fabric_envelope.h>
#include <goblin/fabric_reorder.h>
#include <goblin/resp_reader.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rx_buffer.h"

#define CQ_BATCH 16

struct goblin_fabric {
    struct goblin_fabric_ep fep;
    fi_addr_t server;
    uint64_t session;
    uint8_t version;
    uint64_t tx_next;
    struct goblin_reorder window;
    bool acked, refused, closed, heartbeat;
    int timeout_ms; /* bootstrap, hello, and waiting for TX room */
    long long last_sent_us;
    struct rx_buffer rx; /* in-order payload received, not yet handed to the caller */
    struct goblin_fabric_stats stats;
    char error[256];
};

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int fail(struct goblin_fabric *f, int err, const char *what, int rc)
{
    snprintf(f->error, sizeof f->error, "%s: %s (%d)", what, fi_strerror(-rc), rc);
    return -err;
}

/* --- receive side ----------------------------------------------------- */

static void on_data(struct goblin_fabric *f, const struct goblin_fabric_header *h,
                    const char *payload)
{
    switch (goblin_reorder_offer(&f->window, h->sequence, payload, h->payload_len)) {
    case GOBLIN_REORDER_DELIVER:
        f->stats.last_correlation = h->correlation;
        if (rx_buffer_append(&f->rx, payload, h->payload_len) != 0) goto nomem;
        for (;;) {
            size_t len;
            void *held = goblin_reorder_pop(&f->window, &len);
            if (!held) break;
            int rc = rx_buffer_append(&f->rx, held, len);
            free(held);
            if (rc != 0) goto nomem;
        }
        return;
    case GOBLIN_REORDER_HELD:
    case GOBLIN_REORDER_DUPLICATE:
        return;
    case GOBLIN_REORDER_OVERFLOW:
        snprintf(f->error, sizeof f->error,
                 "sequence %llu beyond the reorder window (expected %llu)",
                 (unsigned long long)h->sequence, (unsigned long long)f->window.next);
        f->closed = true;
        return;
    case GOBLIN_REORDER_NOMEM:
        break;
    }
nomem:
    snprintf(f->error, sizeof f->error, "out of memory buffering replies");
    f->closed = true;
}

static void on_message(struct goblin_fabric *f, const char *msg, size_t len)
{
    struct goblin_fabric_header h;
    const char *bad = goblin_fabric_decode(msg, len, &h);
    if (bad || h.session != f->session) {
        snprintf(f->error, sizeof f->error, "bad frame from the server: %s",
                 bad ? bad : "wrong session id");
        f->closed = true;
        return;
    }
    f->stats.frames_received++;
    const char *payload = msg + GOBLIN_FABRIC_HEADER_BYTES;
    switch (h.type) {
    case GOBLIN_FABRIC_HELLO_ACK: {
        struct goblin_fabric_hello_ack ack;
        if ((bad = goblin_fabric_hello_ack_decode(payload, h.payload_len, &ack))) {
            snprintf(f->error, sizeof f->error, "bad hello-ack: %s", bad);
            f->refused = true;
            return;
        }
        if (!ack.accepted) {
            size_t n = h.payload_len - GOBLIN_FABRIC_HELLO_ACK_BYTES;
            if (n >= sizeof f->error) n = sizeof f->error - 1;
            memcpy(f->error, payload + GOBLIN_FABRIC_HELLO_ACK_BYTES, n);
            f->error[n] = '\0';
            f->refused = true;
            return;
        }
        f->acked = true;
        f->last_sent_us = now_us();
        f->version = ack.version;
        f->stats.version = ack.version;
        f->stats.lease_ms = ack.lease_ms;
        return;
    }
    case GOBLIN_FABRIC_DATA:
        on_data(f, &h, payload);
        return;
    case GOBLIN_FABRIC_PONG:
        f->stats.pongs_received++;
        return;
    case GOBLIN_FABRIC_BYE: {
        size_t n = h.payload_len < 200 ? h.payload_len : 200;
        snprintf(f->error, sizeof f->error, "the server ended the session%s%.*s", n ? ": " : "",
                 (int)n, payload);
        f->closed = true;
        return;
    }
    default:
        return;
    }
}

/* Reclaims TX slots; a failed send ends the session. */
static void reap_tx(struct goblin_fabric *f)
{
    uint64_t errors = f->fep.tx_errors;
    goblin_fabric_ep_reap_tx(&f->fep);
    if (f->fep.tx_errors != errors) {
        snprintf(f->error, sizeof f->error, "%s", f->fep.error);
        f->closed = true;
    }
}

static int send_frame(struct goblin_fabric *f, uint8_t type, uint64_t sequence, const void *payload,
                      size_t len);

/* Both completion queues once (the TX queue only while a slot is out: an
 * empty read still progresses the whole endpoint, doubling each spin);
 * returns how many messages arrived. */
static int progress(struct goblin_fabric *f)
{
    if (f->fep.tx_in_flight) reap_tx(f);
    struct fi_cq_msg_entry done[CQ_BATCH];
    ssize_t n = goblin_fabric_ep_read_rx(&f->fep, done, NULL, CQ_BATCH);
    if (n < 0) {
        snprintf(f->error, sizeof f->error, "%s", f->fep.error);
        f->closed = true;
        return 0;
    }
    for (ssize_t i = 0; i < n; i++) {
        struct goblin_fabric_slot *s = done[i].op_context;
        on_message(f, s->buf, done[i].len);
        goblin_fabric_ep_post_recv(&f->fep, s);
    }
    if (f->heartbeat && f->acked && !f->closed && f->stats.lease_ms &&
        now_us() - f->last_sent_us > (long long)f->stats.lease_ms * 1000 / 3) {
        if (send_frame(f, GOBLIN_FABRIC_PING, 0, NULL, 0) == 0) f->stats.pings_sent++;
    }
    return n > 0 ? (int)n : 0;
}

/* --- send side -------------------------------------------------------- */

/* One frame, waiting (progressing both queues) while no TX room is free. */
static int send_frame(struct goblin_fabric *f, uint8_t type, uint64_t sequence, const void *payload,
                      size_t len)
{
    struct goblin_fabric_header h = {.version = type == GOBLIN_FABRIC_HELLO ? 0 : f->version,
                                     .type = type,
                                     .session = f->session,
                                     .sequence = sequence,
                                     .payload_len = (uint32_t)len};
    long long deadline = -1;
    for (;;) {
        int rc = goblin_fabric_ep_send(&f->fep, f->server, &h, payload);
        if (rc > 0) break;
        if (rc < 0) {
            snprintf(f->error, sizeof f->error, "%s", f->fep.error);
            return -EIO;
        }
        if (f->closed) return -EPIPE;
        /* No room: wait for the server (never drop), but not for ever. */
        long long now = now_us();
        if (deadline < 0) {
            deadline = now + (long long)f->timeout_ms * 1000;
        } else if (now > deadline) {
            snprintf(f->error, sizeof f->error, "no room to send within %d ms", f->timeout_ms);
            f->closed = true;
            return -ETIMEDOUT;
        }
        bool was = f->heartbeat;
        f->heartbeat = false; /* no ping from inside a send */
        progress(f);
        f->heartbeat = was;
    }
    f->stats.frames_sent++;
    if (f->stats.lease_ms) f->last_sent_us = now_us(); /* only heartbeats read it */
    return 0;
}

int goblin_fabric_send(struct goblin_fabric *f, const void *data, size_t len)
{
    size_t max = f->fep.record - GOBLIN_FABRIC_HEADER_BYTES;
    const char *p = data;
    while (len > 0) {
        if (f->closed) return -EPIPE;
        size_t n = len < max ? len : max;
        int rc = send_frame(f, GOBLIN_FABRIC_DATA, f->tx_next, p, n);
        if (rc != 0) return rc;
        f->tx_next++;
        p += n;
        len -= n;
    }
    return 0;
}

int goblin_fabric_send_command(struct goblin_fabric *f, int argc, const char *const *argv,
                               const size_t *lens)
{
    char small[512];
    size_t len;
    char *buf = resp_format_command(argc, argv, lens, small, sizeof small, &len);
    if (!buf) return -ENOMEM;
    int rc = goblin_fabric_send(f, buf, len);
    if (buf != small) free(buf);
    return rc;
}

/* rx_wait_fn: progresses the endpoint until the buffer holds more than
 * `have` bytes. 1, 0 on timeout, -EPIPE. */
static int wait_rx(void *arg, size_t have, long long timeout_us)
{
    struct goblin_fabric *f = arg;
    long long deadline = timeout_us >= 0 ? now_us() + timeout_us : -1;
    unsigned spins = 0;
    while (rx_buffer_len(&f->rx) <= have) {
        if (f->closed) return -EPIPE;
        if (progress(f) == 0 && (++spins & 255) == 0 && deadline >= 0 && now_us() >= deadline)
            return 0;
    }
    return 1;
}

ssize_t goblin_fabric_recv(struct goblin_fabric *f, void *buf, size_t cap, long long timeout_us)
{
    return rx_buffer_recv(&f->rx, wait_rx, f, buf, cap, timeout_us);
}

ssize_t goblin_fabric_read_reply(struct goblin_fabric *f, const char **reply, long long timeout_us)
{
    return rx_buffer_read_reply(&f->rx, wait_rx, f, reply, timeout_us);
}

int goblin_fabric_poll(struct goblin_fabric *f)
{
    if (!f->closed) progress(f);
    return f->closed ? -EPIPE : 0;
}

const char *goblin_fabric_error(const struct goblin_fabric *f)
{
    return f->error;
}

void goblin_fabric_get_stats(const struct goblin_fabric *f, struct goblin_fabric_stats *out)
{
    *out = f->stats;
    out->injected = f->fep.injected;
    out->sent_with_fi_send = f->fep.sent;
    out->sequestered = f->window.sequestered;
    out->duplicates = f->window.duplicates;
}

/* --- connecting ------------------------------------------------------- */

/* Reads the server endpoint's name from the bootstrap listener. */
static int bootstrap(struct goblin_fabric *f, const char *host, int port, int timeout_ms,
                     unsigned char *name, size_t *name_len)
{
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *res;
    int gai = getaddrinfo(host, service, &hints, &res);
    if (gai != 0) {
        snprintf(f->error, sizeof f->error, "bootstrap address %s:%d: %s", host, port,
                 gai_strerror(gai));
        return -EINVAL;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = fd < 0 ? -errno : 0;
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) rc = -errno;
    freeaddrinfo(res);
    unsigned char msg[4 + GOBLIN_FABRIC_NAME_MAX];
    size_t got = 0;
    while (rc == 0) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, timeout_ms) <= 0) {
            rc = -ETIMEDOUT;
            break;
        }
        ssize_t n = read(fd, msg + got, sizeof msg - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    if (fd >= 0) close(fd);
    if (rc != 0) {
        snprintf(f->error, sizeof f->error, "bootstrap %s:%d: %s", host, port, strerror(-rc));
        return rc;
    }
    uint32_t len = got >= 4 ? goblin_fabric_get32(msg) : 0;
    if (got < 4 || len == 0 || len > GOBLIN_FABRIC_NAME_MAX || got != 4 + len) {
        snprintf(f->error, sizeof f->error, "bootstrap %s:%d: malformed reply (%zu bytes)", host,
                 port, got);
        return -EPROTO;
    }
    memcpy(name, msg + 4, len);
    *name_len = len;
    return 0;
}

static int endpoint_open(struct goblin_fabric *f, const char *provider,
                         const struct goblin_fabric_options *o)
{
    struct goblin_fabric_ep_options eo = {.provider = provider,
                                          .address = o->local_address,
                                          .tx_slots = o->tx_slots ? o->tx_slots : 16,
                                          .rx_slots = o->rx_slots ? o->rx_slots : 16,
                                          .record = f->fep.record,
                                          .force_send = o->force_send != 0};
    int rc = goblin_fabric_ep_open(&f->fep, &eo);
    if (rc) snprintf(f->error, sizeof f->error, "%s", f->fep.error);
    return rc;
}

static int hello(struct goblin_fabric *f, const struct goblin_fabric_options *o, int timeout_ms)
{
    unsigned char name[GOBLIN_FABRIC_NAME_MAX];
    size_t name_len = sizeof name;
    int rc = fi_getname(&f->fep.ep->fid, name, &name_len);
    if (rc) return fail(f, EIO, "fi_getname", rc);
    unsigned char msg[GOBLIN_FABRIC_HELLO_BYTES + GOBLIN_FABRIC_NAME_MAX];
    struct goblin_fabric_hello h = {
        .version_min = (uint8_t)(o->version_min ? o->version_min : GOBLIN_FABRIC_VERSION_MIN),
        .version_max = (uint8_t)(o->version_max ? o->version_max : GOBLIN_FABRIC_VERSION_MAX),
        .name_len = (uint16_t)name_len,
        .window_messages = f->window.max_messages,
        .window_bytes = (uint32_t)f->window.max_bytes};
    goblin_fabric_hello_encode(msg, &h);
    memcpy(msg + GOBLIN_FABRIC_HELLO_BYTES, name, name_len);
    if ((rc = send_frame(f, GOBLIN_FABRIC_HELLO, 0, msg, GOBLIN_FABRIC_HELLO_BYTES + name_len)))
        return rc;
    long long deadline = now_us() + (long long)timeout_ms * 1000;
    while (!f->acked && !f->refused && !f->closed) {
        if (progress(f) == 0 && now_us() > deadline) {
            snprintf(f->error, sizeof f->error, "no hello-ack within %d ms", timeout_ms);
            return -ETIMEDOUT;
        }
    }
    if (f->refused) return -ECONNREFUSED;
    return f->closed ? -EPIPE : 0;
}

int goblin_fabric_connect(const char *provider, const char *host, int port,
                          const struct goblin_fabric_options *opt, struct goblin_fabric **out,
                          char *err, size_t err_cap)
{
    struct goblin_fabric_options defaults = {0};
    const struct goblin_fabric_options *o = opt ? opt : &defaults;
    int timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 5000;
    struct goblin_fabric *f = calloc(1, sizeof *f);
    if (!f) return -ENOMEM;
    f->fep.record = o->max_record ? o->max_record : 128 * 1024;
    f->tx_next = 1;
    f->heartbeat = !o->no_heartbeat;
    f->timeout_ms = timeout_ms;
    int rc = goblin_reorder_init(&f->window, o->window_messages ? o->window_messages : 64,
                                 o->window_bytes ? o->window_bytes : (1u << 20));
    if (rc != 0) rc = -ENOMEM;
    unsigned char name[GOBLIN_FABRIC_NAME_MAX];
    size_t name_len = 0;
    if (rc == 0 && f->fep.record <= GOBLIN_FABRIC_HEADER_BYTES + GOBLIN_FABRIC_HELLO_BYTES +
                                        GOBLIN_FABRIC_NAME_MAX) {
        snprintf(f->error, sizeof f->error, "max_record %zu is too small", f->fep.record);
        rc = -EINVAL;
    }
    if (rc == 0) rc = bootstrap(f, host, port, timeout_ms, name, &name_len);
    if (rc == 0) rc = endpoint_open(f, provider, o);
    if (rc == 0 && fi_av_insert(f->fep.av, name, 1, &f->server, 0, NULL) != 1) {
        snprintf(f->error, sizeof f->error, "the server's endpoint name is not a %s address",
                 provider);
        rc = -EPROTO;
    }
    if (rc == 0 && getrandom(&f->session, sizeof f->session, 0) != sizeof f->session) rc = -errno;
    if (rc == 0) rc = hello(f, o, timeout_ms);
    if (rc != 0) {
        if (err && err_cap) snprintf(err, err_cap, "%s", f->error[0] ? f->error : strerror(-rc));
        f->closed = true; /* no BYE: there is no session */
        goblin_fabric_close(f);
        return rc;
    }
    f->error[0] = '\0';
    *out = f;
    return 0;
}

void goblin_fabric_close(struct goblin_fabric *f)
{
    if (!f) return;
    f->fep.inject_size = 0; /* the BYE by fi_send: its completion says it has left */
    if (!f->closed && f->acked && send_frame(f, GOBLIN_FABRIC_BYE, 0, NULL, 0) == 0) {
        /* Let the BYE leave before the endpoint goes (bounded wait). */
        long long deadline = now_us() + 100000;
        while (f->fep.tx_in_flight && now_us() < deadline) goblin_fabric_ep_reap_tx(&f->fep);
    }
    goblin_fabric_ep_close(&f->fep);
    goblin_reorder_free(&f->window);
    rx_buffer_free(&f->rx);
    free(f);
}
