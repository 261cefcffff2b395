/*
 * daemon.h — running as a service, as redis-server does: daemonize (double
 * fork), the pidfile, the log file and syslog, supervised systemd/upstart
 * (sd_notify), the crash report on a fatal signal, and what SIGTERM/SIGINT
 * do (shutdown-on-sigterm/-sigint).
 *
 * Order at startup (main.c): daemon_start() after the settings are read and
 * before anything listens (the banner is logged there, before the data set
 * loads, as Redis); daemon_ready() once the server is listening and
 * has loaded its data, just before the loop serves (the pidfile is written
 * there, before the first request is served); daemon_stop() at exit.
 *
 * Hazard: the crash handler runs on a corrupted process. It calls only
 * async-signal-safe functions (write, backtrace_symbols_fd — backtrace() is
 * called once at install time so that libgcc is loaded before a crash —
 * unlink, raise) and then lets the signal's default action happen (a core
 * dump where the system keeps them).
 */
#ifndef GOBLIN_DAEMON_H
#define GOBLIN_DAEMON_H

#include <stdbool.h>

/* Opens the log (logfile, syslog), detaches when daemonize is yes and no
 * supervisor is in charge, installs the crash handler and SIGHUP (reopen
 * the log file). False (after printing why) when the server cannot start. */
bool daemon_start(void);

/* Writes the pidfile (pidfile, or /var/run/redis.pid when daemonized
 * without one, as Redis), tells the supervisor the server is ready
 * (systemd: READY=1 and STATUS; upstart: SIGSTOP) and shows the logo when
 * always-show-logo or a terminal asks for it. */
void daemon_ready(void);

/* Removes the pidfile; tells systemd the server is stopping. */
void daemon_stop(void);

/* The housekeeping hook: reopens the log file after SIGHUP and logs it. */
void daemon_housekeeping(void);

#endif
