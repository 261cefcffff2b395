/* Integration: memory goes back to the system (issue 9). After ~150 MB of
 * keys and FLUSHALL, and after thousands of connections open and close, the
 * server's resident set falls below a bound within a bounded wait; MEMORY
 * PURGE answers OK; INFO memory reports the allocator's figures under Redis
 * 7.0's field names. Only memory bounds are asserted, never time: the wait
 * is a ceiling for the allocator's background purge.
 *
 * The server runs with default flags, so --mlockall yes is in force (as
 * root: everything locked, MCL_FUTURE included): locking must not keep
 * freed memory resident.
 *
 * Under ASan freed memory sits in the sanitizer's quarantine, so RSS cannot
 * fall: there the cheap checks run and the RSS bounds are reported skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

enum {
    KEYS = 1000000, /* x ~150 bytes each: ~150 MB resident when full */
    VALUE_BYTES = 64,
    PIPELINE = 10000,            /* commands per write before their replies are read */
    FILLED_MIN_KB = 100 * 1024,  /* proves the fill really grew the heap */
    RETURNED_MAX_KB = 60 * 1024, /* the bound RSS must fall below */
    WAIT_MS = 10000,             /* ceiling for the fall, polled */
    CONNECTIONS = 6000,
};

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Polls RSS until it is below RETURNED_MAX_KB or WAIT_MS passed; returns the
 * last sample. */
static long rss_after_wait(const struct test_server *s)
{
    long kb = test_server_rss_kb(s);
    for (int waited = 0; kb >= RETURNED_MAX_KB && waited < WAIT_MS; waited += 100) {
        sleep_ms(100);
        kb = test_server_rss_kb(s);
    }
    return kb;
}

static void expect_ok(struct rconn *c, const char *what, char *reply)
{
    CHECKF(strcmp(reply, "+OK\r\n") == 0, "%s: %s", what, reply);
    free(reply);
}

static void fill_keys(struct rconn *c)
{
    struct buf cmds;
    buf_init(&cmds, (size_t)PIPELINE * 64);
    char value[VALUE_BYTES + 1];
    memset(value, 'v', VALUE_BYTES);
    value[VALUE_BYTES] = '\0';
    for (int sent = 0; sent < KEYS; sent += PIPELINE) {
        buf_consume(&cmds, buf_len(&cmds));
        for (int i = sent; i < sent + PIPELINE; i++) {
            char cmd[256], key[32];
            int klen = snprintf(key, sizeof key, "key:%d", i);
            int n = snprintf(cmd, sizeof cmd, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", klen,
                             key, VALUE_BYTES, value);
            buf_append(&cmds, cmd, (size_t)n);
        }
        rconn_send_raw(c, buf_head(&cmds), buf_len(&cmds));
        for (int i = 0; i < PIPELINE; i++) expect_ok(c, "SET", rconn_read_reply(c, NULL));
    }
    buf_free(&cmds);
}

static void test_flushall_returns_memory(const struct test_server *s)
{
    struct rconn c;
    rconn_open_tcp(&c, s->port);
    fill_keys(&c);
    char *size = rconn_call(&c, "DBSIZE", NULL);
    CHECKF(strcmp(size, ":1000000\r\n") == 0, "DBSIZE after the fill: %s", size);
    free(size);
    long full = test_server_rss_kb(s);
    CHECKF(full >= FILLED_MIN_KB, "RSS %ld KiB after %d keys: the fill did not grow the heap", full,
           KEYS);
    expect_ok(&c, "FLUSHALL", rconn_call(&c, "FLUSHALL", NULL));
    long after = rss_after_wait(s);
    printf("FLUSHALL: RSS %ld KiB with %d keys, %ld KiB after (bound %d KiB)\n", full, KEYS, after,
           (int)RETURNED_MAX_KB);
    CHECKF(after < RETURNED_MAX_KB,
           "RSS stayed at %ld KiB after FLUSHALL (was %ld KiB full; bound %d KiB)", after, full,
           (int)RETURNED_MAX_KB);
    rconn_close(&c);
}

/* The descriptors the connection phase needs, within the hard limit. */
static int connections_allowed(void)
{
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    rlim_t want = CONNECTIONS + 64;
    if (rl.rlim_cur < want) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
        CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    }
    return rl.rlim_cur >= want ? CONNECTIONS : (int)rl.rlim_cur - 64;
}

/* used_memory as the server counts it (its own allocations). */
static long long used_memory(struct rconn *c)
{
    char *info = rconn_call(c, "INFO", "memory", NULL);
    const char *at = strstr(info, "\r\nused_memory:");
    CHECKF(at, "INFO memory lacks used_memory:\n%s", info);
    long long used = strtoll(at + strlen("\r\nused_memory:"), NULL, 10);
    free(info);
    return used;
}

static void test_closed_connections_return_memory(const struct test_server *s)
{
    struct rconn probe;
    rconn_open_tcp(&probe, s->port);
    long long used_before = used_memory(&probe);
    int count = connections_allowed();
    CHECKF(count >= 1000, "RLIMIT_NOFILE allows only %d connections", count);
    struct rconn *conns = calloc((size_t)count, sizeof *conns);
    CHECK(conns);
    /* Each connection runs a command, so its buffers are really used. */
    for (int i = 0; i < count; i++) {
        rconn_open_tcp(&conns[i], s->port);
        rconn_send(&conns[i], "PING", NULL);
    }
    for (int i = 0; i < count; i++) {
        char *pong = rconn_read_reply(&conns[i], NULL);
        CHECKF(strcmp(pong, "+PONG\r\n") == 0, "connection %d: %s", i, pong);
        free(pong);
    }
    long open_kb = test_server_rss_kb(s);
    for (int i = 0; i < count; i++) rconn_close(&conns[i]);
    free(conns);
    /* The probe's reply proves the server has seen every close. */
    char *clients = rconn_call(&probe, "INFO", "clients", NULL);
    CHECKF(strstr(clients, "connected_clients:1\r\n"), "connections not yet closed: %s", clients);
    free(clients);
    /* Every buffer of a closed connection is freed: used_memory is back. */
    long long used_after = used_memory(&probe);
    CHECKF(used_after < used_before + 256 * 1024,
           "used_memory %lld before %d connections, %lld after they closed", used_before, count,
           used_after);
    long after = rss_after_wait(s);
    printf("%d connections: RSS %ld KiB open, %ld KiB after closing (bound %d KiB)\n", count,
           open_kb, after, (int)RETURNED_MAX_KB);
    CHECKF(after < RETURNED_MAX_KB, "RSS stayed at %ld KiB after %d connections closed", after,
           count);
    rconn_close(&probe);
}

/* The value of "name:" in an INFO reply, or -1 when absent. */
static double info_number(const char *info, const char *name)
{
    char field[64];
    snprintf(field, sizeof field, "\r\n%s:", name);
    const char *at = strstr(info, field);
    return at ? strtod(at + strlen(field), NULL) : -1;
}

static void test_info_memory_and_purge(const struct test_server *s, bool jemalloc)
{
    struct rconn c;
    rconn_open_tcp(&c, s->port);
    expect_ok(&c, "MEMORY PURGE", rconn_call(&c, "MEMORY", "PURGE", NULL));
    char *info = rconn_call(&c, "INFO", "memory", NULL);
    static const char *const fields[] = {
        "used_memory",
        "used_memory_rss",
        "allocator_allocated",
        "allocator_active",
        "allocator_resident",
        "allocator_frag_ratio",
        "allocator_frag_bytes",
        "allocator_rss_ratio",
        "allocator_rss_bytes",
        "rss_overhead_ratio",
        "rss_overhead_bytes",
        "mem_fragmentation_ratio",
        "mem_fragmentation_bytes",
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char field[64];
        snprintf(field, sizeof field, "\r\n%s:", fields[i]);
        CHECKF(strstr(info, field), "INFO memory lacks %s:\n%s", fields[i], info);
    }
    double allocated = info_number(info, "allocator_allocated");
    double active = info_number(info, "allocator_active");
    double resident = info_number(info, "allocator_resident");
    double rss = info_number(info, "used_memory_rss");
    double used = info_number(info, "used_memory");
    CHECKF(allocated > 0 && active >= allocated && resident >= active,
           "allocator figures out of order:\n%s", info);
    /* used_memory_rss is read from /proc at INFO time: within a few MiB of ours. */
    double ours = (double)test_server_rss_kb(s) * 1024;
    CHECKF(rss > ours - 4e6 && rss < ours + 4e6, "used_memory_rss %.0f, /proc says %.0f", rss,
           ours);
    double frag = info_number(info, "mem_fragmentation_ratio");
    CHECKF(frag > rss / used - 0.01 && frag < rss / used + 0.01,
           "mem_fragmentation_ratio %.2f is not used_memory_rss / used_memory:\n%s", frag, info);
    if (jemalloc) {
        CHECKF(strstr(info, "\r\nmem_allocator:jemalloc-5."), "mem_allocator:\n%s", info);
        /* The allocator's own figures, not the libc stand-ins (= used, = RSS). */
        CHECKF(allocated != used && resident != rss, "allocator figures are stand-ins:\n%s", info);
    }
    free(info);
    rconn_close(&c);
}

int main(void)
{
    bool asan = getenv("GOBLIN_ASAN") != NULL;
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, NULL);
    if (asan) {
        test_info_memory_and_purge(&s, false);
        test_server_stop(&s);
        printf("memory return: SKIPPED the RSS bounds: the ASan server (GOBLIN_ASAN) keeps freed "
               "memory in its quarantine and uses glibc malloc\n");
        return 77;
    }
    test_flushall_returns_memory(&s);
    test_closed_connections_return_memory(&s);
    test_info_memory_and_purge(&s, true);
    test_server_stop(&s);
    printf("memory return: ok\n");
    return 0;
}
