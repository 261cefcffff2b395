/*
 * blocking.h — the registry of clients blocked on keys (BLPOP, BLMOVE,
 * BZPOPMIN, ...): for each (database, key) a FIFO of waiters, and a queue
 * of keys made ready since the last serving pass. Knows nothing of
 * connections: a waiter is a struct block_waiter its owner embeds (the
 * connection layer embeds one per conn), and serving goes through a
 * callback.
 *
 * Fairness is Redis's: waiters of a key are served first blocked, first
 * served. A key becomes ready when a list, sorted set or stream is stored
 * under it by any command (db_add / db_replace call blocking_signal_key,
 * so pushes, RENAME, MOVE, stores of ZUNIONSTORE and the like all count)
 * and when SWAPDB brings it in (blocking_signal_db). List and sorted set
 * waiters only ever wait on absent keys (a key of the awaited type with
 * elements is served at once, one of another type answers WRONGTYPE), so
 * creation is their only event.
 *
 * Stream readers (XREAD, XREADGROUP BLOCK) wait on streams that exist
 * too, for entries past an ID, and XREADGROUP readers must hear that their
 * group or stream went: a stream key is also ready when entries are added
 * (blocking_signal_stream), its group destroyed, and when a stream is
 * deleted, overwritten or flushed away (db_unlink_kv, db_replace,
 * db_flush). Their waiters are served whatever the key holds then (the
 * command decides: serve, error, or wait on).
 *
 * Cost: nothing when no client is blocked (one load and branch in
 * db_add); otherwise a hash lookup per created list, sorted set or stream.
 */
#ifndef GOBLIN_STORE_BLOCKING_H
#define GOBLIN_STORE_BLOCKING_H

#include <stdbool.h>
#include <stddef.h>

#include "store/kv.h"

struct waiting_key;

struct block_link {
    struct block_link *prev, *next; /* in the key's FIFO */
    struct waiting_key *wk;
    struct block_waiter *waiter;
};

struct block_waiter {
    struct block_link *links; /* one per distinct key; NULL when not waiting */
    int nlinks;
    enum obj_type type; /* the type that serves it (list, sorted set, stream) */
};

/* Keys with waiters, over every database (zero: nobody is blocked). */
extern size_t blocking_waited_keys;

/* Registers w on keys of database db (duplicates are waited on once). */
void blocking_wait(struct block_waiter *w, int db, enum obj_type type, int nkeys,
                   const char *const *keys, const size_t *lens);

/* Removes w from every key (idempotent). */
void blocking_unwait(struct block_waiter *w);

static inline bool blocking_is_waiting(const struct block_waiter *w)
{
    return w->links != NULL;
}

/* A value of `type` was stored under key in database db. */
void blocking_signal_key_slow(int db, const char *key, size_t len);
static inline void blocking_signal_key(int db, const struct kv *kv)
{
    if (blocking_waited_keys &&
        (kv->type == OBJ_LIST || kv->type == OBJ_ZSET || kv->type == OBJ_STREAM))
        blocking_signal_key_slow(db, kv->key, kv->key_len);
}

/* kv leaves its key (deleted, overwritten, renamed or moved away): a
 * stream's XREADGROUP readers must hear of it. */
static inline void blocking_signal_removed(int db, const struct kv *kv)
{
    if (blocking_waited_keys && kv->type == OBJ_STREAM)
        blocking_signal_key_slow(db, kv->key, kv->key_len);
}

/* New entries in the stream at key, or a change its XREADGROUP readers
 * must hear of (XGROUP DESTROY): the key is ready. */
static inline void blocking_signal_stream(int db, const char *key, size_t len)
{
    if (blocking_waited_keys) blocking_signal_key_slow(db, key, len);
}

/* Every waited key of database db that now exists is ready (SWAPDB). */
void blocking_signal_db(int db);

/* Every waited key of database db that holds a stream now is ready: it is
 * about to go (FLUSHDB, FLUSHALL, SWAPDB). */
void blocking_signal_db_streams(int db);

bool blocking_has_ready(void);

/* Serves the ready keys: for each, its waiters in FIFO order, calling
 * serve() with the key for those whose awaited type the key has while it
 * exists, and for every stream waiter whatever the key holds. serve()
 * re-runs the waiter's command; it may unwait the waiter and store values
 * (making more keys ready, served in the same call). */
void blocking_serve_ready(void (*serve)(struct block_waiter *w, const char *key, size_t len,
                                        void *arg),
                          void *arg);

#endif
