/*
 * fuzz_resp_parser.c — libFuzzer harness for the RESP request parser
 * (src/protocol/resp_parser.c: multibulk and inline).
 *
 * fuzz-sources: src/protocol/resp_parser.c src/util/buf.c src/util/numparse.c
 * fuzz-sources: src/util/strbuf.c src/util/xmalloc.c
 * fuzz-sources: src/util/split_args.c
 *
 * Input: 3 control bytes, then the byte stream a client sends.
 *   byte 0  limits: bit 0 auth_required; bits 1-2 the number of commands
 *           the client stays unauthenticated for (0 = all of them);
 *           bits 3-4 proto_max_bulk_len (512 MiB, 0, 5, 1000)
 *   byte 1  seed of the split points
 *   byte 2  largest chunk (1..256 bytes)
 *
 * The stream is parsed twice, as the connection does it: once whole, and
 * once arriving in chunks, each call seeing the unconsumed bytes in a fresh
 * buffer of exactly that size (the connection's buffer may move between
 * calls). Both runs write a transcript — every command's arguments, empty
 * commands, the error that ends the stream — and the transcripts must be
 * equal. Every result is checked against the contract in resp_parser.h.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "protocol/resp_parser.h"
#include "util/buf.h"

struct run_config {
    bool auth_required;
    unsigned unauth_commands; /* 0: auth_required for every command */
    long long max_bulk;
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

/* Checks one RESP_COMMAND / RESP_EMPTY / RESP_ERROR result for the command
 * starting at cmd[0] (len bytes available) and appends it to the transcript. */
static void check_and_record(struct buf *t, const struct resp_parser *p, enum resp_status st,
                             const char *cmd, size_t len, const struct request_limits *lim)
{
    if (st == RESP_ERROR) {
        FUZZ_CHECK(p->error != NULL, "RESP_ERROR without a message");
        size_t n = strnlen(p->error, 256);
        FUZZ_CHECK(n > 0 && n < 256, "error message of length %zu", n);
        FUZZ_CHECK(!resp_parser_mid_command(p), "parser not reset after an error");
        buf_append_char(t, 'X');
        buf_append(t, p->error, n);
        return;
    }
    FUZZ_CHECK(p->consumed > 0, "status %d consumed nothing (the caller would loop)", st);
    FUZZ_CHECK(p->consumed <= len, "consumed %zu of %zu bytes", p->consumed, len);
    FUZZ_CHECK(!resp_parser_mid_command(p), "parser not reset after a command");
    if (st == RESP_EMPTY) {
        FUZZ_CHECK(p->argc == 0, "RESP_EMPTY with argc %d", p->argc);
        buf_append_char(t, 'E');
        return;
    }
    FUZZ_CHECK(st == RESP_COMMAND, "unknown status %d", st);
    FUZZ_CHECK(p->argc > 0 && (size_t)p->argc <= p->consumed, "argc %d for %zu bytes", p->argc,
               p->consumed);
    bool multibulk = cmd[0] == '*';
    if (multibulk && lim->auth_required)
        FUZZ_CHECK(p->argc <= RESP_UNAUTH_MAX_ARGS, "unauthenticated argc %d", p->argc);
    size_t total = 0;
    buf_append_char(t, 'C');
    transcript_u64(t, (uint64_t)p->argc);
    for (int i = 0; i < p->argc; i++) {
        const char *a = p->argv[i];
        size_t n = p->argv_len[i];
        FUZZ_CHECK(a != NULL, "argv[%d] is NULL", i);
        if (multibulk) {
            /* Arguments are slices of the command's own bytes. */
            FUZZ_CHECK(a >= cmd && a <= cmd + p->consumed && n <= (size_t)(cmd + p->consumed - a),
                       "argv[%d] (%zu bytes) outside the command", i, n);
            FUZZ_CHECK((long long)n <= lim->proto_max_bulk_len,
                       "argv[%d] longer than proto_max_bulk_len", i);
            if (lim->auth_required)
                FUZZ_CHECK(n <= RESP_UNAUTH_MAX_BULK, "unauthenticated bulk of %zu bytes", n);
        }
        total += n;
        transcript_u64(t, n);
        buf_append(t, a, n); /* reads every argument byte: ASan checks them */
    }
    /* Unquoting never makes an inline argument longer than its source. */
    FUZZ_CHECK(total <= p->consumed, "%zu argument bytes from a %zu-byte command", total,
               p->consumed);
}

/* Parses every command in [cmd, cmd+len); returns the status that stopped it
 * (RESP_INCOMPLETE or RESP_ERROR) and adds the bytes consumed to *consumed. */
static enum resp_status parse_available(struct resp_parser *p, struct buf *t, const char *cmd,
                                        size_t len, const struct run_config *cfg,
                                        unsigned *command_index, size_t *consumed)
{
    for (;;) {
        struct request_limits lim = {
            .proto_max_bulk_len = cfg->max_bulk,
            .auth_required = auth_for(cfg, *command_index),
        };
        enum resp_status st = resp_parse(p, cmd, len, &lim);
        if (st == RESP_INCOMPLETE) {
            size_t pending = resp_parser_pending_bulk(p, len);
            FUZZ_CHECK(pending <= (size_t)cfg->max_bulk + 2 + (size_t)RESP_INLINE_MAX,
                       "pending bulk %zu", pending);
            return st;
        }
        check_and_record(t, p, st, cmd, len, &lim);
        if (st == RESP_ERROR) return st;
        (*command_index)++;
        cmd += p->consumed;
        len -= p->consumed;
        *consumed += p->consumed;
    }
}

static void parse_whole(const char *stream, size_t len, const struct run_config *cfg, struct buf *t)
{
    struct resp_parser p;
    resp_parser_init(&p);
    char *copy = fuzz_exact_copy(stream, len);
    unsigned index = 0;
    size_t consumed = 0;
    enum resp_status st = parse_available(&p, t, copy, len, cfg, &index, &consumed);
    buf_append_char(t, st == RESP_INCOMPLETE ? 'I' : '.');
    free(copy);
    resp_parser_free(&p);
}

static void parse_split(const char *stream, size_t len, const struct run_config *cfg, uint32_t seed,
                        unsigned max_chunk, struct buf *t)
{
    struct resp_parser p;
    resp_parser_init(&p);
    size_t start = 0, arrived = 0; /* stream[start..arrived) is unconsumed input */
    unsigned index = 0;
    enum resp_status st = RESP_INCOMPLETE;
    while (arrived < len) {
        size_t chunk = 1 + fuzz_next_random(&seed) % max_chunk;
        arrived = chunk < len - arrived ? arrived + chunk : len;
        char *copy = fuzz_exact_copy(stream + start, arrived - start);
        size_t consumed = 0;
        st = parse_available(&p, t, copy, arrived - start, cfg, &index, &consumed);
        free(copy);
        start += consumed;
        if (st == RESP_ERROR) break;
    }
    buf_append_char(t, st == RESP_INCOMPLETE ? 'I' : '.');
    resp_parser_free(&p);
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
    };
    uint32_t seed = fuzz_u8(&in);
    unsigned max_chunk = 1u + fuzz_u8(&in);
    size_t len;
    const char *stream = (const char *)fuzz_bytes(&in, SIZE_MAX, &len);

    struct buf whole, split;
    buf_init(&whole, 256);
    buf_init(&split, 256);
    parse_whole(stream, len, &cfg, &whole);
    parse_split(stream, len, &cfg, seed, max_chunk, &split);
    /* The size bounds ("too big ...") fire on what has arrived so far, so a
     * split stream may legitimately stop earlier than the whole one. */
    bool size_bound = memmem(whole.data, buf_len(&whole), "too big", 7) ||
                      memmem(split.data, buf_len(&split), "too big", 7);
    if (!size_bound)
        FUZZ_CHECK(buf_len(&whole) == buf_len(&split) &&
                       memcmp(whole.data, split.data, buf_len(&whole)) == 0,
                   "whole and split parses differ (%zu vs %zu transcript bytes)", buf_len(&whole),
                   buf_len(&split));
    buf_free(&whole);
    buf_free(&split);
    return 0;
}
