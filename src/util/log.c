/* log.c — logging in Redis's line format; see log.h. */
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum log_level log_min_level = LOG_NOTICE;

static int current_fd = STDOUT_FILENO;
static char *current_path; /* NULL: standard output */
static volatile sig_atomic_t reopen_requested;

bool log_set_file(const char *path)
{
    if (!path || !*path) {
        if (current_fd != STDOUT_FILENO) close(current_fd);
        current_fd = STDOUT_FILENO;
        free(current_path);
        current_path = NULL;
        return true;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    if (current_fd != STDOUT_FILENO) close(current_fd);
    current_fd = fd;
    char *copy = strdup(path);
    free(current_path);
    current_path = copy;
    return true;
}

void log_request_reopen(void)
{
    reopen_requested = 1;
}

bool log_reopen_if_requested(void)
{
    if (!reopen_requested) return false;
    reopen_requested = 0;
    if (!current_path) return false;
    char *path = strdup(current_path);
    bool ok = path && log_set_file(path);
    free(path);
    return ok;
}

int log_fd(void)
{
    return current_fd;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    if (level < log_min_level) return;
    static const char marks[] = ".-*#";
    char when[64];
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    size_t n = strftime(when, sizeof when, "%d %b %Y %H:%M:%S.", &tm);
    snprintf(when + n, sizeof when - n, "%03d", (int)(tv.tv_usec / 1000));

    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (reopen_requested) log_reopen_if_requested();
    char line[1200];
    int len =
        snprintf(line, sizeof line, "%d:M %s %c %s\n", (int)getpid(), when, marks[level], msg);
    if (len > (int)sizeof line - 1) {
        len = (int)sizeof line - 1;
        line[len - 1] = '\n'; /* a cut line still ends one */
    }
    if (len > 0 && write(current_fd, line, (size_t)len) < 0) {
        /* nowhere to report a failed log write */
    }
    if (log_syslog_on) log_syslog_line((int)level, msg);
}

/* Appends v in decimal to line at *n (async-signal-safe). */
static void append_decimal(char *line, size_t cap, size_t *n, long long v)
{
    char digits[24];
    int i = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[i++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0 && *n < cap) line[(*n)++] = '-';
    while (i > 0 && *n < cap) line[(*n)++] = digits[--i];
}

static void append_text(char *line, size_t cap, size_t *n, const char *s)
{
    while (*s && *n < cap) line[(*n)++] = *s++;
}

void log_from_signal_handler(const char *msg)
{
    char line[512];
    size_t n = 0, cap = sizeof line - 1;
    append_decimal(line, cap, &n, (long long)getpid());
    append_text(line, cap, &n, ":signal-handler (");
    append_decimal(line, cap, &n, (long long)time(NULL));
    append_text(line, cap, &n, ") ");
    append_text(line, cap, &n, msg);
    line[n++] = '\n';
    if (write(current_fd, line, n) < 0) {
        /* nowhere to report a failed log write */
    }
}

void log_warning_limited(struct log_limiter *l, const char *fmt, ...)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long now_ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (l->last_ms && now_ms - l->last_ms < LOG_LIMIT_INTERVAL_MS) {
        l->dropped++;
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (l->dropped)
        log_warning("%s (%lld more like it in the last %d s not logged)", msg, l->dropped,
                    LOG_LIMIT_INTERVAL_MS / 1000);
    else
        log_warning("%s", msg);
    l->last_ms = now_ms;
    l->dropped = 0;
}
