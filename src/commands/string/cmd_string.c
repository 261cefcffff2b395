/*
 * cmd_string.c — string commands: GET/SET and their variants, multi-key
 * MGET/MSET, counters (INCR family, INCRBYFLOAT) and byte-range edits
 * (APPEND, GETRANGE, SETRANGE).
 *
 * Encodings follow Redis so OBJECT ENCODING reads the same: values written
 * by SET-like commands, MSET and APPEND-to-absent become ENC_INT when they
 * are canonical integers (KV_STR_TRY_INT); INCRBYFLOAT stores plain strings;
 * APPEND and SETRANGE leave a growable raw buffer.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "commands/command.h"
#include "core/config.h"
#include "util/xmalloc.h"

static void reply_string_kv(struct cmd_ctx *ctx, const struct kv *kv)
{
    struct strview v;
    kv_string_view(kv, &v);
    reply_bulk(ctx->reply, v.ptr, v.len);
}

/* True (after replying WRONGTYPE) when kv exists and is not a string. */
static bool reject_non_string(struct cmd_ctx *ctx, const struct kv *kv)
{
    if (!kv || kv->type == OBJ_STRING) return false;
    reply_error_wrongtype(ctx->reply);
    return true;
}

/* Redis's checkStringLength(): a value may not outgrow proto-max-bulk-len. */
static bool string_length_ok(struct cmd_ctx *ctx, unsigned long long base,
                             unsigned long long append)
{
    unsigned long long total = base + append;
    if (total >= base && total <= (unsigned long long)config.proto_max_bulk_len) return true;
    reply_error(ctx->reply, "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    return false;
}

/* --- GET / SET and variants ------------------------------------------- */

static void cmd_get(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv) {
        reply_nil(ctx->reply);
        return;
    }
    if (reject_non_string(ctx, kv)) return;
    reply_string_kv(ctx, kv);
}

/* Options of SET and GETEX (Redis's parseExtendedStringArgumentsOrReply). */
enum string_opt {
    OPT_NX = 1 << 0,
    OPT_XX = 1 << 1,
    OPT_GET = 1 << 2,
    OPT_KEEPTTL = 1 << 3,
    OPT_PERSIST = 1 << 4,
    OPT_EX = 1 << 5,
    OPT_PX = 1 << 6,
    OPT_EXAT = 1 << 7,
    OPT_PXAT = 1 << 8,
};
#define OPT_ANY_EXPIRE (OPT_EX | OPT_PX | OPT_EXAT | OPT_PXAT)

struct string_opts {
    int flags;
    int expire_index; /* argv index of the expire value; 0 = none */
};

/* Parses options from argv[first]; `for_set` selects SET's options (NX, XX,
 * GET, KEEPTTL) over GETEX's (PERSIST). As Redis: a repeated option is
 * accepted (the last expire value wins), conflicting ones are a syntax error. */
static bool parse_string_opts(struct cmd_ctx *ctx, int first, bool for_set, struct string_opts *o)
{
    static const struct {
        const char *word;
        int flag;
    } expires[] = {{"ex", OPT_EX}, {"px", OPT_PX}, {"exat", OPT_EXAT}, {"pxat", OPT_PXAT}};
    o->flags = 0;
    o->expire_index = 0;
    for (int j = first; j < ctx->argc; j++) {
        int f = o->flags;
        if (for_set && arg_equals(ctx, j, "nx") && !(f & OPT_XX)) {
            o->flags |= OPT_NX;
            continue;
        }
        if (for_set && arg_equals(ctx, j, "xx") && !(f & OPT_NX)) {
            o->flags |= OPT_XX;
            continue;
        }
        if (for_set && arg_equals(ctx, j, "get")) {
            o->flags |= OPT_GET;
            continue;
        }
        if (for_set && arg_equals(ctx, j, "keepttl") && !(f & (OPT_PERSIST | OPT_ANY_EXPIRE))) {
            o->flags |= OPT_KEEPTTL;
            continue;
        }
        if (!for_set && arg_equals(ctx, j, "persist") && !(f & (OPT_KEEPTTL | OPT_ANY_EXPIRE))) {
            o->flags |= OPT_PERSIST;
            continue;
        }
        bool matched = false;
        for (size_t e = 0; e < sizeof expires / sizeof expires[0] && !matched; e++) {
            int other_expires = OPT_ANY_EXPIRE & ~expires[e].flag;
            if (arg_equals(ctx, j, expires[e].word) && j + 1 < ctx->argc &&
                !(f & (OPT_KEEPTTL | OPT_PERSIST | other_expires))) {
                o->flags |= expires[e].flag;
                o->expire_index = ++j;
                matched = true;
            }
        }
        if (!matched) {
            reply_error_syntax(ctx->reply);
            return false;
        }
    }
    return true;
}

/* Redis's getExpireMillisecondsOrReply() past the integer parse: the
 * expire value v as absolute ms. `flags` holds the one expire option that
 * introduced it. */
static bool expire_to_abs_ms(struct cmd_ctx *ctx, long long v, int flags, long long *out)
{
    bool seconds = flags & (OPT_EX | OPT_EXAT);
    if (v <= 0 || (seconds && v > LLONG_MAX / 1000)) goto invalid;
    if (seconds) v *= 1000;
    if (flags & (OPT_EX | OPT_PX)) {
        long long now = keyspace_now_ms();
        if (v > LLONG_MAX - now) goto invalid;
        v += now;
    }
    *out = v;
    return true;
invalid:
    reply_error_fmt(ctx->reply, "ERR invalid expire time in '%s' command", ctx->cmd->full_name);
    return false;
}

/* The same for the expire argument at argv[i]. */
static bool expire_arg_to_abs_ms(struct cmd_ctx *ctx, int i, int flags, long long *out)
{
    long long v;
    return arg_to_ll(ctx, i, &v) && expire_to_abs_ms(ctx, v, flags, out);
}

/* The core of SET, SETNX, SETEX, PSETEX, GETSET: stores argv[val_index]
 * under argv[1]. An expire (absolute ms, when has_expire) replaces the TTL;
 * otherwise the TTL is cleared unless OPT_KEEPTTL. Replies: with OPT_GET the
 * old value (or WRONGTYPE, writing nothing); else :1/:0 when int_reply
 * (SETNX), or +OK on success and nil on an unmet NX/XX. */
static void set_generic(struct cmd_ctx *ctx, int flags, int val_index, bool has_expire,
                        long long when_ms, bool int_reply)
{
    const char *key = ctx->argv[1];
    size_t key_len = ctx->argv_len[1];
    /* With GET, a read as Redis's GETSET does (counted in keyspace_hits). */
    struct kv *old = flags & OPT_GET ? db_lookup_read(ctx->db, key, key_len)
                                     : db_lookup_write(ctx->db, key, key_len);
    if (flags & OPT_GET) {
        if (reject_non_string(ctx, old)) return;
        if (old)
            reply_string_kv(ctx, old);
        else
            reply_nil(ctx->reply);
    }
    if (((flags & OPT_NX) && old) || ((flags & OPT_XX) && !old)) {
        if (int_reply)
            reply_int(ctx->reply, 0);
        else if (!(flags & OPT_GET))
            reply_nil(ctx->reply);
        return;
    }
    /* Keeping the TTL entry when an expire follows updates it in place. */
    bool keep_ttl = (flags & OPT_KEEPTTL) || has_expire;
    /* A big value received in its own buffer becomes the value as is: no
     * copy of it on the loop (it is never an integer or embedded). */
    struct strbuf *own = arg_take_buffer(ctx, val_index);
    struct kv *kv = own ? db_store_string_adopt(ctx->db, old, key, key_len, own, keep_ttl)
                        : db_store_string(ctx->db, old, key, key_len, ctx->argv[val_index],
                                          ctx->argv_len[val_index], KV_STR_TRY_INT, keep_ttl);
    cmd_notify(ctx, NOTIFY_STRING, "set", 1);
    if (has_expire) {
        bool kept = db_set_expire(ctx->db, kv, when_ms);
        cmd_notify(ctx, NOTIFY_GENERIC, "expire", 1);
        /* Redis keeps a past time and expires the key at its next access. */
        if (!kept) cmd_notify(ctx, NOTIFY_EXPIRED, "expired", 1);
    }
    if (int_reply)
        reply_int(ctx->reply, 1);
    else if (!(flags & OPT_GET))
        reply_ok(ctx->reply);
}

/* SET's core (both wires): valid OPT_* options, and the value of the
 * expire option among them as given. */
static void set_core(struct cmd_ctx *ctx, int flags, long long expire)
{
    bool has_expire = flags & OPT_ANY_EXPIRE;
    long long when_ms = 0;
    if (has_expire && !expire_to_abs_ms(ctx, expire, flags, &when_ms)) return;
    set_generic(ctx, flags, 2, has_expire, when_ms, false);
}

static void cmd_set(struct cmd_ctx *ctx)
{
    struct string_opts o;
    if (!parse_string_opts(ctx, 3, true, &o)) return;
    long long expire = 0;
    if (o.expire_index && !arg_to_ll(ctx, o.expire_index, &expire)) return;
    set_core(ctx, o.flags, expire);
}

void string_set_typed(struct cmd_ctx *ctx, const struct typed_call *t)
{
    static const int expire_opts[] = {
        [TYPED_EXPIRE_NONE] = 0,        [TYPED_EXPIRE_EX] = OPT_EX,
        [TYPED_EXPIRE_PX] = OPT_PX,     [TYPED_EXPIRE_EXAT] = OPT_EXAT,
        [TYPED_EXPIRE_PXAT] = OPT_PXAT, [TYPED_EXPIRE_KEEPTTL] = OPT_KEEPTTL,
    };
    /* NX with XX is the one conflict the typed form can express: the text
     * form's syntax error. */
    if ((t->flags & TYPED_SET_NX) && (t->flags & TYPED_SET_XX)) {
        reply_error_syntax(ctx->reply);
        return;
    }
    int flags = expire_opts[t->expire_kind];
    if (t->flags & TYPED_SET_NX) flags |= OPT_NX;
    if (t->flags & TYPED_SET_XX) flags |= OPT_XX;
    if (t->flags & TYPED_SET_GET) flags |= OPT_GET;
    set_core(ctx, flags, t->number);
}

static void cmd_setnx(struct cmd_ctx *ctx)
{
    set_generic(ctx, OPT_NX, 2, false, 0, true);
}

static void cmd_setex(struct cmd_ctx *ctx)
{
    long long when_ms;
    if (!expire_arg_to_abs_ms(ctx, 2, OPT_EX, &when_ms)) return;
    set_generic(ctx, 0, 3, true, when_ms, false);
}

static void cmd_psetex(struct cmd_ctx *ctx)
{
    long long when_ms;
    if (!expire_arg_to_abs_ms(ctx, 2, OPT_PX, &when_ms)) return;
    set_generic(ctx, 0, 3, true, when_ms, false);
}

static void cmd_getset(struct cmd_ctx *ctx)
{
    set_generic(ctx, OPT_GET, 2, false, 0, false);
}

static void cmd_getdel(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv) {
        reply_nil(ctx->reply);
        return;
    }
    if (reject_non_string(ctx, kv)) return;
    reply_string_kv(ctx, kv);
    db_delete_kv(ctx->db, kv);
    keyspace.stats.dirty++;
    cmd_notify(ctx, NOTIFY_GENERIC, "del", 1);
}

static void cmd_getex(struct cmd_ctx *ctx)
{
    struct string_opts o;
    if (!parse_string_opts(ctx, 2, false, &o)) return;
    /* Redis's order: a missing key answers nil before the expire is checked. */
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv) {
        reply_nil(ctx->reply);
        return;
    }
    if (reject_non_string(ctx, kv)) return;
    long long when_ms = 0;
    if (o.expire_index && !expire_arg_to_abs_ms(ctx, o.expire_index, o.flags, &when_ms)) return;
    reply_string_kv(ctx, kv);
    /* An absolute time already past deletes the key (db_set_expire does). */
    if (o.expire_index) {
        bool kept = db_set_expire(ctx->db, kv, when_ms);
        keyspace.stats.dirty++; /* set or, when past, deleted: one change */
        cmd_notify(ctx, NOTIFY_GENERIC, kept ? "expire" : "del", 1);
    } else if ((o.flags & OPT_PERSIST) && db_persist(ctx->db, kv))
        cmd_notify(ctx, NOTIFY_GENERIC, "persist", 1);
}

/* --- multi-key -------------------------------------------------------- */

static void cmd_mget(struct cmd_ctx *ctx)
{
    reply_array_len(ctx->reply, ctx->argc - 1);
    for (int i = 1; i < ctx->argc; i++) {
        struct kv *kv = db_lookup_read(ctx->db, ctx->argv[i], ctx->argv_len[i]);
        if (kv && kv->type == OBJ_STRING)
            reply_string_kv(ctx, kv);
        else
            reply_nil(ctx->reply);
    }
}

/* MSET/MSETNX: pairs from argv[1]; clears the TTL of overwritten keys. */
static void mset_all(struct cmd_ctx *ctx)
{
    for (int i = 1; i < ctx->argc; i += 2) {
        db_set_string(ctx->db, ctx->argv[i], ctx->argv_len[i], ctx->argv[i + 1],
                      ctx->argv_len[i + 1], KV_STR_TRY_INT, false);
        cmd_notify(ctx, NOTIFY_STRING, "set", i);
    }
}

static void cmd_mset(struct cmd_ctx *ctx)
{
    if (ctx->argc % 2 == 0) {
        reply_error_arity(ctx->reply, ctx->cmd->full_name);
        return;
    }
    mset_all(ctx);
    reply_ok(ctx->reply);
}

static void cmd_msetnx(struct cmd_ctx *ctx)
{
    if (ctx->argc % 2 == 0) {
        reply_error_arity(ctx->reply, ctx->cmd->full_name);
        return;
    }
    for (int i = 1; i < ctx->argc; i += 2) {
        if (db_lookup_write(ctx->db, ctx->argv[i], ctx->argv_len[i])) {
            reply_int(ctx->reply, 0);
            return;
        }
    }
    mset_all(ctx);
    reply_int(ctx->reply, 1);
}

/* --- counters --------------------------------------------------------- */

static void incr_by(struct cmd_ctx *ctx, long long incr)
{
    const char *key = ctx->argv[1];
    size_t key_len = ctx->argv_len[1];
    struct kv *kv = db_lookup_write(ctx->db, key, key_len);
    if (reject_non_string(ctx, kv)) return;
    long long value = 0;
    if (kv && kv->encoding == ENC_INT) {
        value = kv->v.integer;
    } else if (kv) {
        struct strview v;
        kv_string_view(kv, &v);
        if (!num_parse_ll(v.ptr, v.len, &value)) {
            reply_error_not_integer(ctx->reply);
            return;
        }
    }
    if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) ||
        (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
        reply_error(ctx->reply, "ERR increment or decrement would overflow");
        return;
    }
    value += incr;
    if (kv && kv->encoding == ENC_INT) {
        /* The hot path of a counter: no lookup beyond the first, no allocation. */
        kv->v.integer = value;
        db_note_modified(ctx->db, kv);
    } else {
        db_store_int(ctx->db, kv, key, key_len, value);
    }
    cmd_notify(ctx, NOTIFY_STRING, "incrby", 1);
    reply_int(ctx->reply, value);
}

static void cmd_incr(struct cmd_ctx *ctx)
{
    incr_by(ctx, 1);
}

static void cmd_decr(struct cmd_ctx *ctx)
{
    incr_by(ctx, -1);
}

static void cmd_incrby(struct cmd_ctx *ctx)
{
    long long incr;
    if (arg_to_ll(ctx, 2, &incr)) incr_by(ctx, incr);
}

void string_incrby_typed(struct cmd_ctx *ctx, const struct typed_call *t)
{
    incr_by(ctx, t->number);
}

static void cmd_decrby(struct cmd_ctx *ctx)
{
    long long decr;
    if (!arg_to_ll(ctx, 2, &decr)) return;
    if (decr == LLONG_MIN) {
        reply_error(ctx->reply, "ERR decrement would overflow");
        return;
    }
    incr_by(ctx, -decr);
}

static void cmd_incrbyfloat(struct cmd_ctx *ctx)
{
    const char *key = ctx->argv[1];
    size_t key_len = ctx->argv_len[1];
    struct kv *kv = db_lookup_write(ctx->db, key, key_len);
    if (reject_non_string(ctx, kv)) return;
    long double value = 0, incr;
    if (kv) {
        struct strview v;
        kv_string_view(kv, &v);
        if (!num_parse_long_double(v.ptr, v.len, &value)) {
            reply_error_not_float(ctx->reply);
            return;
        }
    }
    if (!num_parse_long_double(ctx->argv[2], ctx->argv_len[2], &incr)) {
        reply_error_not_float(ctx->reply);
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        reply_error(ctx->reply, "ERR increment would produce NaN or Infinity");
        return;
    }
    char text[NUM_DOUBLE_STR_SIZE];
    size_t len = num_format_long_double_human(text, sizeof text, value);
    db_store_string(ctx->db, kv, key, key_len, text, len, KV_STR_PLAIN, true);
    cmd_notify(ctx, NOTIFY_STRING, "incrbyfloat", 1);
    reply_bulk(ctx->reply, text, len);
}

/* --- byte ranges ------------------------------------------------------ */

static void cmd_strlen(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (reject_non_string(ctx, kv)) return;
    reply_int(ctx->reply, kv ? (long long)kv_string_len(kv) : 0);
}

static void cmd_append(struct cmd_ctx *ctx)
{
    const char *key = ctx->argv[1], *val = ctx->argv[2];
    size_t key_len = ctx->argv_len[1], val_len = ctx->argv_len[2];
    struct kv *kv = db_lookup_write(ctx->db, key, key_len);
    if (!kv) {
        /* Redis stores the argument as SET would (an int when it is one). */
        db_add(ctx->db, kv_new_string(key, key_len, val, val_len, KV_STR_TRY_INT));
        keyspace.stats.dirty++;
        cmd_notify(ctx, NOTIFY_STRING, "append", 1);
        reply_int(ctx->reply, (long long)val_len);
        return;
    }
    if (reject_non_string(ctx, kv)) return;
    size_t len = kv_string_len(kv);
    if (!string_length_ok(ctx, len, val_len)) return;
    struct strbuf *sb = kv_string_make_raw(kv, len + val_len);
    memcpy(sb->data + sb->len, val, val_len);
    sb->len += val_len;
    db_note_modified(ctx->db, kv);
    cmd_notify(ctx, NOTIFY_STRING, "append", 1);
    reply_int(ctx->reply, (long long)sb->len);
}

/* GETRANGE / SUBSTR: inclusive range with Redis's clamping; an absent key
 * is an empty string (not nil). */
static void cmd_getrange(struct cmd_ctx *ctx)
{
    long long start, end;
    if (!arg_to_ll(ctx, 2, &start) || !arg_to_ll(ctx, 3, &end)) return;
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (reject_non_string(ctx, kv)) return;
    struct strview v = {.ptr = "", .len = 0};
    if (kv) kv_string_view(kv, &v);
    long long len = (long long)v.len;
    if (start < 0 && end < 0 && start > end) {
        reply_bulk(ctx->reply, "", 0);
        return;
    }
    if (start < 0) start += len;
    if (end < 0) end += len;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= len) end = len - 1;
    if (len == 0 || start > end)
        reply_bulk(ctx->reply, "", 0);
    else
        reply_bulk(ctx->reply, v.ptr + start, (size_t)(end - start + 1));
}

static void cmd_setrange(struct cmd_ctx *ctx)
{
    long long offset;
    if (!arg_to_ll(ctx, 2, &offset)) return;
    if (offset < 0) {
        reply_error(ctx->reply, "ERR offset is out of range");
        return;
    }
    const char *key = ctx->argv[1], *val = ctx->argv[3];
    size_t key_len = ctx->argv_len[1], val_len = ctx->argv_len[3];
    struct kv *kv = db_lookup_write(ctx->db, key, key_len);
    if (reject_non_string(ctx, kv)) return;
    if (val_len == 0) {
        /* Nothing to write: the length as it is, and no key is created. */
        reply_int(ctx->reply, kv ? (long long)kv_string_len(kv) : 0);
        return;
    }
    if (!string_length_ok(ctx, (unsigned long long)offset, val_len)) return;
    size_t end = (size_t)offset + val_len;
    struct strbuf *sb;
    if (!kv) {
        kv = kv_new_string_zeroed(key, key_len, end);
        db_add(ctx->db, kv);
        keyspace.stats.dirty++;
        sb = kv->v.raw;
    } else {
        sb = kv_string_grow_zeroed(kv, end);
        db_note_modified(ctx->db, kv);
    }
    memcpy(sb->data + offset, val, val_len);
    cmd_notify(ctx, NOTIFY_STRING, "setrange", 1);
    reply_int(ctx->reply, (long long)sb->len);
}

/* --- LCS ------------------------------------------------------------------- */

/* LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the classic
 * dynamic programme, walked back from the end preferring to drop a byte of
 * key2 on ties, as Redis does, so IDX lists the same ranges, last first. */
static void cmd_lcs(struct cmd_ctx *ctx)
{
    struct kv *ka = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    struct kv *kb = db_lookup_read(ctx->db, ctx->argv[2], ctx->argv_len[2]);
    if ((ka && ka->type != OBJ_STRING) || (kb && kb->type != OBJ_STRING)) {
        reply_error(ctx->reply, "ERR The specified keys must contain string values");
        return;
    }
    bool getlen = false, getidx = false, withmatchlen = false;
    long long minmatchlen = 0;
    for (int j = 3; j < ctx->argc; j++) {
        if (arg_equals(ctx, j, "idx")) {
            getidx = true;
        } else if (arg_equals(ctx, j, "len")) {
            getlen = true;
        } else if (arg_equals(ctx, j, "withmatchlen")) {
            withmatchlen = true;
        } else if (arg_equals(ctx, j, "minmatchlen") && j + 1 < ctx->argc) {
            if (!arg_to_ll(ctx, ++j, &minmatchlen)) return;
            if (minmatchlen < 0) minmatchlen = 0;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    if (getidx && getlen) {
        reply_error(ctx->reply,
                    "ERR If you want both the length and indexes, please just use IDX.");
        return;
    }
    struct strview va = {.ptr = "", .len = 0}, vb = {.ptr = "", .len = 0};
    if (ka) kv_string_view(ka, &va);
    if (kb) kv_string_view(kb, &vb);
    size_t alen = va.len, blen = vb.len;
    if (alen >= UINT32_MAX - 1 || blen >= UINT32_MAX - 1) {
        reply_error(ctx->reply, "ERR String too long for LCS");
        return;
    }
    unsigned long long cells = (unsigned long long)(alen + 1) * (blen + 1);
    if (cells > (unsigned long long)config.proto_max_bulk_len / sizeof(uint32_t)) {
        reply_error(ctx->reply, "ERR Insufficient memory, transient memory for LCS exceeds "
                                "proto-max-bulk-len");
        return;
    }
    const unsigned char *a = (const unsigned char *)va.ptr, *b = (const unsigned char *)vb.ptr;
    uint32_t *dp = xmalloc((size_t)cells * sizeof *dp);
#define LCS_AT(i, j) dp[(size_t)(i) * (blen + 1) + (j)]
    for (size_t i = 0; i <= alen; i++) {
        for (size_t j = 0; j <= blen; j++) {
            if (i == 0 || j == 0)
                LCS_AT(i, j) = 0;
            else if (a[i - 1] == b[j - 1])
                LCS_AT(i, j) = LCS_AT(i - 1, j - 1) + 1;
            else
                LCS_AT(i, j) =
                    LCS_AT(i - 1, j) > LCS_AT(i, j - 1) ? LCS_AT(i - 1, j) : LCS_AT(i, j - 1);
        }
    }
    uint32_t total = LCS_AT(alen, blen);
    if (getlen) {
        reply_int(ctx->reply, total);
        xfree(dp);
        return;
    }
    char *result = xmalloc(total ? total : 1);
    reply_mark mark = 0;
    long long ranges = 0;
    if (getidx) {
        reply_map_len(ctx->reply, 2);
        reply_bulk_cstr(ctx->reply, "matches");
        mark = reply_defer(ctx->reply);
    }
    /* The current run of matches, [a_start, a_end] x [b_start, ...]; open
     * when a_open. A run ends at a mismatch or at the start of a string. */
    size_t i = alen, j = blen, k = total;
    size_t a_start = 0, a_end = 0, b_start = 0, b_end = 0;
    bool open = false;
    while (i > 0 && j > 0) {
        bool emit = false;
        if (a[i - 1] == b[j - 1]) {
            result[--k] = (char)a[i - 1];
            if (!open) {
                open = true;
                a_start = a_end = i - 1;
                b_start = b_end = j - 1;
            } else {
                a_start--, b_start--; /* a diagonal step extends the run */
            }
            if (a_start == 0 || b_start == 0) emit = true;
            i--, j--;
        } else {
            if (LCS_AT(i - 1, j) > LCS_AT(i, j - 1))
                i--;
            else
                j--;
            emit = open;
        }
        if (emit) {
            long long len = (long long)(a_end - a_start + 1);
            if (getidx && (minmatchlen == 0 || len >= minmatchlen)) {
                reply_array_len(ctx->reply, withmatchlen ? 3 : 2);
                reply_array_len(ctx->reply, 2);
                reply_int(ctx->reply, (long long)a_start);
                reply_int(ctx->reply, (long long)a_end);
                reply_array_len(ctx->reply, 2);
                reply_int(ctx->reply, (long long)b_start);
                reply_int(ctx->reply, (long long)b_end);
                if (withmatchlen) reply_int(ctx->reply, len);
                ranges++;
            }
            open = false;
        }
    }
#undef LCS_AT
    if (getidx) {
        reply_defer_array(ctx->reply, mark, ranges);
        reply_bulk_cstr(ctx->reply, "len");
        reply_int(ctx->reply, total);
    } else {
        reply_bulk(ctx->reply, result, total);
    }
    xfree(result);
    xfree(dp);
}

#define STRING_CMD(n, a, f, fn_, sum, since_, cx)                                                  \
    {                                                                                              \
        .name = n, .arity = a, .flags = f, .fn = fn_, .first_key = 1, .last_key = 1,               \
        .key_step = 1, .summary = sum, .since = since_, .group = "string", .complexity = cx        \
    }

struct command string_commands[] = {
    STRING_CMD("get", 2, CMD_READONLY | CMD_FAST, cmd_get, "Returns the string value of a key.",
               "1.0.0", "O(1)"),
    STRING_CMD("set", -3, CMD_WRITE | CMD_DENYOOM, cmd_set,
               "Sets the string value of a key, ignoring its type. The key is created if it "
               "doesn't exist.",
               "1.0.0", "O(1)"),
    STRING_CMD("setnx", 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_setnx,
               "Set the string value of a key only when the key doesn't exist.", "1.0.0", "O(1)"),
    STRING_CMD("setex", 4, CMD_WRITE | CMD_DENYOOM, cmd_setex,
               "Sets the string value and expiration time of a key. Creates the key if it "
               "doesn't exist.",
               "2.0.0", "O(1)"),
    STRING_CMD("psetex", 4, CMD_WRITE | CMD_DENYOOM, cmd_psetex,
               "Sets both string value and expiration time in milliseconds of a key. The key is "
               "created if it doesn't exist.",
               "2.6.0", "O(1)"),
    STRING_CMD("getset", 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_getset,
               "Returns the previous string value of a key after setting it to a new value.",
               "1.0.0", "O(1)"),
    STRING_CMD("getdel", 2, CMD_WRITE | CMD_FAST, cmd_getdel,
               "Returns the string value of a key after deleting the key.", "6.2.0", "O(1)"),
    STRING_CMD("getex", -2, CMD_WRITE | CMD_FAST, cmd_getex,
               "Returns the string value of a key after setting its expiration time.", "6.2.0",
               "O(1)"),
    {.name = "mget",
     .arity = -2,
     .flags = CMD_READONLY | CMD_FAST,
     .fn = cmd_mget,
     .first_key = 1,
     .last_key = -1,
     .key_step = 1,
     .summary = "Atomically returns the string values of one or more keys.",
     .since = "1.0.0",
     .group = "string",
     .complexity = "O(N) where N is the number of keys to retrieve."},
    {.name = "mset",
     .arity = -3,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_mset,
     .first_key = 1,
     .last_key = -1,
     .key_step = 2,
     .summary = "Atomically creates or modifies the string values of one or more keys.",
     .since = "1.0.1",
     .group = "string",
     .complexity = "O(N) where N is the number of keys to set."},
    {.name = "msetnx",
     .arity = -3,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_msetnx,
     .first_key = 1,
     .last_key = -1,
     .key_step = 2,
     .summary = "Atomically modifies the string values of one or more keys only when all keys "
                "don't exist.",
     .since = "1.0.1",
     .group = "string",
     .complexity = "O(N) where N is the number of keys to set."},
    STRING_CMD("append", 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_append,
               "Appends a string to the value of a key. Creates the key if it doesn't exist.",
               "2.0.0", "O(1)"),
    STRING_CMD("strlen", 2, CMD_READONLY | CMD_FAST, cmd_strlen,
               "Returns the length of a string value.", "2.2.0", "O(1)"),
    STRING_CMD("incr", 2, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_incr,
               "Increments the integer value of a key by one. Uses 0 as initial value if the key "
               "doesn't exist.",
               "1.0.0", "O(1)"),
    STRING_CMD("decr", 2, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_decr,
               "Decrements the integer value of a key by one. Uses 0 as initial value if the key "
               "doesn't exist.",
               "1.0.0", "O(1)"),
    STRING_CMD("incrby", 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_incrby,
               "Increments the integer value of a key by a number. Uses 0 as initial value if "
               "the key doesn't exist.",
               "1.0.0", "O(1)"),
    STRING_CMD("decrby", 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_decrby,
               "Decrements a number from the integer value of a key. Uses 0 as initial value if "
               "the key doesn't exist.",
               "1.0.0", "O(1)"),
    STRING_CMD("incrbyfloat", 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, cmd_incrbyfloat,
               "Increment the floating point value of a key by a number. Uses 0 as initial value "
               "if the key doesn't exist.",
               "2.6.0", "O(1)"),
    STRING_CMD("getrange", 4, CMD_READONLY, cmd_getrange,
               "Returns a substring of the string stored at a key.", "2.4.0",
               "O(N) where N is the length of the returned string."),
    STRING_CMD("substr", 4, CMD_READONLY, cmd_getrange, "Returns a substring from a string value.",
               "1.0.0", "O(N) where N is the length of the returned string."),
    STRING_CMD("setrange", 4, CMD_WRITE | CMD_DENYOOM, cmd_setrange,
               "Overwrites a part of a string value with another by an offset. Creates the key "
               "if it doesn't exist.",
               "2.2.0", "O(1), not counting the time taken to copy the new string in place."),
    {.name = "lcs",
     .arity = -3,
     .flags = CMD_READONLY,
     .fn = cmd_lcs,
     .first_key = 1,
     .last_key = 2,
     .key_step = 1,
     .summary = "Finds the longest common substring.",
     .since = "7.0.0",
     .group = "string",
     .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively"},
    COMMAND_END,
};
