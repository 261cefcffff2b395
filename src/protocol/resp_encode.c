/* resp_encode.c — RESP primitives shared by both RESP tables; see resp_encode.h. */
#include "protocol/resp_encode.h"

#include "util/numparse.h"

void resp_header(struct reply *r, char prefix, long long n)
{
    struct buf *out = r->out;
    buf_reserve(out, NUM_LL_STR_SIZE + 3);
    char *p = buf_tail(out);
    *p++ = prefix;
    p += num_format_ll(p, n);
    *p++ = '\r';
    *p++ = '\n';
    out->end = (size_t)(p - out->data);
}

void resp_header_at(struct reply *r, reply_mark m, char prefix, long long n)
{
    char tmp[NUM_LL_STR_SIZE + 3];
    size_t len = 0;
    tmp[len++] = prefix;
    len += num_format_ll(tmp + len, n);
    tmp[len++] = '\r';
    tmp[len++] = '\n';
    buf_insert(r->out, r->out->start + m, tmp, len);
}

void resp_status(struct reply *r, const char *s, size_t n)
{
    struct buf *out = r->out;
    buf_reserve(out, n + 3);
    char *p = buf_tail(out);
    *p++ = '+';
    memcpy(p, s, n);
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    out->end = (size_t)(p - out->data);
}

void resp_error(struct reply *r, const char *text, size_t n)
{
    struct buf *out = r->out;
    buf_reserve(out, n + 3);
    char *p = buf_tail(out);
    *p++ = '-';
    for (size_t i = 0; i < n; i++) p[i] = (text[i] == '\r' || text[i] == '\n') ? ' ' : text[i];
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    out->end = (size_t)(p - out->data);
}

void resp_integer(struct reply *r, long long v)
{
    resp_header(r, ':', v);
}

void resp_bulk(struct reply *r, const void *data, size_t n)
{
    struct buf *out = r->out;
    buf_reserve(out, n + NUM_LL_STR_SIZE + 5);
    char *p = buf_tail(out);
    *p++ = '$';
    p += num_format_ll(p, (long long)n);
    *p++ = '\r';
    *p++ = '\n';
    memcpy(p, data, n);
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    out->end = (size_t)(p - out->data);
}

void resp_array_len(struct reply *r, long long n)
{
    resp_header(r, '*', n);
}

reply_mark resp_defer(struct reply *r)
{
    return buf_len(r->out);
}

void resp_defer_array(struct reply *r, reply_mark m, long long n)
{
    resp_header_at(r, m, '*', n);
}
