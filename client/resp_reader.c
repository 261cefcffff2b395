/* resp_reader.c — RESP2/RESP3 reply framing; see resp_reader.h. */
#include <goblin/resp_reader.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses one line "<type><text>\r\n" at buf; returns bytes to after \n, or 0/-1. */
static long long line_end(const char *buf, size_t len)
{
    const char *cr = memchr(buf, '\r', len);
    if (!cr) return 0;
    size_t at = (size_t)(cr - buf);
    if (at + 1 >= len) return 0;
    if (cr[1] != '\n') return -1;
    return (long long)at + 2;
}

static long long parse_count(const char *p, size_t n, long long *out)
{
    char tmp[32];
    if (n == 0 || n >= sizeof tmp) return -1;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *end;
    *out = strtoll(tmp, &end, 10);
    return *end ? -1 : 0;
}

static long long reply_len(const char *buf, size_t len, int depth)
{
    if (depth > 64) return -1;
    if (len == 0) return 0;
    long long le = line_end(buf, len);
    if (le <= 0) return le;
    char type = buf[0];
    long long n;
    switch (type) {
    case '+':
    case '-':
    case ':':
    case ',':
    case '#':
    case '_':
    case '(':
        return le;
    case '$':
    case '=':
    case '!': {
        if (parse_count(buf + 1, (size_t)le - 3, &n) < 0) return -1;
        if (n < 0) return le; /* $-1 */
        if ((size_t)le + (size_t)n + 2 > len) return 0;
        return le + n + 2;
    }
    case '*':
    case '%':
    case '~':
    case '>':
    case '|': {
        if (parse_count(buf + 1, (size_t)le - 3, &n) < 0) return -1;
        if (n < 0) return le; /* *-1 */
        /* A count no reply could hold; doubling it for a map would overflow. */
        if (n > LLONG_MAX / 2) return -1;
        long long elements = (type == '%' || type == '|') ? n * 2 : n;
        long long off = le;
        for (long long i = 0; i < elements; i++) {
            long long sub = reply_len(buf + off, len - (size_t)off, depth + 1);
            if (sub <= 0) return sub;
            off += sub;
        }
        /* An attribute precedes the reply it annotates. */
        if (type == '|') {
            long long sub = reply_len(buf + off, len - (size_t)off, depth + 1);
            if (sub <= 0) return sub;
            off += sub;
        }
        return off;
    }
    default:
        return -1;
    }
}

long long resp_reply_length(const char *buf, size_t len)
{
    return reply_len(buf, len, 0);
}

char *resp_render(const char *raw, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)raw[i];
        if (c == '\r')
            o += (size_t)snprintf(out + o, cap - o, "\\r");
        else if (c == '\n')
            o += (size_t)snprintf(out + o, cap - o, "\\n");
        else if (c < 32 || c >= 127)
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    if (o >= cap) o = cap - 1;
    out[o] = '\0';
    return out;
}

char *resp_format_command(int argc, const char *const *argv, const size_t *lens, char *small,
                          size_t small_cap, size_t *len)
{
    size_t need = 16;
    for (int i = 0; i < argc; i++) need += (lens ? lens[i] : strlen(argv[i])) + 24;
    char *buf = need <= small_cap ? small : malloc(need);
    if (!buf) return NULL;
    size_t o = (size_t)snprintf(buf, need, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++) {
        size_t n = lens ? lens[i] : strlen(argv[i]);
        o += (size_t)snprintf(buf + o, need - o, "$%zu\r\n", n);
        memcpy(buf + o, argv[i], n);
        o += n;
        buf[o++] = '\r';
        buf[o++] = '\n';
    }
    *len = o;
    return buf;
}
