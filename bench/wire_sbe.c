/*
 * wire_sbe.c — the SBE wire (docs/sbe.md): the hot commands as their typed
 * templates (Ping, Set, Get, HSet, HGet, ZAdd, ZScore, Publish, Subscribe,
 * Incr) and AUTH as the Auth template, anything else as the generic
 * Command template; expected replies
 * as the frames the server writes (a score is a DoubleReply: a native
 * double, never text). Depth one, so every request carries correlation id
 * 1 and its reply echoes it; a Pub/Sub message carries 0. The connection
 * opens with the GOBLINS! handshake (bench_wire.handshake).
 *
 * Frames are built with the generated codec (goblin/sbe_codec.h).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <goblin/resp_reader.h>
#include <goblin/sbe_codec.h>
#include "wire.h"

#define BENCH_SBE_CORRELATION 1

struct frame {
    struct goblin_sbe_writer w;
    size_t at;
    uint8_t *block;
};

static struct frame frame_begin(char *out, size_t cap, uint16_t id, uint16_t block,
                                uint64_t correlation)
{
    struct frame f = {.w = {.buf = (uint8_t *)out, .cap = cap}};
    f.at = goblin_sbe_frame_begin(&f.w);
    f.block =
        goblin_sbe_message_begin(&f.w, block, id, GOBLIN_SBE_SCHEMA_ID, GOBLIN_SBE_SCHEMA_VERSION);
    if (f.block) goblin_sbe_put_u64(f.block, correlation);
    return f;
}

static int frame_end(struct frame *f)
{
    goblin_sbe_frame_end(&f->w, f->at);
    return f->w.overflow ? -1 : (int)f->w.pos;
}

static bool is(const char *name, size_t len, const char *word)
{
    return strlen(word) == len && strncasecmp(name, word, len) == 0;
}

/* Var-data arguments from argv[first] on, after a block filled by the caller. */
static int datas(struct frame *f, int argc, const char *const *argv, const size_t *lens, int first)
{
    for (int i = first; i < argc; i++) goblin_sbe_put_data(&f->w, argv[i], lens[i]);
    return frame_end(f);
}

static int names(char *out, size_t cap, uint16_t id, int argc, const char *const *argv,
                 const size_t *lens, int first)
{
    struct frame f =
        frame_begin(out, cap, id, GOBLIN_SBE_COMMAND_BLOCK_LENGTH, BENCH_SBE_CORRELATION);
    goblin_sbe_group_begin(&f.w, GOBLIN_SBE_COMMAND_ARGS_BLOCK_LENGTH, (uint16_t)(argc - first));
    for (int i = first; i < argc; i++) {
        goblin_sbe_command_args_entry(&f.w);
        goblin_sbe_put_data(&f.w, argv[i], lens[i]);
    }
    return frame_end(&f);
}

static int sbe_encode_command(char *out, size_t cap, int argc, const char *const *argv,
                              const size_t *lens)
{
    const char *n = argv[0];
    size_t nl = lens[0];
#define TYPED(word, count, ID, BLOCK)                                                              \
    if (argc == (count) && is(n, nl, word)) {                                                      \
        struct frame f = frame_begin(out, cap, ID, BLOCK, BENCH_SBE_CORRELATION);                  \
        return datas(&f, argc, argv, lens, 1);                                                     \
    }
    TYPED("PING", 1, GOBLIN_SBE_PING_TEMPLATE_ID, GOBLIN_SBE_PING_BLOCK_LENGTH)
    TYPED("GET", 2, GOBLIN_SBE_GET_TEMPLATE_ID, GOBLIN_SBE_GET_BLOCK_LENGTH)
    TYPED("SET", 3, GOBLIN_SBE_SET_TEMPLATE_ID, GOBLIN_SBE_SET_BLOCK_LENGTH)
    TYPED("INCR", 2, GOBLIN_SBE_INCR_TEMPLATE_ID, GOBLIN_SBE_INCR_BLOCK_LENGTH)
    TYPED("HSET", 4, GOBLIN_SBE_HSET_TEMPLATE_ID, GOBLIN_SBE_HSET_BLOCK_LENGTH)
    TYPED("HGET", 3, GOBLIN_SBE_HGET_TEMPLATE_ID, GOBLIN_SBE_HGET_BLOCK_LENGTH)
    TYPED("ZSCORE", 3, GOBLIN_SBE_ZSCORE_TEMPLATE_ID, GOBLIN_SBE_ZSCORE_BLOCK_LENGTH)
    TYPED("PUBLISH", 3, GOBLIN_SBE_PUBLISH_TEMPLATE_ID, GOBLIN_SBE_PUBLISH_BLOCK_LENGTH)
#undef TYPED
    if (argc == 4 && is(n, nl, "ZADD")) {
        /* The score travels as a double: parsed here, before measuring. */
        char text[64];
        if (lens[2] >= sizeof text) return -1;
        memcpy(text, argv[2], lens[2]);
        text[lens[2]] = '\0';
        char *end;
        double score = strtod(text, &end);
        if (*end) return -1;
        struct frame f = frame_begin(out, cap, GOBLIN_SBE_ZADD_TEMPLATE_ID,
                                     GOBLIN_SBE_ZADD_BLOCK_LENGTH, BENCH_SBE_CORRELATION);
        if (!f.block) return -1;
        goblin_sbe_zadd_put_score(f.block, score);
        goblin_sbe_put_data(&f.w, argv[1], lens[1]);
        goblin_sbe_put_data(&f.w, argv[3], lens[3]);
        return frame_end(&f);
    }
    if ((argc == 2 || argc == 3) && is(n, nl, "AUTH")) {
        /* The Auth template: the only frame a server with a password takes first. */
        struct frame f = frame_begin(out, cap, GOBLIN_SBE_AUTH_TEMPLATE_ID,
                                     GOBLIN_SBE_AUTH_BLOCK_LENGTH, BENCH_SBE_CORRELATION);
        goblin_sbe_put_data(&f.w, argc == 3 ? argv[1] : "", argc == 3 ? lens[1] : 0);
        goblin_sbe_put_data(&f.w, argv[argc - 1], lens[argc - 1]);
        return frame_end(&f);
    }
    if (argc >= 2 && is(n, nl, "SUBSCRIBE"))
        return names(out, cap, GOBLIN_SBE_SUBSCRIBE_TEMPLATE_ID, argc, argv, lens, 1);
    return names(out, cap, GOBLIN_SBE_COMMAND_TEMPLATE_ID, argc, argv, lens, 0);
}

static int sbe_encode_status(char *out, size_t cap, const char *status)
{
    struct frame f = frame_begin(out, cap, GOBLIN_SBE_STATUS_REPLY_TEMPLATE_ID,
                                 GOBLIN_SBE_STATUS_REPLY_BLOCK_LENGTH, BENCH_SBE_CORRELATION);
    goblin_sbe_put_data(&f.w, status, strlen(status));
    return frame_end(&f);
}

static int sbe_encode_integer(char *out, size_t cap, long long value)
{
    struct frame f = frame_begin(out, cap, GOBLIN_SBE_INT_REPLY_TEMPLATE_ID,
                                 GOBLIN_SBE_INT_REPLY_BLOCK_LENGTH, BENCH_SBE_CORRELATION);
    if (f.block) goblin_sbe_int_reply_put_value(f.block, value);
    return frame_end(&f);
}

static int sbe_encode_bulk(char *out, size_t cap, const char *data, size_t len)
{
    struct frame f = frame_begin(out, cap, GOBLIN_SBE_BULK_REPLY_TEMPLATE_ID,
                                 GOBLIN_SBE_BULK_REPLY_BLOCK_LENGTH, BENCH_SBE_CORRELATION);
    goblin_sbe_put_data(&f.w, data, len);
    return frame_end(&f);
}

static int sbe_encode_score(char *out, size_t cap, double score)
{
    struct frame f = frame_begin(out, cap, GOBLIN_SBE_DOUBLE_REPLY_TEMPLATE_ID,
                                 GOBLIN_SBE_DOUBLE_REPLY_BLOCK_LENGTH, BENCH_SBE_CORRELATION);
    if (f.block) goblin_sbe_double_reply_put_value(f.block, score);
    return frame_end(&f);
}

/* One entry of a push's values group, as the server's encoder writes it. */
static void push_value(struct frame *f, uint8_t kind, int64_t integer, const void *p, size_t n)
{
    uint8_t *e = goblin_sbe_push_values_entry(&f->w);
    if (e) {
        goblin_sbe_push_values_put_kind(e, kind);
        goblin_sbe_push_values_put_integer(e, integer);
    }
    goblin_sbe_put_data(&f->w, p, n);
}

static int push(char *out, size_t cap, uint64_t correlation, uint8_t push_kind, const char *word,
                const char *channel, const char *last, size_t last_len, long long count)
{
    struct frame f = frame_begin(out, cap, GOBLIN_SBE_PUSH_TEMPLATE_ID,
                                 GOBLIN_SBE_PUSH_BLOCK_LENGTH, correlation);
    if (f.block) goblin_sbe_push_put_push_kind(f.block, push_kind);
    goblin_sbe_group_begin(&f.w, GOBLIN_SBE_PUSH_VALUES_BLOCK_LENGTH, 4);
    push_value(&f, GOBLIN_SBE_VALUE_KIND_PUSH, 3, NULL, 0);
    push_value(&f, GOBLIN_SBE_VALUE_KIND_BULK, 0, word, strlen(word));
    push_value(&f, GOBLIN_SBE_VALUE_KIND_BULK, 0, channel, strlen(channel));
    if (last)
        push_value(&f, GOBLIN_SBE_VALUE_KIND_BULK, 0, last, last_len);
    else
        push_value(&f, GOBLIN_SBE_VALUE_KIND_INT, count, NULL, 0);
    return frame_end(&f);
}

static int sbe_encode_subscribed(char *out, size_t cap, const char *channel, long long count)
{
    return push(out, cap, BENCH_SBE_CORRELATION, GOBLIN_SBE_PUSH_KIND_SUBSCRIBE, "subscribe",
                channel, NULL, 0, count);
}

static int sbe_encode_message(char *out, size_t cap, const char *channel, const char *payload,
                              size_t payload_len)
{
    return push(out, cap, 0, GOBLIN_SBE_PUSH_KIND_MESSAGE, "message", channel, payload, payload_len,
                0);
}

static long long sbe_frame(const char *buf, size_t len)
{
    if (len < GOBLIN_SBE_FRAME_PREFIX) return 0;
    uint32_t n = goblin_sbe_get_u32((const uint8_t *)buf);
    if (n < GOBLIN_SBE_HEADER_LENGTH) return -1;
    size_t total = GOBLIN_SBE_FRAME_PREFIX + (size_t)n;
    return len < total ? 0 : (long long)total;
}

static bool sbe_is_error(const char *reply, size_t len)
{
    return len >= 8 &&
           goblin_sbe_get_u16((const uint8_t *)reply + 6) == GOBLIN_SBE_ERROR_REPLY_TEMPLATE_ID;
}

const struct bench_wire bench_wire_sbe = {
    .name = "sbe",
    .handshake = "GOBLINS!",
    .encode_command = sbe_encode_command,
    .encode_status = sbe_encode_status,
    .encode_integer = sbe_encode_integer,
    .encode_bulk = sbe_encode_bulk,
    .encode_score = sbe_encode_score,
    .encode_subscribed = sbe_encode_subscribed,
    .encode_message = sbe_encode_message,
    .frame = sbe_frame,
    .is_error = sbe_is_error,
    .render = resp_render, /* escapes binary bytes */
};
