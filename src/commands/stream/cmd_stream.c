/* cmd_stream.c — stream entry commands (XADD, XTRIM, XDEL, XLEN, XRANGE,
 * XREVRANGE, XSETID), the helpers every stream file shares (cmd_stream.h)
 * and the family's table. Replies, errors and their checking order are
 * Redis 7.0's (t_stream.c). */
#include "commands/stream/cmd_stream.h"

#include <stdio.h>
#include <string.h>

#include "commands/propagate.h"
#include "commands/typed_args.h"
#include "connection/session.h"
#include "store/blocking.h"
#include "util/xmalloc.h"

/* --- shared helpers ----------------------------------------------------- */

struct kv *stream_lookup_read(struct cmd_ctx *ctx, int i, bool *replied)
{
    return lookup_read_typed(ctx, i, OBJ_STREAM, replied);
}

struct kv *stream_lookup_write(struct cmd_ctx *ctx, int i, bool *replied)
{
    return lookup_write_typed(ctx, i, OBJ_STREAM, replied);
}

static void reply_invalid_id(struct cmd_ctx *ctx)
{
    reply_error(ctx->reply, "ERR Invalid stream ID specified as stream command argument");
}

bool stream_arg_id(struct cmd_ctx *ctx, int i, uint64_t missing_seq, unsigned flags,
                   struct stream_id *out, bool *seq_given)
{
    if (stream_id_parse(ctx->argv[i], ctx->argv_len[i], missing_seq, flags, out, seq_given))
        return true;
    reply_invalid_id(ctx);
    return false;
}

/* Redis's streamParseIntervalIDOrReply: "(" makes the bound exclusive. */
static bool arg_interval(struct cmd_ctx *ctx, int i, uint64_t missing_seq, struct stream_id *out,
                         bool *exclusive)
{
    const char *p = ctx->argv[i];
    size_t len = ctx->argv_len[i];
    *exclusive = len > 1 && p[0] == '(';
    bool ok = *exclusive ? stream_id_parse(p + 1, len - 1, missing_seq, STREAM_ID_STRICT, out, NULL)
                         : stream_id_parse(p, len, missing_seq, 0, out, NULL);
    if (!ok) reply_invalid_id(ctx);
    return ok;
}

bool stream_arg_range_start(struct cmd_ctx *ctx, int i, struct stream_id *out)
{
    bool exclusive;
    if (!arg_interval(ctx, i, 0, out, &exclusive)) return false;
    if (exclusive && !stream_id_incr(out)) {
        reply_error(ctx->reply, "ERR invalid start ID for the interval");
        return false;
    }
    return true;
}

bool stream_arg_range_end(struct cmd_ctx *ctx, int i, struct stream_id *out)
{
    bool exclusive;
    if (!arg_interval(ctx, i, UINT64_MAX, out, &exclusive)) return false;
    if (exclusive && !stream_id_decr(out)) {
        reply_error(ctx->reply, "ERR invalid end ID for the interval");
        return false;
    }
    return true;
}

void reply_stream_id(struct reply *r, const struct stream_id *id)
{
    char text[STREAM_ID_STR_MAX];
    reply_bulk(r, text, stream_id_format(text, id));
}

void reply_stream_entry(struct reply *r, struct stream_iter *it, const struct stream_id *id,
                        size_t nfields)
{
    reply_array_len(r, 2);
    reply_stream_id(r, id);
    reply_array_len(r, (long long)nfields * 2);
    for (size_t i = 0; i < nfields; i++) {
        const char *f, *v;
        size_t fl, vl;
        stream_iter_field(it, &f, &fl, &v, &vl);
        reply_bulk(r, f, fl);
        reply_bulk(r, v, vl);
    }
}

/* Redis's streamReplyWithRangeFromConsumerPEL: the consumer's own pending
 * entries from start, each found in the stream (nil fields when it is not
 * there any more) and counted as delivered again. */
static size_t reply_consumer_history(struct cmd_ctx *ctx, struct stream *s,
                                     const struct stream_id *start, size_t count,
                                     struct stream_consumer *c)
{
    reply_mark m = reply_defer(ctx->reply);
    size_t n = 0;
    int64_t now = keyspace_now_ms();
    for (struct idtree_pos p = idtree_seek_ge(&c->pel, start);
         idtree_pos_valid(&p) && (!count || n < count); idtree_next(&p)) {
        struct stream_id id = *idtree_pos_key(&p);
        if (stream_reply_range(ctx, s, &id, &id, 1, false, NULL, NULL, STREAM_RANGE_RAW, NULL, 0) ==
            0) {
            reply_array_len(ctx->reply, 2);
            reply_stream_id(ctx->reply, &id);
            reply_nil_array(ctx->reply);
        } else {
            struct stream_nack *nack = idtree_pos_value(&p);
            nack->delivery_time = now;
            nack->delivery_count++;
        }
        n++;
    }
    reply_defer_array(ctx->reply, m, (long long)n);
    return n;
}

size_t stream_reply_range(struct cmd_ctx *ctx, struct stream *s, const struct stream_id *start,
                          const struct stream_id *end, size_t count, bool rev,
                          struct stream_cgroup *group, struct stream_consumer *consumer,
                          unsigned flags, const char *key, size_t key_len)
{
    if (group && (flags & STREAM_RANGE_HISTORY))
        return reply_consumer_history(ctx, s, start, count, consumer);
    bool noack = flags & STREAM_RANGE_NOACK;
    reply_mark m = 0;
    if (!(flags & STREAM_RANGE_RAW)) m = reply_defer(ctx->reply);
    bool propagate_last_id = false;
    int64_t now = keyspace_now_ms();
    size_t n = 0;
    struct stream_iter it;
    struct stream_id id;
    size_t nfields;
    stream_iter_start(&it, s, start, end, rev);
    while (stream_iter_next(&it, &id, &nfields)) {
        if (group && stream_cg_advance(s, group, &id) && noack) propagate_last_id = true;
        reply_stream_entry(ctx->reply, &it, &id, nfields);
        if (group && !noack) {
            struct stream_nack *nack = stream_pel_deliver(group, consumer, &id, now);
            stream_propagate_claim(ctx, key, key_len, group, &id, nack);
        }
        n++;
        if (count && n == count) break;
    }
    stream_iter_stop(&it);
    if (group && propagate_last_id) stream_propagate_group_id(ctx, key, key_len, group);
    if (!(flags & STREAM_RANGE_RAW)) reply_defer_array(ctx->reply, m, (long long)n);
    return n;
}

/* --- the append-only file ----------------------------------------------- */

/* Builds argv in a fixed frame: at most 14 arguments, numbers and IDs
 * printed into the frame. */
struct prop_argv {
    const char *argv[14];
    size_t len[14];
    int argc;
    char text[4][STREAM_ID_STR_MAX];
    int ntext;
};

static void prop_add(struct prop_argv *a, const char *p, size_t n)
{
    a->argv[a->argc] = p;
    a->len[a->argc++] = n;
}

static void prop_word(struct prop_argv *a, const char *w)
{
    prop_add(a, w, strlen(w));
}

static void prop_id(struct prop_argv *a, const struct stream_id *id)
{
    char *t = a->text[a->ntext++];
    prop_add(a, t, stream_id_format(t, id));
}

static void prop_ll(struct prop_argv *a, long long v)
{
    char *t = a->text[a->ntext++];
    prop_add(a, t, (size_t)snprintf(t, STREAM_ID_STR_MAX, "%lld", v));
}

void stream_propagate_claim(struct cmd_ctx *ctx, const char *key, size_t key_len,
                            const struct stream_cgroup *g, const struct stream_id *id,
                            const struct stream_nack *nack)
{
    if (!propagate_on) return;
    struct prop_argv a = {.argc = 0};
    prop_word(&a, "XCLAIM");
    prop_add(&a, key, key_len);
    prop_add(&a, g->named.name, g->named.len);
    prop_add(&a, nack->consumer->named.name, nack->consumer->named.len);
    prop_word(&a, "0");
    prop_id(&a, id);
    prop_word(&a, "TIME");
    prop_ll(&a, nack->delivery_time);
    prop_word(&a, "RETRYCOUNT");
    prop_ll(&a, (long long)nack->delivery_count);
    prop_word(&a, "FORCE");
    prop_word(&a, "JUSTID");
    prop_word(&a, "LASTID");
    prop_id(&a, &g->last_id);
    propagate_command(ctx, a.argc, a.argv, a.len);
}

void stream_propagate_group_id(struct cmd_ctx *ctx, const char *key, size_t key_len,
                               const struct stream_cgroup *g)
{
    if (!propagate_on) return;
    struct prop_argv a = {.argc = 0};
    prop_word(&a, "XGROUP");
    prop_word(&a, "SETID");
    prop_add(&a, key, key_len);
    prop_add(&a, g->named.name, g->named.len);
    prop_id(&a, &g->last_id);
    prop_word(&a, "ENTRIESREAD");
    prop_ll(&a, g->entries_read);
    propagate_command(ctx, a.argc, a.argv, a.len);
}

void stream_propagate_consumer(struct cmd_ctx *ctx, const char *key, size_t key_len,
                               const struct stream_cgroup *g, const struct stream_consumer *c)
{
    if (!propagate_on) return;
    struct prop_argv a = {.argc = 0};
    prop_word(&a, "XGROUP");
    prop_word(&a, "CREATECONSUMER");
    prop_add(&a, key, key_len);
    prop_add(&a, g->named.name, g->named.len);
    prop_add(&a, c->named.name, c->named.len);
    propagate_command(ctx, a.argc, a.argv, a.len);
}

struct stream_consumer *stream_consumer_use(struct cmd_ctx *ctx, struct stream_cgroup *g,
                                            const char *name, size_t len, const char *key,
                                            size_t key_len, bool *created)
{
    int64_t now = keyspace_now_ms();
    struct stream_consumer *c = stream_consumer_find(g, name, len);
    *created = c == NULL;
    if (c) {
        c->seen_time = now;
        return c;
    }
    c = stream_consumer_create(g, name, len, now);
    keyspace.stats.dirty++;
    notify_keyspace_event(NOTIFY_STREAM, "xgroup-createconsumer", key, key_len, ctx->db->id);
    return c;
}

/* --- XADD and XTRIM ----------------------------------------------------- */

struct add_trim_args {
    struct stream_trim trim;
    int trim_arg; /* argv index of the MAXLEN count / MINID id */
    struct stream_id id;
    bool id_given, seq_given, no_mkstream;
};

/* Redis's streamParseAddOrTrimArgsOrReply: returns the ID's argv index
 * (XADD), argc after XTRIM's options, or -1 having replied an error. */
static int parse_add_trim(struct cmd_ctx *ctx, struct add_trim_args *a, bool xadd)
{
    memset(a, 0, sizeof *a);
    bool limit_given = false;
    int i = 2;
    for (; i < ctx->argc; i++) {
        int more = ctx->argc - 1 - i;
        const char *opt = ctx->argv[i];
        if (xadd && ctx->argv_len[i] == 1 && opt[0] == '*') break;
        bool maxlen = more && arg_equals(ctx, i, "maxlen");
        if (maxlen || (more && arg_equals(ctx, i, "minid"))) {
            if (a->trim.strategy != STREAM_TRIM_NONE) {
                reply_error(ctx->reply, "ERR syntax error, MAXLEN and MINID options at the same "
                                        "time are not compatible");
                return -1;
            }
            a->trim.approx = false;
            const char *next = ctx->argv[i + 1];
            bool single = ctx->argv_len[i + 1] == 1;
            if (more >= 2 && single && next[0] == '~') {
                a->trim.approx = true;
                i++;
            } else if (more >= 2 && single && next[0] == '=') {
                i++;
            }
            if (maxlen) {
                if (!arg_to_ll(ctx, i + 1, &a->trim.maxlen)) return -1;
                if (a->trim.maxlen < 0) {
                    reply_error(ctx->reply, "ERR The MAXLEN argument must be >= 0.");
                    return -1;
                }
            } else if (!stream_arg_id(ctx, i + 1, 0, STREAM_ID_STRICT, &a->trim.minid, NULL)) {
                return -1;
            }
            i++;
            a->trim.strategy = maxlen ? STREAM_TRIM_MAXLEN : STREAM_TRIM_MINID;
            a->trim_arg = i;
        } else if (more && arg_equals(ctx, i, "limit")) {
            if (!arg_to_ll(ctx, i + 1, &a->trim.limit)) return -1;
            if (a->trim.limit < 0) {
                reply_error(ctx->reply, "ERR The LIMIT argument must be >= 0.");
                return -1;
            }
            limit_given = true;
            i++;
        } else if (xadd && arg_equals(ctx, i, "nomkstream")) {
            a->no_mkstream = true;
        } else if (xadd) {
            /* A syntax error or the ID. */
            if (!stream_arg_id(ctx, i, 0, STREAM_ID_STRICT | STREAM_ID_SEQ_STAR, &a->id,
                               &a->seq_given))
                return -1;
            a->id_given = true;
            break;
        } else {
            reply_error_syntax(ctx->reply);
            return -1;
        }
    }
    if (a->trim.limit && a->trim.strategy == STREAM_TRIM_NONE) {
        reply_error(
            ctx->reply,
            "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
        return -1;
    }
    if (!xadd && a->trim.strategy == STREAM_TRIM_NONE) {
        reply_error(ctx->reply, "ERR syntax error, XTRIM must be called with a trimming strategy");
        return -1;
    }
    if (!ctx->conn) {
        /* Replaying the append-only file: its trims were written exact. */
        a->trim.limit = 0;
    } else if (limit_given) {
        if (!a->trim.approx) {
            reply_error(ctx->reply,
                        "ERR syntax error, LIMIT cannot be used without the special ~ option");
            return -1;
        }
    } else if (a->trim.approx) {
        /* At most 100 nodes' worth of work, as Redis bounds it. */
        a->trim.limit = 100 * stream_limits.node_max_entries;
        if (a->trim.limit <= 0) a->trim.limit = 10000;
        if (a->trim.limit > 1000000) a->trim.limit = 1000000;
    } else {
        a->trim.limit = 0;
    }
    return i;
}

/* Writes the command with the arguments Redis rewrites before propagating
 * it: "~" becomes "=" with the resulting length or first ID (a replayed
 * trim must not depend on node sizes), and the ID the one generated. */
static void propagate_rewritten(struct cmd_ctx *ctx, struct stream *s,
                                const struct add_trim_args *a, int id_at,
                                const struct stream_id *id)
{
    if (!propagate_on) return;
    const char *small_argv[16];
    size_t small_len[16];
    const char **argv = ctx->argc <= 16 ? small_argv : xmalloc((size_t)ctx->argc * sizeof *argv);
    size_t *len = ctx->argc <= 16 ? small_len : xmalloc((size_t)ctx->argc * sizeof *len);
    memcpy(argv, ctx->argv, (size_t)ctx->argc * sizeof *argv);
    memcpy(len, ctx->argv_len, (size_t)ctx->argc * sizeof *len);
    char trim_text[STREAM_ID_STR_MAX], id_text[STREAM_ID_STR_MAX];
    if (a->trim.strategy != STREAM_TRIM_NONE && a->trim.approx) {
        argv[a->trim_arg - 1] = "=";
        len[a->trim_arg - 1] = 1;
        if (a->trim.strategy == STREAM_TRIM_MAXLEN) {
            len[a->trim_arg] = (size_t)snprintf(trim_text, sizeof trim_text, "%llu",
                                                (unsigned long long)s->length);
        } else {
            struct stream_id first;
            stream_edge_id(s, true, false, &first);
            len[a->trim_arg] = stream_id_format(trim_text, &first);
        }
        argv[a->trim_arg] = trim_text;
    }
    if (id) {
        argv[id_at] = id_text;
        len[id_at] = stream_id_format(id_text, id);
    }
    propagate_command(ctx, ctx->argc, argv, len);
    if (argv != small_argv) {
        xfree(argv);
        xfree(len);
    }
}

static void cmd_xadd(struct cmd_ctx *ctx)
{
    struct add_trim_args a;
    int id_at = parse_add_trim(ctx, &a, true);
    if (id_at < 0) return;
    propagate_prevent(ctx); /* written below in its rewritten form */
    int fields_at = id_at + 1;
    int nargs = ctx->argc - fields_at;
    if (nargs < 2 || nargs % 2 == 1) {
        reply_error_arity(ctx->reply, "xadd");
        return;
    }
    if (a.id_given && a.seq_given && stream_id_is_zero(&a.id)) {
        reply_error(ctx->reply, "ERR The ID specified in XADD must be greater than 0-0");
        return;
    }
    bool replied;
    struct kv *kv = stream_lookup_write(ctx, 1, &replied);
    if (replied) return;
    if (!kv) {
        if (a.no_mkstream) {
            reply_nil(ctx->reply);
            return;
        }
        kv = kv_new_container(ctx->argv[1], ctx->argv_len[1], OBJ_STREAM, ENC_STREAM, stream_new());
        db_add(ctx->db, kv);
    }
    struct stream *s = stream_of(kv);
    if (s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX) {
        reply_error(ctx->reply,
                    "ERR The stream has exhausted the last possible ID, unable to add more items");
        return;
    }
    struct stream_id id;
    switch (stream_append(s, ctx->argv + fields_at, ctx->argv_len + fields_at, (size_t)nargs / 2,
                          a.id_given ? &a.id : NULL, a.seq_given, keyspace_now_ms(), &id)) {
    case STREAM_APPEND_OK:
        break;
    case STREAM_APPEND_ID_TOO_SMALL:
        reply_error(ctx->reply, "ERR The ID specified in XADD is equal or smaller than the "
                                "target stream top item");
        return;
    case STREAM_APPEND_TOO_LARGE:
        reply_error(ctx->reply, "ERR Elements are too large to be stored");
        return;
    }
    reply_stream_id(ctx->reply, &id);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], 1);
    cmd_notify(ctx, NOTIFY_STREAM, "xadd", 1);
    if (a.trim.strategy != STREAM_TRIM_NONE && stream_trim(s, &a.trim))
        cmd_notify(ctx, NOTIFY_STREAM, "xtrim", 1);
    propagate_rewritten(ctx, s, &a, id_at, !a.id_given || !a.seq_given ? &id : NULL);
    blocking_signal_stream(ctx->db->id, ctx->argv[1], ctx->argv_len[1]);
}

static void cmd_xtrim(struct cmd_ctx *ctx)
{
    struct add_trim_args a;
    if (parse_add_trim(ctx, &a, false) < 0) return;
    propagate_prevent(ctx);
    bool replied;
    struct kv *kv = stream_lookup_write(ctx, 1, &replied);
    if (replied) return;
    if (!kv) {
        reply_int(ctx->reply, 0);
        return;
    }
    struct stream *s = stream_of(kv);
    int64_t deleted = stream_trim(s, &a.trim);
    if (deleted) {
        cmd_notify(ctx, NOTIFY_STREAM, "xtrim", 1);
        db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], deleted);
        propagate_rewritten(ctx, s, &a, 0, NULL);
    }
    reply_int(ctx->reply, deleted);
}

/* --- XDEL, XLEN, XRANGE, XREVRANGE, XSETID ------------------------------ */

struct stream_id *stream_arg_ids(struct cmd_ctx *ctx, int first, struct stream_id *small,
                                 size_t small_n)
{
    size_t n = (size_t)(ctx->argc - first);
    struct stream_id *ids = n <= small_n ? small : xmalloc(n * sizeof *ids);
    for (size_t j = 0; j < n; j++) {
        if (!stream_arg_id(ctx, first + (int)j, 0, STREAM_ID_STRICT, &ids[j], NULL)) {
            if (ids != small) xfree(ids);
            return NULL;
        }
    }
    return ids;
}

static void cmd_xdel(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = stream_lookup_write(ctx, 1, &replied);
    if (replied) return;
    if (!kv) {
        reply_int(ctx->reply, 0);
        return;
    }
    struct stream_id small[8];
    struct stream_id *ids = stream_arg_ids(ctx, 2, small, 8);
    if (!ids) return;
    size_t deleted = stream_delete_ids(stream_of(kv), ids, (size_t)(ctx->argc - 2));
    if (ids != small) xfree(ids);
    if (deleted) {
        db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], (long long)deleted);
        cmd_notify(ctx, NOTIFY_STREAM, "xdel", 1);
    }
    reply_int(ctx->reply, (long long)deleted);
}

static void cmd_xlen(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = stream_lookup_read(ctx, 1, &replied);
    if (replied) return;
    reply_int(ctx->reply, kv ? (long long)stream_of(kv)->length : 0);
}

static void range_generic(struct cmd_ctx *ctx, bool rev)
{
    struct stream_id start, end;
    if (!stream_arg_range_start(ctx, rev ? 3 : 2, &start)) return;
    if (!stream_arg_range_end(ctx, rev ? 2 : 3, &end)) return;
    long long count = -1;
    for (int j = 4; j < ctx->argc; j++) {
        if (arg_equals(ctx, j, "count") && j + 1 < ctx->argc) {
            if (!arg_to_ll(ctx, j + 1, &count)) return;
            if (count < 0) count = 0;
            j++;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    bool replied;
    struct kv *kv = stream_lookup_read(ctx, 1, &replied);
    if (replied) return;
    if (!kv) {
        reply_array_len(ctx->reply, 0);
        return;
    }
    if (count == 0) {
        reply_nil_array(ctx->reply);
        return;
    }
    stream_reply_range(ctx, stream_of(kv), &start, &end, count == -1 ? 0 : (size_t)count, rev, NULL,
                       NULL, 0, NULL, 0);
}

static void cmd_xrange(struct cmd_ctx *ctx)
{
    range_generic(ctx, false);
}

static void cmd_xrevrange(struct cmd_ctx *ctx)
{
    range_generic(ctx, true);
}

static void cmd_xsetid(struct cmd_ctx *ctx)
{
    struct stream_id id, max_deleted = {0, 0};
    long long entries_added = -1;
    if (!stream_arg_id(ctx, 2, 0, STREAM_ID_STRICT, &id, NULL)) return;
    for (int i = 3; i < ctx->argc; i += 2) {
        bool more = i + 1 < ctx->argc;
        if (more && arg_equals(ctx, i, "entriesadded")) {
            if (!arg_to_ll(ctx, i + 1, &entries_added)) return;
            if (entries_added < 0) {
                reply_error(ctx->reply, "ERR entries_added must be positive");
                return;
            }
        } else if (more && arg_equals(ctx, i, "maxdeletedid")) {
            if (!stream_arg_id(ctx, i + 1, 0, STREAM_ID_STRICT, &max_deleted, NULL)) return;
            if (stream_id_cmp(&id, &max_deleted) < 0) {
                reply_error(ctx->reply, "ERR The ID specified in XSETID is smaller than the "
                                        "provided max_deleted_entry_id");
                return;
            }
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    bool replied;
    struct kv *kv = stream_lookup_write(ctx, 1, &replied);
    if (replied) return;
    if (!kv) {
        reply_error(ctx->reply, "ERR no such key");
        return;
    }
    struct stream *s = stream_of(kv);
    if (s->length > 0) {
        struct stream_id top;
        stream_last_live_id(s, &top);
        if (stream_id_cmp(&id, &top) < 0) {
            reply_error(
                ctx->reply,
                "ERR The ID specified in XSETID is smaller than the target stream top item");
            return;
        }
        if (entries_added != -1 && s->length > (uint64_t)entries_added) {
            reply_error(ctx->reply, "ERR The entries_added specified in XSETID is smaller than "
                                    "the target stream length");
            return;
        }
    }
    s->last_id = id;
    if (entries_added != -1) s->entries_added = (uint64_t)entries_added;
    if (!stream_id_is_zero(&max_deleted)) s->max_deleted_id = max_deleted;
    reply_ok(ctx->reply);
    keyspace.stats.dirty++; /* Redis signals no key modified here */
    cmd_notify(ctx, NOTIFY_STREAM, "xsetid", 1);
}

/* --- table -------------------------------------------------------------- */

#define STREAM_CMD(nm, ar, fl, handler, first, last, sum, ver, cx)                                 \
    {                                                                                              \
        .name = nm, .arity = ar, .flags = fl, .fn = handler, .first_key = first, .last_key = last, \
        .key_step = first ? 1 : 0, .summary = sum, .since = ver, .group = "stream",                \
        .complexity = cx                                                                           \
    }

static struct command xgroup_subcommands[] = {
    STREAM_CMD("create", -5, CMD_WRITE | CMD_DENYOOM, cmd_xgroup_create, 2, 2,
               "Create a consumer group.", "5.0.0", "O(1)"),
    STREAM_CMD("createconsumer", 5, CMD_WRITE | CMD_DENYOOM, cmd_xgroup_createconsumer, 2, 2,
               "Create a consumer in a consumer group.", "6.2.0", "O(1)"),
    STREAM_CMD("delconsumer", 5, CMD_WRITE, cmd_xgroup_delconsumer, 2, 2,
               "Delete a consumer from a consumer group.", "5.0.0", "O(1)"),
    STREAM_CMD("destroy", 4, CMD_WRITE, cmd_xgroup_destroy, 2, 2, "Destroy a consumer group.",
               "5.0.0",
               "O(N) where N is the number of entries in the group's pending entries list (PEL)."),
    STREAM_CMD("help", 2, CMD_LOADING | CMD_STALE, cmd_xgroup_help, 0, 0,
               "Show helpful text about the different subcommands", "5.0.0", "O(1)"),
    STREAM_CMD("setid", -5, CMD_WRITE, cmd_xgroup_setid, 2, 2,
               "Set a consumer group to an arbitrary last delivered ID value.", "5.0.0", "O(1)"),
    COMMAND_END,
};

static struct command xinfo_subcommands[] = {
    STREAM_CMD("consumers", 4, CMD_READONLY, cmd_xinfo_consumers, 2, 2,
               "List the consumers in a consumer group", "5.0.0", "O(1)"),
    STREAM_CMD("groups", 3, CMD_READONLY, cmd_xinfo_groups, 2, 2,
               "List the consumer groups of a stream", "5.0.0", "O(1)"),
    STREAM_CMD("help", 2, CMD_LOADING | CMD_STALE, cmd_xinfo_help, 0, 0,
               "Show helpful text about the different subcommands", "5.0.0", "O(1)"),
    STREAM_CMD("stream", -3, CMD_READONLY, cmd_xinfo_stream, 2, 2, "Get information about a stream",
               "5.0.0", "O(1)"),
    COMMAND_END,
};

struct command stream_commands[] = {
    STREAM_CMD("xadd", -5, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_xadd, 1, 1,
               "Appends a new entry to a stream", "5.0.0",
               "O(1) when adding a new entry, O(N) when trimming where N being the number of "
               "entries evicted."),
    STREAM_CMD("xlen", 2, CMD_READONLY | CMD_FAST, cmd_xlen, 1, 1,
               "Return the number of entries in a stream", "5.0.0", "O(1)"),
    STREAM_CMD("xrange", -4, CMD_READONLY, cmd_xrange, 1, 1,
               "Return a range of elements in a stream, with IDs matching the specified IDs "
               "interval",
               "5.0.0", "O(N) with N being the number of elements being returned."),
    STREAM_CMD("xrevrange", -4, CMD_READONLY, cmd_xrevrange, 1, 1,
               "Return a range of elements in a stream, with IDs matching the specified IDs "
               "interval, in reverse order (from greater to smaller IDs) compared to XRANGE",
               "5.0.0", "O(N) with N being the number of elements returned."),
    STREAM_CMD("xdel", -3, CMD_WRITE | CMD_FAST, cmd_xdel, 1, 1,
               "Removes the specified entries from the stream. Returns the number of items "
               "actually deleted, that may be different from the number of IDs passed in case "
               "certain IDs do not exist.",
               "5.0.0", "O(1) for each single item to delete in the stream"),
    STREAM_CMD("xtrim", -4, CMD_WRITE, cmd_xtrim, 1, 1,
               "Trims the stream to (approximately if '~' is passed) a certain size", "5.0.0",
               "O(N), with N being the number of evicted entries."),
    STREAM_CMD("xread", -4, CMD_READONLY, cmd_xread, 0, 0,
               "Return never seen elements in multiple streams, with IDs greater than the ones "
               "reported by the caller for each stream. Can block.",
               "5.0.0",
               "For each stream mentioned: O(M) with M being the number of elements "
               "returned."),
    STREAM_CMD("xreadgroup", -7, CMD_WRITE, cmd_xreadgroup, 0, 0,
               "Return new entries from a stream using a consumer group, or access the history "
               "of the pending entries for a given consumer. Can block.",
               "5.0.0",
               "For each stream mentioned: O(M) with M being the number of elements "
               "returned."),
    STREAM_CMD("xsetid", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_xsetid, 1, 1,
               "An internal command for replicating stream values", "5.0.0", "O(1)"),
    STREAM_CMD("xack", -4, CMD_WRITE | CMD_FAST, cmd_xack, 1, 1,
               "Marks a pending message as correctly processed, effectively removing it from the "
               "pending entries list of the consumer group. Return value of the command is the "
               "number of messages successfully acknowledged, that is, the IDs we were actually "
               "able to resolve in the PEL.",
               "5.0.0", "O(1) for each message ID processed."),
    STREAM_CMD("xpending", -3, CMD_READONLY, cmd_xpending, 1, 1,
               "Return information and entries from a stream consumer group pending entries "
               "list, that are messages fetched but never acknowledged.",
               "5.0.0", "O(N) with N being the number of elements returned"),
    STREAM_CMD("xclaim", -6, CMD_WRITE | CMD_FAST, cmd_xclaim, 1, 1,
               "Changes (or acquires) ownership of a message in a consumer group, as if the "
               "message was delivered to the specified consumer.",
               "5.0.0",
               "O(log N) with N being the number of messages in the PEL of the consumer "
               "group."),
    STREAM_CMD("xautoclaim", -6, CMD_WRITE | CMD_FAST, cmd_xautoclaim, 1, 1,
               "Changes (or acquires) ownership of messages in a consumer group, as if the "
               "messages were delivered to the specified consumer.",
               "6.2.0", "O(1) if COUNT is small."),
    {.name = "xgroup",
     .arity = -2,
     .subcommands = xgroup_subcommands,
     .summary = "A container for consumer groups commands",
     .since = "5.0.0",
     .group = "stream",
     .complexity = "Depends on subcommand."},
    {.name = "xinfo",
     .arity = -2,
     .subcommands = xinfo_subcommands,
     .summary = "A container for stream introspection commands",
     .since = "5.0.0",
     .group = "stream",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
