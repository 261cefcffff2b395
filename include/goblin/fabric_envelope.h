/*
 * goblin/fabric_envelope.h — the envelope around every libfabric message
 * (server: src/transport/fabric.c; client: client/fabric_client.c;
 * operator notes: docs/libfabric.md).
 *
 * Every FI_EP_RDM message is one envelope: a fixed 40-byte little-endian
 * header followed by `payload_len` bytes.
 *
 *   offset size field
 *        0    4 magic        "GFAB" (GOBLIN_FABRIC_MAGIC)
 *        4    1 version      envelope version of this message (hello: 0)
 *        5    1 type         enum goblin_fabric_type
 *        6    2 reserved     0
 *        8    8 session      random 64-bit session id chosen by the client
 *       16    8 sequence     per direction, from 1 (data only; 0 otherwise)
 *       24    8 correlation  the request sequence a reply answers; 0 for an
 *                            unsolicited Pub/Sub push and non-data frames
 *       32    4 payload_len  bytes after the header
 *       36    4 reserved     0
 *
 * Frame types and their payloads:
 *   HELLO     client -> server: struct goblin_fabric_hello, then the
 *             client's endpoint name (fi_getname) of hello.name_len bytes.
 *   HELLO_ACK server -> client: struct goblin_fabric_hello_ack, then (when
 *             refused) the reason as text.
 *   DATA      either way: RESP bytes or one SBE frame.
 *   PING/PONG heartbeat (no payload); any frame refreshes the lease.
 *   BYE       either way: the session is over (payload: optional reason).
 *
 * Version negotiation: the hello carries the range of envelope versions the
 * client speaks; the server picks the highest version in both ranges or
 * refuses with a text naming both ranges, so either side can be upgraded
 * first.
 *
 * Everything here is decoded from untrusted bytes: goblin_fabric_decode()
 * checks every length before it is used (fuzzed: tests/fuzz/fuzz_fabric_envelope.c).
 */
#ifndef GOBLIN_FABRIC_ENVELOPE_H
#define GOBLIN_FABRIC_ENVELOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GOBLIN_FABRIC_MAGIC 0x42414647u /* "GFAB" little-endian */
#define GOBLIN_FABRIC_HEADER_BYTES 40u
/* Envelope versions this build speaks. */
#define GOBLIN_FABRIC_VERSION_MIN 1u
#define GOBLIN_FABRIC_VERSION_MAX 1u
/* Longest endpoint name a hello may carry (fi_getname of every provider
 * fits; EFA's is 32 bytes, shm's a path-like string). */
#define GOBLIN_FABRIC_NAME_MAX 256u

enum goblin_fabric_type {
    GOBLIN_FABRIC_HELLO = 1,
    GOBLIN_FABRIC_HELLO_ACK = 2,
    GOBLIN_FABRIC_DATA = 3,
    GOBLIN_FABRIC_PING = 4,
    GOBLIN_FABRIC_PONG = 5,
    GOBLIN_FABRIC_BYE = 6,
};

struct goblin_fabric_header {
    uint8_t version;
    uint8_t type;
    uint64_t session;
    uint64_t sequence;
    uint64_t correlation;
    uint32_t payload_len;
};

/* HELLO payload (fixed part, 16 bytes, then the name). */
struct goblin_fabric_hello {
    uint8_t version_min, version_max;
    uint16_t name_len;
    uint32_t window_messages; /* the client's reorder window (informative) */
    uint32_t window_bytes;
    uint32_t reserved;
};
#define GOBLIN_FABRIC_HELLO_BYTES 16u

/* HELLO_ACK payload (fixed part, 16 bytes, then the refusal text). */
struct goblin_fabric_hello_ack {
    uint8_t accepted; /* 1: session open; 0: refused, text follows */
    uint8_t version;  /* chosen envelope version (accepted) */
    uint8_t server_min, server_max;
    uint32_t lease_ms;        /* 0: no expiry; else ping after lease/3 idle */
    uint32_t max_payload;     /* largest DATA payload the server receives */
    uint32_t window_messages; /* the server's reorder window */
};
#define GOBLIN_FABRIC_HELLO_ACK_BYTES 16u

/* Little-endian stores and loads through memcpy: one move each on a
 * little-endian machine (byte loops are not merged by every compiler and
 * cost ~180 instructions per header on the request path). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GOBLIN_FABRIC_LE16(v) __builtin_bswap16(v)
#define GOBLIN_FABRIC_LE32(v) __builtin_bswap32(v)
#define GOBLIN_FABRIC_LE64(v) __builtin_bswap64(v)
#else
#define GOBLIN_FABRIC_LE16(v) (v)
#define GOBLIN_FABRIC_LE32(v) (v)
#define GOBLIN_FABRIC_LE64(v) (v)
#endif
static inline void goblin_fabric_put16(unsigned char *p, uint16_t v)
{
    v = GOBLIN_FABRIC_LE16(v);
    memcpy(p, &v, sizeof v);
}
static inline void goblin_fabric_put32(unsigned char *p, uint32_t v)
{
    v = GOBLIN_FABRIC_LE32(v);
    memcpy(p, &v, sizeof v);
}
static inline void goblin_fabric_put64(unsigned char *p, uint64_t v)
{
    v = GOBLIN_FABRIC_LE64(v);
    memcpy(p, &v, sizeof v);
}
static inline uint16_t goblin_fabric_get16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return GOBLIN_FABRIC_LE16(v);
}
static inline uint32_t goblin_fabric_get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return GOBLIN_FABRIC_LE32(v);
}
static inline uint64_t goblin_fabric_get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return GOBLIN_FABRIC_LE64(v);
}

/* Writes h's header into out (GOBLIN_FABRIC_HEADER_BYTES). */
static inline void goblin_fabric_encode(unsigned char *out, const struct goblin_fabric_header *h)
{
    goblin_fabric_put32(out, GOBLIN_FABRIC_MAGIC);
    out[4] = h->version;
    out[5] = h->type;
    goblin_fabric_put16(out + 6, 0);
    goblin_fabric_put64(out + 8, h->session);
    goblin_fabric_put64(out + 16, h->sequence);
    goblin_fabric_put64(out + 24, h->correlation);
    goblin_fabric_put32(out + 32, h->payload_len);
    goblin_fabric_put32(out + 36, 0);
}

/* Decodes the header of a received message of len bytes. Returns NULL when
 * it is well formed (payload_len matches len exactly, known type, data has
 * a sequence), else what is wrong. */
static inline const char *goblin_fabric_decode(const void *msg, size_t len,
                                               struct goblin_fabric_header *h)
{
    const unsigned char *p = (const unsigned char *)msg;
    if (len < GOBLIN_FABRIC_HEADER_BYTES) return "message shorter than the envelope header";
    if (goblin_fabric_get32(p) != GOBLIN_FABRIC_MAGIC) return "bad envelope magic";
    h->version = p[4];
    h->type = p[5];
    h->session = goblin_fabric_get64(p + 8);
    h->sequence = goblin_fabric_get64(p + 16);
    h->correlation = goblin_fabric_get64(p + 24);
    h->payload_len = goblin_fabric_get32(p + 32);
    if ((size_t)h->payload_len != len - GOBLIN_FABRIC_HEADER_BYTES)
        return "envelope payload length does not match the message";
    if (h->type < GOBLIN_FABRIC_HELLO || h->type > GOBLIN_FABRIC_BYE)
        return "unknown envelope frame type";
    if (h->type == GOBLIN_FABRIC_DATA && h->sequence == 0) return "data frame with sequence 0";
    return NULL;
}

/* Writes a hello payload (fixed part) into out. */
static inline void goblin_fabric_hello_encode(unsigned char *out,
                                              const struct goblin_fabric_hello *hello)
{
    memset(out, 0, GOBLIN_FABRIC_HELLO_BYTES);
    out[0] = hello->version_min;
    out[1] = hello->version_max;
    goblin_fabric_put16(out + 2, hello->name_len);
    goblin_fabric_put32(out + 4, hello->window_messages);
    goblin_fabric_put32(out + 8, hello->window_bytes);
}

/* Decodes a hello payload; *name points at the endpoint name inside it.
 * NULL when well formed, else what is wrong. */
static inline const char *goblin_fabric_hello_decode(const void *payload, size_t len,
                                                     struct goblin_fabric_hello *hello,
                                                     const void **name)
{
    const unsigned char *p = (const unsigned char *)payload;
    if (len < GOBLIN_FABRIC_HELLO_BYTES) return "hello shorter than its fixed part";
    hello->version_min = p[0];
    hello->version_max = p[1];
    hello->name_len = goblin_fabric_get16(p + 2);
    hello->window_messages = goblin_fabric_get32(p + 4);
    hello->window_bytes = goblin_fabric_get32(p + 8);
    hello->reserved = 0;
    if (hello->name_len == 0 || hello->name_len > GOBLIN_FABRIC_NAME_MAX)
        return "hello endpoint name length out of range";
    if ((size_t)hello->name_len != len - GOBLIN_FABRIC_HELLO_BYTES)
        return "hello name length does not match the payload";
    if (hello->version_min == 0 || hello->version_min > hello->version_max)
        return "hello version range is empty";
    *name = p + GOBLIN_FABRIC_HELLO_BYTES;
    return NULL;
}

static inline void goblin_fabric_hello_ack_encode(unsigned char *out,
                                                  const struct goblin_fabric_hello_ack *ack)
{
    memset(out, 0, GOBLIN_FABRIC_HELLO_ACK_BYTES);
    out[0] = ack->accepted;
    out[1] = ack->version;
    out[2] = ack->server_min;
    out[3] = ack->server_max;
    goblin_fabric_put32(out + 4, ack->lease_ms);
    goblin_fabric_put32(out + 8, ack->max_payload);
    goblin_fabric_put32(out + 12, ack->window_messages);
}

static inline const char *goblin_fabric_hello_ack_decode(const void *payload, size_t len,
                                                         struct goblin_fabric_hello_ack *ack)
{
    const unsigned char *p = (const unsigned char *)payload;
    if (len < GOBLIN_FABRIC_HELLO_ACK_BYTES) return "hello-ack shorter than its fixed part";
    ack->accepted = p[0];
    ack->version = p[1];
    ack->server_min = p[2];
    ack->server_max = p[3];
    ack->lease_ms = goblin_fabric_get32(p + 4);
    ack->max_payload = goblin_fabric_get32(p + 8);
    ack->window_messages = goblin_fabric_get32(p + 12);
    if (ack->accepted > 1) return "hello-ack with an unknown status";
    return NULL;
}

/* The highest version in both [a_min, a_max] and [b_min, b_max], or 0. */
static inline uint8_t goblin_fabric_pick_version(uint8_t a_min, uint8_t a_max, uint8_t b_min,
                                                 uint8_t b_max)
{
    uint8_t hi = a_max < b_max ? a_max : b_max;
    uint8_t lo = a_min > b_min ? a_min : b_min;
    return hi >= lo ? hi : 0;
}

#endif
