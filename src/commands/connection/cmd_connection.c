/* cmd_connection.c — commands about the connection itself: PING, ECHO, QUIT,
 * SELECT, AUTH, HELLO, CLIENT. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cluster/cluster.h"
#include "commands/acl_check.h"
#include "commands/command.h"
#include "commands/multi.h"
#include "connection/session.h"
#include "core/auth.h"
#include "core/config.h"
#include "core/version.h"
#include "util/clock.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

static void cmd_ping(struct cmd_ctx *ctx)
{
    if (ctx->argc > 2) {
        reply_error_arity(ctx->reply, "ping");
        return;
    }
    if (session_in_resp2_subscribed_mode(ctx->conn)) {
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
    session_close_after_reply(ctx->conn);
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
    if (cluster_enabled && id != 0) {
        reply_error(ctx->reply, "ERR SELECT is not allowed in cluster mode");
        return;
    }
    if (id < 0 || id >= keyspace.count) {
        reply_error(ctx->reply, "ERR DB index is out of range");
        return;
    }
    session_select_db(ctx->conn, (int)id);
    reply_ok(ctx->reply);
}

/* RESET: back to a fresh connection (db 0, RESP2, no name, no
 * subscriptions, logged out when a password is required). */
static void cmd_reset(struct cmd_ctx *ctx)
{
    multi_reset(ctx->conn);
    session_reset(ctx->conn);
    reply_status(ctx->reply, "RESET");
}

/* --- authentication -------------------------------------------------- */

/* The delayed WRONGPASS of a failed AUTH (core/auth.h): the conn waits as
 * a blocked client until its answer is due, so the loop goes on. */
static void wrongpass_answer(struct conn *c, struct reply *r, void *arg)
{
    reply_error(r, "WRONGPASS invalid username-password pair or user is disabled.");
    if (arg) session_close_after_reply(c);
}

static void wrongpass_done(struct conn *c, void *arg)
{
    (void)c;
    (void)arg;
}

static const struct session_block_custom wrongpass_block = {wrongpass_answer, wrongpass_done};

/* Checks user/password and marks the conn; answers only a failure (a
 * wrong password's answer is delayed: the caller must not reply then). */
static bool authenticate(struct cmd_ctx *ctx, const char *user, size_t user_len, const char *pw,
                         size_t pw_len)
{
    char source[96];
    session_peer_source(ctx->conn, source, sizeof source);
    struct auth_failure fail;
    switch (
        auth_check(source, acl_conn_auth_failures(ctx->conn), user, user_len, pw, pw_len, &fail)) {
    case AUTH_OK:
    case AUTH_NO_PASSWORD: /* no password configured: any is accepted, as Redis's nopass */
        session_mark_authenticated(ctx->conn, user, user_len);
        return true;
    case AUTH_BUSY:
        reply_error(ctx->reply, "ERR too many password verifications this second, try again");
        return false;
    case AUTH_WRONG:
    default:
        acl_auth_failed(ctx->conn, ctx->argv[0], ctx->argv_len[0], user, user_len);
        if (ctx->deny_blocking || ctx->script_caller) {
            /* Inside EXEC: answered at once (a transaction cannot wait). */
            reply_error(ctx->reply,
                        "WRONGPASS invalid username-password pair or user is disabled.");
        } else {
            session_block_custom(ctx->conn,
                                 (fail.answer_at_us - clock_mono_us()) / 1000 + clock_unix_ms() + 1,
                                 &wrongpass_block, fail.close_after ? (void *)1 : NULL);
        }
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
    if (session_auth_required(ctx->conn)) {
        reply_error(ctx->reply, "NOAUTH HELLO must be called with the client already "
                                "authenticated, otherwise the HELLO AUTH <user> <pass> "
                                "option can be used to authenticate the client and select the "
                                "RESP protocol version at the same time");
        return;
    }
    if (name_at) session_set_name(ctx->conn, ctx->argv[name_at], ctx->argv_len[name_at]);
    if (version) session_set_protocol(ctx->conn, (enum proto)version);

    struct reply *r = ctx->reply;
    reply_map_len(r, 7);
    reply_bulk_cstr(r, "server");
    reply_bulk_cstr(r, "redis");
    reply_bulk_cstr(r, "version");
    reply_bulk_cstr(r, GOBLIN_REDIS_VERSION);
    reply_bulk_cstr(r, "proto");
    reply_int(r, session_protocol(ctx->conn));
    reply_bulk_cstr(r, "id");
    reply_int(r, (long long)session_id(ctx->conn));
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
    reply_int(ctx->reply, (long long)session_id(ctx->conn));
}

static void cmd_client_getname(struct cmd_ctx *ctx)
{
    const char *name = session_name(ctx->conn);
    if (name)
        reply_bulk_cstr(ctx->reply, name);
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
    session_set_name(ctx->conn, ctx->argv[2], ctx->argv_len[2]);
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
    if (is_name)
        session_set_lib_name(ctx->conn, ctx->argv[3], ctx->argv_len[3]);
    else
        session_set_lib_version(ctx->conn, ctx->argv[3], ctx->argv_len[3]);
    reply_ok(ctx->reply);
}

static void cmd_client_info(struct cmd_ctx *ctx)
{
    struct buf line;
    buf_init(&line, 512);
    session_describe(ctx->conn, &line);
    buf_append_char(&line, '\n');
    reply_verbatim(ctx->reply, buf_head(&line), buf_len(&line), "txt");
    buf_free(&line);
}

/* Redis's client type names (getClientTypeByName): false for anything else. */
static bool client_type_by_name(const struct cmd_ctx *ctx, int i, enum session_client_type *out)
{
    if (arg_equals(ctx, i, "normal"))
        *out = SESSION_CLIENT_NORMAL;
    else if (arg_equals(ctx, i, "pubsub"))
        *out = SESSION_CLIENT_PUBSUB;
    else if (arg_equals(ctx, i, "master"))
        *out = SESSION_CLIENT_MASTER;
    else if (arg_equals(ctx, i, "replica") || arg_equals(ctx, i, "slave"))
        *out = SESSION_CLIENT_REPLICA;
    else
        return false;
    return true;
}

static void reply_unknown_client_type(struct cmd_ctx *ctx, int i)
{
    reply_error_fmt(ctx->reply, "ERR Unknown client type '%.*s'", (int)ctx->argv_len[i],
                    ctx->argv[i]);
}

struct client_list_state {
    struct buf *text;
    enum session_client_type type;
};

static bool list_client_of_type(struct conn *c, void *arg)
{
    struct client_list_state *st = arg;
    if (session_client_type(c) == st->type) {
        session_describe(c, st->text);
        buf_append_char(st->text, '\n');
    }
    return true;
}

static bool list_any_client(struct conn *c, void *arg)
{
    struct buf *text = arg;
    session_describe(c, text);
    buf_append_char(text, '\n');
    return true;
}

/* CLIENT LIST [TYPE type | ID id [id ...]]: Redis 7.0 takes one filter or
 * none; IDs are answered in the order given, once per mention. */
static void cmd_client_list(struct cmd_ctx *ctx)
{
    struct buf text;
    buf_init(&text, 1024);
    if (ctx->argc == 4 && arg_equals(ctx, 2, "type")) {
        struct client_list_state st = {.text = &text};
        if (!client_type_by_name(ctx, 3, &st.type)) {
            reply_unknown_client_type(ctx, 3);
            buf_free(&text);
            return;
        }
        session_foreach_client(list_client_of_type, &st);
    } else if (ctx->argc > 3 && arg_equals(ctx, 2, "id")) {
        for (int j = 3; j < ctx->argc; j++) {
            long long id;
            /* Any integer: an ID no client has (0, -1) matches nothing. */
            if (!num_parse_ll(ctx->argv[j], ctx->argv_len[j], &id)) {
                reply_error(ctx->reply, "ERR Invalid client ID");
                buf_free(&text);
                return;
            }
            struct conn *c = session_find_client((uint64_t)id);
            if (c) list_any_client(c, &text);
        }
    } else if (ctx->argc != 2) {
        reply_error_syntax(ctx->reply);
        buf_free(&text);
        return;
    } else {
        session_foreach_client(list_any_client, &text);
    }
    reply_verbatim(ctx->reply, buf_head(&text), buf_len(&text), "txt");
    buf_free(&text);
}

/* Exactly the bytes of argument i (arguments are not NUL-terminated). */
static bool text_equals_arg(const char *text, const struct cmd_ctx *ctx, int i)
{
    return strlen(text) == ctx->argv_len[i] && memcmp(text, ctx->argv[i], ctx->argv_len[i]) == 0;
}

/* CLIENT KILL's filters; a client is killed when it passes all of them. */
struct client_kill_filter {
    struct cmd_ctx *ctx;
    uint64_t id; /* 0: any */
    bool any_type;
    enum session_client_type type;
    int addr_at, laddr_at, user_at; /* argument index of the value; 0: any */
    bool skipme;
    long long killed;
};

static bool kill_if_matching(struct conn *c, void *arg)
{
    struct client_kill_filter *f = arg;
    const struct cmd_ctx *ctx = f->ctx;
    if (f->addr_at && !text_equals_arg(session_addr(c), ctx, f->addr_at)) return true;
    if (f->laddr_at && !text_equals_arg(session_laddr(c), ctx, f->laddr_at)) return true;
    if (!f->any_type && session_client_type(c) != f->type) return true;
    if (f->id && session_id(c) != f->id) return true;
    if (f->user_at && !text_equals_arg(session_user(c), ctx, f->user_at)) return true;
    if (f->skipme && c == f->ctx->conn) return true;
    session_kill(c, f->ctx->conn, "killed by CLIENT KILL");
    f->killed++;
    return true;
}

/* CLIENT KILL ip:port (old form: may kill the caller; +OK or an error), or
 * CLIENT KILL <filter> <value> ...: options checked in order, each error
 * as Redis 7.0 words it, then every matching client is killed (the caller
 * last, after this reply) and the count answered. */
static void cmd_client_kill(struct cmd_ctx *ctx)
{
    struct client_kill_filter f = {.ctx = ctx, .any_type = true, .skipme = true};
    if (ctx->argc == 3) {
        f.addr_at = 2;
        f.skipme = false;
    } else {
        for (int j = 2; j < ctx->argc; j += 2) {
            bool more = j + 1 < ctx->argc;
            if (more && arg_equals(ctx, j, "id")) {
                long long id;
                if (!num_parse_ll(ctx->argv[j + 1], ctx->argv_len[j + 1], &id) || id < 1) {
                    reply_error(ctx->reply, "ERR client-id should be greater than 0");
                    return;
                }
                f.id = (uint64_t)id;
            } else if (more && arg_equals(ctx, j, "type")) {
                if (!client_type_by_name(ctx, j + 1, &f.type)) {
                    reply_unknown_client_type(ctx, j + 1);
                    return;
                }
                f.any_type = false;
            } else if (more && arg_equals(ctx, j, "addr")) {
                f.addr_at = j + 1;
            } else if (more && arg_equals(ctx, j, "laddr")) {
                f.laddr_at = j + 1;
            } else if (more && arg_equals(ctx, j, "user")) {
                if (!auth_user_exists(ctx->argv[j + 1], ctx->argv_len[j + 1])) {
                    reply_error_fmt(ctx->reply, "ERR No such user '%.*s'",
                                    (int)ctx->argv_len[j + 1], ctx->argv[j + 1]);
                    return;
                }
                f.user_at = j + 1;
            } else if (more && arg_equals(ctx, j, "skipme")) {
                if (arg_equals(ctx, j + 1, "yes")) {
                    f.skipme = true;
                } else if (arg_equals(ctx, j + 1, "no")) {
                    f.skipme = false;
                } else {
                    reply_error_syntax(ctx->reply);
                    return;
                }
            } else {
                reply_error_syntax(ctx->reply);
                return;
            }
        }
    }
    session_foreach_client(kill_if_matching, &f);
    if (ctx->argc != 3)
        reply_int(ctx->reply, f.killed);
    else if (f.killed)
        reply_ok(ctx->reply);
    else
        reply_error(ctx->reply, "ERR No such client");
}

static void cmd_client_no_evict(struct cmd_ctx *ctx)
{
    /* maxmemory-clients passes over a client that set it (conn_evict.c). */
    bool on = arg_equals(ctx, 2, "on");
    if (!on && !arg_equals(ctx, 2, "off")) {
        reply_error_syntax(ctx->reply);
        return;
    }
    session_set_no_evict(ctx->conn, on);
    reply_ok(ctx->reply);
}

/* CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 when that client was blocked on
 * keys and has now been answered, else 0. */
static void cmd_client_unblock(struct cmd_ctx *ctx)
{
    long long id;
    if (!arg_to_ll(ctx, 2, &id)) return;
    bool error = false;
    if (ctx->argc == 4) {
        if (arg_equals(ctx, 3, "error")) {
            error = true;
        } else if (!arg_equals(ctx, 3, "timeout")) {
            reply_error(ctx->reply, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    struct conn *c = id > 0 ? session_find_client((uint64_t)id) : NULL;
    reply_int(ctx->reply, c && session_unblock(c, error) ? 1 : 0);
}

/* CLIENT PAUSE timeout [WRITE|ALL] (Redis 7.0's checks, in its order). */
static void cmd_client_pause(struct cmd_ctx *ctx)
{
    if (ctx->argc > 4) {
        reply_error_fmt(ctx->reply,
                        "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                        "CLIENT HELP.",
                        (int)ctx->argv_len[1], ctx->argv[1]);
        return;
    }
    enum session_pause type = SESSION_PAUSE_ALL;
    if (ctx->argc == 4) {
        if (arg_equals(ctx, 3, "write")) {
            type = SESSION_PAUSE_WRITE;
        } else if (!arg_equals(ctx, 3, "all")) {
            reply_error(ctx->reply, "ERR CLIENT PAUSE mode must be WRITE or ALL");
            return;
        }
    }
    long long ms;
    if (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &ms)) {
        reply_error(ctx->reply, "ERR timeout is not an integer or out of range");
        return;
    }
    if (ms < 0) {
        reply_error(ctx->reply, "ERR timeout is negative");
        return;
    }
    /* Redis 7.0 adds the time without an overflow check: a huge timeout
     * wraps to an end already past (the pause ends at the next check). */
    uint64_t end = ms > 0 ? (uint64_t)clock_unix_ms() + (uint64_t)ms : 0;
    session_pause(SESSION_PAUSE_BY_CLIENT, type, (int64_t)end);
    reply_ok(ctx->reply);
}

static void cmd_client_unpause(struct cmd_ctx *ctx)
{
    session_unpause(SESSION_PAUSE_BY_CLIENT);
    reply_ok(ctx->reply);
}

/* CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
 * [OPTOUT] [NOLOOP]: Redis 7.0's parsing; the mode checks are the
 * session's (session_tracking_set). */
static void cmd_client_tracking(struct cmd_ctx *ctx)
{
    struct session_tracking_request q = {0};
    const char **prefixes = xmalloc((size_t)ctx->argc * sizeof *prefixes);
    size_t *lens = xmalloc((size_t)ctx->argc * sizeof *lens);
    bool redirect_given = false, ok = true;
    for (int j = 3; j < ctx->argc && ok; j++) {
        bool more = j + 1 < ctx->argc;
        if (arg_equals(ctx, j, "redirect") && more) {
            j++;
            if (redirect_given) {
                reply_error(ctx->reply, "ERR A client can only redirect to a single other client");
                ok = false;
                break;
            }
            long long id;
            if (!arg_to_ll(ctx, j, &id)) {
                ok = false;
                break;
            }
            redirect_given = true;
            if (id <= 0 || !session_find_client((uint64_t)id)) {
                reply_error(ctx->reply, "ERR The client ID you want redirect to does not exist");
                ok = false;
                break;
            }
            q.redirect = (uint64_t)id;
        } else if (arg_equals(ctx, j, "bcast")) {
            q.options |= SESSION_TRACKING_BCAST;
        } else if (arg_equals(ctx, j, "optin")) {
            q.options |= SESSION_TRACKING_OPTIN;
        } else if (arg_equals(ctx, j, "optout")) {
            q.options |= SESSION_TRACKING_OPTOUT;
        } else if (arg_equals(ctx, j, "noloop")) {
            q.options |= SESSION_TRACKING_NOLOOP;
        } else if (arg_equals(ctx, j, "prefix") && more) {
            j++;
            prefixes[q.nprefixes] = ctx->argv[j];
            lens[q.nprefixes++] = ctx->argv_len[j];
        } else {
            reply_error_syntax(ctx->reply);
            ok = false;
        }
    }
    if (ok) {
        q.on = arg_equals(ctx, 2, "on");
        q.prefixes = prefixes;
        q.prefix_lens = lens;
        if (!q.on && !arg_equals(ctx, 2, "off")) {
            reply_error_syntax(ctx->reply);
        } else {
            char *err = session_tracking_set(ctx->conn, &q);
            if (err)
                reply_error(ctx->reply, err);
            else
                reply_ok(ctx->reply);
            xfree(err);
        }
    }
    xfree(prefixes);
    xfree(lens);
}

static void cmd_client_caching(struct cmd_ctx *ctx)
{
    bool yes = arg_equals(ctx, 2, "yes");
    /* Redis checks that tracking is on before the argument. */
    if (!yes && !arg_equals(ctx, 2, "no") && session_tracking_redirect(ctx->conn) >= 0) {
        reply_error_syntax(ctx->reply);
        return;
    }
    const char *err = session_tracking_caching(ctx->conn, yes);
    if (err)
        reply_error(ctx->reply, err);
    else
        reply_ok(ctx->reply);
}

static void cmd_client_getredir(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, session_tracking_redirect(ctx->conn));
}

static void cmd_client_trackinginfo(struct cmd_ctx *ctx)
{
    session_tracking_info(ctx->conn, ctx->reply);
}

static void cmd_client_reply(struct cmd_ctx *ctx)
{
    if (arg_equals(ctx, 2, "on")) {
        session_set_reply_mode(ctx->conn, SESSION_REPLY_ON);
        reply_ok(ctx->reply);
    } else if (arg_equals(ctx, 2, "off")) {
        session_set_reply_mode(ctx->conn, SESSION_REPLY_OFF);
    } else if (arg_equals(ctx, 2, "skip")) {
        session_set_reply_mode(ctx->conn, SESSION_REPLY_SKIP);
    } else {
        reply_error_syntax(ctx->reply);
    }
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
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "UNPAUSE",
        "    Stop the current client pause, resuming traffic.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "CACHING (YES|NO)",
        "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR",
        "    Return the client ID we are redirecting to when tracking is enabled.",
        "TRACKINGINFO",
        "    Report tracking status for the current connection.",
        "NO-EVICT (ON|OFF)",
        "    Accepted for compatibility; clients are never evicted.",
        "SETINFO <LIB-NAME|LIB-VER> <value>",
        "    Set client library name or version.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
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
    CLIENT_SUB("unblock", -3, CMD_ADMIN, cmd_client_unblock),
    CLIENT_SUB("reply", 3, 0, cmd_client_reply),
    CLIENT_SUB("pause", -3, CMD_ADMIN, cmd_client_pause),
    CLIENT_SUB("unpause", 2, CMD_ADMIN, cmd_client_unpause),
    CLIENT_SUB("tracking", -3, 0, cmd_client_tracking),
    CLIENT_SUB("caching", 3, 0, cmd_client_caching),
    CLIENT_SUB("getredir", 2, 0, cmd_client_getredir),
    CLIENT_SUB("trackinginfo", 2, 0, cmd_client_trackinginfo),
    CLIENT_SUB("help", 2, 0, cmd_client_help),
    COMMAND_END,
};

struct command connection_commands[] = {
    {.name = "ping",
     .arity = -1,
     .flags = CMD_FAST | CMD_PUBSUB_OK | CMD_MISCONF_REFUSED,
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
     .flags = CMD_ALLOW_BUSY | CMD_NO_AUTH | CMD_PUBSUB_OK | CMD_FAST | CMD_LOADING | CMD_STALE |
              CMD_NO_QUEUE,
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
     .flags = CMD_ALLOW_BUSY | CMD_NO_AUTH | CMD_FAST | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_auth,
     .summary = "Authenticates the connection.",
     .since = "1.0.0",
     .group = "connection",
     .complexity = "O(N) where N is the number of passwords defined for the user"},
    {.name = "hello",
     .arity = -1,
     .flags = CMD_ALLOW_BUSY | CMD_NO_AUTH | CMD_FAST | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_hello,
     .summary = "Handshakes with the Redis server.",
     .since = "6.0.0",
     .group = "connection",
     .complexity = "O(1)"},
    {.name = "reset",
     .arity = 1,
     .flags = CMD_ALLOW_BUSY | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH |
              CMD_PUBSUB_OK | CMD_NO_QUEUE,
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
