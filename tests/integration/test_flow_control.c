/* Integration: output flow control and client-output-buffer-limit.
 *
 * - hiredis pipelines that write the whole batch before reading a reply
 *   (1M SETs; 300k GETs of 1 KB values) complete: a backpressured conn stops
 *   executing but keeps reading, so neither side waits on a full socket;
 * - the input such a client holds is bounded by client-query-buffer-limit
 *   (past it the client is closed, counted);
 * - the normal class's hard limit closes a client at once;
 * - a subscriber that keeps up receives 1 MB messages with the defaults;
 * - a subscriber that never reads is dropped as soon as its backlog
 *   crosses the pubsub hard limit (32 MB): gone from CLIENT LIST and its
 *   descriptor released by the time the crossing PUBLISH is answered;
 *   the soft limit drops it after soft-seconds above it; CLIENT LIST omem
 *   shows the backlog;
 * - the server's RSS stays bounded throughout. */
#include <dirent.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "pubsub_testutil.h"

static long long info_field(struct rconn *c, const char *field)
{
    char *info = rconn_call(c, "INFO", "everything", NULL);
    char *at = strstr(info, field);
    CHECKF(at, "INFO has no %s", field);
    long long v = atoll(at + strlen(field) + 1);
    free(info);
    return v;
}

static void config_set(struct rconn *c, const char *name, const char *value)
{
    char *r = rconn_call(c, "CONFIG", "SET", name, value, NULL);
    CHECKF(strcmp(r, "+OK\r\n") == 0, "CONFIG SET %s %s: %s", name, value, r);
    free(r);
}

/* The server's open sockets (links of /proc/<pid>/fd to "socket:[...]"). */
static int server_sockets(const struct test_server *s)
{
    char path[64], link[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)s->pid);
    DIR *d = opendir(path);
    CHECK(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char fd_path[384];
        snprintf(fd_path, sizeof fd_path, "%s/%s", path, e->d_name);
        ssize_t len = readlink(fd_path, link, sizeof link - 1);
        if (len > 0 && strncmp(link, "socket:", 7) == 0) n++;
    }
    closedir(d);
    return n;
}

/* The CLIENT LIST line of client `id` (malloc'd), or NULL when gone. */
static char *client_line(struct rconn *c, long long id)
{
    char *list = rconn_call(c, "CLIENT", "LIST", NULL);
    char needle[32];
    snprintf(needle, sizeof needle, "id=%lld ", id);
    char *at = strstr(list, needle);
    char *line = NULL;
    if (at) line = strndup(at, strcspn(at, "\n"));
    free(list);
    return line;
}

static long long client_id(struct rconn *c)
{
    char *r = rconn_call(c, "CLIENT", "ID", NULL);
    long long id = atoll(r + 1);
    free(r);
    return id;
}

static void check_rss(const struct test_server *s, long baseline_kb, long limit_mb,
                      const char *what)
{
    long now = test_server_rss_kb(s);
    fprintf(stderr, "%s: server RSS %ld kB -> %ld kB\n", what, baseline_kb, now);
    /* ASan's shadow memory and quarantine make RSS meaningless there. */
    if (!getenv("GOBLIN_ASAN"))
        CHECKF(now - baseline_kb < limit_mb * 1024, "%s: server RSS grew by %ld kB", what,
               now - baseline_kb);
}

/* A deadlocked pipeline fails the test (a read timeout) rather than hang. */
static redisContext *pipeline_client(const struct test_server *s)
{
    redisContext *c = redisConnect("127.0.0.1", s->port);
    CHECK(c && !c->err);
    CHECK(redisSetTimeout(c, (struct timeval){.tv_sec = 60}) == REDIS_OK);
    return c;
}

/* The ASan build runs the same pipelines at a fifth of the size: still far
 * beyond the sockets' buffers (what deadlocked), at a bearable cost. */
static int scaled(int n)
{
    return getenv("GOBLIN_ASAN") ? n / 5 : n;
}

static void pipeline_sets(const struct test_server *s)
{
    const int N = scaled(1000000);
    long baseline = test_server_rss_kb(s);
    redisContext *c = pipeline_client(s);
    for (int i = 0; i < N; i++) redisAppendCommand(c, "SET k%d %d", i, i);
    for (int i = 0; i < N; i++) {
        redisReply *r;
        CHECKF(redisGetReply(c, (void **)&r) == REDIS_OK, "reply %d: %s", i, c->errstr);
        CHECKF(r->type == REDIS_REPLY_STATUS && strcmp(r->str, "OK") == 0, "SET %d", i);
        freeReplyObject(r);
    }
    redisReply *r = redisCommand(c, "DBSIZE");
    CHECK_EQ_LL(r->integer, N);
    freeReplyObject(r);
    redisFree(c);
    /* The input held is ~40 MB of the client's own requests. */
    check_rss(s, baseline, 192, "1M pipelined SETs");
}

static void pipeline_gets(const struct test_server *s)
{
    enum { KEYS = 1000, VALUE = 1024 };
    const int N = scaled(300000);
    long baseline = test_server_rss_kb(s);
    redisContext *c = pipeline_client(s);
    char value[VALUE];
    for (int i = 0; i < KEYS; i++) {
        memset(value, 'a' + i % 26, VALUE);
        redisReply *r = redisCommand(c, "SET v%d %b", i, value, (size_t)VALUE);
        freeReplyObject(r);
    }
    for (int i = 0; i < N; i++) redisAppendCommand(c, "GET v%d", i % KEYS);
    for (int i = 0; i < N; i++) {
        redisReply *r;
        CHECKF(redisGetReply(c, (void **)&r) == REDIS_OK, "reply %d: %s", i, c->errstr);
        CHECKF(r->type == REDIS_REPLY_STRING && r->len == VALUE && r->str[0] == 'a' + i % KEYS % 26,
               "GET %d", i);
        freeReplyObject(r);
    }
    redisFree(c);
    check_rss(s, baseline, 128, "300k pipelined GETs of 1 KB");
}

/* Sends everything it can, ignoring errors: the server may close first. */
static void send_ignoring_errors(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

/* A client that never reads: its replies stop execution, its requests
 * pile up in the query buffer, and past the limit it is closed. */
static void query_limit_while_backpressured(const struct test_server *s, struct rconn *admin)
{
    config_set(admin, "client-query-buffer-limit", "1mb");
    long long before = info_field(admin, "client_query_buffer_limit_disconnections");
    long baseline = test_server_rss_kb(s);
    struct buf batch;
    buf_init(&batch, 0);
    /* 21 MB of requests for 1 GB of replies: far more than the kernel's
     * socket buffers hold, so most of it must reach the query buffer
     * before the client reads anything. */
    for (int i = 0; i < 1000000; i++) buf_append(&batch, "*2\r\n$3\r\nGET\r\n$2\r\nv1\r\n", 21);
    struct rconn c;
    rconn_open_tcp(&c, s->port);
    send_ignoring_errors(c.fd, buf_head(&batch), buf_len(&batch));
    /* Drain: the replies executed before the pause, then EOF. */
    size_t len;
    char *r;
    while ((r = rconn_try_read_reply(&c, &len, 5000))) free(r);
    CHECK(rconn_wait_closed(&c, 100));
    CHECK_EQ_LL(info_field(admin, "client_query_buffer_limit_disconnections"), before + 1);
    /* Within the configured limits: 1 MB of input, the backpressure mark of
     * output (not the 21 MB sent, nor the 1 GB of replies). */
    check_rss(s, baseline, 16, "query-buffer limit while backpressured");
    rconn_close(&c);
    buf_free(&batch);
    config_set(admin, "client-query-buffer-limit", "1gb");
}

static void normal_hard_limit(const struct test_server *s, struct rconn *admin)
{
    config_set(admin, "client-output-buffer-limit", "normal 128kb 0 0");
    long long before = info_field(admin, "client_output_buffer_limit_disconnections");
    long baseline = test_server_rss_kb(s);
    char *value = malloc(64 * 1024 + 1);
    memset(value, 'x', 64 * 1024);
    value[64 * 1024] = '\0';
    free(rconn_call(admin, "SET", "big", value, NULL));
    struct rconn c;
    rconn_open_tcp(&c, s->port);
    long long id = client_id(&c);
    int fds = server_sockets(s);
    struct buf batch;
    buf_init(&batch, 0);
    for (int i = 0; i < 200; i++) buf_append(&batch, "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n", 22);
    send_ignoring_errors(c.fd, buf_head(&batch), buf_len(&batch));
    /* Closed by its own GETs: gone by the time the admin is answered
     * (one server thread; the admin's command runs after c's batch). */
    char *line = client_line(admin, id);
    for (int i = 0; line && i < 100; i++) { /* a generous deadline: c's batch may arrive late */
        free(line);
        usleep(20000);
        line = client_line(admin, id);
    }
    CHECKF(!line, "client over the normal hard limit still listed: %s", line);
    CHECK_EQ_LL(server_sockets(s), fds - 1);
    CHECK_EQ_LL(info_field(admin, "client_output_buffer_limit_disconnections"), before + 1);
    /* Within the configured limit: 128 KB of output, not 12.8 MB of replies. */
    check_rss(s, baseline, 8, "normal hard limit");
    rconn_close(&c);
    buf_free(&batch);
    free(value);
    config_set(admin, "client-output-buffer-limit", "normal 0 0 0");
}

enum { MB = 1024 * 1024 };

static char *make_message(int seq)
{
    char *p = malloc(MB + 1);
    int n = snprintf(p, MB + 1, "seq:%08d:", seq);
    memset(p + n, 'a' + seq % 26, (size_t)(MB - n));
    p[MB] = '\0';
    return p;
}

static void subscriber_keeps_up(const struct test_server *s)
{
    struct rconn sub, pub;
    rconn_open_tcp(&sub, s->port);
    rconn_open_tcp(&pub, s->port);
    rconn_send(&sub, "SUBSCRIBE", "big", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "big", 1));
    long baseline = test_server_rss_kb(s);
    for (int round = 0; round < 4; round++) {
        enum { BATCH = 6 }; /* 6 MB of backlog at most: under the soft limit */
        for (int i = 0; i < BATCH; i++) {
            char *m = make_message(round * BATCH + i);
            rconn_send(&pub, "PUBLISH", "big", m, NULL);
            free(m);
        }
        for (int i = 0; i < BATCH; i++) EXPECT_REPLY_STR(&pub, ":1\r\n");
        for (int i = 0; i < BATCH; i++) {
            char *m = make_message(round * BATCH + i);
            EXPECT_REPLY(&sub, fmt_message(false, NULL, "big", m));
            free(m);
        }
    }
    check_rss(s, baseline, 64, "24 messages of 1 MB");
    rconn_close(&sub);
    rconn_close(&pub);
}

/* Publishes 1 MB messages to a subscriber that never reads until it is
 * gone from CLIENT LIST; returns how many were published. */
static int publish_until_dropped(const struct test_server *s, struct rconn *pub, long long id,
                                 int max)
{
    int fds = server_sockets(s);
    for (int seq = 0; seq < max; seq++) {
        char *m = make_message(seq);
        free(rconn_call(pub, "PUBLISH", "flood", m, NULL));
        free(m);
        char *line = client_line(pub, id);
        if (!line) {
            /* Closed in the pass that crossed the limit: its descriptor is
             * released before any later command runs. */
            CHECK_EQ_LL(server_sockets(s), fds - 1);
            return seq + 1;
        }
        free(line);
    }
    CHECKF(false, "subscriber not dropped after %d messages of 1 MB", max);
    return 0;
}

static void subscriber_never_reads(const struct test_server *s)
{
    struct rconn slow, pub;
    rconn_open_tcp(&slow, s->port);
    rconn_open_tcp(&pub, s->port);
    long long id = client_id(&slow);
    rconn_send(&slow, "SUBSCRIBE", "flood", NULL);
    EXPECT_REPLY(&slow, fmt_ack(false, "subscribe", "flood", 1));
    long long before = info_field(&pub, "client_output_buffer_limit_disconnections");
    long baseline = test_server_rss_kb(s);
    int published = publish_until_dropped(s, &pub, id, 200);
    fprintf(stderr, "never-reading subscriber dropped after %d MB\n", published);
    /* 32 MB of backlog, plus what the kernel's socket buffers took. */
    CHECKF(published >= 32, "dropped after %d MB, under the 32 MB hard limit", published);
    CHECK_EQ_LL(info_field(&pub, "client_output_buffer_limit_disconnections"), before + 1);
    check_rss(s, baseline, 96, "never-reading subscriber");
    rconn_send(&pub, "PUBSUB", "NUMSUB", "flood", NULL);
    EXPECT_REPLY_STR(&pub, "*2\r\n$5\r\nflood\r\n:0\r\n");
    /* It reads what the kernel had taken (unsent output was discarded),
     * then EOF. */
    size_t len;
    char *r;
    while ((r = rconn_try_read_reply(&slow, &len, 2000))) free(r);
    CHECK(rconn_wait_closed(&slow, 100));
    rconn_close(&slow);

    /* Soft limit: above 2 MB for more than a second. omem shows the
     * backlog growing until it passes the soft limit. */
    config_set(&pub, "client-output-buffer-limit", "pubsub 0 2mb 1");
    rconn_open_tcp(&slow, s->port);
    id = client_id(&slow);
    rconn_send(&slow, "SUBSCRIBE", "flood", NULL);
    EXPECT_REPLY(&slow, fmt_ack(false, "subscribe", "flood", 1));
    long long omem = 0;
    for (int seq = 0; seq < 100 && omem < 2 * MB; seq++) {
        char *m = make_message(seq);
        free(rconn_call(&pub, "PUBLISH", "flood", m, NULL));
        free(m);
        char *line = client_line(&pub, id);
        CHECKF(line, "dropped before the soft limit's seconds passed");
        omem = atoll(strstr(line, " omem=") + 6);
        CHECKF(strstr(line, " flags=P "), "%s", line);
        free(line);
    }
    CHECKF(omem >= 2 * MB, "omem stayed at %lld", omem);
    sleep(2); /* past soft-seconds (1) above the soft limit */
    publish_until_dropped(s, &pub, id, 1);
    CHECK_EQ_LL(info_field(&pub, "client_output_buffer_limit_disconnections"), before + 2);
    config_set(&pub, "client-output-buffer-limit", "pubsub 32mb 8mb 60");
    rconn_close(&slow);
    rconn_close(&pub);
}

int main(void)
{
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, NULL);
    struct rconn admin;
    rconn_open_tcp(&admin, s.port);
    pipeline_sets(&s);
    pipeline_gets(&s);
    query_limit_while_backpressured(&s, &admin);
    normal_hard_limit(&s, &admin);
    subscriber_keeps_up(&s);
    subscriber_never_reads(&s);
    rconn_close(&admin);
    test_server_stop(&s);
    printf("flow control: ok\n");
    return 0;
}
