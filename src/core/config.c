/* config.c — the settings engine: flags, --help and CONFIG GET/SET over
 * the tables the modules register; see config.h. */
#include "core/config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/version.h"
#include "util/glob.h"
#include "util/numparse.h"
#include "util/split_args.h"
#include "util/xmalloc.h"

struct config config;

bool config_fail(struct config_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    return false;
}

/* The registered tables, in registration order. */
static const struct config_table **tables;
static size_t table_count;

void config_init_defaults(void)
{
    memset(&config, 0, sizeof config);
    config.port = 6379;
    config.bind = xstrdup("127.0.0.1");
    config.unixsocketperm = 0;
    config.tcp_backlog = 511;
    config.tcp_keepalive = 300;
    config.timeout = 0;
    config.maxclients = 10000;
    config.proto_max_bulk_len = 512LL * 1024 * 1024;
    config.client_query_buffer_limit = 1024LL * 1024 * 1024;
    config.databases = 16;
    config.unsolicited_output_buffer_bytes = 0; /* growable (conn.h) */
    config.protected_mode = true;
    config.requirepass = NULL;
    config.auth_file = NULL;
    config.cpu = -1;
    config.numa = -1;
    config.mlockall = true;
    config.socket_poll_interval_us = 20;
    config.efa_heartbeat_timeout_ms = 30000;
    config.libfabric_tx_slots = 16;
    config.libfabric_rx_slots = 16;
    config.libfabric_max_record = 128 * 1024;
    config.libfabric_reorder_messages = 64;
    config.libfabric_sessions_per_peer = 16;
    config.libfabric_reorder_bytes = 1024 * 1024;
    config.idle_strategy = xstrdup("adaptive");
    config.idle_spin_us = 200;
    config.idle_sleep_ms = 1000;
    config.hz = 10;
    config.active_expire_effort = 1;
    config.loglevel = xstrdup("notice");
    config.maxmemory_policy = xstrdup("noeviction");
    config.enable_debug_command = xstrdup("no");
    config.enable_protected_configs = xstrdup("no");
    config.enable_module_command = xstrdup("no");
    config.tls_auth_clients = xstrdup("yes");
    config.dir = xstrdup("./");
    config.dbfilename = xstrdup("dump.rdb");
    config.save = xstrdup("3600 1 300 100 60 10000");
    config.rdbcompression = true;
    config.aof_use_rdb_preamble = true;
    config.appendfsync = xstrdup("everysec");
    config.appendfilename = xstrdup("appendonly.aof");
    config.appenddirname = xstrdup("appendonlydir");
    config.auto_aof_rewrite_percentage = 100;
    config.auto_aof_rewrite_min_size = 64LL << 20;
    config.aof_load_truncated = true;
    config.rdbchecksum = true;
    config.stop_writes_on_bgsave_error = true;
    config.cluster_config_file = xstrdup("nodes.conf");
    config.cluster_node_timeout = 15000;
    config.cluster_announce_ip = xstrdup("");
    config.cluster_require_full_coverage = true;
    config.notify_keyspace_events = xstrdup("");
    config.slowlog_log_slower_than = 10000;
    config.busy_reply_threshold = 5000;
    config.lua_memory_limit = 1024LL * 1024 * 1024;
    config.slowlog_max_len = 128;
}

void config_register(const struct config_table *table)
{
    tables = xrealloc(tables, sizeof *tables * (table_count + 1));
    tables[table_count++] = table;
    if (table->set_defaults) table->set_defaults();
}

void config_polled_add(const struct polled_spec *ps)
{
    config.polled = xrealloc(config.polled, sizeof *ps * (size_t)(config.polled_count + 1));
    config.polled[config.polled_count++] = *ps;
}

const struct config_param *config_each(bool (*fn)(const struct config_param *p, void *arg),
                                       void *arg)
{
    for (size_t t = 0; t < table_count; t++)
        for (size_t i = 0; i < tables[t]->count; i++)
            if (fn(&tables[t]->params[i], arg)) return &tables[t]->params[i];
    return NULL;
}

static bool name_is(const char *row_name, const char *name, size_t len)
{
    return row_name && strlen(row_name) == len && strncasecmp(row_name, name, len) == 0;
}

struct name_query {
    const char *name;
    size_t len;
};

static bool param_named(const struct config_param *p, void *arg)
{
    const struct name_query *q = arg;
    return name_is(p->name, q->name, q->len) || name_is(p->alias, q->name, q->len);
}

const struct config_param *config_find(const char *name, size_t len)
{
    struct name_query q = {name, len};
    return config_each(param_named, &q);
}

bool config_param_exists(const char *name, size_t name_len)
{
    return config_find(name, name_len) != NULL;
}

const char *config_canonical_name(const char *name, size_t name_len)
{
    const struct config_param *p = config_find(name, name_len);
    return p ? p->name : NULL;
}

bool config_param_is_secret(const char *name, size_t name_len)
{
    const struct config_param *p = config_find(name, name_len);
    return p && (p->flags & CFG_SECRET);
}

static bool parse_yes_no(const char *text, bool *out)
{
    if (strcasecmp(text, "yes") == 0)
        *out = true;
    else if (strcasecmp(text, "no") == 0)
        *out = false;
    else
        return false;
    return true;
}

/* Sets a parameter from one value. False with the reason (without the
 * parameter's name) in err. */
static bool param_store(const struct config_param *p, char *text, size_t len,
                        struct config_error *err)
{
    switch (p->kind) {
    case CFG_INT:
    case CFG_MEMORY: {
        long long v;
        bool ok;
        if (p->kind == CFG_INT) {
            ok = num_parse_ll(text, len, &v);
        } else {
            unsigned long long u;
            ok = num_parse_memory(text, len, &u) && u <= LLONG_MAX;
            v = (long long)u;
        }
        if (!ok)
            return config_fail(err, "%s",
                               p->kind == CFG_INT ? "argument couldn't be parsed into an integer"
                                                  : "argument must be a memory value");
        if (v < p->min || v > p->max)
            return config_fail(err, "argument must be between %lld and %lld inclusive", p->min,
                               p->max);
        *(long long *)p->value = v;
        return true;
    }
    case CFG_OCTAL: {
        long long v = 0;
        bool ok = len > 0 && len <= 12;
        for (size_t i = 0; ok && i < len; i++) {
            ok = text[i] >= '0' && text[i] <= '7';
            v = v * 8 + (text[i] - '0');
        }
        if (!ok) return config_fail(err, "argument couldn't be parsed into an octal number");
        if (v < p->min || v > p->max)
            return config_fail(err, "argument must be between %llo and %llo inclusive", p->min,
                               p->max);
        *(long long *)p->value = v;
        return true;
    }
    case CFG_BOOL:
    case CFG_FLAG:
        if (!parse_yes_no(text, (bool *)p->value))
            return config_fail(err, "argument must be 'yes' or 'no'");
        return true;
    case CFG_STRING: {
        const char *why = p->validate ? p->validate(text) : NULL;
        if (why) return config_fail(err, "%s", why);
        xfree(*(char **)p->value);
        *(char **)p->value = xstrdup(text);
        return true;
    }
    case CFG_ENUM: {
        const char *const *c = p->choices;
        while (*c && strcasecmp(*c, text) != 0) c++;
        if (!*c) {
            size_t o = (size_t)snprintf(err->text, sizeof err->text,
                                        "argument(s) must be one of the following: ");
            for (c = p->choices; *c && o < sizeof err->text; c++)
                o += (size_t)snprintf(err->text + o, sizeof err->text - o, "%s%s", *c,
                                      c[1] ? ", " : "");
            return false;
        }
        xfree(*(char **)p->value);
        *(char **)p->value = xstrdup(*c);
        return true;
    }
    case CFG_CUSTOM: {
        if (p->parse_bytes) return p->parse_bytes(text, len, err);
        const char *const values[1] = {text};
        return p->parse(values, err);
    }
    }
    return config_fail(err, "unknown kind of parameter");
}

/* Sets a parameter from text, then makes it take effect. False with the
 * reason (without the name) in err. */
static bool param_apply(const struct config_param *p, const char *value, size_t len,
                        struct config_error *err)
{
    char *text = xmemdup(value, len);
    bool ok = param_store(p, text, len, err);
    if (p->flags & CFG_SECRET) explicit_bzero(text, len); /* scrubbed before it is freed */
    xfree(text);
    if (ok && p->apply) p->apply();
    return ok;
}

void config_render(const struct config_param *p, struct buf *out)
{
    switch (p->kind) {
    case CFG_INT:
    case CFG_MEMORY: {
        char tmp[32];
        num_format_ll(tmp, *(long long *)p->value);
        buf_append(out, tmp, strlen(tmp));
        break;
    }
    case CFG_OCTAL:
        buf_append_fmt(out, "%llo", *(long long *)p->value);
        break;
    case CFG_BOOL:
    case CFG_FLAG: {
        bool on = *(bool *)p->value;
        buf_append(out, on ? "yes" : "no", on ? 3 : 2);
        break;
    }
    case CFG_STRING:
    case CFG_ENUM: {
        const char *s = *(char **)p->value;
        if (s) buf_append(out, s, strlen(s));
        break;
    }
    case CFG_CUSTOM:
        p->render(out);
        break;
    }
}

bool config_get_value(const char *name, struct buf *out)
{
    const struct config_param *p = config_find(name, strlen(name));
    if (!p) return false;
    config_render(p, out);
    return true;
}

struct get_matching {
    const char *pattern;
    size_t len;
    void (*emit)(const char *name, const char *value, void *arg);
    void *arg;
    bool (*already)(const char *name, void *arg);
    struct buf value;
};

static bool emit_matching(const struct config_param *p, void *arg)
{
    struct get_matching *g = arg;
    if (p->flags & CFG_HIDDEN) return false;
    const char *names[2] = {p->name, p->alias};
    for (int k = 0; k < 2; k++) {
        const char *n = names[k];
        if (!n) continue;
        if (!glob_match(g->pattern, g->len, n, strlen(n), true)) continue;
        if (g->already && g->already(n, g->arg)) continue;
        buf_reset(&g->value, 64);
        config_render(p, &g->value);
        buf_append_char(&g->value, '\0');
        g->emit(n, buf_head(&g->value), g->arg);
    }
    return false;
}

void config_get_matching(const char *pattern, size_t len,
                         void (*emit)(const char *name, const char *value, void *arg), void *arg,
                         bool (*already)(const char *name, void *arg))
{
    struct get_matching g = {pattern, len, emit, arg, already, {0}};
    buf_init(&g.value, 64);
    if (!memchr(pattern, '*', len) && !memchr(pattern, '?', len) && !memchr(pattern, '[', len)) {
        /* A plain name is looked up directly and echoed as typed, as Redis does. */
        const struct config_param *p = config_find(pattern, len);
        char *typed = xmemdup(pattern, len);
        if (p && !(already && already(typed, arg))) {
            config_render(p, &g.value);
            buf_append_char(&g.value, '\0');
            emit(typed, buf_head(&g.value), arg);
        }
        xfree(typed);
        buf_free(&g.value);
        return;
    }
    config_each(emit_matching, &g);
    buf_free(&g.value);
}

/* Rows with a commit hook set by config_set() since the last commit, one
 * per hook (the first row naming it, for the error text). */
static const struct config_param **pending_commits;
static size_t pending_commit_count, pending_commit_cap;

static void commit_pending_add(const struct config_param *p)
{
    for (size_t i = 0; i < pending_commit_count; i++)
        if (pending_commits[i]->commit == p->commit) return;
    if (pending_commit_count == pending_commit_cap) {
        pending_commit_cap = pending_commit_cap ? 2 * pending_commit_cap : 4;
        pending_commits = xrealloc(pending_commits, sizeof *pending_commits * pending_commit_cap);
    }
    pending_commits[pending_commit_count++] = p;
}

const char *config_set_commit(struct config_error *err)
{
    for (size_t i = 0; i < pending_commit_count; i++) {
        const struct config_param *p = pending_commits[i];
        const char *why = p->commit();
        if (why) {
            pending_commit_count = 0;
            config_fail(err, "CONFIG SET failed (possibly related to argument '%s') - %s", p->name,
                        why);
            return err->text;
        }
    }
    pending_commit_count = 0;
    return NULL;
}

void config_set_abandon(void)
{
    pending_commit_count = 0;
}

/* A startup-only parameter set to the value it has: accepted and changes
 * nothing, as the unchanged value takes effect already — unless Redis 7.0
 * holds it immutable too and it is named as Redis names it
 * (CFG_REDIS_IMMUTABLE). */
static bool immutable_set_to_current(const struct config_param *p, const char *name,
                                     size_t name_len, const char *value, size_t len)
{
    if ((p->flags & CFG_REDIS_IMMUTABLE) && name_is(p->name, name, name_len)) return false;
    struct buf current;
    buf_init(&current, 64);
    config_render(p, &current);
    bool same = buf_len(&current) == len && memcmp(buf_head(&current), value, len) == 0;
    buf_free(&current);
    return same;
}

const char *config_set_refusal(const char *name, size_t name_len, const char *value,
                               size_t value_len, bool protected_allowed)
{
    const struct config_param *p = config_find(name, name_len);
    if (!p) return NULL;
    if ((p->flags & CFG_IMMUTABLE) &&
        !immutable_set_to_current(p, name, name_len, value, value_len))
        return "can't set immutable config";
    if ((p->flags & CFG_PROTECTED) && !protected_allowed) return "can't set protected config";
    return NULL;
}

const char *config_set(const char *name, size_t name_len, const char *value, size_t value_len,
                       struct config_error *err)
{
    const struct config_param *p = config_find(name, name_len);
    if (!p) {
        config_fail(err, "Unknown option or number of arguments for CONFIG SET - '%.*s'",
                    (int)name_len, name);
        return err->text;
    }
    if (p->flags & CFG_IMMUTABLE) {
        if (immutable_set_to_current(p, name, name_len, value, value_len))
            return NULL; /* nothing changes */
        config_fail(
            err,
            "CONFIG SET failed (possibly related to argument '%s') - can't set immutable config",
            p->name);
        return err->text;
    }
    struct config_error why;
    if (!param_apply(p, value, value_len, &why)) {
        config_fail(err, "CONFIG SET failed (possibly related to argument '%s') - %s", p->name,
                    why.text);
        return err->text;
    }
    if (p->commit) commit_pending_add(p);
    return NULL;
}

static bool print_help_line(const struct config_param *p, void *arg)
{
    bool inert = arg != NULL;
    if (inert != ((p->flags & CFG_INERT) != 0)) return false;
    char left[64];
    snprintf(left, sizeof left, "--%s %s", p->name, p->value_name);
    printf("  %-34s %s%s\n", left, p->help, (p->flags & CFG_IMMUTABLE) ? " [startup]" : "");
    return false;
}

void config_print_help(void)
{
    printf("Usage: goblin-core [/path/to/redis.conf] [-] [--flag value ...]\n\n"
           "A Redis-compatible in-memory server built for request latency.\n\n"
           "Flags (each is also a CONFIG GET/SET parameter of the same name):\n");
    config_each(print_help_line, NULL);
    printf("  %-34s %s\n", "--help", "print this help and exit");
    printf("  %-34s %s\n", "--version", "print the version and exit");
    printf("\nRedis 7.0 settings accepted and kept (CONFIG GET/SET/REWRITE) with no effect here,\n"
           "and why (docs/configuration.md):\n");
    config_each(print_help_line, "inert");
}

/* --- defaults, directives, the command line ---------------------------- */

/* Each row's value as rendered before anything was applied (CONFIG
 * REWRITE writes only what differs from it), parallel to the rows. */
static const struct config_param **default_rows;
static char **default_texts;
static size_t default_count;

static bool snapshot_default(const struct config_param *p, void *arg)
{
    (void)arg;
    struct buf b;
    buf_init(&b, 32);
    config_render(p, &b);
    buf_append_char(&b, '\0');
    default_rows = xrealloc(default_rows, sizeof *default_rows * (default_count + 1));
    default_texts = xrealloc(default_texts, sizeof *default_texts * (default_count + 1));
    default_rows[default_count] = p;
    default_texts[default_count++] = xstrdup(buf_head(&b));
    buf_free(&b);
    return false;
}

const char *config_default_text(const struct config_param *p)
{
    for (size_t i = 0; i < default_count; i++)
        if (default_rows[i] == p) return default_texts[i];
    return "";
}

/* CFG_ACCUMULATES rows given a line in the current load. */
static const struct config_param **accumulated;
static size_t accumulated_count;

void config_load_begin(void)
{
    accumulated_count = 0;
}

static bool accumulated_before(const struct config_param *p)
{
    for (size_t i = 0; i < accumulated_count; i++)
        if (accumulated[i] == p) return true;
    accumulated = xrealloc(accumulated, sizeof *accumulated * (accumulated_count + 1));
    accumulated[accumulated_count++] = p;
    return false;
}

bool config_apply_directive(int argc, char *const *argv, struct config_error *err)
{
    const struct config_param *p = argc > 0 ? config_find(argv[0], strlen(argv[0])) : NULL;
    if (!p) return config_fail(err, "Bad directive or wrong number of arguments");
    int values = argc - 1;
    if (p->kind == CFG_CUSTOM && p->nargs > 1) {
        if (values != p->nargs) return config_fail(err, "wrong number of arguments");
        if (!p->parse((const char *const *)argv + 1, err)) return false;
        if (p->apply) p->apply();
        return true;
    }
    if (p->kind == CFG_FLAG && values == 0) { /* `enable-sbe` alone, as the flag */
        *(bool *)p->value = true;
        if (p->apply) p->apply();
        return true;
    }
    /* A multi-value directive with no value is an empty one (a first
     * `save` alone as `save ""`, as Redis; its own test suite writes it so). */
    bool multi = p->flags & CFG_MULTI_ARG;
    if (values != 1 && !multi) return config_fail(err, "wrong number of arguments");
    bool accumulates = (p->flags & CFG_ACCUMULATES) && accumulated_before(p);
    if (accumulates && values == 0) return true; /* a later bare `save` adds nothing */
    struct buf joined;
    buf_init(&joined, 64);
    if (accumulates && !(values == 1 && argv[1][0] == '\0')) {
        config_render(p, &joined); /* a further `save` line adds its points */
        if (buf_len(&joined)) buf_append_char(&joined, ' ');
    }
    for (int i = 1; i < argc; i++) {
        if (i > 1) buf_append_char(&joined, ' ');
        buf_append(&joined, argv[i], strlen(argv[i]));
    }
    bool ok = param_apply(p, buf_len(&joined) ? buf_head(&joined) : "", buf_len(&joined), err);
    if (p->flags & CFG_SECRET) explicit_bzero(buf_head(&joined), buf_len(&joined));
    buf_free(&joined);
    return ok;
}

static char *config_file_abs;
const char *config_file_path(void)
{
    return config_file_abs;
}

/* Redis's getAbsolutePath: relative to the working directory at startup. */
static char *absolute_path(const char *path)
{
    char *abs = realpath(path, NULL);
    if (abs) return abs;
    if (path[0] == '/') return xstrdup(path);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) return xstrdup(path);
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *out = xmalloc(n);
    snprintf(out, n, "%s/%s", cwd, path);
    return out;
}

/* Overwrites a secret's value in place in argv — the memory the kernel shows
 * as /proc/<pid>/cmdline and ps print — as Redis hides its own arguments.
 * The value's length stays visible as the run of '*'. */
static void arg_scrub(char *value)
{
    memset(value, '*', strlen(value));
}

static bool starts_option(const char *arg)
{
    return arg[0] == '-' && arg[1] == '-';
}

/* The command line as config lines, as redis-server 7.0 builds them: each
 * "--name" starts a line (the name as typed, so "--maxmemory 700mb" in one
 * argument is a whole line), every other word is a value of the line
 * before, quoted as sdscatrepr does, and the word right after a bare
 * "--name" is its value even when it starts with "--"
 * (`--proc-title-template --x`). A bare `--save` before another option or
 * last is `save ""`. goblin-core's additions: `--name=value` for a known
 * setting, and a boolean flag alone (`--enable-sbe`) takes no value. */
static void args_to_lines(int argc, char **argv, struct buf *out)
{
    bool value_next = false; /* the last word was a bare "--name" */
    bool secret = false;     /* the current line's setting is CFG_SECRET */
    struct buf words;
    buf_init(&words, 64);
    size_t *lens = NULL;
    int lens_cap = 0;
    for (int i = 0; i < argc; i++) {
        char *arg = argv[i];
        if (value_next || !starts_option(arg)) {
            buf_append_repr(out, arg, strlen(arg));
            buf_append_char(out, ' ');
            if (secret) arg_scrub(arg);
            value_next = false;
            continue;
        }
        char *name = arg + 2;
        if (buf_len(out)) buf_append_char(out, '\n');
        size_t name_len = strcspn(name, " \t\r\n");
        char *eq = memchr(name, '=', name_len);
        const struct config_param *p = config_find(name, eq ? (size_t)(eq - name) : name_len);
        secret = p && (p->flags & CFG_SECRET);
        if (eq && p) {
            buf_append(out, name, (size_t)(eq - name));
            buf_append_char(out, ' ');
            buf_append_repr(out, eq + 1, strlen(eq + 1));
            if (secret) arg_scrub(eq + 1);
            continue;
        }
        size_t len = strlen(name);
        buf_append(out, name, len);
        buf_append_char(out, ' ');
        buf_reset(&words, 64);
        if (split_args(name, len, &words, &lens, &lens_cap) != 1) {
            if (secret && name[name_len]) arg_scrub(name + name_len);
            continue; /* name and value in one argument */
        }
        bool last = i == argc - 1;
        bool before_option = !last && starts_option(argv[i + 1]);
        if (p && strcmp(p->name, "save") == 0 && (last || before_option)) {
            buf_append(out, "\"\"", 2);
            continue;
        }
        value_next = !(p && p->kind == CFG_FLAG);
    }
    xfree(lens);
    buf_free(&words);
}

bool config_parse_args(int argc, char **argv, bool *exit_now)
{
    *exit_now = false;
    config_each(snapshot_default, NULL);
    int first = 0;
    const char *file = NULL;
    bool from_stdin = false;
    /* redis-server's shape: an optional config file first, "-" (first or
     * last) for standard input, then options that override the file. */
    if (argc > 0 && argv[0][0] != '-') {
        file = argv[0];
        first = 1;
    }
    if (argc > first && strcmp(argv[first], "-") == 0) {
        from_stdin = true;
        first++;
    }
    if (argc > first && strcmp(argv[argc - 1], "-") == 0) {
        from_stdin = true;
        argc--;
    }
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            config_print_help();
            *exit_now = true;
            return true;
        }
        if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-v") == 0) {
            printf("goblin-core %s (redis_version %s)\n", GOBLIN_VERSION, GOBLIN_REDIS_VERSION);
            *exit_now = true;
            return true;
        }
    }
    struct buf options;
    buf_init(&options, 256);
    args_to_lines(argc - first, argv + first, &options);
    config_load_begin();
    if (file) config_file_abs = absolute_path(file);
    bool ok = config_load_file(config_file_abs, from_stdin, buf_head(&options), buf_len(&options));
    if (buf_len(&options)) explicit_bzero(buf_head(&options), buf_len(&options)); /* passwords */
    buf_free(&options);
    return ok;
}
