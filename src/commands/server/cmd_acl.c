/* cmd_acl.c — the ACL command and the ACL admission check (docs/acl.md).
 *
 * The users and their rules live in core/acl.h; this file describes the
 * command table to it (ids, subcommands, categories from the metadata
 * COMMAND INFO carries), checks each request of a restricted user at
 * dispatch (the admission hook: installed only while some user is
 * restricted, so with the default user alone it costs nothing), and
 * answers ACL's subcommands as Redis 7.0.15 does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands/acl_check.h"
#include "commands/command.h"
#include "connection/session.h"
#include "core/acl.h"
#include "util/buf.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

static struct acl_command_info *infos;
static struct command **by_id; /* the row of each ACL id */
static int info_count;

struct init_walk {
    int cap;
};

static int add_info(struct command *cmd, int parent)
{
    int id = info_count++;
    const char *cats[64];
    int n = command_acl_categories(cmd, cats, 64);
    uint32_t bits = 0;
    for (int i = 0; i < n; i++) {
        int b = acl_category_lookup(cats[i] + 1, strlen(cats[i]) - 1);
        if (b >= 0) bits |= 1u << b;
    }
    infos[id] = (struct acl_command_info){.full_name = cmd->full_name,
                                          .parent = parent,
                                          .categories = bits,
                                          .no_auth = (cmd->flags & CMD_NO_AUTH) != 0,
                                          .in_redis = cmd->meta != NULL};
    by_id[id] = cmd;
    cmd->acl_id = id;
    return id;
}

static void count_one(struct command *cmd, void *arg)
{
    int *n = arg;
    (*n)++;
    if (cmd->subcommands)
        for (const struct command *s = cmd->subcommands; s->name; s++) (*n)++;
}

static void describe_one(struct command *cmd, void *arg)
{
    (void)arg;
    int id = add_info(cmd, -1);
    if (!cmd->subcommands) return;
    infos[id].first_sub = info_count;
    for (struct command *s = (struct command *)cmd->subcommands; s->name; s++) {
        add_info(s, id);
        infos[id].sub_count++;
    }
}

static void acl_changed(void)
{
    command_set_admission(acl_any_restricted() ? acl_admit : NULL);
}

void acl_commands_init(void)
{
    int n = 0;
    command_foreach(count_one, &n);
    infos = xcalloc((size_t)n, sizeof *infos);
    by_id = xcalloc((size_t)n, sizeof *by_id);
    command_foreach(describe_one, NULL);
    acl_set_commands(infos, info_count);
    acl_check_init();
    acl_set_change_listener(acl_changed);
    acl_changed();
}

struct command *acl_command_row(int id)
{
    return by_id[id];
}

/* --- ACL subcommands ----------------------------------------------------- */

static void reply_buf(struct reply *r, struct buf *b)
{
    reply_bulk(r, buf_head(b), buf_len(b));
}

static void reply_selector(struct reply *r, const struct acl_selector *s, struct buf *b)
{
    reply_bulk_cstr(r, "commands");
    buf_reset(b, 4096);
    acl_describe_commands(s, b);
    reply_buf(r, b);
    reply_bulk_cstr(r, "keys");
    buf_reset(b, 4096);
    acl_describe_keys(s, b);
    reply_buf(r, b);
    reply_bulk_cstr(r, "channels");
    buf_reset(b, 4096);
    acl_describe_channels(s, b);
    reply_buf(r, b);
}

static void cmd_acl_getuser(struct cmd_ctx *ctx)
{
    const struct acl_user *u = acl_user_find(ctx->argv[2], ctx->argv_len[2]);
    struct reply *r = ctx->reply;
    if (!u) {
        reply_nil(r);
        return;
    }
    static const struct {
        unsigned flag;
        const char *name;
    } flag_names[] = {
        {ACL_USER_ENABLED, "on"},
        {ACL_USER_DISABLED, "off"},
        {ACL_USER_NOPASS, "nopass"},
        {ACL_USER_SKIP_SANITIZE, "skip-sanitize-payload"},
        {ACL_USER_SANITIZE, "sanitize-payload"},
    };
    reply_map_len(r, 6);
    reply_bulk_cstr(r, "flags");
    int nflags = 0;
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (u->flags & flag_names[i].flag) nflags++;
    reply_set_len(r, nflags);
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (u->flags & flag_names[i].flag) reply_bulk_cstr(r, flag_names[i].name);
    reply_bulk_cstr(r, "passwords");
    reply_array_len(r, u->password_count);
    for (int i = 0; i < u->password_count; i++) reply_bulk(r, u->passwords[i], ACL_PASSWORD_HEX);
    struct buf b;
    buf_init(&b, 256);
    reply_selector(r, &u->selectors[0], &b);
    reply_bulk_cstr(r, "selectors");
    reply_array_len(r, u->selector_count - 1);
    for (int i = 1; i < u->selector_count; i++) {
        reply_map_len(r, 3);
        reply_selector(r, &u->selectors[i], &b);
    }
    buf_free(&b);
}

static bool has_spaces(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' ||
            s[i] == '\f' || s[i] == '\0')
            return true;
    return false;
}

static void cmd_acl_setuser(struct cmd_ctx *ctx)
{
    const char *name = ctx->argv[2];
    size_t name_len = ctx->argv_len[2];
    if (has_spaces(name, name_len)) {
        reply_error(ctx->reply, "ERR Usernames can't contain spaces or null characters");
        return;
    }
    /* Redis's ACLMergeSelectorArguments: "(a" "b)" become "(a b)". */
    int argc = ctx->argc - 3;
    const char **args = xmalloc(sizeof *args * (size_t)(argc + 1));
    size_t *lens = xmalloc(sizeof *lens * (size_t)(argc + 1));
    char **owned = xcalloc((size_t)(argc + 1), sizeof *owned);
    int merged = 0, open_at = -1;
    struct buf sel;
    buf_init(&sel, 64);
    for (int j = 0; j < argc; j++) {
        const char *op = ctx->argv[3 + j];
        size_t len = ctx->argv_len[3 + j];
        if (open_at < 0 && len && op[0] == '(' && op[len - 1] != ')') {
            buf_reset(&sel, 64);
            buf_append(&sel, op, len);
            open_at = j;
            continue;
        }
        if (open_at >= 0) {
            buf_append_char(&sel, ' ');
            buf_append(&sel, op, len);
            if (len && op[len - 1] == ')') {
                owned[merged] = xmemdup(buf_head(&sel), buf_len(&sel));
                args[merged] = owned[merged];
                lens[merged++] = buf_len(&sel);
                open_at = -1;
            }
            continue;
        }
        args[merged] = op;
        lens[merged++] = len;
    }
    if (open_at >= 0) {
        reply_error_fmt(ctx->reply, "ERR Unmatched parenthesis in acl selector starting at '%.*s'.",
                        (int)ctx->argv_len[3 + open_at], ctx->argv[3 + open_at]);
    } else {
        char err[1024];
        struct acl_user *before = acl_user_find(name, name_len);
        struct acl_user *old = before ? acl_user_clone(before) : NULL;
        if (acl_setuser(name, name_len, merged, args, lens, err, sizeof err)) {
            if (old) acl_kill_pubsub_clients_if_needed(acl_user_find(name, name_len), old);
            reply_ok(ctx->reply);
        } else {
            reply_error_fmt(ctx->reply, "ERR %s", err);
        }
        acl_user_free(old);
    }
    buf_free(&sel);
    for (int j = 0; j < merged; j++) xfree(owned[j]);
    xfree(owned);
    xfree(lens);
    xfree(args);
}

static void cmd_acl_deluser(struct cmd_ctx *ctx)
{
    for (int j = 2; j < ctx->argc; j++)
        if (ctx->argv_len[j] == 7 && memcmp(ctx->argv[j], "default", 7) == 0) {
            reply_error(ctx->reply, "ERR The 'default' user cannot be removed");
            return;
        }
    long long deleted = 0;
    for (int j = 2; j < ctx->argc; j++) {
        if (!acl_user_find(ctx->argv[j], ctx->argv_len[j])) continue;
        acl_kill_user_clients(ctx->argv[j], ctx->argv_len[j], ctx->conn);
        if (acl_user_delete(ctx->argv[j], ctx->argv_len[j])) deleted++;
    }
    reply_int(ctx->reply, deleted);
}

static void cmd_acl_list(struct cmd_ctx *ctx)
{
    int n = acl_user_count();
    reply_array_len(ctx->reply, n);
    struct buf b;
    buf_init(&b, 256);
    for (int i = 0; i < n; i++) {
        const struct acl_user *u = acl_user_at(i);
        buf_reset(&b, 4096);
        buf_append(&b, "user ", 5);
        buf_append(&b, u->name, u->name_len);
        buf_append_char(&b, ' ');
        acl_describe_user(u, &b);
        reply_buf(ctx->reply, &b);
    }
    buf_free(&b);
}

static void cmd_acl_users(struct cmd_ctx *ctx)
{
    int n = acl_user_count();
    reply_array_len(ctx->reply, n);
    for (int i = 0; i < n; i++)
        reply_bulk(ctx->reply, acl_user_at(i)->name, acl_user_at(i)->name_len);
}

static void cmd_acl_whoami(struct cmd_ctx *ctx)
{
    reply_bulk_cstr(ctx->reply, session_user(ctx->conn));
}

static void cmd_acl_cat(struct cmd_ctx *ctx)
{
    if (ctx->argc > 3) {
        reply_subcommand_syntax_error(ctx);
        return;
    }
    if (ctx->argc == 2) {
        reply_array_len(ctx->reply, ACL_CATEGORY_COUNT);
        for (int i = 0; i < ACL_CATEGORY_COUNT; i++)
            reply_bulk_cstr(ctx->reply, acl_category_names[i]);
        return;
    }
    int cat = acl_category_lookup(ctx->argv[2], ctx->argv_len[2]);
    if (cat < 0) {
        reply_error_fmt(ctx->reply, "ERR Unknown category '%.*s'", (int)ctx->argv_len[2],
                        ctx->argv[2]);
        return;
    }
    reply_mark m = reply_defer(ctx->reply);
    long long n = 0;
    for (int id = 0; id < acl_command_count(); id++)
        if (acl_command(id)->categories & (1u << cat)) {
            reply_bulk_cstr(ctx->reply, acl_command(id)->full_name);
            n++;
        }
    reply_defer_array(ctx->reply, m, n);
}

static void cmd_acl_genpass(struct cmd_ctx *ctx)
{
    if (ctx->argc > 3) {
        reply_subcommand_syntax_error(ctx);
        return;
    }
    long long bits = 256;
    if (ctx->argc == 3 && !arg_to_ll(ctx, 2, &bits)) return;
    if (bits <= 0 || bits > 4096) {
        reply_error(ctx->reply, "ERR ACL GENPASS argument must be the number of bits for the "
                                "output password, a positive number up to 4096");
        return;
    }
    char out[1025];
    acl_genpass((int)bits, out);
    reply_bulk_cstr(ctx->reply, out);
}

static void cmd_acl_dryrun(struct cmd_ctx *ctx)
{
    const struct acl_user *u = acl_user_find(ctx->argv[2], ctx->argv_len[2]);
    if (!u) {
        reply_error_fmt(ctx->reply, "ERR User '%.*s' not found", (int)ctx->argv_len[2],
                        ctx->argv[2]);
        return;
    }
    int argc = ctx->argc - 3;
    const char *const *argv = ctx->argv + 3;
    const size_t *lens = ctx->argv_len + 3;
    struct command *cmd = command_lookup(argv[0], lens[0]);
    if (cmd && cmd->subcommands && argc >= 2) cmd = command_lookup_sub(cmd, argv[1], lens[1]);
    if (!cmd) {
        reply_error_fmt(ctx->reply, "ERR Command '%.*s' not found", (int)lens[0], argv[0]);
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        reply_error_fmt(ctx->reply, "ERR wrong number of arguments for '%s' command",
                        cmd->full_name);
        return;
    }
    int pos = 0;
    enum acl_result res = acl_check_call(u, cmd, argc, argv, lens, &pos);
    if (res == ACL_OK) {
        reply_ok(ctx->reply);
        return;
    }
    struct buf b;
    buf_init(&b, 128);
    acl_denial_text(res, cmd, argv[pos], lens[pos], true, &b);
    reply_buf(ctx->reply, &b);
    buf_free(&b);
}

static void cmd_acl_log(struct cmd_ctx *ctx)
{
    acl_log_command(ctx);
}

static void cmd_acl_load(struct cmd_ctx *ctx)
{
    acl_file_load_command(ctx);
}

static void cmd_acl_save(struct cmd_ctx *ctx)
{
    acl_file_save_command(ctx);
}

static void cmd_acl_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Returns whether the user can execute the given command without executing the "
        "command.",
        "GETUSER <username>",
        "    Get the user's details.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

#define ACL_FLAGS (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)
#define ACL_OPEN_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

#define ACL_SUB(n, a, f, fn_, sum, since_, cx)                                                     \
    {                                                                                              \
        .name = n, .arity = a, .flags = f, .fn = fn_, .summary = sum, .since = since_,             \
        .group = "server", .complexity = cx                                                        \
    }

static struct command acl_subcommands[] = {
    ACL_SUB("cat", -2, ACL_OPEN_FLAGS, cmd_acl_cat,
            "List the ACL categories or the commands inside a category", "6.0.0",
            "O(1) since the categories and commands are a fixed set."),
    ACL_SUB("deluser", -3, ACL_FLAGS, cmd_acl_deluser,
            "Remove the specified ACL users and the associated rules", "6.0.0",
            "O(1) amortized time considering the typical user."),
    ACL_SUB("dryrun", -4, ACL_FLAGS, cmd_acl_dryrun,
            "Returns whether the user can execute the given command without executing the command.",
            "7.0.0", "O(1)."),
    ACL_SUB("genpass", -2, ACL_OPEN_FLAGS, cmd_acl_genpass,
            "Generate a pseudorandom secure password to use for ACL users", "6.0.0", "O(1)"),
    ACL_SUB("getuser", 3, ACL_FLAGS, cmd_acl_getuser, "Get the rules for a specific ACL user",
            "6.0.0",
            "O(N). Where N is the number of password, command and pattern rules that the "
            "user has."),
    ACL_SUB("help", 2, CMD_LOADING | CMD_STALE, cmd_acl_help,
            "Show helpful text about the different subcommands", "6.0.0", "O(1)"),
    ACL_SUB("list", 2, ACL_FLAGS, cmd_acl_list,
            "List the current ACL rules in ACL config file format", "6.0.0",
            "O(N). Where N is the number of configured users."),
    ACL_SUB("load", 2, ACL_FLAGS, cmd_acl_load, "Reload the ACLs from the configured ACL file",
            "6.0.0", "O(N). Where N is the number of configured users."),
    ACL_SUB("log", -2, ACL_FLAGS, cmd_acl_log, "List latest events denied because of ACLs in place",
            "6.0.0", "O(N) with N being the number of entries shown."),
    ACL_SUB("save", 2, ACL_FLAGS, cmd_acl_save,
            "Save the current ACL rules in the configured ACL file", "6.0.0",
            "O(N). Where N is the number of configured users."),
    ACL_SUB("setuser", -3, ACL_FLAGS, cmd_acl_setuser,
            "Modify or create the rules for a specific ACL user", "6.0.0",
            "O(N). Where N is the number of rules provided."),
    ACL_SUB("users", 2, ACL_FLAGS, cmd_acl_users,
            "List the username of all the configured ACL rules", "6.0.0",
            "O(N). Where N is the number of configured users."),
    ACL_SUB("whoami", 2, ACL_OPEN_FLAGS, cmd_acl_whoami,
            "Return the name of the user associated to the current connection", "6.0.0", "O(1)"),
    COMMAND_END,
};

struct command acl_commands[] = {
    {.name = "acl",
     .arity = -2,
     .subcommands = acl_subcommands,
     .summary = "A container for Access List Control commands ",
     .since = "6.0.0",
     .group = "server",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
