/* Integration: a wrong reply makes goblin-bench fail loudly. While it runs
 * GET on its string key with many samples, a second client SETs that key to
 * a different value of the same length; the next GET reply no longer matches
 * the expected bytes, and goblin-bench must exit 1 naming the op, the
 * operation index, and the expected and received bytes. Run against
 * goblin-core and against redis-server. */
#include "bench_support.h"

#define CORRUPT "corrupted-value!" /* 16 bytes, like the tool's values */

static void corrupt_mid_run(enum test_server_kind kind, const char *name, const char *dir)
{
    struct test_server s;
    test_server_start(&s, kind, NULL);
    char bench[512], err[256], port[16];
    bench_binary(bench, sizeof bench, "goblin-bench");
    snprintf(err, sizeof err, "%s/%s.stderr", dir, name);
    snprintf(port, sizeof port, "%d", s.port);
    /* Enough samples that the run is still going when the SET lands (it
     * ends at the first mismatch, so this costs nothing). */
    const char *argv[] = {bench,       "--port",    port,       "--ops", "GET",
                          "--samples", "100000000", "--warmup", "0",     NULL};
    pid_t pid = bench_spawn(argv, err);

    /* Wait until goblin-bench has seeded its key (then it is in the GET
     * loop, or about to be), and change the key under it. */
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    bool seeded = false;
    for (int i = 0; i < 3000 && !seeded; i++) {
        char *r = rconn_call(&c, "GET", "goblin-bench:string", NULL);
        seeded = strcmp(r, "$16\r\ngoblin-bench-v-1\r\n") == 0;
        free(r);
        if (!seeded) usleep(10000);
    }
    CHECKF(seeded, "goblin-bench never seeded goblin-bench:string");
    char *r = rconn_call(&c, "SET", "goblin-bench:string", CORRUPT, NULL);
    CHECK_STR(r, "+OK\r\n");
    free(r);
    rconn_close(&c);

    int rc = bench_wait(pid, 120, "goblin-bench");
    char *text = bench_read_file(err);
    fprintf(stderr, "%s: goblin-bench exited %d:\n%s", name, rc, text);
    CHECK_EQ_LL(rc, 1);
    CHECKF(strstr(text, "GET: reply mismatch at "), "no op / mismatch line");
    CHECKF(strstr(text, "sample ") || strstr(text, "warmup operation "), "no operation index");
    CHECKF(strstr(text, "expected (23 bytes): \"$16\\r\\ngoblin-bench-v-1\\r\\n\""),
           "expected bytes not shown escaped");
    CHECKF(strstr(text, "received (23 bytes): \"$16\\r\\n" CORRUPT "\\r\\n\""),
           "received bytes not shown escaped");
    free(text);
    test_server_stop(&s);
}

int main(void)
{
    const char *dir = bench_tmpdir();
    corrupt_mid_run(TEST_SERVER_GOBLIN, "goblin", dir);
    corrupt_mid_run(TEST_SERVER_REDIS, "redis", dir);
    return 0;
}
