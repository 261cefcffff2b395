/* typed_args.c — shared lookup and SCAN-argument helpers; see typed_args.h. */
#include "commands/typed_args.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "util/clock.h"
#include "util/glob.h"
#include "util/numparse.h"

static struct kv *check_type(struct cmd_ctx *ctx, struct kv *kv, enum obj_type type, bool *replied)
{
    *replied = false;
    if (kv && kv->type != type) {
        reply_error_wrongtype(ctx->reply);
        *replied = true;
        return NULL;
    }
    return kv;
}

struct kv *lookup_read_typed(struct cmd_ctx *ctx, int i, enum obj_type type, bool *replied)
{
    return check_type(ctx, db_lookup_read(ctx->db, ctx->argv[i], ctx->argv_len[i]), type, replied);
}

struct kv *lookup_write_typed(struct cmd_ctx *ctx, int i, enum obj_type type, bool *replied)
{
    return check_type(ctx, db_lookup_write(ctx->db, ctx->argv[i], ctx->argv_len[i]), type, replied);
}

void store_container_result(struct cmd_ctx *ctx, int dst_i, enum obj_type type,
                            enum obj_encoding encoding, void *value, size_t n)
{
    /* The event is the command's name (sinterstore, zunionstore...). */
    store_container_result_as(ctx, dst_i, type, encoding, value, n, ctx->cmd->name, 1);
}

void store_container_result_as(struct cmd_ctx *ctx, int dst_i, enum obj_type type,
                               enum obj_encoding encoding, void *value, size_t n, const char *event,
                               long long changes)
{
    const char *key = ctx->argv[dst_i];
    size_t key_len = ctx->argv_len[dst_i];
    struct kv *old = db_lookup_write(ctx->db, key, key_len);
    if (n == 0) {
        if (old) {
            db_delete_kv(ctx->db, old);
            keyspace.stats.dirty++;
            cmd_notify(ctx, NOTIFY_GENERIC, "del", dst_i);
        }
        reply_int(ctx->reply, 0);
        return;
    }
    struct kv *fresh = kv_new_container(key, key_len, type, encoding, value);
    if (old)
        db_replace(ctx->db, old, fresh, false);
    else
        db_add(ctx->db, fresh);
    keyspace.stats.dirty += changes;
    cmd_notify(ctx, type == OBJ_SET ? NOTIFY_SET : NOTIFY_ZSET, event, dst_i);
    reply_int(ctx->reply, (long long)n);
}

bool random_count_args(struct cmd_ctx *ctx, const char *with_word, long long *count, bool *with)
{
    if (!arg_to_ll(ctx, 2, count)) return false;
    if (*count == LLONG_MIN) {
        reply_error(ctx->reply, "ERR value is out of range, value must between "
                                "-9223372036854775807 and 9223372036854775807");
        return false;
    }
    *with = ctx->argc == 4;
    if (ctx->argc > 4 || (*with && !arg_equals(ctx, 3, with_word))) {
        reply_error_syntax(ctx->reply);
        return false;
    }
    /* With pairs the reply doubles: Redis refuses counts whose double overflows. */
    if (*with && (*count < -LLONG_MAX / 2 || *count > LLONG_MAX / 2)) {
        reply_error(ctx->reply, "ERR value is out of range");
        return false;
    }
    return true;
}

bool arg_to_scan_cursor(struct cmd_ctx *ctx, int i, unsigned long long *out)
{
    if (num_parse_scan_cursor(ctx->argv[i], ctx->argv_len[i], out)) return true;
    reply_error(ctx->reply, "ERR invalid cursor");
    return false;
}

bool scan_options_parse(struct cmd_ctx *ctx, int first, bool allow_novalues,
                        struct scan_options *out)
{
    *out = (struct scan_options){.count = 10};
    for (int i = first; i < ctx->argc;) {
        bool has_value = i + 1 < ctx->argc;
        if (has_value && arg_equals(ctx, i, "count")) {
            if (!arg_to_ll(ctx, i + 1, &out->count)) return false;
            if (out->count < 1) {
                reply_error_syntax(ctx->reply);
                return false;
            }
            i += 2;
        } else if (has_value && arg_equals(ctx, i, "match")) {
            out->pattern = ctx->argv[i + 1];
            out->pattern_len = ctx->argv_len[i + 1];
            if (glob_is_match_all(out->pattern, out->pattern_len)) out->pattern = NULL;
            i += 2;
        } else if (allow_novalues && arg_equals(ctx, i, "novalues")) {
            out->no_values = true;
            i++;
        } else {
            reply_error_syntax(ctx->reply);
            return false;
        }
    }
    return true;
}

void reply_scan_cursor(struct reply *r, unsigned long long cursor)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%llu", cursor);
    reply_bulk(r, buf, (size_t)n);
}

bool scan_options_match(const struct scan_options *o, const char *s, size_t len)
{
    return !o->pattern || glob_match(o->pattern, o->pattern_len, s, len, false);
}

bool arg_to_block_deadline(struct cmd_ctx *ctx, int i, int64_t *deadline_ms)
{
    long double t;
    if (!num_parse_long_double(ctx->argv[i], ctx->argv_len[i], &t)) {
        reply_error(ctx->reply, "ERR timeout is not a float or out of range");
        return false;
    }
    t = ceill(t * 1000.0L);
    /* Redis 7.0.15 rounds up to whole ms ("0.0001" is 1 ms, "-0.0001" is 0:
     * forever), and converts out-of-range values as x86 does, to
     * LLONG_MIN: "timeout is negative". */
    long long ms =
        t >= -9223372036854775808.0L && t < 9223372036854775808.0L ? (long long)t : LLONG_MIN;
    if (ms < 0) {
        reply_error(ctx->reply, "ERR timeout is negative");
        return false;
    }
    int64_t now = clock_unix_ms();
    if (ms > 0 && ms > LLONG_MAX - now) {
        reply_error(ctx->reply, "ERR timeout is out of range");
        return false;
    }
    *deadline_ms = ms > 0 ? now + ms : 0;
    return true;
}

bool mpop_args(struct cmd_ctx *ctx, int numkeys_i, const char *word0, const char *word1,
               int *first_key, int *numkeys, int *dir, long long *count)
{
    long long n;
    if (!num_parse_ll(ctx->argv[numkeys_i], ctx->argv_len[numkeys_i], &n) || n < 1) {
        reply_error(ctx->reply, "ERR numkeys should be greater than 0");
        return false;
    }
    long long where_i = numkeys_i + n + 1;
    if (n > ctx->argc || where_i >= ctx->argc) {
        reply_error_syntax(ctx->reply);
        return false;
    }
    if (arg_equals(ctx, (int)where_i, word0)) {
        *dir = 0;
    } else if (arg_equals(ctx, (int)where_i, word1)) {
        *dir = 1;
    } else {
        reply_error_syntax(ctx->reply);
        return false;
    }
    *count = -1;
    for (int j = (int)where_i + 1; j < ctx->argc; j++) {
        if (*count == -1 && arg_equals(ctx, j, "count") && j + 1 < ctx->argc) {
            j++;
            if (!num_parse_ll(ctx->argv[j], ctx->argv_len[j], count) || *count < 1) {
                reply_error(ctx->reply, "ERR count should be greater than 0");
                return false;
            }
        } else {
            reply_error_syntax(ctx->reply);
            return false;
        }
    }
    if (*count == -1) *count = 1;
    *first_key = numkeys_i + 1;
    *numkeys = (int)n;
    return true;
}
