/* placement.c — CPU pinning, NUMA binding, memory locking; see placement.h. */
#include "server/placement.h"

#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "server/config.h"
#include "util/log.h"

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

void placement_lock_memory(void)
{
    if (!config.mlockall) return;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    /* Sanitizer runtimes reserve terabytes of shadow address space. */
    log_notice("mlockall skipped in a sanitizer build");
#else
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        log_warning("mlockall failed (%s): memory stays pageable; raise RLIMIT_MEMLOCK or run "
                    "with --mlockall no to silence this",
                    strerror(errno));
#endif
}
