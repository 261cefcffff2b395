/*
 * command_hooks.h — one word for the rarely-active features on the command
 * path (docs/architecture.md, "Hot path").
 *
 * Each feature that adds work to every command while it is on sets its bit
 * where it switches on and clears it where it switches off. The command
 * path (command.c, conn.c) tests the word: zero means none of them is on,
 * and their checks and hooks are skipped with one test; otherwise each runs
 * under its own condition as before, in the same order. A bit set longer
 * than its feature is on costs time, never behaviour; a bit missing while
 * its feature is on would skip it, so the sanitizer build checks the word
 * against every feature's own state on every request (command.c).
 */
#ifndef GOBLIN_COMMAND_HOOKS_H
#define GOBLIN_COMMAND_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

enum command_hook {
    HOOK_CLUSTER = 1u << 0,       /* cluster mode: redirection, after-command bookkeeping */
    HOOK_MAXMEMORY = 1u << 1,     /* maxmemory set: eviction before each command */
    HOOK_BGSAVE_FAILED = 1u << 2, /* the last background save failed: writes may be refused */
    /* The propagated stream has a consumer (core/propagation.h: the AOF):
     * commands propagated, the AOF's write errors checked. */
    HOOK_PROPAGATE = 1u << 3,
    HOOK_BUSY_SCRIPT = 1u << 4, /* a script runs past busy-reply-threshold */
    HOOK_PAUSE = 1u << 5,       /* CLIENT PAUSE in force */
    HOOK_TRACKING = 1u << 6,    /* some client has CLIENT TRACKING on */
    HOOK_MONITOR = 1u << 7,     /* some client is in MONITOR */
    HOOK_ADMISSION = 1u << 8,   /* an admission check is installed (command_set_admission) */
    /* The role checks (commands/command.h, command_set_role_checks; repl/):
     * min-replicas-to-write may refuse writes (NOREPLICAS), and a replica
     * refuses clients' writes (READONLY) and, with its link down, stale
     * reads (MASTERDOWN). */
    HOOK_MIN_REPLICAS = 1u << 9,
    HOOK_REPLICA = 1u << 10,
    /* A load serving clients meanwhile (persist_loading: a replica's full
     * sync): commands without the loading flag get -LOADING. */
    HOOK_LOADING = 1u << 11,
    /* A load beside the live data set (persist_loading_async: a replica's
     * repl-diskless-load swapdb): no_async_loading commands get -LOADING. */
    HOOK_ASYNC_LOADING = 1u << 12,
};

/* The features that keep or show every command's arguments as text (the
 * AOF's propagation, MONITOR, CLIENT PAUSE's postponed copy): while one is
 * on, a binary wire lowers its typed calls to text (protocol/typed_call.h). */
#define HOOKS_TEXT_ARGV (HOOK_PROPAGATE | HOOK_MONITOR | HOOK_PAUSE)

extern uint32_t command_hooks;

static inline void command_hook_set(enum command_hook hook, bool on)
{
    if (on)
        command_hooks |= (uint32_t)hook;
    else
        command_hooks &= ~(uint32_t)hook;
}

#endif
