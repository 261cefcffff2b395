/*
 * placement.h — where the server thread runs and how its memory behaves:
 * --cpu N pins the thread, --numa N binds memory allocation to node N and
 * restricts the thread to that node's CPUs (libnuma), --mlockall locks
 * memory so no request pays for a page swapped out.
 *
 * Locking never makes a later allocation fail. Where RLIMIT_MEMLOCK bounds
 * it (a non-root user: Debian's default is 8 MiB), MCL_FUTURE would do
 * exactly that once the heap outgrew the limit, so only the rings are
 * locked there, with one warning saying so; with no effective limit
 * (unlimited, or CAP_IPC_LOCK) everything is. Details in placement.c.
 *
 * Order matters: NUMA binding before any large allocation, mlockall after
 * the binding (so locked pages come from the bound node) and after the rings
 * are mapped.
 */
#ifndef GOBLIN_PLACEMENT_H
#define GOBLIN_PLACEMENT_H

#include <stdbool.h>

/* Applies --numa and --cpu; logs and returns false on a bad combination. */
bool placement_apply(void);

/* With --mlockall yes: no effective RLIMIT_MEMLOCK -> mlockall(MCL_CURRENT),
 * then MCL_FUTURE|MCL_ONFAULT; a finite limit -> mlock() the rings that fit
 * and log exactly one warning. A refused call is a warning, never fatal. */
void placement_lock_memory(void);

/* Settings (core/config.h): --cpu, --numa, --mlockall. */
struct config_table;
extern const struct config_table placement_config;

#endif
