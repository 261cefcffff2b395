/* listpack.c — Redis's listpack, encoder and validating iterator; see listpack.h. */
#include "store/listpack.h"

#include <string.h>

#include "util/numparse.h"

#define LP_HEADER 6
#define LP_EOF 0xFF
#define LP_COUNT_UNKNOWN 65535

size_t lp_begin(struct buf *b)
{
    size_t start = buf_len(b);
    unsigned char hdr[LP_HEADER] = {0};
    buf_append(b, hdr, LP_HEADER);
    return start;
}

/* lpEncodeBacklen: the entry's length, 7 bits per byte, read from its end. */
static void append_backlen(struct buf *b, size_t l)
{
    unsigned char x[5];
    size_t n;
    if (l <= 127) {
        x[0] = (unsigned char)l;
        n = 1;
    } else if (l < 16383) {
        x[0] = (unsigned char)(l >> 7);
        x[1] = (unsigned char)((l & 127) | 128);
        n = 2;
    } else if (l < 2097151) {
        x[0] = (unsigned char)(l >> 14);
        x[1] = (unsigned char)(((l >> 7) & 127) | 128);
        x[2] = (unsigned char)((l & 127) | 128);
        n = 3;
    } else if (l < 268435455) {
        x[0] = (unsigned char)(l >> 21);
        x[1] = (unsigned char)(((l >> 14) & 127) | 128);
        x[2] = (unsigned char)(((l >> 7) & 127) | 128);
        x[3] = (unsigned char)((l & 127) | 128);
        n = 4;
    } else {
        x[0] = (unsigned char)(l >> 28);
        x[1] = (unsigned char)(((l >> 21) & 127) | 128);
        x[2] = (unsigned char)(((l >> 14) & 127) | 128);
        x[3] = (unsigned char)(((l >> 7) & 127) | 128);
        x[4] = (unsigned char)((l & 127) | 128);
        n = 5;
    }
    buf_append(b, x, n);
}

static size_t backlen_size(size_t l)
{
    return l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
}

static size_t int_encoding_size(long long v)
{
    if (v >= 0 && v <= 127) return 1;
    if (v >= -4096 && v <= 4095) return 2;
    if (v >= -32768 && v <= 32767) return 3;
    if (v >= -8388608 && v <= 8388607) return 4;
    if (v >= INT32_MIN && v <= INT32_MAX) return 5;
    return 9;
}

size_t lp_int_size(long long v)
{
    return int_encoding_size(v) + 1;
}

static size_t string_header_size(size_t n)
{
    return n < 64 ? 1 : n < 4096 ? 2 : 5;
}

size_t lp_string_size(const char *p, size_t n)
{
    long long v;
    if (n > 0 && n <= 20 && num_parse_ll(p, n, &v)) return lp_int_size(v);
    size_t e = string_header_size(n) + n;
    return e + backlen_size(e);
}

void lp_append_int(struct buf *b, long long v)
{
    unsigned char x[9];
    size_t n;
    uint64_t u = (uint64_t)v;
    if (v >= 0 && v <= 127) {
        x[0] = (unsigned char)v;
        n = 1;
    } else if (v >= -4096 && v <= 4095) {
        if (v < 0) u = ((uint64_t)1 << 13) + (uint64_t)v;
        x[0] = (unsigned char)((u >> 8) | 0xC0);
        x[1] = (unsigned char)(u & 0xff);
        n = 2;
    } else if (v >= -32768 && v <= 32767) {
        x[0] = 0xF1;
        n = 3;
    } else if (v >= -8388608 && v <= 8388607) {
        x[0] = 0xF2;
        n = 4;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        x[0] = 0xF3;
        n = 5;
    } else {
        x[0] = 0xF4;
        n = 9;
    }
    for (size_t i = 1; n > 2 && i < n; i++) x[i] = (unsigned char)(u >> (8 * (i - 1)));
    buf_append(b, x, n);
    append_backlen(b, n);
}

void lp_append(struct buf *b, const char *p, size_t n)
{
    long long v;
    if (n > 0 && n <= 20 && num_parse_ll(p, n, &v)) {
        lp_append_int(b, v);
        return;
    }
    unsigned char x[5];
    size_t h;
    if (n < 64) {
        x[0] = (unsigned char)(0x80 | n);
        h = 1;
    } else if (n < 4096) {
        x[0] = (unsigned char)(0xE0 | (n >> 8));
        x[1] = (unsigned char)(n & 0xff);
        h = 2;
    } else {
        x[0] = 0xF0;
        for (int i = 0; i < 4; i++) x[1 + i] = (unsigned char)(n >> (8 * i));
        h = 5;
    }
    buf_append(b, x, h);
    buf_append(b, p, n);
    append_backlen(b, h + n);
}

void lp_end(struct buf *b, size_t start, size_t count)
{
    buf_append_char(b, (char)LP_EOF);
    size_t total = buf_len(b) - start;
    unsigned char *h = (unsigned char *)buf_head(b) + start;
    for (int i = 0; i < 4; i++) h[i] = (unsigned char)(total >> (8 * i));
    unsigned c = count < LP_COUNT_UNKNOWN ? (unsigned)count : LP_COUNT_UNKNOWN;
    h[4] = (unsigned char)c;
    h[5] = (unsigned char)(c >> 8);
}

bool lp_iter_init(struct lp_iter *it, const void *blob, size_t len)
{
    const unsigned char *p = blob;
    memset(it, 0, sizeof *it);
    it->p = p;
    it->len = len;
    it->pos = LP_HEADER;
    if (len < LP_HEADER + 1) {
        it->err = "listpack shorter than its header";
        return false;
    }
    uint32_t total =
        (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    if (total != len) {
        it->err = "listpack size in header differs from its length";
        return false;
    }
    if (p[len - 1] != LP_EOF) {
        it->err = "listpack without its end marker";
        return false;
    }
    it->declared = (unsigned)p[4] | (unsigned)p[5] << 8;
    return true;
}

static int lp_bad(struct lp_iter *it, const char *why)
{
    it->err = why;
    return -1;
}

/* Reads the backlen after an entry of `entry_len` bytes and checks it. */
static bool check_backlen(struct lp_iter *it, size_t entry_len)
{
    size_t expect = entry_len <= 127        ? 1
                    : entry_len < 16383     ? 2
                    : entry_len < 2097151   ? 3
                    : entry_len < 268435455 ? 4
                                            : 5;
    if (it->len - 1 - it->pos < expect) return false;
    const unsigned char *b = it->p + it->pos;
    /* Decoded from the last byte backwards, as lpDecodeBacklen does. */
    uint64_t v = 0;
    unsigned shift = 0;
    size_t i = expect;
    while (i--) {
        v |= (uint64_t)(b[i] & 127) << shift;
        shift += 7;
        if (i > 0 && !(b[i] & 128)) return false; /* continuation bit missing */
    }
    if (b[0] & 128) return false; /* the first byte ends the backwards read */
    if (v != entry_len) return false;
    it->pos += expect;
    return true;
}

int lp_iter_next(struct lp_iter *it, struct lp_entry *e)
{
    if (it->err) return -1;
    if (it->pos >= it->len) return lp_bad(it, "listpack overrun");
    const unsigned char *p = it->p + it->pos;
    size_t room = it->len - 1 - it->pos; /* bytes before the end marker */
    unsigned c = p[0];
    if (c == LP_EOF) return 0;
    size_t hdr = 1, slen = 0;
    e->is_int = true;
    uint64_t u = 0;
    int bits = 0;
    if ((c & 0x80) == 0) {
        e->value = c & 0x7f;
        hdr = 1;
    } else if ((c & 0xC0) == 0x80) {
        e->is_int = false;
        slen = c & 0x3f;
    } else if ((c & 0xE0) == 0xC0) {
        if (room < 2) return lp_bad(it, "listpack entry overruns");
        u = (uint64_t)(c & 0x1f) << 8 | p[1];
        bits = 13;
        hdr = 2;
    } else if ((c & 0xF0) == 0xE0) {
        if (room < 2) return lp_bad(it, "listpack entry overruns");
        e->is_int = false;
        slen = (size_t)(c & 0x0f) << 8 | p[1];
        hdr = 2;
    } else if (c == 0xF0) {
        if (room < 5) return lp_bad(it, "listpack entry overruns");
        e->is_int = false;
        slen = (size_t)p[1] | (size_t)p[2] << 8 | (size_t)p[3] << 16 | (size_t)p[4] << 24;
        hdr = 5;
    } else if (c >= 0xF1 && c <= 0xF4) {
        static const int widths[] = {16, 24, 32, 64};
        bits = widths[c - 0xF1];
        hdr = 1 + (size_t)bits / 8;
        if (room < hdr) return lp_bad(it, "listpack entry overruns");
        for (size_t i = hdr - 1; i >= 1; i--) u = u << 8 | p[i];
    } else {
        return lp_bad(it, "listpack entry with an unknown encoding");
    }
    if (bits) {
        /* Sign-extend a `bits`-wide two's complement value. */
        if (bits < 64 && (u >> (bits - 1)) & 1) u |= ~(uint64_t)0 << bits;
        e->value = (long long)u;
    }
    if (!e->is_int && slen > room - hdr) return lp_bad(it, "listpack string overruns");
    if (hdr > room) return lp_bad(it, "listpack entry overruns");
    size_t entry_len = hdr + slen;
    it->pos += entry_len;
    if (!check_backlen(it, entry_len)) return lp_bad(it, "listpack entry with a bad back length");
    if (e->is_int) {
        e->len = num_format_ll(e->tmp, e->value);
        e->ptr = e->tmp;
    } else {
        e->ptr = (const char *)p + hdr;
        e->len = slen;
    }
    it->count++;
    return 1;
}

bool lp_iter_end(struct lp_iter *it)
{
    if (it->err) return false;
    if (it->pos != it->len - 1) {
        it->err = "listpack has bytes after its end marker";
        return false;
    }
    if (it->declared != LP_COUNT_UNKNOWN && it->declared != it->count) {
        it->err = "listpack entry count differs from its header";
        return false;
    }
    return true;
}
