/*
 * wire.h — the request side of a wire protocol: how the bytes a transport
 * delivers become requests (a command name plus arguments), whatever their
 * encoding. The reply side is the encoder table behind the reply_* calls
 * (protocol/reply.h).
 *
 * A connection does not know its wire until the first bytes arrive:
 * wire_detect() picks it (the 8-byte `GOBLINS!` handshake selects SBE where
 * the transport may carry it and --enable-sbe allows it; anything that
 * diverges from that prefix is RESP, decided at the first diverging byte).
 * From then on the conn calls only its wire's table:
 *
 *   parse()        one complete request out of the buffered bytes, in place
 *                  (argument pointers stay valid until the caller consumes
 *                  `consumed` bytes and calls request_done());
 *   read_hint()    how many more bytes the request being parsed still needs
 *                  (buffer sizing: a large argument grows the buffer with
 *                  what arrives, never with what a peer merely declares);
 *   big_argument() / adopt_argument(): a wire whose requests carry large
 *                  byte arguments may receive one into a buffer of its own
 *                  (util/strbuf.h) that a command can keep without a copy;
 *   request_done() releases what parse() lent; called only for a request
 *                  whose `owned` set is not empty (the hot path makes no
 *                  call for a request that borrowed nothing).
 *
 * A framed wire (`framed`) answers one frame per request: the conn then
 * keeps its output as units (connection/conn.h, "Framed output") and a
 * transport that frames sends one unit per frame. A binary wire may hand a
 * hot command typed arguments (`request.typed`); text wires leave it NULL.
 *
 * Adding a wire is a parser behind this table plus an encoder table.
 */
#ifndef GOBLIN_WIRE_H
#define GOBLIN_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/resp_parser.h"
#include "protocol/sbe_wire.h"
#include "util/strbuf.h"

enum wire_status {
    WIRE_INCOMPLETE, /* need more bytes */
    WIRE_REQUEST,    /* `request` holds a command */
    WIRE_EMPTY,      /* an empty request was consumed */
    WIRE_ERROR,      /* protocol error: reply `error`, then close */
    WIRE_REJECTED,   /* a well-framed request refused: reply `error`, consume, go on */
};

struct request {
    int argc;
    const char **argv;
    const size_t *argv_len;
    struct strbuf_set *owned; /* arguments in buffers of their own (may be adopted) */
    const void *typed;        /* a binary wire's typed arguments, or NULL */
    uint64_t correlation;     /* what the reply echoes (binary wires); 0 for RESP */
    size_t consumed;          /* bytes of input the request took */
    const char *error;        /* WIRE_ERROR: Redis-style text without "ERR " */
};

/* Per-connection parser state of every wire; the conn embeds one. */
union wire_state {
    struct resp_parser resp;
    struct sbe_parser sbe;
};

struct wire {
    const char *name; /* "resp" (CLIENT LIST, logs) */
    bool framed;      /* one reply frame per request (see above) */
    void (*init)(union wire_state *st);
    void (*free)(union wire_state *st);
    enum wire_status (*parse)(union wire_state *st, const char *data, size_t len,
                              const struct request_limits *lim, struct request *req);
    void (*request_done)(union wire_state *st);
    /* Bytes the current request still needs beyond len; 0 if unknown. */
    size_t (*read_hint)(const union wire_state *st, size_t len);
    /* True while a request is partly parsed (diagnostics and fuzzing). */
    bool (*mid_request)(const union wire_state *st);
    /* A large argument being awaited: its payload length, and in *at where
     * its bytes start in the buffered input; -1 when there is none. NULL
     * when the wire never hands arguments over. */
    long long (*big_argument)(const union wire_state *st, size_t len, size_t *at);
    /* The awaited argument arrived whole into sb (ownership moves). */
    void (*adopt_argument)(union wire_state *st, struct strbuf *sb);
    /* Input bytes the wire holds outside the conn's buffer (arguments
     * received into their own buffers; the conn keeps its own count for the
     * query-buffer limit, fuzzing checks this one against it). */
    size_t (*held_bytes)(const union wire_state *st);
};

extern const struct wire resp_wire;
extern const struct wire sbe_wire; /* protocol/sbe_wire.c */

/* The SBE handshake a connection opens with (DESIGN §3). */
#define WIRE_SBE_HANDSHAKE "GOBLINS!"
#define WIRE_SBE_HANDSHAKE_LEN 8

/* Chooses the wire from a connection's first bytes: NULL while they are a
 * proper prefix of the SBE handshake and SBE is allowed (wait for more);
 * otherwise the wire, and in *handshake_len the bytes of handshake to skip.
 * `sbe` is the SBE wire where this transport and configuration allow it,
 * NULL where they do not (the bytes are then RESP, as in Redis). */
const struct wire *wire_detect(const char *data, size_t len, const struct wire *sbe,
                               size_t *handshake_len);

#endif
