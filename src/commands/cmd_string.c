/* cmd_string.c — string commands. */
#include <limits.h>
#include <string.h>

#include "commands/command.h"

/* Replies with the string at kv, or a WRONGTYPE error. */
static void reply_string_kv(struct cmd_ctx *ctx, const struct kv *kv)
{
    struct strview v;
    kv_string_view(kv, &v);
    reply_bulk(ctx->reply, v.ptr, v.len);
}

static void cmd_get(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv) {
        reply_nil(ctx->reply);
        return;
    }
    if (kv->type != OBJ_STRING) {
        reply_error_wrongtype(ctx->reply);
        return;
    }
    reply_string_kv(ctx, kv);
}

enum set_flag {
    SET_NX = 1 << 0,
    SET_XX = 1 << 1,
    SET_GET = 1 << 2,
    SET_KEEPTTL = 1 << 3,
    SET_EX = 1 << 4,
    SET_PX = 1 << 5,
    SET_EXAT = 1 << 6,
    SET_PXAT = 1 << 7,
};
#define SET_ANY_EXPIRE (SET_EX | SET_PX | SET_EXAT | SET_PXAT)

/* Converts an expire argument to absolute ms as Redis does; replies on error. */
static bool expire_arg_to_abs_ms(struct cmd_ctx *ctx, int i, int flags, long long *out)
{
    long long v;
    if (!arg_to_ll(ctx, i, &v)) return false;
    bool seconds = flags & (SET_EX | SET_EXAT);
    if (v <= 0 || (seconds && v > LLONG_MAX / 1000)) goto invalid;
    if (seconds) v *= 1000;
    if (flags & (SET_EX | SET_PX)) {
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

static void cmd_set(struct cmd_ctx *ctx)
{
    int flags = 0, expire_index = 0;
    for (int j = 3; j < ctx->argc; j++) {
        bool has_next = j + 1 < ctx->argc;
        if (arg_equals(ctx, j, "nx") && !(flags & SET_XX)) flags |= SET_NX;
        else if (arg_equals(ctx, j, "xx") && !(flags & SET_NX)) flags |= SET_XX;
        else if (arg_equals(ctx, j, "get")) flags |= SET_GET;
        else if (arg_equals(ctx, j, "keepttl") && !(flags & SET_ANY_EXPIRE)) flags |= SET_KEEPTTL;
        else if (has_next && !(flags & (SET_ANY_EXPIRE | SET_KEEPTTL)) &&
                 (arg_equals(ctx, j, "ex") || arg_equals(ctx, j, "px") ||
                  arg_equals(ctx, j, "exat") || arg_equals(ctx, j, "pxat"))) {
            flags |= arg_equals(ctx, j, "ex")   ? SET_EX
                     : arg_equals(ctx, j, "px") ? SET_PX
                     : arg_equals(ctx, j, "exat") ? SET_EXAT
                                                  : SET_PXAT;
            expire_index = ++j;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    long long when_ms = 0;
    if (expire_index && !expire_arg_to_abs_ms(ctx, expire_index, flags, &when_ms)) return;

    const char *key = ctx->argv[1];
    size_t key_len = ctx->argv_len[1];
    struct kv *old = db_lookup_write(ctx->db, key, key_len);
    if (flags & SET_GET) {
        if (old && old->type != OBJ_STRING) {
            reply_error_wrongtype(ctx->reply);
            return;
        }
        if (old) reply_string_kv(ctx, old);
        else reply_nil(ctx->reply);
    }
    if (((flags & SET_NX) && old) || ((flags & SET_XX) && !old)) {
        if (!(flags & SET_GET)) reply_nil(ctx->reply);
        return;
    }
    struct kv *kv = db_set_string(ctx->db, key, key_len, ctx->argv[2], ctx->argv_len[2],
                                  KV_STR_TRY_INT, flags & SET_KEEPTTL);
    if (expire_index) db_set_expire(ctx->db, kv, when_ms);
    if (!(flags & SET_GET)) reply_ok(ctx->reply);
}

struct command string_commands[] = {
    {.name = "get", .arity = 2, .flags = CMD_READONLY | CMD_FAST, .fn = cmd_get, .first_key = 1,
     .last_key = 1, .key_step = 1, .summary = "Returns the string value of a key.",
     .since = "1.0.0", .group = "string", .complexity = "O(1)"},
    {.name = "set", .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, .fn = cmd_set, .first_key = 1,
     .last_key = 1, .key_step = 1,
     .summary = "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
     .since = "1.0.0", .group = "string", .complexity = "O(1)"},
    COMMAND_END,
};
