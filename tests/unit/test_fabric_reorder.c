/* Unit tests of the libfabric reorder window (include/goblin/fabric_reorder.h)
 * and envelope codec (include/goblin/fabric_envelope.h): the in-order fast
 * path, gaps filled in every order, duplicates, overflow by count and by
 * bytes; header/hello/hello-ack round trips and every malformed-length case;
 * version negotiation. */
#include <goblin/fabric_envelope.h>
#include <goblin/fabric_reorder.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* What the receiver delivered, in order: each message is its sequence
 * number written as text, so order and content are checked at once. */
struct sink {
    char text[4096];
    size_t len;
};

static void sink_add(struct sink *s, const void *data, size_t len)
{
    CHECK(s->len + len + 1 < sizeof s->text);
    memcpy(s->text + s->len, data, len);
    s->len += len;
    s->text[s->len++] = ',';
    s->text[s->len] = '\0';
}

/* Offers sequence seq (payload "<seq>") and drains what became deliverable. */
static enum goblin_reorder_result offer(struct goblin_reorder *w, struct sink *s, uint64_t seq)
{
    char payload[32];
    int n = snprintf(payload, sizeof payload, "%llu", (unsigned long long)seq);
    enum goblin_reorder_result r = goblin_reorder_offer(w, seq, payload, (size_t)n);
    if (r == GOBLIN_REORDER_DELIVER) {
        sink_add(s, payload, (size_t)n);
        size_t len;
        void *held;
        while ((held = goblin_reorder_pop(w, &len))) {
            sink_add(s, held, len);
            free(held);
        }
    }
    return r;
}

static void test_in_order(void)
{
    struct goblin_reorder w;
    CHECK(goblin_reorder_init(&w, 4, 1024) == 0);
    struct sink s = {0};
    for (uint64_t q = 1; q <= 100; q++) CHECK(offer(&w, &s, q) == GOBLIN_REORDER_DELIVER);
    CHECK(w.held == 0 && w.sequestered == 0 && w.next == 101);
    CHECK(strncmp(s.text, "1,2,3,", 6) == 0);
    goblin_reorder_free(&w);
}

/* Every permutation of sequences 1..5: delivered exactly 1..5 in order. */
static void permute(uint64_t *a, int k, int n, int *count)
{
    if (k == n) {
        struct goblin_reorder w;
        CHECK(goblin_reorder_init(&w, 8, 1024) == 0);
        struct sink s = {0};
        for (int i = 0; i < n; i++) {
            enum goblin_reorder_result r = offer(&w, &s, a[i]);
            CHECK(r == GOBLIN_REORDER_DELIVER || r == GOBLIN_REORDER_HELD);
        }
        CHECKF(strcmp(s.text, "1,2,3,4,5,") == 0, "got %s", s.text);
        CHECK(w.held == 0 && w.held_bytes == 0 && w.next == 6);
        goblin_reorder_free(&w);
        (*count)++;
        return;
    }
    for (int i = k; i < n; i++) {
        uint64_t t = a[k];
        a[k] = a[i];
        a[i] = t;
        permute(a, k + 1, n, count);
        a[i] = a[k];
        a[k] = t;
    }
}

static void test_gaps_every_order(void)
{
    uint64_t a[5] = {1, 2, 3, 4, 5};
    int count = 0;
    permute(a, 0, 5, &count);
    CHECK_EQ_LL(count, 120);
}

static void test_duplicates(void)
{
    struct goblin_reorder w;
    CHECK(goblin_reorder_init(&w, 8, 1024) == 0);
    struct sink s = {0};
    CHECK(offer(&w, &s, 1) == GOBLIN_REORDER_DELIVER);
    CHECK(offer(&w, &s, 1) == GOBLIN_REORDER_DUPLICATE); /* already delivered */
    CHECK(offer(&w, &s, 3) == GOBLIN_REORDER_HELD);
    CHECK(offer(&w, &s, 3) == GOBLIN_REORDER_DUPLICATE); /* already held */
    CHECK_EQ_LL(w.held, 1);
    CHECK(offer(&w, &s, 2) == GOBLIN_REORDER_DELIVER);
    CHECK(offer(&w, &s, 2) == GOBLIN_REORDER_DUPLICATE);
    CHECK(offer(&w, &s, 3) == GOBLIN_REORDER_DUPLICATE);
    CHECK_STR(s.text, "1,2,3,");
    CHECK_EQ_LL(w.duplicates, 4);
    goblin_reorder_free(&w);
}

static void test_overflow_by_count(void)
{
    struct goblin_reorder w;
    CHECK(goblin_reorder_init(&w, 4, 1 << 20) == 0);
    struct sink s = {0};
    /* next = 1: sequences 2..4 fit (1..4 is the window), 5 does not. */
    CHECK(offer(&w, &s, 2) == GOBLIN_REORDER_HELD);
    CHECK(offer(&w, &s, 4) == GOBLIN_REORDER_HELD);
    CHECK(offer(&w, &s, 5) == GOBLIN_REORDER_OVERFLOW);
    CHECK(offer(&w, &s, 1000000) == GOBLIN_REORDER_OVERFLOW);
    CHECK(offer(&w, &s, UINT64_MAX) == GOBLIN_REORDER_OVERFLOW);
    CHECK_EQ_LL(w.held, 2);
    /* The window slides with delivery: after 1..4, 5..8 fit. */
    CHECK(offer(&w, &s, 3) == GOBLIN_REORDER_HELD);
    CHECK(offer(&w, &s, 1) == GOBLIN_REORDER_DELIVER);
    CHECK_STR(s.text, "1,2,3,4,");
    CHECK(offer(&w, &s, 8) == GOBLIN_REORDER_HELD);
    CHECK(offer(&w, &s, 9) == GOBLIN_REORDER_OVERFLOW);
    goblin_reorder_free(&w); /* frees the held 8 (ASan checks) */
}

static void test_overflow_by_bytes(void)
{
    struct goblin_reorder w;
    CHECK(goblin_reorder_init(&w, 64, 100) == 0);
    char big[60];
    memset(big, 'x', sizeof big);
    CHECK(goblin_reorder_offer(&w, 2, big, 60) == GOBLIN_REORDER_HELD);
    CHECK(goblin_reorder_offer(&w, 3, big, 40) == GOBLIN_REORDER_HELD); /* exactly 100 */
    CHECK(goblin_reorder_offer(&w, 4, big, 1) == GOBLIN_REORDER_OVERFLOW);
    CHECK_EQ_LL(w.held_bytes, 100);
    /* The expected sequence is never held, so it passes whatever its size. */
    CHECK(goblin_reorder_offer(&w, 1, big, 60) == GOBLIN_REORDER_DELIVER);
    size_t len;
    void *p = goblin_reorder_pop(&w, &len);
    CHECK(p && len == 60);
    free(p);
    CHECK_EQ_LL(w.held_bytes, 40);
    CHECK(goblin_reorder_offer(&w, 5, big, 60) == GOBLIN_REORDER_HELD); /* room again */
    goblin_reorder_free(&w);
}

static void test_envelope_round_trip(void)
{
    unsigned char msg[GOBLIN_FABRIC_HEADER_BYTES + 5];
    struct goblin_fabric_header h = {.version = 1,
                                     .type = GOBLIN_FABRIC_DATA,
                                     .session = 0x0123456789abcdefULL,
                                     .sequence = 42,
                                     .correlation = 41,
                                     .payload_len = 5};
    goblin_fabric_encode(msg, &h);
    memcpy(msg + GOBLIN_FABRIC_HEADER_BYTES, "hello", 5);
    CHECK(memcmp(msg, "GFAB", 4) == 0); /* the magic reads as text on the wire */
    /* Every field little-endian at its offset, whatever the host's order. */
    // clang-format off
    static const unsigned char wire[GOBLIN_FABRIC_HEADER_BYTES] = {
        'G', 'F', 'A', 'B', 1, GOBLIN_FABRIC_DATA, 0, 0,  /* magic, version, type */
        0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,   /* session */
        42, 0, 0, 0, 0, 0, 0, 0,                          /* sequence */
        41, 0, 0, 0, 0, 0, 0, 0,                          /* correlation */
        5, 0, 0, 0, 0, 0, 0, 0};                          /* payload_len, reserved */
    // clang-format on
    CHECK(memcmp(msg, wire, sizeof wire) == 0);
    CHECK(goblin_fabric_get16(wire + 4) == 0x0301 && goblin_fabric_get32(wire + 8) == 0x89abcdefu);
    struct goblin_fabric_header d;
    CHECK(goblin_fabric_decode(msg, sizeof msg, &d) == NULL);
    CHECK(d.version == 1 && d.type == GOBLIN_FABRIC_DATA && d.session == h.session &&
          d.sequence == 42 && d.correlation == 41 && d.payload_len == 5);
    /* Lengths: short, long, truncated. */
    CHECK(goblin_fabric_decode(msg, 10, &d) != NULL);
    CHECK(goblin_fabric_decode(msg, sizeof msg - 1, &d) != NULL);
    unsigned char longer[sizeof msg + 1];
    memcpy(longer, msg, sizeof msg);
    CHECK(goblin_fabric_decode(longer, sizeof longer, &d) != NULL);
    /* Magic, type, data without a sequence. */
    msg[0] ^= 1;
    CHECK_STR(goblin_fabric_decode(msg, sizeof msg, &d), "bad envelope magic");
    msg[0] ^= 1;
    msg[5] = 0;
    CHECK_STR(goblin_fabric_decode(msg, sizeof msg, &d), "unknown envelope frame type");
    msg[5] = GOBLIN_FABRIC_BYE + 1;
    CHECK(goblin_fabric_decode(msg, sizeof msg, &d) != NULL);
    h.sequence = 0;
    goblin_fabric_encode(msg, &h);
    CHECK_STR(goblin_fabric_decode(msg, sizeof msg, &d), "data frame with sequence 0");
    /* A payload length that wraps when added to the header. */
    h.sequence = 1;
    h.payload_len = UINT32_MAX;
    goblin_fabric_encode(msg, &h);
    CHECK(goblin_fabric_decode(msg, sizeof msg, &d) != NULL);
}

static void test_hello(void)
{
    unsigned char msg[GOBLIN_FABRIC_HELLO_BYTES + 16];
    struct goblin_fabric_hello h = {.version_min = 1,
                                    .version_max = 3,
                                    .name_len = 16,
                                    .window_messages = 64,
                                    .window_bytes = 1 << 20};
    goblin_fabric_hello_encode(msg, &h);
    memset(msg + GOBLIN_FABRIC_HELLO_BYTES, 'n', 16);
    struct goblin_fabric_hello d;
    const void *name;
    CHECK(goblin_fabric_hello_decode(msg, sizeof msg, &d, &name) == NULL);
    CHECK(d.version_min == 1 && d.version_max == 3 && d.name_len == 16 && d.window_messages == 64 &&
          d.window_bytes == 1 << 20);
    CHECK(name == msg + GOBLIN_FABRIC_HELLO_BYTES);
    CHECK(goblin_fabric_hello_decode(msg, sizeof msg - 1, &d, &name) != NULL);
    CHECK(goblin_fabric_hello_decode(msg, 3, &d, &name) != NULL);
    h.version_min = 4; /* empty range */
    goblin_fabric_hello_encode(msg, &h);
    CHECK(goblin_fabric_hello_decode(msg, sizeof msg, &d, &name) != NULL);
    h.version_min = 1;
    h.name_len = 0;
    goblin_fabric_hello_encode(msg, &h);
    CHECK(goblin_fabric_hello_decode(msg, GOBLIN_FABRIC_HELLO_BYTES, &d, &name) != NULL);

    unsigned char ack_msg[GOBLIN_FABRIC_HELLO_ACK_BYTES];
    struct goblin_fabric_hello_ack a = {.accepted = 1,
                                        .version = 1,
                                        .server_min = 1,
                                        .server_max = 1,
                                        .lease_ms = 30000,
                                        .max_payload = 131032,
                                        .window_messages = 64},
                                   b;
    goblin_fabric_hello_ack_encode(ack_msg, &a);
    CHECK(goblin_fabric_hello_ack_decode(ack_msg, sizeof ack_msg, &b) == NULL);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(goblin_fabric_hello_ack_decode(ack_msg, sizeof ack_msg - 1, &b) != NULL);
    ack_msg[0] = 2;
    CHECK(goblin_fabric_hello_ack_decode(ack_msg, sizeof ack_msg, &b) != NULL);
}

static void test_version_pick(void)
{
    CHECK_EQ_LL(goblin_fabric_pick_version(1, 1, 1, 1), 1);
    CHECK_EQ_LL(goblin_fabric_pick_version(1, 3, 2, 5), 3);
    CHECK_EQ_LL(goblin_fabric_pick_version(2, 5, 1, 3), 3);
    CHECK_EQ_LL(goblin_fabric_pick_version(2, 3, 1, 1), 0);
    CHECK_EQ_LL(goblin_fabric_pick_version(1, 1, 2, 3), 0);
}

int main(void)
{
    test_in_order();
    test_gaps_every_order();
    test_duplicates();
    test_overflow_by_count();
    test_overflow_by_bytes();
    test_envelope_round_trip();
    test_hello();
    test_version_pick();
    printf("fabric reorder/envelope: ok\n");
    return 0;
}
