/* Unit: wire detection from a connection's first bytes (protocol/wire.h). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "protocol/wire.h"

/* Detection only compares the pointer it is given: any table will do. */
static const struct wire binary_wire = {.name = "binary", .framed = true};

static void expect(const char *bytes, size_t len, const struct wire *allowed,
                   const struct wire *want, size_t want_skip)
{
    size_t skip = 99;
    const struct wire *got = wire_detect(bytes, len, allowed, &skip);
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
    printf("wire detection: ok\n");
    return 0;
}
