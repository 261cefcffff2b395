/* rdb_io.c — RDB lengths, strings, numbers; see rdb_io.h. */
#include "persist/rdb_io.h"

#include <errno.h>
#include <lzf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "persist/crc64.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

/* LZF is tried for strings longer than this (Redis: len > 20). */
#define RDB_LZF_MIN 20
/* Largest expansion LZF allows: a 3-byte back reference copies 264 bytes. */
#define RDB_LZF_MAX_RATIO 88

void rdbw_init(struct rdb_writer *w, int fd, bool compress)
{
    memset(w, 0, sizeof *w);
    w->fd = fd;
    w->compress = compress;
    buf_init(&w->buf, fd >= 0 ? RDB_WRITER_CHUNK + 1024 : 256);
}

void rdbw_free(struct rdb_writer *w)
{
    buf_free(&w->buf);
    xfree(w->lzf_out);
}

bool rdbw_flush(struct rdb_writer *w)
{
    if (w->fd < 0) return true;
    if (w->error) {
        w->buf.start = w->buf.end = 0;
        return false;
    }
    const char *p = buf_head(&w->buf);
    size_t n = buf_len(&w->buf);
    w->crc = crc64(w->crc, p, n);
    while (n) {
        ssize_t k = write(w->fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            w->error = errno;
            break;
        }
        p += k;
        n -= (size_t)k;
        w->written += (unsigned long long)k;
    }
    w->buf.start = w->buf.end = 0;
    return w->error == 0;
}

void rdbw_raw(struct rdb_writer *w, const void *p, size_t n)
{
    if (w->fd >= 0 && buf_len(&w->buf) + n > RDB_WRITER_CHUNK) {
        rdbw_flush(w);
        if (n > RDB_WRITER_CHUNK) { /* big value: straight through, no copy */
            struct buf saved = w->buf;
            w->buf = (struct buf){.data = (char *)p, .start = 0, .end = n, .cap = n};
            rdbw_flush(w);
            w->buf = saved;
            return;
        }
    }
    buf_append(&w->buf, p, n);
}

void rdbw_u8(struct rdb_writer *w, unsigned v)
{
    unsigned char b = (unsigned char)v;
    rdbw_raw(w, &b, 1);
}

void rdbw_u32le(struct rdb_writer *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    rdbw_raw(w, b, 4);
}

void rdbw_u64le(struct rdb_writer *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    rdbw_raw(w, b, 8);
}

void rdbw_len(struct rdb_writer *w, uint64_t len)
{
    unsigned char b[9];
    size_t n;
    if (len < (1 << 6)) {
        b[0] = (unsigned char)((RDB_6BITLEN << 6) | len);
        n = 1;
    } else if (len < (1 << 14)) {
        b[0] = (unsigned char)((RDB_14BITLEN << 6) | (len >> 8));
        b[1] = (unsigned char)len;
        n = 2;
    } else if (len <= UINT32_MAX) {
        b[0] = RDB_32BITLEN;
        for (int i = 0; i < 4; i++) b[1 + i] = (unsigned char)(len >> (24 - 8 * i)); /* BE */
        n = 5;
    } else {
        b[0] = RDB_64BITLEN;
        for (int i = 0; i < 8; i++) b[1 + i] = (unsigned char)(len >> (56 - 8 * i)); /* BE */
        n = 9;
    }
    rdbw_raw(w, b, n);
}

/* Redis's rdbEncodeInteger: 0 when v needs more than 32 bits. */
static size_t encode_int(long long v, unsigned char *b)
{
    if (v >= INT8_MIN && v <= INT8_MAX) {
        b[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT8;
        b[1] = (unsigned char)(v & 0xff);
        return 2;
    }
    if (v >= INT16_MIN && v <= INT16_MAX) {
        b[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT16;
        b[1] = (unsigned char)(v & 0xff);
        b[2] = (unsigned char)((v >> 8) & 0xff);
        return 3;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
        b[0] = (RDB_ENCVAL << 6) | RDB_ENC_INT32;
        for (int i = 0; i < 4; i++) b[1 + i] = (unsigned char)((v >> (8 * i)) & 0xff);
        return 5;
    }
    return 0;
}

void rdbw_string_ll(struct rdb_writer *w, long long v)
{
    unsigned char b[5];
    size_t n = encode_int(v, b);
    if (n) {
        rdbw_raw(w, b, n);
        return;
    }
    char text[NUM_LL_STR_SIZE];
    size_t len = num_format_ll(text, v);
    rdbw_len(w, len);
    rdbw_raw(w, text, len);
}

/* Redis's rdbSaveLzfStringObject: only when the result is at least 4
 * bytes smaller than the input. */
static bool write_lzf(struct rdb_writer *w, const void *p, size_t n)
{
    if (n <= 4 || n > UINT32_MAX) return false;
    size_t room = n - 4;
    if (w->lzf_cap < room) {
        xfree(w->lzf_out);
        w->lzf_cap = room < 4096 ? 4096 : room;
        w->lzf_out = xmalloc(w->lzf_cap);
    }
    unsigned clen = lzf_compress(p, (unsigned)n, w->lzf_out, (unsigned)room);
    if (clen == 0) return false;
    rdbw_u8(w, (RDB_ENCVAL << 6) | RDB_ENC_LZF);
    rdbw_len(w, clen);
    rdbw_len(w, n);
    rdbw_raw(w, w->lzf_out, clen);
    return true;
}

void rdbw_string(struct rdb_writer *w, const void *p, size_t n)
{
    long long v;
    if (n <= 11 && n > 0 && num_parse_ll(p, n, &v)) {
        unsigned char b[5];
        size_t k = encode_int(v, b);
        if (k) {
            rdbw_raw(w, b, k);
            return;
        }
    }
    if (w->compress && n > RDB_LZF_MIN && write_lzf(w, p, n)) return;
    rdbw_len(w, n);
    rdbw_raw(w, p, n);
}

void rdbw_binary_double(struct rdb_writer *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    rdbw_u64le(w, bits);
}

/* --- reader ---------------------------------------------------------- */

void rdbr_init(struct rdb_reader *r, const void *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->pos = 0;
    r->err[0] = '\0';
    r->short_input = false;
}

bool rdbr_fail(struct rdb_reader *r, const char *fmt, ...)
{
    if (r->err[0]) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    r->pos = r->len; /* nothing more is read */
    return false;
}

bool rdbr_bytes(struct rdb_reader *r, size_t n, const unsigned char **out)
{
    *out = r->p + r->pos; /* defined even on failure (callers never read it then) */
    if (r->err[0]) return false;
    if (n > rdbr_left(r)) {
        r->short_input = true;
        return rdbr_fail(r, "unexpected end of data at offset %zu (%zu more bytes expected)",
                         r->pos, n);
    }
    *out = r->p + r->pos;
    r->pos += n;
    return true;
}

bool rdbr_u8(struct rdb_reader *r, unsigned *out)
{
    const unsigned char *b;
    if (!rdbr_bytes(r, 1, &b)) return false;
    *out = b[0];
    return true;
}

bool rdbr_u32le(struct rdb_reader *r, uint32_t *out)
{
    const unsigned char *b;
    if (!rdbr_bytes(r, 4, &b)) return false;
    *out = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return true;
}

bool rdbr_u64le(struct rdb_reader *r, uint64_t *out)
{
    const unsigned char *b;
    if (!rdbr_bytes(r, 8, &b)) return false;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    *out = v;
    return true;
}

bool rdbr_len(struct rdb_reader *r, uint64_t *len, bool *encoded)
{
    unsigned first;
    const unsigned char *b;
    if (encoded) *encoded = false;
    if (!rdbr_u8(r, &first)) return false;
    switch (first >> 6) {
    case RDB_ENCVAL:
        if (!encoded) return rdbr_fail(r, "string encoding where a length was expected");
        *encoded = true;
        *len = first & 0x3f;
        return true;
    case RDB_6BITLEN:
        *len = first & 0x3f;
        return true;
    case RDB_14BITLEN:
        if (!rdbr_bytes(r, 1, &b)) return false;
        *len = (uint64_t)(first & 0x3f) << 8 | b[0];
        return true;
    default:
        if (first == RDB_32BITLEN) {
            if (!rdbr_bytes(r, 4, &b)) return false;
            *len = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
            return true;
        }
        if (first == RDB_64BITLEN) {
            if (!rdbr_bytes(r, 8, &b)) return false;
            uint64_t v = 0;
            for (int i = 0; i < 8; i++) v = v << 8 | b[i];
            *len = v;
            return true;
        }
        return rdbr_fail(r, "unknown length encoding 0x%02x at offset %zu", first, r->pos - 1);
    }
}

bool rdbr_count(struct rdb_reader *r, uint64_t *count)
{
    if (!rdbr_len(r, count, NULL)) return false;
    if (*count > rdbr_left(r)) {
        r->short_input = true;
        return rdbr_fail(r, "element count %llu exceeds the %zu bytes left",
                         (unsigned long long)*count, rdbr_left(r));
    }
    return true;
}

bool rdbr_string(struct rdb_reader *r, struct rdb_str *out)
{
    uint64_t len;
    bool encoded;
    const unsigned char *b;
    out->owned = NULL;
    if (!rdbr_len(r, &len, &encoded)) return false;
    if (!encoded) {
        if (!rdbr_bytes(r, len, &b)) return false;
        out->ptr = (const char *)b;
        out->len = len;
        return true;
    }
    long long v;
    switch (len) {
    case RDB_ENC_INT8:
        if (!rdbr_bytes(r, 1, &b)) return false;
        v = (int8_t)b[0];
        break;
    case RDB_ENC_INT16:
        if (!rdbr_bytes(r, 2, &b)) return false;
        v = (int16_t)(b[0] | b[1] << 8);
        break;
    case RDB_ENC_INT32:
        if (!rdbr_bytes(r, 4, &b)) return false;
        v = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                      (uint32_t)b[3] << 24);
        break;
    case RDB_ENC_LZF: {
        uint64_t clen, ulen;
        if (!rdbr_len(r, &clen, NULL) || !rdbr_len(r, &ulen, NULL)) return false;
        if (!rdbr_bytes(r, clen, &b)) return false;
        if (clen == 0 || ulen == 0 || ulen > UINT32_MAX || ulen / RDB_LZF_MAX_RATIO > clen)
            return rdbr_fail(r, "invalid LZF lengths (compressed %llu, original %llu)",
                             (unsigned long long)clen, (unsigned long long)ulen);
        out->owned = xmalloc(ulen);
        if (lzf_decompress(b, (unsigned)clen, out->owned, (unsigned)ulen) != ulen) {
            rdb_str_free(out);
            return rdbr_fail(r, "invalid LZF compressed string");
        }
        out->ptr = out->owned;
        out->len = ulen;
        return true;
    }
    default:
        return rdbr_fail(r, "unknown string encoding %llu", (unsigned long long)len);
    }
    out->len = num_format_ll(out->tmp, v);
    out->ptr = out->tmp;
    return true;
}

void rdb_str_free(struct rdb_str *s)
{
    xfree(s->owned);
    s->owned = NULL;
}

bool rdbr_binary_double(struct rdb_reader *r, double *out)
{
    uint64_t bits;
    if (!rdbr_u64le(r, &bits)) return false;
    memcpy(out, &bits, 8);
    return true;
}

bool rdbr_ascii_double(struct rdb_reader *r, double *out)
{
    unsigned n;
    const unsigned char *b;
    if (!rdbr_u8(r, &n)) return false;
    if (n == 253)
        *out = NAN;
    else if (n == 254)
        *out = INFINITY;
    else if (n == 255)
        *out = -INFINITY;
    else {
        char text[256];
        if (!rdbr_bytes(r, n, &b)) return false;
        memcpy(text, b, n);
        text[n] = '\0';
        char *end;
        *out = strtod(text, &end);
        if (n == 0 || *end) return rdbr_fail(r, "invalid double value '%s'", text);
    }
    return true;
}
