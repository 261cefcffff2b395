/* log.h — server log lines: "pid:role dd Mon yyyy hh:mm:ss.mmm <level> msg",
 * the Redis shape, so operators' tooling keeps working. They go to standard
 * output (Redis's logfile ""), or to a file opened for appending, and
 * optionally to syslog as well. One write(2) per line: nothing is buffered
 * in the process, so a crash loses no line and a reader sees whole lines. */
#ifndef GOBLIN_LOG_H
#define GOBLIN_LOG_H

enum log_level { LOG_DEBUG, LOG_VERBOSE, LOG_NOTICE, LOG_WARNING };

extern enum log_level log_min_level;

/* Logs to path from now on ("" or NULL: standard output). False with errno
 * set when the file cannot be opened for appending (nothing changes). */
_Bool log_set_file(const char *path);

/* Asks for the log file to be reopened before the next line is written
 * (after logrotate moved it: SIGHUP). Async-signal-safe. */
void log_request_reopen(void);

/* Reopens the log file now when asked to; true when it did. */
_Bool log_reopen_if_requested(void);

/* Also sends every line to syslog(3) under ident and facility (Redis's
 * names: user, local0 ... local7); ident NULL: stop. False for an unknown
 * facility. (log_syslog.c: <syslog.h>'s LOG_* macros would collide with
 * the level names above.) */
_Bool log_set_syslog(const char *ident, const char *facility);
extern _Bool log_syslog_on;
void log_syslog_line(int level, const char *msg);

/* The descriptor lines go to (the crash report writes there directly). */
int log_fd(void);

/* One line from a signal handler, async-signal-safe (no stdio, no
 * localtime): Redis's serverLogFromHandler form,
 * "pid:signal-handler (unix-seconds) msg". */
void log_from_signal_handler(const char *msg);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_verbose(...) log_msg(LOG_VERBOSE, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)

/* Warnings a peer can trigger at will (a ring client re-attaching with a
 * corrupt header, accept() out of descriptors) go through a limiter: at
 * most one line per interval, the next one saying how many were dropped,
 * so no peer can fill the disk through the log. Zero-initialise. */
struct log_limiter {
    long long last_ms; /* monotonic ms of the last line; 0 = never */
    long long dropped; /* lines suppressed since */
};

#define LOG_LIMIT_INTERVAL_MS 10000

/* Logs at warning level unless l logged within LOG_LIMIT_INTERVAL_MS. */
void log_warning_limited(struct log_limiter *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
