/* Integration: the shared-memory ring transport against a real server —
 * commands in RESP2 and RESP3, transactions, Pub/Sub across rings, pipelining far deeper than the
 * ring, a client killed mid-record then reconnecting, a second attach refused, dead owners
 * reclaimed, ring pools, auth over rings, and strict polling priority. */
#include <errno.h>
#include <goblin/ring_client.h>
#include <goblin/ring_layout.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

static char dir[128];

static void ring_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void expect(struct goblin_ring *r, const char *expected)
{
    const char *reply;
    ssize_t n = goblin_ring_read_reply(r, &reply, 10 * 1000000LL);
    CHECKF(n > 0, "no reply (%zd)", n);
    CHECKF((size_t)n == strlen(expected) && memcmp(reply, expected, (size_t)n) == 0,
           "got '%.*s' expected '%s'", (int)n, reply, expected);
}

static void call(struct goblin_ring *r, const char *expected, int argc, const char *const *argv)
{
    CHECK(goblin_ring_send_command(r, argc, argv, NULL) == 0);
    expect(r, expected);
}

#define CALL(r, expected, ...)                                                                     \
    do {                                                                                           \
        const char *argv_[] = {__VA_ARGS__};                                                       \
        call(r, expected, (int)(sizeof argv_ / sizeof argv_[0]), argv_);                           \
    } while (0)

static struct goblin_ring *open_ring(const char *path)
{
    struct goblin_ring *r = NULL;
    int rc = goblin_ring_open(path, 10000, &r);
    CHECKF(rc == 0, "goblin_ring_open(%s): %s", path, strerror(-rc));
    return r;
}

static void basic_commands(const char *path)
{
    struct goblin_ring *r = open_ring(path);
    CALL(r, "+PONG\r\n", "PING");
    CALL(r, "+OK\r\n", "SET", "k", "v");
    CALL(r, "$1\r\nv\r\n", "GET", "k");
    CALL(r, "-ERR unknown command 'NOPE', with args beginning with: \r\n", "NOPE");
    CALL(r, "+OK\r\n", "SELECT", "3");
    CALL(r, "$-1\r\n", "GET", "k");
    /* RESP3 on the ring: nil is _ */
    const char *hello[] = {"HELLO", "3"};
    CHECK(goblin_ring_send_command(r, 2, hello, NULL) == 0);
    const char *reply;
    CHECK(goblin_ring_read_reply(r, &reply, 10000000) > 0 && reply[0] == '%');
    CALL(r, "_\r\n", "GET", "k");
    /* A new session starts afresh: db 0, RESP2. */
    CHECK(goblin_ring_reconnect(r, 10000) == 0);
    CALL(r, "$1\r\nv\r\n", "GET", "k");
    CALL(r, "$-1\r\n", "GET", "nokey");
    /* QUIT ends the session; the client sees it and can reconnect. */
    CALL(r, "+OK\r\n", "QUIT");
    CHECK(goblin_ring_read_reply(r, &reply, 10000000) == -EPIPE);
    CHECK(goblin_ring_reconnect(r, 10000) == 0);
    CALL(r, "+PONG\r\n", "PING");
    goblin_ring_close(r);
}

/* MULTI/EXEC over a ring as over a socket: queued replies, EXEC's array,
 * EXECABORT, and WATCH invalidated by a ring client and by a TCP client. */
static void transactions_over_rings(const char *path, const char *other_path, int port)
{
    struct goblin_ring *r = open_ring(path);
    struct goblin_ring *other = open_ring(other_path);
    CALL(r, "+OK\r\n", "MULTI");
    CALL(r, "+QUEUED\r\n", "SET", "tx", "1");
    CALL(r, "+QUEUED\r\n", "INCR", "tx");
    CALL(r, "+QUEUED\r\n", "GET", "tx");
    CALL(r, "*3\r\n+OK\r\n:2\r\n$1\r\n2\r\n", "EXEC");
    CALL(r, "+OK\r\n", "MULTI");
    CALL(r, "-ERR wrong number of arguments for 'get' command\r\n", "GET");
    CALL(r, "-EXECABORT Transaction discarded because of previous errors.\r\n", "EXEC");
    /* Invalidated by another ring client... */
    CALL(r, "+OK\r\n", "WATCH", "tx");
    CALL(other, "+OK\r\n", "SET", "tx", "other");
    CALL(r, "+OK\r\n", "MULTI");
    CALL(r, "+QUEUED\r\n", "SET", "tx", "mine");
    CALL(r, "*-1\r\n", "EXEC");
    /* ...and by a TCP client; a ring client's write invalidates a TCP watcher. */
    struct rconn tcp;
    rconn_open_tcp(&tcp, port);
    CALL(r, "+OK\r\n", "WATCH", "tx");
    char *reply = rconn_call(&tcp, "DEL", "tx", NULL);
    CHECK_STR(reply, ":1\r\n");
    free(reply);
    CALL(r, "+OK\r\n", "MULTI");
    CALL(r, "*-1\r\n", "EXEC");
    reply = rconn_call(&tcp, "WATCH", "tx", NULL);
    free(reply);
    CALL(r, "+OK\r\n", "SET", "tx", "ring");
    reply = rconn_call(&tcp, "MULTI", NULL);
    free(reply);
    reply = rconn_call(&tcp, "EXEC", NULL);
    CHECK_STR(reply, "*-1\r\n");
    free(reply);
    rconn_close(&tcp);
    goblin_ring_close(other);
    goblin_ring_close(r);
}

/* CLIENT PAUSE holds a ring client's write (parked like a blocked
 * command) until a TCP client's UNPAUSE; a ring client's pause holds a TCP
 * client's write the same way. */
static void pause_over_rings(const char *path, int port)
{
    struct goblin_ring *r = open_ring(path);
    struct rconn tcp;
    rconn_open_tcp(&tcp, port);
    char *reply = rconn_call(&tcp, "CLIENT", "PAUSE", "100000", "WRITE", NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    const char *set[] = {"SET", "paused", "ring"};
    CHECK(goblin_ring_send_command(r, 3, set, NULL) == 0);
    for (int tries = 0; tries < 2000; tries++) { /* until the server has parked it */
        reply = rconn_call(&tcp, "INFO", "clients", NULL);
        bool held = strstr(reply, "blocked_clients:1\r\n") != NULL;
        free(reply);
        if (held) break;
        usleep(5000);
    }
    reply = rconn_call(&tcp, "GET", "paused", NULL);
    CHECK_STR(reply, "$-1\r\n"); /* not applied while paused */
    free(reply);
    reply = rconn_call(&tcp, "CLIENT", "UNPAUSE", NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    expect(r, "+OK\r\n");
    CALL(r, "$4\r\nring\r\n", "GET", "paused");
    /* The other way round. */
    CALL(r, "+OK\r\n", "CLIENT", "PAUSE", "100000", "WRITE");
    rconn_send(&tcp, "SET", "paused", "tcp", NULL);
    CALL(r, "$4\r\nring\r\n", "GET", "paused");
    CALL(r, "+OK\r\n", "CLIENT", "UNPAUSE");
    reply = rconn_read_reply(&tcp, NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    CALL(r, "$3\r\ntcp\r\n", "GET", "paused");
    rconn_close(&tcp);
    goblin_ring_close(r);
}

/* 50,000 pipelined SETs through a 4 KiB-per-direction ring. */
static void deep_pipeline(const char *path)
{
    enum { N = 50000 };
    struct goblin_ring *r = open_ring(path);
    struct buf out;
    buf_init(&out, 0);
    char cmd[96];
    for (int i = 0; i < N; i++) {
        int n = snprintf(cmd, sizeof cmd, "*3\r\n$3\r\nSET\r\n$8\r\npipe%04d\r\n$5\r\n%05d\r\n",
                         i % 10000, i);
        buf_append(&out, cmd, (size_t)n);
    }
    CHECK(goblin_ring_send(r, buf_head(&out), buf_len(&out)) == 0);
    for (int i = 0; i < N; i++) expect(r, "+OK\r\n");
    CALL(r, "$5\r\n49999\r\n", "GET", "pipe9999");
    buf_free(&out);
    goblin_ring_close(r);
}

/* Writes payload bytes into the SQ without publishing the record (death
 * mid-record), plus a published half command (death mid-command). */
static void die_mid_record(const char *path)
{
    struct goblin_ring *r = open_ring(path);
    CHECK(goblin_ring_send(r, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n", 20) == 0);
    FILE *f = fopen(path, "r+");
    CHECK(f);
    struct goblin_ring_header *h = mmap(NULL, GOBLIN_RING_HEADER_BYTES + 2 * 4096,
                                        PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
    CHECK(h != MAP_FAILED);
    memset((char *)h + h->sq_offset + 64, 'x', 200); /* unpublished garbage */
    _exit(0); /* no goblin_ring_close: the claim stays with a dead pid */
}

static void killed_client_then_reconnect(const char *path)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) die_mid_record(path);
    CHECK(waitpid(pid, NULL, 0) == pid);
    /* The dead owner's claim is taken over; its half command is dropped. */
    struct goblin_ring *r = open_ring(path);
    CALL(r, "+PONG\r\n", "PING");
    CALL(r, "$1\r\nv\r\n", "GET", "k");
    goblin_ring_close(r);
}

static void second_attach_refused_and_reclaim(const char *path)
{
    int ready[2], release[2];
    CHECK(pipe(ready) == 0 && pipe(release) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct goblin_ring *r = NULL;
        if (goblin_ring_open(path, 10000, &r) != 0) _exit(1);
        char c = 'r';
        if (write(ready[1], &c, 1) != 1) _exit(1);
        if (read(release[0], &c, 1) != 1) _exit(1);
        _exit(0); /* dies holding the claim */
    }
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    struct goblin_ring *r = NULL;
    CHECK(goblin_ring_open(path, 1000, &r) == -EBUSY);
    CHECK(write(release[1], "x", 1) == 1);
    CHECK(waitpid(pid, NULL, 0) == pid);
    /* The server notices the dead owner in housekeeping and frees the claim. */
    FILE *f = fopen(path, "r");
    struct goblin_ring_header *h =
        mmap(NULL, GOBLIN_RING_HEADER_BYTES, PROT_READ, MAP_SHARED, fileno(f), 0);
    CHECK(h != MAP_FAILED);
    int waited = 0;
    while (atomic_load(&h->owner_pid) != 0 && waited++ < 1000) usleep(10000);
    CHECKF(atomic_load(&h->owner_pid) == 0, "server did not reclaim the ring of a dead client");
    munmap(h, GOBLIN_RING_HEADER_BYTES);
    fclose(f);
    r = open_ring(path);
    CALL(r, "+PONG\r\n", "PING");
    goblin_ring_close(r);
    close(ready[0]);
    close(ready[1]);
    close(release[0]);
    close(release[1]);
}

/* Pub/Sub across two rings: a subscriber on a pool ring, a publisher on
 * another ring; deliveries arrive whole and in order, in RESP2 and RESP3. */
static void pubsub_over_rings(const char *publisher_path, const char *pool)
{
    struct goblin_ring *sub = NULL;
    CHECK(goblin_ring_open_pool(pool, 10000, &sub) == 0);
    struct goblin_ring *pub = open_ring(publisher_path);
    CALL(sub, "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n", "SUBSCRIBE", "news");
    CALL(sub, "*3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:2\r\n", "PSUBSCRIBE", "n*");
    char msg[32], want[160];
    for (int i = 0; i < 500; i++) {
        snprintf(msg, sizeof msg, "m%03d", i);
        CALL(pub, ":2\r\n", "PUBLISH", "news", msg);
        snprintf(want, sizeof want, "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$4\r\n%s\r\n", msg);
        expect(sub, want);
        snprintf(want, sizeof want,
                 "*4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$4\r\n%s\r\n", msg);
        expect(sub, want);
    }
    /* RESP3 publisher subscribed to its own channel: push first, then the count. */
    const char *hello[] = {"HELLO", "3"};
    CHECK(goblin_ring_send_command(pub, 2, hello, NULL) == 0);
    const char *reply;
    CHECK(goblin_ring_read_reply(pub, &reply, 10000000) > 0 && reply[0] == '%');
    CALL(pub, ">3\r\n$9\r\nsubscribe\r\n$4\r\nself\r\n:1\r\n", "SUBSCRIBE", "self");
    const char *publish[] = {"PUBLISH", "self", "hi"};
    CHECK(goblin_ring_send_command(pub, 3, publish, NULL) == 0);
    expect(pub, ">3\r\n$7\r\nmessage\r\n$4\r\nself\r\n$2\r\nhi\r\n");
    expect(pub, ":1\r\n");
    goblin_ring_close(pub);
    goblin_ring_close(sub);
}

static void pool_claims(const char *pool)
{
    struct goblin_ring *a = NULL, *b = NULL, *c = NULL;
    CHECK(goblin_ring_open_pool(pool, 10000, &a) == 0);
    CHECK(goblin_ring_open_pool(pool, 10000, &b) == 0);
    CHECK(strcmp(goblin_ring_path(a), goblin_ring_path(b)) != 0);
    CHECK(goblin_ring_open_pool(pool, 1000, &c) == -EBUSY);
    CALL(a, "+OK\r\n", "SET", "pool", "a");
    CALL(b, "$1\r\na\r\n", "GET", "pool");
    goblin_ring_close(a);
    CHECK(goblin_ring_open_pool(pool, 10000, &c) == 0);
    CALL(c, "+PONG\r\n", "PING");
    goblin_ring_close(b);
    goblin_ring_close(c);
}

static void ring_auth(void)
{
    char path[192], open_path[192];
    ring_path(path, sizeof path, "auth.ring");
    ring_path(open_path, sizeof open_path, "noauth.ring");
    const char *const extra[] = {"--requirepass", "pw", "--ring", path, "8k", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct goblin_ring *r = open_ring(path);
    CALL(r, "-NOAUTH Authentication required.\r\n", "GET", "k");
    CALL(r, "+OK\r\n", "AUTH", "pw");
    CALL(r, "$-1\r\n", "GET", "k");
    goblin_ring_close(r);
    test_server_stop(&s);

    const char *const trusted[] = {
        "--requirepass", "pw", "--no-auth-ring", "--ring", open_path, "8k", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, trusted);
    r = open_ring(open_path);
    CALL(r, "$-1\r\n", "GET", "k");
    goblin_ring_close(r);
    struct rconn tcp;
    rconn_open_tcp(&tcp, s.port);
    char *reply = rconn_call(&tcp, "GET", "k", NULL);
    CHECK_STR(reply, "-NOAUTH Authentication required.\r\n");
    free(reply);
    rconn_close(&tcp);
    test_server_stop(&s);
}

/* With the loop held still (DEBUG SLEEP on ring 2), both rings queue INCRs;
 * when the loop resumes, ring 1 (first on the command line) is drained
 * completely before ring 2 is served at all. */
static void strict_priority(void)
{
    enum { N = 2000, M = 50 };
    char first[192], second[192];
    ring_path(first, sizeof first, "first.ring");
    ring_path(second, sizeof second, "second.ring");
    const char *const extra[] = {
        "--ring", first, "1m", "--ring", second, "1m", "--enable-debug-command", "local", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct goblin_ring *r1 = open_ring(first), *r2 = open_ring(second);

    FILE *f = fopen(second, "r");
    struct goblin_ring_header *h2 =
        mmap(NULL, GOBLIN_RING_HEADER_BYTES, PROT_READ, MAP_SHARED, fileno(f), 0);
    CHECK(h2 != MAP_FAILED);
    const char *sleep_cmd[] = {"DEBUG", "SLEEP", "2"};
    CHECK(goblin_ring_send_command(r2, 3, sleep_cmd, NULL) == 0);
    /* Once the server has consumed the DEBUG record it is inside the sleep. */
    while (atomic_load(&h2->sq_head) == 0) {
    }
    const char *incr[] = {"INCR", "order"};
    for (int i = 0; i < M; i++) CHECK(goblin_ring_send_command(r2, 2, incr, NULL) == 0);
    for (int i = 0; i < N; i++) CHECK(goblin_ring_send_command(r1, 2, incr, NULL) == 0);

    char want[32];
    for (int i = 1; i <= N; i++) {
        snprintf(want, sizeof want, ":%d\r\n", i);
        expect(r1, want);
    }
    expect(r2, "+OK\r\n");
    for (int i = N + 1; i <= N + M; i++) {
        snprintf(want, sizeof want, ":%d\r\n", i);
        expect(r2, want);
    }
    munmap(h2, GOBLIN_RING_HEADER_BYTES);
    fclose(f);
    goblin_ring_close(r1);
    goblin_ring_close(r2);
    test_server_stop(&s);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/dev/shm/goblin-ring-test-XXXXXX");
    CHECK(mkdtemp(dir));
    char ring[192], tiny[192], pool[192];
    ring_path(ring, sizeof ring, "main.ring");
    ring_path(tiny, sizeof tiny, "tiny.ring");
    ring_path(pool, sizeof pool, "pool");
    const char *const extra[] = {"--ring",      ring, "64k", "--ring", tiny, "4k",
                                 "--ring-pool", pool, "2",   "16kb",   NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    basic_commands(ring);
    transactions_over_rings(ring, tiny, s.port);
    pause_over_rings(ring, s.port);
    deep_pipeline(tiny);
    killed_client_then_reconnect(ring);
    second_attach_refused_and_reclaim(ring);
    pubsub_over_rings(ring, pool);
    pool_claims(pool);
    test_server_stop(&s);
    /* The server removes the files it created. */
    CHECK(access(ring, F_OK) != 0 && errno == ENOENT);

    ring_auth();
    strict_priority();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return 0;
}
