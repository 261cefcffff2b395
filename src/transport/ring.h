/*
 * ring.h — the shared-memory ring transport, server side (--ring, --ring-pool).
 *
 * Each ring file carries one client session at a time (layout and memory
 * ordering in include/goblin/ring_layout.h; operator notes in docs/rings.md).
 * The server creates and owns the files, polls each ring as a polled target
 * of the event loop in command-line order, and gives every session a fresh
 * conn — so a reconnect resets protocol state, subscriptions and auth.
 *
 * A client (re)connects by advancing the header's epoch; the server then
 * drops the previous session (its unread requests and unsent replies) and
 * acknowledges through ready_epoch. A client that dies is detected in
 * housekeeping (its claim pid no longer exists) and its ring is reclaimed.
 * A malformed record ends that session only.
 */
#ifndef GOBLIN_TRANSPORT_RING_H
#define GOBLIN_TRANSPORT_RING_H

#include <stdbool.h>

/* The registry entry is `ring_transport` (transport/transport.h). */

/* Rounds a requested per-direction size up to a power of two >= the page size. */
unsigned long long ring_round_size(unsigned long long bytes);

/* Settings (core/config.h): --ring, --ring-pool, --no-auth-ring. */
struct config_table;
extern const struct config_table ring_config;

#endif
