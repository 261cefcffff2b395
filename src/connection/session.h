/*
 * session.h — what the commands layer may do to a connection.
 *
 * The connection layer owns `struct conn` (conn.h). Commands see a conn
 * only as an opaque `struct conn *` (cmd_ctx.conn) and change or read it
 * through this API — never through its fields. Transports do not use it:
 * theirs is connection/conn_transport.h (a trusted transport's sessions
 * start authenticated through its skips_auth row).
 *
 * Include direction (docs/architecture.md). The command layer includes
 * this header and connection/request.h (the request it is handed, and the
 * dispatch entry it installs) and no other connection header; the
 * connection layer includes nothing of commands/. So:
 *   commands/<group>/cmd_x.c -> connection/session.h -> (reply.h, pubsub.h, buf.h)
 *   connection/conn.c -> connection/request.h (the installed entry, no commands/ header)
 * and no file includes a header that (transitively) includes it back.
 *
 * Lifetime. A conn passed to a command stays valid for the whole command,
 * even when it or another conn is killed (memory is reaped at the end of
 * the event-loop pass, conn.h). A client visited by session_foreach_client()
 * may be killed from the callback; iteration continues with the next one.
 */
#ifndef GOBLIN_SESSION_H
#define GOBLIN_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/reply.h"
#include "store/kv.h"
#include "store/pubsub.h"
#include "util/buf.h"

struct conn;

/* --- the caller's own session ------------------------------------------ */

uint64_t session_id(const struct conn *c);

/* SELECT: c's commands use database `index` from the next one on (the
 * caller has checked the range). */
void session_select_db(struct conn *c, int index);

/* HELLO / RESET: c's replies are encoded in `proto` from now on. The one
 * place that changes a conn's protocol. */
void session_set_protocol(struct conn *c, enum proto proto);
enum proto session_protocol(const struct conn *c);

/* AUTH / HELLO AUTH succeeded as `user` (a user that exists; see
 * auth_user_exists()); CLIENT LIST shows it as user=, CLIENT KILL USER
 * matches it. */
void session_mark_authenticated(struct conn *c, const char *user, size_t user_len);

/* Authentication is required on c before ordinary commands. */
bool session_auth_required(const struct conn *c);

/* The peer's identity for AUTH failure budgets (conn_transport.peer_source). */
void session_peer_source(const struct conn *c, char *out, size_t cap);

/* The peer is on this host (conn_is_local: Unix socket, ring, loopback TCP,
 * libfabric over shm or between loopback endpoints). */
bool session_is_local(const struct conn *c);

/* QUIT, CLIENT KILL of oneself: c is closed once its pending replies
 * (including the current command's) are written; it runs no more commands. */
void session_close_after_reply(struct conn *c);

/* RESET: drops subscriptions (without acknowledgements), selects db 0,
 * returns to RESP2, forgets the name and the logged-in user and, when
 * authentication is required, the authentication (Redis 7.0). */
void session_reset(struct conn *c);

/* CLIENT SETNAME / SETINFO (len 0 clears); NULL when unset. */
const char *session_name(const struct conn *c);
void session_set_name(struct conn *c, const char *name, size_t len);
void session_set_lib_name(struct conn *c, const char *name, size_t len);
void session_set_lib_version(struct conn *c, const char *version, size_t len);

/* --- blocking commands (see conn.h, "Blocked on keys") ------------------ */

/* The running command found nothing to serve: c blocks on the keys
 * argv[first_key], argv[first_key + 1], ... (nkeys of them) of its
 * database until one holds a value of `type`, until deadline_ms (0 =
 * never), or CLIENT UNBLOCK — a timeout is answered with a nil array
 * (*-1 / _), whatever the command, as Redis 7.0 does. The caller replies
 * nothing now; the command
 * (argc/argv, copied) runs again when a key is ready, and when it finds
 * nothing again, this call keeps c's place in the queues. */
void session_block_on_keys(struct conn *c, enum obj_type type, int argc, const char *const *argv,
                           const size_t *argv_len, int first_key, int nkeys, int64_t deadline_ms);

/* While c's blocked command runs again because a key it waits on is
 * ready: true, with that key (stream readers serve that key alone, as
 * Redis serves a blocked XREAD). */
bool session_block_retry_key(const struct conn *c, const char **key, size_t *len);

/* CLIENT UNBLOCK: when c is blocked on keys, answers its command with the
 * timeout reply (or, with error, -UNBLOCKED) and returns true. */
bool session_unblock(struct conn *c, bool error);

/* Blocked on something other than keys (WAIT: the replicas' acks). c runs
 * no further command until answered, as when blocked on keys (CLIENT LIST
 * flags=b, INFO blocked_clients): by its owner through
 * session_unblock_custom(), at deadline_ms (0: never) or by CLIENT UNBLOCK,
 * each answering through `answer` (CLIENT UNBLOCK ... ERROR answers
 * -UNBLOCKED itself). `done` runs whenever c leaves the state, answered or
 * closing, so the owner forgets c there. */
struct session_block_custom {
    void (*answer)(struct conn *c, struct reply *r, void *arg);
    void (*done)(struct conn *c, void *arg);
};
void session_block_custom(struct conn *c, int64_t deadline_ms,
                          const struct session_block_custom *how, void *arg);
void session_unblock_custom(struct conn *c);

/* Clients blocked on keys or paused (INFO blocked_clients, as Redis 7.0). */
size_t session_blocked_count(void);

/* Blocked clients with a timeout (INFO clients_in_timeout_table). */
size_t session_blocked_with_timeout_count(void);

/* --- CLIENT PAUSE (conn_blocked.c; see conn.h, "Paused") -------------- */

/* What a pause holds: nothing, writes (commands flagged write or
 * may-replicate, and EXEC of such), or every command. Read by dispatch:
 * with no pause, one branch per command. */
enum session_pause { SESSION_PAUSE_OFF, SESSION_PAUSE_WRITE, SESSION_PAUSE_ALL };
extern enum session_pause session_pause_type;

/* Who pauses (Redis's pause purposes): each has its own pause, and the one
 * in force is the most restrictive of them, so ending one (a failover
 * done) leaves the others (a user's CLIENT PAUSE) holding. */
enum session_pause_purpose {
    SESSION_PAUSE_BY_CLIENT, /* CLIENT PAUSE */
    SESSION_PAUSE_SHUTDOWN,  /* SHUTDOWN waiting for the replicas */
    SESSION_PAUSE_FAILOVER,  /* FAILOVER, CLUSTER FAILOVER's master side */
    SESSION_PAUSE_PURPOSES
};

/* Holds `type` until end_ms for `purpose`: a pause it already has keeps
 * the more restrictive type and the later end (Redis 7.0's pauseClients);
 * an end already past changes nothing. Expiry and eviction stop while any
 * pause holds. A less restrictive pause in force releases the conns it no
 * longer holds. */
void session_pause(enum session_pause_purpose purpose, enum session_pause type, int64_t end_ms);

/* Ends purpose's pause; the conns no pause holds any more run when the
 * current batch of commands ends, in the order they were paused. */
void session_unpause(enum session_pause_purpose purpose);

/* The request being dispatched on c is held by the pause: c keeps a copy
 * and runs it when the pause ends; the caller answers nothing now. false
 * when c cannot wait (a blocked command being run again: Redis serves it). */
bool session_postpone(struct conn *c, int argc, const char *const *argv, const size_t *argv_len);

/* --- CLIENT TRACKING (conn_tracking.c) -------------------------------- */

enum session_tracking_option {
    SESSION_TRACKING_BCAST = 1u << 0,
    SESSION_TRACKING_OPTIN = 1u << 1,
    SESSION_TRACKING_OPTOUT = 1u << 2,
    SESSION_TRACKING_NOLOOP = 1u << 3,
};

/* CLIENT TRACKING ON|OFF as parsed (the caller has checked the REDIRECT
 * client exists). */
struct session_tracking_request {
    bool on;
    uint64_t redirect; /* 0: none */
    uint32_t options;  /* enum session_tracking_option */
    size_t nprefixes;
    const char *const *prefixes;
    const size_t *prefix_lens;
};

/* Clients tracking now: 0 keeps the read path's remembering one branch. */
extern size_t session_tracking_clients;
/* tracking-table-max-keys (0 = no limit). */
extern long long session_tracking_table_max_keys;

/* Enables (with Redis 7.0's option checks) or disables tracking on c;
 * NULL, or Redis's error text, which the caller frees. */
char *session_tracking_set(struct conn *c, const struct session_tracking_request *q);
/* CLIENT CACHING YES|NO; NULL or Redis's error. */
const char *session_tracking_caching(struct conn *c, bool yes);
/* CLIENT GETREDIR: the redirect id, 0 without one, -1 when not tracking. */
long long session_tracking_redirect(const struct conn *c);
/* CLIENT TRACKINGINFO's map. */
void session_tracking_info(const struct conn *c, struct reply *r);
/* Called by the commands layer, which finds the keys and decides which
 * commands count: whether c remembers what it reads now (tracking on, not
 * BCAST, OPTIN/OPTOUT and CLIENT CACHING agreeing); a read-only command of
 * c read the keys argv[pos[0..n)]; before each command (keeps the table
 * within tracking-table-max-keys); after each command not queued, whether
 * it keeps CLIENT CACHING for the next one (CLIENT's own subcommands do:
 * CLIENT CACHING lasts one command); FLUSHDB / FLUSHALL (a null
 * invalidation to every tracking client, the table emptied). */
bool session_tracking_reads(const struct conn *c);
void session_tracking_remember(struct conn *c, const char *const *argv, const size_t *argv_len,
                               const int *pos, int n);
void session_tracking_before_command(void);
/* Around work done for a command before it runs (maxmemory eviction in its
 * admission): invalidations it causes reach the executing client before
 * the command's reply, as Redis 7.0 orders an evicted key's. */
void session_tracking_pre_command(bool begin);
void session_tracking_after_command(struct conn *c, bool keep_caching);
void session_tracking_flush(void);
/* INFO: keys in the table, client ids over them, BCAST prefixes. */
size_t session_tracking_keys(void);
size_t session_tracking_items(void);
size_t session_tracking_prefixes(void);

/* CLIENT REPLY ON / OFF / SKIP (Redis's semantics: OFF and SKIP are not
 * answered themselves; SKIP drops the next command's reply; ON answers). */
enum session_reply_mode { SESSION_REPLY_ON, SESSION_REPLY_OFF, SESSION_REPLY_SKIP };
void session_set_reply_mode(struct conn *c, enum session_reply_mode mode);
/* The running command's reply is made of pushes (Pub/Sub acknowledgements):
 * CLIENT REPLY OFF/SKIP does not drop it, as Redis's CLIENT_PUSHING. */
void session_reply_is_push(struct conn *c);

/* --- per-conn state of the command layer -------------------------------- */

/* An extension slot: state a higher layer keeps per conn (a transaction's
 * queue and watches, commands/multi.h; later an ACL user's permissions),
 * NULL until it sets one. Registered once at startup (at most
 * SESSION_EXT_SLOTS of them, request.h) with the destructor the conn calls
 * for a slot it holds when it closes, before anything is reaped. Returns
 * the slot. */
int session_ext_register(void (*destroy)(void *state));
void *session_ext(const struct conn *c, int slot);
void session_set_ext(struct conn *c, int slot, void *state);

/* The command layer needs c's requests with text arguments (a transaction
 * queues them: a binary wire's typed call is lowered to its RESP form's
 * argv, protocol/typed_call.h). Off by default; the features that need
 * text for every conn (the AOF, MONITOR, CLIENT PAUSE) say so through the
 * hook word instead (core/command_hooks.h HOOKS_TEXT_ARGV). */
void session_set_text_argv(struct conn *c, bool on);

/* The database c's commands use (changed by SELECT, also inside EXEC). */
int session_db_index(const struct conn *c);

/* Cluster ASKING: set by ASKING, cleared after the next command (not
 * inside MULTI), as Redis's CLIENT_ASKING. */
void session_set_asking(struct conn *c, bool on);
bool session_asking(const struct conn *c);

/* Cluster READONLY / READWRITE: a replica serves this conn's reads of its
 * master's slots (Redis's CLIENT_READONLY, CLIENT LIST flag r). */
void session_set_readonly(struct conn *c, bool on);
bool session_readonly(const struct conn *c);

/* A command of c that serves other clients while it runs (a busy script,
 * core/event_loop.h ev_process_nested) protects c first: none of c's
 * I/O runs until it unprotects c (CONN_PROTECTED, conn.h). */
void session_protect(struct conn *c, bool on);

/* --- MONITOR -------------------------------------------------------------- */

/* Monitors connected (conn_pubsub.c): 0 keeps command_call()'s feed a
 * single branch. */
extern size_t conn_monitor_count;

/* Makes c a monitor; false when it already is one. */
bool session_monitor_start(struct conn *c);

/* Sends one already formatted line to every monitor. */
void session_monitor_feed(const char *line, size_t len);

/* --- Pub/Sub -------------------------------------------------------------- */

/* RESP2 subscribed mode: only the subscribe family, PING, QUIT and RESET run. */
bool session_in_resp2_subscribed_mode(const struct conn *c);

/* Subscribes c (allocating its unsolicited FIFO on the first subscription);
 * false when c already had the subscription. */
bool session_subscribe(struct conn *c, enum pubsub_kind kind, const char *name, size_t len);

/* c's registry entry, to count subscriptions and to unsubscribe
 * (pubsub_unsubscribe / pubsub_unsubscribe_all): leaving needs nothing of
 * the connection. Subscribing goes through session_subscribe(). */
struct pubsub_subscriber *session_subscriber(struct conn *c);

/* PUBLISH / SPUBLISH: delivers to every matching subscriber (conn.h's
 * wire-order rules); returns the number of deliveries. */
long long session_publish(enum pubsub_kind kind, const char *channel, size_t channel_len,
                          const char *payload, size_t payload_len);

/* --- every client (CLIENT LIST / KILL, INFO) ------------------------------ */

/* The connected clients, the replicas' links not counted (INFO
 * connected_clients, as Redis 7.0). */
size_t session_client_count(void);

/* Calls fn for every live client, newest first; stops early when fn returns
 * false. fn may kill the client it is given (session_kill). */
void session_foreach_client(bool (*fn)(struct conn *c, void *arg), void *arg);

/* The live client with this id, or NULL. */
struct conn *session_find_client(uint64_t id);

/* CLIENT KILL: closes `victim` now, or — when it is `caller` itself —
 * after the caller's reply is written (Redis's CLOSE_AFTER_REPLY). */
void session_kill(struct conn *victim, struct conn *caller, const char *reason);

/* CLIENT LIST's fields. */
enum session_client_type {
    SESSION_CLIENT_NORMAL,
    SESSION_CLIENT_PUBSUB,  /* subscribed to anything, in either protocol (Redis's flag P) */
    SESSION_CLIENT_MASTER,  /* the link to this server's master (repl/) */
    SESSION_CLIENT_REPLICA, /* a replica's link (SYNC/PSYNC: repl/repl.h) */
};
enum session_client_type session_client_type(const struct conn *c);
const char *session_addr(const struct conn *c);  /* "ip:port", "path:0", "ring:path" */
const char *session_laddr(const struct conn *c); /* the local end, same forms */
const char *session_user(const struct conn *c);  /* "default" unless AUTH named another */

/* Appends CLIENT LIST's line for c (no trailing newline) to out, whatever
 * its length (a name may be as long as the query buffer allows). */
void session_describe(const struct conn *c, struct buf *out);

/* The maxmemory-clients parameter (connection/conn_evict.c): its text
 * ("0", bytes, "N%"), the reason a text is refused, and taking a new one. */
extern char *conn_maxmemory_clients_text;
const char *conn_evict_validate(const char *text);
void conn_evict_apply(void);

/* CLIENT NO-EVICT: whether maxmemory-clients may close this client. */
void session_set_no_evict(struct conn *c, bool on);

/* Bytes a client holds: the connection and every buffer's capacity
 * (CLIENT LIST's tot-mem; what maxmemory-clients counts). */
size_t session_memory(const struct conn *c);

/* The sums of session_memory() over the clients and over the replicas'
 * links (INFO mem_clients_normal / mem_clients_slaves, MEMORY STATS
 * clients.normal / clients.slaves): O(clients), for introspection. */
void session_clients_memory(size_t *normal, size_t *replicas);

/* The reply buffer sizing's knobs (conn_resize_reply_buffers), DEBUG
 * REPLYBUFFER's: how often a buffer's peak restarts (-1: never) and
 * whether buffers are resized at all. */
struct session_reply_buffer_settings {
    long long peak_reset_ms; /* default SESSION_REPLY_PEAK_RESET_DEFAULT_MS */
    bool resizing;           /* default on */
};
extern struct session_reply_buffer_settings session_reply_buffer;
#define SESSION_REPLY_PEAK_RESET_DEFAULT_MS 5000

/* The largest input buffer and pending output of any client now (INFO
 * client_recent_max_input_buffer / _output_buffer). */
void session_clients_max_buffers(size_t *in, size_t *out);

#endif
