/* reply.c — RESP2/RESP3 encoders behind the reply sink; contract in reply.h. */
#include "protocol/reply.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/numparse.h"

long long reply_error_count;

/* Appends "<prefix><n>\r\n" with n in decimal. */
static void put_header(struct buf *out, char prefix, long long n)
{
    buf_reserve(out, NUM_LL_STR_SIZE + 3);
    char *p = buf_tail(out);
    *p++ = prefix;
    p += num_format_ll(p, n);
    *p++ = '\r';
    *p++ = '\n';
    out->end = (size_t)(p - out->data);
}

void reply_status_len(struct reply *r, const char *s, size_t n)
{
    buf_reserve(r->out, n + 3);
    char *p = buf_tail(r->out);
    *p++ = '+';
    memcpy(p, s, n);
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    r->out->end = (size_t)(p - r->out->data);
}

void reply_ok(struct reply *r)
{
    buf_append(r->out, "+OK\r\n", 5);
}

void reply_error(struct reply *r, const char *text)
{
    size_t n = strlen(text);
    buf_reserve(r->out, n + 3);
    char *p = buf_tail(r->out);
    *p++ = '-';
    for (size_t i = 0; i < n; i++) p[i] = (text[i] == '\r' || text[i] == '\n') ? ' ' : text[i];
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    r->out->end = (size_t)(p - r->out->data);
    reply_error_count++;
}

void reply_error_fmt(struct reply *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    reply_error(r, text);
}

void reply_int(struct reply *r, long long v)
{
    put_header(r->out, ':', v);
}

void reply_bulk(struct reply *r, const void *data, size_t n)
{
    buf_reserve(r->out, n + NUM_LL_STR_SIZE + 5);
    char *p = buf_tail(r->out);
    *p++ = '$';
    p += num_format_ll(p, (long long)n);
    *p++ = '\r';
    *p++ = '\n';
    memcpy(p, data, n);
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    r->out->end = (size_t)(p - r->out->data);
}

void reply_bulk_cstr(struct reply *r, const char *s)
{
    if (!s) {
        reply_nil(r);
        return;
    }
    reply_bulk(r, s, strlen(s));
}

void reply_bulk_ll(struct reply *r, long long v)
{
    char tmp[NUM_LL_STR_SIZE];
    size_t n = num_format_ll(tmp, v);
    reply_bulk(r, tmp, n);
}

void reply_double(struct reply *r, double d)
{
    char tmp[NUM_DOUBLE_STR_SIZE];
    size_t n;
    if (r->proto == PROTO_RESP3) {
        /* RESP3 spells non-finite doubles inf, -inf and nan. */
        if (isnan(d)) n = (size_t)snprintf(tmp, sizeof tmp, "nan");
        else n = num_format_double(tmp, sizeof tmp, d);
        buf_append_char(r->out, ',');
        buf_append(r->out, tmp, n);
        buf_append(r->out, "\r\n", 2);
        return;
    }
    n = num_format_double(tmp, sizeof tmp, d);
    reply_bulk(r, tmp, n);
}

void reply_bulk_double_human(struct reply *r, long double v)
{
    char tmp[NUM_DOUBLE_STR_SIZE];
    size_t n = num_format_long_double_human(tmp, sizeof tmp, v);
    reply_bulk(r, tmp, n);
}

void reply_bool(struct reply *r, bool v)
{
    if (r->proto == PROTO_RESP3) buf_append(r->out, v ? "#t\r\n" : "#f\r\n", 4);
    else buf_append(r->out, v ? ":1\r\n" : ":0\r\n", 4);
}

void reply_nil(struct reply *r)
{
    if (r->proto == PROTO_RESP3) buf_append(r->out, "_\r\n", 3);
    else buf_append(r->out, "$-1\r\n", 5);
}

void reply_nil_array(struct reply *r)
{
    if (r->proto == PROTO_RESP3) buf_append(r->out, "_\r\n", 3);
    else buf_append(r->out, "*-1\r\n", 5);
}

void reply_array_len(struct reply *r, long long n)
{
    put_header(r->out, '*', n);
}

void reply_map_len(struct reply *r, long long n)
{
    if (r->proto == PROTO_RESP3) put_header(r->out, '%', n);
    else put_header(r->out, '*', n * 2);
}

void reply_set_len(struct reply *r, long long n)
{
    put_header(r->out, r->proto == PROTO_RESP3 ? '~' : '*', n);
}

void reply_push_len(struct reply *r, long long n)
{
    put_header(r->out, r->proto == PROTO_RESP3 ? '>' : '*', n);
}

void reply_verbatim(struct reply *r, const char *p, size_t n, const char *format3)
{
    if (r->proto != PROTO_RESP3) {
        reply_bulk(r, p, n);
        return;
    }
    put_header(r->out, '=', (long long)n + 4);
    buf_append(r->out, format3, 3);
    buf_append_char(r->out, ':');
    buf_append(r->out, p, n);
    buf_append(r->out, "\r\n", 2);
}

reply_mark reply_defer(struct reply *r)
{
    return buf_len(r->out);
}

static void defer_fill(struct reply *r, reply_mark m, char prefix, long long n)
{
    char tmp[NUM_LL_STR_SIZE + 3];
    size_t len = 0;
    tmp[len++] = prefix;
    len += num_format_ll(tmp + len, n);
    tmp[len++] = '\r';
    tmp[len++] = '\n';
    buf_insert(r->out, r->out->start + m, tmp, len);
}

void reply_defer_array(struct reply *r, reply_mark m, long long n)
{
    defer_fill(r, m, '*', n);
}

void reply_defer_map(struct reply *r, reply_mark m, long long n)
{
    if (r->proto == PROTO_RESP3) defer_fill(r, m, '%', n);
    else defer_fill(r, m, '*', n * 2);
}

void reply_defer_set(struct reply *r, reply_mark m, long long n)
{
    defer_fill(r, m, r->proto == PROTO_RESP3 ? '~' : '*', n);
}

void reply_error_wrongtype(struct reply *r)
{
    reply_error(r, "WRONGTYPE Operation against a key holding the wrong kind of value");
}

void reply_error_not_integer(struct reply *r)
{
    reply_error(r, "ERR value is not an integer or out of range");
}

void reply_error_not_float(struct reply *r)
{
    reply_error(r, "ERR value is not a valid float");
}

void reply_error_syntax(struct reply *r)
{
    reply_error(r, "ERR syntax error");
}

void reply_error_arity(struct reply *r, const char *command_name)
{
    reply_error_fmt(r, "ERR wrong number of arguments for '%s' command", command_name);
}
