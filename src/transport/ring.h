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
#include <stddef.h>

/* Creates every --ring / --ring-pool file and registers the polled targets.
 * Logs and returns false on failure. */
bool ring_transports_start(void);

/* mlock()s ring mappings in command-line order while their sum stays within
 * budget bytes (a ring that does not fit is skipped, later smaller ones are
 * still tried). Sets *total to the bytes every ring maps; returns the bytes
 * locked. For --mlockall under a finite RLIMIT_MEMLOCK (server/placement.c). */
size_t ring_transports_lock_memory(size_t budget, size_t *total);

/* Reclaims rings whose owning client process is gone (housekeeping). */
void ring_transports_housekeeping(void);

/* Ends sessions, unmaps and removes the files. */
void ring_transports_stop(void);

/* Rounds a requested per-direction size up to a power of two >= the page size. */
unsigned long long ring_round_size(unsigned long long bytes);

#endif
