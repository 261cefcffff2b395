/*
 * failover.c — FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms], as
 * Redis 7.0 coordinates a switch of master and replica without losing a
 * write:
 *   1. waiting-for-sync: client writes are paused (CLIENT PAUSE WRITE) and
 *      the master waits until the target (or, without TO, any replica) has
 *      acknowledged its whole stream; TIMEOUT without FORCE aborts, with
 *      FORCE goes on regardless;
 *   2. failover-in-progress: the master becomes a replica of the target
 *      and asks it `PSYNC <id> <offset> FAILOVER`; the target promotes
 *      itself and continues the old master partially (its second id);
 *   3. done when that PSYNC is answered (the pause ends); a refused one
 *      aborts (this server is a master again).
 * INFO's master_failover_state shows the step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "connection/session.h"
#include "repl/repl.h"
#include "repl/repl_internal.h"
#include "util/clock.h"
#include "util/log.h"

enum failover_state repl_failover_state;

static struct {
    char host[256]; /* the target; "" until chosen (FAILOVER without TO) */
    int port;
    bool force;
    int64_t end_ms; /* 0: no timeout */
} f;

const char *repl_failover_state_name(void)
{
    switch (repl_failover_state) {
    case FAILOVER_NONE:
        return "no-failover";
    case FAILOVER_WAIT_FOR_SYNC:
        return "waiting-for-sync";
    case FAILOVER_IN_PROGRESS:
        return "failover-in-progress";
    }
    return "unknown";
}

static void clear_state(void)
{
    repl_failover_state = FAILOVER_NONE;
    f.host[0] = '\0';
    f.port = 0;
    f.force = false;
    f.end_ms = 0;
    session_unpause(SESSION_PAUSE_FAILOVER);
}

void repl_failover_abort(const char *why)
{
    if (repl_failover_state == FAILOVER_NONE) return;
    log_notice("FAILOVER to %s:%d aborted: %s", f.host[0] ? f.host : "any replica", f.port, why);
    if (repl_failover_state == FAILOVER_IN_PROGRESS) repl_replica_back_to_master();
    clear_state();
}

void repl_failover_psync_answered(bool accepted)
{
    if (repl_failover_state != FAILOVER_IN_PROGRESS) return;
    if (accepted) {
        log_notice("FAILOVER to %s:%d succeeded.", f.host, f.port);
        clear_state();
    } else {
        repl_failover_abort("Failover target rejected psync request");
    }
}

static void start_switch(void)
{
    repl_failover_state = FAILOVER_IN_PROGRESS;
    struct buf ok;
    buf_init(&ok, 16);
    repl_replicaof_for_failover(f.host, f.port);
    buf_free(&ok);
}

/* Redis's updateFailoverStatus: the timeout, then whether a target has
 * caught up (run after every batch and once a second while waiting). */
void repl_failover_update(void)
{
    if (repl_failover_state != FAILOVER_WAIT_FOR_SYNC) return;
    if (f.end_ms && f.end_ms <= clock_unix_ms()) {
        if (f.force) {
            log_notice("FAILOVER to %s:%d time out exceeded, failing over.", f.host, f.port);
            start_switch();
        } else {
            repl_failover_abort("Replica never caught up before timeout");
        }
        return;
    }
    if (!repl_replica_caught_up(f.host, sizeof f.host, &f.port)) return;
    log_notice("Failover target %s:%d is synced, failing over.", f.host, f.port);
    start_switch();
}

const char *repl_failover_command(const char *host, size_t host_len, long long port, bool force,
                                  long long timeout_ms, bool abort_request)
{
    if (abort_request) {
        if (repl_failover_state == FAILOVER_NONE) return "ERR No failover in progress.";
        repl_failover_abort("Failover manually aborted");
        return NULL;
    }
    if (repl_failover_state != FAILOVER_NONE) return "ERR FAILOVER already in progress.";
    if (repl_is_replica) return "ERR FAILOVER is not valid when server is a replica.";
    if (!repl_replica_count()) return "ERR FAILOVER requires connected replicas.";
    if (force && (!timeout_ms || !host))
        return "ERR FAILOVER with force option requires both a timeout and target HOST and IP.";
    if (host) {
        if (host_len >= sizeof f.host) return "ERR FAILOVER target HOST and PORT is not a replica.";
        char name[256];
        memcpy(name, host, host_len);
        name[host_len] = '\0';
        bool online;
        if (!repl_replica_find(name, (int)port, &online))
            return "ERR FAILOVER target HOST and PORT is not a replica.";
        if (!online) return "ERR FAILOVER target replica is not online.";
        memcpy(f.host, name, host_len + 1);
        f.port = (int)port;
        log_notice("FAILOVER requested to %s:%lld.", f.host, port);
    } else {
        log_notice("FAILOVER requested to any replica.");
    }
    f.end_ms = timeout_ms ? clock_unix_ms() + timeout_ms : 0;
    f.force = force;
    repl_failover_state = FAILOVER_WAIT_FOR_SYNC;
    /* Writes wait while the replica catches up (Redis's PAUSE_DURING_FAILOVER). */
    session_pause(SESSION_PAUSE_FAILOVER, SESSION_PAUSE_WRITE, INT64_MAX);
    return NULL;
}
