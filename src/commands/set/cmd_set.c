/* cmd_set.c — set commands: argument parsing and replies over the typed
 * set store (store/set.h). Replies, errors and the checking order are
 * Redis 7.0's, including where the result's encoding depends on how Redis
 * builds it (SPOP's strategies, SDIFF's two algorithms). */
#include <limits.h>
#include <string.h>

#include "commands/command.h"
#include "commands/propagate.h"
#include "commands/typed_args.h"
#include "store/set.h"
#include "util/xmalloc.h"

/* Largest |count| SRANDMEMBER serves with repetitions (see HRANDFIELD). */
#define SET_RANDOM_REPEATS_MAX 10000000LL

/* Inputs kept on the stack up to this many keys. */
#define SET_STACK_INPUTS 16

static struct set *set_of(struct kv *kv)
{
    return kv->v.ptr;
}

/* The set at argv[key_i] for a write, created for its first member
 * argv[member_i] when absent; NULL after replying WRONGTYPE. */
static struct kv *set_lookup_or_create(struct cmd_ctx *ctx, int key_i, int member_i)
{
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, key_i, OBJ_SET, &replied);
    if (kv || replied) return kv;
    struct set *s = set_new_for(ctx->argv[member_i], ctx->argv_len[member_i]);
    kv = kv_new_container(ctx->argv[key_i], ctx->argv_len[key_i], OBJ_SET, ENC_INTSET, s);
    db_add(ctx->db, kv);
    return kv;
}

static bool reply_member(const char *m, size_t len, void *arg)
{
    reply_bulk(arg, m, len);
    return true;
}

static void cmd_sadd(struct cmd_ctx *ctx)
{
    struct kv *kv = set_lookup_or_create(ctx, 1, 2);
    if (!kv) return;
    long long added = 0;
    for (int i = 2; i < ctx->argc; i++)
        added += set_add(set_of(kv), ctx->argv[i], ctx->argv_len[i]);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], added);
    if (added) cmd_notify(ctx, NOTIFY_SET, "sadd", 1);
    reply_int(ctx->reply, added);
}

static void cmd_srem(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_SET, &replied);
    if (replied) return;
    long long removed = 0;
    for (int i = 2; kv && i < ctx->argc; i++) {
        if (!set_remove(set_of(kv), ctx->argv[i], ctx->argv_len[i])) continue;
        removed++;
        if (set_len(set_of(kv)) == 0) {
            db_delete_kv(ctx->db, kv);
            kv = NULL;
            break;
        }
    }
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], removed);
    if (removed) cmd_notify(ctx, NOTIFY_SET, "srem", 1);
    if (removed && !kv) cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
    reply_int(ctx->reply, removed);
}

static void cmd_scard(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_SET, &replied);
    if (!replied) reply_int(ctx->reply, kv ? (long long)set_len(set_of(kv)) : 0);
}

static void cmd_sismember(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_SET, &replied);
    if (!replied)
        reply_int(ctx->reply, kv && set_contains(set_of(kv), ctx->argv[2], ctx->argv_len[2]));
}

static void cmd_smismember(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_SET, &replied);
    if (replied) return;
    reply_array_len(ctx->reply, ctx->argc - 2);
    for (int i = 2; i < ctx->argc; i++)
        reply_int(ctx->reply, kv && set_contains(set_of(kv), ctx->argv[i], ctx->argv_len[i]));
}

static void cmd_smove(struct cmd_ctx *ctx)
{
    struct kv *src = db_lookup_write(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    struct kv *dst = db_lookup_write(ctx->db, ctx->argv[2], ctx->argv_len[2]);
    const char *m = ctx->argv[3];
    size_t len = ctx->argv_len[3];
    if (!src) {
        reply_int(ctx->reply, 0);
        return;
    }
    if (src->type != OBJ_SET || (dst && dst->type != OBJ_SET)) {
        reply_error_wrongtype(ctx->reply);
        return;
    }
    if (src == dst) {
        reply_int(ctx->reply, set_contains(set_of(src), m, len));
        return;
    }
    if (!set_remove(set_of(src), m, len)) {
        reply_int(ctx->reply, 0);
        return;
    }
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], 1);
    cmd_notify(ctx, NOTIFY_SET, "srem", 1);
    if (set_len(set_of(src)) == 0) {
        db_delete_kv(ctx->db, src);
        cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
    }
    if (!dst) dst = set_lookup_or_create(ctx, 2, 3);
    long long added = set_add(set_of(dst), m, len);
    db_note_key_changes(ctx->db, ctx->argv[2], ctx->argv_len[2], added);
    if (added) cmd_notify(ctx, NOTIFY_SET, "sadd", 2);
    reply_int(ctx->reply, 1);
}

/* --- SPOP / SRANDMEMBER ---------------------------------------------------- */

static void pop_one(struct cmd_ctx *ctx, struct kv *kv)
{
    struct set *s = set_of(kv);
    struct strview v;
    set_random_member(s, &v);
    reply_bulk(ctx->reply, v.ptr, v.len);
    propagate_spop_member(ctx, v.ptr, v.len);
    /* The reply holds a copy now; v may point into s. */
    if (v.ptr != v.tmp) {
        char *copy = xmalloc(v.len ? v.len : 1);
        memcpy(copy, v.ptr, v.len);
        set_remove(s, copy, v.len);
        xfree(copy);
    } else {
        set_remove(s, v.tmp, v.len);
    }
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], 1);
}

/* Replies every member of s as a set, in the order Redis 7.0 lists the
 * union of one set (an intset-first copy: integers come sorted). */
static void reply_as_union(struct reply *r, struct set *s);

/* A member SPOP removed: in the reply and in what is propagated. */
static bool reply_popped_member(const char *m, size_t len, void *arg)
{
    struct cmd_ctx *ctx = arg;
    reply_bulk(ctx->reply, m, len);
    propagate_spop_member(ctx, m, len);
    return true;
}

static void spop_with_count(struct cmd_ctx *ctx)
{
    long long count;
    if (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &count) || count < 0) {
        reply_error(ctx->reply, "ERR value is out of range, must be positive");
        return;
    }
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_SET, &replied);
    if (replied) return;
    if (!kv || count == 0) {
        reply_set_len(ctx->reply, 0);
        return;
    }
    struct set *s = set_of(kv);
    size_t size = set_len(s), n = (size_t)count;
    if (n >= size) {
        reply_as_union(ctx->reply, s);
        keyspace.stats.dirty += (long long)size;
        db_delete_kv(ctx->db, kv);
        cmd_notify(ctx, NOTIFY_SET, "spop", 1);
        cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
        return;
    }
    reply_set_len(ctx->reply, count);
    size_t remaining = size - n;
    cmd_notify(ctx, NOTIFY_SET, "spop", 1);
    if (remaining * 5 > n) {
        while (n--) pop_one(ctx, kv);
        return;
    }
    /* Keep the few that remain in a new set; answer with the rest. */
    struct set *rest;
    set_pop_rebuild(s, remaining, &rest);
    set_foreach(s, reply_popped_member, ctx);
    keyspace.stats.dirty += count;
    struct kv *fresh = kv_new_container(ctx->argv[1], ctx->argv_len[1], OBJ_SET, ENC_INTSET, rest);
    db_replace(ctx->db, kv, fresh, true);
}

static void cmd_spop(struct cmd_ctx *ctx)
{
    if (ctx->argc == 3) {
        spop_with_count(ctx);
        return;
    }
    if (ctx->argc > 3) {
        reply_error_syntax(ctx->reply);
        return;
    }
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_SET, &replied);
    if (replied) return;
    if (!kv) {
        reply_nil(ctx->reply);
        return;
    }
    pop_one(ctx, kv);
    cmd_notify(ctx, NOTIFY_SET, "spop", 1);
    if (set_len(set_of(kv)) == 0) {
        db_delete_kv(ctx->db, kv);
        cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
    }
}

static void cmd_srandmember(struct cmd_ctx *ctx)
{
    bool replied;
    if (ctx->argc > 3) {
        reply_error_syntax(ctx->reply);
        return;
    }
    if (ctx->argc == 2) {
        struct kv *kv = lookup_read_typed(ctx, 1, OBJ_SET, &replied);
        if (replied) return;
        if (!kv) {
            reply_nil(ctx->reply);
            return;
        }
        struct strview v;
        set_random_member(set_of(kv), &v);
        reply_bulk(ctx->reply, v.ptr, v.len);
        return;
    }
    long long count;
    if (!arg_to_ll(ctx, 2, &count)) return;
    if (count == LLONG_MIN) {
        reply_error(ctx->reply, "ERR value is out of range, value must between "
                                "-9223372036854775807 and 9223372036854775807");
        return;
    }
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_SET, &replied);
    if (replied) return;
    if (!kv || count == 0) {
        reply_array_len(ctx->reply, 0);
        return;
    }
    struct set *s = set_of(kv);
    bool repeats = count < 0;
    size_t n = (size_t)(repeats ? -count : count), len = set_len(s);
    if (repeats && n > SET_RANDOM_REPEATS_MAX) {
        reply_error(ctx->reply, "ERR count is out of range: at most 10000000 repeated members");
        return;
    }
    if (repeats || n == 1) {
        reply_array_len(ctx->reply, (long long)n);
        set_random_with_repeats(s, n, reply_member, ctx->reply);
    } else if (n >= len) {
        reply_array_len(ctx->reply, (long long)len);
        set_foreach(s, reply_member, ctx->reply);
    } else {
        reply_array_len(ctx->reply, (long long)n);
        set_random_distinct(s, n, reply_member, ctx->reply);
    }
}

/* --- SSCAN ----------------------------------------------------------------- */

struct scan_batch {
    const struct scan_options *opt;
    struct span {
        char *p;
        size_t len;
    } * items;
    size_t n, cap;
};

static bool scan_collect(const char *m, size_t len, void *arg)
{
    struct scan_batch *b = arg;
    if (!scan_options_match(b->opt, m, len)) return true;
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 32;
        b->items = xrealloc(b->items, b->cap * sizeof b->items[0]);
    }
    /* Intset members are printed into a temporary: keep a copy. */
    char *copy = xmalloc(len ? len : 1);
    memcpy(copy, m, len);
    b->items[b->n++] = (struct span){copy, len};
    return true;
}

static void cmd_sscan(struct cmd_ctx *ctx)
{
    unsigned long long cursor;
    if (!arg_to_scan_cursor(ctx, 2, &cursor)) return;
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_SET, &replied);
    if (replied) return;
    struct scan_options opt;
    struct scan_batch batch = {.opt = &opt};
    if (kv) {
        if (!scan_options_parse(ctx, 3, false, &opt)) return;
        cursor = set_scan(set_of(kv), cursor, opt.count, scan_collect, &batch);
    } else {
        cursor = 0;
    }
    reply_array_len(ctx->reply, 2);
    reply_scan_cursor(ctx->reply, cursor);
    reply_array_len(ctx->reply, (long long)batch.n);
    for (size_t i = 0; i < batch.n; i++) {
        reply_bulk(ctx->reply, batch.items[i].p, batch.items[i].len);
        xfree(batch.items[i].p);
    }
    xfree(batch.items);
}

/* --- SINTER / SUNION / SDIFF and their forms ------------------------------- */

struct set_inputs {
    struct set *stack[SET_STACK_INPUTS];
    struct set **sets; /* NULL entries are missing keys */
    size_t n;
    bool missing;
};

/* Looks up argv[first .. first + n - 1] in order (read lookups also for a
 * STORE: Redis 7.0 counts their hits and misses). False after replying
 * WRONGTYPE. */
static bool inputs_load(struct cmd_ctx *ctx, int first, size_t n, struct set_inputs *in)
{
    in->n = n;
    in->missing = false;
    in->sets = n <= SET_STACK_INPUTS ? in->stack : xmalloc(n * sizeof *in->sets);
    for (size_t i = 0; i < n; i++) {
        bool replied;
        int k = first + (int)i;
        struct kv *kv = lookup_read_typed(ctx, k, OBJ_SET, &replied);
        if (replied) {
            if (in->sets != in->stack) xfree(in->sets);
            return false;
        }
        in->sets[i] = kv ? set_of(kv) : NULL;
        in->missing |= !kv;
    }
    return true;
}

static void inputs_free(struct set_inputs *in)
{
    if (in->sets != in->stack) xfree(in->sets);
}

/* Stable sort by size, ascending or descending (glibc's qsort is a merge sort). */
static void sort_by_size(struct set **s, size_t n, bool descending)
{
    for (size_t i = 1; i < n; i++) {
        struct set *x = s[i];
        size_t j = i;
        while (j > 0 &&
               (descending ? set_len(s[j - 1]) < set_len(x) : set_len(s[j - 1]) > set_len(x))) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = x;
    }
}

enum set_sink_kind { SINK_REPLY, SINK_SET, SINK_COUNT };

struct inter_state {
    struct set **sets;
    size_t n;
    enum set_sink_kind kind;
    struct reply *reply;
    struct set *dst;
    long long count, limit;
};

static bool inter_visit(const char *m, size_t len, void *arg)
{
    struct inter_state *st = arg;
    for (size_t j = 1; j < st->n; j++)
        if (st->sets[j] != st->sets[0] && !set_contains(st->sets[j], m, len)) return true;
    st->count++;
    if (st->kind == SINK_REPLY) reply_bulk(st->reply, m, len);
    if (st->kind == SINK_SET) set_add(st->dst, m, len);
    return !(st->kind == SINK_COUNT && st->limit && st->count >= st->limit);
}

/* SINTER, SMEMBERS, SINTERSTORE (dst_i > 0), SINTERCARD (kind SINK_COUNT). */
static void inter_generic(struct cmd_ctx *ctx, int first, size_t n, int dst_i,
                          enum set_sink_kind kind, long long limit)
{
    struct set_inputs in;
    if (!inputs_load(ctx, first, n, &in)) return;
    if (in.missing) {
        if (kind == SINK_SET)
            store_container_result(ctx, dst_i, OBJ_SET, ENC_INTSET, NULL, 0);
        else if (kind == SINK_COUNT)
            reply_int(ctx->reply, 0);
        else
            reply_set_len(ctx->reply, 0);
        inputs_free(&in);
        return;
    }
    sort_by_size(in.sets, n, false);
    struct inter_state st = {in.sets, n, kind, ctx->reply, NULL, 0, limit};
    reply_mark mark = 0;
    if (kind == SINK_REPLY) mark = reply_defer(ctx->reply);
    if (kind == SINK_SET) st.dst = set_new_intset();
    set_foreach(in.sets[0], inter_visit, &st);
    if (kind == SINK_REPLY) {
        reply_defer_set(ctx->reply, mark, st.count);
    } else if (kind == SINK_COUNT) {
        reply_int(ctx->reply, st.count);
    } else {
        size_t len = set_len(st.dst);
        if (len == 0) set_free(st.dst);
        store_container_result(ctx, dst_i, OBJ_SET, ENC_INTSET, st.dst, len);
    }
    inputs_free(&in);
}

static bool add_to(const char *m, size_t len, void *arg)
{
    set_add(arg, m, len);
    return true;
}

static bool remove_from(const char *m, size_t len, void *arg)
{
    set_remove(arg, m, len);
    return set_len(arg) > 0;
}

struct diff_state {
    struct set **sets;
    size_t n;
    struct set *dst;
};

static bool diff_visit(const char *m, size_t len, void *arg)
{
    struct diff_state *st = arg;
    for (size_t j = 1; j < st->n; j++) {
        if (!st->sets[j]) continue;
        if (st->sets[j] == st->sets[0] || set_contains(st->sets[j], m, len)) return true;
    }
    set_add(st->dst, m, len);
    return true;
}

/* The difference as Redis 7.0 computes it, which decides the encoding of
 * the result: walk the first set checking the others (algorithm 1), or
 * copy it and remove the others (algorithm 2), by an estimate of work. */
static void diff_into(struct set *dst, struct set **sets, size_t n)
{
    if (!sets[0]) return;
    for (size_t j = 1; j < n; j++)
        if (sets[j] == sets[0]) return; /* A - A - ... is empty */
    long long one = 0, two = 0;
    for (size_t j = 0; j < n; j++) {
        if (!sets[j]) continue;
        one += (long long)set_len(sets[0]);
        two += (long long)set_len(sets[j]);
    }
    if (one / 2 <= two) {
        /* Subtract the largest sets first: duplicates are found sooner. */
        struct set **rest = sets + 1;
        size_t present = 0;
        for (size_t j = 0; j < n - 1; j++)
            if (rest[j]) rest[present++] = rest[j];
        sort_by_size(rest, present, true);
        struct diff_state st = {sets, present + 1, dst};
        set_foreach(sets[0], diff_visit, &st);
        return;
    }
    set_foreach(sets[0], add_to, dst);
    for (size_t j = 1; j < n && set_len(dst) > 0; j++)
        if (sets[j]) set_foreach(sets[j], remove_from, dst);
}

static void reply_set_members(struct reply *r, struct set *s)
{
    reply_set_len(r, (long long)set_len(s));
    set_foreach(s, reply_member, r);
}

static void reply_as_union(struct reply *r, struct set *s)
{
    struct set *copy = set_new_intset();
    set_foreach(s, add_to, copy);
    reply_set_members(r, copy);
    set_free(copy);
}

/* SUNION, SDIFF and their STORE forms (dst_i > 0). */
static void union_diff_generic(struct cmd_ctx *ctx, int first, size_t n, int dst_i, bool diff)
{
    struct set_inputs in;
    if (!inputs_load(ctx, first, n, &in)) return;
    struct set *dst = set_new_intset();
    if (diff) {
        diff_into(dst, in.sets, n);
    } else {
        for (size_t j = 0; j < n; j++)
            if (in.sets[j]) set_foreach(in.sets[j], add_to, dst);
    }
    inputs_free(&in);
    if (dst_i == 0) {
        reply_set_members(ctx->reply, dst);
        set_free(dst);
        return;
    }
    size_t len = set_len(dst);
    if (len == 0) set_free(dst);
    store_container_result(ctx, dst_i, OBJ_SET, ENC_INTSET, dst, len);
}

static void cmd_smembers(struct cmd_ctx *ctx)
{
    inter_generic(ctx, 1, 1, 0, SINK_REPLY, 0);
}

static void cmd_sinter(struct cmd_ctx *ctx)
{
    inter_generic(ctx, 1, (size_t)ctx->argc - 1, 0, SINK_REPLY, 0);
}

static void cmd_sinterstore(struct cmd_ctx *ctx)
{
    inter_generic(ctx, 2, (size_t)ctx->argc - 2, 1, SINK_SET, 0);
}

static void cmd_sintercard(struct cmd_ctx *ctx)
{
    long long numkeys, limit = 0;
    if (!num_parse_ll(ctx->argv[1], ctx->argv_len[1], &numkeys) || numkeys < 1) {
        reply_error(ctx->reply, "ERR numkeys should be greater than 0");
        return;
    }
    if (numkeys > ctx->argc - 2) {
        reply_error(ctx->reply, "ERR Number of keys can't be greater than number of args");
        return;
    }
    for (int j = 2 + (int)numkeys; j < ctx->argc; j++) {
        if (arg_equals(ctx, j, "limit") && j + 1 < ctx->argc) {
            j++;
            if (!num_parse_ll(ctx->argv[j], ctx->argv_len[j], &limit) || limit < 0) {
                reply_error(ctx->reply, "ERR LIMIT can't be negative");
                return;
            }
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    inter_generic(ctx, 2, (size_t)numkeys, 0, SINK_COUNT, limit);
}

static void cmd_sunion(struct cmd_ctx *ctx)
{
    union_diff_generic(ctx, 1, (size_t)ctx->argc - 1, 0, false);
}

static void cmd_sunionstore(struct cmd_ctx *ctx)
{
    union_diff_generic(ctx, 2, (size_t)ctx->argc - 2, 1, false);
}

static void cmd_sdiff(struct cmd_ctx *ctx)
{
    union_diff_generic(ctx, 1, (size_t)ctx->argc - 1, 0, true);
}

static void cmd_sdiffstore(struct cmd_ctx *ctx)
{
    union_diff_generic(ctx, 2, (size_t)ctx->argc - 2, 1, true);
}

#define SET_CMD(n, a, f, fn_, first, last, step, sum, since_, cx)                                  \
    {                                                                                              \
        .name = n, .arity = a, .flags = f, .fn = fn_, .first_key = first, .last_key = last,        \
        .key_step = step, .summary = sum, .since = since_, .group = "set", .complexity = cx        \
    }

struct command set_commands[] = {
    SET_CMD("sadd", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_sadd, 1, 1, 1,
            "Adds one or more members to a set. Creates the key if it doesn't exist.", "1.0.0",
            "O(1) for each element added, so O(N) to add N elements when the command is called "
            "with multiple arguments."),
    SET_CMD("srem", -3, CMD_WRITE | CMD_FAST, cmd_srem, 1, 1, 1,
            "Removes one or more members from a set. Deletes the set if the last member was "
            "removed.",
            "1.0.0", "O(N) where N is the number of members to be removed."),
    SET_CMD("scard", 2, CMD_READONLY | CMD_FAST, cmd_scard, 1, 1, 1,
            "Returns the number of members in a set.", "1.0.0", "O(1)"),
    SET_CMD("sismember", 3, CMD_READONLY | CMD_FAST, cmd_sismember, 1, 1, 1,
            "Determines whether a member belongs to a set.", "1.0.0", "O(1)"),
    SET_CMD("smismember", -3, CMD_READONLY | CMD_FAST, cmd_smismember, 1, 1, 1,
            "Determines whether multiple members belong to a set.", "6.2.0",
            "O(N) where N is the number of elements being checked for membership"),
    SET_CMD("smembers", 2, CMD_READONLY, cmd_smembers, 1, 1, 1, "Returns all members of a set.",
            "1.0.0", "O(N) where N is the set cardinality."),
    SET_CMD("srandmember", -2, CMD_READONLY | CMD_RANDOM, cmd_srandmember, 1, 1, 1,
            "Get one or multiple random members from a set", "1.0.0",
            "Without the count argument O(1), otherwise O(N) where N is the absolute value of "
            "the passed count."),
    SET_CMD("spop", -2, CMD_WRITE | CMD_FAST | CMD_RANDOM, cmd_spop, 1, 1, 1,
            "Returns one or more random members from a set after removing them. Deletes the set "
            "if the last member was popped.",
            "1.0.0",
            "Without the count argument O(1), otherwise O(N) where N is the value of the passed "
            "count."),
    SET_CMD("smove", 4, CMD_WRITE | CMD_FAST, cmd_smove, 1, 2, 1,
            "Moves a member from one set to another.", "1.0.0", "O(1)"),
    SET_CMD("sinter", -2, CMD_READONLY, cmd_sinter, 1, -1, 1,
            "Returns the intersect of multiple sets.", "1.0.0",
            "O(N*M) worst case where N is the cardinality of the smallest set and M is the "
            "number of sets."),
    SET_CMD("sintercard", -3, CMD_READONLY, cmd_sintercard, 0, 0, 0,
            "Returns the number of members of the intersect of multiple sets.", "7.0.0",
            "O(N*M) worst case where N is the cardinality of the smallest set and M is the "
            "number of sets."),
    SET_CMD("sinterstore", -3, CMD_WRITE | CMD_DENYOOM, cmd_sinterstore, 1, -1, 1,
            "Stores the intersect of multiple sets in a key.", "1.0.0",
            "O(N*M) worst case where N is the cardinality of the smallest set and M is the "
            "number of sets."),
    SET_CMD("sunion", -2, CMD_READONLY, cmd_sunion, 1, -1, 1, "Returns the union of multiple sets.",
            "1.0.0", "O(N) where N is the total number of elements in all given sets."),
    SET_CMD("sunionstore", -3, CMD_WRITE | CMD_DENYOOM, cmd_sunionstore, 1, -1, 1,
            "Stores the union of multiple sets in a key.", "1.0.0",
            "O(N) where N is the total number of elements in all given sets."),
    SET_CMD("sdiff", -2, CMD_READONLY, cmd_sdiff, 1, -1, 1,
            "Returns the difference of multiple sets.", "1.0.0",
            "O(N) where N is the total number of elements in all given sets."),
    SET_CMD("sdiffstore", -3, CMD_WRITE | CMD_DENYOOM, cmd_sdiffstore, 1, -1, 1,
            "Stores the difference of multiple sets in a key.", "1.0.0",
            "O(N) where N is the total number of elements in all given sets."),
    SET_CMD("sscan", -3, CMD_READONLY | CMD_RANDOM, cmd_sscan, 1, 1, 1,
            "Iterates over members of a set.", "2.8.0",
            "O(1) for every call. O(N) for a complete iteration, including enough command calls "
            "for the cursor to return back to 0. N is the number of elements inside the "
            "collection."),
    COMMAND_END,
};
