/* Differential: the eviction settings (maxmemory-policy, maxmemory-samples,
 * maxmemory-eviction-tenacity, lfu-log-factor, lfu-decay-time) under CONFIG
 * GET/SET, and OBJECT FREQ / OBJECT IDLETIME under LRU and LFU policies,
 * answer exactly as redis-server does, in RESP2 and RESP3.
 *
 * The LFU counter replies are deterministic with lfu-log-factor 0 (every
 * access increments) and lfu-decay-time 0 (no decay at a minute boundary),
 * so they check which commands touch a key (Redis's lookupKey without
 * LOOKUP_NOTOUCH) and that an overwrite keeps the counter (dbOverwrite).
 * OBJECT IDLETIME's value depends on the seconds clock and is checked by
 * test_eviction.sh instead; its error under LFU is compared here. */
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static struct diff_pair d;

static void config_rows(void)
{
    static const char *const params[] = {
        "maxmemory-policy", "maxmemory-samples", "maxmemory-eviction-tenacity",
        "lfu-log-factor",   "lfu-decay-time",    NULL};
    for (int i = 0; params[i]; i++) diff_check(&d, "CONFIG", "GET", params[i], NULL);
    static const char *const policies[] = {"volatile-lru",   "volatile-lfu", "volatile-random",
                                           "volatile-ttl",   "allkeys-lru",  "allkeys-lfu",
                                           "allkeys-random", "NOEVICTION",   NULL};
    for (int i = 0; policies[i]; i++) {
        diff_check(&d, "CONFIG", "SET", "maxmemory-policy", policies[i], NULL);
        diff_check(&d, "CONFIG", "GET", "maxmemory-policy", NULL);
    }
    diff_check(&d, "CONFIG", "SET", "maxmemory-policy", "lru", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-policy", "", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-samples", "0", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-samples", "2147483648", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-samples", "x", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-samples", "64", NULL);
    diff_check(&d, "CONFIG", "GET", "maxmemory-samples", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-samples", "5", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-eviction-tenacity", "101", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-eviction-tenacity", "-1", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-eviction-tenacity", "100", NULL);
    diff_check(&d, "CONFIG", "GET", "maxmemory-eviction-tenacity", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-eviction-tenacity", "10", NULL);
    diff_check(&d, "CONFIG", "SET", "lfu-log-factor", "-1", NULL);
    diff_check(&d, "CONFIG", "SET", "lfu-decay-time", "-1", NULL);
    diff_check(&d, "CONFIG", "SET", "lfu-log-factor", "0", "lfu-decay-time", "0", NULL);
    diff_check(&d, "CONFIG", "GET", "lfu-log-factor", NULL);
    diff_check(&d, "CONFIG", "GET", "lfu-decay-time", NULL);
}

/* OBJECT FREQ counts the accesses Redis counts. */
static void lfu_counters(void)
{
    diff_check(&d, "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu", NULL);
    diff_check(&d, "SET", "k", "v", NULL);
    diff_check(&d, "OBJECT", "FREQ", "k", NULL); /* a new key: LFU_INIT_VAL */
    diff_check(&d, "OBJECT", "FREQ", "nokey", NULL);
    diff_check(&d, "OBJECT", "IDLETIME", "k", NULL); /* the LFU error */
    diff_check(&d, "OBJECT", "IDLETIME", "nokey", NULL);
    for (int i = 0; i < 3; i++) diff_check(&d, "GET", "k", NULL);
    diff_check(&d, "OBJECT", "FREQ", "k", NULL);
    /* Introspection that does not touch, then commands that do. */
    diff_check(&d, "EXISTS", "k", NULL);
    diff_check(&d, "TYPE", "k", NULL);
    diff_check(&d, "TTL", "k", NULL);
    diff_check(&d, "OBJECT", "ENCODING", "k", NULL);
    diff_check(&d, "OBJECT", "FREQ", "k", NULL);
    diff_check(&d, "STRLEN", "k", NULL);
    diff_check(&d, "OBJECT", "FREQ", "k", NULL);
    diff_check(&d, "TOUCH", "k", "nokey", "k", NULL); /* TOUCH accesses each key */
    diff_check(&d, "OBJECT", "FREQ", "k", NULL);
    diff_check(&d, "APPEND", "k", "w", NULL);
    diff_check(&d, "OBJECT", "FREQ", "k", NULL);
    diff_check(&d, "SET", "k", "a value longer than forty-four bytes, so a new allocation", NULL);
    diff_check(&d, "OBJECT", "FREQ", "k", NULL); /* overwrite keeps the counter, +1 */
    /* (not 0..9999: Redis shares those objects and their counter) */
    diff_check(&d, "SET", "n", "100000", NULL);
    diff_check(&d, "INCR", "n", NULL);
    diff_check(&d, "INCR", "n", NULL);
    diff_check(&d, "OBJECT", "FREQ", "n", NULL);
    diff_check(&d, "HSET", "h", "f", "v", NULL);
    diff_check(&d, "HSET", "h", "g", "v", NULL);
    diff_check(&d, "HGET", "h", "f", NULL);
    diff_check(&d, "OBJECT", "FREQ", "h", NULL);
    diff_check(&d, "RPUSH", "l", "a", "b", NULL);
    diff_check(&d, "LRANGE", "l", "0", "-1", NULL);
    diff_check(&d, "OBJECT", "FREQ", "l", NULL);
    diff_check(&d, "RENAME", "l", "l2", NULL);
    diff_check(&d, "OBJECT", "FREQ", "l2", NULL);
    /* RESTORE: FREQ under LFU, IDLETIME ignored. */
    diff_check(&d, "SET", "src", "payload", NULL);
    /* Redis's DUMP payload: goblin-core restores it too (test_diff_dump). */
    size_t dump_len;
    char *dump = rconn_dump_payload(&d.r, "src", &dump_len);
    const char *restore_freq[] = {"RESTORE", "r1", "0", dump, "FREQ", "100"};
    size_t lens_freq[] = {7, 2, 1, dump_len, 4, 3};
    diff_check_argv(&d, 6, restore_freq, lens_freq);
    diff_check(&d, "OBJECT", "FREQ", "r1", NULL);
    const char *restore_idle[] = {"RESTORE", "r2", "0", dump, "IDLETIME", "1000"};
    size_t lens_idle[] = {7, 2, 1, dump_len, 8, 4};
    diff_check_argv(&d, 6, restore_idle, lens_idle);
    diff_check(&d, "OBJECT", "FREQ", "r2", NULL);
    free(dump);
    /* Back to an LRU policy: FREQ refuses, IDLETIME answers (its value is
     * the clock's: not compared). */
    diff_check(&d, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru", NULL);
    diff_check(&d, "OBJECT", "FREQ", "k", NULL);
    diff_check(&d, "OBJECT", "FREQ", "nokey", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-policy", "noeviction", NULL);
    diff_check(&d, "OBJECT", "FREQ", "k", NULL);
    /* Small integers are shared objects, except under maxmemory with an
     * LRU or LFU policy. */
    diff_check(&d, "SET", "i", "5", NULL);
    diff_check(&d, "OBJECT", "REFCOUNT", "i", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory", "1gb", "maxmemory-policy", "allkeys-lru", NULL);
    diff_check(&d, "SET", "i", "6", NULL);
    diff_check(&d, "OBJECT", "REFCOUNT", "i", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory-policy", "allkeys-random", NULL);
    diff_check(&d, "SET", "i", "7", NULL);
    diff_check(&d, "OBJECT", "REFCOUNT", "i", NULL);
    diff_check(&d, "CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "noeviction", NULL);
    diff_check(&d, "FLUSHALL", NULL);
}

static void run_all(void)
{
    diff_check(&d, "FLUSHALL", NULL);
    config_rows();
    lfu_counters();
}

int main(void)
{
    unsigned long long seed = test_seed("diff_eviction");
    diff_start(&d, "diff_eviction", seed, NULL, NULL);
    run_all();
    diff_hello3(&d);
    run_all();
    diff_stop(&d);
    return 0;
}
