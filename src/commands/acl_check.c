/* acl_check.c — ACL enforcement (acl_check.h): Redis 7.0.15's
 * ACLCheckAllUserCommandPerm over the selectors, its NOPERM texts, the
 * ACL LOG and the clients a change of rules disconnects. */
#include "commands/acl_check.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "commands/command.h"
#include "commands/command_meta.h"
#include "commands/multi.h"
#include "connection/request.h"
#include "connection/session.h"
#include "core/command_hooks.h"
#include "store/pubsub.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* The key list of the call being checked: grown to the largest call seen,
 * reused (no allocation per request). */
static struct key_ref *key_buf;
static int key_cap;

enum channel_use { CHANNELS_NONE, CHANNELS_FIRST, CHANNELS_ALL, CHANNELS_ALL_PATTERNS };

/* Redis's channel key specs: PUBLISH/SPUBLISH name one channel, the
 * subscribe commands name channels (PSUBSCRIBE patterns) from argument 1;
 * the unsubscribe commands are not checked. */
static enum channel_use channel_use(const struct command *cmd)
{
    if (cmd->parent || !(cmd->name[0] == 'p' || cmd->name[0] == 's')) return CHANNELS_NONE;
    const char *n = cmd->name;
    if (!strcmp(n, "publish") || !strcmp(n, "spublish")) return CHANNELS_FIRST;
    if (!strcmp(n, "subscribe") || !strcmp(n, "ssubscribe")) return CHANNELS_ALL;
    if (!strcmp(n, "psubscribe")) return CHANNELS_ALL_PATTERNS;
    return CHANNELS_NONE;
}

static unsigned key_perm(uint32_t spec_flags)
{
    unsigned perm = 0;
    if (spec_flags & KEY_SPEC_ACCESS) perm |= ACL_KEY_READ;
    if (spec_flags & (KEY_SPEC_INSERT | KEY_SPEC_DELETE | KEY_SPEC_UPDATE)) perm |= ACL_KEY_WRITE;
    return perm;
}

/* Redis's ACLSelectorCheckCmd. */
static enum acl_result selector_check(const struct acl_selector *s, const struct command *cmd,
                                      int argc, const char *const *argv, const size_t *lens,
                                      int *pos, int *nkeys)
{
    int arg_at = cmd->parent ? 2 : 1;
    if (!acl_selector_allows_command(s, cmd->acl_id, argc > arg_at ? argv[arg_at] : NULL,
                                     argc > arg_at ? lens[arg_at] : 0))
        return ACL_DENIED_CMD;
    if (!(s->flags & ACL_SELECTOR_ALLKEYS) && command_has_keys(cmd)) {
        if (*nkeys < 0) {
            if (key_cap < argc) {
                key_cap = argc;
                key_buf = xrealloc(key_buf, sizeof *key_buf * (size_t)key_cap);
            }
            *nkeys = command_keys(cmd, argc, argv, lens, key_buf, key_cap);
        }
        for (int j = 0; j < *nkeys; j++) {
            int p = key_buf[j].pos;
            if (!acl_selector_allows_key(s, argv[p], lens[p], key_perm(key_buf[j].flags))) {
                *pos = p;
                return ACL_DENIED_KEY;
            }
        }
    }
    enum channel_use use = channel_use(cmd);
    if (!(s->flags & ACL_SELECTOR_ALLCHANNELS) && use != CHANNELS_NONE) {
        int last = use == CHANNELS_FIRST ? (argc > 1 ? 1 : 0) : argc - 1;
        for (int p = 1; p <= last; p++)
            if (!acl_selector_allows_channel(s, argv[p], lens[p], use == CHANNELS_ALL_PATTERNS)) {
                *pos = p;
                return ACL_DENIED_CHANNEL;
            }
    }
    return ACL_OK;
}

enum acl_result acl_check_call(const struct acl_user *u, const struct command *cmd, int argc,
                               const char *const *argv, const size_t *lens, int *pos)
{
    enum acl_result relevant = ACL_DENIED_CMD;
    int last_pos = 0, nkeys = -1;
    for (int i = 0; i < u->selector_count; i++) {
        int p = 0;
        enum acl_result r = selector_check(&u->selectors[i], cmd, argc, argv, lens, &p, &nkeys);
        if (r == ACL_OK) return ACL_OK;
        if (r > relevant || (r == relevant && p > last_pos)) {
            relevant = r;
            last_pos = p;
        }
    }
    *pos = last_pos;
    return relevant;
}

void acl_denial_text(enum acl_result res, const struct command *cmd, const char *arg,
                     size_t arg_len, bool verbose, struct buf *out)
{
    switch (res) {
    case ACL_DENIED_CMD:
        buf_append_fmt(out, "%s has no permissions to run the '%s' command",
                       verbose ? "This user" : "this user", cmd->full_name);
        break;
    case ACL_DENIED_KEY:
        if (verbose) {
            buf_append_fmt(out, "This user has no permissions to access the '%.*s' key",
                           (int)arg_len, arg);
        } else {
            buf_append_fmt(out, "this user has no permissions to access one of the keys used as "
                                "arguments");
        }
        break;
    case ACL_DENIED_CHANNEL:
        if (verbose) {
            buf_append_fmt(out, "This user has no permissions to access the '%.*s' channel",
                           (int)arg_len, arg);
        } else {
            buf_append_fmt(out, "this user has no permissions to access one of the channels used "
                                "as arguments");
        }
        break;
    default:
        buf_append_fmt(out, "no permission");
        break;
    }
}

const char *acl_script_refusal(enum acl_result res)
{
    switch (res) {
    case ACL_DENIED_CMD:
        return "The user executing the script can't run this command or subcommand";
    case ACL_DENIED_KEY:
        return "The user executing the script can't access at least one of the keys mentioned in "
               "the command arguments";
    case ACL_DENIED_CHANNEL:
        return "The user executing the script can't publish to the channel mentioned in the "
               "command";
    default:
        return "The user executing the script is lacking the permissions for the command";
    }
}

const char *acl_exec_refusal(enum acl_result res)
{
    switch (res) {
    case ACL_DENIED_CMD:
        return "no permission to execute the command or subcommand";
    case ACL_DENIED_KEY:
        return "no permission to touch the specified keys";
    case ACL_DENIED_CHANNEL:
        return "no permission to access one of the channels used as arguments";
    default:
        return "no permission";
    }
}

static const char *reason_name(enum acl_result r)
{
    switch (r) {
    case ACL_DENIED_CMD:
        return "command";
    case ACL_DENIED_KEY:
        return "key";
    case ACL_DENIED_CHANNEL:
        return "channel";
    case ACL_DENIED_AUTH:
        return "auth";
    default:
        return "unknown";
    }
}

struct acl_stats acl_stats;
static int auth_slot = -1;

struct conn_auth_state {
    int failures;
};

static void auth_state_free(void *state)
{
    xfree(state);
}

void acl_check_init(void)
{
    auth_slot = session_ext_register(auth_state_free);
}

int acl_conn_auth_failures(const struct conn *c)
{
    const struct conn_auth_state *st = session_ext(c, auth_slot);
    return st ? st->failures : 0;
}

void acl_auth_failed(struct conn *c, const char *command, size_t command_len, const char *user,
                     size_t user_len)
{
    struct conn_auth_state *st = session_ext(c, auth_slot);
    if (!st) {
        st = xcalloc(1, sizeof *st);
        session_set_ext(c, auth_slot, st);
    }
    if (st->failures < 1000) st->failures++;
    acl_stats.denied_auth++;
    acl_log_add(c, "auth", "toplevel", command, command_len, user, user_len);
}

static void log_denial(struct conn *c, enum acl_result r, const struct command *cmd,
                       const char *const *argv, const size_t *lens, int pos, const char *context)
{
    const char *user = session_user(c);
    if (r == ACL_DENIED_CMD)
        acl_stats.denied_cmd++;
    else if (r == ACL_DENIED_KEY)
        acl_stats.denied_key++;
    else if (r == ACL_DENIED_CHANNEL)
        acl_stats.denied_channel++;
    if (r == ACL_DENIED_CMD)
        acl_log_add(c, "command", context, cmd->full_name, strlen(cmd->full_name), user,
                    strlen(user));
    else
        acl_log_add(c, reason_name(r), context, argv[pos], lens[pos], user, strlen(user));
}

bool acl_admit(const struct cmd_request *req, const struct command *cmd)
{
    const char *name = session_user(req->conn);
    const struct acl_user *u = acl_user_find(name, strlen(name));
    if (u && acl_user_unrestricted(u)) return true;
    int pos = 0;
    enum acl_result r =
        u ? acl_check_call(u, cmd, req->argc, req->argv, req->argv_len, &pos) : ACL_DENIED_CMD;
    if (r == ACL_OK) return true;
    bool in_multi = multi_of_request(req) && multi_is_queuing(multi_of_request(req));
    log_denial(req->conn, r, cmd, req->argv, req->argv_len, pos, in_multi ? "multi" : "toplevel");
    struct buf b;
    buf_init(&b, 128);
    buf_append(&b, "NOPERM ", 7);
    acl_denial_text(r, cmd, NULL, 0, false, &b);
    buf_append_char(&b, '\0');
    if (strcmp(cmd->full_name, "exec") == 0)
        multi_exec_rejected(multi_of_request(req), req->reply, buf_head(&b));
    else
        reply_error(req->reply, buf_head(&b));
    buf_free(&b);
    return false;
}

enum acl_result acl_check_nested(struct conn *caller, const struct command *cmd, int argc,
                                 const char *const *argv, const size_t *lens, const char *context)
{
    if (!(command_hooks & HOOK_ADMISSION)) return ACL_OK;
    const char *name = session_user(caller);
    const struct acl_user *u = acl_user_find(name, strlen(name));
    if (u && acl_user_unrestricted(u)) return ACL_OK;
    int pos = 0;
    enum acl_result r = u ? acl_check_call(u, cmd, argc, argv, lens, &pos) : ACL_DENIED_CMD;
    if (r != ACL_OK) log_denial(caller, r, cmd, argv, lens, pos, context);
    return r;
}

/* --- clients a change disconnects ------------------------------------- */

struct kill_user {
    const char *name;
    size_t len;
    struct conn *caller;
};

static bool kill_if_user(struct conn *c, void *arg)
{
    struct kill_user *k = arg;
    const char *u = session_user(c);
    if (strlen(u) == k->len && memcmp(u, k->name, k->len) == 0)
        session_kill(c, k->caller, "user deleted");
    return true;
}

void acl_kill_user_clients(const char *name, size_t len, struct conn *caller)
{
    struct kill_user k = {name, len, caller};
    session_foreach_client(kill_if_user, &k);
}

struct pubsub_revoke {
    const struct acl_user *u;
    bool pattern;
    bool denied;
};

/* Whether some selector of u lists a channel pattern that allows name
 * (Redis checks against the union of the selectors' lists). */
static bool channel_allowed(const struct acl_user *u, const char *name, size_t len, bool pattern)
{
    for (int i = 0; i < u->selector_count; i++) {
        struct acl_selector s = u->selectors[i];
        s.flags &= ~ACL_SELECTOR_ALLCHANNELS;
        if (acl_selector_allows_channel(&s, name, len, pattern)) return true;
    }
    return false;
}

static bool subscription_allowed(const char *name, size_t len, void *arg)
{
    struct pubsub_revoke *r = arg;
    if (!channel_allowed(r->u, name, len, r->pattern)) r->denied = true;
    return !r->denied;
}

struct pubsub_kill {
    const struct acl_user *u;
    struct conn *caller;
};

static bool kill_if_revoked(struct conn *c, void *arg)
{
    struct pubsub_kill *k = arg;
    const char *name = session_user(c);
    if (strlen(name) != k->u->name_len || memcmp(name, k->u->name, k->u->name_len) != 0)
        return true;
    if (session_client_type(c) != SESSION_CLIENT_PUBSUB) return true;
    struct pubsub_subscriber *s = session_subscriber(c);
    struct pubsub_revoke r = {.u = k->u, .pattern = true};
    pubsub_foreach_subscription(s, PUBSUB_PATTERN, subscription_allowed, &r);
    r.pattern = false;
    if (!r.denied) pubsub_foreach_subscription(s, PUBSUB_CHANNEL, subscription_allowed, &r);
    if (!r.denied) pubsub_foreach_subscription(s, PUBSUB_SHARD, subscription_allowed, &r);
    if (r.denied) session_kill(c, NULL, "channel permissions revoked");
    return true;
}

void acl_kill_pubsub_clients_if_needed(const struct acl_user *u, const struct acl_user *old)
{
    if (!u) return;
    for (int i = 0; i < u->selector_count; i++)
        if (u->selectors[i].flags & ACL_SELECTOR_ALLCHANNELS) return;
    /* Every old pattern still listed: nothing was revoked. */
    bool all_kept = true;
    for (int i = 0; all_kept && i < old->selector_count; i++) {
        const struct acl_selector *s = &old->selectors[i];
        for (int j = 0; all_kept && j < s->channel_count; j++) {
            bool found = false;
            for (int a = 0; !found && a < u->selector_count; a++)
                for (int b = 0; !found && b < u->selectors[a].channel_count; b++)
                    found = u->selectors[a].channels[b].len == s->channels[j].len &&
                            memcmp(u->selectors[a].channels[b].s, s->channels[j].s,
                                   s->channels[j].len) == 0;
            all_kept = found;
        }
    }
    if (all_kept) return;
    struct pubsub_kill k = {u, NULL};
    session_foreach_client(kill_if_revoked, &k);
}

/* --- ACL LOG ----------------------------------------------------------- */

struct log_entry {
    long long count;
    const char *reason, *context; /* static strings */
    char *object, *username, *client_info;
    size_t object_len, username_len;
    int64_t ctime_ms;
};

#define ACL_LOG_GROUPING_MS 60000
#define ACL_LOG_SCAN 10

long long acl_log_max_len = 128;
static struct log_entry *log_entries; /* newest first */
static int log_count, log_cap;

static void entry_free(struct log_entry *e)
{
    xfree(e->object);
    xfree(e->username);
    xfree(e->client_info);
}

void acl_log_add(struct conn *c, const char *reason, const char *context, const char *object,
                 size_t object_len, const char *username, size_t username_len)
{
    int64_t now = clock_unix_ms();
    struct buf info;
    buf_init(&info, 256);
    session_describe(c, &info);
    char *cinfo = xmemdup(buf_head(&info), buf_len(&info));
    buf_free(&info);
    for (int i = 0; i < log_count && i < ACL_LOG_SCAN; i++) {
        struct log_entry *e = &log_entries[i];
        if (strcmp(e->reason, reason) == 0 && strcmp(e->context, context) == 0 &&
            e->object_len == object_len && memcmp(e->object, object, object_len) == 0 &&
            e->username_len == username_len && memcmp(e->username, username, username_len) == 0 &&
            now - e->ctime_ms <= ACL_LOG_GROUPING_MS) {
            struct log_entry m = *e;
            memmove(log_entries + 1, log_entries, sizeof *log_entries * (size_t)i);
            xfree(m.client_info);
            m.client_info = cinfo;
            m.ctime_ms = now;
            m.count++;
            log_entries[0] = m;
            return;
        }
    }
    if (log_count == log_cap) {
        log_cap = log_cap ? log_cap * 2 : 16;
        log_entries = xrealloc(log_entries, sizeof *log_entries * (size_t)log_cap);
    }
    memmove(log_entries + 1, log_entries, sizeof *log_entries * (size_t)log_count);
    log_entries[0] = (struct log_entry){.count = 1,
                                        .reason = reason,
                                        .context = context,
                                        .object = xmemdup(object, object_len),
                                        .object_len = object_len,
                                        .username = xmemdup(username, username_len),
                                        .username_len = username_len,
                                        .client_info = cinfo,
                                        .ctime_ms = now};
    log_count++;
    while (log_count > acl_log_max_len && log_count > 0) entry_free(&log_entries[--log_count]);
}

void acl_log_command(struct cmd_ctx *ctx)
{
    if (ctx->argc > 3) {
        reply_subcommand_syntax_error(ctx);
        return;
    }
    long long count = 10;
    if (ctx->argc == 3) {
        if (arg_equals(ctx, 2, "reset")) {
            for (int i = 0; i < log_count; i++) entry_free(&log_entries[i]);
            log_count = 0;
            reply_ok(ctx->reply);
            return;
        }
        if (!arg_to_ll(ctx, 2, &count)) return;
        if (count < 0) count = 0;
    }
    struct reply *r = ctx->reply;
    long long n = count < log_count ? count : log_count;
    int64_t now = clock_unix_ms();
    reply_array_len(r, n);
    for (long long i = 0; i < n; i++) {
        const struct log_entry *e = &log_entries[i];
        reply_map_len(r, 7);
        reply_bulk_cstr(r, "count");
        reply_int(r, e->count);
        reply_bulk_cstr(r, "reason");
        reply_bulk_cstr(r, e->reason);
        reply_bulk_cstr(r, "context");
        reply_bulk_cstr(r, e->context);
        reply_bulk_cstr(r, "object");
        reply_bulk(r, e->object, e->object_len);
        reply_bulk_cstr(r, "username");
        reply_bulk(r, e->username, e->username_len);
        reply_bulk_cstr(r, "age-seconds");
        reply_double(r, (double)(now - e->ctime_ms) / 1000.0);
        reply_bulk_cstr(r, "client-info");
        reply_bulk_cstr(r, e->client_info);
    }
}
