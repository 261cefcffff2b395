/*
 * command.h — the command table and dispatch.
 *
 * A command is a row: name, Redis arity (n = exactly n arguments including
 * the name, -n = at least n), flags, handler, key positions and docs. Each
 * family (strings, keys, server, ...) exports its rows from its own file;
 * command.c gathers them into one case-insensitive index built at startup,
 * so lookup hashes the name once into a stack buffer — no allocation.
 *
 * Dispatch performs Redis's checks in Redis's order (existence, arity,
 * authentication, subscribed-context restrictions) and then calls the
 * handler, which answers only through ctx->reply.
 *
 * Layering: command_table_init() installs command_dispatch() as the
 * connection layer's dispatch entry (connection/request.h); the connection
 * layer calls it with a struct cmd_request it fills from its conn and
 * includes nothing of this layer. Handlers see the conn as an opaque
 * `struct conn *` and act on it only through connection/session.h
 * (request.h and session.h are the connection headers this layer
 * includes).
 */
#ifndef GOBLIN_COMMAND_H
#define GOBLIN_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "connection/request.h"
#include "protocol/typed_call.h"
#include "protocol/reply.h"
#include "store/db.h"
#include "store/notify.h"
#include "util/strbuf.h"

struct conn;         /* opaque here: see connection/session.h */
struct multi_state;  /* commands/multi.h */
struct command_meta; /* commands/command_meta.h */
struct histogram;    /* util/histogram.h */

enum command_flag {
    CMD_WRITE = 1u << 0,
    CMD_READONLY = 1u << 1,
    CMD_FAST = 1u << 2,
    CMD_NO_AUTH = 1u << 3,   /* may run before authentication (AUTH, HELLO) */
    CMD_PUBSUB_OK = 1u << 4, /* allowed in RESP2 subscribed context */
    CMD_ADMIN = 1u << 5,
    CMD_PUBSUB = 1u << 6,
    CMD_LOADING = 1u << 7,
    CMD_STALE = 1u << 8,
    CMD_NOSCRIPT = 1u << 9,
    CMD_DENYOOM = 1u << 10,
    CMD_RANDOM = 1u << 11,    /* reply is nondeterministic (differential tests skip) */
    CMD_PROTECTED = 1u << 12, /* DEBUG, MODULE LOAD/LOADEX/UNLOAD: see enable-*-command */
    CMD_NO_QUEUE = 1u << 13,  /* runs at once inside MULTI (EXEC, DISCARD, WATCH...) */
    CMD_ASKING = 1u << 20, /* cluster: may use an importing slot without ASKING (RESTORE-ASKING) */
    CMD_SKIP_SLOWLOG = 1u << 14, /* never in SLOWLOG (EXEC: its commands are, one by one) */
    /* Refused like a write while snapshots or the AOF fail (MISCONF), though
     * it writes nothing: PING, as Redis (a health check must see it). */
    CMD_MISCONF_REFUSED = 1u << 15,
    CMD_ALLOW_BUSY = 1u << 16, /* runs while a script is busy (scripting/script_lua.h) */
    /* Redis's may-replicate (EVAL, EVALSHA, FCALL, PUBLISH, SPUBLISH, PFCOUNT):
     * not shown by COMMAND; held by CLIENT PAUSE WRITE like a write. */
    CMD_MAY_REPLICATE = 1u << 17,
    /* Redis's no_multi (SAVE, SHUTDOWN, SYNC, PSYNC): refused while a
     * transaction queues. Set at init from the command's Redis 7.0
     * metadata (command_keys_init), never written in a table row. */
    CMD_NO_MULTI = 1u << 18,
    /* Redis's skip_monitor (EVAL, EVALSHA, FCALL and their _RO forms): not
     * fed to MONITOR after it ran; its handler feeds its line first, so the
     * script's own commands follow it (from metadata, as CMD_NO_MULTI). */
    CMD_SKIP_MONITOR = 1u << 19,
    /* Redis's no_async_loading (SAVE, BGSAVE, REPLICAOF, PSYNC, CLUSTER's
     * admin subcommands...): refused with -LOADING while a replica loads
     * its master's RDB beside the live data set (repl-diskless-load
     * swapdb; from metadata, as CMD_NO_MULTI). */
    CMD_NO_ASYNC_LOADING = 1u << 21,
};

struct cmd_ctx {
    struct conn *conn; /* the caller: only through connection/session.h */
    struct reply *reply;
    struct db *db;
    int argc;
    const char **argv;
    const size_t *argv_len;
    /* Arguments that arrived in their own buffer (big bulks): see
     * arg_take_buffer(). NULL or empty for most requests. */
    struct strbuf_set *owned;
    const struct command *cmd;
    /* Inside EXEC (later: a script): a blocking command must not block but
     * act as its non-blocking form (BLPOP answers nil at once). */
    bool deny_blocking;
    bool rerun; /* cmd_request.rerun: not counted in calls again */
    /* A script's redis.call (Redis's CLIENT_SCRIPT): the EVAL or FCALL that
     * runs it, NULL otherwise. SORT of a set then sorts; MONITOR shows the
     * command from "lua"; CLIENT TRACKING remembers the script's declared
     * keys when it reads (Redis's trackingRememberKeys of the caller). */
    const struct cmd_ctx *script_caller;
};

typedef void command_fn(struct cmd_ctx *ctx);

struct command {
    const char *name; /* lowercase; "config|get" style full name is built for subcommands */
    int arity;
    uint32_t flags;
    command_fn *fn;
    int first_key, last_key, key_step; /* Redis legacy key spec: 1-based; 0 = none */
    const char *summary;
    const char *since;
    const char *group;
    const char *complexity;
    const struct command *subcommands; /* terminated by a row with name == NULL */
    const struct command *parent;      /* set at init for subcommands */
    char full_name[48];                /* "get", "config|get" (set at init) */
    size_t name_len;                   /* strlen(name) (set at init) */
    /* Redis 7.0's metadata (COMMAND INFO/DOCS, key specs), NULL for a
     * command Redis lacks; and the index of its own key rule, -1 for none
     * (both set at init by command_keys_init). */
    const struct command_meta *meta;
    int keys_rule;
    int acl_id; /* index in the ACL's command list (core/acl.h; set at init) */
    /* Statistics for INFO commandstats. */
    long long calls;
    uint64_t cycles;
    long long rejected_calls; /* refused before running (arity, auth, context) */
    long long failed_calls;   /* ran and answered an error */
    /* latency-tracking's histogram (core/latency_tracking.h): NULL until
     * the command's first tracked call. */
    struct histogram *latency_histogram;
};

/* Terminates a command array. */
#define COMMAND_END                                                                                \
    {                                                                                              \
        .name = NULL                                                                               \
    }

/* Builds the lookup index from every family's table. */
void command_table_init(void);

/* Case-insensitive lookup of a top-level command; NULL if unknown. */
struct command *command_lookup(const char *name, size_t len);

/* Finds a subcommand of parent by name; NULL if unknown. */
struct command *command_lookup_sub(const struct command *parent, const char *name, size_t len);

/* A command by its full name, "name" or "container|sub" (COMMAND INFO,
 * LATENCY HISTOGRAM); NULL if unknown. */
struct command *command_lookup_full(const char *name, size_t len);

/* Runs one parsed request (all checks, then the handler): the connection
 * layer's dispatch entry (request.h), installed by command_table_init. */
void command_dispatch(const struct cmd_request *req);

/* The admission hook: a check every request passes after authentication
 * and before cluster redirection and maxmemory, Redis 7.0's place for its
 * ACL check (ACLCheckAllPerm in processCommand). It sees the command or
 * subcommand row (cmd; cmd->parent for a subcommand), the caller
 * (req->conn: session.h's session_user) and the arguments; the keys with
 * their read/write flags come from command_keys() (the key specs of
 * command_meta.h), the channels of a Pub/Sub command (CMD_PUBSUB) are its
 * arguments. It returns true to admit, or answers the refusal itself
 * (reply_error on req->reply, e.g. Redis's -NOPERM text) and returns
 * false: the command is then counted as rejected and, inside MULTI, the
 * transaction aborts (EXECABORT), as any queue-time error. Installing one
 * sets HOOK_ADMISSION in the hook word (NULL removes it): with none, the
 * check costs nothing. Commands run from inside another — EXEC's queued
 * ones, a script's redis.call — are not dispatched: their checks call
 * command_admitted() before command_call() (Redis re-checks ACLs there). */
typedef bool command_admission_fn(const struct cmd_request *req, const struct command *cmd);
void command_set_admission(command_admission_fn *admit);

/* Whether the installed admission check (if any) admits cmd for req; false
 * after it answered the refusal. */
bool command_admitted(const struct cmd_request *req, const struct command *cmd);

/* The role checks of replication (repl/ installs them at startup), at
 * Redis 7.0's places in processCommand: after MISCONF, for a write (or
 * EXEC of a transaction holding one), NOREPLICAS while
 * `too_few_replicas` (min-replicas-to-write), then `readonly_refusal`
 * (READONLY on a read-only replica, for all but its master's link); after
 * the RESP2 subscribed context, for a command without the stale flag,
 * `stale_refusal` (MASTERDOWN while a replica's link is down under
 * replica-serve-stale-data no). A refusal is Redis's error text, NULL
 * lets the command run. Each runs only while its bit of the hook word is
 * set (HOOK_MIN_REPLICAS, HOOK_REPLICA), which the owner switches; `on`
 * says whether either applies now (the sanitizer build's check that the
 * word is not zero then). Scripts ask the same through
 * command_readonly_refusal() and command_too_few_replicas(). */
struct command_role_checks {
    bool (*too_few_replicas)(void);
    const char *(*readonly_refusal)(const struct conn *c);
    const char *(*stale_refusal)(const struct conn *c);
    bool (*on)(void);
};
void command_set_role_checks(const struct command_role_checks *checks);
const char *command_readonly_refusal(const struct conn *c);
bool command_too_few_replicas(void);
/* The errors counted so far belong to a command already accounted for (a
 * script's refused call): the running command is not failed by them. */
void command_settle_errors(void);

/* A family of commands from a layer above the command layer (repl/:
 * REPLICAOF, PSYNC, WAIT ...), added before command_table_init(). */
void command_add_family(struct command *table);

/* Typed cores (typed_call.h; their RESP handlers share the code). */
void string_set_typed(struct cmd_ctx *ctx, const struct typed_call *t);
void string_incrby_typed(struct cmd_ctx *ctx, const struct typed_call *t);
void zset_zadd_typed(struct cmd_ctx *ctx, const struct typed_call *t);

/* Runs ctx->cmd's handler with ctx as it is, counting its statistics (the
 * checks are the caller's): EXEC for each queued command, scripts. It does
 * not restart the key space's clock (keyspace_begin_command). */
void command_call(struct cmd_ctx *ctx);

/* Visits every top-level command (COMMAND, COMMAND COUNT, INFO commandstats). */
void command_foreach(void (*fn)(struct command *cmd, void *arg), void *arg);
size_t command_count(void);

/* Zeroes every command's statistics (CONFIG RESETSTAT). */
void command_reset_stats(void);

/* A blocking command (BLPOP & co) found nothing to serve: blocks the
 * caller on argv[first..first+n) (session_block_on_keys), or, inside EXEC
 * (ctx->deny_blocking), answers at once as Redis 7.0 does: a null array,
 * or a null bulk when nil_bulk (BLMOVE, BRPOPLPUSH). */
void command_block_on_keys(struct cmd_ctx *ctx, enum obj_type type, int first, int n,
                           int64_t deadline_ms, bool nil_bulk);

/* A key a call names: its position in argv and Redis's key spec flags
 * for it (command_meta.h KEY_SPEC_*; 0 where Redis does not know them). */
struct key_ref {
    int pos;
    uint32_t flags;
};

/* Attaches cmd's metadata and key rule (command_keys.c; at table init),
 * and the flags the metadata carries that we enforce (CMD_NO_MULTI,
 * CMD_SKIP_MONITOR). */
void command_keys_init(struct command *cmd);

/* The keys a call of cmd names, at most cap of them, as Redis 7.0's
 * getKeysFromCommandWithSpecs finds them: the key specs, else the
 * command's own rule (numkeys arguments, SORT ... STORE, MIGRATE KEYS, SET
 * with GET). Returns how many were written. command_keys.c. */
int command_keys(const struct command *cmd, int argc, const char *const *argv,
                 const size_t *argv_len, struct key_ref *keys, int cap);

/* The same, positions only (cluster slots, propagation). */
int command_key_positions(const struct command *cmd, int argc, const char *const *argv,
                          const size_t *argv_len, int *pos, int cap);

/* Whether cmd may name keys at all (Redis's doesCommandHaveKeys). */
bool command_has_keys(const struct command *cmd);

/* Cluster mode: whether this node serves the request's keys (EXEC: every
 * queued command's). Otherwise answers Redis's redirection (-MOVED,
 * -CROSSSLOT, -CLUSTERDOWN ...) and returns false. cmd_cluster.c. */
bool cluster_request_allowed(const struct cmd_request *req, const struct command *cmd);
/* A command a script runs in cluster mode (Redis's
 * scriptVerifyClusterState): NULL when this node serves its keys, else
 * Redis's error text. *slot is the script's slot so far (-1: none yet; its
 * declared keys' slot first); keys of another slot in a later call are an
 * error unless cross_slot (allow-cross-slot-keys, or an EVAL without a
 * shebang). */
const char *cluster_script_check(const struct command *cmd, int argc, const char **argv,
                                 const size_t *argv_len, struct conn *caller, int *slot,
                                 bool cross_slot);
/* Cluster mode, after a command ran: ASKING lasts one command. */
void cluster_after_command(const struct cmd_request *req, const struct command *cmd);

/* CLIENT PAUSE WRITE: whether a may-replicate call (a request, or a command
 * queued in MULTI) counts as a write —
 * EVAL, EVALSHA and FCALL unless their script (cached, or EVAL's shebang)
 * declared flags without `no-writes`; PUBLISH, SPUBLISH, PFCOUNT always
 * (Redis's evalGetCommandFlags / fcallGetCommandFlags). cmd_script.c. */
bool script_call_writes(const struct command *cmd, const char *const *argv, const size_t *argv_len);

/* Redis's MISCONF error (writes refused after a failed snapshot). */
extern const char command_misconf_error[];
extern const char command_noreplicas_error[]; /* min-replicas-to-write */

/* Keyspace notification for the key in argument i of ctx's command, in
 * ctx's database (store/notify.h; one branch when disabled). */
static inline void cmd_notify(const struct cmd_ctx *ctx, int type, const char *event, int i)
{
    notify_keyspace_event(type, event, ctx->argv[i], ctx->argv_len[i], ctx->db->id);
}

/* Whether argument i of ctx's command is a credential Redis shows as
 * "(redacted)" in MONITOR and SLOWLOG: AUTH's arguments, HELLO's AUTH pair,
 * MIGRATE's AUTH password and AUTH2 pair, ACL SETUSER/GETUSER/DELUSER's
 * arguments, CONFIG SET's values of Redis's sensitive parameters. */
bool command_arg_redacted(const struct cmd_ctx *ctx, int i);

/* Redis 7's protected actions (enable-debug-command, enable-protected-configs,
 * enable-module-command): `setting` "yes" allows every client, "local" only
 * local ones (session_is_local: Unix socket, loopback TCP, ring, local
 * libfabric peers), "no" none. */
bool command_protected_action_allowed(const char *setting, const struct conn *conn);

/* The ACL categories COMMAND INFO shows for cmd ("@read" ...): Redis's
 * metadata, or derived from the flags for a command Redis lacks. Fills at
 * most cap and returns how many. cmd_command.c. */
int command_acl_categories(const struct command *cmd, const char **cats, int cap);

/* ACL (cmd_acl.c): describes the command table to core/acl.h and installs
 * the admission check while some user is restricted. At table init. */
void acl_commands_init(void);

/* Redis's redaction of ACL SETUSER's arguments etc. is command_arg_redacted. */

/* Redis's answer to a known subcommand with arguments it does not take:
 * "ERR unknown subcommand or wrong number of arguments for '<sub>'. Try
 * <CONTAINER> HELP." (XGROUP, XINFO, PUBSUB, FUNCTION ...). */
void reply_subcommand_syntax_error(struct cmd_ctx *ctx);

/* A HELP reply: the NULL-terminated lines as an array of status strings. */
void reply_help(struct reply *r, const char *const *lines);

/* Argument helpers shared by every family. */
bool arg_equals(const struct cmd_ctx *ctx, int i, const char *lowercase_word);
bool arg_to_ll(struct cmd_ctx *ctx, int i, long long *out);  /* replies on failure */
bool arg_to_double(struct cmd_ctx *ctx, int i, double *out); /* replies on failure */

/* Takes argument i when it arrived in a buffer of its own (a big bulk):
 * returns that strbuf (data is argv[i], len argv_len[i]), now the caller's
 * to keep or free — argv[i] stays valid only as long as the new owner keeps
 * it. NULL when argument i is a slice of the input: copy it as usual. */
static inline struct strbuf *arg_take_buffer(struct cmd_ctx *ctx, int i)
{
    return ctx->owned && ctx->owned->count ? strbuf_set_take(ctx->owned, i) : NULL;
}

/* The families' tables (one per file in commands/). */
extern struct command connection_commands[];
extern struct command server_commands[];
extern struct command string_commands[];
extern struct command key_commands[];
extern struct command info_commands[];
extern struct command introspection_commands[];
extern struct command pubsub_commands[];
extern struct command hash_commands[];
extern struct command zset_commands[];
extern struct command object_commands[];
extern struct command set_commands[];
extern struct command bitmap_commands[];
extern struct command sort_commands[];
extern struct command persist_commands[];
extern struct command list_commands[];
extern struct command multi_commands[];
extern struct command cluster_commands[];
extern struct command migrate_commands[];
extern struct command hll_commands[];
extern struct command script_commands[];
extern struct command function_commands[];
extern struct command slowlog_commands[];
extern struct command monitor_commands[];
extern struct command latency_commands[];
extern struct command geo_commands[];
extern struct command lolwut_commands[];
extern struct command module_commands[];
extern struct command memory_commands[];
extern struct command stream_commands[];
extern struct command acl_commands[];

/* Settings (core/config.h): Redis 7's enable-*-command protected actions. */
struct config_table;
extern const struct config_table command_config;

#endif
