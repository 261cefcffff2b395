/*
 * blocking_testutil.h — helpers shared by the blocking-command integration
 * tests (test_blocking.c, test_stream_blocking.c): exact replies checked
 * with the failing line named, a bounded wait for the server's count of
 * blocked clients, and the goblin-core-only check that a client blocked on
 * a shared-memory ring stops nothing and is served.
 */
#ifndef GOBLIN_BLOCKING_TESTUTIL_H
#define GOBLIN_BLOCKING_TESTUTIL_H

#include <goblin/ring_client.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/* The next reply on c is exactly `want` (bounded: fails instead of hangs). */
static inline void expect_reply_at(struct rconn *c, const char *want, int line)
{
    size_t n;
    char *got = rconn_try_read_reply(c, &n, 10000);
    CHECKF(got, "line %d: no reply, expected '%s'", line, want);
    CHECKF(n == strlen(want) && memcmp(got, want, n) == 0, "line %d: got '%s' expected '%s'", line,
           got, want);
    free(got);
}
#define expect_reply(c, want) expect_reply_at(c, want, __LINE__)

#define CALL(c, want, ...)                                                                         \
    do {                                                                                           \
        rconn_send(c, __VA_ARGS__, NULL);                                                          \
        expect_reply(c, want);                                                                     \
    } while (0)

/* Waits (bounded) until the server reports `n` blocked clients. */
static inline void wait_blocked_at(struct rconn *ctl, int n, int line)
{
    char want[64];
    snprintf(want, sizeof want, "blocked_clients:%d\r\n", n);
    for (int i = 0; i < 2000; i++) {
        char *info = rconn_call(ctl, "INFO", "clients", NULL);
        bool ok = strstr(info, want) != NULL;
        free(info);
        if (ok) return;
        usleep(5000);
    }
    CHECKF(false, "line %d: never reached %s", line, want);
}
#define wait_blocked(ctl, n) wait_blocked_at(ctl, n, __LINE__)

/* Nothing arrives on c within 50 ms. */
static inline void no_reply_yet(struct rconn *c)
{
    size_t n;
    char *got = rconn_try_read_reply(c, &n, 50);
    CHECKF(got == NULL, "unexpected reply '%s'", got ? got : "");
}

static inline long long client_id(struct rconn *c)
{
    char *r = rconn_call(c, "CLIENT", "ID", NULL);
    long long id = strtoll(r + 1, NULL, 10);
    free(r);
    return id;
}

/* goblin-core only: a client that sends `cmd` (argc words) over a
 * shared-memory ring blocks; meanwhile a TCP client is served 200 PINGs
 * (the loop does not wait on the ring client), then `wake` (over TCP,
 * checking its own replies) makes the blocked command answer, and the ring
 * client's reply must be exactly `want`. */
static inline void blocking_ring_served(int argc, const char *const *cmd,
                                        void (*wake)(struct rconn *ctl), const char *want)
{
    char dir[] = "/dev/shm/goblin-blocking-XXXXXX";
    CHECK(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/r.ring", dir);
    const char *const extra[] = {"--ring", path, "64k", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct goblin_ring *r = NULL;
    CHECK(goblin_ring_open(path, 10000, &r) == 0);
    CHECK(goblin_ring_send_command(r, argc, cmd, NULL) == 0);
    struct rconn ctl;
    rconn_open_tcp(&ctl, s.port);
    wait_blocked(&ctl, 1);
    for (int i = 0; i < 200; i++) CALL(&ctl, "+PONG\r\n", "PING");
    wake(&ctl);
    const char *reply;
    ssize_t n = goblin_ring_read_reply(r, &reply, 10 * 1000000LL);
    CHECKF(n == (ssize_t)strlen(want) && memcmp(reply, want, (size_t)n) == 0, "ring got '%.*s'",
           (int)(n > 0 ? n : 0), n > 0 ? reply : "");
    goblin_ring_close(r);
    rconn_close(&ctl);
    test_server_stop(&s);
    unlink(path);
    rmdir(dir);
}

#endif
