/*
 * goblin/ring_client.h — client library for Goblin Core's shared-memory rings.
 *
 * A ring is a file the server created with --ring PATH SIZE (or one of the
 * files of --ring-pool DIR COUNT SIZE). A process maps it, claims it (one
 * client per ring), and exchanges a RESP byte stream with the server: no
 * syscall and no network stack on the request path.
 *
 *   struct goblin_ring *r;
 *   if (goblin_ring_open("/dev/shm/goblin.ring", 1000, &r) == 0) {
 *       const char *argv[] = {"SET", "k", "v"};
 *       goblin_ring_send_command(r, 3, argv, NULL);
 *       const char *reply;
 *       ssize_t n = goblin_ring_read_reply(r, &reply, 1000000);   // "+OK\r\n"
 *       goblin_ring_close(r);
 *   }
 *
 * Contracts and hazards:
 *  - All calls are for one thread at a time (the ring is single-producer,
 *    single-consumer on each side). Waiting is busy-polling: a thread
 *    blocked in goblin_ring_read_reply() spins on one cache line.
 *  - Pipelining is unbounded on the client side: goblin_ring_send() never
 *    deadlocks when the SQ is full, because while it waits it moves replies
 *    out of the CQ into a local buffer (which grows as needed).
 *  - Errors are negative errno values: -EBUSY (a live process holds the
 *    ring), -ENOENT/-EACCES (file), -EPROTO (not a ring / wrong version),
 *    -ETIMEDOUT, -EPIPE (the server ended the session or went away).
 *  - After -EPIPE call goblin_ring_reconnect() (a new session: server state
 *    such as SELECT, HELLO 3, subscriptions and AUTH starts afresh).
 *  - A process that exits without goblin_ring_close() is detected by the
 *    server (its pid in the claim word is gone) and the ring is reclaimed.
 */
#ifndef GOBLIN_RING_CLIENT_H
#define GOBLIN_RING_CLIENT_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct goblin_ring;

/* Maps and claims the ring at path and connects a new session, waiting up
 * to timeout_ms for the server to acknowledge. 0 or -errno. */
int goblin_ring_open(const char *path, int timeout_ms, struct goblin_ring **out);

/* Claims the first free ring of a --ring-pool directory. 0 or -errno
 * (-EBUSY when every ring is taken). */
int goblin_ring_open_pool(const char *dir, int timeout_ms, struct goblin_ring **out);

/* Starts a new session on the same ring (drops anything in flight). */
int goblin_ring_reconnect(struct goblin_ring *r, int timeout_ms);

/* Ends the session, releases the claim, unmaps. Accepts NULL. */
void goblin_ring_close(struct goblin_ring *r);

/* Sends raw bytes of the RESP stream. 0 or -errno. */
int goblin_ring_send(struct goblin_ring *r, const void *data, size_t len);

/* Sends one command as a RESP multibulk (lens may be NULL for C strings). */
int goblin_ring_send_command(struct goblin_ring *r, int argc, const char *const *argv,
                             const size_t *lens);

/* Receives up to cap raw bytes, waiting up to timeout_us (-1 = forever).
 * >0 bytes, 0 on timeout, -EPIPE when the session ended. */
ssize_t goblin_ring_recv(struct goblin_ring *r, void *buf, size_t cap, long long timeout_us);

/* Reads one complete RESP2/RESP3 reply (pushes included). *reply points
 * into the library's buffer until the next call. Returns its length, 0 on
 * timeout, -EPIPE when the session ended, -EPROTO on a malformed stream. */
ssize_t goblin_ring_read_reply(struct goblin_ring *r, const char **reply, long long timeout_us);

/* The file this ring maps. */
const char *goblin_ring_path(const struct goblin_ring *r);

#ifdef __cplusplus
}
#endif

#endif
