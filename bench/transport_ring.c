/*
 * transport_ring.c — goblin-bench over Goblin Core's shared-memory rings
 * (include/goblin/ring_client.h). Each connection claims its own ring: the
 * request connection the first --ring PATH, the Pub/Sub subscriber the
 * second (or both from --ring-pool DIR). recv() spins on the completion
 * queue, like the server: this is a polled transport.
 */
#include <errno.h>
#include <goblin/ring_client.h>
#include <stdio.h>
#include <string.h>

#include "transport.h"

/* Connections claim target->ring_paths in order of opening. */
static int rings_opened;

static int ring_open(struct bench_conn *conn, const struct bench_target *target)
{
    struct goblin_ring *r = NULL;
    int rc;
    if (target->ring_pool) {
        rc = goblin_ring_open_pool(target->ring_pool, target->timeout_ms, &r);
    } else {
        if (rings_opened >= target->ring_count) {
            snprintf(conn->error, sizeof conn->error,
                     "connection %d needs another ring: give --ring PATH once per connection "
                     "(PUBSUB needs two) or --ring-pool DIR",
                     rings_opened + 1);
            return -1;
        }
        rc = goblin_ring_open(target->ring_paths[rings_opened], target->timeout_ms, &r);
    }
    if (rc != 0) {
        snprintf(conn->error, sizeof conn->error, "attaching to ring %s: %s",
                 target->ring_pool ? target->ring_pool : target->ring_paths[rings_opened],
                 strerror(-rc));
        return -1;
    }
    rings_opened++;
    conn->state = r;
    return 0;
}

static int ring_send(struct bench_conn *conn, const void *data, size_t len)
{
    int rc = goblin_ring_send(conn->state, data, len);
    if (rc == 0) return 0;
    snprintf(conn->error, sizeof conn->error, "ring send: %s", strerror(-rc));
    return -1;
}

static ssize_t ring_recv(struct bench_conn *conn, void *data, size_t cap)
{
    ssize_t n = goblin_ring_recv(conn->state, data, cap, 10LL * 1000 * 1000);
    if (n > 0) return n;
    if (n == -EPIPE) return 0;
    snprintf(conn->error, sizeof conn->error, "ring receive: %s",
             n == 0 ? "no reply within 10 s" : strerror((int)-n));
    return -1;
}

static void ring_close(struct bench_conn *conn)
{
    goblin_ring_close(conn->state);
    conn->state = NULL;
}

const struct bench_transport bench_transport_ring = {
    .name = "ring",
    .send_modes = NULL,
    .open = ring_open,
    .send = ring_send,
    .recv = ring_recv,
    .close = ring_close,
};
