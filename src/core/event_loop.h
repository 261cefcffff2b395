/*
 * event_loop.h — the server's single thread: kernel readiness (epoll),
 * polled targets (shared-memory rings, libfabric), housekeeping.
 *
 * With only kernel sockets the loop blocks in epoll_wait until an fd is ready
 * or housekeeping is due, so an idle server uses no CPU. Handlers run to
 * completion on the loop thread.
 *
 * With any polled target the loop busy-polls instead (the Aeron shape: a
 * target's poll() returns how much work it did; the loop decides what to do
 * when every target returns 0):
 *  - targets are polled in registration (= command-line) order as strict
 *    priority: after any target makes progress the scan restarts from the
 *    first. HAZARD: a first target that always has work starves the rest.
 *  - kernel sockets and housekeeping run only when every polled target is
 *    idle, and the socket pass (a zero-timeout epoll_wait) at most once per
 *    --socket-poll-interval-us, so it cannot sit in front of a polled
 *    request more than once per interval.
 *  - between idle scans the CPU relax hint (PAUSE) is issued.
 *
 * Idling with polled targets. Under --idle-strategy adaptive, once every
 * target and the sockets have been idle for --idle-sleep-ms (block: at
 * once; spin: never), the loop asks each target to arm its wake-up
 * (sleep_begin: a ring sets the "server sleeping" word its client reads
 * after each publish and registers its doorbell FIFO; libfabric asks the
 * provider with fi_trywait and adds the completion queues' wait fds), then
 * blocks in epoll until a socket, a wake-up fd or housekeeping's next run.
 * A target that nothing can wake (a provider without a wait object) is
 * polled every sleep_poll_ms while the loop sleeps; one without
 * sleep_begin keeps the loop spinning. Waking costs the first request a system call on the
 * client and a scheduler wake-up on the server (docs/benchmarks/idle.md).
 *
 * --idle-strategy spin applies the polled shape to kernel sockets alone: no
 * polled targets, a socket pass on every iteration. --idle-strategy adaptive
 * polls the sockets for --idle-spin-us after any activity, then blocks: no
 * wake-up between the requests of a busy client, ~0% CPU when idle.
 *
 * Registration is level-triggered: a handler that leaves data unread is
 * called again on the next pass, so no handler needs to drain (and no
 * listener is ever accept()ed from without being readable).
 *
 * End of a pass (Redis's beforeSleep). A pass is one epoll batch, or one
 * strict-priority scan of the polled targets that made progress. Work that
 * must wait for it is requested with ev_pass_request() and runs, in this
 * order, after the pass and again before the loop waits:
 *   EV_PASS_FLUSH  writes that replies acknowledge (the AOF buffer). While
 *                  it is requested the connection layer holds every reply
 *                  back (connection/conn.h, "Held output"), so no reply
 *                  leaves before the write it acknowledges — with
 *                  appendfsync always, before its fsync — and one write
 *                  (and fsync) serves the whole pass;
 *   EV_PASS_WRITE  the replies held meanwhile;
 *   EV_PASS_REPLICAS  the replication stream the pass produced, to the
 *                  replicas (repl/), and a replica's acknowledgement to
 *                  its master;
 *   EV_PASS_REAP   freeing what was closed in the pass (an event of the
 *                  same batch may still name it until then).
 * The loop knows none of them: each owner installs its stage's hook
 * (server/server.c). One word tells whether any is pending, so a pass
 * that requested nothing costs a load and a branch.
 */
#ifndef GOBLIN_EVENT_LOOP_H
#define GOBLIN_EVENT_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#define EV_READABLE 1u
#define EV_WRITABLE 2u

struct ev_handler {
    void (*on_event)(struct ev_handler *h, uint32_t ev_mask);
};

/* Creates the epoll instance; false on failure (errno set). */
bool ev_init(void);

/* Registers/updates/removes fd. `mask` is EV_READABLE|EV_WRITABLE. */
bool ev_add(int fd, uint32_t mask, struct ev_handler *h);
bool ev_modify(int fd, uint32_t mask, struct ev_handler *h);
void ev_remove(int fd);

/* Waits at most timeout_ms (-1 = forever, 0 = poll) and dispatches; returns
 * the number of handlers called. */
int ev_process(int timeout_ms);

/* A polled target: poll() returns its work count (0 = idle). */
struct poll_target {
    const char *name;
    int (*poll)(void *arg);
    void *arg;
    int order; /* set by ev_add_polled */
    /* poll() may run inside a command of one of its own sessions
     * (ev_process_nested): true when it skips protected conns and keeps no
     * state across the call that a nested poll could break. */
    bool reentrant;
    /* Sleeping (see "Idling" above). sleep_begin() arms the target's
     * wake-up — fds in the loop's epoll set, a flag its peers read — then
     * looks again and returns false when work arrived meanwhile (nothing
     * stays armed then). sleep_end() disarms it after the wait. NULL
     * sleep_begin: the target cannot sleep and the loop never does. */
    bool (*sleep_begin)(void *arg);
    void (*sleep_end)(void *arg);
    /* 0: the target's armed fds wake the loop. Otherwise nothing can wake
     * it (a provider without a wait object): asleep, the loop wakes to poll
     * it after sleep_poll_ms, doubling per sleep without work up to 16x. */
    int sleep_poll_ms;
};

/* Adds a polled target. `order` is its flag's position among the polled
 * flags of the command line (--ring, --ring-pool, --libfabric): the
 * loop polls in ascending order as strict priority, whatever transport
 * registered a target and whenever. */
void ev_add_polled(const struct poll_target *target, int order);

/* Minimum interval between kernel-socket passes while busy-polling. */
void ev_set_socket_poll_interval_us(long long us);

/* Spin even without polled targets: sockets are polled with zero-timeout
 * epoll_wait back to back (no wake-up latency, one core at 100%). */
void ev_set_spin(bool spin);

/* Block in epoll only after the sockets have been quiet for `us`
 * microseconds (0 = block whenever nothing is ready). */
void ev_set_adaptive_spin_us(long long us);

/* With polled targets: sleep once every target (and the sockets) have been
 * idle for `us` microseconds; 0 = whenever idle, -1 = never (spin). */
void ev_set_polled_sleep_us(long long us);

/* All of the above from the settings (idle-strategy, idle-spin-us,
 * idle-sleep-ms, socket-poll-interval-us), at startup. */
void ev_apply_idle_settings(void);

/* Tests (DEBUG POLLED-SLEEP-UNTIMED): asleep, wait without a timeout, so
 * housekeeping does not run and only a wake-up (a client's doorbell, a
 * socket) ends the sleep — a request then answered was not found by a
 * timed wake. */
void ev_set_sleep_untimed(bool untimed);

struct ev_sleep_stats {
    bool enabled;                      /* polled targets, all able to sleep, not spin */
    unsigned long long sleeps;         /* waits in epoll with the targets armed */
    unsigned long long sleeps_refused; /* arming found work */
    unsigned long long slept_us;       /* time spent in those waits */
};
const struct ev_sleep_stats *ev_sleep_stats(void);

/* One pass for a command that runs long and lets others in meanwhile (a
 * busy script, Redis's processEventsWhileBlocked): a zero-timeout epoll
 * pass, then one poll of each reentrant polled target. Runs inside a
 * handler: no housekeeping, and of the end-of-pass stages all but REAP
 * (the outer pass may still hold events for what was closed, so
 * REAP waits for it). The caller protects its own conn
 * (session_protect) so that none of its I/O runs meanwhile. Returns the
 * work done. */
int ev_process_nested(void);

/* For a long load reading one socket (a replica's diskless load, Redis's
 * blocking read with processEventsWhileBlocked between): waits up to
 * timeout_ms (0 with polled targets: they are spun, not slept on) for fd
 * to become readable or the loop to have events, running them as
 * ev_process_nested does. fd must not be in the loop's interest set for
 * reading meanwhile. True when fd is readable. */
bool ev_wait_readable_nested(int fd, int timeout_ms);

enum ev_pass_work {
    EV_PASS_FLUSH = 1u << 0,
    EV_PASS_WRITE = 1u << 1,
    EV_PASS_REPLICAS = 1u << 2,
    EV_PASS_REAP = 1u << 3,
};

/* The stages requested and not yet run (read by the connection layer:
 * EV_PASS_FLUSH holds replies). */
extern uint32_t ev_pass_pending;

static inline void ev_pass_request(enum ev_pass_work work)
{
    ev_pass_pending |= (uint32_t)work;
}

/* Installs the hook of one stage (at startup; NULL: none). */
void ev_on_pass_end(enum ev_pass_work stage, void (*hook)(void));

/* Runs the requested stages now, as the loop does at the end of a pass
 * (tests and shutdown). */
void ev_pass_end(void);

/* Runs until ev_stop(): dispatch, housekeeping every 1000/hz ms. */
void ev_run(void (*housekeeping)(void), long long (*hz)(void));
void ev_stop(void);
bool ev_stopping(void);

/* Ends the loop's current or next wait at once, so that housekeeping runs
 * (async-signal-safe: a signal handler that scheduled work calls it). */
void ev_wake(void);

/* Settings (core/config.h): idle-strategy, idle-spin-us, socket-poll-interval-us. */
struct config_table;
extern const struct config_table event_loop_config;

#endif
