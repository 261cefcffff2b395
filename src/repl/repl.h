/*
 * repl.h — replication in Redis 7.0's own protocol (PSYNC2): the master
 * side. docs/replication.md tells the whole story; this header is the
 * contract the rest of the server sees.
 *
 * A replica is a client connection that sent SYNC or PSYNC: from then on
 * the conn carries the replication stream instead of replies (CONN_REPLICA,
 * CLIENT LIST flags=S, the `replica` class of client-output-buffer-limit).
 * The stream is the propagated form of every write (commands/propagate.c,
 * the same rules the AOF uses: SELECT when the database changes, MULTI/EXEC
 * around a unit of more than one write, expiries as DEL, scripts as their
 * effects), taken by repl_feed() as the second consumer of the propagated
 * stream (core/propagation.h) while a backlog exists, plus the master's own PING every
 * repl-ping-replica-period and REPLCONF GETACK when a WAIT needs acks.
 *
 * Full synchronisation forks (persist_bgsave_replication): to the RDB file
 * and then sent as `$<length>` + the file (repl-diskless-sync no), or
 * relayed from a pipe as `$EOF:<40 bytes>` + the RDB + the 40 bytes
 * (diskless, the default as in Redis 7.0), never blocking the loop: the
 * file and the pipe are moved a chunk at a time as each replica's socket
 * drains. The stream written meanwhile waits in the replica's own pending
 * buffer (bounded by the replica output limit) and follows the RDB.
 *
 * Cost: with no replica and no backlog this module costs nothing per
 * command (propagation is off unless the AOF is on). With a backlog, each
 * write is encoded once into the stream, copied into the backlog ring and
 * each replica's output buffer; replicas are written at the end of the
 * loop pass that produced the bytes (repl_flush_replicas(), the
 * EV_PASS_REPLICAS stage, after the clients' replies of the pass).
 */
#ifndef GOBLIN_REPL_H
#define GOBLIN_REPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct conn;
struct reply;

/* CONFIG parameters (the rows of repl_config.c), Redis 7.0's names and defaults. */
struct config_table;
extern const struct config_table repl_config;
struct repl_settings {
    long long backlog_size;               /* repl-backlog-size (bytes) */
    long long backlog_ttl;                /* repl-backlog-ttl (seconds; 0: never freed) */
    bool diskless_sync;                   /* repl-diskless-sync */
    long long diskless_sync_delay;        /* repl-diskless-sync-delay (seconds) */
    long long diskless_sync_max_replicas; /* repl-diskless-sync-max-replicas (0: no limit) */
    long long ping_replica_period;        /* repl-ping-replica-period (seconds) */
    long long timeout;                    /* repl-timeout (seconds) */
    long long min_replicas_to_write;      /* min-replicas-to-write (0: off) */
    long long min_replicas_max_lag;       /* min-replicas-max-lag (seconds) */
    bool disable_tcp_nodelay;             /* repl-disable-tcp-nodelay */
};
extern struct repl_settings repl_settings;

/* The replica side's parameters (replica.c). */
struct repl_replica_settings {
    char *masterauth;        /* AUTH on the link (masterauth) */
    char *masteruser;        /* ... as this user (masteruser) */
    bool read_only;          /* replica-read-only: READONLY for clients' writes */
    bool serve_stale_data;   /* replica-serve-stale-data: no: MASTERDOWN while the link is down */
    long long priority;      /* replica-priority (INFO slave_priority, for Sentinel) */
    char *announce_ip;       /* replica-announce-ip (REPLCONF ip-address) */
    char *bind_source_addr;  /* the link to the master's local address ("": the kernel's) */
    long long announce_port; /* replica-announce-port (REPLCONF listening-port; 0: --port) */
    bool announced;          /* replica-announced (INFO replica_announced) */
    char *diskless_load;     /* repl-diskless-load: disabled|on-empty-db|swapdb (replica.c) */
    char *replicaof;         /* --replicaof 'HOST PORT' at startup */
};
extern struct repl_replica_settings repl_replica_settings;

/* REPLICAOF / SLAVEOF host port, or host NULL for NO ONE: NULL (and the
 * status text in ok_text) or Redis's error. */
const char *repl_replicaof(const char *host, size_t host_len, long long port, struct buf *ok_text);

/* Startup, before the command table is built: adds the replication
 * commands (command_add_family), the role checks READONLY / MASTERDOWN /
 * NOREPLICAS (command_set_role_checks) and the INFO replication row
 * (core/info_section.h). */
void repl_init(void);

/* Startup: before the snapshot loads (a replica keeps its expired keys),
 * after it (a replica's snapshot names the history to continue), and once
 * the listeners exist (--replicaof connects). */
struct rdb_load_info;
void repl_start_early(void);
void repl_after_load(const struct rdb_load_info *info);
void repl_start(void);

/* FAILOVER (failover.c): the state INFO shows as master_failover_state. */
enum failover_state { FAILOVER_NONE, FAILOVER_WAIT_FOR_SYNC, FAILOVER_IN_PROGRESS };
extern enum failover_state repl_failover_state;
/* FAILOVER [TO host port [FORCE]] [TIMEOUT ms] (host NULL: any replica;
 * timeout 0: none), or FAILOVER ABORT: NULL or Redis's error. */
const char *repl_failover_command(const char *host, size_t host_len, long long port, bool force,
                                  long long timeout_ms, bool abort_request);

/* Config hooks: repl-backlog-size resizes the ring; min-replicas-* switch
 * the NOREPLICAS check on the command path (HOOK_MIN_REPLICAS). */
void repl_apply_backlog_size(void);
void repl_apply_min_replicas(void);

/* Adds one propagated command (RESP), run in database db, to the stream
 * (propagate.c's flush, beside the AOF): a SELECT first when db is not the
 * stream's database. Does nothing without a backlog. */
void repl_feed(int db, const char *resp, size_t len);

/* Writes the replicas' new output and a replica's ACK to its master: the
 * EV_PASS_REPLICAS stage of the loop pass (core/event_loop.h), requested
 * by whatever produced them. */
void repl_flush_replicas(void);

/* Housekeeping (once per run, acts once per second as Redis's
 * replicationCron): pings, newlines to replicas waiting for their RDB,
 * replica timeouts, delayed diskless syncs, the backlog's TTL, WAIT
 * timeouts, the good-replicas count. */
void repl_housekeeping(void);

/* The commands (repl_commands.c), through these calls: */
/* SYNC / PSYNC replid offset: c becomes a replica (its reply is the
 * +FULLRESYNC / +CONTINUE line or, for SYNC, the RDB). PSYNC's offset is
 * given as its text: one that is not an integer is refused after the
 * other refusals, as Redis's syncCommand orders them. */
void repl_master_sync(struct conn *c, struct reply *r, bool psync, const char *replid,
                      size_t replid_len, const char *offset_text, size_t offset_len, bool failover);
/* REPLCONF: one option/value pair; false with *err set to Redis's text. */
bool repl_master_replconf(struct conn *c, const char *opt, size_t opt_len, const char *val,
                          size_t val_len, bool *reply_ok, const char **err);
/* REPLCONF ACK <offset> from the replica c. */
void repl_master_ack(struct conn *c, long long offset);
/* WAIT numreplicas timeout_ms (0: forever): answers now or blocks c. */
void repl_wait(struct conn *c, struct reply *r, long long numreplicas, long long timeout_ms,
               bool may_block);
/* ROLE's reply. */
void repl_reply_role(struct reply *r);
/* INFO replication (the row registered for INFO's replication section;
 * the sync_* and repl bytes counters of INFO stats are core/server_state.h's). */
void repl_info(struct buf *b);

/* A shutdown waiting for its replicas (Redis's isReadyToShutdown,
 * sendGetackToReplicas, finishShutdown's log): whether every replica has
 * acknowledged the whole stream; REPLCONF GETACK to them after this pass;
 * the "Lagging replica ..." and "N of M replicas are in sync" lines. */
bool repl_replicas_in_sync(void);
void repl_request_acks(void);
void repl_log_shutdown_sync(void);

/* The replication id and offset (INFO, RDB aux fields). */
const char *repl_id(void);
long long repl_offset(void);
/* DEBUG CHANGE-REPL-ID and a new history: a new id, the old one forgotten. */
void repl_change_id(void);

#endif
