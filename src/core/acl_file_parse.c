/* acl_file_parse.c — the aclfile's text (Redis's format: one
 * "user <name> <rules>" line per user) parsed into new users, with Redis
 * 7.0's messages for every bad line (ACLLoadFromFile); the file's I/O, ACL
 * LOAD and ACL SAVE are commands/acl_file.c's. Apart from core/acl.c and
 * util/, it depends on nothing, so tests/fuzz/fuzz_acl_file.c feeds it
 * directly. */
#include <stdbool.h>
#include <string.h>

#include "core/acl.h"
#include "util/buf.h"
#include "util/xmalloc.h"

static bool has_space(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' ||
            s[i] == '\f' || s[i] == '\0')
            return true;
    return false;
}

static bool in_set(char c, const char *set)
{
    return c && strchr(set, c) != NULL;
}

/* sdstrim: drops leading and trailing characters of `set`. */
static void trim(const char **s, size_t *n, const char *set)
{
    while (*n && in_set((*s)[0], set)) (*s)++, (*n)--;
    while (*n && in_set((*s)[*n - 1], set)) (*n)--;
}

struct staged {
    struct acl_user **users;
    int count, cap;
};

static struct acl_user *staged_find(struct staged *st, const char *name, size_t len)
{
    for (int i = 0; i < st->count; i++)
        if (st->users[i]->name_len == len && memcmp(st->users[i]->name, name, len) == 0)
            return st->users[i];
    return NULL;
}

/* One line's words split on single spaces (sdssplitlen(" ")), selectors
 * merged as Redis's ACLMergeSelectorArguments does. */
struct words {
    char **w;
    size_t *len;
    int count, cap;
};

static void words_add(struct words *ws, const char *s, size_t n)
{
    if (ws->count == ws->cap) {
        ws->cap = ws->cap ? ws->cap * 2 : 16;
        ws->w = xrealloc(ws->w, sizeof *ws->w * (size_t)ws->cap);
        ws->len = xrealloc(ws->len, sizeof *ws->len * (size_t)ws->cap);
    }
    ws->w[ws->count] = xmemdup(s, n);
    ws->len[ws->count++] = n;
}

static void words_free(struct words *ws)
{
    for (int i = 0; i < ws->count; i++) xfree(ws->w[i]);
    xfree(ws->w);
    xfree(ws->len);
    *ws = (struct words){0};
}

/* Applies a line's rules (argv[2..]) to u, adding Redis's messages to
 * errors. */
static void apply_line(struct acl_user *u, const struct words *line, const char *path, int linenum,
                       struct buf *errors)
{
    struct words merged = {0};
    struct buf sel;
    buf_init(&sel, 64);
    bool open = false;
    for (int j = 2; j < line->count; j++) {
        const char *op = line->w[j];
        size_t len = line->len[j];
        if (!open && len && op[0] == '(' && op[len - 1] != ')') {
            buf_reset(&sel, 64);
            buf_append(&sel, op, len);
            open = true;
            continue;
        }
        if (open) {
            buf_append_char(&sel, ' ');
            buf_append(&sel, op, len);
            if (len && op[len - 1] == ')') {
                words_add(&merged, buf_head(&sel), buf_len(&sel));
                open = false;
            }
            continue;
        }
        words_add(&merged, op, len);
    }
    buf_free(&sel);
    if (open) {
        buf_append_fmt(errors, "%s:%d: Unmatched parenthesis in selector definition.", path,
                       linenum);
        words_free(&merged);
        return;
    }
    bool syntax_error = false;
    for (int j = 0; j < merged.count; j++) {
        const char *op = merged.w[j];
        size_t len = merged.len[j];
        trim(&op, &len, "\t\r\n");
        if (len == 0) continue; /* Redis: an empty rule is a no-op */
        char err[1024];
        if (acl_user_apply(u, op, len, err, sizeof err)) continue;
        /* Redis's ENOENT (an unknown command or category) names the rule. */
        if (strcmp(err, ACL_ERR_UNKNOWN) == 0) {
            buf_append_fmt(errors, "%s:%d: Error in applying operation '%.*s': %s. ", path, linenum,
                           (int)len, op, err);
        } else if (!syntax_error) {
            buf_append_fmt(errors, "%s:%d: %s. ", path, linenum, err);
            syntax_error = true;
        }
    }
    words_free(&merged);
}

bool acl_file_parse(const char *text, size_t text_len, const char *path, struct acl_user ***out,
                    int *out_count, struct buf *errors)
{
    struct staged st = {0};
    /* Redis keeps the text as a C string: a NUL ends it. */
    const char *nul = memchr(text, '\0', text_len);
    if (nul) text_len = (size_t)(nul - text);
    size_t at = 0;
    int linenum = 0;
    while (at <= text_len) {
        const char *nl = memchr(text + at, '\n', text_len - at);
        size_t end = nl ? (size_t)(nl - text) : text_len;
        const char *line = text + at;
        size_t len = end - at;
        at = end + 1;
        linenum++;
        trim(&line, &len, " \t\r\n");
        if (len == 0) {
            if (!nl) break;
            continue;
        }
        struct words ws = {0};
        size_t start = 0;
        for (size_t i = 0; i <= len; i++)
            if (i == len || line[i] == ' ') {
                words_add(&ws, line + start, i - start);
                start = i + 1;
            }
        if (ws.count < 2 || ws.len[0] != 4 || memcmp(ws.w[0], "user", 4) != 0) {
            buf_append_fmt(errors,
                           "%s:%d should start with user keyword followed by the username. ", path,
                           linenum);
        } else if (has_space(ws.w[1], ws.len[1])) {
            buf_append_fmt(errors, "'%s:%d: username '%.*s' contains invalid characters. ", path,
                           linenum, (int)ws.len[1], ws.w[1]);
        } else if (staged_find(&st, ws.w[1], ws.len[1])) {
            buf_append_fmt(errors, "WARNING: Duplicate user '%.*s' found on line %d. ",
                           (int)ws.len[1], ws.w[1], linenum);
        } else {
            struct acl_user *u = acl_user_new(ws.w[1], ws.len[1]);
            if (st.count == st.cap) {
                st.cap = st.cap ? st.cap * 2 : 8;
                st.users = xrealloc(st.users, sizeof *st.users * (size_t)st.cap);
            }
            st.users[st.count++] = u;
            apply_line(u, &ws, path, linenum, errors);
        }
        words_free(&ws);
        if (!nl) break;
    }
    if (buf_len(errors)) {
        for (int i = 0; i < st.count; i++) acl_user_free(st.users[i]);
        xfree(st.users);
        buf_append_fmt(errors,
                       "WARNING: ACL errors detected, no change to the previously active ACL "
                       "rules was performed");
        return false;
    }
    *out = st.users;
    *out_count = st.count;
    return true;
}
