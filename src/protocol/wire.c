/* wire.c — wire detection and the RESP wire's table; see wire.h. */
#include "protocol/wire.h"

#include <string.h>

const struct wire *wire_detect(const char *data, size_t len, const struct wire *sbe,
                               size_t *handshake_len)
{
    *handshake_len = 0;
    if (!sbe) return &resp_wire;
    size_t n = len < WIRE_SBE_HANDSHAKE_LEN ? len : WIRE_SBE_HANDSHAKE_LEN;
    if (memcmp(data, WIRE_SBE_HANDSHAKE, n) != 0) return &resp_wire; /* diverged: RESP */
    if (n < WIRE_SBE_HANDSHAKE_LEN) return NULL;                     /* a prefix so far */
    *handshake_len = WIRE_SBE_HANDSHAKE_LEN;
    return sbe;
}

/* --- RESP (protocol/resp_parser.h) -------------------------------------- */

static void resp_wire_init(union wire_state *st)
{
    resp_parser_init(&st->resp);
}

static void resp_wire_free(union wire_state *st)
{
    resp_parser_free(&st->resp);
}

static enum wire_status resp_wire_parse(union wire_state *st, const char *data, size_t len,
                                        const struct request_limits *lim, struct request *req)
{
    struct resp_parser *p = &st->resp;
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

static void resp_wire_request_done(union wire_state *st)
{
    if (st->resp.external.count) resp_parser_release_external(&st->resp);
}

static size_t resp_wire_read_hint(const union wire_state *st, size_t len)
{
    return resp_parser_pending_bulk(&st->resp, len);
}

static bool resp_wire_mid_request(const union wire_state *st)
{
    return resp_parser_mid_command(&st->resp);
}

static long long resp_wire_big_argument(const union wire_state *st, size_t len, size_t *at)
{
    return resp_parser_big_bulk(&st->resp, len, at);
}

static void resp_wire_adopt_argument(union wire_state *st, struct strbuf *sb)
{
    resp_parser_bulk_external(&st->resp, sb);
}

static size_t resp_wire_held_bytes(const union wire_state *st)
{
    return st->resp.external.bytes;
}

const struct wire resp_wire = {
    .name = "resp",
    .framed = false,
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
