/*
 * reply_sbe.c — the SBE encoder table (docs/sbe.md): one frame per reply.
 *
 * Values are RESP3's (maps, sets, doubles, booleans, one null, pushes),
 * encoded with the generated codec (include/goblin/sbe_codec.h) straight
 * into the sink's buffer. A reply that is one scalar travels as that
 * scalar's template (IntReply, BulkReply, ...): the hot path writes one
 * small frame and patches its length. Anything else is a ValuesReply (or a
 * Push, when its first value is a push): the values in pre-order as group
 * entries, an aggregate's `integer` its element count; several top-level
 * values in one reply (SUBSCRIBE a b) are consecutive entries of the same
 * group. A scalar frame that turns out to be followed by more values is
 * rewritten as a values frame (a slow path no command takes today).
 *
 * Bounds: a group counts at most 65535 entries (numInGroup is a uint16); a
 * reply with more is replaced, at frame_end, by an ErrorReply saying so —
 * never truncated. The frame's state lives in struct reply (reply.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "goblin/sbe_codec.h"
#include "protocol/reply.h"

#define SBE_ENTRY_BLOCK GOBLIN_SBE_VALUES_REPLY_VALUES_BLOCK_LENGTH
_Static_assert(GOBLIN_SBE_VALUES_REPLY_VALUES_BLOCK_LENGTH == GOBLIN_SBE_PUSH_VALUES_BLOCK_LENGTH,
               "values and push entries share one layout");

static uint8_t *sbe_take(struct reply *r, size_t n)
{
    buf_reserve(r->out, n);
    uint8_t *p = (uint8_t *)buf_tail(r->out);
    r->out->end += n;
    return p;
}

static uint8_t *sbe_at(const struct reply *r, size_t offset)
{
    return (uint8_t *)buf_head(r->out) + offset;
}

/* Opens a frame of template `id` with a `block`-byte block; returns the block. */
static uint8_t *sbe_frame_open(struct reply *r, uint16_t id, uint16_t block)
{
    r->frame_at = buf_len(r->out);
    r->template_id = id;
    uint8_t *p = sbe_take(r, GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH + block);
    goblin_sbe_put_u16(p + 4, block);
    goblin_sbe_put_u16(p + 6, id);
    goblin_sbe_put_u16(p + 8, GOBLIN_SBE_SCHEMA_ID);
    goblin_sbe_put_u16(p + 10, GOBLIN_SBE_SCHEMA_VERSION);
    uint8_t *b = p + GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH;
    memset(b, 0, block);
    goblin_sbe_put_u64(b, r->correlation); /* every reply block starts with it */
    return b;
}

/* The hot path: a whole scalar frame (template `id`, a `block`-byte block,
 * then `n` bytes of var-data when `data`) reserved and written at once,
 * its length prefix already final. Returns the block. */
static inline uint8_t *sbe_scalar_open(struct reply *r, uint16_t id, uint16_t block, bool data,
                                       const void *p, size_t n)
{
    size_t head = GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH + block;
    size_t total = head + (data ? GOBLIN_SBE_DATA_HEADER_LENGTH + n : 0);
    r->frame_at = buf_len(r->out);
    r->template_id = id;
    uint8_t *f = sbe_take(r, total);
    goblin_sbe_put_u32(f, (uint32_t)(total - GOBLIN_SBE_FRAME_PREFIX));
    goblin_sbe_put_u64(f + GOBLIN_SBE_FRAME_PREFIX, (uint64_t)block | (uint64_t)id << 16 |
                                                        (uint64_t)GOBLIN_SBE_SCHEMA_ID << 32 |
                                                        (uint64_t)GOBLIN_SBE_SCHEMA_VERSION << 48);
    uint8_t *b = f + GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH;
    goblin_sbe_put_u64(b, r->correlation); /* every reply block starts with it */
    if (block > 8) memset(b + 8, 0, block - 8u);
    if (data) {
        goblin_sbe_put_u32(f + head, (uint32_t)n);
        if (n) memcpy(f + head + GOBLIN_SBE_DATA_HEADER_LENGTH, p, n);
    }
    return b;
}

static void sbe_data(struct reply *r, const void *p, size_t n)
{
    uint8_t *d = sbe_take(r, GOBLIN_SBE_DATA_HEADER_LENGTH + n);
    goblin_sbe_put_u32(d, (uint32_t)n);
    if (n) memcpy(d + GOBLIN_SBE_DATA_HEADER_LENGTH, p, n);
}

/* Writes the open frame's length prefix from what it holds now. */
static void sbe_frame_length(struct reply *r)
{
    size_t len = buf_len(r->out) - r->frame_at - GOBLIN_SBE_FRAME_PREFIX;
    goblin_sbe_put_u32(sbe_at(r, r->frame_at), (uint32_t)len);
}

static void sbe_values_open(struct reply *r, bool push)
{
    if (push)
        sbe_frame_open(r, GOBLIN_SBE_PUSH_TEMPLATE_ID, GOBLIN_SBE_PUSH_BLOCK_LENGTH);
    else
        sbe_frame_open(r, GOBLIN_SBE_VALUES_REPLY_TEMPLATE_ID,
                       GOBLIN_SBE_VALUES_REPLY_BLOCK_LENGTH);
    r->group_at = buf_len(r->out);
    goblin_sbe_put_u16(sbe_take(r, GOBLIN_SBE_GROUP_HEADER_LENGTH), SBE_ENTRY_BLOCK);
    r->values = 0;
}

static bool sbe_is_values_frame(const struct reply *r)
{
    return r->template_id == GOBLIN_SBE_VALUES_REPLY_TEMPLATE_ID ||
           r->template_id == GOBLIN_SBE_PUSH_TEMPLATE_ID;
}

static void sbe_entry(struct reply *r, uint8_t kind, int64_t integer, double real, const void *p,
                      size_t n);

/* The slow path: a scalar frame followed by another value becomes a
 * values frame holding that scalar as its first entry. */
static void sbe_scalar_to_values(struct reply *r)
{
    size_t at = r->frame_at;
    size_t len = buf_len(r->out) - at;
    const uint8_t *frame = sbe_at(r, at);
    const uint8_t *block = frame + GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH;
    uint16_t id = r->template_id;
    /* The scalar is re-read from a copy: its bytes are overwritten. */
    struct buf saved;
    buf_init(&saved, len);
    buf_append(&saved, frame, len);
    r->out->end = r->out->start + at;
    sbe_values_open(r, false);
    const uint8_t *sb = (const uint8_t *)buf_head(&saved) + (block - frame);
    const uint8_t *end = (const uint8_t *)buf_tail(&saved);
    const uint8_t *d = sb + 8;
    struct goblin_sbe_bytes a = {0}, b = {0};
    switch (id) {
    case GOBLIN_SBE_INT_REPLY_TEMPLATE_ID:
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_INT, (int64_t)goblin_sbe_get_u64(sb + 8), 0, NULL, 0);
        break;
    case GOBLIN_SBE_DOUBLE_REPLY_TEMPLATE_ID:
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_DOUBLE, 0, goblin_sbe_get_f64(sb + 8), NULL, 0);
        break;
    case GOBLIN_SBE_BOOL_REPLY_TEMPLATE_ID:
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_BOOL, sb[8], 0, NULL, 0);
        break;
    case GOBLIN_SBE_NULL_REPLY_TEMPLATE_ID:
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_NULL, 0, 0, NULL, 0);
        break;
    case GOBLIN_SBE_STATUS_REPLY_TEMPLATE_ID:
    case GOBLIN_SBE_BULK_REPLY_TEMPLATE_ID:
        goblin_sbe_take_data(&d, end, &a);
        sbe_entry(r,
                  id == GOBLIN_SBE_BULK_REPLY_TEMPLATE_ID ? GOBLIN_SBE_VALUE_KIND_BULK
                                                          : GOBLIN_SBE_VALUE_KIND_STATUS,
                  0, 0, a.data, a.len);
        break;
    case GOBLIN_SBE_ERROR_REPLY_TEMPLATE_ID: {
        goblin_sbe_take_data(&d, end, &a);
        goblin_sbe_take_data(&d, end, &b);
        struct buf text;
        buf_init(&text, (size_t)a.len + b.len + 1);
        buf_append(&text, a.data, a.len);
        if (b.len) {
            buf_append_char(&text, ' ');
            buf_append(&text, b.data, b.len);
        }
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_ERROR, 0, 0, buf_head(&text), buf_len(&text));
        buf_free(&text);
        break;
    }
    }
    buf_free(&saved);
}

/* Makes sure a values frame is open (a push frame when `push` opens it). */
static void sbe_values_ready(struct reply *r, bool push)
{
    if (r->frame_at == SIZE_MAX)
        sbe_values_open(r, push);
    else if (!sbe_is_values_frame(r))
        sbe_scalar_to_values(r);
}

/* The push kind from a push's first value (its name). */
static uint8_t sbe_push_kind(const void *p, size_t n)
{
    static const struct {
        const char *name;
        uint8_t kind;
    } kinds[] = {
        {"message", GOBLIN_SBE_PUSH_KIND_MESSAGE},
        {"pmessage", GOBLIN_SBE_PUSH_KIND_PMESSAGE},
        {"smessage", GOBLIN_SBE_PUSH_KIND_SMESSAGE},
        {"subscribe", GOBLIN_SBE_PUSH_KIND_SUBSCRIBE},
        {"unsubscribe", GOBLIN_SBE_PUSH_KIND_UNSUBSCRIBE},
        {"psubscribe", GOBLIN_SBE_PUSH_KIND_PSUBSCRIBE},
        {"punsubscribe", GOBLIN_SBE_PUSH_KIND_PUNSUBSCRIBE},
        {"ssubscribe", GOBLIN_SBE_PUSH_KIND_SSUBSCRIBE},
        {"sunsubscribe", GOBLIN_SBE_PUSH_KIND_SUNSUBSCRIBE},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].name) == n && memcmp(kinds[i].name, p, n) == 0) return kinds[i].kind;
    return GOBLIN_SBE_PUSH_KIND_OTHER;
}

/* One group entry (opening a values frame first when needed). */
static void sbe_entry(struct reply *r, uint8_t kind, int64_t integer, double real, const void *p,
                      size_t n)
{
    sbe_values_ready(r, kind == GOBLIN_SBE_VALUE_KIND_PUSH);
    if (r->template_id == GOBLIN_SBE_PUSH_TEMPLATE_ID && r->values == 1 &&
        kind == GOBLIN_SBE_VALUE_KIND_BULK) {
        uint8_t *block =
            sbe_at(r, r->frame_at) + GOBLIN_SBE_FRAME_PREFIX + GOBLIN_SBE_HEADER_LENGTH;
        goblin_sbe_push_put_push_kind(block, sbe_push_kind(p, n));
    }
    uint8_t *e = sbe_take(r, SBE_ENTRY_BLOCK);
    memset(e, 0, SBE_ENTRY_BLOCK);
    goblin_sbe_values_reply_values_put_kind(e, kind);
    goblin_sbe_values_reply_values_put_integer(e, integer);
    goblin_sbe_values_reply_values_put_real(e, real);
    sbe_data(r, p, n);
    r->values++;
}

/* A scalar: its own template when it is the whole reply so far. */
static bool sbe_scalar_frame(struct reply *r)
{
    return r->frame_at == SIZE_MAX;
}

static void sbe_status(struct reply *r, const char *s, size_t n)
{
    if (!sbe_scalar_frame(r)) {
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_STATUS, 0, 0, s, n);
        return;
    }
    sbe_scalar_open(r, GOBLIN_SBE_STATUS_REPLY_TEMPLATE_ID, GOBLIN_SBE_STATUS_REPLY_BLOCK_LENGTH,
                    true, s, n);
}

/* "CODE message": the code is the first word. */
static void sbe_error(struct reply *r, const char *text, size_t n)
{
    if (!sbe_scalar_frame(r)) {
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_ERROR, 0, 0, text, n);
        return;
    }
    const char *space = memchr(text, ' ', n);
    size_t code = space ? (size_t)(space - text) : n;
    sbe_frame_open(r, GOBLIN_SBE_ERROR_REPLY_TEMPLATE_ID, GOBLIN_SBE_ERROR_REPLY_BLOCK_LENGTH);
    sbe_data(r, text, code);
    sbe_data(r, space ? space + 1 : text + n, space ? n - code - 1 : 0);
    sbe_frame_length(r); /* final, as a scalar frame's */
}

static void sbe_integer(struct reply *r, long long v)
{
    if (!sbe_scalar_frame(r)) {
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_INT, v, 0, NULL, 0);
        return;
    }
    uint8_t *b = sbe_scalar_open(r, GOBLIN_SBE_INT_REPLY_TEMPLATE_ID,
                                 GOBLIN_SBE_INT_REPLY_BLOCK_LENGTH, false, NULL, 0);
    goblin_sbe_int_reply_put_value(b, v);
}

static void sbe_floating(struct reply *r, double d)
{
    if (!sbe_scalar_frame(r)) {
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_DOUBLE, 0, d, NULL, 0);
        return;
    }
    uint8_t *b = sbe_scalar_open(r, GOBLIN_SBE_DOUBLE_REPLY_TEMPLATE_ID,
                                 GOBLIN_SBE_DOUBLE_REPLY_BLOCK_LENGTH, false, NULL, 0);
    goblin_sbe_double_reply_put_value(b, d);
}

static void sbe_bulk(struct reply *r, const void *p, size_t n)
{
    if (!sbe_scalar_frame(r)) {
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_BULK, 0, 0, p, n);
        return;
    }
    sbe_scalar_open(r, GOBLIN_SBE_BULK_REPLY_TEMPLATE_ID, GOBLIN_SBE_BULK_REPLY_BLOCK_LENGTH, true,
                    p, n);
}

static void sbe_nil(struct reply *r)
{
    if (!sbe_scalar_frame(r)) {
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_NULL, 0, 0, NULL, 0);
        return;
    }
    sbe_scalar_open(r, GOBLIN_SBE_NULL_REPLY_TEMPLATE_ID, GOBLIN_SBE_NULL_REPLY_BLOCK_LENGTH, false,
                    NULL, 0);
}

static void sbe_boolean(struct reply *r, bool v)
{
    if (!sbe_scalar_frame(r)) {
        sbe_entry(r, GOBLIN_SBE_VALUE_KIND_BOOL, v, 0, NULL, 0);
        return;
    }
    uint8_t *b = sbe_scalar_open(r, GOBLIN_SBE_BOOL_REPLY_TEMPLATE_ID,
                                 GOBLIN_SBE_BOOL_REPLY_BLOCK_LENGTH, false, NULL, 0);
    goblin_sbe_bool_reply_put_value(b, v);
}

static void sbe_array_len(struct reply *r, long long n)
{
    sbe_entry(r, GOBLIN_SBE_VALUE_KIND_ARRAY, n, 0, NULL, 0);
}

static void sbe_map_len(struct reply *r, long long n)
{
    sbe_entry(r, GOBLIN_SBE_VALUE_KIND_MAP, n, 0, NULL, 0);
}

static void sbe_set_len(struct reply *r, long long n)
{
    sbe_entry(r, GOBLIN_SBE_VALUE_KIND_SET, n, 0, NULL, 0);
}

static void sbe_push_len(struct reply *r, long long n)
{
    sbe_entry(r, GOBLIN_SBE_VALUE_KIND_PUSH, n, 0, NULL, 0);
}

static void sbe_pair_begin(struct reply *r)
{
    sbe_entry(r, GOBLIN_SBE_VALUE_KIND_ARRAY, 2, 0, NULL, 0);
}

/* Verbatim text keeps its format: the three letters in `integer`. */
static void sbe_verbatim(struct reply *r, const char *p, size_t n, const char *format3)
{
    int64_t format = (int64_t)(uint8_t)format3[0] | (int64_t)(uint8_t)format3[1] << 8 |
                     (int64_t)(uint8_t)format3[2] << 16;
    sbe_entry(r, GOBLIN_SBE_VALUE_KIND_VERBATIM, format, 0, p, n);
}

/* A deferred aggregate: an ARRAY entry whose kind and count are patched. */
static reply_mark sbe_defer(struct reply *r)
{
    sbe_entry(r, GOBLIN_SBE_VALUE_KIND_ARRAY, 0, 0, NULL, 0);
    return buf_len(r->out) - SBE_ENTRY_BLOCK - GOBLIN_SBE_DATA_HEADER_LENGTH;
}

static void sbe_defer_kind(struct reply *r, reply_mark m, uint8_t kind, long long n)
{
    uint8_t *e = sbe_at(r, m);
    goblin_sbe_values_reply_values_put_kind(e, kind);
    goblin_sbe_values_reply_values_put_integer(e, n);
}

static void sbe_defer_array(struct reply *r, reply_mark m, long long n)
{
    sbe_defer_kind(r, m, GOBLIN_SBE_VALUE_KIND_ARRAY, n);
}

static void sbe_defer_map(struct reply *r, reply_mark m, long long n)
{
    sbe_defer_kind(r, m, GOBLIN_SBE_VALUE_KIND_MAP, n);
}

static void sbe_defer_set(struct reply *r, reply_mark m, long long n)
{
    sbe_defer_kind(r, m, GOBLIN_SBE_VALUE_KIND_SET, n);
}

static void sbe_frame_begin(struct reply *r, uint64_t correlation)
{
    r->correlation = correlation;
    r->frame_at = SIZE_MAX;
}

static void sbe_frame_end(struct reply *r)
{
    if (r->frame_at == SIZE_MAX) return; /* nothing was written: no frame */
    if (sbe_is_values_frame(r)) {
        if (r->values > GOBLIN_SBE_GROUP_MAX_COUNT) {
            /* Never truncated: the whole reply becomes an error. */
            uint32_t values = r->values;
            r->out->end = r->out->start + r->frame_at;
            r->frame_at = SIZE_MAX;
            char text[128];
            int n = snprintf(text, sizeof text,
                             "ERR reply of %u values exceeds an SBE frame (at most %u); "
                             "narrow the request (SCAN, COUNT, LIMIT)",
                             values, GOBLIN_SBE_GROUP_MAX_COUNT);
            sbe_error(r, text, (size_t)n);
            reply_error_count++;
        } else {
            goblin_sbe_put_u16(sbe_at(r, r->group_at) + 2, (uint16_t)r->values);
            sbe_frame_length(r);
        }
    }
    /* A scalar frame's length was final when it was written. */
    r->frame_at = SIZE_MAX;
}

const struct reply_encoder reply_sbe = {
    .proto = PROTO_SBE,
    .status = sbe_status,
    .error = sbe_error,
    .integer = sbe_integer,
    .floating = sbe_floating,
    .bulk = sbe_bulk,
    .nil = sbe_nil,
    .nil_array = sbe_nil,
    .boolean = sbe_boolean,
    .array_len = sbe_array_len,
    .map_len = sbe_map_len,
    .set_len = sbe_set_len,
    .push_len = sbe_push_len,
    .pair_array_len = sbe_array_len,
    .pair_begin = sbe_pair_begin,
    .verbatim = sbe_verbatim,
    .defer = sbe_defer,
    .defer_array = sbe_defer_array,
    .defer_map = sbe_defer_map,
    .defer_set = sbe_defer_set,
    .frame_begin = sbe_frame_begin,
    .frame_end = sbe_frame_end,
};
