/* placement.c — CPU pinning, NUMA binding, memory locking; see placement.h. */
#include "server/placement.h"

#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "core/config.h"
#include "transport/transport.h"
#include "util/log.h"

/* linux/capability.h's CAP_IPC_LOCK, without pulling in its types. */
#define CAP_IPC_LOCK_BIT 14

bool placement_apply(void)
{
    if (config.numa >= 0) {
        if (numa_available() < 0) {
            log_warning("--numa %lld: this kernel/machine has no NUMA support", config.numa);
            return false;
        }
        if (config.numa > numa_max_node()) {
            log_warning("--numa %lld: no such node (highest is %d)", config.numa, numa_max_node());
            return false;
        }
        if (config.cpu >= 0 && numa_node_of_cpu((int)config.cpu) != config.numa) {
            log_warning("--cpu %lld is on NUMA node %d, not on --numa %lld", config.cpu,
                        numa_node_of_cpu((int)config.cpu), config.numa);
            return false;
        }
        struct bitmask *nodes = numa_allocate_nodemask();
        numa_bitmask_setbit(nodes, (unsigned)config.numa);
        numa_set_bind_policy(1);
        numa_set_membind(nodes);
        numa_bitmask_free(nodes);
        if (numa_run_on_node((int)config.numa) != 0) {
            log_warning("--numa %lld: cannot run on the node's CPUs: %s", config.numa,
                        strerror(errno));
            return false;
        }
    }
    if (config.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)config.cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            log_warning("--cpu %lld: cannot pin the server thread: %s", config.cpu,
                        strerror(errno));
            return false;
        }
        log_notice("server thread pinned to CPU %lld", config.cpu);
    }
    return true;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* Sanitizer runtimes reserve terabytes of shadow address space. */
#define PLACEMENT_CAN_LOCK 0
#else
#define PLACEMENT_CAN_LOCK 1
#endif

#if PLACEMENT_CAN_LOCK
/* True when locking is not bounded by RLIMIT_MEMLOCK: the limit is
 * unlimited, or the process holds CAP_IPC_LOCK (which bypasses it for mlock,
 * MCL_FUTURE mappings and stack growth alike). */
static bool memlock_unbounded(rlim_t *limit)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) rl.rlim_cur = 0;
    *limit = rl.rlim_cur;
    if (rl.rlim_cur == RLIM_INFINITY) return true;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return false;
    char line[256];
    unsigned long long caps = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &caps) == 1) break;
    fclose(f);
    return (caps >> CAP_IPC_LOCK_BIT) & 1;
}

/* Bytes already locked (VmLck), to be subtracted from the limit. */
static size_t memlock_current_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmLck: %llu kB", &kib) == 1) break;
    fclose(f);
    return (size_t)kib * 1024;
}

/* Unbounded: everything mapped now is locked and prefaulted; every later
 * mapping is locked as its pages are first touched (MCL_ONFAULT), so
 * reservations never touched (thread stacks, allocator alignment slack) are
 * not populated. Locked heap pages cannot be purged with madvise; the
 * allocator gives them back with munmap instead (util/allocator.c). */
static void lock_everything(void)
{
    if (mlockall(MCL_CURRENT) != 0) {
        log_warning("--mlockall yes: mlockall(MCL_CURRENT) failed (%s): memory stays pageable; "
                    "run with --mlockall no to silence this",
                    strerror(errno));
        return;
    }
    if (mlockall(MCL_FUTURE | MCL_ONFAULT) != 0)
        log_warning("--mlockall yes: memory mapped at startup is locked, but "
                    "mlockall(MCL_FUTURE|MCL_ONFAULT) failed (%s): later allocations stay pageable",
                    strerror(errno));
}

/* Bounded: MCL_FUTURE would make every mapping past the limit fail (malloc
 * returning NULL: issue 9), and even MCL_CURRENT would count the main
 * stack's later growth against the limit (SIGSEGV at the limit). So only the
 * rings, whose size is fixed at startup, are locked, as far as they fit. */
static void lock_rings_within(rlim_t limit)
{
    size_t already = memlock_current_bytes();
    size_t budget = limit > already ? (size_t)limit - already : 0;
    size_t total = 0, locked = transports_lock_memory(budget, &total);
    log_warning("--mlockall yes: RLIMIT_MEMLOCK is %llu KiB, so only the rings are locked (%zu of "
                "%zu bytes); heap, stacks and code stay pageable, since locking them would make "
                "allocations fail at the limit. To lock everything raise the limit (ulimit -l "
                "unlimited) or grant CAP_IPC_LOCK; --mlockall no silences this",
                (unsigned long long)(limit / 1024), locked, total);
}

#endif /* PLACEMENT_CAN_LOCK */

void placement_lock_memory(void)
{
    if (!config.mlockall) return;
#if PLACEMENT_CAN_LOCK
    rlim_t limit;
    if (memlock_unbounded(&limit))
        lock_everything();
    else
        lock_rings_within(limit);
#else
    log_notice("mlockall skipped in a sanitizer build");
#endif
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param placement_params[] = {
    {.name = "cpu",
     .kind = CFG_INT,
     .value = &config.cpu,
     .min = -1,
     .max = 4095,
     .flags = CFG_IMMUTABLE,
     .value_name = "N",
     .help = "pin the server thread to CPU N (-1 = no pinning)"},
    {.name = "numa",
     .kind = CFG_INT,
     .value = &config.numa,
     .min = -1,
     .max = 1023,
     .flags = CFG_IMMUTABLE,
     .value_name = "N",
     .help = "bind memory to NUMA node N and run on its CPUs (-1 = no binding)"},
    {.name = "mlockall",
     .kind = CFG_BOOL,
     .value = &config.mlockall,
     .flags = CFG_IMMUTABLE,
     .value_name = "yes|no",
     .help = "lock all memory at startup, prefaulting it (default yes; failure is a warning)"},
};

const struct config_table placement_config = CONFIG_TABLE(placement_params, NULL);
