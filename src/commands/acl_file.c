/* acl_file.c — the aclfile's I/O (its text parsed by
 * core/acl_file_parse.c), ACL LOAD and ACL SAVE, and the ACL settings
 * (aclfile, acllog-max-len, acl-pubsub-default). docs/acl.md. */
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
