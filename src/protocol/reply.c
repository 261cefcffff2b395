/*
 * reply.c — the sink's front end: choosing a wire's table, statistics, and
 * the composite calls built from table rows. Contract in reply.h; the
 * encodings are in reply_resp2.c and reply_resp3.c.
 */
#include "protocol/reply.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/numparse.h"

long long reply_error_count;
long long reply_uncounted_errors;

/* Every encoding, one row each, by its enum proto value. */
static const struct reply_encoder *const reply_encoders[] = {
    [PROTO_RESP2] = &reply_resp2,
    [PROTO_RESP3] = &reply_resp3,
    [PROTO_SBE] = &reply_sbe,
};

const struct reply_encoder *reply_encoder_for(enum proto p)
{
    return (size_t)p < sizeof reply_encoders / sizeof reply_encoders[0] ? reply_encoders[p] : NULL;
}

void reply_init(struct reply *r, struct buf *out, enum proto p)
{
    r->out = out;
    r->enc = reply_encoder_for(p);
    r->frame_at = SIZE_MAX;
    r->correlation = 0;
}

void reply_set_encoder(struct reply *r, const struct reply_encoder *enc)
{
    if (enc == r->enc) return;
    r->enc = enc;
    r->frame_at = SIZE_MAX; /* no frame is open across a switch */
}

struct error_code_stat {
    char code[32];
    long long count;
};

static struct error_code_stat error_codes[REPLY_ERROR_CODES_MAX];
static int error_code_count;

/* The error path only: a linear scan of a few distinct codes. */
static void count_error_code(const char *text, size_t len)
{
    /* The code ends at the first space the client sees: the encoders turn
     * CR and LF into spaces, so a code never carries them into INFO. */
    size_t n = 0, scan = len < 32 ? len : 32;
    while (n < scan && text[n] != ' ' && text[n] != '\r' && text[n] != '\n') n++;
    bool found = n < scan;
    const char *code = found ? text : "ERR";
    size_t code_len = found ? n : 3;
    for (int i = 0; i < error_code_count; i++) {
        if (strlen(error_codes[i].code) == code_len &&
            memcmp(error_codes[i].code, code, code_len) == 0) {
            error_codes[i].count++;
            return;
        }
    }
    if (error_code_count == REPLY_ERROR_CODES_MAX) return;
    struct error_code_stat *e = &error_codes[error_code_count++];
    memcpy(e->code, code, code_len);
    e->code[code_len] = '\0';
    e->count = 1;
}

static int error_code_order(const void *a, const void *b)
{
    return strcmp(((const struct error_code_stat *)a)->code,
                  ((const struct error_code_stat *)b)->code);
}

void reply_error_stats_foreach(void (*fn)(const char *code, long long count, void *arg), void *arg)
{
    /* Redis lists codes in byte order (a radix tree). */
    qsort(error_codes, (size_t)error_code_count, sizeof error_codes[0], error_code_order);
    for (int i = 0; i < error_code_count; i++) fn(error_codes[i].code, error_codes[i].count, arg);
}

void reply_error_stats_reset(void)
{
    error_code_count = 0;
}

void reply_error(struct reply *r, const char *text)
{
    size_t len = strlen(text);
    r->enc->error(r, text, len);
    reply_count_error(text, len);
}

void reply_error_uncounted(struct reply *r, const char *text)
{
    r->enc->error(r, text, strlen(text));
    reply_uncounted_errors++;
}

void reply_count_error(const char *text, size_t len)
{
    reply_error_count++;
    count_error_code(text, len);
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

void reply_keyed_len(struct reply *r, long long n)
{
    if (reply_protocol(r) == PROTO_RESP2)
        reply_array_len(r, n);
    else
        reply_map_len(r, n);
}

void reply_defer_keyed(struct reply *r, reply_mark m, long long n)
{
    if (reply_protocol(r) == PROTO_RESP2)
        reply_defer_array(r, m, n);
    else
        reply_defer_map(r, m, n);
}

void reply_keyed_begin(struct reply *r)
{
    if (reply_protocol(r) == PROTO_RESP2) reply_array_len(r, 2);
}

void reply_bulk_double_human(struct reply *r, long double v)
{
    char tmp[NUM_DOUBLE_STR_SIZE];
    size_t n = num_format_long_double_human(tmp, sizeof tmp, v);
    reply_bulk(r, tmp, n);
}

void reply_double_human(struct reply *r, long double v)
{
    if (reply_protocol(r) == PROTO_RESP2) {
        reply_bulk_double_human(r, v);
        return;
    }
    if (reply_protocol(r) != PROTO_RESP3) {
        reply_double(r, (double)v);
        return;
    }
    char tmp[NUM_DOUBLE_STR_SIZE + 3];
    size_t n = 0;
    tmp[n++] = ',';
    n += num_format_long_double_human(tmp + n, NUM_DOUBLE_STR_SIZE, v);
    tmp[n++] = '\r';
    tmp[n++] = '\n';
    buf_append(r->out, tmp, n);
}

void reply_big_number(struct reply *r, const char *digits, size_t n)
{
    if (reply_protocol(r) != PROTO_RESP3) {
        reply_bulk(r, digits, n);
        return;
    }
    buf_reserve(r->out, n + 3);
    buf_append_char(r->out, '(');
    buf_append(r->out, digits, n);
    buf_append(r->out, "\r\n", 2);
}

bool reply_attribute_len(struct reply *r, long long n)
{
    if (reply_protocol(r) != PROTO_RESP3) return false;
    char head[32];
    int len = snprintf(head, sizeof head, "|%lld\r\n", n);
    buf_append(r->out, head, (size_t)len);
    return true;
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
