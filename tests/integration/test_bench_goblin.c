/* Integration: goblin-bench measures goblin-core with all eight of the
 * seeds' operations over TCP, the Unix socket and shared-memory rings (plain
 * server, then the ASan+UBSan server in the asan.* run).
 *
 * BENCH_TEST_GOBLIN_OPS (a comma-separated op list) narrows the ops, for
 * checking the tool against a server that does not have every type yet;
 * without it the test runs the tool's default, all eight. */
#include "bench_support.h"

int main(void)
{
    const char *list = getenv("BENCH_TEST_GOBLIN_OPS");
    const char *ops[16];
    int count = 8;
    if (list && *list) {
        count = bench_split_ops(list, ops, 16);
    } else {
        list = NULL;
        for (int i = 0; i < 8; i++) ops[i] = bench_seed_ops()[i];
    }
    const char *dir = bench_tmpdir();
    char pool[128];
    snprintf(pool, sizeof pool, "/dev/shm/goblin-bench-test-%d", (int)getpid());
    const char *const extra[] = {"--ring-pool", pool, "2", "64k", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    bench_run_and_check(s.port, s.unix_path, "goblin", "tcp", list, ops, count, dir);
    bench_run_and_check(s.port, s.unix_path, "goblin", "unix", list, ops, count, dir);
    bench_run_and_check(s.port, pool, "goblin", "ring", list, ops, count, dir);
    test_server_stop(&s);
    rmdir(pool); /* the server removed its ring files */
    return 0;
}
