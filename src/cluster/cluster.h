/*
 * cluster.h — Redis Cluster mode: hash slots, the node table, its
 * configuration file and the redirections clients follow.
 *
 * With `--cluster-enabled yes` the key space is cut into 16384 slots
 * (CRC16 of the key, or of its {hash tag}, modulo 16384, as Redis). Every
 * node knows which node serves each slot; a command whose keys hash to a
 * slot served elsewhere is answered `-MOVED slot ip:port`, one whose keys
 * span slots `-CROSSSLOT ...`, a slot served by nobody `-CLUSTERDOWN Hash
 * slot not served` — Redis 7.0's words, so cluster-aware clients (redis-py
 * RedisCluster, ioredis Cluster, redis-cli -c) route by themselves.
 *
 * The node table is kept in `--cluster-config-file` (default nodes.conf,
 * in --dir), in Redis's nodes.conf format, and is rewritten whenever it
 * changes. Nodes learn about each other and about slot ownership through
 * the cluster bus (cluster_bus.c) on port + 10000, Redis 7.0's binary
 * protocol; a file written by hand with every node's line is a static
 * cluster (see docs/scale-out.md).
 *
 * Replicas: a node may replicate a master (CLUSTER REPLICATE, a failover
 * that took its master's slots, nodes.conf): its flags say `slave`, its
 * `master` field names the master, and replication itself is repl/'s,
 * reached through the hooks of struct cluster_replication below (repl/ is
 * the layer above). cluster_failover.c elects a replica in a failed
 * master's place and runs CLUSTER FAILOVER.
 *
 * Only database 0 exists in cluster mode, as in Redis.
 */
#ifndef GOBLIN_CLUSTER_H
#define GOBLIN_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLUSTER_SLOTS 16384
#define CLUSTER_NAMELEN 40 /* node ids: 40 hex characters */
#define CLUSTER_IPLEN 46   /* INET6_ADDRSTRLEN */
#define CLUSTER_PORT_INCR 10000

/* Node flags: Redis's bit values, which travel in bus messages as they are. */
enum cluster_node_flag {
    NODE_MASTER = 1u << 0,
    NODE_REPLICA = 1u << 1,
    NODE_PFAIL = 1u << 2,
    NODE_FAIL = 1u << 3,
    NODE_MYSELF = 1u << 4,
    NODE_HANDSHAKE = 1u << 5,
    NODE_NOADDR = 1u << 6,
    NODE_MEET = 1u << 7,
    NODE_MIGRATE_TO = 1u << 8,
    NODE_NOFAILOVER = 1u << 9,
};

struct cluster_link; /* cluster_bus.c */

struct cluster_node {
    char name[CLUSTER_NAMELEN];
    char ip[CLUSTER_IPLEN];
    int port;  /* clients */
    int cport; /* cluster bus */
    unsigned flags;
    char master[CLUSTER_NAMELEN]; /* replicas: their master's id; else zeros */
    uint64_t config_epoch;
    int64_t ping_sent_ms;     /* 0: no ping awaiting its pong */
    int64_t pong_received_ms; /* last pong (or any frame) from it */
    int64_t fail_time_ms;
    int64_t created_ms;
    unsigned char slots[CLUSTER_SLOTS / 8];
    int numslots;
    long long repl_offset;     /* the replication offset its last message carried */
    int64_t voted_time_ms;     /* masters: when we last voted for one of its replicas */
    int64_t orphaned_ms;       /* masters: since when it has no working replica (0: has one) */
    struct cluster_link *link; /* our outbound bus link to it (NULL: none) */
    /* Failure reports: masters that flagged this node PFAIL, with when. */
    struct {
        struct cluster_node *reporter;
        int64_t time_ms;
    } * fail_reports;
    int fail_report_count;
};

enum cluster_state_kind { CLUSTER_OK = 0, CLUSTER_FAIL = 1 };

struct cluster_state {
    struct cluster_node *myself;
    struct cluster_node **nodes;
    int node_count;
    struct cluster_node *slots[CLUSTER_SLOTS];
    struct cluster_node *migrating_to[CLUSTER_SLOTS];
    struct cluster_node *importing_from[CLUSTER_SLOTS];
    uint64_t current_epoch;
    uint64_t last_vote_epoch;
    int state; /* cluster_state_kind */
    int size;  /* masters serving at least one slot */
    bool config_dirty;
    /* Our election as a replica of a failed master (cluster_failover.c). */
    int64_t failover_auth_time_ms; /* when the election starts, or started */
    int failover_auth_count;       /* votes received */
    bool failover_auth_sent;       /* FAILOVER_AUTH_REQUEST sent */
    int failover_auth_rank;
    uint64_t failover_auth_epoch;
    /* Manual failover (CLUSTER FAILOVER): on a master, the replica that
     * asked and until when clients' writes are paused; on a replica, the
     * master's offset once it said it paused (-1: not yet), and whether
     * the election may start. mf_end_ms 0: none in progress. */
    int64_t mf_end_ms;
    struct cluster_node *mf_replica;
    long long mf_master_offset;
    bool mf_can_start;
    long long messages_sent[16];
    long long messages_received[16];
};

extern struct cluster_state cluster;

/* Whether --cluster-enabled yes (one test on every keyed command). */
extern bool cluster_enabled;

/* Redis's key hash slot: CRC16 (XMODEM) of the key, or of the text
 * between the first '{' and the next '}' when that is not empty. */
unsigned cluster_keyslot(const char *key, size_t len);

/* Loads (or creates) the node table from the configuration file and starts
 * the bus listener; logs and returns false when the server cannot start. */
bool cluster_start(void);
void cluster_stop(void);

/* Loads a nodes.conf into the (empty) node table: 1 loaded, 0 absent or
 * empty, -1 invalid (logged). cluster_start's first step; fuzzed by
 * tests/fuzz/fuzz_cluster_bus.c. */
int cluster_load_config(const char *path);

/* Periodic work (bus pings, failure detection, state): housekeeping. */
void cluster_housekeeping(void);

/* The node table. */
struct cluster_node *cluster_node_create(const char *name, unsigned flags);
struct cluster_node *cluster_lookup_node(const char *name, size_t len);
void cluster_node_delete(struct cluster_node *n);
void cluster_node_rename(struct cluster_node *n, const char *name);
bool cluster_node_has_slot(const struct cluster_node *n, int slot);
bool cluster_add_slot(struct cluster_node *n, int slot);
bool cluster_del_slot(int slot);
/* The node's flags in CLUSTER NODES form ("myself,master"). */
void cluster_node_flags_text(const struct cluster_node *n, char *out, size_t len);
/* Ids of 40 random hex characters. */
void cluster_random_name(char out[CLUSTER_NAMELEN]);

/* Recomputes cluster_state (ok/fail) and size. */
void cluster_update_state(void);
/* Writes the configuration file when something changed (or always with
 * force); false (logged) on failure. */
bool cluster_save_config(bool force);
/* The configuration file changed: saved at the end of this loop turn. */
void cluster_config_changed(void);

/* n's CLUSTER NODES line (no newline) into out; its length (0: too long).
 * for_file: as nodes.conf stores it (link state always "connected"). */
size_t cluster_node_line(const struct cluster_node *n, char *out, size_t cap, bool for_file);

/* The configuration file names no node `myself`: a read-only slot map
 * shared by every node (static mode, no bus). */
bool cluster_is_static(void);

/* The endpoint clients are sent to for n (MOVED, CLUSTER SLOTS). */
const char *cluster_node_ip(const struct cluster_node *n);

/* ---- replicas ---- */

/* A replica's master (NULL: a master, or a master we do not know). */
struct cluster_node *cluster_node_master(const struct cluster_node *n);
/* The replicas of master, sorted by name, into out (at most cap); how many
 * there are. */
int cluster_node_replicas(const struct cluster_node *master, struct cluster_node **out, int cap);
/* This node becomes a replica of master (Redis's clusterSetMaster): flags,
 * the master's id, open slots closed, replication started. */
void cluster_set_my_master(struct cluster_node *master);
/* n (myself or another node) is a master from now on: no master id, no
 * replica flag (Redis's clusterSetNodeAsMaster). */
void cluster_set_node_as_master(struct cluster_node *n);

/* Replication as the cluster drives it. repl/ (a layer above) installs
 * this at startup; cluster never includes repl/. */
struct cluster_replication {
    /* Replicate ip:port (idempotent: the same master keeps its link), or,
     * with ip NULL, stop replicating and be a master (REPLICAOF NO ONE). */
    void (*follow)(const char *ip, int port);
    /* This node's replication offset: a master's stream, or what a
     * replica has applied of its master's. */
    long long (*offset)(void);
    /* How long the link to our master has been down, or since the master
     * last spoke on it when it is up (ms): a replica's data age. */
    long long (*data_age_ms)(void);
    /* repl-ping-replica-period in ms (part of the data age a replica may
     * have and still fail over). */
    long long (*ping_period_ms)(void);
};
void cluster_set_replication(const struct cluster_replication *r);
extern const struct cluster_replication *cluster_replication;

/* ---- failover (cluster_failover.c) ---- */

/* CLUSTER FAILOVER [FORCE|TAKEOVER] on this replica: NULL or Redis's error. */
const char *cluster_failover_manual(bool force, bool takeover);
/* Replaces our master: its slots become ours, we a master, every node is
 * told (Redis's clusterFailoverReplaceYourMaster). */
void cluster_failover_replace_master(void);
/* A FAILOVER_AUTH_REQUEST from node, carrying these epochs, slots and
 * force-ack flag: votes when Redis's conditions hold. */
void cluster_failover_vote(struct cluster_node *node, uint64_t current_epoch, uint64_t config_epoch,
                           const unsigned char *slots, bool force_ack);
/* A FAILOVER_AUTH_ACK from a master, at its current epoch. */
void cluster_failover_ack(struct cluster_node *sender, uint64_t current_epoch);
/* MFSTART from a replica of ours: pause writes, tell it our offset. */
void cluster_failover_mfstart(struct cluster_node *sender);
/* Our master's ping said it paused writes, at this offset. */
void cluster_failover_master_paused(long long offset);
/* Every cron: the election and the manual failover's steps. */
void cluster_failover_cron(void);
void cluster_failover_reset_manual(void);

/* Settings of this layer that config.h does not hold. */
struct cluster_settings {
    long long replica_validity_factor; /* cluster-replica-validity-factor (0: any age) */
    bool replica_no_failover;          /* cluster-replica-no-failover */
    bool allow_replica_migration;      /* cluster-allow-replica-migration */
    long long migration_barrier;       /* cluster-migration-barrier */
};
extern struct cluster_settings cluster_settings;

/* Settings (core/config.h): cluster-*. */
struct config_table;
extern const struct config_table cluster_config;

#endif
