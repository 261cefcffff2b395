/* config.c — the settings table: flags, --help and CONFIG GET/SET; see config.h. */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands/command_hooks.h"
#include "connection/session.h"
#include "server/auth.h"
#include "server/event_loop.h"
#include "server/version.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "repl/repl.h"
#include "store/evict.h"
#include "commands/slowlog.h"
#include "server/latency.h"
#include "server/latency_tracking.h"
#include "store/hash.h"
#include "store/hll.h"
#include "store/set.h"
#include "store/list.h"
#include "store/stream.h"
#include "store/notify.h"
#include "store/zset.h"
#include "transport/tls.h"
#include "util/glob.h"
#include "util/log.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

struct config config;

enum config_kind {
    CFG_INT,    /* integer in [min, max] */
    CFG_MEMORY, /* integer with k/kb/m/mb/g/gb suffixes */
    CFG_OCTAL,  /* file mode in octal, with or without a leading 0 (Redis's OCTAL_CONFIG) */
    CFG_BOOL,   /* yes/no */
    CFG_STRING,
    CFG_ENUM,          /* one of `choices` */
    CFG_LISTEN,        /* --listen ADDR:PORT, repeatable */
    CFG_UNIX,          /* --unixsocket PATH, repeatable */
    CFG_SECRET,        /* requirepass: hashed on set, shown redacted */
    CFG_CONST,         /* compatibility value clients read; only that value may be set */
    CFG_FLAG,          /* no value: sets a bool to yes */
    CFG_RING,          /* --ring PATH SIZE, repeatable */
    CFG_RING_POOL,     /* --ring-pool DIR COUNT SIZE, repeatable */
    CFG_OUTPUT_LIMITS, /* client-output-buffer-limit: "class hard soft seconds" ... */
    CFG_LIBFABRIC,     /* --libfabric PROVIDER ADDRESS PORT, repeatable */
    CFG_EFA,           /* --efa ADDRESS PORT: --libfabric efa ADDRESS PORT */
};

enum config_flag {
    CFG_IMMUTABLE = 1u << 0, /* startup only */
    CFG_NO_CLI = 1u << 1,    /* CONFIG only (no flag) */
    /* Redis 7.0's PROTECTED_CONFIG: CONFIG SET only as enable-protected-configs
     * allows (what names where the server writes files: dir, dbfilename). */
    CFG_PROTECTED = 1u << 2,
};

struct config_param {
    const char *name;
    const char *alias;
    enum config_kind kind;
    void *value;
    long long min, max;
    unsigned flags;
    const char *value_name; /* shown in --help */
    const char *help;
    const char *const *choices; /* CFG_ENUM; CFG_CONST: choices[0] is the value */
    /* Makes a new value take effect (CONFIG SET, and once after the command
     * line is parsed); NULL when the setting is read where it is used. */
    void (*apply)(void);
    /* Checks a new value before it is stored: NULL when acceptable, else
     * the reason (CFG_STRING rows); NULL when any value is acceptable. */
    const char *(*validate)(const char *text);
    /* Settings that take effect together (the TLS context): called once
     * after every value of a CONFIG SET is stored (config_set_commit);
     * NULL or the reason the new values cannot take effect (they are then
     * put back). Not called for the command line (start() reads it all). */
    const char *(*commit)(void);
};

static void apply_loglevel(void);
static void apply_idle_spin_us(void);
static void apply_socket_poll_interval_us(void);
static void apply_maxmemory(void);
static void apply_maxmemory_policy(void);
static void apply_notify_keyspace_events(void);
static void apply_latency_monitor_threshold(void);
static const char *validate_notify_keyspace_events(const char *text);

static const char *const loglevels[] = {"debug", "verbose", "notice", "warning", NULL};
static const char *const idle_strategies[] = {"block", "adaptive", "spin", NULL};
static const char *const protected_actions[] = {"no", "yes", "local", NULL};
static const char *const tls_auth_choices[] = {"no", "yes", "optional", NULL};
static const char *const fsync_policies[] = {"always", "everysec", "no", NULL};
static const char *const diskless_load_choices[] = {"disabled", NULL};

/* Rows leave their trailing hooks (apply, validate) out when they have none. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct config_param params[] = {
    {"port", NULL, CFG_INT, &config.port, 0, 65535, CFG_IMMUTABLE, "P",
     "TCP port on the --bind addresses (default 6379; 0 = none)", NULL, NULL},
    {"bind", NULL, CFG_STRING, &config.bind, 0, 0, CFG_IMMUTABLE, "ADDRS",
     "addresses for --port, space-separated (default 127.0.0.1)", NULL, NULL},
    {"listen", NULL, CFG_LISTEN, NULL, 0, 0, CFG_IMMUTABLE, "ADDR:PORT",
     "extra TCP listener, IPv4 or [IPv6]; repeatable", NULL, NULL},
    {"unixsocket", "uds-listen", CFG_UNIX, NULL, 0, 0, CFG_IMMUTABLE, "PATH",
     "Unix stream socket listener; repeatable (alias --uds-listen)", NULL, NULL},
    {"unixsocketperm", NULL, CFG_OCTAL, &config.unixsocketperm, 0, 0777, CFG_IMMUTABLE, "MODE",
     "permissions of Unix sockets, octal as in redis.conf (700, 0770; default 0 = the umask's); "
     "the socket is created with them, never more open",
     NULL, NULL},
    {"tcp-backlog", NULL, CFG_INT, &config.tcp_backlog, 0, INT_MAX, CFG_IMMUTABLE, "N",
     "listen() backlog (default 511)", NULL, NULL},
    {"tcp-keepalive", NULL, CFG_INT, &config.tcp_keepalive, 0, INT_MAX, 0, "SECONDS",
     "TCP keepalive interval for clients (default 300; 0 = off)", NULL, NULL},
    {"timeout", NULL, CFG_INT, &config.timeout, 0, INT_MAX, 0, "SECONDS",
     "close clients idle this long (default 0 = never)", NULL, NULL},
    {"maxclients", NULL, CFG_INT, &config.maxclients, 1, 4294967295LL, 0, "N",
     "maximum simultaneous clients (default 10000)", NULL, NULL},
    {"proto-max-bulk-len", NULL, CFG_MEMORY, &config.proto_max_bulk_len, 1024 * 1024, LLONG_MAX, 0,
     "BYTES", "largest bulk string a client may send (default 512mb)", NULL, NULL},
    {"client-query-buffer-limit", NULL, CFG_MEMORY, &config.client_query_buffer_limit, 1024 * 1024,
     LLONG_MAX, 0, "BYTES", "close a client whose unparsed input exceeds this (default 1gb)", NULL,
     NULL},
    {"databases", NULL, CFG_INT, &config.databases, 1, INT_MAX, CFG_IMMUTABLE, "N",
     "number of databases (default 16)", NULL, NULL},
    {"unsolicited-output-buffer-bytes", NULL, CFG_MEMORY, &config.unsolicited_output_buffer_bytes,
     0, 1LL << 30, 0, "BYTES",
     "0 (default): Pub/Sub backlog grows as needed up to the pubsub output limit; N: a fixed, "
     "prefaulted FIFO of N bytes (whole pages), no allocation on delivery, but a subscriber "
     "whose next message does not fit is disconnected; applies to clients subscribing later",
     NULL, NULL},
    {"client-output-buffer-limit", NULL, CFG_OUTPUT_LIMITS, config.output_limits, 0, 0, 0,
     "'CLASS HARD SOFT SECONDS ...'",
     "limits on a client's pending output by class (normal, replica, pubsub), as Redis "
     "(default 'normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60')",
     NULL, NULL},
    {"protected-mode", NULL, CFG_BOOL, &config.protected_mode, 0, 0, 0, "yes|no",
     "without a password, refuse TCP clients not on the loopback interface with Redis's DENIED "
     "explanation (default yes, as Redis)",
     NULL, NULL},
    {"requirepass", NULL, CFG_SECRET, &config.requirepass, 0, 0, 0, "PASSWORD",
     "password of the default user (kept only as a hash)", NULL, NULL},
    {"auth-file", NULL, CFG_STRING, &config.auth_file, 0, 0, CFG_IMMUTABLE, "FILE",
     "users file: lines 'user password-hash' (libsodium crypto_pwhash_str)", NULL, NULL},
    {"tls-port", NULL, CFG_INT, &config.tls_port, 0, 65535, CFG_IMMUTABLE, "P",
     "TLS port on the --bind addresses (default 0 = none; docs/tls.md)", NULL, NULL},
    {"tls-cert-file", NULL, CFG_STRING, &config.tls_cert_file, 0, 0, 0, "FILE",
     "server certificate (PEM, chain allowed); CONFIG SET reloads it for new connections", NULL,
     NULL, NULL, tls_config_commit},
    {"tls-key-file", NULL, CFG_STRING, &config.tls_key_file, 0, 0, 0, "FILE",
     "private key of --tls-cert-file (PEM, unencrypted)", NULL, NULL, NULL, tls_config_commit},
    {"tls-ca-cert-file", NULL, CFG_STRING, &config.tls_ca_cert_file, 0, 0, 0, "FILE",
     "CA certificates (PEM) that client certificates must chain to", NULL, NULL, NULL,
     tls_config_commit},
    {"tls-ca-cert-dir", NULL, CFG_STRING, &config.tls_ca_cert_dir, 0, 0, 0, "DIR",
     "directory of CA certificates (c_rehash layout), as --tls-ca-cert-file", NULL, NULL, NULL,
     tls_config_commit},
    {"tls-auth-clients", NULL, CFG_ENUM, &config.tls_auth_clients, 0, 0, 0, "yes|no|optional",
     "client certificates: required, not asked for, or checked when sent (default yes)",
     tls_auth_choices, NULL, NULL, tls_config_commit},
    {"tls-protocols", NULL, CFG_STRING, &config.tls_protocols, 0, 0, 0, "'TLSv1.2 TLSv1.3'",
     "TLS versions accepted: TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (default TLSv1.2 and TLSv1.3)", NULL,
     NULL, NULL, tls_config_commit},
    {"tls-ciphers", NULL, CFG_STRING, &config.tls_ciphers, 0, 0, 0, "LIST",
     "TLSv1.2 and below cipher list, OpenSSL syntax (default OpenSSL's)", NULL, NULL, NULL,
     tls_config_commit},
    {"tls-ciphersuites", NULL, CFG_STRING, &config.tls_ciphersuites, 0, 0, 0, "LIST",
     "TLSv1.3 cipher suites, OpenSSL syntax (default OpenSSL's)", NULL, NULL, NULL,
     tls_config_commit},
    {"tls-prefer-server-ciphers", NULL, CFG_BOOL, &config.tls_prefer_server_ciphers, 0, 0, 0,
     "yes|no", "the server's cipher order wins over the client's (default no)", NULL, NULL, NULL,
     tls_config_commit},
    {"ring", NULL, CFG_RING, NULL, 0, 0, CFG_IMMUTABLE, "PATH SIZE",
     "shared-memory ring file for one client, SIZE per direction (k/kb/m/mb/g/gb); repeatable",
     NULL, NULL},
    {"ring-pool", NULL, CFG_RING_POOL, NULL, 0, 0, CFG_IMMUTABLE, "DIR COUNT SIZE",
     "COUNT rings in DIR that clients claim and release; repeatable", NULL, NULL},
    {"no-auth-ring", NULL, CFG_FLAG, &config.no_auth_ring, 0, 0, CFG_IMMUTABLE, "",
     "RESP over rings needs no AUTH (trust the ring file's permissions)", NULL, NULL},
    {"libfabric", NULL, CFG_LIBFABRIC, NULL, 0, 0, CFG_IMMUTABLE, "PROVIDER ADDRESS PORT",
     "libfabric FI_EP_RDM endpoint of PROVIDER (e.g. 'tcp;ofi_rxm', shm, efa), bootstrap TCP "
     "listener on ADDRESS:PORT; repeatable",
     NULL, NULL},
    {"efa", NULL, CFG_EFA, NULL, 0, 0, CFG_IMMUTABLE, "ADDRESS PORT",
     "shorthand for --libfabric efa ADDRESS PORT; repeatable", NULL, NULL},
    {"no-auth-libfabric", NULL, CFG_FLAG, &config.no_auth_libfabric, 0, 0, CFG_IMMUTABLE, "",
     "RESP over libfabric needs no AUTH (trust the fabric)", NULL, NULL},
    {"libfabric-force-send", NULL, CFG_FLAG, &config.libfabric_force_send, 0, 0, CFG_IMMUTABLE, "",
     "send every libfabric frame with fi_send (never fi_inject)", NULL, NULL},
    {"efa-heartbeat-timeout-ms", NULL, CFG_INT, &config.efa_heartbeat_timeout_ms, 0, INT_MAX,
     CFG_IMMUTABLE, "MS",
     "end a libfabric session silent this long; clients ping after a third (default 30000; 0 = "
     "never)",
     NULL, NULL},
    {"libfabric-tx-slots", NULL, CFG_INT, &config.libfabric_tx_slots, 1, 4096, CFG_IMMUTABLE, "N",
     "registered fi_send buffers per libfabric endpoint (default 16)", NULL, NULL},
    {"libfabric-rx-slots", NULL, CFG_INT, &config.libfabric_rx_slots, 1, 4096, CFG_IMMUTABLE, "N",
     "pre-posted receive buffers per libfabric endpoint (default 16)", NULL, NULL},
    {"libfabric-max-record", NULL, CFG_MEMORY, &config.libfabric_max_record, 4096, 1LL << 30,
     CFG_IMMUTABLE, "BYTES", "largest libfabric message, envelope included (default 128kb)", NULL,
     NULL},
    {"libfabric-sessions-per-peer", NULL, CFG_INT, &config.libfabric_sessions_per_peer, 1, 65536,
     CFG_IMMUTABLE, "N", "libfabric sessions one client endpoint may hold at once (default 16)",
     NULL, NULL},
    {"libfabric-reorder-messages", NULL, CFG_INT, &config.libfabric_reorder_messages, 1, 65536,
     CFG_IMMUTABLE, "N", "reorder window per libfabric session, in messages (default 64)", NULL,
     NULL},
    {"libfabric-reorder-bytes", NULL, CFG_MEMORY, &config.libfabric_reorder_bytes, 4096, 1LL << 30,
     CFG_IMMUTABLE, "BYTES", "reorder window per libfabric session, in bytes (default 1mb)", NULL,
     NULL},
    {"enable-sbe", NULL, CFG_FLAG, &config.enable_sbe, 0, 0, CFG_IMMUTABLE, "",
     "accept the binary SBE wire (a connection opening with GOBLINS!) on rings, Unix sockets, "
     "loopback TCP and libfabric; with a password it authenticates (its Auth template) as RESP "
     "does (docs/sbe.md)",
     NULL, NULL},
    {"no-auth-sbe", NULL, CFG_FLAG, &config.no_auth_sbe, 0, 0, CFG_IMMUTABLE, "",
     "SBE over TCP and Unix sockets needs no Auth frame (every peer that can connect is trusted; "
     "rings follow --no-auth-ring, libfabric --no-auth-libfabric)",
     NULL, NULL},
    {"sbe-allow-remote", NULL, CFG_FLAG, &config.sbe_allow_remote, 0, 0, CFG_IMMUTABLE, "",
     "with --enable-sbe, accept SBE from non-loopback TCP peers too (a trusted network only)", NULL,
     NULL},
    {"enable-debug-command", NULL, CFG_ENUM, &config.enable_debug_command, 0, 0, CFG_IMMUTABLE,
     "no|yes|local",
     "allow DEBUG: never, from any client, or only from local ones (loopback, Unix socket, "
     "ring) (default no, as Redis 7)",
     protected_actions, NULL},
    {"enable-protected-configs", NULL, CFG_ENUM, &config.enable_protected_configs, 0, 0,
     CFG_IMMUTABLE, "no|yes|local",
     "allow CONFIG SET of the protected parameters (dir, dbfilename): never, from any client, or "
     "only from local ones (default no, as Redis 7)",
     protected_actions, NULL},
    {"enable-module-command", NULL, CFG_ENUM, &config.enable_module_command, 0, 0, CFG_IMMUTABLE,
     "no|yes|local",
     "allow MODULE (Redis 7's setting; goblin-core has no MODULE command, so this only reads "
     "back) (default no)",
     protected_actions, NULL},
    {"cpu", NULL, CFG_INT, &config.cpu, -1, 4095, CFG_IMMUTABLE, "N",
     "pin the server thread to CPU N (-1 = no pinning)", NULL, NULL},
    {"numa", NULL, CFG_INT, &config.numa, -1, 1023, CFG_IMMUTABLE, "N",
     "bind memory to NUMA node N and run on its CPUs (-1 = no binding)", NULL, NULL},
    {"mlockall", NULL, CFG_BOOL, &config.mlockall, 0, 0, CFG_IMMUTABLE, "yes|no",
     "lock all memory at startup, prefaulting it (default yes; failure is a warning)", NULL, NULL},
    {"idle-strategy", NULL, CFG_ENUM, &config.idle_strategy, 0, 0, CFG_IMMUTABLE,
     "block|adaptive|spin",
     "without rings: block in epoll, poll --idle-spin-us after activity then block, or always "
     "spin (one core busy); rings always spin (default adaptive)",
     idle_strategies, NULL},
    {"idle-spin-us", NULL, CFG_INT, &config.idle_spin_us, 1, 10000000, 0, "US",
     "adaptive: keep polling this long after the last activity (default 200)", NULL,
     apply_idle_spin_us},
    {"socket-poll-interval-us", NULL, CFG_INT, &config.socket_poll_interval_us, 1, 1000000, 0, "US",
     "while spinning with rings: kernel sockets get a pass at most this often (default 20)", NULL,
     apply_socket_poll_interval_us},
    {"hz", NULL, CFG_INT, &config.hz, 0, INT_MAX, 0, "N",
     "housekeeping runs per second, clamped to 1..500 (default 10)", NULL, NULL},
    {"active-expire-effort", NULL, CFG_INT, &config.active_expire_effort, 1, 10, 0, "N",
     "active expiry budget: N ms per housekeeping run at most (default 1)", NULL, NULL},
    {"loglevel", NULL, CFG_ENUM, &config.loglevel, 0, 0, 0, "LEVEL",
     "debug, verbose, notice or warning (default notice)", loglevels, apply_loglevel},
    {"daemonize", NULL, CFG_BOOL, &config.daemonize, 0, 0, CFG_IMMUTABLE, "no",
     "accepted for compatibility; the server always runs in the foreground", NULL, NULL},
    {"hash-max-listpack-entries", "hash-max-ziplist-entries", CFG_INT,
     &hash_limits.max_listpack_entries, 0, LLONG_MAX, 0, "N",
     "hashes with more fields use a hash table (default 512)", NULL, NULL},
    {"hash-max-listpack-value", "hash-max-ziplist-value", CFG_MEMORY,
     &hash_limits.max_listpack_value, 0, LLONG_MAX, 0, "BYTES",
     "hashes with a longer field or value use a hash table (default 64)", NULL, NULL},
    {"zset-max-listpack-entries", "zset-max-ziplist-entries", CFG_INT,
     &zset_limits.max_listpack_entries, 0, LLONG_MAX, 0, "N",
     "sorted sets with more members use the indexed encoding (default 128)", NULL, NULL},
    {"zset-max-listpack-value", "zset-max-ziplist-value", CFG_MEMORY,
     &zset_limits.max_listpack_value, 0, LLONG_MAX, 0, "BYTES",
     "sorted sets with a longer member use the indexed encoding (default 64)", NULL, NULL},
    {"set-max-intset-entries", NULL, CFG_INT, &set_limits.max_intset_entries, 0, LLONG_MAX, 0, "N",
     "sets of integers with more members use a hash table (default 512)", NULL, NULL},
    {"list-max-listpack-size", "list-max-ziplist-size", CFG_INT, &list_limits.fill, INT_MIN,
     INT_MAX, 0, "N",
     "list node size: N > 0 entries (at most 8 KB), -1..-5 = 4, 8, 16, 32, 64 KB (default -2)",
     NULL, NULL},
    {"list-compress-depth", NULL, CFG_INT, &list_limits.compress_depth, 0, INT_MAX, 0, "N",
     "LZF-compress list nodes but the N nearest each end, in lists created from then on "
     "(default 0: none)",
     NULL, NULL},
    {"stream-node-max-bytes", NULL, CFG_MEMORY, &stream_limits.node_max_bytes, 0, LONG_MAX, 0,
     "BYTES",
     "stream nodes close at this many bytes of Redis's listpack encoding (default 4096; 0 = "
     "1 GB)",
     NULL, NULL},
    {"stream-node-max-entries", NULL, CFG_INT, &stream_limits.node_max_entries, 0, LLONG_MAX, 0,
     "N",
     "stream nodes close at this many entries, deleted ones included (default 100; 0 = no "
     "limit)",
     NULL, NULL},
    {"hll-sparse-max-bytes", NULL, CFG_MEMORY, &hll_limits.sparse_max_bytes, 0, LLONG_MAX, 0,
     "BYTES", "HyperLogLogs whose sparse form would grow past this turn dense (default 3000)", NULL,
     NULL},
    {"dir", NULL, CFG_STRING, &config.dir, 0, 0, CFG_PROTECTED, "DIR",
     "directory of the RDB snapshot and the AOF (default ./); CONFIG SET only as "
     "--enable-protected-configs allows",
     NULL, NULL, persist_validate_dir},
    {"dbfilename", NULL, CFG_STRING, &config.dbfilename, 0, 0, CFG_PROTECTED, "FILE",
     "RDB snapshot file name in --dir (default dump.rdb); CONFIG SET only as "
     "--enable-protected-configs allows",
     NULL, NULL, persist_validate_dbfilename},
    {"save", NULL, CFG_STRING, &config.save, 0, 0, 0, "\"SEC CHANGES ...\"",
     "snapshot (BGSAVE) after SEC seconds and CHANGES writes, per pair; \"\" = never "
     "(default \"3600 1 300 100 60 10000\", as Redis 7.0)",
     NULL, persist_apply_save_points, persist_validate_save_points},
    {"rdbcompression", NULL, CFG_BOOL, &config.rdbcompression, 0, 0, 0, "yes|no",
     "LZF-compress strings in snapshots (default yes)", NULL, NULL},
    {"rdbchecksum", NULL, CFG_BOOL, &config.rdbchecksum, 0, 0, CFG_IMMUTABLE, "yes|no",
     "write and verify the CRC-64 of snapshots (default yes)", NULL, NULL},
    {"stop-writes-on-bgsave-error", NULL, CFG_BOOL, &config.stop_writes_on_bgsave_error, 0, 0, 0,
     "yes|no", "refuse writes (MISCONF) while the last background save failed (default yes)", NULL,
     NULL},
    {"notify-keyspace-events", NULL, CFG_STRING, &config.notify_keyspace_events, 0, 0, 0, "FLAGS",
     "keyspace notification classes, Redis's letters K E g $ l s h z x e t m d n A "
     "(default \"\" = off; docs/introspection.md)",
     NULL, apply_notify_keyspace_events, validate_notify_keyspace_events},
    {"slowlog-log-slower-than", NULL, CFG_INT, &config.slowlog_log_slower_than, -1, LLONG_MAX, 0,
     "US", "SLOWLOG records commands that ran at least this long; negative = off (default 10000)",
     NULL, slowlog_apply_config},
    {"slowlog-max-len", NULL, CFG_INT, &config.slowlog_max_len, 0, LLONG_MAX, 0, "N",
     "SLOWLOG keeps this many entries (default 128)", NULL, slowlog_apply_config},
    {"latency-monitor-threshold", NULL, CFG_INT, &config.latency_monitor_threshold, 0, LLONG_MAX, 0,
     "MS",
     "LATENCY records events (commands, expire and eviction cycles, forks, AOF writes) that "
     "took at least this long; 0 = off (default 0; docs/introspection.md)",
     NULL, apply_latency_monitor_threshold},
    {"latency-tracking", NULL, CFG_BOOL, &latency_tracking, 0, 0, 0, "yes|no",
     "a latency histogram per command, for LATENCY HISTOGRAM and INFO latencystats (default yes)",
     NULL, NULL},
    {"latency-tracking-info-percentiles", NULL, CFG_STRING, &latency_tracking_percentiles_text, 0,
     0, 0, "\"P ...\"", "percentiles INFO latencystats prints (default \"50 99 99.9\")", NULL,
     latency_tracking_apply_percentiles, latency_tracking_validate_percentiles},
    {"busy-reply-threshold", "lua-time-limit", CFG_INT, &config.busy_reply_threshold, 0, LLONG_MAX,
     0, "MS",
     "a script running longer serves other clients with BUSY until it ends or SCRIPT KILL / "
     "FUNCTION KILL (default 5000)",
     NULL, NULL},
    {"lua-memory-limit", NULL, CFG_MEMORY, &config.lua_memory_limit, 0, LLONG_MAX, 0, "BYTES",
     "the most memory the Lua heap of EVAL's engine, and of FUNCTION's, may hold while a script "
     "or a library's loading runs: an allocation past it fails the script with 'not enough "
     "memory', so no single library call can take the server's memory (default 1gb; 0 = no "
     "limit; docs/scripting.md)",
     NULL, NULL},
    {"cluster-enabled", NULL, CFG_BOOL, &config.cluster_enabled, 0, 0, CFG_IMMUTABLE, "yes|no",
     "Redis Cluster mode: 16384 hash slots, MOVED/CROSSSLOT redirections, the cluster bus on "
     "port+10000, database 0 only (default no; docs/scale-out.md)",
     NULL, NULL},
    {"cluster-config-file", NULL, CFG_STRING, &config.cluster_config_file, 0, 0, CFG_IMMUTABLE,
     "FILE",
     "the node table in Redis's nodes.conf format, in --dir unless absolute (default nodes.conf); "
     "a file without a 'myself' line is a static slot map shared by every node",
     NULL, NULL},
    {"cluster-node-timeout", NULL, CFG_INT, &config.cluster_node_timeout, 1, LLONG_MAX, 0, "MS",
     "a node silent this long is suspected failing (default 15000)", NULL, NULL},
    {"cluster-port", NULL, CFG_INT, &config.cluster_port, 0, 65535, CFG_IMMUTABLE, "PORT",
     "cluster bus port (default 0: --port + 10000)", NULL, NULL},
    {"cluster-announce-ip", NULL, CFG_STRING, &config.cluster_announce_ip, 0, 0, 0, "ADDR",
     "address other nodes and clients are given for this node (default: as seen by peers)", NULL,
     NULL},
    {"cluster-announce-port", NULL, CFG_INT, &config.cluster_announce_port, 0, 65535, CFG_IMMUTABLE,
     "PORT", "client port announced to the cluster (default 0: --port)", NULL, NULL},
    {"cluster-announce-bus-port", NULL, CFG_INT, &config.cluster_announce_bus_port, 0, 65535,
     CFG_IMMUTABLE, "PORT", "bus port announced to the cluster (default 0: the bus port)", NULL,
     NULL},
    {"cluster-require-full-coverage", NULL, CFG_BOOL, &config.cluster_require_full_coverage, 0, 0,
     0, "yes|no", "the cluster is down while any slot is unserved (default yes)", NULL, NULL},
    {"cluster-allow-reads-when-down", NULL, CFG_BOOL, &config.cluster_allow_reads_when_down, 0, 0,
     0, "yes|no", "serve reads while the cluster is down (default no)", NULL, NULL},
    {"appendonly", NULL, CFG_BOOL, &config.appendonly, 0, 0, 0, "yes|no",
     "append-only file (Redis 7 multi-part layout); CONFIG SET yes starts a rewrite (default no)",
     NULL, aof_apply_appendonly},
    {"appendfsync", NULL, CFG_ENUM, &config.appendfsync, 0, 0, 0, "always|everysec|no",
     "fsync of the append-only file: before replies, once a second (background thread), or by "
     "the kernel (default everysec)",
     fsync_policies},
    {"appendfilename", NULL, CFG_STRING, &config.appendfilename, 0, 0, CFG_IMMUTABLE, "NAME",
     "base name of the append-only files (default appendonly.aof)", NULL, NULL,
     aof_validate_filename},
    {"appenddirname", NULL, CFG_STRING, &config.appenddirname, 0, 0, CFG_IMMUTABLE, "NAME",
     "directory of the append-only files, in --dir (default appendonlydir)", NULL, NULL,
     aof_validate_dirname},
    {"auto-aof-rewrite-percentage", NULL, CFG_INT, &config.auto_aof_rewrite_percentage, 0, INT_MAX,
     0, "PERCENT",
     "BGREWRITEAOF when the AOF grew this much since the last rewrite; 0 = never (default 100)",
     NULL, NULL},
    {"auto-aof-rewrite-min-size", NULL, CFG_MEMORY, &config.auto_aof_rewrite_min_size, 0, LLONG_MAX,
     0, "BYTES", "no automatic rewrite below this AOF size (default 64mb)", NULL, NULL},
    {"aof-load-truncated", NULL, CFG_BOOL, &config.aof_load_truncated, 0, 0, 0, "yes|no",
     "at start, drop a command cut short at the end of the AOF (yes) or refuse to start (default "
     "yes)",
     NULL, NULL},
    {"aof-use-rdb-preamble", NULL, CFG_BOOL, &config.aof_use_rdb_preamble, 0, 0, 0, "yes|no",
     "AOF bases (rewrites) are RDB files; no: commands, as Redis writes a .base.aof", NULL, NULL},
    {"aof-timestamp-enabled", NULL, CFG_BOOL, &config.aof_timestamp_enabled, 0, 0, 0, "yes|no",
     "write #TS:<unix time> annotations into the AOF (default no)", NULL, NULL},
    /* replication (repl/repl.h; docs/replication.md) */
    {"repl-backlog-size", NULL, CFG_MEMORY, &repl_settings.backlog_size, 1, LLONG_MAX, 0, "BYTES",
     "bytes of the replication stream kept for replicas that reconnect (partial resync) "
     "(default 1mb)",
     NULL, repl_apply_backlog_size},
    {"repl-backlog-ttl", NULL, CFG_INT, &repl_settings.backlog_ttl, 0, INT_MAX, 0, "SECONDS",
     "free the backlog after this long without replicas; 0 = never (default 3600)", NULL, NULL},
    {"repl-diskless-sync", NULL, CFG_BOOL, &repl_settings.diskless_sync, 0, 0, 0, "yes|no",
     "full syncs stream the RDB from the fork child to the replicas' sockets (yes) or write it "
     "to the RDB file first (default yes)",
     NULL, NULL},
    {"repl-diskless-sync-delay", NULL, CFG_INT, &repl_settings.diskless_sync_delay, 0, INT_MAX, 0,
     "SECONDS", "wait this long for more replicas before a diskless sync starts (default 5)", NULL,
     NULL},
    {"repl-diskless-sync-max-replicas", NULL, CFG_INT, &repl_settings.diskless_sync_max_replicas, 0,
     INT_MAX, 0, "N",
     "start a delayed diskless sync at once when this many replicas wait; 0 = no limit (default "
     "0)",
     NULL, NULL},
    {"repl-ping-replica-period", "repl-ping-slave-period", CFG_INT,
     &repl_settings.ping_replica_period, 1, INT_MAX, 0, "SECONDS",
     "PING the replicas in the stream this often (default 10)", NULL, NULL},
    {"repl-timeout", NULL, CFG_INT, &repl_settings.timeout, 1, INT_MAX, 0, "SECONDS",
     "close a replica that has not acknowledged for this long (default 60)", NULL, NULL},
    {"min-replicas-to-write", "min-slaves-to-write", CFG_INT, &repl_settings.min_replicas_to_write,
     0, INT_MAX, 0, "N",
     "refuse writes (NOREPLICAS) with fewer online replicas whose last ack is at most "
     "min-replicas-max-lag old; 0 = off (default 0)",
     NULL, repl_apply_min_replicas},
    {"min-replicas-max-lag", "min-slaves-max-lag", CFG_INT, &repl_settings.min_replicas_max_lag, 0,
     INT_MAX, 0, "SECONDS", "see min-replicas-to-write (default 10)", NULL,
     repl_apply_min_replicas},
    {"replicaof", "slaveof", CFG_STRING, &repl_replica_settings.replicaof, 0, 0, CFG_IMMUTABLE,
     "'HOST PORT'", "start as a replica of HOST PORT (REPLICAOF at run time)", NULL, NULL},
    {"masterauth", NULL, CFG_STRING, &repl_replica_settings.masterauth, 0, 0, 0, "PASSWORD",
     "AUTH to the master with this password", NULL, NULL},
    {"masteruser", NULL, CFG_STRING, &repl_replica_settings.masteruser, 0, 0, 0, "USER",
     "AUTH to the master as this user (with masterauth)", NULL, NULL},
    {"replica-read-only", "slave-read-only", CFG_BOOL, &repl_replica_settings.read_only, 0, 0, 0,
     "yes|no", "a replica refuses clients' writes with READONLY (default yes)", NULL, NULL},
    {"replica-serve-stale-data", "slave-serve-stale-data", CFG_BOOL,
     &repl_replica_settings.serve_stale_data, 0, 0, 0, "yes|no",
     "no: while the link to the master is down, a replica answers MASTERDOWN to all but a few "
     "commands (default yes)",
     NULL, NULL},
    {"replica-priority", "slave-priority", CFG_INT, &repl_replica_settings.priority, 0, INT_MAX, 0,
     "N", "Sentinel's promotion order, lower first; 0 = never promoted (default 100)", NULL, NULL},
    {"replica-announce-ip", "slave-announce-ip", CFG_STRING, &repl_replica_settings.announce_ip, 0,
     0, 0, "ADDR", "the address a replica gives its master (REPLCONF ip-address)", NULL, NULL},
    {"replica-announce-port", "slave-announce-port", CFG_INT, &repl_replica_settings.announce_port,
     0, 65535, 0, "PORT", "the port a replica gives its master (default 0: --port)", NULL, NULL},
    {"replica-announced", NULL, CFG_BOOL, &repl_replica_settings.announced, 0, 0, 0, "yes|no",
     "whether Sentinel should list this replica (INFO replica_announced; default yes)", NULL, NULL},
    {"repl-diskless-load", NULL, CFG_ENUM, &repl_replica_settings.diskless_load, 0, 0, 0,
     "disabled", "a replica writes the master's RDB to disk, then loads it (only 'disabled')",
     diskless_load_choices, NULL},
    {"maxmemory", NULL, CFG_MEMORY, &config.maxmemory, 0, LLONG_MAX, 0, "BYTES",
     "past this much used memory (connection buffers included), keys are evicted by "
     "--maxmemory-policy before a command runs; when none can be, commands that may grow the data "
     "set get Redis's OOM error (reads and deletes still run) (default 0 = no limit)",
     NULL, apply_maxmemory},
    {"maxmemory-clients", NULL, CFG_STRING, &conn_maxmemory_clients_text, 0, 0, 0, "BYTES|N%",
     "while clients hold this much (or N% of maxmemory; at least 128kb) the largest ones are "
     "closed, as Redis's client eviction (default 0 = off)",
     NULL, conn_evict_apply, conn_evict_validate},
    {"key-load-delay", NULL, CFG_INT, &rdb_key_load_delay, INT_MIN, INT_MAX, 0, "US",
     "testing: sleep this long after each key an RDB load reads (negative: 1 us once in -N "
     "keys), as Redis (default 0)",
     NULL, NULL},
    {"maxmemory-policy", NULL, CFG_ENUM, &config.maxmemory_policy, 0, 0, 0, "POLICY",
     "noeviction, allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, "
     "volatile-random or volatile-ttl, as Redis (default noeviction)",
     evict_policy_names, apply_maxmemory_policy},
    {"maxmemory-samples", NULL, CFG_INT, &evict_settings.samples, 1, INT_MAX, 0, "N",
     "keys sampled per database for each eviction by the LRU, LFU and TTL policies (default 5)",
     NULL, NULL},
    {"maxmemory-eviction-tenacity", NULL, CFG_INT, &evict_settings.tenacity, 0, 100, 0, "N",
     "eviction time per command: 10 = 500 us, +15% per step, 100 = unlimited; the rest continues "
     "in housekeeping (default 10)",
     NULL, NULL},
    {"lfu-log-factor", NULL, CFG_INT, &evict_settings.lfu_log_factor, 0, INT_MAX, 0, "N",
     "LFU counter growth: an access increments counter c with probability 1/((c-5)*N+1) "
     "(default 10)",
     NULL, NULL},
    {"tracking-table-max-keys", NULL, CFG_INT, &session_tracking_table_max_keys, 0, LLONG_MAX, 0,
     "N",
     "keys CLIENT TRACKING remembers at most; past it, random keys are invalidated (default "
     "1000000; 0 = no limit)",
     NULL, NULL},
    {"lfu-decay-time", NULL, CFG_INT, &evict_settings.lfu_decay_time, 0, INT_MAX, 0, "MINUTES",
     "LFU counters lose one per this many idle minutes (default 1; 0 = never)", NULL, NULL},
};
#pragma GCC diagnostic pop

#define PARAM_COUNT (sizeof params / sizeof params[0])

/* Recomputes config.output_limit_floor after output_limits changed. */
static void output_limits_derive_floor(void)
{
    unsigned long long floor = ULLONG_MAX;
    for (int k = 0; k < OUTPUT_LIMIT_CLASSES; k++) {
        const struct output_limit *l = &config.output_limits[k];
        if (l->hard && l->hard < floor) floor = l->hard;
        if (l->soft && l->soft < floor) floor = l->soft;
    }
    config.output_limit_floor = floor;
}

void config_init_defaults(void)
{
    memset(&config, 0, sizeof config);
    config.port = 6379;
    config.bind = xstrdup("127.0.0.1");
    config.unixsocketperm = 0;
    config.tcp_backlog = 511;
    config.tcp_keepalive = 300;
    config.timeout = 0;
    config.maxclients = 10000;
    config.proto_max_bulk_len = 512LL * 1024 * 1024;
    config.client_query_buffer_limit = 1024LL * 1024 * 1024;
    config.databases = 16;
    config.unsolicited_output_buffer_bytes = 0; /* growable (conn.h) */
    config.output_limits[OUTPUT_LIMIT_REPLICA] =
        (struct output_limit){256ULL * 1024 * 1024, 64ULL * 1024 * 1024, 60};
    config.output_limits[OUTPUT_LIMIT_PUBSUB] =
        (struct output_limit){32ULL * 1024 * 1024, 8ULL * 1024 * 1024, 60};
    output_limits_derive_floor();
    config.protected_mode = true;
    config.requirepass = NULL;
    config.auth_file = NULL;
    config.cpu = -1;
    config.numa = -1;
    config.mlockall = true;
    config.socket_poll_interval_us = 20;
    config.efa_heartbeat_timeout_ms = 30000;
    config.libfabric_tx_slots = 16;
    config.libfabric_rx_slots = 16;
    config.libfabric_max_record = 128 * 1024;
    config.libfabric_reorder_messages = 64;
    config.libfabric_sessions_per_peer = 16;
    config.libfabric_reorder_bytes = 1024 * 1024;
    config.idle_strategy = xstrdup("adaptive");
    config.idle_spin_us = 200;
    config.hz = 10;
    config.active_expire_effort = 1;
    config.loglevel = xstrdup("notice");
    config.maxmemory_policy = xstrdup("noeviction");
    config.enable_debug_command = xstrdup("no");
    config.enable_protected_configs = xstrdup("no");
    config.enable_module_command = xstrdup("no");
    config.tls_auth_clients = xstrdup("yes");
    config.daemonize = false;
    config.dir = xstrdup("./");
    config.dbfilename = xstrdup("dump.rdb");
    config.save = xstrdup("3600 1 300 100 60 10000");
    config.rdbcompression = true;
    config.aof_use_rdb_preamble = true;
    config.appendfsync = xstrdup("everysec");
    config.appendfilename = xstrdup("appendonly.aof");
    config.appenddirname = xstrdup("appendonlydir");
    config.auto_aof_rewrite_percentage = 100;
    config.auto_aof_rewrite_min_size = 64LL << 20;
    config.aof_load_truncated = true;
    config.rdbchecksum = true;
    config.stop_writes_on_bgsave_error = true;
    config.cluster_config_file = xstrdup("nodes.conf");
    config.cluster_node_timeout = 15000;
    config.cluster_announce_ip = xstrdup("");
    config.cluster_require_full_coverage = true;
    config.notify_keyspace_events = xstrdup("");
    config.slowlog_log_slower_than = 10000;
    config.busy_reply_threshold = 5000;
    config.lua_memory_limit = 1024LL * 1024 * 1024;
    config.slowlog_max_len = 128;
    latency_tracking_percentiles_text = xstrdup("50 99 99.9");
    conn_maxmemory_clients_text = xstrdup("0");
    repl_replica_settings.replicaof = xstrdup("");
    repl_replica_settings.masterauth = xstrdup("");
    repl_replica_settings.masteruser = xstrdup("");
    repl_replica_settings.announce_ip = xstrdup("");
    repl_replica_settings.diskless_load = xstrdup("disabled");
}

static const struct config_param *param_find(const char *name, size_t len)
{
    for (size_t i = 0; i < PARAM_COUNT; i++) {
        const struct config_param *p = &params[i];
        if (strlen(p->name) == len && strncasecmp(p->name, name, len) == 0) return p;
        if (p->alias && strlen(p->alias) == len && strncasecmp(p->alias, name, len) == 0) return p;
    }
    return NULL;
}

bool config_param_exists(const char *name, size_t name_len)
{
    return param_find(name, name_len) != NULL;
}

const char *config_canonical_name(const char *name, size_t name_len)
{
    const struct config_param *p = param_find(name, name_len);
    return p ? p->name : NULL;
}

static bool immutable_set_to_current(const struct config_param *p, const char *name,
                                     size_t name_len, const char *value, size_t len);

const char *config_set_refusal(const char *name, size_t name_len, const char *value,
                               size_t value_len, bool protected_allowed)
{
    const struct config_param *p = param_find(name, name_len);
    if (!p) return NULL;
    if ((p->flags & CFG_IMMUTABLE) &&
        !immutable_set_to_current(p, name, name_len, value, value_len))
        return "can't set immutable config";
    if ((p->flags & CFG_PROTECTED) && !protected_allowed) return "can't set protected config";
    return NULL;
}

bool config_param_is_secret(const char *name, size_t name_len)
{
    const struct config_param *p = param_find(name, name_len);
    return p && p->kind == CFG_SECRET;
}

static bool parse_listen(const char *s, struct listen_addr *out)
{
    const char *colon;
    size_t hostlen;
    const char *host = s;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':') return false;
        host = s + 1;
        hostlen = (size_t)(close - host);
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon || strchr(s, ':') != colon) return false; /* IPv6 needs brackets */
        hostlen = (size_t)(colon - s);
    }
    if (hostlen == 0 || hostlen >= sizeof out->host) return false;
    long long port;
    if (!num_parse_ll(colon + 1, strlen(colon + 1), &port) || port < 1 || port > 65535)
        return false;
    memcpy(out->host, host, hostlen);
    out->host[hostlen] = '\0';
    out->port = (int)port;
    return true;
}

/* client-output-buffer-limit "<class> <hard> <soft> <soft seconds>" ...:
 * every class named is replaced, the others are kept; nothing changes when
 * any group is invalid. Errors are Redis's texts. */
static const char *parse_output_limits(char *text)
{
    static const char *const class_names[] = {"normal", "slave", "replica", "pubsub"};
    static const enum output_limit_class class_of[] = {OUTPUT_LIMIT_NORMAL, OUTPUT_LIMIT_REPLICA,
                                                       OUTPUT_LIMIT_REPLICA, OUTPUT_LIMIT_PUBSUB};
    struct output_limit next[OUTPUT_LIMIT_CLASSES];
    memcpy(next, config.output_limits, sizeof next);
    char *words[4], *save = NULL;
    int count = 0;
    for (char *w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        words[count++] = w;
        if (count < 4) continue;
        count = 0;
        size_t k = 0;
        while (k < 4 && strcasecmp(words[0], class_names[k]) != 0) k++;
        if (k == 4) return "Invalid client class specified in buffer limit configuration.";
        unsigned long long hard, soft;
        long long seconds;
        if (!num_parse_memory(words[1], strlen(words[1]), &hard) ||
            !num_parse_memory(words[2], strlen(words[2]), &soft) ||
            !num_parse_ll(words[3], strlen(words[3]), &seconds) || seconds < 0)
            return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
        next[class_of[k]] = (struct output_limit){hard, soft, seconds};
    }
    if (count != 0) return "Wrong number of arguments in buffer limit configuration.";
    memcpy(config.output_limits, next, sizeof next);
    output_limits_derive_floor();
    return NULL;
}

/* Sets a parameter from text. Returns NULL or a reason (without the name). */
static const char *param_apply(const struct config_param *p, const char *value, size_t len)
{
    char *text = xmemdup(value, len);
    const char *err = NULL;
    switch (p->kind) {
    case CFG_INT:
    case CFG_MEMORY: {
        long long v;
        bool ok;
        if (p->kind == CFG_INT) {
            ok = num_parse_ll(text, len, &v);
        } else {
            unsigned long long u;
            ok = num_parse_memory(text, len, &u) && u <= LLONG_MAX;
            v = (long long)u;
        }
        if (!ok) {
            err = p->kind == CFG_INT ? "argument couldn't be parsed into an integer"
                                     : "argument must be a memory value";
            break;
        }
        if (v < p->min || v > p->max) {
            static char range[128];
            snprintf(range, sizeof range, "argument must be between %lld and %lld inclusive",
                     p->min, p->max);
            err = range;
            break;
        }
        if (p->value == &config.port)
            config.port = (int)v;
        else
            *(long long *)p->value = v;
        /* Like Redis, hz accepts any non-negative value and clamps it. */
        if (p->value == &config.hz) config.hz = v < 1 ? 1 : v > 500 ? 500 : v;
        break;
    }
    case CFG_OCTAL: {
        long long v = 0;
        bool ok = len > 0 && len <= 12;
        for (size_t i = 0; ok && i < len; i++) {
            ok = text[i] >= '0' && text[i] <= '7';
            v = v * 8 + (text[i] - '0');
        }
        if (!ok) {
            err = "argument couldn't be parsed into an octal number";
            break;
        }
        if (v < p->min || v > p->max) {
            static char range[128];
            snprintf(range, sizeof range, "argument must be between %llo and %llo inclusive",
                     p->min, p->max);
            err = range;
            break;
        }
        *(long long *)p->value = v;
        break;
    }
    case CFG_BOOL:
        if (strcasecmp(text, "yes") == 0)
            *(bool *)p->value = true;
        else if (strcasecmp(text, "no") == 0)
            *(bool *)p->value = false;
        else
            err = "argument must be 'yes' or 'no'";
        break;
    case CFG_STRING:
        if (p->validate && (err = p->validate(text)) != NULL) break;
        xfree(*(char **)p->value);
        *(char **)p->value = xstrdup(text);
        break;
    case CFG_ENUM: {
        const char *const *c = p->choices;
        while (*c && strcasecmp(*c, text) != 0) c++;
        if (!*c) {
            static char choices[256];
            size_t o = (size_t)snprintf(choices, sizeof choices,
                                        "argument(s) must be one of the following: ");
            for (c = p->choices; *c && o < sizeof choices; c++)
                o +=
                    (size_t)snprintf(choices + o, sizeof choices - o, "%s%s", *c, c[1] ? ", " : "");
            err = choices;
            break;
        }
        xfree(*(char **)p->value);
        *(char **)p->value = xstrdup(*c);
        break;
    }
    case CFG_LISTEN: {
        struct listen_addr a;
        if (!parse_listen(text, &a)) {
            err = "expected ADDR:PORT or [IPV6]:PORT";
            break;
        }
        config.listen = xrealloc(config.listen, sizeof a * (size_t)(config.listen_count + 1));
        config.listen[config.listen_count++] = a;
        break;
    }
    case CFG_UNIX:
        if (len == 0) {
            err = "path must not be empty";
            break;
        }
        config.unixsocket =
            xrealloc(config.unixsocket, sizeof(char *) * (size_t)(config.unixsocket_count + 1));
        config.unixsocket[config.unixsocket_count++] = xstrdup(text);
        break;
    case CFG_SECRET:
        auth_set_default_password(text, len);
        xfree(config.requirepass);
        config.requirepass = len ? xstrdup("(hashed)") : NULL;
        break;
    case CFG_CONST:
        if (strcasecmp(text, p->choices[0]) != 0) err = "goblin-core does not support this setting";
        break;
    case CFG_FLAG:
        if (strcasecmp(text, "yes") == 0)
            *(bool *)p->value = true;
        else if (strcasecmp(text, "no") == 0)
            *(bool *)p->value = false;
        else
            err = "argument must be 'yes' or 'no'";
        break;
    case CFG_RING:
    case CFG_RING_POOL:
    case CFG_LIBFABRIC:
    case CFG_EFA:
        err = "set on the command line only";
        break;
    case CFG_OUTPUT_LIMITS:
        err = parse_output_limits(text);
        break;
    }
    if (text) {
        /* Scrub a password from memory before freeing. */
        if (p->kind == CFG_SECRET) explicit_bzero(text, len);
        xfree(text);
    }
    if (!err && p->apply) p->apply();
    return err;
}

static const char *validate_notify_keyspace_events(const char *text)
{
    return notify_flags_parse(text) < 0 ? "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
                                        : NULL;
}

static void apply_latency_monitor_threshold(void)
{
    latency_set_threshold(config.latency_monitor_threshold);
}

/* Sets the flags and keeps the text in Redis's canonical form ("KEA" reads
 * back as "AKE"). */
static void apply_notify_keyspace_events(void)
{
    int flags = notify_flags_parse(config.notify_keyspace_events);
    notify_keyspace_flags = flags < 0 ? 0 : flags;
    char canonical[32];
    notify_flags_format(notify_keyspace_flags, canonical);
    xfree(config.notify_keyspace_events);
    config.notify_keyspace_events = xstrdup(canonical);
}

static void apply_loglevel(void)
{
    for (int i = 0; loglevels[i]; i++)
        if (strcmp(loglevels[i], config.loglevel) == 0) log_min_level = (enum log_level)i;
}

/* A lower limit takes effect at once, as Redis's CONFIG SET maxmemory:
 * eviction starts now rather than at the next command. */
static void apply_maxmemory(void)
{
    command_hook_set(HOOK_MAXMEMORY, config.maxmemory != 0);
    evict_perform((size_t)config.maxmemory);
}

static void apply_maxmemory_policy(void)
{
    evict_set_policy(config.maxmemory_policy); /* validated against the same names */
}

/* The event loop reads these on every pass: a change applies at once. */
static void apply_idle_spin_us(void)
{
    ev_set_adaptive_spin_us(strcmp(config.idle_strategy, "adaptive") == 0 ? config.idle_spin_us
                                                                          : 0);
}

static void apply_socket_poll_interval_us(void)
{
    ev_set_socket_poll_interval_us(config.socket_poll_interval_us);
}

static void param_render(const struct config_param *p, struct buf *out)
{
    char tmp[64];
    switch (p->kind) {
    case CFG_INT:
    case CFG_MEMORY: {
        long long v = p->value == &config.port ? config.port : *(long long *)p->value;
        num_format_ll(tmp, v);
        buf_append(out, tmp, strlen(tmp));
        break;
    }
    case CFG_OCTAL:
        buf_append_fmt(out, "%llo", *(long long *)p->value);
        break;
    case CFG_BOOL:
        buf_append(out, *(bool *)p->value ? "yes" : "no", *(bool *)p->value ? 3 : 2);
        break;
    case CFG_STRING:
    case CFG_ENUM: {
        const char *s = *(char **)p->value;
        if (s) buf_append(out, s, strlen(s));
        break;
    }
    case CFG_LISTEN:
        for (int i = 0; i < config.listen_count; i++) {
            const struct listen_addr *a = &config.listen[i];
            int n = strchr(a->host, ':') ? snprintf(tmp, sizeof tmp, "[%s]:%d", a->host, a->port)
                                         : snprintf(tmp, sizeof tmp, "%s:%d", a->host, a->port);
            if (i) buf_append_char(out, ' ');
            buf_append(out, tmp, (size_t)n);
        }
        break;
    case CFG_UNIX:
        for (int i = 0; i < config.unixsocket_count; i++) {
            if (i) buf_append_char(out, ' ');
            buf_append(out, config.unixsocket[i], strlen(config.unixsocket[i]));
        }
        break;
    case CFG_SECRET:
        /* The password is not kept; report only whether one is set. */
        if (auth_default_password_set()) buf_append(out, "(hashed)", 8);
        break;
    case CFG_CONST:
        buf_append(out, p->choices[0], strlen(p->choices[0]));
        break;
    case CFG_FLAG:
        buf_append(out, *(bool *)p->value ? "yes" : "no", *(bool *)p->value ? 3 : 2);
        break;
    case CFG_OUTPUT_LIMITS: {
        static const char *const shown[] = {"normal", "slave", "pubsub"};
        for (int k = 0; k < OUTPUT_LIMIT_CLASSES; k++) {
            const struct output_limit *l = &config.output_limits[k];
            buf_append_fmt(out, "%s%s %llu %llu %lld", k ? " " : "", shown[k], l->hard, l->soft,
                           l->soft_seconds);
        }
        break;
    }
    case CFG_RING:
    case CFG_RING_POOL: {
        bool first = true;
        for (int i = 0; i < config.polled_count; i++) {
            const struct polled_spec *ps = &config.polled[i];
            if ((p->kind == CFG_RING) != (ps->kind == POLLED_RING)) continue;
            if (ps->kind == POLLED_LIBFABRIC) continue;
            int n = ps->kind == POLLED_RING
                        ? snprintf(tmp, sizeof tmp, "%llu", ps->bytes)
                        : snprintf(tmp, sizeof tmp, "%d %llu", ps->count, ps->bytes);
            if (!first) buf_append_char(out, ' ');
            buf_append(out, ps->path, strlen(ps->path));
            buf_append_char(out, ' ');
            buf_append(out, tmp, (size_t)n);
            first = false;
        }
        break;
    }
    case CFG_LIBFABRIC:
    case CFG_EFA: {
        bool first = true;
        for (int i = 0; i < config.polled_count; i++) {
            const struct polled_spec *ps = &config.polled[i];
            if (ps->kind != POLLED_LIBFABRIC) continue;
            if ((p->kind == CFG_EFA) != (strcmp(ps->path, "efa") == 0)) continue;
            int n = snprintf(tmp, sizeof tmp, "%s%s %s %d", first ? "" : " ", ps->path, ps->address,
                             ps->port);
            buf_append(out, tmp, (size_t)n);
            first = false;
        }
        break;
    }
    }
}

bool config_get_value(const char *name, struct buf *out)
{
    const struct config_param *p = param_find(name, strlen(name));
    if (!p) return false;
    param_render(p, out);
    return true;
}

void config_get_matching(const char *pattern, size_t len,
                         void (*emit)(const char *name, const char *value, void *arg), void *arg,
                         bool (*already)(const char *name, void *arg))
{
    struct buf value;
    buf_init(&value, 64);
    if (!memchr(pattern, '*', len) && !memchr(pattern, '?', len) && !memchr(pattern, '[', len)) {
        /* A plain name is looked up directly and echoed as typed, as Redis does. */
        const struct config_param *p = param_find(pattern, len);
        char *typed = xmemdup(pattern, len);
        if (p && !(already && already(typed, arg))) {
            param_render(p, &value);
            buf_append_char(&value, '\0');
            emit(typed, buf_head(&value), arg);
        }
        xfree(typed);
        buf_free(&value);
        return;
    }
    for (size_t i = 0; i < PARAM_COUNT; i++) {
        const struct config_param *p = &params[i];
        const char *names[2] = {p->name, p->alias};
        for (int k = 0; k < 2; k++) {
            const char *n = names[k];
            if (!n) continue;
            if (!glob_match(pattern, len, n, strlen(n), true)) continue;
            if (already && already(n, arg)) continue;
            buf_reset(&value, 64);
            param_render(p, &value);
            buf_append_char(&value, '\0');
            emit(n, buf_head(&value), arg);
        }
    }
    buf_free(&value);
}

/* Rows with a commit hook set by config_set() since the last commit, one
 * per hook (the first row naming it, for the error text). */
static const struct config_param *pending_commits[PARAM_COUNT];
static size_t pending_commit_count;

static void commit_pending_add(const struct config_param *p)
{
    for (size_t i = 0; i < pending_commit_count; i++)
        if (pending_commits[i]->commit == p->commit) return;
    pending_commits[pending_commit_count++] = p;
}

const char *config_set_commit(void)
{
    static char err[256];
    for (size_t i = 0; i < pending_commit_count; i++) {
        const struct config_param *p = pending_commits[i];
        const char *why = p->commit();
        if (why) {
            pending_commit_count = 0;
            snprintf(err, sizeof err, "CONFIG SET failed (possibly related to argument '%s') - %s",
                     p->name, why);
            return err;
        }
    }
    pending_commit_count = 0;
    return NULL;
}

void config_set_abandon(void)
{
    pending_commit_count = 0;
}

/* A startup-only parameter Redis 7.0 lets CONFIG SET change (port, bind,
 * tls-port ...; and goblin-core's own) set to the value it has: accepted
 * and changes nothing, as the unchanged value takes effect already (Redis's
 * suite sets every parameter to its own value). The ones Redis holds
 * immutable, named as Redis names them, are refused whatever the value,
 * as there (an alias of goblin-core's own, uds-listen, is not one). */
static bool immutable_set_to_current(const struct config_param *p, const char *name,
                                     size_t name_len, const char *value, size_t len)
{
    static const char *const redis_immutable[] = {"daemonize",
                                                  "rdbchecksum",
                                                  "cluster-enabled",
                                                  "cluster-config-file",
                                                  "cluster-port",
                                                  "appendfilename",
                                                  "appenddirname",
                                                  "databases",
                                                  "tcp-backlog",
                                                  "unixsocket",
                                                  "unixsocketperm",
                                                  "enable-debug-command",
                                                  "enable-protected-configs",
                                                  "enable-module-command"};
    for (size_t i = 0; i < sizeof redis_immutable / sizeof redis_immutable[0]; i++)
        if (strlen(redis_immutable[i]) == name_len &&
            strncasecmp(name, redis_immutable[i], name_len) == 0)
            return false;
    struct buf current;
    buf_init(&current, 64);
    param_render(p, &current);
    bool same = buf_len(&current) == len && memcmp(buf_head(&current), value, len) == 0;
    buf_free(&current);
    return same;
}

const char *config_set(const char *name, size_t name_len, const char *value, size_t value_len)
{
    static char err[256];
    const struct config_param *p = param_find(name, name_len);
    if (!p) {
        snprintf(err, sizeof err, "Unknown option or number of arguments for CONFIG SET - '%.*s'",
                 (int)name_len, name);
        return err;
    }
    if (p->flags & CFG_IMMUTABLE) {
        if (immutable_set_to_current(p, name, name_len, value, value_len))
            return NULL; /* nothing changes */
        snprintf(
            err, sizeof err,
            "CONFIG SET failed (possibly related to argument '%s') - can't set immutable config",
            p->name);
        return err;
    }
    const char *why = param_apply(p, value, value_len);
    if (why) {
        snprintf(err, sizeof err, "CONFIG SET failed (possibly related to argument '%s') - %s",
                 p->name, why);
        return err;
    }
    if (p->commit) commit_pending_add(p);
    return NULL;
}

void config_print_help(void)
{
    printf("Usage: goblin-core [--flag value ...]\n\n"
           "A Redis-compatible in-memory server built for request latency.\n\n"
           "Flags (each is also a CONFIG GET/SET parameter of the same name):\n");
    for (size_t i = 0; i < PARAM_COUNT; i++) {
        const struct config_param *p = &params[i];
        if (p->flags & CFG_NO_CLI) continue;
        char left[64];
        snprintf(left, sizeof left, "--%s %s", p->name, p->value_name);
        printf("  %-34s %s%s\n", left, p->help, (p->flags & CFG_IMMUTABLE) ? " [startup]" : "");
    }
    printf("  %-34s %s\n", "--help", "print this help and exit");
    printf("  %-34s %s\n", "--version", "print the version and exit");
    printf("\nRead-only compatibility parameters (CONFIG GET):");
    for (size_t i = 0; i < PARAM_COUNT; i++)
        if (params[i].flags & CFG_NO_CLI) printf(" %s", params[i].name);
    printf("\n");
}

/* --ring PATH SIZE / --ring-pool DIR COUNT SIZE: appended in command-line
 * order, which is their polling priority. Returns NULL or a reason. */
static const char *polled_add(enum config_kind kind, const char *const *v)
{
    static char why[256];
    struct polled_spec ps = {.kind = kind == CFG_RING ? POLLED_RING : POLLED_RING_POOL};
    const char *size = kind == CFG_RING ? v[1] : v[2];
    if (!v[0][0]) return "path must not be empty";
    if (!num_parse_memory(size, strlen(size), &ps.bytes) || ps.bytes == 0 ||
        ps.bytes > (1ULL << 32)) {
        snprintf(why, sizeof why, "size '%s' must be 1..4gb (k/kb/m/mb/g/gb suffixes)", size);
        return why;
    }
    if (kind == CFG_RING_POOL) {
        long long count;
        if (!num_parse_ll(v[1], strlen(v[1]), &count) || count < 1 || count > 4096) {
            snprintf(why, sizeof why, "count '%s' must be 1..4096", v[1]);
            return why;
        }
        ps.count = (int)count;
    }
    ps.path = xstrdup(v[0]);
    config.polled = xrealloc(config.polled, sizeof ps * (size_t)(config.polled_count + 1));
    config.polled[config.polled_count++] = ps;
    return NULL;
}

/* --libfabric PROVIDER ADDRESS PORT / --efa ADDRESS PORT: a polled target
 * in command-line order like the rings. Returns NULL or a reason. */
static const char *polled_add_libfabric(enum config_kind kind, const char *const *v)
{
    static char why[256];
    const char *provider = kind == CFG_EFA ? "efa" : v[0];
    const char *const *rest = kind == CFG_EFA ? v : v + 1;
    long long port;
    if (!provider[0]) return "provider must not be empty";
    if (!rest[0][0]) return "address must not be empty";
    if (!num_parse_ll(rest[1], strlen(rest[1]), &port) || port < 1 || port > 65535) {
        snprintf(why, sizeof why, "port '%s' must be 1..65535", rest[1]);
        return why;
    }
    struct polled_spec ps = {.kind = POLLED_LIBFABRIC,
                             .path = xstrdup(provider),
                             .address = xstrdup(rest[0]),
                             .port = (int)port};
    config.polled = xrealloc(config.polled, sizeof ps * (size_t)(config.polled_count + 1));
    config.polled[config.polled_count++] = ps;
    return NULL;
}

/* Overwrites a secret flag's value in place in argv — the memory the kernel
 * shows as /proc/<pid>/cmdline and ps print — as Redis hides its own
 * arguments. The value's length stays visible as the run of '*'. */
static void arg_scrub(char *value)
{
    memset(value, '*', strlen(value));
}

bool config_parse_args(int argc, char **argv, bool *exit_now)
{
    *exit_now = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            config_print_help();
            *exit_now = true;
            return true;
        }
        if (strcmp(arg, "--version") == 0 || strcmp(arg, "-v") == 0) {
            printf("goblin-core %s (redis_version %s)\n", GOBLIN_VERSION, GOBLIN_REDIS_VERSION);
            *exit_now = true;
            return true;
        }
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr,
                    "goblin-core: unexpected argument '%s' (flags start with --; see --help)\n",
                    arg);
            return false;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const struct config_param *p = param_find(name, name_len);
        if (!p || (p->flags & CFG_NO_CLI)) {
            fprintf(stderr, "goblin-core: unknown flag '--%.*s' (see --help)\n", (int)name_len,
                    name);
            return false;
        }
        if (p->kind == CFG_FLAG && !eq) {
            *(bool *)p->value = true;
            continue;
        }
        if (p->kind == CFG_RING || p->kind == CFG_RING_POOL || p->kind == CFG_LIBFABRIC ||
            p->kind == CFG_EFA) {
            int nargs = p->kind == CFG_RING || p->kind == CFG_EFA ? 2 : 3;
            if (eq || i + nargs >= argc) {
                fprintf(stderr, "goblin-core: flag '--%s' needs %d values (%s)\n", p->name, nargs,
                        p->value_name);
                return false;
            }
            const char *const *values = (const char *const *)argv + i + 1;
            const char *why = p->kind == CFG_LIBFABRIC || p->kind == CFG_EFA
                                  ? polled_add_libfabric(p->kind, values)
                                  : polled_add(p->kind, values);
            if (why) {
                fprintf(stderr, "goblin-core: bad value for --%s: %s\n", p->name, why);
                return false;
            }
            i += nargs;
            continue;
        }
        char *value;
        if (eq) {
            value = argv[i] + (eq + 1 - arg);
        } else {
            if (i + 1 >= argc) {
                fprintf(stderr, "goblin-core: flag '--%s' needs a value (%s)\n", p->name,
                        p->value_name);
                return false;
            }
            value = argv[++i];
        }
        const char *why = param_apply(p, value, strlen(value));
        if (p->kind == CFG_SECRET) arg_scrub(value);
        if (why) {
            fprintf(stderr, "goblin-core: bad value '%s' for --%s: %s\n",
                    p->kind == CFG_SECRET ? "***" : value, p->name, why);
            return false;
        }
    }
    if (config.daemonize) {
        fprintf(stderr, "goblin-core: --daemonize yes is not supported (run under a supervisor)\n");
        return false;
    }
    return true;
}
