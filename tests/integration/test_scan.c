/*
 * SCAN, KEYS and RANDOMKEY semantics on goblin-core (their replies are
 * legitimately in hash order or random, so they are not byte-compared with
 * redis-server; the error cases are, in test_diff_strings.c):
 *  - SCAN returns every key present for the whole scan at least once, while
 *    the table grows and shrinks (incremental rehash) between calls;
 *  - MATCH and TYPE filter exactly; COUNT is accepted and a COUNT larger
 *    than the database finishes the scan in one call;
 *  - expired keys are never returned by SCAN, KEYS or RANDOMKEY;
 *  - RANDOMKEY returns an existing key, nil on an empty database.
 */
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define BASE_KEYS 2000

static redisContext *c;

static redisReply *cmd(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    CHECKF(r, "connection error: %s", c->errstr);
    return r;
}

static void ok(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    CHECKF(r && r->type != REDIS_REPLY_ERROR, "'%s' failed: %s", fmt, r ? r->str : c->errstr);
    freeReplyObject(r);
}

/* Pipelines `n` commands built by fmt with index i, then reads all replies. */
static void pipeline(const char *fmt, int from, int n)
{
    for (int i = from; i < from + n; i++) redisAppendCommand(c, fmt, i);
    for (int i = 0; i < n; i++) {
        redisReply *r;
        CHECK(redisGetReply(c, (void **)&r) == REDIS_OK);
        CHECKF(r->type != REDIS_REPLY_ERROR, "%s", r->str);
        freeReplyObject(r);
    }
}

/* Which of key:0..BASE_KEYS-1 a scan returned, and anything unexpected. */
struct seen {
    unsigned char base[BASE_KEYS];
    long long others; /* keys not named key:N */
    long long total;
};

static void note_key(struct seen *s, const char *k, size_t len)
{
    int n;
    char tail;
    if (len < 32 && sscanf(k, "key:%d%c", &n, &tail) == 1 && n >= 0 && n < BASE_KEYS)
        s->base[n] = 1;
    else
        s->others++;
    s->total++;
}

/* One SCAN call with options; notes the keys; returns the next cursor. */
static unsigned long long scan_step(unsigned long long cursor, const char *opts, struct seen *s)
{
    char line[256];
    snprintf(line, sizeof line, "SCAN %llu %s", cursor, opts);
    const char *argv[16];
    int argc = 0;
    for (char *save, *w = strtok_r(line, " ", &save); w && argc < 16;
         w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    redisReply *r = redisCommandArgv(c, argc, argv, NULL);
    CHECKF(r, "connection error: %s", c->errstr);
    CHECKF(r->type == REDIS_REPLY_ARRAY && r->elements == 2, "bad SCAN reply to 'SCAN %llu %s'",
           cursor, opts);
    CHECK(r->element[0]->type == REDIS_REPLY_STRING);
    CHECK(r->element[1]->type == REDIS_REPLY_ARRAY);
    unsigned long long next = strtoull(r->element[0]->str, NULL, 10);
    for (size_t i = 0; i < r->element[1]->elements; i++) {
        redisReply *k = r->element[1]->element[i];
        CHECK(k->type == REDIS_REPLY_STRING);
        note_key(s, k->str, k->len);
    }
    freeReplyObject(r);
    return next;
}

static void full_scan(const char *opts, struct seen *s)
{
    memset(s, 0, sizeof *s);
    unsigned long long cursor = 0;
    int steps = 0;
    do {
        cursor = scan_step(cursor, opts, s);
        CHECKF(++steps < 1000000, "SCAN did not terminate");
    } while (cursor != 0);
}

static long long count_base(const struct seen *s)
{
    long long n = 0;
    for (int i = 0; i < BASE_KEYS; i++) n += s->base[i];
    return n;
}

static void test_empty(void)
{
    redisReply *r = cmd("SCAN 0");
    CHECK(r->type == REDIS_REPLY_ARRAY && r->elements == 2);
    CHECK(strcmp(r->element[0]->str, "0") == 0 && r->element[1]->elements == 0);
    freeReplyObject(r);
    r = cmd("RANDOMKEY");
    CHECK(r->type == REDIS_REPLY_NIL);
    freeReplyObject(r);
}

/* Keys present for the whole scan are all returned, across a growth of the
 * table to several times its size and a shrink back, mid-scan. */
static void test_scan_during_resize(void)
{
    pipeline("SET key:%d v", 0, BASE_KEYS);
    struct seen s = {0};
    unsigned long long cursor = 0;
    int steps = 0, extra = 0;
    do {
        cursor = scan_step(cursor, "COUNT 7", &s);
        steps++;
        if (steps < 200) {
            pipeline("SET extra:%d v", extra, 40); /* grow: 8000 more keys in all */
            extra += 40;
        } else if (steps == 200) {
            for (int i = 0; i < extra; i++) redisAppendCommand(c, "DEL extra:%d", i);
            for (int i = 0; i < extra; i++) {
                redisReply *r;
                CHECK(redisGetReply(c, (void **)&r) == REDIS_OK);
                freeReplyObject(r);
            }
        }
        CHECKF(steps < 1000000, "SCAN did not terminate");
    } while (cursor != 0);
    CHECKF(count_base(&s) == BASE_KEYS, "SCAN missed %lld of %d stable keys",
           BASE_KEYS - count_base(&s), BASE_KEYS);
    fprintf(stderr, "scan: %d steps, %lld keys returned (%lld extra)\n", steps, s.total, s.others);

    /* Plain full scans: each stable key at least once, nothing else. */
    full_scan("", &s);
    CHECK(count_base(&s) == BASE_KEYS && s.others == 0);
    full_scan("COUNT 1", &s);
    CHECK(count_base(&s) == BASE_KEYS && s.others == 0);
}

static void test_match_type_count(void)
{
    struct seen s;
    full_scan("MATCH key:1* COUNT 50", &s);
    long long expected = 0;
    for (int i = 0; i < BASE_KEYS; i++) {
        char k[32];
        snprintf(k, sizeof k, "key:%d", i);
        bool match = k[4] == '1';
        expected += match;
        CHECKF(s.base[i] == match, "MATCH key:1* and %s", k);
    }
    CHECK(s.others == 0 && s.total >= expected);

    full_scan("MATCH * TYPE string", &s);
    CHECK(count_base(&s) == BASE_KEYS && s.others == 0);
    full_scan("TYPE STRING", &s); /* the type name is case-insensitive */
    CHECK(count_base(&s) == BASE_KEYS && s.others == 0);
    full_scan("TYPE nosuchtype", &s);
    CHECK(s.total == 0);

    /* Other types: a hash is never listed as a string. */
    redisReply *r = cmd("HSET hash:1 f v");
    CHECKF(r->type == REDIS_REPLY_INTEGER, "HSET answered type %d", r->type);
    freeReplyObject(r);
    full_scan("TYPE hash", &s);
    CHECK(s.total == 1);
    full_scan("TYPE string MATCH hash:*", &s);
    CHECK(s.total == 0);
    ok("DEL hash:1");

    /* A COUNT above the database size completes the scan in one call. */
    memset(&s, 0, sizeof s);
    CHECK(scan_step(0, "COUNT 100000", &s) == 0);
    CHECK(count_base(&s) == BASE_KEYS && s.others == 0 && s.total == BASE_KEYS);
}

/* Expired keys never show up, whichever command looks. */
static void test_expired_hidden(void)
{
    ok("SELECT 3");
    pipeline("SET tmp:%d v PX 1", 0, 200);
    pipeline("SET key:%d v", 0, 20);
    usleep(50 * 1000); /* every tmp key is past its expiry time now */
    struct seen s;
    /* SCAN may return a key twice (the table shrinks as expired keys go),
     * so count distinct live keys, and require no expired one at all. */
    full_scan("COUNT 3", &s);
    CHECKF(count_base(&s) == 20 && s.others == 0,
           "SCAN returned %lld distinct live keys and %lld others; expected the 20 live ones only",
           count_base(&s), s.others);
    redisReply *r = cmd("KEYS *");
    CHECK(r->type == REDIS_REPLY_ARRAY && r->elements == 20);
    for (size_t i = 0; i < r->elements; i++) CHECK(strncmp(r->element[i]->str, "key:", 4) == 0);
    freeReplyObject(r);
    for (int i = 0; i < 50; i++) {
        r = cmd("RANDOMKEY");
        CHECK(r->type == REDIS_REPLY_STRING && strncmp(r->str, "key:", 4) == 0);
        freeReplyObject(r);
    }

    /* A database holding only expired keys has no random key. */
    ok("SELECT 4");
    pipeline("SET gone:%d v PX 1", 0, 20);
    usleep(50 * 1000);
    r = cmd("RANDOMKEY");
    CHECK(r->type == REDIS_REPLY_NIL);
    freeReplyObject(r);
    ok("SELECT 0");
}

static void test_randomkey(void)
{
    char first[64] = "";
    bool varied = false;
    for (int i = 0; i < 200; i++) {
        redisReply *r = cmd("RANDOMKEY");
        CHECK(r->type == REDIS_REPLY_STRING);
        redisReply *e = cmd("EXISTS %b", r->str, r->len);
        CHECKF(e->type == REDIS_REPLY_INTEGER && e->integer == 1, "RANDOMKEY gave absent %s",
               r->str);
        freeReplyObject(e);
        if (!first[0])
            snprintf(first, sizeof first, "%s", r->str);
        else if (strcmp(first, r->str) != 0)
            varied = true;
        freeReplyObject(r);
    }
    CHECKF(varied, "200 RANDOMKEY calls over %d keys all returned %s", BASE_KEYS, first);
}

static struct test_server s;

int main(void)
{
    test_server_start(&s, TEST_SERVER_GOBLIN, NULL);
    c = redisConnect("127.0.0.1", s.port);
    CHECK(c && !c->err);

    test_empty();
    test_scan_during_resize();
    test_match_type_count();
    test_randomkey();
    test_expired_hidden();

    redisFree(c);
    test_server_stop(&s);
    return 0;
}
