/*
 * reply.c — the sink's front end: choosing a wire's table, statistics, and
 * the composite calls built from table rows. Contract in reply.h; the
 * encodings are in reply_resp2.c and reply_resp3.c.
 */
#include "protocol/reply.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/numparse.h"

long long reply_error_count;

void reply_init(struct reply *r, struct buf *out, enum proto p)
{
    r->out = out;
    r->enc = NULL;
    r->frame_at = SIZE_MAX;
    r->correlation = 0;
    reply_set_protocol(r, p);
}

void reply_set_protocol(struct reply *r, enum proto p)
{
    if (p == PROTO_SBE) {
        r->enc = &reply_sbe;
        r->frame_at = SIZE_MAX;
        return;
    }
    if (r->enc == &reply_sbe) return;
    r->enc = p == PROTO_RESP3 ? &reply_resp3 : &reply_resp2;
}

void reply_error(struct reply *r, const char *text)
{
    r->enc->error(r, text, strlen(text));
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

void reply_bulk_double_human(struct reply *r, long double v)
{
    char tmp[NUM_DOUBLE_STR_SIZE];
    size_t n = num_format_long_double_human(tmp, sizeof tmp, v);
    reply_bulk(r, tmp, n);
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
