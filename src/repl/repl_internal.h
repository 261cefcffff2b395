/*
 * repl_internal.h — between the two halves of repl/: the history (ids,
 * offsets, backlog, replicas: master.c) and the link to this server's own
 * master (replica.c). Nothing outside repl/ includes it.
 */
#ifndef GOBLIN_REPL_INTERNAL_H
#define GOBLIN_REPL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

struct conn;
struct reply;

/* This server replicates a master (REPLICAOF host port): the stream it
 * serves its own replicas is its master's, proxied byte for byte. */
extern bool repl_is_replica;

/* A full sync from the master loaded: our history is now the master's,
 * from `offset` on (a fresh backlog, no second id); our replicas must
 * sync again. */
void repl_history_adopt(const char *replid, long long offset);
/* +CONTINUE with another id (the master was promoted): the old id stays
 * valid up to the current offset as the second one; our replicas resync. */
void repl_history_continue(const char *newid);
/* REPLICAOF NO ONE: a new history, the old one kept as the second id up
 * to here, so replicas of the old master continue with us (PSYNC2). */
void repl_history_shift(void);
/* Bytes of the master's stream applied here: into the backlog and to our
 * replicas, as they came. */
void repl_stream_proxy(const char *p, size_t n);
/* Closes every replica's link (they will PSYNC again). */
void repl_disconnect_replicas(void);
/* The database the stream's next command runs in (-1: unknown). */
int repl_stream_db(void);

/* FAILOVER's steps (failover.c) and what they need of the two halves. */
const char *repl_failover_state_name(void);
void repl_failover_abort(const char *why);
void repl_failover_psync_answered(bool accepted);
void repl_failover_update(void);
int repl_replica_count(void);
bool repl_replica_find(const char *host, int port, bool *online);
/* A replica that acked the whole stream (the one named, or any, whose
 * address then fills host/port). */
bool repl_replica_caught_up(char *host, size_t cap, int *port);
/* The old master's side: REPLICAOF the target, its PSYNC saying FAILOVER. */
void repl_replicaof_for_failover(const char *host, int port);
/* An aborted switch: a master again (REPLICAOF NO ONE's effects). */
void repl_replica_back_to_master(void);

/* Cluster mode (repl_cluster.c): replicate host:port unless already
 * following it; how old our copy of the master's data is (ms). */
void repl_replica_follow(const char *host, int port);
long long repl_replica_data_age_ms(void);
void repl_cluster_init(void);

/* replica.c's parts of the public calls. */
int repl_replica_stream_db(void);
bool repl_replica_connected(void);
void repl_replica_getack(void);
void repl_replica_info(struct buf *b);
void repl_replica_role(struct reply *r);
void repl_replica_housekeeping(void);
void repl_replica_flush(void);
/* The conn is this server's link to its master. */
bool repl_conn_is_master(const struct conn *c);
/* The role checks (command_set_role_checks): READONLY, MASTERDOWN, NOREPLICAS. */
const char *repl_readonly_refusal(const struct conn *c);
const char *repl_stale_refusal(const struct conn *c);
bool repl_writes_refused(void);
/* master.c's startup part: the conn extension slot of its links. */
void repl_master_init(void);

#endif
