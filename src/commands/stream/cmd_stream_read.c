/* cmd_stream_read.c — XREAD and XREADGROUP, served at once or blocking.
 *
 * At once, as Redis's xreadCommand: every stream with entries past the
 * caller's ID (the group's last ID for ">", the consumer's own pending
 * entries for any other XREADGROUP ID) answers, in argument order.
 *
 * Blocking goes through the blocked-client machinery (conn_blocked.c,
 * store/blocking.h): the command is parked with its `$` IDs resolved (the
 * stream's last ID when it blocked) and COUNT set to what Redis serves a
 * woken reader (the caller's, else 1000). When one of its keys is ready
 * the command runs again for that key alone (session_block_retry_key) and
 * does what Redis's serveClientsBlockedOnStreamKey does: a reader with
 * entries past its ID gets them for that one stream; an XREADGROUP whose
 * stream went gets -UNBLOCKED, whose group went -NOGROUP; anything else
 * keeps waiting, in its place in the key's queue. */
#include <stdio.h>
#include <string.h>

#include "commands/stream/cmd_stream.h"
#include "commands/propagate.h"
#include "scripting/script_lua.h"
#include "connection/session.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* What a woken reader without COUNT is served at most (XREAD_BLOCKED_DEFAULT_COUNT). */
#define BLOCKED_DEFAULT_COUNT 1000

struct xread_args {
    bool group_mode;    /* XREADGROUP */
    long long block_ms; /* -1: no BLOCK */
    long long count;    /* 0: all */
    bool noack;
    int group_at, consumer_at; /* argv indexes (XREADGROUP) */
    int keys_at, nkeys;        /* keys argv[keys_at..+nkeys), then their IDs */
};

/* argv[i] compared as Redis's strcmp on its C string (up to a NUL byte). */
static bool arg_cstr_is(const struct cmd_ctx *ctx, int i, char c)
{
    return ctx->argv_len[i] >= 1 && ctx->argv[i][0] == c &&
           (ctx->argv_len[i] == 1 || ctx->argv[i][1] == '\0');
}

static bool parse_options(struct cmd_ctx *ctx, struct xread_args *a)
{
    for (int i = 1; i < ctx->argc; i++) {
        int more = ctx->argc - i - 1;
        if (more && arg_equals(ctx, i, "block")) {
            if (script_lua_running()) {
                reply_error_fmt(ctx->reply,
                                "ERR %.*s command is not allowed with BLOCK option from scripts",
                                STREAM_CSTR_ARG(ctx, 0));
                return false;
            }
            i++;
            if (!num_parse_ll(ctx->argv[i], ctx->argv_len[i], &a->block_ms)) {
                reply_error(ctx->reply, "ERR timeout is not an integer or out of range");
                return false;
            }
            if (a->block_ms < 0) {
                reply_error(ctx->reply, "ERR timeout is negative");
                return false;
            }
        } else if (more && arg_equals(ctx, i, "count")) {
            if (!arg_to_ll(ctx, ++i, &a->count)) return false;
            if (a->count < 0) a->count = 0;
        } else if (more && arg_equals(ctx, i, "streams")) {
            a->keys_at = i + 1;
            int n = ctx->argc - a->keys_at;
            if (n % 2 != 0) {
                reply_error(ctx->reply, "ERR Unbalanced XREAD list of streams: for each stream "
                                        "key an ID or '$' must be specified.");
                return false;
            }
            a->nkeys = n / 2;
            break;
        } else if (more >= 2 && arg_equals(ctx, i, "group")) {
            if (!a->group_mode) {
                reply_error(ctx->reply, "ERR The GROUP option is only supported by XREADGROUP. "
                                        "You called XREAD instead.");
                return false;
            }
            a->group_at = i + 1;
            a->consumer_at = i + 2;
            i += 2;
        } else if (arg_equals(ctx, i, "noack")) {
            if (!a->group_mode) {
                reply_error(ctx->reply, "ERR The NOACK option is only supported by XREADGROUP. "
                                        "You called XREAD instead.");
                return false;
            }
            a->noack = true;
        } else {
            reply_error_syntax(ctx->reply);
            return false;
        }
    }
    if (!a->keys_at) {
        reply_error_syntax(ctx->reply);
        return false;
    }
    if (a->group_mode && !a->group_at) {
        reply_error(ctx->reply, "ERR Missing GROUP option for XREADGROUP");
        return false;
    }
    return true;
}

/* The key's IDs (resolved $, ">" as the largest ID) and groups; false
 * having replied an error. */
static bool resolve_ids(struct cmd_ctx *ctx, const struct xread_args *a, struct stream_id *ids,
                        struct stream_cgroup **groups)
{
    for (int k = 0; k < a->nkeys; k++) {
        int key_at = a->keys_at + k, id_at = key_at + a->nkeys;
        bool replied;
        struct kv *kv = stream_lookup_read(ctx, key_at, &replied);
        if (replied) return false;
        if (a->group_mode) {
            groups[k] = kv ? stream_cg_find(stream_of(kv), ctx->argv[a->group_at],
                                            ctx->argv_len[a->group_at])
                           : NULL;
            if (!groups[k]) {
                reply_error_fmt(ctx->reply,
                                "NOGROUP No such key '%.*s' or consumer group '%.*s' in "
                                "XREADGROUP with GROUP option",
                                STREAM_CSTR_ARG(ctx, key_at), STREAM_CSTR_ARG(ctx, a->group_at));
                return false;
            }
        }
        if (arg_cstr_is(ctx, id_at, '$')) {
            if (a->group_mode) {
                reply_error(ctx->reply,
                            "ERR The $ ID is meaningless in the context of XREADGROUP: you want "
                            "to read the history of this consumer by specifying a proper ID, or "
                            "use the > ID to get new messages. The $ ID would just return an "
                            "empty result set.");
                return false;
            }
            ids[k] = kv ? stream_of(kv)->last_id : (struct stream_id){0, 0};
        } else if (arg_cstr_is(ctx, id_at, '>')) {
            if (!a->group_mode) {
                reply_error(ctx->reply, "ERR The > ID can be specified only when calling "
                                        "XREADGROUP using the GROUP <group> <consumer> option.");
                return false;
            }
            ids[k] = (struct stream_id){UINT64_MAX, UINT64_MAX};
        } else if (!stream_arg_id(ctx, id_at, 0, STREAM_ID_STRICT, &ids[k], NULL)) {
            return false;
        }
    }
    return true;
}

/* The consumer of the read (created on first use); XREADGROUP NOACK
 * writes the creation to the append-only file, as no XCLAIM will. */
static struct stream_consumer *reader_consumer(struct cmd_ctx *ctx, const struct xread_args *a,
                                               struct stream_cgroup *g, int key_at)
{
    bool created;
    struct stream_consumer *c =
        stream_consumer_use(ctx, g, ctx->argv[a->consumer_at], ctx->argv_len[a->consumer_at],
                            ctx->argv[key_at], ctx->argv_len[key_at], &created);
    if (created && a->noack)
        stream_propagate_consumer(ctx, ctx->argv[key_at], ctx->argv_len[key_at], g, c);
    return c;
}

/* One stream's [key, entries] of the reply, entries after gt. */
static void reply_stream_part(struct cmd_ctx *ctx, const struct xread_args *a, struct stream *s,
                              int key_at, const struct stream_id *gt, struct stream_cgroup *g,
                              bool history)
{
    struct stream_id start = *gt;
    stream_id_incr(&start);
    reply_keyed_begin(ctx->reply);
    reply_bulk(ctx->reply, ctx->argv[key_at], ctx->argv_len[key_at]);
    struct stream_consumer *c = g ? reader_consumer(ctx, a, g, key_at) : NULL;
    unsigned flags = (a->noack ? STREAM_RANGE_NOACK : 0) | (history ? STREAM_RANGE_HISTORY : 0);
    stream_reply_range(ctx, s, &start, NULL, (size_t)a->count, false, g, c, flags,
                       ctx->argv[key_at], ctx->argv_len[key_at]);
}

/* Parks the reader: its command, with the IDs resolved and the count a
 * woken reader gets, waits on its keys. */
static void block_reader(struct cmd_ctx *ctx, const struct xread_args *a,
                         const struct stream_id *ids)
{
    int n = a->nkeys;
    int argc = (a->group_mode ? 9 : 6) + (a->noack ? 1 : 0) + 2 * n;
    const char **argv = xmalloc((size_t)argc * sizeof *argv);
    size_t *len = xmalloc((size_t)argc * sizeof *len);
    char(*text)[STREAM_ID_STR_MAX] = xmalloc((size_t)(n + 1) * sizeof *text);
    int at = 0;
#define ADD(p, l) (argv[at] = (p), len[at++] = (l))
#define WORD(w) ADD(w, strlen(w))
    ADD(ctx->argv[0], ctx->argv_len[0]);
    if (a->group_mode) {
        WORD("GROUP");
        ADD(ctx->argv[a->group_at], ctx->argv_len[a->group_at]);
        ADD(ctx->argv[a->consumer_at], ctx->argv_len[a->consumer_at]);
    }
    WORD("COUNT");
    ADD(text[n], (size_t)snprintf(text[n], STREAM_ID_STR_MAX, "%lld",
                                  a->count ? a->count : BLOCKED_DEFAULT_COUNT));
    if (a->noack) WORD("NOACK");
    WORD("BLOCK");
    WORD("0");
    WORD("STREAMS");
    for (int k = 0; k < n; k++) ADD(ctx->argv[a->keys_at + k], ctx->argv_len[a->keys_at + k]);
    for (int k = 0; k < n; k++) {
        if (a->group_mode)
            WORD(">");
        else
            ADD(text[k], stream_id_format(text[k], &ids[k]));
    }
#undef WORD
#undef ADD
    int64_t now = clock_unix_ms();
    /* A timeout past the clock's range waits for ever, as Redis's does. */
    int64_t deadline = a->block_ms == 0 || a->block_ms > INT64_MAX - now ? 0 : now + a->block_ms;
    session_block_on_keys(ctx->conn, OBJ_STREAM, argc, argv, len, argc - 2 * n, n, deadline);
    xfree(text);
    xfree(argv);
    xfree(len);
}

/* A parked reader runs again for the ready key `key` alone (see the top). */
static void serve_ready(struct cmd_ctx *ctx, const struct xread_args *a, const char *key,
                        size_t key_len)
{
    int k = 0;
    while (k < a->nkeys && !(ctx->argv_len[a->keys_at + k] == key_len &&
                             memcmp(ctx->argv[a->keys_at + k], key, key_len) == 0))
        k++;
    int key_at = a->keys_at + k;
    struct kv *kv = k < a->nkeys ? db_lookup_quiet(ctx->db, key, key_len) : NULL;
    bool is_stream = kv && kv->type == OBJ_STREAM;
    struct stream_cgroup *g = NULL;
    struct stream_id gt;
    if (a->group_mode) {
        if (!is_stream) {
            reply_error(ctx->reply, "UNBLOCKED the stream key no longer exists");
            return;
        }
        g = stream_cg_find(stream_of(kv), ctx->argv[a->group_at], ctx->argv_len[a->group_at]);
        if (!g) {
            reply_error(ctx->reply,
                        "NOGROUP the consumer group this client was blocked on no longer exists");
            return;
        }
        gt = g->last_id;
    } else if (!is_stream || !stream_arg_id(ctx, key_at + a->nkeys, 0, 0, &gt, NULL)) {
        session_block_on_keys(ctx->conn, OBJ_STREAM, 0, NULL, NULL, 0, 0, 0); /* waits on */
        return;
    }
    struct stream *s = stream_of(kv);
    if (stream_id_cmp(&s->last_id, &gt) <= 0) {
        session_block_on_keys(ctx->conn, OBJ_STREAM, 0, NULL, NULL, 0, 0, 0);
        return;
    }
    reply_keyed_len(ctx->reply, 1);
    reply_stream_part(ctx, a, s, key_at, &gt, g, false);
}

static void xread_generic(struct cmd_ctx *ctx, bool group_mode)
{
    struct xread_args a = {.group_mode = group_mode, .block_ms = -1};
    if (!parse_options(ctx, &a)) return;
    if (group_mode) propagate_prevent(ctx); /* written as XCLAIM / XGROUP SETID */
    const char *ready_key;
    size_t ready_len;
    if (session_block_retry_key(ctx->conn, &ready_key, &ready_len)) {
        serve_ready(ctx, &a, ready_key, ready_len);
        return;
    }
    struct stream_id small_ids[8];
    struct stream_cgroup *small_groups[8];
    struct stream_id *ids = a.nkeys <= 8 ? small_ids : xmalloc((size_t)a.nkeys * sizeof *ids);
    struct stream_cgroup **groups =
        a.nkeys <= 8 ? small_groups : xmalloc((size_t)a.nkeys * sizeof *groups);
    if (!resolve_ids(ctx, &a, ids, groups)) goto done;
    long long served = 0;
    reply_mark m = 0;
    for (int k = 0; k < a.nkeys; k++) {
        int key_at = a.keys_at + k;
        bool replied;
        struct kv *kv = stream_lookup_read(ctx, key_at, &replied);
        if (!kv) continue;
        struct stream *s = stream_of(kv);
        struct stream_id gt = ids[k], top;
        bool history = false, now_served = false;
        if (group_mode) {
            if (gt.ms != UINT64_MAX || gt.seq != UINT64_MAX) {
                now_served = history = true; /* the consumer's own pending entries */
            } else if (s->length && stream_last_live_id(s, &top) &&
                       stream_id_cmp(&top, &groups[k]->last_id) > 0) {
                now_served = true;
                gt = groups[k]->last_id;
            }
        } else if (s->length && stream_last_live_id(s, &top) && stream_id_cmp(&top, &gt) > 0) {
            now_served = true;
        }
        if (!now_served) continue;
        if (served++ == 0) m = reply_defer(ctx->reply);
        reply_stream_part(ctx, &a, s, key_at, &gt, group_mode ? groups[k] : NULL, history);
        if (group_mode) keyspace.stats.dirty++;
    }
    if (served) {
        reply_defer_keyed(ctx->reply, m, served);
    } else if (a.block_ms != -1 && !ctx->deny_blocking && ctx->conn) {
        block_reader(ctx, &a, ids);
    } else {
        reply_nil_array(ctx->reply); /* no BLOCK, or one that cannot block here (MULTI) */
    }
done:
    if (ids != small_ids) xfree(ids);
    if (groups != small_groups) xfree(groups);
}

void cmd_xread(struct cmd_ctx *ctx)
{
    xread_generic(ctx, false);
}

void cmd_xreadgroup(struct cmd_ctx *ctx)
{
    xread_generic(ctx, true);
}
