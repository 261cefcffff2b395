/* config_file.c — redis.conf files: reading lines as Redis 7.0's
 * loadServerConfigFromString does and applying each through the rows'
 * own parsers (config_apply_directive); see config.h. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/version.h"
#include "util/buf.h"
#include "util/split_args.h"
#include "util/xmalloc.h"

/* Nested includes deeper than this are refused (a file including itself
 * would otherwise recurse until the stack runs out). */
#define CONFIG_INCLUDE_DEPTH 16

static bool load_path(const char *path, int depth);

/* Redis's error block, on stderr, then the caller exits with status 1. */
static void fatal_line(int linenum, const char *line, const char *reason)
{
    fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\n", GOBLIN_REDIS_VERSION);
    fprintf(stderr, "Reading the configuration file, at line %d\n", linenum);
    fprintf(stderr, ">>> '%s'\n", line);
    fprintf(stderr, "%s\n", reason);
}

static bool read_stream(FILE *f, struct buf *out)
{
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(out, chunk, n);
    return !ferror(f);
}

/* Directives that are not settings. False with the reason when refused;
 * *handled tells whether the line was one of them. */
static bool special_directive(int argc, char **argv, int depth, bool *handled,
                              struct config_error *err)
{
    *handled = true;
    if (strcmp(argv[0], "include") == 0) {
        if (argc != 2) return config_fail(err, "Bad directive or wrong number of arguments");
        if (depth >= CONFIG_INCLUDE_DEPTH)
            return config_fail(err, "includes nested deeper than %d files", CONFIG_INCLUDE_DEPTH);
        if (strpbrk(argv[1], "*?[")) { /* Redis 7.0: a glob, files in sorted order */
            glob_t g;
            int rc = glob(argv[1], GLOB_ERR, NULL, &g);
            if (rc == GLOB_NOMATCH) return true;
            if (rc != 0) return config_fail(err, "can't read the include pattern '%s'", argv[1]);
            bool ok = true;
            for (size_t i = 0; ok && i < g.gl_pathc; i++) ok = load_path(g.gl_pathv[i], depth + 1);
            globfree(&g);
            if (!ok) return config_fail(err, "error in the included file above");
            return true;
        }
        FILE *probe = fopen(argv[1], "r");
        if (!probe)
            return config_fail(err, "Fatal error, can't open config file '%s': %s", argv[1],
                               strerror(errno));
        fclose(probe);
        if (!load_path(argv[1], depth + 1))
            return config_fail(err, "error in the included file above");
        return true;
    }
    if (strcmp(argv[0], "rename-command") == 0)
        return config_fail(err, "rename-command is not supported by goblin-core (use ACL rules "
                                "or a proxy to hide commands)");
    if (strcmp(argv[0], "loadmodule") == 0)
        return config_fail(err, "loadmodule: goblin-core loads no Redis modules");
    if (strcmp(argv[0], "sentinel") == 0)
        return config_fail(err, "sentinel directives need redis-sentinel; goblin-core has no "
                                "sentinel mode");
    if (strcmp(argv[0], "user") == 0) {
        /* CONFIG REWRITE of redis-server writes the default user's line
         * into every file; the line that only says what goblin-core's
         * default user is (on, no password, every key, channel and
         * command) is accepted, any other user line refused. */
        static const char *const unrestricted[] = {
            "on", "nopass", "~*", "&*", "+@all", "allkeys", "allchannels", "allcommands", NULL};
        bool same = argc >= 2 && strcmp(argv[1], "default") == 0;
        for (int i = 2; same && i < argc; i++) {
            const char *const *u = unrestricted;
            while (*u && strcmp(*u, argv[i]) != 0) u++;
            same = *u != NULL;
        }
        if (same) return true;
        return config_fail(err, "user: ACL users in the config file are not supported yet "
                                "(auth-file holds users; only the unrestricted default user's "
                                "line, as CONFIG REWRITE writes it, is accepted)");
    }
    *handled = false;
    return true;
}

/* Applies every line of text (Redis's rules: trimmed, '#' and empty lines
 * skipped, split as sdssplitargs, the directive's name case-insensitive). */
static bool load_text(const char *text, size_t len, int depth)
{
    struct buf args;
    buf_init(&args, 256);
    size_t *lens = NULL;
    int lens_cap = 0;
    bool ok = true;
    int linenum = 0;
    for (size_t pos = 0; ok && pos <= len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        linenum++;
        size_t a = pos, b = end;
        while (a < b && strchr(" \t\r\n", text[a])) a++;
        while (b > a && strchr(" \t\r\n", text[b - 1])) b--;
        pos = end + 1;
        if (a == b || text[a] == '#') continue;
        char *line = xmemdup(text + a, b - a);
        buf_reset(&args, 256);
        int argc = split_args(line, b - a, &args, &lens, &lens_cap);
        struct config_error err;
        if (argc < 0) {
            fatal_line(linenum, line, "Unbalanced quotes in configuration line");
            ok = false;
        } else if (argc > 0) {
            /* NUL-terminated copies of the arguments. */
            char **argv = xcalloc((size_t)argc, sizeof *argv);
            size_t off = 0;
            for (int i = 0; i < argc; i++) {
                argv[i] = xmemdup(buf_head(&args) + off, lens[i]);
                off += lens[i];
            }
            for (char *c = argv[0]; *c; c++)
                if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
            bool handled;
            ok = special_directive(argc, argv, depth, &handled, &err);
            if (ok && !handled) ok = config_apply_directive(argc, argv, &err);
            if (!ok) fatal_line(linenum, line, err.text);
            const struct config_param *p = config_find(argv[0], strlen(argv[0]));
            bool secret = p && (p->flags & CFG_SECRET);
            for (int i = 0; i < argc; i++) {
                if (secret) explicit_bzero(argv[i], lens[i]);
                xfree(argv[i]);
            }
            xfree(argv);
            if (secret) { /* requirepass: no copy of the password outlives its line */
                explicit_bzero(line, b - a);
                explicit_bzero(buf_head(&args), buf_len(&args));
            }
        }
        xfree(line);
    }
    xfree(lens);
    buf_free(&args);
    return ok;
}

static bool load_path(const char *path, int depth)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "Fatal error, can't open config file '%s': %s\n", path, strerror(errno));
        return false;
    }
    struct buf text;
    buf_init(&text, 4096);
    bool ok = read_stream(f, &text);
    fclose(f);
    if (!ok)
        fprintf(stderr, "Fatal error, can't read config file '%s': %s\n", path, strerror(errno));
    else
        ok = load_text(buf_head(&text), buf_len(&text), depth);
    if (buf_len(&text)) explicit_bzero(buf_head(&text), buf_len(&text)); /* passwords */
    buf_free(&text);
    return ok;
}

bool config_load_file(const char *path, bool from_stdin, const char *options, size_t len)
{
    /* As Redis: the file's text, then standard input's, then a newline and
     * the options, read as one text (line numbers count through all). */
    struct buf text;
    buf_init(&text, 4096);
    bool ok = true;
    if (path) {
        FILE *f = fopen(path, "r");
        if (!f) {
            fprintf(stderr, "Fatal error, can't open config file '%s': %s\n", path,
                    strerror(errno));
            ok = false;
        } else {
            ok = read_stream(f, &text);
            fclose(f);
            if (!ok) fprintf(stderr, "Fatal error, can't read config file '%s'\n", path);
        }
    }
    if (ok && from_stdin) {
        if (buf_len(&text) && buf_head(&text)[buf_len(&text) - 1] != '\n')
            buf_append_char(&text, '\n');
        ok = read_stream(stdin, &text);
    }
    if (ok && len) {
        buf_append_char(&text, '\n');
        buf_append(&text, options, len);
    }
    if (ok) ok = load_text(buf_len(&text) ? buf_head(&text) : "", buf_len(&text), 0);
    if (buf_len(&text)) explicit_bzero(buf_head(&text), buf_len(&text)); /* passwords */
    buf_free(&text);
    return ok;
}
