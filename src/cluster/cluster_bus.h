/*
 * cluster_bus.h — the cluster bus: Redis 7.0's binary node-to-node protocol
 * on the client port + 10000 (or --cluster-port).
 *
 * Every message starts with the 2256-byte header of Redis's clusterMsg
 * ("RCmb", total length, version 1, the sender's ports, type, count, epochs,
 * name, the 16384-bit map of the slots it serves, its flags and the cluster
 * state as it sees it; multi-byte fields big-endian), followed by a body
 * per type: gossip entries (PING, PONG, MEET), a node name (FAIL), a slot
 * map with its epoch (UPDATE), a channel and message (PUBLISH). Because
 * the layout is Redis's, goblin-core and redis-server nodes form one
 * cluster, and redis-cli --cluster drives both.
 *
 * Implemented: MEET handshakes, PING/PONG with gossip (nodes learn each
 * other), slot ownership by config epoch (and UPDATE to correct stale
 * owners), epoch collision resolution, failure detection (PFAIL by
 * timeout, FAIL by a majority of masters' reports, FAIL broadcast and
 * clearing), cluster-wide PUBLISH, replicas (a replica's header carries
 * its master's id, slots and config epoch and its replication offset),
 * failover elections (FAILOVER_AUTH_REQUEST / ACK) and manual failover
 * (MFSTART, the PAUSED flag): cluster_failover.c.
 *
 * Inbound bytes are never trusted: a message is checked whole
 * (cluster_msg_check) before any field is used, and a link whose peer
 * sends a malformed or oversized message is closed.
 */
#ifndef GOBLIN_CLUSTER_BUS_H
#define GOBLIN_CLUSTER_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cluster_node;

/* Message types, Redis's numbers. */
enum cluster_msg_type {
    CLUSTERMSG_PING = 0,
    CLUSTERMSG_PONG = 1,
    CLUSTERMSG_MEET = 2,
    CLUSTERMSG_FAIL = 3,
    CLUSTERMSG_PUBLISH = 4,
    CLUSTERMSG_FAILOVER_AUTH_REQUEST = 5,
    CLUSTERMSG_FAILOVER_AUTH_ACK = 6,
    CLUSTERMSG_UPDATE = 7,
    CLUSTERMSG_MFSTART = 8,
    CLUSTERMSG_MODULE = 9,
    CLUSTERMSG_PUBLISHSHARD = 10,
    CLUSTERMSG_TYPE_COUNT = 11,
};

#define CLUSTERMSG_HEADER_LEN 2256u
#define CLUSTERMSG_GOSSIP_LEN 104u
#define CLUSTERMSG_MAX_LEN (64u << 20) /* larger: the link is closed */

/* NULL when msg[0..len) is one well-formed message (len equals its total
 * length, the body fits its type and count); else why not. */
const char *cluster_msg_check(const uint8_t *msg, size_t len);

bool cluster_bus_start(void);

/* Bus links open (inbound and outbound) and the bytes they hold (INFO
 * cluster_connections, mem_cluster_links). */
void cluster_bus_links_stats(size_t *links, size_t *bytes);
void cluster_bus_stop(void);
/* Every housekeeping run: connects, pings, failure detection. */
void cluster_bus_cron(void);

bool cluster_bus_node_connected(const struct cluster_node *n);
void cluster_bus_node_deleted(struct cluster_node *n);

/* CLUSTER MEET: a handshake with ip:port (bus on cport); false with errno
 * EINVAL for a bad address or port. */
bool cluster_bus_meet(const char *ip, int port, int cport);

/* PUBLISH on this node: the message goes to every other node too. */
void cluster_bus_publish(const char *channel, size_t channel_len, const char *msg, size_t msg_len);

/* Something every node should learn now (slots assigned, epoch bumped):
 * a PONG to every connected node. */
void cluster_bus_broadcast_pong(void);
/* A header-only message (FAILOVER_AUTH_REQUEST with force_ack for a manual
 * failover) to every connected node; one (AUTH_ACK, MFSTART) to n. */
void cluster_bus_broadcast_header(uint16_t type, bool force_ack);
bool cluster_bus_send_header(struct cluster_node *n, uint16_t type);
/* A PING to n now (a master telling its replica it paused). */
bool cluster_bus_send_ping(struct cluster_node *n);

/* Checks msg and, when well formed, handles it as if it came on an inbound
 * link (outbound_to NULL) or on our link to outbound_to, with no socket:
 * replies are counted, not sent. The fuzz harness's entry point
 * (tests/fuzz/fuzz_cluster_bus.c). */
void cluster_bus_feed(const uint8_t *msg, size_t len, struct cluster_node *outbound_to);

/* CLUSTER INFO message counters by type. */
extern const char *const cluster_msg_type_names[CLUSTERMSG_TYPE_COUNT];

#endif
