/* command.c — command index, dispatch and argument helpers; see command.h. */
#include "commands/command.h"
#include "scripting/script_lua.h"

#include "cluster/cluster.h"
#include "persist/persist.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/command_hooks.h"
#include "commands/multi.h"
#include "commands/propagate.h"
#include "commands/replay.h"
#include "persist/aof.h"
#include "commands/slowlog.h"
#include "commands/monitor.h"
#include "core/latency.h"
#include "core/latency_tracking.h"
#include "connection/session.h"
#include "core/config.h"
#include "store/evict.h"
#include "util/clock.h"
#include "util/cycles.h"
#include "util/numparse.h"
#include "util/stats.h"
#include "util/xmalloc.h"

/* Longest command name we index; longer names cannot be commands. */
#define COMMAND_NAME_MAX 32

/* Every family's table; a new family adds one line here. */
static struct command *const families[] = {
    connection_commands,    server_commands,  string_commands,  key_commands,     info_commands,
    introspection_commands, pubsub_commands,  hash_commands,    zset_commands,    object_commands,
    set_commands,           bitmap_commands,  sort_commands,    persist_commands, list_commands,
    multi_commands,         cluster_commands, migrate_commands, hll_commands,     script_commands,
    function_commands,      slowlog_commands, monitor_commands, latency_commands, geo_commands,
    lolwut_commands,        module_commands,  memory_commands,  stream_commands,  acl_commands,
};
#define FAMILIES (sizeof families / sizeof families[0])

/* Families of layers above (command_add_family), before command_table_init. */
#define ADDED_FAMILIES_MAX 4
static struct command *added_families[ADDED_FAMILIES_MAX];
static size_t added_family_count;
static bool table_built;

void command_add_family(struct command *table)
{
    if (table_built || added_family_count == ADDED_FAMILIES_MAX) abort(); /* a wiring error */
    added_families[added_family_count++] = table;
}

/* The i-th family, built-in ones first (i < FAMILIES + added_family_count). */
static struct command *family(size_t i)
{
    return i < FAMILIES ? families[i] : added_families[i - FAMILIES];
}

/* Open-addressing index of top-level commands by name, the hash folding
 * case. Each slot holds the name's word (name_word()) and which of its
 * bits must match exactly beside the command, so a probe settles a name
 * of up to 8 bytes (nearly every command) without touching the command
 * but for its length. */
struct index_slot {
    uint64_t word;       /* name_word() of the lowercase name; the hash for longer names */
    uint64_t exact_bits; /* all but bit 5 of each letter (all for longer names) */
    struct command *cmd;
};
static struct index_slot *index_slots;
static size_t index_mask;
static size_t total_commands;

#define CASE_FOLD 0x2020202020202020ULL

/* A name of 1 to 8 bytes as a zero-padded little-endian word, read with
 * two overlapping loads. Two names of equal length are equal ignoring
 * case when their words differ only in the case bits of the letters. */
static inline uint64_t name_word(const char *s, size_t len)
{
    if (len >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + len - 4, 4);
        return lo | (uint64_t)hi << ((len - 4) * 8);
    }
    return (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[len / 2] << (len / 2 * 8) |
           (uint64_t)(uint8_t)s[len - 1] << ((len - 1) * 8);
}

/* Longer names: FNV-1a over bytes with bit 5 set, so "GEOADD", "geoadd"
 * and "GeoAdd" hash alike without a lowercase copy; other bytes folded
 * together only collide, and every hit is confirmed by a case-insensitive
 * compare. Names are short and trusted by the table, so a keyed hash buys
 * nothing here. */
static uint64_t name_hash_long(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ len;
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)(s[i] | 0x20)) * 0x100000001b3ULL;
    return h;
}

/* The slot to probe first for a name's word (or long hash), its case bits set. */
static inline size_t fold_slot(uint64_t folded, size_t len)
{
    uint64_t h = (folded ^ len) * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h >> 32) & index_mask;
}

/* Compares input bytes against a lowercase table name, ignoring the input's case. */
static inline bool name_equals(const char *table_name, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((unsigned)(c - 'A') < 26u) c |= 0x20;
        if (c != (unsigned char)table_name[i]) return false;
    }
    return true;
}

/* The typed ops' commands (typed_call.h): the jump table, resolved by
 * name once in command_table_init(); and the typed cores of those whose
 * arguments include numbers (the others run their handler over the byte
 * slots). */
static const char *const typed_names[TYPED_OP_COUNT] = {
    [TYPED_PING] = "ping",
    [TYPED_GET] = "get",
    [TYPED_SET] = "set",
    [TYPED_DEL] = "del",
    [TYPED_INCR] = "incr",
    [TYPED_INCRBY] = "incrby",
    [TYPED_HSET] = "hset",
    [TYPED_HGET] = "hget",
    [TYPED_ZADD] = "zadd",
    [TYPED_ZSCORE] = "zscore",
    [TYPED_PUBLISH] = "publish",
    [TYPED_SUBSCRIBE] = "subscribe",
    [TYPED_UNSUBSCRIBE] = "unsubscribe",
    [TYPED_PSUBSCRIBE] = "psubscribe",
    [TYPED_PUNSUBSCRIBE] = "punsubscribe",
};
typedef void typed_core_fn(struct cmd_ctx *ctx, const struct typed_call *t);
static typed_core_fn *const typed_cores[TYPED_OP_COUNT] = {
    [TYPED_SET] = string_set_typed,
    [TYPED_INCRBY] = string_incrby_typed,
    [TYPED_ZADD] = zset_zadd_typed,
};
static struct command *typed_commands[TYPED_OP_COUNT];

static void typed_table_init(void)
{
    for (int op = 0; op < TYPED_OP_COUNT; op++) {
        typed_commands[op] = command_lookup(typed_names[op], strlen(typed_names[op]));
        if (!typed_commands[op]) abort(); /* a typed op names a command that exists */
    }
}

static void index_insert(struct command *cmd)
{
    size_t len = strlen(cmd->name);
    struct index_slot e = {.exact_bits = ~0ULL, .cmd = cmd};
    if (len > 8) {
        e.word = name_hash_long(cmd->name, len);
    } else {
        e.word = name_word(cmd->name, len);
        for (size_t i = 0; i < len; i++)
            if (islower((unsigned char)cmd->name[i])) e.exact_bits &= ~(0x20ULL << (i * 8));
    }
    size_t slot = fold_slot(e.word | CASE_FOLD, len);
    while (index_slots[slot].cmd) slot = (slot + 1) & index_mask;
    index_slots[slot] = e;
}

static void init_names(struct command *cmd, const struct command *parent)
{
    cmd->parent = parent;
    cmd->name_len = strlen(cmd->name);
    if (parent)
        snprintf(cmd->full_name, sizeof cmd->full_name, "%s|%s", parent->name, cmd->name);
    else
        snprintf(cmd->full_name, sizeof cmd->full_name, "%s", cmd->name);
    command_keys_init(cmd);
    if (cmd->subcommands)
        for (struct command *sub = (struct command *)cmd->subcommands; sub->name; sub++)
            init_names(sub, cmd);
}

void command_table_init(void)
{
    size_t n = 0;
    table_built = true;
    for (size_t f = 0; f < FAMILIES + added_family_count; f++)
        for (struct command *c = family(f); c->name; c++) n++;
    total_commands = n;
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    index_slots = xcalloc(cap, sizeof *index_slots);
    index_mask = cap - 1;
    for (size_t f = 0; f < FAMILIES + added_family_count; f++) {
        for (struct command *c = family(f); c->name; c++) {
            init_names(c, NULL);
            index_insert(c);
        }
    }
    slowlog_apply_config(); /* the cycle counter is calibrated by now */
    latency_set_threshold(config.latency_monitor_threshold);
    latency_tracking_calibrate();
    typed_table_init();
    function_register_persistence();
    /* The transaction state is the first slot: a constant for dispatch. */
    if (session_ext_register(multi_state_destroy) != MULTI_EXT_SLOT) abort();
    acl_commands_init();                 /* ids for the ACL's command bitmaps, its per-conn slot */
    propagate_init();                    /* the stream's consumers (the AOF) start and stop it */
    replay_init();                       /* the AOF replays through command_call */
    conn_set_dispatch(command_dispatch); /* the connection layer's one entry (request.h) */
}

/* Names longer than 8 bytes (and the empty name): apart from the short
 * names' lookup, which is kept free of the compare loop and its registers. */
static __attribute__((noinline)) struct command *command_lookup_long(const char *name, size_t len)
{
    if (len == 0 || len > COMMAND_NAME_MAX) return NULL;
    uint64_t hash = name_hash_long(name, len);
    for (size_t slot = fold_slot(hash | CASE_FOLD, len);; slot = (slot + 1) & index_mask) {
        const struct index_slot *e = &index_slots[slot];
        struct command *c = e->cmd;
        if (!c) return NULL;
        if (e->word == hash && c->name_len == len && name_equals(c->name, name, len)) return c;
    }
}

struct command *command_lookup(const char *name, size_t len)
{
    if (len - 1 >= 8) return command_lookup_long(name, len);
    uint64_t word = name_word(name, len);
    for (size_t slot = fold_slot(word | CASE_FOLD, len);; slot = (slot + 1) & index_mask) {
        const struct index_slot *e = &index_slots[slot];
        struct command *c = e->cmd;
        if (!c) return NULL;
        if (((word ^ e->word) & e->exact_bits) == 0 && c->name_len == len) return c;
    }
}

struct command *command_lookup_sub(const struct command *parent, const char *name, size_t len)
{
    if (!parent->subcommands) return NULL;
    for (struct command *sub = (struct command *)parent->subcommands; sub->name; sub++)
        if (sub->name_len == len && name_equals(sub->name, name, len)) return sub;
    return NULL;
}

struct command *command_lookup_full(const char *name, size_t len)
{
    const char *bar = memchr(name, '|', len);
    if (!bar) return command_lookup(name, len);
    struct command *parent = command_lookup(name, (size_t)(bar - name));
    if (!parent) return NULL;
    return command_lookup_sub(parent, bar + 1, len - (size_t)(bar - name) - 1);
}

void command_foreach(void (*fn)(struct command *cmd, void *arg), void *arg)
{
    for (size_t f = 0; f < FAMILIES + added_family_count; f++)
        for (struct command *c = family(f); c->name; c++) fn(c, arg);
}

size_t command_count(void)
{
    return total_commands;
}

/* reply_error_count when a command's stats last took its errors. */
static long long errors_settled;

void command_settle_errors(void)
{
    errors_settled = reply_error_count;
}

const char command_noreplicas_error[] = "NOREPLICAS Not enough good replicas to write.";
const char command_misconf_error[] =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB "
    "error.";

static bool arity_ok(const struct command *cmd, int argc)
{
    return cmd->arity >= 0 ? argc == cmd->arity : argc >= -cmd->arity;
}

/* Redis's "unknown command" text: the name and up to 128 bytes of arguments. */
static void reply_unknown_command(struct reply *r, int argc, const char **argv,
                                  const size_t *argv_len)
{
    char args[256] = "";
    size_t used = 0;
    for (int i = 1; i < argc && used < 128; i++) {
        int room = 128 - (int)used;
        int n = snprintf(args + used, sizeof args - used, "'%.*s' ",
                         (int)(argv_len[i] < (size_t)room ? argv_len[i] : (size_t)room), argv[i]);
        if (n < 0) break;
        used += (size_t)n;
        if (used >= sizeof args) used = sizeof args - 1;
    }
    reply_error_fmt(r, "ERR unknown command '%.*s', with args beginning with: %s",
                    (int)(argv_len[0] < 128 ? argv_len[0] : 128), argv[0], args);
}

bool command_protected_action_allowed(const char *setting, const struct conn *conn)
{
    if (strcmp(setting, "yes") == 0) return true;
    return strcmp(setting, "local") == 0 && conn && session_is_local(conn);
}

void command_block_on_keys(struct cmd_ctx *ctx, enum obj_type type, int first, int n,
                           int64_t deadline_ms, bool nil_bulk)
{
    if (ctx->deny_blocking) {
        if (nil_bulk)
            reply_nil(ctx->reply);
        else
            reply_nil_array(ctx->reply);
        return;
    }
    session_block_on_keys(ctx->conn, type, ctx->argc, ctx->argv, ctx->argv_len, first, n,
                          deadline_ms);
}

/* CLIENT TRACKING: hands the keys a read-only command read to the
 * connection layer's table. */
static void command_track_keys(const struct cmd_ctx *ctx)
{
    int stack[16];
    int *pos = ctx->argc <= 16 ? stack : xmalloc((size_t)ctx->argc * sizeof *pos);
    int n = command_key_positions(ctx->cmd, ctx->argc, ctx->argv, ctx->argv_len, pos, ctx->argc);
    session_tracking_remember(ctx->conn, ctx->argv, ctx->argv_len, pos, n);
    if (pos != stack) xfree(pos);
}

/* After a command ran, while a hooked feature is on (command_hooks.h). */
static void command_run_hooks(struct cmd_ctx *ctx)
{
    const struct command *cmd = ctx->cmd;
    monitor_consider(ctx);
    /* CLIENT TRACKING: the keys a read-only command read; inside a script,
     * a read remembers the script's declared keys (Redis 7.0 remembers the
     * caller's command's keys), and EVAL_RO/FCALL_RO themselves nothing. */
    if (session_tracking_clients && (cmd->flags & CMD_READONLY) && !(cmd->flags & CMD_PUBSUB) &&
        !cmd->subcommands && strncmp(cmd->full_name, "eval", 4) != 0 &&
        strcmp(cmd->full_name, "fcall_ro") != 0 && session_tracking_reads(ctx->conn))
        command_track_keys(ctx->script_caller ? ctx->script_caller : ctx);
}

/* Runs a command that passed every check, with its accounting (INFO commandstats, SLOWLOG, MONITOR,
 * the append-only file): `typed` calls its typed core when it has one, else its handler. Inlined
 * into its two callers: it runs once per request, and its call frame (saving and restoring six
 * registers) cost about 17 instructions of a pipelined request's ~900
 * (bench/instructions_per_request.sh). */
static inline __attribute__((always_inline)) void command_run(struct cmd_ctx *ctx,
                                                              const struct typed_call *typed)
{
    struct command *cmd = (struct command *)ctx->cmd;
    long long errors_before = reply_error_count, uncounted_before = reply_uncounted_errors;
    struct propagate_frame frame;
    frame.active = false;
    if (propagate_on) propagate_begin(&frame, ctx);
    uint64_t start = cycles_now();
    typed_core_fn *core = typed ? typed_cores[typed->op] : NULL;
    if (core)
        core(ctx, typed);
    else
        cmd->fn(ctx);
    uint64_t elapsed = cycles_now() - start;
    /* The append-only file's replay (no conn) runs uncounted, as Redis's
     * loader calls cmd->proc directly: no commandstats, no
     * total_commands_processed, no SLOWLOG or latency. */
    if (ctx->conn) {
        cmd->cycles += elapsed;
        slowlog_consider(ctx, typed, elapsed);
        latency_consider_command(cmd->flags & CMD_FAST, elapsed);
        latency_track_command(&cmd->latency_histogram, elapsed);
        /* The word as the command left it (it may have started MONITOR or
         * tracking). */
        if (__builtin_expect(command_hooks != 0, 0)) command_run_hooks(ctx);
        cmd->calls += !ctx->rerun;
        /* Failed: an error since the command began, or since a command
         * it ran settled its own (Redis's incrCommandStatsOnError): a
         * script's caught error or an EXEC's failed command is not the
         * caller's failure. */
        long long baseline = errors_settled > errors_before ? errors_settled : errors_before;
        if (reply_error_count != baseline || reply_uncounted_errors != uncounted_before)
            cmd->failed_calls++;
        errors_settled = reply_error_count;
        stats.commands_processed++;
    }
    if (frame.active) propagate_end(&frame, ctx);
}

/* A command run from inside another (EXEC, a script) keeps the key space's
 * clock of the command that runs it: a transaction or a script sees one
 * instant, as Redis 7.0 (keys do not expire half-way); the AOF replay
 * starts the clock itself. */
void command_call(struct cmd_ctx *ctx)
{
    command_run(ctx, NULL);
}

/* RESP2's subscribed context: only the Pub/Sub commands, PING, QUIT and
 * RESET (Redis's check, after the writes' and before a busy script's). */
static bool refused_in_subscribed(const struct cmd_request *req, const struct command *cmd)
{
    if (!req->resp2_subscribed || (cmd->flags & CMD_PUBSUB_OK)) return false;
    reply_error_fmt(req->reply,
                    "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                    "QUIT / RESET are allowed in this context",
                    cmd->full_name);
    return true;
}

static void or_queued_flags(const struct command *cmd, int argc, const char **argv,
                            const size_t *argv_len, void *arg)
{
    (void)argc, (void)argv, (void)argv_len;
    *(uint32_t *)arg |= cmd->flags;
}

/* What Redis's processCommand() refuses past maxmemory when nothing more
 * can be evicted: a command that may grow the data set, EXEC of a
 * transaction holding one, and inside MULTI anything but EXEC, DISCARD,
 * QUIT and RESET (queuing itself takes memory). */
static bool refused_on_oom(const struct cmd_request *req, const struct command *cmd)
{
    if (cmd->flags & CMD_DENYOOM) return true;
    struct multi_state *multi = multi_of_request(req);
    if (!multi || !multi_is_queuing(multi)) return false;
    const char *name = cmd->full_name;
    if (strcmp(name, "exec") == 0) {
        uint32_t flags = 0;
        multi_foreach_queued(multi, or_queued_flags, &flags);
        return flags & CMD_DENYOOM;
    }
    return strcmp(name, "discard") != 0 && strcmp(name, "quit") != 0 && strcmp(name, "reset") != 0;
}

/* The transaction EXEC would run, NULL when cmd is not EXEC or there is none. */
static const struct multi_state *exec_transaction(const struct cmd_request *req,
                                                  const struct command *cmd)
{
    const struct multi_state *m = multi_of_request(req);
    return m && multi_is_queuing(m) && strcmp(cmd->full_name, "exec") == 0 ? m : NULL;
}

/* Redis's is_write_command: a write, or EXEC of a transaction holding one. */
static bool command_writes(const struct cmd_request *req, const struct command *cmd)
{
    if (cmd->flags & CMD_WRITE) return true;
    const struct multi_state *m = exec_transaction(req, cmd);
    if (!m) return false;
    uint32_t flags = 0;
    multi_foreach_queued(m, or_queued_flags, &flags);
    return flags & CMD_WRITE;
}

/* Redis's !is_denystale_command: the stale flag, on EXEC on every queued command. */
static void and_queued_flags(const struct command *cmd, int argc, const char **argv,
                             const size_t *argv_len, void *arg)
{
    (void)argc, (void)argv, (void)argv_len;
    *(uint32_t *)arg &= cmd->flags;
}

/* The flag on cmd and, for EXEC, on every queued command (Redis's
 * cmd_inv_flags: !is_denystale_command, !is_denyloading_command). */
/* The flag on cmd or, for EXEC, on any queued command (Redis's
 * cmd_flags: is_deny_async_loading_command). */
static bool command_flag_on_any(const struct cmd_request *req, const struct command *cmd,
                                uint32_t flag)
{
    if (cmd->flags & flag) return true;
    const struct multi_state *m = exec_transaction(req, cmd);
    if (!m) return false;
    uint32_t flags = 0;
    multi_foreach_queued(m, or_queued_flags, &flags);
    return flags & flag;
}

static bool command_flag_on_all(const struct cmd_request *req, const struct command *cmd,
                                uint32_t flag)
{
    if (!(cmd->flags & flag)) return false;
    const struct multi_state *m = exec_transaction(req, cmd);
    if (!m) return true;
    uint32_t flags = flag;
    multi_foreach_queued(m, and_queued_flags, &flags);
    return flags & flag;
}

static const struct command_role_checks *role_checks;

void command_set_role_checks(const struct command_role_checks *checks)
{
    role_checks = checks;
}

const char *command_readonly_refusal(const struct conn *c)
{
    return (command_hooks & HOOK_REPLICA) ? role_checks->readonly_refusal(c) : NULL;
}

bool command_too_few_replicas(void)
{
    return (command_hooks & HOOK_MIN_REPLICAS) && role_checks->too_few_replicas();
}

/* Refuses cmd with `why`, counted; EXEC's refusal also discards its
 * transaction (EXECABORT, as Redis's rejectCommand()). */
static void reject_with_abort(const struct cmd_request *req, struct command *cmd, const char *why)
{
    cmd->rejected_calls++;
    if (strcmp(cmd->full_name, "exec") == 0)
        multi_exec_rejected(multi_of_request(req), req->reply, why);
    else
        reply_error(req->reply, why);
}

/* command_check()'s checks after authentication while a hooked feature is
 * on (command_hooks.h), each under its own condition, in Redis's order. */
static command_admission_fn *admission;

void command_set_admission(command_admission_fn *admit)
{
    admission = admit;
    command_hook_set(HOOK_ADMISSION, admit != NULL);
}

bool command_admitted(const struct cmd_request *req, const struct command *cmd)
{
    return !admission || admission(req, cmd);
}

static __attribute__((noinline)) struct command *command_check_hooked(const struct cmd_request *req,
                                                                      struct command *cmd)
{
    struct reply *r = req->reply;
    /* Admission (the ACL check): right after authentication, Redis's order. */
    if (admission && !admission(req, cmd)) {
        cmd->rejected_calls++;
        return NULL;
    }
    /* Cluster redirection: after authentication, before maxmemory (Redis's
     * order). */
    if (cluster_enabled && !cluster_request_allowed(req, cmd)) {
        cmd->rejected_calls++;
        return NULL;
    }
    /* maxmemory, as Redis's processCommand(): past the limit, evict by the
     * policy before any command runs (store/evict.h); when nothing more can
     * be evicted (noeviction, or no key the policy may take), what may grow
     * the data set is refused; reads and deletes run. Used memory is every
     * allocation, connection buffers included, as Redis counts it (it
     * excludes only replica and AOF buffers, which goblin-core has not). */
    if (config.maxmemory) {
        /* An evicted key's invalidation precedes the reply (Redis 7.0). */
        if (session_tracking_clients) session_tracking_pre_command(true);
        enum evict_result evicted = evict_perform((size_t)config.maxmemory);
        if (session_tracking_clients) session_tracking_pre_command(false);
        if (evicted == EVICT_FAIL && refused_on_oom(req, cmd)) {
            reject_with_abort(req, cmd, "OOM command not allowed when used memory > 'maxmemory'.");
            return NULL;
        }
    }
    /* Redis's check order: after maxmemory, before the subscribed context. */
    if (cmd->flags & (CMD_WRITE | CMD_MISCONF_REFUSED)) {
        const char *aof_error;
        if (persist_writes_refused()) {
            reply_error(r, command_misconf_error);
            cmd->rejected_calls++;
            return NULL;
        }
        if ((aof_error = aof_write_error())) {
            reply_error(r, aof_error);
            cmd->rejected_calls++;
            return NULL;
        }
    }
    /* The role checks (command_set_role_checks), Redis's order:
     * NOREPLICAS after MISCONF, then READONLY, both for writes (EXEC of a
     * transaction holding one too); MASTERDOWN after the subscribed
     * context. */
    const char *why;
    if ((command_hooks & (HOOK_MIN_REPLICAS | HOOK_REPLICA)) && command_writes(req, cmd)) {
        if (command_too_few_replicas()) {
            reject_with_abort(req, cmd, command_noreplicas_error);
            return NULL;
        }
        if ((why = command_readonly_refusal(req->conn))) {
            reject_with_abort(req, cmd, why);
            return NULL;
        }
    }
    if (refused_in_subscribed(req, cmd)) return NULL;
    if ((command_hooks & HOOK_REPLICA) && !command_flag_on_all(req, cmd, CMD_STALE) &&
        (why = role_checks->stale_refusal(req->conn))) {
        reject_with_abort(req, cmd, why);
        return NULL;
    }
    /* A load serving clients (persist_loading): only the loading commands. */
    if ((command_hooks & HOOK_LOADING) && !command_flag_on_all(req, cmd, CMD_LOADING)) {
        reject_with_abort(req, cmd, "LOADING Redis is loading the dataset in memory");
        return NULL;
    }
    /* A load beside the live data set (persist_loading_async): all but the
     * no_async_loading commands. */
    if ((command_hooks & HOOK_ASYNC_LOADING) &&
        command_flag_on_any(req, cmd, CMD_NO_ASYNC_LOADING)) {
        reject_with_abort(req, cmd, "LOADING Redis is loading the dataset in memory");
        return NULL;
    }
    /* A busy script serves the others from its hook: only the allow-busy
     * commands run (Redis's check, after the subscribed context). */
    if (script_busy_reply && !(cmd->flags & CMD_ALLOW_BUSY)) {
        reject_with_abort(req, cmd, script_busy_reply);
        return NULL;
    }
    return cmd;
}

/* Redis's protected commands: DEBUG under enable-debug-command, MODULE
 * LOAD/LOADEX/UNLOAD under enable-module-command. False (and the refusal
 * replied, in Redis's words) when conn may not run cmd. */
static bool command_protected_admitted(const struct command *cmd, const struct conn *conn,
                                       struct reply *r)
{
    bool module = strncmp(cmd->full_name, "module", 6) == 0;
    const char *setting = module ? config.enable_module_command : config.enable_debug_command;
    if (command_protected_action_allowed(setting, conn)) return true;
    char msg[320];
    snprintf(msg, sizeof msg,
             "ERR %s command not allowed. If the %s option is set to \"local\", you can run it "
             "from a local connection, otherwise you need to set this option in the "
             "configuration file, and then restart the server.",
             module ? "MODULE" : "DEBUG",
             module ? "enable-module-command" : "enable-debug-command");
    reply_error(r, msg);
    return false;
}

/* Looks up (a typed call: typed_cmd, from the jump table) and checks a
 * request in Redis's order; answers the error and returns NULL when it is
 * refused. Text and typed requests share every check after the lookup. */
static struct command *command_check(const struct cmd_request *req, struct command *typed_cmd)
{
    struct conn *conn = req->conn;
    struct reply *r = req->reply;
    int argc = req->argc;
    const char **argv = req->argv;
    const size_t *argv_len = req->argv_len;
    struct command *cmd = typed_cmd;
    if (cmd) goto admit;
    cmd = command_lookup(argv[0], argv_len[0]);
    if (!cmd) {
        reply_unknown_command(r, argc, argv, argv_len);
        return NULL;
    }
    if (cmd->subcommands && argc >= 2) {
        struct command *sub = command_lookup_sub(cmd, argv[1], argv_len[1]);
        if (!sub) {
            /* Redis names the container as typed, upper-cased. */
            char upper[COMMAND_NAME_MAX + 1];
            for (size_t i = 0; i < argv_len[0]; i++)
                upper[i] = (char)toupper((unsigned char)argv[0][i]);
            upper[argv_len[0]] = '\0';
            reply_error_fmt(r, "ERR unknown subcommand '%.*s'. Try %s HELP.",
                            (int)(argv_len[1] < 128 ? argv_len[1] : 128), argv[1], upper);
            return NULL;
        }
        cmd = sub;
    }
    /* CLIENT LIST's cmd= (and an ACL LOG entry's client-info) names a
     * command refused from here on, as Redis sets lastcmd at lookup. */
    *req->last_command = cmd->full_name;
    if (!arity_ok(cmd, argc)) {
        cmd->rejected_calls++;
        if (strcmp(cmd->full_name, "exec") == 0) {
            /* Redis's execCommandAbort, in MULTI or not: any transaction ends. */
            multi_exec_rejected(multi_of_request(req), r,
                                "wrong number of arguments for 'exec' command");
            return NULL;
        }
        reply_error_arity(r, cmd->full_name);
        return NULL;
    }
admit:
    *req->last_command = cmd->full_name;
    if ((cmd->flags & CMD_PROTECTED) && !command_protected_admitted(cmd, conn, r)) {
        cmd->rejected_calls++;
        return NULL;
    }
    if (req->auth_required && !(cmd->flags & CMD_NO_AUTH)) {
        reply_error(r, "NOAUTH Authentication required.");
        cmd->rejected_calls++;
        return NULL;
    }
    /* Redis's order: right after authentication, before the ACL check;
     * dispatch then flags the transaction (EXECABORT). */
    if ((cmd->flags & CMD_NO_MULTI) && multi_is_queuing(multi_of_request(req))) {
        reply_error(r, "ERR Command not allowed inside a transaction");
        cmd->rejected_calls++;
        return NULL;
    }
    /* The checks of features that are rarely on (command_hooks.h). */
    if (__builtin_expect(command_hooks != 0, 0)) return command_check_hooked(req, cmd);
    if (refused_in_subscribed(req, cmd)) return NULL;
    return cmd;
}

/* CLIENT PAUSE WRITE holds a write, and a may-replicate command unless it
 * is a script that declared no-writes (Redis's scriptFlagsToCmdFlags). */
static bool held_by_write_pause(const struct command *cmd, const char *const *argv,
                                const size_t *argv_len)
{
    if (!(cmd->flags & (CMD_WRITE | CMD_MAY_REPLICATE))) return false;
    return !(cmd->flags & CMD_MAY_REPLICATE) || script_call_writes(cmd, argv, argv_len);
}

static void or_queued_held(const struct command *cmd, int argc, const char **argv,
                           const size_t *argv_len, void *arg)
{
    (void)argc;
    *(bool *)arg = *(bool *)arg || held_by_write_pause(cmd, argv, argv_len);
}

/* Whether the pause in force holds this request (Redis 7.0's processCommand:
 * ALL holds every command that passed the checks; WRITE holds writes and
 * may-replicate commands, a script unless it declared no-writes, and EXEC
 * of a transaction holding any of them, each queued command judged by its
 * own flags as Redis's queueMultiCommand gathers them: a transaction of
 * no-writes scripts runs at once). */
static bool command_paused(const struct cmd_request *req, const struct command *cmd)
{
    if (session_pause_type == SESSION_PAUSE_ALL) return true;
    if (strcmp(cmd->full_name, "exec") == 0 && multi_is_queuing(multi_of_request(req))) {
        bool held = false;
        multi_foreach_queued(multi_of_request(req), or_queued_held, &held);
        return held;
    }
    return held_by_write_pause(cmd, req->argv, req->argv_len);
}

#ifdef __SANITIZE_ADDRESS__
/* The word's contract (command_hooks.h), checked on every request of the
 * sanitizer build: no hooked feature is on while the word is zero. */
static void command_hooks_verify(void)
{
    if (command_hooks) return;
    if (cluster_enabled || config.maxmemory || persist_writes_refused() || aof_write_error() ||
        propagate_on || script_busy_reply || session_pause_type || session_tracking_clients ||
        conn_monitor_count || admission || (role_checks && role_checks->on()) ||
        persist_loading()) {
        fprintf(stderr, "command_hooks is 0 while a hooked feature is on\n");
        abort();
    }
}
#else
static inline void command_hooks_verify(void) {}
#endif

/* After a dispatched command ran, while a hooked feature is on. */
static void command_dispatch_hooks(const struct cmd_request *req, struct command *cmd)
{
    if (session_tracking_clients && req->conn) /* CLIENT CACHING lasts past CLIENT's own */
        session_tracking_after_command(req->conn,
                                       cmd->parent && strcmp(cmd->parent->name, "client") == 0);
    if (cluster_enabled) cluster_after_command(req, cmd);
}

void command_dispatch(const struct cmd_request *req)
{
    const struct typed_call *typed = req->typed;
    command_hooks_verify();
    /* The jump table: a typed call's op is its command, its template's
     * shape its arity. */
    struct command *cmd = command_check(req, typed ? typed_commands[typed->op] : NULL);
    struct multi_state *multi = multi_of_request(req);
    bool queuing = multi && multi_is_queuing(multi);
    if (!cmd) {
        if (queuing) multi_flag_error(multi); /* EXEC will answer EXECABORT */
        return;
    }
    /* tracking-table-max-keys: after maxmemory, before queuing or pausing
     * (Redis's processCommand, trackingLimitUsedSlots). */
    if (session_tracking_clients) session_tracking_before_command();
    /* CLIENT PAUSE: after every check, before queuing (Redis's order). */
    if (session_pause_type && req->conn && !typed &&
        session_client_type(req->conn) != SESSION_CLIENT_MASTER && command_paused(req, cmd) &&
        session_postpone(req->conn, req->argc, req->argv, req->argv_len)) {
        *req->last_command = cmd->full_name;
        return;
    }
    if (queuing && !(cmd->flags & CMD_NO_QUEUE)) {
        if (typed) {
            /* The wire lowers typed calls to text while queuing
             * (typed_call.h); a typed call here has no text to queue. */
            reply_error(req->reply, "ERR typed call inside MULTI was not lowered");
            multi_flag_error(multi);
            return;
        }
        multi_queue(multi, req->reply, cmd, req->argc, req->argv, req->argv_len);
        return;
    }
    struct cmd_ctx ctx = {
        .conn = req->conn,
        .reply = req->reply,
        .db = keyspace_db(req->db_index),
        .argc = req->argc,
        .argv = req->argv,
        .argv_len = req->argv_len,
        .owned = req->owned,
        .cmd = cmd,
        .rerun = req->rerun,
    };
    *req->last_command = cmd->full_name;
    if (typed) stats.typed_calls++;
    keyspace_begin_command();
    command_run(&ctx, typed);
    if (__builtin_expect(command_hooks != 0, 0)) command_dispatch_hooks(req, cmd);
}

static void reset_stats(struct command *cmd)
{
    cmd->calls = cmd->rejected_calls = cmd->failed_calls = 0;
    cmd->cycles = 0;
    if (cmd->latency_histogram) latency_tracking_release(&cmd->latency_histogram);
    if (cmd->subcommands)
        for (struct command *sub = (struct command *)cmd->subcommands; sub->name; sub++)
            reset_stats(sub);
}

void command_reset_stats(void)
{
    for (size_t f = 0; f < FAMILIES + added_family_count; f++)
        for (struct command *c = family(f); c->name; c++) reset_stats(c);
}

bool command_arg_redacted(const struct cmd_ctx *ctx, int i)
{
    if (strcmp(ctx->cmd->full_name, "auth") == 0) return i >= 1;
    if (strcmp(ctx->cmd->full_name, "acl|setuser") == 0 ||
        strcmp(ctx->cmd->full_name, "acl|getuser") == 0 ||
        strcmp(ctx->cmd->full_name, "acl|deluser") == 0)
        return i >= 2;
    if (strcmp(ctx->cmd->full_name, "config|set") == 0 && i >= 3 && i % 2 == 1) {
        /* Redis 7.0's SENSITIVE_CONFIG parameters: their values. */
        static const char *const sensitive[] = {"masteruser", "masterauth", "requirepass",
                                                "tls-key-file-pass", "tls-client-key-file-pass"};
        for (size_t k = 0; k < sizeof sensitive / sizeof sensitive[0]; k++)
            if (ctx->argv_len[i - 1] == strlen(sensitive[k]) &&
                strncasecmp(ctx->argv[i - 1], sensitive[k], ctx->argv_len[i - 1]) == 0)
                return true;
        return false;
    }
    if (strcmp(ctx->cmd->full_name, "hello") == 0)
        for (int j = 2; j < i; j++)
            if (ctx->argv_len[j] == 4 && strncasecmp(ctx->argv[j], "auth", 4) == 0 && i <= j + 2)
                return true;
    if (strcmp(ctx->cmd->full_name, "migrate") == 0)
        for (int j = 6; j < i; j++) { /* its options, up to KEYS */
            if (ctx->argv_len[j] == 4 && strncasecmp(ctx->argv[j], "keys", 4) == 0) break;
            if (ctx->argv_len[j] == 4 && strncasecmp(ctx->argv[j], "auth", 4) == 0 && i == j + 1)
                return true;
            if (ctx->argv_len[j] == 5 && strncasecmp(ctx->argv[j], "auth2", 5) == 0 && i <= j + 2)
                return true;
        }
    return false;
}

/* Redis's addReplySubcommandSyntaxError: argv[1] as typed (up to its first
 * NUL, 128 bytes at most), the container upper-cased. */
void reply_subcommand_syntax_error(struct cmd_ctx *ctx)
{
    char upper[16];
    size_t n = ctx->argv_len[0] < sizeof upper - 1 ? ctx->argv_len[0] : sizeof upper - 1;
    for (size_t i = 0; i < n; i++) {
        char c = ctx->argv[0][i];
        upper[i] = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
    }
    upper[n] = '\0';
    int arg_len = (int)strnlen(ctx->argv[1], ctx->argv_len[1]);
    reply_error_fmt(ctx->reply,
                    "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try %s HELP.",
                    arg_len < 128 ? arg_len : 128, ctx->argv[1], upper);
}

void reply_help(struct reply *r, const char *const *lines)
{
    long long n = 0;
    while (lines[n]) n++;
    reply_array_len(r, n);
    for (long long i = 0; i < n; i++) reply_status(r, lines[i]);
}

bool arg_equals(const struct cmd_ctx *ctx, int i, const char *word)
{
    size_t n = strlen(word);
    if (ctx->argv_len[i] != n) return false;
    for (size_t k = 0; k < n; k++)
        if (tolower((unsigned char)ctx->argv[i][k]) != word[k]) return false;
    return true;
}

bool arg_to_ll(struct cmd_ctx *ctx, int i, long long *out)
{
    if (num_parse_ll(ctx->argv[i], ctx->argv_len[i], out)) return true;
    reply_error_not_integer(ctx->reply);
    return false;
}

bool arg_to_double(struct cmd_ctx *ctx, int i, double *out)
{
    if (num_parse_double(ctx->argv[i], ctx->argv_len[i], out)) return true;
    reply_error_not_float(ctx->reply);
    return false;
}

static const char *const protected_actions[] = {"no", "yes", "local", NULL};

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param command_params[] = {
    {.name = "enable-debug-command",
     .kind = CFG_ENUM,
     .value = &config.enable_debug_command,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "no|yes|local",
     .help = "allow DEBUG: never, from any client, or only from local ones (loopback, Unix socket, "
             "ring) (default no, as Redis 7)",
     .choices = protected_actions},
    {.name = "enable-protected-configs",
     .kind = CFG_ENUM,
     .value = &config.enable_protected_configs,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "no|yes|local",
     .help = "allow CONFIG SET of the protected parameters (dir, dbfilename): never, from any "
             "client, or only from local ones (default no, as Redis 7)",
     .choices = protected_actions},
    {.name = "enable-module-command",
     .kind = CFG_ENUM,
     .value = &config.enable_module_command,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "no|yes|local",
     .help = "allow MODULE (Redis 7's setting; goblin-core has no MODULE command, so this only "
             "reads back) (default no)",
     .choices = protected_actions},
};

const struct config_table command_config = CONFIG_TABLE(command_params, NULL);
