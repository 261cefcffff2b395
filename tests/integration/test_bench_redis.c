/* Integration: goblin-bench measures redis-server with all eight of the
 * seeds' operations (its default) over TCP and the Unix socket; every reply
 * is validated by the tool, and the CSV has one well-formed row per op. */
#include "bench_support.h"

int main(void)
{
    const char *dir = bench_tmpdir();
    struct test_server s;
    test_server_start(&s, TEST_SERVER_REDIS, NULL);
    bench_run_and_check(s.port, s.unix_path, "redis", "tcp", NULL, bench_seed_ops(), 8, dir);
    bench_run_and_check(s.port, s.unix_path, "redis", "unix", NULL, bench_seed_ops(), 8, dir);
    test_server_stop(&s);
    return 0;
}
