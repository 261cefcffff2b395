/* stream_id.c — stream entry IDs: order, text forms; see stream_id.h. */
#include "store/stream_id.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/numparse.h"

bool stream_id_incr(struct stream_id *id)
{
    if (id->seq != UINT64_MAX) {
        id->seq++;
        return true;
    }
    if (id->ms == UINT64_MAX) {
        id->ms = id->seq = 0;
        return false;
    }
    id->ms++;
    id->seq = 0;
    return true;
}

bool stream_id_decr(struct stream_id *id)
{
    if (id->seq != 0) {
        id->seq--;
        return true;
    }
    if (id->ms == 0) {
        id->ms = id->seq = UINT64_MAX;
        return false;
    }
    id->ms--;
    id->seq = UINT64_MAX;
    return true;
}

static size_t format_u64(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

size_t stream_id_format(char *out, const struct stream_id *id)
{
    size_t n = format_u64(out, id->ms);
    out[n++] = '-';
    return n + format_u64(out + n, id->seq);
}

/* Redis's string2ull on a NUL-terminated part: a canonical integer, or
 * whatever strtoull reads whole (leading blanks, '+', leading zeros, and a
 * '-' that strtoull negates: Redis accepts those too). */
static bool part_to_u64(const char *s, uint64_t *out)
{
    long long ll;
    if (num_parse_ll(s, strlen(s), &ll)) {
        if (ll < 0) return false;
        *out = (uint64_t)ll;
        return true;
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == EINVAL || errno == ERANGE || !(*s != '\0' && *end == '\0')) return false;
    *out = v;
    return true;
}

bool stream_id_parse(const char *s, size_t len, uint64_t missing_seq, unsigned flags,
                     struct stream_id *out, bool *seq_given)
{
    /* Redis copies the argument into a 128-byte C string: longer is
     * invalid and an embedded NUL ends it. */
    char buf[128];
    if (len > sizeof buf - 1) return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    bool special = (buf[0] == '-' || buf[0] == '+') && buf[1] == '\0';
    if ((flags & STREAM_ID_STRICT) && special) return false;
    if (seq_given) *seq_given = true;
    if (special) {
        out->ms = out->seq = buf[0] == '-' ? 0 : UINT64_MAX;
        return true;
    }
    char *dash = strchr(buf, '-');
    if (dash) *dash = '\0';
    uint64_t ms, seq;
    if (!part_to_u64(buf, &ms)) return false;
    if (!dash) {
        seq = missing_seq;
    } else if ((flags & STREAM_ID_SEQ_STAR) && dash[1] == '*' && dash[2] == '\0') {
        seq = 0;
        if (seq_given) *seq_given = false;
    } else if (!part_to_u64(dash + 1, &seq)) {
        return false;
    }
    out->ms = ms;
    out->seq = seq;
    return true;
}

void stream_id_encode(unsigned char out[16], const struct stream_id *id)
{
    for (int i = 0; i < 8; i++) {
        out[i] = (unsigned char)(id->ms >> (56 - 8 * i));
        out[8 + i] = (unsigned char)(id->seq >> (56 - 8 * i));
    }
}

void stream_id_decode(const unsigned char in[16], struct stream_id *id)
{
    id->ms = id->seq = 0;
    for (int i = 0; i < 8; i++) {
        id->ms = id->ms << 8 | in[i];
        id->seq = id->seq << 8 | in[8 + i];
    }
}
