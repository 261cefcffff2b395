/*
 * server.h — startup, the loop and housekeeping: the composition root that
 * starts every layer (the process's identity is core/server_state.h).
 */
#ifndef GOBLIN_SERVER_H
#define GOBLIN_SERVER_H

#include <stdbool.h>
#include <stdint.h>

/* Sets up everything from config: keyspace, listeners. Returns false (after
 * logging why) when the server cannot start. */
bool server_start(void);

/* Runs until SIGINT/SIGTERM or SHUTDOWN. */
void server_run(void);

/* Releases listeners (unlinks Unix socket files) and everything else. */
void server_stop(void);

/* Periodic work: LRU clock, active expiry, incremental rehash, idle clients. */
void server_housekeeping(void);

/* Settings (core/config.h): hz, active-expire-effort, loglevel. */
struct config_table;
extern const struct config_table server_config;

#endif
