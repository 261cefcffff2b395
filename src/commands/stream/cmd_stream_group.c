/* cmd_stream_group.c — consumer group commands: XGROUP (CREATE, SETID,
 * DESTROY, CREATECONSUMER, DELCONSUMER, HELP), XACK, XPENDING, XCLAIM and
 * XAUTOCLAIM, over the group store (store/stream_cgroup.h). Checking order,
 * replies, errors, dirty counts, notifications and what reaches the
 * append-only file are Redis 7.0's (t_stream.c). */
#include <limits.h>
#include <string.h>

#include "commands/stream/cmd_stream.h"
#include "commands/propagate.h"
#include "store/blocking.h"
#include "util/xmalloc.h"

static void reply_nogroup_key(struct cmd_ctx *ctx)
{
    reply_error_fmt(ctx->reply, "NOGROUP No such key '%.*s' or consumer group '%.*s'",
                    STREAM_CSTR_ARG(ctx, 1), STREAM_CSTR_ARG(ctx, 2));
}

/* --- XGROUP ------------------------------------------------------------- */

enum xgroup_sub { XG_CREATE, XG_SETID, XG_DESTROY, XG_CREATECONSUMER, XG_DELCONSUMER };

/* Redis's xgroupCommand: the options of CREATE and SETID, the key and the
 * group are checked the same way for every subcommand, before it runs. */
static void xgroup_generic(struct cmd_ctx *ctx, enum xgroup_sub sub)
{
    bool mkstream = false;
    long long entries_read = STREAM_ENTRIES_READ_INVALID;
    for (int i = 5; i < ctx->argc;) {
        if (sub == XG_CREATE && arg_equals(ctx, i, "mkstream")) {
            mkstream = true;
            i++;
        } else if ((sub == XG_CREATE || sub == XG_SETID) && arg_equals(ctx, i, "entriesread") &&
                   i + 1 < ctx->argc) {
            if (!arg_to_ll(ctx, i + 1, &entries_read)) return;
            if (entries_read < 0 && entries_read != STREAM_ENTRIES_READ_INVALID) {
                reply_error(ctx->reply, "ERR value for ENTRIESREAD must be positive or -1");
                return;
            }
            i += 2;
        } else {
            reply_subcommand_syntax_error(ctx);
            return;
        }
    }
    bool replied;
    struct kv *kv = stream_lookup_write(ctx, 2, &replied);
    if (replied) return;
    struct stream *s = kv ? stream_of(kv) : NULL;
    const char *name = ctx->argv[3];
    size_t name_len = ctx->argv_len[3];
    struct stream_cgroup *g = NULL;
    if (!mkstream) {
        if (!s) {
            reply_error(ctx->reply, "ERR The XGROUP subcommand requires the key to exist. Note "
                                    "that for CREATE you may want to use the MKSTREAM option to "
                                    "create an empty stream automatically.");
            return;
        }
        g = stream_cg_find(s, name, name_len);
        if (!g && (sub == XG_SETID || sub == XG_CREATECONSUMER || sub == XG_DELCONSUMER)) {
            reply_error_fmt(ctx->reply, "NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                            STREAM_CSTR_ARG(ctx, 3), STREAM_CSTR_ARG(ctx, 2));
            return;
        }
    }
    switch (sub) {
    case XG_CREATE: {
        if (ctx->argc > 8) break;
        struct stream_id id;
        if (ctx->argv_len[4] == 1 && ctx->argv[4][0] == '$') {
            id = s ? s->last_id : (struct stream_id){0, 0};
        } else if (!stream_arg_id(ctx, 4, 0, STREAM_ID_STRICT, &id, NULL)) {
            return;
        }
        if (!s) { /* MKSTREAM, now that nothing can fail */
            s = stream_new();
            db_add(ctx->db,
                   kv_new_container(ctx->argv[2], ctx->argv_len[2], OBJ_STREAM, ENC_STREAM, s));
        }
        if (!stream_cg_create(s, name, name_len, &id, entries_read)) {
            reply_error(ctx->reply, "BUSYGROUP Consumer Group name already exists");
            return;
        }
        reply_ok(ctx->reply);
        keyspace.stats.dirty++;
        cmd_notify(ctx, NOTIFY_STREAM, "xgroup-create", 2);
        return;
    }
    case XG_SETID: {
        if (ctx->argc != 5 && ctx->argc != 7) break;
        struct stream_id id;
        if (ctx->argv_len[4] == 1 && ctx->argv[4][0] == '$')
            id = s->last_id;
        else if (!stream_arg_id(ctx, 4, 0, 0, &id, NULL))
            return;
        g->last_id = id;
        g->entries_read = entries_read;
        reply_ok(ctx->reply);
        keyspace.stats.dirty++;
        cmd_notify(ctx, NOTIFY_STREAM, "xgroup-setid", 2);
        return;
    }
    case XG_DESTROY:
        if (!g) {
            reply_int(ctx->reply, 0);
            return;
        }
        stream_cg_destroy(s, name, name_len);
        reply_int(ctx->reply, 1);
        keyspace.stats.dirty++;
        cmd_notify(ctx, NOTIFY_STREAM, "xgroup-destroy", 2);
        /* Its blocked XREADGROUP readers get -NOGROUP. */
        blocking_signal_stream(ctx->db->id, ctx->argv[2], ctx->argv_len[2]);
        return;
    case XG_CREATECONSUMER: {
        bool created =
            stream_consumer_create(g, ctx->argv[4], ctx->argv_len[4], keyspace_now_ms()) != NULL;
        if (created) {
            keyspace.stats.dirty++;
            cmd_notify(ctx, NOTIFY_STREAM, "xgroup-createconsumer", 2);
        }
        reply_int(ctx->reply, created);
        return;
    }
    case XG_DELCONSUMER: {
        long long pending = 0;
        struct stream_consumer *c = stream_consumer_find(g, ctx->argv[4], ctx->argv_len[4]);
        if (c) {
            pending = (long long)idtree_count(&c->pel);
            stream_consumer_delete(g, c);
            keyspace.stats.dirty++;
            cmd_notify(ctx, NOTIFY_STREAM, "xgroup-delconsumer", 2);
        }
        reply_int(ctx->reply, pending);
        return;
    }
    }
    reply_subcommand_syntax_error(ctx);
}

void cmd_xgroup_create(struct cmd_ctx *ctx)
{
    xgroup_generic(ctx, XG_CREATE);
}

void cmd_xgroup_setid(struct cmd_ctx *ctx)
{
    xgroup_generic(ctx, XG_SETID);
}

void cmd_xgroup_destroy(struct cmd_ctx *ctx)
{
    xgroup_generic(ctx, XG_DESTROY);
}

void cmd_xgroup_createconsumer(struct cmd_ctx *ctx)
{
    xgroup_generic(ctx, XG_CREATECONSUMER);
}

void cmd_xgroup_delconsumer(struct cmd_ctx *ctx)
{
    xgroup_generic(ctx, XG_DELCONSUMER);
}

void cmd_xgroup_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

/* --- XACK, XPENDING ----------------------------------------------------- */

/* The group argv[2] of the stream argv[1] (read lookup, as Redis's); NULL
 * when either is missing (nothing replied) or on WRONGTYPE (*replied). */
static struct stream_cgroup *lookup_group(struct cmd_ctx *ctx, struct kv **kv, bool *replied)
{
    *kv = stream_lookup_read(ctx, 1, replied);
    if (!*kv) return NULL;
    return stream_cg_find(stream_of(*kv), ctx->argv[2], ctx->argv_len[2]);
}

void cmd_xack(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv;
    struct stream_cgroup *g = lookup_group(ctx, &kv, &replied);
    if (replied) return;
    if (!g) {
        reply_int(ctx->reply, 0);
        return;
    }
    /* All the IDs are parsed first: an invalid one acknowledges nothing. */
    struct stream_id small[8];
    struct stream_id *ids = stream_arg_ids(ctx, 3, small, 8);
    if (!ids) return;
    long long acked = 0;
    for (size_t j = 0; j < (size_t)(ctx->argc - 3); j++) {
        if (!stream_pel_ack(g, &ids[j])) continue;
        acked++;
        keyspace.stats.dirty++;
    }
    reply_int(ctx->reply, acked);
    if (ids != small) xfree(ids);
}

static void pending_summary(struct cmd_ctx *ctx, struct stream_cgroup *g)
{
    struct reply *r = ctx->reply;
    reply_array_len(r, 4);
    reply_int(r, (long long)idtree_count(&g->pel));
    if (idtree_count(&g->pel) == 0) {
        reply_nil(r);
        reply_nil(r);
        reply_nil_array(r);
        return;
    }
    struct idtree_pos first = idtree_first(&g->pel), last = idtree_last(&g->pel);
    reply_stream_id(r, idtree_pos_key(&first));
    reply_stream_id(r, idtree_pos_key(&last));
    size_t nc;
    struct stream_consumer *const *cons = stream_consumer_list(g, &nc);
    reply_mark m = reply_defer(r);
    long long listed = 0;
    for (size_t i = 0; i < nc; i++) {
        if (idtree_count(&cons[i]->pel) == 0) continue;
        reply_array_len(r, 2);
        reply_bulk(r, cons[i]->named.name, cons[i]->named.len);
        reply_bulk_ll(r, (long long)idtree_count(&cons[i]->pel));
        listed++;
    }
    reply_defer_array(r, m, listed);
}

void cmd_xpending(struct cmd_ctx *ctx)
{
    bool summary = ctx->argc == 3;
    if (!summary && (ctx->argc < 6 || ctx->argc > 9)) {
        reply_error_syntax(ctx->reply);
        return;
    }
    struct stream_id start = {0, 0}, end = {0, 0};
    long long count = 0, min_idle = 0;
    int consumer_at = 0;
    if (!summary) {
        int at = 3;
        if (arg_equals(ctx, 3, "idle")) {
            if (!arg_to_ll(ctx, 4, &min_idle)) return;
            if (ctx->argc < 8) {
                reply_error_syntax(ctx->reply);
                return;
            }
            at += 2;
        }
        if (!arg_to_ll(ctx, at + 2, &count)) return;
        if (count < 0) count = 0;
        if (!stream_arg_range_start(ctx, at, &start)) return;
        if (!stream_arg_range_end(ctx, at + 1, &end)) return;
        if (at + 3 < ctx->argc) consumer_at = at + 3;
    }
    bool replied;
    struct kv *kv;
    struct stream_cgroup *g = lookup_group(ctx, &kv, &replied);
    if (replied) return;
    if (!g) {
        reply_nogroup_key(ctx);
        return;
    }
    if (summary) {
        pending_summary(ctx, g);
        return;
    }
    const struct idtree *pel = &g->pel;
    if (consumer_at) {
        struct stream_consumer *c =
            stream_consumer_find(g, ctx->argv[consumer_at], ctx->argv_len[consumer_at]);
        if (!c) {
            reply_array_len(ctx->reply, 0);
            return;
        }
        pel = &c->pel;
    }
    int64_t now = keyspace_now_ms();
    reply_mark m = reply_defer(ctx->reply);
    long long n = 0;
    for (struct idtree_pos p = idtree_seek_ge(pel, &start);
         count && idtree_pos_valid(&p) && stream_id_cmp(idtree_pos_key(&p), &end) <= 0;
         idtree_next(&p)) {
        const struct stream_nack *nack = idtree_pos_value(&p);
        int64_t idle = now - nack->delivery_time;
        if (min_idle && idle < min_idle) continue;
        n++;
        count--;
        reply_array_len(ctx->reply, 4);
        reply_stream_id(ctx->reply, idtree_pos_key(&p));
        reply_bulk(ctx->reply, nack->consumer->named.name, nack->consumer->named.len);
        reply_int(ctx->reply, idle < 0 ? 0 : idle);
        reply_int(ctx->reply, (long long)nack->delivery_count);
    }
    reply_defer_array(ctx->reply, m, n);
}

/* --- XCLAIM, XAUTOCLAIM ------------------------------------------------- */

struct id_list {
    struct stream_id *ids;
    size_t n, cap;
};

static void id_list_push(struct id_list *l, const struct stream_id *id)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->ids = xrealloc(l->ids, l->cap * sizeof *l->ids);
    }
    l->ids[l->n++] = *id;
}

/* An integer option with XCLAIM's own error text. */
static bool claim_ll(struct cmd_ctx *ctx, int i, const char *error, long long *out)
{
    if (num_parse_ll(ctx->argv[i], ctx->argv_len[i], out)) return true;
    reply_error(ctx->reply, error);
    return false;
}

/* Hands the pending entry to the claiming consumer (created on first
 * use) as both claims do, and writes the claim to the append-only file. */
static void claim_one(struct cmd_ctx *ctx, struct stream_cgroup *g,
                      struct stream_consumer **consumer, struct stream_nack *nack,
                      const struct stream_id *id)
{
    if (!*consumer) {
        bool created;
        *consumer = stream_consumer_use(ctx, g, ctx->argv[3], ctx->argv_len[3], ctx->argv[1],
                                        ctx->argv_len[1], &created);
    }
    stream_pel_assign(nack, id, *consumer);
    stream_propagate_claim(ctx, ctx->argv[1], ctx->argv_len[1], g, id, nack);
    keyspace.stats.dirty++;
}

/* A claimed entry in the reply: its ID alone with JUSTID. */
static void reply_claimed(struct cmd_ctx *ctx, struct stream *s, const struct stream_id *id,
                          bool justid)
{
    if (justid)
        reply_stream_id(ctx->reply, id);
    else
        stream_reply_range(ctx, s, id, id, 1, false, NULL, NULL, STREAM_RANGE_RAW, NULL, 0);
}

void cmd_xclaim(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv;
    struct stream_cgroup *g = lookup_group(ctx, &kv, &replied);
    if (replied) return;
    if (!g) {
        reply_nogroup_key(ctx);
        return;
    }
    long long min_idle;
    if (!claim_ll(ctx, 4, "ERR Invalid min-idle-time argument for XCLAIM", &min_idle)) return;
    if (min_idle < 0) min_idle = 0;
    /* IDs up to the first argument that is not one, then the options. */
    size_t max_ids = (size_t)(ctx->argc - 5);
    struct stream_id small[8];
    struct stream_id *ids = max_ids <= 8 ? small : xmalloc(max_ids * sizeof *ids);
    int j = 5;
    size_t nids = 0;
    while (j < ctx->argc &&
           stream_id_parse(ctx->argv[j], ctx->argv_len[j], 0, STREAM_ID_STRICT, &ids[nids], NULL)) {
        j++;
        nids++;
    }
    int64_t now = keyspace_now_ms();
    long long retrycount = -1, delivery = -1;
    bool force = false, justid = false;
    struct stream_id last_id = {0, 0};
    for (; j < ctx->argc; j++) {
        bool more = j + 1 < ctx->argc;
        if (arg_equals(ctx, j, "force")) {
            force = true;
        } else if (arg_equals(ctx, j, "justid")) {
            justid = true;
        } else if (more && arg_equals(ctx, j, "idle")) {
            if (!claim_ll(ctx, ++j, "ERR Invalid IDLE option argument for XCLAIM", &delivery))
                goto done;
            delivery = now - delivery;
        } else if (more && arg_equals(ctx, j, "time")) {
            if (!claim_ll(ctx, ++j, "ERR Invalid TIME option argument for XCLAIM", &delivery))
                goto done;
        } else if (more && arg_equals(ctx, j, "retrycount")) {
            if (!claim_ll(ctx, ++j, "ERR Invalid RETRYCOUNT option argument for XCLAIM",
                          &retrycount))
                goto done;
        } else if (more && arg_equals(ctx, j, "lastid")) {
            if (!stream_arg_id(ctx, ++j, 0, STREAM_ID_STRICT, &last_id, NULL)) goto done;
        } else {
            reply_error_fmt(ctx->reply, "ERR Unrecognized XCLAIM option '%.*s'",
                            STREAM_CSTR_ARG(ctx, j));
            goto done;
        }
    }
    propagate_prevent(ctx); /* written as the claims below */
    bool propagate_last_id = false;
    if (stream_id_cmp(&last_id, &g->last_id) > 0) {
        g->last_id = last_id;
        propagate_last_id = true;
    }
    /* A bogus delivery time (clocks differ) is taken as now, not refused. */
    if (delivery < 0 || delivery > now) delivery = now;
    struct stream *s = stream_of(kv);
    struct stream_consumer *consumer = NULL;
    reply_mark m = reply_defer(ctx->reply);
    long long claimed = 0;
    for (size_t k = 0; k < nids; k++) {
        const struct stream_id *id = &ids[k];
        struct stream_nack *nack = stream_pel_find(g, id);
        if (!stream_entry_exists(s, id)) {
            /* Gone from the stream: the pending entry goes too. */
            if (nack) {
                stream_propagate_claim(ctx, ctx->argv[1], ctx->argv_len[1], g, id, nack);
                propagate_last_id = false;
                keyspace.stats.dirty++;
                stream_pel_ack(g, id);
            }
            continue;
        }
        if (force && !nack) nack = stream_pel_add_unowned(g, id, now, 1);
        if (!nack) continue;
        if (nack->consumer && min_idle && now - nack->delivery_time < min_idle) continue;
        nack->delivery_time = delivery;
        if (retrycount >= 0)
            nack->delivery_count = (uint64_t)retrycount;
        else if (!justid)
            nack->delivery_count++;
        claim_one(ctx, g, &consumer, nack, id);
        reply_claimed(ctx, s, id, justid);
        claimed++;
        propagate_last_id = false; /* the claim carries LASTID */
    }
    if (propagate_last_id) {
        stream_propagate_group_id(ctx, ctx->argv[1], ctx->argv_len[1], g);
        keyspace.stats.dirty++;
    }
    reply_defer_array(ctx->reply, m, claimed);
done:
    if (ids != small) xfree(ids);
}

void cmd_xautoclaim(struct cmd_ctx *ctx)
{
    long long min_idle, count = 100;
    if (!claim_ll(ctx, 4, "ERR Invalid min-idle-time argument for XAUTOCLAIM", &min_idle)) return;
    if (min_idle < 0) min_idle = 0;
    struct stream_id start;
    if (!stream_arg_range_start(ctx, 5, &start)) return;
    bool justid = false;
    for (int j = 6; j < ctx->argc; j++) {
        if (arg_equals(ctx, j, "count") && j + 1 < ctx->argc) {
            /* Redis bounds COUNT so COUNT * 16 and COUNT * 10 cannot overflow. */
            if (!num_parse_ll(ctx->argv[j + 1], ctx->argv_len[j + 1], &count) || count < 1 ||
                count > LLONG_MAX / 16) {
                reply_error(ctx->reply, "ERR COUNT must be > 0");
                return;
            }
            j++;
        } else if (arg_equals(ctx, j, "justid")) {
            justid = true;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    bool replied;
    struct kv *kv;
    struct stream_cgroup *g = lookup_group(ctx, &kv, &replied);
    if (replied) return;
    if (!g) {
        reply_nogroup_key(ctx);
        return;
    }
    propagate_prevent(ctx);
    struct stream *s = stream_of(kv);
    /* The claimed and the deleted IDs are replied after the cursor, which
     * is known last. */
    struct id_list claimed = {0}, deleted = {0};
    int64_t now = keyspace_now_ms();
    long long attempts = count * 10;
    struct stream_consumer *consumer = NULL;
    struct idtree_pos p = idtree_seek_ge(&g->pel, &start);
    while (attempts-- > 0 && count > 0 && idtree_pos_valid(&p)) {
        struct stream_id id = *idtree_pos_key(&p);
        struct stream_nack *nack = idtree_pos_value(&p);
        if (!stream_entry_exists(s, &id)) {
            stream_propagate_claim(ctx, ctx->argv[1], ctx->argv_len[1], g, &id, nack);
            keyspace.stats.dirty++;
            stream_pel_ack(g, &id);
            id_list_push(&deleted, &id);
            count--;
            p = idtree_seek_ge(&g->pel, &id);
            continue;
        }
        idtree_next(&p);
        if (min_idle && now - nack->delivery_time < min_idle) continue;
        nack->delivery_time = now;
        if (!justid) nack->delivery_count++;
        claim_one(ctx, g, &consumer, nack, &id);
        id_list_push(&claimed, &id);
        count--;
    }
    struct stream_id next = idtree_pos_valid(&p) ? *idtree_pos_key(&p) : (struct stream_id){0, 0};
    struct reply *r = ctx->reply;
    reply_array_len(r, 3);
    reply_stream_id(r, &next);
    reply_array_len(r, (long long)claimed.n);
    for (size_t i = 0; i < claimed.n; i++) reply_claimed(ctx, s, &claimed.ids[i], justid);
    reply_array_len(r, (long long)deleted.n);
    for (size_t i = 0; i < deleted.n; i++) reply_stream_id(r, &deleted.ids[i]);
    xfree(claimed.ids);
    xfree(deleted.ids);
}
