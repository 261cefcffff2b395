/*
 * slowlog.h — SLOWLOG: the most recent commands that ran longer than
 * slowlog-log-slower-than microseconds, at most slowlog-max-len of them,
 * with Redis 7.0's entry format (id, unix time, microseconds, arguments
 * trimmed to 32 and to 128 bytes each, client address, client name).
 *
 * Cost: command_call() compares the command's elapsed cycles with a
 * threshold kept in cycles (UINT64_MAX when disabled): one compare per
 * command; only a slow command pays for an entry (allocation and copies).
 */
#ifndef GOBLIN_SLOWLOG_H
#define GOBLIN_SLOWLOG_H

#include <stdint.h>

struct cmd_ctx;
struct typed_call;

/* The threshold in cycles; UINT64_MAX = off (slowlog-log-slower-than < 0). */
extern uint64_t slowlog_threshold_cycles;

/* Recomputes the threshold and trims to slowlog-max-len (CONFIG SET, and
 * at startup once the cycle counter is calibrated). */
void slowlog_apply_config(void);

/* Records ctx's command, which ran for `cycles` (out of line: slow path);
 * a typed call (typed_call.h, or NULL) as its RESP form, numbers as text. */
void slowlog_record(const struct cmd_ctx *ctx, const struct typed_call *typed, uint64_t cycles);

static inline void slowlog_consider(const struct cmd_ctx *ctx, const struct typed_call *typed,
                                    uint64_t cycles)
{
    if (__builtin_expect(cycles >= slowlog_threshold_cycles, 0)) slowlog_record(ctx, typed, cycles);
}

/* Settings (core/config.h): slowlog-log-slower-than, slowlog-max-len. */
struct config_table;
extern const struct config_table slowlog_config;

#endif
