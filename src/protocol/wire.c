/* wire.c — wire detection among candidates and the RESP wire's table; see
 * wire.h (the registry is wire_registry.c). */
#include "protocol/wire.h"

#include <string.h>

const struct wire *wire_detect_among(const char *data, size_t len,
                                     const struct wire *const *candidates, size_t n,
                                     size_t *handshake_len)
{
    *handshake_len = 0;
    bool waiting = false;
    for (size_t i = 0; i < n; i++) {
        const struct wire *w = candidates[i];
        if (!w->handshake) continue;
        size_t common = len < w->handshake_len ? len : w->handshake_len;
        if (memcmp(data, w->handshake, common) != 0) continue; /* diverged from this one */
        if (common < w->handshake_len) {
            waiting = true; /* a prefix so far */
            continue;
        }
        *handshake_len = w->handshake_len;
        return w;
    }
    return waiting ? NULL : &resp_wire;
}

/* --- RESP (protocol/resp_parser.h) -------------------------------------- */

WIRE_STATE_FITS(struct resp_parser);

static void resp_wire_init(void *st)
{
    resp_parser_init(st);
}

static void resp_wire_free(void *st)
{
    resp_parser_free(st);
}

static enum wire_status resp_wire_parse(void *st, const char *data, size_t len,
                                        const struct request_limits *lim, struct request *req)
{
    struct resp_parser *p = st;
    switch (resp_parse(p, data, len, lim)) {
    case RESP_INCOMPLETE:
        return WIRE_INCOMPLETE;
    case RESP_ERROR:
        req->error = p->error;
        return WIRE_ERROR;
    case RESP_EMPTY:
        req->consumed = p->consumed;
        return WIRE_EMPTY;
    case RESP_COMMAND:
        break;
    }
    req->argc = p->argc;
    req->argv = p->argv;
    req->argv_len = p->argv_len;
    req->owned = &p->external;
    req->typed = NULL;
    req->correlation = 0;
    req->consumed = p->consumed;
    return WIRE_REQUEST;
}

static void resp_wire_request_done(void *st)
{
    struct resp_parser *p = st;
    if (p->external.count) resp_parser_release_external(p);
}

static size_t resp_wire_read_hint(const void *st, size_t len)
{
    return resp_parser_pending_bulk(st, len);
}

static bool resp_wire_mid_request(const void *st)
{
    return resp_parser_mid_command(st);
}

static long long resp_wire_big_argument(const void *st, size_t len, size_t *at)
{
    return resp_parser_big_bulk(st, len, at);
}

static void resp_wire_adopt_argument(void *st, struct strbuf *sb)
{
    resp_parser_bulk_external(st, sb);
}

static size_t resp_wire_held_bytes(const void *st)
{
    const struct resp_parser *p = st;
    return p->external.bytes;
}

const struct wire resp_wire = {
    .name = "resp",
    .framed = false,
    .handshake = NULL,
    .protocol = PROTO_RESP2,
    .hello_switches = true,
    .init = resp_wire_init,
    .free = resp_wire_free,
    .parse = resp_wire_parse,
    .request_done = resp_wire_request_done,
    .read_hint = resp_wire_read_hint,
    .mid_request = resp_wire_mid_request,
    .big_argument = resp_wire_big_argument,
    .adopt_argument = resp_wire_adopt_argument,
    .held_bytes = resp_wire_held_bytes,
};
