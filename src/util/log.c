/* log.c — stderr logging in Redis's line format. */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum log_level log_min_level = LOG_NOTICE;

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
    fprintf(stderr, "%d:M %s %c %s\n", (int)getpid(), when, marks[level], msg);
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
