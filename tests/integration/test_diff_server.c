/* Differential: connection and server commands (PING/ECHO/SELECT/SWAPDB/
 * FLUSHALL/FLUSHDB/CONFIG/CLIENT/HELLO/AUTH/COMMAND and dispatch errors, the
 * sections INFO gives) answer exactly
 * as redis-server does, with and without a password, in RESP2 and RESP3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/* The "# Section" header lines of an INFO reply, in order, space-separated
 * (the fields' values differ between the servers; which sections a request
 * gives, and their order, must not: client libraries look for them). */
static void info_headers(const char *reply, char *out, size_t cap)
{
    /* A bulk (RESP2) or verbatim (RESP3) reply: the text follows the first line. */
    const char *line = strstr(reply, "\r\n") + 2;
    if (strncmp(line, "txt:", 4) == 0) line += 4;
    size_t used = 0;
    out[0] = '\0';
    while (line && *line) {
        const char *end = strstr(line, "\r\n");
        if (strncmp(line, "# ", 2) == 0) {
            int n = end ? (int)(end - line) : (int)strlen(line);
            used += (size_t)snprintf(out + used, cap - used, "%.*s ", n, line);
            CHECK(used < cap);
        }
        line = end ? end + 2 : NULL;
    }
}

static void info_sections(struct diff_pair *d)
{
    static const char *const requests[][4] = {
        {"INFO"},
        {"INFO", "default"},
        {"INFO", "modules"},
        {"INFO", "modules", "cpu"},
        {"INFO", "server", "modules", "keyspace"},
    };
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
        int argc = 1;
        while (argc < 4 && requests[i][argc]) argc++;
        char *g, *r, gh[512], rh[512];
        size_t glen, rlen;
        diff_exchange(d, argc, requests[i], NULL, &g, &glen, &r, &rlen);
        info_headers(g, gh, sizeof gh);
        info_headers(r, rh, sizeof rh);
        CHECKF(strcmp(gh, rh) == 0, "INFO %s: goblin's sections '%s', redis-server's '%s'",
               argc > 1 ? requests[i][1] : "", gh, rh);
        free(g);
        free(r);
    }
}

static void common_commands(struct diff_pair *d)
{
    info_sections(d);
    diff_check(d, "PING", NULL);
    diff_check(d, "PING", "x", NULL);
    diff_check(d, "PING", "x", "y", NULL);
    diff_check(d, "ECHO", NULL);
    diff_check(d, "ECHO", "a b", NULL);
    diff_check(d, "NOSUCH", NULL);
    diff_check(d, "nosuch", "with", "args", NULL);
    diff_check(d, "SELECT", "-1", NULL);
    diff_check(d, "SELECT", "16", NULL);
    diff_check(d, "SELECT", "1.5", NULL);
    diff_check(d, "SELECT", "2147483648", NULL);
    diff_check(d, "SELECT", "-2147483649", NULL);
    diff_check(d, "SELECT", "99999999999999999999", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "-1", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "0", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "abc", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "123456789", "x", NULL);
    diff_check(d, "DEBUG", "SLEEP", "0", NULL);
    diff_check(d, "DEBUG", NULL);
    diff_check(d, "SELECT", "15", NULL);
    diff_check(d, "SET", "k", "in15", NULL);
    diff_check(d, "SWAPDB", "0", "15", NULL);
    diff_check(d, "SWAPDB", "0", "16", NULL);
    diff_check(d, "SWAPDB", "x", "1", NULL);
    diff_check(d, "SWAPDB", "1", "x", NULL);
    diff_check(d, "SWAPDB", "1", NULL);
    diff_check(d, "GET", "k", NULL);
    diff_check(d, "SELECT", "0", NULL);
    diff_check(d, "GET", "k", NULL);
    diff_check(d, "DBSIZE", NULL);
    diff_check(d, "DBSIZE", "x", NULL);
    diff_check(d, "FLUSHDB", "bogus", NULL);
    diff_check(d, "FLUSHDB", "ASYNC", "SYNC", NULL);
    diff_check(d, "FLUSHDB", "SYNC", NULL);
    diff_check(d, "FLUSHALL", "async", NULL);
    diff_check(d, "FLUSHALL", NULL);
    diff_check(d, "DBSIZE", NULL);

    /* CONFIG: the parameters both servers share, and the error paths. */
    diff_check(d, "CONFIG", NULL);
    diff_check(d, "CONFIG", "GET", NULL);
    diff_check(d, "CONFIG", "BOGUS", NULL);
    diff_check(d, "CONFIG", "GET", "maxclients", NULL);
    /* One parameter per GET: with several, Redis orders the pairs by its
     * internal table, not by the request. */
    static const char *const shared_params[] = {"databases",
                                                "timeout",
                                                "save",
                                                "appendonly",
                                                "proto-max-bulk-len",
                                                "client-query-buffer-limit",
                                                "maxmemory",
                                                "maxmemory-policy",
                                                "hz",
                                                "TIMEOUT",
                                                "tcp-keepalive",
                                                "tcp-backlog",
                                                "dbfilename",
                                                "rdbcompression",
                                                "rdbchecksum",
                                                "stop-writes-on-bgsave-error",
                                                NULL};
    for (int i = 0; shared_params[i]; i++) diff_check(d, "CONFIG", "GET", shared_params[i], NULL);
    diff_check(d, "CONFIG", "GET", "no-such-parameter", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "5", "hz", NULL);
    diff_check(d, "CONFIG", "SET", "no-such", "1", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "abc", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "-1", NULL);
    diff_check(d, "CONFIG", "SET", "databases", "4", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "1", "timeout", "2", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "30", "maxclients", "many", NULL);
    diff_check(d, "CONFIG", "GET", "timeout", NULL); /* unchanged: all or nothing */
    diff_check(d, "CONFIG", "SET", "timeout", "30", "hz", "20", NULL);
    diff_check(d, "CONFIG", "GET", "timeout", NULL);
    diff_check(d, "CONFIG", "GET", "hz", NULL);
    diff_check(d, "CONFIG", "SET", "hz", "5000", NULL);
    diff_check(d, "CONFIG", "GET", "hz", NULL);
    diff_check(d, "CONFIG", "SET", "hz", "0", NULL);
    diff_check(d, "CONFIG", "GET", "hz", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "0", "hz", "10", NULL);
    diff_check(d, "CONFIG", "SET", "maxclients", "0", NULL);
    diff_check(d, "CONFIG", "SET", "save", "", "appendonly", "no", NULL);
    /* client-output-buffer-limit: Redis's syntax, classes, rendering and errors. */
    diff_check(d, "CONFIG", "GET", "client-output-buffer-limit", NULL);
    diff_check(d, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 64mb 16mb 30", NULL);
    diff_check(d, "CONFIG", "GET", "client-output-buffer-limit", NULL);
    diff_check(d, "CONFIG", "SET", "client-output-buffer-limit",
               "normal 1gb 512mb 10 replica 1k 2K 3", NULL);
    diff_check(d, "CONFIG", "GET", "client-output-buffer-limit", NULL);
    diff_check(d, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 1 2", NULL);
    diff_check(d, "CONFIG", "SET", "client-output-buffer-limit", "master 1 2 3", NULL);
    diff_check(d, "CONFIG", "SET", "client-output-buffer-limit", "pubsub x 2 3", NULL);
    diff_check(d, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 1 2 -3", NULL);
    diff_check(d, "CONFIG", "SET", "client-output-buffer-limit", "normal 5 5 5 pubsub 1 2", NULL);
    diff_check(d, "CONFIG", "GET", "client-output-buffer-limit", NULL); /* unchanged */
    diff_check(d, "CONFIG", "SET", "client-output-buffer-limit",
               "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", NULL);
    /* maxmemory under noeviction: writes that may grow get OOM, reads,
     * deletes and commands that cannot grow the data set still run. */
    diff_check(d, "SET", "mm", "before", NULL);
    diff_check(d, "CONFIG", "SET", "maxmemory", "1", NULL);
    diff_check(d, "CONFIG", "GET", "maxmemory", NULL);
    diff_check(d, "SET", "mm2", "v", NULL);
    diff_check(d, "SET", "mm", "after", NULL);
    diff_check(d, "APPEND", "mm", "x", NULL);
    diff_check(d, "INCR", "counter", NULL);
    diff_check(d, "HSET", "h", "f", "v", NULL);
    diff_check(d, "ZADD", "z", "1", "m", NULL);
    diff_check(d, "GET", "mm", NULL);
    diff_check(d, "EXPIRE", "mm", "100", NULL);
    diff_check(d, "PERSIST", "mm", NULL);
    diff_check(d, "DEL", "mm", NULL);
    diff_check(d, "PING", NULL);
    diff_check(d, "CONFIG", "SET", "maxmemory", "lots", NULL);
    diff_check(d, "CONFIG", "SET", "maxmemory", "0", NULL);
    diff_check(d, "SET", "mm", "again", NULL);
    diff_check(d, "DEL", "mm", NULL);
    diff_check(d, "CONFIG", "RESETSTAT", NULL);
    diff_check(d, "CONFIG", "RESETSTAT", "x", NULL);
    diff_check(d, "CONFIG", "REWRITE", NULL);

    /* CLIENT. */
    diff_check(d, "CLIENT", NULL);
    diff_check(d, "CLIENT", "BOGUS", NULL);
    diff_check(d, "CLIENT", "GETNAME", NULL);
    diff_check(d, "CLIENT", "SETNAME", "has space", NULL);
    diff_check(d, "CLIENT", "SETNAME", "new\nline", NULL);
    diff_check(d, "CLIENT", "SETNAME", "ok-name", NULL);
    diff_check(d, "CLIENT", "GETNAME", NULL);
    diff_check(d, "CLIENT", "SETNAME", "", NULL);
    diff_check(d, "CLIENT", "GETNAME", NULL);
    diff_check(d, "CLIENT", "KILL", "1.2.3.4:5", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "999999", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "0", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "1", "SKIPME", "maybe", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", NULL);
    diff_check(d, "CLIENT", "KILL", "TYPE", "bogus", NULL);
    diff_check(d, "CLIENT", "KILL", "BOGUS", "1", NULL);
    diff_check(d, "CLIENT", "LIST", "TYPE", "bogus", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "abc", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "999999", NULL);
    diff_check(d, "CLIENT", "LIST", "BOGUS", NULL);
    diff_check(d, "CLIENT", "NO-EVICT", "on", NULL);
    diff_check(d, "CLIENT", "NO-EVICT", "maybe", NULL);
    diff_check(d, "CLIENT", "ID", "extra", NULL);

    /* HELLO errors (the success map names the server and differs). */
    diff_check(d, "HELLO", "4", NULL);
    diff_check(d, "HELLO", "1", NULL);
    diff_check(d, "HELLO", "abc", NULL);
    diff_check(d, "HELLO", "3", "BOGUS", NULL);
    diff_check(d, "HELLO", "3", "SETNAME", NULL);
    diff_check(d, "HELLO", "3", "SETNAME", "bad name", NULL);

    /* COMMAND lookups whose answers do not depend on the table's size. */
    diff_check(d, "COMMAND", "INFO", "nosuch", NULL);
    diff_check(d, "COMMAND", "DOCS", "nosuch", NULL);
    diff_check(d, "COMMAND", "BOGUS", NULL);
    diff_check(d, "COMMAND", "COUNT", "x", NULL);
}

static void auth_commands(const char *name, unsigned long long seed)
{
    const char *const extra[] = {"--requirepass", "s3cret", NULL};
    struct diff_pair d;
    diff_start(&d, name, seed, extra, extra);
    /* Existence and arity are checked before authentication, as Redis does. */
    diff_check(&d, "NOSUCH", NULL);
    diff_check(&d, "GET", NULL);
    diff_check(&d, "GET", "k", NULL);
    diff_check(&d, "PING", NULL);
    diff_check(&d, "CONFIG", "GET", "timeout", NULL);
    diff_check(&d, "CLIENT", "ID", NULL);
    diff_check(&d, "HELLO", "3", NULL);
    diff_check(&d, "HELLO", "2", "AUTH", "default", "wrong", NULL);
    diff_check(&d, "AUTH", "wrong", NULL);
    diff_check(&d, "AUTH", "nobody", "s3cret", NULL);
    diff_check(&d, "AUTH", "a", "b", "c", NULL);
    diff_check(&d, "GET", "k", NULL);
    diff_check(&d, "AUTH", "s3cret", NULL);
    diff_check(&d, "GET", "k", NULL);
    diff_check(&d, "SET", "k", "v", NULL);
    diff_check(&d, "AUTH", "default", "s3cret", NULL);
    diff_check(&d, "AUTH", "default", "wrong", NULL);
    diff_check(&d, "GET", "k", NULL); /* a failed AUTH does not log the client out */

    /* HELLO with AUTH on a fresh connection authenticates it. */
    struct rconn g, r;
    diff_open_extra(&d, &g, &r);
    const char *hello[] = {"HELLO", "2", "AUTH", "default", "s3cret"};
    rconn_send_argv(&g, 5, hello, NULL);
    rconn_send_argv(&r, 5, hello, NULL);
    char *gr = rconn_read_reply(&g, NULL), *rr = rconn_read_reply(&r, NULL);
    CHECKF(gr[0] == '*' && rr[0] == '*', "HELLO 2 AUTH answered %c / %c", gr[0], rr[0]);
    free(gr);
    free(rr);
    const char *get[] = {"GET", "k"};
    rconn_send_argv(&g, 2, get, NULL);
    gr = rconn_read_reply(&g, NULL);
    CHECK_STR(gr, "$1\r\nv\r\n");
    free(gr);
    rconn_close(&g);
    rconn_close(&r);
    diff_stop(&d);
}

/* --- several clients: CLIENT LIST and CLIENT KILL filters ----------------- */

/* One client connected the same way to both servers. */
struct peer {
    struct rconn g, r;
    char gid[32], rid[32];         /* CLIENT ID on each server */
    char gaddr[160], raddr[160];   /* addr= on each */
    char gladdr[160], rladdr[160]; /* laddr= on each */
};

/* A field of a CLIENT LIST line (`line` ends at '\n' or NUL). */
static void field_of(const char *line, const char *key, char *out, size_t cap)
{
    size_t klen = strlen(key);
    out[0] = '\0';
    for (const char *p = line; *p && *p != '\n';) {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t n = strcspn(v, " \n");
            if (n >= cap) n = cap - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return;
        }
        p += strcspn(p, " \n");
        if (*p == ' ') p++;
    }
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* CLIENT LIST's reply reduced to what must agree between the servers: one
 * entry per client (sorted) with its name, whether it is a Pub/Sub client,
 * db, subscription counts, user and protocol. Ids, ports, ages, fds, memory
 * figures and flags other than P legitimately differ. */
static char *normalize_client_list(const char *reply)
{
    if (reply[0] == '-') return strdup(reply);
    const char *text = strstr(reply, "\r\n");
    CHECKF(text && (reply[0] == '$' || reply[0] == '='), "CLIENT LIST answered %s", reply);
    text += 2;
    if (reply[0] == '=') text += 4; /* "txt:" */
    char *entries[64];
    int n = 0;
    for (const char *line = text; *line && *line != '\r'; line = strchr(line, '\n') + 1) {
        CHECK(n < 64);
        char name[2048], flags[32], db[16], sub[16], psub[16], ssub[16], user[64], resp[8];
        field_of(line, "name", name, sizeof name);
        field_of(line, "flags", flags, sizeof flags);
        field_of(line, "db", db, sizeof db);
        field_of(line, "sub", sub, sizeof sub);
        field_of(line, "psub", psub, sizeof psub);
        field_of(line, "ssub", ssub, sizeof ssub);
        field_of(line, "user", user, sizeof user);
        field_of(line, "resp", resp, sizeof resp);
        size_t cap = sizeof name + 256;
        entries[n] = malloc(cap);
        snprintf(entries[n], cap, "name=%s pubsub=%s db=%s sub=%s psub=%s ssub=%s user=%s resp=%s",
                 name, strchr(flags, 'P') ? "yes" : "no", db, sub, psub, ssub, user, resp);
        n++;
        CHECK(strchr(line, '\n'));
    }
    qsort(entries, (size_t)n, sizeof entries[0], compare_strings);
    struct buf out;
    buf_init(&out, 256);
    for (int i = 0; i < n; i++) {
        buf_append(&out, entries[i], strlen(entries[i]));
        buf_append_char(&out, '\n');
        free(entries[i]);
    }
    buf_append_char(&out, '\0');
    return out.data;
}

/* Sends a command whose arguments may differ per server (an id, an
 * address) and fails unless the replies (normalized when `list`) agree. */
static void check_per_server(struct diff_pair *d, struct rconn *g, struct rconn *r, int argc,
                             const char *const *gargv, const char *const *rargv, bool list)
{
    rconn_send_argv(g, argc, gargv, NULL);
    rconn_send_argv(r, argc, rargv, NULL);
    char *gr = rconn_read_reply(g, NULL), *rr = rconn_read_reply(r, NULL);
    char *gn = list ? normalize_client_list(gr) : strdup(gr);
    char *rn = list ? normalize_client_list(rr) : strdup(rr);
    if (strcmp(gn, rn) != 0) {
        fprintf(stderr, "%s: MISMATCH on", d->name);
        for (int i = 0; i < argc; i++) fprintf(stderr, " '%.80s'", rargv[i]);
        fprintf(stderr, "\n  redis-server: %s\n  goblin-core:  %s\n", rn, gn);
        exit(1);
    }
    free(gr), free(rr), free(gn), free(rn);
    d->commands++;
}

static void check_list(struct diff_pair *d, int argc, const char *const *argv)
{
    check_per_server(d, &d->g, &d->r, argc, argv, argv, true);
}

#define LIST(...)                                                                                  \
    do {                                                                                           \
        const char *const argv_[] = {__VA_ARGS__};                                                 \
        check_list(d, (int)(sizeof argv_ / sizeof argv_[0]), argv_);                               \
    } while (0)

/* Both connections of a pair run the same setup command; replies must agree
 * in kind (HELLO's map names the server). */
static void both_call(struct rconn *g, struct rconn *r, int argc, const char *const *argv)
{
    rconn_send_argv(g, argc, argv, NULL);
    rconn_send_argv(r, argc, argv, NULL);
    char *gr = rconn_read_reply(g, NULL), *rr = rconn_read_reply(r, NULL);
    CHECKF(gr[0] == rr[0], "setup '%s' answered goblin %s / redis %s", argv[0], gr, rr);
    free(gr);
    free(rr);
}

#define BOTH(p, ...)                                                                               \
    do {                                                                                           \
        const char *const argv_[] = {__VA_ARGS__};                                                 \
        both_call(&(p)->g, &(p)->r, (int)(sizeof argv_ / sizeof argv_[0]), argv_);                 \
    } while (0)

static void learn_identity(struct rconn *c, char *id, char *addr, char *laddr)
{
    char *info = rconn_call(c, "CLIENT", "INFO", NULL);
    const char *line = strstr(info, "\r\n") + 2;
    field_of(line, "id", id, 32);
    field_of(line, "addr", addr, 160);
    field_of(line, "laddr", laddr, 160);
    free(info);
}

static void peer_open(struct diff_pair *d, struct peer *p, const char *name)
{
    diff_open_extra(d, &p->g, &p->r);
    if (name) BOTH(p, "CLIENT", "SETNAME", name);
    learn_identity(&p->g, p->gid, p->gaddr, p->gladdr);
    learn_identity(&p->r, p->rid, p->raddr, p->rladdr);
}

static void peer_close(struct peer *p)
{
    rconn_close(&p->g);
    rconn_close(&p->r);
}

/* A killed peer's connection is closed by each server. */
static void expect_closed(struct peer *p)
{
    CHECK(rconn_wait_closed(&p->g, 5000));
    CHECK(rconn_wait_closed(&p->r, 5000));
}

/* Clients of every kind on both servers, then CLIENT LIST with each filter
 * and CLIENT KILL with each filter; the set of listed clients and the kill
 * counts and errors must agree. */
static void multi_client(struct diff_pair *d)
{
    char long_name[1600];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    memcpy(long_name, "long-", 5);

    diff_check(d, "CLIENT", "SETNAME", "driver", NULL);
    struct peer plain, plain2, named_long, sub2, psub2, sub3, db3;
    peer_open(d, &plain, "plain");
    peer_open(d, &plain2, NULL); /* no name */
    peer_open(d, &named_long, long_name);
    peer_open(d, &sub2, "sub-resp2");
    BOTH(&sub2, "SUBSCRIBE", "ch1", "ch2");
    peer_open(d, &psub2, "psub-resp2");
    BOTH(&psub2, "PSUBSCRIBE", "ch*");
    peer_open(d, &sub3, "sub-resp3");
    BOTH(&sub3, "HELLO", "3");
    BOTH(&sub3, "SUBSCRIBE", "ch1");
    peer_open(d, &db3, "in-db3");
    BOTH(&db3, "SELECT", "3");

    LIST("CLIENT", "LIST");
    LIST("CLIENT", "LIST", "TYPE", "pubsub");
    LIST("CLIENT", "LIST", "TYPE", "PUBSUB");
    LIST("CLIENT", "LIST", "TYPE", "normal");
    LIST("CLIENT", "LIST", "TYPE", "master");
    LIST("CLIENT", "LIST", "TYPE", "replica");
    LIST("CLIENT", "LIST", "TYPE", "slave");
    LIST("CLIENT", "LIST", "TYPE", "bogus");
    LIST("CLIENT", "LIST", "TYPE");
    LIST("CLIENT", "LIST", "TYPE", "normal", "ID", "1");
    LIST("CLIENT", "LIST", "USER", "default");
    LIST("CLIENT", "LIST", "ADDR", "1.2.3.4:5");
    LIST("CLIENT", "LIST", "SKIPME", "no");
    {
        const char *g[] = {"CLIENT", "LIST", "ID", sub3.gid, named_long.gid, "999999", sub3.gid};
        const char *r[] = {"CLIENT", "LIST", "ID", sub3.rid, named_long.rid, "999999", sub3.rid};
        check_per_server(d, &d->g, &d->r, 7, g, r, true);
    }
    /* The long name whole, on the client's own CLIENT INFO. */
    {
        const char *info[] = {"CLIENT", "INFO"};
        check_per_server(d, &named_long.g, &named_long.r, 2, info, info, true);
    }

    /* Errors, in Redis's order of checking; nothing is killed. */
    diff_check(d, "CLIENT", "KILL", "USER", "nobody", NULL);
    diff_check(d, "CLIENT", "KILL", "TYPE", "pubsub", "USER", "nobody", NULL);
    diff_check(d, "CLIENT", "KILL", "USER", "nobody", "TYPE", "bogus", NULL);
    diff_check(d, "CLIENT", "KILL", "TYPE", "bogus", "USER", "nobody", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "abc", "TYPE", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "-3", NULL);
    diff_check(d, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", NULL);
    diff_check(d, "CLIENT", "KILL", "SKIPME", "perhaps", "ID", "0", NULL);
    diff_check(d, "CLIENT", "KILL", "LADDR", "1.2.3.4:5", NULL);
    diff_check(d, "CLIENT", "KILL", "ADDR", "1.2.3.4:5", NULL);
    diff_check(d, "CLIENT", "KILL", "TYPE", "master", NULL);
    diff_check(d, "CLIENT", "KILL", "TYPE", "replica", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "999999", NULL);
    diff_check(d, "CLIENT", "KILL", "999.1.1.1:1", NULL);
    LIST("CLIENT", "LIST"); /* everyone still there */

    /* TYPE pubsub: exactly the three subscribers (RESP2 and RESP3). */
    diff_check(d, "CLIENT", "KILL", "TYPE", "pubsub", NULL);
    expect_closed(&sub2);
    expect_closed(&psub2);
    expect_closed(&sub3);
    LIST("CLIENT", "LIST");

    /* ID. */
    {
        const char *g[] = {"CLIENT", "KILL", "ID", plain2.gid};
        const char *r[] = {"CLIENT", "KILL", "ID", plain2.rid};
        check_per_server(d, &d->g, &d->r, 4, g, r, false);
        expect_closed(&plain2);
    }
    LIST("CLIENT", "LIST");

    /* ADDR (over a Unix socket every client has the same addr: all but
     * the caller go, which must agree too). */
    if (!d->unix_socket) {
        const char *g[] = {"CLIENT", "KILL", "ADDR", db3.gaddr, "TYPE", "normal"};
        const char *r[] = {"CLIENT", "KILL", "ADDR", db3.raddr, "TYPE", "normal"};
        check_per_server(d, &d->g, &d->r, 6, g, r, false);
        expect_closed(&db3);
        LIST("CLIENT", "LIST");
        /* The old form: +OK, or an error when nothing matched. */
        const char *og[] = {"CLIENT", "KILL", plain.gaddr};
        const char * or [] = {"CLIENT", "KILL", plain.raddr};
        check_per_server(d, &d->g, &d->r, 3, og, or, false);
        expect_closed(&plain);
        check_per_server(d, &d->g, &d->r, 3, og, or, false);
        LIST("CLIENT", "LIST");
    }

    /* USER default and LADDR: everyone but the caller (SKIPME yes), then
     * the caller itself with SKIPME no (closed after the reply). */
    diff_check(d, "CLIENT", "KILL", "USER", "default", "TYPE", "normal", NULL);
    LIST("CLIENT", "LIST");
    {
        const char *g[] = {"CLIENT", "KILL", "LADDR", named_long.gladdr, "SKIPME", "no"};
        const char *r[] = {"CLIENT", "KILL", "LADDR", named_long.rladdr, "SKIPME", "no"};
        check_per_server(d, &d->g, &d->r, 6, g, r, false);
    }
    CHECK(rconn_wait_closed(&d->g, 5000));
    CHECK(rconn_wait_closed(&d->r, 5000));
    peer_close(&plain), peer_close(&plain2), peer_close(&named_long), peer_close(&sub2);
    peer_close(&psub2), peer_close(&sub3), peer_close(&db3);
}

static void nopass_auth(struct diff_pair *d)
{
    diff_check(d, "AUTH", "x", NULL);
    diff_check(d, "AUTH", "default", "anything", NULL);
    diff_check(d, "AUTH", "someone", "x", NULL);
}

int main(void)
{
    unsigned long long seed = test_seed("diff_server");
    struct diff_pair d;
    diff_start(&d, "diff_server/resp2", seed, NULL, NULL);
    common_commands(&d);
    nopass_auth(&d);
    diff_check(&d, "QUIT", NULL);
    CHECK(rconn_wait_closed(&d.g, 5000));
    CHECK(rconn_wait_closed(&d.r, 5000));
    diff_stop(&d);

    diff_start(&d, "diff_server/resp3", seed, NULL, NULL);
    diff_hello3(&d);
    common_commands(&d);
    diff_stop(&d);

    /* The same over the Unix sockets. */
    diff_start(&d, "diff_server/unix", seed, NULL, NULL);
    diff_reconnect_unix(&d);
    common_commands(&d);
    nopass_auth(&d);
    diff_stop(&d);

    diff_start(&d, "diff_server/clients-tcp", seed, NULL, NULL);
    multi_client(&d);
    diff_stop(&d);

    diff_start(&d, "diff_server/clients-unix", seed, NULL, NULL);
    diff_reconnect_unix(&d);
    multi_client(&d);
    diff_stop(&d);

    auth_commands("diff_server/auth", seed);
    return 0;
}
