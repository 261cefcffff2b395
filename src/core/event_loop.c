/* event_loop.c — epoll loop with housekeeping; see event_loop.h. */
#include "core/event_loop.h"
#include "core/config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/cycles.h"
#include "util/xmalloc.h"
#include "util/log.h"

#define EV_BATCH 256

static int epfd = -1;
static volatile sig_atomic_t stop_requested;
static struct poll_target *polled;
static int polled_count;
static long long socket_poll_interval_us = 20;
static bool spin_without_targets;
static long long adaptive_spin_us;     /* 0 = block at once */
static long long polled_sleep_us = -1; /* -1 = never sleep with polled targets */
static bool polled_can_sleep = true;   /* every target has sleep_begin */
static struct ev_sleep_stats sleep_stats;
static bool sleep_untimed; /* DEBUG POLLED-SLEEP-UNTIMED: no timeout, no cron asleep */

uint32_t ev_pass_pending;
static void (*pass_hooks[4])(void); /* FLUSH, WRITE, REPLICAS, REAP */

void ev_on_pass_end(enum ev_pass_work stage, void (*hook)(void))
{
    pass_hooks[__builtin_ctz((unsigned)stage)] = hook;
}

/* Runs the requested stages in order, each once (a stage requested again
 * by a later one runs at the next pass end); `nested`: not REAP. */
static void pass_end(bool nested)
{
    for (int i = 0; i < (nested ? 3 : 4); i++) {
        uint32_t bit = 1u << i;
        if (!(ev_pass_pending & bit)) continue;
        ev_pass_pending &= ~bit;
        if (pass_hooks[i]) pass_hooks[i]();
    }
}

void ev_pass_end(void)
{
    pass_end(false);
}

static int wake_fd = -1;                       /* eventfd: ev_wake() ends a wait early */
static volatile sig_atomic_t housekeeping_now; /* ev_wake(): run housekeeping at once */
static struct ev_handler wake_handler;

static void on_wake(struct ev_handler *h, uint32_t mask)
{
    (void)h;
    (void)mask;
    uint64_t n;
    if (read(wake_fd, &n, sizeof n) < 0 && errno != EAGAIN) log_warning("wake fd: %m");
}

bool ev_init(void)
{
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) return false;
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    wake_handler.on_event = on_wake;
    return wake_fd >= 0 && ev_add(wake_fd, EV_READABLE, &wake_handler);
}

void ev_wake(void)
{
    uint64_t one = 1;
    housekeeping_now = 1;
    if (wake_fd >= 0) {
        ssize_t n = write(wake_fd, &one, sizeof one);
        (void)n; /* a full counter: a wake-up is pending already */
    }
}

static uint32_t to_epoll(uint32_t mask)
{
    return ((mask & EV_READABLE) ? EPOLLIN : 0) | ((mask & EV_WRITABLE) ? EPOLLOUT : 0);
}

bool ev_add(int fd, uint32_t mask, struct ev_handler *h)
{
    struct epoll_event ev = {.events = to_epoll(mask), .data.ptr = h};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool ev_modify(int fd, uint32_t mask, struct ev_handler *h)
{
    struct epoll_event ev = {.events = to_epoll(mask), .data.ptr = h};
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0;
}

void ev_remove(int fd)
{
    epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

static int dispatch(int timeout_ms, bool nested)
{
    struct epoll_event events[EV_BATCH];
    /* (What housekeeping left for the end of a pass ran after it: ev_run.) */
    int n = epoll_wait(epfd, events, EV_BATCH, timeout_ms);
    if (n < 0) {
        if (errno != EINTR) log_warning("epoll_wait failed: %s", strerror(errno));
        return 0;
    }
    for (int i = 0; i < n; i++) {
        uint32_t mask = 0;
        /* Errors and hangups surface as readability: the read reports them. */
        if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)) mask |= EV_READABLE;
        if (events[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) mask |= EV_WRITABLE;
        struct ev_handler *h = events[i].data.ptr;
        h->on_event(h, mask);
    }
    /* Conns closed by this batch may still have had events queued in it:
     * REAP (not in a nested pass) releases them only now. */
    if (ev_pass_pending) pass_end(nested);
    return n;
}

int ev_process(int timeout_ms)
{
    return dispatch(timeout_ms, false);
}

int ev_process_nested(void)
{
    int work = dispatch(0, true);
    for (int i = 0; i < polled_count; i++)
        if (polled[i].reentrant) work += polled[i].poll(polled[i].arg);
    if (ev_pass_pending) pass_end(true);
    return work;
}

bool ev_wait_readable_nested(int fd, int timeout_ms)
{
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = epfd, .events = POLLIN}};
    int n = poll(p, 2, polled_count ? 0 : timeout_ms);
    if (n < 0) return false; /* EINTR: the caller reads and asks again */
    if (polled_count || p[1].revents) ev_process_nested();
    return p[0].revents != 0;
}

void ev_stop(void)
{
    stop_requested = 1;
}

bool ev_stopping(void)
{
    return stop_requested != 0;
}

void ev_add_polled(const struct poll_target *target, int order)
{
    polled = xrealloc(polled, sizeof *polled * (size_t)(polled_count + 1));
    int at = polled_count++;
    while (at > 0 && polled[at - 1].order > order) { /* stable: equal orders keep arrival */
        polled[at] = polled[at - 1];
        at--;
    }
    polled[at] = *target;
    polled[at].order = order;
    if (!target->sleep_begin) polled_can_sleep = false;
}

void ev_set_socket_poll_interval_us(long long us)
{
    socket_poll_interval_us = us;
}

void ev_set_spin(bool spin)
{
    spin_without_targets = spin;
}

void ev_set_adaptive_spin_us(long long us)
{
    adaptive_spin_us = us;
}

void ev_set_polled_sleep_us(long long us)
{
    polled_sleep_us = us;
}

void ev_set_sleep_untimed(bool untimed)
{
    sleep_untimed = untimed;
}

const struct ev_sleep_stats *ev_sleep_stats(void)
{
    sleep_stats.enabled = polled_count > 0 && polled_can_sleep && polled_sleep_us >= 0;
    return &sleep_stats;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* One strict-priority scan: returns true if any target made progress. */
static inline bool poll_targets_once(void)
{
    bool progressed = false;
    for (int i = 0; i < polled_count;) {
        if (polled[i].poll(polled[i].arg) > 0) {
            progressed = true;
            i = 0; /* strict priority: start again from the first target */
            continue;
        }
        i++;
    }
    return progressed;
}

/* Every polled target idle for polled_sleep_us: arms each target's wake-up
 * and, unless work arrived while arming, blocks in epoll until a socket, a
 * target's wake-up fd or housekeeping's timeout (so an idle server still
 * runs its cron at hz). Returns the events the wait dispatched (0: it timed
 * out), -1 when arming found work and it did not sleep. */
static int sleep_polled(uint64_t next_cron, unsigned streak)
{
    int events = -1;
    int armed = 0;
    while (armed < polled_count && polled[armed].sleep_begin(polled[armed].arg)) armed++;
    bool sleeping = armed == polled_count;
    if (sleeping) {
        uint64_t now = cycles_now();
        long long wait_us = sleep_untimed     ? -1
                            : next_cron > now ? cycles_to_us(next_cron - now)
                                              : 0;
        /* Targets nothing can wake: polled at sleep_poll_ms, doubling per
         * sleep without work up to 16 times that. */
        for (int i = 0; i < polled_count; i++) {
            long long poll_us = polled[i].sleep_poll_ms * 1000LL << (streak < 4 ? streak : 4);
            if (polled[i].sleep_poll_ms && (wait_us < 0 || wait_us > poll_us)) wait_us = poll_us;
        }
        sleep_stats.sleeps++;
        uint64_t t0 = cycles_now();
        events = ev_process(wait_us < 0 ? -1 : (int)((wait_us + 999) / 1000));
        sleep_stats.slept_us += (unsigned long long)cycles_to_us(cycles_now() - t0);
    }
    for (int i = 0; i < armed; i++) polled[i].sleep_end(polled[i].arg);
    return events;
}

static void run_polled(void (*housekeeping)(void), long long (*hz)(void))
{
    uint64_t next_socket_pass = cycles_now();
    uint64_t next_cron = next_socket_pass;
    uint64_t idle_since = 0;   /* 0: work since the last idle scan */
    unsigned sleep_streak = 0; /* sleeps in a row without work */
    while (!stop_requested) {
        if (poll_targets_once()) {
            ev_pass_end();
            idle_since = 0;
            sleep_streak = 0;
            continue;
        }
        /* Every polled target is idle. */
        uint64_t now = cycles_now();
        if (!idle_since) idle_since = now;
        if (now >= next_socket_pass) {
            if (ev_process(0) > 0) idle_since = sleep_streak = 0;
            if (now >= next_cron || housekeeping_now) {
                housekeeping_now = 0;
                housekeeping();
                if (ev_pass_pending) ev_pass_end();
                next_cron = cycles_now() + (uint64_t)(cycles_per_us * 1e6 / (double)hz());
            }
            /* Read on every pass: CONFIG SET socket-poll-interval-us applies at once.
             * Spinning on sockets alone, every idle iteration is a socket pass. */
            long long interval_us = polled_count ? socket_poll_interval_us : 0;
            next_socket_pass = cycles_now() + (uint64_t)(cycles_per_us * (double)interval_us);
            continue;
        }
        /* A sleep follows a socket pass (the branch above), so no socket
         * event waits for it. Woken by an event (a doorbell, a socket, a
         * wait fd), the loop spins again for polled_sleep_us; after a
         * timed wake with nothing to do it sleeps again at once. */
        if (polled_sleep_us >= 0 && polled_can_sleep && polled_count &&
            now - idle_since >= (uint64_t)(cycles_per_us * (double)polled_sleep_us)) {
            int events = sleep_polled(next_cron, sleep_streak);
            if (events < 0) {
                sleep_stats.sleeps_refused++;
                idle_since = 0; /* work arrived while arming: serve it */
            } else if (events > 0) {
                idle_since = sleep_streak = 0;
            } else {
                sleep_streak++;
            }
            next_socket_pass = 0;
            continue;
        }
        cpu_relax();
    }
}

void ev_run(void (*housekeeping)(void), long long (*hz)(void))
{
    if (polled_count > 0 || spin_without_targets) {
        run_polled(housekeeping, hz);
        return;
    }
    int64_t next_cron_us = clock_mono_us();
    int64_t last_activity_us = 0;
    while (!stop_requested) {
        int64_t now = clock_mono_us();
        if (now >= next_cron_us || housekeeping_now) {
            housekeeping_now = 0;
            housekeeping();
            /* What it left for the end of a pass runs before the wait. */
            if (ev_pass_pending) ev_pass_end();
            next_cron_us = now + 1000000 / hz();
            now = clock_mono_us();
        }
        /* Adaptive: keep polling for a while after activity (the next
         * request of a busy client is then served without a wake-up); block
         * once the sockets have been quiet for adaptive_spin_us. */
        if (adaptive_spin_us && now - last_activity_us < adaptive_spin_us) {
            if (ev_process(0) > 0)
                last_activity_us = clock_mono_us();
            else
                cpu_relax();
            continue;
        }
        int timeout_ms = (int)((next_cron_us - now + 999) / 1000);
        if (ev_process(timeout_ms < 0 ? 0 : timeout_ms) > 0) last_activity_us = clock_mono_us();
    }
}

static const char *const idle_strategies[] = {"block", "adaptive", "spin", NULL};

/* The loop reads these on every pass: a change applies at once. */
static void apply_idle_spin_us(void)
{
    ev_set_adaptive_spin_us(strcmp(config.idle_strategy, "adaptive") == 0 ? config.idle_spin_us
                                                                          : 0);
}

/* With polled targets: spin never sleeps, block sleeps whenever every
 * target is idle, adaptive after --idle-sleep-ms of idleness. */
static void apply_idle_sleep_ms(void)
{
    ev_set_polled_sleep_us(strcmp(config.idle_strategy, "spin") == 0 ? -1
                           : strcmp(config.idle_strategy, "block") == 0
                               ? 0
                               : config.idle_sleep_ms * 1000);
}

static void apply_socket_poll_interval_us(void)
{
    ev_set_socket_poll_interval_us(config.socket_poll_interval_us);
}

void ev_apply_idle_settings(void)
{
    ev_set_spin(strcmp(config.idle_strategy, "spin") == 0);
    apply_idle_spin_us();
    apply_idle_sleep_ms();
    apply_socket_poll_interval_us();
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param event_loop_params[] = {
    {.name = "idle-strategy",
     .kind = CFG_ENUM,
     .value = &config.idle_strategy,
     .flags = CFG_IMMUTABLE,
     .value_name = "block|adaptive|spin",
     .help = "block in epoll, poll --idle-spin-us after activity then block (with rings or "
             "libfabric: spin, sleep after --idle-sleep-ms idle), or always spin (one core "
             "busy) (default adaptive)",
     .choices = idle_strategies},
    {.name = "idle-spin-us",
     .kind = CFG_INT,
     .value = &config.idle_spin_us,
     .min = 1,
     .max = 10000000,
     .value_name = "US",
     .help = "adaptive: keep polling this long after the last activity (default 200)",
     .apply = apply_idle_spin_us},
    {.name = "idle-sleep-ms",
     .kind = CFG_INT,
     .value = &config.idle_sleep_ms,
     .min = 0,
     .max = 3600000,
     .value_name = "MS",
     .help = "adaptive with rings or libfabric: spin this long after the last request, then sleep "
             "until a client wakes the server (default 1000)",
     .apply = apply_idle_sleep_ms},
    {.name = "socket-poll-interval-us",
     .kind = CFG_INT,
     .value = &config.socket_poll_interval_us,
     .min = 1,
     .max = 1000000,
     .value_name = "US",
     .help = "while spinning with rings: kernel sockets get a pass at most this often (default 20)",
     .apply = apply_socket_poll_interval_us},
};

const struct config_table event_loop_config = CONFIG_TABLE(event_loop_params, NULL);
