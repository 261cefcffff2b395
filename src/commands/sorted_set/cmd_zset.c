/* cmd_zset.c — sorted-set commands on single members (ZADD, ZINCRBY,
 * ZSCORE, ZMSCORE, ZCARD, ZRANK, ZREVRANK, ZREM, ZPOPMIN, ZPOPMAX,
 * ZRANDMEMBER, ZSCAN), the family's shared helpers, and its command table.
 * Ranges live in cmd_zset_range.c, set algebra in cmd_zset_ops.c. */
#include "commands/sorted_set/cmd_zset.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands/typed_args.h"
#include "util/xmalloc.h"

/* Largest |count| ZRANDMEMBER serves with repetitions (see cmd_hash.c). */
#define ZSET_RANDOM_REPEATS_MAX 10000000LL
/* ZADD parses every score before writing; this many fit on the stack. */
#define ZADD_STACK_SCORES 32

/* --- shared helpers ---------------------------------------------------------- */

/* strtod over the bytes up to the first NUL: what Redis's zslParseRange
 * reads from its NUL-terminated argument. */
static bool parse_score_bound(const char *s, size_t len, double *out, bool *exclusive)
{
    char tmp[128];
    len = strnlen(s, len);
    *exclusive = len > 0 && s[0] == '(';
    if (*exclusive) s++, len--;
    if (len >= sizeof tmp) {
        /* Longer than any number strtod would accept in full. */
        return false;
    }
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    if (*end != '\0' || isnan(v)) return false;
    *out = v;
    return true;
}

bool zset_parse_score_range(const struct cmd_ctx *ctx, int min_i, int max_i,
                            struct zset_score_range *out)
{
    return parse_score_bound(ctx->argv[min_i], ctx->argv_len[min_i], &out->min,
                             &out->min_exclusive) &&
           parse_score_bound(ctx->argv[max_i], ctx->argv_len[max_i], &out->max,
                             &out->max_exclusive);
}

static bool parse_lex_bound(const char *s, size_t len, struct zset_lex_bound *out)
{
    if (len == 0) return false;
    switch (s[0]) {
    case '+':
    case '-':
        /* Redis checks the byte after the sign, which is the NUL terminator. */
        if (len > 1 && s[1] != '\0') return false;
        out->kind = s[0] == '+' ? ZSET_LEX_PLUS_INF : ZSET_LEX_MINUS_INF;
        return true;
    case '(':
    case '[':
        out->kind = s[0] == '(' ? ZSET_LEX_EXCLUSIVE : ZSET_LEX_INCLUSIVE;
        out->bytes = s + 1;
        out->len = len - 1;
        return true;
    default:
        return false;
    }
}

bool zset_parse_lex_range(const struct cmd_ctx *ctx, int min_i, int max_i,
                          struct zset_lex_range *out)
{
    return parse_lex_bound(ctx->argv[min_i], ctx->argv_len[min_i], &out->min) &&
           parse_lex_bound(ctx->argv[max_i], ctx->argv_len[max_i], &out->max);
}

/* Members with scores are a pair array (nested in RESP3) unless flat. */
static bool scored_pairs(const struct zset_reply *zr)
{
    return zr->with_scores && !zr->flat;
}

void zset_reply_begin(struct zset_reply *zr, long long n)
{
    if (scored_pairs(zr))
        reply_pair_array_len(zr->reply, n);
    else
        reply_array_len(zr->reply, zr->with_scores ? n * 2 : n);
}

bool zset_reply_member(const char *member, size_t len, double score, void *arg)
{
    struct zset_reply *zr = arg;
    if (scored_pairs(zr)) reply_pair_begin(zr->reply);
    reply_bulk(zr->reply, member, len);
    if (zr->with_scores) reply_double(zr->reply, score);
    return true;
}

void zset_store_result(struct cmd_ctx *ctx, int dst_i, struct zset *result)
{
    size_t n = zset_len(result);
    enum obj_encoding enc = zset_is_compact(result) ? ENC_LISTPACK : ENC_SKIPLIST;
    if (n == 0) zset_free(result);
    store_container_result(ctx, dst_i, OBJ_ZSET, enc, result, n);
}

/* --- ZADD / ZINCRBY -------------------------------------------------------------- */

/* ZADD's option checks, in Redis's order (before any score is read). */
static bool zadd_flags_ok(struct cmd_ctx *ctx, int flags, int elements)
{
    if ((flags & ZSET_ADD_NX) && (flags & ZSET_ADD_XX)) {
        reply_error(ctx->reply, "ERR XX and NX options at the same time are not compatible");
        return false;
    }
    int gt_lt_nx = !!(flags & ZSET_ADD_GT) + !!(flags & ZSET_ADD_LT) + !!(flags & ZSET_ADD_NX);
    if (gt_lt_nx > 1) {
        reply_error(ctx->reply,
                    "ERR GT, LT, and/or NX options at the same time are not compatible");
        return false;
    }
    if ((flags & ZSET_ADD_INCR) && elements > 1) {
        reply_error(ctx->reply, "ERR INCR option supports a single increment-element pair");
        return false;
    }
    return true;
}

void zset_add_scored(struct cmd_ctx *ctx, int flags, bool ch, const double *scores, int elements,
                     int first_member, int stride)
{
    bool incr = flags & ZSET_ADD_INCR;
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    long long added = 0, updated = 0, processed = 0;
    double score = 0;
    if (!kv && !(flags & ZSET_ADD_XX)) {
        kv = kv_new_container(ctx->argv[1], ctx->argv_len[1], OBJ_ZSET, ENC_LISTPACK, zset_new());
        db_add(ctx->db, kv);
    }
    for (int j = 0; kv && j < elements; j++) {
        int m = first_member + stride * j;
        enum zset_add_result r =
            zset_add(zset_of(kv), ctx->argv[m], ctx->argv_len[m], scores[j], flags, &score);
        if (r == ZSET_ADD_NAN) {
            reply_error(ctx->reply, "ERR resulting score is not a number (NaN)");
            if (zset_len(zset_of(kv)) == 0) db_delete_kv(ctx->db, kv);
            return;
        }
        added += r == ZSET_ADD_ADDED;
        updated += r == ZSET_ADD_UPDATED;
        processed += r != ZSET_ADD_SKIPPED;
    }
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], added + updated);
    if (added + updated) cmd_notify(ctx, NOTIFY_ZSET, incr ? "zincr" : "zadd", 1);
    if (incr) {
        if (processed)
            reply_double(ctx->reply, score);
        else
            reply_nil(ctx->reply);
    } else {
        reply_int(ctx->reply, ch ? added + updated : added);
    }
}

/* Shared by ZADD and ZINCRBY: pairs of (score, member) from argv[first]. */
static void zadd_generic(struct cmd_ctx *ctx, int first, int flags, bool ch)
{
    int elements = ctx->argc - first;
    if (elements % 2 || elements == 0) {
        reply_error_syntax(ctx->reply);
        return;
    }
    elements /= 2;
    if (!zadd_flags_ok(ctx, flags, elements)) return;
    /* Every score is parsed before anything is written: all or nothing. */
    double stack[ZADD_STACK_SCORES];
    double *scores = elements <= ZADD_STACK_SCORES ? stack : xmalloc(sizeof *scores * elements);
    int j = 0;
    while (j < elements && arg_to_double(ctx, first + 2 * j, &scores[j])) j++;
    if (j == elements) zset_add_scored(ctx, flags, ch, scores, elements, first + 1, 2);
    if (scores != stack) xfree(scores);
}

int zset_parse_add_options(const struct cmd_ctx *ctx, int i, int allowed, int *flags, bool *ch)
{
    static const struct {
        const char *word;
        int flag;
    } options[] = {{"nx", ZSET_ADD_NX},     {"xx", ZSET_ADD_XX}, {"ch", ZADD_OPTION_CH},
                   {"incr", ZSET_ADD_INCR}, {"gt", ZSET_ADD_GT}, {"lt", ZSET_ADD_LT}};
    *flags = 0;
    *ch = false;
    for (; i < ctx->argc; i++) {
        size_t k = 0;
        while (k < sizeof options / sizeof options[0] &&
               !((options[k].flag & allowed) && arg_equals(ctx, i, options[k].word)))
            k++;
        if (k == sizeof options / sizeof options[0]) break;
        if (options[k].flag == ZADD_OPTION_CH)
            *ch = true;
        else
            *flags |= options[k].flag;
    }
    return i;
}

static void cmd_zadd(struct cmd_ctx *ctx)
{
    int flags;
    bool ch;
    int i = zset_parse_add_options(ctx, 2, ~0, &flags, &ch);
    zadd_generic(ctx, i, flags, ch);
}

void zset_zadd_typed(struct cmd_ctx *ctx, const struct typed_call *t)
{
    static const struct {
        unsigned typed;
        int flag;
    } map[] = {{TYPED_ZADD_NX, ZSET_ADD_NX},
               {TYPED_ZADD_XX, ZSET_ADD_XX},
               {TYPED_ZADD_GT, ZSET_ADD_GT},
               {TYPED_ZADD_LT, ZSET_ADD_LT},
               {TYPED_ZADD_INCR, ZSET_ADD_INCR}};
    int flags = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (t->flags & map[i].typed) flags |= map[i].flag;
    if (!zadd_flags_ok(ctx, flags, 1)) return;
    /* The text form refuses "nan" as not a float; so does the native one. */
    if (isnan(t->score)) {
        reply_error_not_float(ctx->reply);
        return;
    }
    zset_add_scored(ctx, flags, t->flags & TYPED_ZADD_CH, &t->score, 1, 3, 2);
}

static void cmd_zincrby(struct cmd_ctx *ctx)
{
    zadd_generic(ctx, 2, ZSET_ADD_INCR, false);
}

/* --- reads of single members ------------------------------------------------------- */

static void cmd_zscore(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    double score;
    if (kv && zset_score(zset_of(kv), ctx->argv[2], ctx->argv_len[2], &score))
        reply_double(ctx->reply, score);
    else
        reply_nil(ctx->reply);
}

static void cmd_zmscore(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    reply_array_len(ctx->reply, ctx->argc - 2);
    for (int i = 2; i < ctx->argc; i++) {
        double score;
        if (kv && zset_score(zset_of(kv), ctx->argv[i], ctx->argv_len[i], &score))
            reply_double(ctx->reply, score);
        else
            reply_nil(ctx->reply);
    }
}

static void cmd_zcard(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (!replied) reply_int(ctx->reply, kv ? (long long)zset_len(zset_of(kv)) : 0);
}

/* ZRANK/ZREVRANK key member [WITHSCORE]. WITHSCORE comes from Redis 7.2;
 * Redis 7.0 has no fourth argument and answers any with an arity error, so
 * every fourth argument but WITHSCORE (and any fifth) gets that error. */
static void zrank_generic(struct cmd_ctx *ctx, bool reverse)
{
    bool with_score = ctx->argc == 4 && arg_equals(ctx, 3, "withscore");
    if (ctx->argc > 3 && !with_score) {
        reply_error_arity(ctx->reply, ctx->cmd->full_name);
        return;
    }
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    size_t rank;
    double score;
    if (!kv || !zset_rank(zset_of(kv), ctx->argv[2], ctx->argv_len[2], reverse, &rank, &score)) {
        if (with_score)
            reply_nil_array(ctx->reply);
        else
            reply_nil(ctx->reply);
        return;
    }
    if (with_score) reply_array_len(ctx->reply, 2);
    reply_int(ctx->reply, (long long)rank);
    if (with_score) reply_double(ctx->reply, score);
}

static void cmd_zrank(struct cmd_ctx *ctx)
{
    zrank_generic(ctx, false);
}

static void cmd_zrevrank(struct cmd_ctx *ctx)
{
    zrank_generic(ctx, true);
}

/* --- removal ------------------------------------------------------------------------ */

static void cmd_zrem(struct cmd_ctx *ctx)
{
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    long long deleted = 0;
    for (int i = 2; kv && i < ctx->argc; i++) {
        if (!zset_delete(zset_of(kv), ctx->argv[i], ctx->argv_len[i])) continue;
        deleted++;
        if (zset_len(zset_of(kv)) == 0) {
            db_delete_kv(ctx->db, kv);
            kv = NULL;
            break;
        }
    }
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], deleted);
    if (deleted) cmd_notify(ctx, NOTIFY_ZSET, "zrem", 1);
    if (deleted && !kv) cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
    reply_int(ctx->reply, deleted);
}

static void zpop_generic(struct cmd_ctx *ctx, bool max)
{
    if (ctx->argc > 3) {
        reply_error_syntax(ctx->reply);
        return;
    }
    long long count = -1; /* -1: no count given, a single flat pair */
    if (ctx->argc == 3 && (!num_parse_ll(ctx->argv[2], ctx->argv_len[2], &count) || count < 0)) {
        reply_error(ctx->reply, "ERR value is out of range, must be positive");
        return;
    }
    bool replied;
    struct kv *kv = lookup_write_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    if (!kv || count == 0) {
        reply_array_len(ctx->reply, 0);
        return;
    }
    struct zset *z = zset_of(kv);
    size_t len = zset_len(z);
    size_t n = count < 0 ? 1 : (size_t)count < len ? (size_t)count : len;
    struct zset_reply zr = {ctx->reply, true, count < 0};
    zset_reply_begin(&zr, (long long)n);
    size_t first = max ? len - n : 0;
    zset_visit_ranks(z, first, first + n, max, zset_reply_member, &zr);
    zset_delete_ranks(z, first, first + n);
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], (long long)n);
    if (n) cmd_notify(ctx, NOTIFY_ZSET, max ? "zpopmax" : "zpopmin", 1);
    if (zset_len(z) == 0) {
        db_delete_kv(ctx->db, kv);
        cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
    }
}

static void cmd_zpopmin(struct cmd_ctx *ctx)
{
    zpop_generic(ctx, false);
}

static void cmd_zpopmax(struct cmd_ctx *ctx)
{
    zpop_generic(ctx, true);
}

/* --- random members and scan ---------------------------------------------------------- */

static void cmd_zrandmember(struct cmd_ctx *ctx)
{
    bool replied;
    if (ctx->argc == 2) {
        struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
        if (replied) return;
        if (!kv) {
            reply_nil(ctx->reply);
            return;
        }
        struct zset_reply zr = {ctx->reply, false, false};
        zset_random_with_repeats(zset_of(kv), 1, zset_reply_member, &zr);
        return;
    }
    long long count;
    bool with_scores;
    if (!random_count_args(ctx, "withscores", &count, &with_scores)) return;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    if (!kv || count == 0) {
        reply_array_len(ctx->reply, 0);
        return;
    }
    struct zset *z = zset_of(kv);
    bool repeats = count < 0;
    size_t n = (size_t)(repeats ? -count : count), len = zset_len(z);
    if (repeats && n > ZSET_RANDOM_REPEATS_MAX) {
        reply_error(ctx->reply, "ERR count is out of range: at most 10000000 repeated members");
        return;
    }
    if (!repeats && n > len) n = len;
    struct zset_reply zr = {ctx->reply, with_scores, false};
    zset_reply_begin(&zr, (long long)n);
    if (repeats || n == 1)
        zset_random_with_repeats(z, n, zset_reply_member, &zr);
    else if (n == len)
        zset_visit_ranks(z, 0, len, true, zset_reply_member, &zr); /* as Redis: highest first */
    else
        zset_random_distinct(z, n, zset_reply_member, &zr);
}

/* ZSCAN gathers a step's members before replying (the cursor goes first);
 * the views stay valid because nothing writes to the set in between. */
struct zscan_batch {
    const struct scan_options *opt;
    struct zscan_item {
        const char *member;
        size_t len;
        double score;
    } * items;
    size_t n, cap;
};

static bool zscan_collect(const char *member, size_t len, double score, void *arg)
{
    struct zscan_batch *b = arg;
    if (!scan_options_match(b->opt, member, len)) return true;
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 32;
        b->items = xrealloc(b->items, b->cap * sizeof b->items[0]);
    }
    b->items[b->n++] = (struct zscan_item){member, len, score};
    return true;
}

static void cmd_zscan(struct cmd_ctx *ctx)
{
    unsigned long long cursor;
    if (!arg_to_scan_cursor(ctx, 2, &cursor)) return;
    bool replied;
    struct kv *kv = lookup_read_typed(ctx, 1, OBJ_ZSET, &replied);
    if (replied) return;
    struct scan_options opt;
    struct zscan_batch batch = {.opt = &opt};
    if (kv) {
        if (!scan_options_parse(ctx, 3, false, &opt)) return;
        cursor = zset_scan(zset_of(kv), cursor, opt.count, zscan_collect, &batch);
    } else {
        cursor = 0;
    }
    reply_array_len(ctx->reply, 2);
    reply_scan_cursor(ctx->reply, cursor);
    reply_array_len(ctx->reply, (long long)batch.n * 2);
    for (size_t i = 0; i < batch.n; i++) {
        /* Scores travel as strings here, in RESP3 too, as Redis sends them. */
        char buf[NUM_DOUBLE_STR_SIZE];
        reply_bulk(ctx->reply, batch.items[i].member, batch.items[i].len);
        reply_bulk(ctx->reply, buf, num_format_double(buf, sizeof buf, batch.items[i].score));
    }
    xfree(batch.items);
}

/* --- the table ------------------------------------------------------------------------- */

#define KEY1 .first_key = 1, .last_key = 1, .key_step = 1
#define ZSET_DOC(sum, ver, cx) .summary = sum, .since = ver, .group = "sorted-set", .complexity = cx

struct command zset_commands[] = {
    {.name = "zadd",
     .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .fn = cmd_zadd,
     KEY1,
     ZSET_DOC(
         "Adds one or more members to a sorted set, or updates their scores. Creates the key if it "
         "doesn't exist.",
         "1.2.0",
         "O(log(N)) for each item added, where N is the number of elements in the sorted set.")},
    {.name = "zincrby",
     .arity = 4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST,
     .fn = cmd_zincrby,
     KEY1,
     ZSET_DOC("Increments the score of a member in a sorted set.", "1.2.0",
              "O(log(N)) where N is the number of elements in the sorted set.")},
    {.name = "zscore",
     .arity = 3,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_zscore,
     KEY1,
     ZSET_DOC("Returns the score of a member in a sorted set.", "1.2.0", "O(1)")},
    {.name = "zmscore",
     .arity = -3,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_zmscore,
     KEY1,
     ZSET_DOC("Returns the score of one or more members in a sorted set.", "6.2.0",
              "O(N) where N is the number of members being requested.")},
    {.name = "zcard",
     .arity = 2,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_zcard,
     KEY1,
     ZSET_DOC("Returns the number of members in a sorted set.", "1.2.0", "O(1)")},
    {.name = "zcount",
     .arity = 4,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_zcount,
     KEY1,
     ZSET_DOC("Returns the count of members in a sorted set that have scores within a range.",
              "2.0.0", "O(log(N)) with N being the number of elements in the sorted set.")},
    {.name = "zlexcount",
     .arity = 4,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_zlexcount,
     KEY1,
     ZSET_DOC("Returns the number of members in a sorted set within a lexicographical range.",
              "2.8.9", "O(log(N)) with N being the number of elements in the sorted set.")},
    {.name = "zrank",
     .arity = -3,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_zrank,
     KEY1,
     ZSET_DOC("Returns the index of a member in a sorted set ordered by ascending scores.", "2.0.0",
              "O(log(N))")},
    {.name = "zrevrank",
     .arity = -3,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_zrevrank,
     KEY1,
     ZSET_DOC("Returns the index of a member in a sorted set ordered by descending scores.",
              "2.0.0", "O(log(N))")},
    {.name = "zrange",
     .arity = -4,
     .flags = CMD_READONLY,
     .fn = cmd_zrange,
     KEY1,
     ZSET_DOC("Returns members in a sorted set within a range of indexes.", "1.2.0",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements returned.")},
    {.name = "zrangestore",
     .arity = -5,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_zrangestore,
     .first_key = 1,
     .last_key = 2,
     .key_step = 1,
     ZSET_DOC("Stores a range of members from sorted set in a key.", "6.2.0",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements stored into the destination key.")},
    {.name = "zrevrange",
     .arity = -4,
     .flags = CMD_READONLY,
     .fn = cmd_zrevrange,
     KEY1,
     ZSET_DOC("Returns members in a sorted set within a range of indexes in reverse order.",
              "1.2.0",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements returned.")},
    {.name = "zrangebyscore",
     .arity = -4,
     .flags = CMD_READONLY,
     .fn = cmd_zrangebyscore,
     KEY1,
     ZSET_DOC("Returns members in a sorted set within a range of scores.", "1.0.5",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements being returned.")},
    {.name = "zrevrangebyscore",
     .arity = -4,
     .flags = CMD_READONLY,
     .fn = cmd_zrevrangebyscore,
     KEY1,
     ZSET_DOC("Returns members in a sorted set within a range of scores in reverse order.", "2.2.0",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements being returned.")},
    {.name = "zrangebylex",
     .arity = -4,
     .flags = CMD_READONLY,
     .fn = cmd_zrangebylex,
     KEY1,
     ZSET_DOC("Returns members in a sorted set within a lexicographical range.", "2.8.9",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements being returned.")},
    {.name = "zrevrangebylex",
     .arity = -4,
     .flags = CMD_READONLY,
     .fn = cmd_zrevrangebylex,
     KEY1,
     ZSET_DOC("Returns members in a sorted set within a lexicographical range in reverse order.",
              "2.8.9",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements being returned.")},
    {.name = "zrem",
     .arity = -3,
     .flags = CMD_WRITE | CMD_FAST,
     .fn = cmd_zrem,
     KEY1,
     ZSET_DOC("Removes one or more members from a sorted set. Deletes the sorted set if all "
              "members were removed.",
              "1.2.0",
              "O(M*log(N)) with N being the number of elements in the sorted set and M the number "
              "of elements to be removed.")},
    {.name = "zremrangebyscore",
     .arity = 4,
     .flags = CMD_WRITE,
     .fn = cmd_zremrangebyscore,
     KEY1,
     ZSET_DOC("Removes members in a sorted set within a range of scores. Deletes the sorted set if "
              "all members were removed.",
              "1.2.0",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements removed by the operation.")},
    {.name = "zremrangebyrank",
     .arity = 4,
     .flags = CMD_WRITE,
     .fn = cmd_zremrangebyrank,
     KEY1,
     ZSET_DOC("Removes members in a sorted set within a range of indexes. Deletes the sorted set "
              "if all members were removed.",
              "2.0.0",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements removed by the operation.")},
    {.name = "zremrangebylex",
     .arity = 4,
     .flags = CMD_WRITE,
     .fn = cmd_zremrangebylex,
     KEY1,
     ZSET_DOC("Removes members in a sorted set within a lexicographical range. Deletes the sorted "
              "set if all members were removed.",
              "2.8.9",
              "O(log(N)+M) with N being the number of elements in the sorted set and M the number "
              "of elements removed by the operation.")},
    {.name = "zpopmin",
     .arity = -2,
     .flags = CMD_WRITE | CMD_FAST,
     .fn = cmd_zpopmin,
     KEY1,
     ZSET_DOC("Returns the lowest-scoring members from a sorted set after removing them. Deletes "
              "the sorted set if the last member was popped.",
              "5.0.0",
              "O(log(N)*M) with N being the number of elements in the sorted set, and M being the "
              "number of elements popped.")},
    {.name = "zpopmax",
     .arity = -2,
     .flags = CMD_WRITE | CMD_FAST,
     .fn = cmd_zpopmax,
     KEY1,
     ZSET_DOC("Returns the highest-scoring members from a sorted set after removing them. Deletes "
              "the sorted set if the last member was popped.",
              "5.0.0",
              "O(log(N)*M) with N being the number of elements in the sorted set, and M being the "
              "number of elements popped.")},
    {.name = "zmpop",
     .arity = -4,
     .flags = CMD_WRITE,
     .fn = cmd_zmpop,
     .summary = "Returns the highest- or lowest-scoring members from one or more sorted sets "
                "after removing them. Deletes the sorted set if the last member was popped.",
     .since = "7.0.0",
     .group = "sorted_set",
     .complexity = "O(K) + O(M*log(N))"},
    {.name = "bzmpop",
     .arity = -5,
     .flags = CMD_WRITE | CMD_NOSCRIPT,
     .fn = cmd_bzmpop,
     .summary = "Removes and returns a member by score from one or more sorted sets. Blocks "
                "until a member is available otherwise. Deletes the sorted set if the last "
                "element was popped.",
     .since = "7.0.0",
     .group = "sorted_set",
     .complexity = "O(K) + O(M*log(N))"},
    {.name = "bzpopmin",
     .arity = -3,
     .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_FAST,
     .fn = cmd_bzpopmin,
     .first_key = 1,
     .last_key = -2,
     .key_step = 1,
     .summary = "Removes and returns the member with the lowest score from one or more sorted "
                "sets. Blocks until a member is available otherwise. Deletes the sorted set if "
                "the last element was popped.",
     .since = "5.0.0",
     .group = "sorted_set",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set."},
    {.name = "bzpopmax",
     .arity = -3,
     .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_FAST,
     .fn = cmd_bzpopmax,
     .first_key = 1,
     .last_key = -2,
     .key_step = 1,
     .summary = "Removes and returns the member with the highest score from one or more sorted "
                "sets. Blocks until a member is available otherwise. Deletes the sorted set if "
                "the last element was popped.",
     .since = "5.0.0",
     .group = "sorted_set",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set."},
    {.name = "zrandmember",
     .arity = -2,
     .flags = CMD_READONLY | CMD_RANDOM,
     .fn = cmd_zrandmember,
     KEY1,
     ZSET_DOC("Returns one or more random members from a sorted set.", "6.2.0",
              "O(N) where N is the number of members returned")},
    {.name = "zscan",
     .arity = -3,
     .flags = CMD_READONLY | CMD_RANDOM,
     .fn = cmd_zscan,
     KEY1,
     ZSET_DOC(
         "Iterates over members and scores of a sorted set.", "2.8.0",
         "O(1) for every call. O(N) for a complete iteration, including enough command calls for "
         "the cursor to return back to 0. N is the number of elements inside the collection.")},
    {.name = "zunionstore",
     .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_zunionstore,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     ZSET_DOC("Stores the union of multiple sorted sets in a key.", "2.0.0",
              "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M "
              "being the number of elements in the resulting sorted set.")},
    {.name = "zinterstore",
     .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_zinterstore,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     ZSET_DOC("Stores the intersect of multiple sorted sets in a key.", "2.0.0",
              "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being "
              "the number of input sorted sets and M being the number of elements in the resulting "
              "sorted set.")},
    {.name = "zdiffstore",
     .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_zdiffstore,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     ZSET_DOC("Stores the difference of multiple sorted sets in a key.", "6.2.0",
              "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the "
              "sets, N is the size of the first set, and K is the size of the result set.")},
    {.name = "zunion",
     .arity = -3,
     .flags = CMD_READONLY,
     .fn = cmd_zunion,
     ZSET_DOC("Returns the union of multiple sorted sets.", "6.2.0",
              "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M "
              "being the number of elements in the resulting sorted set.")},
    {.name = "zinter",
     .arity = -3,
     .flags = CMD_READONLY,
     .fn = cmd_zinter,
     ZSET_DOC("Returns the intersect of multiple sorted sets.", "6.2.0",
              "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being "
              "the number of input sorted sets and M being the number of elements in the resulting "
              "sorted set.")},
    {.name = "zdiff",
     .arity = -3,
     .flags = CMD_READONLY,
     .fn = cmd_zdiff,
     ZSET_DOC("Returns the difference between multiple sorted sets.", "6.2.0",
              "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the "
              "sets, N is the size of the first set, and K is the size of the result set.")},
    {.name = "zintercard",
     .arity = -3,
     .flags = CMD_READONLY,
     .fn = cmd_zintercard,
     ZSET_DOC("Returns the number of members of the intersect of multiple sorted sets.", "7.0.0",
              "O(N*K) worst case with N being the smallest input sorted set, K being the number of "
              "input sorted sets.")},
    COMMAND_END,
};
