/*
 * watch.h — WATCH: which watcher watches which key of which database, and
 * the "key modified" signal that makes a watcher dirty.
 *
 * The registry knows nothing of connections: a watcher is a struct watcher
 * embedded in its owner (a client's transaction state, commands/multi.h).
 * The owner asks whether it became dirty at EXEC; nothing calls back.
 *
 * The signal. Every change to a key reaches watch_touch_key() through ONE
 * store call, db_signal_modified_key() (store/db.h), which the db write
 * functions (db_add, db_replace, db_store_*, db_unlink_kv and so every
 * delete, rename, move and expiry, db_set_expire, db_persist) and
 * db_note_modified() / db_note_key_changes() call for their key. A command
 * that changes a value in place (HSET into an existing hash, LPUSH onto a
 * list, SADD, SETBIT...) must call db_note_modified() or
 * db_note_key_changes() once after its change; a command that only goes
 * through the db write functions gets the signal for free. FLUSHDB/FLUSHALL
 * and SWAPDB touch whole databases (watch_touch_db()).
 *
 * Cost: with nothing watched in a database the signal is one branch on the
 * size of that database's registry; otherwise one hash lookup of the key.
 *
 * Redis 7.0 semantics kept here: a key that was already logically expired
 * when WATCHed is not "modified" by its deletion (expiry or lazy delete), and
 * EXEC fails when a watched key that was alive at WATCH time has expired
 * since, even if nothing deleted it yet (watch_any_expired()).
 */
#ifndef GOBLIN_WATCH_H
#define GOBLIN_WATCH_H

#include <stdbool.h>
#include <stddef.h>

struct db;
struct watch; /* one (watcher, db, key): internal to watch.c */

struct watcher {
    struct watch *watches; /* this watcher's keys, newest first */
    size_t count;
    bool dirty; /* a watched key changed since it was watched */
};

/* Registry of one database (called from keyspace_init / release). */
void watch_db_init(struct db *db);

/* Watches key of db (a key already watched by w in db is not added twice). */
void watch_key(struct watcher *w, struct db *db, const char *key, size_t len);

/* Forgets every key w watches and clears its dirty flag (UNWATCH, EXEC,
 * DISCARD, RESET, and before the owner is freed). */
void watch_clear(struct watcher *w);

/* EXEC's check: a key alive when watched has logically expired since. */
bool watch_any_expired(const struct watcher *w);

/* The slow path of db_signal_modified_key(): marks every watcher of key in
 * db dirty. */
void watch_touch_key(struct db *db, const char *key, size_t len);

/* FLUSHDB / FLUSHALL (replaced_with NULL, called before emptying) and
 * SWAPDB (called for each side before swapping): marks dirty the watchers
 * of every key of `emptied` that exists there or in `replaced_with`. */
void watch_touch_db(struct db *emptied, struct db *replaced_with);

/* Keys watched in db by anyone (0: the signal costs one branch). */
size_t watch_db_key_count(const struct db *db);

#endif
