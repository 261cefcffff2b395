/* db.c — the keyspace; contracts in db.h. */
#include "store/db.h"
#include "core/config.h"

#include "store/blocking.h"
#include "store/stream.h"
#include "store/notify.h"

#include <limits.h>
#include <string.h>

#include "store/blocking.h"
#include "store/evict.h"

#include "util/clock.h"
#include "util/hash.h"
#include "util/rand.h"
#include "util/xmalloc.h"

struct keyspace keyspace;

/* The expires dict holds one of these per key with a TTL. The expiry time
 * itself lives in the kv (so a read checks it without a second lookup). */
struct expire_entry {
    struct dict_node node;
    struct kv *kv;
};

static uint64_t kv_node_hash(const struct dict_node *n)
{
    const struct kv *kv = (const struct kv *)n;
    return hash_bytes(kv->key, kv->key_len);
}

static bool kv_node_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct kv *kv = (const struct kv *)n;
    return kv->key_len == len && memcmp(kv->key, key, len) == 0;
}

static uint64_t expire_node_hash(const struct dict_node *n)
{
    const struct expire_entry *e = (const struct expire_entry *)n;
    return hash_bytes(e->kv->key, e->kv->key_len);
}

static bool expire_node_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct kv *kv = ((const struct expire_entry *)n)->kv;
    return kv->key_len == len && memcmp(kv->key, key, len) == 0;
}

static const struct dict_type keys_type = {kv_node_hash, kv_node_has_key};
static const struct dict_type expires_type = {expire_node_hash, expire_node_has_key};

uint64_t db_hash_key(const char *key, size_t len)
{
    return hash_bytes(key, len);
}

void keyspace_init(int databases)
{
    keyspace.dbs = xcalloc((size_t)databases, sizeof(struct db));
    keyspace.count = databases;
    for (int i = 0; i < databases; i++) {
        dict_init(&keyspace.dbs[i].keys, &keys_type);
        dict_init(&keyspace.dbs[i].expires, &expires_type);
        watch_db_init(&keyspace.dbs[i]);
        keyspace.dbs[i].id = i;
    }
    keyspace_update_lru_clock();
}

void keyspace_release(void)
{
    keyspace_flush_all();
    stream_lazy_free_all();
    xfree(keyspace.dbs);
    keyspace.dbs = NULL;
    keyspace.count = 0;
}

int64_t keyspace_now_ms_slow(void)
{
    keyspace.now_ms = clock_unix_ms();
    return keyspace.now_ms;
}

void keyspace_update_lru_clock(void)
{
    keyspace.lru_clock = (uint32_t)(clock_mono_us() / 1000000) & 0xFFFFFF;
}

/* --- TTL bookkeeping --------------------------------------------------- */

static void expires_forget(struct db *db, struct kv *kv)
{
    struct dict_node *n =
        dict_remove(&db->expires, kv->key, kv->key_len, hash_bytes(kv->key, kv->key_len));
    xfree(n);
}

/* After a kv was reallocated (same key), points its expire entry at it. */
static void expires_repoint(struct db *db, struct kv *kv)
{
    struct dict_node *n =
        dict_find(&db->expires, kv->key, kv->key_len, hash_bytes(kv->key, kv->key_len));
    if (n) ((struct expire_entry *)n)->kv = kv;
}

bool db_set_expire(struct db *db, struct kv *kv, int64_t when_ms)
{
    /* A time already past deletes the key, except on a replica: the
     * master's DEL does (Redis's checkAlreadyExpired). */
    if (when_ms <= keyspace_now_ms() && !keyspace.replica) {
        db_delete_kv(db, kv);
        return false;
    }
    if (kv->expire_ms == 0) {
        struct expire_entry *e = xmalloc(sizeof *e);
        e->kv = kv;
        dict_insert(&db->expires, &e->node, hash_bytes(kv->key, kv->key_len));
    }
    kv->expire_ms = when_ms;
    db_signal_modified_key(db, kv->key, kv->key_len);
    return true;
}

bool db_persist(struct db *db, struct kv *kv)
{
    if (kv->expire_ms == 0) return false;
    expires_forget(db, kv);
    kv->expire_ms = 0;
    db_signal_modified_key(db, kv->key, kv->key_len);
    keyspace.stats.dirty++; /* PERSIST, GETEX PERSIST: a change, as in Redis */
    return true;
}

void (*keyspace_tracking_hook)(struct db *db, const char *key, size_t len);

void db_expire_kv(struct db *db, struct kv *kv)
{
    if (keyspace.expire_paused || keyspace.replica) return;
    notify_keyspace_event(NOTIFY_EXPIRED, "expired", kv->key, kv->key_len, db->id);
    if (keyspace.on_expire) keyspace.on_expire(db, kv->key, kv->key_len);
    /* Not the running command's write: the expiry propagates as a DEL of
     * its own (on_expire), so the command's change detection skips it. */
    unsigned long long signals = keyspace.modified_signals;
    keyspace.expiring = true;
    db_delete_kv(db, kv);
    keyspace.expiring = false;
    keyspace.modified_signals = signals;
    keyspace.stats.expired_keys++;
}

/* --- lookup ------------------------------------------------------------ */

static struct kv *db_find_live(struct db *db, const char *key, size_t len)
{
    struct dict_node *n = dict_find(&db->keys, key, len, hash_bytes(key, len));
    if (!n) return NULL;
    struct kv *kv = kv_of_node(n);
    if (kv->expire_ms && kv_is_expired(kv)) {
        if (keyspace.master_applying) return kv; /* a replica: the master decides */
        db_expire_kv(db, kv);
        return NULL;
    }
    return kv;
}

struct kv *db_lookup_read_notouch(struct db *db, const char *key, size_t len)
{
    struct kv *kv = db_find_live(db, key, len);
    if (kv)
        keyspace.stats.hits++;
    else
        keyspace.stats.misses++;
    return kv;
}

struct kv *db_lookup_read(struct db *db, const char *key, size_t len)
{
    struct kv *kv = db_lookup_read_notouch(db, key, len);
    if (kv) evict_touch(kv);
    return kv;
}

struct kv *db_lookup_write(struct db *db, const char *key, size_t len)
{
    struct kv *kv = db_find_live(db, key, len);
    if (kv) evict_touch(kv);
    return kv;
}

struct kv *db_lookup_quiet(struct db *db, const char *key, size_t len)
{
    return db_find_live(db, key, len);
}

struct kv *db_peek(struct db *db, const char *key, size_t len)
{
    struct dict_node *n = dict_find(&db->keys, key, len, hash_bytes(key, len));
    return n ? kv_of_node(n) : NULL;
}

/* --- writes ------------------------------------------------------------ */

void db_add(struct db *db, struct kv *kv)
{
    /* kv->lru was stamped at creation (kv.c) or came with a renamed kv. */
    dict_insert(&db->keys, &kv->node, hash_bytes(kv->key, kv->key_len));
    if (kv->expire_ms) {
        /* A kv moved in with its TTL (RENAME, MOVE). */
        int64_t when = kv->expire_ms;
        kv->expire_ms = 0;
        db_set_expire(db, kv, when);
    }
    blocking_signal_key(db->id, kv);
    db_signal_modified_key(db, kv->key, kv->key_len);
    notify_keyspace_event(NOTIFY_NEW, "new", kv->key, kv->key_len, db->id);
}

void db_replace(struct db *db, struct kv *old, struct kv *fresh, bool keep_ttl)
{
    struct dict_node **link =
        dict_find_link(&db->keys, old->key, old->key_len, hash_bytes(old->key, old->key_len));
    dict_replace_link(link, &fresh->node);
    evict_inherit(fresh, old);
    if (old->expire_ms) {
        if (keep_ttl) {
            fresh->expire_ms = old->expire_ms;
            expires_repoint(db, fresh);
        } else {
            expires_forget(db, old);
            fresh->expire_ms = 0;
        }
    }
    db_signal_modified_key(db, fresh->key, fresh->key_len);
    blocking_signal_removed(db->id, old);
    kv_free(old);
    blocking_signal_key(db->id, fresh);
}

struct kv *db_set_string(struct db *db, const char *key, size_t key_len, const char *val,
                         size_t val_len, enum kv_string_hint hint, bool keep_ttl)
{
    struct kv *kv = db_lookup_write(db, key, key_len);
    return db_store_string(db, kv, key, key_len, val, val_len, hint, keep_ttl);
}

struct kv *db_store_string(struct db *db, struct kv *kv, const char *key, size_t key_len,
                           const char *val, size_t val_len, enum kv_string_hint hint, bool keep_ttl)
{
    if (!kv) {
        kv = kv_new_string(key, key_len, val, val_len, hint);
        db_add(db, kv);
        keyspace.stats.dirty++;
        return kv;
    }
    if (kv_string_set_in_place(kv, val, val_len, hint)) {
        if (!keep_ttl) db_persist(db, kv);
        db_note_modified(db, kv);
        return kv;
    }
    struct kv *fresh = kv_new_string(key, key_len, val, val_len, hint);
    db_replace(db, kv, fresh, keep_ttl);
    keyspace.stats.dirty++;
    return fresh;
}

struct kv *db_store_string_adopt(struct db *db, struct kv *kv, const char *key, size_t key_len,
                                 struct strbuf *sb, bool keep_ttl)
{
    if (sb->len > KV_EMBSTR_MAX) keyspace.stats.values_adopted++;
    struct kv *fresh = kv_new_string_adopt(key, key_len, sb);
    if (kv)
        db_replace(db, kv, fresh, keep_ttl);
    else
        db_add(db, fresh);
    keyspace.stats.dirty++;
    return fresh;
}

struct kv *db_store_int(struct db *db, struct kv *kv, const char *key, size_t key_len,
                        long long value)
{
    if (!kv) {
        kv = kv_new_int(key, key_len, value);
        db_add(db, kv);
        keyspace.stats.dirty++;
        return kv;
    }
    if (kv_string_set_int_in_place(kv, value)) {
        db_note_modified(db, kv);
        return kv;
    }
    struct kv *fresh = kv_new_int(key, key_len, value);
    db_replace(db, kv, fresh, true);
    keyspace.stats.dirty++;
    return fresh;
}

void db_unlink_kv(struct db *db, struct kv *kv)
{
    if (kv->expire_ms) expires_forget(db, kv);
    dict_remove(&db->keys, kv->key, kv->key_len, hash_bytes(kv->key, kv->key_len));
    db_signal_modified_key(db, kv->key, kv->key_len); /* after removal: watch.c checks presence */
    blocking_signal_removed(db->id, kv);
}

void db_delete_kv(struct db *db, struct kv *kv)
{
    db_unlink_kv(db, kv);
    kv_free(kv);
}

/* The "evicted" announcement (db.h): one per evicted key, after its
 * removal, before it is freed. */
static void db_announce_evicted(struct db *db, const struct kv *kv)
{
    keyspace.stats.evicted_keys++;
    notify_keyspace_event(NOTIFY_EVICTED, "evicted", kv->key, kv->key_len, db->id);
    /* The append-only file records an eviction as a deletion, as an expiry. */
    if (keyspace.on_expire) keyspace.on_expire(db, kv->key, kv->key_len);
}

void db_evict_kv(struct db *db, struct kv *kv)
{
    db_unlink_kv(db, kv);
    db_announce_evicted(db, kv);
    kv_free(kv);
}

bool db_delete(struct db *db, const char *key, size_t len)
{
    struct kv *kv = db_lookup_write(db, key, len);
    if (!kv) return false;
    db_delete_kv(db, kv);
    return true;
}

struct kv *db_rename(struct db *db, struct kv *kv, const char *key, size_t key_len)
{
    db_unlink_kv(db, kv);
    /* kv_rekey carries expire_ms; db_add re-registers it under the new key. */
    struct kv *renamed = kv_rekey(kv, key, key_len);
    db_add(db, renamed);
    keyspace.stats.dirty++;
    return renamed;
}

void db_move(struct db *src, struct db *dst, struct kv *kv)
{
    db_unlink_kv(src, kv);
    db_add(dst, kv);
    keyspace.stats.dirty++;
}

static void free_kv_node(struct dict_node *n, void *arg)
{
    (void)arg;
    kv_free(kv_of_node(n));
}

static void free_expire_node(struct dict_node *n, void *arg)
{
    (void)arg;
    xfree(n);
}

long long db_flush(struct db *db)
{
    long long removed = (long long)dict_size(&db->keys);
    watch_touch_db(db, NULL);
    blocking_signal_db_streams(db->id);
    dict_release(&db->expires, free_expire_node, NULL);
    dict_release(&db->keys, free_kv_node, NULL);
    db->expire_cursor = 0;
    db->avg_ttl_ms = 0;
    keyspace.stats.dirty += removed;
    return removed;
}

long long keyspace_flush_all(void)
{
    long long removed = 0;
    for (int i = 0; i < keyspace.count; i++) removed += db_flush(&keyspace.dbs[i]);
    return removed;
}

void keyspace_swap(int a, int b)
{
    struct db *x = &keyspace.dbs[a], *y = &keyspace.dbs[b];
    blocking_signal_db_streams(a);
    blocking_signal_db_streams(b);
    watch_touch_db(x, y);
    watch_touch_db(y, x);
    struct db tmp = *x;
    *x = *y;
    *y = tmp;
    x->id = a;
    y->id = b;
    blocking_signal_db(a);
    blocking_signal_db(b);
    /* Watches stay with the database index, as clients stay in theirs. */
    struct dict watched = x->watched;
    x->watched = y->watched;
    y->watched = watched;
}

/* --- detached databases (db.h) ---------------------------------------- */

struct db *keyspace_detached_create(void)
{
    struct db *dbs = xcalloc((size_t)keyspace.count, sizeof(struct db));
    for (int i = 0; i < keyspace.count; i++) {
        dict_init(&dbs[i].keys, &keys_type);
        dict_init(&dbs[i].expires, &expires_type);
        watch_db_init(&dbs[i]); /* stays empty: nobody watches a detached set */
        dbs[i].id = i;
    }
    return dbs;
}

void keyspace_detached_free(struct db *dbs)
{
    if (!dbs) return;
    for (int i = 0; i < keyspace.count; i++) {
        dict_release(&dbs[i].expires, free_expire_node, NULL);
        dict_release(&dbs[i].keys, free_kv_node, NULL);
        dict_release(&dbs[i].watched, NULL, NULL);
    }
    xfree(dbs);
}

void keyspace_swap_detached(struct db *dbs)
{
    for (int i = 0; i < keyspace.count; i++) {
        struct db *live = &keyspace.dbs[i], *other = &dbs[i];
        blocking_signal_db_streams(i);
        watch_touch_db(live, other);
        struct db tmp = *live;
        live->keys = other->keys;
        live->expires = other->expires;
        live->expire_cursor = 0;
        live->avg_ttl_ms = other->avg_ttl_ms;
        other->keys = tmp.keys;
        other->expires = tmp.expires;
        other->expire_cursor = 0;
        other->avg_ttl_ms = tmp.avg_ttl_ms;
        blocking_signal_db(i);
    }
}

/* --- active expiry ----------------------------------------------------- */

#define EXPIRE_BATCH_MAX 64

struct expire_scan {
    struct kv *found[EXPIRE_BATCH_MAX];
    int nfound;
    int sampled;
    int64_t now_ms;
    long long ttl_sum_ms;
    int ttl_samples;
};

static void expire_scan_visit(struct dict_node *n, void *arg)
{
    struct expire_scan *s = arg;
    struct kv *kv = ((struct expire_entry *)n)->kv;
    s->sampled++;
    if (kv->expire_ms <= s->now_ms) {
        if (s->nfound < EXPIRE_BATCH_MAX) s->found[s->nfound++] = kv;
    } else {
        /* Saturate: TTLs reach years (PXAT up to LLONG_MAX), and two of
         * them would overflow the sum of an estimate that only feeds INFO. */
        long long ttl = kv->expire_ms - s->now_ms;
        s->ttl_sum_ms = ttl > LLONG_MAX - s->ttl_sum_ms ? LLONG_MAX : s->ttl_sum_ms + ttl;
        s->ttl_samples++;
    }
}

long long db_active_expire(struct db *db, long long budget_us)
{
    if (dict_size(&db->expires) == 0) return 0;
    long long expired = 0;
    int64_t deadline = clock_mono_us() + budget_us;
    int64_t now_ms = keyspace_now_ms();
    for (;;) {
        struct expire_scan scan = {.now_ms = now_ms};
        /* Sample about twenty entries, as Redis's cycle does per round. */
        do {
            db->expire_cursor =
                dict_scan(&db->expires, db->expire_cursor, expire_scan_visit, &scan);
        } while (db->expire_cursor != 0 && scan.sampled < 20 && scan.nfound < EXPIRE_BATCH_MAX / 2);
        for (int i = 0; i < scan.nfound; i++) {
            db_expire_kv(db, scan.found[i]);
        }
        expired += scan.nfound;
        if (scan.ttl_samples) {
            long long avg = scan.ttl_sum_ms / scan.ttl_samples;
            db->avg_ttl_ms = db->avg_ttl_ms ? (db->avg_ttl_ms / 50) * 49 + avg / 50 : avg;
        }
        /* Keep going only while a round still finds plenty (> 10%) expired. */
        if (scan.sampled == 0 || scan.nfound * 10 <= scan.sampled) break;
        if (db->expire_cursor == 0 || clock_mono_us() >= deadline) break;
    }
    dict_shrink_if_sparse(&db->keys);
    return expired;
}

/* --- random ------------------------------------------------------------ */

struct kv *db_sample_kv(struct db *db, bool with_ttl)
{
    if (!with_ttl) {
        struct dict_node *n = dict_random_node(&db->keys, rand_u64);
        return n ? kv_of_node(n) : NULL;
    }
    struct dict_node *n = dict_random_node(&db->expires, rand_u64);
    return n ? ((struct expire_entry *)n)->kv : NULL;
}

struct kv *db_random_key(struct db *db)
{
    /* Expired keys are deleted as they are drawn; bound the tries so a db
     * full of expired keys cannot spin here (Redis does the same). */
    for (int tries = 0; tries < 100 && dict_size(&db->keys); tries++) {
        struct kv *kv = kv_of_node(dict_random_node(&db->keys, rand_u64));
        if (!kv->expire_ms || !kv_is_expired(kv)) return kv;
        db_expire_kv(db, kv);
    }
    return NULL;
}

/* --- iteration --------------------------------------------------------- */

struct visit {
    db_visit_fn *fn;
    void *arg;
};

static void visit_scanned(struct dict_node *n, void *arg)
{
    struct visit *v = arg;
    v->fn(kv_of_node(n), v->arg);
}

unsigned long long db_scan(struct db *db, unsigned long long cursor, db_visit_fn *fn, void *arg)
{
    struct visit v = {fn, arg};
    return dict_scan(&db->keys, cursor, visit_scanned, &v);
}

static bool visit_each(struct dict_node *n, void *arg)
{
    struct visit *v = arg;
    v->fn(kv_of_node(n), v->arg);
    return true;
}

void db_foreach_key(struct db *db, db_visit_fn *fn, void *arg)
{
    struct visit v = {fn, arg};
    dict_foreach(&db->keys, visit_each, &v);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param db_params[] = {
    {.name = "databases",
     .kind = CFG_INT,
     .value = &config.databases,
     .min = 1,
     .max = INT_MAX,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "N",
     .help = "number of databases (default 16)"},
};

const struct config_table db_config = CONFIG_TABLE(db_params, NULL);
