/* cmd_connection.c — commands about the connection itself: PING, ECHO, QUIT,
 * SELECT, AUTH, HELLO, CLIENT. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commands/command.h"
#include "connection/conn.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/version.h"
#include "util/xmalloc.h"

static void cmd_ping(struct cmd_ctx *ctx)
{
    if (ctx->argc > 2) {
        reply_error_arity(ctx->reply, "ping");
        return;
    }
    if (conn_in_resp2_subscribed_mode(ctx->conn)) {
        /* Redis answers a subscribed RESP2 client in the shape of a message. */
        reply_array_len(ctx->reply, 2);
        reply_bulk(ctx->reply, "pong", 4);
        if (ctx->argc == 2)
            reply_bulk(ctx->reply, ctx->argv[1], ctx->argv_len[1]);
        else
            reply_bulk(ctx->reply, "", 0);
        return;
    }
    if (ctx->argc == 2)
        reply_bulk(ctx->reply, ctx->argv[1], ctx->argv_len[1]);
    else
        reply_status(ctx->reply, "PONG");
}

static void cmd_echo(struct cmd_ctx *ctx)
{
    reply_bulk(ctx->reply, ctx->argv[1], ctx->argv_len[1]);
}

static void cmd_quit(struct cmd_ctx *ctx)
{
    reply_ok(ctx->reply);
    ctx->conn->flags |= CONN_CLOSE_AFTER_REPLY;
}

static void cmd_select(struct cmd_ctx *ctx)
{
    long long id;
    if (!arg_to_ll(ctx, 1, &id)) return;
    if (id < INT32_MIN || id > INT32_MAX) { /* Redis reads the index as an int */
        reply_error(ctx->reply,
                    "ERR value is out of range, value must between -2147483648 and 2147483647");
        return;
    }
    if (id < 0 || id >= keyspace.count) {
        reply_error(ctx->reply, "ERR DB index is out of range");
        return;
    }
    ctx->conn->db_index = (int)id;
    reply_ok(ctx->reply);
}

/* RESET: back to a fresh connection (db 0, RESP2, no name, no
 * subscriptions, logged out when a password is required). */
static void cmd_reset(struct cmd_ctx *ctx)
{
    conn_reset(ctx->conn);
    reply_status(ctx->reply, "RESET");
}

/* --- authentication -------------------------------------------------- */

/* Checks user/password and marks the conn; replies only on failure. The
 * throttle errors are the same whether or not the user exists. */
static bool authenticate(struct cmd_ctx *ctx, const char *user, size_t user_len, const char *pw,
                         size_t pw_len)
{
    char source[96];
    conn_peer_source(ctx->conn, source, sizeof source);
    switch (auth_check(source, user, user_len, pw, pw_len)) {
    case AUTH_OK:
    case AUTH_NO_PASSWORD: /* no password configured: any is accepted, as Redis's nopass */
        conn_mark_authenticated(ctx->conn);
        return true;
    case AUTH_THROTTLED:
        reply_error(ctx->reply, "ERR too many failed AUTH attempts from this client address or "
                                "for this user, try again later");
        return false;
    case AUTH_BUSY:
        reply_error(ctx->reply, "ERR too many password verifications this second, try again");
        return false;
    case AUTH_WRONG:
    default:
        reply_error(ctx->reply, "WRONGPASS invalid username-password pair or user is disabled.");
        return false;
    }
}

static void cmd_auth(struct cmd_ctx *ctx)
{
    if (ctx->argc > 3) {
        reply_error_syntax(ctx->reply);
        return;
    }
    if (ctx->argc == 2) {
        if (!auth_default_password_set()) {
            reply_error(ctx->reply, "ERR AUTH <password> called without any password configured "
                                    "for the default user. Are you sure your configuration is "
                                    "correct?");
            return;
        }
        if (authenticate(ctx, "default", 7, ctx->argv[1], ctx->argv_len[1])) reply_ok(ctx->reply);
        return;
    }
    if (authenticate(ctx, ctx->argv[1], ctx->argv_len[1], ctx->argv[2], ctx->argv_len[2]))
        reply_ok(ctx->reply);
}

/* --- client names ---------------------------------------------------- */

/* Redis accepts printable ASCII without spaces ('!'..'~'). */
static bool name_is_valid(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '!' || s[i] > '~') return false;
    return true;
}

static void set_owned_string(char **slot, const char *s, size_t n)
{
    xfree(*slot);
    *slot = n ? xmemdup(s, n) : NULL;
}

static void cmd_hello(struct cmd_ctx *ctx)
{
    long long version = 0;
    int j = 1;
    if (ctx->argc >= 2) {
        if (!num_parse_ll(ctx->argv[1], ctx->argv_len[1], &version)) {
            reply_error(ctx->reply, "ERR Protocol version is not an integer or out of range");
            return;
        }
        j = 2;
        if (version < 2 || version > 3) {
            reply_error(ctx->reply, "NOPROTO unsupported protocol version");
            return;
        }
    }
    int auth_at = 0, name_at = 0;
    for (; j < ctx->argc; j++) {
        int more = ctx->argc - 1 - j;
        if (arg_equals(ctx, j, "auth") && more >= 2) {
            auth_at = j + 1;
            j += 2;
        } else if (arg_equals(ctx, j, "setname") && more >= 1) {
            name_at = ++j;
            if (!name_is_valid(ctx->argv[j], ctx->argv_len[j])) {
                reply_error(
                    ctx->reply,
                    "ERR Client names cannot contain spaces, newlines or special characters.");
                return;
            }
        } else {
            reply_error_fmt(ctx->reply, "ERR Syntax error in HELLO option '%.*s'",
                            (int)ctx->argv_len[j], ctx->argv[j]);
            return;
        }
    }
    if (auth_at && !authenticate(ctx, ctx->argv[auth_at], ctx->argv_len[auth_at],
                                 ctx->argv[auth_at + 1], ctx->argv_len[auth_at + 1]))
        return;
    if (conn_auth_required(ctx->conn)) {
        reply_error(ctx->reply, "NOAUTH HELLO must be called with the client already "
                                "authenticated, otherwise the HELLO AUTH <user> <pass> "
                                "option can be used to authenticate the client and select the "
                                "RESP protocol version at the same time");
        return;
    }
    if (name_at) set_owned_string(&ctx->conn->name, ctx->argv[name_at], ctx->argv_len[name_at]);
    if (version) reply_set_protocol(&ctx->conn->reply, (enum proto)version);

    struct reply *r = ctx->reply;
    reply_map_len(r, 7);
    reply_bulk_cstr(r, "server");
    reply_bulk_cstr(r, "redis");
    reply_bulk_cstr(r, "version");
    reply_bulk_cstr(r, GOBLIN_REDIS_VERSION);
    reply_bulk_cstr(r, "proto");
    reply_int(r, reply_protocol(&ctx->conn->reply));
    reply_bulk_cstr(r, "id");
    reply_int(r, (long long)ctx->conn->id);
    reply_bulk_cstr(r, "mode");
    reply_bulk_cstr(r, "standalone");
    reply_bulk_cstr(r, "role");
    reply_bulk_cstr(r, "master");
    reply_bulk_cstr(r, "modules");
    reply_array_len(r, 0);
}

/* --- CLIENT ---------------------------------------------------------- */

static void cmd_client_id(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, (long long)ctx->conn->id);
}

static void cmd_client_getname(struct cmd_ctx *ctx)
{
    if (ctx->conn->name)
        reply_bulk_cstr(ctx->reply, ctx->conn->name);
    else
        reply_nil(ctx->reply);
}

static void cmd_client_setname(struct cmd_ctx *ctx)
{
    if (!name_is_valid(ctx->argv[2], ctx->argv_len[2])) {
        reply_error(ctx->reply,
                    "ERR Client names cannot contain spaces, newlines or special characters.");
        return;
    }
    set_owned_string(&ctx->conn->name, ctx->argv[2], ctx->argv_len[2]);
    reply_ok(ctx->reply);
}

static void cmd_client_setinfo(struct cmd_ctx *ctx)
{
    bool is_name = arg_equals(ctx, 2, "lib-name");
    if (!is_name && !arg_equals(ctx, 2, "lib-ver")) {
        reply_error_fmt(ctx->reply, "ERR Unrecognized option '%.*s'", (int)ctx->argv_len[2],
                        ctx->argv[2]);
        return;
    }
    if (!name_is_valid(ctx->argv[3], ctx->argv_len[3])) {
        reply_error_fmt(ctx->reply, "ERR %s cannot contain spaces, newlines or special characters.",
                        is_name ? "lib-name" : "lib-ver");
        return;
    }
    set_owned_string(is_name ? &ctx->conn->lib_name : &ctx->conn->lib_ver, ctx->argv[3],
                     ctx->argv_len[3]);
    reply_ok(ctx->reply);
}

static void cmd_client_info(struct cmd_ctx *ctx)
{
    struct buf line;
    buf_init(&line, 512);
    conn_describe(ctx->conn, &line);
    buf_append_char(&line, '\n');
    reply_verbatim(ctx->reply, buf_head(&line), buf_len(&line), "txt");
    buf_free(&line);
}

static void cmd_client_list(struct cmd_ctx *ctx)
{
    uint64_t *ids = NULL;
    int nids = 0;
    for (int j = 2; j < ctx->argc; j++) {
        if (arg_equals(ctx, j, "type") && j + 1 < ctx->argc) {
            j++;
            /* Every goblin-core client is a normal client (no replicas). */
            if (!arg_equals(ctx, j, "normal") && !arg_equals(ctx, j, "pubsub") &&
                !arg_equals(ctx, j, "master") && !arg_equals(ctx, j, "replica") &&
                !arg_equals(ctx, j, "slave")) {
                reply_error_fmt(ctx->reply, "ERR Unknown client type '%.*s'", (int)ctx->argv_len[j],
                                ctx->argv[j]);
                xfree(ids);
                return;
            }
        } else if (arg_equals(ctx, j, "id") && j + 1 < ctx->argc) {
            ids = xrealloc(ids, sizeof *ids * (size_t)(ctx->argc - j));
            for (j++; j < ctx->argc; j++) {
                long long id;
                /* Any integer: an ID no client has (0, -1) matches nothing. */
                if (!num_parse_ll(ctx->argv[j], ctx->argv_len[j], &id)) {
                    reply_error(ctx->reply, "ERR Invalid client ID");
                    xfree(ids);
                    return;
                }
                ids[nids++] = (uint64_t)id;
            }
        } else {
            reply_error_syntax(ctx->reply);
            xfree(ids);
            return;
        }
    }
    struct buf text;
    buf_init(&text, 1024);
    for (struct conn *c = conn_list_head(); c; c = c->next) {
        if (ids) {
            bool wanted = false;
            for (int i = 0; i < nids && !wanted; i++) wanted = ids[i] == c->id;
            if (!wanted) continue;
        }
        conn_describe(c, &text);
        buf_append_char(&text, '\n');
    }
    reply_verbatim(ctx->reply, buf_head(&text), buf_len(&text), "txt");
    buf_free(&text);
    xfree(ids);
}

/* Closes `victim` for CLIENT KILL: the caller's own conn after this reply. */
static void kill_conn(struct cmd_ctx *ctx, struct conn *victim)
{
    if (victim == ctx->conn)
        victim->flags |= CONN_CLOSE_AFTER_REPLY;
    else
        conn_close(victim, "killed by CLIENT KILL");
}

static bool addr_matches(const char *addr, const char *want, size_t len)
{
    return strlen(addr) == len && memcmp(addr, want, len) == 0;
}

static void cmd_client_kill(struct cmd_ctx *ctx)
{
    if (ctx->argc == 3) {
        /* Old form: CLIENT KILL addr:port. */
        for (struct conn *c = conn_list_head(); c; c = c->next) {
            if (addr_matches(c->addr, ctx->argv[2], ctx->argv_len[2])) {
                kill_conn(ctx, c);
                reply_ok(ctx->reply);
                return;
            }
        }
        reply_error(ctx->reply, "ERR No such client");
        return;
    }
    long long id = 0;
    int addr_at = 0, laddr_at = 0;
    bool skipme = true;
    if ((ctx->argc - 2) % 2 != 0) {
        reply_error_syntax(ctx->reply);
        return;
    }
    for (int j = 2; j < ctx->argc; j += 2) {
        if (arg_equals(ctx, j, "id")) {
            if (!num_parse_ll(ctx->argv[j + 1], ctx->argv_len[j + 1], &id) || id < 1) {
                reply_error(ctx->reply, "ERR client-id should be greater than 0");
                return;
            }
        } else if (arg_equals(ctx, j, "addr")) {
            addr_at = j + 1;
        } else if (arg_equals(ctx, j, "laddr")) {
            laddr_at = j + 1;
        } else if (arg_equals(ctx, j, "type")) {
            if (!arg_equals(ctx, j + 1, "normal") && !arg_equals(ctx, j + 1, "pubsub") &&
                !arg_equals(ctx, j + 1, "master") && !arg_equals(ctx, j + 1, "replica") &&
                !arg_equals(ctx, j + 1, "slave")) {
                reply_error_fmt(ctx->reply, "ERR Unknown client type '%.*s'",
                                (int)ctx->argv_len[j + 1], ctx->argv[j + 1]);
                return;
            }
        } else if (arg_equals(ctx, j, "skipme")) {
            if (arg_equals(ctx, j + 1, "yes"))
                skipme = true;
            else if (arg_equals(ctx, j + 1, "no"))
                skipme = false;
            else {
                reply_error_syntax(ctx->reply);
                return;
            }
        } else if (arg_equals(ctx, j, "user")) {
            /* Only the default user exists. */
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    long long killed = 0;
    struct conn *c = conn_list_head();
    while (c) {
        struct conn *next = c->next;
        bool match =
            (!id || c->id == (uint64_t)id) &&
            (!addr_at || addr_matches(c->addr, ctx->argv[addr_at], ctx->argv_len[addr_at])) &&
            (!laddr_at || addr_matches(c->laddr, ctx->argv[laddr_at], ctx->argv_len[laddr_at]));
        if (match && !(skipme && c == ctx->conn)) {
            kill_conn(ctx, c);
            killed++;
        }
        c = next;
    }
    reply_int(ctx->reply, killed);
}

static void cmd_client_no_evict(struct cmd_ctx *ctx)
{
    /* goblin-core never evicts clients; the flag is accepted for compatibility. */
    if (!arg_equals(ctx, 2, "on") && !arg_equals(ctx, 2, "off")) {
        reply_error_syntax(ctx->reply);
        return;
    }
    reply_ok(ctx->reply);
}

static void cmd_client_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are: ID <client-id>, ADDR <ip:port>, LADDR <ip:port>,",
        "    TYPE (NORMAL|PUBSUB), USER <username>, SKIPME (YES|NO).",
        "LIST [options ...]",
        "    Return information about client connections. Options: TYPE (NORMAL|PUBSUB),",
        "    ID <client-id> [<client-id> ...].",
        "NO-EVICT (ON|OFF)",
        "    Accepted for compatibility; clients are never evicted.",
        "SETINFO <LIB-NAME|LIB-VER> <value>",
        "    Set client library name or version.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "HELP",
        "    Print this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

#define CLIENT_SUB(n, a, f, s)                                                                     \
    {                                                                                              \
        .name = n, .arity = a, .flags = CMD_LOADING | CMD_STALE | CMD_NOSCRIPT | (f), .fn = s,     \
        .since = "2.4.0", .group = "connection", .complexity = "O(1)"                              \
    }

static struct command client_subcommands[] = {
    CLIENT_SUB("id", 2, 0, cmd_client_id),
    CLIENT_SUB("getname", 2, 0, cmd_client_getname),
    CLIENT_SUB("setname", 3, 0, cmd_client_setname),
    CLIENT_SUB("setinfo", 4, 0, cmd_client_setinfo),
    CLIENT_SUB("info", 2, CMD_RANDOM, cmd_client_info),
    CLIENT_SUB("list", -2, CMD_ADMIN | CMD_RANDOM, cmd_client_list),
    CLIENT_SUB("kill", -3, CMD_ADMIN, cmd_client_kill),
    CLIENT_SUB("no-evict", 3, CMD_ADMIN, cmd_client_no_evict),
    CLIENT_SUB("help", 2, 0, cmd_client_help),
    COMMAND_END,
};

struct command connection_commands[] = {
    {.name = "ping",
     .arity = -1,
     .flags = CMD_FAST | CMD_PUBSUB_OK,
     .fn = cmd_ping,
     .summary = "Returns the server's liveliness response.",
     .since = "1.0.0",
     .group = "connection",
     .complexity = "O(1)"},
    {.name = "echo",
     .arity = 2,
     .flags = CMD_FAST,
     .fn = cmd_echo,
     .summary = "Returns the given string.",
     .since = "1.0.0",
     .group = "connection",
     .complexity = "O(1)"},
    {.name = "quit",
     .arity = -1,
     .flags = CMD_NO_AUTH | CMD_PUBSUB_OK | CMD_FAST | CMD_LOADING | CMD_STALE,
     .fn = cmd_quit,
     .summary = "Closes the connection.",
     .since = "1.0.0",
     .group = "connection",
     .complexity = "O(1)"},
    {.name = "select",
     .arity = 2,
     .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .fn = cmd_select,
     .summary = "Changes the selected database.",
     .since = "1.0.0",
     .group = "connection",
     .complexity = "O(1)"},
    {.name = "auth",
     .arity = -2,
     .flags = CMD_NO_AUTH | CMD_FAST | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_auth,
     .summary = "Authenticates the connection.",
     .since = "1.0.0",
     .group = "connection",
     .complexity = "O(N) where N is the number of passwords defined for the user"},
    {.name = "hello",
     .arity = -1,
     .flags = CMD_NO_AUTH | CMD_FAST | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_hello,
     .summary = "Handshakes with the Redis server.",
     .since = "6.0.0",
     .group = "connection",
     .complexity = "O(1)"},
    {.name = "reset",
     .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_PUBSUB_OK,
     .fn = cmd_reset,
     .summary = "Resets the connection.",
     .since = "6.2.0",
     .group = "connection",
     .complexity = "O(1)"},
    {.name = "client",
     .arity = -2,
     .subcommands = client_subcommands,
     .summary = "A container for client connection commands.",
     .since = "2.4.0",
     .group = "connection",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
