/* Integration: regressions for defects a hostile or unlucky client could
 * trigger (issue 9 of the robustness probe). Each part names the defect it
 * guards; under the ASan server (asan.integration.test_defects) a
 * use-after-free or leak fails the run through the server's exit status.
 *
 *  - one client's command closing another whose event is queued in the same
 *    epoll batch (CLIENT KILL during a DEBUG SLEEP; PUBLISH meeting
 *    subscribers that reset their connections);
 *  - a declared 512 MB bulk reserving its whole length at once;
 *  - DEBUG off by default, DEBUG SLEEP with values that used to hang, and a
 *    signal ending a sleep;
 *  - NUL bytes in an inline command (differential against redis-server).
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

static void expect_reply(struct rconn *c, const char *want)
{
    char *r = rconn_read_reply(c, NULL);
    CHECKF(strcmp(r, want) == 0, "expected %s, got %s", want, r);
    free(r);
}

static long long client_id(struct rconn *c)
{
    char *r = rconn_call(c, "CLIENT", "ID", NULL);
    CHECKF(r[0] == ':', "CLIENT ID answered %s", r);
    long long id = atoll(r + 1);
    free(r);
    return id;
}

/* A CLIENT KILL that runs in the same epoll batch as an event of the
 * client it kills: DEBUG SLEEP holds the loop while the killer and the
 * victims queue their commands, so one wake-up reports them all. */
static void test_kill_with_pending_event(const struct test_server *s)
{
    enum { VICTIMS = 16, ROUNDS = 4 };
    for (int round = 0; round < ROUNDS; round++) {
        struct rconn sleeper, killer, victims[VICTIMS];
        rconn_open_tcp(&sleeper, s->port);
        rconn_open_tcp(&killer, s->port);
        long long ids[VICTIMS];
        for (int i = 0; i < VICTIMS; i++) {
            rconn_open_tcp(&victims[i], s->port);
            ids[i] = client_id(&victims[i]);
        }
        rconn_send(&sleeper, "DEBUG", "SLEEP", "0.3", NULL);
        usleep(50 * 1000); /* the server is now asleep */
        /* Half the victims speak before the killer, half after: either
         * order within the batch must be safe. */
        for (int i = 0; i < VICTIMS / 2; i++) rconn_send(&victims[i], "PING", NULL);
        for (int i = 0; i < VICTIMS; i++) {
            char id[32];
            snprintf(id, sizeof id, "%lld", ids[i]);
            rconn_send(&killer, "CLIENT", "KILL", "ID", id, NULL);
        }
        for (int i = VICTIMS / 2; i < VICTIMS; i++) rconn_send(&victims[i], "PING", NULL);
        expect_reply(&sleeper, "+OK\r\n");
        for (int i = 0; i < VICTIMS; i++) expect_reply(&killer, ":1\r\n");
        for (int i = 0; i < VICTIMS; i++) {
            /* A PING read before the kill may have been answered; then EOF. */
            char *r = rconn_try_read_reply(&victims[i], NULL, 5000);
            if (r) CHECKF(strcmp(r, "+PONG\r\n") == 0, "victim %d got %s", i, r);
            free(r);
            CHECKF(rconn_wait_closed(&victims[i], 5000), "victim %d was not closed", i);
            rconn_close(&victims[i]);
        }
        rconn_send(&killer, "PING", NULL);
        expect_reply(&killer, "+PONG\r\n");
        rconn_close(&sleeper);
        rconn_close(&killer);
    }
}

/* --- publish while subscribers reset --------------------------------- */

struct storm {
    int port;
    atomic_bool stop;
    atomic_long cycles;
    atomic_long publishes;
};

static int connect_raw(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) return; /* the peer may be gone; the storm goes on */
        p += w;
        n -= (size_t)w;
    }
}

static void *publisher(void *arg)
{
    struct storm *st = arg;
    static const char one[] = "*3\r\n$7\r\nPUBLISH\r\n$2\r\nch\r\n$5\r\nhello\r\n";
    char batch[sizeof one * 50];
    size_t n = 0;
    for (int i = 0; i < 50; i++, n += sizeof one - 1) memcpy(batch + n, one, sizeof one - 1);
    int fd = connect_raw(st->port);
    CHECK(fd >= 0);
    char sink[65536];
    while (!atomic_load(&st->stop)) {
        write_all(fd, batch, n);
        /* Read the 50 integer replies (":N\r\n" each) before the next batch. */
        int lines = 0;
        while (lines < 50) {
            ssize_t r = read(fd, sink, sizeof sink);
            CHECKF(r > 0, "publisher lost its connection (%s)", r < 0 ? strerror(errno) : "EOF");
            for (ssize_t i = 0; i < r; i++) lines += sink[i] == '\n';
        }
        atomic_fetch_add(&st->publishes, 50);
    }
    close(fd);
    return NULL;
}

static void *churner(void *arg)
{
    struct storm *st = arg;
    static const char sub[] = "*2\r\n$9\r\nSUBSCRIBE\r\n$2\r\nch\r\n*1\r\n$4\r\nPING\r\n";
    while (!atomic_load(&st->stop)) {
        int fds[20];
        for (int i = 0; i < 20; i++) {
            fds[i] = connect_raw(st->port);
            CHECK(fds[i] >= 0);
            write_all(fds[i], sub, sizeof sub - 1);
        }
        for (int i = 0; i < 20; i++) {
            /* A reset (RST) rather than a FIN: the server's next write fails. */
            struct linger lg = {.l_onoff = 1, .l_linger = 0};
            setsockopt(fds[i], SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
            close(fds[i]);
        }
        atomic_fetch_add(&st->cycles, 1);
    }
    return NULL;
}

static void test_publish_reset_storm(const struct test_server *s, int seconds)
{
    struct storm st = {.port = s->port};
    pthread_t pubs[2], churns[2];
    for (int i = 0; i < 2; i++) pthread_create(&pubs[i], NULL, publisher, &st);
    for (int i = 0; i < 2; i++) pthread_create(&churns[i], NULL, churner, &st);
    sleep((unsigned)seconds);
    atomic_store(&st.stop, true);
    for (int i = 0; i < 2; i++) pthread_join(pubs[i], NULL);
    for (int i = 0; i < 2; i++) pthread_join(churns[i], NULL);
    fprintf(stderr, "storm: %ld subscribe/reset cycles, %ld publishes\n", atomic_load(&st.cycles),
            atomic_load(&st.publishes));
    CHECK(atomic_load(&st.cycles) > 0);
    struct rconn c;
    rconn_open_tcp(&c, s->port);
    rconn_send(&c, "PING", NULL);
    expect_reply(&c, "+PONG\r\n");
    rconn_close(&c);
}

/* --- large bulk headers ------------------------------------------------ */

/* qbuf + qbuf-free of the client named `name` in CLIENT LIST: what its
 * query buffer has reserved. */
static long long reserved_query_bytes(struct rconn *admin, const char *name)
{
    char *list = rconn_call(admin, "CLIENT", "LIST", NULL);
    char needle[64];
    snprintf(needle, sizeof needle, "name=%s ", name);
    char *line = strstr(list, needle);
    CHECKF(line, "client %s not listed: %s", name, list);
    while (line > list && line[-1] != '\n') line--;
    char *q = strstr(line, " qbuf="), *f = strstr(line, " qbuf-free=");
    CHECK(q && f);
    long long total = atoll(q + 6) + atoll(f + 11);
    free(list);
    return total;
}

static void test_declared_bulk_reserves_nothing(const struct test_server *s)
{
    enum { CLIENTS = 4 };
    struct rconn admin, big[CLIENTS];
    rconn_open_tcp(&admin, s->port);
    static const char header[] = "*2\r\n$4\r\nECHO\r\n$536870912\r\nxxxxxxxx";
    for (int i = 0; i < CLIENTS; i++) {
        rconn_open_tcp(&big[i], s->port);
        char name[16];
        snprintf(name, sizeof name, "big%d", i);
        rconn_send(&big[i], "CLIENT", "SETNAME", name, NULL);
        expect_reply(&big[i], "+OK\r\n");
        rconn_send_raw(&big[i], header, sizeof header - 1);
    }
    /* A second read is where a reservation would be made for the rest. */
    usleep(50 * 1000);
    for (int i = 0; i < CLIENTS; i++) rconn_send_raw(&big[i], "yyyyyyyy", 8);
    usleep(50 * 1000);
    for (int i = 0; i < CLIENTS; i++) {
        char name[16];
        snprintf(name, sizeof name, "big%d", i);
        long long reserved = reserved_query_bytes(&admin, name);
        CHECKF(reserved < 1024 * 1024, "%s reserved %lld bytes for 8 bytes of a declared bulk",
               name, reserved);
    }
    rconn_send(&admin, "PING", NULL);
    expect_reply(&admin, "+PONG\r\n");
    for (int i = 0; i < CLIENTS; i++) rconn_close(&big[i]);

    /* With a 1 MB limit, a client feeding a big bulk is closed once it has
     * sent more than the limit, and never holds more than that reserved. */
    rconn_send(&admin, "CONFIG", "SET", "client-query-buffer-limit", "1mb", NULL);
    expect_reply(&admin, "+OK\r\n");
    struct rconn feeder;
    rconn_open_tcp(&feeder, s->port);
    rconn_send(&feeder, "CLIENT", "SETNAME", "feeder", NULL);
    expect_reply(&feeder, "+OK\r\n");
    rconn_send_raw(&feeder, header, sizeof header - 1);
    char *chunk = malloc(256 * 1024);
    memset(chunk, 'y', 256 * 1024);
    bool closed = false;
    for (int i = 0; i < 16 && !closed; i++) {
        signal(SIGPIPE, SIG_IGN);
        if (send(feeder.fd, chunk, 256 * 1024, MSG_NOSIGNAL) < 0) closed = true;
        if (!closed && i < 3) {
            long long reserved = reserved_query_bytes(&admin, "feeder");
            CHECKF(reserved <= 1024 * 1024 + 64 * 1024, "feeder reserved %lld bytes", reserved);
        }
    }
    free(chunk);
    CHECKF(closed || rconn_wait_closed(&feeder, 5000),
           "the query-buffer limit did not close the client");
    rconn_close(&feeder);
    rconn_send(&admin, "CONFIG", "SET", "client-query-buffer-limit", "1gb", NULL);
    expect_reply(&admin, "+OK\r\n");
    rconn_close(&admin);
}

/* --- DEBUG --------------------------------------------------------------- */

static void test_debug_default_off(void)
{
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, NULL);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    rconn_send(&c, "DEBUG", "SLEEP", "inf", NULL);
    expect_reply(&c, "-ERR DEBUG command not allowed. If the enable-debug-command option is set "
                     "to \"local\", you can run it from a local connection, otherwise you need to "
                     "set this option in the configuration file, and then restart the server.\r\n");
    rconn_close(&c);
    test_server_stop(&s);
}

static void test_debug_sleep_arguments(const struct test_server *s)
{
    struct rconn c;
    rconn_open_tcp(&c, s->port);
    /* Redis reads the time with strtod and no validation: none of these
     * sleeps (inf and a negative used to hang the server for ever). */
    static const char *const values[] = {"inf", "-inf", "-1", "nan", "abc", "0", "", NULL};
    for (int i = 0; values[i]; i++) {
        rconn_send(&c, "DEBUG", "SLEEP", values[i], NULL);
        expect_reply(&c, "+OK\r\n");
    }
    rconn_send(&c, "DEBUG", "SLEEP", "0.01", NULL);
    expect_reply(&c, "+OK\r\n");
    rconn_close(&c);
}

/* SIGTERM ends a long DEBUG SLEEP and the server shuts down cleanly. */
static void test_signal_ends_sleep(void)
{
    const char *const extra[] = {"--enable-debug-command", "yes", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    rconn_send(&c, "DEBUG", "SLEEP", "1000", NULL);
    usleep(100 * 1000);
    kill(s.pid, SIGTERM);
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 200 && done == 0; i++) {
        done = waitpid(s.pid, &status, WNOHANG);
        if (done == 0) usleep(50 * 1000);
    }
    CHECKF(done == s.pid, "the server did not stop during DEBUG SLEEP 1000");
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status 0x%x", status);
    s.pid = 0;
    rconn_close(&c);
}

/* --- inline NUL, against redis-server ------------------------------------ */

static char *inline_nul_outcome(int port)
{
    struct rconn c;
    rconn_open_tcp(&c, port);
    /* A NUL before the newline hides it (strchr): the request never ends
     * until it passes the inline limit. */
    rconn_send_raw(&c, "GET\0k\r\n", 7);
    size_t n = 70 * 1024;
    char *pad = malloc(n);
    memset(pad, 'a', n);
    rconn_send_raw(&c, pad, n);
    free(pad);
    char *r = rconn_read_reply(&c, NULL);
    CHECK(rconn_wait_closed(&c, 5000));
    rconn_close(&c);
    return r;
}

static void test_inline_nul(const struct test_server *goblin)
{
    struct test_server redis;
    test_server_start(&redis, TEST_SERVER_REDIS, NULL);
    char *want = inline_nul_outcome(redis.port);
    char *got = inline_nul_outcome(goblin->port);
    CHECKF(strcmp(want, got) == 0, "redis: %s goblin: %s", want, got);
    CHECK(strstr(got, "too big inline request"));
    free(want);
    free(got);
    test_server_stop(&redis);
}

int main(void)
{
    test_debug_default_off();
    test_signal_ends_sleep();

    const char *const extra[] = {"--enable-debug-command", "local", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    test_debug_sleep_arguments(&s);
    test_kill_with_pending_event(&s);
    test_publish_reset_storm(&s, getenv("GOBLIN_ASAN") ? 3 : 2);
    test_declared_bulk_reserves_nothing(&s);
    test_inline_nul(&s);
    test_server_stop(&s);
    printf("defects: ok\n");
    return 0;
}
