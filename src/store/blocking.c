/* blocking.c — registry of clients blocked on keys; see blocking.h. */
#include "store/blocking.h"

#include <string.h>

#include "store/db.h"
#include "util/hash.h"
#include "util/xmalloc.h"

struct waiting_key {
    struct dict_node node;
    struct block_link *first, *last;
    struct waiting_key *ready_next;
    bool ready;
    int db;
    uint32_t key_len;
    char key[];
};

size_t blocking_waited_keys;

static struct dict waiting;
static bool waiting_init;
static struct waiting_key *ready_head, *ready_tail;

/* The dict's key is the database id followed by the key bytes. */
static uint64_t wk_hash(int db, const char *key, size_t len)
{
    return hash_bytes(key, len) ^ ((uint64_t)db * 0x9E3779B97F4A7C15ULL);
}

static uint64_t wk_node_hash(const struct dict_node *n)
{
    const struct waiting_key *wk = (const struct waiting_key *)n;
    return wk_hash(wk->db, wk->key, wk->key_len);
}

struct wk_lookup {
    int db;
    const char *key;
};

static bool wk_node_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct waiting_key *wk = (const struct waiting_key *)n;
    const struct wk_lookup *k = key;
    return wk->db == k->db && wk->key_len == len && memcmp(wk->key, k->key, len) == 0;
}

static const struct dict_type wk_dict_type = {wk_node_hash, wk_node_has_key};

static struct waiting_key *wk_find(int db, const char *key, size_t len)
{
    if (!waiting_init) return NULL;
    struct wk_lookup k = {db, key};
    return (struct waiting_key *)dict_find(&waiting, &k, len, wk_hash(db, key, len));
}

static void wk_free_if_unused(struct waiting_key *wk)
{
    if (wk->first || wk->ready) return;
    struct wk_lookup k = {wk->db, wk->key};
    dict_remove(&waiting, &k, wk->key_len, wk_hash(wk->db, wk->key, wk->key_len));
    blocking_waited_keys--;
    xfree(wk);
}

void blocking_wait(struct block_waiter *w, int db, enum obj_type type, int nkeys,
                   const char *const *keys, const size_t *lens)
{
    if (!waiting_init) {
        dict_init(&waiting, &wk_dict_type);
        waiting_init = true;
    }
    w->type = type;
    w->links = xmalloc((size_t)nkeys * sizeof *w->links);
    w->nlinks = 0;
    for (int i = 0; i < nkeys; i++) {
        struct waiting_key *wk = wk_find(db, keys[i], lens[i]);
        if (!wk) {
            wk = xmalloc(sizeof *wk + lens[i]);
            memset(wk, 0, sizeof *wk);
            wk->db = db;
            wk->key_len = (uint32_t)lens[i];
            memcpy(wk->key, keys[i], lens[i]);
            dict_insert(&waiting, &wk->node, wk_hash(db, keys[i], lens[i]));
            blocking_waited_keys++;
        } else if (wk->last && wk->last->waiter == w) {
            continue; /* the same key twice */
        }
        struct block_link *link = &w->links[w->nlinks++];
        link->waiter = w;
        link->wk = wk;
        link->next = NULL;
        link->prev = wk->last;
        if (wk->last)
            wk->last->next = link;
        else
            wk->first = link;
        wk->last = link;
    }
}

void blocking_unwait(struct block_waiter *w)
{
    if (!w->links) return;
    for (int i = 0; i < w->nlinks; i++) {
        struct block_link *link = &w->links[i];
        struct waiting_key *wk = link->wk;
        if (link->prev)
            link->prev->next = link->next;
        else
            wk->first = link->next;
        if (link->next)
            link->next->prev = link->prev;
        else
            wk->last = link->prev;
        wk_free_if_unused(wk);
    }
    xfree(w->links);
    w->links = NULL;
    w->nlinks = 0;
}

static void mark_ready(struct waiting_key *wk)
{
    if (wk->ready) return;
    wk->ready = true;
    wk->ready_next = NULL;
    if (ready_tail)
        ready_tail->ready_next = wk;
    else
        ready_head = wk;
    ready_tail = wk;
}

void blocking_signal_key_slow(int db, const char *key, size_t len)
{
    struct waiting_key *wk = wk_find(db, key, len);
    if (wk) mark_ready(wk);
}

struct db_signal {
    int db;
    bool streams_only;
};

static bool signal_if_present(struct dict_node *n, void *arg)
{
    struct waiting_key *wk = (struct waiting_key *)n;
    const struct db_signal *sig = arg;
    if (wk->db == sig->db) {
        struct kv *kv = db_peek(keyspace_db(sig->db), wk->key, wk->key_len);
        if (kv && (kv->type == OBJ_STREAM ||
                   (!sig->streams_only && (kv->type == OBJ_LIST || kv->type == OBJ_ZSET))))
            mark_ready(wk);
    }
    return true;
}

void blocking_signal_db(int db)
{
    struct db_signal sig = {db, false};
    if (blocking_waited_keys) dict_foreach(&waiting, signal_if_present, &sig);
}

void blocking_signal_db_streams(int db)
{
    struct db_signal sig = {db, true};
    if (blocking_waited_keys) dict_foreach(&waiting, signal_if_present, &sig);
}

bool blocking_has_ready(void)
{
    return ready_head != NULL;
}

void blocking_serve_ready(void (*serve)(struct block_waiter *w, const char *key, size_t len,
                                        void *arg),
                          void *arg)
{
    while (ready_head) {
        struct waiting_key *wk = ready_head;
        ready_head = wk->ready_next;
        if (!ready_head) ready_tail = NULL;
        /* Keep wk alive while its waiters are served (they unwait). */
        struct block_link *link = wk->first;
        while (link) {
            struct kv *kv = db_lookup_quiet(keyspace_db(wk->db), wk->key, wk->key_len);
            struct block_link *next = link->next;
            enum obj_type type = link->waiter->type;
            if (type == OBJ_STREAM || (kv && kv->type == type))
                serve(link->waiter, wk->key, wk->key_len, arg);
            link = next;
        }
        wk->ready = false;
        wk_free_if_unused(wk);
    }
}
