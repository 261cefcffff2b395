/* cmd_hash.c — hash commands: argument parsing and replies over the typed
 * hash store (store/hash.h). Replies and errors are Redis 7.0's. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "commands/command.h"
#include "commands/typed_args.h"
#include "store/hash.h"
#include "util/xmalloc.h"

/* Largest |count| HRANDFIELD serves with repetitions: Redis would build
 * the whole multi-gigabyte reply in memory; a clear error is kinder. */
#define HASH_RANDOM_REPEATS_MAX 10000000LL

static struct hash *hash_of(struct kv *kv)
{
    return kv->v.ptr;
}

/* The hash at argv[1] for a write, created (empty) when absent; NULL after
 * replying WRONGTYPE. A created hash must receive a field before the
 * command returns (empty hashes are never stored). */
static struct kv *hash_lookup_or_create(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_HASH, &replied);
    if (kv || replied) return kv;
    kv = kv_new_container(ctx->argv[1], ctx->argv_len[1], OBJ_HASH, ENC_LISTPACK, hash_new());
    db_add(ctx->db, kv);
    return kv;
}

/* Sets field argv[f] to argv[f + 1] for every pair from `first`; returns
 * how many fields were created. */
static long long set_pairs(struct cmd_ctx *ctx, struct hash *h, int first)
{
    long long created = 0;
    for (int i = first; i + 1 < ctx->argc; i += 2)
        created +=
            hash_set(h, ctx->argv[i], ctx->argv_len[i], ctx->argv[i + 1], ctx->argv_len[i + 1]);
    return created;
}

static void cmd_hset(struct cmd_ctx *ctx)
{
    if (ctx->argc % 2 == 1) {
        reply_error_arity(ctx->reply, ctx->cmd->full_name);
        return;
    }
    struct kv *kv = hash_lookup_or_create(ctx);
    if (!kv) return;
    long long created = set_pairs(ctx, hash_of(kv), 2);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], (ctx->argc - 2) / 2);
    cmd_notify(ctx, NOTIFY_HASH, "hset", 1);
    if (strcmp(ctx->cmd->name, "hmset") == 0)
        reply_ok(ctx->reply);
    else
        reply_int(ctx->reply, created);
}

static void cmd_hsetnx(struct cmd_ctx *ctx)
{
    struct kv *kv = hash_lookup_or_create(ctx);
    if (!kv) return;
    struct hash *h = hash_of(kv);
    if (hash_exists(h, ctx->argv[2], ctx->argv_len[2])) {
        reply_int(ctx->reply, 0);
        return;
    }
    hash_set(h, ctx->argv[2], ctx->argv_len[2], ctx->argv[3], ctx->argv_len[3]);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], 1);
    cmd_notify(ctx, NOTIFY_HASH, "hset", 1);
    reply_int(ctx->reply, 1);
}

static void cmd_hget(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    const char *v;
    size_t vl;
    if (kv && hash_get(hash_of(kv), ctx->argv[2], ctx->argv_len[2], &v, &vl))
        reply_bulk(ctx->reply, v, vl);
    else
        reply_nil(ctx->reply);
}

static void cmd_hmget(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    reply_array_len(ctx->reply, ctx->argc - 2);
    for (int i = 2; i < ctx->argc; i++) {
        const char *v;
        size_t vl;
        if (kv && hash_get(hash_of(kv), ctx->argv[i], ctx->argv_len[i], &v, &vl))
            reply_bulk(ctx->reply, v, vl);
        else
            reply_nil(ctx->reply);
    }
}

static void cmd_hdel(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    long long deleted = 0;
    for (int i = 2; kv && i < ctx->argc; i++) {
        if (!hash_delete(hash_of(kv), ctx->argv[i], ctx->argv_len[i])) continue;
        deleted++;
        if (hash_len(hash_of(kv)) == 0) {
            db_delete_kv(ctx->db, kv);
            kv = NULL;
            break;
        }
    }
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], deleted);
    if (deleted) cmd_notify(ctx, NOTIFY_HASH, "hdel", 1);
    if (deleted && !kv) cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
    reply_int(ctx->reply, deleted);
}

static void cmd_hlen(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
    if (!replied) reply_int(ctx->reply, kv ? (long long)hash_len(hash_of(kv)) : 0);
}

static void cmd_hstrlen(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    const char *v;
    size_t vl = 0;
    if (!kv || !hash_get(hash_of(kv), ctx->argv[2], ctx->argv_len[2], &v, &vl)) vl = 0;
    reply_int(ctx->reply, (long long)vl);
}

static void cmd_hexists(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    reply_int(ctx->reply, kv && hash_exists(hash_of(kv), ctx->argv[2], ctx->argv_len[2]));
}

enum emit_what { EMIT_FIELDS = 1, EMIT_VALUES = 2 };

struct emit_state {
    struct reply *reply;
    int what;
    bool pairs; /* HRANDFIELD WITHVALUES: a pair array (reply_pair_array_len) */
    const struct scan_options *scan;
    long long emitted; /* elements written */
};

static bool emit_field(const char *f, size_t fl, const char *v, size_t vl, void *arg)
{
    struct emit_state *st = arg;
    if (st->scan && !scan_options_match(st->scan, f, fl)) return true;
    if (st->pairs) reply_pair_begin(st->reply);
    if (st->what & EMIT_FIELDS) reply_bulk(st->reply, f, fl), st->emitted++;
    if (st->what & EMIT_VALUES) reply_bulk(st->reply, v, vl), st->emitted++;
    return true;
}

static void reply_all(struct cmd_ctx *ctx, int what)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    long long n = kv ? (long long)hash_len(hash_of(kv)) : 0;
    if (what == (EMIT_FIELDS | EMIT_VALUES))
        reply_map_len(ctx->reply, n);
    else
        reply_array_len(ctx->reply, n);
    if (!kv) return;
    struct emit_state st = {.reply = ctx->reply, .what = what};
    hash_foreach(hash_of(kv), emit_field, &st);
}

static void cmd_hgetall(struct cmd_ctx *ctx)
{
    reply_all(ctx, EMIT_FIELDS | EMIT_VALUES);
}

static void cmd_hkeys(struct cmd_ctx *ctx)
{
    reply_all(ctx, EMIT_FIELDS);
}

static void cmd_hvals(struct cmd_ctx *ctx)
{
    reply_all(ctx, EMIT_VALUES);
}

static void cmd_hincrby(struct cmd_ctx *ctx)
{
    long long incr, value = 0;
    if (!arg_to_ll(ctx, 3, &incr)) return;
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    const char *cur;
    size_t cur_len;
    if (kv && hash_get(hash_of(kv), ctx->argv[2], ctx->argv_len[2], &cur, &cur_len) &&
        !num_parse_ll(cur, cur_len, &value)) {
        reply_error(ctx->reply, "ERR hash value is not an integer");
        return;
    }
    if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) ||
        (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
        reply_error(ctx->reply, "ERR increment or decrement would overflow");
        return;
    }
    value += incr;
    char buf[NUM_LL_STR_SIZE];
    size_t len = num_format_ll(buf, value);
    if (!kv) kv = hash_lookup_or_create(ctx);
    hash_set(hash_of(kv), ctx->argv[2], ctx->argv_len[2], buf, len);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], 1);
    cmd_notify(ctx, NOTIFY_HASH, "hincrby", 1);
    reply_int(ctx->reply, value);
}

static void cmd_hincrbyfloat(struct cmd_ctx *ctx)
{
    long double incr, value = 0;
    if (!num_parse_long_double(ctx->argv[3], ctx->argv_len[3], &incr)) {
        reply_error_not_float(ctx->reply);
        return;
    }
    if (isnan(incr) || isinf(incr)) {
        reply_error(ctx->reply, "ERR value is NaN or Infinity");
        return;
    }
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    const char *cur;
    size_t cur_len;
    if (kv && hash_get(hash_of(kv), ctx->argv[2], ctx->argv_len[2], &cur, &cur_len) &&
        !num_parse_long_double(cur, cur_len, &value)) {
        reply_error(ctx->reply, "ERR hash value is not a float");
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        reply_error(ctx->reply, "ERR increment would produce NaN or Infinity");
        return;
    }
    char buf[NUM_DOUBLE_STR_SIZE];
    size_t len = num_format_long_double_human(buf, sizeof buf, value);
    if (!kv) kv = hash_lookup_or_create(ctx);
    hash_set(hash_of(kv), ctx->argv[2], ctx->argv_len[2], buf, len);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], 1);
    cmd_notify(ctx, NOTIFY_HASH, "hincrbyfloat", 1);
    reply_bulk(ctx->reply, buf, len);
}

static void cmd_hrandfield(struct cmd_ctx *ctx)
{
    bool replied;
    if (ctx->argc == 2) {
        struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
        if (replied) return;
        if (!kv) {
            reply_nil(ctx->reply);
            return;
        }
        struct emit_state st = {.reply = ctx->reply, .what = EMIT_FIELDS};
        hash_random_with_repeats(hash_of(kv), 1, emit_field, &st);
        return;
    }
    long long count;
    bool with_values;
    if (!random_count_args(ctx, "withvalues", &count, &with_values)) return;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    if (!kv || count == 0) {
        reply_array_len(ctx->reply, 0);
        return;
    }
    struct hash *h = hash_of(kv);
    bool repeats = count < 0;
    size_t n = (size_t)(repeats ? -count : count), len = hash_len(h);
    if (repeats && n > HASH_RANDOM_REPEATS_MAX) {
        reply_error(ctx->reply, "ERR count is out of range: at most 10000000 repeated fields");
        return;
    }
    if (!repeats && n > len) n = len;
    struct emit_state st = {
        .reply = ctx->reply,
        .what = with_values ? EMIT_FIELDS | EMIT_VALUES : EMIT_FIELDS,
        .pairs = with_values,
    };
    if (with_values)
        reply_pair_array_len(ctx->reply, (long long)n);
    else
        reply_array_len(ctx->reply, (long long)n);
    if (repeats || n == 1)
        hash_random_with_repeats(h, n, emit_field, &st);
    else if (n == len)
        hash_foreach(h, emit_field, &st);
    else
        hash_random_distinct(h, n, emit_field, &st);
}

/* HSCAN gathers the step's elements first: the cursor, known only after
 * the step, comes before them in the reply. The views stay valid because
 * nothing writes to the hash in between. */
struct scan_batch {
    const struct scan_options *opt;
    struct strview_span {
        const char *p;
        size_t len;
    } * items;
    size_t n, cap;
};

static void scan_batch_push(struct scan_batch *b, const char *p, size_t len)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 32;
        b->items = xrealloc(b->items, b->cap * sizeof b->items[0]);
    }
    b->items[b->n++] = (struct strview_span){p, len};
}

static bool scan_collect(const char *f, size_t fl, const char *v, size_t vl, void *arg)
{
    struct scan_batch *b = arg;
    if (!scan_options_match(b->opt, f, fl)) return true;
    scan_batch_push(b, f, fl);
    if (!b->opt->no_values) scan_batch_push(b, v, vl);
    return true;
}

static void cmd_hscan(struct cmd_ctx *ctx)
{
    unsigned long long cursor;
    if (!arg_to_scan_cursor(ctx, 2, &cursor)) return;
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_HASH, &replied);
    if (replied) return;
    struct scan_options opt;
    struct scan_batch batch = {.opt = &opt};
    if (kv) {
        if (!scan_options_parse(ctx, 3, true, &opt)) return;
        cursor = hash_scan(hash_of(kv), cursor, opt.count, scan_collect, &batch);
    } else {
        cursor = 0;
    }
    reply_array_len(ctx->reply, 2);
    reply_scan_cursor(ctx->reply, cursor);
    reply_array_len(ctx->reply, (long long)batch.n);
    for (size_t i = 0; i < batch.n; i++)
        reply_bulk(ctx->reply, batch.items[i].p, batch.items[i].len);
    xfree(batch.items);
}

struct command hash_commands[] = {
    {.name = "hset",
     .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .fn = cmd_hset,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Creates or modifies the value of a field in a hash.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(1) for each field/value pair added"},
    {.name = "hsetnx",
     .arity = 4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .fn = cmd_hsetnx,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Sets the value of a field in a hash only when the field doesn't exist.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(1)"},
    {.name = "hmset",
     .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .fn = cmd_hset,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Sets the values of multiple fields.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(N) where N is the number of fields being set."},
    {.name = "hget",
     .arity = 3,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_hget,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns the value of a field in a hash.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(1)"},
    {.name = "hmget",
     .arity = -3,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_hmget,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns the values of all fields in a hash.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(N) where N is the number of fields being requested."},
    {.name = "hdel",
     .arity = -3,
     .flags = CMD_WRITE | CMD_FAST,
     .fn = cmd_hdel,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Deletes one or more fields and their values from a hash. Deletes the hash if no "
                "fields remain.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(N) where N is the number of fields to be removed."},
    {.name = "hlen",
     .arity = 2,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_hlen,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns the number of fields in a hash.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(1)"},
    {.name = "hstrlen",
     .arity = 3,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_hstrlen,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns the length of the value of a field.",
     .since = "3.2.0",
     .group = "hash",
     .complexity = "O(1)"},
    {.name = "hexists",
     .arity = 3,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_hexists,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Determines whether a field exists in a hash.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(1)"},
    {.name = "hgetall",
     .arity = 2,
     .flags = CMD_READONLY,
     .fn = cmd_hgetall,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns all fields and values in a hash.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(N) where N is the size of the hash."},
    {.name = "hkeys",
     .arity = 2,
     .flags = CMD_READONLY,
     .fn = cmd_hkeys,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns all fields in a hash.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(N) where N is the size of the hash."},
    {.name = "hvals",
     .arity = 2,
     .flags = CMD_READONLY,
     .fn = cmd_hvals,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns all values in a hash.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(N) where N is the size of the hash."},
    {.name = "hincrby",
     .arity = 4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .fn = cmd_hincrby,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Increments the integer value of a field in a hash by a number. Uses 0 as initial "
                "value if the field doesn't exist.",
     .since = "2.0.0",
     .group = "hash",
     .complexity = "O(1)"},
    {.name = "hincrbyfloat",
     .arity = 4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .fn = cmd_hincrbyfloat,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Increments the floating point value of a field by a number. Uses 0 as initial "
                "value if the field doesn't exist.",
     .since = "2.6.0",
     .group = "hash",
     .complexity = "O(1)"},
    {.name = "hrandfield",
     .arity = -2,
     .flags = CMD_READONLY | CMD_RANDOM,
     .fn = cmd_hrandfield,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns one or more random fields from a hash.",
     .since = "6.2.0",
     .group = "hash",
     .complexity = "O(N) where N is the number of fields returned"},
    {.name = "hscan",
     .arity = -3,
     .flags = CMD_READONLY | CMD_RANDOM,
     .fn = cmd_hscan,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Iterates over fields and values of a hash.",
     .since = "2.8.0",
     .group = "hash",
     .complexity =
         "O(1) for every call. O(N) for a complete iteration, including enough command calls for "
         "the cursor to return back to 0. N is the number of elements inside the collection."},
    COMMAND_END,
};
