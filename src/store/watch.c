/* watch.c — the WATCH registry; contracts in watch.h. */
#include "store/watch.h"

#include <string.h>

#include "store/db.h"
#include "util/hash.h"
#include "util/xmalloc.h"

/* One watched key of one database: the node of db->watched. */
struct watched_entry {
    struct dict_node node;
    struct watch *first; /* its watches (list through prev/next_in_key) */
    size_t key_len;
    char key[];
};

struct watch {
    struct watched_entry *entry;
    struct db *db;
    struct watcher *watcher;
    struct watch *prev_in_key, *next_in_key;
    struct watch *next_of_watcher;
    bool expired_at_watch; /* the key was logically expired when watched */
};

static uint64_t entry_hash(const struct dict_node *n)
{
    const struct watched_entry *e = (const struct watched_entry *)n;
    return hash_bytes(e->key, e->key_len);
}

static bool entry_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct watched_entry *e = (const struct watched_entry *)n;
    return e->key_len == len && memcmp(e->key, key, len) == 0;
}

static const struct dict_type watched_type = {entry_hash, entry_has_key};

void watch_db_init(struct db *db)
{
    dict_init(&db->watched, &watched_type);
}

size_t watch_db_key_count(const struct db *db)
{
    return dict_size(&db->watched);
}

/* The kv stored under key, expired or not (no lazy deletion: the registry
 * must not change the keyspace it observes). */
static struct kv *raw_find(struct db *db, const char *key, size_t len)
{
    struct dict_node *n = dict_find(&db->keys, key, len, hash_bytes(key, len));
    return n ? kv_of_node(n) : NULL;
}

static bool raw_exists_expired(struct db *db, const char *key, size_t len)
{
    struct kv *kv = raw_find(db, key, len);
    return kv && kv_is_expired(kv);
}

void watch_key(struct watcher *w, struct db *db, const char *key, size_t len)
{
    uint64_t h = hash_bytes(key, len);
    struct watched_entry *e = (struct watched_entry *)dict_find(&db->watched, key, len, h);
    if (e) {
        for (struct watch *x = e->first; x; x = x->next_in_key)
            if (x->watcher == w) return;
    } else {
        e = xmalloc(sizeof *e + len);
        e->first = NULL;
        e->key_len = len;
        memcpy(e->key, key, len);
        dict_insert(&db->watched, &e->node, h);
    }
    struct watch *x = xmalloc(sizeof *x);
    *x = (struct watch){
        .entry = e,
        .db = db,
        .watcher = w,
        .next_in_key = e->first,
        .next_of_watcher = w->watches,
        .expired_at_watch = raw_exists_expired(db, key, len),
    };
    if (e->first) e->first->prev_in_key = x;
    e->first = x;
    w->watches = x;
    w->count++;
}

void watch_clear(struct watcher *w)
{
    struct watch *x = w->watches;
    while (x) {
        struct watch *next = x->next_of_watcher;
        struct watched_entry *e = x->entry;
        if (x->prev_in_key)
            x->prev_in_key->next_in_key = x->next_in_key;
        else
            e->first = x->next_in_key;
        if (x->next_in_key) x->next_in_key->prev_in_key = x->prev_in_key;
        if (!e->first) {
            dict_remove(&x->db->watched, e->key, e->key_len, hash_bytes(e->key, e->key_len));
            xfree(e);
        }
        xfree(x);
        x = next;
    }
    w->watches = NULL;
    w->count = 0;
    w->dirty = false;
}

bool watch_any_expired(const struct watcher *w)
{
    for (const struct watch *x = w->watches; x; x = x->next_of_watcher)
        if (!x->expired_at_watch && raw_exists_expired(x->db, x->entry->key, x->entry->key_len))
            return true;
    return false;
}

void watch_touch_key(struct db *db, const char *key, size_t len)
{
    struct watched_entry *e =
        (struct watched_entry *)dict_find(&db->watched, key, len, hash_bytes(key, len));
    if (!e) return;
    for (struct watch *x = e->first; x; x = x->next_in_key) {
        if (x->expired_at_watch) {
            /* Deleting a key that was already expired when watched changes
             * nothing logically (Redis 7.0); from now on it is just absent. */
            if (!raw_find(db, key, len)) {
                x->expired_at_watch = false;
                continue;
            }
        }
        x->watcher->dirty = true;
    }
}

struct touch_db {
    struct db *emptied, *replaced_with;
};

/* Redis 7.0's touchAllWatchedKeysInDb, expired-key cases included. */
static bool touch_db_entry(struct dict_node *n, void *arg)
{
    struct touch_db *t = arg;
    struct watched_entry *e = (struct watched_entry *)n;
    bool in_emptied = raw_find(t->emptied, e->key, e->key_len) != NULL;
    struct kv *replacement =
        t->replaced_with ? raw_find(t->replaced_with, e->key, e->key_len) : NULL;
    if (!in_emptied && !replacement) return true;
    bool replacement_expired = replacement && kv_is_expired(replacement);
    for (struct watch *x = e->first; x; x = x->next_in_key) {
        if (x->expired_at_watch) {
            if (!replacement) {
                x->expired_at_watch = false; /* an expired key deleted: no change */
                continue;
            }
            if (replacement_expired) continue; /* still expired */
        } else if (!in_emptied && replacement_expired) {
            x->expired_at_watch = true; /* absent key replaced by an expired one */
            continue;
        }
        x->watcher->dirty = true;
    }
    return true;
}

void watch_touch_db(struct db *emptied, struct db *replaced_with)
{
    if (dict_size(&emptied->watched) == 0) return;
    struct touch_db t = {emptied, replaced_with};
    dict_foreach(&emptied->watched, touch_db_entry, &t);
}
