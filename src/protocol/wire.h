/*
 * wire.h — the request side of a wire protocol: how the bytes a transport
 * delivers become requests (a command name plus arguments), whatever their
 * encoding. The reply side is the encoder table behind the reply_* calls
 * (protocol/reply.h).
 *
 * The wires are rows of one registry (wire_registry.c: `wire_registry`), each the
 * whole of a wire: its request parser, its reply encoders and how a
 * connection selects it. A connection does not know its wire until the
 * first bytes arrive: wire_detect() picks it (a row's `handshake`, such as
 * SBE's 8-byte `GOBLINS!`, selects that row where the transport may carry
 * it and --enable-sbe allows it; anything that diverges from every
 * handshake is the default row, RESP, decided at the first diverging byte).
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
 * The reply side: `protocol` is the encoding (protocol/reply.h) a
 * connection's sink takes when the wire is chosen; `hello_switches` says
 * whether HELLO and RESET may then move it between RESP2 and RESP3 (a
 * binary wire keeps its one encoding: wire_encoder()).
 *
 * Parser state lives in storage the conn embeds (`struct wire_state`): each
 * wire's file asserts its state fits, so no header lists every wire's state
 * and the hot path makes no allocation and follows no extra pointer.
 *
 * Adding a wire is one file (its parser, its encoder table, its row) and
 * one line in `wire_registry`, plus its encoding's value in `enum proto`
 * with its row in reply.c's `reply_encoders`.
 */
#ifndef GOBLIN_WIRE_H
#define GOBLIN_WIRE_H

#include <assert.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/reply.h"
#include "protocol/resp_parser.h"
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

/* Per-connection parser state of a wire, opaque to the conn, which embeds
 * one; a wire's file asserts (WIRE_STATE_FITS) that its parser fits. */
#define WIRE_STATE_BYTES 512
struct wire_state {
    alignas(max_align_t) unsigned char bytes[WIRE_STATE_BYTES];
};
#define WIRE_STATE_FITS(type)                                                                      \
    static_assert(sizeof(type) <= WIRE_STATE_BYTES && alignof(type) <= alignof(max_align_t),       \
                  #type " does not fit struct wire_state")

struct wire {
    const char *name; /* "resp" (CLIENT LIST, logs) */
    bool framed;      /* one reply frame per request (see above) */
    /* Detection: the bytes a connection opens with to select this wire
     * (skipped, not parsed); NULL for the default wire. */
    const char *handshake;
    size_t handshake_len;
    /* The reply side (see above). */
    enum proto protocol;
    bool hello_switches;
    void (*init)(void *st);
    void (*free)(void *st);
    enum wire_status (*parse)(void *st, const char *data, size_t len,
                              const struct request_limits *lim, struct request *req);
    void (*request_done)(void *st);
    /* Bytes the current request still needs beyond len; 0 if unknown. */
    size_t (*read_hint)(const void *st, size_t len);
    /* True while a request is partly parsed (diagnostics and fuzzing). */
    bool (*mid_request)(const void *st);
    /* A large argument being awaited: its payload length, and in *at where
     * its bytes start in the buffered input; -1 when there is none. NULL
     * when the wire never hands arguments over. */
    long long (*big_argument)(const void *st, size_t len, size_t *at);
    /* The awaited argument arrived whole into sb (ownership moves). */
    void (*adopt_argument)(void *st, struct strbuf *sb);
    /* Input bytes the wire holds outside the conn's buffer (arguments
     * received into their own buffers; the conn keeps its own count for the
     * query-buffer limit, fuzzing checks this one against it). */
    size_t (*held_bytes)(const void *st);
};

extern const struct wire resp_wire; /* protocol/wire.c: the default wire */
extern const struct wire sbe_wire;  /* protocol/sbe_wire.c */

/* The registry: every wire, one line each in wire.c; [0] is the default
 * (no handshake), chosen when the first bytes match no handshake. */
extern const struct wire *const wire_registry[];
extern const size_t wire_registry_count;

/* The SBE handshake a connection opens with (DESIGN §3). */
#define WIRE_SBE_HANDSHAKE "GOBLINS!"
#define WIRE_SBE_HANDSHAKE_LEN 8

/* Chooses the wire from a connection's first bytes: NULL while they are a
 * proper prefix of some row's handshake and handshakes are allowed (wait
 * for more); otherwise the wire, and in *handshake_len the bytes of
 * handshake to skip. `candidates` are the rows that may be selected by
 * their handshake (wire_registry[1..] for a conn that may speak SBE; none,
 * n 0, where the transport and configuration allow no binary wire: the
 * bytes are then RESP, as in Redis). */
const struct wire *wire_detect_among(const char *data, size_t len,
                                     const struct wire *const *candidates, size_t n,
                                     size_t *handshake_len);
/* wire_detect_among() over the whole registry (`handshakes` true) or none. */
const struct wire *wire_detect(const char *data, size_t len, bool handshakes,
                               size_t *handshake_len);

/* The encoder a sink on wire w takes when HELLO or RESET asks for
 * `requested`: that one where the wire lets HELLO switch, else its own. */
const struct reply_encoder *wire_encoder(const struct wire *w, enum proto requested);

#endif
