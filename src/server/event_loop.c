/* event_loop.c — epoll loop with housekeeping; see event_loop.h. */
#include "server/event_loop.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "connection/conn.h"
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
static long long adaptive_spin_us; /* 0 = block at once */
static void (*after_batch[EV_AFTER_BATCH_MAX])(void);
static int after_batch_count;

void ev_add_after_batch(void (*fn)(void))
{
    if (after_batch_count < EV_AFTER_BATCH_MAX) after_batch[after_batch_count++] = fn;
}

static inline void run_after_batch(void)
{
    for (int i = 0; i < after_batch_count; i++) after_batch[i]();
}

bool ev_init(void)
{
    epfd = epoll_create1(EPOLL_CLOEXEC);
    return epfd >= 0;
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

static int dispatch(int timeout_ms, bool reap)
{
    struct epoll_event events[EV_BATCH];
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
    if (n > 0) run_after_batch();
    /* Conns closed by this batch may still have had events queued in it;
     * their memory is released only now. */
    if (reap) conn_reap_closed();
    return n;
}

int ev_process(int timeout_ms)
{
    return dispatch(timeout_ms, true);
}

int ev_process_nested(void)
{
    int work = dispatch(0, false);
    for (int i = 0; i < polled_count; i++)
        if (polled[i].reentrant) work += polled[i].poll(polled[i].arg);
    return work;
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

static void run_polled(void (*housekeeping)(void), long long (*hz)(void))
{
    uint64_t next_socket_pass = cycles_now();
    uint64_t next_cron = next_socket_pass;
    while (!stop_requested) {
        if (poll_targets_once()) {
            run_after_batch();
            conn_reap_closed();
            continue;
        }
        /* Every polled target is idle. */
        uint64_t now = cycles_now();
        if (now >= next_socket_pass) {
            ev_process(0);
            if (now >= next_cron) {
                housekeeping();
                next_cron = cycles_now() + (uint64_t)(cycles_per_us * 1e6 / (double)hz());
            }
            /* Read on every pass: CONFIG SET socket-poll-interval-us applies at once.
             * Spinning on sockets alone, every idle iteration is a socket pass. */
            long long interval_us = polled_count ? socket_poll_interval_us : 0;
            next_socket_pass = cycles_now() + (uint64_t)(cycles_per_us * (double)interval_us);
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
        if (now >= next_cron_us) {
            housekeeping();
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
