/*
 * wire.h — how goblin-bench encodes requests and the exact replies it
 * expects, per wire format ("resp", "sbe").
 *
 * The ops (ops.c) describe requests and expected replies abstractly (a
 * command's arguments; "status OK", "integer 0", "bulk <bytes>", "score 2",
 * "Pub/Sub message"); the wire turns both into bytes once, before any
 * measurement, so the timed loop only sends prepared bytes and compares
 * received bytes with prepared bytes. An SBE wire encodes a score as a
 * double and a count as an integer where RESP2 writes ASCII; that difference
 * lives here and nowhere else.
 *
 * Every encoder writes into out[0..cap) and returns the length, or -1 when
 * the result does not fit (the caller treats that as a bug in its sizes).
 */
#ifndef GOBLIN_BENCH_WIRE_H
#define GOBLIN_BENCH_WIRE_H

#include <stdbool.h>
#include <stddef.h>

struct bench_wire {
    const char *name;
    /* Bytes a connection sends once before its first request (SBE's
     * GOBLINS!), NULL for none. */
    const char *handshake;
    /* A request: the command and its arguments. */
    int (*encode_command)(char *out, size_t cap, int argc, const char *const *argv,
                          const size_t *lens);
    /* Expected replies. */
    int (*encode_status)(char *out, size_t cap, const char *status);
    int (*encode_integer)(char *out, size_t cap, long long value);
    int (*encode_bulk)(char *out, size_t cap, const char *data, size_t len);
    /* A sorted-set score as the server replies it to ZSCORE. */
    int (*encode_score)(char *out, size_t cap, double score);
    /* The subscriber's confirmation of SUBSCRIBE channel (count channels). */
    int (*encode_subscribed)(char *out, size_t cap, const char *channel, long long count);
    /* A message published on channel, as delivered to its subscriber. */
    int (*encode_message)(char *out, size_t cap, const char *channel, const char *payload,
                          size_t payload_len);
    /* Frames one complete reply: >0 its length, 0 incomplete, -1 malformed. */
    long long (*frame)(const char *buf, size_t len);
    /* True when a complete reply is an error reply. */
    bool (*is_error)(const char *reply, size_t len);
    /* Renders raw bytes readably (escaping control and binary bytes) for
     * diagnostics; returns out. */
    char *(*render)(const char *raw, size_t len, char *out, size_t cap);
};

/* The wire registered under `name`, or NULL. */
const struct bench_wire *bench_wire_find(const char *name);

extern const struct bench_wire bench_wire_resp;
extern const struct bench_wire bench_wire_sbe;

#endif
