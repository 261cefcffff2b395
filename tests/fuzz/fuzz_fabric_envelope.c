/*
 * fuzz_fabric_envelope.c — libFuzzer harness for the libfabric envelope
 * decoders (include/goblin/fabric_envelope.h) and the reorder window
 * (include/goblin/fabric_reorder.h), as a receiver drives them with
 * messages a peer chose.
 *
 * fuzz-sources:
 *
 * Input: byte 0 picks the window (messages 1..16, bytes 64..4096), then
 * messages, each a 16-bit little-endian length and that many bytes (fewer
 * at the end of the input). Each message goes to goblin_fabric_decode() in a
 * block of exactly its size (ASan catches any read past it); a HELLO's and
 * a HELLO_ACK's payloads to their decoders; a DATA frame's payload to the
 * window.
 *
 * Invariants: a decoded header's payload_len is exactly the message length
 * minus the header; a decoded hello name lies inside the payload; the
 * window delivers sequences 1, 2, 3, ... each exactly once and in order,
 * each with the bytes first offered under that sequence (compared by
 * length and checksum), never holds more than its message or byte bound;
 * an overflow starts a new session (a fresh window), as the transport does.
 */
#include <goblin/fabric_envelope.h>
#include <goblin/fabric_reorder.h>

#include "fuzz_common.h"

#define MAX_TRACKED 64

/* Length and checksum of the first payload offered under each held
 * sequence, to check what the window hands back. */
struct offered {
    uint64_t sequence;
    size_t len;
    uint32_t sum;
};

static uint32_t checksum(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

static void delivered(uint64_t *expect, uint64_t sequence, const void *p, size_t len,
                      const struct offered *track)
{
    FUZZ_CHECK(sequence == *expect, "delivered %llu, expected %llu", (unsigned long long)sequence,
               (unsigned long long)*expect);
    const struct offered *o = &track[sequence % MAX_TRACKED];
    if (o->sequence == sequence)
        FUZZ_CHECK(o->len == len && o->sum == checksum(p, len), "held bytes changed for %llu",
                   (unsigned long long)sequence);
    (*expect)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size, 0};
    uint8_t shape = fuzz_u8(&in);
    uint32_t max_messages = 1 + (shape & 15);
    size_t max_bytes = 64u << ((shape >> 4) % 7);
    struct goblin_reorder w;
    if (goblin_reorder_init(&w, max_messages, max_bytes) != 0) abort();
    uint64_t expect = 1;
    struct offered track[MAX_TRACKED];
    memset(track, 0, sizeof track);
    while (in.pos < in.size) {
        size_t want = fuzz_u8(&in);
        want |= (size_t)fuzz_u8(&in) << 8;
        size_t n;
        const uint8_t *bytes = fuzz_bytes(&in, want, &n);
        char *msg = fuzz_exact_copy(bytes, n);
        struct goblin_fabric_header h;
        if (goblin_fabric_decode(msg, n, &h) == NULL) {
            FUZZ_CHECK((size_t)h.payload_len + GOBLIN_FABRIC_HEADER_BYTES == n, "payload_len %u",
                       h.payload_len);
            /* The payload in a block of its own, as the decoders see it. */
            char *payload = fuzz_exact_copy(msg + GOBLIN_FABRIC_HEADER_BYTES, h.payload_len);
            if (h.type == GOBLIN_FABRIC_HELLO) {
                struct goblin_fabric_hello hello;
                const void *name;
                if (goblin_fabric_hello_decode(payload, h.payload_len, &hello, &name) == NULL) {
                    FUZZ_CHECK((const char *)name + hello.name_len == payload + h.payload_len,
                               "hello name outside its payload");
                    FUZZ_CHECK(hello.version_min >= 1 && hello.version_min <= hello.version_max,
                               "accepted an empty version range");
                    uint8_t v = goblin_fabric_pick_version(hello.version_min, hello.version_max,
                                                           GOBLIN_FABRIC_VERSION_MIN,
                                                           GOBLIN_FABRIC_VERSION_MAX);
                    FUZZ_CHECK(v == 0 || (v >= hello.version_min && v <= hello.version_max),
                               "picked %u outside %u..%u", v, hello.version_min, hello.version_max);
                }
            } else if (h.type == GOBLIN_FABRIC_HELLO_ACK) {
                struct goblin_fabric_hello_ack ack;
                if (goblin_fabric_hello_ack_decode(payload, h.payload_len, &ack) == NULL)
                    FUZZ_CHECK(ack.accepted <= 1, "ack status %u", ack.accepted);
            } else if (h.type == GOBLIN_FABRIC_DATA) {
                FUZZ_CHECK(h.sequence != 0, "data with sequence 0 decoded");
                size_t before_held = w.held;
                enum goblin_reorder_result r =
                    goblin_reorder_offer(&w, h.sequence, payload, h.payload_len);
                if (r == GOBLIN_REORDER_HELD) {
                    FUZZ_CHECK(w.held == before_held + 1, "held count");
                    track[h.sequence % MAX_TRACKED] = (struct offered){
                        h.sequence, h.payload_len, checksum(payload, h.payload_len)};
                } else if (r == GOBLIN_REORDER_DELIVER) {
                    delivered(&expect, h.sequence, payload, h.payload_len, track);
                    for (;;) {
                        uint64_t seq = w.next;
                        size_t len;
                        void *held = goblin_reorder_pop(&w, &len);
                        if (!held) break;
                        delivered(&expect, seq, held, len, track);
                        free(held);
                    }
                } else if (r == GOBLIN_REORDER_OVERFLOW) {
                    goblin_reorder_free(&w); /* the session ends; a new one starts */
                    if (goblin_reorder_init(&w, max_messages, max_bytes) != 0) abort();
                    expect = 1;
                    memset(track, 0, sizeof track);
                } else {
                    FUZZ_CHECK(r == GOBLIN_REORDER_DUPLICATE, "result %d", (int)r);
                }
                FUZZ_CHECK(w.held <= w.max_messages && w.held_bytes <= w.max_bytes,
                           "window holds %u messages, %zu bytes", w.held, w.held_bytes);
            }
            free(payload);
        }
        free(msg);
    }
    goblin_reorder_free(&w);
    return 0;
}
