/*
 * cluster_failover.c — a replica taking its master's place, as Redis 7.0
 * does it (cluster.h, "failover").
 *
 * Automatic: once the master is FAIL, each of its replicas whose data is
 * fresh enough (cluster-replica-validity-factor) waits 500 ms + a random
 * 0-500 ms + 1 s per replica with a larger replication offset (its rank),
 * bumps currentEpoch and asks every master for a vote
 * (FAILOVER_AUTH_REQUEST). A master serving slots votes once per epoch, for
 * a replica of a failed master, not twice for that master within two node
 * timeouts, and only when no slot the replica claims has a newer owner. A
 * majority of the masters serving slots (FAILOVER_AUTH_ACK) elects it: it
 * takes the epoch as its config epoch and its master's slots, and tells
 * every node with a PONG; the other nodes (the old master when it returns)
 * follow the newer epoch. An election not won in two node timeouts (at
 * least 2 s) is retried after twice that.
 *
 * Manual (CLUSTER FAILOVER): the replica sends MFSTART; its master pauses
 * clients' writes and says so (the PAUSED flag) with its offset in a ping;
 * once the replica has applied that offset it runs the election with
 * FORCEACK, which masters honour though the master is not failing. FORCE
 * skips the master's part; TAKEOVER skips the election too (a new config
 * epoch without agreement). Either times out after 5 s.
 *
 * Replica migration: a master serving slots that once had replicas and has
 * had no working one for 5 s is an orphan; a replica of a master with the
 * most working replicas, more than cluster-migration-barrier, the one with
 * the smallest name among those, becomes its replica.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "connection/session.h"
#include "core/config.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/rand.h"

#define MF_TIMEOUT_MS 5000 /* Redis's CLUSTER_MF_TIMEOUT */
#define MF_PAUSE_MULT 2    /* a master pauses writes for twice that */

static int64_t node_timeout(void)
{
    return config.cluster_node_timeout;
}

void cluster_failover_reset_manual(void)
{
    /* A master handing over: its failover pause ends (a user's CLIENT
     * PAUSE, a purpose of its own, stays). */
    if (cluster.mf_replica) session_unpause(SESSION_PAUSE_FAILOVER);
    cluster.mf_end_ms = 0;
    cluster.mf_can_start = false;
    cluster.mf_replica = NULL;
    cluster.mf_master_offset = -1;
}

/* Replicas of our master with more of its stream than we have. */
static int replica_rank(void)
{
    struct cluster_node *master = cluster_node_master(cluster.myself);
    if (!master || !cluster_replication) return 0;
    long long mine = cluster_replication->offset();
    struct cluster_node *replicas[64];
    int count = cluster_node_replicas(master, replicas, 64);
    if (count > 64) count = 64;
    int rank = 0;
    for (int i = 0; i < count; i++)
        if (replicas[i] != cluster.myself && !(replicas[i]->flags & NODE_NOFAILOVER) &&
            replicas[i]->repl_offset > mine)
            rank++;
    return rank;
}

void cluster_failover_replace_master(void)
{
    struct cluster_node *me = cluster.myself;
    struct cluster_node *old = cluster_node_master(me);
    if ((me->flags & NODE_MASTER) || !old) return;
    cluster_set_node_as_master(me);
    if (cluster_replication) cluster_replication->follow(NULL, 0);
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        if (cluster_node_has_slot(old, s)) {
            cluster_del_slot(s);
            cluster_add_slot(me, s);
        }
    cluster_update_state();
    cluster_config_changed();
    cluster_save_config(true);
    cluster_bus_broadcast_pong();
    cluster_failover_reset_manual();
}

/* Redis's clusterBumpConfigEpochWithoutConsensus. */
static void bump_epoch_without_consensus(void)
{
    uint64_t max = cluster.current_epoch;
    for (int i = 0; i < cluster.node_count; i++)
        if (cluster.nodes[i]->config_epoch > max) max = cluster.nodes[i]->config_epoch;
    struct cluster_node *me = cluster.myself;
    if (me->config_epoch == 0 || me->config_epoch != max) {
        cluster.current_epoch++;
        me->config_epoch = cluster.current_epoch;
        cluster_config_changed();
        log_warning("New configEpoch set to %llu", (unsigned long long)me->config_epoch);
    }
}

const char *cluster_failover_manual(bool force, bool takeover)
{
    struct cluster_node *me = cluster.myself;
    if (me->flags & NODE_MASTER) return "ERR You should send CLUSTER FAILOVER to a replica";
    struct cluster_node *master = cluster_node_master(me);
    if (!master) return "ERR I'm a replica but my master is unknown to me";
    if (!force && ((master->flags & NODE_FAIL) || !cluster_bus_node_connected(master)))
        return "ERR Master is down or failed, please use CLUSTER FAILOVER FORCE";
    cluster_failover_reset_manual();
    cluster.mf_end_ms = clock_unix_ms() + MF_TIMEOUT_MS;
    if (takeover) {
        log_warning("Taking over the master (user request).");
        bump_epoch_without_consensus();
        cluster_failover_replace_master();
    } else if (force) {
        log_warning("Forced failover user request accepted.");
        cluster.mf_can_start = true;
    } else {
        log_warning("Manual failover user request accepted.");
        cluster_bus_send_header(master, CLUSTERMSG_MFSTART);
    }
    return NULL;
}

void cluster_failover_mfstart(struct cluster_node *sender)
{
    if (cluster_node_master(sender) != cluster.myself || !(cluster.myself->flags & NODE_MASTER))
        return;
    cluster_failover_reset_manual();
    int64_t now = clock_unix_ms();
    cluster.mf_end_ms = now + MF_TIMEOUT_MS;
    cluster.mf_replica = sender;
    session_pause(SESSION_PAUSE_FAILOVER, SESSION_PAUSE_WRITE, now + MF_TIMEOUT_MS * MF_PAUSE_MULT);
    log_warning("Manual failover requested by replica %.40s.", sender->name);
    /* The ping carries our offset and the PAUSED flag: the replica can
     * start as soon as it has applied that much. */
    cluster_bus_send_ping(sender);
}

void cluster_failover_master_paused(long long offset)
{
    if (cluster.mf_master_offset != -1) return;
    cluster.mf_master_offset = offset;
    log_warning("Received replication offset for paused master manual failover: %lld", offset);
}

void cluster_failover_vote(struct cluster_node *node, uint64_t current_epoch, uint64_t config_epoch,
                           const unsigned char *slots, bool force_ack)
{
    struct cluster_node *me = cluster.myself;
    struct cluster_node *master = cluster_node_master(node);
    if (!(me->flags & NODE_MASTER) || me->numslots == 0) return;
    if (current_epoch < cluster.current_epoch) {
        log_warning("Failover auth denied to %.40s: reqEpoch (%llu) < curEpoch(%llu)", node->name,
                    (unsigned long long)current_epoch, (unsigned long long)cluster.current_epoch);
        return;
    }
    if (cluster.last_vote_epoch == cluster.current_epoch) {
        log_warning("Failover auth denied to %.40s: already voted for epoch %llu", node->name,
                    (unsigned long long)cluster.current_epoch);
        return;
    }
    if ((node->flags & NODE_MASTER) || !master || (!(master->flags & NODE_FAIL) && !force_ack)) {
        log_warning("Failover auth denied to %.40s: it is a master, its master is unknown, or "
                    "its master is up",
                    node->name);
        return;
    }
    int64_t now = clock_unix_ms();
    if (master->voted_time_ms && now - master->voted_time_ms < node_timeout() * 2) {
        log_warning("Failover auth denied to %.40s: can't vote about this master before %lld "
                    "milliseconds",
                    node->name, (long long)(node_timeout() * 2 - (now - master->voted_time_ms)));
        return;
    }
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (!((slots[s >> 3] >> (s & 7)) & 1)) continue;
        const struct cluster_node *owner = cluster.slots[s];
        if (!owner || owner->config_epoch <= config_epoch) continue;
        log_warning("Failover auth denied to %.40s: slot %d epoch (%llu) > reqEpoch (%llu)",
                    node->name, s, (unsigned long long)owner->config_epoch,
                    (unsigned long long)config_epoch);
        return;
    }
    cluster.last_vote_epoch = cluster.current_epoch;
    master->voted_time_ms = now;
    cluster_config_changed();
    cluster_save_config(false);
    cluster_bus_send_header(node, CLUSTERMSG_FAILOVER_AUTH_ACK);
    log_notice("Failover auth granted to %.40s for epoch %llu", node->name,
               (unsigned long long)cluster.current_epoch);
}

void cluster_failover_ack(struct cluster_node *sender, uint64_t current_epoch)
{
    if ((sender->flags & NODE_MASTER) && sender->numslots > 0 &&
        current_epoch >= cluster.failover_auth_epoch)
        cluster.failover_auth_count++;
}

/* Redis's clusterHandleManualFailover: the master paused at an offset we
 * have reached. */
static void manual_failover_step(void)
{
    if (!cluster.mf_end_ms) return;
    if (clock_unix_ms() > cluster.mf_end_ms) {
        log_warning("Manual failover timed out.");
        cluster_failover_reset_manual();
        return;
    }
    if (cluster.mf_can_start || cluster.mf_master_offset < 0 || !cluster_replication) return;
    if (cluster.mf_master_offset == cluster_replication->offset()) {
        cluster.mf_can_start = true;
        log_warning("All master replication stream processed, manual failover can start.");
    }
}

/* Redis's clusterHandleSlaveFailover. */
static void election_step(void)
{
    struct cluster_node *me = cluster.myself;
    struct cluster_node *master = cluster_node_master(me);
    int64_t now = clock_unix_ms();
    int64_t auth_age = now - cluster.failover_auth_time_ms;
    int needed = cluster.size / 2 + 1;
    bool manual = cluster.mf_end_ms && cluster.mf_can_start;
    int64_t auth_timeout = node_timeout() * 2;
    if (auth_timeout < 2000) auth_timeout = 2000;
    int64_t retry = auth_timeout * 2;
    if ((me->flags & NODE_MASTER) || !master || (!(master->flags & NODE_FAIL) && !manual) ||
        (cluster_settings.replica_no_failover && !manual) || master->numslots == 0)
        return;
    if (!cluster_replication) return;
    long long age = cluster_replication->data_age_ms();
    if (age > node_timeout()) age -= node_timeout();
    long long ping_period_ms = cluster_replication->ping_period_ms();
    if (cluster_settings.replica_validity_factor &&
        age > ping_period_ms + node_timeout() * cluster_settings.replica_validity_factor && !manual)
        return;
    if (auth_age > retry) {
        cluster.failover_auth_time_ms = now + 500 + (int64_t)rand_below(500);
        cluster.failover_auth_count = 0;
        cluster.failover_auth_sent = false;
        cluster.failover_auth_rank = replica_rank();
        cluster.failover_auth_time_ms += cluster.failover_auth_rank * 1000;
        if (cluster.mf_end_ms) {
            cluster.failover_auth_time_ms = now;
            cluster.failover_auth_rank = 0;
        }
        log_notice("Start of election delayed for %lld milliseconds (rank #%d, offset %lld).",
                   (long long)(cluster.failover_auth_time_ms - now), cluster.failover_auth_rank,
                   cluster_replication->offset());
        cluster_bus_broadcast_pong();
        if (!cluster.mf_end_ms) return;
        auth_age = 0;
    }
    if (!cluster.failover_auth_sent && !cluster.mf_end_ms) {
        int rank = replica_rank();
        if (rank > cluster.failover_auth_rank) {
            cluster.failover_auth_time_ms += (int64_t)(rank - cluster.failover_auth_rank) * 1000;
            cluster.failover_auth_rank = rank;
        }
    }
    if (now < cluster.failover_auth_time_ms) return;
    if (auth_age > auth_timeout) return;
    if (!cluster.failover_auth_sent) {
        cluster.current_epoch++;
        cluster.failover_auth_epoch = cluster.current_epoch;
        log_notice("Starting a failover election for epoch %llu.",
                   (unsigned long long)cluster.current_epoch);
        cluster_bus_broadcast_header(CLUSTERMSG_FAILOVER_AUTH_REQUEST, cluster.mf_end_ms != 0);
        cluster.failover_auth_sent = true;
        cluster_config_changed();
        cluster_save_config(false);
        return;
    }
    if (cluster.failover_auth_count >= needed) {
        log_notice("Failover election won: I'm the new master.");
        if (me->config_epoch < cluster.failover_auth_epoch) {
            me->config_epoch = cluster.failover_auth_epoch;
            log_notice("configEpoch set to %llu after successful failover",
                       (unsigned long long)me->config_epoch);
        }
        cluster_failover_replace_master();
    }
}

/* A node is failing or has not answered a ping for a node timeout. */
static bool node_down(const struct cluster_node *n)
{
    return (n->flags & (NODE_FAIL | NODE_PFAIL)) != 0;
}

static int working_replicas(const struct cluster_node *master)
{
    struct cluster_node *replicas[64];
    int count = cluster_node_replicas(master, replicas, 64), ok = 0;
    for (int i = 0; i < count && i < 64; i++)
        if (!node_down(replicas[i])) ok++;
    return ok;
}

/* Redis's clusterHandleSlaveMigration: when a master serving slots has
 * been left without a working replica for 5 s, and ours has more than
 * cluster-migration-barrier, the replica with the smallest name among
 * those of the masters with the most replicas moves to it. */
#define MIGRATION_DELAY_MS 5000
static void replica_migration_step(void)
{
    struct cluster_node *me = cluster.myself;
    struct cluster_node *mine = cluster_node_master(me);
    if (!mine || cluster.state != CLUSTER_OK || !cluster_settings.allow_replica_migration) return;
    int64_t now = clock_unix_ms();
    int max = 0, orphans = 0;
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if (!(n->flags & NODE_MASTER) || node_down(n)) continue;
        int ok = working_replicas(n);
        if (ok > max) max = ok;
        bool orphan = ok == 0 && n->numslots > 0 && (n->flags & NODE_MIGRATE_TO);
        if (!orphan)
            n->orphaned_ms = 0;
        else if (!n->orphaned_ms)
            n->orphaned_ms = now;
        orphans += orphan;
    }
    int ours = working_replicas(mine);
    if (!orphans || max < 2 || ours != max || ours <= cluster_settings.migration_barrier) return;
    struct cluster_node *candidate = me, *target = NULL;
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if (!(n->flags & NODE_MASTER) || node_down(n)) continue;
        if (!target && n->orphaned_ms) target = n;
        if (working_replicas(n) != max) continue;
        struct cluster_node *replicas[64];
        int count = cluster_node_replicas(n, replicas, 64);
        for (int k = 0; k < count && k < 64; k++)
            if (memcmp(replicas[k]->name, candidate->name, CLUSTER_NAMELEN) < 0)
                candidate = replicas[k];
    }
    if (target && candidate == me && now - target->orphaned_ms > MIGRATION_DELAY_MS &&
        !cluster_settings.replica_no_failover) {
        log_notice("Migrating to orphaned master %.40s", target->name);
        cluster_set_my_master(target);
        cluster_save_config(false);
        cluster_bus_broadcast_pong();
    }
}

void cluster_failover_cron(void)
{
    if (cluster.mf_end_ms && (cluster.myself->flags & NODE_MASTER) &&
        clock_unix_ms() > cluster.mf_end_ms) {
        log_warning("Manual failover timed out.");
        cluster_failover_reset_manual();
    }
    if (cluster.myself->flags & NODE_REPLICA) {
        manual_failover_step();
        election_step();
        if (cluster.myself->flags & NODE_REPLICA) replica_migration_step();
    }
}
