/* cmd_list.c — list commands, blocking ones included (BLPOP, BLMOVE, ...),
 * over the typed list store (store/list.h). Replies and errors are Redis
 * 7.0's; a blocking command that finds nothing blocks its client through
 * session_block_on_keys() and runs again when a key is ready. */
#include <limits.h>
#include <string.h>

#include "commands/command.h"
#include "commands/typed_args.h"
#include "connection/session.h"
#include "store/list.h"
#include "util/xmalloc.h"

static struct list *list_of(struct kv *kv)
{
    return kv->v.ptr;
}

static void reply_view(struct reply *r, const struct strview *v)
{
    reply_bulk(r, v->ptr, v->len);
}

/* The list at key argv[i] for a write, created when absent. A created list
 * must receive an element before the command returns. */
static struct kv *list_create(struct cmd_ctx *ctx, const char *key, size_t len)
{
    struct kv *kv = kv_new_container(key, len, OBJ_LIST, ENC_QUICKLIST, list_new());
    db_add(ctx->db, kv);
    return kv;
}

static void delete_if_empty(struct cmd_ctx *ctx, struct kv *kv)
{
    if (list_len(list_of(kv)) != 0) return;
    notify_keyspace_event(NOTIFY_GENERIC, "del", kv->key, kv->key_len, ctx->db->id);
    db_delete_kv(ctx->db, kv);
}

/* Redis's event names for each end. */
static const char *push_event(enum list_end where)
{
    return where == LIST_HEAD ? "lpush" : "rpush";
}

static const char *pop_event(enum list_end where)
{
    return where == LIST_HEAD ? "lpop" : "rpop";
}

static bool parse_end(struct cmd_ctx *ctx, int i, enum list_end *out)
{
    if (arg_equals(ctx, i, "left")) {
        *out = LIST_HEAD;
    } else if (arg_equals(ctx, i, "right")) {
        *out = LIST_TAIL;
    } else {
        reply_error_syntax(ctx->reply);
        return false;
    }
    return true;
}

/* --- push ------------------------------------------------------------------ */

static void push_generic(struct cmd_ctx *ctx, enum list_end where, bool only_existing)
{
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv) {
        if (only_existing) {
            reply_int(ctx->reply, 0);
            return;
        }
        kv = list_create(ctx, ctx->argv[1], ctx->argv_len[1]);
    }
    struct list *l = list_of(kv);
    for (int i = 2; i < ctx->argc; i++) list_push(l, where, ctx->argv[i], ctx->argv_len[i]);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], ctx->argc - 2);
    cmd_notify(ctx, NOTIFY_LIST, push_event(where), 1);
    reply_int(ctx->reply, (long long)list_len(l));
}

static void cmd_lpush(struct cmd_ctx *ctx)
{
    push_generic(ctx, LIST_HEAD, false);
}

static void cmd_rpush(struct cmd_ctx *ctx)
{
    push_generic(ctx, LIST_TAIL, false);
}

static void cmd_lpushx(struct cmd_ctx *ctx)
{
    push_generic(ctx, LIST_HEAD, true);
}

static void cmd_rpushx(struct cmd_ctx *ctx)
{
    push_generic(ctx, LIST_TAIL, true);
}

/* --- pop ------------------------------------------------------------------- */

/* Replies up to count elements popped from one end as an array, deleting
 * the key when emptied. */
static void pop_reply_array(struct cmd_ctx *ctx, struct kv *kv, enum list_end where,
                            long long count)
{
    struct list *l = list_of(kv);
    size_t n = (size_t)count < list_len(l) ? (size_t)count : list_len(l);
    reply_array_len(ctx->reply, (long long)n);
    for (size_t i = 0; i < n; i++) {
        struct strview v;
        list_peek(l, where, &v);
        reply_view(ctx->reply, &v);
        list_pop(l, where);
    }
    db_note_key_changes(ctx->db, kv->key, kv->key_len, (long long)n);
    if (n) notify_keyspace_event(NOTIFY_LIST, pop_event(where), kv->key, kv->key_len, ctx->db->id);
    delete_if_empty(ctx, kv);
}

/* Pops one element and replies it as a bulk. */
static void pop_reply_one(struct cmd_ctx *ctx, struct kv *kv, enum list_end where)
{
    struct strview v;
    list_peek(list_of(kv), where, &v);
    reply_view(ctx->reply, &v);
    list_pop(list_of(kv), where);
    db_note_modified(ctx->db, kv);
    notify_keyspace_event(NOTIFY_LIST, pop_event(where), kv->key, kv->key_len, ctx->db->id);
    delete_if_empty(ctx, kv);
}

static void pop_generic(struct cmd_ctx *ctx, enum list_end where)
{
    if (ctx->argc > 3) {
        reply_error_arity(ctx->reply, ctx->cmd->full_name);
        return;
    }
    bool has_count = ctx->argc == 3;
    long long count = 0;
    if (has_count && (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &count) || count < 0)) {
        reply_error(ctx->reply, "ERR value is out of range, must be positive");
        return;
    }
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv) {
        if (has_count)
            reply_nil_array(ctx->reply);
        else
            reply_nil(ctx->reply);
        return;
    }
    if (has_count)
        pop_reply_array(ctx, kv, where, count);
    else
        pop_reply_one(ctx, kv, where);
}

static void cmd_lpop(struct cmd_ctx *ctx)
{
    pop_generic(ctx, LIST_HEAD);
}

static void cmd_rpop(struct cmd_ctx *ctx)
{
    pop_generic(ctx, LIST_TAIL);
}

/* --- reads ----------------------------------------------------------------- */

static void cmd_llen(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    reply_int(ctx->reply, kv ? (long long)list_len(list_of(kv)) : 0);
}

static void cmd_lindex(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv) {
        reply_nil(ctx->reply);
        return;
    }
    long long index;
    if (!arg_to_ll(ctx, 2, &index)) return;
    struct strview v;
    if (list_index(list_of(kv), index, &v))
        reply_view(ctx->reply, &v);
    else
        reply_nil(ctx->reply);
}

/* Redis's clamping of a [start, end] range over a list of len elements;
 * false when empty. */
static bool clamp_range(long long len, long long *start, long long *end)
{
    if (*start < 0) *start += len;
    if (*end < 0) *end += len;
    if (*start < 0) *start = 0;
    if (*start > *end || *start >= len) return false;
    if (*end >= len) *end = len - 1;
    return true;
}

static void cmd_lrange(struct cmd_ctx *ctx)
{
    long long start, end;
    if (!arg_to_ll(ctx, 2, &start) || !arg_to_ll(ctx, 3, &end)) return;
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv || !clamp_range((long long)list_len(list_of(kv)), &start, &end)) {
        reply_array_len(ctx->reply, 0);
        return;
    }
    long long n = end - start + 1;
    reply_array_len(ctx->reply, n);
    struct list_iter it;
    list_iter_init(&it, list_of(kv), (size_t)start, false);
    struct strview v;
    while (n-- > 0 && list_iter_next(&it, &v)) reply_view(ctx->reply, &v);
    list_iter_release(&it);
}

static void cmd_lpos(struct cmd_ctx *ctx)
{
    long long rank = 1, count = -1, maxlen = 0;
    for (int j = 3; j < ctx->argc; j++) {
        bool more = j + 1 < ctx->argc;
        if (more && arg_equals(ctx, j, "rank")) {
            j++;
            if (!num_parse_ll(ctx->argv[j], ctx->argv_len[j], &rank)) {
                reply_error_not_integer(ctx->reply);
                return;
            }
            if (rank == 0) {
                reply_error(ctx->reply,
                            "ERR RANK can't be zero: use 1 to start from the first match, 2 "
                            "from the second ... or use negative to start from the end of the "
                            "list");
                return;
            }
        } else if (more && arg_equals(ctx, j, "count")) {
            j++;
            if (!num_parse_ll(ctx->argv[j], ctx->argv_len[j], &count) || count < 0) {
                reply_error(ctx->reply, "ERR COUNT can't be negative");
                return;
            }
        } else if (more && arg_equals(ctx, j, "maxlen")) {
            j++;
            if (!num_parse_ll(ctx->argv[j], ctx->argv_len[j], &maxlen) || maxlen < 0) {
                reply_error(ctx->reply, "ERR MAXLEN can't be negative");
                return;
            }
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv) {
        if (count != -1)
            reply_array_len(ctx->reply, 0);
        else
            reply_nil(ctx->reply);
        return;
    }
    struct list *l = list_of(kv);
    size_t len = list_len(l);
    bool reverse = rank < 0;
    /* RANK LLONG_MIN is accepted by Redis 7.0 and, negated, stays negative:
     * every match from the tail qualifies. Reproduced. */
    long long skip = rank == LLONG_MIN ? 0 : (reverse ? -rank : rank) - 1;
    reply_mark mark = 0;
    if (count != -1) mark = reply_defer(ctx->reply);
    long long matches = 0;
    struct list_iter it;
    list_iter_init(&it, l, reverse ? len - 1 : 0, reverse);
    struct strview v;
    for (size_t i = 0; (maxlen == 0 || (long long)i < maxlen) && list_iter_next(&it, &v); i++) {
        if (v.len != ctx->argv_len[2] || memcmp(v.ptr, ctx->argv[2], v.len) != 0) continue;
        if (skip > 0) {
            skip--;
            continue;
        }
        long long index = reverse ? (long long)(len - 1 - i) : (long long)i;
        matches++;
        reply_int(ctx->reply, index);
        if (count == -1 || (count && matches >= count)) break;
    }
    list_iter_release(&it);
    if (count != -1)
        reply_defer_array(ctx->reply, mark, matches);
    else if (matches == 0)
        reply_nil(ctx->reply);
}

/* --- edits ----------------------------------------------------------------- */

static void cmd_lset(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv) {
        reply_error(ctx->reply, "ERR no such key");
        return;
    }
    long long index;
    if (!arg_to_ll(ctx, 2, &index)) return;
    struct list *l = list_of(kv);
    long long len = (long long)list_len(l);
    if (index >= len || index < -len) {
        reply_error(ctx->reply, "ERR index out of range");
        return;
    }
    list_set(l, index, ctx->argv[3], ctx->argv_len[3]);
    db_note_modified(ctx->db, kv);
    cmd_notify(ctx, NOTIFY_LIST, "lset", 1);
    reply_ok(ctx->reply);
}

static void cmd_linsert(struct cmd_ctx *ctx)
{
    bool after;
    if (arg_equals(ctx, 2, "after")) {
        after = true;
    } else if (arg_equals(ctx, 2, "before")) {
        after = false;
    } else {
        reply_error_syntax(ctx->reply);
        return;
    }
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv) {
        reply_int(ctx->reply, 0);
        return;
    }
    struct list *l = list_of(kv);
    if (!list_insert_at_pivot(l, ctx->argv[3], ctx->argv_len[3], after, ctx->argv[4],
                              ctx->argv_len[4])) {
        reply_int(ctx->reply, -1);
        return;
    }
    db_note_modified(ctx->db, kv);
    cmd_notify(ctx, NOTIFY_LIST, "linsert", 1);
    reply_int(ctx->reply, (long long)list_len(l));
}

static void cmd_lrem(struct cmd_ctx *ctx)
{
    long long count;
    if (!arg_to_ll(ctx, 2, &count)) return;
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv) {
        reply_int(ctx->reply, 0);
        return;
    }
    size_t limit = count < 0 ? (size_t)(-(count + 1)) + 1 : (size_t)count;
    size_t removed =
        list_remove_value(list_of(kv), ctx->argv[3], ctx->argv_len[3], limit, count < 0);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], (long long)removed);
    if (removed) cmd_notify(ctx, NOTIFY_LIST, "lrem", 1);
    delete_if_empty(ctx, kv);
    reply_int(ctx->reply, (long long)removed);
}

static void cmd_ltrim(struct cmd_ctx *ctx)
{
    long long start, end;
    if (!arg_to_ll(ctx, 2, &start) || !arg_to_ll(ctx, 3, &end)) return;
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!kv) {
        reply_ok(ctx->reply);
        return;
    }
    struct list *l = list_of(kv);
    long long len = (long long)list_len(l), ltrim, rtrim;
    if (!clamp_range(len, &start, &end)) {
        ltrim = len, rtrim = 0;
    } else {
        ltrim = start, rtrim = len - end - 1;
    }
    if (ltrim) list_delete_range(l, 0, (size_t)ltrim);
    if (rtrim) list_delete_range(l, list_len(l) - (size_t)rtrim, (size_t)rtrim);
    /* Redis signals LTRIM's key modified even when nothing was trimmed. */
    keyspace.stats.dirty += ltrim + rtrim;
    db_signal_modified_key(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    cmd_notify(ctx, NOTIFY_LIST, "ltrim", 1);
    delete_if_empty(ctx, kv);
    reply_ok(ctx->reply);
}

/* --- moves ----------------------------------------------------------------- */

/* Moves one element from the list kv (not empty) to argv[dst_i] (whose
 * type has been checked: `dst` is its kv, or NULL when absent) and replies
 * it. */
static void move_one(struct cmd_ctx *ctx, struct kv *src, struct kv *dst, int dst_i,
                     enum list_end from, enum list_end to)
{
    struct strview v;
    list_peek(list_of(src), from, &v);
    /* The value lives in the source node: copy it before popping. */
    char small[64];
    char *copy = v.len <= sizeof small ? small : xmalloc(v.len);
    memcpy(copy, v.ptr, v.len);
    size_t len = v.len;
    list_pop(list_of(src), from);
    if (!dst) dst = list_create(ctx, ctx->argv[dst_i], ctx->argv_len[dst_i]);
    list_push(list_of(dst), to, copy, len);
    reply_bulk(ctx->reply, copy, len);
    if (copy != small) xfree(copy);
    db_note_modified(ctx->db, dst); /* one change, as Redis counts a move */
    db_signal_modified_key(ctx->db, src->key, src->key_len);
    cmd_notify(ctx, NOTIFY_LIST, push_event(to), dst_i);
    cmd_notify(ctx, NOTIFY_LIST, pop_event(from), 1);
    delete_if_empty(ctx, src);
}

/* LMOVE / RPOPLPUSH once the directions are known; with a deadline
 * (BLMOVE / BRPOPLPUSH) an absent source blocks instead of answering nil. */
static void move_generic(struct cmd_ctx *ctx, enum list_end from, enum list_end to,
                         const int64_t *deadline)
{
    bool replied;
    struct kv *src = lookup_write_typed(ctx, 1, OBJ_LIST, &replied);
    if (replied) return;
    if (!src) {
        if (deadline) /* BLMOVE: $-1 in EXEC */
            command_block_on_keys(ctx, OBJ_LIST, 1, 1, *deadline, true);
        else
            reply_nil(ctx->reply);
        return;
    }
    struct kv *dst = lookup_write_typed(ctx, 2, OBJ_LIST, &replied);
    if (replied) return;
    move_one(ctx, src, dst, 2, from, to);
}

static void cmd_lmove(struct cmd_ctx *ctx)
{
    enum list_end from, to;
    if (!parse_end(ctx, 3, &from) || !parse_end(ctx, 4, &to)) return;
    move_generic(ctx, from, to, NULL);
}

static void cmd_rpoplpush(struct cmd_ctx *ctx)
{
    move_generic(ctx, LIST_TAIL, LIST_HEAD, NULL);
}

/* The first non-empty list among keys argv[first..first+n); NULL when none.
 * Replies WRONGTYPE (and sets *replied) at a key of another type met first. */
static struct kv *first_nonempty(struct cmd_ctx *ctx, int first, int n, bool *replied)
{
    for (int i = first; i < first + n; i++) {
        struct kv *kv = lookup_write_typed(ctx, i, OBJ_LIST, replied);
        if (*replied) return NULL;
        if (kv) return kv;
    }
    return NULL;
}

/* Replies [key, [elements]] for LMPOP / BLMPOP. */
static void mpop_reply(struct cmd_ctx *ctx, struct kv *kv, enum list_end where, long long count)
{
    reply_array_len(ctx->reply, 2);
    reply_bulk(ctx->reply, kv->key, kv->key_len);
    pop_reply_array(ctx, kv, where, count);
}

static void cmd_lmpop(struct cmd_ctx *ctx)
{
    int first, n, dir;
    long long count;
    if (!mpop_args(ctx, 1, "left", "right", &first, &n, &dir, &count)) return;
    bool replied;
    struct kv *kv = first_nonempty(ctx, first, n, &replied);
    if (replied) return;
    if (!kv) {
        reply_nil_array(ctx->reply);
        return;
    }
    mpop_reply(ctx, kv, (enum list_end)dir, count);
}

/* --- blocking -------------------------------------------------------------- */

static void block_on(struct cmd_ctx *ctx, int first, int n, int64_t deadline)
{
    command_block_on_keys(ctx, OBJ_LIST, first, n, deadline, false);
}

static void bpop_generic(struct cmd_ctx *ctx, enum list_end where)
{
    int64_t deadline;
    if (!arg_to_block_deadline(ctx, ctx->argc - 1, &deadline)) return;
    bool replied;
    struct kv *kv = first_nonempty(ctx, 1, ctx->argc - 2, &replied);
    if (replied) return;
    if (!kv) {
        block_on(ctx, 1, ctx->argc - 2, deadline);
        return;
    }
    reply_array_len(ctx->reply, 2);
    reply_bulk(ctx->reply, kv->key, kv->key_len);
    pop_reply_one(ctx, kv, where);
}

static void cmd_blpop(struct cmd_ctx *ctx)
{
    bpop_generic(ctx, LIST_HEAD);
}

static void cmd_brpop(struct cmd_ctx *ctx)
{
    bpop_generic(ctx, LIST_TAIL);
}

static void bmove_generic(struct cmd_ctx *ctx, enum list_end from, enum list_end to, int timeout_i)
{
    int64_t deadline;
    if (arg_to_block_deadline(ctx, timeout_i, &deadline)) move_generic(ctx, from, to, &deadline);
}

static void cmd_blmove(struct cmd_ctx *ctx)
{
    enum list_end from, to;
    if (!parse_end(ctx, 3, &from) || !parse_end(ctx, 4, &to)) return;
    bmove_generic(ctx, from, to, 5);
}

static void cmd_brpoplpush(struct cmd_ctx *ctx)
{
    bmove_generic(ctx, LIST_TAIL, LIST_HEAD, 3);
}

static void cmd_blmpop(struct cmd_ctx *ctx)
{
    int first, n, dir;
    long long count;
    if (!mpop_args(ctx, 2, "left", "right", &first, &n, &dir, &count)) return;
    int64_t deadline;
    if (!arg_to_block_deadline(ctx, 1, &deadline)) return;
    bool replied;
    struct kv *kv = first_nonempty(ctx, first, n, &replied);
    if (replied) return;
    if (!kv) {
        block_on(ctx, first, n, deadline);
        return;
    }
    mpop_reply(ctx, kv, (enum list_end)dir, count);
}

/* --- table ----------------------------------------------------------------- */

#define LIST_CMD(nm, ar, fl, handler, first, last, step, sum, ver, cx)                             \
    {                                                                                              \
        .name = nm, .arity = ar, .flags = fl, .fn = handler, .first_key = first, .last_key = last, \
        .key_step = step, .summary = sum, .since = ver, .group = "list", .complexity = cx          \
    }

struct command list_commands[] = {
    LIST_CMD("lpush", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_lpush, 1, 1, 1,
             "Prepends one or more elements to a list. Creates the key if it doesn't exist.",
             "1.0.0", "O(1) for each element added"),
    LIST_CMD("rpush", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_rpush, 1, 1, 1,
             "Appends one or more elements to a list. Creates the key if it doesn't exist.",
             "1.0.0", "O(1) for each element added"),
    LIST_CMD("lpushx", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_lpushx, 1, 1, 1,
             "Prepends one or more elements to a list only when the list exists.", "2.2.0",
             "O(1) for each element added"),
    LIST_CMD("rpushx", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_rpushx, 1, 1, 1,
             "Appends an element to a list only when the list exists.", "2.2.0",
             "O(1) for each element added"),
    LIST_CMD("lpop", -2, CMD_WRITE | CMD_FAST, cmd_lpop, 1, 1, 1,
             "Returns the first elements in a list after removing it. Deletes the list if the "
             "last element was popped.",
             "1.0.0", "O(N) where N is the number of elements returned"),
    LIST_CMD("rpop", -2, CMD_WRITE | CMD_FAST, cmd_rpop, 1, 1, 1,
             "Returns and removes the last elements of a list. Deletes the list if the last "
             "element was popped.",
             "1.0.0", "O(N) where N is the number of elements returned"),
    LIST_CMD("llen", 2, CMD_READONLY | CMD_FAST, cmd_llen, 1, 1, 1, "Returns the length of a list.",
             "1.0.0", "O(1)"),
    LIST_CMD("lindex", 3, CMD_READONLY, cmd_lindex, 1, 1, 1,
             "Returns an element from a list by its index.", "1.0.0",
             "O(N) where N is the number of elements to traverse to get to the element at index."),
    LIST_CMD("lrange", 4, CMD_READONLY, cmd_lrange, 1, 1, 1,
             "Returns a range of elements from a list.", "1.0.0", "O(S+N)"),
    LIST_CMD("lpos", -3, CMD_READONLY, cmd_lpos, 1, 1, 1,
             "Returns the index of matching elements in a list.", "6.0.6",
             "O(N) where N is the number of elements in the list"),
    LIST_CMD("lset", 4, CMD_WRITE | CMD_DENYOOM, cmd_lset, 1, 1, 1,
             "Sets the value of an element in a list by its index.", "1.0.0", "O(N)"),
    LIST_CMD("linsert", 5, CMD_WRITE | CMD_DENYOOM, cmd_linsert, 1, 1, 1,
             "Inserts an element before or after another element in a list.", "2.2.0", "O(N)"),
    LIST_CMD("lrem", 4, CMD_WRITE, cmd_lrem, 1, 1, 1, "Removes elements from a list.", "1.0.0",
             "O(N+M)"),
    LIST_CMD("ltrim", 4, CMD_WRITE, cmd_ltrim, 1, 1, 1,
             "Removes elements from both ends a list. Deletes the list if all elements were "
             "trimmed.",
             "1.0.0", "O(N)"),
    LIST_CMD("lmove", 5, CMD_WRITE | CMD_DENYOOM, cmd_lmove, 1, 2, 1,
             "Returns an element after popping it from one list and pushing it to another.",
             "6.2.0", "O(1)"),
    LIST_CMD("rpoplpush", 3, CMD_WRITE | CMD_DENYOOM, cmd_rpoplpush, 1, 2, 1,
             "Returns the last element of a list after removing and pushing it to another list.",
             "1.2.0", "O(1)"),
    LIST_CMD("lmpop", -4, CMD_WRITE, cmd_lmpop, 0, 0, 0,
             "Returns multiple elements from a list after removing them.", "7.0.0",
             "O(N+M) where N is the number of provided keys and M is the number of elements "
             "returned."),
    LIST_CMD("blpop", -3, CMD_WRITE | CMD_NOSCRIPT, cmd_blpop, 1, -2, 1,
             "Removes and returns the first element in a list. Blocks until an element is "
             "available otherwise.",
             "2.0.0", "O(N) where N is the number of provided keys."),
    LIST_CMD("brpop", -3, CMD_WRITE | CMD_NOSCRIPT, cmd_brpop, 1, -2, 1,
             "Removes and returns the last element in a list. Blocks until an element is "
             "available otherwise.",
             "2.0.0", "O(N) where N is the number of provided keys."),
    LIST_CMD("brpoplpush", 4, CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT, cmd_brpoplpush, 1, 2, 1,
             "Pops an element from a list, pushes it to another list and returns it. Block until "
             "an element is available otherwise.",
             "2.2.0", "O(1)"),
    LIST_CMD("blmove", 6, CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT, cmd_blmove, 1, 2, 1,
             "Pops an element from a list, pushes it to another list and returns it. Blocks "
             "until an element is available otherwise.",
             "6.2.0", "O(1)"),
    LIST_CMD("blmpop", -5, CMD_WRITE | CMD_NOSCRIPT, cmd_blmpop, 0, 0, 0,
             "Pops the first element from one of multiple lists. Blocks until an element is "
             "available otherwise.",
             "7.0.0",
             "O(N+M) where N is the number of provided keys and M is the number of elements "
             "returned."),
    COMMAND_END,
};
