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

#endif
