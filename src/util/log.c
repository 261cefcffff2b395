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
