/*
 * reply.h — the reply sink: how every command answers.
 *
 * Command handlers describe a reply as typed values (an integer, a bulk
 * string, an array of n elements, a map, a double, a nil) and never format
 * protocol bytes themselves. The sink encodes for the connection's protocol:
 * RESP2, RESP3 (HELLO 3), and later SBE. Bytes are appended to the
 * connection's output buffer; the connection writes them as soon as the
 * command returns.
 *
 * RESP2 fallbacks are Redis's: maps become flat arrays of 2n, sets and pushes
 * become arrays, doubles become bulk strings ("%.17g", "inf"), booleans
 * become 1/0, nil is $-1 (or *-1 for a nil array).
 *
 * Lengths not known in advance (KEYS, SCAN) use a deferred header:
 * reply_defer() marks the spot, reply_defer_*() fills it when the count is
 * known. Marks stay valid until the command returns.
 */
#ifndef GOBLIN_REPLY_H
#define GOBLIN_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util/buf.h"

enum proto {
    PROTO_RESP2 = 2,
    PROTO_RESP3 = 3,
};

struct reply {
    struct buf *out;
    enum proto proto;
};

/* Counters for INFO stats (total_error_replies). */
extern long long reply_error_count;

void reply_status_len(struct reply *r, const char *s, size_t n);
/* +<status>; inline so a literal's length is known at compile time. */
static inline void reply_status(struct reply *r, const char *status)
{
    reply_status_len(r, status, strlen(status));
}
void reply_ok(struct reply *r);

/* `-<text>`: text starts with the error code ("ERR ...", "WRONGTYPE ...").
 * CR/LF inside text are replaced by spaces so the stream stays framed. */
void reply_error(struct reply *r, const char *text);
void reply_error_fmt(struct reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void reply_int(struct reply *r, long long v);
void reply_bulk(struct reply *r, const void *p, size_t n);
void reply_bulk_cstr(struct reply *r, const char *s);
void reply_bulk_ll(struct reply *r, long long v);
void reply_double(struct reply *r, double d);
/* A bulk string in RESP2 and in RESP3 alike (e.g. INCRBYFLOAT's result). */
void reply_bulk_double_human(struct reply *r, long double v);
void reply_bool(struct reply *r, bool v);
void reply_nil(struct reply *r);       /* $-1 / _ */
void reply_nil_array(struct reply *r); /* *-1 / _ */
void reply_array_len(struct reply *r, long long n);
void reply_map_len(struct reply *r, long long n); /* n key/value pairs */
void reply_set_len(struct reply *r, long long n);
void reply_push_len(struct reply *r, long long n);
/* Text with a format hint: RESP3 verbatim string ("txt"), RESP2 bulk. */
void reply_verbatim(struct reply *r, const char *p, size_t n, const char *format3);

typedef size_t reply_mark;
reply_mark reply_defer(struct reply *r);
void reply_defer_array(struct reply *r, reply_mark m, long long n);
void reply_defer_map(struct reply *r, reply_mark m, long long n);
void reply_defer_set(struct reply *r, reply_mark m, long long n);

/* Common Redis errors, texts exactly as redis-server sends them. */
void reply_error_wrongtype(struct reply *r);
void reply_error_not_integer(struct reply *r);
void reply_error_not_float(struct reply *r);
void reply_error_syntax(struct reply *r);
void reply_error_arity(struct reply *r, const char *command_name);

#endif
