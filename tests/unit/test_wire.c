/* Unit: wire detection from a connection's first bytes and the wire
 * registry (protocol/wire.h). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "protocol/wire.h"

/* Detection reads only a candidate's handshake: any table with one will do. */
static const struct wire binary_wire = {.name = "binary",
                                        .framed = true,
                                        .handshake = WIRE_SBE_HANDSHAKE,
                                        .handshake_len = WIRE_SBE_HANDSHAKE_LEN};
/* A second handshake wire, sharing binary_wire's first byte. */
static const struct wire other_wire = {.name = "other", .handshake = "GRPC", .handshake_len = 4};

static void expect(const char *bytes, size_t len, const struct wire *allowed,
                   const struct wire *want, size_t want_skip)
{
    size_t skip = 99;
    const struct wire *const candidates[] = {allowed, &other_wire};
    const struct wire *got = wire_detect_among(bytes, len, candidates, allowed ? 1 : 0, &skip);
    CHECKF(got == want, "'%.*s' (%zu bytes) chose %s", (int)len, bytes, len,
           got ? got->name : "none yet");
    if (got) CHECK_EQ_LL(skip, want_skip);
}

int main(void)
{
    /* Without a binary wire on offer, everything is RESP at once. */
    expect("GOBLINS!", 8, NULL, &resp_wire, 0);
    expect("", 0, NULL, &resp_wire, 0);
    /* With one: a proper prefix of the handshake waits... */
    expect("", 0, &binary_wire, NULL, 0);
    expect("G", 1, &binary_wire, NULL, 0);
    expect("GOBLINS", 7, &binary_wire, NULL, 0);
    /* ...the whole handshake selects it and is skipped... */
    expect("GOBLINS!", 8, &binary_wire, &binary_wire, 8);
    expect("GOBLINS!\x10\x00", 10, &binary_wire, &binary_wire, 8);
    /* ...and the first diverging byte decides RESP (Redis's inline GET). */
    expect("GET k\r\n", 7, &binary_wire, &resp_wire, 0);
    expect("GOBLINZ", 7, &binary_wire, &resp_wire, 0);
    expect("*1\r\n$4\r\nPING\r\n", 14, &binary_wire, &resp_wire, 0);
    expect("goblins!", 8, &binary_wire, &resp_wire, 0);
    /* Two handshakes: wait while either is still possible, take the one
     * that is whole, RESP once both diverged. */
    const struct wire *const both[] = {&binary_wire, &other_wire};
    size_t skip = 99;
    CHECK(wire_detect_among("G", 1, both, 2, &skip) == NULL);
    CHECK(wire_detect_among("GR", 2, both, 2, &skip) == NULL);
    CHECK(wire_detect_among("GRPC*1", 6, both, 2, &skip) == &other_wire && skip == 4);
    CHECK(wire_detect_among("GOBLINS!", 8, both, 2, &skip) == &binary_wire && skip == 8);
    CHECK(wire_detect_among("GX", 2, both, 2, &skip) == &resp_wire && skip == 0);

    /* The registry: RESP is the default row, every other row has a
     * handshake of its own, and wire_detect() offers them all or none. */
    CHECK(wire_registry_count >= 2 && wire_registry[0] == &resp_wire);
    CHECK(resp_wire.handshake == NULL);
    for (size_t i = 1; i < wire_registry_count; i++) {
        const struct wire *w = wire_registry[i];
        CHECKF(w->handshake && w->handshake_len > 0, "wire %s has no handshake", w->name);
        CHECK(wire_detect(w->handshake, w->handshake_len, true, &skip) == w &&
              skip == w->handshake_len);
        CHECK(wire_detect(w->handshake, w->handshake_len, false, &skip) == &resp_wire && skip == 0);
        CHECK(reply_encoder_for(w->protocol) != NULL);
    }
    CHECK(wire_detect("GOBLINS!", 8, true, &skip) == &sbe_wire);

    /* The reply side of each row: HELLO switches RESP between RESP2 and
     * RESP3, SBE keeps its encoding whatever HELLO asks. */
    CHECK(wire_encoder(&resp_wire, PROTO_RESP2) == &reply_resp2);
    CHECK(wire_encoder(&resp_wire, PROTO_RESP3) == &reply_resp3);
    CHECK(wire_encoder(&sbe_wire, PROTO_RESP2) == &reply_sbe);
    CHECK(wire_encoder(&sbe_wire, PROTO_RESP3) == &reply_sbe);
    CHECK(reply_encoder_for(PROTO_RESP2) == &reply_resp2 && reply_encoder_for(0) == NULL);
    printf("wire detection: ok\n");
    return 0;
}
