/*
 * testlib.h — integration-test support: start real servers (goblin-core or
 * redis-server) on an ephemeral loopback port and a Unix socket, and talk
 * raw RESP to them.
 *
 * Servers are started as child processes and stopped with SIGTERM; a
 * non-zero exit status (a crash, a sanitizer report, a leak under ASan)
 * fails the test in test_server_stop(). A server still running when the
 * test exits early (a failed CHECK) has its log printed and is killed.
 */
#ifndef GOBLIN_TESTLIB_H
#define GOBLIN_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "check.h"
#include <goblin/resp_reader.h>
#include "util/buf.h"

enum test_server_kind { TEST_SERVER_GOBLIN, TEST_SERVER_REDIS };

struct test_server {
    enum test_server_kind kind;
    pid_t pid;
    int port;
    char unix_path[108];
    char dir[64]; /* private temp directory (socket, logs) */
    char log_path[128];
};

/* Starts a server with extra arguments (NULL-terminated list, may be NULL).
 * goblin-core binary: $GOBLIN_SERVER; redis-server: $REDIS_SERVER. */
void test_server_start(struct test_server *s, enum test_server_kind kind, const char *const *extra);

/* Stops with SIGTERM and checks the exit status (0, or redis's own). */
void test_server_stop(struct test_server *s);

/* Kills without checks (for tests of crashes/abandon). */
void test_server_kill(struct test_server *s);

/* The running server's resident set (VmRSS of /proc/<pid>/status) in KiB. */
long test_server_rss_kb(const struct test_server *s);
/* Its peak resident set so far (VmHWM): what it held at its worst, even
 * if it has since given the memory back. */
long test_server_peak_rss_kb(const struct test_server *s);

/* An --auth-file hash of `password` (goblin-passwd from GOBLIN_BUILD_DIR,
 * cheap parameters: tests verify many). */
void test_password_hash(const char *password, char *out, size_t cap);

/* A free ephemeral TCP port on 127.0.0.1 (bound then released). */
int test_free_port(void);

/* --- raw RESP connections --------------------------------------------- */

struct rconn {
    int fd;
    struct buf in;
};

/* Connects over TCP (127.0.0.1:port) or a Unix socket path. Aborts on failure. */
void rconn_open_tcp(struct rconn *c, int port);
void rconn_open_unix(struct rconn *c, const char *path);
bool rconn_try_open_tcp(struct rconn *c, int port);
/* Connects to 127.0.0.1:port from a chosen local address (any of
 * 127.0.0.0/8 works on Linux): a client the server sees as another host. */
void rconn_open_tcp_from(struct rconn *c, int port, const char *source_ip);
void rconn_close(struct rconn *c);

/* Sends raw bytes. */
void rconn_send_raw(struct rconn *c, const void *p, size_t n);

/* Sends one command as a multibulk. */
void rconn_send_argv(struct rconn *c, int argc, const char *const *argv, const size_t *lens);

/* Sends a command given as a NULL-terminated list of C strings. */
void rconn_send(struct rconn *c, ...);

/* Reads one complete reply; returns its raw bytes in a malloc'd NUL-terminated
 * string (length in *len). Aborts the test on timeout (10 s) or EOF. */
char *rconn_read_reply(struct rconn *c, size_t *len);

/* Reads one reply or reports EOF/timeout: returns NULL then. */
char *rconn_try_read_reply(struct rconn *c, size_t *len, int timeout_ms);

/* Sends a command (C strings) and returns the raw reply. */
char *rconn_call(struct rconn *c, ...);

/* DUMP key: the payload's bytes (malloc'd, *len set); fails the test when
 * the reply is not a bulk string (an error, or nil for a missing key). */
char *rconn_dump_payload(struct rconn *c, const char *key, size_t *len);

/* True when the peer has closed (EOF within timeout_ms). */
bool rconn_wait_closed(struct rconn *c, int timeout_ms);
/* The same for any socket: reads (and drops) until EOF or ECONNRESET. */
bool test_fd_wait_closed(int fd, int timeout_ms);

/* Seed for randomized tests: $TEST_SEED or time-based; printed. */
unsigned long long test_seed(const char *test_name);

#endif
