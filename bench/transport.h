/*
 * transport.h — how goblin-bench moves bytes to a server and back.
 *
 * A transport is a small table of functions registered by name ("tcp",
 * "unix"; later "ring" and "fabric"), in the shape of Valkey's connection
 * types: the measurement loop never knows which one it drives. Every
 * transport is a reliable, ordered byte or message stream; the wire (RESP,
 * later SBE) frames replies on top of it.
 *
 * Contracts every transport keeps:
 *   - open() does all setup (connect, handshakes, buffer registration); it is
 *     never called inside a timed region.
 *   - send() hands the whole request to the transport or fails; it does not
 *     allocate.
 *   - recv() waits until at least one byte (or one message) is available and
 *     returns what it got. How it waits is the transport's business: kernel
 *     sockets block in read(), a polled transport (ring, libfabric) spins on
 *     its completion queue. recv() does not allocate.
 *   - Errors are -1 with a message in conn->error naming what was being done.
 */
#ifndef GOBLIN_BENCH_TRANSPORT_H
#define GOBLIN_BENCH_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where the server is. Each transport reads the fields it needs. */
struct bench_target {
    const char *host;          /* tcp: address (default 127.0.0.1) */
    int port;                  /* tcp: port (default 6379) */
    const char *socket_path;   /* unix: socket path */
    const char *ring_paths[4]; /* ring: one ring per connection, in order */
    int ring_count;
    const char *ring_pool;     /* ring: claim from a --ring-pool directory instead */
    const char *provider;      /* fabric: libfabric provider ("tcp;ofi_rxm", "efa", ...) */
    const char *local_address; /* fabric: the client endpoint's address (NULL: default) */
    const char *send_mode;     /* the resolved send mode of transports that have them */
    int timeout_ms;            /* a reply not arriving within this fails the run */
};

/* Receive buffer of one connection. Depth one keeps at most one reply (or one
 * Pub/Sub delivery) in flight, so a fixed buffer that holds the largest reply
 * of any op is enough; a reply that does not fit is an error, not a resize. */
#define BENCH_CONN_RX_CAP 65536

struct bench_conn {
    const struct bench_transport *transport;
    int fd;      /* socket transports; -1 otherwise */
    void *state; /* transport-private state (polled transports) */
    size_t rx_len;
    char rx[BENCH_CONN_RX_CAP];
    char error[256];
};

struct bench_transport {
    const char *name;
    /* Send policies the transport offers (e.g. "auto", "send" for
     * libfabric), NULL-terminated with the default first; NULL when the
     * transport has none (kernel sockets). */
    const char *const *send_modes;
    int (*open)(struct bench_conn *conn, const struct bench_target *target);
    int (*send)(struct bench_conn *conn, const void *data, size_t len);
    /* >0 bytes received, 0 end of stream, -1 error (timeout included). */
    ssize_t (*recv)(struct bench_conn *conn, void *data, size_t cap);
    void (*close)(struct bench_conn *conn);
};

/* The transport registered under `name`, or NULL. */
const struct bench_transport *bench_transport_find(const char *name);

/* Names of the registered transports, comma-separated (for --help). */
const char *bench_transport_names(void);

/* Opens conn over transport; conn->error says why on -1. */
int bench_conn_open(struct bench_conn *conn, const struct bench_transport *transport,
                    const struct bench_target *target);
void bench_conn_close(struct bench_conn *conn);

/* A frame function: >0 length of the complete reply at buf, 0 incomplete,
 * -1 malformed. The wire supplies it. */
typedef long long (*bench_frame_fn)(const char *buf, size_t len);

/*
 * Waits until conn's receive buffer starts with one complete reply and
 * returns its length (the reply is conn->rx[0..len)). Returns -1 with
 * conn->error set on end of stream, a transport error, a malformed reply or
 * a reply larger than the buffer. The caller consumes it with
 * bench_conn_consume().
 */
long long bench_conn_read_reply(struct bench_conn *conn, bench_frame_fn frame);
/* The same for `count` consecutive replies (a pipelined group, the MULTI
 * op): returns their total length once all are in the buffer. */
long long bench_conn_read_replies(struct bench_conn *conn, bench_frame_fn frame, unsigned count);

/* Drops the first len bytes of the receive buffer (slides the rest down:
 * at depth one nothing normally follows a reply). */
void bench_conn_consume(struct bench_conn *conn, size_t len);

/* The socket transports (transport_socket.c). */
extern const struct bench_transport bench_transport_tcp;
extern const struct bench_transport bench_transport_unix;
/* The shared-memory ring transport (transport_ring.c). */
extern const struct bench_transport bench_transport_ring;
/* The libfabric FI_EP_RDM transport (transport_fabric.c). */
extern const struct bench_transport bench_transport_fabric;

#endif
