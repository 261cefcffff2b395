/* evict.c — maxmemory eviction as Redis's evict.c; contracts in evict.h. */
#include "store/evict.h"
#include "core/command_hooks.h"
#include "core/config.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

#include "core/latency.h"
#include "util/clock.h"
#include "util/rand.h"
#include "util/xmalloc.h"

const char *const evict_policy_names[] = {
    "volatile-lru", "volatile-lfu",   "volatile-random", "volatile-ttl", "allkeys-lru",
    "allkeys-lfu",  "allkeys-random", "noeviction",      NULL,
};

struct evict_settings evict_settings = {
    .policy = EVICT_NOEVICTION,
    .lfu = false,
    .samples = 5,
    .lfu_log_factor = 10,
    .lfu_decay_time = 1,
    .tenacity = 10,
};

bool evict_set_policy(const char *name)
{
    for (int i = 0; evict_policy_names[i]; i++) {
        if (strcasecmp(evict_policy_names[i], name) != 0) continue;
        evict_settings.policy = (enum evict_policy)i;
        evict_settings.lfu = i == EVICT_VOLATILE_LFU || i == EVICT_ALLKEYS_LFU;
        return true;
    }
    return false;
}

/* --- LFU ------------------------------------------------------------- */

/* Minutes since `then` on the 16-bit minutes clock (Redis's LFUTimeElapsed). */
static uint32_t lfu_minutes_since(uint32_t then)
{
    uint32_t now = evict_lfu_minutes();
    return now >= then ? now - then : 65535 - then + now;
}

unsigned evict_lfu_decayed_counter(const struct kv *kv)
{
    unsigned counter = kv->lru & 0xFF;
    long long periods = evict_settings.lfu_decay_time
                            ? lfu_minutes_since(kv->lru >> 8) / evict_settings.lfu_decay_time
                            : 0;
    if (periods) counter = periods > counter ? 0 : counter - (unsigned)periods;
    return counter;
}

void evict_lfu_access(struct kv *kv)
{
    unsigned counter = evict_lfu_decayed_counter(kv);
    if (counter < 255) {
        double base = counter > LFU_INIT_VAL ? counter - LFU_INIT_VAL : 0;
        double p = 1.0 / (base * (double)evict_settings.lfu_log_factor + 1);
        double r = (double)(rand_u64() >> 11) * 0x1.0p-53; /* uniform in [0, 1) */
        if (r < p) counter++;
    }
    kv->lru = evict_lfu_minutes() << 8 | counter;
}

void evict_restore_stamp(struct kv *kv, long long idle_seconds, long long freq)
{
    if (evict_settings.lfu) {
        if (freq >= 0) kv->lru = evict_lfu_minutes() << 8 | (uint32_t)(freq > 255 ? 255 : freq);
    } else if (idle_seconds >= 0) {
        kv->lru = (uint32_t)(keyspace.lru_clock - (uint64_t)idle_seconds) & 0xFFFFFF;
    }
}

/* --- the eviction pool ---------------------------------------------------- */

#define EVICT_POOL_SIZE 16
/* Keys up to this long are copied into the entry's own buffer; longer ones
 * get an allocation (Redis's EVPOOL_CACHED_SDS_SIZE). */
#define EVICT_POOL_CACHED_KEY 255

struct pool_entry {
    unsigned long long idle; /* higher: better candidate */
    char *key;               /* NULL: empty slot; else cached or allocated */
    size_t key_len;
    int db;
    char cached[EVICT_POOL_CACHED_KEY];
};

/* Ascending by idle: the best candidate is the last filled entry. Kept
 * across calls, as Redis does, so good candidates found earlier survive. */
static struct pool_entry *pool;

static void pool_entry_clear(struct pool_entry *e)
{
    if (e->key && e->key != e->cached) xfree(e->key);
    e->key = NULL;
}

static void pool_entry_set(struct pool_entry *e, unsigned long long idle, const struct kv *kv,
                           int db)
{
    e->key = kv->key_len <= EVICT_POOL_CACHED_KEY ? e->cached : xmalloc(kv->key_len);
    memcpy(e->key, kv->key, kv->key_len);
    e->key_len = kv->key_len;
    e->idle = idle;
    e->db = db;
}

/* Redis's evictionPoolPopulate() insertion: keep the pool sorted, drop the
 * worst entry when it is full and the newcomer is better. The moved entries'
 * `key` pointers may point at their own `cached` buffer, so entries are
 * moved by swapping buffers, never by memmove of a live cached pointer. */
static void pool_move(struct pool_entry *dst, struct pool_entry *src)
{
    dst->idle = src->idle;
    dst->key_len = src->key_len;
    dst->db = src->db;
    if (src->key == src->cached) {
        memcpy(dst->cached, src->cached, src->key_len);
        dst->key = dst->cached;
    } else {
        dst->key = src->key;
    }
    src->key = NULL;
}

static bool pool_has_key(int db, const struct kv *kv)
{
    for (int i = 0; i < EVICT_POOL_SIZE && pool[i].key; i++)
        if (pool[i].db == db && pool[i].key_len == kv->key_len &&
            memcmp(pool[i].key, kv->key, kv->key_len) == 0)
            return true;
    return false;
}

static void pool_insert(unsigned long long idle, const struct kv *kv, int db)
{
    int k = 0;
    while (k < EVICT_POOL_SIZE && pool[k].key && pool[k].idle < idle) k++;
    if (k == 0 && pool[EVICT_POOL_SIZE - 1].key) return; /* worse than all, pool full */
    if (k < EVICT_POOL_SIZE && !pool[k].key) {
        /* an empty slot: insert here */
    } else if (!pool[EVICT_POOL_SIZE - 1].key) {
        /* free room at the right: shift k.. right by one */
        for (int i = EVICT_POOL_SIZE - 1; i > k; i--)
            if (pool[i - 1].key) pool_move(&pool[i], &pool[i - 1]);
    } else {
        /* full: drop the worst (leftmost), shift left, insert at k - 1 */
        k--;
        pool_entry_clear(&pool[0]);
        for (int i = 0; i < k; i++) pool_move(&pool[i], &pool[i + 1]);
    }
    pool_entry_set(&pool[k], idle, kv, db);
}

/* The score of a candidate: the higher, the sooner it goes. */
static unsigned long long candidate_score(const struct kv *kv)
{
    switch (evict_settings.policy) {
    case EVICT_VOLATILE_LFU:
    case EVICT_ALLKEYS_LFU:
        return 255 - evict_lfu_decayed_counter(kv);
    case EVICT_VOLATILE_TTL:
        return ~0ULL - (unsigned long long)kv->expire_ms;
    default: /* LRU: idle milliseconds at the clock's one-second resolution */
        return (unsigned long long)evict_idle_seconds(kv) * 1000;
    }
}

static bool policy_volatile(void)
{
    return evict_settings.policy <= EVICT_VOLATILE_TTL;
}

/* Samples maxmemory-samples keys of db into the pool. */
static void pool_populate(struct db *db)
{
    bool with_ttl = policy_volatile();
    for (long long i = 0; i < evict_settings.samples; i++) {
        struct kv *kv = db_sample_kv(db, with_ttl);
        if (!kv) return;
        if (pool_has_key(db->id, kv)) continue; /* a repeat draw */
        pool_insert(candidate_score(kv), kv, db->id);
    }
}

/* The best candidate still present (volatile: still with a TTL), or NULL
 * when no database has a key the policy may evict. */
static struct kv *pool_pick(struct db **db_out)
{
    if (!pool) pool = xcalloc(EVICT_POOL_SIZE, sizeof *pool);
    bool with_ttl = policy_volatile();
    for (;;) {
        size_t candidates = 0;
        for (int i = 0; i < keyspace.count; i++) {
            struct db *db = keyspace_db(i);
            size_t n = with_ttl ? dict_size(&db->expires) : dict_size(&db->keys);
            if (!n) continue;
            pool_populate(db);
            candidates += n;
        }
        if (!candidates) return NULL;
        for (int k = EVICT_POOL_SIZE - 1; k >= 0; k--) {
            struct pool_entry *e = &pool[k];
            if (!e->key) continue;
            struct db *db = keyspace_db(e->db);
            struct dict_node *n =
                dict_find(&db->keys, e->key, e->key_len, db_hash_key(e->key, e->key_len));
            pool_entry_clear(e); /* the rightmost filled entry: the pool stays packed left */
            struct kv *kv = n ? kv_of_node(n) : NULL;
            if (kv && (!with_ttl || kv->expire_ms)) {
                *db_out = db;
                return kv;
            }
            /* a ghost: deleted, or lost its TTL, since it was sampled */
        }
    }
}

/* Random policies: a random key, databases in turn. */
static struct kv *random_pick(struct db **db_out)
{
    static int next_db;
    bool with_ttl = policy_volatile();
    for (int i = 0; i < keyspace.count; i++) {
        struct db *db = keyspace_db(next_db++ % keyspace.count);
        struct kv *kv = db_sample_kv(db, with_ttl);
        if (kv) {
            *db_out = db;
            return kv;
        }
    }
    return NULL;
}

/* Redis's evictionTimeLimitUs(): 500 us at the default tenacity 10,
 * growing 15% per step above it, unlimited at 100. */
static int64_t eviction_time_limit_us(void)
{
    long long t = evict_settings.tenacity;
    if (t <= 10) return 50 * t;
    if (t < 100) {
        double us = 500.0;
        for (long long i = 10; i < t; i++) us *= 1.15;
        return (int64_t)us;
    }
    return INT64_MAX;
}

static bool eviction_running; /* ran out of time with memory still over */

/* Time spent over maxmemory (INFO total/current_eviction_exceeded_time):
 * since when it is over (0: not over), and the closed spans' sum. */
static int64_t exceeded_since_us, exceeded_total_us;

void evict_exceeded_ms(long long *total, long long *current)
{
    int64_t now = clock_mono_us();
    int64_t open = exceeded_since_us ? now - exceeded_since_us : 0;
    *total = (exceeded_total_us + open) / 1000;
    *current = open / 1000;
}

void evict_reset_exceeded(void)
{
    exceeded_total_us = 0;
    if (exceeded_since_us) exceeded_since_us = clock_mono_us();
}

enum evict_result evict_perform(size_t maxmemory)
{
    size_t used = xmalloc_used_bytes();
    if (!maxmemory || used <= maxmemory) {
        eviction_running = false;
        if (exceeded_since_us) {
            exceeded_total_us += clock_mono_us() - exceeded_since_us;
            exceeded_since_us = 0;
        }
        return EVICT_OK;
    }
    if (!exceeded_since_us) exceeded_since_us = clock_mono_us();
    /* CLIENT PAUSE: as if under the limit (Redis); a replica: its master evicts. */
    if (keyspace.expire_paused || keyspace.replica) return EVICT_OK;
    if (evict_settings.policy == EVICT_NOEVICTION) return EVICT_FAIL;
    keyspace_begin_command(); /* one instant for the LFU/TTL scores of this pass */
    int64_t start = clock_mono_us();
    int64_t limit = eviction_time_limit_us();
    bool random = evict_settings.policy == EVICT_ALLKEYS_RANDOM ||
                  evict_settings.policy == EVICT_VOLATILE_RANDOM;
    enum evict_result result = EVICT_OK;
    for (unsigned long evicted = 0; xmalloc_used_bytes() > maxmemory;) {
        struct db *db = NULL;
        struct kv *kv = random ? random_pick(&db) : pool_pick(&db);
        if (!kv) {
            result = EVICT_FAIL; /* nothing left this policy may evict */
            break;
        }
        db_evict_kv(db, kv);
        /* Check the clock every 16 keys, as Redis does. */
        if (++evicted % 16 == 0 && clock_mono_us() - start > limit) {
            result = EVICT_RUNNING;
            break;
        }
    }
    eviction_running = result == EVICT_RUNNING;
    if (latency_enabled()) latency_consider("eviction-cycle", clock_mono_us() - start);
    return result;
}

void evict_housekeeping(size_t maxmemory)
{
    if (eviction_running) evict_perform(maxmemory);
}

/* A lower limit takes effect at once, as Redis's CONFIG SET maxmemory:
 * eviction starts now rather than at the next command. */
static void apply_maxmemory(void)
{
    command_hook_set(HOOK_MAXMEMORY, config.maxmemory != 0);
    evict_perform((size_t)config.maxmemory);
}

static void apply_maxmemory_policy(void)
{
    evict_set_policy(config.maxmemory_policy); /* validated against the same names */
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param evict_params[] = {
    {.name = "maxmemory",
     .kind = CFG_MEMORY,
     .value = &config.maxmemory,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help =
         "past this much used memory (connection buffers included), keys are evicted by "
         "--maxmemory-policy before a command runs; when none can be, commands that may grow the "
         "data set get Redis's OOM error (reads and deletes still run) (default 0 = no limit)",
     .apply = apply_maxmemory},
    {.name = "maxmemory-policy",
     .kind = CFG_ENUM,
     .value = &config.maxmemory_policy,
     .value_name = "POLICY",
     .help = "noeviction, allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, "
             "volatile-random or volatile-ttl, as Redis (default noeviction)",
     .choices = evict_policy_names,
     .apply = apply_maxmemory_policy},
    {.name = "maxmemory-samples",
     .kind = CFG_INT,
     .value = &evict_settings.samples,
     .min = 1,
     .max = INT_MAX,
     .value_name = "N",
     .help = "keys sampled per database for each eviction by the LRU, LFU and TTL policies "
             "(default 5)"},
    {.name = "maxmemory-eviction-tenacity",
     .kind = CFG_INT,
     .value = &evict_settings.tenacity,
     .max = 100,
     .value_name = "N",
     .help = "eviction time per command: 10 = 500 us, +15% per step, 100 = unlimited; the rest "
             "continues in housekeeping (default 10)"},
    {.name = "lfu-log-factor",
     .kind = CFG_INT,
     .value = &evict_settings.lfu_log_factor,
     .max = INT_MAX,
     .value_name = "N",
     .help = "LFU counter growth: an access increments counter c with probability 1/((c-5)*N+1) "
             "(default 10)"},
    {.name = "lfu-decay-time",
     .kind = CFG_INT,
     .value = &evict_settings.lfu_decay_time,
     .max = INT_MAX,
     .value_name = "MINUTES",
     .help = "LFU counters lose one per this many idle minutes (default 1; 0 = never)"},
};

const struct config_table evict_config = CONFIG_TABLE(evict_params, NULL);
