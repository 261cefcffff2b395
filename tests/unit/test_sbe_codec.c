/*
 * test_sbe_codec.c — the generated SBE codec (include/goblin/sbe_codec.h):
 * every template is encoded with the writer and decoded back field for
 * field; every proper prefix of every encoded message is refused (the ASan
 * run proves no read past the buffer); a block shorter than the schema's,
 * group counts past the message and writer overflow are detected.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "goblin/sbe_codec.h"

static uint8_t frame[4096];
static struct goblin_sbe_writer w;
static size_t at;

static void start(void)
{
    w = (struct goblin_sbe_writer){.buf = frame, .cap = sizeof frame};
    at = goblin_sbe_frame_begin(&w);
}

/* Ends the frame and returns the body (after the header) with its header. */
static const uint8_t *finish(struct goblin_sbe_header *h, size_t *body_len, uint16_t want_id)
{
    goblin_sbe_frame_end(&w, at);
    CHECK(!w.overflow);
    uint32_t len = goblin_sbe_get_u32(frame);
    CHECK_EQ_LL(len, w.pos - GOBLIN_SBE_FRAME_PREFIX);
    CHECK_EQ_LL(goblin_sbe_header_decode(frame + 4, len, h), GOBLIN_SBE_OK);
    CHECK_EQ_LL(h->template_id, want_id);
    CHECK_EQ_LL(h->schema_id, GOBLIN_SBE_SCHEMA_ID);
    CHECK_EQ_LL(h->version, GOBLIN_SBE_SCHEMA_VERSION);
    *body_len = len - GOBLIN_SBE_HEADER_LENGTH;
    return frame + 4 + GOBLIN_SBE_HEADER_LENGTH;
}

static void check_bytes(struct goblin_sbe_bytes b, const char *want)
{
    CHECK_EQ_LL(b.len, strlen(want));
    CHECK(memcmp(b.data, want, b.len) == 0);
}

/* Every proper prefix of a valid body must fail to decode, through a copy
 * of exactly that many bytes on the heap (so ASan sees any overread). */
#define CHECK_PREFIXES(decode, type, body, len, block_length)                                      \
    do {                                                                                           \
        for (size_t pn_ = 0; pn_ < (len); pn_++) {                                                 \
            uint8_t *copy_ = malloc(pn_ ? pn_ : 1);                                                \
            memcpy(copy_, (body), pn_);                                                            \
            struct type pv_;                                                                       \
            CHECKF(decode(copy_, pn_, (block_length), &pv_) != GOBLIN_SBE_OK, "prefix %zu", pn_);  \
            free(copy_);                                                                           \
        }                                                                                          \
    } while (0)

/* Messages with only a correlation id and var-data fields. */
#define KEYED_ROUND_TRIP(msg, MSG, ...)                                                            \
    do {                                                                                           \
        static const char *vals_[] = {__VA_ARGS__};                                                \
        size_t nv_ = sizeof vals_ / sizeof vals_[0];                                               \
        start();                                                                                   \
        uint8_t *blk_ = goblin_sbe_##msg##_begin(&w);                                              \
        goblin_sbe_##msg##_put_correlation_id(blk_, 0x0102030405060708ULL);                        \
        for (size_t i_ = 0; i_ < nv_; i_++) goblin_sbe_put_data(&w, vals_[i_], strlen(vals_[i_])); \
        struct goblin_sbe_header h_;                                                               \
        size_t len_;                                                                               \
        const uint8_t *body_ = finish(&h_, &len_, GOBLIN_SBE_##MSG##_TEMPLATE_ID);                 \
        struct goblin_sbe_##msg v_;                                                                \
        CHECK_EQ_LL(goblin_sbe_##msg##_decode(body_, len_, h_.block_length, &v_), 0);              \
        CHECK(goblin_sbe_##msg##_correlation_id(v_.block) == 0x0102030405060708ULL);               \
        struct goblin_sbe_bytes *got_ =                                                            \
            (struct goblin_sbe_bytes *)((char *)&v_ + sizeof v_ - nv_ * sizeof *got_);             \
        for (size_t i_ = 0; i_ < nv_; i_++) check_bytes(got_[i_], vals_[i_]);                      \
        CHECK_PREFIXES(goblin_sbe_##msg##_decode, goblin_sbe_##msg, body_, len_, h_.block_length); \
    } while (0)

static void test_keyed_templates(void)
{
    KEYED_ROUND_TRIP(get, GET, "key");
    KEYED_ROUND_TRIP(incr, INCR, "counter");
    KEYED_ROUND_TRIP(hset, HSET, "h", "field", "value");
    KEYED_ROUND_TRIP(hget, HGET, "h", "field");
    KEYED_ROUND_TRIP(zscore, ZSCORE, "z", "member");
    KEYED_ROUND_TRIP(publish, PUBLISH, "chan", "");
    KEYED_ROUND_TRIP(status_reply, STATUS_REPLY, "OK");
    KEYED_ROUND_TRIP(error_reply, ERROR_REPLY, "WRONGTYPE", "Operation against a key");
    KEYED_ROUND_TRIP(bulk_reply, BULK_REPLY, "a value");
    KEYED_ROUND_TRIP(auth, AUTH, "alice", "s3cret");
    KEYED_ROUND_TRIP(auth, AUTH, "", "password of the default user");
}

static void test_fixed_templates(void)
{
    struct goblin_sbe_header h;
    size_t len;
    const uint8_t *body;

    start();
    goblin_sbe_ping_put_correlation_id(goblin_sbe_ping_begin(&w), 7);
    body = finish(&h, &len, GOBLIN_SBE_PING_TEMPLATE_ID);
    struct goblin_sbe_ping ping;
    CHECK_EQ_LL(goblin_sbe_ping_decode(body, len, h.block_length, &ping), 0);
    CHECK_EQ_LL(goblin_sbe_ping_correlation_id(ping.block), 7);
    CHECK_PREFIXES(goblin_sbe_ping_decode, goblin_sbe_ping, body, len, h.block_length);

    start();
    goblin_sbe_null_reply_put_correlation_id(goblin_sbe_null_reply_begin(&w), 8);
    body = finish(&h, &len, GOBLIN_SBE_NULL_REPLY_TEMPLATE_ID);
    struct goblin_sbe_null_reply nul;
    CHECK_EQ_LL(goblin_sbe_null_reply_decode(body, len, h.block_length, &nul), 0);
    CHECK_EQ_LL(goblin_sbe_null_reply_correlation_id(nul.block), 8);

    start();
    uint8_t *b = goblin_sbe_int_reply_begin(&w);
    goblin_sbe_int_reply_put_correlation_id(b, 9);
    goblin_sbe_int_reply_put_value(b, INT64_MIN);
    body = finish(&h, &len, GOBLIN_SBE_INT_REPLY_TEMPLATE_ID);
    struct goblin_sbe_int_reply ir;
    CHECK_EQ_LL(goblin_sbe_int_reply_decode(body, len, h.block_length, &ir), 0);
    CHECK(goblin_sbe_int_reply_value(ir.block) == INT64_MIN);
    CHECK_PREFIXES(goblin_sbe_int_reply_decode, goblin_sbe_int_reply, body, len, h.block_length);

    start();
    b = goblin_sbe_double_reply_begin(&w);
    goblin_sbe_double_reply_put_value(b, -0.1);
    body = finish(&h, &len, GOBLIN_SBE_DOUBLE_REPLY_TEMPLATE_ID);
    struct goblin_sbe_double_reply dr;
    CHECK_EQ_LL(goblin_sbe_double_reply_decode(body, len, h.block_length, &dr), 0);
    CHECK(goblin_sbe_double_reply_value(dr.block) == -0.1);

    start();
    b = goblin_sbe_bool_reply_begin(&w);
    goblin_sbe_bool_reply_put_value(b, 1);
    body = finish(&h, &len, GOBLIN_SBE_BOOL_REPLY_TEMPLATE_ID);
    struct goblin_sbe_bool_reply br;
    CHECK_EQ_LL(goblin_sbe_bool_reply_decode(body, len, h.block_length, &br), 0);
    CHECK_EQ_LL(goblin_sbe_bool_reply_value(br.block), 1);

    start();
    b = goblin_sbe_set_begin(&w);
    goblin_sbe_set_put_correlation_id(b, 10);
    goblin_sbe_set_put_flags(b, GOBLIN_SBE_SET_FLAGS_XX | GOBLIN_SBE_SET_FLAGS_GET);
    goblin_sbe_set_put_expire_kind(b, GOBLIN_SBE_EXPIRE_KIND_PX);
    goblin_sbe_set_put_expire(b, 1500);
    goblin_sbe_put_data(&w, "k", 1);
    goblin_sbe_put_data(&w, "v", 1);
    body = finish(&h, &len, GOBLIN_SBE_SET_TEMPLATE_ID);
    struct goblin_sbe_set set;
    CHECK_EQ_LL(goblin_sbe_set_decode(body, len, h.block_length, &set), 0);
    CHECK_EQ_LL(goblin_sbe_set_flags(set.block),
                GOBLIN_SBE_SET_FLAGS_XX | GOBLIN_SBE_SET_FLAGS_GET);
    CHECK_EQ_LL(goblin_sbe_set_expire_kind(set.block), GOBLIN_SBE_EXPIRE_KIND_PX);
    CHECK_EQ_LL(goblin_sbe_set_expire(set.block), 1500);
    check_bytes(set.key, "k");
    check_bytes(set.value, "v");
    CHECK_PREFIXES(goblin_sbe_set_decode, goblin_sbe_set, body, len, h.block_length);
    /* A block shorter than the schema's is refused. */
    CHECK_EQ_LL(goblin_sbe_set_decode(body, len, GOBLIN_SBE_SET_BLOCK_LENGTH - 1, &set),
                GOBLIN_SBE_E_BLOCK);

    start();
    b = goblin_sbe_incr_by_begin(&w);
    goblin_sbe_incr_by_put_delta(b, -42);
    goblin_sbe_put_data(&w, "n", 1);
    body = finish(&h, &len, GOBLIN_SBE_INCR_BY_TEMPLATE_ID);
    struct goblin_sbe_incr_by ib;
    CHECK_EQ_LL(goblin_sbe_incr_by_decode(body, len, h.block_length, &ib), 0);
    CHECK_EQ_LL(goblin_sbe_incr_by_delta(ib.block), -42);
    check_bytes(ib.key, "n");

    start();
    b = goblin_sbe_zadd_begin(&w);
    goblin_sbe_zadd_put_flags(b, GOBLIN_SBE_ZADD_FLAGS_GT | GOBLIN_SBE_ZADD_FLAGS_CH);
    goblin_sbe_zadd_put_score(b, 2.5);
    goblin_sbe_put_data(&w, "z", 1);
    goblin_sbe_put_data(&w, "m", 1);
    body = finish(&h, &len, GOBLIN_SBE_ZADD_TEMPLATE_ID);
    struct goblin_sbe_zadd za;
    CHECK_EQ_LL(goblin_sbe_zadd_decode(body, len, h.block_length, &za), 0);
    CHECK_EQ_LL(goblin_sbe_zadd_flags(za.block),
                GOBLIN_SBE_ZADD_FLAGS_GT | GOBLIN_SBE_ZADD_FLAGS_CH);
    CHECK(goblin_sbe_zadd_score(za.block) == 2.5);
    check_bytes(za.member, "m");
    CHECK_PREFIXES(goblin_sbe_zadd_decode, goblin_sbe_zadd, body, len, h.block_length);
}

/* Templates whose only group is a list of var-data names. */
#define NAMES_ROUND_TRIP(msg, MSG, group, GROUP, field)                                            \
    do {                                                                                           \
        static const char *names_[] = {"SET", "", "a\r\nb", "last"};                               \
        start();                                                                                   \
        goblin_sbe_##msg##_put_correlation_id(goblin_sbe_##msg##_begin(&w), 11);                   \
        goblin_sbe_group_begin(&w, GOBLIN_SBE_##MSG##_##GROUP##_BLOCK_LENGTH, 4);                  \
        for (int i_ = 0; i_ < 4; i_++) {                                                           \
            goblin_sbe_##msg##_##group##_entry(&w);                                                \
            goblin_sbe_put_data(&w, names_[i_], strlen(names_[i_]));                               \
        }                                                                                          \
        struct goblin_sbe_header h_;                                                               \
        size_t len_;                                                                               \
        const uint8_t *body_ = finish(&h_, &len_, GOBLIN_SBE_##MSG##_TEMPLATE_ID);                 \
        struct goblin_sbe_##msg v_;                                                                \
        CHECK_EQ_LL(goblin_sbe_##msg##_decode(body_, len_, h_.block_length, &v_), 0);              \
        CHECK_EQ_LL(v_.group.count, 4);                                                            \
        struct goblin_sbe_cursor c_ = goblin_sbe_group_cursor(&v_.group);                          \
        struct goblin_sbe_##msg##_##group##_entry e_;                                              \
        int n_ = 0;                                                                                \
        while (goblin_sbe_##msg##_##group##_next(&c_, &e_)) check_bytes(e_.field, names_[n_++]);   \
        CHECK_EQ_LL(n_, 4);                                                                        \
        CHECK_PREFIXES(goblin_sbe_##msg##_decode, goblin_sbe_##msg, body_, len_, h_.block_length); \
    } while (0)

static void test_group_templates(void)
{
    NAMES_ROUND_TRIP(command, COMMAND, args, ARGS, value);
    NAMES_ROUND_TRIP(del, DEL, keys, KEYS, key);
    NAMES_ROUND_TRIP(subscribe, SUBSCRIBE, names, NAMES, name);
    NAMES_ROUND_TRIP(unsubscribe, UNSUBSCRIBE, names, NAMES, name);
    NAMES_ROUND_TRIP(psubscribe, PSUBSCRIBE, names, NAMES, name);
    NAMES_ROUND_TRIP(punsubscribe, PUNSUBSCRIBE, names, NAMES, name);
}

static void test_values_templates(void)
{
    for (int push = 0; push < 2; push++) {
        start();
        uint8_t *b = push ? goblin_sbe_push_begin(&w) : goblin_sbe_values_reply_begin(&w);
        if (push) goblin_sbe_push_put_push_kind(b, GOBLIN_SBE_PUSH_KIND_MESSAGE);
        goblin_sbe_group_begin(&w, GOBLIN_SBE_VALUES_REPLY_VALUES_BLOCK_LENGTH, 3);
        uint8_t *e = goblin_sbe_values_reply_values_entry(&w);
        goblin_sbe_values_reply_values_put_kind(e, GOBLIN_SBE_VALUE_KIND_ARRAY);
        goblin_sbe_values_reply_values_put_integer(e, 2);
        goblin_sbe_put_data(&w, NULL, 0);
        e = goblin_sbe_values_reply_values_entry(&w);
        goblin_sbe_values_reply_values_put_kind(e, GOBLIN_SBE_VALUE_KIND_DOUBLE);
        goblin_sbe_values_reply_values_put_real(e, INFINITY);
        goblin_sbe_put_data(&w, NULL, 0);
        e = goblin_sbe_values_reply_values_entry(&w);
        goblin_sbe_values_reply_values_put_kind(e, GOBLIN_SBE_VALUE_KIND_BULK);
        goblin_sbe_put_data(&w, "x", 1);
        struct goblin_sbe_header h;
        size_t len;
        const uint8_t *body = finish(
            &h, &len, push ? GOBLIN_SBE_PUSH_TEMPLATE_ID : GOBLIN_SBE_VALUES_REPLY_TEMPLATE_ID);
        struct goblin_sbe_group g;
        if (push) {
            struct goblin_sbe_push v;
            CHECK_EQ_LL(goblin_sbe_push_decode(body, len, h.block_length, &v), 0);
            CHECK_EQ_LL(goblin_sbe_push_push_kind(v.block), GOBLIN_SBE_PUSH_KIND_MESSAGE);
            g = v.values;
            CHECK_PREFIXES(goblin_sbe_push_decode, goblin_sbe_push, body, len, h.block_length);
        } else {
            struct goblin_sbe_values_reply v;
            CHECK_EQ_LL(goblin_sbe_values_reply_decode(body, len, h.block_length, &v), 0);
            g = v.values;
            CHECK_PREFIXES(goblin_sbe_values_reply_decode, goblin_sbe_values_reply, body, len,
                           h.block_length);
        }
        struct goblin_sbe_cursor c = goblin_sbe_group_cursor(&g);
        struct goblin_sbe_values_reply_values_entry ent;
        CHECK(goblin_sbe_values_reply_values_next(&c, &ent));
        CHECK_EQ_LL(goblin_sbe_values_reply_values_kind(ent.block), GOBLIN_SBE_VALUE_KIND_ARRAY);
        CHECK_EQ_LL(goblin_sbe_values_reply_values_integer(ent.block), 2);
        CHECK(goblin_sbe_values_reply_values_next(&c, &ent));
        CHECK(isinf(goblin_sbe_values_reply_values_real(ent.block)));
        CHECK(goblin_sbe_values_reply_values_next(&c, &ent));
        check_bytes(ent.bytes, "x");
        CHECK(!goblin_sbe_values_reply_values_next(&c, &ent));
    }
}

static void test_hostile_dimensions(void)
{
    /* A group claiming 65535 entries in a 12-byte body. */
    uint8_t body[12] = {0};
    goblin_sbe_put_u16(body + 8, 0);
    goblin_sbe_put_u16(body + 10, 65535);
    struct goblin_sbe_command cmd;
    CHECK_EQ_LL(goblin_sbe_command_decode(body, 12, 8, &cmd), GOBLIN_SBE_E_GROUP);
    /* A var-data length past the end. */
    uint8_t get[12] = {0};
    goblin_sbe_put_u32(get + 8, 1);
    struct goblin_sbe_get g;
    CHECK_EQ_LL(goblin_sbe_get_decode(get, 12, 8, &g), GOBLIN_SBE_E_DATA);
    goblin_sbe_put_u32(get + 8, UINT32_MAX);
    CHECK_EQ_LL(goblin_sbe_get_decode(get, 12, 8, &g), GOBLIN_SBE_E_DATA);
    /* A longer acting block (a newer minor version) is skipped over. */
    uint8_t longer[20] = {0};
    goblin_sbe_put_u32(longer + 12, 4);
    memcpy(longer + 16, "abcd", 4);
    CHECK_EQ_LL(goblin_sbe_get_decode(longer, 20, 12, &g), 0);
    check_bytes(g.key, "abcd");
    /* The writer stops at its capacity. */
    uint8_t small[16];
    struct goblin_sbe_writer sw = {.buf = small, .cap = sizeof small};
    size_t f = goblin_sbe_frame_begin(&sw);
    goblin_sbe_get_begin(&sw);
    goblin_sbe_put_data(&sw, "key", 3);
    goblin_sbe_frame_end(&sw, f);
    CHECK(sw.overflow);
    CHECK(sw.pos <= sizeof small);
}

int main(void)
{
    test_keyed_templates();
    test_fixed_templates();
    test_group_templates();
    test_values_templates();
    test_hostile_dimensions();
    /* Every template is exercised above. */
    CHECK_EQ_LL(GOBLIN_SBE_TEMPLATE_COUNT, 26);
    printf("sbe codec: ok\n");
    return 0;
}
