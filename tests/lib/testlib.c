/* testlib.c — test servers and raw RESP connections; see testlib.h. */
#include "testlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int test_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    socklen_t len = sizeof a;
    CHECK(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

static bool port_accepts(int port)
{
    struct rconn c;
    if (!rconn_try_open_tcp(&c, port)) return false;
    rconn_close(&c);
    return true;
}

/* The Unix socket is bound too (a server may bind it after its TCP port). */
static bool unix_accepts(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

/* Servers still running when the test exits (a failed CHECK calls exit())
 * have their log printed (a sanitizer report lands there) and are killed,
 * so a failing test explains itself and leaves no orphan behind. */
#define MAX_TRACKED 64
static struct {
    pid_t pid;
    char log_path[128];
} tracked[MAX_TRACKED];

static void print_log(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    fprintf(stderr, "--- server log %s ---\n", path);
    while (fgets(line, sizeof line, f)) fputs(line, stderr);
    fclose(f);
}

static void kill_tracked(void)
{
    for (int i = 0; i < MAX_TRACKED; i++) {
        if (tracked[i].pid > 0) {
            print_log(tracked[i].log_path);
            kill(tracked[i].pid, SIGKILL);
            waitpid(tracked[i].pid, NULL, 0);
            tracked[i].pid = 0;
        }
    }
}

static void track(pid_t pid, const char *log_path)
{
    static bool registered;
    if (!registered) {
        atexit(kill_tracked);
        registered = true;
    }
    for (int i = 0; i < MAX_TRACKED; i++) {
        if (tracked[i].pid == 0) {
            tracked[i].pid = pid;
            snprintf(tracked[i].log_path, sizeof tracked[i].log_path, "%s", log_path);
            return;
        }
    }
}

static void untrack(pid_t pid)
{
    for (int i = 0; i < MAX_TRACKED; i++)
        if (tracked[i].pid == pid) tracked[i].pid = 0;
}

static void start_once(struct test_server *s, enum test_server_kind kind, const char *const *extra)
{
    s->kind = kind;
    s->port = test_free_port();
    snprintf(s->unix_path, sizeof s->unix_path, "%s/server.sock", s->dir);
    snprintf(s->log_path, sizeof s->log_path, "%s/server.log", s->dir);

    const char *argv[64];
    int argc = 0;
    char port[16];
    snprintf(port, sizeof port, "%d", s->port);
    if (kind == TEST_SERVER_GOBLIN) {
        const char *bin = getenv("GOBLIN_SERVER");
        CHECKF(bin, "GOBLIN_SERVER is not set");
        argv[argc++] = bin;
        argv[argc++] = "--port";
        argv[argc++] = port;
        argv[argc++] = "--unixsocket";
        argv[argc++] = s->unix_path;
        /* Snapshots (SHUTDOWN, SIGTERM, save points) stay in the test's
         * own directory and are off unless a test asks (later flags win). */
        argv[argc++] = "--save";
        argv[argc++] = "";
        argv[argc++] = "--dir";
        argv[argc++] = s->dir;
    } else {
        const char *bin = getenv("REDIS_SERVER");
        argv[argc++] = bin ? bin : "redis-server";
        argv[argc++] = "--port";
        argv[argc++] = port;
        argv[argc++] = "--bind";
        argv[argc++] = "127.0.0.1";
        argv[argc++] = "--unixsocket";
        argv[argc++] = s->unix_path;
        argv[argc++] = "--save";
        argv[argc++] = "";
        argv[argc++] = "--appendonly";
        argv[argc++] = "no";
        argv[argc++] = "--dir";
        argv[argc++] = s->dir;
    }
    for (int i = 0; extra && extra[i] && argc < 62; i++) argv[argc++] = extra[i];
    argv[argc] = NULL;

    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int log = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    s->pid = pid;
    track(pid, s->log_path);
}

void test_server_start(struct test_server *s, enum test_server_kind kind, const char *const *extra)
{
    memset(s, 0, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "/tmp/goblin-test-XXXXXX");
    CHECK(mkdtemp(s->dir) != NULL);
    for (int attempt = 0; attempt < 5; attempt++) {
        start_once(s, kind, extra);
        /* Up to 20 s: sanitizer builds start slowly on a loaded machine. */
        for (int i = 0; i < 2000; i++) {
            int status;
            if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
                untrack(s->pid);
                s->pid = 0;
                break; /* exited: port taken or bad arguments; maybe retry */
            }
            if (port_accepts(s->port) && unix_accepts(s->unix_path)) return;
            usleep(10000);
        }
        if (s->pid) {
            print_log(s->log_path);
            CHECKF(false, "server did not start listening on port %d", s->port);
        }
    }
    print_log(s->log_path);
    CHECKF(false, "server failed to start (see log above)");
}

void test_server_stop(struct test_server *s)
{
    if (s->pid <= 0) return;
    kill(s->pid, SIGTERM);
    int status = 0;
    CHECK(waitpid(s->pid, &status, 0) == s->pid);
    untrack(s->pid);
    s->pid = 0;
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) {
        print_log(s->log_path);
        CHECKF(false, "server exited abnormally (status 0x%x)", status);
    }
    unlink(s->unix_path);
    unlink(s->log_path);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", s->dir);
}

void test_server_kill(struct test_server *s)
{
    if (s->pid <= 0) return;
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    untrack(s->pid);
    s->pid = 0;
}

/* A "Name:   N kB" field of /proc/<pid>/status. */
static long status_kb(const struct test_server *s, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)s->pid);
    FILE *f = fopen(path, "r");
    CHECKF(f, "cannot open %s", path);
    long kb = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0) kb = strtol(line + n, NULL, 10);
    fclose(f);
    CHECKF(kb > 0, "no %s in %s", field, path);
    return kb;
}

long test_server_rss_kb(const struct test_server *s)
{
    return status_kb(s, "VmRSS:");
}

long test_server_peak_rss_kb(const struct test_server *s)
{
    return status_kb(s, "VmHWM:");
}

void test_password_hash(const char *password, char *out, size_t cap)
{
    const char *build = getenv("GOBLIN_BUILD_DIR");
    CHECKF(build, "GOBLIN_BUILD_DIR is not set");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "echo '%s' | '%s/goblin-passwd' --ops 1 --mem 8192", password, build);
    FILE *p = popen(cmd, "r");
    CHECK(p);
    CHECK(fgets(out, (int)cap, p) != NULL);
    CHECK(pclose(p) == 0);
    out[strcspn(out, "\n")] = '\0';
    CHECKF(strncmp(out, "$argon2id$", 10) == 0, "goblin-passwd printed '%s'", out);
}

/* --- raw connections ------------------------------------------------- */

bool rconn_try_open_tcp(struct rconn *c, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return false;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    buf_init(&c->in, 4096);
    return true;
}

void rconn_open_tcp_from(struct rconn *c, int port, const char *source_ip)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0);
    struct sockaddr_in from = {.sin_family = AF_INET};
    CHECKF(inet_pton(AF_INET, source_ip, &from.sin_addr) == 1, "bad source address %s", source_ip);
    CHECKF(bind(fd, (struct sockaddr *)&from, sizeof from) == 0, "bind to %s failed: %s", source_ip,
           strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECKF(connect(fd, (struct sockaddr *)&a, sizeof a) == 0,
           "connect from %s to 127.0.0.1:%d failed: %s", source_ip, port, strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    buf_init(&c->in, 4096);
}

void rconn_open_tcp(struct rconn *c, int port)
{
    CHECKF(rconn_try_open_tcp(c, port), "connect to 127.0.0.1:%d failed: %s", port,
           strerror(errno));
}

void rconn_open_unix(struct rconn *c, const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    CHECKF(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to %s failed: %s", path,
           strerror(errno));
    c->fd = fd;
    buf_init(&c->in, 4096);
}

void rconn_close(struct rconn *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    buf_free(&c->in);
}

void rconn_send_raw(struct rconn *c, const void *p, size_t n)
{
    const char *q = p;
    while (n) {
        ssize_t w = write(c->fd, q, n);
        if (w < 0 && errno == EINTR) continue;
        CHECKF(w > 0, "write failed: %s", strerror(errno));
        q += w;
        n -= (size_t)w;
    }
}

void rconn_send_argv(struct rconn *c, int argc, const char *const *argv, const size_t *lens)
{
    struct buf b;
    buf_init(&b, 256);
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "*%d\r\n", argc);
    buf_append(&b, tmp, (size_t)n);
    for (int i = 0; i < argc; i++) {
        size_t len = lens ? lens[i] : strlen(argv[i]);
        n = snprintf(tmp, sizeof tmp, "$%zu\r\n", len);
        buf_append(&b, tmp, (size_t)n);
        buf_append(&b, argv[i], len);
        buf_append(&b, "\r\n", 2);
    }
    rconn_send_raw(c, buf_head(&b), buf_len(&b));
    buf_free(&b);
}

static int collect_args(va_list ap, const char **argv, int max)
{
    int argc = 0;
    for (const char *a; (a = va_arg(ap, const char *)) && argc < max;) argv[argc++] = a;
    return argc;
}

void rconn_send(struct rconn *c, ...)
{
    const char *argv[256];
    va_list ap;
    va_start(ap, c);
    int argc = collect_args(ap, argv, 256);
    va_end(ap);
    rconn_send_argv(c, argc, argv, NULL);
}

char *rconn_try_read_reply(struct rconn *c, size_t *len, int timeout_ms)
{
    for (;;) {
        long long n = resp_reply_length(buf_head(&c->in), buf_len(&c->in));
        CHECKF(n >= 0, "malformed reply from server");
        if (n > 0) {
            char *out = malloc((size_t)n + 1);
            memcpy(out, buf_head(&c->in), (size_t)n);
            out[n] = '\0';
            buf_consume(&c->in, (size_t)n);
            if (len) *len = (size_t)n;
            return out;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        int r = poll(&p, 1, timeout_ms);
        if (r <= 0) return NULL;
        buf_reserve(&c->in, 65536);
        ssize_t got = read(c->fd, buf_tail(&c->in), buf_room(&c->in));
        if (got <= 0) return NULL;
        c->in.end += (size_t)got;
    }
}

char *rconn_read_reply(struct rconn *c, size_t *len)
{
    char *r = rconn_try_read_reply(c, len, 10000);
    CHECKF(r, "no reply from server (EOF or 10 s timeout)");
    return r;
}

char *rconn_dump_payload(struct rconn *c, const char *key, size_t *len)
{
    rconn_send(c, "DUMP", key, NULL);
    char *raw = rconn_read_reply(c, NULL);
    CHECKF(raw[0] == '$' && raw[1] != '-', "DUMP %s: %.40s", key, raw);
    *len = (size_t)atol(raw + 1);
    char *p = malloc(*len);
    memcpy(p, strstr(raw, "\r\n") + 2, *len);
    free(raw);
    return p;
}

char *rconn_call(struct rconn *c, ...)
{
    const char *argv[256];
    va_list ap;
    va_start(ap, c);
    int argc = collect_args(ap, argv, 256);
    va_end(ap);
    rconn_send_argv(c, argc, argv, NULL);
    return rconn_read_reply(c, NULL);
}

bool test_fd_wait_closed(int fd, int timeout_ms)
{
    char tmp[4096];
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= timeout_ms) return false;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)(timeout_ms - elapsed)) <= 0) return false;
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n == 0) return true;
        if (n < 0) return errno == ECONNRESET;
    }
}

bool rconn_wait_closed(struct rconn *c, int timeout_ms)
{
    return test_fd_wait_closed(c->fd, timeout_ms);
}

unsigned long long test_seed(const char *test_name)
{
    const char *env = getenv("TEST_SEED");
    unsigned long long seed;
    if (env)
        seed = strtoull(env, NULL, 10);
    else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (unsigned long long)ts.tv_sec * 1000003ULL ^ (unsigned long long)ts.tv_nsec;
    }
    fprintf(stderr, "%s: seed %llu (rerun with TEST_SEED=%llu)\n", test_name, seed, seed);
    return seed;
}
