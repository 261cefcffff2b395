/* acl_file.c — the aclfile (Redis's format: one "user <name> <rules>" line
 * per user), ACL LOAD and ACL SAVE, and the ACL settings (aclfile,
 * acllog-max-len, acl-pubsub-default). docs/acl.md. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands/acl_check.h"
#include "commands/command.h"
#include "core/acl.h"
#include "core/config.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xmalloc.h"

static const char no_aclfile[] =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";

static struct {
    char *aclfile;
    char *pubsub_default;
} acl_settings;

/* Redis reads the file in 1024-byte fgets chunks and keeps the whole
 * text; a file larger than this is refused rather than held (the bound on
 * what a LOAD may allocate). */
#define ACL_FILE_MAX (64u << 20)

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

static bool read_file(const char *path, char **text, size_t *len, struct buf *errors)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        buf_append_fmt(errors, "Error loading ACLs, opening file '%s': %s", path, strerror(errno));
        return false;
    }
    struct buf b;
    buf_init(&b, 4096);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (buf_len(&b) + n > ACL_FILE_MAX) {
            buf_append_fmt(errors, "Error loading ACLs, file '%s' is larger than %u bytes", path,
                           ACL_FILE_MAX);
            buf_free(&b);
            fclose(fp);
            return false;
        }
        buf_append(&b, chunk, n);
    }
    fclose(fp);
    *len = buf_len(&b);
    *text = xmemdup(buf_head(&b), *len);
    buf_free(&b);
    return true;
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

/* Loads path into the user set; on error leaves the old users and writes
 * Redis's message into errors. caller: the client of ACL LOAD (closed
 * after its reply when its user is replaced), NULL at startup. */
static bool load_file(const char *path, struct conn *caller, struct buf *errors)
{
    char *text;
    size_t len;
    if (!read_file(path, &text, &len, errors)) return false;
    struct acl_user **users;
    int count;
    bool ok = acl_file_parse(text, len, path, &users, &count, errors);
    xfree(text);
    if (!ok) return false;
    /* Redis 7.0 frees every old user but default, closing its clients. */
    int n = acl_user_count();
    char **names = xcalloc((size_t)n + 1, sizeof *names);
    size_t *lens = xcalloc((size_t)n + 1, sizeof *lens);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const struct acl_user *u = acl_user_at(i);
        if (u == acl_default_user()) continue;
        names[k] = xmemdup(u->name, u->name_len);
        lens[k++] = u->name_len;
    }
    acl_replace_users(users, count);
    xfree(users);
    for (int i = 0; i < k; i++) {
        acl_kill_user_clients(names[i], lens[i], caller);
        xfree(names[i]);
    }
    xfree(names);
    xfree(lens);
    return true;
}

const char *acl_file_path(void)
{
    return acl_settings.aclfile && acl_settings.aclfile[0] ? acl_settings.aclfile : NULL;
}

bool acl_file_load_startup(void)
{
    const char *path = acl_file_path();
    if (!path) return true;
    if (config.auth_file && *config.auth_file) {
        log_warning("aclfile and --auth-file both name users: give one of them, not both");
        return false;
    }
    struct buf errors;
    buf_init(&errors, 256);
    bool ok = load_file(path, NULL, &errors);
    if (!ok)
        log_warning("Aborting Redis startup because of ACL errors: %.*s", (int)buf_len(&errors),
                    buf_head(&errors));
    buf_free(&errors);
    return ok;
}

void acl_file_load_command(struct cmd_ctx *ctx)
{
    const char *path = acl_file_path();
    if (!path) {
        reply_error(ctx->reply, no_aclfile);
        return;
    }
    struct buf errors;
    buf_init(&errors, 256);
    if (load_file(path, ctx->conn, &errors)) {
        reply_ok(ctx->reply);
    } else {
        /* addReplyError: newlines would break the protocol. */
        for (size_t i = 0; i < buf_len(&errors); i++)
            if (buf_head(&errors)[i] == '\r' || buf_head(&errors)[i] == '\n')
                buf_head(&errors)[i] = ' ';
        reply_error_fmt(ctx->reply, "ERR %.*s", (int)buf_len(&errors), buf_head(&errors));
    }
    buf_free(&errors);
}

/* Redis's ACLSaveToFile: every user's ACL LIST line into a temporary file
 * beside the target, fsynced, renamed over it, directory fsynced. */
static bool save_file(const char *path)
{
    struct buf b;
    buf_init(&b, 4096);
    for (int i = 0; i < acl_user_count(); i++) {
        const struct acl_user *u = acl_user_at(i);
        buf_append(&b, "user ", 5);
        buf_append(&b, u->name, u->name_len);
        buf_append_char(&b, ' ');
        acl_describe_user(u, &b);
        buf_append_char(&b, '\n');
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.tmp-%d-%lld", path, (int)getpid(),
             (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    bool ok = false;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        log_warning("Opening temp ACL file for ACL SAVE: %s", strerror(errno));
        goto out;
    }
    const char *p = buf_head(&b);
    size_t left = buf_len(&b);
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            log_warning("Writing ACL file for ACL SAVE: %s", strerror(errno));
            close(fd);
            unlink(tmp);
            goto out;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0) {
        log_warning("Syncing ACL file for ACL SAVE: %s", strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        log_warning("Renaming ACL file for ACL SAVE: %s", strerror(errno));
        unlink(tmp);
        goto out;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash == dir ? (void)(dir[1] = '\0') : (void)(*slash = '\0');
    else
        snprintf(dir, sizeof dir, ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    ok = true;
out:
    buf_free(&b);
    return ok;
}

void acl_file_save_command(struct cmd_ctx *ctx)
{
    const char *path = acl_file_path();
    if (!path) {
        reply_error(ctx->reply, no_aclfile);
        return;
    }
    if (save_file(path))
        reply_ok(ctx->reply);
    else
        reply_error(ctx->reply, "ERR There was an error trying to save the ACLs. Please check the "
                                "server logs for more information");
}

/* --- settings (core/config.h) ---------------------------------------- */

static const char *const pubsub_default_choices[] = {"allchannels", "resetchannels", NULL};

static void acl_settings_defaults(void)
{
    acl_settings.aclfile = xstrdup("");
    acl_settings.pubsub_default = xstrdup("resetchannels");
}

static void pubsub_default_apply(void)
{
    acl_pubsub_default =
        strcmp(acl_settings.pubsub_default, "allchannels") == 0 ? ACL_SELECTOR_ALLCHANNELS : 0;
}

static const struct config_param acl_params[] = {
    {.name = "acl-pubsub-default",
     .kind = CFG_ENUM,
     .value = &acl_settings.pubsub_default,
     .value_name = "allchannels|resetchannels",
     .help = "the channels of new ACL users and selectors, and of the reset rule (default "
             "resetchannels)",
     .choices = pubsub_default_choices,
     .apply = pubsub_default_apply},
    {.name = "aclfile",
     .kind = CFG_STRING,
     .value = &acl_settings.aclfile,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "PATH",
     .help = "ACL users in Redis's format (\"user <name> <rules>\" lines), loaded at startup; "
             "ACL LOAD rereads it, ACL SAVE writes it"},
    {.name = "acllog-max-len",
     .kind = CFG_INT,
     .value = &acl_log_max_len,
     .min = 0,
     .max = LLONG_MAX,
     .value_name = "N",
     .help = "ACL LOG keeps this many entries (default 128)"},
};

const struct config_table acl_config = CONFIG_TABLE(acl_params, acl_settings_defaults);
