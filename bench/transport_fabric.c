/*
 * transport_fabric.c — goblin-bench over Goblin Core's libfabric FI_EP_RDM
 * transport (include/goblin/fabric_client.h). Each connection is its own
 * session on its own client endpoint: --provider P, the server's bootstrap
 * listener at --host/--port, the client endpoint bound to --local-address
 * when given. Send modes: "auto" (fi_inject for a frame within the
 * provider's inject size, fi_send otherwise) and "send" (every frame by
 * fi_send, its slot reclaimed from the TX completion queue). recv() spins
 * on the completion queues: a polled transport.
 *
 * Heartbeats are on (the library pings when a lease applies); run the
 * server with --efa-heartbeat-timeout-ms 0 for measurements, as the seeds do.
 */
#include <errno.h>
#include <goblin/fabric_client.h>
#include <stdio.h>
#include <string.h>

#include "transport.h"

static const char *const fabric_send_modes[] = {"auto", "send", NULL};

static int fabric_open(struct bench_conn *conn, const struct bench_target *target)
{
    if (!target->provider) {
        snprintf(conn->error, sizeof conn->error, "--transport fabric needs --provider NAME");
        return -1;
    }
    struct goblin_fabric_options opt = {
        .local_address = target->local_address,
        .force_send = target->send_mode && strcmp(target->send_mode, "send") == 0,
        .timeout_ms = target->timeout_ms,
    };
    struct goblin_fabric *f = NULL;
    char err[200];
    int rc = goblin_fabric_connect(target->provider, target->host, target->port, &opt, &f, err,
                                   sizeof err);
    if (rc != 0) {
        snprintf(conn->error, sizeof conn->error, "libfabric %s to %s:%d: %s", target->provider,
                 target->host, target->port, err);
        return -1;
    }
    conn->state = f;
    return 0;
}

static int fabric_send(struct bench_conn *conn, const void *data, size_t len)
{
    int rc = goblin_fabric_send(conn->state, data, len);
    if (rc == 0) return 0;
    snprintf(conn->error, sizeof conn->error, "libfabric send: %s",
             goblin_fabric_error(conn->state));
    return -1;
}

static ssize_t fabric_recv(struct bench_conn *conn, void *data, size_t cap)
{
    ssize_t n = goblin_fabric_recv(conn->state, data, cap, 10LL * 1000 * 1000);
    if (n > 0) return n;
    if (n == -EPIPE) return 0;
    snprintf(conn->error, sizeof conn->error, "libfabric receive: %s",
             n == 0 ? "no reply within 10 s" : goblin_fabric_error(conn->state));
    return -1;
}

static void fabric_close(struct bench_conn *conn)
{
    goblin_fabric_close(conn->state);
    conn->state = NULL;
}

const struct bench_transport bench_transport_fabric = {
    .name = "fabric",
    .send_modes = fabric_send_modes,
    .open = fabric_open,
    .send = fabric_send,
    .recv = fabric_recv,
    .close = fabric_close,
};
