/* Integration: the echo floor. goblin-echo-floor returns every byte, and
 * goblin-bench --ops ECHO measures it over TCP and the Unix socket with the
 * same CSV shape (op ECHO, server "floor"). */
#include "bench_support.h"

int main(void)
{
    const char *dir = bench_tmpdir();
    char floor_bin[512], socket_path[128], err[128], port_text[16];
    bench_binary(floor_bin, sizeof floor_bin, "goblin-echo-floor");
    snprintf(socket_path, sizeof socket_path, "%s/echo.sock", dir);
    snprintf(err, sizeof err, "%s/floor.stderr", dir);

    /* Start it; retry with another port if the ephemeral one was taken. */
    pid_t pid = -1;
    int port = 0;
    for (int attempt = 0; attempt < 5 && pid < 0; attempt++) {
        port = test_free_port();
        snprintf(port_text, sizeof port_text, "%d", port);
        const char *argv[] = {floor_bin, "--port", port_text, "--socket", socket_path, NULL};
        pid = bench_spawn(argv, err);
        for (int i = 0; i < 1000; i++) {
            struct rconn c;
            if (rconn_try_open_tcp(&c, port)) {
                rconn_close(&c);
                break;
            }
            if (waitpid(pid, NULL, WNOHANG) == pid) {
                bench_child_track(pid, 0);
                pid = -1;
                break;
            }
            usleep(10000);
        }
    }
    CHECKF(pid > 0, "goblin-echo-floor did not start");

    const char *echo[] = {"ECHO"};
    bench_run_and_check(port, socket_path, "floor", "tcp", "ECHO", echo, 1, dir);
    bench_run_and_check(port, socket_path, "floor", "unix", "ECHO", echo, 1, dir);

    kill(pid, SIGTERM);
    CHECK_EQ_LL(bench_wait(pid, 30, "goblin-echo-floor"), 0);
    CHECKF(access(socket_path, F_OK) != 0, "the floor left its socket behind");
    return 0;
}
