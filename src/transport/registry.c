/* registry.c — the list of transports; see transport.h. */
#include "transport/transport.h"

#include <stddef.h>

#include "core/info_section.h"
#include "util/log.h"

extern const struct transport fabric_transport;
extern const struct transport ring_transport;
extern const struct transport socket_transport;
extern const struct transport tls_transport;

/* Start order: polled transports first, so that once a socket accepts,
 * every transport is ready; TLS opens its listeners before the socket
 * transport, which holds them (socket.h). One line per transport. */
static const struct transport *const registry[] = {
    &ring_transport,
    &fabric_transport,
    &tls_transport,
    &socket_transport,
};

#define REGISTRY_COUNT ((int)(sizeof registry / sizeof registry[0]))

bool transports_start(void)
{
    for (int i = 0; i < REGISTRY_COUNT; i++)
        if (registry[i]->info) info_section_add(registry[i]->info_section, registry[i]->info);
    int endpoints = 0;
    for (int i = 0; i < REGISTRY_COUNT; i++) {
        if (!registry[i]->start()) return false;
        endpoints += registry[i]->endpoint_count();
    }
    if (endpoints == 0) {
        log_warning(
            "nothing to serve: --port 0 and no --tls-port, --listen, --unixsocket, --ring or "
            "--libfabric");
        return false;
    }
    return true;
}

void transports_housekeeping(void)
{
    for (int i = 0; i < REGISTRY_COUNT; i++)
        if (registry[i]->housekeeping) registry[i]->housekeeping();
}

void transports_stop(void)
{
    for (int i = REGISTRY_COUNT - 1; i >= 0; i--) registry[i]->stop();
}

size_t transports_lock_memory(size_t budget, size_t *total)
{
    size_t locked = 0;
    *total = 0;
    for (int i = 0; i < REGISTRY_COUNT; i++) {
        if (!registry[i]->lock_memory) continue;
        size_t mapped = 0;
        locked += registry[i]->lock_memory(budget - locked, &mapped);
        *total += mapped;
    }
    return locked;
}
