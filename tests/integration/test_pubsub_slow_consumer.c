/* Integration: the fixed unsolicited FIFO (--unsolicited-output-buffer-bytes
 * 4096, the low-latency option). A subscriber that never reads
 * while another client publishes ~200 MB is unsubscribed and disconnected
 * in the same loop pass, its unsent output discarded (its descriptor and
 * maxclients slot are free before it reads anything); what the kernel had
 * already taken is a gap-free, in-order prefix of the messages, then EOF; the server's resident
 * memory stays bounded; a subscriber that keeps up receives everything in order. A message larger
 * than the FIFO is never delivered in part; raising --unsolicited-output-buffer-bytes lets it
 * through. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pubsub_testutil.h"

enum {
    PAYLOAD = 4000, /* a message of ~4030 bytes fits the default 4096-byte FIFO */
    MESSAGES = 50000,
    BATCH = 32,
};

static void make_payload(char *p, int seq)
{
    int n = snprintf(p, PAYLOAD + 1, "seq:%08d:", seq);
    for (int i = n; i < PAYLOAD; i++) p[i] = (char)('a' + (seq + i) % 26);
    p[PAYLOAD] = '\0';
}

static bool log_mentions(const struct test_server *s, const char *needle)
{
    FILE *f = fopen(s->log_path, "r");
    if (!f) return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

static void test_slow_consumer(const struct test_server *s)
{
    struct rconn slow, good, pub;
    rconn_open_tcp(&slow, s->port);
    rconn_open_tcp(&good, s->port);
    rconn_open_tcp(&pub, s->port);
    rconn_send(&slow, "SUBSCRIBE", "flood", NULL);
    EXPECT_REPLY(&slow, fmt_ack(false, "subscribe", "flood", 1));
    rconn_send(&good, "SUBSCRIBE", "flood", NULL);
    EXPECT_REPLY(&good, fmt_ack(false, "subscribe", "flood", 1));

    long baseline = test_server_rss_kb(s), peak = baseline;
    char *payload = malloc(PAYLOAD + 1);
    int accepted_by_slow = 0; /* publishes that reached both subscribers */
    bool dropped = false;
    for (int base = 0; base < MESSAGES; base += BATCH) {
        for (int i = base; i < base + BATCH; i++) {
            make_payload(payload, i);
            rconn_send(&pub, "PUBLISH", "flood", payload, NULL);
        }
        for (int i = base; i < base + BATCH; i++) {
            char *r = rconn_read_reply(&pub, NULL);
            if (strcmp(r, ":2\r\n") == 0) {
                CHECKF(!dropped, "message %d reached the slow consumer after it was dropped", i);
                accepted_by_slow++;
            } else {
                CHECKF(strcmp(r, ":1\r\n") == 0, "PUBLISH %d answered %s", i, r);
                dropped = true;
            }
            free(r);
        }
        /* The good subscriber keeps up: everything, in order. */
        for (int i = base; i < base + BATCH; i++) {
            make_payload(payload, i);
            EXPECT_REPLY(&good, fmt_message(false, NULL, "flood", payload));
        }
        if ((base / BATCH) % 64 == 0) {
            long now = test_server_rss_kb(s);
            if (now > peak) peak = now;
        }
    }
    long now = test_server_rss_kb(s);
    if (now > peak) peak = now;
    fprintf(stderr,
            "slow consumer: published %d x %d bytes; dropped after %d; server RSS %ld kB "
            "-> peak %ld kB\n",
            MESSAGES, PAYLOAD, accepted_by_slow, baseline, peak);
    CHECKF(dropped, "the slow consumer was never disconnected");
    CHECK(accepted_by_slow > 0);
    /* ~200 MB went through; a bounded server grows by far less. */
    CHECKF(peak - baseline < 48 * 1024, "server RSS grew by %ld kB", peak - baseline);

    /* Dropped means closed already, although the slow consumer has not read
     * a byte: only the good subscriber and the publisher remain. */
    rconn_send(&pub, "INFO", "clients", NULL);
    char *info = rconn_read_reply(&pub, NULL);
    CHECKF(strstr(info, "connected_clients:2\r\n"), "the dropped subscriber is still connected: %s",
           info);
    free(info);

    /* The slow consumer now reads what the kernel had taken: messages in
     * order with no gap (the last one may be cut: unsent output was
     * discarded), then EOF. */
    int seq = 0;
    for (;;) {
        size_t len;
        char *r = rconn_try_read_reply(&slow, &len, 2000);
        if (!r) break;
        make_payload(payload, seq);
        char *want = fmt_message(false, NULL, "flood", payload);
        CHECKF(len == strlen(want) && memcmp(r, want, len) == 0, "message %d of the slow consumer",
               seq);
        free(want);
        free(r);
        seq++;
    }
    CHECKF(rconn_wait_closed(&slow, 100), "the slow consumer was not closed");
    CHECKF(seq <= accepted_by_slow, "%d messages read, %d accepted", seq, accepted_by_slow);
    CHECK(log_mentions(s, "did not fit its unsolicited output buffer"));

    rconn_send(&pub, "PUBSUB", "NUMSUB", "flood", NULL);
    EXPECT_REPLY_STR(&pub, "*2\r\n$5\r\nflood\r\n:1\r\n");
    free(payload);
    rconn_close(&slow);
    rconn_close(&good);
    rconn_close(&pub);
}

/* The FIFO must hold a whole message: a larger one ends the subscription
 * (nothing of it is sent) until the limit is raised. */
static void test_message_larger_than_fifo(const struct test_server *s)
{
    char *big = malloc(6001);
    memset(big, 'z', 6000);
    big[6000] = '\0';
    struct rconn sub, pub;
    rconn_open_tcp(&sub, s->port);
    rconn_open_tcp(&pub, s->port);
    rconn_send(&sub, "SUBSCRIBE", "big", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "big", 1));
    rconn_send(&pub, "PUBLISH", "big", big, NULL);
    EXPECT_REPLY_STR(&pub, ":0\r\n");
    CHECK(rconn_wait_closed(&sub, 5000));
    CHECK_EQ_LL(buf_len(&sub.in), 0);
    rconn_close(&sub);

    rconn_send(&pub, "CONFIG", "SET", "unsolicited-output-buffer-bytes", "6100", NULL);
    EXPECT_REPLY_STR(&pub, "+OK\r\n");
    rconn_open_tcp(&sub, s->port);
    rconn_send(&sub, "SUBSCRIBE", "big", NULL);
    EXPECT_REPLY(&sub, fmt_ack(false, "subscribe", "big", 1));
    rconn_send(&pub, "PUBLISH", "big", big, NULL);
    EXPECT_REPLY_STR(&pub, ":1\r\n");
    EXPECT_REPLY(&sub, fmt_message(false, NULL, "big", big));
    rconn_send(&pub, "CONFIG", "SET", "unsolicited-output-buffer-bytes", "-1", NULL);
    char *r = rconn_read_reply(&pub, NULL);
    CHECKF(r[0] == '-', "a negative FIFO size was accepted: %s", r);
    free(r);
    rconn_close(&sub);
    rconn_close(&pub);
    free(big);
}

int main(void)
{
    /* Under ASan, freed memory sits in a quarantine (256 MB by default),
     * which would hide or fake growth; keep it small for this server. */
    if (getenv("GOBLIN_ASAN")) {
        const char *old = getenv("ASAN_OPTIONS");
        char opts[512];
        snprintf(opts, sizeof opts, "%s%squarantine_size_mb=8", old ? old : "", old ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
    }
    struct test_server s;
    /* The explicit fixed-FIFO mode (the default FIFO grows up to the
     * pubsub output limit: test_flow_control.c). */
    const char *const fixed_fifo[] = {"--unsolicited-output-buffer-bytes", "4096", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, fixed_fifo);
    test_slow_consumer(&s);
    test_message_larger_than_fifo(&s);
    test_server_stop(&s);
    printf("pubsub slow consumer: ok\n");
    return 0;
}
