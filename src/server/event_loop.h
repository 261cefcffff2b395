/*
 * event_loop.h — the server's single thread: kernel readiness (epoll),
 * periodic housekeeping, and (later) polled targets.
 *
 * With only kernel sockets the loop blocks in epoll_wait until an fd is ready
 * or housekeeping is due, so an idle server uses no CPU. Handlers run to
 * completion on the loop thread.
 *
 * Registration is level-triggered: a handler that leaves data unread is
 * called again on the next pass, so no handler needs to drain (and no
 * listener is ever accept()ed from without being readable).
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

/* Runs until ev_stop(): dispatch, housekeeping every 1000/hz ms. */
void ev_run(void (*housekeeping)(void), long long (*hz)(void));
void ev_stop(void);
bool ev_stopping(void);

#endif
