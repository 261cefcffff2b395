/* Integration: Pub/Sub against a real goblin-core over loopback — delivery
 * order per connection, fan-out to 1,000 subscribers, literal + pattern
 * double delivery, unsubscribe semantics, RESP2 subscribed mode, RESP3
 * self-publish ordering, PUBSUB CHANNELS/NUMSUB/NUMPAT, RESET, and release
 * of subscriptions when a connection closes. */
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pubsub_testutil.h"

static struct test_server server;
static int port;

static const char *const subscribed_mode_error =
    "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
    "allowed in this context\r\n";

static long long call_int(struct rconn *c, const char *const *argv, int argc)
{
    rconn_send_argv(c, argc, argv, NULL);
    char *r = rconn_read_reply(c, NULL);
    CHECKF(r[0] == ':', "expected an integer, got %s", r);
    long long v = strtoll(r + 1, NULL, 10);
    free(r);
    return v;
}

static long long numsub(struct rconn *c, const char *channel)
{
    rconn_send(c, "PUBSUB", "NUMSUB", channel, NULL);
    char *r = rconn_read_reply(c, NULL);
    /* *2 $len channel :n */
    const char *colon = strrchr(r, ':');
    CHECK(r[0] == '*' && colon);
    long long v = strtoll(colon + 1, NULL, 10);
    free(r);
    return v;
}

static long long numpat(struct rconn *c)
{
    const char *argv[] = {"PUBSUB", "NUMPAT"};
    return call_int(c, argv, 2);
}

static long long publish(struct rconn *c, const char *channel, const char *payload)
{
    const char *argv[] = {"PUBLISH", channel, payload};
    return call_int(c, argv, 3);
}

/* The server notices a closed peer asynchronously: poll a count until it
 * reaches `want` (bounded, so a leak fails instead of hanging). */
static void wait_numsub(struct rconn *c, const char *channel, long long want)
{
    for (int i = 0; i < 1000; i++) {
        if (numsub(c, channel) == want) return;
        usleep(10000);
    }
    CHECKF(false, "NUMSUB %s never reached %lld", channel, want);
}

static void wait_numpat(struct rconn *c, long long want)
{
    for (int i = 0; i < 1000; i++) {
        if (numpat(c) == want) return;
        usleep(10000);
    }
    CHECKF(false, "NUMPAT never reached %lld", want);
}

/* Many messages on two channels and a pattern reach one subscriber in
 * publish order, each once per subscription; its own replies stay in
 * place between them. */
static void test_delivery_order(void)
{
    struct rconn sub, pub;
    rconn_open_tcp(&sub, port);
    rconn_open_tcp(&pub, port);
    rconn_send(&sub, "SUBSCRIBE", "order.a", "order.b", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "order.a", 1));
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "order.b", 2));
    rconn_send(&sub, "PSUBSCRIBE", "order.*", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "psubscribe", "order.*", 3));

    enum { TOTAL = 6000, BATCH = 200 };
    for (int base = 0; base < TOTAL; base += BATCH) {
        for (int i = base; i < base + BATCH; i++) {
            char payload[32];
            snprintf(payload, sizeof payload, "m%d", i);
            rconn_send(&pub, "PUBLISH", i % 3 ? "order.a" : "order.b", payload, NULL);
        }
        for (int i = base; i < base + BATCH; i++) EXPECT_REPLY_STR(&pub, ":2\r\n");
        for (int i = base; i < base + BATCH; i++) {
            char payload[32];
            snprintf(payload, sizeof payload, "m%d", i);
            const char *ch = i % 3 ? "order.a" : "order.b";
            EXPECT_REPLY(&sub, fmt_message(false, NULL, ch, payload));
            EXPECT_REPLY(&sub, fmt_message(false, "order.*", ch, payload));
        }
    }
    /* A reply to the subscriber's own command comes after the messages
     * published before it. */
    CHECK_EQ_LL(publish(&pub, "order.a", "before-ping"), 2);
    rconn_send(&sub, "PING", NULL);
    EXPECT_REPLY(&sub, fmt_message(false, NULL, "order.a", "before-ping"));
    EXPECT_REPLY(&sub, fmt_message(false, "order.*", "order.a", "before-ping"));
    EXPECT_REPLY_STR(&sub, "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
    rconn_close(&sub);
    rconn_close(&pub);
}

static void test_fanout_1000(void)
{
    enum { SUBS = 1000, MESSAGES = 3 };
    raise_nofile(SUBS + 64);
    struct rconn *subs = calloc(SUBS, sizeof *subs);
    for (int i = 0; i < SUBS; i++) {
        rconn_open_tcp(&subs[i], port);
        rconn_send(&subs[i], "SUBSCRIBE", "fan", NULL);
    }
    for (int i = 0; i < SUBS; i++) EXPECT_REPLY(&subs[i], fmt_ack(false, "subscribe", "fan", 1));
    struct rconn pub;
    rconn_open_tcp(&pub, port);
    CHECK_EQ_LL(numsub(&pub, "fan"), SUBS);
    for (int m = 0; m < MESSAGES; m++) {
        char payload[16];
        snprintf(payload, sizeof payload, "fan-%d", m);
        CHECK_EQ_LL(publish(&pub, "fan", payload), SUBS);
    }
    for (int i = 0; i < SUBS; i++) {
        for (int m = 0; m < MESSAGES; m++) {
            char payload[16];
            snprintf(payload, sizeof payload, "fan-%d", m);
            EXPECT_REPLY(&subs[i], fmt_message(false, NULL, "fan", payload));
        }
    }
    for (int i = 0; i < SUBS; i++) rconn_close(&subs[i]);
    free(subs);
    /* Closing released every subscription. */
    wait_numsub(&pub, "fan", 0);
    CHECK_EQ_LL(publish(&pub, "fan", "nobody"), 0);
    rconn_close(&pub);
}

/* A message matching a channel subscription and patterns is delivered once
 * per subscription: the channel's first, then each pattern's. */
static void test_double_delivery(void)
{
    struct rconn sub, pub;
    rconn_open_tcp(&sub, port);
    rconn_open_tcp(&pub, port);
    rconn_send(&sub, "SUBSCRIBE", "news.1", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "news.1", 1));
    rconn_send(&sub, "PSUBSCRIBE", "news.*", "*", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "psubscribe", "news.*", 2));
    EXPECT_REPLY(&sub, fmt_ack(false, "psubscribe", "*", 3));

    CHECK_EQ_LL(publish(&pub, "news.1", "hi"), 3);
    EXPECT_REPLY(&sub, fmt_message(false, NULL, "news.1", "hi"));
    char *a = rconn_read_reply(&sub, NULL), *b = rconn_read_reply(&sub, NULL);
    char *p1 = fmt_message(false, "news.*", "news.1", "hi"),
         *p2 = fmt_message(false, "*", "news.1", "hi");
    CHECKF((!strcmp(a, p1) && !strcmp(b, p2)) || (!strcmp(a, p2) && !strcmp(b, p1)),
           "pattern deliveries: %s / %s", a, b);
    free(a), free(b), free(p1), free(p2);

    CHECK_EQ_LL(publish(&pub, "other", "x"), 1);
    EXPECT_REPLY(&sub, fmt_message(false, "*", "other", "x"));
    /* The same pattern from two subscribers counts once in NUMPAT. */
    struct rconn sub2;
    rconn_open_tcp(&sub2, port);
    rconn_send(&sub2, "PSUBSCRIBE", "*", NULL);
    EXPECT_REPLY(&sub2, fmt_ack(false, "psubscribe", "*", 1));
    CHECK_EQ_LL(numpat(&pub), 2);
    CHECK_EQ_LL(publish(&pub, "other", "y"), 2);
    EXPECT_REPLY(&sub, fmt_message(false, "*", "other", "y"));
    EXPECT_REPLY(&sub2, fmt_message(false, "*", "other", "y"));
    rconn_close(&sub);
    rconn_close(&sub2);
    wait_numpat(&pub, 0);
    rconn_close(&pub);
}

static void test_unsubscribe_semantics(void)
{
    struct rconn sub, pub;
    rconn_open_tcp(&sub, port);
    rconn_open_tcp(&pub, port);
    rconn_send(&sub, "SUBSCRIBE", "a", "b", "c", "a", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "a", 1));
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "b", 2));
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "c", 3));
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "a", 3)); /* again: no change, still acked */
    rconn_send(&sub, "PSUBSCRIBE", "p1", "p2", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "psubscribe", "p1", 4));
    EXPECT_REPLY(&sub, fmt_ack(false, "psubscribe", "p2", 5));

    /* Named: one ack per argument, subscribed or not. */
    rconn_send(&sub, "UNSUBSCRIBE", "b", "zz", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "unsubscribe", "b", 4));
    EXPECT_REPLY(&sub, fmt_ack(false, "unsubscribe", "zz", 4));
    CHECK_EQ_LL(publish(&pub, "b", "gone"), 0);
    /* No arguments: every channel, in subscription order; patterns stay. */
    rconn_send(&sub, "UNSUBSCRIBE", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "unsubscribe", "a", 3));
    EXPECT_REPLY(&sub, fmt_ack(false, "unsubscribe", "c", 2));
    rconn_send(&sub, "UNSUBSCRIBE", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "unsubscribe", NULL, 2));
    CHECK_EQ_LL(publish(&pub, "a", "gone"), 0);
    CHECK_EQ_LL(publish(&pub, "p1", "still"), 1);
    EXPECT_REPLY(&sub, fmt_message(false, "p1", "p1", "still"));
    /* Still subscribed (patterns): RESP2 subscribed mode. */
    rconn_send(&sub, "GET", "x", NULL);
    EXPECT_REPLY_STR(&sub, subscribed_mode_error);
    rconn_send(&sub, "PUNSUBSCRIBE", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "punsubscribe", "p1", 1));
    EXPECT_REPLY(&sub, fmt_ack(false, "punsubscribe", "p2", 0));
    rconn_send(&sub, "PUNSUBSCRIBE", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "punsubscribe", NULL, 0));
    /* Out of subscribed mode: ordinary commands and the ordinary PING. */
    rconn_send(&sub, "GET", "x", NULL);
    EXPECT_REPLY_STR(&sub, "$-1\r\n");
    rconn_send(&sub, "PING", NULL);
    EXPECT_REPLY_STR(&sub, "+PONG\r\n");
    CHECK_EQ_LL(publish(&pub, "p1", "gone"), 0);
    rconn_close(&sub);
    rconn_close(&pub);
}

/* Shard channels: a namespace of their own (PUBLISH and patterns never
 * reach them), counted apart in acknowledgements, released on close. */
static void test_shard_channels(void)
{
    struct rconn sub, pub;
    rconn_open_tcp(&sub, port);
    rconn_open_tcp(&pub, port);
    rconn_send(&sub, "SSUBSCRIBE", "sh1", "sh2", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "ssubscribe", "sh1", 1));
    EXPECT_REPLY(&sub, fmt_ack(false, "ssubscribe", "sh2", 2));
    rconn_send(&sub, "GET", "x", NULL); /* shard subscriptions alone mean subscribed mode */
    EXPECT_REPLY_STR(&sub, subscribed_mode_error);
    rconn_send(&sub, "PSUBSCRIBE", "sh*", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "psubscribe", "sh*", 1));
    CHECK_EQ_LL(publish(&pub, "sh1", "plain"), 1); /* the pattern only */
    EXPECT_REPLY(&sub, fmt_message(false, "sh*", "sh1", "plain"));
    const char *spublish[] = {"SPUBLISH", "sh1", "sharded"};
    CHECK_EQ_LL(call_int(&pub, spublish, 3), 1);
    EXPECT_REPLY_STR(&sub, "*3\r\n$8\r\nsmessage\r\n$3\r\nsh1\r\n$7\r\nsharded\r\n");
    rconn_send(&pub, "PUBSUB", "SHARDNUMSUB", "sh1", "sh9", NULL);
    EXPECT_REPLY_STR(&pub, "*4\r\n$3\r\nsh1\r\n:1\r\n$3\r\nsh9\r\n:0\r\n");
    CHECK_EQ_LL(numsub(&pub, "sh1"), 0);
    rconn_send(&sub, "SUNSUBSCRIBE", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "sunsubscribe", "sh1", 1));
    EXPECT_REPLY(&sub, fmt_ack(false, "sunsubscribe", "sh2", 0));
    rconn_send(&sub, "SSUBSCRIBE", "sh3", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "ssubscribe", "sh3", 1));
    rconn_close(&sub);
    for (int i = 0; i < 1000; i++) {
        const char *shardnumsub[] = {"PUBSUB", "SHARDNUMSUB", "sh3"};
        rconn_send_argv(&pub, 3, shardnumsub, NULL);
        char *r = rconn_read_reply(&pub, NULL);
        bool gone = strcmp(r, "*2\r\n$3\r\nsh3\r\n:0\r\n") == 0;
        free(r);
        if (gone) break;
        CHECKF(i < 999, "shard subscription not released on close");
        usleep(10000);
    }
    wait_numpat(&pub, 0);
    rconn_close(&pub);
}

static void test_subscribed_mode(void)
{
    struct rconn sub;
    rconn_open_tcp(&sub, port);
    rconn_send(&sub, "SUBSCRIBE", "m", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "m", 1));
    rconn_send(&sub, "GET", "x", NULL);
    EXPECT_REPLY_STR(&sub, subscribed_mode_error);
    rconn_send(&sub, "PING", NULL);
    EXPECT_REPLY_STR(&sub, "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
    rconn_send(&sub, "PING", "hey", NULL);
    EXPECT_REPLY_STR(&sub, "*2\r\n$4\r\npong\r\n$3\r\nhey\r\n");
    /* Arity and unknown commands are checked first, as in Redis. */
    rconn_send(&sub, "GET", NULL);
    EXPECT_REPLY_STR(&sub, "-ERR wrong number of arguments for 'get' command\r\n");
    rconn_send(&sub, "PUBLISH", "m", "self", NULL);
    EXPECT_REPLY_STR(&sub,
                     "-ERR Can't execute 'publish': only (P|S)SUBSCRIBE / "
                     "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n");
    rconn_send(&sub, "QUIT", NULL);
    EXPECT_REPLY_STR(&sub, "+OK\r\n");
    CHECK(rconn_wait_closed(&sub, 5000));
    rconn_close(&sub);
}

/* RESP3: ordinary commands run while subscribed, and a message published
 * by the subscriber's own command arrives before that command's reply
 * (Redis 7.0's byte order), in order with later commands. */
static void test_resp3_self_publish(void)
{
    struct rconn s, other;
    rconn_open_tcp(&s, port);
    hello3(&s);
    rconn_open_tcp(&other, port);
    rconn_send(&other, "SUBSCRIBE", "self", NULL);
    EXPECT_REPLY(&other, fmt_ack(false, "subscribe", "self", 1));
    rconn_send(&s, "SUBSCRIBE", "self", NULL);
    EXPECT_REPLY(&s, fmt_ack(true, "subscribe", "self", 1));
    rconn_send(&s, "PSUBSCRIBE", "se*", NULL);
    EXPECT_REPLY(&s, fmt_ack(true, "psubscribe", "se*", 2));
    rconn_send(&s, "SET", "k", "v", NULL);
    EXPECT_REPLY_STR(&s, "+OK\r\n");

    /* Pipelined in one write: publish, ping, publish, get. */
    const char *pipeline = "*3\r\n$7\r\nPUBLISH\r\n$4\r\nself\r\n$1\r\na\r\n"
                           "*1\r\n$4\r\nPING\r\n"
                           "*3\r\n$7\r\nPUBLISH\r\n$4\r\nself\r\n$1\r\nb\r\n"
                           "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
    rconn_send_raw(&s, pipeline, strlen(pipeline));
    EXPECT_REPLY(&s, fmt_message(true, NULL, "self", "a"));
    EXPECT_REPLY(&s, fmt_message(true, "se*", "self", "a"));
    EXPECT_REPLY_STR(&s, ":3\r\n");
    EXPECT_REPLY_STR(&s, "+PONG\r\n");
    EXPECT_REPLY(&s, fmt_message(true, NULL, "self", "b"));
    EXPECT_REPLY(&s, fmt_message(true, "se*", "self", "b"));
    EXPECT_REPLY_STR(&s, ":3\r\n");
    EXPECT_REPLY_STR(&s, "$1\r\nv\r\n");
    EXPECT_REPLY(&other, fmt_message(false, NULL, "self", "a"));
    EXPECT_REPLY(&other, fmt_message(false, NULL, "self", "b"));

    /* From another connection: the push lands before s's next reply. */
    struct rconn pub;
    rconn_open_tcp(&pub, port);
    CHECK_EQ_LL(publish(&pub, "self", "c"), 3);
    rconn_send(&s, "GET", "nokey", NULL);
    EXPECT_REPLY(&s, fmt_message(true, NULL, "self", "c"));
    EXPECT_REPLY(&s, fmt_message(true, "se*", "self", "c"));
    EXPECT_REPLY_STR(&s, "_\r\n");
    EXPECT_REPLY(&other, fmt_message(false, NULL, "self", "c"));
    /* RESET: unsubscribed, back to RESP2. */
    rconn_send(&s, "RESET", NULL);
    EXPECT_REPLY_STR(&s, "+RESET\r\n");
    rconn_send(&s, "GET", "nokey", NULL);
    EXPECT_REPLY_STR(&s, "$-1\r\n");
    CHECK_EQ_LL(publish(&pub, "self", "d"), 1);
    EXPECT_REPLY(&other, fmt_message(false, NULL, "self", "d"));
    rconn_close(&s);
    rconn_close(&other);
    rconn_close(&pub);
}

/* A subscriber under reply backpressure (it pipelines big PINGs and reads
 * slowly) while messages keep arriving: nothing deadlocks, every reply and
 * every message arrives once, messages in publish order. The test reads
 * and writes the subscriber's socket without blocking. */
static void test_backpressure_with_pushes(void)
{
    enum { PINGS = 100, PING_BYTES = 64 * 1024, READ_STEP = 192 * 1024 };
    struct rconn sub, pub;
    rconn_open_tcp(&pub, port);
    /* Room for every message this test can queue while the socket is full. */
    rconn_send(&pub, "CONFIG", "SET", "unsolicited-output-buffer-bytes", "1mb", NULL);
    EXPECT_REPLY_STR(&pub, "+OK\r\n");
    rconn_open_tcp(&sub, port);
    rconn_send(&sub, "SUBSCRIBE", "bp", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "bp", 1));

    struct buf reqs;
    buf_init(&reqs, (size_t)PINGS * (PING_BYTES + 64));
    char *arg = malloc(PING_BYTES);
    for (int i = 0; i < PINGS; i++) {
        memset(arg, 'a' + i % 26, PING_BYTES);
        char head[64];
        int n = snprintf(head, sizeof head, "*2\r\n$4\r\nPING\r\n$%d\r\n", PING_BYTES);
        buf_append(&reqs, head, (size_t)n);
        buf_append(&reqs, arg, PING_BYTES);
        buf_append(&reqs, "\r\n", 2);
    }
    int pongs = 0, published = 0, received = 0;
    time_t deadline = time(NULL) + 30;
    while (pongs < PINGS) {
        CHECKF(time(NULL) < deadline, "stuck: %d pongs, %d/%d messages", pongs, received,
               published);
        if (buf_len(&reqs)) {
            ssize_t w = send(sub.fd, buf_head(&reqs), buf_len(&reqs), MSG_DONTWAIT);
            if (w > 0) buf_consume(&reqs, (size_t)w);
        }
        char payload[32];
        snprintf(payload, sizeof payload, "bp-%d", published);
        CHECK_EQ_LL(publish(&pub, "bp", payload), 1);
        published++;
        buf_reserve(&sub.in, READ_STEP);
        ssize_t r = recv(sub.fd, buf_tail(&sub.in), READ_STEP, MSG_DONTWAIT);
        if (r > 0) sub.in.end += (size_t)r;
        for (;;) {
            long long len = resp_reply_length(buf_head(&sub.in), buf_len(&sub.in));
            CHECK(len >= 0);
            if (len == 0) break;
            const char *p = buf_head(&sub.in);
            if (strncmp(p, "*3\r\n$7\r\nmessage\r\n", 17) == 0) {
                snprintf(payload, sizeof payload, "bp-%d", received);
                char *want = fmt_message(false, NULL, "bp", payload);
                CHECKF((size_t)len == strlen(want) && memcmp(p, want, (size_t)len) == 0,
                       "message %d out of order", received);
                free(want);
                received++;
            } else {
                char head[64];
                int n = snprintf(head, sizeof head, "*2\r\n$4\r\npong\r\n$%d\r\n", PING_BYTES);
                CHECKF(len == n + PING_BYTES + 2 && memcmp(p, head, (size_t)n) == 0 &&
                           p[n] == 'a' + pongs % 26 && p[n + PING_BYTES - 1] == 'a' + pongs % 26,
                       "pong %d malformed", pongs);
                pongs++;
            }
            buf_consume(&sub.in, (size_t)len);
        }
        if (r <= 0) usleep(1000);
    }
    while (received < published) {
        snprintf(arg, 32, "bp-%d", received++);
        EXPECT_REPLY(&sub, fmt_message(false, NULL, "bp", arg));
    }
    fprintf(stderr, "backpressure: %d pongs of %d bytes with %d messages interleaved\n", pongs,
            PING_BYTES, published);
    rconn_send(&pub, "CONFIG", "SET", "unsolicited-output-buffer-bytes", "4096", NULL);
    EXPECT_REPLY_STR(&pub, "+OK\r\n");
    free(arg);
    buf_free(&reqs);
    rconn_close(&sub);
    rconn_close(&pub);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* PUBSUB CHANNELS [pattern] as a sorted, comma-joined list of names. */
static void check_channels(struct rconn *c, const char *pattern, const char *want)
{
    if (pattern)
        rconn_send(c, "PUBSUB", "CHANNELS", pattern, NULL);
    else
        rconn_send(c, "PUBSUB", "CHANNELS", NULL);
    char *r = rconn_read_reply(c, NULL);
    CHECK(r[0] == '*');
    int n = atoi(r + 1);
    char *names[64];
    CHECK(n < 64);
    const char *p = strchr(r, '\n') + 1;
    for (int i = 0; i < n; i++) {
        CHECK(*p == '$');
        int len = atoi(p + 1);
        p = strchr(p, '\n') + 1;
        names[i] = strndup(p, (size_t)len);
        p += len + 2;
    }
    qsort(names, (size_t)n, sizeof names[0], compare_strings);
    char joined[1024] = "";
    for (int i = 0; i < n; i++) {
        if (i) strcat(joined, ",");
        strcat(joined, names[i]);
        free(names[i]);
    }
    CHECK_STR(joined, want);
    free(r);
}

static void test_introspection(void)
{
    struct rconn c1, c2, c3, c4, q;
    rconn_open_tcp(&c1, port);
    rconn_open_tcp(&c2, port);
    rconn_open_tcp(&c3, port);
    rconn_open_tcp(&c4, port);
    rconn_open_tcp(&q, port);
    check_channels(&q, NULL, "");
    CHECK_EQ_LL(numpat(&q), 0);
    rconn_send(&c1, "SUBSCRIBE", "x", "y", NULL);
    EXPECT_REPLY(&c1, fmt_ack(false, "subscribe", "x", 1));
    EXPECT_REPLY(&c1, fmt_ack(false, "subscribe", "y", 2));
    rconn_send(&c2, "SUBSCRIBE", "y", "zed", NULL);
    EXPECT_REPLY(&c2, fmt_ack(false, "subscribe", "y", 1));
    EXPECT_REPLY(&c2, fmt_ack(false, "subscribe", "zed", 2));
    rconn_send(&c3, "PSUBSCRIBE", "p*", "q*", NULL);
    EXPECT_REPLY(&c3, fmt_ack(false, "psubscribe", "p*", 1));
    EXPECT_REPLY(&c3, fmt_ack(false, "psubscribe", "q*", 2));
    rconn_send(&c4, "PSUBSCRIBE", "p*", NULL);
    EXPECT_REPLY(&c4, fmt_ack(false, "psubscribe", "p*", 1));

    rconn_send(&q, "PUBSUB", "NUMSUB", "x", "y", "zed", "w", NULL);
    EXPECT_REPLY_STR(
        &q, "*8\r\n$1\r\nx\r\n:1\r\n$1\r\ny\r\n:2\r\n$3\r\nzed\r\n:1\r\n$1\r\nw\r\n:0\r\n");
    rconn_send(&q, "PUBSUB", "NUMSUB", NULL);
    EXPECT_REPLY_STR(&q, "*0\r\n");
    CHECK_EQ_LL(numpat(&q), 2);
    check_channels(&q, NULL, "x,y,zed");
    check_channels(&q, "*", "x,y,zed");
    check_channels(&q, "[xy]", "x,y");
    check_channels(&q, "z?d", "zed");
    check_channels(&q, "nomatch*", "");
    /* Closing a connection releases its subscriptions. */
    rconn_close(&c2);
    wait_numsub(&q, "y", 1);
    CHECK_EQ_LL(numsub(&q, "zed"), 0);
    check_channels(&q, NULL, "x,y");
    rconn_close(&c3);
    wait_numpat(&q, 1);
    rconn_close(&c4);
    wait_numpat(&q, 0);
    rconn_close(&c1);
    wait_numsub(&q, "x", 0);
    check_channels(&q, NULL, "");
    rconn_close(&q);
}

static void test_reset(void)
{
    struct rconn c, q;
    rconn_open_tcp(&c, port);
    rconn_open_tcp(&q, port);
    rconn_send(&c, "SELECT", "3", NULL);
    EXPECT_REPLY_STR(&c, "+OK\r\n");
    rconn_send(&c, "SET", "reset-key", "v", NULL);
    EXPECT_REPLY_STR(&c, "+OK\r\n");
    rconn_send(&c, "SUBSCRIBE", "r1", NULL);
    EXPECT_REPLY(&c, fmt_ack(false, "subscribe", "r1", 1));
    rconn_send(&c, "PSUBSCRIBE", "r*", NULL);
    EXPECT_REPLY(&c, fmt_ack(false, "psubscribe", "r*", 2));
    rconn_send(&c, "RESET", "extra", NULL);
    EXPECT_REPLY_STR(&c, "-ERR wrong number of arguments for 'reset' command\r\n");
    rconn_send(&c, "RESET", NULL);
    EXPECT_REPLY_STR(&c, "+RESET\r\n");
    CHECK_EQ_LL(numsub(&q, "r1"), 0);
    CHECK_EQ_LL(numpat(&q), 0);
    CHECK_EQ_LL(publish(&q, "r1", "nobody"), 0);
    /* Database 0 again (the key lives in 3), ordinary commands allowed. */
    rconn_send(&c, "GET", "reset-key", NULL);
    EXPECT_REPLY_STR(&c, "$-1\r\n");
    rconn_send(&c, "SELECT", "3", NULL);
    EXPECT_REPLY_STR(&c, "+OK\r\n");
    rconn_send(&c, "GET", "reset-key", NULL);
    EXPECT_REPLY_STR(&c, "$1\r\nv\r\n");
    rconn_close(&c);
    rconn_close(&q);

    /* With a password required, RESET runs before AUTH and leaves the
     * connection unauthenticated. */
    struct test_server locked;
    const char *const extra[] = {"--requirepass", "sekrit", NULL};
    test_server_start(&locked, TEST_SERVER_GOBLIN, extra);
    rconn_open_tcp(&c, locked.port);
    rconn_send(&c, "RESET", NULL);
    EXPECT_REPLY_STR(&c, "+RESET\r\n");
    rconn_send(&c, "SUBSCRIBE", "x", NULL);
    EXPECT_REPLY_STR(&c, "-NOAUTH Authentication required.\r\n");
    rconn_close(&c);
    test_server_stop(&locked);
}

static void test_config(void)
{
    struct rconn c;
    rconn_open_tcp(&c, port);
    rconn_send(&c, "CONFIG", "GET", "unsolicited-output-buffer-bytes", NULL);
    char want[128];
    snprintf(want, sizeof want, "*2\r\n$31\r\nunsolicited-output-buffer-bytes\r\n$%d\r\n%ld\r\n",
             (int)snprintf(NULL, 0, "%ld", sysconf(_SC_PAGESIZE)), sysconf(_SC_PAGESIZE));
    EXPECT_REPLY_STR(&c, want);
    rconn_close(&c);
}

int main(void)
{
    raise_nofile(1200);
    test_server_start(&server, TEST_SERVER_GOBLIN, NULL);
    port = server.port;
    test_delivery_order();
    test_fanout_1000();
    test_double_delivery();
    test_unsubscribe_semantics();
    test_subscribed_mode();
    test_shard_channels();
    test_resp3_self_publish();
    test_backpressure_with_pushes();
    test_introspection();
    test_reset();
    test_config();
    test_server_stop(&server);
    printf("pubsub: ok\n");
    return 0;
}
