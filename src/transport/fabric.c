/* fabric.c — libfabric FI_EP_RDM transport, server side; see fabric.h and
 * include/goblin/fabric_envelope.h. */
#include "transport/fabric.h"
#include "util/buf.h"
#include "util/numparse.h"

#include <limits.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <goblin/fabric_envelope.h>
#include <goblin/fabric_ep.h>
#include <goblin/fabric_reorder.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "connection/conn_transport.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/sockets.h"
#include "transport/transport.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define FABRIC_CQ_BATCH 16
/* Control frames (hello-ack, pong, bye) wait this long for a TX slot. */
#define FABRIC_CONTROL_WAIT_US 100000
/* An address-vector entry no session uses any more is removed this long
 * after its last session ended (its BYE may still be leaving), unless the
 * same endpoint says hello again first. */
#define FABRIC_PEER_LINGER_MS 500

struct fabric_endpoint;

/* One client endpoint name known to the address vector: shared by every
 * session that endpoint opens (reused when it says hello again), removed
 * (fi_av_remove) once its last session has ended and it has lingered. */
struct fabric_peer {
    fi_addr_t addr;
    int sessions;          /* live sessions from this endpoint */
    int64_t idle_since_ms; /* when sessions dropped to 0 */
    uint16_t name_len;
    unsigned char name[GOBLIN_FABRIC_NAME_MAX];
};

struct fabric_session {
    struct fabric_endpoint *ep;
    uint64_t id;
    struct fabric_peer *peer;
    fi_addr_t addr;
    uint8_t version;   /* envelope version agreed at hello */
    struct conn *conn; /* NULL once ended (freed at reap: fabric_release) */
    struct goblin_reorder window;
    uint64_t tx_next;      /* next outgoing DATA sequence */
    uint64_t last_request; /* sequence of the last DATA delivered: RESP replies' correlation */
    const char *cur;       /* an in-order payload being read (borrowed), see session_deliver */
    size_t cur_len;
    struct buf pending; /* in-order payload bytes the conn has not read yet */
    int64_t last_seen_ms;
    bool want_read, want_write;
    bool bye_received;      /* the client ended it: no BYE back */
    bool local;             /* the peer is on this host (fabric_is_local) */
    const char *end_reason; /* the BYE's text when the transport ends it, else none */
};

/* Per-target counters (INFO libfabric); the endpoint module counts how
 * frames left (fep.injected / fep.sent). */
struct fabric_counters {
    uint64_t sessions_total, sessions_expired, hellos_refused;
    uint64_t frames_rx, frames_dropped;
    uint64_t sequestered, duplicates, overflow_closes; /* of ended sessions */
    uint64_t tx_backpressure; /* sends that found no TX room and had to wait */
    uint64_t av_removed;
};

struct fabric_endpoint {
    char name[160]; /* "libfabric:PROVIDER@ADDRESS:PORT" */
    const struct polled_spec *spec;
    struct goblin_fabric_ep fep;
    char epname[GOBLIN_FABRIC_NAME_MAX];
    size_t epname_len;
    char epname_text[128];
    /* Locality (docs/libfabric.md "Locality"): every peer of an intra-host
     * provider is on this host; otherwise a peer is local only when this
     * endpoint is at 127.0.0.1 / ::1 (unreachable from another host) and
     * the peer's name is too. */
    bool intra_host, loopback;
    int listen_fd;
    struct ev_handler listen_handler;
    struct ev_handler wait_handler;   /* the CQs' wait fds, watched while the loop sleeps */
    struct fabric_session **sessions; /* live sessions, unordered */
    int session_count, session_cap;
    struct fabric_session *last_found; /* one-entry lookup cache (depth-one clients) */
    int sessions_pending;              /* sessions holding unread input (pending) */
    int sessions_blocked;              /* sessions waiting for a TX slot */
    struct fabric_peer **peers;        /* AV entries in use or lingering, unordered */
    int peer_count, peer_cap, peers_idle;
    struct fabric_counters stats;
    struct log_limiter warnings;
};

static struct fabric_endpoint *endpoints;
static int endpoint_count;

/* --- sending -------------------------------------------------------- */

/* Sends one envelope to addr (goblin_fabric_ep_send): 1 handed to the
 * provider, 0 no room now (retry after completions), -1 provider error. */
static int fabric_send_frame(struct fabric_endpoint *ep, fi_addr_t addr,
                             const struct goblin_fabric_header *h, const void *payload)
{
    int rc = goblin_fabric_ep_send(&ep->fep, addr, h, payload);
    if (rc == 0) ep->stats.tx_backpressure++;
    if (rc < 0) {
        log_warning_limited(&ep->warnings, "%s: %s", ep->name, ep->fep.error);
        errno = EIO;
    }
    return rc;
}

/* Control frames (hello-ack, pong, bye) are rare and small: they wait a
 * bounded time for room, progressing the TX queue, rather than queueing. */
static void fabric_send_control(struct fabric_endpoint *ep, fi_addr_t addr, uint8_t type,
                                uint8_t version, uint64_t session, const void *payload, size_t len)
{
    struct goblin_fabric_header h = {
        .version = version, .type = type, .session = session, .payload_len = (uint32_t)len};
    int64_t deadline = clock_mono_us() + FABRIC_CONTROL_WAIT_US;
    int rc;
    while ((rc = fabric_send_frame(ep, addr, &h, payload)) == 0 && clock_mono_us() < deadline) {
        goblin_fabric_ep_reap_tx(&ep->fep);
    }
    if (rc == 0)
        log_warning_limited(&ep->warnings, "%s: no room to send a control frame in %d ms", ep->name,
                            FABRIC_CONTROL_WAIT_US / 1000);
}

/* --- conn transport ------------------------------------------------- */

static ssize_t fabric_read(struct conn *c, void *dst, size_t cap)
{
    struct fabric_session *s = conn_io(c)->transport_data;
    size_t copied = 0;
    size_t held = buf_len(&s->pending);
    if (held) {
        copied = held < cap ? held : cap;
        memcpy(dst, buf_head(&s->pending), copied);
        buf_consume(&s->pending, copied);
        if (buf_len(&s->pending) == 0) s->ep->sessions_pending--;
    }
    if (copied < cap && s->cur_len) {
        size_t n = s->cur_len < cap - copied ? s->cur_len : cap - copied;
        memcpy((char *)dst + copied, s->cur, n);
        s->cur += n;
        s->cur_len -= n;
        copied += n;
    }
    if (copied == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)copied;
}

/* Sends len bytes of payload as DATA frames of at most one record each. */
static ssize_t fabric_send_data(struct fabric_session *s, const void *src, size_t len,
                                uint64_t correlation)
{
    struct fabric_endpoint *ep = s->ep;
    size_t max = ep->fep.record - GOBLIN_FABRIC_HEADER_BYTES;
    size_t sent = 0;
    while (sent < len) {
        size_t n = len - sent < max ? len - sent : max;
        struct goblin_fabric_header h = {.version = s->version,
                                         .type = GOBLIN_FABRIC_DATA,
                                         .session = s->id,
                                         .sequence = s->tx_next,
                                         .correlation = correlation,
                                         .payload_len = (uint32_t)n};
        int rc = fabric_send_frame(ep, s->addr, &h, (const char *)src + sent);
        if (rc < 0) return -1;
        if (rc == 0) break;
        s->tx_next++;
        sent += n;
    }
    if (sent == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)sent;
}

/* A byte-stream wire (RESP): replies echo the last request delivered;
 * bytes from the Pub/Sub FIFO are unsolicited (correlation 0). */
static ssize_t fabric_write(struct conn *c, const void *src, size_t len, enum out_unit_kind kind)
{
    struct fabric_session *s = conn_io(c)->transport_data;
    return fabric_send_data(s, src, len, kind == OUT_PUSH ? 0 : s->last_request);
}

/* A framed wire (SBE): one unit, one message, whole or not at all. */
static int fabric_send_unit(struct conn *c, const struct out_unit *unit, const char *payload)
{
    struct fabric_session *s = conn_io(c)->transport_data;
    if (unit->len > s->ep->fep.record - GOBLIN_FABRIC_HEADER_BYTES) {
        log_warning_limited(&s->ep->warnings,
                            "%s: a %u-byte reply exceeds --libfabric-max-record: session ended",
                            s->ep->name, unit->len);
        errno = EMSGSIZE;
        return -1;
    }
    ssize_t n = fabric_send_data(s, payload, unit->len, unit->correlation);
    if (n < 0) return errno == EAGAIN ? 0 : -1;
    return 1;
}

static void fabric_set_interest(struct conn *c, bool readable, bool writable)
{
    struct fabric_session *s = conn_io(c)->transport_data;
    if (writable != s->want_write) s->ep->sessions_blocked += writable ? 1 : -1;
    s->want_read = readable;
    s->want_write = writable;
}

static void session_table_remove(struct fabric_endpoint *ep, struct fabric_session *s)
{
    for (int i = 0; i < ep->session_count; i++) {
        if (ep->sessions[i] != s) continue;
        ep->sessions[i] = ep->sessions[--ep->session_count];
        break;
    }
    if (ep->last_found == s) ep->last_found = NULL;
}

/* Ends a session for a reason the client is told in the BYE. */
static void session_end(struct fabric_session *s, const char *reason)
{
    s->end_reason = reason;
    conn_close(s->conn, reason);
}

/* The session no longer uses its peer's AV entry: the entry lingers (its
 * BYE may still be leaving) until fabric_peers_prune removes it. */
static void peer_release(struct fabric_endpoint *ep, struct fabric_peer *p)
{
    if (--p->sessions > 0) return;
    p->idle_since_ms = clock_unix_ms_coarse();
    ep->peers_idle++;
}

/* Ends the session at once: BYE to the client (unless it said bye), out of
 * the table, its AV entry released. Its memory goes at reap
 * (fabric_release): the poll that delivered the frame closing it may
 * still hold it. */
static void fabric_close(struct conn *c)
{
    struct fabric_session *s = conn_io(c)->transport_data;
    struct fabric_endpoint *ep = s->ep;
    if (!s->bye_received)
        fabric_send_control(ep, s->addr, GOBLIN_FABRIC_BYE, s->version, s->id, s->end_reason,
                            s->end_reason ? strlen(s->end_reason) : 0);
    if (buf_len(&s->pending)) ep->sessions_pending--;
    if (s->want_write) ep->sessions_blocked--;
    s->want_read = s->want_write = false;
    buf_free(&s->pending);
    s->cur_len = 0;
    session_table_remove(ep, s);
    ep->stats.sequestered += s->window.sequestered;
    ep->stats.duplicates += s->window.duplicates;
    peer_release(ep, s->peer);
    s->peer = NULL;
    s->conn = NULL;
}

static void fabric_release(struct conn *c)
{
    struct fabric_session *s = conn_io(c)->transport_data;
    goblin_reorder_free(&s->window);
    xfree(s);
    conn_io(c)->transport_data = NULL;
}

static bool fabric_is_local(const struct conn *c)
{
    const struct fabric_session *s = conn_io_const(c)->transport_data;
    return s && s->local;
}

static void fabric_peer_source(const struct conn *c, char *out, size_t cap)
{
    /* The client's endpoint address without the port: the host. */
    snprintf(out, cap, "%s", conn_addr(c));
    char *colon = strrchr(out, ':');
    if (colon && strchr(out, '.')) *colon = '\0';
}

/* Both wires. */
static bool fabric_skips_auth(bool sbe)
{
    (void)sbe;
    return config.no_auth_libfabric;
}

static bool fabric_start(void);
static int fabric_endpoint_count(void);
static void fabric_housekeeping(void);
static void fabric_stop(void);
static size_t fabric_lock_memory(size_t budget, size_t *total);
static void fabric_info(struct buf *b);

const struct transport fabric_transport = {
    .name = "libfabric",
    .flags = TRANSPORT_POLLED,
    .start = fabric_start,
    .endpoint_count = fabric_endpoint_count,
    .housekeeping = fabric_housekeeping,
    .stop = fabric_stop,
    .lock_memory = fabric_lock_memory,
    .info_section = "libfabric",
    .info = fabric_info,
};

static const struct conn_transport fabric_conn_io = {
    .name = "libfabric",
    .flags = CONN_TRANSPORT_CARRIES_SBE | CONN_TRANSPORT_SBE_ANY_PEER,
    .skips_auth = fabric_skips_auth,
    .read = fabric_read,
    .write = fabric_write,
    .set_interest = fabric_set_interest,
    .close = fabric_close,
    .release = fabric_release,
    .send_unit = fabric_send_unit,
    .peer_source = fabric_peer_source,
    .is_local = fabric_is_local,
};

/* --- sessions ------------------------------------------------------- */

static struct fabric_session *session_find(struct fabric_endpoint *ep, uint64_t id)
{
    if (ep->last_found && ep->last_found->id == id) return ep->last_found;
    for (int i = 0; i < ep->session_count; i++) {
        if (ep->sessions[i]->id == id) return ep->last_found = ep->sessions[i];
    }
    return NULL;
}

/* Hands one in-order payload to the conn: read in place while the conn
 * reads, the rest copied to `pending` (the RX buffer is reposted after). */
static void session_deliver(struct fabric_session *s, uint64_t sequence, const char *data,
                            size_t len)
{
    struct fabric_endpoint *ep = s->ep;
    s->last_request = sequence;
    if (buf_len(&s->pending) == 0 && s->want_read) {
        s->cur = data;
        s->cur_len = len;
        while (s->conn && s->cur_len && s->want_read) conn_on_readable(s->conn);
        if (!s->conn) return;
        data = s->cur;
        len = s->cur_len;
        s->cur_len = 0;
    }
    if (len == 0) return;
    if (buf_len(&s->pending) + len > (size_t)config.client_query_buffer_limit) {
        session_end(s, "libfabric input beyond client-query-buffer-limit");
        return;
    }
    if (buf_len(&s->pending) == 0) ep->sessions_pending++;
    buf_append(&s->pending, data, len);
}

static void session_on_data(struct fabric_session *s, const struct goblin_fabric_header *h,
                            const char *payload)
{
    switch (goblin_reorder_offer(&s->window, h->sequence, payload, h->payload_len)) {
    case GOBLIN_REORDER_DELIVER:
        session_deliver(s, h->sequence, payload, h->payload_len);
        for (;;) {
            size_t len;
            uint64_t sequence = s->window.next;
            char *held = s->conn ? goblin_reorder_pop(&s->window, &len) : NULL;
            if (!held) break;
            session_deliver(s, sequence, held, len);
            free(held); /* the window allocates with malloc */
        }
        return;
    case GOBLIN_REORDER_HELD:
    case GOBLIN_REORDER_DUPLICATE:
        return;
    case GOBLIN_REORDER_OVERFLOW:
    case GOBLIN_REORDER_NOMEM:
        log_warning_limited(&s->ep->warnings,
                            "%s: session %016llx: sequence %llu beyond the reorder window "
                            "(expected %llu): session ended",
                            s->ep->name, (unsigned long long)s->id, (unsigned long long)h->sequence,
                            (unsigned long long)s->window.next);
        s->ep->stats.overflow_closes++;
        session_end(s, "libfabric reorder window overflow");
        return;
    }
}

static void hello_refuse(struct fabric_endpoint *ep, fi_addr_t addr, uint64_t session,
                         const struct goblin_fabric_hello *hello, const char *why)
{
    unsigned char msg[GOBLIN_FABRIC_HELLO_ACK_BYTES + 256];
    struct goblin_fabric_hello_ack ack = {.accepted = 0,
                                          .server_min = GOBLIN_FABRIC_VERSION_MIN,
                                          .server_max = GOBLIN_FABRIC_VERSION_MAX};
    goblin_fabric_hello_ack_encode(msg, &ack);
    int n = snprintf((char *)msg + GOBLIN_FABRIC_HELLO_ACK_BYTES, 256, "%s", why);
    if (n > 255) n = 255;
    ep->stats.hellos_refused++;
    log_warning_limited(&ep->warnings,
                        "%s: hello for session %016llx (versions %u..%u) refused: %s", ep->name,
                        (unsigned long long)session, hello->version_min, hello->version_max, why);
    fabric_send_control(ep, addr, GOBLIN_FABRIC_HELLO_ACK, 0, session, msg,
                        GOBLIN_FABRIC_HELLO_ACK_BYTES + (size_t)n);
}

/* --- peers: the address vector -------------------------------------- */

/* The peer for an endpoint name: the known entry (a client saying hello
 * again, or another session of the same endpoint), else a new AV entry.
 * NULL when the provider refuses the name. A new peer starts idle. */
static struct fabric_peer *peer_get(struct fabric_endpoint *ep, const void *name, uint16_t len)
{
    for (int i = 0; i < ep->peer_count; i++) {
        struct fabric_peer *p = ep->peers[i];
        if (p->name_len == len && memcmp(p->name, name, len) == 0) return p;
    }
    fi_addr_t addr;
    if (fi_av_insert(ep->fep.av, name, 1, &addr, 0, NULL) != 1) return NULL;
    struct fabric_peer *p = xcalloc(1, sizeof *p);
    p->addr = addr;
    p->name_len = len;
    memcpy(p->name, name, len);
    p->idle_since_ms = clock_unix_ms_coarse();
    if (ep->peer_count == ep->peer_cap) {
        ep->peer_cap = ep->peer_cap ? 2 * ep->peer_cap : 16;
        ep->peers = xrealloc(ep->peers, sizeof *ep->peers * (size_t)ep->peer_cap);
    }
    ep->peers[ep->peer_count++] = p;
    ep->peers_idle++;
    return p;
}

static void peer_hold(struct fabric_endpoint *ep, struct fabric_peer *p)
{
    if (p->sessions++ == 0) ep->peers_idle--;
}

/* Removes AV entries idle for FABRIC_PEER_LINGER_MS (every idle one when
 * all): the table holds only endpoints with live sessions, plus the
 * lingering. */
static void fabric_peers_prune(struct fabric_endpoint *ep, bool all)
{
    if (ep->peers_idle == 0) return;
    int64_t now = clock_unix_ms_coarse();
    for (int i = 0; i < ep->peer_count;) {
        struct fabric_peer *p = ep->peers[i];
        if (p->sessions > 0 || (!all && now - p->idle_since_ms < FABRIC_PEER_LINGER_MS)) {
            i++;
            continue;
        }
        int rc = fi_av_remove(ep->fep.av, &p->addr, 1, 0);
        if (rc)
            log_warning_limited(&ep->warnings, "%s: fi_av_remove: %s", ep->name, fi_strerror(-rc));
        else
            ep->stats.av_removed++;
        ep->peers[i] = ep->peers[--ep->peer_count];
        ep->peers_idle--;
        xfree(p);
    }
}

/* Redis 7.0.15's loopback (socket_addr_is_loopback: 127.0.0.1 or ::1
 * exactly) on an endpoint name in the provider's address format; a name
 * that is not an IP socket address never is. */
static bool fabric_name_is_loopback(const struct fabric_endpoint *ep, const void *name, size_t len)
{
    uint32_t format = ep->fep.info->addr_format;
    if (format != FI_SOCKADDR && format != FI_SOCKADDR_IN && format != FI_SOCKADDR_IN6)
        return false;
    struct sockaddr_storage sa = {0};
    if (len < sizeof sa.ss_family || len > sizeof sa) return false;
    memcpy(&sa, name, len);
    if (sa.ss_family == AF_INET && len < sizeof(struct sockaddr_in)) return false;
    if (sa.ss_family == AF_INET6 && len < sizeof(struct sockaddr_in6)) return false;
    return socket_addr_is_loopback(&sa);
}

/* Providers whose peers are processes of this host by construction. */
static bool fabric_provider_is_intra_host(const char *prov_name)
{
    size_t core = strcspn(prov_name, ";"); /* "shm", or "tcp" of "tcp;ofi_rxm" */
    return (core == 3 && memcmp(prov_name, "shm", 3) == 0) ||
           (core == 3 && memcmp(prov_name, "sm2", 3) == 0);
}

static void session_open(struct fabric_endpoint *ep, const struct goblin_fabric_header *h,
                         const char *payload)
{
    struct goblin_fabric_hello hello;
    const void *name;
    const char *bad = goblin_fabric_hello_decode(payload, h->payload_len, &hello, &name);
    if (bad) {
        ep->stats.hellos_refused++;
        log_warning_limited(&ep->warnings, "%s: malformed hello: %s", ep->name, bad);
        return; /* no usable address to answer */
    }
    struct fabric_peer *peer = peer_get(ep, name, hello.name_len);
    if (!peer) {
        ep->stats.hellos_refused++;
        log_warning_limited(&ep->warnings, "%s: hello with an endpoint name the provider refuses",
                            ep->name);
        return;
    }
    fi_addr_t addr = peer->addr;
    struct fabric_session *s = session_find(ep, h->session);
    if (s && s->peer != peer) {
        hello_refuse(ep, addr, h->session, &hello, "ERR libfabric session id already in use");
        return;
    }
    /* s: a retransmitted hello (the client missed our ack): ack again. */
    uint8_t version =
        s ? s->version
          : goblin_fabric_pick_version(hello.version_min, hello.version_max,
                                       GOBLIN_FABRIC_VERSION_MIN, GOBLIN_FABRIC_VERSION_MAX);
    if (!version) {
        char why[256];
        snprintf(why, sizeof why,
                 "ERR unsupported libfabric envelope versions %u..%u: this server speaks %u..%u",
                 hello.version_min, hello.version_max, GOBLIN_FABRIC_VERSION_MIN,
                 GOBLIN_FABRIC_VERSION_MAX);
        hello_refuse(ep, addr, h->session, &hello, why);
        return;
    }
    if (!s) {
        if (peer->sessions >= config.libfabric_sessions_per_peer) {
            char why[128];
            snprintf(why, sizeof why,
                     "ERR too many libfabric sessions from this endpoint (limit %lld)",
                     config.libfabric_sessions_per_peer);
            hello_refuse(ep, addr, h->session, &hello, why);
            return;
        }
        if ((long long)conn_count() >= config.maxclients) {
            hello_refuse(ep, addr, h->session, &hello, "ERR max number of clients reached");
            return;
        }
        s = xcalloc(1, sizeof *s);
        if (goblin_reorder_init(&s->window, (uint32_t)config.libfabric_reorder_messages,
                                (size_t)config.libfabric_reorder_bytes) != 0) {
            xfree(s);
            hello_refuse(ep, addr, h->session, &hello, "ERR out of memory");
            return;
        }
        s->ep = ep;
        s->id = h->session;
        s->peer = peer;
        s->addr = addr;
        s->local =
            ep->intra_host || (ep->loopback && fabric_name_is_loopback(ep, name, hello.name_len));
        peer_hold(ep, peer);
        s->tx_next = 1;
        s->version = version;
        s->want_read = true;
        buf_init(&s->pending, 0);
        s->last_seen_ms = clock_unix_ms_coarse();
        if (ep->session_count == ep->session_cap) {
            ep->session_cap = ep->session_cap ? 2 * ep->session_cap : 16;
            ep->sessions = xrealloc(ep->sessions, sizeof *ep->sessions * (size_t)ep->session_cap);
        }
        ep->sessions[ep->session_count++] = s;
        ep->stats.sessions_total++;
        struct conn *c = conn_create(&fabric_conn_io, -1, s);
        s->conn = c;
        char peer_text[64];
        size_t alen = sizeof peer_text;
        if (fi_av_straddr(ep->fep.av, name, peer_text, &alen) == NULL)
            snprintf(peer_text, sizeof peer_text, "fabric");
        peer_text[sizeof peer_text - 1] = '\0';
        conn_set_peer(c, peer_text, ep->epname_text);
        log_verbose("%s: session %016llx opened from %s (envelope v%u)", ep->name,
                    (unsigned long long)s->id, peer_text, version);
    }
    unsigned char msg[GOBLIN_FABRIC_HELLO_ACK_BYTES];
    struct goblin_fabric_hello_ack ack = {
        .accepted = 1,
        .version = version,
        .server_min = GOBLIN_FABRIC_VERSION_MIN,
        .server_max = GOBLIN_FABRIC_VERSION_MAX,
        .lease_ms = (uint32_t)config.efa_heartbeat_timeout_ms,
        .max_payload = (uint32_t)(ep->fep.record - GOBLIN_FABRIC_HEADER_BYTES),
        .window_messages = (uint32_t)config.libfabric_reorder_messages};
    goblin_fabric_hello_ack_encode(msg, &ack);
    fabric_send_control(ep, addr, GOBLIN_FABRIC_HELLO_ACK, ack.version, s->id, msg, sizeof msg);
}

/* One received message from src (FI_ADDR_NOTAVAIL when not in the AV). */
static void fabric_on_message(struct fabric_endpoint *ep, const char *msg, size_t len,
                              fi_addr_t src)
{
    struct goblin_fabric_header h;
    const char *bad = goblin_fabric_decode(msg, len, &h);
    ep->stats.frames_rx++;
    if (bad) {
        ep->stats.frames_dropped++;
        log_warning_limited(&ep->warnings, "%s: dropped a %zu-byte message: %s", ep->name, len,
                            bad);
        return;
    }
    const char *payload = msg + GOBLIN_FABRIC_HEADER_BYTES;
    if (h.type == GOBLIN_FABRIC_HELLO) {
        session_open(ep, &h, payload);
        return;
    }
    /* Sessions are found by their id alone: the id is the client's random
     * 64-bit secret, and the source fi_addr is not comparable across
     * providers (udp;ofi_rxd reports its own AV index for a peer that our
     * fi_av_insert of the same name numbered differently). */
    struct fabric_session *s = session_find(ep, h.session);
    if (!s) {
        ep->stats.frames_dropped++;
        log_warning_limited(&ep->warnings, "%s: frame type %u for unknown session %016llx",
                            ep->name, h.type, (unsigned long long)h.session);
        if (src != FI_ADDR_NOTAVAIL && h.type != GOBLIN_FABRIC_BYE)
            fabric_send_control(ep, src, GOBLIN_FABRIC_BYE, GOBLIN_FABRIC_VERSION_MAX, h.session,
                                "unknown session", 15);
        return;
    }
    s->last_seen_ms = clock_unix_ms_coarse();
    switch (h.type) {
    case GOBLIN_FABRIC_DATA:
        session_on_data(s, &h, payload);
        break;
    case GOBLIN_FABRIC_PING:
        fabric_send_control(ep, s->addr, GOBLIN_FABRIC_PONG, GOBLIN_FABRIC_VERSION_MAX, s->id, NULL,
                            0);
        break;
    case GOBLIN_FABRIC_BYE:
        s->bye_received = true;
        conn_close(s->conn, "libfabric client said bye");
        break;
    default: /* PONG, HELLO_ACK: not for a server */
        break;
    }
}

/* --- polling -------------------------------------------------------- */

static void fabric_post_recv(struct fabric_endpoint *ep, struct goblin_fabric_slot *slot)
{
    if (goblin_fabric_ep_post_recv(&ep->fep, slot) != 0)
        log_warning_limited(&ep->warnings, "%s: %s", ep->name, ep->fep.error);
}

/* Gives conns that were waiting a turn: writers when TX slots came back,
 * readers with input left over from a pause. */
static int fabric_resume_sessions(struct fabric_endpoint *ep, bool slots_freed)
{
    int work = 0;
    for (int i = 0; i < ep->session_count; i++) {
        struct fabric_session *s = ep->sessions[i];
        if (slots_freed && s->want_write && s->conn) {
            work += conn_on_writable(s->conn);
        }
        if (i < ep->session_count && ep->sessions[i] == s && s->conn && s->want_read &&
            buf_len(&s->pending)) {
            work += conn_on_readable(s->conn);
        }
    }
    return work;
}

static int fabric_endpoint_poll(void *arg)
{
    struct fabric_endpoint *ep = arg;
    int work = 0;
    if (ep->fep.tx_in_flight) {
        int freed = goblin_fabric_ep_reap_tx(&ep->fep);
        work += freed;
        if (freed && ep->sessions_blocked) work += fabric_resume_sessions(ep, true);
    }
    struct fi_cq_msg_entry done[FABRIC_CQ_BATCH];
    fi_addr_t src[FABRIC_CQ_BATCH];
    ssize_t n = goblin_fabric_ep_read_rx(&ep->fep, done, src, FABRIC_CQ_BATCH);
    if (n < 0) {
        log_warning_limited(&ep->warnings, "%s: %s", ep->name, ep->fep.error);
        return work + 1;
    }
    for (ssize_t i = 0; i < n; i++) {
        struct goblin_fabric_slot *slot = done[i].op_context;
        fabric_on_message(ep, slot->buf, done[i].len, src[i]);
        fabric_post_recv(ep, slot);
        work++;
    }
    if (ep->sessions_pending && n == 0) work += fabric_resume_sessions(ep, false);
    return work;
}

/* --- sleeping (core/event_loop.h, "Idling") ------------------------- */

/* A provider without wait fds (shm, udp;ofi_rxd in libfabric 1.17) cannot
 * wake the loop: asleep, it is polled after this long, then after twice
 * that, up to 16 ms (what the first request after an idle period may wait). */
#define FABRIC_SLEEP_POLL_MS 1

/* Waking is all a wait fd is for: the poll reads the completions. */
static void on_wait_fd(struct ev_handler *handler, uint32_t mask)
{
    (void)handler;
    (void)mask;
}

/* fi_trywait first: it says whether completions are pending and re-arms
 * the wait fds, so one published just before is seen by the poll rather
 * than slept past. The fds are watched only while asleep (level-
 * triggered, they would report readiness on every socket pass). */
static bool fabric_sleep_begin(void *arg)
{
    struct fabric_endpoint *ep = arg;
    if (ep->sessions_pending) return false;
    if (!ep->fep.can_wait) return true; /* polled every FABRIC_SLEEP_POLL_MS */
    if (!goblin_fabric_ep_trywait(&ep->fep)) return false;
    if (!ev_add(ep->fep.rx_wait_fd, EV_READABLE, &ep->wait_handler)) return false;
    if (ep->fep.tx_wait_fd != ep->fep.rx_wait_fd &&
        !ev_add(ep->fep.tx_wait_fd, EV_READABLE, &ep->wait_handler)) {
        ev_remove(ep->fep.rx_wait_fd);
        return false;
    }
    return true;
}

static void fabric_sleep_end(void *arg)
{
    struct fabric_endpoint *ep = arg;
    if (!ep->fep.can_wait) return;
    ev_remove(ep->fep.rx_wait_fd);
    if (ep->fep.tx_wait_fd != ep->fep.rx_wait_fd) ev_remove(ep->fep.tx_wait_fd);
}

static void on_bootstrap_readable(struct ev_handler *handler, uint32_t mask)
{
    struct fabric_endpoint *ep =
        (struct fabric_endpoint *)((char *)handler -
                                   offsetof(struct fabric_endpoint, listen_handler));
    /* One accept per readiness report (socket.h, seed 000). */
    int fd = accept4(ep->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED && errno != EINTR)
            log_warning_limited(&ep->warnings, "%s: bootstrap accept failed: %s", ep->name,
                                strerror(errno));
        return;
    }
    /* The reply: u32 little-endian name length, then the name. A fresh
     * socket's send buffer always takes these few bytes at once. */
    unsigned char msg[4 + GOBLIN_FABRIC_NAME_MAX];
    goblin_fabric_put32(msg, (uint32_t)ep->epname_len);
    memcpy(msg + 4, ep->epname, ep->epname_len);
    if (send(fd, msg, 4 + ep->epname_len, MSG_NOSIGNAL | MSG_DONTWAIT) !=
        (ssize_t)(4 + ep->epname_len))
        log_warning_limited(&ep->warnings, "%s: bootstrap reply not sent: %s", ep->name,
                            strerror(errno));
    close(fd);
}

/* --- setup ---------------------------------------------------------- */

static bool fabric_endpoint_open(struct fabric_endpoint *ep)
{
    const struct polled_spec *ps = ep->spec;
    struct goblin_fabric_ep_options o = {.provider = ps->path,
                                         .address = ps->address,
                                         .tx_slots = (unsigned)config.libfabric_tx_slots,
                                         .rx_slots = (unsigned)config.libfabric_rx_slots,
                                         .record = (size_t)config.libfabric_max_record,
                                         .force_send = config.libfabric_force_send,
                                         .wait_fd = true};
    if (goblin_fabric_ep_open(&ep->fep, &o) != 0) {
        log_warning("--libfabric %s %s %d: %s", ps->path, ps->address, ps->port, ep->fep.error);
        return false;
    }
    ep->epname_len = sizeof ep->epname;
    int rc = fi_getname(&ep->fep.ep->fid, ep->epname, &ep->epname_len);
    if (rc) {
        log_warning("--libfabric %s %s %d: fi_getname failed: %s (%d)", ps->path, ps->address,
                    ps->port, fi_strerror(-rc), rc);
        return false;
    }
    ep->intra_host = fabric_provider_is_intra_host(ep->fep.info->fabric_attr->prov_name);
    ep->loopback = fabric_name_is_loopback(ep, ep->epname, ep->epname_len);
    size_t tlen = sizeof ep->epname_text;
    if (!fi_av_straddr(ep->fep.av, ep->epname, ep->epname_text, &tlen))
        snprintf(ep->epname_text, sizeof ep->epname_text, "%s", ps->path);

    ep->listen_fd = socket_listen_tcp(ps->address, ps->port, (int)config.tcp_backlog);
    if (ep->listen_fd < 0) {
        log_warning("--libfabric %s %s %d: bootstrap listener: %s", ps->path, ps->address, ps->port,
                    strerror(errno));
        return false;
    }
    ep->listen_handler.on_event = on_bootstrap_readable;
    if (!ev_add(ep->listen_fd, EV_READABLE, &ep->listen_handler)) {
        log_warning("%s: cannot watch the bootstrap listener: %s", ep->name, strerror(errno));
        return false;
    }
    return true;
}

static bool fabric_start(void)
{
    if (config.polled_count > 0)
        endpoints = xcalloc((size_t)config.polled_count, sizeof *endpoints);
    for (int i = 0; i < config.polled_count; i++) {
        const struct polled_spec *ps = &config.polled[i];
        if (ps->kind != POLLED_LIBFABRIC) continue;
        struct fabric_endpoint *ep = &endpoints[endpoint_count++];
        ep->spec = ps;
        ep->listen_fd = -1;
        snprintf(ep->name, sizeof ep->name, "libfabric:%s@%s:%d", ps->path, ps->address, ps->port);
        if (!fabric_endpoint_open(ep)) return false;
        log_notice("serving %s (%s, endpoint %s, inject %zu bytes%s, local peers: %s)", ep->name,
                   ep->fep.info->fabric_attr->prov_name, ep->epname_text, ep->fep.inject_size,
                   config.libfabric_force_send ? ", every frame by fi_send" : "",
                   ep->intra_host ? "every one (intra-host provider)"
                   : ep->loopback ? "those at 127.0.0.1 or ::1"
                                  : "none (not a loopback endpoint)");
        ep->wait_handler.on_event = on_wait_fd;
        struct poll_target pt = {.name = ep->name,
                                 .poll = fabric_endpoint_poll,
                                 .arg = ep,
                                 .sleep_begin = fabric_sleep_begin,
                                 .sleep_end = fabric_sleep_end};
        if (!ep->fep.can_wait) {
            pt.sleep_poll_ms = FABRIC_SLEEP_POLL_MS;
            log_notice("%s: the provider has no wait fd for its completion queues: asleep, the "
                       "server polls it after %d ms, doubling up to %d ms",
                       ep->name, FABRIC_SLEEP_POLL_MS, 16 * FABRIC_SLEEP_POLL_MS);
        }
        ev_add_polled(&pt, i);
    }
    return true;
}

static int fabric_endpoint_count(void)
{
    return endpoint_count;
}

/* Ends sessions silent for longer than the lease. */
static void fabric_housekeeping(void)
{
    int64_t now = clock_unix_ms_coarse();
    for (int e = 0; e < endpoint_count; e++) {
        struct fabric_endpoint *ep = &endpoints[e];
        fabric_peers_prune(ep, false);
        if (config.efa_heartbeat_timeout_ms <= 0) continue;
        for (int i = 0; i < ep->session_count;) {
            struct fabric_session *s = ep->sessions[i];
            if (now - s->last_seen_ms > config.efa_heartbeat_timeout_ms) {
                log_verbose("%s: session %016llx expired", ep->name, (unsigned long long)s->id);
                ep->stats.sessions_expired++;
                session_end(s, "libfabric session expired"); /* removes it from the table */
                continue;
            }
            i++;
        }
    }
}

static size_t fabric_lock_memory(size_t budget, size_t *total)
{
    size_t locked = 0;
    *total = 0;
    for (int e = 0; e < endpoint_count; e++) {
        struct fabric_endpoint *ep = &endpoints[e];
        size_t tx = ep->fep.record * ep->fep.tx_count;
        size_t rx = ep->fep.record * ep->fep.rx_count;
        *total += tx + rx;
        if (ep->fep.tx_pool && locked + tx <= budget && mlock(ep->fep.tx_pool, tx) == 0)
            locked += tx;
        if (ep->fep.rx_pool && locked + rx <= budget && mlock(ep->fep.rx_pool, rx) == 0)
            locked += rx;
    }
    return locked;
}

static void fabric_stop(void)
{
    for (int e = 0; e < endpoint_count; e++) {
        struct fabric_endpoint *ep = &endpoints[e];
        while (ep->session_count) session_end(ep->sessions[0], "server shutting down");
        if (ep->listen_fd >= 0) {
            ev_remove(ep->listen_fd);
            close(ep->listen_fd);
        }
        for (int i = 0; i < ep->peer_count; i++) xfree(ep->peers[i]);
        xfree(ep->peers);
        goblin_fabric_ep_close(&ep->fep);
        xfree(ep->sessions);
    }
    xfree(endpoints);
    endpoints = NULL;
    endpoint_count = 0;
}

static void info_line(struct buf *b, int e, const char *field, unsigned long long v)
{
    buf_append_fmt(b, "libfabric%d_%s:%llu\r\n", e, field, v);
}

static void fabric_info(struct buf *b)
{
    buf_append_fmt(b, "# Libfabric\r\nlibfabric_endpoints:%d\r\n", endpoint_count);
    for (int e = 0; e < endpoint_count; e++) {
        const struct fabric_endpoint *ep = &endpoints[e];
        const struct fabric_counters *st = &ep->stats;
        buf_append_fmt(b, "libfabric%d_target:%s\r\nlibfabric%d_provider:%s\r\n", e,
                       ep->name + strlen("libfabric:"), e, ep->fep.info->fabric_attr->prov_name);
        uint64_t sequestered = st->sequestered, duplicates = st->duplicates;
        for (int i = 0; i < ep->session_count; i++) {
            sequestered += ep->sessions[i]->window.sequestered;
            duplicates += ep->sessions[i]->window.duplicates;
        }
        info_line(b, e, "inject_size", ep->fep.inject_size);
        info_line(b, e, "sessions_active", (unsigned long long)ep->session_count);
        info_line(b, e, "sessions_total", st->sessions_total);
        info_line(b, e, "sessions_expired", st->sessions_expired);
        info_line(b, e, "sessions_per_peer_limit",
                  (unsigned long long)config.libfabric_sessions_per_peer);
        info_line(b, e, "hellos_refused", st->hellos_refused);
        info_line(b, e, "frames_rx", st->frames_rx);
        info_line(b, e, "frames_rx_dropped", st->frames_dropped);
        info_line(b, e, "frames_tx", ep->fep.injected + ep->fep.sent);
        info_line(b, e, "frames_tx_inject", ep->fep.injected);
        info_line(b, e, "frames_tx_send", ep->fep.sent);
        info_line(b, e, "tx_errors", ep->fep.tx_errors);
        info_line(b, e, "rx_errors", ep->fep.rx_errors);
        info_line(b, e, "tx_slots_in_flight", ep->fep.tx_in_flight);
        info_line(b, e, "tx_backpressure_events", st->tx_backpressure);
        info_line(b, e, "reorder_sequestered", sequestered);
        info_line(b, e, "reorder_duplicates_dropped", duplicates);
        info_line(b, e, "reorder_overflow_closes", st->overflow_closes);
        info_line(b, e, "av_entries", (unsigned long long)ep->peer_count);
        info_line(b, e, "av_entries_idle", (unsigned long long)ep->peers_idle);
        info_line(b, e, "av_entries_removed", st->av_removed);
    }
}

/* --libfabric PROVIDER ADDRESS PORT / --efa ADDRESS PORT: a polled target
 * in command-line order like the rings. */
static bool fabric_add(const char *provider, const char *const *rest, struct config_error *err)
{
    long long port;
    if (!provider[0]) return config_fail(err, "provider must not be empty");
    if (!rest[0][0]) return config_fail(err, "address must not be empty");
    if (!num_parse_ll(rest[1], strlen(rest[1]), &port) || port < 1 || port > 65535)
        return config_fail(err, "port '%s' must be 1..65535", rest[1]);
    struct polled_spec ps = {.kind = POLLED_LIBFABRIC,
                             .path = xstrdup(provider),
                             .address = xstrdup(rest[0]),
                             .port = (int)port};
    config_polled_add(&ps);
    return true;
}

static bool libfabric_parse(const char *const *values, struct config_error *err)
{
    return fabric_add(values[0], values + 1, err);
}

static bool efa_parse(const char *const *values, struct config_error *err)
{
    return fabric_add("efa", values, err);
}

/* --efa targets under efa, the others under libfabric. */
static void fabric_render_targets(struct buf *out, bool efa)
{
    bool first = true;
    for (int i = 0; i < config.polled_count; i++) {
        const struct polled_spec *ps = &config.polled[i];
        if (ps->kind != POLLED_LIBFABRIC || efa != (strcmp(ps->path, "efa") == 0)) continue;
        buf_append_fmt(out, "%s%s %s %d", first ? "" : " ", ps->path, ps->address, ps->port);
        first = false;
    }
}

static void libfabric_render(struct buf *out)
{
    fabric_render_targets(out, false);
}

static void efa_render(struct buf *out)
{
    fabric_render_targets(out, true);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param fabric_params[] = {
    {.name = "libfabric",
     .kind = CFG_CUSTOM,
     .flags = CFG_IMMUTABLE,
     .value_name = "PROVIDER ADDRESS PORT",
     .help = "libfabric FI_EP_RDM endpoint of PROVIDER (e.g. 'tcp;ofi_rxm', shm, efa), bootstrap "
             "TCP listener on ADDRESS:PORT; repeatable",
     .nargs = 3,
     .parse = libfabric_parse,
     .render = libfabric_render},
    {.name = "efa",
     .kind = CFG_CUSTOM,
     .flags = CFG_IMMUTABLE,
     .value_name = "ADDRESS PORT",
     .help = "shorthand for --libfabric efa ADDRESS PORT; repeatable",
     .nargs = 2,
     .parse = efa_parse,
     .render = efa_render},
    {.name = "no-auth-libfabric",
     .kind = CFG_FLAG,
     .value = &config.no_auth_libfabric,
     .flags = CFG_IMMUTABLE,
     .value_name = "",
     .help = "RESP over libfabric needs no AUTH (trust the fabric)"},
    {.name = "libfabric-force-send",
     .kind = CFG_FLAG,
     .value = &config.libfabric_force_send,
     .flags = CFG_IMMUTABLE,
     .value_name = "",
     .help = "send every libfabric frame with fi_send (never fi_inject)"},
    {.name = "efa-heartbeat-timeout-ms",
     .kind = CFG_INT,
     .value = &config.efa_heartbeat_timeout_ms,
     .max = INT_MAX,
     .flags = CFG_IMMUTABLE,
     .value_name = "MS",
     .help = "end a libfabric session silent this long; clients ping after a third (default 30000; "
             "0 = never)"},
    {.name = "libfabric-tx-slots",
     .kind = CFG_INT,
     .value = &config.libfabric_tx_slots,
     .min = 1,
     .max = 4096,
     .flags = CFG_IMMUTABLE,
     .value_name = "N",
     .help = "registered fi_send buffers per libfabric endpoint (default 16)"},
    {.name = "libfabric-rx-slots",
     .kind = CFG_INT,
     .value = &config.libfabric_rx_slots,
     .min = 1,
     .max = 4096,
     .flags = CFG_IMMUTABLE,
     .value_name = "N",
     .help = "pre-posted receive buffers per libfabric endpoint (default 16)"},
    {.name = "libfabric-max-record",
     .kind = CFG_MEMORY,
     .value = &config.libfabric_max_record,
     .min = 4096,
     .max = 1LL << 30,
     .flags = CFG_IMMUTABLE,
     .value_name = "BYTES",
     .help = "largest libfabric message, envelope included (default 128kb)"},
    {.name = "libfabric-sessions-per-peer",
     .kind = CFG_INT,
     .value = &config.libfabric_sessions_per_peer,
     .min = 1,
     .max = 65536,
     .flags = CFG_IMMUTABLE,
     .value_name = "N",
     .help = "libfabric sessions one client endpoint may hold at once (default 16)"},
    {.name = "libfabric-reorder-messages",
     .kind = CFG_INT,
     .value = &config.libfabric_reorder_messages,
     .min = 1,
     .max = 65536,
     .flags = CFG_IMMUTABLE,
     .value_name = "N",
     .help = "reorder window per libfabric session, in messages (default 64)"},
    {.name = "libfabric-reorder-bytes",
     .kind = CFG_MEMORY,
     .value = &config.libfabric_reorder_bytes,
     .min = 4096,
     .max = 1LL << 30,
     .flags = CFG_IMMUTABLE,
     .value_name = "BYTES",
     .help = "reorder window per libfabric session, in bytes (default 1mb)"},
};

const struct config_table fabric_config = CONFIG_TABLE(fabric_params, NULL);
