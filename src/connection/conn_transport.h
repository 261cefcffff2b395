/*
 * conn_transport.h — the contract between a transport (src/transport/) and
 * the connection layer: all a transport sees of a conn, and all it may do
 * to one. A transport includes this header and no other of connection/.
 *
 * A transport owns the movement of bytes or messages for a session: it
 * makes a conn for each session with conn_create() and its own
 * `struct conn_transport` (a table of per-connection calls, in the shape of
 * Valkey's connection type), tells the conn who the peer is
 * (conn_set_peer), and reports readiness with conn_on_readable() /
 * conn_on_writable(), which return the work they did — a polled target
 * (ring, libfabric) adds that to its own poll's work count. The conn calls
 * back through the table: read, write (saying whether the bytes are a
 * reply or a push), send_unit (framed wires), set_interest, close and
 * release. Trust is a row of the table too: which wires the transport
 * carries, whether its peers are on this host, whether its sessions skip
 * AUTH — the connection layer asks the table, never a name.
 *
 * Of the conn itself a transport reaches only `struct conn_io` (its fd and
 * its own per-session data), through conn_io(): everything else (flags,
 * buffers, the wire, addresses) is the connection layer's. A transport
 * learns of a conn's closing from its `close` call, not from the conn.
 */
#ifndef GOBLIN_CONN_TRANSPORT_H
#define GOBLIN_CONN_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct conn; /* opaque: connection/conn.h */

/* Framed output: one unit per reply or push (conn.h, "Framed output"). */
enum out_unit_kind { OUT_REPLY = 1, OUT_PUSH = 2 };

struct out_unit {
    uint32_t len;         /* payload bytes that follow this header */
    uint32_t kind;        /* enum out_unit_kind */
    uint64_t correlation; /* the request answered (its sequence on the conn, from 1); 0: push */
};

enum conn_transport_flag {
    /* Every peer is on this host (a Unix socket, a ring): conn_is_local()
     * without asking is_local. */
    CONN_TRANSPORT_LOCAL = 1u << 0,
    /* May carry the SBE wire when --enable-sbe is on (docs/sbe.md). */
    CONN_TRANSPORT_CARRIES_SBE = 1u << 1,
    /* SBE from every peer, local or not, without --sbe-allow-remote: the
     * fabric itself is trusted (libfabric, DESIGN §3; docs/sbe.md). */
    CONN_TRANSPORT_SBE_ANY_PEER = 1u << 2,
};

struct conn_transport {
    const char *name; /* "tcp", "unix", ... (CLIENT LIST) */
    unsigned flags;   /* enum conn_transport_flag */
    /* Sessions of this wire (sbe: the SBE wire, else RESP) start
     * authenticated: a trusted transport (rings with --no-auth-ring,
     * libfabric with --no-auth-libfabric, sockets' SBE with --no-auth-sbe);
     * NULL = never. Asked by conn_create() and again once the wire is
     * chosen. Hazard: README "Security". */
    bool (*skips_auth)(bool sbe);
    /* >0 bytes read; 0 peer closed; -1 with errno (EAGAIN: nothing now). */
    ssize_t (*read)(struct conn *c, void *dst, size_t cap);
    /* >=0 bytes written; -1 with errno (EAGAIN: would block). `kind` says
     * whether the bytes are replies (and pushes a command produced before
     * its reply) or unsolicited pushes (Pub/Sub, MONITOR): a message
     * transport correlates the first with the last request, the second
     * with nothing. */
    ssize_t (*write)(struct conn *c, const void *src, size_t len, enum out_unit_kind kind);
    /* Which readiness the conn wants to hear about next. */
    void (*set_interest)(struct conn *c, bool readable, bool writable);
    /* Stops I/O at once (fd out of the event loop and closed, ring session
     * ended). Called once, from conn_close(): from then on the transport
     * must not call into the conn. */
    void (*close)(struct conn *c);
    /* Frees what the loop may still reach through an event queued in the
     * current pass (the socket's ev_handler): called from conn_reap_closed()
     * at the end of the pass, never earlier. NULL when nothing to free. */
    void (*release)(struct conn *c);
    /* Framed transports: sends one unit as one frame (a ring record, a
     * fabric message), whole or not at all. Returns 1 when sent, 0 when
     * there is no room now (try again on writability), -1 with errno on
     * failure. NULL for byte-stream transports. Used only by conns whose
     * wire is framed (protocol/wire.h). */
    int (*send_unit)(struct conn *c, const struct out_unit *unit, const char *payload);
    /* The conn's wire was chosen: whether its input and output are framed
     * (one whole frame per read, one unit per send_unit). May be NULL. */
    void (*set_framed)(struct conn *c, bool framed);
    /* Who the peer is, for per-source AUTH failure budgets: a text naming
     * the party that can open more conns, not the conn itself (so no port).
     * NULL: every peer of the transport is one source (its name). */
    void (*peer_source)(const struct conn *c, char *out, size_t cap);
    /* Whether the peer is on this host, for conn_is_local() (TCP from
     * 127.0.0.1 / ::1, libfabric: docs/libfabric.md "Locality"). NULL, and
     * no CONN_TRANSPORT_LOCAL: never local. */
    bool (*is_local)(const struct conn *c);
    /* The transport bounds unread input itself and its peer takes replies
     * while it waits for room (a ring: the SQ, and the client library
     * drains the CQ when the SQ is full): a backpressured conn then stops
     * reading, and the input waits in the transport, not in the heap. */
    bool holds_input_under_backpressure;
    /* After each request the conn ran, its bytes consumed from the input:
     * a replica's link to its master moves the replication offset there
     * (repl/replica.c). NULL for every other transport (one test per
     * request). */
    void (*request_done)(struct conn *c);
};

/* What a transport owns of a conn: the first member of struct conn, so a
 * transport's hot path reaches it without a call. */
struct conn_io {
    const struct conn_transport *transport;
    int fd;               /* -1 for transports without one */
    void *transport_data; /* owned by the transport */
};

static inline struct conn_io *conn_io(struct conn *c)
{
    return (struct conn_io *)(void *)c;
}

static inline const struct conn_io *conn_io_const(const struct conn *c)
{
    return (const struct conn_io *)(const void *)c;
}

/* Creates a conn for an accepted transport session and registers it. */
struct conn *conn_create(const struct conn_transport *transport, int fd, void *transport_data);

/* The peer's and the local address as CLIENT LIST shows them ("ip:port",
 * "path:0", "ring:path"), set once after conn_create(). */
void conn_set_peer(struct conn *c, const char *addr, const char *laddr);

/* Readiness. Each reads (or writes) what the transport has now and runs
 * the commands that completes; returns the work done: > 0 when bytes
 * moved, commands ran or the conn closed, 0 when there was nothing to do
 * (or the conn is closed or suspended). */
int conn_on_readable(struct conn *c);
int conn_on_writable(struct conn *c);

/* Tears the conn down (idempotent): calls the transport's close() now and
 * release() at the end of the loop pass. */
void conn_close(struct conn *c, const char *reason);

/* The conn's command is serving other clients meanwhile (a busy script:
 * core/event_loop.h ev_process_nested): a polled transport leaves its
 * session alone, restarts included, until this is false again. */
bool conn_io_suspended(const struct conn *c);

/* For logs and maxclients. */
uint64_t conn_id(const struct conn *c);
const char *conn_addr(const struct conn *c);
const char *conn_laddr(const struct conn *c);
size_t conn_count(void);

#endif
