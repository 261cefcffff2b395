/* monitor.h — MONITOR's feed: see cmd_monitor.c. */
#ifndef GOBLIN_MONITOR_H
#define GOBLIN_MONITOR_H

#include <stddef.h>

#include "connection/session.h"

struct cmd_ctx;

/* Formats ctx's command as a monitor line and sends it to every monitor. */
void monitor_feed_command(const struct cmd_ctx *ctx);

/* After a command ran: one branch while nobody monitors. */
static inline void monitor_consider(const struct cmd_ctx *ctx)
{
    if (__builtin_expect(conn_monitor_count != 0, 0)) monitor_feed_command(ctx);
}

/* EVAL/FCALL (CMD_SKIP_MONITOR) at their start, as Redis's evalCommand
 * ("so that lua commands appear after their script command"). */
void monitor_feed_script_call(const struct cmd_ctx *ctx);

#endif
