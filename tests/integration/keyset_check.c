/*
 * keyset_check — writes a known set of keys of every type through any Redis
 * endpoint (a proxy, a node) and reads every one back, with hiredis.
 *
 *   keyset_check write HOST PORT COUNT TYPES
 *   keyset_check read  HOST PORT COUNT TYPES
 *
 * TYPES is a comma-separated subset of string,hash,zset,list,set. Key i of
 * type t is "ks:t:i"; its value is a function of i, so `read` checks every
 * value, not just that a key exists. Requests are pipelined in batches of
 * 500 (twemproxy splits them across its servers).
 *
 * Output: one line "ok=N missing=N wrong=N errors=N" (read) or
 * "ok=N errors=N" (write). Exit status 0 only when every key was ok; the
 * caller may parse the counts instead (a node stopped behind a proxy).
 */
#define _POSIX_C_SOURCE 200809L
#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 500

enum key_type { T_STRING, T_HASH, T_ZSET, T_LIST, T_SET, T_COUNT };
static const char *const type_names[T_COUNT] = {"string", "hash", "zset", "list", "set"};

struct counts {
    long ok, missing, wrong, errors;
};

static void append_write(redisContext *c, enum key_type t, long i)
{
    switch (t) {
    case T_STRING:
        redisAppendCommand(c, "SET ks:string:%ld v%ld", i, i);
        break;
    case T_HASH:
        redisAppendCommand(c, "HSET ks:hash:%ld a %ld b %ld", i, i, i * 2);
        break;
    case T_ZSET:
        redisAppendCommand(c, "ZADD ks:zset:%ld %ld x %ld y", i, i, i + 1);
        break;
    case T_LIST:
        /* RPUSH appends: the DEL before it makes a rewrite idempotent
         * (its reply is read and dropped by the caller). */
        redisAppendCommand(c, "DEL ks:list:%ld", i);
        redisAppendCommand(c, "RPUSH ks:list:%ld h%ld t%ld", i, i, i);
        break;
    case T_SET:
        redisAppendCommand(c, "SADD ks:set:%ld %ld m%ld", i, i, i);
        break;
    default:
        abort();
    }
}

static void append_read(redisContext *c, enum key_type t, long i)
{
    switch (t) {
    case T_STRING:
        redisAppendCommand(c, "GET ks:string:%ld", i);
        break;
    case T_HASH:
        redisAppendCommand(c, "HMGET ks:hash:%ld a b", i);
        break;
    case T_ZSET:
        redisAppendCommand(c, "ZRANGE ks:zset:%ld 0 -1 WITHSCORES", i);
        break;
    case T_LIST:
        redisAppendCommand(c, "LRANGE ks:list:%ld 0 -1", i);
        break;
    case T_SET:
        redisAppendCommand(c, "SMEMBERS ks:set:%ld", i);
        break;
    default:
        abort();
    }
}

static bool elements_are(const redisReply *r, const char *const *want, size_t n)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements != n) return false;
    for (size_t k = 0; k < n; k++) {
        const redisReply *e = r->element[k];
        if (e->type != REDIS_REPLY_STRING || strcmp(e->str, want[k]) != 0) return false;
    }
    return true;
}

/* Classifies the reply to append_read(t, i). */
static void judge_read(const redisReply *r, enum key_type t, long i, struct counts *n)
{
    char a[32], b[32], d[32], e[32];
    bool empty = false, right = false;
    snprintf(a, sizeof a, "%ld", i);
    switch (t) {
    case T_STRING:
        snprintf(b, sizeof b, "v%ld", i);
        empty = r->type == REDIS_REPLY_NIL;
        right = r->type == REDIS_REPLY_STRING && strcmp(r->str, b) == 0;
        break;
    case T_HASH: {
        snprintf(b, sizeof b, "%ld", i * 2);
        const char *want[] = {a, b};
        empty = r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                r->element[0]->type == REDIS_REPLY_NIL && r->element[1]->type == REDIS_REPLY_NIL;
        right = elements_are(r, want, 2);
        break;
    }
    case T_ZSET: {
        snprintf(b, sizeof b, "%ld", i + 1);
        const char *want[] = {"x", a, "y", b};
        empty = r->type == REDIS_REPLY_ARRAY && r->elements == 0;
        right = elements_are(r, want, 4);
        break;
    }
    case T_LIST: {
        snprintf(d, sizeof d, "h%ld", i);
        snprintf(e, sizeof e, "t%ld", i);
        const char *want[] = {d, e};
        empty = r->type == REDIS_REPLY_ARRAY && r->elements == 0;
        right = elements_are(r, want, 2);
        break;
    }
    case T_SET: {
        snprintf(d, sizeof d, "m%ld", i);
        const char *want[] = {a, d}, *swapped[] = {d, a};
        empty = r->type == REDIS_REPLY_ARRAY && r->elements == 0;
        right = elements_are(r, want, 2) || elements_are(r, swapped, 2);
        break;
    }
    default:
        abort();
    }
    if (r->type == REDIS_REPLY_ERROR) {
        n->errors++;
    } else if (right) {
        n->ok++;
    } else if (empty) {
        n->missing++;
    } else {
        n->wrong++;
        if (n->wrong <= 5)
            fprintf(stderr, "keyset_check: wrong value for %s key %ld\n", type_names[t], i);
    }
}

static unsigned parse_types(const char *list)
{
    unsigned mask = 0;
    char *copy = strdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int t = 0;
        while (t < T_COUNT && strcmp(tok, type_names[t]) != 0) t++;
        if (t == T_COUNT) {
            fprintf(stderr, "keyset_check: unknown type '%s'\n", tok);
            exit(2);
        }
        mask |= 1u << t;
    }
    free(copy);
    return mask;
}

int main(int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
        fprintf(stderr, "usage: keyset_check write|read HOST PORT COUNT TYPES\n");
        return 2;
    }
    bool writing = strcmp(argv[1], "write") == 0;
    long count = atol(argv[4]);
    unsigned types = parse_types(argv[5]);
    struct timeval timeout = {10, 0};
    redisContext *c = redisConnectWithTimeout(argv[2], atoi(argv[3]), timeout);
    if (!c || c->err) {
        fprintf(stderr, "keyset_check: cannot connect to %s:%s: %s\n", argv[2], argv[3],
                c ? c->errstr : "out of memory");
        return 1;
    }
    redisSetTimeout(c, timeout);
    struct counts n = {0};
    for (int t = 0; t < T_COUNT; t++) {
        if (!(types & (1u << t))) continue;
        for (long base = 0; base < count; base += BATCH) {
            long end = base + BATCH < count ? base + BATCH : count;
            for (long i = base; i < end; i++) {
                if (writing)
                    append_write(c, t, i);
                else
                    append_read(c, t, i);
            }
            for (long i = base; i < end; i++) {
                redisReply *r = NULL;
                if (writing && t == T_LIST) { /* the DEL of append_write() */
                    if (redisGetReply(c, (void **)&r) != REDIS_OK) {
                        fprintf(stderr, "keyset_check: connection lost: %s\n", c->errstr);
                        return 1;
                    }
                    freeReplyObject(r);
                    r = NULL;
                }
                if (redisGetReply(c, (void **)&r) != REDIS_OK) {
                    fprintf(stderr, "keyset_check: connection lost: %s\n", c->errstr);
                    return 1;
                }
                if (writing) {
                    if (r->type == REDIS_REPLY_ERROR)
                        n.errors++;
                    else
                        n.ok++;
                } else {
                    judge_read(r, t, i, &n);
                }
                freeReplyObject(r);
            }
        }
    }
    redisFree(c);
    if (writing)
        printf("ok=%ld errors=%ld\n", n.ok, n.errors);
    else
        printf("ok=%ld missing=%ld wrong=%ld errors=%ld\n", n.ok, n.missing, n.wrong, n.errors);
    return n.missing || n.wrong || n.errors ? 1 : 0;
}
