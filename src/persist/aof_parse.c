/* aof_parse.c — the AOF command parser (no keyspace, no commands: what
 * tests/fuzz/fuzz_aof.c links); see aof_load.h. */
#include <limits.h>
#include <string.h>

#include "persist/aof_load.h"
#include "util/xmalloc.h"

void aof_command_free(struct aof_command *c)
{
    xfree(c->argv);
    xfree(c->len);
    c->argv = NULL;
    c->len = NULL;
    c->argc = c->cap = 0;
}

static void command_push(struct aof_command *c, const char *arg, size_t len)
{
    if (c->argc == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 8;
        c->argv = xrealloc(c->argv, (size_t)c->cap * sizeof *c->argv);
        c->len = xrealloc(c->len, (size_t)c->cap * sizeof *c->len);
    }
    c->argv[c->argc] = arg;
    c->len[c->argc++] = len;
}

/* "<prefix><decimal>\r\n" at p[*at..n): the number, *at moved past the
 * CRLF. */
static enum aof_item parse_number_line(const char *p, size_t n, size_t *at, char prefix,
                                       long long max, long long *out, const char **why)
{
    size_t i = *at;
    if (i >= n) return AOF_ITEM_TRUNCATED;
    if (p[i] != prefix) {
        *why = prefix == '*' ? "expected '*' (a command)" : "expected '$' (an argument)";
        return AOF_ITEM_MALFORMED;
    }
    i++;
    long long v = 0;
    size_t digits = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++, digits++) {
        if (v > (max - (p[i] - '0')) / 10) {
            *why = "count or length out of range";
            return AOF_ITEM_MALFORMED;
        }
        v = v * 10 + (p[i] - '0');
    }
    if (i + 2 > n) return AOF_ITEM_TRUNCATED;
    if (digits == 0 || p[i] != '\r' || p[i + 1] != '\n') {
        *why = "bad count or length line";
        return AOF_ITEM_MALFORMED;
    }
    *at = i + 2;
    *out = v;
    return AOF_ITEM_COMMAND;
}

enum aof_item aof_parse_item(const char *p, size_t n, size_t *used, struct aof_command *cmd,
                             const char **why)
{
    cmd->argc = 0;
    if (n == 0) return AOF_ITEM_TRUNCATED;
    if (p[0] == '#') {
        const char *nl = memchr(p, '\n', n);
        if (!nl) return AOF_ITEM_TRUNCATED;
        *used = (size_t)(nl - p) + 1;
        return AOF_ITEM_ANNOTATION;
    }
    size_t at = 0;
    long long argc;
    enum aof_item r = parse_number_line(p, n, &at, '*', INT_MAX, &argc, why);
    if (r != AOF_ITEM_COMMAND) return r;
    if (argc < 1) {
        *why = "a command without arguments";
        return AOF_ITEM_MALFORMED;
    }
    for (long long i = 0; i < argc; i++) {
        long long len;
        r = parse_number_line(p, n, &at, '$', LLONG_MAX / 2, &len, why);
        if (r != AOF_ITEM_COMMAND) return r;
        if ((unsigned long long)len + 2 > n - at) return AOF_ITEM_TRUNCATED;
        if (p[at + (size_t)len] != '\r' || p[at + (size_t)len + 1] != '\n') {
            *why = "an argument not followed by CRLF";
            return AOF_ITEM_MALFORMED;
        }
        command_push(cmd, p + at, (size_t)len);
        at += (size_t)len + 2;
    }
    *used = at;
    return AOF_ITEM_COMMAND;
}
