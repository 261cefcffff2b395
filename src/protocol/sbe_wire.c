/*
 * sbe_wire.c — the SBE wire's request side: frames out of the input buffer,
 * decoded in place with the generated codec, into a request (contract in
 * sbe_wire.h and wire.h).
 *
 * The generic Command template becomes argv directly (pointers into the
 * frame) for command_dispatch()'s lookup by name. A typed template becomes
 * a typed call (protocol/typed_call.h): its op is the jump table's index,
 * its byte fields point into the frame in its RESP form's slots, its
 * numbers stay native. Inside MULTI (request_limits.typed_as_text) a typed
 * call is lowered to its RESP form's argv instead, numbers formatted, so
 * that it is queued exactly as the generic form would be.
 */
#include "protocol/sbe_wire.h"

#include <stdio.h>
#include <string.h>

#include "goblin/sbe_codec.h"
#include "protocol/wire.h"
#include "util/xmalloc.h"

WIRE_STATE_FITS(struct sbe_parser);

static void sbe_init(void *st)
{
    memset(st, 0, sizeof(struct sbe_parser));
}

static void sbe_free(void *st)
{
    struct sbe_parser *p = st;
    xfree(p->argv);
    xfree(p->argv_len);
    p->argv = NULL;
    p->argv_len = NULL;
}

/* Room for n arguments (n <= 65535 + a few: a group count bounds it). */
static void sbe_argv_reserve(struct sbe_parser *p, size_t n)
{
    if (n <= p->argv_cap) return;
    size_t cap = p->argv_cap ? p->argv_cap : 8;
    while (cap < n) cap *= 2;
    p->argv = xrealloc(p->argv, cap * sizeof *p->argv);
    p->argv_len = xrealloc(p->argv_len, cap * sizeof *p->argv_len);
    p->argv_cap = cap;
}

struct argv_builder {
    struct sbe_parser *p;
    int argc;
};

static void arg_add(struct argv_builder *b, const void *data, size_t len)
{
    b->p->argv[b->argc] = data;
    b->p->argv_len[b->argc] = len;
    b->argc++;
}

static void arg_bytes(struct argv_builder *b, struct goblin_sbe_bytes v)
{
    arg_add(b, v.data, v.len);
}

/* The Command template: argv straight out of its args group. Returns a
 * codec error (negative) or 0. */
static int sbe_decode_command(struct sbe_parser *p, const uint8_t *body, size_t len,
                              uint16_t block_length, int *argc)
{
    struct goblin_sbe_command m;
    int rc = goblin_sbe_command_decode(body, len, block_length, &m);
    if (rc) return rc;
    sbe_argv_reserve(p, m.args.count);
    struct argv_builder b = {.p = p, .argc = 0};
    struct goblin_sbe_cursor c = goblin_sbe_group_cursor(&m.args);
    struct goblin_sbe_command_args_entry e;
    while (goblin_sbe_command_args_next(&c, &e)) arg_bytes(&b, e.value);
    *argc = b.argc;
    return 0;
}

/* The Auth template: AUTH's argv (the username left out when empty: the
 * default user), run by the AUTH command itself, so credentials, replies
 * and the failure throttle are RESP's. Returns a codec error or 0. */
static int sbe_decode_auth(struct sbe_parser *p, const uint8_t *body, size_t len,
                           uint16_t block_length, int *argc)
{
    struct goblin_sbe_auth m;
    int rc = goblin_sbe_auth_decode(body, len, block_length, &m);
    if (rc) return rc;
    struct argv_builder b = {.p = p, .argc = 0};
    arg_add(&b, "AUTH", 4);
    if (m.username.len) arg_bytes(&b, m.username);
    arg_bytes(&b, m.password);
    *argc = b.argc;
    return 0;
}

/* The typed templates (the jump table's rows, by template id): the op they
 * call, their command's name (argv[0]), their schema block length, and
 * either a group of names (DEL, the subscribe family) or the argv slot of
 * each var-data field in order (the slot its RESP form has; ZADD's member
 * after its score's slot). */
static const struct typed_template {
    const char *name;
    uint8_t name_len;
    uint8_t op;
    uint8_t block_length;
    uint8_t names; /* a group of names after the block */
    uint8_t fields;
    uint8_t slot[3];
} typed_templates[GOBLIN_SBE_TEMPLATE_COUNT + 1] = {
#define ROW(ID, NAME, OP, BLOCK, NAMES, FIELDS, ...)                                               \
    [ID] = {NAME, sizeof NAME - 1, OP, BLOCK, NAMES, FIELDS, {__VA_ARGS__}}
    ROW(GOBLIN_SBE_PING_TEMPLATE_ID, "PING", TYPED_PING, GOBLIN_SBE_PING_BLOCK_LENGTH, 0, 0, 0),
    ROW(GOBLIN_SBE_GET_TEMPLATE_ID, "GET", TYPED_GET, GOBLIN_SBE_GET_BLOCK_LENGTH, 0, 1, 1),
    ROW(GOBLIN_SBE_SET_TEMPLATE_ID, "SET", TYPED_SET, GOBLIN_SBE_SET_BLOCK_LENGTH, 0, 2, 1, 2),
    ROW(GOBLIN_SBE_DEL_TEMPLATE_ID, "DEL", TYPED_DEL, GOBLIN_SBE_DEL_BLOCK_LENGTH, 1, 0, 0),
    ROW(GOBLIN_SBE_INCR_TEMPLATE_ID, "INCR", TYPED_INCR, GOBLIN_SBE_INCR_BLOCK_LENGTH, 0, 1, 1),
    ROW(GOBLIN_SBE_INCR_BY_TEMPLATE_ID, "INCRBY", TYPED_INCRBY, GOBLIN_SBE_INCR_BY_BLOCK_LENGTH, 0,
        1, 1),
    ROW(GOBLIN_SBE_HSET_TEMPLATE_ID, "HSET", TYPED_HSET, GOBLIN_SBE_HSET_BLOCK_LENGTH, 0, 3, 1, 2,
        3),
    ROW(GOBLIN_SBE_HGET_TEMPLATE_ID, "HGET", TYPED_HGET, GOBLIN_SBE_HGET_BLOCK_LENGTH, 0, 2, 1, 2),
    ROW(GOBLIN_SBE_ZADD_TEMPLATE_ID, "ZADD", TYPED_ZADD, GOBLIN_SBE_ZADD_BLOCK_LENGTH, 0, 2, 1, 3),
    ROW(GOBLIN_SBE_ZSCORE_TEMPLATE_ID, "ZSCORE", TYPED_ZSCORE, GOBLIN_SBE_ZSCORE_BLOCK_LENGTH, 0, 2,
        1, 2),
    ROW(GOBLIN_SBE_PUBLISH_TEMPLATE_ID, "PUBLISH", TYPED_PUBLISH, GOBLIN_SBE_PUBLISH_BLOCK_LENGTH,
        0, 2, 1, 2),
    ROW(GOBLIN_SBE_SUBSCRIBE_TEMPLATE_ID, "SUBSCRIBE", TYPED_SUBSCRIBE,
        GOBLIN_SBE_SUBSCRIBE_BLOCK_LENGTH, 1, 0, 0),
    ROW(GOBLIN_SBE_UNSUBSCRIBE_TEMPLATE_ID, "UNSUBSCRIBE", TYPED_UNSUBSCRIBE,
        GOBLIN_SBE_UNSUBSCRIBE_BLOCK_LENGTH, 1, 0, 0),
    ROW(GOBLIN_SBE_PSUBSCRIBE_TEMPLATE_ID, "PSUBSCRIBE", TYPED_PSUBSCRIBE,
        GOBLIN_SBE_PSUBSCRIBE_BLOCK_LENGTH, 1, 0, 0),
    ROW(GOBLIN_SBE_PUNSUBSCRIBE_TEMPLATE_ID, "PUNSUBSCRIBE", TYPED_PUNSUBSCRIBE,
        GOBLIN_SBE_PUNSUBSCRIBE_BLOCK_LENGTH, 1, 0, 0),
#undef ROW
};

/* Decodes a typed template into p->typed: its byte fields bounds-checked
 * as the generated decoders do and pointing into the frame, each number
 * read once from the block. Returns a codec error (negative), 2 with
 * p->error set for a field out of its range, 0 on success. */
static int sbe_decode_typed(struct sbe_parser *p, const struct typed_template *tt,
                            const uint8_t *body, size_t len, uint16_t block_length)
{
    if (block_length < tt->block_length) return GOBLIN_SBE_E_BLOCK;
    if (len < block_length) return GOBLIN_SBE_E_SHORT;
    const uint8_t *at = body + block_length, *end = body + len;
    struct typed_call *t = &p->typed;
    struct argv_builder b = {.p = p, .argc = 0};
    arg_add(&b, tt->name, tt->name_len);
    if (tt->names) {
        /* Every names group has the Command args layout. */
        struct goblin_sbe_group g;
        int rc = goblin_sbe_take_group(&at, end, GOBLIN_SBE_COMMAND_ARGS_BLOCK_LENGTH,
                                       GOBLIN_SBE_COMMAND_ARGS_DATA_COUNT, &g);
        if (rc != GOBLIN_SBE_OK) return rc;
        sbe_argv_reserve(p, (size_t)g.count + 1);
        struct goblin_sbe_cursor c = goblin_sbe_group_cursor(&g);
        struct goblin_sbe_command_args_entry e;
        while (goblin_sbe_command_args_next(&c, &e)) arg_bytes(&b, e.value);
    }
    for (int i = 0; i < tt->fields; i++) {
        struct goblin_sbe_bytes v;
        int rc = goblin_sbe_take_data(&at, end, &v);
        if (rc != GOBLIN_SBE_OK) return rc;
        p->argv[tt->slot[i]] = (const char *)v.data;
        p->argv_len[tt->slot[i]] = v.len;
        if (tt->slot[i] >= b.argc) b.argc = tt->slot[i] + 1;
    }
    t->op = (enum typed_op)tt->op;
    t->argc = b.argc;
    t->argv = p->argv;
    t->argv_len = p->argv_len;
    switch (t->op) {
    case TYPED_SET: {
        uint8_t kind = goblin_sbe_set_expire_kind(body);
        if (kind > TYPED_EXPIRE_KEEPTTL) {
            snprintf(p->error, sizeof p->error, "ERR SBE Set: unknown expireKind %u", kind);
            return 2;
        }
        t->flags = goblin_sbe_set_flags(body);
        t->expire_kind = (enum typed_expire)kind;
        t->number = goblin_sbe_set_expire(body);
        break;
    }
    case TYPED_INCRBY:
        t->number = goblin_sbe_incr_by_delta(body);
        p->argv[2] = "";
        p->argv_len[2] = 0;
        t->argc = 3;
        break;
    case TYPED_ZADD:
        p->argv[2] = "";
        p->argv_len[2] = 0;
        t->flags = goblin_sbe_zadd_flags(body);
        t->score = goblin_sbe_zadd_score(body);
        break;
    default:
        break;
    }
    return 0;
}

static const char *sbe_codec_error_text(int rc)
{
    switch (rc) {
    case GOBLIN_SBE_E_BLOCK:
        return "blockLength is shorter than the schema's";
    case GOBLIN_SBE_E_GROUP:
        return "a repeating group runs past the frame";
    case GOBLIN_SBE_E_DATA:
        return "var-data runs past the frame";
    default:
        return "the frame is shorter than its block";
    }
}

static enum wire_status sbe_reject(struct request *req, size_t consumed, const char *error)
{
    req->consumed = consumed;
    req->error = error;
    return WIRE_REJECTED;
}

static enum wire_status sbe_parse(void *st, const char *data, size_t len,
                                  const struct request_limits *lim, struct request *req)
{
    struct sbe_parser *p = st;
    if (p->argv_cap < 16) sbe_argv_reserve(p, 16);
    const uint8_t *in = (const uint8_t *)data;
    req->owned = NULL;
    req->typed = NULL;
    req->correlation = 0;
    if (len < GOBLIN_SBE_FRAME_PREFIX) return WIRE_INCOMPLETE;
    uint32_t flen = goblin_sbe_get_u32(in);
    if (flen < GOBLIN_SBE_HEADER_LENGTH || flen > SBE_MAX_FRAME) {
        /* The length itself is not credible: no later boundary is. */
        snprintf(p->error, sizeof p->error,
                 "Protocol error: SBE frame length %u (must be %u to %u bytes)", flen,
                 GOBLIN_SBE_HEADER_LENGTH, SBE_MAX_FRAME);
        req->error = p->error;
        return WIRE_ERROR;
    }
    if (__builtin_expect(lim->auth_required, 0) && flen > SBE_UNAUTH_MAX_FRAME) {
        snprintf(p->error, sizeof p->error,
                 "Protocol error: unauthenticated SBE frame length %u (at most %u before Auth)",
                 flen, SBE_UNAUTH_MAX_FRAME);
        req->error = p->error;
        return WIRE_ERROR;
    }
    size_t consumed = GOBLIN_SBE_FRAME_PREFIX + (size_t)flen;
    if (len < consumed) {
        p->pending_frame = consumed;
        return WIRE_INCOMPLETE;
    }
    p->pending_frame = 0;
    struct goblin_sbe_header h;
    goblin_sbe_header_decode(in + GOBLIN_SBE_FRAME_PREFIX, flen, &h);
    const uint8_t *body = in + GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH;
    size_t body_len = flen - GOBLIN_SBE_HEADER_LENGTH;
    /* Every request block starts with its correlation id: echo it even
     * when refusing the rest. */
    if (body_len >= 8 && h.block_length >= 8) req->correlation = goblin_sbe_get_u64(body);
    if (h.schema_id != GOBLIN_SBE_SCHEMA_ID || h.version > GOBLIN_SBE_SCHEMA_VERSION) {
        snprintf(p->error, sizeof p->error,
                 "ERR unsupported SBE schema %u version %u (this server speaks schema %u "
                 "version %u)",
                 h.schema_id, h.version, GOBLIN_SBE_SCHEMA_ID, GOBLIN_SBE_SCHEMA_VERSION);
        return sbe_reject(req, consumed, p->error);
    }
    /* Until the session authenticates (a password or users are set and the
     * transport is not trusted: conn_starts_authenticated()), the Auth
     * template is the only frame taken; anything else is answered NOAUTH,
     * as RESP answers a command, and the connection goes on. */
    if (__builtin_expect(lim->auth_required, 0) && h.template_id != GOBLIN_SBE_AUTH_TEMPLATE_ID)
        return sbe_reject(req, consumed, "NOAUTH Authentication required.");
    int argc = 0;
    int rc = 1;
    const struct typed_template *tt =
        h.template_id <= GOBLIN_SBE_TEMPLATE_COUNT && typed_templates[h.template_id].name
            ? &typed_templates[h.template_id]
            : NULL;
    if (tt) {
        rc = sbe_decode_typed(p, tt, body, body_len, h.block_length);
        if (rc == 0) {
            if (lim->typed_as_text) {
                argc = typed_call_lower(&p->typed, p->argv, p->argv_len, p->number);
            } else {
                argc = p->typed.argc;
                req->typed = &p->typed;
            }
        }
    } else if (h.template_id == GOBLIN_SBE_COMMAND_TEMPLATE_ID) {
        rc = sbe_decode_command(p, body, body_len, h.block_length, &argc);
    } else if (h.template_id == GOBLIN_SBE_AUTH_TEMPLATE_ID) {
        rc = sbe_decode_auth(p, body, body_len, h.block_length, &argc);
    }
    if (rc == 1) {
        const char *name = h.template_id && h.template_id <= GOBLIN_SBE_TEMPLATE_COUNT
                               ? goblin_sbe_template_names[h.template_id]
                               : NULL;
        if (name)
            snprintf(p->error, sizeof p->error, "ERR SBE template %u (%s) is not a request",
                     h.template_id, name);
        else
            snprintf(p->error, sizeof p->error, "ERR unknown SBE template %u", h.template_id);
        return sbe_reject(req, consumed, p->error);
    }
    if (rc == 2) return sbe_reject(req, consumed, p->error);
    if (rc < 0) {
        snprintf(p->error, sizeof p->error, "ERR malformed SBE frame (template %u): %s",
                 h.template_id, sbe_codec_error_text(rc));
        return sbe_reject(req, consumed, p->error);
    }
    if (argc == 0) return sbe_reject(req, consumed, "ERR SBE Command without a command name");
    for (int i = 0; i < argc; i++) {
        if ((long long)p->argv_len[i] > lim->proto_max_bulk_len)
            return sbe_reject(req, consumed, "ERR Protocol error: invalid bulk length");
    }
    req->argc = argc;
    req->argv = p->argv;
    req->argv_len = p->argv_len;
    req->consumed = consumed;
    return WIRE_REQUEST;
}

static void sbe_request_done(void *st)
{
    (void)st; /* nothing is lent beyond the input buffer */
}

/* The frame at the head still needs this many bytes beyond len. */
static size_t sbe_read_hint(const void *st, size_t len)
{
    const struct sbe_parser *p = st;
    return p->pending_frame > len ? p->pending_frame - len : 0;
}

static bool sbe_mid_request(const void *st)
{
    const struct sbe_parser *p = st;
    return p->pending_frame != 0;
}

static size_t sbe_held_bytes(const void *st)
{
    (void)st;
    return 0;
}

const struct wire sbe_wire = {
    .name = "sbe",
    .framed = true,
    .handshake = WIRE_SBE_HANDSHAKE,
    .handshake_len = WIRE_SBE_HANDSHAKE_LEN,
    .protocol = PROTO_SBE,
    .hello_switches = false,
    .init = sbe_init,
    .free = sbe_free,
    .parse = sbe_parse,
    .request_done = sbe_request_done,
    .read_hint = sbe_read_hint,
    .mid_request = sbe_mid_request,
    .big_argument = NULL,
    .adopt_argument = NULL,
    .held_bytes = sbe_held_bytes,
};
