/*
 * propagation.h — the consumers of the propagated command stream: what the
 * command layer writes down for every write (commands/propagate.h: Redis
 * 7.0's alsoPropagate, the rewritten, deterministic form of each write),
 * handed to whoever keeps it — the AOF (persist/aof.c), and replicas as a
 * second consumer.
 *
 * A consumer registers its feed while it wants the stream and removes it
 * when it stops; the command layer's HOOK_PROPAGATE bit (command_hooks.h)
 * is set exactly while there is at least one, so with none a command pays
 * nothing for propagation. The producer (the command layer) installs a
 * listener told when the stream starts and stops (it resolves its rewrite
 * rules, hooks key expiry, drops what was pending) — neither side includes
 * the other.
 *
 * The stream: units of RESP commands, each op with the database it ran in
 * (a consumer adds SELECT where the database changes), more than one op of
 * one outermost call wrapped in MULTI/EXEC, in execution order. An op goes
 * to every consumer, or only to those feeding replicas (PUBLISH outside
 * cluster mode: Redis 7.0's forceCommandPropagation(PROPAGATE_REPL)).
 */
#ifndef GOBLIN_PROPAGATION_H
#define GOBLIN_PROPAGATION_H

#include <stdbool.h>
#include <stddef.h>

/* Takes one RESP-encoded command that ran in database db. */
typedef void propagation_feed_fn(int db, const char *resp, size_t len);

/* At most this many consumers at once (the AOF, replicas). */
#define PROPAGATION_CONSUMERS_MAX 4

/* Whom an op is for. */
enum propagation_target {
    PROPAGATION_ALL,      /* every consumer: the writes */
    PROPAGATION_REPLICAS, /* only the consumers feeding replicas */
};

/* Adds a feed (no-op when it is there already); the first one starts the
 * stream. A feed for replicas also takes the PROPAGATION_REPLICAS ops. */
void propagation_add_consumer(propagation_feed_fn *feed, bool feeds_replicas);

/* Removes a feed (no-op when it is not there); the last one stops it. */
void propagation_remove_consumer(propagation_feed_fn *feed);

bool propagation_has_consumer(propagation_feed_fn *feed);

/* Whether some consumer feeds replicas (PROPAGATION_REPLICAS ops have a
 * taker). */
bool propagation_feeds_replicas(void);

/* The producer's listener, called with true when the stream starts and
 * false when it stops (the command layer, once at startup). */
void propagation_set_listener(void (*on_change)(bool on));

/* The producer: hands one op to every consumer it is for, in registration
 * order. */
void propagation_feed(int db, const char *resp, size_t len, enum propagation_target target);

#endif
