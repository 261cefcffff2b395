/*
 * bench_support.h — shared by the goblin-bench integration tests
 * (test_bench_*.c): run the real goblin-bench / goblin-echo-floor binaries
 * from $GOBLIN_BUILD_DIR and check the CSV they write.
 *
 * Header-only (static inline functions) because each test is its own program and
 * tests/lib belongs to the server's tests.
 */
#ifndef GOBLIN_TEST_BENCH_SUPPORT_H
#define GOBLIN_TEST_BENCH_SUPPORT_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

/* The header issue 5 specifies, written here independently of the tool. */
#define EXPECTED_CSV_HEADER                                                                        \
    "label,server,transport,wire,send_mode,op,samples,warmup,min_us,p50_us,p75_us,p90_us,"         \
    "p95_us,p99_us,p999_us,p9999_us,max_us,mean_us,ops_per_sec"
#define CSV_FIELDS 19

/* The seeds' eight operations, goblin-bench's default --ops, in order. */
static inline const char *const *bench_seed_ops(void)
{
    static const char *const ops[] = {"PING", "SET",  "GET",    "HSET",
                                      "HGET", "ZADD", "ZSCORE", "PUBSUB"};
    return ops;
}

/* $GOBLIN_BUILD_DIR/name into out. */
static inline void bench_binary(char *out, size_t cap, const char *name)
{
    const char *dir = getenv("GOBLIN_BUILD_DIR");
    CHECKF(dir, "GOBLIN_BUILD_DIR is not set");
    snprintf(out, cap, "%s/%s", dir, name);
    CHECKF(access(out, X_OK) == 0, "%s is not built", out);
}

/* Children started by bench_spawn() and not yet reaped: killed at exit, so
 * a failing check (which exits at once) leaves no process behind. */
static pid_t bench_children[8];

static inline void bench_kill_children(void)
{
    for (size_t i = 0; i < sizeof bench_children / sizeof bench_children[0]; i++) {
        if (bench_children[i] > 0) {
            kill(bench_children[i], SIGKILL);
            waitpid(bench_children[i], NULL, 0);
        }
    }
}

static inline void bench_child_track(pid_t old_pid, pid_t new_pid)
{
    static bool registered;
    if (!registered) atexit(bench_kill_children);
    registered = true;
    for (size_t i = 0; i < sizeof bench_children / sizeof bench_children[0]; i++) {
        if (bench_children[i] == old_pid) {
            bench_children[i] = new_pid;
            return;
        }
    }
    CHECKF(new_pid <= 0, "too many children");
}

/* Starts argv[0] with stdout to /dev/null and stderr to stderr_path. */
static inline pid_t bench_spawn(const char *const *argv, const char *stderr_path)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int out = open("/dev/null", O_WRONLY);
        int err = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0) _exit(126);
        dup2(out, 1);
        dup2(err, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    bench_child_track(0, pid);
    return pid;
}

/* Waits for pid; kills it after timeout_s (a hang guard, not a timing
 * assertion) and fails the test then. Returns the exit status. */
static inline int bench_wait(pid_t pid, int timeout_s, const char *what)
{
    for (int i = 0; i < timeout_s * 100; i++) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        CHECK(r >= 0);
        if (r == pid) {
            bench_child_track(pid, 0);
            CHECKF(WIFEXITED(status), "%s died by signal %d", what, WTERMSIG(status));
            return WEXITSTATUS(status);
        }
        usleep(10000);
    }
    CHECKF(false, "%s still running after %d s (killed)", what, timeout_s);
    return -1;
}

/* The whole file as a malloc'd string. */
static inline char *bench_read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECKF(f, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *data = malloc(cap);
    size_t n;
    while ((n = fread(data + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) data = realloc(data, cap *= 2);
    }
    fclose(f);
    data[len] = '\0';
    return data;
}

static inline void bench_dump_file(const char *path)
{
    char *text = bench_read_file(path);
    fprintf(stderr, "--- %s ---\n%s\n", path, text);
    free(text);
}

static inline double parse_number(const char *field, const char *what)
{
    char *end;
    errno = 0;
    double v = strtod(field, &end);
    CHECKF(!errno && end != field && *end == '\0', "%s: '%s' is not a number", what, field);
    return v;
}

/*
 * Checks goblin-bench's CSV: the exact header, then exactly one row per op
 * in ops[] order with the given identity columns, every numeric field a
 * number, the sample and warmup counts as asked, and ordered statistics
 * (min <= p50 <= ... <= p99.99 <= max, min <= mean <= max, ops/s > 0).
 */
static inline void bench_check_csv(const char *path, const char *label, const char *server,
                                   const char *transport, const char *const *ops, int op_count,
                                   long samples, long warmup)
{
    char *text = bench_read_file(path);
    char *save_line;
    char *line = strtok_r(text, "\n", &save_line);
    CHECKF(line, "%s is empty", path);
    CHECK_STR(line, EXPECTED_CSV_HEADER);
    int rows = 0;
    while ((line = strtok_r(NULL, "\n", &save_line))) {
        CHECKF(rows < op_count, "%s: more rows than the %d ops asked for: %s", path, op_count,
               line);
        char *fields[CSV_FIELDS + 1];
        int n = 0;
        char *save_field;
        for (char *f = strtok_r(line, ",", &save_field); f && n <= CSV_FIELDS;
             f = strtok_r(NULL, ",", &save_field))
            fields[n++] = f;
        CHECKF(n == CSV_FIELDS, "%s row %d: %d fields, want %d", path, rows + 1, n, CSV_FIELDS);
        CHECK_STR(fields[0], label);
        CHECK_STR(fields[1], server);
        CHECK_STR(fields[2], transport);
        CHECK_STR(fields[3], "resp");
        CHECK_STR(fields[4], "na");
        CHECK_STR(fields[5], ops[rows]);
        CHECK_EQ_LL(parse_number(fields[6], "samples"), samples);
        CHECK_EQ_LL(parse_number(fields[7], "warmup"), warmup);
        double v[CSV_FIELDS];
        for (int i = 8; i < CSV_FIELDS; i++) v[i] = parse_number(fields[i], "statistic");
        /* min, p50 .. p99.99, max are columns 8..16: non-decreasing. */
        CHECKF(v[8] > 0, "%s %s: min %f", path, ops[rows], v[8]);
        for (int i = 9; i <= 16; i++)
            CHECKF(v[i] >= v[i - 1], "%s %s: column %d (%f) < column %d (%f)", path, ops[rows], i,
                   v[i], i - 1, v[i - 1]);
        CHECKF(v[17] >= v[8] && v[17] <= v[16], "%s %s: mean %f outside [min, max]", path,
               ops[rows], v[17]);
        CHECKF(v[18] > 0, "%s %s: ops_per_sec %f", path, ops[rows], v[18]);
        rows++;
    }
    CHECKF(rows == op_count, "%s: %d rows, want %d (one per op)", path, rows, op_count);
    free(text);
}

/* The test's temporary directory, removed at exit whether the test passes
 * or fails (a failing check prints the files it needs first). */
static char bench_dir[64];

static inline void bench_remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", bench_dir);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", bench_dir);
}

/* Creates the private temporary directory for CSV and stderr files. */
static inline const char *bench_tmpdir(void)
{
    snprintf(bench_dir, sizeof bench_dir, "/tmp/goblin-bench-test-XXXXXX");
    CHECK(mkdtemp(bench_dir) != NULL);
    atexit(bench_remove_dir);
    return bench_dir;
}

#define TEST_SAMPLES 500
#define TEST_WARMUP 50

/*
 * Runs goblin-bench against server s (named server_name in the CSV) over
 * transport ("tcp", "unix", or "ring" with socket_path naming a --ring-pool
 * directory) with small counts, and checks that it exits 0,
 * prints nothing on stderr (its progress is silent when stderr is not a
 * terminal) and writes one valid CSV row per op. ops_list NULL runs the
 * tool's default (the seeds' eight); ops[] is what the CSV must hold.
 */
static inline void bench_run_and_check(int port, const char *socket_path, const char *server_name,
                                       const char *transport, const char *ops_list,
                                       const char *const *ops, int op_count, const char *dir)
{
    char bench[512], csv[512], err[512], label[128], port_text[16], samples[16], warmup[16];
    bench_binary(bench, sizeof bench, "goblin-bench");
    snprintf(label, sizeof label, "test-%s-%s", server_name, transport);
    snprintf(csv, sizeof csv, "%s/%s.csv", dir, label);
    snprintf(err, sizeof err, "%s/%s.stderr", dir, label);
    snprintf(port_text, sizeof port_text, "%d", port);
    snprintf(samples, sizeof samples, "%d", TEST_SAMPLES);
    snprintf(warmup, sizeof warmup, "%d", TEST_WARMUP);
    const char *argv[32] = {bench,       "--transport", transport, "--samples", samples,
                            "--warmup",  warmup,        "--label", label,       "--server-name",
                            server_name, "--csv",       csv};
    int argc = 13;
    if (strcmp(transport, "unix") == 0) {
        argv[argc++] = "--socket";
        argv[argc++] = socket_path;
    } else if (strcmp(transport, "ring") == 0) {
        argv[argc++] = "--ring-pool";
        argv[argc++] = socket_path;
    } else {
        argv[argc++] = "--port";
        argv[argc++] = port_text;
    }
    if (ops_list) {
        argv[argc++] = "--ops";
        argv[argc++] = ops_list;
    }
    argv[argc] = NULL;
    fprintf(stderr, "goblin-bench vs %s over %s, ops %s\n", server_name, transport,
            ops_list ? ops_list : "(default)");
    int rc = bench_wait(bench_spawn(argv, err), 300, "goblin-bench");
    if (rc != 0) bench_dump_file(err);
    CHECK_EQ_LL(rc, 0);
    char *errors = bench_read_file(err);
    CHECKF(errors[0] == '\0', "goblin-bench wrote to a non-terminal stderr: %s", errors);
    free(errors);
    bench_check_csv(csv, label, server_name, transport, ops, op_count, TEST_SAMPLES, TEST_WARMUP);
}

/* Splits a comma-separated op list into ops[] (pointers into a copy). */
static inline int bench_split_ops(const char *list, const char **ops, int max)
{
    char *copy = strdup(list);
    int n = 0;
    char *save;
    for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
        ops[n++] = t;
    return n; /* copy lives as long as the test */
}

#endif
