/*
 * reply_resp3.c — the RESP3 encoder table (after HELLO 3).
 *
 * Typed values: maps (%), sets (~), pushes (>), doubles (,), booleans (#),
 * one null (_), verbatim strings (=); pair arrays nest each pair as a
 * 2-element array, as Redis 7.0 does. Contract in reply.h.
 */
#include <math.h>

#include "protocol/resp_encode.h"
#include "util/numparse.h"

static void resp3_floating(struct reply *r, double d)
{
    char tmp[NUM_DOUBLE_STR_SIZE + 3];
    size_t n = 0;
    tmp[n++] = ',';
    /* RESP3 spells non-finite doubles inf, -inf and nan ("%.17g" may say -nan). */
    if (isnan(d)) {
        memcpy(tmp + n, "nan", 3);
        n += 3;
    } else {
        n += num_format_double(tmp + n, NUM_DOUBLE_STR_SIZE, d);
    }
    tmp[n++] = '\r';
    tmp[n++] = '\n';
    buf_append(r->out, tmp, n);
}

static void resp3_null(struct reply *r)
{
    buf_append(r->out, "_\r\n", 3);
}

static void resp3_boolean(struct reply *r, bool v)
{
    buf_append(r->out, v ? "#t\r\n" : "#f\r\n", 4);
}

static void resp3_map_len(struct reply *r, long long n)
{
    resp_header(r, '%', n);
}

static void resp3_set_len(struct reply *r, long long n)
{
    resp_header(r, '~', n);
}

static void resp3_push_len(struct reply *r, long long n)
{
    resp_header(r, '>', n);
}

static void resp3_pair_begin(struct reply *r)
{
    buf_append(r->out, "*2\r\n", 4);
}

static void resp3_verbatim(struct reply *r, const char *p, size_t n, const char *format3)
{
    resp_header(r, '=', (long long)n + 4);
    buf_reserve(r->out, n + 6);
    buf_append(r->out, format3, 3);
    buf_append_char(r->out, ':');
    buf_append(r->out, p, n);
    buf_append(r->out, "\r\n", 2);
}

static void resp3_defer_map(struct reply *r, reply_mark m, long long n)
{
    resp_header_at(r, m, '%', n);
}

static void resp3_defer_set(struct reply *r, reply_mark m, long long n)
{
    resp_header_at(r, m, '~', n);
}

const struct reply_encoder reply_resp3 = {
    .proto = PROTO_RESP3,
    .status = resp_status,
    .error = resp_error,
    .integer = resp_integer,
    .floating = resp3_floating,
    .bulk = resp_bulk,
    .nil = resp3_null,
    .nil_array = resp3_null,
    .boolean = resp3_boolean,
    .array_len = resp_array_len,
    .map_len = resp3_map_len,
    .set_len = resp3_set_len,
    .push_len = resp3_push_len,
    .pair_array_len = resp_array_len,
    .pair_begin = resp3_pair_begin,
    .verbatim = resp3_verbatim,
    .defer = resp_defer,
    .defer_array = resp_defer_array,
    .defer_map = resp3_defer_map,
    .defer_set = resp3_defer_set,
};
