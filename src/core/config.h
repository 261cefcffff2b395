/*
 * config.h — every setting of the server, in one table.
 *
 * Each row is at once a command-line flag (`--name VALUE`), a line of
 * `--help`, and a CONFIG GET/SET parameter under the same name (Redis's name
 * where Redis has the setting). Rows marked CFG_IMMUTABLE are startup-only;
 * CONFIG SET refuses them with Redis's text. Repeatable flags (`--listen`,
 * `--unixsocket`) append to lists.
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
    int port;
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

    /* housekeeping */
    long long hz;
    long long active_expire_effort;
    char *loglevel;
    bool daemonize; /* accepted for compatibility; must be "no" */

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

/* Fills defaults. */
void config_init_defaults(void);

/* Parses argv (after the program name). On error prints one line naming the
 * flag and returns false. Sets *exit_now for --help/--version. The values of
 * secret flags (--requirepass) are overwritten in argv once applied, so that
 * /proc/<pid>/cmdline does not show them. */
bool config_parse_args(int argc, char **argv, bool *exit_now);

/* Prints --help. */
void config_print_help(void);

/* CONFIG GET: appends matching name/value pairs for a glob pattern.
 * `emit` receives each pair once. */
void config_get_matching(const char *pattern, size_t len,
                         void (*emit)(const char *name, const char *value, void *arg), void *arg,
                         bool (*already)(const char *name, void *arg));

/* CONFIG SET of one parameter. Returns NULL on success or an error text. */
const char *config_set(const char *name, size_t name_len, const char *value, size_t value_len);

/* Makes the values stored by config_set() since the last call take effect
 * where they must act together (the TLS context: one new context from all
 * of them, built once): NULL, or Redis's error text naming a parameter —
 * the caller then puts the old values back and calls config_set_abandon().
 * Values without such a hook took effect in config_set(). */
const char *config_set_commit(void);
void config_set_abandon(void);

/* Whether a parameter exists (for CONFIG SET validation before applying). */
bool config_param_exists(const char *name, size_t name_len);

/* The parameter's primary name (aliases resolve to it), or NULL. */
const char *config_canonical_name(const char *name, size_t name_len);

/* Why CONFIG SET must refuse setting the parameter to `value` before any
 * value is applied (Redis 7.0's order: immutable — unless a startup-only
 * parameter Redis can set is set to its current value, see config_set —
 * then protected unless protected_allowed, i.e. enable-protected-configs
 * permits this client), or NULL. */
const char *config_set_refusal(const char *name, size_t name_len, const char *value,
                               size_t value_len, bool protected_allowed);

/* Secrets are stored hashed: their old value cannot be restored. */
bool config_param_is_secret(const char *name, size_t name_len);

/* Renders the value of a parameter into out (for INFO and CONFIG GET). */
bool config_get_value(const char *name, struct buf *out);

#endif
