/*
 * sbe_wire.c — the SBE wire's request side: frames out of the input buffer,
 * decoded in place with the generated codec, into a request (contract in
 * sbe_wire.h and wire.h).
 *
 * The generic Command template becomes argv directly (pointers into the
 * frame). A typed template is lowered to the same argv here, its numbers
 * formatted into the parser's scratch: every command then takes the one
 * dispatch path with Redis's checks.
 */
#include "protocol/sbe_wire.h"

#include <stdio.h>
#include <string.h>

#include "goblin/sbe_codec.h"
#include "protocol/wire.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

static void sbe_init(union wire_state *st)
{
    memset(&st->sbe, 0, sizeof st->sbe);
}

static void sbe_free(union wire_state *st)
{
    xfree(st->sbe.argv);
    xfree(st->sbe.argv_len);
    st->sbe.argv = NULL;
    st->sbe.argv_len = NULL;
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

static void arg_word(struct argv_builder *b, const char *word)
{
    arg_add(b, word, strlen(word));
}

static void arg_bytes(struct argv_builder *b, struct goblin_sbe_bytes v)
{
    arg_add(b, v.data, v.len);
}

static void arg_ll(struct argv_builder *b, int slot, long long v)
{
    size_t n = num_format_ll(b->p->numbers[slot], v);
    arg_add(b, b->p->numbers[slot], n);
}

/* A group of var-data names after a command word (DEL, SUBSCRIBE, ...). */
static void arg_names(struct argv_builder *b, const char *word, const struct goblin_sbe_group *g)
{
    sbe_argv_reserve(b->p, (size_t)g->count + 1);
    arg_word(b, word);
    struct goblin_sbe_cursor c = goblin_sbe_group_cursor(g);
    struct goblin_sbe_command_args_entry e; /* every names group has this layout */
    while (goblin_sbe_command_args_next(&c, &e)) arg_bytes(b, e.value);
}

static const char *const set_expire_words[] = {NULL, "EX", "PX", "EXAT", "PXAT", "KEEPTTL"};
static const char *const zadd_flag_words[] = {"NX", "XX", "GT", "LT", "CH", "INCR"};

/* Decodes message `id` of body[0..len) into argv. Returns a codec error
 * (negative), 1 for a template that is not a request, 0 on success. */
static int sbe_lower(struct sbe_parser *p, uint16_t id, const uint8_t *body, size_t len,
                     uint16_t block_length, int *argc)
{
    struct argv_builder b = {.p = p, .argc = 0};
    int rc;
    sbe_argv_reserve(p, 16);
    switch (id) {
    case GOBLIN_SBE_COMMAND_TEMPLATE_ID: {
        struct goblin_sbe_command m;
        if ((rc = goblin_sbe_command_decode(body, len, block_length, &m))) return rc;
        sbe_argv_reserve(p, m.args.count);
        struct goblin_sbe_cursor c = goblin_sbe_group_cursor(&m.args);
        struct goblin_sbe_command_args_entry e;
        while (goblin_sbe_command_args_next(&c, &e)) arg_bytes(&b, e.value);
        break;
    }
    case GOBLIN_SBE_PING_TEMPLATE_ID: {
        struct goblin_sbe_ping m;
        if ((rc = goblin_sbe_ping_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "PING");
        break;
    }
    case GOBLIN_SBE_GET_TEMPLATE_ID: {
        struct goblin_sbe_get m;
        if ((rc = goblin_sbe_get_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "GET");
        arg_bytes(&b, m.key);
        break;
    }
    case GOBLIN_SBE_SET_TEMPLATE_ID: {
        struct goblin_sbe_set m;
        if ((rc = goblin_sbe_set_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "SET");
        arg_bytes(&b, m.key);
        arg_bytes(&b, m.value);
        uint8_t flags = goblin_sbe_set_flags(m.block);
        if (flags & GOBLIN_SBE_SET_FLAGS_NX) arg_word(&b, "NX");
        if (flags & GOBLIN_SBE_SET_FLAGS_XX) arg_word(&b, "XX");
        if (flags & GOBLIN_SBE_SET_FLAGS_GET) arg_word(&b, "GET");
        uint8_t kind = goblin_sbe_set_expire_kind(m.block);
        if (kind >= sizeof set_expire_words / sizeof set_expire_words[0]) {
            snprintf(p->error, sizeof p->error, "ERR SBE Set: unknown expireKind %u", kind);
            return 2;
        }
        if (kind != GOBLIN_SBE_EXPIRE_KIND_NONE) arg_word(&b, set_expire_words[kind]);
        if (kind != GOBLIN_SBE_EXPIRE_KIND_NONE && kind != GOBLIN_SBE_EXPIRE_KIND_KEEPTTL)
            arg_ll(&b, 0, goblin_sbe_set_expire(m.block));
        break;
    }
    case GOBLIN_SBE_DEL_TEMPLATE_ID: {
        struct goblin_sbe_del m;
        if ((rc = goblin_sbe_del_decode(body, len, block_length, &m))) return rc;
        arg_names(&b, "DEL", &m.keys);
        break;
    }
    case GOBLIN_SBE_INCR_TEMPLATE_ID: {
        struct goblin_sbe_incr m;
        if ((rc = goblin_sbe_incr_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "INCR");
        arg_bytes(&b, m.key);
        break;
    }
    case GOBLIN_SBE_INCR_BY_TEMPLATE_ID: {
        struct goblin_sbe_incr_by m;
        if ((rc = goblin_sbe_incr_by_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "INCRBY");
        arg_bytes(&b, m.key);
        arg_ll(&b, 0, goblin_sbe_incr_by_delta(m.block));
        break;
    }
    case GOBLIN_SBE_HSET_TEMPLATE_ID: {
        struct goblin_sbe_hset m;
        if ((rc = goblin_sbe_hset_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "HSET");
        arg_bytes(&b, m.key);
        arg_bytes(&b, m.field);
        arg_bytes(&b, m.value);
        break;
    }
    case GOBLIN_SBE_HGET_TEMPLATE_ID: {
        struct goblin_sbe_hget m;
        if ((rc = goblin_sbe_hget_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "HGET");
        arg_bytes(&b, m.key);
        arg_bytes(&b, m.field);
        break;
    }
    case GOBLIN_SBE_ZADD_TEMPLATE_ID: {
        struct goblin_sbe_zadd m;
        if ((rc = goblin_sbe_zadd_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "ZADD");
        arg_bytes(&b, m.key);
        uint8_t flags = goblin_sbe_zadd_flags(m.block);
        for (unsigned i = 0; i < sizeof zadd_flag_words / sizeof zadd_flag_words[0]; i++)
            if (flags & (1u << i)) arg_word(&b, zadd_flag_words[i]);
        size_t n =
            num_format_double(p->numbers[0], sizeof p->numbers[0], goblin_sbe_zadd_score(m.block));
        arg_add(&b, p->numbers[0], n);
        arg_bytes(&b, m.member);
        break;
    }
    case GOBLIN_SBE_ZSCORE_TEMPLATE_ID: {
        struct goblin_sbe_zscore m;
        if ((rc = goblin_sbe_zscore_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "ZSCORE");
        arg_bytes(&b, m.key);
        arg_bytes(&b, m.member);
        break;
    }
    case GOBLIN_SBE_PUBLISH_TEMPLATE_ID: {
        struct goblin_sbe_publish m;
        if ((rc = goblin_sbe_publish_decode(body, len, block_length, &m))) return rc;
        arg_word(&b, "PUBLISH");
        arg_bytes(&b, m.channel);
        arg_bytes(&b, m.message);
        break;
    }
    case GOBLIN_SBE_SUBSCRIBE_TEMPLATE_ID:
    case GOBLIN_SBE_UNSUBSCRIBE_TEMPLATE_ID:
    case GOBLIN_SBE_PSUBSCRIBE_TEMPLATE_ID:
    case GOBLIN_SBE_PUNSUBSCRIBE_TEMPLATE_ID: {
        /* Four templates of one layout (the codec's subscribe view). */
        static const char *const words[] = {"SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE",
                                            "PUNSUBSCRIBE"};
        struct goblin_sbe_subscribe m;
        if ((rc = goblin_sbe_subscribe_decode(body, len, block_length, &m))) return rc;
        arg_names(&b, words[id - GOBLIN_SBE_SUBSCRIBE_TEMPLATE_ID], &m.names);
        break;
    }
    default:
        return 1;
    }
    *argc = b.argc;
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

static enum wire_status sbe_parse(union wire_state *st, const char *data, size_t len,
                                  const struct request_limits *lim, struct request *req)
{
    struct sbe_parser *p = &st->sbe;
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
    int argc = 0;
    int rc = sbe_lower(p, h.template_id, body, body_len, h.block_length, &argc);
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

static void sbe_request_done(union wire_state *st)
{
    (void)st; /* nothing is lent beyond the input buffer */
}

/* The frame at the head still needs this many bytes beyond len. */
static size_t sbe_read_hint(const union wire_state *st, size_t len)
{
    return st->sbe.pending_frame > len ? st->sbe.pending_frame - len : 0;
}

static bool sbe_mid_request(const union wire_state *st)
{
    return st->sbe.pending_frame != 0;
}

static size_t sbe_held_bytes(const union wire_state *st)
{
    (void)st;
    return 0;
}

const struct wire sbe_wire = {
    .name = "sbe",
    .framed = true,
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
