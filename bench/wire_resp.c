/*
 * wire_resp.c — the RESP2 wire: requests as multibulk arrays, replies as
 * RESP2 types. goblin-bench never sends HELLO, so every RESP server answers
 * in RESP2; ZSCORE's score is therefore a bulk string formatted as Redis 7.0
 * formats doubles ("%.17g": scores 1 and 2 are "1" and "2").
 *
 * Reply framing and rendering come from the client library
 * (goblin/resp_reader.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <goblin/resp_reader.h>
#include "wire.h"

/* snprintf into out, -1 when it does not fit. */
static int put(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

/* Appends a bulk string "$<len>\r\n<data>\r\n" at out+off; new offset or -1. */
static int put_bulk(char *out, size_t cap, int off, const char *data, size_t len)
{
    if (off < 0) return -1;
    int n = put(out + off, cap - (size_t)off, "$%zu\r\n", len);
    if (n < 0 || (size_t)off + (size_t)n + len + 2 > cap) return -1;
    off += n;
    memcpy(out + off, data, len);
    memcpy(out + off + len, "\r\n", 2);
    return off + (int)len + 2;
}

static int resp_encode_command(char *out, size_t cap, int argc, const char *const *argv,
                               const size_t *lens)
{
    int off = put(out, cap, "*%d\r\n", argc);
    for (int i = 0; i < argc && off >= 0; i++) off = put_bulk(out, cap, off, argv[i], lens[i]);
    return off;
}

static int resp_encode_status(char *out, size_t cap, const char *status)
{
    return put(out, cap, "+%s\r\n", status);
}

static int resp_encode_integer(char *out, size_t cap, long long value)
{
    return put(out, cap, ":%lld\r\n", value);
}

static int resp_encode_bulk(char *out, size_t cap, const char *data, size_t len)
{
    return put_bulk(out, cap, 0, data, len);
}

static int resp_encode_score(char *out, size_t cap, double score)
{
    char text[32];
    int n = put(text, sizeof text, "%.17g", score);
    return n < 0 ? -1 : put_bulk(out, cap, 0, text, (size_t)n);
}

static int resp_encode_subscribed(char *out, size_t cap, const char *channel, long long count)
{
    int off = put(out, cap, "*3\r\n");
    off = put_bulk(out, cap, off, "subscribe", 9);
    off = put_bulk(out, cap, off, channel, strlen(channel));
    if (off < 0) return -1;
    int n = put(out + off, cap - (size_t)off, ":%lld\r\n", count);
    return n < 0 ? -1 : off + n;
}

static int resp_encode_message(char *out, size_t cap, const char *channel, const char *payload,
                               size_t payload_len)
{
    int off = put(out, cap, "*3\r\n");
    off = put_bulk(out, cap, off, "message", 7);
    off = put_bulk(out, cap, off, channel, strlen(channel));
    return put_bulk(out, cap, off, payload, payload_len);
}

static bool resp_is_error(const char *reply, size_t len)
{
    return len > 0 && reply[0] == '-';
}

const struct bench_wire bench_wire_resp = {
    .name = "resp",
    .encode_command = resp_encode_command,
    .encode_status = resp_encode_status,
    .encode_integer = resp_encode_integer,
    .encode_bulk = resp_encode_bulk,
    .encode_score = resp_encode_score,
    .encode_subscribed = resp_encode_subscribed,
    .encode_message = resp_encode_message,
    .frame = resp_reply_length,
    .is_error = resp_is_error,
    .render = resp_render,
};
