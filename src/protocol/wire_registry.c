/*
 * wire_registry.c — every wire, one row each (protocol/wire.h): a new wire
 * is its own file and one line here. Detection over the registry and the
 * reply encoder a row's sink takes live here too, so wire.c (detection
 * among given candidates, the RESP row) stands alone for the fuzzers.
 */
#include "protocol/wire.h"

/* Every wire, one line each; the default (no handshake) first. */
const struct wire *const wire_registry[] = {
    &resp_wire,
    &sbe_wire,
};
const size_t wire_registry_count = sizeof wire_registry / sizeof wire_registry[0];

const struct wire *wire_detect(const char *data, size_t len, bool handshakes, size_t *handshake_len)
{
    return wire_detect_among(data, len, wire_registry + 1, handshakes ? wire_registry_count - 1 : 0,
                             handshake_len);
}

const struct reply_encoder *wire_encoder(const struct wire *w, enum proto requested)
{
    return reply_encoder_for(w->hello_switches ? requested : w->protocol);
}
