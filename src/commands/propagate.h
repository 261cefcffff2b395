/*
 * propagate.h — what a write command leaves in the propagated stream (the
 * append-only file, later replicas):
 * Redis 7.0's propagation (call() → alsoPropagate → propagatePendingCommands).
 *
 * command_call() brackets every handler with propagate_begin/_end when
 * propagation is on (the AOF is on or being turned on). A leaf call — one
 * that ran no nested command — that changed the dirty counter or signalled
 * a key modified (db_signal_modified_key) adds its
 * command, rewritten where replaying it verbatim would not reproduce the
 * effect, as Redis 7.0 rewrites it:
 *
 *   EXPIRE/PEXPIRE/EXPIREAT, GETEX EX..  PEXPIREAT key <absolute ms>
 *   SET .. EX/PX/EXAT, SETEX, PSETEX     SET key value PXAT <absolute ms>
 *   GETEX PERSIST                        PERSIST key
 *   GETDEL, any of those leaving no key  DEL key
 *   INCRBYFLOAT                          SET key <new value> KEEPTTL
 *   HINCRBYFLOAT                         HSET key field <new value>
 *   RESTORE with a relative TTL          RESTORE .. <absolute ms> .. ABSTTL
 *   SPOP                                 SREM key member... (the handler
 *                                        names the members; DEL when all went)
 *   BLPOP/BRPOP, BLMPOP, LMPOP           LPOP/RPOP key [count]
 *   BLMOVE, BRPOPLPUSH                   LMOVE, RPOPLPUSH
 *   BZPOPMIN/MAX, BZMPOP, ZMPOP          ZPOPMIN/ZPOPMAX key [count]
 *   GEOADD                               zadd key [options] score member ...
 *
 * Stream commands write their effects themselves, as Redis's
 * alsoPropagate + preventCommandPropagation do: propagate_command() adds
 * an op for the running call (XREADGROUP's deliveries as XCLAIM ...
 * JUSTID, XADD with its generated ID and exact trim), propagate_prevent()
 * drops the call's own.
 *
 * A key found expired during a command adds DEL key before it (as Redis's
 * propagateDeletion); active expiry writes DEL key on its own. A call that
 * ran nested commands (EXEC, later a script) is not written itself: its
 * nested writes are. When the outermost call ends, its writes go to the AOF
 * as one unit, wrapped in MULTI/EXEC when there is more than one (Redis
 * 7.0's rule), to every consumer of the stream (core/propagation.h: the
 * AOF, which adds SELECT when the database changes). Propagation is on
 * exactly while the stream has a consumer; it stopping drops anything
 * pending.
 */
#ifndef GOBLIN_PROPAGATE_H
#define GOBLIN_PROPAGATE_H

#include <stdbool.h>
#include <stddef.h>

struct cmd_ctx;
struct db;

/* Whether command_call brackets handlers: while the stream has a consumer
 * (core/propagation.h; HOOK_PROPAGATE is the same state in the hook word). */
extern bool propagate_on;

/* Listens to core/propagation.h for the stream starting and stopping (at
 * table init). */
void propagate_init(void);

struct propagate_frame {
    long long dirty;            /* keyspace.stats.dirty before the handler */
    unsigned long long signals; /* keyspace.modified_signals before it */
    long long calls;            /* calls begun before this one (nested-call detection) */
    int db;                     /* database the command runs in */
    int served_key;             /* blocking/multi pops: argv index of the key served, 0 = none */
    long long served_len;       /* multi pops: the served key's length before the handler */
    bool active;                /* begin ran (propagation was on) */
    bool prevented;             /* the handler wrote its effects itself */
    struct propagate_frame *outer;
};

/* Before and after the handler (command_call). */
void propagate_begin(struct propagate_frame *f, struct cmd_ctx *ctx);
void propagate_end(struct propagate_frame *f, struct cmd_ctx *ctx);

/* SPOP names each member it removed (nothing when propagation is off). */
void propagate_spop_member(struct cmd_ctx *ctx, const char *member, size_t len);

/* The running call's own command goes to replicas only (PUBLISH and
 * SPUBLISH outside cluster mode, as Redis 7.0); no-op without a replica
 * feed. */
void propagate_to_replicas(struct cmd_ctx *ctx);
/* argv goes to replicas only, as an op of the running call (DEBUG
 * REPLICATE: Redis's replicationFeedSlaves, divergence on purpose). */
void propagate_argv_to_replicas(struct cmd_ctx *ctx, int argc, const char *const *argv,
                                const size_t *len);

/* The running call's own command is not written (Redis's
 * preventCommandPropagation); no-op while propagation is off. */
void propagate_prevent(struct cmd_ctx *ctx);

/* Adds argv as an op of the running call, in its database (Redis's
 * alsoPropagate); no-op while propagation is off. */
void propagate_command(struct cmd_ctx *ctx, int argc, const char *const *argv, const size_t *len);

/* Installed as the keyspace's expiry hook while propagation is on. */
void propagate_expired_key(struct db *db, const char *key, size_t len);

#endif
