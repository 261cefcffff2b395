/* cmd_bitmap.c — bit operations on string values: SETBIT, GETBIT,
 * BITCOUNT, BITPOS, BITOP, BITFIELD, BITFIELD_RO, with Redis 7.0's replies,
 * errors and limits (no bit past proto-max-bulk-len bytes). Bit 0 is the
 * most significant bit of the first byte. A string a write touches becomes
 * raw-encoded, as in Redis. */
#include <limits.h>
#include <string.h>

#include "commands/command.h"
#include "core/config.h"
#include "util/xmalloc.h"

static const char err_offset[] = "ERR bit offset is not an integer or out of range";

/* A bit offset argument; with `hash`, "#N" means N * bits. Replies on error. */
static bool bit_offset_arg(struct cmd_ctx *ctx, int i, bool hash, int bits, unsigned long long *out)
{
    const char *p = ctx->argv[i];
    size_t len = ctx->argv_len[i];
    bool scaled = hash && len > 0 && p[0] == '#';
    long long v;
    if (!num_parse_ll(p + scaled, len - scaled, &v) || v < 0 || (scaled && v > LLONG_MAX / bits)) {
        reply_error(ctx->reply, err_offset);
        return false;
    }
    if (scaled) v *= bits;
    if ((unsigned long long)(v >> 3) >= (unsigned long long)config.proto_max_bulk_len) {
        reply_error(ctx->reply, err_offset);
        return false;
    }
    *out = (unsigned long long)v;
    return true;
}

/* The string at argv[1] for a bit write reaching bit `maxbit`: created or
 * grown with zero bytes (*grown then set), raw-encoded. NULL after
 * replying WRONGTYPE. */
static struct strbuf *string_for_bit_write(struct cmd_ctx *ctx, unsigned long long maxbit,
                                           bool *grown)
{
    size_t need = (size_t)(maxbit >> 3) + 1;
    struct kv *kv = db_lookup_write(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    *grown = true;
    if (!kv) {
        kv = kv_new_string_zeroed(ctx->argv[1], ctx->argv_len[1], need);
        db_add(ctx->db, kv);
        return kv->v.raw;
    }
    if (kv->type != OBJ_STRING) {
        reply_error_wrongtype(ctx->reply);
        return NULL;
    }
    *grown = kv_string_len(kv) < need;
    return kv_string_grow_zeroed(kv, need);
}

/* The string at argv[1] for reading: false after WRONGTYPE; *found says
 * whether the key exists; view holds its bytes. */
static bool string_for_read(struct cmd_ctx *ctx, struct strview *view, bool *found)
{
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    *found = kv != NULL;
    view->ptr = "";
    view->len = 0;
    if (!kv) return true;
    if (kv->type != OBJ_STRING) {
        reply_error_wrongtype(ctx->reply);
        return false;
    }
    kv_string_view(kv, view);
    return true;
}

static int bit_at(const unsigned char *p, size_t len, unsigned long long bit)
{
    size_t byte = (size_t)(bit >> 3);
    return byte < len ? (p[byte] >> (7 - (bit & 7))) & 1 : 0;
}

static void cmd_setbit(struct cmd_ctx *ctx)
{
    unsigned long long offset;
    long long on;
    if (!bit_offset_arg(ctx, 2, false, 0, &offset)) return;
    if (!num_parse_ll(ctx->argv[3], ctx->argv_len[3], &on) || (on & ~1LL)) {
        reply_error(ctx->reply, "ERR bit is not an integer or out of range");
        return;
    }
    bool grown;
    struct strbuf *sb = string_for_bit_write(ctx, offset, &grown);
    if (!sb) return;
    unsigned char *byte = (unsigned char *)sb->data + (offset >> 3);
    unsigned mask = 1u << (7 - (offset & 7));
    int old = (*byte & mask) != 0;
    *byte = (unsigned char)(on ? *byte | mask : *byte & ~mask);
    /* A change (signal, dirty, event) when the bit changed or the string
     * was created or grown (Redis 7.0); an unchanged bit is none. */
    db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], old != on || grown);
    if (old != on || grown) cmd_notify(ctx, NOTIFY_STRING, "setbit", 1);
    reply_int(ctx->reply, old);
}

static void cmd_getbit(struct cmd_ctx *ctx)
{
    unsigned long long offset;
    if (!bit_offset_arg(ctx, 2, false, 0, &offset)) return;
    struct strview v;
    bool found;
    if (!string_for_read(ctx, &v, &found)) return;
    reply_int(ctx->reply, bit_at((const unsigned char *)v.ptr, v.len, offset));
}

/* A BITCOUNT/BITPOS range in bits, inclusive, after Redis's index rules
 * (negative from the end, clamped); empty when start > end. */
struct bit_range {
    long long start, end;
};

/* start/end in units (bytes, or bits with BIT) over a string of `len`
 * bytes. `end_units` is the given end, or the last unit. */
static struct bit_range clamp_range(long long start, long long end, bool bits, size_t len)
{
    long long total = (long long)len * (bits ? 8 : 1);
    if (start < 0) start += total;
    if (end < 0) end += total;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= total) end = total - 1;
    if (bits) return (struct bit_range){start, end};
    return (struct bit_range){start * 8, end * 8 + 7};
}

/* The unit word (BYTE|BIT) at argv[i]; false after a syntax error. */
static bool unit_arg(struct cmd_ctx *ctx, int i, bool *bits)
{
    if (arg_equals(ctx, i, "bit")) {
        *bits = true;
    } else if (arg_equals(ctx, i, "byte")) {
        *bits = false;
    } else {
        reply_error_syntax(ctx->reply);
        return false;
    }
    return true;
}

static long long count_bits(const unsigned char *p, struct bit_range r)
{
    long long n = 0;
    long long b = r.start;
    for (; b <= r.end && (b & 7); b++) n += (p[b >> 3] >> (7 - (b & 7))) & 1;
    for (; b + 7 <= r.end; b += 8) n += __builtin_popcount(p[b >> 3]);
    for (; b <= r.end; b++) n += (p[b >> 3] >> (7 - (b & 7))) & 1;
    return n;
}

static void cmd_bitcount(struct cmd_ctx *ctx)
{
    struct strview v;
    bool found;
    if (!string_for_read(ctx, &v, &found)) return;
    if (!found) {
        reply_int(ctx->reply, 0);
        return;
    }
    struct bit_range r = {0, (long long)v.len * 8 - 1};
    if (ctx->argc == 4 || ctx->argc == 5) {
        long long start, end;
        bool bits = false;
        if (!arg_to_ll(ctx, 2, &start) || !arg_to_ll(ctx, 3, &end)) return;
        if (ctx->argc == 5 && !unit_arg(ctx, 4, &bits)) return;
        if (start < 0 && end < 0 && start > end) {
            reply_int(ctx->reply, 0);
            return;
        }
        r = clamp_range(start, end, bits, v.len);
    } else if (ctx->argc != 2) {
        reply_error_syntax(ctx->reply);
        return;
    }
    reply_int(ctx->reply, r.start > r.end ? 0 : count_bits((const unsigned char *)v.ptr, r));
}

static void cmd_bitpos(struct cmd_ctx *ctx)
{
    long long bit;
    if (!arg_to_ll(ctx, 2, &bit)) return;
    if (bit != 0 && bit != 1) {
        reply_error(ctx->reply, "ERR The bit argument must be 1 or 0.");
        return;
    }
    struct strview v;
    bool found;
    if (!string_for_read(ctx, &v, &found)) return;
    if (!found) {
        reply_int(ctx->reply, bit ? -1 : 0);
        return;
    }
    struct bit_range r = {0, (long long)v.len * 8 - 1};
    bool end_given = false;
    if (ctx->argc >= 4 && ctx->argc <= 6) {
        long long start, end;
        bool bits = false;
        if (!arg_to_ll(ctx, 3, &start)) return;
        if (ctx->argc == 6 && !unit_arg(ctx, 5, &bits)) return;
        if (ctx->argc >= 5) {
            if (!arg_to_ll(ctx, 4, &end)) return;
            end_given = true;
        } else {
            end = bits ? (long long)v.len * 8 - 1 : (long long)v.len - 1;
        }
        r = clamp_range(start, end, bits, v.len);
    } else if (ctx->argc != 3) {
        reply_error_syntax(ctx->reply);
        return;
    }
    if (r.start > r.end) {
        reply_int(ctx->reply, -1);
        return;
    }
    const unsigned char *p = (const unsigned char *)v.ptr;
    long long b = r.start;
    unsigned char skip = bit ? 0x00 : 0xff; /* a byte holding no wanted bit */
    while (b <= r.end) {
        if (!(b & 7) && b + 7 <= r.end && p[b >> 3] == skip) {
            b += 8;
            continue;
        }
        if (((p[b >> 3] >> (7 - (b & 7))) & 1) == bit) {
            reply_int(ctx->reply, b);
            return;
        }
        b++;
    }
    /* Looking for a clear bit with no end given: the string continues
     * with zeros past the range's last byte. */
    reply_int(ctx->reply, bit || end_given ? -1 : ((r.end >> 3) + 1) * 8);
}

/* --- BITOP ----------------------------------------------------------------- */

enum bitop { BITOP_AND, BITOP_OR, BITOP_XOR, BITOP_NOT };

static void cmd_bitop(struct cmd_ctx *ctx)
{
    enum bitop op;
    if (arg_equals(ctx, 1, "and"))
        op = BITOP_AND;
    else if (arg_equals(ctx, 1, "or"))
        op = BITOP_OR;
    else if (arg_equals(ctx, 1, "xor"))
        op = BITOP_XOR;
    else if (arg_equals(ctx, 1, "not"))
        op = BITOP_NOT;
    else {
        reply_error_syntax(ctx->reply);
        return;
    }
    if (op == BITOP_NOT && ctx->argc != 4) {
        reply_error(ctx->reply, "ERR BITOP NOT must be called with a single source key.");
        return;
    }
    size_t n = (size_t)ctx->argc - 3, maxlen = 0;
    struct strview *src = xmalloc(n * sizeof *src);
    for (size_t j = 0; j < n; j++) {
        struct kv *kv = db_lookup_read(ctx->db, ctx->argv[3 + j], ctx->argv_len[3 + j]);
        src[j].ptr = "";
        src[j].len = 0;
        if (!kv) continue;
        if (kv->type != OBJ_STRING) {
            reply_error_wrongtype(ctx->reply);
            xfree(src);
            return;
        }
        kv_string_view(kv, &src[j]); /* an int's digits: in src[j].tmp, which stays put */
        if (src[j].len > maxlen) maxlen = src[j].len;
    }
    struct kv *dst = db_lookup_write(ctx->db, ctx->argv[2], ctx->argv_len[2]);
    if (maxlen == 0) {
        if (dst) {
            db_delete_kv(ctx->db, dst);
            keyspace.stats.dirty++;
            cmd_notify(ctx, NOTIFY_GENERIC, "del", 2);
        }
        xfree(src);
        reply_int(ctx->reply, 0);
        return;
    }
    struct kv *fresh = kv_new_string_zeroed(ctx->argv[2], ctx->argv_len[2], maxlen);
    unsigned char *out = (unsigned char *)fresh->v.raw->data;
    for (size_t i = 0; i < maxlen; i++) {
        unsigned char acc = i < src[0].len ? (unsigned char)src[0].ptr[i] : 0;
        if (op == BITOP_NOT) acc = (unsigned char)~acc;
        for (size_t j = 1; j < n; j++) {
            unsigned char b = i < src[j].len ? (unsigned char)src[j].ptr[i] : 0;
            if (op == BITOP_AND)
                acc &= b;
            else if (op == BITOP_OR)
                acc |= b;
            else
                acc ^= b;
        }
        out[i] = acc;
    }
    xfree(src);
    if (dst)
        db_replace(ctx->db, dst, fresh, false);
    else
        db_add(ctx->db, fresh);
    keyspace.stats.dirty++;
    cmd_notify(ctx, NOTIFY_STRING, "set", 2);
    reply_int(ctx->reply, (long long)maxlen);
}

/* --- BITFIELD -------------------------------------------------------------- */

enum bf_opcode { BF_GET, BF_SET, BF_INCRBY };
enum bf_overflow { BF_WRAP, BF_SAT, BF_FAIL };

struct bf_op {
    enum bf_opcode opcode;
    enum bf_overflow overflow;
    bool sign;
    int bits;
    unsigned long long offset;
    long long value;
};

static bool bf_type_arg(struct cmd_ctx *ctx, int i, bool *sign, int *bits)
{
    const char *p = ctx->argv[i];
    size_t len = ctx->argv_len[i];
    long long b;
    bool ok = len > 1 && (p[0] == 'i' || p[0] == 'I' || p[0] == 'u' || p[0] == 'U');
    if (ok) {
        *sign = p[0] == 'i' || p[0] == 'I';
        ok = num_parse_ll(p + 1, len - 1, &b) && b >= 1 && b <= (*sign ? 64 : 63);
    }
    if (!ok) {
        reply_error(ctx->reply, "ERR Invalid bitfield type. Use something like i16 u8. Note that "
                                "u64 is not supported but i64 is.");
        return false;
    }
    *bits = (int)b;
    return true;
}

static uint64_t bf_read(const unsigned char *p, size_t len, unsigned long long offset, int bits)
{
    uint64_t v = 0;
    for (int i = 0; i < bits; i++) v = (v << 1) | (uint64_t)bit_at(p, len, offset + (unsigned)i);
    return v;
}

static void bf_write(unsigned char *p, unsigned long long offset, int bits, uint64_t v)
{
    for (int i = 0; i < bits; i++) {
        unsigned long long b = offset + (unsigned)i;
        unsigned mask = 1u << (7 - (b & 7));
        if ((v >> (bits - 1 - i)) & 1)
            p[b >> 3] |= (unsigned char)mask;
        else
            p[b >> 3] &= (unsigned char)~mask;
    }
}

static long long bf_signed(uint64_t raw, int bits)
{
    if (bits < 64 && (raw >> (bits - 1)) & 1) raw |= ~(uint64_t)0 << bits;
    return (long long)raw;
}

/* value + incr into a field, with Redis 7.0's overflow detection, whose
 * limits are computed in wrapping 64-bit arithmetic (so, for one, SET i32
 * of INT64_MIN counts as an overflow upwards and saturates to the maximum:
 * matched here because Redis is the reference). False means FAIL. */
static bool bf_fit(uint64_t value, long long incr, bool sign, int bits, enum bf_overflow ow,
                   long long *out)
{
    uint64_t sum = value + (uint64_t)incr;
    int dir = 0; /* +1 overflow upwards, -1 downwards */
    long long max, min;
    if (sign) {
        long long v = (long long)value;
        max = bits == 64 ? LLONG_MAX : (long long)((1ULL << (bits - 1)) - 1);
        min = -max - 1;
        long long maxincr = (long long)((uint64_t)max - value);
        long long minincr = (long long)((uint64_t)min - value);
        if (v > max || (bits != 64 && incr > maxincr) || (v >= 0 && incr > 0 && incr > maxincr))
            dir = 1;
        else if (v < min || (bits != 64 && incr < minincr) || (v < 0 && incr < 0 && incr < minincr))
            dir = -1;
    } else {
        max = (long long)((1ULL << bits) - 1);
        min = 0;
        long long maxincr = (long long)((uint64_t)max - value);
        long long minincr = -(long long)value;
        if (value > (uint64_t)max || (incr > 0 && incr > maxincr))
            dir = 1;
        else if (incr < 0 && incr < minincr)
            dir = -1;
    }
    if (dir == 0) {
        *out = (long long)sum;
        return true;
    }
    if (ow == BF_FAIL) return false;
    if (ow == BF_SAT) {
        *out = dir > 0 ? max : min;
        return true;
    }
    if (bits < 64) sum &= (1ULL << bits) - 1;
    *out = sign ? bf_signed(sum, bits) : (long long)sum;
    return true;
}

static void bitfield_generic(struct cmd_ctx *ctx, bool ro)
{
    struct bf_op *ops = xmalloc(sizeof *ops * (size_t)ctx->argc);
    size_t nops = 0;
    enum bf_overflow overflow = BF_WRAP;
    bool writes = false;
    unsigned long long highest = 0;
    for (int j = 2; j < ctx->argc; j++) {
        int left = ctx->argc - j - 1;
        struct bf_op op = {.overflow = overflow};
        if (arg_equals(ctx, j, "get") && left >= 2) {
            op.opcode = BF_GET;
        } else if (arg_equals(ctx, j, "set") && left >= 3) {
            op.opcode = BF_SET;
        } else if (arg_equals(ctx, j, "incrby") && left >= 3) {
            op.opcode = BF_INCRBY;
        } else if (arg_equals(ctx, j, "overflow") && left >= 1) {
            j++;
            if (arg_equals(ctx, j, "wrap"))
                overflow = BF_WRAP;
            else if (arg_equals(ctx, j, "sat"))
                overflow = BF_SAT;
            else if (arg_equals(ctx, j, "fail"))
                overflow = BF_FAIL;
            else {
                reply_error(ctx->reply, "ERR Invalid OVERFLOW type specified");
                goto out;
            }
            continue;
        } else {
            reply_error_syntax(ctx->reply);
            goto out;
        }
        if (!bf_type_arg(ctx, j + 1, &op.sign, &op.bits)) goto out;
        if (!bit_offset_arg(ctx, j + 2, true, op.bits, &op.offset)) goto out;
        if (op.opcode != BF_GET) {
            writes = true;
            if (highest < op.offset + (unsigned)op.bits - 1)
                highest = op.offset + (unsigned)op.bits - 1;
            if (!arg_to_ll(ctx, j + 3, &op.value)) goto out;
        }
        ops[nops++] = op;
        j += op.opcode == BF_GET ? 2 : 3;
    }
    struct strview view = {.ptr = "", .len = 0};
    unsigned char *p;
    size_t len;
    bool grown = false;
    if (!writes) {
        bool found;
        if (!string_for_read(ctx, &view, &found)) goto out;
        p = (unsigned char *)view.ptr;
        len = view.len;
    } else {
        if (ro) {
            reply_error(ctx->reply, "ERR BITFIELD_RO only supports the GET subcommand");
            goto out;
        }
        struct strbuf *sb = string_for_bit_write(ctx, highest, &grown);
        if (!sb) goto out;
        p = (unsigned char *)sb->data;
        len = sb->len;
    }
    reply_array_len(ctx->reply, (long long)nops);
    long long changes = 0;
    for (size_t i = 0; i < nops; i++) {
        struct bf_op *op = &ops[i];
        uint64_t raw = bf_read(p, len, op->offset, op->bits);
        long long old = op->sign ? bf_signed(raw, op->bits) : (long long)raw;
        if (op->opcode == BF_GET) {
            reply_int(ctx->reply, old);
            continue;
        }
        /* SET is an INCRBY of 0 from the new value (an unsigned field reads
         * it as an unsigned 64-bit number, so -1 overflows upwards). */
        bool incr = op->opcode == BF_INCRBY;
        uint64_t from = incr ? (uint64_t)old : (uint64_t)op->value;
        long long fitted;
        if (!bf_fit(from, incr ? op->value : 0, op->sign, op->bits, op->overflow, &fitted)) {
            reply_nil(ctx->reply);
            continue;
        }
        bf_write(p, op->offset, op->bits, (uint64_t)fitted);
        /* Redis 7.0 counts a write that changed the field, or any write to
         * a string it created or grew. */
        if (grown || bf_read(p, len, op->offset, op->bits) != raw) changes++;
        reply_int(ctx->reply, op->opcode == BF_INCRBY ? fitted : old);
    }
    if (changes) {
        db_note_key_changes(ctx->db, ctx->argv[1], ctx->argv_len[1], changes);
        cmd_notify(ctx, NOTIFY_STRING, "setbit", 1);
    }
out:
    xfree(ops);
}

static void cmd_bitfield(struct cmd_ctx *ctx)
{
    bitfield_generic(ctx, false);
}

static void cmd_bitfield_ro(struct cmd_ctx *ctx)
{
    bitfield_generic(ctx, true);
}

#define BIT_CMD(n, a, f, fn_, first, last, sum, since_, cx)                                        \
    {                                                                                              \
        .name = n, .arity = a, .flags = f, .fn = fn_, .first_key = first, .last_key = last,        \
        .key_step = 1, .summary = sum, .since = since_, .group = "bitmap", .complexity = cx        \
    }

struct command bitmap_commands[] = {
    BIT_CMD("setbit", 4, CMD_WRITE | CMD_DENYOOM, cmd_setbit, 1, 1,
            "Sets or clears the bit at offset of the string value. Creates the key if it doesn't "
            "exist.",
            "2.2.0", "O(1)"),
    BIT_CMD("getbit", 3, CMD_READONLY | CMD_FAST, cmd_getbit, 1, 1,
            "Returns a bit value by offset.", "2.2.0", "O(1)"),
    BIT_CMD("bitcount", -2, CMD_READONLY, cmd_bitcount, 1, 1,
            "Counts the number of set bits (population counting) in a string.", "2.6.0", "O(N)"),
    BIT_CMD("bitpos", -3, CMD_READONLY, cmd_bitpos, 1, 1,
            "Finds the first set (1) or clear (0) bit in a string.", "2.8.7", "O(N)"),
    BIT_CMD("bitop", -4, CMD_WRITE | CMD_DENYOOM, cmd_bitop, 2, -1,
            "Performs bitwise operations on multiple strings, and stores the result.", "2.6.0",
            "O(N)"),
    BIT_CMD("bitfield", -2, CMD_WRITE | CMD_DENYOOM, cmd_bitfield, 1, 1,
            "Performs arbitrary bitfield integer operations on strings.", "3.2.0",
            "O(1) for each subcommand specified"),
    BIT_CMD("bitfield_ro", -2, CMD_READONLY | CMD_FAST, cmd_bitfield_ro, 1, 1,
            "Performs arbitrary read-only bitfield integer operations on strings.", "6.0.0",
            "O(1) for each subcommand specified"),
    COMMAND_END,
};
