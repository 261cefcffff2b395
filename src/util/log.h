/* log.h — server log lines on stderr: "pid:role dd Mon yyyy hh:mm:ss.mmm <level> msg",
 * the Redis shape, so operators' tooling keeps working. */
#ifndef GOBLIN_LOG_H
#define GOBLIN_LOG_H

enum log_level { LOG_DEBUG, LOG_VERBOSE, LOG_NOTICE, LOG_WARNING };

extern enum log_level log_min_level;

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
