/*
 * goblin/fabric_client.h — client library for Goblin Core's libfabric
 * reliable-datagram transport (server flags --libfabric / --efa; protocol
 * in goblin/fabric_envelope.h; operator notes in docs/libfabric.md).
 *
 *   struct goblin_fabric *f;
 *   char err[256];
 *   if (goblin_fabric_connect("tcp;ofi_rxm", "10.0.0.1", 17401, NULL, &f, err,
 *                             sizeof err) == 0) {
 *       const char *argv[] = {"PING"};
 *       goblin_fabric_send_command(f, 1, argv, NULL);
 *       const char *reply;
 *       ssize_t n = goblin_fabric_read_reply(f, &reply, 1000000);   // "+PONG\r\n"
 *       goblin_fabric_close(f);
 *   }
 *
 * Connecting: a TCP connection to the server's bootstrap ADDRESS:PORT
 * yields the server endpoint's name; the client opens its own FI_EP_RDM
 * endpoint of the same provider (bound to options.local_address when
 * given), sends HELLO with a random session id and its version range, and
 * waits for HELLO_ACK. A refusal (unsupported versions, too many clients)
 * is -ECONNREFUSED with the server's text in err.
 *
 * Contracts and hazards:
 *  - One thread at a time. Waiting is busy-polling the completion queues
 *    (no interrupts): a thread blocked in a receive keeps a core busy.
 *  - The library makes progress only inside its calls. An idle client must
 *    call goblin_fabric_poll() (or any receive) at least every lease/3 so
 *    that it pings and the server does not expire it (lease from the
 *    server's HELLO_ACK; 0 = no expiry).
 *  - Sending never drops: with every TX slot in flight a send progresses the
 *    completion queues (moving replies into a local buffer, so a pipelining
 *    client never deadlocks) until a slot frees.
 *  - Incoming DATA is restored to sequence order by a bounded reorder
 *    window; an overflow, an envelope error or the server's BYE ends the
 *    session: every call then returns -EPIPE (or -EPROTO).
 *  - Errors are negative errno values; goblin_fabric_error() says more.
 */
#ifndef GOBLIN_FABRIC_CLIENT_H
#define GOBLIN_FABRIC_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct goblin_fabric;

struct goblin_fabric_options {
    const char *local_address; /* the client endpoint's address; NULL: provider default */
    int force_send;            /* 1: every frame by fi_send (never fi_inject) */
    unsigned tx_slots;         /* 0: 16 */
    unsigned rx_slots;         /* 0: 16 */
    size_t max_record;         /* bytes of one message, envelope included; 0: 128 KiB */
    unsigned window_messages;  /* reorder window; 0: 64 */
    size_t window_bytes;       /* 0: 1 MiB */
    unsigned version_min;      /* envelope versions offered; 0: this library's */
    unsigned version_max;      /* 0: this library's */
    int timeout_ms;            /* bootstrap, hello, longest wait for TX room; 0: 5000 */
    int no_heartbeat;          /* 1: never ping (tests of server-side expiry) */
};

/* Connects to the server whose bootstrap listener is host:port, over
 * provider ("tcp;ofi_rxm", "shm", "efa", ...). opt may be NULL. On failure
 * returns -errno and writes why into err. */
int goblin_fabric_connect(const char *provider, const char *host, int port,
                          const struct goblin_fabric_options *opt, struct goblin_fabric **out,
                          char *err, size_t err_cap);

/* Sends BYE, closes the endpoint and frees f. Accepts NULL. */
void goblin_fabric_close(struct goblin_fabric *f);

/* Sends bytes of the payload stream (RESP bytes, or one whole SBE frame
 * when len fits one message) as DATA frames. 0 or -errno. */
int goblin_fabric_send(struct goblin_fabric *f, const void *data, size_t len);

/* Sends one command as a RESP multibulk (lens may be NULL for C strings). */
int goblin_fabric_send_command(struct goblin_fabric *f, int argc, const char *const *argv,
                               const size_t *lens);

/* Receives up to cap bytes of in-order payload, waiting up to timeout_us
 * (-1 = forever). >0 bytes, 0 on timeout, -EPIPE when the session ended. */
ssize_t goblin_fabric_recv(struct goblin_fabric *f, void *buf, size_t cap, long long timeout_us);

/* Reads one complete RESP2/RESP3 reply (pushes included); *reply points into
 * the library's buffer until the next call. Length, 0 on timeout, -EPIPE,
 * -EPROTO on a malformed stream. */
ssize_t goblin_fabric_read_reply(struct goblin_fabric *f, const char **reply, long long timeout_us);

/* Progresses the completion queues once and pings when due; returns 0 or
 * -EPIPE once the session has ended. */
int goblin_fabric_poll(struct goblin_fabric *f);

/* What ended or failed the session last ("" when nothing did). */
const char *goblin_fabric_error(const struct goblin_fabric *f);

/* Diagnostics. */
struct goblin_fabric_stats {
    uint64_t frames_sent, frames_received;
    uint64_t injected, sent_with_fi_send; /* how DATA/control frames left */
    uint64_t sequestered, duplicates;     /* reorder window */
    uint64_t pings_sent, pongs_received;
    uint64_t last_correlation; /* of the last DATA frame received */
    uint32_t lease_ms;         /* from HELLO_ACK */
    unsigned version;          /* envelope version agreed */
};
void goblin_fabric_get_stats(const struct goblin_fabric *f, struct goblin_fabric_stats *out);

#ifdef __cplusplus
}
#endif

#endif
