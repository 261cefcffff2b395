/*
 * config.h — every setting of the server: one struct, and the table engine
 * that reads them from the command line and CONFIG GET/SET.
 *
 * The values live in `struct config` (and in a few module-owned structs,
 * store/'s limits). The rows that describe them — name, kind, help, range,
 * apply/validate hooks — are owned by the module each setting belongs to:
 * a module defines a `struct config_table` of its rows and the composition
 * root registers every table before the command line is parsed
 * (server/settings.c). The engine knows no module: it parses, renders and
 * checks by a row's kind, and a kind it does not know (CFG_CUSTOM: --ring
 * PATH SIZE, client-output-buffer-limit, requirepass, ...) is parsed and
 * rendered by the row's own functions.
 *
 * Each row is at once a command-line flag (`--name VALUE`), a line of
 * `--help`, and a CONFIG GET/SET parameter under the same name (Redis's name
 * where Redis has the setting). Rows marked CFG_IMMUTABLE are startup-only;
 * CONFIG SET refuses them with Redis's text. Repeatable flags (`--listen`,
 * `--unixsocket`) append to lists.
 *
 * Errors are written into a `struct config_error` the caller provides (no
 * static buffers): a reason without the parameter's name from a row's
 * parse function, the full Redis text from config_set().
 */
#ifndef GOBLIN_CONFIG_H
#define GOBLIN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

struct listen_addr {
    char host[128]; /* numeric IPv4 or IPv6 (no brackets) */
    int port;
};

/* A polled target from the command line, in command-line order (which is
 * also its polling priority). */
enum polled_kind { POLLED_RING, POLLED_RING_POOL, POLLED_LIBFABRIC };

struct polled_spec {
    enum polled_kind kind;
    char *path;               /* ring file, or pool directory; libfabric: provider */
    char *address;            /* libfabric: bootstrap listener address */
    int port;                 /* libfabric: bootstrap listener port */
    unsigned long long bytes; /* per direction, as given (rounded up later) */
    int count;                /* pool size */
};

/* client-output-buffer-limit classes, in Redis's order (CONFIG GET shows
 * them so: "normal ... slave ... pubsub ..."). */
enum output_limit_class { OUTPUT_LIMIT_NORMAL, OUTPUT_LIMIT_REPLICA, OUTPUT_LIMIT_PUBSUB };
#define OUTPUT_LIMIT_CLASSES 3

/* One class's limits on a client's pending output (0: no limit). */
struct output_limit {
    unsigned long long hard; /* bytes: closed at once when reached */
    unsigned long long soft; /* bytes: closed when held for more than soft_seconds */
    long long soft_seconds;
};

struct config {
    /* network */
    long long port;
    char *bind; /* space-separated addresses for --port (Redis's `bind`) */
    struct listen_addr *listen;
    int listen_count;
    char **unixsocket;
    int unixsocket_count;
    long long unixsocketperm;
    long long tcp_backlog;
    long long tcp_keepalive;
    long long timeout; /* idle client timeout, seconds; 0 = never */

    /* limits */
    long long maxclients;
    long long proto_max_bulk_len;
    long long client_query_buffer_limit;
    /* cluster (cluster/cluster.h) */
    bool cluster_enabled;
    char *cluster_config_file;
    long long cluster_node_timeout; /* ms */
    long long cluster_port;         /* bus port; 0: port + 10000 */
    char *cluster_announce_ip;
    long long cluster_announce_port;
    long long cluster_announce_bus_port;
    bool cluster_require_full_coverage;
    bool cluster_allow_reads_when_down;
    long long maxmemory;    /* bytes of used memory (INFO used_memory); 0: no limit */
    char *maxmemory_policy; /* one of evict_policy_names (store/evict.h) */
    long long databases;
    long long unsolicited_output_buffer_bytes; /* fixed Pub/Sub FIFO; 0: growable (conn.h) */
    struct output_limit output_limits[OUTPUT_LIMIT_CLASSES]; /* client-output-buffer-limit */
    /* Derived from output_limits: the smallest nonzero hard or soft limit of
     * any class (ULLONG_MAX when none), so the check after every command is
     * one comparison while a conn's output is below it (conn.h). */
    unsigned long long output_limit_floor;

    /* security */
    bool protected_mode; /* refuse non-loopback TCP peers while there is no password */
    char *requirepass;   /* never stored in clear: see auth.c */
    char *auth_file;
    char *enable_debug_command;     /* "no", "yes" or "local" (Redis 7's protected action) */
    char *enable_protected_configs; /* CONFIG SET of CFG_PROTECTED rows: "no", "yes", "local" */
    char *enable_module_command;    /* Redis 7: gates MODULE LOAD/LOADEX/UNLOAD */

    /* TLS (transport/tls.c, docs/tls.md); NULL or "" strings: not set */
    long long tls_port; /* 0 = no TLS listener */
    char *tls_cert_file;
    char *tls_key_file;
    char *tls_ca_cert_file;
    char *tls_ca_cert_dir;
    char *tls_auth_clients; /* "yes", "no" or "optional" */
    char *tls_protocols;    /* e.g. "TLSv1.2 TLSv1.3"; empty: those two */
    char *tls_ciphers;      /* TLSv1.2 and below (OpenSSL cipher list) */
    char *tls_ciphersuites; /* TLSv1.3 */
    bool tls_prefer_server_ciphers;

    /* polled transports and placement */
    struct polled_spec *polled;
    int polled_count;
    bool no_auth_ring;
    bool enable_sbe;       /* SBE wire on trusted transports (docs/sbe.md) */
    bool no_auth_sbe;      /* SBE over sockets starts authenticated (docs/sbe.md) */
    bool sbe_allow_remote; /* ... and from non-loopback TCP peers */
    /* libfabric (transport/fabric.h) */
    bool no_auth_libfabric;
    bool libfabric_force_send;
    long long efa_heartbeat_timeout_ms; /* 0: sessions never expire */
    long long libfabric_tx_slots;
    long long libfabric_rx_slots;
    long long libfabric_max_record; /* bytes of one message, envelope included */
    long long libfabric_reorder_messages;
    long long libfabric_reorder_bytes;
    long long libfabric_sessions_per_peer; /* sessions one client endpoint name may hold */
    long long cpu;                         /* -1 = not pinned */
    long long numa;                        /* -1 = no binding */
    bool mlockall;
    long long socket_poll_interval_us;
    char *idle_strategy; /* "block", "adaptive" or "spin" */
    long long idle_spin_us;
    long long idle_sleep_ms; /* adaptive with polled targets: spin this long, then sleep */

    /* housekeeping */
    long long hz;
    long long active_expire_effort;
    char *loglevel;

    /* persistence (persist/persist.h) */
    char *dir;
    char *dbfilename;
    char *save; /* "<seconds> <changes> ..." or "" */
    bool rdbcompression;
    bool rdbchecksum;
    bool stop_writes_on_bgsave_error;

    /* append-only file (persist/aof.h) */
    bool appendonly;
    char *appendfsync; /* "always", "everysec" or "no" */
    char *appendfilename;
    char *appenddirname;
    long long auto_aof_rewrite_percentage;
    long long auto_aof_rewrite_min_size;
    bool aof_load_truncated;
    bool aof_timestamp_enabled;
    bool aof_use_rdb_preamble; /* AOF bases as RDB (yes) or commands */
    /* introspection */
    char *notify_keyspace_events;      /* canonical flag string (store/notify.h) */
    long long slowlog_log_slower_than; /* microseconds; < 0: off (commands/slowlog.h) */
    long long busy_reply_threshold;    /* ms a script runs before others get BUSY (script_lua.h) */
    long long lua_memory_limit;        /* bytes a scripting engine's Lua heap may grow to while a
                                          script runs; 0 = none (script_sandbox.h) */
    long long slowlog_max_len;
    long long latency_monitor_threshold; /* milliseconds; 0: off (core/latency.h) */
};

extern struct config config;

/* Room for one error text (Redis's longest configuration errors fit). */
struct config_error {
    char text[320];
};

/* Writes a reason into err; returns false (for `return config_fail(...)`). */
bool config_fail(struct config_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

enum config_kind {
    CFG_INT,    /* long long in [min, max] */
    CFG_MEMORY, /* long long with k/kb/m/mb/g/gb suffixes, in [min, max] */
    CFG_OCTAL,  /* file mode in octal, with or without a leading 0 (Redis's OCTAL_CONFIG) */
    CFG_BOOL,   /* yes/no */
    CFG_STRING, /* char *, owned (validate checks it first) */
    CFG_ENUM,   /* char *, one of `choices` */
    CFG_FLAG,   /* bool; on the command line without a value it means yes */
    /* Anything else: the row's parse() takes `nargs` values (a repeatable
     * flag appends), render() shows the current value. */
    CFG_CUSTOM,
};

enum config_flag {
    CFG_IMMUTABLE = 1u << 0, /* startup only */
    /* Redis 7.0's PROTECTED_CONFIG: CONFIG SET only as enable-protected-configs
     * allows (what names where the server writes files: dir, dbfilename). */
    CFG_PROTECTED = 1u << 2,
    /* A password: its text is overwritten where it was read (argv, the
     * copy), never shown in an error, and CONFIG SET applies it last. */
    CFG_SECRET = 1u << 3,
    /* Startup-only in Redis 7.0 too, named so: CONFIG SET refuses it even
     * when set to its current value (other CFG_IMMUTABLE rows accept that
     * and change nothing, as Redis's suite sets every parameter to its own
     * value). Only under the row's own name: an alias of goblin-core's own
     * is not Redis's parameter. */
    CFG_REDIS_IMMUTABLE = 1u << 4,
    /* In a config file (and after a flag) the values of one line are
     * joined by spaces into the one value the row parses (Redis's
     * MULTI_ARG_CONFIG: bind, save, client-output-buffer-limit). */
    CFG_MULTI_ARG = 1u << 5,
    /* Lines of one load add up (Redis's `save`): the first replaces the
     * default, each further one appends its values, `save ""` clears. */
    CFG_ACCUMULATES = 1u << 6,
    /* Accepted with its value kept for CONFIG GET/SET/REWRITE, and no
     * effect here: the row's help says why (docs/configuration.md lists
     * every such row; tests/integration/test_config_file.sh checks it). */
    CFG_INERT = 1u << 7,
    /* Redis's HIDDEN_CONFIG (testing knobs): CONFIG GET shows it only when
     * asked by its name, never for a pattern. */
    CFG_HIDDEN = 1u << 8,
};

struct config_param {
    const char *name;
    const char *alias;
    enum config_kind kind;
    void *value; /* where the value is kept (NULL for CFG_CUSTOM rows that keep it themselves) */
    long long min, max;
    unsigned flags;
    const char *value_name; /* shown in --help */
    const char *help;
    const char *const *choices; /* CFG_ENUM */
    /* Makes a new value take effect (after every value set, from the
     * command line or CONFIG SET); NULL when the setting is read where it
     * is used. */
    void (*apply)(void);
    /* CFG_STRING: checks a new value before it is stored; NULL when
     * acceptable, else the reason. NULL when any value is acceptable. */
    const char *(*validate)(const char *text);
    /* Settings that take effect together (the TLS context): called once
     * after every value of a CONFIG SET is stored (config_set_commit);
     * NULL or the reason the new values cannot take effect (they are then
     * put back). Not called for the command line (start() reads it all). */
    const char *(*commit)(void);
    /* CFG_CUSTOM: how many values the flag takes on the command line (0:
     * one, which CONFIG SET may also give); parses them (false with the
     * reason in err, nothing changed); renders the current value. */
    int nargs;
    bool (*parse)(const char *const *values, struct config_error *err);
    /* CFG_CUSTOM with one value that may hold any byte (requirepass):
     * CONFIG SET parses it with its length; NULL: parse. */
    bool (*parse_bytes)(const char *value, size_t len, struct config_error *err);
    void (*render)(struct buf *out);
};

/* A module's settings: its rows, and the defaults of values it keeps
 * outside struct config (NULL when none). */
struct config_table {
    const struct config_param *params;
    size_t count;
    void (*set_defaults)(void);
};
#define CONFIG_TABLE(rows, set_defaults)                                                           \
    {                                                                                              \
        (rows), sizeof(rows) / sizeof((rows)[0]), (set_defaults)                                   \
    }

/* Fills the defaults of struct config. */
void config_init_defaults(void);

/* Adds a module's rows (after config_init_defaults, before the command
 * line is parsed) and sets its defaults. Rows are listed by --help and
 * CONFIG GET in registration order. */
void config_register(const struct config_table *table);

/* Appends a polled target in command-line order (the rows of --ring,
 * --ring-pool, --libfabric and --efa). */
void config_polled_add(const struct polled_spec *ps);

/* Parses argv (after the program name). On error prints one line naming the
 * flag and returns false. Sets *exit_now for --help/--version. The values of
 * secret flags (--requirepass) are overwritten in argv once applied, so that
 * /proc/<pid>/cmdline does not show them. */
bool config_parse_args(int argc, char **argv, bool *exit_now);

/* One directive of a config file, or of the command line (argv[0] is the
 * name as typed, without "--"; argv[1..] its values): the same parse as a
 * flag and as CONFIG SET. False with the reason in err (Redis's texts:
 * "Bad directive or wrong number of arguments", a value's own reason). */
bool config_apply_directive(int argc, char *const *argv, struct config_error *err);

/* Starts a new load for CFG_ACCUMULATES rows (their first line replaces
 * the value again). */
void config_load_begin(void);

/* The absolute path of the config file the server started from (CONFIG
 * REWRITE writes it, INFO shows it), or NULL. Set by config_parse_args. */
const char *config_file_path(void);

/* Reads a redis.conf-syntax file (path; NULL: none), then standard input
 * (when from_stdin), then the command line's options as config lines
 * (options, len bytes), as one text, and applies every directive
 * (core/config_file.c): `include` (glob patterns too), Redis's quoting and
 * escapes. On an error prints Redis's "*** FATAL CONFIG FILE ERROR ***"
 * block naming the line (counted through the whole text) to stderr and
 * returns false. */
bool config_load_file(const char *path, bool from_stdin, const char *options, size_t len);

/* CONFIG REWRITE (core/config_rewrite.c): rewrites the config file as
 * Redis 7.0 does — comments, order and unknown lines kept, each changed
 * setting's line rewritten in place, new ones appended under "# Generated
 * by CONFIG REWRITE", leftover lines of a rewritten setting blanked — into
 * a temporary file, fsynced and renamed over the old one. NULL on success,
 * else Redis's error text in err. force_all (DEBUG CONFIG-REWRITE-FORCE-ALL)
 * writes every setting at its default too, but the start-up lists
 * (listen, ring ...) and secrets, which keep their lines as written. */
const char *config_rewrite(bool force_all, struct config_error *err);

/* Visits every row in registration order (for CONFIG REWRITE and the
 * docs check); stops when fn returns true. */
const struct config_param *config_each(bool (*fn)(const struct config_param *p, void *arg),
                                       void *arg);

/* The row named name (or an alias of it), or NULL. */
const struct config_param *config_find(const char *name, size_t len);

/* A row's value as CONFIG GET shows it; its default so, as it was before
 * any flag or file line was applied. */
void config_render(const struct config_param *p, struct buf *out);
const char *config_default_text(const struct config_param *p);

/* Prints --help. */
void config_print_help(void);

/* CONFIG GET: appends matching name/value pairs for a glob pattern.
 * `emit` receives each pair once. */
void config_get_matching(const char *pattern, size_t len,
                         void (*emit)(const char *name, const char *value, void *arg), void *arg,
                         bool (*already)(const char *name, void *arg));

/* CONFIG SET of one parameter. Returns NULL on success or Redis's error
 * text, written into *err. */
const char *config_set(const char *name, size_t name_len, const char *value, size_t value_len,
                       struct config_error *err);

/* Makes the values stored by config_set() since the last call take effect
 * where they must act together (the TLS context: one new context from all
 * of them, built once): NULL, or Redis's error text naming a parameter in
 * *err — the caller then puts the old values back and calls
 * config_set_abandon(). Values without such a hook took effect in
 * config_set(). */
const char *config_set_commit(struct config_error *err);
void config_set_abandon(void);

/* Whether a parameter exists (for CONFIG SET validation before applying). */
bool config_param_exists(const char *name, size_t name_len);

/* The parameter's primary name (aliases resolve to it), or NULL. */
const char *config_canonical_name(const char *name, size_t name_len);

/* Why CONFIG SET must refuse setting the parameter to `value` before any
 * value is applied (Redis 7.0's order: immutable — unless a startup-only
 * parameter Redis can set is set to its current value, see
 * CFG_REDIS_IMMUTABLE — then protected unless protected_allowed, i.e.
 * enable-protected-configs permits this client), or NULL. */
const char *config_set_refusal(const char *name, size_t name_len, const char *value,
                               size_t value_len, bool protected_allowed);

/* Secrets are stored hashed: their old value cannot be restored. */
bool config_param_is_secret(const char *name, size_t name_len);

/* Renders the value of a parameter into out (for INFO and CONFIG GET). */
bool config_get_value(const char *name, struct buf *out);

#endif
