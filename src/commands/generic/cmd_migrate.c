/*
 * cmd_migrate.c — MIGRATE: move keys to another server (goblin-core or
 * Redis) as DUMP payloads sent with RESTORE (RESTORE-ASKING in cluster
 * mode, so an importing node accepts them), then delete them here unless
 * COPY. It is how `redis-cli --cluster reshard` moves a slot's keys.
 *
 * As in Redis, the transfer is synchronous on the server thread, bounded by
 * the command's timeout (milliseconds, default 1000) for the connection and
 * for each reply; the client connection to the target comes from Debian's
 * hiredis and is not cached between calls.
 */
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <string.h>

#include "cluster/cluster.h"
#include "commands/command.h"
#include "persist/rdb.h"
#include "core/config.h"
#include "store/db.h"
#include "store/kv.h"
#include "util/buf.h"
#include "util/xmalloc.h"

struct migrate_args {
    bool copy, replace;
    const char *auth_user, *auth_pass; /* AUTH / AUTH2 */
    size_t auth_user_len, auth_pass_len;
    int first_key, num_keys;
    long long timeout_ms, dbid;
};

static bool parse_migrate(struct cmd_ctx *ctx, struct migrate_args *a)
{
    memset(a, 0, sizeof *a);
    a->first_key = 3;
    a->num_keys = 1;
    for (int j = 6; j < ctx->argc; j++) {
        int more = ctx->argc - j - 1;
        if (arg_equals(ctx, j, "copy")) {
            a->copy = true;
        } else if (arg_equals(ctx, j, "replace")) {
            a->replace = true;
        } else if (arg_equals(ctx, j, "auth") && more >= 1) {
            a->auth_pass = ctx->argv[++j];
            a->auth_pass_len = ctx->argv_len[j];
        } else if (arg_equals(ctx, j, "auth2") && more >= 2) {
            a->auth_user = ctx->argv[++j];
            a->auth_user_len = ctx->argv_len[j];
            a->auth_pass = ctx->argv[++j];
            a->auth_pass_len = ctx->argv_len[j];
        } else if (arg_equals(ctx, j, "keys")) {
            if (ctx->argv_len[3] != 0) {
                reply_error(ctx->reply, "ERR When using MIGRATE KEYS option, the key argument "
                                        "must be set to the empty string");
                return false;
            }
            a->first_key = j + 1;
            a->num_keys = ctx->argc - j - 1;
            break;
        } else {
            reply_error_syntax(ctx->reply);
            return false;
        }
    }
    if (!arg_to_ll(ctx, 5, &a->timeout_ms) || !arg_to_ll(ctx, 4, &a->dbid)) return false;
    if (a->timeout_ms <= 0) a->timeout_ms = 1000;
    return true;
}

/* Appends one command to the pipeline. */
static void append_argv(redisContext *rc, int argc, const char **argv, const size_t *len)
{
    redisAppendCommandArgv(rc, argc, argv, len);
}

/* Reads one reply; NULL (and *io set) on a connection error or timeout. */
static redisReply *read_reply(redisContext *rc, bool *io)
{
    void *reply = NULL;
    if (redisGetReply(rc, &reply) != REDIS_OK) {
        *io = true;
        return NULL;
    }
    return reply;
}

static void cmd_migrate(struct cmd_ctx *ctx)
{
    struct migrate_args a;
    if (!parse_migrate(ctx, &a)) return;
    int n = 0;
    struct kv **kvs = xmalloc(sizeof *kvs * (size_t)(a.num_keys ? a.num_keys : 1));
    int *which = xmalloc(sizeof *which * (size_t)(a.num_keys ? a.num_keys : 1));
    for (int i = 0; i < a.num_keys; i++) {
        int k = a.first_key + i;
        struct kv *kv = db_lookup_read(ctx->db, ctx->argv[k], ctx->argv_len[k]);
        if (!kv) continue;
        kvs[n] = kv;
        which[n++] = k;
    }
    if (n == 0) {
        reply_status(ctx->reply, "NOKEY");
        goto out;
    }
    char host[256];
    snprintf(host, sizeof host, "%.*s", (int)ctx->argv_len[1], ctx->argv[1]);
    long long port;
    if (!arg_to_ll(ctx, 2, &port)) goto out;
    struct timeval tv = {.tv_sec = a.timeout_ms / 1000, .tv_usec = (a.timeout_ms % 1000) * 1000};
    redisContext *rc = redisConnectWithTimeout(host, (int)port, tv);
    if (!rc || rc->err) {
        if (rc) redisFree(rc);
        reply_error(ctx->reply, "IOERR error or timeout connecting to the client");
        goto out;
    }
    redisSetTimeout(rc, tv);

    int expected = 0;
    if (a.auth_pass) {
        const char *argv[3] = {"AUTH", a.auth_user, a.auth_pass};
        size_t len[3] = {4, a.auth_user_len, a.auth_pass_len};
        if (a.auth_user)
            append_argv(rc, 3, argv, len);
        else {
            argv[1] = a.auth_pass;
            len[1] = a.auth_pass_len;
            append_argv(rc, 2, argv, len);
        }
        expected++;
    }
    char dbtext[32];
    int dblen = snprintf(dbtext, sizeof dbtext, "%lld", a.dbid);
    {
        const char *argv[2] = {"SELECT", dbtext};
        size_t len[2] = {6, (size_t)dblen};
        append_argv(rc, 2, argv, len);
        expected++;
    }
    const char *restore = cluster_enabled ? "RESTORE-ASKING" : "RESTORE";
    struct buf payload;
    buf_init(&payload, 256);
    for (int i = 0; i < n; i++) {
        struct kv *kv = kvs[i];
        long long ttl = 0;
        if (kv->expire_ms) {
            ttl = kv->expire_ms - keyspace_now_ms();
            if (ttl < 1) ttl = 1;
        }
        char ttltext[32];
        int ttllen = snprintf(ttltext, sizeof ttltext, "%lld", ttl);
        buf_reset(&payload, 256);
        rdb_dump_payload(kv, config.rdbcompression, &payload);
        const char *argv[5] = {restore, ctx->argv[which[i]], ttltext, buf_head(&payload),
                               "REPLACE"};
        size_t len[5] = {strlen(restore), ctx->argv_len[which[i]], (size_t)ttllen,
                         buf_len(&payload), 7};
        append_argv(rc, a.replace ? 5 : 4, argv, len);
    }
    buf_free(&payload);

    bool io = false;
    char *error = NULL;
    for (int i = 0; i < expected && !io; i++) {
        redisReply *r = read_reply(rc, &io);
        if (r && r->type == REDIS_REPLY_ERROR && !error) error = xstrdup(r->str);
        if (r) freeReplyObject(r);
    }
    int deleted = 0;
    for (int i = 0; i < n && !io; i++) {
        redisReply *r = read_reply(rc, &io);
        if (!r) break;
        if (r->type == REDIS_REPLY_ERROR) {
            if (!error) error = xstrdup(r->str);
        } else if (!a.copy && !error) {
            /* Moved: gone from here (the key is looked up again, since
             * nothing ran in between but the reads above). */
            db_delete(ctx->db, ctx->argv[which[i]], ctx->argv_len[which[i]]);
            deleted++;
        }
        freeReplyObject(r);
    }
    redisFree(rc);
    if (deleted) keyspace.stats.dirty += deleted;
    if (error) {
        reply_error_fmt(ctx->reply, "ERR Target instance replied with error: %s", error);
        xfree(error);
    } else if (io) {
        reply_error(ctx->reply, "IOERR error or timeout reading to target instance");
    } else {
        reply_ok(ctx->reply);
    }
out:
    xfree(kvs);
    xfree(which);
}

struct command migrate_commands[] = {
    {.name = "migrate",
     .arity = -6,
     .flags = CMD_WRITE,
     .fn = cmd_migrate,
     .summary = "Atomically transfer a key from a Redis instance to another one.",
     .since = "2.6.0",
     .group = "generic",
     .complexity = "This command actually executes a DUMP+DEL in the source instance, and a "
                   "RESTORE in the target instance. See the pages of these commands for time "
                   "complexity. Also an O(N) data transfer between the two instances is "
                   "performed."},
    COMMAND_END,
};
