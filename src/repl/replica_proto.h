/*
 * replica_proto.h — what a replica reads from its master before the
 * command stream: reply lines of the handshake, the PSYNC answer, the
 * bulk preamble of the RDB ($<length> or $EOF:<mark>) and the end mark of a
 * diskless transfer. Pure functions over bytes (no I/O, no state), so the
 * fuzzer (tests/fuzz/fuzz_repl_stream.c) reaches every path; the command
 * stream after them is RESP, read by the ordinary request parser.
 *
 * Bounds: a line longer than REPL_LINE_MAX is an error (a master's replies
 * are short); a bulk length must be a decimal number of at most 18 digits
 * (no allocation ever follows from it: the payload goes to a file as it
 * arrives, and a transfer that stops short fails).
 */
#ifndef GOBLIN_REPLICA_PROTO_H
#define GOBLIN_REPLICA_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#define REPL_LINE_MAX 1024
#define REPL_ID_LEN 40
#define REPL_EOF_MARK_LEN 40

enum repl_line_status { REPL_LINE_INCOMPLETE, REPL_LINE_OK, REPL_LINE_TOO_LONG };

/* A reply line at the start of p[0..n): its text (without CR LF) is
 * p[0..*len), and *consumed bytes make it up with its end. */
enum repl_line_status repl_proto_line(const char *p, size_t n, size_t *len, size_t *consumed);

enum psync_reply {
    PSYNC_FULLRESYNC,    /* +FULLRESYNC <id> <offset> */
    PSYNC_CONTINUE,      /* +CONTINUE [<id>] (id empty: the same history) */
    PSYNC_TRY_LATER,     /* -NOMASTERLINK, -LOADING: the master cannot now */
    PSYNC_NOT_SUPPORTED, /* another error: a master without PSYNC */
    PSYNC_INVALID,       /* anything else */
};

/* The answer to PSYNC; id gets REPL_ID_LEN characters and a NUL (empty for
 * +CONTINUE without one), *offset the +FULLRESYNC offset. */
enum psync_reply repl_proto_psync_reply(const char *line, size_t len, char id[REPL_ID_LEN + 1],
                                        long long *offset);

enum bulk_preamble {
    BULK_LENGTH,    /* $<length>: *size bytes follow */
    BULK_EOF_MARK,  /* $EOF:<mark>: bytes follow until the mark */
    BULK_KEEPALIVE, /* an empty line: the master is still preparing */
    BULK_ERROR,     /* -...: the master aborted */
    BULK_INVALID,
};

enum bulk_preamble repl_proto_bulk_preamble(const char *line, size_t len, long long *size,
                                            char mark[REPL_EOF_MARK_LEN + 1]);

/* Whether the last REPL_EOF_MARK_LEN bytes of a diskless transfer (tail)
 * are its mark. */
bool repl_proto_is_mark(const char *tail, const char *mark);

#endif
