/*
 * fuzz_sbe_wire.c — libFuzzer harness for the SBE wire (docs/sbe.md): the
 * server's frame decoder (`sbe_wire`, src/protocol/sbe_wire.c) driven as
 * src/connection/conn.c drives it, the client's reply decoder
 * (goblin_sbe_reply_decode, client/sbe_client.c) over the same bytes, and
 * the reply encoder table (src/protocol/reply_sbe.c) driven by the input,
 * its output decoded back.
 *
 * fuzz-sources: src/protocol/sbe_wire.c src/protocol/wire.c src/protocol/resp_parser.c
 * fuzz-sources: src/protocol/typed_call.c
 * fuzz-sources: src/protocol/reply_sbe.c src/protocol/reply.c src/util/buf.c
 * fuzz-sources: src/protocol/reply_resp2.c src/protocol/reply_resp3.c src/protocol/resp_encode.c
 * fuzz-sources: src/util/numparse.c src/util/strbuf.c src/util/xmalloc.c
 * fuzz-sources: client/sbe_client.c client/ring_client.c client/resp_reader.c client/rx_buffer.c
 * fuzz-sources: client/fabric_client.c src/transport/fabric_ep.c
 * fuzz-sources: src/util/split_args.c
 *
 * Input: 2 control bytes, then the bytes after the handshake.
 *   byte 0  largest chunk (1..256 bytes) the stream arrives in
 *   byte 1  proto_max_bulk_len: 0-127 that many bytes, else 512 MiB; its
 *           bit 0 asks for typed calls as text (MULTI), bit 1 makes the
 *           session unauthenticated (a password is set, no Auth yet)
 *
 * Decoder: chunks accumulate in a buffer; each parse sees the unconsumed
 * bytes in a fresh block of exactly that size (ASan catches any read past
 * it). Checked: a request's arguments lie inside its frame; `consumed` is
 * the frame's length prefix plus 4; WIRE_INCOMPLETE only while fewer bytes
 * than the frame's are buffered, and read_hint() says how many more;
 * WIRE_ERROR only for a length prefix outside [8, SBE_MAX_FRAME] (or,
 * unauthenticated, past SBE_UNAUTH_MAX_FRAME); refused frames are skipped
 * whole; unauthenticated, the only request that comes out is the Auth
 * template's AUTH [user] password. Each complete frame is also handed to the
 * client's reply decoder, whose values must lie inside the frame and whose
 * RESP3 rendering must succeed.
 *
 * Encoder: the same input bytes, read as a program of reply rows (status,
 * error, integer, double, bulk, nil, aggregates, deferred headers, pushes,
 * several frames), are encoded between frame_begin/frame_end; every frame
 * written must decode with the client decoder, with its correlation id.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "goblin/sbe_client.h"
#include "protocol/reply.h"
#include "protocol/sbe_wire.h"
#include "protocol/wire.h"
#include "util/buf.h"

static void check_frame_decodes(const uint8_t *frame, size_t len, bool must_succeed,
                                uint64_t correlation)
{
    void *copy = fuzz_exact_copy(frame, len);
    struct goblin_sbe_reply r;
    int rc = goblin_sbe_reply_decode(copy, len, &r);
    FUZZ_CHECK(!must_succeed || rc == 0, "encoder output does not decode (%d)", rc);
    if (rc == 0) {
        if (must_succeed)
            FUZZ_CHECK(r.correlation == correlation, "correlation %llu",
                       (unsigned long long)r.correlation);
        for (size_t i = 0; i < r.count; i++) {
            const struct goblin_sbe_value *v = &r.values[i];
            if (v->len)
                FUZZ_CHECK((const uint8_t *)v->data >= (const uint8_t *)copy &&
                               (const uint8_t *)v->data + v->len <= (const uint8_t *)copy + len,
                           "value %zu outside its frame", i);
        }
        char *out = NULL;
        size_t olen = 0, cap = 0;
        for (size_t i = 0; i < r.count;) {
            size_t next = goblin_sbe_to_resp3(&r, i, &out, &olen, &cap);
            FUZZ_CHECK(next > i && next != (size_t)-1, "rendering stalled at %zu", i);
            i = next;
        }
        free(out);
        free(r.values);
    }
    free(copy);
}

static void fuzz_decoder(struct fuzz_input *in)
{
    size_t chunk_max = (size_t)fuzz_u8(in) + 1;
    uint8_t lim_byte = fuzz_u8(in);
    /* Its low bit: typed calls lowered to text, as inside MULTI. */
    struct request_limits lim = {.proto_max_bulk_len = lim_byte < 128 ? lim_byte : 512LL << 20,
                                 .typed_as_text = lim_byte & 1,
                                 .auth_required = (lim_byte & 2) != 0};
    size_t n;
    const uint8_t *stream = fuzz_bytes(in, in->size, &n);
    struct wire_state st;
    sbe_wire.init(&st);
    struct buf b;
    buf_init(&b, 64);
    size_t fed = 0;
    bool closed = false;
    while (fed < n && !closed) {
        size_t take = n - fed < chunk_max ? n - fed : chunk_max;
        buf_append(&b, stream + fed, take);
        fed += take;
        for (;;) {
            size_t len = buf_len(&b);
            if (len == 0) break;
            char *copy = fuzz_exact_copy(buf_head(&b), len);
            struct request req;
            memset(&req, 0, sizeof req);
            enum wire_status ws = sbe_wire.parse(&st, copy, len, &lim, &req);
            uint32_t flen = len >= 4 ? goblin_sbe_get_u32((const uint8_t *)copy) : 0;
            if (ws == WIRE_INCOMPLETE) {
                FUZZ_CHECK(len < 4 || len < (size_t)flen + 4, "incomplete with a whole frame");
                if (len >= 4)
                    FUZZ_CHECK(sbe_wire.read_hint(&st, len) == (size_t)flen + 4 - len,
                               "read_hint %zu", sbe_wire.read_hint(&st, len));
                free(copy);
                break;
            }
            if (ws == WIRE_ERROR) {
                FUZZ_CHECK(flen < 8 || flen > SBE_MAX_FRAME ||
                               (lim.auth_required && flen > SBE_UNAUTH_MAX_FRAME),
                           "closed on a credible length %u", flen);
                free(copy);
                closed = true;
                break;
            }
            FUZZ_CHECK(req.consumed == (size_t)flen + 4, "consumed %zu of a %u-byte frame",
                       req.consumed, flen);
            FUZZ_CHECK(!sbe_wire.mid_request(&st), "mid-request after a whole frame");
            if (ws == WIRE_REQUEST) {
                FUZZ_CHECK(req.argc > 0, "empty request");
                FUZZ_CHECK(!lim.auth_required ||
                               ((req.argc == 2 || req.argc == 3) && req.argv_len[0] == 4 &&
                                memcmp(req.argv[0], "AUTH", 4) == 0 && !req.typed),
                           "a request other than AUTH before authentication");
                const struct typed_call *t = req.typed;
                FUZZ_CHECK(!t || !lim.typed_as_text, "a typed call while text was asked for");
                FUZZ_CHECK(!t || (t->argc == req.argc && t->argv == req.argv &&
                                  (unsigned)t->op < TYPED_OP_COUNT),
                           "typed call inconsistent with its argv");
                for (int i = 0; i < req.argc; i++) {
                    const char *a = req.argv[i];
                    size_t alen = req.argv_len[i];
                    bool in_frame = a >= copy && a + alen <= copy + req.consumed;
                    bool literal = alen < 64 && !in_frame; /* a command word or a number */
                    FUZZ_CHECK(in_frame || literal, "argument %d outside the frame", i);
                    FUZZ_CHECK((long long)alen <= lim.proto_max_bulk_len || literal,
                               "argument of %zu bytes past the limit", alen);
                    volatile char sink = alen ? a[alen - 1] : 0; /* readable */
                    (void)sink;
                }
            } else {
                FUZZ_CHECK(ws == WIRE_REJECTED && req.error && req.error[0], "status %d", ws);
            }
            check_frame_decodes((const uint8_t *)copy, req.consumed, false, 0);
            free(copy);
            buf_consume(&b, req.consumed);
        }
    }
    buf_free(&b);
    sbe_wire.free(&st);
}

/* Each input byte is one reply row; frames end on an 0x0f byte. */
static void fuzz_encoder(struct fuzz_input *in)
{
    struct buf out;
    buf_init(&out, 256);
    struct reply r;
    reply_init(&r, &out, PROTO_SBE);
    uint64_t correlation = 1;
    reply_frame_begin(&r, correlation);
    reply_mark marks[8];
    int nmarks = 0;
    size_t limit = in->size < 4096 ? in->size : 4096;
    for (size_t i = 0; i < limit; i++) {
        uint8_t op = in->data[i];
        switch (op & 0x0f) {
        case 0:
            reply_status(&r, "OK");
            break;
        case 1:
            reply_error(&r, op & 0x10 ? "ERR bad" : "NOSPACE");
            break;
        case 2:
            reply_int(&r, (long long)op * -12345);
            break;
        case 3:
            reply_double(&r, op & 0x10 ? 1.0 / 0.0 : op * 0.5);
            break;
        case 4:
            reply_bulk(&r, in->data, op % (in->size + 1));
            break;
        case 5:
            reply_nil(&r);
            break;
        case 6:
            reply_array_len(&r, op >> 4);
            break;
        case 7:
            reply_map_len(&r, op >> 5);
            break;
        case 8:
            reply_set_len(&r, op >> 5);
            break;
        case 9:
            reply_push_len(&r, 3);
            reply_bulk(&r, "message", 7);
            break;
        case 10:
            reply_bool(&r, op & 0x10);
            break;
        case 11:
            reply_pair_array_len(&r, 1);
            reply_pair_begin(&r);
            break;
        case 12:
            reply_verbatim(&r, "text", 4, "txt");
            break;
        case 13:
            if (nmarks < 8) marks[nmarks++] = reply_defer(&r);
            break;
        case 14:
            if (nmarks > 0) reply_defer_array(&r, marks[--nmarks], op >> 4);
            break;
        case 15:
            reply_frame_end(&r);
            nmarks = 0;
            reply_frame_begin(&r, ++correlation);
            break;
        }
    }
    reply_frame_end(&r);
    /* Every frame written decodes, in order, with its own correlation. */
    size_t at = 0;
    const uint8_t *p = (const uint8_t *)buf_head(&out);
    while (at < buf_len(&out)) {
        FUZZ_CHECK(buf_len(&out) - at >= 4, "a partial frame prefix");
        size_t flen = 4 + (size_t)goblin_sbe_get_u32(p + at);
        FUZZ_CHECK(flen <= buf_len(&out) - at, "a frame past the output");
        uint64_t corr = goblin_sbe_get_u64(p + at + 12);
        check_frame_decodes(p + at, flen, true, corr);
        at += flen;
    }
    buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size, 0};
    fuzz_decoder(&in);
    struct fuzz_input again = {data, size, 0};
    fuzz_encoder(&again);
    return 0;
}
