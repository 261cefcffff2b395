/*
 * fuzz_repl_stream.c — libFuzzer harness for what a replica reads from its
 * master (src/repl/replica_proto.c, then the RESP request parser for the
 * command stream), in the order src/repl/replica.c reads it:
 *
 *   1. the handshake's reply lines (PING, REPLCONF x2, PSYNC), each through
 *      repl_proto_line, the last through repl_proto_psync_reply (empty
 *      lines before it are the master's keepalives);
 *   2. after +FULLRESYNC, the bulk preamble (repl_proto_bulk_preamble,
 *      keepalive lines first), then the payload: `size` bytes, or bytes
 *      until the 40-byte mark (repl_proto_is_mark over the last 40 bytes);
 *   3. after the payload (or +CONTINUE), the command stream: every request
 *      resp_parse finds, until it needs more or reports an error.
 *
 * fuzz-sources: src/repl/replica_proto.c src/protocol/resp_parser.c src/util/buf.c
 * fuzz-sources: src/util/numparse.c src/util/strbuf.c src/util/xmalloc.c
 * fuzz-sources: src/util/split_args.c
 *
 * Input: one control byte (the largest read, 1..256 bytes: reads are
 * split as a socket would deliver them), then the master's bytes.
 * Checked: a line is never longer than REPL_LINE_MAX and consumes its own
 * end; a +FULLRESYNC id is 40 hex characters and its offset not negative;
 * a declared length is never allocated (the payload is counted, as the
 * replica writes it to a file); a mark-delimited payload ends exactly at
 * the first occurrence of its mark; the parser's results obey resp_parser.h.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "protocol/resp_parser.h"
#include "repl/replica_proto.h"
#include "util/buf.h"

enum phase { HANDSHAKE, PREAMBLE, PAYLOAD, STREAM, DONE };

struct reader {
    enum phase phase;
    int replies; /* handshake replies read */
    struct buf in;
    bool usemark;
    char mark[REPL_EOF_MARK_LEN + 1];
    long long size, read;
    char tail[REPL_EOF_MARK_LEN];
    struct resp_parser parser;
};

static bool is_hex(const char *id)
{
    for (int i = 0; i < REPL_ID_LEN; i++) {
        char c = id[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return id[REPL_ID_LEN] == '\0';
}

/* One line from r->in, or false when none is complete (or the reader stopped). */
static bool next_line(struct reader *r, char *line, size_t *len)
{
    size_t l = 0, used = 0;
    enum repl_line_status st = repl_proto_line(buf_head(&r->in), buf_len(&r->in), &l, &used);
    if (st == REPL_LINE_INCOMPLETE) return false;
    if (st == REPL_LINE_TOO_LONG) { /* the replica ends the link */
        r->phase = DONE;
        return false;
    }
    FUZZ_CHECK(l <= REPL_LINE_MAX, "line of %zu bytes", l);
    FUZZ_CHECK(used == l + 1 || used == l + 2, "line %zu consumed %zu", l, used);
    FUZZ_CHECK(used <= buf_len(&r->in), "consumed %zu of %zu", used, buf_len(&r->in));
    FUZZ_CHECK(buf_head(&r->in)[used - 1] == '\n', "a line not ended by LF");
    memcpy(line, buf_head(&r->in), l);
    line[l] = '\0';
    buf_consume(&r->in, used);
    *len = l;
    return true;
}

static void payload(struct reader *r)
{
    size_t n = buf_len(&r->in);
    if (!r->usemark && r->read + (long long)n > r->size) n = (size_t)(r->size - r->read);
    const char *p = buf_head(&r->in);
    for (size_t i = 0; i < n; i++) { /* byte by byte: the mark must end exactly here */
        memmove(r->tail, r->tail + 1, REPL_EOF_MARK_LEN - 1);
        r->tail[REPL_EOF_MARK_LEN - 1] = p[i];
        r->read++;
        bool done = r->usemark
                        ? r->read >= REPL_EOF_MARK_LEN && repl_proto_is_mark(r->tail, r->mark)
                        : r->read == r->size;
        if (done) {
            buf_consume(&r->in, i + 1);
            r->phase = STREAM;
            return;
        }
    }
    buf_consume(&r->in, n);
}

static void stream(struct reader *r)
{
    while (buf_len(&r->in)) {
        struct request_limits lim = {.proto_max_bulk_len = 512LL * 1024 * 1024};
        size_t len = buf_len(&r->in);
        enum resp_status st = resp_parse(&r->parser, buf_head(&r->in), len, &lim);
        if (st == RESP_INCOMPLETE) return;
        if (st == RESP_ERROR) {
            FUZZ_CHECK(r->parser.error != NULL, "RESP_ERROR without a message");
            r->phase = DONE;
            return;
        }
        FUZZ_CHECK(r->parser.consumed > 0 && r->parser.consumed <= len, "consumed %zu of %zu",
                   r->parser.consumed, len);
        buf_consume(&r->in, r->parser.consumed);
    }
}

static void feed(struct reader *r, const char *p, size_t n)
{
    buf_append(&r->in, p, n);
    char line[REPL_LINE_MAX + 1];
    size_t len;
    while (r->phase == HANDSHAKE && next_line(r, line, &len)) {
        if (r->replies < 3) {
            r->replies++;
            continue;
        }
        if (len == 0) continue; /* keepalive before the PSYNC reply */
        char id[REPL_ID_LEN + 1];
        long long offset = -1;
        enum psync_reply pr = repl_proto_psync_reply(line, len, id, &offset);
        if (pr == PSYNC_FULLRESYNC) {
            FUZZ_CHECK(is_hex(id), "FULLRESYNC id '%s'", id);
            FUZZ_CHECK(offset >= 0, "FULLRESYNC offset %lld", offset);
            r->phase = PREAMBLE;
        } else if (pr == PSYNC_CONTINUE) {
            FUZZ_CHECK(id[0] == '\0' || is_hex(id), "CONTINUE id '%s'", id);
            r->phase = STREAM;
        } else {
            r->phase = DONE;
        }
    }
    while (r->phase == PREAMBLE && next_line(r, line, &len)) {
        long long size = -1;
        enum bulk_preamble b = repl_proto_bulk_preamble(line, len, &size, r->mark);
        if (b == BULK_KEEPALIVE) continue;
        if (b == BULK_LENGTH) {
            FUZZ_CHECK(size >= 0, "bulk length %lld", size);
            r->usemark = false;
            r->size = size;
            r->phase = size == 0 ? STREAM : PAYLOAD;
        } else if (b == BULK_EOF_MARK) {
            FUZZ_CHECK(strlen(r->mark) <= REPL_EOF_MARK_LEN, "mark of %zu", strlen(r->mark));
            r->usemark = true;
            r->phase = PAYLOAD;
        } else {
            r->phase = DONE;
        }
    }
    if (r->phase == PAYLOAD) payload(r);
    if (r->phase == STREAM) stream(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size, 0};
    unsigned chunk = (unsigned)fuzz_u8(&in) + 1;
    struct reader r = {.phase = HANDSHAKE};
    buf_init(&r.in, 64);
    resp_parser_init(&r.parser);
    size_t n;
    const uint8_t *p;
    while ((p = fuzz_bytes(&in, chunk, &n)) && n && r.phase != DONE) feed(&r, (const char *)p, n);
    resp_parser_free(&r.parser);
    buf_free(&r.in);
    return 0;
}
