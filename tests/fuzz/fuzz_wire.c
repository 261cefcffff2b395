/*
 * fuzz_wire.c — libFuzzer harness for the request side of the wire layer
 * (src/protocol/wire.c): wire_detect_among() and the RESP wire table `resp_wire`,
 * driven the way src/connection/conn.c drives it, big-argument hand-over
 * included.
 *
 * fuzz-sources: src/protocol/wire.c src/protocol/resp_parser.c src/util/buf.c
 * fuzz-sources: src/util/numparse.c src/util/strbuf.c src/util/xmalloc.c
 * fuzz-sources: src/util/split_args.c
 *
 * Input: 4 control bytes, then the byte stream a client sends.
 *   byte 0  limits: bit 0 auth_required; bits 1-2 the number of commands
 *           the client stays unauthenticated for (0 = all of them);
 *           bits 3-4 proto_max_bulk_len (512 MiB, 0, 5, 1000);
 *           bit 5 each command takes its first external argument (as SET
 *           adopts its value) instead of leaving it to request_done()
 *   byte 1  seed of the split points
 *   byte 2  largest chunk: bits 0-6 give 1..128 bytes, bit 7 multiplies by 512
 *   byte 3  big bulks: high nibble a mask over bulk headers (header i is
 *           expanded when bit i%4 is set; 0 = none), low nibble the size step.
 *           An expanded `$n\r\n` header whose n payload bytes follow becomes
 *           `$m\r\n` with m = n + RESP_BIG_ARG - 1 + step*1021, its payload
 *           prefixed by m - n copies of its first byte. Small inputs thus
 *           reach the big-argument path (at most EXPAND_MAX bytes added).
 *
 * wire_detect_among(): every prefix (up to 12 bytes) of the stream, with and
 * without a binary wire on offer, must give NULL exactly for the proper
 * prefixes of the handshake when one is offered, the binary wire with 8
 * handshake bytes to skip for the whole handshake, RESP with 0 otherwise.
 *
 * resp_wire: the (expanded) stream is parsed twice. Once whole with
 * resp_parse(), the plain reference. Once through the table as a conn does
 * (conn_feed_input() then conn_process_input()): chunks arrive at
 * fuzzer-chosen points into an input buffer; each parse sees the unconsumed
 * bytes in a fresh block of exactly that size; on WIRE_INCOMPLETE
 * big_argument() may report a bulk, whose bytes after `at` then move into a
 * strbuf, the input is cut at `at`, and later chunks fill the strbuf up to
 * payload + CRLF before the rest goes to the input again; the strbuf, CRLF
 * dropped, goes back through adopt_argument(). Both runs write a transcript
 * (every command's arguments, empty commands, the error that ends the
 * stream) and the transcripts must be equal. Each request is checked: argv
 * of an external argument is its strbuf's data, other arguments lie inside
 * the bytes parsed, held_bytes() is the external bytes the request still
 * holds and 0 after request_done() or an error. LSan checks that every
 * strbuf is freed.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "protocol/wire.h"
#include "util/buf.h"

#define EXPAND_MAX (256 * 1024)
#define BIG_ARG_CHUNK (16 * 1024) /* CONN_READ_CHUNK */

struct run_config {
    bool auth_required;
    unsigned unauth_commands; /* 0: auth_required for every command */
    long long max_bulk;
    bool take_external;
};

static bool auth_for(const struct run_config *cfg, unsigned command_index)
{
    if (!cfg->auth_required) return false;
    return cfg->unauth_commands == 0 || command_index < cfg->unauth_commands;
}

static void transcript_u64(struct buf *t, uint64_t v)
{
    buf_append(t, &v, sizeof v);
}

static void transcript_command(struct buf *t, int argc, const char *const *argv,
                               const size_t *argv_len)
{
    buf_append_char(t, 'C');
    transcript_u64(t, (uint64_t)argc);
    for (int i = 0; i < argc; i++) {
        transcript_u64(t, argv_len[i]);
        buf_append(t, argv[i], argv_len[i]); /* reads every argument byte: ASan checks them */
    }
}

static void transcript_error(struct buf *t, const char *error)
{
    FUZZ_CHECK(error != NULL, "error without a message");
    size_t n = strnlen(error, 256);
    FUZZ_CHECK(n > 0 && n < 256, "error message of length %zu", n);
    buf_append_char(t, 'X');
    buf_append(t, error, n);
}

/* --- wire_detect ---------------------------------------------------------- */

static const struct wire binary_wire = {
    .name = "binary", .handshake = WIRE_SBE_HANDSHAKE, .handshake_len = WIRE_SBE_HANDSHAKE_LEN};
static const struct wire *const binary_candidates[] = {&binary_wire};

static void check_detect(const char *stream, size_t len)
{
    size_t max = len < 12 ? len : 12;
    for (size_t n = 0; n <= max; n++) {
        char *copy = fuzz_exact_copy(stream, n);
        size_t skip = 99;
        const struct wire *w = wire_detect_among(copy, n, binary_candidates, 0, &skip);
        FUZZ_CHECK(w == &resp_wire && skip == 0, "no binary wire offered: %s, skip %zu",
                   w ? w->name : "NULL", skip);
        size_t common = n < WIRE_SBE_HANDSHAKE_LEN ? n : WIRE_SBE_HANDSHAKE_LEN;
        bool matches = memcmp(copy, WIRE_SBE_HANDSHAKE, common) == 0;
        skip = 99;
        w = wire_detect_among(copy, n, binary_candidates, 1, &skip);
        if (matches && n < WIRE_SBE_HANDSHAKE_LEN)
            FUZZ_CHECK(w == NULL, "proper handshake prefix of %zu bytes decided %s", n, w->name);
        else if (matches)
            FUZZ_CHECK(w == &binary_wire && skip == WIRE_SBE_HANDSHAKE_LEN,
                       "handshake gave %s, skip %zu", w ? w->name : "NULL", skip);
        else
            FUZZ_CHECK(w == &resp_wire && skip == 0, "non-handshake gave %s, skip %zu",
                       w ? w->name : "NULL", skip);
        free(copy);
    }
}

/* --- big bulks from small inputs ------------------------------------------ */

/* Writes the stream with the selected bulk headers expanded (see the top). */
static void expand_stream(const char *s, size_t len, uint8_t control, struct buf *out)
{
    unsigned mask = control >> 4;
    size_t step = (size_t)(control & 15) * 1021, added = 0;
    unsigned header = 0;
    size_t i = 0;
    while (i < len) {
        size_t n = 0, j = i + 1;
        while (j < len && j - i <= 3 && s[j] >= '0' && s[j] <= '9')
            n = n * 10 + (size_t)(s[j++] - '0');
        bool is_header = s[i] == '$' && j > i + 1 && j + 1 < len && s[j] == '\r' &&
                         s[j + 1] == '\n' && n > 0 && len - (j + 2) >= n;
        if (!is_header) {
            buf_append_char(out, s[i++]);
            continue;
        }
        size_t extra = RESP_BIG_ARG - 1 + step;
        if (!(mask & (1u << (header++ % 4))) || added + extra > EXPAND_MAX) {
            buf_append(out, s + i, j + 2 - i);
            i = j + 2;
            continue;
        }
        buf_append_fmt(out, "$%zu\r\n", n + extra);
        buf_reserve(out, extra);
        memset(buf_tail(out), s[j + 2], extra);
        out->end += extra;
        added += extra;
        i = j + 2; /* the original payload follows the repeated bytes */
    }
}

/* --- the plain reference: one resp_parse() over the whole stream ---------- */

static void parse_whole(const char *stream, size_t len, const struct run_config *cfg, struct buf *t)
{
    struct resp_parser p;
    resp_parser_init(&p);
    char *copy = fuzz_exact_copy(stream, len);
    const char *cmd = copy;
    size_t left = len;
    unsigned index = 0;
    enum resp_status st;
    for (;;) {
        struct request_limits lim = {.proto_max_bulk_len = cfg->max_bulk,
                                     .auth_required = auth_for(cfg, index)};
        st = resp_parse(&p, cmd, left, &lim);
        if (st == RESP_INCOMPLETE) break;
        if (st == RESP_ERROR) {
            transcript_error(t, p.error);
            break;
        }
        if (st == RESP_EMPTY)
            buf_append_char(t, 'E');
        else
            transcript_command(t, p.argc, p.argv, p.argv_len);
        index++;
        cmd += p.consumed;
        left -= p.consumed;
    }
    buf_append_char(t, st == RESP_INCOMPLETE ? 'I' : '.');
    free(copy);
    resp_parser_free(&p);
}

/* --- the conn's input loop over resp_wire --------------------------------- */

struct conn_model {
    const struct wire *wire;
    struct wire_state state;
    struct buf in;      /* unconsumed input, from the current request's first byte */
    struct strbuf *big; /* a big argument being received (conn.c big_arg) */
    size_t big_need;    /* its payload plus CRLF */
    bool closed;        /* a protocol error ended the stream */
    unsigned index;     /* requests so far (unauthenticated bounds) */
    const struct run_config *cfg;
    struct buf *transcript;
};

/* Checks a WIRE_REQUEST in data[0..len) and records it; then, as a command
 * would, takes an external argument or leaves them all to request_done(). */
static void model_request(struct conn_model *m, const struct request *req, const char *data,
                          size_t len, const struct request_limits *lim)
{
    const struct strbuf_set *owned = req->owned;
    FUZZ_CHECK(req->argc > 0, "request with argc %d", req->argc);
    FUZZ_CHECK(req->consumed > 0 && req->consumed <= len, "consumed %zu of %zu bytes",
               req->consumed, len);
    FUZZ_CHECK(!m->wire->mid_request(&m->state), "mid_request after a request");
    FUZZ_CHECK(req->typed == NULL, "RESP request with typed arguments");
    size_t external_bytes = 0;
    for (int i = 0; i < req->argc; i++) {
        const char *a = req->argv[i];
        size_t n = req->argv_len[i];
        FUZZ_CHECK(a != NULL, "argv[%d] is NULL", i);
        FUZZ_CHECK((long long)n <= lim->proto_max_bulk_len || data[0] != '*',
                   "argv[%d] longer than proto_max_bulk_len", i);
        const struct strbuf *sb = NULL;
        for (int k = 0; owned && k < owned->count; k++)
            if (owned->index[k] == i) {
                FUZZ_CHECK(sb == NULL, "argument %d owned twice", i);
                sb = owned->buf[k];
            }
        if (sb) {
            FUZZ_CHECK(a == sb->data && n == sb->len && sb->len <= sb->cap,
                       "external argv[%d] (%zu bytes) is not its strbuf (%zu bytes)", i, n,
                       sb->len);
            FUZZ_CHECK(n >= RESP_BIG_ARG, "external argument of %zu bytes", n);
            external_bytes += n;
        } else if (data[0] == '*') {
            FUZZ_CHECK(a >= data && a <= data + req->consumed &&
                           n <= (size_t)(data + req->consumed - a),
                       "argv[%d] (%zu bytes) outside the request", i, n);
        }
    }
    size_t owned_count = owned ? (size_t)owned->count : 0;
    FUZZ_CHECK(m->wire->held_bytes(&m->state) == external_bytes,
               "held_bytes %zu, external arguments hold %zu (%zu of them)",
               m->wire->held_bytes(&m->state), external_bytes, owned_count);
    transcript_command(m->transcript, req->argc, req->argv, req->argv_len);

    if (m->cfg->take_external && owned_count > 0) {
        struct strbuf_set *set = (struct strbuf_set *)req->owned;
        int index = set->index[0];
        struct strbuf *sb = strbuf_set_take(set, index);
        FUZZ_CHECK(sb != NULL && sb->data == req->argv[index], "take gave another buffer");
        FUZZ_CHECK(m->wire->held_bytes(&m->state) == external_bytes - sb->len,
                   "held_bytes after a take");
        strbuf_free(sb);
    }
    m->wire->request_done(&m->state);
    FUZZ_CHECK(m->wire->held_bytes(&m->state) == 0, "held_bytes %zu after request_done",
               m->wire->held_bytes(&m->state));
}

/* conn_big_arg_cap() without the query-buffer limit: room for as much
 * again as has arrived (at least a read chunk, at most what is missing). */
static size_t big_arg_cap(size_t have, size_t still_needed)
{
    size_t add = have > BIG_ARG_CHUNK ? have : BIG_ARG_CHUNK;
    return have + (add < still_needed ? add : still_needed);
}

/* conn_begin_big_arg(): after an incomplete parse of data[0..len). Returns
 * true when the bytes after `at` moved out (the input now ends at `at`). */
static bool model_begin_big_arg(struct conn_model *m, const char *data, size_t len)
{
    size_t at = SIZE_MAX;
    long long blen = m->wire->big_argument(&m->state, len, &at);
    if (blen < 0) return false;
    FUZZ_CHECK(blen >= RESP_BIG_ARG && blen <= m->cfg->max_bulk, "big argument of %lld bytes",
               blen);
    FUZZ_CHECK(at <= len && len - at < (size_t)blen + 2, "big argument at %zu of %zu bytes", at,
               len);
    FUZZ_CHECK(m->wire->mid_request(&m->state), "big argument outside a request");
    size_t have = len - at;
    m->big = strbuf_new(data + at, have, big_arg_cap(have, (size_t)blen + 2 - have));
    m->big_need = (size_t)blen + 2;
    return true;
}

/* conn_end_big_arg(): hands a complete big argument to the wire. */
static void model_end_big_arg(struct conn_model *m)
{
    struct strbuf *sb = m->big;
    if (sb->len < m->big_need) return;
    m->big = NULL;
    sb->len -= 2; /* the CRLF stays behind the value, unused */
    size_t held = m->wire->held_bytes(&m->state);
    m->wire->adopt_argument(&m->state, sb);
    FUZZ_CHECK(m->wire->held_bytes(&m->state) == held + sb->len,
               "held_bytes %zu after adopting %zu bytes to %zu", m->wire->held_bytes(&m->state),
               sb->len, held);
    FUZZ_CHECK(m->wire->mid_request(&m->state), "adopted an argument outside a request");
}

/* conn_feed_input(): bytes that arrived. */
static void model_feed(struct conn_model *m, const char *data, size_t len)
{
    if (m->big) {
        size_t take = m->big_need - m->big->len;
        if (take > len) take = len;
        if (m->big->cap - m->big->len < take) {
            /* Grown geometrically: one resize per small chunk is quadratic. */
            size_t cap = big_arg_cap(m->big->len, m->big_need - m->big->len);
            m->big = strbuf_resize(m->big, cap > m->big->len + take ? cap : m->big->len + take);
        }
        memcpy(m->big->data + m->big->len, data, take);
        m->big->len += take;
        model_end_big_arg(m);
        data += take;
        len -= take;
    }
    buf_append(&m->in, data, len);
}

/* conn_run_commands(): every complete request in the input. */
static void model_process(struct conn_model *m)
{
    if (m->big || m->closed || buf_len(&m->in) == 0) return; /* the argument is not complete */
    size_t len = buf_len(&m->in), done = 0;
    char *copy = fuzz_exact_copy(buf_head(&m->in), len);
    while (done < len) {
        const char *data = copy + done;
        struct request_limits lim = {.proto_max_bulk_len = m->cfg->max_bulk,
                                     .auth_required = auth_for(m->cfg, m->index)};
        struct request req;
        enum wire_status st = m->wire->parse(&m->state, data, len - done, &lim, &req);
        if (st == WIRE_INCOMPLETE) {
            size_t hint = m->wire->read_hint(&m->state, len - done);
            FUZZ_CHECK(hint <= (size_t)m->cfg->max_bulk + 2 + (size_t)RESP_INLINE_MAX,
                       "read hint %zu", hint);
            if (model_begin_big_arg(m, data, len - done)) {
                size_t at = len - done - m->big->len;
                m->in.end = m->in.start + done + at;
            }
            break;
        }
        if (st == WIRE_ERROR) {
            transcript_error(m->transcript, req.error);
            FUZZ_CHECK(!m->wire->mid_request(&m->state), "mid_request after an error");
            FUZZ_CHECK(m->wire->held_bytes(&m->state) == 0, "held_bytes %zu after an error",
                       m->wire->held_bytes(&m->state));
            m->closed = true;
            break;
        }
        if (st == WIRE_EMPTY) {
            FUZZ_CHECK(req.consumed > 0 && req.consumed <= len - done, "empty request of %zu",
                       req.consumed);
            FUZZ_CHECK(m->wire->held_bytes(&m->state) == 0, "held_bytes in an empty request");
            buf_append_char(m->transcript, 'E');
        } else {
            FUZZ_CHECK(st == WIRE_REQUEST, "unknown status %d", st);
            model_request(m, &req, data, len - done, &lim);
        }
        m->index++;
        done += req.consumed;
    }
    buf_consume(&m->in, done);
    free(copy);
}

static void parse_through_wire(const char *stream, size_t len, const struct run_config *cfg,
                               uint32_t seed, size_t max_chunk, struct buf *t)
{
    struct conn_model m = {.wire = &resp_wire, .cfg = cfg, .transcript = t};
    m.wire->init(&m.state);
    buf_init(&m.in, 256);
    size_t arrived = 0;
    while (arrived < len && !m.closed) {
        size_t chunk = 1 + fuzz_next_random(&seed) % max_chunk;
        /* Each parse copies the whole input: a long line or bulk held in it
         * grows by a quarter at least, or tiny chunks would be quadratic. */
        if (!m.big && chunk < buf_len(&m.in) / 4) chunk = buf_len(&m.in) / 4;
        if (chunk > len - arrived) chunk = len - arrived;
        model_feed(&m, stream + arrived, chunk);
        arrived += chunk;
        model_process(&m);
    }
    buf_append_char(t, m.closed ? '.' : 'I');
    if (!m.closed && !m.big && buf_len(&m.in) == 0)
        FUZZ_CHECK(!m.wire->mid_request(&m.state), "mid_request with no input");
    if (m.big) strbuf_free(m.big); /* conn_free() */
    m.wire->free(&m.state);
    buf_free(&m.in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const long long max_bulks[4] = {512LL * 1024 * 1024, 0, 5, 1000};
    struct fuzz_input in = {data, size, 0};
    uint8_t limits = fuzz_u8(&in);
    struct run_config cfg = {
        .auth_required = limits & 1,
        .unauth_commands = (limits >> 1) & 3,
        .max_bulk = max_bulks[(limits >> 3) & 3],
        .take_external = (limits >> 5) & 1,
    };
    uint32_t seed = fuzz_u8(&in);
    uint8_t chunking = fuzz_u8(&in);
    size_t max_chunk = (1u + (chunking & 0x7f)) * (chunking & 0x80 ? 512u : 1u);
    uint8_t expansion = fuzz_u8(&in);
    size_t raw_len;
    const char *raw = (const char *)fuzz_bytes(&in, SIZE_MAX, &raw_len);

    check_detect(raw, raw_len);

    struct buf stream;
    buf_init(&stream, raw_len + 1);
    expand_stream(raw, raw_len, expansion, &stream);
    struct buf whole, wired;
    buf_init(&whole, 256);
    buf_init(&wired, 256);
    parse_whole(buf_head(&stream), buf_len(&stream), &cfg, &whole);
    parse_through_wire(buf_head(&stream), buf_len(&stream), &cfg, seed, max_chunk, &wired);
    /* The size bounds ("too big ...") fire on what has arrived so far, so a
     * chunked stream may legitimately stop earlier than the whole one. */
    bool size_bound = memmem(whole.data, buf_len(&whole), "too big", 7) ||
                      memmem(wired.data, buf_len(&wired), "too big", 7);
    if (!size_bound)
        FUZZ_CHECK(buf_len(&whole) == buf_len(&wired) &&
                       memcmp(whole.data, wired.data, buf_len(&whole)) == 0,
                   "whole and wire parses differ (%zu vs %zu transcript bytes)", buf_len(&whole),
                   buf_len(&wired));
    buf_free(&whole);
    buf_free(&wired);
    buf_free(&stream);
    return 0;
}
