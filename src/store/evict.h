/*
 * evict.h — maxmemory eviction: Redis's policies, its approximated LRU and
 * its logarithmic LFU counter, and its eviction pool.
 *
 * Per-key state is the 24-bit `lru` field every kv already has (kv.h), read
 * as Redis reads robj->lru, so eviction adds no byte per key:
 *   LRU policies (and the others, which keep it for OBJECT IDLETIME):
 *       the LRU clock (seconds, 24 bits, wraps after ~194 days) at last access
 *   LFU policies: [16 bits: minutes of last decrement][8 bits: log counter]
 * Switching between an LRU and an LFU policy at run time reinterprets the
 * field, as Redis does ("LRU and LFU data will take some time to adjust").
 *
 * Eviction (evict_perform) runs before a command executes while used memory
 * (xmalloc_used_bytes: every allocation, connection buffers included, as
 * Redis counts it) is over maxmemory, as Redis's performEvictions():
 *  - LRU/LFU/TTL policies sample maxmemory-samples keys per database (all
 *    keys, or only keys with a TTL for volatile-*) into a 16-entry pool kept
 *    sorted by "idle" score (idle time / 255 - decayed counter / time to
 *    expiry reversed) across calls, and evict the best entry still present;
 *  - random policies take a random key, databases in turn;
 *  - the loop stops when enough was freed (EVICT_OK), when nothing can be
 *    evicted (EVICT_FAIL: the caller refuses CMD_DENYOOM commands with the
 *    OOM error), or when its time budget (maxmemory-eviction-tenacity) is
 *    spent (EVICT_RUNNING: the command runs; housekeeping continues).
 * Every evicted key goes through db_key_evicted() (the one "evicted" hook).
 *
 * The store knows nothing of the server's config table: the settings live
 * in evict_settings (config.c points its rows at them), maxmemory is passed.
 */
#ifndef GOBLIN_EVICT_H
#define GOBLIN_EVICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "store/kv.h"

/* In Redis's maxmemory_policy_enum order (its CONFIG SET error lists them so). */
enum evict_policy {
    EVICT_VOLATILE_LRU,
    EVICT_VOLATILE_LFU,
    EVICT_VOLATILE_RANDOM,
    EVICT_VOLATILE_TTL,
    EVICT_ALLKEYS_LRU,
    EVICT_ALLKEYS_LFU,
    EVICT_ALLKEYS_RANDOM,
    EVICT_NOEVICTION,
};

/* The policy names, in enum order, NULL-terminated (config's choices). */
extern const char *const evict_policy_names[];

struct evict_settings {
    enum evict_policy policy;
    bool lfu;                 /* policy is an LFU one: kv->lru holds LFU data */
    long long samples;        /* maxmemory-samples (1..64, default 5) */
    long long lfu_log_factor; /* lfu-log-factor (default 10) */
    long long lfu_decay_time; /* lfu-decay-time, minutes (default 1; 0: never decays) */
    long long tenacity;       /* maxmemory-eviction-tenacity (0..100, default 10) */
};

extern struct evict_settings evict_settings;

/* Selects the policy by name (one of evict_policy_names; false if none). */
bool evict_set_policy(const char *name);

/* LFU: a new key's counter (Redis's LFU_INIT_VAL), so a new key is not
 * evicted before it had a chance to be accessed. */
#define LFU_INIT_VAL 5

/* Minutes clock of the LFU field (16 bits, wraps). */
static inline uint32_t evict_lfu_minutes(void)
{
    return (uint32_t)(keyspace_now_ms() / 60000) & 0xFFFF;
}

/* The counter of kv decayed by the minutes elapsed since its last
 * decrement (one per lfu-decay-time minutes): OBJECT FREQ's value. */
unsigned evict_lfu_decayed_counter(const struct kv *kv);

/* LFU access: decay, then a logarithmic increment (probability
 * 1 / ((counter - LFU_INIT_VAL) * lfu-log-factor + 1)). */
void evict_lfu_access(struct kv *kv);

/* The stamp of a key created now. */
static inline uint32_t evict_new_stamp(void)
{
    if (evict_settings.lfu) return evict_lfu_minutes() << 8 | LFU_INIT_VAL;
    return keyspace.lru_clock;
}

/* A key was read or written (Redis's lookupKey without LOOKUP_NOTOUCH). */
static inline void evict_touch(struct kv *kv)
{
    if (evict_settings.lfu)
        evict_lfu_access(kv);
    else
        kv->lru = keyspace.lru_clock;
}

/* `fresh` replaces `old` under the same key: under LFU it keeps old's
 * counter (Redis's dbOverwrite), otherwise it is new. */
static inline void evict_inherit(struct kv *fresh, const struct kv *old)
{
    fresh->lru = evict_settings.lfu ? old->lru : keyspace.lru_clock;
}

/* Seconds since kv's last access (LRU field; OBJECT IDLETIME). */
static inline uint32_t evict_idle_seconds(const struct kv *kv)
{
    return (keyspace.lru_clock - kv->lru) & 0xFFFFFF; /* both 24-bit clocks wrap */
}

/* RESTORE ... IDLETIME s / FREQ f (negative: not given): applied as Redis's
 * objectSetLRUOrLFU, FREQ under an LFU policy, IDLETIME under the others. */
void evict_restore_stamp(struct kv *kv, long long idle_seconds, long long freq);

enum evict_result { EVICT_OK, EVICT_RUNNING, EVICT_FAIL };

/* Evicts keys until used memory is at most maxmemory (0: no limit). */
enum evict_result evict_perform(size_t maxmemory);

/* Milliseconds spent with used memory over maxmemory: in all, and in the
 * current span (0 when under). */
void evict_exceeded_ms(long long *total, long long *current);

/* CONFIG RESETSTAT: the sum restarts (a span in progress counts from now). */
void evict_reset_exceeded(void);

/* Housekeeping: continues an eviction that ran out of time (EVICT_RUNNING). */
void evict_housekeeping(size_t maxmemory);

/* Settings (core/config.h): maxmemory, maxmemory-policy, -samples, -eviction-tenacity, lfu-*. */
struct config_table;
extern const struct config_table evict_config;

#endif
