/* split_args.c — Redis's sdssplitargs; see split_args.h. */
#include "util/split_args.h"

#include <ctype.h>
#include <stdbool.h>

#include "util/xmalloc.h"

static int hex_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

static bool is_hex_escape(const char *q, const char *end)
{
    return end - q >= 4 && q[0] == '\\' && q[1] == 'x' && hex_value((unsigned char)q[2]) >= 0 &&
           hex_value((unsigned char)q[3]) >= 0;
}

static void push_len(size_t **lens, int *cap, int n, size_t v)
{
    if (n >= *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *lens = xrealloc(*lens, sizeof(size_t) * (size_t)*cap);
    }
    (*lens)[n] = v;
}

int split_args(const char *line, size_t len, struct buf *out, size_t **lens, int *lens_cap)
{
    const char *q = line, *end = line + len;
    int argc = 0;
    for (;;) {
        while (q < end && isspace((unsigned char)*q)) q++;
        if (q >= end) return argc;
        size_t before = buf_len(out);
        bool in_double = false, in_single = false, done = false;
        while (!done) {
            if (in_double) {
                if (q >= end) return -1;
                if (is_hex_escape(q, end)) {
                    buf_append_char(out, (char)(hex_value((unsigned char)q[2]) * 16 +
                                                hex_value((unsigned char)q[3])));
                    q += 3;
                } else if (*q == '\\' && q + 1 < end) {
                    char c;
                    q++;
                    switch (*q) {
                    case 'n':
                        c = '\n';
                        break;
                    case 'r':
                        c = '\r';
                        break;
                    case 't':
                        c = '\t';
                        break;
                    case 'b':
                        c = '\b';
                        break;
                    case 'a':
                        c = '\a';
                        break;
                    default:
                        c = *q;
                        break;
                    }
                    buf_append_char(out, c);
                } else if (*q == '"') {
                    /* A closing quote must end the argument. */
                    if (q + 1 < end && !isspace((unsigned char)q[1])) return -1;
                    done = true;
                } else {
                    buf_append_char(out, *q);
                }
            } else if (in_single) {
                if (q >= end) return -1;
                if (*q == '\\' && q + 1 < end && q[1] == '\'') {
                    q++;
                    buf_append_char(out, '\'');
                } else if (*q == '\'') {
                    if (q + 1 < end && !isspace((unsigned char)q[1])) return -1;
                    done = true;
                } else {
                    buf_append_char(out, *q);
                }
            } else {
                if (q >= end) break;
                switch (*q) {
                case ' ':
                case '\n':
                case '\r':
                case '\t':
                case '\0':
                    done = true;
                    break;
                case '"':
                    in_double = true;
                    break;
                case '\'':
                    in_single = true;
                    break;
                default:
                    buf_append_char(out, *q);
                    break;
                }
            }
            if (q < end) q++;
        }
        push_len(lens, lens_cap, argc, buf_len(out) - before);
        argc++;
    }
}
