/*
 * server.h — process-wide state: statistics, startup, housekeeping.
 */
#ifndef GOBLIN_SERVER_H
#define GOBLIN_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "util/stats.h" /* the counters INFO reports (moved there) */

struct server {
    int64_t start_ms;      /* wall clock at start */
    int64_t start_mono_us; /* monotonic at start (uptime) */
    char run_id[41];
    char repl_id[41];           /* INFO's master_replid: run_id until DEBUG CHANGE-REPL-ID */
    int tcp_port;               /* first TCP port actually bound (INFO) */
    int64_t ops_sample_us;      /* when commands_processed was last sampled */
    long long ops_sample_count; /* its value then */
    long long input_sample_bytes, output_sample_bytes; /* net bytes then */
};

extern struct server server;

/* Sets up everything from config: keyspace, listeners. Returns false (after
 * logging why) when the server cannot start. */
bool server_start(void);

/* Runs until SIGINT/SIGTERM or SHUTDOWN. */
void server_run(void);

/* Releases listeners (unlinks Unix socket files) and everything else. */
void server_stop(void);

/* Periodic work: LRU clock, active expiry, incremental rehash, idle clients. */
void server_housekeeping(void);

/* DEBUG CHANGE-REPL-ID: a new random replication id (INFO master_replid). */
void server_change_repl_id(void);

#endif
