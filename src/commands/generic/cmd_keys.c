/*
 * cmd_keys.c — generic keyspace commands: existence and deletion, TYPE,
 * TTLs (EXPIRE family, TTL family, PERSIST), enumeration (KEYS, SCAN,
 * RANDOMKEY) and renaming (RENAME, RENAMENX, MOVE).
 *
 * Every command here works on keys of any type: values are moved or freed
 * through the type-agnostic store calls (db_rename, db_move, db_delete_kv).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster/cluster.h"
#include "commands/command.h"
#include "commands/typed_args.h"
#include "util/clock.h"
#include "util/glob.h"
#include "util/xmalloc.h"

static void cmd_del(struct cmd_ctx *ctx)
{
    long long removed = 0;
    for (int i = 1; i < ctx->argc; i++)
        if (db_delete(ctx->db, ctx->argv[i], ctx->argv_len[i])) {
            removed++;
            cmd_notify(ctx, NOTIFY_GENERIC, "del", i);
        }
    keyspace.stats.dirty += removed;
    reply_int(ctx->reply, removed);
}

/* EXISTS and TOUCH: both count the live keys named (a key named twice counts twice). */
static void cmd_exists(struct cmd_ctx *ctx)
{
    long long found = 0;
    for (int i = 1; i < ctx->argc; i++)
        if (db_lookup_read_notouch(ctx->db, ctx->argv[i], ctx->argv_len[i])) found++;
    reply_int(ctx->reply, found);
}

/* TOUCH: EXISTS's count, but each found key is accessed (Redis's
 * lookupKeyRead): OBJECT IDLETIME restarts, the LFU counter is bumped. */
static void cmd_touch(struct cmd_ctx *ctx)
{
    long long found = 0;
    for (int i = 1; i < ctx->argc; i++)
        if (db_lookup_read(ctx->db, ctx->argv[i], ctx->argv_len[i])) found++;
    reply_int(ctx->reply, found);
}

static void cmd_type(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_read_notouch(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    reply_status(ctx->reply, kv ? kv_type_name(kv) : "none");
}

/* --- TTLs ------------------------------------------------------------- */

enum expire_flag {
    EXPIRE_NX = 1 << 0,
    EXPIRE_XX = 1 << 1,
    EXPIRE_GT = 1 << 2,
    EXPIRE_LT = 1 << 3,
};

/* NX/XX/GT/LT after the time, with Redis 7.0's texts for the bad cases. */
static bool parse_expire_flags(struct cmd_ctx *ctx, int *flags)
{
    static const struct {
        const char *word;
        int flag;
    } words[] = {{"nx", EXPIRE_NX}, {"xx", EXPIRE_XX}, {"gt", EXPIRE_GT}, {"lt", EXPIRE_LT}};
    *flags = 0;
    for (int j = 3; j < ctx->argc; j++) {
        size_t w = 0;
        while (w < sizeof words / sizeof words[0] && !arg_equals(ctx, j, words[w].word)) w++;
        if (w == sizeof words / sizeof words[0]) {
            /* Redis prints the option as a C string: up to its first NUL. */
            int shown = (int)strnlen(ctx->argv[j], ctx->argv_len[j]);
            reply_error_fmt(ctx->reply, "ERR Unsupported option %.*s", shown, ctx->argv[j]);
            return false;
        }
        *flags |= words[w].flag;
    }
    if ((*flags & EXPIRE_NX) && (*flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT))) {
        reply_error(ctx->reply,
                    "ERR NX and XX, GT or LT options at the same time are not compatible");
        return false;
    }
    if ((*flags & EXPIRE_GT) && (*flags & EXPIRE_LT)) {
        reply_error(ctx->reply, "ERR GT and LT options at the same time are not compatible");
        return false;
    }
    return true;
}

/* Whether the flags allow replacing `current` (ms; -1 = no TTL, which counts
 * as infinite for GT and LT) with `when`. */
static bool expire_flags_allow(int flags, long long current, long long when)
{
    if ((flags & EXPIRE_NX) && current != -1) return false;
    if ((flags & EXPIRE_XX) && current == -1) return false;
    if ((flags & EXPIRE_GT) && (current == -1 || when <= current)) return false;
    if ((flags & EXPIRE_LT) && current != -1 && when >= current) return false;
    return true;
}

/* EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: the time argument plus `base_ms`,
 * in seconds when `seconds`. Negative times are allowed (the key is deleted);
 * only overflow is an error. */
static void expire_generic(struct cmd_ctx *ctx, long long base_ms, bool seconds)
{
    int flags;
    long long when;
    if (!parse_expire_flags(ctx, &flags) || !arg_to_ll(ctx, 2, &when)) return;
    if (seconds) {
        if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) goto invalid;
        when *= 1000;
    }
    if (when > LLONG_MAX - base_ms) goto invalid;
    when += base_ms;

    struct kv *kv = db_lookup_write(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv || !expire_flags_allow(flags, kv->expire_ms ? kv->expire_ms : -1, when)) {
        reply_int(ctx->reply, 0);
        return;
    }
    /* A time already past deletes the key; both cases answer 1 (and are
     * one change). */
    bool kept = db_set_expire(ctx->db, kv, when);
    keyspace.stats.dirty++;
    cmd_notify(ctx, NOTIFY_GENERIC, kept ? "expire" : "del", 1);
    reply_int(ctx->reply, 1);
    return;
invalid:
    reply_error_fmt(ctx->reply, "ERR invalid expire time in '%s' command", ctx->cmd->full_name);
}

static void cmd_expire(struct cmd_ctx *ctx)
{
    expire_generic(ctx, keyspace_now_ms(), true);
}

static void cmd_pexpire(struct cmd_ctx *ctx)
{
    expire_generic(ctx, keyspace_now_ms(), false);
}

static void cmd_expireat(struct cmd_ctx *ctx)
{
    expire_generic(ctx, 0, true);
}

static void cmd_pexpireat(struct cmd_ctx *ctx)
{
    expire_generic(ctx, 0, false);
}

/* TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 for no key, -1 for no TTL; seconds
 * are rounded to nearest as Redis does ((ms + 500) / 1000). */
static void ttl_generic(struct cmd_ctx *ctx, bool in_ms, bool absolute)
{
    struct kv *kv = db_lookup_read_notouch(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv || !kv->expire_ms) {
        reply_int(ctx->reply, kv ? -1 : -2);
        return;
    }
    /* The real clock, not the command's instant: Redis 7.0's TTL reads
     * mstime(), so inside EXEC or a script time moves on between calls
     * (the key's expiry itself is judged at the command's instant). */
    long long t = absolute ? kv->expire_ms : kv->expire_ms - clock_unix_ms();
    if (t < 0) t = 0;
    /* Unsigned so that a time near LLONG_MAX rounds up as Redis's does. */
    reply_int(ctx->reply, in_ms ? t : (long long)(((unsigned long long)t + 500) / 1000));
}

static void cmd_ttl(struct cmd_ctx *ctx)
{
    ttl_generic(ctx, false, false);
}

static void cmd_pttl(struct cmd_ctx *ctx)
{
    ttl_generic(ctx, true, false);
}

static void cmd_expiretime(struct cmd_ctx *ctx)
{
    ttl_generic(ctx, false, true);
}

static void cmd_pexpiretime(struct cmd_ctx *ctx)
{
    ttl_generic(ctx, true, true);
}

static void cmd_persist(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_write(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    bool removed = kv && db_persist(ctx->db, kv);
    if (removed) cmd_notify(ctx, NOTIFY_GENERIC, "persist", 1);
    reply_int(ctx->reply, removed ? 1 : 0);
}

/* --- enumeration ------------------------------------------------------ */

struct keys_state {
    struct reply *reply;
    const char *pattern;
    size_t pattern_len;
    bool match_all; /* "*": Redis skips matching, so even the empty key is listed */
    long long count;
};

static void keys_visit(struct kv *kv, void *arg)
{
    struct keys_state *st = arg;
    if (!st->match_all && !glob_match(st->pattern, st->pattern_len, kv->key, kv->key_len, false))
        return;
    if (kv_is_expired(kv)) return;
    reply_bulk(st->reply, kv->key, kv->key_len);
    st->count++;
}

static void cmd_keys(struct cmd_ctx *ctx)
{
    struct keys_state st = {
        .reply = ctx->reply,
        .pattern = ctx->argv[1],
        .pattern_len = ctx->argv_len[1],
        .match_all = glob_is_match_all(ctx->argv[1], ctx->argv_len[1]),
    };
    reply_mark m = reply_defer(ctx->reply);
    db_foreach_key(ctx->db, keys_visit, &st);
    reply_defer_array(ctx->reply, m, st.count);
}

/* Keys one SCAN call collected, before filtering. Kept between calls so a
 * scan of ordinary COUNT allocates nothing; trimmed after a huge COUNT. */
static struct kv **scan_found;
static size_t scan_found_cap;
#define SCAN_FOUND_KEEP 4096

struct scan_state {
    size_t n;
};

static void scan_visit(struct kv *kv, void *arg)
{
    struct scan_state *st = arg;
    if (st->n == scan_found_cap) {
        scan_found_cap = scan_found_cap ? scan_found_cap * 2 : 64;
        scan_found = xrealloc(scan_found, scan_found_cap * sizeof *scan_found);
    }
    scan_found[st->n++] = kv;
}

static void cmd_scan(struct cmd_ctx *ctx)
{
    unsigned long long cursor;
    if (!arg_to_scan_cursor(ctx, 1, &cursor)) return;
    long long count = 10;
    const char *pattern = NULL, *type = NULL;
    size_t pattern_len = 0, type_len = 0;
    for (int i = 2; i < ctx->argc; i += 2) {
        bool has_value = i + 1 < ctx->argc;
        if (has_value && arg_equals(ctx, i, "count")) {
            if (!arg_to_ll(ctx, i + 1, &count)) return;
            if (count < 1) {
                reply_error_syntax(ctx->reply);
                return;
            }
        } else if (has_value && arg_equals(ctx, i, "match")) {
            pattern = ctx->argv[i + 1];
            pattern_len = ctx->argv_len[i + 1];
            if (glob_is_match_all(pattern, pattern_len)) pattern = NULL;
        } else if (has_value && arg_equals(ctx, i, "type")) {
            type = ctx->argv[i + 1];
            type_len = ctx->argv_len[i + 1];
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }

    /* As Redis: stop after COUNT keys or 10*COUNT buckets, whichever first,
     * so a sparse table cannot make one call long. */
    struct scan_state st = {0};
    long long buckets_left = count > LLONG_MAX / 10 ? LLONG_MAX : count * 10;
    do {
        cursor = db_scan(ctx->db, cursor, scan_visit, &st);
    } while (cursor && buckets_left-- && st.n < (unsigned long long)count);

    size_t kept = 0;
    for (size_t i = 0; i < st.n; i++) {
        struct kv *kv = scan_found[i];
        if (pattern && !glob_match(pattern, pattern_len, kv->key, kv->key_len, false)) continue;
        if (kv_is_expired(kv)) {
            db_expire_kv(ctx->db, kv); /* no key appears twice in one step */
            continue;
        }
        if (type && (strlen(kv_type_name(kv)) != type_len ||
                     strncasecmp(kv_type_name(kv), type, type_len) != 0))
            continue;
        scan_found[kept++] = kv;
    }
    reply_array_len(ctx->reply, 2);
    reply_bulk_ll(ctx->reply, (long long)cursor); /* Redis prints it signed, too */
    reply_array_len(ctx->reply, (long long)kept);
    for (size_t i = 0; i < kept; i++)
        reply_bulk(ctx->reply, scan_found[i]->key, scan_found[i]->key_len);
    if (scan_found_cap > SCAN_FOUND_KEEP) {
        xfree(scan_found);
        scan_found = NULL;
        scan_found_cap = 0;
    }
}

static void cmd_randomkey(struct cmd_ctx *ctx)
{
    struct kv *kv = db_random_key(ctx->db);
    if (kv)
        reply_bulk(ctx->reply, kv->key, kv->key_len);
    else
        reply_nil(ctx->reply);
}

/* --- renaming --------------------------------------------------------- */

static void rename_generic(struct cmd_ctx *ctx, bool nx)
{
    const char *src = ctx->argv[1], *dst = ctx->argv[2];
    size_t src_len = ctx->argv_len[1], dst_len = ctx->argv_len[2];
    struct kv *kv = db_lookup_write(ctx->db, src, src_len);
    if (!kv) {
        reply_error(ctx->reply, "ERR no such key");
        return;
    }
    bool same_key = src_len == dst_len && memcmp(src, dst, src_len) == 0;
    struct kv *existing = same_key ? kv : db_lookup_write(ctx->db, dst, dst_len);
    if (existing && nx) {
        reply_int(ctx->reply, 0);
        return;
    }
    if (!same_key) {
        if (existing) db_delete_kv(ctx->db, existing);
        db_rename(ctx->db, kv, dst, dst_len);
        cmd_notify(ctx, NOTIFY_GENERIC, "rename_from", 1);
        cmd_notify(ctx, NOTIFY_GENERIC, "rename_to", 2);
    }
    if (nx)
        reply_int(ctx->reply, 1);
    else
        reply_ok(ctx->reply);
}

static void cmd_rename(struct cmd_ctx *ctx)
{
    rename_generic(ctx, false);
}

static void cmd_renamenx(struct cmd_ctx *ctx)
{
    rename_generic(ctx, true);
}

/* The database numbered by argv[i] (MOVE, COPY DB), with Redis's errors. */
static struct db *db_index_arg(struct cmd_ctx *ctx, int i)
{
    long long id;
    if (!arg_to_ll(ctx, i, &id)) return NULL;
    if (id < INT_MIN || id > INT_MAX) {
        /* Redis's getIntFromObjectOrReply() text, grammar included. */
        reply_error(ctx->reply,
                    "ERR value is out of range, value must between -2147483648 and 2147483647");
        return NULL;
    }
    if (id < 0 || id >= keyspace.count) {
        reply_error(ctx->reply, "ERR DB index is out of range");
        return NULL;
    }
    return keyspace_db((int)id);
}

static void cmd_move(struct cmd_ctx *ctx)
{
    if (cluster_enabled) {
        reply_error(ctx->reply, "ERR MOVE is not allowed in cluster mode");
        return;
    }
    struct db *dst = db_index_arg(ctx, 2);
    if (!dst) return;
    if (dst == ctx->db) {
        reply_error(ctx->reply, "ERR source and destination objects are the same");
        return;
    }
    struct kv *kv = db_lookup_write(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv || db_lookup_write(dst, ctx->argv[1], ctx->argv_len[1])) {
        reply_int(ctx->reply, 0);
        return;
    }
    db_move(ctx->db, dst, kv);
    cmd_notify(ctx, NOTIFY_GENERIC, "move_from", 1);
    notify_keyspace_event(NOTIFY_GENERIC, "move_to", ctx->argv[1], ctx->argv_len[1], dst->id);
    reply_int(ctx->reply, 1);
}

/* COPY source destination [DB destination-db] [REPLACE] */
static void cmd_copy(struct cmd_ctx *ctx)
{
    struct db *dst = ctx->db;
    bool replace = false;
    for (int j = 3; j < ctx->argc; j++) {
        if (arg_equals(ctx, j, "replace")) {
            replace = true;
        } else if (arg_equals(ctx, j, "db") && j + 1 < ctx->argc) {
            if (!(dst = db_index_arg(ctx, ++j))) return;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    if (cluster_enabled && dst != ctx->db) {
        reply_error(ctx->reply, "ERR Copying to another database is not allowed in cluster mode");
        return;
    }
    const char *key = ctx->argv[1], *newkey = ctx->argv[2];
    size_t key_len = ctx->argv_len[1], newkey_len = ctx->argv_len[2];
    if (dst == ctx->db && key_len == newkey_len && memcmp(key, newkey, key_len) == 0) {
        reply_error(ctx->reply, "ERR source and destination objects are the same");
        return;
    }
    struct kv *kv = db_lookup_read(ctx->db, key, key_len);
    if (!kv) {
        reply_int(ctx->reply, 0);
        return;
    }
    struct kv *old = db_lookup_write(dst, newkey, newkey_len);
    if (old && !replace) {
        reply_int(ctx->reply, 0);
        return;
    }
    struct kv *fresh = kv_dup(kv, newkey, newkey_len);
    if (!fresh) {
        reply_error(ctx->reply, "ERR COPY of this type is not supported yet");
        return;
    }
    int64_t expire_ms = kv->expire_ms;
    if (old) db_delete_kv(dst, old);
    db_add(dst, fresh);
    if (expire_ms) db_set_expire(dst, fresh, expire_ms);
    keyspace.stats.dirty++;
    notify_keyspace_event(NOTIFY_GENERIC, "copy_to", newkey, newkey_len, dst->id);
    reply_int(ctx->reply, 1);
}

/* Rows for commands whose only key is argv[1]. */
#define KEY_CMD(n, a, f, fn_, sum, since_, cx)                                                     \
    {                                                                                              \
        .name = n, .arity = a, .flags = f, .fn = fn_, .first_key = 1, .last_key = 1,               \
        .key_step = 1, .summary = sum, .since = since_, .group = "generic", .complexity = cx       \
    }

struct command key_commands[] = {
    {.name = "del",
     .arity = -2,
     .flags = CMD_WRITE,
     .fn = cmd_del,
     .first_key = 1,
     .last_key = -1,
     .key_step = 1,
     .summary = "Deletes one or more keys.",
     .since = "1.0.0",
     .group = "generic",
     .complexity = "O(N) where N is the number of keys that will be removed."},
    {.name = "unlink",
     .arity = -2,
     .flags = CMD_WRITE | CMD_FAST,
     .fn = cmd_del,
     .first_key = 1,
     .last_key = -1,
     .key_step = 1,
     .summary = "Deletes one or more keys (goblin-core frees values synchronously, as DEL).",
     .since = "4.0.0",
     .group = "generic",
     .complexity = "O(N) where N is the number of keys that will be removed, plus the size of "
                   "each value freed."},
    {.name = "exists",
     .arity = -2,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_exists,
     .first_key = 1,
     .last_key = -1,
     .key_step = 1,
     .summary = "Determines whether one or more keys exist.",
     .since = "1.0.0",
     .group = "generic",
     .complexity = "O(N) where N is the number of keys to check."},
    {.name = "touch",
     .arity = -2,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_touch,
     .first_key = 1,
     .last_key = -1,
     .key_step = 1,
     .summary = "Returns the number of existing keys out of those specified after updating the "
                "time they were last accessed.",
     .since = "3.2.1",
     .group = "generic",
     .complexity = "O(N) where N is the number of keys that will be touched."},
    KEY_CMD("type", 2, CMD_READONLY | CMD_FAST, cmd_type,
            "Determines the type of value stored at a key.", "1.0.0", "O(1)"),
    KEY_CMD("expire", -3, CMD_WRITE | CMD_FAST, cmd_expire,
            "Sets the expiration time of a key in seconds.", "1.0.0", "O(1)"),
    KEY_CMD("pexpire", -3, CMD_WRITE | CMD_FAST, cmd_pexpire,
            "Sets the expiration time of a key in milliseconds.", "2.6.0", "O(1)"),
    KEY_CMD("expireat", -3, CMD_WRITE | CMD_FAST, cmd_expireat,
            "Sets the expiration time of a key to a Unix timestamp.", "1.2.0", "O(1)"),
    KEY_CMD("pexpireat", -3, CMD_WRITE | CMD_FAST, cmd_pexpireat,
            "Sets the expiration time of a key to a Unix milliseconds timestamp.", "2.6.0", "O(1)"),
    KEY_CMD("ttl", 2, CMD_READONLY | CMD_FAST | CMD_RANDOM, cmd_ttl,
            "Returns the expiration time in seconds of a key.", "1.0.0", "O(1)"),
    KEY_CMD("pttl", 2, CMD_READONLY | CMD_FAST | CMD_RANDOM, cmd_pttl,
            "Returns the expiration time in milliseconds of a key.", "2.6.0", "O(1)"),
    KEY_CMD("expiretime", 2, CMD_READONLY | CMD_FAST, cmd_expiretime,
            "Returns the expiration time of a key as a Unix timestamp.", "7.0.0", "O(1)"),
    KEY_CMD("pexpiretime", 2, CMD_READONLY | CMD_FAST, cmd_pexpiretime,
            "Returns the expiration time of a key as a Unix milliseconds timestamp.", "7.0.0",
            "O(1)"),
    KEY_CMD("persist", 2, CMD_WRITE | CMD_FAST, cmd_persist,
            "Removes the expiration time of a key.", "2.2.0", "O(1)"),
    {.name = "keys",
     .arity = 2,
     .flags = CMD_READONLY,
     .fn = cmd_keys,
     .summary = "Returns all key names that match a pattern.",
     .since = "1.0.0",
     .group = "generic",
     .complexity = "O(N) with N being the number of keys in the database, under the assumption "
                   "that the key names in the database and the given pattern have limited "
                   "length."},
    {.name = "scan",
     .arity = -2,
     .flags = CMD_READONLY | CMD_RANDOM,
     .fn = cmd_scan,
     .summary = "Iterates over the key names in the database.",
     .since = "2.8.0",
     .group = "generic",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command "
                   "calls for the cursor to return back to 0. N is the number of elements inside "
                   "the collection."},
    {.name = "randomkey",
     .arity = 1,
     .flags = CMD_READONLY | CMD_RANDOM,
     .fn = cmd_randomkey,
     .summary = "Returns a random key name from the database.",
     .since = "1.0.0",
     .group = "generic",
     .complexity = "O(1)"},
    {.name = "rename",
     .arity = 3,
     .flags = CMD_WRITE,
     .fn = cmd_rename,
     .first_key = 1,
     .last_key = 2,
     .key_step = 1,
     .summary = "Renames a key and overwrites the destination.",
     .since = "1.0.0",
     .group = "generic",
     .complexity = "O(1)"},
    {.name = "renamenx",
     .arity = 3,
     .flags = CMD_WRITE | CMD_FAST,
     .fn = cmd_renamenx,
     .first_key = 1,
     .last_key = 2,
     .key_step = 1,
     .summary = "Renames a key only when the target key name doesn't exist.",
     .since = "1.0.0",
     .group = "generic",
     .complexity = "O(1)"},
    KEY_CMD("move", 3, CMD_WRITE | CMD_FAST, cmd_move, "Moves a key to another database.", "1.0.0",
            "O(1)"),
    {.name = "copy",
     .arity = -3,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_copy,
     .first_key = 1,
     .last_key = 2,
     .key_step = 1,
     .summary = "Copies the value of a key to a new key.",
     .since = "6.2.0",
     .group = "generic",
     .complexity = "O(N) worst case for collections, where N is the number of nested items. O(1) "
                   "for string values."},
    COMMAND_END,
};
