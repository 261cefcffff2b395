/* resp_parser.c — incremental RESP request parsing; contract in resp_parser.h. */
#include "protocol/resp_parser.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util/numparse.h"
#include "util/split_args.h"
#include "util/xmalloc.h"

void resp_parser_init(struct resp_parser *p)
{
    memset(p, 0, sizeof *p);
    p->multibulk_left = -1;
    p->bulk_len = -1;
    buf_init(&p->scratch, 0);
}

void resp_parser_free(struct resp_parser *p)
{
    xfree(p->arg_off);
    xfree(p->argv);
    xfree(p->argv_len);
    strbuf_set_free(&p->external);
    buf_free(&p->scratch);
}

static void parser_reset(struct resp_parser *p)
{
    p->pos = 0;
    p->multibulk_left = -1;
    p->bulk_len = -1;
    p->is_inline = false;
    p->argc = 0;
}

static void ensure_arg_cap_slow(struct resp_parser *p, int need)
{
    int cap = p->arg_cap ? p->arg_cap : 8;
    while (cap < need) cap *= 2;
    p->arg_off = xrealloc(p->arg_off, sizeof(size_t) * (size_t)cap);
    p->argv = xrealloc(p->argv, sizeof(char *) * (size_t)cap);
    p->argv_len = xrealloc(p->argv_len, sizeof(size_t) * (size_t)cap);
    p->arg_cap = cap;
}

/* Argument slots a connection keeps between commands: one command of
 * many arguments (SADD of 100k members) must not leave its arrays, 24
 * bytes a slot, on an idle connection for ever (Redis frees argv after
 * every command). */
#define RESP_ARGS_KEEP 256

static void shrink_args(struct resp_parser *p)
{
    p->arg_off = xrealloc(p->arg_off, sizeof(size_t) * RESP_ARGS_KEEP);
    p->argv = xrealloc(p->argv, sizeof(char *) * RESP_ARGS_KEEP);
    p->argv_len = xrealloc(p->argv_len, sizeof(size_t) * RESP_ARGS_KEEP);
    p->arg_cap = RESP_ARGS_KEEP;
}

static inline void ensure_arg_cap(struct resp_parser *p, int need)
{
    if (need > p->arg_cap) ensure_arg_cap_slow(p, need);
}

static enum resp_status fail(struct resp_parser *p, const char *msg)
{
    p->error = msg;
    strbuf_set_clear(&p->external);
    parser_reset(p);
    return RESP_ERROR;
}

static enum resp_status finish(struct resp_parser *p, const char *base)
{
    const char **argv = p->argv;
    const size_t *off = p->arg_off;
    for (int i = 0, n = p->argc; i < n; i++) argv[i] = base + off[i];
    if (p->external.count) {
        const struct strbuf_set *ext = &p->external;
        for (int i = 0; i < ext->count; i++) argv[ext->index[i]] = ext->buf[i]->data;
    }
    p->consumed = p->pos;
    int argc = p->argc;
    parser_reset(p);
    p->argc = argc; /* stays readable until the next call */
    return argc ? RESP_COMMAND : RESP_EMPTY;
}

/* --- inline ------------------------------------------------------------- */

static enum resp_status parse_inline(struct resp_parser *p, const char *data, size_t len)
{
    /* Redis looks for the newline with strchr(): a NUL before it hides it,
     * so such a line waits for more data (and fails past the size limit). */
    const char *nl = memchr(data, '\n', len);
    if (nl && memchr(data, '\0', (size_t)(nl - data))) nl = NULL;
    if (!nl) {
        if (len > RESP_INLINE_MAX) return fail(p, "Protocol error: too big inline request");
        return RESP_INCOMPLETE;
    }
    size_t line_len = (size_t)(nl - data);
    if (line_len && data[line_len - 1] == '\r') line_len--;

    buf_reset(&p->scratch, 4096);
    /* Unquoting never lengthens a line, so this is all the split needs; it
     * also keeps scratch non-NULL for finish(), even for "" or a blank line
     * (NULL + 0 is undefined behaviour). */
    buf_reserve(&p->scratch, line_len + 1);
    size_t *lens = p->argv_len;
    int cap = p->arg_cap;
    int argc = split_args(data, line_len, &p->scratch, &lens, &cap);
    p->argv_len = lens;
    if (cap > p->arg_cap) {
        p->arg_off = xrealloc(p->arg_off, sizeof(size_t) * (size_t)cap);
        p->argv = xrealloc(p->argv, sizeof(char *) * (size_t)cap);
        p->arg_cap = cap;
    }
    if (argc < 0) return fail(p, "Protocol error: unbalanced quotes in request");
    size_t off = 0;
    for (int i = 0; i < argc; i++) {
        p->arg_off[i] = off;
        off += p->argv_len[i];
    }
    p->argc = argc;
    p->pos = (size_t)(nl - data) + 1;
    return finish(p, buf_head(&p->scratch));
}

/* --- multibulk ---------------------------------------------------------- */

/* Fast path for a count line: up to 18 digits (optionally after '-')
 * followed by "\r" and one more byte, with Redis's acceptance rules (no
 * leading zeros, no "-0"). Returns the offset of the '\r', or -1 when the
 * line needs the general path (incomplete, unusual or invalid). */
static inline long long scan_count(const char *data, size_t len, size_t from, long long *out)
{
    /* One and two digits cover nearly every count and short argument. */
    if (len - from >= 4) {
        const unsigned char *u = (const unsigned char *)data + from;
        unsigned d0 = u[0] - (unsigned)'0', d1 = u[1] - (unsigned)'0';
        if (d0 < 10) {
            if (u[1] == '\r') {
                *out = d0;
                return (long long)from + 1;
            }
            if (d1 < 10 && u[2] == '\r' && d0 != 0) {
                *out = d0 * 10 + d1;
                return (long long)from + 2;
            }
        }
    }
    const char *p = data + from, *end = data + len, *digits;
    bool negative = p < end && *p == '-';
    digits = p + negative;
    unsigned long long v = 0;
    const char *q = digits;
    while (q < end && q - digits < 18 && (unsigned)(*q - '0') < 10)
        v = v * 10 + (unsigned)(*q++ - '0');
    size_t ndigits = (size_t)(q - digits);
    if (q + 1 >= end || *q != '\r' || ndigits == 0 || (digits[0] == '0' && ndigits > 1) ||
        (negative && v == 0))
        return -1;
    *out = negative ? -(long long)v : (long long)v;
    return q - data;
}

/* Finds the '\r' ending a count line starting at data[from]; returns its
 * offset, or -1 when incomplete (\r\n not both present). */
static long long find_line_end(const char *data, size_t len, size_t from)
{
    const char *cr = memchr(data + from, '\r', len - from);
    if (!cr) return -1;
    size_t at = (size_t)(cr - data);
    if (at + 2 > len) return -1;
    return (long long)at;
}

static enum resp_status parse_multibulk(struct resp_parser *p, const char *data, size_t len,
                                        const struct request_limits *lim)
{
    if (p->multibulk_left < 0) {
        long long count;
        long long cr = scan_count(data, len, 1, &count);
        if (cr < 0) {
            cr = find_line_end(data, len, 0);
            if (cr < 0) {
                if (len > RESP_INLINE_MAX)
                    return fail(p, "Protocol error: too big mbulk count string");
                return RESP_INCOMPLETE;
            }
            if (!num_parse_ll(data + 1, (size_t)cr - 1, &count))
                return fail(p, "Protocol error: invalid multibulk length");
        }
        if (count > INT_MAX) return fail(p, "Protocol error: invalid multibulk length");
        if (count > RESP_UNAUTH_MAX_ARGS && lim->auth_required)
            return fail(p, "Protocol error: unauthenticated multibulk length");
        p->pos = (size_t)cr + 2;
        if (count <= 0) return finish(p, data);
        p->multibulk_left = count;
        /* Grow the argument array with what arrives, never with what is claimed. */
        ensure_arg_cap(p, count < 1024 ? (int)count : 1024);
    }

    /* The argument loop works on locals: stores into the argument arrays
     * could otherwise alias the parser's fields and force reloads. */
    size_t pos = p->pos;
    int argc = p->argc;
    long long left = p->multibulk_left, blen = p->bulk_len;
    enum resp_status st = RESP_INCOMPLETE;
    while (left > 0) {
        if (blen < 0) {
            if (pos >= len) goto save;
            long long cr = data[pos] == '$' ? scan_count(data, len, pos + 1, &blen) : -1;
            if (cr < 0) {
                cr = find_line_end(data, len, pos);
                if (cr < 0) {
                    if (len - pos > RESP_INLINE_MAX) {
                        st = fail(p, "Protocol error: too big bulk count string");
                        return st;
                    }
                    blen = -1;
                    goto save;
                }
                if (data[pos] != '$') {
                    snprintf(p->error_buf, sizeof p->error_buf,
                             "Protocol error: expected '$', got '%c'", data[pos]);
                    return fail(p, p->error_buf);
                }
                if (!num_parse_ll(data + pos + 1, (size_t)cr - pos - 1, &blen))
                    return fail(p, "Protocol error: invalid bulk length");
            }
            if (blen < 0 || blen > lim->proto_max_bulk_len)
                return fail(p, "Protocol error: invalid bulk length");
            if (blen > RESP_UNAUTH_MAX_BULK && lim->auth_required)
                return fail(p, "Protocol error: unauthenticated bulk length");
            pos = (size_t)cr + 2;
        }
        if (len - pos < (size_t)blen + 2) goto save;
        if (argc >= p->arg_cap) ensure_arg_cap_slow(p, argc + 1);
        p->arg_off[argc] = pos;
        p->argv_len[argc] = (size_t)blen;
        argc++;
        pos += (size_t)blen + 2;
        blen = -1;
        left--;
    }
    p->pos = pos;
    p->argc = argc;
    p->multibulk_left = 0;
    p->bulk_len = -1;
    return finish(p, data);
save:
    p->pos = pos;
    p->argc = argc;
    p->multibulk_left = left;
    p->bulk_len = blen;
    return st;
}

/* The common case: a multibulk command that has arrived whole, every line
 * in the shape clients send (counts and lengths of plain digits within the
 * limits, at most 1024 arguments), parsed in one pass straight into argv,
 * without the offsets and saved progress that resuming needs. Returns false
 * for anything else (incomplete, unusual, invalid): parse_multibulk() then
 * parses it from its first byte with every rule and error, so this path
 * only ever accepts what that one accepts, with the same arguments. */
static inline bool parse_multibulk_whole(struct resp_parser *p, const char *data, size_t len,
                                         const struct request_limits *lim)
{
    long long count, blen;
    long long cr = scan_count(data, len, 1, &count);
    if (cr < 0 || count <= 0 || count > 1024 ||
        (count > RESP_UNAUTH_MAX_ARGS && lim->auth_required))
        return false;
    ensure_arg_cap(p, (int)count);
    const char **argv = p->argv;
    size_t *argv_len = p->argv_len;
    size_t pos = (size_t)cr + 2; /* scan_count() saw both bytes: pos <= len */
    for (int i = 0; i < (int)count; i++) {
        if (len - pos < 4 || data[pos] != '$') return false;
        cr = scan_count(data, len, pos + 1, &blen);
        if (cr < 0 || blen < 0 || blen > lim->proto_max_bulk_len ||
            (blen > RESP_UNAUTH_MAX_BULK && lim->auth_required))
            return false;
        pos = (size_t)cr + 2;
        if (len - pos < (size_t)blen + 2) return false;
        argv[i] = data + pos;
        argv_len[i] = (size_t)blen;
        pos += (size_t)blen + 2;
    }
    p->argc = (int)count;
    p->consumed = pos;
    return true;
}

enum resp_status resp_parse(struct resp_parser *p, const char *data, size_t len,
                            const struct request_limits *limits)
{
    if (len == 0) return RESP_INCOMPLETE;
    if (p->pos == 0 && p->multibulk_left < 0) {
        /* A new command: the previous one's arguments are no longer needed. */
        p->argc = 0;
        if (__builtin_expect(p->arg_cap > RESP_ARGS_KEEP, 0)) shrink_args(p);
        p->is_inline = data[0] != '*';
        if (!p->is_inline && parse_multibulk_whole(p, data, len, limits)) return RESP_COMMAND;
    }
    if (p->is_inline) return parse_inline(p, data, len);
    return parse_multibulk(p, data, len, limits);
}

size_t resp_parser_pending_bulk(const struct resp_parser *p, size_t len)
{
    if (p->is_inline || p->bulk_len < 0) return 0;
    size_t need = p->pos + (size_t)p->bulk_len + 2;
    return need > len ? need - len : 0;
}

long long resp_parser_big_bulk(const struct resp_parser *p, size_t len, size_t *at)
{
    if (p->is_inline || p->bulk_len < RESP_BIG_ARG) return -1;
    if (len - p->pos >= (size_t)p->bulk_len + 2) return -1;
    *at = p->pos;
    return p->bulk_len;
}

void resp_parser_bulk_external(struct resp_parser *p, struct strbuf *sb)
{
    int argc = p->argc;
    ensure_arg_cap(p, argc + 1);
    p->arg_off[argc] = 0; /* unused: finish() points argv at sb */
    p->argv_len[argc] = (size_t)p->bulk_len;
    strbuf_set_add(&p->external, argc, sb);
    p->argc = argc + 1;
    p->multibulk_left--;
    p->bulk_len = -1;
}
