/* cmd_hll.c — HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, with Redis
 * 7.0's replies and errors. The values are plain strings in the HYLL format
 * (store/hll.h); a string a command writes becomes raw-encoded, as in
 * Redis. */
#include <string.h>

#include "commands/command.h"
#include "store/hll.h"
#include "util/xmalloc.h"

static const char err_not_hll[] = "WRONGTYPE Key is not a valid HyperLogLog string value.";
static const char err_corrupt[] = "INVALIDOBJ Corrupted HLL object detected";

/* True when kv holds an HLL; replies WRONGTYPE otherwise. */
static bool hll_or_reply(struct cmd_ctx *ctx, const struct kv *kv)
{
    if (kv->type != OBJ_STRING) {
        reply_error_wrongtype(ctx->reply);
        return false;
    }
    struct strview v;
    kv_string_view(kv, &v);
    if (kv->encoding == ENC_INT || !hll_header_valid((const unsigned char *)v.ptr, v.len)) {
        reply_error(ctx->reply, err_not_hll);
        return false;
    }
    return true;
}

/* The HLL at argv[1] for writing, created empty when absent (*created).
 * NULL after replying. */
static struct kv *hll_for_write(struct cmd_ctx *ctx, bool *created)
{
    struct kv *kv = db_lookup_write(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    *created = kv == NULL;
    if (!kv) {
        struct strbuf *empty = hll_new();
        kv = kv_new_string_zeroed(ctx->argv[1], ctx->argv_len[1], 0);
        strbuf_free(kv->v.raw);
        kv->v.raw = empty;
        db_add(ctx->db, kv);
        return kv;
    }
    if (!hll_or_reply(ctx, kv)) return NULL;
    kv_string_make_raw(kv, 0);
    return kv;
}

static void cmd_pfadd(struct cmd_ctx *ctx)
{
    bool created;
    struct kv *kv = hll_for_write(ctx, &created);
    if (!kv) return;
    long long updated = created;
    for (int j = 2; j < ctx->argc; j++) {
        int r = hll_add(&kv->v.raw, ctx->argv[j], ctx->argv_len[j]);
        if (r < 0) {
            reply_error(ctx->reply, err_corrupt);
            return;
        }
        updated += r;
    }
    if (updated) {
        hll_invalidate((unsigned char *)kv->v.raw->data);
        db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], updated);
        cmd_notify(ctx, NOTIFY_STRING, "pfadd", 1);
    }
    reply_int(ctx->reply, updated ? 1 : 0);
}

/* PFCOUNT of one key: the cached cardinality, or a fresh estimate that
 * becomes the cache (a write, as in Redis). */
static void pfcount_one(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv) {
        reply_int(ctx->reply, 0);
        return;
    }
    if (!hll_or_reply(ctx, kv)) return;
    struct strbuf *sb = kv_string_make_raw(kv, 0);
    unsigned char *p = (unsigned char *)sb->data;
    uint64_t card;
    if (!hll_cached(p, &card)) {
        if (!hll_count(p, sb->len, &card)) {
            reply_error(ctx->reply, err_corrupt);
            return;
        }
        hll_set_cached(p, card);
        db_note_modified(ctx->db, kv); /* Redis signals the cache update too */
    }
    reply_int(ctx->reply, (long long)card);
}

/* Raises max[] to the registers of every HLL at argv[from..]; absent keys
 * count as empty. *dense says whether any input is dense. False after
 * replying. */
static bool merge_keys(struct cmd_ctx *ctx, int from, uint8_t *max, bool *dense)
{
    memset(max, 0, HLL_REGISTERS);
    *dense = false;
    for (int j = from; j < ctx->argc; j++) {
        struct kv *kv = db_lookup_read(ctx->db, ctx->argv[j], ctx->argv_len[j]);
        if (!kv) continue;
        if (!hll_or_reply(ctx, kv)) return false;
        struct strview v;
        kv_string_view(kv, &v);
        if (v.ptr[4] == 0) *dense = true;
        if (!hll_merge_max(max, (const unsigned char *)v.ptr, v.len)) {
            reply_error(ctx->reply, err_corrupt);
            return false;
        }
    }
    return true;
}

static void cmd_pfcount(struct cmd_ctx *ctx)
{
    if (ctx->argc == 2) {
        pfcount_one(ctx);
        return;
    }
    uint8_t max[HLL_REGISTERS];
    bool dense;
    if (!merge_keys(ctx, 1, max, &dense)) return;
    reply_int(ctx->reply, (long long)hll_count_registers(max));
}

static void cmd_pfmerge(struct cmd_ctx *ctx)
{
    uint8_t max[HLL_REGISTERS];
    bool dense, created;
    if (!merge_keys(ctx, 1, max, &dense)) return;
    struct kv *kv = hll_for_write(ctx, &created);
    if (!kv) return;
    if (dense && !hll_to_dense(&kv->v.raw)) {
        reply_error(ctx->reply, err_corrupt);
        return;
    }
    for (long i = 0; i < HLL_REGISTERS; i++)
        if (max[i]) hll_set_register(&kv->v.raw, i, max[i]);
    hll_invalidate((unsigned char *)kv->v.raw->data);
    db_note_modified(ctx->db, kv);
    cmd_notify(ctx, NOTIFY_STRING, "pfadd", 1);
    reply_ok(ctx->reply);
}

/* PFDEBUG GETREG|DECODE|ENCODING|TODENSE <key>: Redis's debugging
 * subcommands, with its texts and checking order (the key first). GETREG
 * and TODENSE turn a sparse value dense (a write, as in Redis). */
static void cmd_pfdebug(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_write(ctx->db, ctx->argv[2], ctx->argv_len[2]);
    if (!kv) {
        reply_error(ctx->reply, "ERR The specified key does not exist");
        return;
    }
    if (!hll_or_reply(ctx, kv)) return;
    struct strbuf *sb = kv_string_make_raw(kv, 0);
    bool sparse = sb->data[4] != 0;
    if (arg_equals(ctx, 1, "getreg") || arg_equals(ctx, 1, "todense")) {
        if (sparse) {
            if (!hll_to_dense(&kv->v.raw)) {
                reply_error(ctx->reply, err_corrupt);
                return;
            }
            keyspace.stats.dirty++; /* Redis propagates the conversion, signals nothing */
        }
        if (arg_equals(ctx, 1, "todense")) {
            reply_int(ctx->reply, sparse);
            return;
        }
        uint8_t regs[HLL_REGISTERS] = {0};
        hll_merge_max(regs, (const unsigned char *)kv->v.raw->data, kv->v.raw->len);
        reply_array_len(ctx->reply, HLL_REGISTERS);
        for (long i = 0; i < HLL_REGISTERS; i++) reply_int(ctx->reply, regs[i]);
    } else if (arg_equals(ctx, 1, "decode")) {
        if (!sparse) {
            reply_error(ctx->reply, "ERR HLL encoding is not sparse");
            return;
        }
        char *text = xmalloc(sb->len * 8 + 1);
        size_t n = hll_sparse_decode((const unsigned char *)sb->data, sb->len, text);
        reply_bulk(ctx->reply, text, n);
        xfree(text);
    } else if (arg_equals(ctx, 1, "encoding")) {
        reply_status(ctx->reply, sparse ? "sparse" : "dense");
    } else {
        reply_error_fmt(ctx->reply, "ERR Unknown PFDEBUG subcommand '%.*s'", (int)ctx->argv_len[1],
                        ctx->argv[1]);
    }
}

static void cmd_pfselftest(struct cmd_ctx *ctx)
{
    char err[128];
    const char *failed = hll_selftest(err, sizeof err);
    if (failed)
        reply_error(ctx->reply, failed);
    else
        reply_ok(ctx->reply);
}

#define HLL_CMD(n, f, fn_, last, sum, cx)                                                          \
    {                                                                                              \
        .name = n, .arity = -2, .flags = f, .fn = fn_, .first_key = 1, .last_key = last,           \
        .key_step = 1, .summary = sum, .since = "2.8.9", .group = "hyperloglog", .complexity = cx  \
    }

struct command hll_commands[] = {
    HLL_CMD("pfadd", CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_pfadd, 1,
            "Adds the specified elements to the specified HyperLogLog.",
            "O(1) to add every element."),
    HLL_CMD("pfcount", CMD_READONLY | CMD_MAY_REPLICATE, cmd_pfcount, -1,
            "Return the approximated cardinality of the set(s) observed by the HyperLogLog at "
            "key(s).",
            "O(1) with a very small average constant time when called with a single key. O(N) "
            "with N being the number of keys, and much bigger constant times, when called with "
            "multiple keys."),
    HLL_CMD("pfmerge", CMD_WRITE | CMD_DENYOOM, cmd_pfmerge, -1,
            "Merge N different HyperLogLogs into a single one.",
            "O(N) to merge N HyperLogLogs, but with high constant times."),
    {.name = "pfdebug",
     .arity = 3,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_ADMIN,
     .fn = cmd_pfdebug,
     .first_key = 2,
     .last_key = 2,
     .key_step = 1,
     .summary = "Internal commands for debugging HyperLogLog values",
     .since = "2.8.9",
     .group = "hyperloglog",
     .complexity = "N/A"},
    {.name = "pfselftest",
     .arity = 1,
     .flags = CMD_ADMIN,
     .fn = cmd_pfselftest,
     .summary = "An internal command for testing HyperLogLog values",
     .since = "2.8.9",
     .group = "hyperloglog",
     .complexity = "N/A"},
    COMMAND_END,
};
