/*
 * db.h — the keyspace: numbered databases of kvs, TTLs and expiry.
 *
 * Knows nothing of connections or protocols: commands call these typed
 * operations and encode the answers themselves through the reply sink.
 *
 * Expiry is lazy (a read or write of an expired key deletes it first) and
 * active: db_active_expire() samples keys that have a TTL, resumable by
 * cursor, for a bounded time per call, so expired memory is reclaimed without
 * a pause. Time is "command time": keyspace_now_ms() is read once per command
 * (keyspace_begin_command() invalidates it), so a command sees one instant.
 */
#ifndef GOBLIN_DB_H
#define GOBLIN_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/dict.h"
#include "store/kv.h"
#include "store/watch.h"

struct db {
    struct dict keys;
    struct dict expires; /* one struct expire_entry per kv with a TTL */
    struct dict watched; /* WATCHed keys of this database index (store/watch.c) */
    unsigned long long expire_cursor;
    long long avg_ttl_ms; /* running estimate from active expiry, for INFO */
    int id;
};

struct keyspace_stats {
    long long hits, misses;
    long long expired_keys;
    long long evicted_keys;   /* maxmemory eviction (store/evict.h) */
    long long dirty;          /* writes since start (for INFO) */
    long long values_adopted; /* strings stored in the buffer they arrived in, uncopied */
};

struct keyspace {
    struct db *dbs;
    int count;
    struct keyspace_stats stats;
    int64_t now_ms; /* command time; 0 = not read yet for this command */
    /* Called with a key about to be deleted because its TTL passed (lazy
     * or active expiry); NULL when nobody listens (the AOF's propagation,
     * commands/propagate.h). */
    void (*on_expire)(struct db *db, const char *key, size_t len);
    uint32_t lru_clock;
    /* Key-modified signals since start: with stats.dirty, how command
     * propagation tells that a command wrote (commands/propagate.h). */
    unsigned long long modified_signals;
    /* CLIENT PAUSE holds the data set still: an expired key reads as
     * missing but is not deleted (db_expire_kv does nothing), and neither
     * active expiry nor eviction runs, as Redis 7.0. */
    bool expire_paused;
    /* DEBUG SET-ACTIVE-EXPIRE 0: the active expiry cycle does not run
     * (lazy expiry still does), as Redis's active_expire_enabled. */
    bool active_expire_disabled;
    /* This server is a replica (repl/): keys expire only by the master's
     * DEL. An expired key reads as missing to clients but is not deleted;
     * to the master's own commands (master_applying) it is still there, as
     * Redis's expireIfNeeded on a replica. Neither active expiry nor
     * eviction runs (replica-ignore-maxmemory). */
    bool replica;
    bool master_applying;
    /* True while db_expire_kv deletes a key: the change is no client's
     * (CLIENT TRACKING NOLOOP still invalidates it, as Redis). */
    bool expiring;
};

extern struct keyspace keyspace;

void keyspace_init(int databases);
void keyspace_release(void);

static inline void keyspace_begin_command(void)
{
    keyspace.now_ms = 0;
}

int64_t keyspace_now_ms_slow(void);

static inline int64_t keyspace_now_ms(void)
{
    return keyspace.now_ms ? keyspace.now_ms : keyspace_now_ms_slow();
}

/* Refreshes the LRU clock (seconds); called from cron. */
void keyspace_update_lru_clock(void);

static inline struct db *keyspace_db(int id)
{
    return &keyspace.dbs[id];
}

/* --- lookup ---------------------------------------------------------- */

/* Read lookup: expired keys are deleted first; counts a hit or a miss. */
struct kv *db_lookup_read(struct db *db, const char *key, size_t len);

/* Read lookup that counts a hit or a miss but leaves the key's LRU/LFU
 * stamp alone (Redis's LOOKUP_NOTOUCH: EXISTS). */
struct kv *db_lookup_read_notouch(struct db *db, const char *key, size_t len);

/* Write lookup: like read, without hit/miss accounting. */
struct kv *db_lookup_write(struct db *db, const char *key, size_t len);

/* Lookup that touches nothing (no LRU update, no stats) but still honours
 * expiry (EXISTS/TOUCH-like introspection use db_lookup_read). */
struct kv *db_lookup_quiet(struct db *db, const char *key, size_t len);

/* The kv under key even if its TTL has passed: nothing is expired, touched
 * or counted (Redis's dictFind on the keyspace, as scanDatabaseForReadyKeys
 * does; the waiter served later expires it in a unit of its own). */
struct kv *db_peek(struct db *db, const char *key, size_t len);

/* --- writes ---------------------------------------------------------- */

/* Adds a kv whose key is absent. */
void db_add(struct db *db, struct kv *kv);

/* Puts `fresh` in place of the existing kv with the same key (its TTL is
 * dropped unless keep_ttl, in which case fresh inherits it). Frees old. */
void db_replace(struct db *db, struct kv *old, struct kv *fresh, bool keep_ttl);

/* Stores a string under key: overwrites in place when the size allows,
 * creates otherwise. TTL is cleared unless keep_ttl. Returns the kv. */
struct kv *db_set_string(struct db *db, const char *key, size_t key_len, const char *val,
                         size_t val_len, enum kv_string_hint hint, bool keep_ttl);

/* db_set_string for a caller that already looked the key up: `kv` is the
 * live kv of a write lookup of key, or NULL when the key is absent. */
struct kv *db_store_string(struct db *db, struct kv *kv, const char *key, size_t key_len,
                           const char *val, size_t val_len, enum kv_string_hint hint,
                           bool keep_ttl);

/* db_store_string for a value already in its own buffer (a big argument
 * the connection received into a strbuf): the new kv adopts sb as its raw
 * value without copying it. Same preconditions on sb as
 * kv_new_string_adopt(). */
struct kv *db_store_string_adopt(struct db *db, struct kv *kv, const char *key, size_t key_len,
                                 struct strbuf *sb, bool keep_ttl);

/* Stores an integer string (INCR family) keeping the TTL; `kv` as for
 * db_store_string. An int- or raw-encoded kv is rewritten in place, so the
 * steady state of a counter allocates nothing. Returns the kv. */
struct kv *db_store_int(struct db *db, struct kv *kv, const char *key, size_t key_len,
                        long long value);

/* THE "key modified" signal (Redis's signalModifiedKey): every change to
 * key in db reaches this one call. The db write functions below call it for
 * their key; so do db_note_modified() / db_note_key_changes(), which a
 * command that changes a value in place calls once after its change (see
 * store/watch.h). With nothing WATCHed in db it costs one branch. */
/* CLIENT TRACKING's invalidation (connection/conn_tracking.c), NULL while
 * no client tracks and no key is remembered. */
extern void (*keyspace_tracking_hook)(struct db *db, const char *key, size_t len);

static inline void db_signal_modified_key(struct db *db, const char *key, size_t len)
{
    keyspace.modified_signals++;
    if (dict_size(&db->watched)) watch_touch_key(db, key, len);
    if (keyspace_tracking_hook) keyspace_tracking_hook(db, key, len);
}

/* Records `changes` writes to key (the dirty counter) and, when there was
 * any, signals key modified: for a command that changed a value in place
 * (HSET into an existing hash, ZREM...), called once after its changes —
 * also when its last element went and the kv was deleted (key is then the
 * caller's argument, not the freed kv's). */
static inline void db_note_key_changes(struct db *db, const char *key, size_t len,
                                       long long changes)
{
    if (changes <= 0) return;
    keyspace.stats.dirty += changes;
    db_signal_modified_key(db, key, len);
}

/* Records that kv's value was changed in place (APPEND, SETRANGE). */
static inline void db_note_modified(struct db *db, struct kv *kv)
{
    db_note_key_changes(db, kv->key, kv->key_len, 1);
}

/* Deletes key; returns true if it existed (and was not expired). */
bool db_delete(struct db *db, const char *key, size_t len);

/* Deletes a kv found by lookup. */
void db_delete_kv(struct db *db, struct kv *kv);

/* Deletes a kv whose TTL has passed: counts it and tells keyspace.on_expire
 * (nothing while keyspace.expire_paused: the key stays, reading as missing). */
void db_expire_kv(struct db *db, struct kv *kv);

/* Evicts a kv (maxmemory, store/evict.c): deletes it as db_delete_kv()
 * does (so WATCH sees it) and announces it once, counted in evicted_keys.
 * The announcement is the one "evicted" hook: keyspace notifications
 * ("evicted", class 'e') are raised there, with the key still readable. */
void db_evict_kv(struct db *db, struct kv *kv);

/* Removes kv from db without freeing it (RENAME, MOVE). */
void db_unlink_kv(struct db *db, struct kv *kv);

/* RENAME: gives the live kv the name `key`, which must be absent from db
 * (the caller deletes an existing destination first). The value of any type
 * and the TTL move with it; kv itself is freed. Returns the renamed kv. */
struct kv *db_rename(struct db *db, struct kv *kv, const char *key, size_t key_len);

/* MOVE: transfers the live kv, with its TTL, from src to dst, where its key
 * must be absent. */
void db_move(struct db *src, struct db *dst, struct kv *kv);

/* Empties one database / every database; returns keys removed. */
long long db_flush(struct db *db);
long long keyspace_flush_all(void);

/* Exchanges the contents of two databases (SWAPDB). */
void keyspace_swap(int a, int b);

/* A detached set of keyspace.count empty databases, which no client
 * sees: a replica's repl-diskless-load swapdb loads the master's RDB into
 * one while its clients keep reading the live data set. */
struct db *keyspace_detached_create(void);
/* Frees a detached set and every key in it (NULL: nothing). */
void keyspace_detached_free(struct db *dbs);
/* Exchanges the keys and TTLs of every live database with dbs' (Redis's
 * swapMainDbWithTempDb): WATCHers of a key that differs are dirtied and
 * blocked clients re-check; watches and ids stay with the live ones. */
void keyspace_swap_detached(struct db *dbs);

/* --- TTL ------------------------------------------------------------- */

/* Sets an absolute expiry (ms since epoch); when already in the past the key
 * is deleted and false is returned. */
bool db_set_expire(struct db *db, struct kv *kv, int64_t when_ms);

/* Removes the TTL; returns true if there was one. */
bool db_persist(struct db *db, struct kv *kv);

static inline bool kv_is_expired(const struct kv *kv)
{
    return kv->expire_ms != 0 && kv->expire_ms <= keyspace_now_ms();
}

/* One active-expiry pass over db for at most budget_us; returns keys expired. */
long long db_active_expire(struct db *db, long long budget_us);

/* --- iteration ------------------------------------------------------- */

static inline struct kv *kv_of_node(struct dict_node *n)
{
    return (struct kv *)n; /* node is the first member of struct kv */
}

/* A uniformly random kv of db (with_ttl: of those with a TTL), expired or
 * not, or NULL when there is none: eviction's sampling. */
struct kv *db_sample_kv(struct db *db, bool with_ttl);

/* A random live key, or NULL (RANDOMKEY). */
struct kv *db_random_key(struct db *db);

typedef void db_visit_fn(struct kv *kv, void *arg);

/* One SCAN step over db's keys from cursor (dict_scan's guarantee); visits
 * keys as stored, expired ones included. fn must not modify db. Returns the
 * next cursor, 0 when the scan is complete. */
unsigned long long db_scan(struct db *db, unsigned long long cursor, db_visit_fn *fn, void *arg);

/* Visits every key as stored, expired ones included (KEYS). fn must not
 * modify db. */
void db_foreach_key(struct db *db, db_visit_fn *fn, void *arg);

/* Hash of key bytes as the keyspace computes it. */
uint64_t db_hash_key(const char *key, size_t len);

/* The databases setting (core/config.h). */
struct config_table;
extern const struct config_table db_config;

#endif
