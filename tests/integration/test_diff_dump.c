/* Differential: DUMP and RESTORE against redis-server 7.0. DUMP payloads of
 * values both servers encode alike (strings in every encoding, listpack
 * hashes and sorted sets) are byte-identical; payloads cross over both ways
 * (a goblin-core DUMP restores in redis-server and the reverse, tables and
 * skiplists included) and read back the same; every RESTORE error (options,
 * BUSYKEY, TTL, footer, body) gives Redis's text, in RESP2 and RESP3.
 * Corrupt bodies are compared with redis-server's sanitize-dump-payload
 * yes, the checks goblin-core always applies. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "persist/crc64.h"

static void restore_both(struct diff_pair *d, const char *key, const char *p, size_t len,
                         const char *opt)
{
    const char *argv[] = {"RESTORE", key, "0", p, opt};
    size_t lens[] = {7, strlen(key), 1, len, opt ? strlen(opt) : 0};
    diff_check_argv(d, opt ? 5 : 4, argv, lens);
}

/* A malformed body behind a valid footer: goblin-core answers OK or
 * Redis's "Bad data format", and is never more permissive than
 * redis-server with deep sanitization. (It can be stricter: Redis does
 * not check that a listpack score is a number; goblin-core refuses it.) */
static void restore_corrupt(struct diff_pair *d, const char *key, const char *p, size_t len)
{
    const char *argv[] = {"RESTORE", key, "0", p, "REPLACE"};
    size_t lens[] = {7, strlen(key), 1, len, 7};
    rconn_send_argv(&d->g, 5, argv, lens);
    rconn_send_argv(&d->r, 5, argv, lens);
    char *g = rconn_read_reply(&d->g, NULL);
    char *r = rconn_read_reply(&d->r, NULL);
    bool g_ok = strcmp(g, "+OK\r\n") == 0;
    CHECKF(g_ok || strcmp(g, "-ERR Bad data format\r\n") == 0, "corrupt RESTORE: %s", g);
    if (g_ok) { /* what was accepted must read back without harm */
        free(rconn_call(&d->g, "XINFO", "STREAM", key, "FULL", NULL));
        free(rconn_call(&d->g, "XREVRANGE", key, "+", "-", NULL));
    }
    CHECKF(!g_ok || strcmp(r, "+OK\r\n") == 0, "goblin-core accepted what Redis refused: %s", r);
    free(g);
    free(r);
    rconn_send(&d->g, "DEL", key, NULL);
    rconn_send(&d->r, "DEL", key, NULL);
    free(rconn_read_reply(&d->g, NULL));
    free(rconn_read_reply(&d->r, NULL));
}

/* Flips one byte of the body and fixes the footer: a well-formed envelope
 * around a malformed value ("Bad data format", not a checksum error). */
static void reseal(char *p, size_t len)
{
    uint64_t crc = crc64(0, p, len - 8);
    for (int i = 0; i < 8; i++) p[len - 8 + i] = (char)(crc >> (8 * i));
}

static void fill(struct diff_pair *d)
{
    diff_check(d, "SET", "s:int", "123456", NULL);
    diff_check(d, "SET", "s:neg", "-98765432101", NULL);
    diff_check(d, "SET", "s:emb", "hello", NULL);
    diff_check(d, "SET", "s:empty", "", NULL);
    char big[2001];
    for (int i = 0; i < 2000; i++) big[i] = "abcdefgh"[i % 8];
    big[2000] = '\0';
    diff_check(d, "SET", "s:raw", big, NULL);
    diff_check(d, "HSET", "h:lp", "f", "v", "n", "12", "neg", "-5000", "e", "", NULL);
    diff_check(d, "ZADD", "z:lp", "1", "a", "2.5", "b", "-3", "c", "inf", "d", "1e200", "e", NULL);
    /* Tables and skiplists: element order differs between servers, so
     * their payloads are only compared through what they restore to. */
    diff_check(d, "HSET", "h:ht", "f", big, NULL);
    diff_check(d, "ZADD", "z:sk", "1", big, NULL);
    for (int i = 0; i < 200; i++) {
        char f[32], v[32];
        snprintf(f, sizeof f, "f%d", i);
        snprintf(v, sizeof v, "%d", i * 37);
        diff_check(d, "HSET", "h:ht", f, v, NULL);
        diff_check(d, "ZADD", "z:sk", v, f, NULL);
    }
    /* Streams: without groups the payloads are identical; with a group
     * (its delivery and seen times differ) they restore alike. */
    for (int i = 1; i <= 40; i++) {
        char id[32], v[32];
        snprintf(id, sizeof id, "%d-%d", i, i % 3);
        snprintf(v, sizeof v, "%d", i * 1000);
        diff_check(d, "XADD", "x:plain", id, "f", v, i % 4 ? "g" : "h", "x", NULL);
        diff_check(d, "XADD", "x:groups", id, "f", v, NULL);
    }
    diff_check(d, "XDEL", "x:plain", "7-1", "8-2", NULL);
    diff_check(d, "XGROUP", "CREATE", "x:groups", "g", "0", NULL);
    diff_check(d, "XGROUP", "CREATE", "x:groups", "h", "$", NULL);
    diff_check(d, "XREADGROUP", "GROUP", "g", "c1", "COUNT", "5", "STREAMS", "x:groups", ">", NULL);
    diff_check(d, "XREADGROUP", "GROUP", "g", "c2", "COUNT", "3", "STREAMS", "x:groups", ">", NULL);
    diff_check(d, "XGROUP", "CREATECONSUMER", "x:groups", "h", "idle", NULL);
}

static void check_copy(struct diff_pair *d, const char *key)
{
    diff_check(d, "TYPE", key, NULL);
    diff_check(d, "OBJECT", "ENCODING", key, NULL);
    diff_check(d, "GET", key, NULL);
    diff_check(d, "HLEN", key, NULL);
    diff_check(d, "HGET", key, "f", NULL);
    diff_check(d, "HGET", key, "f150", NULL);
    diff_check(d, "ZRANGE", key, "0", "-1", "WITHSCORES", NULL);
    diff_check(d, "XINFO", "STREAM", key, "FULL", NULL);
}

static void run(struct diff_pair *d)
{
    static const char *const same[] = {"s:int", "s:neg", "s:emb", "s:empty",
                                       "s:raw", "h:lp",  "z:lp",  "x:plain"};
    static const char *const all[] = {"s:int", "s:neg", "s:emb", "s:empty", "s:raw",   "h:lp",
                                      "z:lp",  "h:ht",  "z:sk",  "x:plain", "x:groups"};
    fill(d);
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) diff_check(d, "DUMP", same[i], NULL);
    diff_check(d, "DUMP", "missing", NULL);
    diff_check(d, "DUMP", NULL);

    /* Cross-over: goblin's payload into both servers, then redis's. */
    for (int from_goblin = 0; from_goblin < 2; from_goblin++) {
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
            size_t len;
            char *p = rconn_dump_payload(from_goblin ? &d->g : &d->r, all[i], &len);
            char copy[64];
            snprintf(copy, sizeof copy, "copy:%s", all[i]);
            restore_both(d, copy, p, len, NULL);
            check_copy(d, copy);
            restore_both(d, copy, p, len, NULL); /* BUSYKEY */
            restore_both(d, copy, p, len, "REPLACE");
            check_copy(d, copy);
            diff_check(d, "DEL", copy, NULL);
            /* A corrupt body behind a valid footer, and a bad footer. */
            for (size_t at = 0; at + 10 < len; at += 1 + len / 16) {
                char *bad = malloc(len);
                memcpy(bad, p, len);
                bad[at] ^= 0x21;
                restore_both(d, copy, bad, len, NULL);
                reseal(bad, len);
                restore_corrupt(d, copy, bad, len);
                free(bad);
            }
            free(p);
        }
    }

    size_t len;
    char *p = rconn_dump_payload(&d->g, "s:emb", &len);
    const char *opts[][6] = {
        {"IDLETIME", "-1"},
        {"IDLETIME", "x"},
        {"IDLETIME", "100"},
        {"FREQ", "256"},
        {"FREQ", "-1"},
        {"FREQ", "5"},
        {"IDLETIME", "1", "FREQ", "2"},
        {"ABSTTL"},
        {"BOGUS"},
        {"IDLETIME"},
    };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        const char *argv[10] = {"RESTORE", "o", "0", p};
        size_t lens[10] = {7, 1, 1, len};
        int argc = 4;
        for (int k = 0; k < 6 && opts[i][k]; k++, argc++) {
            argv[argc] = opts[i][k];
            lens[argc] = strlen(opts[i][k]);
        }
        diff_check_argv(d, argc, argv, lens);
        diff_check(d, "GET", "o", NULL);
        diff_check(d, "DEL", "o", NULL);
    }
    /* TTLs: relative, absolute in the future, absolute in the past. */
    const char *ttls[][2] = {{"-1", NULL},
                             {"abc", NULL},
                             {"100000000", NULL},
                             {"1", "ABSTTL"},
                             {"4102444800000", "ABSTTL"}};
    for (size_t i = 0; i < sizeof ttls / sizeof ttls[0]; i++) {
        const char *argv[] = {"RESTORE", "t", ttls[i][0], p, ttls[i][1]};
        size_t lens[] = {7, 1, strlen(ttls[i][0]), len, ttls[i][1] ? strlen(ttls[i][1]) : 0};
        diff_check_argv(d, ttls[i][1] ? 5 : 4, argv, lens);
        diff_check(d, "EXISTS", "t", NULL);
        diff_check(d, "DEL", "t", NULL);
    }
    diff_check(d, "SET", "t", "x", NULL);
    {
        /* REPLACE with a TTL already past deletes the old key. */
        const char *argv[] = {"RESTORE", "t", "1", p, "ABSTTL", "REPLACE"};
        size_t lens[] = {7, 1, 1, len, 6, 7};
        diff_check_argv(d, 6, argv, lens);
        diff_check(d, "EXISTS", "t", NULL);
    }
    diff_check(d, "RESTORE", "t", "0", "short", NULL);
    diff_check(d, "RESTORE", "t", "0", "", NULL);
    diff_check(d, "RESTORE", "t", "0", NULL);
    free(p);
}

int main(void)
{
    unsigned long long seed = test_seed("diff_dump");
    /* goblin-core always checks payloads deeply: the reference does with
     * sanitize-dump-payload yes (its default, no, accepts e.g. a listpack
     * whose header miscounts its entries). */
    static const char *const redis_extra[] = {"--sanitize-dump-payload", "yes", NULL};
    struct diff_pair d;
    diff_start(&d, "diff_dump/resp2", seed, NULL, redis_extra);
    run(&d);
    diff_stop(&d);
    diff_start(&d, "diff_dump/resp3", seed, NULL, redis_extra);
    diff_hello3(&d);
    run(&d);
    diff_stop(&d);
    printf("test_diff_dump: ok\n");
    return 0;
}
