/*
 * placement.h — where the server thread runs and how its memory behaves:
 * --cpu N pins the thread, --numa N binds memory allocation to node N and
 * restricts the thread to that node's CPUs (libnuma), --mlockall locks and
 * prefaults every page so no request pays a page fault.
 *
 * Order matters: NUMA binding before any large allocation, mlockall after
 * the binding (so locked pages come from the bound node).
 */
#ifndef GOBLIN_PLACEMENT_H
#define GOBLIN_PLACEMENT_H

#include <stdbool.h>

/* Applies --numa and --cpu; logs and returns false on a bad combination. */
bool placement_apply(void);

/* mlockall(MCL_CURRENT|MCL_FUTURE) when --mlockall yes; a warning if refused. */
void placement_lock_memory(void);

#endif
