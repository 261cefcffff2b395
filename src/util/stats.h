/*
 * stats.h — the server's event counters (INFO stats), in a header of their
 * own so the layers that bump them (transports, connection, command
 * dispatch) need not know the server's process-wide state (server/server.h).
 *
 * Single-threaded: every counter is written and read on the server thread,
 * so plain integers suffice. CONFIG RESETSTAT zeroes the whole struct.
 */
#ifndef GOBLIN_STATS_H
#define GOBLIN_STATS_H

struct stats {
    long long connections_received;
    long long rejected_connections;
    long long commands_processed;
    long long net_input_bytes;
    long long net_output_bytes;
    long long query_buffer_limit_disconnections;
    long long output_buffer_limit_disconnections; /* client-output-buffer-limit */
    long long protocol_error_disconnections;
    long long instantaneous_ops_per_sec;           /* over the last sampling second */
    long long pubsub_slow_consumer_disconnections; /* a push did not fit the FIFO */
    long long typed_calls;      /* commands a binary wire's typed template called directly */
    long long reads_processed;  /* transport reads of client input (INFO total_reads_processed) */
    long long writes_processed; /* output flushes to clients (total_writes_processed) */
    double instantaneous_input_kbps, instantaneous_output_kbps; /* over the last second */
    long long expire_cycle_cpu_ms;                              /* active expiry's time, summed */
    long long expire_cycle_cpu_ms_us;   /* the same in microseconds (the running sum) */
    long long expired_time_cap_reached; /* active expiry runs that used their whole budget */
    long long evicted_clients;          /* closed by maxmemory-clients */
    long long total_forks;              /* BGSAVE / BGREWRITEAOF children started */
    long long latest_fork_usec;         /* how long the last fork() took */
    long long reply_buffer_shrinks;     /* conn_resize_reply_buffers */
    long long reply_buffer_expands;
};

extern struct stats stats;

#endif
