/* cmd_command.c — COMMAND: introspection of the command table (what redis-cli
 * and client libraries read to learn arity, flags, key positions and docs). */
#include <string.h>
#include <strings.h>

#include "commands/command.h"
#include "commands/command_meta.h"
#include "util/glob.h"
#include "util/xmalloc.h"

struct flag_name {
    uint32_t flag;
    const char *name;
};

static const struct flag_name flag_names[] = {
    {CMD_WRITE, "write"},     {CMD_READONLY, "readonly"}, {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"},     {CMD_PUBSUB, "pubsub"},     {CMD_NOSCRIPT, "noscript"},
    {CMD_LOADING, "loading"}, {CMD_STALE, "stale"},       {CMD_FAST, "fast"},
    {CMD_NO_AUTH, "no_auth"},
};

static void reply_flags(struct reply *r, const struct command *cmd)
{
    long long n = 0;
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (cmd->flags & flag_names[i].flag) n++;
    reply_set_len(r, n);
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (cmd->flags & flag_names[i].flag) reply_status(r, flag_names[i].name);
}

/* ACL categories derived from the flags and the group, as Redis assigns
 * them (commands Redis 7.0 lacks; the others have Redis's own list in
 * their metadata). Fills cats (6 entries) and returns how many. */
static int derived_categories(const struct command *cmd, const char *cats[6])
{
    int n = 0;
    const char *group = cmd->group ? cmd->group : (cmd->parent ? cmd->parent->group : "");
    if (cmd->flags & CMD_WRITE) cats[n++] = "@write";
    if (cmd->flags & CMD_READONLY) cats[n++] = "@read";
    if (cmd->flags & CMD_ADMIN) cats[n++] = "@admin", cats[n++] = "@dangerous";
    if (strcmp(group, "string") == 0)
        cats[n++] = "@string";
    else if (strcmp(group, "hash") == 0)
        cats[n++] = "@hash";
    else if (strcmp(group, "sorted_set") == 0)
        cats[n++] = "@sortedset";
    else if (strcmp(group, "set") == 0)
        cats[n++] = "@set";
    else if (strcmp(group, "bitmap") == 0)
        cats[n++] = "@bitmap";
    else if (strcmp(group, "hyperloglog") == 0)
        cats[n++] = "@hyperloglog";
    else if (strcmp(group, "generic") == 0)
        cats[n++] = "@keyspace";
    else if (strcmp(group, "pubsub") == 0)
        cats[n++] = "@pubsub";
    else if (strcmp(group, "connection") == 0)
        cats[n++] = "@connection";
    cats[n++] = (cmd->flags & CMD_FAST) ? "@fast" : "@slow";
    return n;
}

static void reply_categories(struct reply *r, const struct command *cmd)
{
    const char *cats[6];
    int n = derived_categories(cmd, cats);
    reply_set_len(r, n);
    for (int i = 0; i < n; i++) reply_status(r, cats[i]);
}

int command_acl_categories(const struct command *cmd, const char **cats, int cap)
{
    int n = 0;
    if (cmd->meta) {
        /* COMMAND INFO's preorder: name, arity, the flags set and its
         * members, first, last, step, then the categories set. */
        const struct meta_node *node = cmd->meta->info + 2;
        node += 1 + node->n + 3;
        for (int i = 0; i < node->n && n < cap; i++) cats[n++] = node[1 + i].s;
        return n;
    }
    const char *derived[6];
    int d = derived_categories(cmd, derived);
    for (int i = 0; i < d && n < cap; i++) cats[n++] = derived[i];
    return n;
}

/* Whether cmd is in ACL category `name` (without the '@', any case): the
 * set COMMAND INFO shows, Redis's own for the commands it has. */
static bool command_in_category(const struct command *cmd, const char *name, size_t len)
{
    const char *cats[64];
    int n = command_acl_categories(cmd, cats, 64);
    for (int i = 0; i < n; i++)
        if (strlen(cats[i]) == len + 1 && strncasecmp(cats[i] + 1, name, len) == 0) return true;
    return false;
}

static void reply_key_specs(struct reply *r, const struct command *cmd)
{
    if (cmd->first_key <= 0) {
        reply_array_len(r, 0);
        return;
    }
    reply_array_len(r, 1);
    reply_map_len(r, 3);
    reply_bulk_cstr(r, "flags");
    reply_set_len(r, 1);
    reply_status(r, (cmd->flags & CMD_WRITE) ? "RW" : "RO");
    reply_bulk_cstr(r, "begin_search");
    reply_map_len(r, 2);
    reply_bulk_cstr(r, "type");
    reply_bulk_cstr(r, "index");
    reply_bulk_cstr(r, "spec");
    reply_map_len(r, 1);
    reply_bulk_cstr(r, "index");
    reply_int(r, cmd->first_key);
    reply_bulk_cstr(r, "find_keys");
    reply_map_len(r, 2);
    reply_bulk_cstr(r, "type");
    reply_bulk_cstr(r, "range");
    reply_bulk_cstr(r, "spec");
    reply_map_len(r, 3);
    reply_bulk_cstr(r, "lastkey");
    reply_int(r, cmd->last_key < 0 ? cmd->last_key : cmd->last_key - cmd->first_key);
    reply_bulk_cstr(r, "keystep");
    reply_int(r, cmd->key_step);
    reply_bulk_cstr(r, "limit");
    reply_int(r, 0);
}

static long long subcommand_count(const struct command *cmd)
{
    long long n = 0;
    if (cmd->subcommands)
        for (const struct command *s = cmd->subcommands; s->name; s++) n++;
    return n;
}

/* Replays one stored value (and its children); returns the node after it. */
static const struct meta_node *meta_reply(struct reply *r, const struct meta_node *node)
{
    long long children = 0;
    switch (node->type) {
    case META_ARRAY:
        reply_array_len(r, node->n);
        children = node->n;
        break;
    case META_SET:
        reply_set_len(r, node->n);
        children = node->n;
        break;
    case META_MAP:
        reply_map_len(r, node->n);
        children = 2 * node->n;
        break;
    case META_STATUS:
        reply_status(r, node->s);
        break;
    case META_BULK:
        reply_bulk_cstr(r, node->s);
        break;
    case META_INT:
        reply_int(r, node->n);
        break;
    }
    node++;
    for (long long i = 0; i < children; i++) node = meta_reply(r, node);
    return node;
}

/* A command Redis 7.0 has is described by Redis's own words (the generated
 * table); the others by their hand-written rows. Subcommands are always
 * goblin-core's own. */
static void reply_command_info(struct reply *r, const struct command *cmd)
{
    reply_array_len(r, 10);
    if (cmd->meta) {
        const struct meta_node *node = cmd->meta->info;
        for (int i = 0; i < 9; i++) node = meta_reply(r, node);
        goto subcommands;
    }
    reply_bulk_cstr(r, cmd->full_name);
    reply_int(r, cmd->arity);
    reply_flags(r, cmd);
    reply_int(r, cmd->first_key);
    reply_int(r, cmd->last_key);
    reply_int(r, cmd->key_step);
    reply_categories(r, cmd);
    reply_set_len(r, 0); /* tips */
    reply_key_specs(r, cmd);
subcommands:
    if (!cmd->subcommands) {
        reply_set_len(r, 0); /* Redis's RESP3 type for "none" */
        return;
    }
    reply_array_len(r, subcommand_count(cmd));
    for (const struct command *s = cmd->subcommands; s->name; s++) reply_command_info(r, s);
}

static void reply_command_docs(struct reply *r, const struct command *cmd)
{
    long long subs = subcommand_count(cmd);
    if (cmd->meta) {
        reply_map_len(r, cmd->meta->docs_pairs + (subs ? 1 : 0));
        const struct meta_node *node = cmd->meta->docs;
        for (int i = 0; i < 2 * cmd->meta->docs_pairs; i++) node = meta_reply(r, node);
        goto subcommands;
    }
    reply_map_len(r, 4 + (subs ? 1 : 0));
    reply_bulk_cstr(r, "summary");
    reply_bulk_cstr(r, cmd->summary ? cmd->summary : "");
    reply_bulk_cstr(r, "since");
    reply_bulk_cstr(r, cmd->since ? cmd->since : "1.0.0");
    reply_bulk_cstr(r, "group");
    reply_bulk_cstr(r, cmd->group ? cmd->group : (cmd->parent ? cmd->parent->group : "server"));
    reply_bulk_cstr(r, "complexity");
    reply_bulk_cstr(r, cmd->complexity ? cmd->complexity : "O(1)");
subcommands:
    if (subs) {
        reply_bulk_cstr(r, "subcommands");
        reply_map_len(r, subs);
        for (const struct command *s = cmd->subcommands; s->name; s++) {
            reply_bulk_cstr(r, s->full_name);
            reply_command_docs(r, s);
        }
    }
}

static void visit_info(struct command *cmd, void *arg)
{
    reply_command_info(arg, cmd);
}

static void cmd_command(struct cmd_ctx *ctx)
{
    reply_array_len(ctx->reply, (long long)command_count());
    command_foreach(visit_info, ctx->reply);
}

static void cmd_command_count(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, (long long)command_count());
}

static void cmd_command_info(struct cmd_ctx *ctx)
{
    if (ctx->argc == 2) {
        cmd_command(ctx);
        return;
    }
    reply_array_len(ctx->reply, ctx->argc - 2);
    for (int j = 2; j < ctx->argc; j++) {
        const struct command *cmd = command_lookup_full(ctx->argv[j], ctx->argv_len[j]);
        if (cmd)
            reply_command_info(ctx->reply, cmd);
        else
            reply_nil(ctx->reply);
    }
}

static void visit_docs(struct command *cmd, void *arg)
{
    reply_bulk_cstr(arg, cmd->full_name);
    reply_command_docs(arg, cmd);
}

static void cmd_command_docs(struct cmd_ctx *ctx)
{
    if (ctx->argc == 2) {
        reply_map_len(ctx->reply, (long long)command_count());
        command_foreach(visit_docs, ctx->reply);
        return;
    }
    reply_mark m = reply_defer(ctx->reply);
    long long found = 0;
    for (int j = 2; j < ctx->argc; j++) {
        const struct command *cmd = command_lookup_full(ctx->argv[j], ctx->argv_len[j]);
        if (!cmd) continue;
        reply_bulk_cstr(ctx->reply, cmd->full_name);
        reply_command_docs(ctx->reply, cmd);
        found++;
    }
    reply_defer_map(ctx->reply, m, found);
}

enum list_filter_kind { LIST_ALL, LIST_PATTERN, LIST_ACLCAT, LIST_MODULE };

struct list_filter {
    struct reply *reply;
    enum list_filter_kind kind;
    const char *arg; /* the pattern or the category */
    size_t arg_len;
    long long count;
};

static bool list_wanted(const struct list_filter *f, const struct command *cmd)
{
    switch (f->kind) {
    case LIST_ALL:
        return true;
    case LIST_PATTERN:
        return glob_match(f->arg, f->arg_len, cmd->full_name, strlen(cmd->full_name), true);
    case LIST_ACLCAT:
        return command_in_category(cmd, f->arg, f->arg_len);
    case LIST_MODULE: /* no module is ever loaded (MODULE LOAD is refused) */
        return false;
    }
    return false;
}

static void list_one(struct list_filter *f, const struct command *cmd)
{
    if (list_wanted(f, cmd)) {
        reply_bulk_cstr(f->reply, cmd->full_name);
        f->count++;
    }
    if (cmd->subcommands)
        for (const struct command *s = cmd->subcommands; s->name; s++) list_one(f, s);
}

static void visit_list(struct command *cmd, void *arg)
{
    list_one(arg, cmd);
}

/* COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern] */
static void cmd_command_list(struct cmd_ctx *ctx)
{
    struct list_filter f = {.reply = ctx->reply, .kind = LIST_ALL};
    for (int i = 2; i < ctx->argc; i += 3) {
        if (!arg_equals(ctx, i, "filterby") || ctx->argc - 1 - i != 2) {
            reply_error_syntax(ctx->reply);
            return;
        }
        if (arg_equals(ctx, i + 1, "module")) {
            f.kind = LIST_MODULE;
        } else if (arg_equals(ctx, i + 1, "aclcat")) {
            f.kind = LIST_ACLCAT;
        } else if (arg_equals(ctx, i + 1, "pattern")) {
            f.kind = LIST_PATTERN;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
        f.arg = ctx->argv[i + 2];
        f.arg_len = ctx->argv_len[i + 2];
    }
    reply_mark m = reply_defer(ctx->reply);
    command_foreach(visit_list, &f);
    reply_defer_array(ctx->reply, m, f.count);
}

/* COMMAND GETKEYS / GETKEYSANDFLAGS <full command>: Redis's checks in
 * Redis's order, then the keys command_keys() finds. */
static void command_getkeys(struct cmd_ctx *ctx, bool with_flags)
{
    int argc = ctx->argc - 2;
    const char *const *argv = ctx->argv + 2;
    const size_t *argv_len = ctx->argv_len + 2;
    const struct command *cmd = command_lookup(argv[0], argv_len[0]);
    if (cmd && cmd->subcommands && argc >= 2) cmd = command_lookup_sub(cmd, argv[1], argv_len[1]);
    if (!cmd) {
        reply_error(ctx->reply, "ERR Invalid command specified");
        return;
    }
    if (!command_has_keys(cmd)) {
        reply_error(ctx->reply, "ERR The command has no key arguments");
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        reply_error(ctx->reply, "ERR Invalid number of arguments specified for command");
        return;
    }
    /* Each key spec names an argument at most once, a rule one more. */
    int cap = argc * ((cmd->meta ? cmd->meta->key_spec_count : 0) + 1) + 1;
    struct key_ref *keys = xmalloc((size_t)cap * sizeof *keys);
    int n = command_keys(cmd, argc, argv, argv_len, keys, cap);
    if (n == 0 && !(cmd->meta && cmd->meta->no_mandatory_keys)) {
        reply_error(ctx->reply, "ERR Invalid arguments specified for command");
    } else {
        reply_array_len(ctx->reply, n);
        for (int i = 0; i < n; i++) {
            if (with_flags) reply_array_len(ctx->reply, 2);
            reply_bulk(ctx->reply, argv[keys[i].pos], argv_len[keys[i].pos]);
            if (!with_flags) continue;
            long long count = 0;
            for (int b = 0; b < KEY_SPEC_FLAG_COUNT; b++) count += (keys[i].flags >> b) & 1;
            reply_set_len(ctx->reply, count);
            for (int b = 0; b < KEY_SPEC_FLAG_COUNT; b++)
                if (keys[i].flags & (1u << b)) reply_status(ctx->reply, key_spec_flag_names[b]);
        }
    }
    xfree(keys);
}

static void cmd_command_getkeys(struct cmd_ctx *ctx)
{
    command_getkeys(ctx, false);
}

static void cmd_command_getkeysandflags(struct cmd_ctx *ctx)
{
    command_getkeys(ctx, true);
}

static void cmd_command_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

#define COMMAND_SUB(n, a, f, s)                                                                    \
    {                                                                                              \
        .name = n, .arity = a, .flags = CMD_LOADING | CMD_STALE, .fn = f, .summary = s,            \
        .since = "2.8.13", .group = "server",                                                      \
        .complexity = "O(N) where N is the number of commands"                                     \
    }

static struct command command_subcommands[] = {
    COMMAND_SUB("count", 2, cmd_command_count, "Returns a count of commands."),
    COMMAND_SUB("info", -2, cmd_command_info,
                "Returns information about one, multiple or all commands."),
    COMMAND_SUB("docs", -2, cmd_command_docs,
                "Returns documentary information about one, multiple or all commands."),
    COMMAND_SUB("list", -2, cmd_command_list, "Returns a list of command names."),
    COMMAND_SUB("getkeys", -4, cmd_command_getkeys,
                "Extracts the key names from an arbitrary command."),
    COMMAND_SUB("getkeysandflags", -4, cmd_command_getkeysandflags,
                "Extracts the key names and access flags for an arbitrary command."),
    COMMAND_SUB("help", 2, cmd_command_help,
                "Returns helpful text about the different subcommands."),
    COMMAND_END,
};

struct command introspection_commands[] = {
    {.name = "command",
     .arity = -1,
     .flags = CMD_LOADING | CMD_STALE,
     .fn = cmd_command,
     .subcommands = command_subcommands,
     .summary = "Returns detailed information about all commands.",
     .since = "2.8.13",
     .group = "server",
     .complexity = "O(N) where N is the total number of Redis commands"},
    COMMAND_END,
};
