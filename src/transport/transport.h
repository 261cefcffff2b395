/*
 * transport.h — the transport registry: every way bytes or messages reach
 * the server (kernel sockets, TLS, shared-memory rings, libfabric) is one
 * table registered by name, in the shape of Valkey's connTypeRegister.
 *
 * server.c knows only this table: it starts every transport from the
 * configuration, calls their housekeeping and stops them; it never names
 * one. A transport creates its listeners or endpoints in start(), makes a
 * conn (connection/conn.h) for each client session with its own
 * struct conn_transport (the per-connection I/O calls), and registers each
 * polled target with the event loop at the position its flag had on the
 * command line (ev_add_polled's `order`), so targets of different
 * transports interleave in command-line priority without knowing of each
 * other. What a transport may do to a conn is connection/conn_transport.h,
 * and nothing else of connection/.
 *
 * Adding a transport is a new file under src/transport/ defining a
 * `const struct transport` plus one line in registry.c (and, when it has
 * settings, one in server/settings.c).
 *
 * Trust (hazard, see README "Security"): a transport may let its sessions
 * skip AUTH (--no-auth-ring: the ring file's permissions are the access
 * control) and may carry the binary SBE wire, which authenticates with its
 * Auth template like RESP with AUTH unless the transport is trusted for it
 * (DESIGN §3, docs/sbe.md); both are rows of its struct conn_transport
 * (skips_auth, CONN_TRANSPORT_CARRIES_SBE / _SBE_ANY_PEER / _LOCAL), never
 * decided by a command or by a transport's name.
 */
#ifndef GOBLIN_TRANSPORT_H
#define GOBLIN_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

enum transport_flag {
    TRANSPORT_POLLED = 1u << 0, /* has busy-polled targets (rings, fabrics) */
};

struct transport {
    const char *name; /* "socket", "ring", ... (logs) */
    unsigned flags;
    /* Creates what the configuration asks for (possibly nothing); logs and
     * returns false when the server cannot start. */
    bool (*start)(void);
    /* How many listeners/endpoints start() created (0: not configured). */
    int (*endpoint_count)(void);
    /* Periodic work on the loop thread (reclaim, resume, expire). May be NULL. */
    void (*housekeeping)(void);
    /* Ends every session and releases endpoints; safe after a failed start. */
    void (*stop)(void);
    /* mlock()s the transport's fixed regions (rings, registered buffers)
     * within budget bytes; sets *total to what they map, returns what was
     * locked. For --mlockall under a finite RLIMIT_MEMLOCK. May be NULL. */
    size_t (*lock_memory)(size_t budget, size_t *total);
    /* Its INFO section (`INFO <info_section>`, and INFO all; not in the
     * default set): info() appends the section's lines, heading included.
     * NULL when it has none. */
    const char *info_section;
    void (*info)(struct buf *b);
};

/* Starts every registered transport in registry order; false on the first
 * failure (already logged). Fails too when no transport has an endpoint.
 * Registers every transport's INFO section (core/info_section.h) first. */
bool transports_start(void);

/* Calls every transport's housekeeping. */
void transports_housekeeping(void);

/* Stops every transport, in reverse order. */
void transports_stop(void);

/* Locks every transport's fixed regions within budget bytes (see
 * lock_memory); returns the bytes locked, *total what they map. */
size_t transports_lock_memory(size_t budget, size_t *total);

#endif
