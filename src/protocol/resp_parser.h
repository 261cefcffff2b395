/*
 * resp_parser.h — incremental RESP request parser (multibulk and inline).
 *
 * The parser reads a connection's input buffer in place: arguments of a
 * multibulk command are slices of that buffer (no copy); inline commands are
 * unquoted into a scratch buffer owned by the parser. A multibulk command
 * that has arrived whole in the common shape is parsed in one pass straight
 * into argv; otherwise parsing resumes where it stopped, so a command split
 * at any byte is scanned at most twice (the first call's whole-command
 * attempt, then once). Positions are kept relative to the start of the
 * current command, so the caller may move (compact, grow) the buffer
 * between calls.
 *
 * Acceptance and error texts follow Redis 7 exactly, including its
 * leniency: the two bytes after a count line or a bulk payload are skipped,
 * not checked. Bounds: a count line longer than 64 KiB, a bulk length over
 * proto_max_bulk_len, or (before authentication) more than 10 arguments or a
 * bulk over 16 KiB are errors; the argument array grows only as arguments
 * actually arrive, so a huge declared count cannot force an allocation.
 *
 * Big arguments (Redis's PROTO_MBULK_BIG_ARG). When the parser waits for
 * the payload of a bulk of at least RESP_BIG_ARG bytes, the caller may move
 * that payload out of its input into a strbuf of its own
 * (resp_parser_big_bulk(), then resp_parser_bulk_external() once the whole
 * payload is there): the argument is then "external", argv points into the
 * strbuf, and the parser owns the strbuf until the caller is done with the
 * command (resp_parser_release_external()). A command may take it (the
 * store adopts it as a value, no copy) through the `external` set.
 */
#ifndef GOBLIN_RESP_PARSER_H
#define GOBLIN_RESP_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/strbuf.h"

/* Redis's PROTO_INLINE_MAX_SIZE: the longest inline request or count line. */
#define RESP_INLINE_MAX 65536
/* Unauthenticated clients may send at most this many arguments / bytes per bulk. */
#define RESP_UNAUTH_MAX_ARGS 10
#define RESP_UNAUTH_MAX_BULK 16384
/* Bulks at least this long may be received into their own buffer (Redis's
 * PROTO_MBULK_BIG_ARG). */
#define RESP_BIG_ARG (32 * 1024)

enum resp_status {
    RESP_INCOMPLETE, /* need more bytes */
    RESP_COMMAND,    /* a command is ready in argc/argv */
    RESP_EMPTY,      /* an empty command was consumed (e.g. "*0", blank line) */
    RESP_ERROR,      /* protocol error: reply `error`, then close */
};

/* What every wire's parser enforces on a request (also used by wire.h). */
struct request_limits {
    long long proto_max_bulk_len;
    bool auth_required; /* applies the unauthenticated bounds */
    bool typed_as_text; /* a binary wire lowers typed calls to text (inside MULTI) */
};

struct resp_parser {
    /* Progress through the current command (relative to its first byte). */
    size_t pos;
    long long multibulk_left; /* arguments still expected; -1 before the count */
    long long bulk_len;       /* payload length of the next argument; -1 before its header */
    bool is_inline;

    /* Arguments parsed so far: offsets relative to the command start and
     * lengths (argv_len doubles as the length array while parsing). */
    int argc;
    int arg_cap;
    size_t *arg_off;
    size_t *argv_len;

    /* Filled by RESP_COMMAND: pointers valid until the caller consumes. */
    const char **argv;
    size_t consumed; /* bytes of the command, valid for RESP_COMMAND/EMPTY */

    /* Arguments of the current command held in their own strbufs, by
     * index (argv[i] points at their data): see "Big arguments" above. */
    struct strbuf_set external;

    struct buf scratch; /* unquoted inline arguments */
    const char *error;  /* valid for RESP_ERROR */
    char error_buf[64];
};

void resp_parser_init(struct resp_parser *p);
void resp_parser_free(struct resp_parser *p);

/* Parses from data[0..len) where data[0] is the first byte of the current
 * command. After RESP_COMMAND or RESP_EMPTY the caller consumes `consumed`
 * bytes; the parser is then ready for the next command. */
enum resp_status resp_parse(struct resp_parser *p, const char *data, size_t len,
                            const struct request_limits *limits);

/* Bytes the current bulk argument still needs beyond len (for buffer sizing); 0 if unknown. */
size_t resp_parser_pending_bulk(const struct resp_parser *p, size_t len);

/* When the parser waits for the payload of a bulk of at least RESP_BIG_ARG
 * bytes that data[0..len) does not hold in full (with its CRLF): returns
 * its declared length and sets *at to the offset where its bytes begin
 * (data[*at..len) is all of it that arrived). Otherwise returns -1. */
long long resp_parser_big_bulk(const struct resp_parser *p, size_t len, size_t *at);

/* Hands over the bulk resp_parser_big_bulk() reported: its payload is now
 * sb->data[0..sb->len) (sb->len is the declared length; the CRLF after it
 * was received and may lie beyond len) and the caller's input ends at the
 * offset *at reported, where the next argument will start. The parser owns
 * sb from now on and continues with the next argument. */
void resp_parser_bulk_external(struct resp_parser *p, struct strbuf *sb);

/* Frees the external arguments the command did not take. The caller calls
 * it after each RESP_COMMAND that has any (external.count > 0). */
static inline void resp_parser_release_external(struct resp_parser *p)
{
    strbuf_set_clear(&p->external);
}

/* True while a command is partially parsed. */
static inline bool resp_parser_mid_command(const struct resp_parser *p)
{
    return p->pos > 0;
}

#endif
