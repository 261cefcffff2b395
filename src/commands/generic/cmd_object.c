/* cmd_object.c — key introspection: OBJECT ENCODING/REFCOUNT/IDLETIME/FREQ/
 * HELP, with Redis 7.0's replies and errors (MEMORY is in cmd_memory.c).
 * These lookups do not refresh the key's LRU clock. */
#include <string.h>

#include "commands/command.h"
#include "commands/server/debug.h"
#include "core/config.h"
#include "store/evict.h"

/* Redis shares the string objects of the integers 0..9999 and reports
 * them with this reference count; no other value is shared. */
#define SHARED_INTEGERS 10000
#define SHARED_REFCOUNT 2147483647LL

/* OBJECT's lookup: counted in keyspace_hits/misses, the LRU clock left alone. */
static struct kv *lookup_or_nil(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_read_notouch(ctx->db, ctx->argv[2], ctx->argv_len[2]);
    if (!kv) reply_nil(ctx->reply);
    return kv;
}

static void cmd_object_encoding(struct cmd_ctx *ctx)
{
    struct kv *kv = lookup_or_nil(ctx);
    if (kv) reply_bulk_cstr(ctx->reply, kv_encoding_name(kv));
}

long long object_refcount(const struct kv *kv)
{
    /* Redis does not share them under maxmemory with an LRU or LFU policy
     * (each key needs its own stamp). */
    bool lru_or_lfu = evict_settings.policy != EVICT_NOEVICTION &&
                      evict_settings.policy != EVICT_VOLATILE_RANDOM &&
                      evict_settings.policy != EVICT_ALLKEYS_RANDOM &&
                      evict_settings.policy != EVICT_VOLATILE_TTL;
    bool shared = kv->type == OBJ_STRING && kv->encoding == ENC_INT && kv->v.integer >= 0 &&
                  kv->v.integer < SHARED_INTEGERS && !(config.maxmemory && lru_or_lfu);
    return shared ? SHARED_REFCOUNT : 1;
}

static void cmd_object_refcount(struct cmd_ctx *ctx)
{
    struct kv *kv = lookup_or_nil(ctx);
    if (kv) reply_int(ctx->reply, object_refcount(kv));
}

static void cmd_object_idletime(struct cmd_ctx *ctx)
{
    struct kv *kv = lookup_or_nil(ctx);
    if (!kv) return;
    if (evict_settings.lfu) {
        reply_error(ctx->reply,
                    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note "
                    "that when switching between policies at runtime LRU and LFU data will take "
                    "some time to adjust.");
        return;
    }
    reply_int(ctx->reply, evict_idle_seconds(kv));
}

static void cmd_object_freq(struct cmd_ctx *ctx)
{
    struct kv *kv = lookup_or_nil(ctx);
    if (!kv) return;
    if (evict_settings.lfu) {
        reply_int(ctx->reply, evict_lfu_decayed_counter(kv));
        return;
    }
    reply_error(ctx->reply,
                "ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                "Please note that when switching between policies at runtime LRU and LFU data "
                "will take some time to adjust.");
}

static void cmd_object_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

static struct command object_subcommands[] = {
    {.name = "encoding",
     .arity = 3,
     .flags = CMD_READONLY,
     .fn = cmd_object_encoding,
     .first_key = 2,
     .last_key = 2,
     .key_step = 1,
     .summary = "Returns the internal encoding of a Redis object.",
     .since = "2.2.3",
     .group = "generic",
     .complexity = "O(1)"},
    {.name = "freq",
     .arity = 3,
     .flags = CMD_READONLY,
     .fn = cmd_object_freq,
     .first_key = 2,
     .last_key = 2,
     .key_step = 1,
     .summary = "Returns the logarithmic access frequency counter of a Redis object.",
     .since = "4.0.0",
     .group = "generic",
     .complexity = "O(1)"},
    {.name = "help",
     .arity = 2,
     .flags = CMD_LOADING | CMD_STALE,
     .fn = cmd_object_help,
     .summary = "Returns helpful text about the different subcommands.",
     .since = "6.2.0",
     .group = "generic",
     .complexity = "O(1)"},
    {.name = "idletime",
     .arity = 3,
     .flags = CMD_READONLY,
     .fn = cmd_object_idletime,
     .first_key = 2,
     .last_key = 2,
     .key_step = 1,
     .summary = "Returns the time since the last access to a Redis object.",
     .since = "2.2.3",
     .group = "generic",
     .complexity = "O(1)"},
    {.name = "refcount",
     .arity = 3,
     .flags = CMD_READONLY,
     .fn = cmd_object_refcount,
     .first_key = 2,
     .last_key = 2,
     .key_step = 1,
     .summary = "Returns the reference count of a value of a key.",
     .since = "2.2.3",
     .group = "generic",
     .complexity = "O(1)"},
    COMMAND_END,
};

struct command object_commands[] = {
    {.name = "object",
     .arity = -2,
     .flags = 0,
     .fn = NULL,
     .subcommands = object_subcommands,
     .summary = "A container for object introspection commands.",
     .since = "2.2.3",
     .group = "generic",
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
