/*
 * shutdown.h — Redis 7.0's shutdown sequence (prepareForShutdown,
 * isReadyToShutdown, finishShutdown, abortShutdown), for SHUTDOWN and for
 * SIGTERM/SIGINT alike.
 *
 * A shutdown first waits, with writes paused, for every replica to
 * acknowledge the whole replication stream — at most shutdown-timeout
 * seconds (0: no wait; SHUTDOWN NOW, or the signal's shutdown-on-* `now`,
 * skips it). Then the data's last steps (persist_prepare_shutdown: children
 * stopped, the AOF fsynced, the final save when asked for or when save
 * points exist); when one fails (the save, or the initial AOF still being
 * written) the server logs why and keeps running, unless FORCE. Only then
 * does the loop stop. SHUTDOWN callers wait blocked meanwhile (CLIENT LIST
 * flags=b); a failed or aborted shutdown answers them all
 * "Errors trying to SHUTDOWN. Check logs.". A second SIGINT while a
 * shutdown is pending exits at once with status 1 ("You insist"), the
 * temp RDB file of a save in progress removed.
 */
#ifndef GOBLIN_SHUTDOWN_H
#define GOBLIN_SHUTDOWN_H

#include "core/config.h"

/* SIGINT and SIGTERM ask for a shutdown (installed by server_start). */
void shutdown_install_signal_handlers(void);

/* Adds SHUTDOWN to the command table (before command_table_init). */
void shutdown_init(void);

/* Housekeeping (Redis's serverCron): begins the shutdown a signal asked
 * for; ends a wait for the replicas once they caught up or timed out. */
void shutdown_housekeeping(void);

/* shutdown-on-sigint, shutdown-on-sigterm, shutdown-timeout. */
extern const struct config_table shutdown_config;

#endif
