/* command.c — command index, dispatch and argument helpers; see command.h. */
#include "commands/command.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "connection/conn.h"
#include "server/server.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

/* Longest command name we index; longer names cannot be commands. */
#define COMMAND_NAME_MAX 32

/* Every family's table; a new family adds one line here. */
extern struct command hash_commands[], zset_commands[], object_commands[];
static struct command *const families[] = {
    connection_commands,
    server_commands,
    string_commands,
    key_commands,
    hash_commands,
    zset_commands,
    object_commands,
};

/* Open-addressing index of top-level commands by lowercase name. */
static struct command **index_slots;
static size_t index_mask;
static size_t total_commands;

static size_t lower_copy(char *dst, const char *src, size_t len)
{
    for (size_t i = 0; i < len; i++) dst[i] = (char)tolower((unsigned char)src[i]);
    return len;
}

static void index_insert(struct command *cmd)
{
    size_t len = strlen(cmd->name);
    size_t slot = hash_bytes(cmd->name, len) & index_mask;
    while (index_slots[slot]) slot = (slot + 1) & index_mask;
    index_slots[slot] = cmd;
}

static void init_names(struct command *cmd, const struct command *parent)
{
    cmd->parent = parent;
    if (parent) snprintf(cmd->full_name, sizeof cmd->full_name, "%s|%s", parent->name, cmd->name);
    else snprintf(cmd->full_name, sizeof cmd->full_name, "%s", cmd->name);
    if (cmd->subcommands)
        for (struct command *sub = (struct command *)cmd->subcommands; sub->name; sub++)
            init_names(sub, cmd);
}

void command_table_init(void)
{
    size_t n = 0;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (struct command *c = families[f]; c->name; c++) n++;
    total_commands = n;
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    index_slots = xcalloc(cap, sizeof *index_slots);
    index_mask = cap - 1;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
        for (struct command *c = families[f]; c->name; c++) {
            init_names(c, NULL);
            index_insert(c);
        }
    }
}

struct command *command_lookup(const char *name, size_t len)
{
    if (len == 0 || len > COMMAND_NAME_MAX) return NULL;
    char lower[COMMAND_NAME_MAX];
    lower_copy(lower, name, len);
    size_t slot = hash_bytes(lower, len) & index_mask;
    for (struct command *c; (c = index_slots[slot]); slot = (slot + 1) & index_mask)
        if (strncmp(c->name, lower, len) == 0 && c->name[len] == '\0') return c;
    return NULL;
}

struct command *command_lookup_sub(const struct command *parent, const char *name, size_t len)
{
    if (!parent->subcommands || len > COMMAND_NAME_MAX) return NULL;
    char lower[COMMAND_NAME_MAX];
    lower_copy(lower, name, len);
    for (struct command *sub = (struct command *)parent->subcommands; sub->name; sub++)
        if (strncmp(sub->name, lower, len) == 0 && sub->name[len] == '\0') return sub;
    return NULL;
}

void command_foreach(void (*fn)(struct command *cmd, void *arg), void *arg)
{
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (struct command *c = families[f]; c->name; c++) fn(c, arg);
}

size_t command_count(void)
{
    return total_commands;
}

static bool arity_ok(const struct command *cmd, int argc)
{
    return cmd->arity >= 0 ? argc == cmd->arity : argc >= -cmd->arity;
}

/* Redis's "unknown command" text: the name and up to 128 bytes of arguments. */
static void reply_unknown_command(struct reply *r, int argc, const char **argv,
                                  const size_t *argv_len)
{
    char args[256] = "";
    size_t used = 0;
    for (int i = 1; i < argc && used < 128; i++) {
        int room = 128 - (int)used;
        int n = snprintf(args + used, sizeof args - used, "'%.*s' ",
                         (int)(argv_len[i] < (size_t)room ? argv_len[i] : (size_t)room), argv[i]);
        if (n < 0) break;
        used += (size_t)n;
        if (used >= sizeof args) used = sizeof args - 1;
    }
    reply_error_fmt(r, "ERR unknown command '%.*s', with args beginning with: %s",
                    (int)(argv_len[0] < 128 ? argv_len[0] : 128), argv[0], args);
}

void command_dispatch(struct conn *conn, int argc, const char **argv, const size_t *argv_len)
{
    struct reply *r = &conn->reply;
    struct command *cmd = command_lookup(argv[0], argv_len[0]);
    if (!cmd) {
        reply_unknown_command(r, argc, argv, argv_len);
        return;
    }
    if (cmd->subcommands && argc >= 2) {
        struct command *sub = command_lookup_sub(cmd, argv[1], argv_len[1]);
        if (!sub) {
            /* Redis names the container as typed, upper-cased. */
            char upper[COMMAND_NAME_MAX + 1];
            for (size_t i = 0; i < argv_len[0]; i++)
                upper[i] = (char)toupper((unsigned char)argv[0][i]);
            upper[argv_len[0]] = '\0';
            reply_error_fmt(r, "ERR unknown subcommand '%.*s'. Try %s HELP.",
                            (int)(argv_len[1] < 128 ? argv_len[1] : 128), argv[1], upper);
            return;
        }
        cmd = sub;
    }
    if (!arity_ok(cmd, argc)) {
        reply_error_arity(r, cmd->full_name);
        return;
    }
    if (conn_auth_required(conn) && !(cmd->flags & CMD_NO_AUTH)) {
        reply_error(r, "NOAUTH Authentication required.");
        return;
    }
    struct cmd_ctx ctx = {
        .conn = conn,
        .reply = r,
        .db = keyspace_db(conn->db_index),
        .argc = argc,
        .argv = argv,
        .argv_len = argv_len,
        .cmd = cmd,
    };
    keyspace_begin_command();
    cmd->fn(&ctx);
    cmd->calls++;
    conn->last_command = cmd->full_name;
    server.stats.commands_processed++;
}

bool arg_equals(const struct cmd_ctx *ctx, int i, const char *word)
{
    size_t n = strlen(word);
    if (ctx->argv_len[i] != n) return false;
    for (size_t k = 0; k < n; k++)
        if (tolower((unsigned char)ctx->argv[i][k]) != word[k]) return false;
    return true;
}

bool arg_to_ll(struct cmd_ctx *ctx, int i, long long *out)
{
    if (num_parse_ll(ctx->argv[i], ctx->argv_len[i], out)) return true;
    reply_error_not_integer(ctx->reply);
    return false;
}

bool arg_to_double(struct cmd_ctx *ctx, int i, double *out)
{
    if (num_parse_double(ctx->argv[i], ctx->argv_len[i], out)) return true;
    reply_error_not_float(ctx->reply);
    return false;
}
