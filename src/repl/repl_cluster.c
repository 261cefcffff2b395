/*
 * repl_cluster.c — replication as Redis Cluster drives it: the hooks the
 * cluster layer (below us: it never includes repl/) calls when this node
 * becomes a replica of a master (CLUSTER REPLICATE, a failover elsewhere,
 * nodes.conf at start) or a master (a failover it won), and the offset and
 * data age its bus messages and elections need (cluster/cluster.h,
 * struct cluster_replication).
 */
#include "cluster/cluster.h"
#include "repl/repl.h"
#include "repl/repl_internal.h"
#include "util/log.h"

static void cluster_follow(const char *ip, int port)
{
    if (ip) {
        repl_replica_follow(ip, port);
        return;
    }
    if (!repl_is_replica) return;
    repl_replica_back_to_master();
    log_notice("MASTER MODE enabled (cluster failover)");
}

static long long cluster_offset(void)
{
    return repl_offset();
}

static long long cluster_ping_period_ms(void)
{
    return repl_settings.ping_replica_period * 1000;
}

static const struct cluster_replication hooks = {
    .follow = cluster_follow,
    .offset = cluster_offset,
    .data_age_ms = repl_replica_data_age_ms,
    .ping_period_ms = cluster_ping_period_ms,
};

void repl_cluster_init(void)
{
    cluster_set_replication(&hooks);
}
