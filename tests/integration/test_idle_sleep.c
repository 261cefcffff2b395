/* Integration: a server with polled targets (a ring, libfabric tcp;ofi_rxm
 * whose completion queues have wait fds, shm whose queues have none) sleeps
 * under --idle-strategy adaptive once idle for --idle-sleep-ms, uses next
 * to no CPU while asleep (CPU seconds from /proc/<pid>/stat, not wall
 * time), and serves the next request: a new ring session, PING after
 * sleep, a reply larger than the CQ (the server sleeps with output waiting
 * and the client's consume wakes it), a pipeline. No lost wake-up: with
 * idle-sleep-ms 0 (sleep whenever idle) and DEBUG POLLED-SLEEP-UNTIMED 1
 * (asleep, no timed wake: only the client's doorbell or the provider's
 * wait fd ends a sleep), thousands of requests sent with random gaps —
 * many published just as the server decides to sleep — are all answered;
 * a lost wake-up hangs the request and the 10 s reply timeout fails the
 * test. --idle-strategy spin never sleeps. */
#include <errno.h>
#include <goblin/fabric_client.h>
#include <goblin/ring_client.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define REPLY_TIMEOUT_US (10 * 1000000LL)

/* --- the server's side, over TCP ---------------------------------------- */

static long long info_stat(int port, const char *field)
{
    struct rconn r;
    rconn_open_tcp(&r, port);
    char *info = rconn_call(&r, "INFO", "stats", NULL);
    char key[64];
    snprintf(key, sizeof key, "\n%s:", field);
    const char *at = strstr(info, key);
    CHECKF(at != NULL, "INFO stats has no %s", field);
    long long n = atoll(at + strlen(key));
    free(info);
    rconn_close(&r);
    return n;
}

/* A command of three words (d NULL) or four, expecting +OK. */
static void tcp_call_ok(int port, const char *a, const char *b, const char *c, const char *d)
{
    struct rconn r;
    rconn_open_tcp(&r, port);
    char *reply = rconn_call(&r, a, b, c, d, NULL);
    CHECKF(strcmp(reply, "+OK\r\n") == 0, "%s %s %s: %s", a, b, c, reply);
    free(reply);
    rconn_close(&r);
}

/* Waits until the server has gone to sleep at least `more` times after
 * `since` (an INFO query is activity, so it is asked every 300 ms, past
 * the servers' idle-sleep-ms of 100). */
static void wait_asleep(int port, long long since, long long more)
{
    long long n = since;
    for (int i = 0; i < 40 && n < since + more; i++) {
        usleep(300000);
        n = info_stat(port, "polled_sleeps");
    }
    CHECKF(n >= since + more, "the server did not go to sleep (polled_sleeps %lld)", n);
}

/* user + system CPU seconds of a process so far. */
static double cpu_seconds(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[1024];
    CHECK(fgets(line, sizeof line, f) != NULL);
    fclose(f);
    const char *p = strrchr(line, ')'); /* fields after the command name */
    CHECK(p != NULL);
    unsigned long long utime = 0, stime = 0;
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    CHECK(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) ==
          2);
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* Asleep, the server's CPU over `seconds` stays near zero (spinning it
 * would be about `seconds`). Nothing talks to it meanwhile. */
static void idle_cpu_near_zero(const struct test_server *s, unsigned seconds)
{
    usleep(300000); /* past the idle-sleep-ms the last INFO query started */
    double before = cpu_seconds(s->pid);
    sleep(seconds);
    double used = cpu_seconds(s->pid) - before;
    printf("  idle %u s: %.2f CPU seconds\n", seconds, used);
    CHECKF(used < 0.1 * seconds, "asleep, the server used %.2f CPU seconds in %u s", used, seconds);
}

static void random_gap(unsigned *seed)
{
    unsigned r = (unsigned)rand_r(seed) % 8;
    if (r < 3) return; /* back to back */
    if (r < 6) {       /* a spin of a few microseconds: the server is deciding to sleep */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        long wait_ns = 200 + (long)((unsigned)rand_r(seed) % 20000);
        do clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < wait_ns);
        return;
    }
    usleep((unsigned)rand_r(seed) % 300); /* asleep by now */
}

/* --- ring --------------------------------------------------------------- */

static void ring_expect(struct goblin_ring *r, const char *expected)
{
    const char *reply;
    ssize_t n = goblin_ring_read_reply(r, &reply, REPLY_TIMEOUT_US);
    CHECKF(n > 0, "no reply over the ring (%zd): a lost wake-up?", n);
    CHECKF((size_t)n == strlen(expected) && memcmp(reply, expected, (size_t)n) == 0,
           "got '%.*s' expected '%s'", (int)n, reply, expected);
}

static void ring_call(struct goblin_ring *r, const char *expected, int argc,
                      const char *const *argv)
{
    CHECK(goblin_ring_send_command(r, argc, argv, NULL) == 0);
    ring_expect(r, expected);
}

#define RING_CALL(r, expected, ...)                                                                \
    do {                                                                                           \
        const char *argv_[] = {__VA_ARGS__};                                                       \
        ring_call(r, expected, (int)(sizeof argv_ / sizeof argv_[0]), argv_);                      \
    } while (0)

/* A bulk reply of `len` bytes (the value SET before), drained from a CQ
 * smaller than it. */
static void ring_big_get(struct goblin_ring *r, size_t len)
{
    const char *argv[] = {"GET", "big"};
    CHECK(goblin_ring_send_command(r, 2, argv, NULL) == 0);
    const char *reply;
    ssize_t n = goblin_ring_read_reply(r, &reply, REPLY_TIMEOUT_US);
    char head[32];
    int h = snprintf(head, sizeof head, "$%zu\r\n", len);
    CHECKF(n == (ssize_t)(h + len + 2) && memcmp(reply, head, (size_t)h) == 0, "big GET: %zd bytes",
           n);
}

static void ring_run(void)
{
    char dir[] = "/dev/shm/goblin-idle-XXXXXX";
    CHECK(mkdtemp(dir));
    char path[96];
    snprintf(path, sizeof path, "%s/r", dir);
    const char *const args[] = {
        "--ring", path, "64k", "--idle-sleep-ms", "100", "--enable-debug-command", "local", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, args);
    CHECK(info_stat(s.port, "polled_sleep_enabled") == 1);
    wait_asleep(s.port, 0, 1);
    idle_cpu_near_zero(&s, 4);

    /* A session begun while the server sleeps (the epoch's doorbell). */
    long long sleeps = info_stat(s.port, "polled_sleeps");
    struct goblin_ring *r = NULL;
    CHECK(goblin_ring_open(path, 10000, &r) == 0);
    RING_CALL(r, "+PONG\r\n", "PING");
    /* A request after the server fell asleep again. */
    wait_asleep(s.port, sleeps, 1);
    RING_CALL(r, "+PONG\r\n", "PING");

    /* From here every idle moment is a sleep, and only a wake-up ends one. */
    tcp_call_ok(s.port, "CONFIG", "SET", "idle-sleep-ms", "0");
    tcp_call_ok(s.port, "DEBUG", "POLLED-SLEEP-UNTIMED", "1", NULL);
    sleeps = info_stat(s.port, "polled_sleeps");
    unsigned seed = (unsigned)test_seed("test_idle_sleep");
    for (int i = 0; i < 4000; i++) {
        random_gap(&seed);
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        RING_CALL(r, ":1\r\n", "RPUSH", v, v);
    }
    long long ring_sleeps = info_stat(s.port, "polled_sleeps") - sleeps;
    printf("  ring: 4000 requests, %lld sleeps between them\n", ring_sleeps);
    CHECKF(ring_sleeps >= 100, "only %lld sleeps: the handshake was hardly exercised", ring_sleeps);

    /* A reply four times the CQ: the server waits for room asleep. */
    size_t big = 256 * 1024;
    char *value = malloc(big);
    CHECK(value != NULL);
    memset(value, 'x', big);
    const char *set[] = {"SET", "big", value};
    size_t lens[] = {3, 3, big};
    CHECK(goblin_ring_send_command(r, 3, set, lens) == 0);
    ring_expect(r, "+OK\r\n");
    free(value);
    for (int i = 0; i < 20; i++) {
        random_gap(&seed);
        ring_big_get(r, big);
    }
    /* A pipeline. */
    for (int i = 0; i < 200; i++) {
        const char *ping[] = {"PING"};
        CHECK(goblin_ring_send_command(r, 1, ping, NULL) == 0);
    }
    for (int i = 0; i < 200; i++) ring_expect(r, "+PONG\r\n");
    goblin_ring_close(r);
    tcp_call_ok(s.port, "DEBUG", "POLLED-SLEEP-UNTIMED", "0", NULL);
    test_server_stop(&s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    printf("  ring: ok\n");
}

/* --- libfabric ---------------------------------------------------------- */

static bool provider_present(const char *provider)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "fi_info -p '%s' -t FI_EP_RDM >/dev/null 2>&1", provider);
    return system(cmd) == 0;
}

static void fabric_call(struct goblin_fabric *f, const char *expected, int argc,
                        const char *const *argv, const size_t *lens)
{
    CHECK(goblin_fabric_send_command(f, argc, argv, lens) == 0);
    const char *reply;
    ssize_t n = goblin_fabric_read_reply(f, &reply, REPLY_TIMEOUT_US);
    CHECKF(n > 0, "no reply over libfabric (%zd): a lost wake-up? %s", n, goblin_fabric_error(f));
    if (expected)
        CHECKF((size_t)n == strlen(expected) && memcmp(reply, expected, (size_t)n) == 0,
               "got '%.*s' expected '%s'", (int)n, reply, expected);
}

static void fabric_run(const char *provider, int requests)
{
    char boot[16];
    snprintf(boot, sizeof boot, "%d", test_free_port());
    const char *const args[] = {"--libfabric",
                                provider,
                                "127.0.0.1",
                                boot,
                                "--idle-sleep-ms",
                                "100",
                                "--efa-heartbeat-timeout-ms",
                                "0",
                                "--enable-debug-command",
                                "local",
                                NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, args);
    CHECK(info_stat(s.port, "polled_sleep_enabled") == 1);
    wait_asleep(s.port, 0, 1);
    idle_cpu_near_zero(&s, 3);

    struct goblin_fabric *f = NULL;
    char err[256] = "";
    CHECKF(goblin_fabric_connect(provider, "127.0.0.1", atoi(boot), NULL, &f, err, sizeof err) == 0,
           "connect over %s: %s", provider, err);
    const char *ping[] = {"PING"};
    fabric_call(f, "+PONG\r\n", 1, ping, NULL);

    tcp_call_ok(s.port, "CONFIG", "SET", "idle-sleep-ms", "0");
    tcp_call_ok(s.port, "DEBUG", "POLLED-SLEEP-UNTIMED", "1", NULL);
    long long sleeps = info_stat(s.port, "polled_sleeps");
    unsigned seed = (unsigned)test_seed("test_idle_sleep fabric");
    /* 8 KiB values go by fi_send (past every inject size here): TX
     * completions while the server sleeps. */
    static char value[8192];
    memset(value, 'v', sizeof value);
    for (int i = 0; i < requests; i++) {
        random_gap(&seed);
        if (i % 10 == 0) {
            const char *set[] = {"SET", "k", value};
            size_t lens[] = {3, 1, sizeof value};
            fabric_call(f, "+OK\r\n", 3, set, lens);
            const char *get[] = {"GET", "k"};
            fabric_call(f, NULL, 2, get, NULL);
        } else {
            fabric_call(f, "+PONG\r\n", 1, ping, NULL);
        }
    }
    long long slept = info_stat(s.port, "polled_sleeps") - sleeps;
    printf("  %s: %d requests, %lld sleeps between them\n", provider, requests, slept);
    CHECKF(slept >= 20, "only %lld sleeps: the handshake was hardly exercised", slept);
    goblin_fabric_close(f);
    tcp_call_ok(s.port, "DEBUG", "POLLED-SLEEP-UNTIMED", "0", NULL);
    test_server_stop(&s);
    printf("  %s: ok\n", provider);
}

/* --- spin --------------------------------------------------------------- */

static void spin_never_sleeps(void)
{
    char dir[] = "/dev/shm/goblin-idle-XXXXXX";
    CHECK(mkdtemp(dir));
    char path[96];
    snprintf(path, sizeof path, "%s/r", dir);
    const char *const args[] = {"--ring",          path, "16k", "--idle-strategy", "spin",
                                "--idle-sleep-ms", "1",  NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, args);
    usleep(300000);
    CHECK(info_stat(s.port, "polled_sleep_enabled") == 0);
    CHECK(info_stat(s.port, "polled_sleeps") == 0);
    test_server_stop(&s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    ring_run();
    spin_never_sleeps();
    /* tcp;ofi_rxm: woken by its completion queues' wait fds; shm: none,
     * polled while asleep. ASan: shm only (test_fabric.c says why). */
    if (!getenv("GOBLIN_ASAN") && provider_present("tcp;ofi_rxm")) fabric_run("tcp;ofi_rxm", 1000);
    if (provider_present("shm")) fabric_run("shm", 300);
    printf("test_idle_sleep: ok\n");
    return 0;
}
