/* log_syslog.c — log lines to syslog(3); see log.h (apart from log.c
 * because <syslog.h> defines LOG_DEBUG ... LOG_WARNING as macros). */
#include <stdbool.h>
#include <string.h>
#include <syslog.h>

void log_syslog_line(int level, const char *msg);
bool log_set_syslog(const char *ident, const char *facility);
extern bool log_syslog_on;

bool log_syslog_on;

static const struct {
    const char *name;
    int value;
} facilities[] = {
    {"user", LOG_USER},     {"local0", LOG_LOCAL0}, {"local1", LOG_LOCAL1},
    {"local2", LOG_LOCAL2}, {"local3", LOG_LOCAL3}, {"local4", LOG_LOCAL4},
    {"local5", LOG_LOCAL5}, {"local6", LOG_LOCAL6}, {"local7", LOG_LOCAL7},
};

bool log_set_syslog(const char *ident, const char *facility)
{
    if (!ident) {
        if (log_syslog_on) closelog();
        log_syslog_on = false;
        return true;
    }
    for (size_t i = 0; i < sizeof facilities / sizeof facilities[0]; i++) {
        if (strcmp(facilities[i].name, facility) != 0) continue;
        openlog(ident, LOG_PID | LOG_NDELAY | LOG_NOWAIT, facilities[i].value);
        log_syslog_on = true;
        return true;
    }
    return false;
}

/* level: enum log_level (debug, verbose, notice, warning), as Redis maps
 * them. */
void log_syslog_line(int level, const char *msg)
{
    static const int priorities[] = {LOG_DEBUG, LOG_INFO, LOG_NOTICE, LOG_WARNING};
    syslog(priorities[level & 3], "%s", msg);
}
