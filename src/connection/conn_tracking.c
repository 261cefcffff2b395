/* conn_tracking.c — CLIENT TRACKING: server-assisted client-side caching,
 * Redis 7.0's tracking.c. Contract in session.h ("CLIENT TRACKING").
 *
 * Default mode: the keys a tracking client reads (read-only commands, and
 * the read-only commands a script runs for it) go into one table, key ->
 * the ids of the clients that read it, across databases as in Redis. The
 * store's "key modified" signal (db_signal_modified_key, through
 * keyspace_tracking_hook, NULL while nothing is tracked: one branch) takes
 * the key out of the table and sends each of those clients that still
 * tracks (and is not in BCAST mode, nor the modifier itself with NOLOOP)
 * one invalidation. BCAST: every modified key matching a prefix is kept
 * for the prefix and sent, sorted, to the prefix's clients when the batch
 * of commands ends (Redis: before sleeping). FLUSHDB/FLUSHALL send every
 * tracking client a null invalidation and empty the table. The table holds
 * at most tracking-table-max-keys keys: past it, random keys are
 * invalidated before the next command.
 *
 * Delivery: a RESP3 client (or its REDIRECT target in RESP3) gets a push
 * ["invalidate", keys]; a RESP2 REDIRECT target subscribed to anything gets
 * a Pub/Sub message on __redis__:invalidate; a missing REDIRECT target
 * marks the client broken_redirect (RESP3: a "tracking-redir-broken" push).
 * Invalidations go through the client's unsolicited FIFO, written after
 * its pending replies: the modifier's own invalidation follows its reply,
 * as Redis 7.0 orders it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/command_hooks.h"
#include "connection/conn.h"
#include "store/db.h"
#include "util/hash.h"
#include "util/rand.h"
#include "util/xmalloc.h"

long long session_tracking_table_max_keys = 1000000;
size_t session_tracking_clients;

struct conn_tracking {
    uint32_t flags; /* SESSION_TRACKING_* */
    uint64_t redirect;
    bool caching; /* CLIENT CACHING given for the next command */
    bool broken_redirect;
    size_t nprefixes; /* BCAST prefixes, sorted */
    char **prefixes;
    size_t *prefix_lens;
};

/* --- the table of keys read ---------------------------------------------- */

struct tracked_key {
    struct dict_node node;
    uint64_t *ids;
    uint32_t n, cap;
    size_t len;
    char key[];
};

static uint64_t tracked_hash(const struct dict_node *n)
{
    const struct tracked_key *t = (const struct tracked_key *)n;
    return hash_bytes(t->key, t->len);
}

static bool tracked_has_key(const struct dict_node *n, const void *key, size_t len)
{
    const struct tracked_key *t = (const struct tracked_key *)n;
    return t->len == len && memcmp(t->key, key, len) == 0;
}

static const struct dict_type tracked_type = {tracked_hash, tracked_has_key};
static struct dict table = {.type = &tracked_type, .rehash_index = -1};
static size_t table_items; /* client ids over all keys (INFO tracking_total_items) */

/* --- BCAST prefixes -------------------------------------------------------- */

struct pending_key {
    char *key;
    size_t len;
    uint64_t modifier; /* last client that modified it in this batch (NOLOOP); 0: none */
};

struct bcast_prefix {
    char *prefix;
    size_t len;
    struct conn **clients;
    size_t nclients, cap;
    struct pending_key *keys;
    size_t nkeys, keys_cap;
};

static struct bcast_prefix *prefixes;
static size_t nprefixes, prefixes_cap;
static bool bcast_pending;

static void invalidate_hook(struct db *db, const char *key, size_t len);

/* The store calls the hook only while something may need it. */
static void update_hook(void)
{
    keyspace_tracking_hook =
        (session_tracking_clients || dict_size(&table)) ? invalidate_hook : NULL;
}

static int compare_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

/* --- delivery -------------------------------------------------------------- */

static struct buf scratch;
/* Invalidations made before a command starts (the table limit) go before
 * its reply, as Redis's processCommand sends them; during it, after. */
static bool before_command;

static void deliver(struct conn *to, const char *p, size_t n)
{
    if (to == conn_executing && before_command)
        conn_push_before_reply(to, p, n);
    else
        conn_push_append(to, p, n);
}

/* Sends c one invalidation (keys: n of them; n < 0: a null, FLUSHALL),
 * to its REDIRECT target when it has one (Redis's sendTrackingMessage). */
static void send_invalidation(struct conn *c, const char *const *keys, const size_t *lens, long n)
{
    struct conn_tracking *t = c->tracking;
    struct conn *to = c;
    if (t->redirect) {
        to = conn_find_by_id(t->redirect);
        if (!to) {
            t->broken_redirect = true;
            if (reply_protocol(&c->reply) == PROTO_RESP3) {
                scratch.start = scratch.end = 0;
                struct reply r;
                reply_init(&r, &scratch, PROTO_RESP3);
                reply_push_len(&r, 2);
                reply_bulk(&r, "tracking-redir-broken", 21);
                reply_int(&r, (long long)t->redirect);
                deliver(c, buf_head(&scratch), buf_len(&scratch));
            }
            return;
        }
    }
    if (to->flags & (CONN_CLOSED | CONN_CLOSE_AFTER_REPLY)) return;
    enum proto proto = reply_protocol(&to->reply);
    scratch.start = scratch.end = 0;
    struct reply r;
    reply_init(&r, &scratch, proto);
    reply_frame_begin(&r, 0);
    if (proto != PROTO_RESP2) {
        reply_push_len(&r, 2);
        reply_bulk(&r, "invalidate", 10);
    } else if (t->redirect && pubsub_total_subscription_count(&to->pubsub) > 0) {
        reply_push_len(&r, 3);
        reply_bulk(&r, "message", 7);
        reply_bulk(&r, "__redis__:invalidate", 20);
    } else {
        return; /* RESP2 without a subscribed redirect: nowhere to say it */
    }
    if (n < 0) {
        /* The null of the tracking client's own protocol, as Redis. */
        if (reply_protocol(&c->reply) == PROTO_RESP2)
            buf_append(&scratch, "$-1\r\n", 5);
        else
            buf_append(&scratch, "_\r\n", 3);
    } else {
        reply_array_len(&r, n);
        for (long i = 0; i < n; i++) reply_bulk(&r, keys[i], lens[i]);
    }
    reply_frame_end(&r);
    deliver(to, buf_head(&scratch), buf_len(&scratch));
}

/* --- default mode ---------------------------------------------------------- */

/* The client whose command changes the key (NOLOOP): none for an expiry. */
static struct conn *modifier_conn(void)
{
    return keyspace.expiring ? NULL : conn_executing;
}

/* Takes key out of the table and invalidates it for the clients that read
 * it (Redis's trackingInvalidateKey). */
static void invalidate_tracked(const char *key, size_t len)
{
    struct tracked_key *tk =
        (struct tracked_key *)dict_remove(&table, key, len, hash_bytes(key, len));
    if (!tk) return;
    for (uint32_t i = 0; i < tk->n; i++) {
        struct conn *target = conn_find_by_id(tk->ids[i]);
        if (!target || !target->tracking || (target->tracking->flags & SESSION_TRACKING_BCAST))
            continue;
        if ((target->tracking->flags & SESSION_TRACKING_NOLOOP) && target == modifier_conn())
            continue;
        const char *k = tk->key;
        send_invalidation(target, &k, &tk->len, 1);
    }
    table_items -= tk->n;
    xfree(tk->ids);
    xfree(tk);
}

static void bcast_remember(const char *key, size_t len)
{
    struct conn *modifier = modifier_conn();
    uint64_t modifier_id = modifier ? modifier->id : 0;
    for (size_t i = 0; i < nprefixes; i++) {
        struct bcast_prefix *p = &prefixes[i];
        if (len < p->len || memcmp(key, p->prefix, p->len) != 0) continue;
        bool seen = false;
        for (size_t k = 0; k < p->nkeys && !seen; k++) {
            seen = p->keys[k].len == len && memcmp(p->keys[k].key, key, len) == 0;
            if (seen) p->keys[k].modifier = modifier_id; /* the last change counts */
        }
        if (seen) continue;
        if (p->nkeys == p->keys_cap) {
            p->keys_cap = p->keys_cap ? p->keys_cap * 2 : 8;
            p->keys = xrealloc(p->keys, p->keys_cap * sizeof *p->keys);
        }
        char *copy = xmalloc(len ? len : 1);
        memcpy(copy, key, len);
        p->keys[p->nkeys++] = (struct pending_key){copy, len, modifier_id};
        bcast_pending = true;
    }
}

static void invalidate_hook(struct db *db, const char *key, size_t len)
{
    (void)db;
    if (nprefixes) bcast_remember(key, len);
    if (dict_size(&table)) invalidate_tracked(key, len);
    update_hook();
}

/* Keeps the table within tracking-table-max-keys (Redis's
 * trackingLimitUsedSlots: an effort that grows while still over). */
static void limit_table(void)
{
    static unsigned timeout_counter;
    size_t max = (size_t)session_tracking_table_max_keys;
    if (!max || dict_size(&table) <= max) {
        timeout_counter = 0;
        return;
    }
    for (int effort = 100 * (int)(timeout_counter + 1); effort > 0; effort--) {
        struct tracked_key *tk = (struct tracked_key *)dict_random_node(&table, rand_u64);
        if (!tk) break;
        invalidate_tracked(tk->key, tk->len);
        if (dict_size(&table) <= max) {
            timeout_counter = 0;
            update_hook();
            return;
        }
    }
    timeout_counter++;
    update_hook();
}

static void remember_key(uint64_t id, const char *key, size_t len)
{
    uint64_t hash = hash_bytes(key, len);
    struct tracked_key *tk = (struct tracked_key *)dict_find(&table, key, len, hash);
    if (!tk) {
        tk = xcalloc(1, sizeof *tk + len);
        memcpy(tk->key, key, len);
        tk->len = len;
        dict_insert(&table, &tk->node, hash);
    }
    for (uint32_t i = 0; i < tk->n; i++)
        if (tk->ids[i] == id) return;
    if (tk->n == tk->cap) {
        tk->cap = tk->cap ? tk->cap * 2 : 2;
        tk->ids = xrealloc(tk->ids, tk->cap * sizeof *tk->ids);
    }
    tk->ids[tk->n++] = id;
    table_items++;
}

bool session_tracking_reads(const struct conn *c)
{
    const struct conn_tracking *t = c->tracking;
    if (!t || (t->flags & SESSION_TRACKING_BCAST)) return false;
    bool optin = t->flags & SESSION_TRACKING_OPTIN, optout = t->flags & SESSION_TRACKING_OPTOUT;
    return !((optin && !t->caching) || (optout && t->caching));
}

void session_tracking_remember(struct conn *c, const char *const *argv, const size_t *argv_len,
                               const int *pos, int n)
{
    for (int i = 0; i < n; i++) remember_key(c->id, argv[pos[i]], argv_len[pos[i]]);
    if (n) update_hook();
}

void conn_tracking_limit_table(void)
{
    if (session_tracking_table_max_keys &&
        dict_size(&table) > (size_t)session_tracking_table_max_keys)
        limit_table();
}

void session_tracking_before_command(void)
{
    if (!session_tracking_table_max_keys ||
        dict_size(&table) <= (size_t)session_tracking_table_max_keys)
        return;
    before_command = true;
    limit_table();
    before_command = false;
}

void session_tracking_pre_command(bool begin)
{
    before_command = begin;
}

void session_tracking_after_command(struct conn *c, bool keep_caching)
{
    /* CLIENT CACHING lasts one command (a whole transaction), as Redis. */
    if (c->tracking && c->tracking->caching && !keep_caching) c->tracking->caching = false;
}

void session_tracking_flush(void)
{
    for (struct conn *c = conn_list_head(); c && session_tracking_clients; c = c->next)
        if (c->tracking) send_invalidation(c, NULL, NULL, -1);
    struct dict_node *n;
    while ((n = dict_random_node(&table, rand_u64))) {
        struct tracked_key *tk = (struct tracked_key *)n;
        dict_remove(&table, tk->key, tk->len, hash_bytes(tk->key, tk->len));
        xfree(tk->ids);
        xfree(tk);
    }
    table_items = 0;
    update_hook();
}

/* --- BCAST ------------------------------------------------------------------ */

static int compare_pending(const void *a, const void *b)
{
    const struct pending_key *x = a, *y = b;
    return compare_bytes(x->key, x->len, y->key, y->len);
}

void conn_tracking_broadcast(void)
{
    if (!bcast_pending) return;
    bcast_pending = false;
    const char **keys = NULL;
    size_t *lens = NULL, cap = 0;
    for (size_t i = 0; i < nprefixes; i++) {
        struct bcast_prefix *p = &prefixes[i];
        if (!p->nkeys) continue;
        qsort(p->keys, p->nkeys, sizeof *p->keys, compare_pending);
        if (p->nkeys > cap) {
            cap = p->nkeys;
            keys = xrealloc(keys, cap * sizeof *keys);
            lens = xrealloc(lens, cap * sizeof *lens);
        }
        for (size_t ci = 0; ci < p->nclients; ci++) {
            struct conn *c = p->clients[ci];
            bool noloop = c->tracking->flags & SESSION_TRACKING_NOLOOP;
            long n = 0;
            for (size_t k = 0; k < p->nkeys; k++) {
                if (noloop && p->keys[k].modifier == c->id) continue;
                keys[n] = p->keys[k].key;
                lens[n++] = p->keys[k].len;
            }
            if (n) send_invalidation(c, keys, lens, n);
        }
        for (size_t k = 0; k < p->nkeys; k++) xfree(p->keys[k].key);
        p->nkeys = 0;
    }
    xfree(keys);
    xfree(lens);
}

static struct bcast_prefix *prefix_find(const char *s, size_t len, bool create)
{
    for (size_t i = 0; i < nprefixes; i++)
        if (prefixes[i].len == len && memcmp(prefixes[i].prefix, s, len) == 0) return &prefixes[i];
    if (!create) return NULL;
    if (nprefixes == prefixes_cap) {
        prefixes_cap = prefixes_cap ? prefixes_cap * 2 : 4;
        prefixes = xrealloc(prefixes, prefixes_cap * sizeof *prefixes);
    }
    struct bcast_prefix *p = &prefixes[nprefixes++];
    memset(p, 0, sizeof *p);
    p->prefix = xmalloc(len ? len : 1);
    memcpy(p->prefix, s, len);
    p->len = len;
    return p;
}

static void prefix_add_client(struct conn *c, const char *s, size_t len)
{
    struct conn_tracking *t = c->tracking;
    for (size_t i = 0; i < t->nprefixes; i++)
        if (t->prefix_lens[i] == len && memcmp(t->prefixes[i], s, len) == 0) return;
    struct bcast_prefix *p = prefix_find(s, len, true);
    if (p->nclients == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 4;
        p->clients = xrealloc(p->clients, p->cap * sizeof *p->clients);
    }
    p->clients[p->nclients++] = c;
    /* The client's own list, kept sorted (TRACKINGINFO lists it so). */
    t->prefixes = xrealloc(t->prefixes, (t->nprefixes + 1) * sizeof *t->prefixes);
    t->prefix_lens = xrealloc(t->prefix_lens, (t->nprefixes + 1) * sizeof *t->prefix_lens);
    size_t at = 0;
    while (at < t->nprefixes && compare_bytes(t->prefixes[at], t->prefix_lens[at], s, len) < 0)
        at++;
    memmove(&t->prefixes[at + 1], &t->prefixes[at], (t->nprefixes - at) * sizeof *t->prefixes);
    memmove(&t->prefix_lens[at + 1], &t->prefix_lens[at],
            (t->nprefixes - at) * sizeof *t->prefix_lens);
    t->prefixes[at] = p->prefix;
    t->prefix_lens[at] = len;
    t->nprefixes++;
}

static void prefix_remove_client(struct conn *c, struct bcast_prefix *p)
{
    for (size_t i = 0; i < p->nclients; i++) {
        if (p->clients[i] != c) continue;
        p->clients[i] = p->clients[--p->nclients];
        break;
    }
    if (p->nclients) return;
    for (size_t k = 0; k < p->nkeys; k++) xfree(p->keys[k].key);
    xfree(p->keys);
    xfree(p->clients);
    xfree(p->prefix);
    *p = prefixes[--nprefixes];
}

/* --- enabling, disabling --------------------------------------------------- */

static void disable(struct conn *c)
{
    struct conn_tracking *t = c->tracking;
    if (!t) return;
    for (size_t i = 0; i < t->nprefixes; i++)
        prefix_remove_client(c, prefix_find(t->prefixes[i], t->prefix_lens[i], false));
    xfree(t->prefixes);
    xfree(t->prefix_lens);
    xfree(t);
    c->tracking = NULL;
    session_tracking_clients--;
    command_hook_set(HOOK_TRACKING, session_tracking_clients != 0);
    update_hook();
}

void conn_tracking_forget(struct conn *c)
{
    disable(c);
}

/* Whether a and b overlap: one is a prefix of the other. */
static bool overlap(const char *a, size_t alen, const char *b, size_t blen)
{
    return memcmp(a, b, alen < blen ? alen : blen) == 0;
}

static char *overlap_error(const char *fmt, const char *a, size_t alen, const char *b, size_t blen)
{
    size_t cap = alen + blen + 200;
    char *e = xmalloc(cap);
    snprintf(e, cap, fmt, (int)alen, a, (int)blen, b);
    return e;
}

char *session_tracking_set(struct conn *c, const struct session_tracking_request *q)
{
    struct conn_tracking *t = c->tracking;
    if (!q->on) {
        disable(c);
        return NULL;
    }
    uint32_t o = q->options;
    if (!(o & SESSION_TRACKING_BCAST) && q->nprefixes)
        return xstrdup("ERR PREFIX option requires BCAST mode to be enabled");
    if (t && (t->flags & SESSION_TRACKING_BCAST) != (o & SESSION_TRACKING_BCAST))
        return xstrdup("ERR You can't switch BCAST mode on/off before disabling tracking for "
                       "this client, and then re-enabling it with a different mode.");
    if ((o & SESSION_TRACKING_BCAST) && (o & (SESSION_TRACKING_OPTIN | SESSION_TRACKING_OPTOUT)))
        return xstrdup("ERR OPTIN and OPTOUT are not compatible with BCAST");
    if ((o & SESSION_TRACKING_OPTIN) && (o & SESSION_TRACKING_OPTOUT))
        return xstrdup("ERR You can't specify both OPTIN mode and OPTOUT mode");
    if (t && (((o & SESSION_TRACKING_OPTIN) && (t->flags & SESSION_TRACKING_OPTOUT)) ||
              ((o & SESSION_TRACKING_OPTOUT) && (t->flags & SESSION_TRACKING_OPTIN))))
        return xstrdup("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for "
                       "this client, and then re-enabling it with a different mode.");
    if (o & SESSION_TRACKING_BCAST) {
        /* Redis's checkPrefixCollisionsOrReply. */
        for (size_t i = 0; i < q->nprefixes; i++) {
            const char *p = q->prefixes[i];
            size_t plen = q->prefix_lens[i];
            for (size_t k = 0; t && k < t->nprefixes; k++)
                if (overlap(p, plen, t->prefixes[k], t->prefix_lens[k]))
                    return overlap_error("ERR Prefix '%.*s' overlaps with an existing prefix "
                                         "'%.*s'. Prefixes for a single client must not overlap.",
                                         p, plen, t->prefixes[k], t->prefix_lens[k]);
            for (size_t k = i + 1; k < q->nprefixes; k++)
                if (overlap(p, plen, q->prefixes[k], q->prefix_lens[k]))
                    return overlap_error("ERR Prefix '%.*s' overlaps with another provided "
                                         "prefix '%.*s'. Prefixes for a single client must not "
                                         "overlap.",
                                         p, plen, q->prefixes[k], q->prefix_lens[k]);
        }
    }
    if (!t) {
        t = c->tracking = xcalloc(1, sizeof *t);
        session_tracking_clients++;
        command_hook_set(HOOK_TRACKING, true);
    }
    t->flags = o & (SESSION_TRACKING_BCAST | SESSION_TRACKING_OPTIN | SESSION_TRACKING_OPTOUT |
                    SESSION_TRACKING_NOLOOP);
    t->broken_redirect = false;
    t->redirect = q->redirect;
    if (o & SESSION_TRACKING_BCAST) {
        if (!q->nprefixes) prefix_add_client(c, "", 0);
        for (size_t i = 0; i < q->nprefixes; i++)
            prefix_add_client(c, q->prefixes[i], q->prefix_lens[i]);
    }
    update_hook();
    return NULL;
}

const char *session_tracking_caching(struct conn *c, bool yes)
{
    struct conn_tracking *t = c->tracking;
    if (!t)
        return "ERR CLIENT CACHING can be called only when the client is in tracking mode with "
               "OPTIN or OPTOUT mode enabled";
    if (yes && !(t->flags & SESSION_TRACKING_OPTIN))
        return "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.";
    if (!yes && !(t->flags & SESSION_TRACKING_OPTOUT))
        return "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.";
    t->caching = true;
    return NULL;
}

long long session_tracking_redirect(const struct conn *c)
{
    return c->tracking ? (long long)c->tracking->redirect : -1;
}

void session_tracking_info(const struct conn *c, struct reply *r)
{
    const struct conn_tracking *t = c->tracking;
    const char *flags[8];
    int n = 0;
    flags[n++] = t ? "on" : "off";
    if (t) {
        if (t->flags & SESSION_TRACKING_BCAST) flags[n++] = "bcast";
        if (t->flags & SESSION_TRACKING_OPTIN) {
            flags[n++] = "optin";
            if (t->caching) flags[n++] = "caching-yes";
        }
        if (t->flags & SESSION_TRACKING_OPTOUT) {
            flags[n++] = "optout";
            if (t->caching) flags[n++] = "caching-no";
        }
        if (t->flags & SESSION_TRACKING_NOLOOP) flags[n++] = "noloop";
        if (t->broken_redirect) flags[n++] = "broken_redirect";
    }
    reply_map_len(r, 3);
    reply_bulk_cstr(r, "flags");
    reply_set_len(r, n);
    for (int i = 0; i < n; i++) reply_bulk_cstr(r, flags[i]);
    reply_bulk_cstr(r, "redirect");
    reply_int(r, session_tracking_redirect(c));
    reply_bulk_cstr(r, "prefixes");
    reply_array_len(r, t ? (long long)t->nprefixes : 0);
    for (size_t i = 0; t && i < t->nprefixes; i++) reply_bulk(r, t->prefixes[i], t->prefix_lens[i]);
}

void session_tracking_flags(const struct conn *c, char **f)
{
    const struct conn_tracking *t = c->tracking;
    if (!t) return;
    *(*f)++ = 't';
    if (t->broken_redirect) *(*f)++ = 'R';
    if (t->flags & SESSION_TRACKING_BCAST) *(*f)++ = 'B';
}

size_t session_tracking_keys(void)
{
    return dict_size(&table);
}

size_t session_tracking_items(void)
{
    return table_items;
}

size_t session_tracking_prefixes(void)
{
    return nprefixes;
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param conn_tracking_params[] = {
    {.name = "tracking-table-max-keys",
     .kind = CFG_INT,
     .value = &session_tracking_table_max_keys,
     .max = LLONG_MAX,
     .value_name = "N",
     .help = "keys CLIENT TRACKING remembers at most; past it, random keys are invalidated "
             "(default 1000000; 0 = no limit)"},
};

const struct config_table conn_tracking_config = CONFIG_TABLE(conn_tracking_params, NULL);
