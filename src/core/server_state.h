/*
 * server_state.h — the process's identity and the samples INFO reports:
 * when it started, its run id and replication id, the first TCP port it
 * bound, and the last per-second samples of commands and bytes. Set at
 * startup (server/server.c) and by the socket transport (tcp_port); read
 * by INFO and DEBUG.
 */
#ifndef GOBLIN_SERVER_STATE_H
#define GOBLIN_SERVER_STATE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server {
    int64_t start_ms;      /* wall clock at start */
    int64_t start_mono_us; /* monotonic at start (uptime) */
    char run_id[41];
    char repl_id[41];           /* INFO's master_replid: run_id until DEBUG CHANGE-REPL-ID */
    int tcp_port;               /* first TCP port actually bound (INFO) */
    int64_t ops_sample_us;      /* when commands_processed was last sampled */
    long long ops_sample_count; /* its value then */
    long long input_sample_bytes, output_sample_bytes; /* net bytes then */
    const char *supervised; /* "systemd" or "upstart" when supervised (server/daemon.c); NULL: no */
    bool cron_paused;       /* DEBUG PAUSE-CRON 1: housekeeping skipped, as Redis's serverCron */
    /* The shutdown (server/shutdown.c): the SIGINT/SIGTERM received and
     * not yet shut down for or aborted (Redis's shutdown_asap; a DEBUG
     * SLEEP ends early on it), and while the replicas are waited for, when
     * the wait ends (INFO shutdown_in_milliseconds; 0: no wait). */
    volatile sig_atomic_t shutdown_signal;
    int64_t shutdown_deadline_ms;
};

extern struct server server;

/* Replication's counters (repl/ counts them, INFO stats shows them). */
struct repl_stats {
    long long sync_full, sync_partial_ok, sync_partial_err; /* syncs served */
    long long output_bytes;                                 /* stream bytes sent to replicas */
    size_t backlog_bytes;                                   /* the backlog's ring, 0: none */
};
extern struct repl_stats repl_stats;

/* Start time and a new random run id (the replication id is the same). */
void server_state_init(void);

/* DEBUG CHANGE-REPL-ID: a new random replication id (INFO master_replid). */
void server_change_repl_id(void);

#endif
