/* cluster_bus.c — Redis 7.0's cluster bus; see cluster_bus.h. */
#include "cluster/cluster_bus.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "store/pubsub.h"
#include "core/sockets.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/rand.h"
#include "util/xmalloc.h"

/* Header field offsets (Redis's clusterMsg, packed as its compiler lays it
 * out: no padding before `data`, which starts 8-aligned at 2256). */
enum {
    OFF_SIG = 0,
    OFF_TOTLEN = 4,
    OFF_VER = 8,
    OFF_PORT = 10,
    OFF_TYPE = 12,
    OFF_COUNT = 14,
    OFF_CURRENT_EPOCH = 16,
    OFF_CONFIG_EPOCH = 24,
    OFF_OFFSET = 32,
    OFF_SENDER = 40,
    OFF_MYSLOTS = 80,
    OFF_SLAVEOF = 2128,
    OFF_MYIP = 2168,
    OFF_EXTENSIONS = 2214,
    OFF_PPORT = 2246,
    OFF_CPORT = 2248,
    OFF_FLAGS = 2250,
    OFF_STATE = 2252,
    OFF_MFLAGS = 2253,
    OFF_DATA = 2256,
};
/* Gossip entry fields. */
enum {
    G_NAME = 0,
    G_PING_SENT = 40,
    G_PONG_RECEIVED = 44,
    G_IP = 48,
    G_PORT = 94,
    G_CPORT = 96,
    G_FLAGS = 98,
    G_PPORT = 100,
};
#define MFLAG0_PAUSED 1   /* a master in a manual failover paused its clients */
#define MFLAG0_FORCEACK 2 /* an auth request to vote for even though the master is up */
#define MFLAG0_EXT_DATA 4
#define UPDATE_BODY_LEN (8 + CLUSTER_NAMELEN + CLUSTER_SLOTS / 8)
#define PUBLISH_BODY_MIN 8

const char *const cluster_msg_type_names[CLUSTERMSG_TYPE_COUNT] = {
    "ping",     "pong",   "meet",    "fail",   "publish",      "auth-req",
    "auth-ack", "update", "mfstart", "module", "publishshard",
};

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}
static void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void wr32(uint8_t *p, uint32_t v)
{
    wr16(p, (uint16_t)(v >> 16));
    wr16(p + 2, (uint16_t)v);
}
static void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)(v >> 32));
    wr32(p + 4, (uint32_t)v);
}

const char *cluster_msg_check(const uint8_t *msg, size_t len)
{
    if (len < 8) return "shorter than a header";
    if (memcmp(msg + OFF_SIG, "RCmb", 4) != 0) return "bad signature";
    uint32_t totlen = rd32(msg + OFF_TOTLEN);
    if (totlen != len) return "length mismatch";
    if (len < CLUSTERMSG_HEADER_LEN) return "shorter than a header";
    if (len > CLUSTERMSG_MAX_LEN) return "too long";
    if (rd16(msg + OFF_VER) != 1) return "unknown protocol version";
    uint16_t type = rd16(msg + OFF_TYPE);
    uint16_t count = rd16(msg + OFF_COUNT);
    size_t body = len - CLUSTERMSG_HEADER_LEN;
    switch (type) {
    case CLUSTERMSG_PING:
    case CLUSTERMSG_PONG:
    case CLUSTERMSG_MEET: {
        size_t expect = (size_t)count * CLUSTERMSG_GOSSIP_LEN;
        if (body < expect) return "gossip count past the message";
        if (msg[OFF_MFLAGS] & MFLAG0_EXT_DATA) {
            const uint8_t *ext = msg + CLUSTERMSG_HEADER_LEN + expect;
            uint16_t extensions = rd16(msg + OFF_EXTENSIONS);
            while (extensions--) {
                if (body - expect < 8) return "extension past the message";
                uint32_t extlen = rd32(ext);
                if (extlen < 8 || extlen % 8 != 0) return "bad extension length";
                if (body - expect < extlen) return "extension past the message";
                expect += extlen;
                ext += extlen;
            }
        }
        if (body != expect) return "length does not match gossip and extensions";
        return NULL;
    }
    case CLUSTERMSG_FAIL:
        return body == CLUSTER_NAMELEN ? NULL : "bad FAIL length";
    case CLUSTERMSG_UPDATE:
        return body == UPDATE_BODY_LEN ? NULL : "bad UPDATE length";
    case CLUSTERMSG_PUBLISH:
    case CLUSTERMSG_PUBLISHSHARD: {
        /* channel_len, message_len, then both, in an 8-byte-padded area. */
        if (body < PUBLISH_BODY_MIN + 8) return "bad PUBLISH length";
        uint64_t need = (uint64_t)rd32(msg + OFF_DATA) + rd32(msg + OFF_DATA + 4);
        if (need > body - PUBLISH_BODY_MIN) return "PUBLISH data past the message";
        return NULL;
    }
    default:
        return NULL; /* failover, module messages: read and ignored */
    }
}

/* ---- links ---- */

struct cluster_link {
    struct ev_handler h; /* first: the event loop's handle */
    int fd;
    bool inbound;
    bool connecting;
    struct cluster_node *node; /* outbound: whom it reaches; inbound: NULL */
    int64_t ctime_ms;
    /* What has arrived of the message being read: grown with the bytes
     * that arrived, never to the length the header declares. */
    uint8_t *rbuf;
    size_t rlen, rcap;
    /* An inbound link has delivered a message from a node this one knows
     * (past its handshake): only then may it send messages longer than
     * LINK_UNKNOWN_PEER_MAX. Outbound links reach a node we chose. */
    bool peer_known;
    uint8_t *sbuf;
    size_t slen, soff, scap;
    struct cluster_link *next_inbound;
};

static int bus_fd = -1;
static struct ev_handler bus_listener;
static struct cluster_link *inbound_links;
static int64_t last_random_ping_ms;

#define LINK_SENDBUF_MAX (64u << 20)
/* The longest message an inbound link may send before its peer is a known
 * node (a stranger holds at most this much of our memory, as Redis bounds
 * what an unauthenticated client may send): a MEET or PING of a
 * 1000-node cluster, header plus a tenth of the nodes as gossip, is ~13 KB. */
#define LINK_UNKNOWN_PEER_MAX (32u * 1024)
/* A read asks for at most this much more room than has arrived. */
#define LINK_READ_CHUNK (16u * 1024)

static void link_free(struct cluster_link *l)
{
    if (l->fd >= 0) {
        ev_remove(l->fd);
        close(l->fd);
    }
    if (l->node && l->node->link == l) l->node->link = NULL;
    if (l->inbound) {
        for (struct cluster_link **p = &inbound_links; *p; p = &(*p)->next_inbound)
            if (*p == l) {
                *p = l->next_inbound;
                break;
            }
    }
    xfree(l->rbuf);
    xfree(l->sbuf);
    xfree(l);
}

static size_t link_bytes(const struct cluster_link *l)
{
    return sizeof *l + l->rcap + l->scap;
}

void cluster_bus_links_stats(size_t *links, size_t *bytes)
{
    *links = *bytes = 0;
    for (const struct cluster_link *l = inbound_links; l; l = l->next_inbound)
        (*links)++, *bytes += link_bytes(l);
    for (int i = 0; i < cluster.node_count; i++)
        if (cluster.nodes[i]->link) (*links)++, *bytes += link_bytes(cluster.nodes[i]->link);
}

static void link_update_interest(struct cluster_link *l)
{
    uint32_t mask = EV_READABLE;
    if (l->connecting || l->slen > l->soff) mask |= EV_WRITABLE;
    ev_modify(l->fd, mask, &l->h);
}

/* Writes what is pending; false when the link failed (freed). */
static bool link_flush(struct cluster_link *l)
{
    while (l->soff < l->slen) {
        ssize_t w = write(l->fd, l->sbuf + l->soff, l->slen - l->soff);
        if (w > 0) {
            l->soff += (size_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) break;
        link_free(l);
        return false;
    }
    if (l->soff == l->slen) l->soff = l->slen = 0;
    link_update_interest(l);
    return true;
}

/* Queues and writes msg; false when the link failed (it is freed). */
static bool link_send(struct cluster_link *l, const uint8_t *msg, size_t len)
{
    if (l->slen - l->soff + len > LINK_SENDBUF_MAX) {
        log_warning("Cluster bus link to %.40s: send buffer over %u bytes, closing it",
                    l->node ? l->node->name : "(inbound)", LINK_SENDBUF_MAX);
        link_free(l);
        return false;
    }
    if (l->slen + len > l->scap) {
        if (l->soff) {
            memmove(l->sbuf, l->sbuf + l->soff, l->slen - l->soff);
            l->slen -= l->soff;
            l->soff = 0;
        }
        if (l->slen + len > l->scap) {
            l->scap = l->slen + len + 4096;
            l->sbuf = xrealloc(l->sbuf, l->scap);
        }
    }
    memcpy(l->sbuf + l->slen, msg, len);
    l->slen += len;
    uint16_t type = rd16(msg + OFF_TYPE);
    if (type < CLUSTERMSG_TYPE_COUNT) cluster.messages_sent[type]++;
    if (l->fd < 0) { /* detached (cluster_bus_feed): counted, not sent */
        l->slen = l->soff = 0;
        return true;
    }
    return l->connecting || link_flush(l);
}

/* ---- building messages ---- */

static int my_port(void)
{
    return cluster.myself->port;
}

static void build_header(uint8_t *m, uint16_t type, size_t totlen)
{
    struct cluster_node *me = cluster.myself;
    /* A replica announces its master's slots and config epoch, as Redis. */
    struct cluster_node *master = cluster_node_master(me);
    const struct cluster_node *claim = master ? master : me;
    memset(m, 0, CLUSTERMSG_HEADER_LEN);
    memcpy(m + OFF_SIG, "RCmb", 4);
    wr32(m + OFF_TOTLEN, (uint32_t)totlen);
    wr16(m + OFF_VER, 1);
    wr16(m + OFF_PORT, (uint16_t)my_port());
    wr16(m + OFF_TYPE, type);
    wr64(m + OFF_CURRENT_EPOCH, cluster.current_epoch);
    wr64(m + OFF_CONFIG_EPOCH, claim->config_epoch);
    if (cluster_replication) wr64(m + OFF_OFFSET, (uint64_t)cluster_replication->offset());
    memcpy(m + OFF_SENDER, me->name, CLUSTER_NAMELEN);
    memcpy(m + OFF_MYSLOTS, claim->slots, sizeof claim->slots);
    if (me->flags & NODE_REPLICA) memcpy(m + OFF_SLAVEOF, me->master, CLUSTER_NAMELEN);
    if (config.cluster_announce_ip && *config.cluster_announce_ip)
        snprintf((char *)m + OFF_MYIP, CLUSTER_IPLEN, "%s", config.cluster_announce_ip);
    wr16(m + OFF_CPORT, (uint16_t)me->cport);
    wr16(m + OFF_FLAGS, (uint16_t)(me->flags & ~NODE_MYSELF));
    m[OFF_STATE] = (uint8_t)cluster.state;
    m[OFF_MFLAGS] = MFLAG0_EXT_DATA; /* we read extensions (and send none) */
    if ((me->flags & NODE_MASTER) && cluster.mf_end_ms) m[OFF_MFLAGS] |= MFLAG0_PAUSED;
}

static void set_gossip_entry(uint8_t *g, const struct cluster_node *n)
{
    memset(g, 0, CLUSTERMSG_GOSSIP_LEN);
    memcpy(g + G_NAME, n->name, CLUSTER_NAMELEN);
    wr32(g + G_PING_SENT, (uint32_t)(n->ping_sent_ms / 1000));
    wr32(g + G_PONG_RECEIVED, (uint32_t)(n->pong_received_ms / 1000));
    snprintf((char *)g + G_IP, CLUSTER_IPLEN, "%s", n->ip);
    wr16(g + G_PORT, (uint16_t)n->port);
    wr16(g + G_CPORT, (uint16_t)n->cport);
    wr16(g + G_FLAGS, (uint16_t)n->flags);
}

static bool gossip_worthy(const struct cluster_node *n)
{
    if (n->flags & (NODE_MYSELF | NODE_HANDSHAKE | NODE_NOADDR | NODE_PFAIL)) return false;
    /* A node we cannot reach and that serves nothing adds no information. */
    return n->link || n->numslots;
}

/* PING, PONG or MEET with gossip about a tenth of the nodes (at least three
 * when there are that many) plus every node we think is failing. */
static bool send_ping(struct cluster_link *l, uint16_t type)
{
    int wanted = cluster.node_count / 10;
    if (wanted < 3) wanted = 3;
    int fresh = cluster.node_count - 2;
    if (wanted > fresh) wanted = fresh > 0 ? fresh : 0;
    int pfail = 0;
    for (int i = 0; i < cluster.node_count; i++)
        if (cluster.nodes[i]->flags & NODE_PFAIL) pfail++;
    size_t cap = CLUSTERMSG_HEADER_LEN + (size_t)(wanted + pfail) * CLUSTERMSG_GOSSIP_LEN;
    uint8_t *m = xcalloc(1, cap);
    int count = 0;
    char *picked = xcalloc((size_t)cluster.node_count + 1, 1);
    for (int tries = wanted * 3; tries > 0 && count < wanted && cluster.node_count; tries--) {
        int i = (int)rand_below((uint64_t)cluster.node_count);
        struct cluster_node *n = cluster.nodes[i];
        if (picked[i] || !gossip_worthy(n) || n == l->node) continue;
        picked[i] = 1;
        set_gossip_entry(m + CLUSTERMSG_HEADER_LEN + (size_t)count++ * CLUSTERMSG_GOSSIP_LEN, n);
    }
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if (!(n->flags & NODE_PFAIL) || (n->flags & (NODE_HANDSHAKE | NODE_NOADDR))) continue;
        set_gossip_entry(m + CLUSTERMSG_HEADER_LEN + (size_t)count++ * CLUSTERMSG_GOSSIP_LEN, n);
    }
    xfree(picked);
    size_t len = CLUSTERMSG_HEADER_LEN + (size_t)count * CLUSTERMSG_GOSSIP_LEN;
    build_header(m, type, len);
    wr16(m + OFF_COUNT, (uint16_t)count);
    if (l->node && type == CLUSTERMSG_PING) l->node->ping_sent_ms = clock_unix_ms();
    bool ok = link_send(l, m, len);
    xfree(m);
    return ok;
}

static void broadcast(const uint8_t *m, size_t len)
{
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if (n->link && !n->link->connecting && !(n->flags & (NODE_MYSELF | NODE_HANDSHAKE)))
            link_send(n->link, m, len);
    }
}

/* A message of a header alone (auth request and ack, MFSTART). */
static void build_header_only(uint8_t *m, uint16_t type, bool force_ack)
{
    build_header(m, type, CLUSTERMSG_HEADER_LEN);
    if (force_ack) m[OFF_MFLAGS] |= MFLAG0_FORCEACK;
}

void cluster_bus_broadcast_header(uint16_t type, bool force_ack)
{
    uint8_t m[CLUSTERMSG_HEADER_LEN];
    build_header_only(m, type, force_ack);
    broadcast(m, sizeof m);
}

bool cluster_bus_send_header(struct cluster_node *n, uint16_t type)
{
    if (!n->link || n->link->connecting) return false;
    uint8_t m[CLUSTERMSG_HEADER_LEN];
    build_header_only(m, type, false);
    return link_send(n->link, m, sizeof m);
}

bool cluster_bus_send_ping(struct cluster_node *n)
{
    if (!n->link || n->link->connecting) return false;
    return send_ping(n->link, CLUSTERMSG_PING);
}

void cluster_bus_broadcast_pong(void)
{
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if (n->link && !n->link->connecting && !(n->flags & (NODE_MYSELF | NODE_HANDSHAKE)))
            send_ping(n->link, CLUSTERMSG_PONG);
    }
}

static void send_fail(const struct cluster_node *failing)
{
    uint8_t m[CLUSTERMSG_HEADER_LEN + CLUSTER_NAMELEN];
    build_header(m, CLUSTERMSG_FAIL, sizeof m);
    memcpy(m + OFF_DATA, failing->name, CLUSTER_NAMELEN);
    broadcast(m, sizeof m);
}

static bool send_update(struct cluster_link *l, const struct cluster_node *owner)
{
    uint8_t m[CLUSTERMSG_HEADER_LEN + UPDATE_BODY_LEN];
    build_header(m, CLUSTERMSG_UPDATE, sizeof m);
    wr64(m + OFF_DATA, owner->config_epoch);
    memcpy(m + OFF_DATA + 8, owner->name, CLUSTER_NAMELEN);
    memcpy(m + OFF_DATA + 8 + CLUSTER_NAMELEN, owner->slots, sizeof owner->slots);
    return link_send(l, m, sizeof m);
}

void cluster_bus_publish(const char *channel, size_t channel_len, const char *msg, size_t msg_len)
{
    if (!cluster_enabled || cluster_is_static()) return;
    size_t data = channel_len + msg_len;
    size_t len = CLUSTERMSG_HEADER_LEN + PUBLISH_BODY_MIN + ((data + 7) & ~(size_t)7);
    if (data < 8) len = CLUSTERMSG_HEADER_LEN + PUBLISH_BODY_MIN + 8;
    if (len > CLUSTERMSG_MAX_LEN) return;
    uint8_t *m = xcalloc(1, len);
    build_header(m, CLUSTERMSG_PUBLISH, len);
    wr32(m + OFF_DATA, (uint32_t)channel_len);
    wr32(m + OFF_DATA + 4, (uint32_t)msg_len);
    memcpy(m + OFF_DATA + 8, channel, channel_len);
    memcpy(m + OFF_DATA + 8 + channel_len, msg, msg_len);
    broadcast(m, len);
    xfree(m);
}

/* ---- failure detection ---- */

static int64_t node_timeout(void)
{
    return config.cluster_node_timeout;
}

static void add_failure_report(struct cluster_node *n, struct cluster_node *reporter)
{
    int64_t now = clock_unix_ms();
    for (int i = 0; i < n->fail_report_count; i++)
        if (n->fail_reports[i].reporter == reporter) {
            n->fail_reports[i].time_ms = now;
            return;
        }
    n->fail_reports =
        xrealloc(n->fail_reports, sizeof *n->fail_reports * (size_t)(n->fail_report_count + 1));
    n->fail_reports[n->fail_report_count].reporter = reporter;
    n->fail_reports[n->fail_report_count++].time_ms = now;
}

static void del_failure_report(struct cluster_node *n, struct cluster_node *reporter)
{
    for (int i = 0; i < n->fail_report_count; i++)
        if (n->fail_reports[i].reporter == reporter) {
            n->fail_reports[i] = n->fail_reports[--n->fail_report_count];
            return;
        }
}

static int valid_failure_reports(struct cluster_node *n)
{
    int64_t oldest = clock_unix_ms() - node_timeout() * 2;
    for (int i = 0; i < n->fail_report_count; i++)
        if (n->fail_reports[i].time_ms < oldest)
            n->fail_reports[i--] = n->fail_reports[--n->fail_report_count];
    return n->fail_report_count;
}

static void mark_failing_if_needed(struct cluster_node *n)
{
    if (!(n->flags & NODE_PFAIL) || (n->flags & NODE_FAIL)) return;
    int failures = valid_failure_reports(n);
    if (cluster.myself->flags & NODE_MASTER) failures++;
    if (failures < cluster.size / 2 + 1) return;
    log_notice("Marking node %.40s as failing (quorum reached).", n->name);
    n->flags &= ~NODE_PFAIL;
    n->flags |= NODE_FAIL;
    n->fail_time_ms = clock_unix_ms();
    send_fail(n);
    cluster_update_state();
    cluster_config_changed();
}

static void clear_failure_if_needed(struct cluster_node *n)
{
    if (!(n->flags & NODE_FAIL)) return;
    int64_t now = clock_unix_ms();
    if ((n->flags & NODE_REPLICA) || n->numslots == 0 ||
        now - n->fail_time_ms > node_timeout() * 2 + 10) {
        log_notice("Clear FAIL state for node %.40s: it is reachable again.", n->name);
        n->flags &= ~NODE_FAIL;
        cluster_config_changed();
    }
}

/* ---- processing ---- */

/* Gives the slots the sender claims to it wherever its epoch is newer. */
static void update_slots_with(struct cluster_node *sender, uint64_t epoch,
                              const unsigned char *slots)
{
    if (sender == cluster.myself) return;
    bool changed = false;
    int lost = 0, claimed = 0, ours_moved = 0;
    /* This node's master, or this node: when it loses every slot to the
     * sender, this node follows the sender (Redis's failover handling). */
    struct cluster_node *current = (cluster.myself->flags & NODE_MASTER)
                                       ? cluster.myself
                                       : cluster_node_master(cluster.myself);
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (!((slots[s >> 3] >> (s & 7)) & 1)) continue;
        claimed++;
        struct cluster_node *owner = cluster.slots[s];
        if (owner == sender || cluster.importing_from[s]) continue;
        if (owner && owner->config_epoch >= epoch) continue;
        if (owner == cluster.myself) lost++;
        if (owner && owner == current) ours_moved++;
        cluster_del_slot(s);
        cluster_add_slot(sender, s);
        if (cluster.migrating_to[s] && owner == cluster.myself) cluster.migrating_to[s] = NULL;
        changed = true;
    }
    if (ours_moved && current && current->numslots == 0 &&
        (cluster_settings.allow_replica_migration || claimed == ours_moved)) {
        log_warning("Configuration change detected. Reconfiguring myself as a replica of %.40s",
                    sender->name);
        cluster_set_my_master(sender);
        lost = 0; /* its keys are replaced by the new master's data set */
    }
    if (lost)
        log_warning("%d of my slots now belong to %.40s (config epoch %llu): keys left in them "
                    "are no longer served",
                    lost, sender->name, (unsigned long long)epoch);
    if (changed) {
        cluster_update_state();
        cluster_config_changed();
    }
}

/* Two masters with one config epoch: the one with the smaller name takes a
 * new epoch, as Redis resolves it. */
static void handle_epoch_collision(struct cluster_node *sender)
{
    struct cluster_node *me = cluster.myself;
    if (sender->config_epoch != me->config_epoch || !(sender->flags & NODE_MASTER) ||
        !(me->flags & NODE_MASTER))
        return;
    if (memcmp(sender->name, me->name, CLUSTER_NAMELEN) <= 0) return;
    cluster.current_epoch++;
    me->config_epoch = cluster.current_epoch;
    cluster_config_changed();
    log_verbose("configEpoch collision with node %.40s: configEpoch set to %llu", sender->name,
                (unsigned long long)me->config_epoch);
}

static void peer_ip(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    out[0] = '\0';
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0) return;
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, out, (socklen_t)cap);
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, out, (socklen_t)cap);
}

static void local_ip(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    out[0] = '\0';
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) return;
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, out, (socklen_t)cap);
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, out, (socklen_t)cap);
}

/* The address a message's sender is reached at: announced, else the peer. */
static void sender_ip(const uint8_t *m, int fd, char *out, size_t cap)
{
    size_t n = strnlen((const char *)m + OFF_MYIP, CLUSTER_IPLEN - 1);
    if (n && n < cap) {
        memcpy(out, m + OFF_MYIP, n);
        out[n] = '\0';
    } else
        peer_ip(fd, out, cap);
}

static void process_gossip(const uint8_t *m, struct cluster_node *sender)
{
    uint16_t count = rd16(m + OFF_COUNT);
    for (uint16_t i = 0; i < count; i++) {
        const uint8_t *g = m + CLUSTERMSG_HEADER_LEN + (size_t)i * CLUSTERMSG_GOSSIP_LEN;
        unsigned flags = rd16(g + G_FLAGS);
        struct cluster_node *n = cluster_lookup_node((const char *)g + G_NAME, CLUSTER_NAMELEN);
        if (n) {
            if (sender && (sender->flags & NODE_MASTER) && n != cluster.myself) {
                if (flags & (NODE_FAIL | NODE_PFAIL)) {
                    add_failure_report(n, sender);
                    mark_failing_if_needed(n);
                } else {
                    del_failure_report(n, sender);
                }
            }
            if (!(flags & (NODE_PFAIL | NODE_FAIL)) && n->ping_sent_ms == 0 &&
                n->fail_report_count == 0) {
                int64_t pong = (int64_t)rd32(g + G_PONG_RECEIVED) * 1000;
                if (pong <= clock_unix_ms() + 500 && pong > n->pong_received_ms)
                    n->pong_received_ms = pong;
            }
            continue;
        }
        if (!sender || (flags & NODE_NOADDR)) continue;
        char name[CLUSTER_NAMELEN];
        memcpy(name, g + G_NAME, CLUSTER_NAMELEN);
        bool valid = true;
        for (int k = 0; k < CLUSTER_NAMELEN; k++)
            if (!((name[k] >= '0' && name[k] <= '9') || (name[k] >= 'a' && name[k] <= 'f')))
                valid = false;
        if (!valid) continue;
        n = cluster_node_create(name, flags & (NODE_MASTER | NODE_REPLICA));
        memcpy(n->ip, g + G_IP, CLUSTER_IPLEN);
        n->ip[CLUSTER_IPLEN - 1] = '\0';
        n->port = rd16(g + G_PORT);
        n->cport = rd16(g + G_CPORT);
        cluster_config_changed();
    }
}

/* The sender says whether it is a master or whose replica it is (the
 * header's slaveof field, as Redis reads it). */
static void update_role_of(struct cluster_node *sender, const uint8_t *m)
{
    static const char null_name[CLUSTER_NAMELEN];
    const char *slaveof = (const char *)m + OFF_SLAVEOF;
    if (memcmp(slaveof, null_name, CLUSTER_NAMELEN) == 0) {
        cluster_set_node_as_master(sender);
        return;
    }
    if (sender->flags & NODE_MASTER) {
        /* A master turned replica: its slots are no longer its. */
        for (int s = 0; s < CLUSTER_SLOTS; s++)
            if (cluster.slots[s] == sender) cluster_del_slot(s);
        sender->flags &= ~(NODE_MASTER | NODE_MIGRATE_TO);
        sender->flags |= NODE_REPLICA;
        cluster_update_state();
        cluster_config_changed();
    }
    struct cluster_node *master = cluster_lookup_node(slaveof, CLUSTER_NAMELEN);
    if (master && memcmp(sender->master, slaveof, CLUSTER_NAMELEN) != 0) {
        memcpy(sender->master, slaveof, CLUSTER_NAMELEN);
        cluster_config_changed();
    }
    /* A master that has had a replica may be an orphan later (Redis's MIGRATE_TO). */
    if (master && (master->flags & NODE_MASTER)) master->flags |= NODE_MIGRATE_TO;
}

/* Handles one checked message; false when the link was freed. */
static bool process_message(struct cluster_link *l, const uint8_t *m, size_t len)
{
    (void)len;
    uint16_t type = rd16(m + OFF_TYPE);
    if (type < CLUSTERMSG_TYPE_COUNT) cluster.messages_received[type]++;
    uint64_t sender_current_epoch = rd64(m + OFF_CURRENT_EPOCH);
    uint64_t sender_config_epoch = rd64(m + OFF_CONFIG_EPOCH);
    unsigned sender_flags = rd16(m + OFF_FLAGS);
    struct cluster_node *sender =
        cluster_lookup_node((const char *)m + OFF_SENDER, CLUSTER_NAMELEN);
    if (sender && (sender->flags & NODE_HANDSHAKE)) sender = NULL;
    if (sender) l->peer_known = true;
    int64_t now = clock_unix_ms();

    if (sender) {
        if (sender_current_epoch > cluster.current_epoch) {
            cluster.current_epoch = sender_current_epoch;
            cluster_config_changed();
        }
        if (sender_config_epoch > sender->config_epoch) {
            sender->config_epoch = sender_config_epoch;
            cluster_config_changed();
        }
        sender->repl_offset = (long long)rd64(m + OFF_OFFSET);
        /* The sender says whether it may fail over (nofailover), as Redis copies it. */
        if ((sender->flags ^ sender_flags) & NODE_NOFAILOVER) {
            sender->flags ^= NODE_NOFAILOVER;
            cluster_config_changed();
        }
        /* Our master, in a manual failover, paused its clients at this offset. */
        if (cluster.mf_end_ms && (cluster.myself->flags & NODE_REPLICA) &&
            cluster_node_master(cluster.myself) == sender && (m[OFF_MFLAGS] & MFLAG0_PAUSED))
            cluster_failover_master_paused(sender->repl_offset);
    }

    if (type == CLUSTERMSG_PING || type == CLUSTERMSG_MEET) {
        if ((type == CLUSTERMSG_MEET || cluster.myself->ip[0] == '\0') &&
            !(config.cluster_announce_ip && *config.cluster_announce_ip)) {
            char ip[CLUSTER_IPLEN];
            local_ip(l->fd, ip, sizeof ip);
            if (ip[0] && strcmp(ip, cluster.myself->ip) != 0) {
                snprintf(cluster.myself->ip, sizeof cluster.myself->ip, "%s", ip);
                log_notice("IP address for this node updated to %s", ip);
                cluster_config_changed();
            }
        }
        if (!sender && type == CLUSTERMSG_MEET) {
            struct cluster_node *n = cluster_node_create(NULL, NODE_HANDSHAKE);
            sender_ip(m, l->fd, n->ip, sizeof n->ip);
            n->port = rd16(m + OFF_PORT);
            n->cport = rd16(m + OFF_CPORT);
            cluster_config_changed();
            process_gossip(m, NULL);
        }
        if (!send_ping(l, CLUSTERMSG_PONG)) return false;
    }

    if (type == CLUSTERMSG_PING || type == CLUSTERMSG_PONG || type == CLUSTERMSG_MEET) {
        if (!l->inbound && l->node) {
            struct cluster_node *ln = l->node;
            if (ln->flags & NODE_HANDSHAKE) {
                if (sender) {
                    /* Already known under its real name: drop the handshake. */
                    cluster_node_delete(ln);
                    return false;
                }
                char name[CLUSTER_NAMELEN];
                memcpy(name, m + OFF_SENDER, CLUSTER_NAMELEN);
                cluster_node_rename(ln, name);
                ln->flags &= ~NODE_HANDSHAKE;
                ln->flags |= sender_flags & (NODE_MASTER | NODE_REPLICA);
                log_verbose("Handshake with node %.40s completed.", ln->name);
                cluster_config_changed();
                sender = ln;
            } else if (memcmp(ln->name, m + OFF_SENDER, CLUSTER_NAMELEN) != 0) {
                log_verbose("PONG contains mismatching sender ID: node %.40s now noaddr", ln->name);
                ln->flags |= NODE_NOADDR;
                ln->ip[0] = '\0';
                ln->port = ln->cport = 0;
                link_free(l);
                cluster_config_changed();
                return false;
            }
        }
        if (!l->inbound && l->node && type == CLUSTERMSG_PONG) {
            struct cluster_node *ln = l->node;
            ln->pong_received_ms = now;
            ln->ping_sent_ms = 0;
            if (ln->flags & NODE_PFAIL) {
                ln->flags &= ~NODE_PFAIL;
                cluster_config_changed();
            } else {
                clear_failure_if_needed(ln);
            }
        }
        if (sender) {
            update_role_of(sender, m);
            /* The sender, or its master when it is a replica, and whether
             * the slots it claims differ from what we know of them. */
            struct cluster_node *claimer =
                (sender->flags & NODE_MASTER) ? sender : cluster_node_master(sender);
            bool dirty = claimer && memcmp(claimer->slots, m + OFF_MYSLOTS, CLUSTER_SLOTS / 8) != 0;
            if ((sender->flags & NODE_MASTER) && dirty)
                update_slots_with(sender, sender_config_epoch, m + OFF_MYSLOTS);
            /* The sender claims slots we know a newer owner of: tell it. */
            for (int s = 0; s < CLUSTER_SLOTS && dirty; s++) {
                if (!((m[OFF_MYSLOTS + (s >> 3)] >> (s & 7)) & 1)) continue;
                struct cluster_node *owner = cluster.slots[s];
                if (owner == sender || owner == claimer || !owner) continue;
                if (owner->config_epoch > sender_config_epoch) {
                    if (!send_update(l, owner)) return false;
                    break;
                }
            }
            handle_epoch_collision(sender);
            process_gossip(m, sender);
        }
        return true;
    }

    if (type == CLUSTERMSG_FAIL && sender) {
        struct cluster_node *failing =
            cluster_lookup_node((const char *)m + OFF_DATA, CLUSTER_NAMELEN);
        if (failing && !(failing->flags & (NODE_FAIL | NODE_MYSELF))) {
            log_notice("FAIL message received from %.40s about %.40s", sender->name, failing->name);
            failing->flags |= NODE_FAIL;
            failing->flags &= ~NODE_PFAIL;
            failing->fail_time_ms = now;
            cluster_update_state();
            cluster_config_changed();
        }
    } else if (type == CLUSTERMSG_FAILOVER_AUTH_REQUEST && sender) {
        cluster_failover_vote(sender, sender_current_epoch, sender_config_epoch, m + OFF_MYSLOTS,
                              (m[OFF_MFLAGS] & MFLAG0_FORCEACK) != 0);
    } else if (type == CLUSTERMSG_FAILOVER_AUTH_ACK && sender) {
        cluster_failover_ack(sender, sender_current_epoch);
    } else if (type == CLUSTERMSG_MFSTART && sender) {
        cluster_failover_mfstart(sender);
    } else if (type == CLUSTERMSG_UPDATE && sender) {
        uint64_t epoch = rd64(m + OFF_DATA);
        struct cluster_node *n =
            cluster_lookup_node((const char *)m + OFF_DATA + 8, CLUSTER_NAMELEN);
        if (n && n != cluster.myself && epoch > n->config_epoch) {
            if (n->flags & NODE_REPLICA) cluster_set_node_as_master(n);
            n->config_epoch = epoch;
            update_slots_with(n, epoch, m + OFF_DATA + 8 + CLUSTER_NAMELEN);
        }
    } else if ((type == CLUSTERMSG_PUBLISH || type == CLUSTERMSG_PUBLISHSHARD) && sender) {
        uint32_t clen = rd32(m + OFF_DATA), mlen = rd32(m + OFF_DATA + 4);
        const char *data = (const char *)m + OFF_DATA + 8;
        pubsub_publish(type == CLUSTERMSG_PUBLISH ? PUBSUB_CHANNEL : PUBSUB_SHARD, data, clen,
                       data + clen, mlen);
    }
    return true;
}

/* Makes room in l->rbuf for the next read of a message that still needs
 * `still` bytes: as much again as has arrived (at least a chunk), never
 * more than the message still needs. */
static void link_read_room(struct cluster_link *l, size_t still)
{
    if (l->rcap - l->rlen >= (still < LINK_READ_CHUNK ? still : LINK_READ_CHUNK)) return;
    size_t add = l->rlen > LINK_READ_CHUNK ? l->rlen : LINK_READ_CHUNK;
    if (add > still) add = still;
    l->rcap = l->rlen + add;
    l->rbuf = xrealloc(l->rbuf, l->rcap);
}

/* Reads what is there and handles every whole message. Memory follows the
 * bytes that arrived (a header declaring 64 MiB reserves nothing), an
 * unknown peer's message is at most LINK_UNKNOWN_PEER_MAX, and everything
 * goes through the accounting allocator, so used_memory comes back down. */
static void link_read(struct cluster_link *l)
{
    for (;;) {
        size_t want = 8;
        if (l->rlen >= 8) {
            if (memcmp(l->rbuf, "RCmb", 4) != 0) goto bad;
            want = rd32(l->rbuf + OFF_TOTLEN);
            if (want < CLUSTERMSG_HEADER_LEN || want > CLUSTERMSG_MAX_LEN) goto bad;
            if (l->inbound && !l->peer_known && want > LINK_UNKNOWN_PEER_MAX) {
                log_warning("Cluster bus: closing a link from an unknown node that declared a "
                            "%zu-byte message (at most %u before it is known)",
                            want, LINK_UNKNOWN_PEER_MAX);
                link_free(l);
                return;
            }
        }
        link_read_room(l, want - l->rlen);
        size_t room = l->rcap - l->rlen < want - l->rlen ? l->rcap - l->rlen : want - l->rlen;
        ssize_t r = read(l->fd, l->rbuf + l->rlen, room);
        if (r == 0) {
            link_free(l);
            return;
        }
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR) return;
            link_free(l);
            return;
        }
        l->rlen += (size_t)r;
        if (l->rlen < 8 || l->rlen < want || want == 8) continue;
        const char *why = cluster_msg_check(l->rbuf, l->rlen);
        if (why) {
            log_warning("Cluster bus: closing a link that sent a bad message (%s)", why);
            link_free(l);
            return;
        }
        size_t len = l->rlen;
        l->rlen = 0;
        if (!process_message(l, l->rbuf, len)) return;
        if (l->rcap > 65536) { /* a big message came and went: give it back */
            xfree(l->rbuf);
            l->rbuf = NULL;
            l->rcap = 0;
        }
    }
bad:
    log_warning("Cluster bus: closing a link that sent a bad header");
    link_free(l);
}

static void on_link_event(struct ev_handler *h, uint32_t mask)
{
    struct cluster_link *l = (struct cluster_link *)h;
    if (l->connecting && (mask & (EV_WRITABLE | EV_READABLE))) {
        int err = 0;
        socklen_t el = sizeof err;
        getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) {
            log_verbose("Connecting with node %.40s at %s:%d failed: %s", l->node->name,
                        l->node->ip, l->node->cport, strerror(err));
            link_free(l);
            return;
        }
        l->connecting = false;
        struct cluster_node *n = l->node;
        int64_t old_ping = n->ping_sent_ms;
        send_ping(l, (n->flags & NODE_MEET) ? CLUSTERMSG_MEET : CLUSTERMSG_PING);
        if (old_ping) n->ping_sent_ms = old_ping; /* keep timing the first unanswered ping */
        n->flags &= ~NODE_MEET;
        return;
    }
    if (mask & EV_WRITABLE)
        if (!link_flush(l)) return;
    if (mask & EV_READABLE) link_read(l);
}

static struct cluster_link *link_new(int fd, bool inbound)
{
    struct cluster_link *l = xcalloc(1, sizeof *l);
    l->h.on_event = on_link_event;
    l->fd = fd;
    l->inbound = inbound;
    l->ctime_ms = clock_unix_ms();
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return l;
}

static void connect_node(struct cluster_node *n)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, n->ip, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)n->cport);
        sl = sizeof *in4;
    } else if (inet_pton(AF_INET6, n->ip, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)n->cport);
        sl = sizeof *in6;
    } else {
        return;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    if (connect(fd, (struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS) {
        close(fd);
        return;
    }
    struct cluster_link *l = link_new(fd, false);
    l->connecting = true;
    l->node = n;
    n->link = l;
    if (n->ping_sent_ms == 0) n->ping_sent_ms = clock_unix_ms();
    ev_add(fd, EV_READABLE | EV_WRITABLE, &l->h);
}

static void on_bus_accept(struct ev_handler *h, uint32_t mask)
{
    (void)h;
    (void)mask;
    int fd = accept4(bus_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    struct cluster_link *l = link_new(fd, true);
    l->next_inbound = inbound_links;
    inbound_links = l;
    ev_add(fd, EV_READABLE, &l->h);
}

bool cluster_bus_start(void)
{
    const char *bind = config.bind && *config.bind ? config.bind : "127.0.0.1";
    char first[128];
    snprintf(first, sizeof first, "%s", bind);
    first[strcspn(first, " ")] = '\0';
    int cport = cluster.myself->cport;
    if (config.cluster_port)
        cport = (int)config.cluster_port;
    else
        cport = config.port + CLUSTER_PORT_INCR;
    bus_fd = socket_listen_tcp(first, cport, (int)config.tcp_backlog);
    if (bus_fd < 0) {
        log_warning("Could not bind the cluster bus on %s:%d: %s", first, cport, strerror(errno));
        return false;
    }
    bus_listener.on_event = on_bus_accept;
    if (!ev_add(bus_fd, EV_READABLE, &bus_listener)) return false;
    log_notice("Cluster bus listening on %s:%d", first, cport);
    return true;
}

void cluster_bus_stop(void)
{
    while (inbound_links) link_free(inbound_links);
    for (int i = 0; i < cluster.node_count; i++)
        if (cluster.nodes[i]->link) link_free(cluster.nodes[i]->link);
    if (bus_fd >= 0) {
        ev_remove(bus_fd);
        close(bus_fd);
        bus_fd = -1;
    }
}

bool cluster_bus_node_connected(const struct cluster_node *n)
{
    return n->link && !n->link->connecting;
}

void cluster_bus_node_deleted(struct cluster_node *n)
{
    if (n->link) link_free(n->link);
}

bool cluster_bus_meet(const char *ip, int port, int cport)
{
    unsigned char tmp[16];
    if ((inet_pton(AF_INET, ip, tmp) != 1 && inet_pton(AF_INET6, ip, tmp) != 1) || port <= 0 ||
        port > 65535 || cport <= 0 || cport > 65535) {
        errno = EINVAL;
        return false;
    }
    /* A handshake with that address already going on: nothing to add. */
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if ((n->flags & NODE_HANDSHAKE) && strcasecmp(n->ip, ip) == 0 && n->port == port &&
            n->cport == cport)
            return true;
    }
    struct cluster_node *n = cluster_node_create(NULL, NODE_HANDSHAKE | NODE_MEET);
    snprintf(n->ip, sizeof n->ip, "%s", ip);
    n->port = port;
    n->cport = cport;
    return true;
}

void cluster_bus_feed(const uint8_t *msg, size_t len, struct cluster_node *outbound_to)
{
    if (cluster_msg_check(msg, len)) return;
    struct cluster_link *l = xcalloc(1, sizeof *l);
    l->fd = -1;
    l->inbound = outbound_to == NULL;
    if (outbound_to) {
        if (outbound_to->link) link_free(outbound_to->link);
        l->node = outbound_to;
        outbound_to->link = l;
    } else {
        l->next_inbound = inbound_links;
        inbound_links = l;
    }
    uint8_t *copy = xmalloc(len);
    memcpy(copy, msg, len);
    if (process_message(l, copy, len)) link_free(l);
    xfree(copy);
}

void cluster_bus_cron(void)
{
    int64_t now = clock_unix_ms();
    int64_t timeout = node_timeout();
    int64_t handshake_timeout = timeout < 1000 ? 1000 : timeout;
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if (n->flags & (NODE_MYSELF | NODE_NOADDR)) continue;
        if ((n->flags & NODE_HANDSHAKE) && now - n->created_ms > handshake_timeout) {
            cluster_node_delete(n);
            i--;
            continue;
        }
        if (!n->link) connect_node(n);
    }
    /* Once a second, ping the node heard from least recently among five. */
    if (now - last_random_ping_ms >= 1000 && cluster.node_count > 1) {
        last_random_ping_ms = now;
        struct cluster_node *oldest = NULL;
        for (int k = 0; k < 5; k++) {
            struct cluster_node *n = cluster.nodes[rand_below((uint64_t)cluster.node_count)];
            if (!n->link || n->link->connecting || n->ping_sent_ms ||
                (n->flags & (NODE_MYSELF | NODE_HANDSHAKE)))
                continue;
            if (!oldest || n->pong_received_ms < oldest->pong_received_ms) oldest = n;
        }
        if (oldest) send_ping(oldest->link, CLUSTERMSG_PING);
    }
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if (n->flags & (NODE_MYSELF | NODE_NOADDR | NODE_HANDSHAKE)) continue;
        struct cluster_link *l = n->link;
        /* A link that does not answer for half the timeout: reconnect. */
        if (l && now - l->ctime_ms > timeout && n->ping_sent_ms &&
            now - n->ping_sent_ms > timeout / 2) {
            link_free(l);
            l = NULL;
        }
        if (l && !l->connecting && n->ping_sent_ms == 0 && now - n->pong_received_ms > timeout / 2)
            send_ping(l, CLUSTERMSG_PING);
        if (n->ping_sent_ms && now - n->ping_sent_ms > timeout &&
            !(n->flags & (NODE_PFAIL | NODE_FAIL))) {
            log_verbose("*** NODE %.40s possibly failing", n->name);
            n->flags |= NODE_PFAIL;
            cluster_update_state();
        }
    }
    for (int i = 0; i < cluster.node_count; i++) mark_failing_if_needed(cluster.nodes[i]);
}
