/* cmd_persist.c — persistence commands: SAVE, BGSAVE, LASTSAVE (DUMP and
 * RESTORE serialize single values; SHUTDOWN and DEBUG RELOAD are in
 * cmd_server.c). The work is in persist/. */
#include "commands/command.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "core/config.h"
#include "store/evict.h"

static void cmd_save(struct cmd_ctx *ctx)
{
    char err[1024];
    if (persist_bgsave_in_progress()) {
        reply_error(ctx->reply, "ERR Background save already in progress");
        return;
    }
    if (persist_save(err, sizeof err))
        reply_ok(ctx->reply);
    else
        reply_error(ctx->reply, "ERR"); /* Redis's shared.err; the log has the reason */
}

static void cmd_bgsave(struct cmd_ctx *ctx)
{
    bool schedule = false;
    if (ctx->argc > 1) {
        if (ctx->argc == 2 && arg_equals(ctx, 1, "schedule")) {
            schedule = true;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    if (aof_rewrite_in_progress() && !persist_bgsave_in_progress()) {
        if (schedule) {
            persist_schedule_bgsave();
            reply_status(ctx->reply, "Background saving scheduled");
        } else {
            reply_error(ctx->reply, "ERR Another child process is active (AOF?): can't BGSAVE "
                                    "right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE "
                                    "whenever possible.");
        }
        return;
    }
    if (persist_bgsave_in_progress()) {
        if (schedule) {
            persist_schedule_bgsave();
            reply_status(ctx->reply, "Background saving scheduled");
        } else {
            reply_error(ctx->reply, "ERR Background save already in progress");
        }
        return;
    }
    if (persist_bgsave() == PERSIST_BGSAVE_STARTED)
        reply_status(ctx->reply, "Background saving started");
    else
        reply_error(ctx->reply, "ERR");
}

static void cmd_bgrewriteaof(struct cmd_ctx *ctx)
{
    enum aof_rewrite_result r =
        ctx->deny_blocking && !aof_rewrite_in_progress() ? AOF_REWRITE_SCHEDULED : aof_bgrewrite();
    if (r == AOF_REWRITE_SCHEDULED && ctx->deny_blocking) aof_schedule_rewrite(); /* in EXEC */
    switch (r) {
    case AOF_REWRITE_STARTED:
        reply_status(ctx->reply, "Background append only file rewriting started");
        break;
    case AOF_REWRITE_SCHEDULED:
        reply_status(ctx->reply, "Background append only file rewriting scheduled");
        break;
    case AOF_REWRITE_IN_PROGRESS:
        reply_error(ctx->reply, "ERR Background append only file rewriting already in progress");
        break;
    case AOF_REWRITE_FAILED:
        reply_error(ctx->reply, "ERR Can't execute an AOF background rewriting. Please check the "
                                "server logs for more information.");
        break;
    }
}

static void cmd_lastsave(struct cmd_ctx *ctx)
{
    reply_int(ctx->reply, persist_lastsave());
}

/* DUMP key: the value in RDB encoding with version and CRC-64 footer. */
static void cmd_dump(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (!kv) {
        reply_nil(ctx->reply);
        return;
    }
    struct buf payload;
    buf_init(&payload, 64);
    rdb_dump_payload(kv, config.rdbcompression, &payload);
    reply_bulk(ctx->reply, buf_head(&payload), buf_len(&payload));
    buf_free(&payload);
}

/* RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f], with
 * Redis's checks in Redis's order. The payload is never trusted: footer
 * first, then every element decoded is checked (rdb_value.h). FREQ sets
 * the LFU counter under an LFU policy, IDLETIME the LRU clock under the
 * others; the other one is accepted and ignored, as Redis does. */
static void cmd_restore(struct cmd_ctx *ctx)
{
    bool replace = false, absttl = false;
    long long idle = -1, freq = -1, ttl;
    for (int j = 4; j < ctx->argc; j++) {
        bool more = j + 1 < ctx->argc;
        if (arg_equals(ctx, j, "replace")) {
            replace = true;
        } else if (arg_equals(ctx, j, "absttl")) {
            absttl = true;
        } else if (arg_equals(ctx, j, "idletime") && more && freq == -1) {
            if (!arg_to_ll(ctx, ++j, &idle)) return;
            if (idle < 0) {
                reply_error(ctx->reply, "ERR Invalid IDLETIME value, must be >= 0");
                return;
            }
        } else if (arg_equals(ctx, j, "freq") && more && idle == -1) {
            if (!arg_to_ll(ctx, ++j, &freq)) return;
            if (freq < 0 || freq > 255) {
                reply_error(ctx->reply, "ERR Invalid FREQ value, must be >= 0 and <= 255");
                return;
            }
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    const char *key = ctx->argv[1];
    size_t key_len = ctx->argv_len[1];
    if (!replace && db_lookup_write(ctx->db, key, key_len)) {
        reply_error(ctx->reply, "BUSYKEY Target key name already exists.");
        return;
    }
    if (!arg_to_ll(ctx, 2, &ttl)) return;
    if (ttl < 0) {
        reply_error(ctx->reply, "ERR Invalid TTL value, must be >= 0");
        return;
    }
    const char *payload = ctx->argv[3];
    size_t len = ctx->argv_len[3];
    if (!rdb_payload_verify(payload, len)) {
        reply_error(ctx->reply, "ERR DUMP payload version or checksum are wrong");
        return;
    }
    struct kv *kv;
    char why[256];
    if (!rdb_payload_decode(payload, len, key, key_len, &kv, why, sizeof why)) {
        reply_error(ctx->reply, "ERR Bad data format");
        return;
    }
    bool deleted = replace && db_delete(ctx->db, key, key_len);
    if (ttl && !absttl) ttl += keyspace_now_ms();
    if (ttl && ttl <= keyspace_now_ms()) {
        kv_free(kv); /* already expired: the key is gone (deleted above if REPLACE) */
        if (deleted) keyspace.stats.dirty++;
        reply_ok(ctx->reply);
        return;
    }
    db_add(ctx->db, kv);
    keyspace.stats.dirty++;
    if (ttl) db_set_expire(ctx->db, kv, ttl);
    evict_restore_stamp(kv, idle, freq);
    cmd_notify(ctx, NOTIFY_GENERIC, "restore", 1);
    reply_ok(ctx->reply);
}

struct command persist_commands[] = {
    {.name = "dump",
     .arity = 2,
     .flags = CMD_READONLY,
     .fn = cmd_dump,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns a serialized representation of the value stored at a key.",
     .since = "2.6.0",
     .group = "generic",
     .complexity = "O(1) to access the key and additional O(N*M) to serialize it, where N is "
                   "the number of Redis objects composing the value and M their average size. "
                   "For small string values the time complexity is thus O(1)+O(1*M) where M "
                   "is small, so simply O(1)."},
    {.name = "restore",
     .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_restore,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Creates a key from the serialized representation of a value.",
     .since = "2.6.0",
     .group = "generic",
     .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the "
                   "serialized value, where N is the number of Redis objects composing the "
                   "value and M their average size. For small string values the time "
                   "complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However "
                   "for sorted set values the complexity is O(N*M*log(N)) because inserting "
                   "values into sorted sets is O(log(N))."},
    {.name = "restore-asking",
     .arity = -4,
     .flags = CMD_WRITE | CMD_DENYOOM | CMD_ASKING,
     .fn = cmd_restore,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "An internal command for migrating keys in a cluster",
     .since = "3.0.0",
     .group = "server",
     .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the "
                   "serialized value, where N is the number of Redis objects composing the "
                   "value and M their average size."},
    {.name = "save",
     .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .fn = cmd_save,
     .summary = "Synchronously saves the database(s) to disk.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(N) where N is the total number of keys in all databases"},
    {.name = "bgrewriteaof",
     .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .fn = cmd_bgrewriteaof,
     .summary = "Asynchronously rewrites the append-only file to disk.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "bgsave",
     .arity = -1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .fn = cmd_bgsave,
     .summary = "Asynchronously saves the database(s) to disk.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(1)"},
    {.name = "lastsave",
     .arity = 1,
     .flags = CMD_LOADING | CMD_STALE | CMD_FAST | CMD_RANDOM,
     .fn = cmd_lastsave,
     .summary = "Returns the Unix timestamp of the last successful save to disk.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(1)"},
    COMMAND_END,
};
