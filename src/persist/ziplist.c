/* ziplist.c — reading Redis's ziplist (see ziplist.h). */
#include "persist/ziplist.h"

#include <stdint.h>

#include "util/numparse.h"

#define ZL_HEADER 10 /* zlbytes, zltail, zllen */
#define ZL_END 0xFF
#define ZL_COUNT_UNKNOWN 65535

static uint32_t u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int zl_bad(struct lp_iter *it, const char *why)
{
    it->err = why;
    return -1;
}

bool zl_iter_init(struct lp_iter *it, const void *blob, size_t len)
{
    *it = (struct lp_iter){.p = blob, .len = len, .pos = ZL_HEADER};
    if (len < ZL_HEADER + 1) {
        it->err = "ziplist shorter than its header";
        return false;
    }
    if (u32le(it->p) != len) {
        it->err = "ziplist size differs from its header";
        return false;
    }
    if (it->p[len - 1] != ZL_END) {
        it->err = "ziplist without its end byte";
        return false;
    }
    it->tail = u32le(it->p + 4);
    it->declared = (unsigned)it->p[8] | (unsigned)it->p[9] << 8;
    return true;
}

int zl_iter_next(struct lp_iter *it, struct lp_entry *e)
{
    if (it->err) return -1;
    if (it->pos >= it->len) return zl_bad(it, "ziplist overrun");
    const unsigned char *p = it->p + it->pos;
    size_t room = it->len - 1 - it->pos; /* bytes before the end byte */
    if (p[0] == ZL_END) return 0;
    /* The previous entry's size. */
    size_t hdr, prevlen;
    if (p[0] < 0xFE) {
        prevlen = p[0];
        hdr = 1;
    } else if (p[0] == 0xFE) {
        if (room < 5) return zl_bad(it, "ziplist entry overruns");
        prevlen = u32le(p + 1);
        hdr = 5;
    } else {
        return zl_bad(it, "ziplist entry with a bad previous length");
    }
    if (prevlen != it->prev) return zl_bad(it, "ziplist entry with a bad previous length");
    if (room <= hdr) return zl_bad(it, "ziplist entry overruns");
    unsigned c = p[hdr];
    size_t slen = 0, ilen = 0;
    e->is_int = false;
    switch (c >> 6) {
    case 0:
        slen = c & 0x3f;
        hdr += 1;
        break;
    case 1:
        if (room < hdr + 2) return zl_bad(it, "ziplist entry overruns");
        slen = (size_t)(c & 0x3f) << 8 | p[hdr + 1];
        hdr += 2;
        break;
    case 2:
        if (c != 0x80) return zl_bad(it, "ziplist entry with an unknown encoding");
        if (room < hdr + 5) return zl_bad(it, "ziplist entry overruns");
        slen = (size_t)p[hdr + 1] << 24 | (size_t)p[hdr + 2] << 16 | (size_t)p[hdr + 3] << 8 |
               p[hdr + 4];
        hdr += 5;
        break;
    default:
        e->is_int = true;
        if (c == 0xC0)
            ilen = 2;
        else if (c == 0xD0)
            ilen = 4;
        else if (c == 0xE0)
            ilen = 8;
        else if (c == 0xF0)
            ilen = 3;
        else if (c == 0xFE)
            ilen = 1;
        else if (c >= 0xF1 && c <= 0xFD)
            ilen = 0;
        else
            return zl_bad(it, "ziplist entry with an unknown encoding");
        hdr += 1;
        break;
    }
    size_t data = e->is_int ? ilen : slen;
    if (data > room - hdr) return zl_bad(it, "ziplist entry overruns");
    const unsigned char *d = p + hdr;
    if (e->is_int) {
        if (ilen == 0) {
            e->value = (long long)(c & 0x0F) - 1;
        } else {
            uint64_t u = 0;
            for (size_t i = ilen; i-- > 0;) u = u << 8 | d[i];
            unsigned bits = (unsigned)ilen * 8;
            if (bits < 64 && (u >> (bits - 1)) & 1) u |= ~(uint64_t)0 << bits;
            e->value = (long long)u;
        }
        e->len = num_format_ll(e->tmp, e->value);
        e->ptr = e->tmp;
    } else {
        e->ptr = (const char *)d;
        e->len = slen;
    }
    it->prev = hdr + data;
    it->pos += hdr + data;
    it->count++;
    return 1;
}

/* After the end byte: nothing follows it, and the header's count (when it
 * keeps one) is the entries read. */
static bool ended_as_declared(struct lp_iter *it, const char *trailing, const char *miscounted)
{
    if (it->err) return false;
    if (it->pos != it->len - 1) {
        it->err = trailing;
        return false;
    }
    if (it->declared != ZL_COUNT_UNKNOWN && it->declared != it->count) {
        it->err = miscounted;
        return false;
    }
    return true;
}

bool zl_iter_end(struct lp_iter *it)
{
    if (!ended_as_declared(it, "ziplist has bytes after its end byte",
                           "ziplist entry count differs from its header"))
        return false;
    size_t last = it->count ? it->pos - it->prev : ZL_HEADER;
    if (it->tail != last) {
        it->err = "ziplist tail offset differs from its last entry";
        return false;
    }
    return true;
}

/* --- zipmap (RDB type 9, Redis < 2.6) ------------------------------------- */

#define ZM_BIGLEN 254
#define ZM_END 0xFF

bool zm_iter_init(struct lp_iter *it, const void *blob, size_t len)
{
    *it = (struct lp_iter){.p = blob, .len = len, .pos = 1};
    if (len < 2 || it->p[len - 1] != ZM_END) {
        it->err = "zipmap without its end byte";
        return false;
    }
    it->declared = it->p[0] < ZM_BIGLEN ? 2u * it->p[0] : ZL_COUNT_UNKNOWN;
    return true;
}

/* A zipmap length: one byte below 254, else 254 and a u32. */
static bool zm_len(struct lp_iter *it, size_t *out)
{
    size_t room = it->len - 1 - it->pos;
    if (room < 1) return false;
    unsigned c = it->p[it->pos];
    if (c < ZM_BIGLEN) {
        *out = c;
        it->pos += 1;
        return true;
    }
    if (c != ZM_BIGLEN || room < 5) return false;
    *out = u32le(it->p + it->pos + 1);
    it->pos += 5;
    return true;
}

int zm_iter_next(struct lp_iter *it, struct lp_entry *e)
{
    if (it->err) return -1;
    if (it->pos >= it->len) return zl_bad(it, "zipmap overrun");
    bool value = it->prev != 0; /* fields and values alternate */
    if (!value && it->p[it->pos] == ZM_END) return 0;
    size_t n, free_bytes = 0;
    if (!zm_len(it, &n)) return zl_bad(it, "zipmap entry overruns");
    if (value) {
        if (it->pos >= it->len - 1) return zl_bad(it, "zipmap entry overruns");
        free_bytes = it->p[it->pos++];
    }
    size_t room = it->len - 1 - it->pos;
    if (n > room || free_bytes > room - n) return zl_bad(it, "zipmap entry overruns");
    e->is_int = false;
    e->ptr = (const char *)it->p + it->pos;
    e->len = n;
    it->pos += n + free_bytes;
    it->prev = !value;
    it->count++;
    return 1;
}

bool zm_iter_end(struct lp_iter *it)
{
    return ended_as_declared(it, "zipmap has bytes after its end byte",
                             "zipmap entry count differs from its header");
}
