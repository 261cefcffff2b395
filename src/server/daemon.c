/* daemon.c — service operation; see daemon.h. */
#include "server/daemon.h"

#include <errno.h>
#include <limits.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "core/config.h"
#include "core/server_state.h"
#include "core/version.h"
#include "server/settings.h"
#include "util/log.h"
#include "util/xmalloc.h"

static struct {
    bool daemonize;
    char *pidfile;
    char *logfile;
    bool syslog_enabled;
    char *syslog_ident;
    char *syslog_facility;
    char *supervised;
    bool always_show_logo;
    bool crash_log_enabled;
    long long watchdog_period; /* ms; 0: off */
} daemon_settings;

enum supervisor { SUPERVISED_NONE, SUPERVISED_SYSTEMD, SUPERVISED_UPSTART };
static enum supervisor supervisor;
static bool pidfile_written;
static char pidfile_path[4096]; /* what the crash handler unlinks (no allocation there) */

/* --- the crash report ---------------------------------------------------- */

static void crash_write(const char *s)
{
    size_t n = strlen(s);
    int fd = log_fd();
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

/* Decimal without printf (async-signal-safe). */
static void crash_write_long(long v)
{
    char tmp[24];
    int i = (int)sizeof tmp - 1;
    tmp[i] = '\0';
    bool neg = v < 0;
    unsigned long u = neg ? 0UL - (unsigned long)v : (unsigned long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u && i > 1);
    if (neg) tmp[--i] = '-';
    crash_write(tmp + i);
}

static void crash_write_hex(unsigned long v)
{
    char tmp[20];
    int i = (int)sizeof tmp - 1;
    tmp[i] = '\0';
    do {
        tmp[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v && i > 2);
    tmp[--i] = 'x';
    tmp[--i] = '0';
    crash_write(tmp + i);
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    crash_write("\n\n=== GOBLIN-CORE BUG REPORT START: Cut & paste starting from here ===\n");
    crash_write_long((long)getpid());
    crash_write(":M # goblin-core " GOBLIN_VERSION " (redis_version " GOBLIN_REDIS_VERSION
                ") crashed by signal: ");
    crash_write_long(sig);
    crash_write(", si_code: ");
    crash_write_long(info ? info->si_code : 0);
    crash_write("\n");
    if (info && (sig == SIGSEGV || sig == SIGBUS)) {
        crash_write("Accessing address: ");
        crash_write_hex((unsigned long)info->si_addr);
        crash_write("\n");
    }
    crash_write("\n------ STACK TRACE ------\n\nBacktrace:\n");
    void *frames[64];
    int n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, log_fd());
    crash_write("\n=== GOBLIN-CORE BUG REPORT END. Make sure to include from START to END. ===\n");
    if (pidfile_written) unlink(pidfile_path);
    /* The default action (core dump) for the same signal. */
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void apply_crash_log(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction sa = {0};
        sigemptyset(&sa.sa_mask);
        if (daemon_settings.crash_log_enabled) {
            sa.sa_sigaction = on_fatal_signal;
            sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND;
        } else {
            sa.sa_handler = SIG_DFL;
        }
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* --- the watchdog (watchdog-period) --------------------------------------- */

/* Redis's software watchdog: each housekeeping run re-arms a one-shot
 * SIGALRM watchdog-period ms ahead, so it fires only when the loop has not
 * come back to housekeeping for that long (a slow command, a long script),
 * and the handler logs where the server is. Cost: one setitimer() per
 * housekeeping run while it is on, nothing when off. */
static bool watchdog_armed;

static void on_watchdog(int sig)
{
    (void)sig;
    crash_write("\n--- WATCHDOG TIMER EXPIRED ---\n");
    void *frames[64];
    int n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, log_fd());
    crash_write("--------\n");
}

static void watchdog_arm(long long ms)
{
    struct itimerval it = {.it_value = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
}

static void apply_watchdog(void)
{
    if (daemon_settings.watchdog_period > 0 && !watchdog_armed) {
        struct sigaction sa = {.sa_handler = on_watchdog, .sa_flags = SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
        watchdog_armed = true;
    } else if (daemon_settings.watchdog_period <= 0 && watchdog_armed) {
        watchdog_arm(0);
        signal(SIGALRM, SIG_IGN);
        watchdog_armed = false;
        return;
    }
    if (watchdog_armed) watchdog_arm(daemon_settings.watchdog_period);
}

/* --- start, ready, stop --------------------------------------------------- */

static void on_sighup(int sig)
{
    (void)sig;
    log_request_reopen();
}

/* Double fork: the first child leads a new session, the second (the
 * server) is not a session leader and can never get a controlling
 * terminal. The original process exits at once, as redis-server's does. */
static bool detach(void)
{
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "goblin-core: fork failed: %s\n", strerror(errno));
        return false;
    }
    if (pid > 0) _exit(0);
    if (setsid() < 0) return false;
    pid = fork();
    if (pid < 0) return false;
    if (pid > 0) _exit(0);
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) {
        dup2(fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        if (fd > STDERR_FILENO) close(fd);
    }
    return true;
}

static enum supervisor detect_supervisor(void)
{
    const char *mode = daemon_settings.supervised;
    if (strcmp(mode, "systemd") == 0) return SUPERVISED_SYSTEMD;
    if (strcmp(mode, "upstart") == 0) return SUPERVISED_UPSTART;
    if (strcmp(mode, "auto") == 0) {
        if (getenv("NOTIFY_SOCKET")) return SUPERVISED_SYSTEMD;
        if (getenv("UPSTART_JOB")) return SUPERVISED_UPSTART;
    }
    return SUPERVISED_NONE;
}

static void show_logo(void);

bool daemon_start(void)
{
    if (!log_set_file(daemon_settings.logfile)) {
        fprintf(stderr, "Can't open the log file: %s\n", strerror(errno));
        return false;
    }
    if (daemon_settings.syslog_enabled &&
        !log_set_syslog(daemon_settings.syslog_ident, daemon_settings.syslog_facility)) {
        fprintf(stderr, "goblin-core: unknown syslog-facility '%s'\n",
                daemon_settings.syslog_facility);
        return false;
    }
    supervisor = detect_supervisor();
    server.supervised = supervisor == SUPERVISED_SYSTEMD   ? "systemd"
                        : supervisor == SUPERVISED_UPSTART ? "upstart"
                                                           : NULL;
    if (supervisor == SUPERVISED_SYSTEMD && !getenv("NOTIFY_SOCKET"))
        log_warning("supervised systemd: NOTIFY_SOCKET is not set; readiness cannot be reported");
    /* As Redis: a supervised server stays in the foreground. */
    if (daemon_settings.daemonize && supervisor == SUPERVISED_NONE) {
        if (!detach()) return false;
        if (!daemon_settings.pidfile || !*daemon_settings.pidfile) {
            xfree(daemon_settings.pidfile);
            daemon_settings.pidfile = xstrdup("/var/run/redis.pid");
        }
    }
    void *warm[1];
    backtrace(warm, 1); /* loads libgcc now, not inside the crash handler */
    apply_crash_log();
    struct sigaction sa = {.sa_handler = on_sighup};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, NULL);
    /* Before the data set loads, as Redis: the banner's PID line is what
     * Redis's own test suite waits for before it watches the server, so a
     * server that then fails to load is seen to exit, not waited for. */
    show_logo();
    return true;
}

static void write_pidfile(void)
{
    const char *path = daemon_settings.pidfile;
    if (!path || !*path) return;
    FILE *f = fopen(path, "w");
    if (!f) {
        log_warning("Failed to write PID file: %s", strerror(errno));
        return;
    }
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    snprintf(pidfile_path, sizeof pidfile_path, "%s", path);
    pidfile_written = true;
}

static void show_logo(void)
{
    bool logo = daemon_settings.always_show_logo ||
                (isatty(STDOUT_FILENO) && (!daemon_settings.logfile || !*daemon_settings.logfile) &&
                 !daemon_settings.syslog_enabled);
    struct buf port;
    buf_init(&port, 16);
    config_get_value("port", &port);
    buf_append_char(&port, '\0');
    if (!logo) {
        log_notice("Running mode=standalone, port=%s.", buf_head(&port));
    } else {
        log_notice("\n"
                   "      ,      ,        goblin-core %s (redis_version %s)\n"
                   "     /(.-\"\"-.)\\       Running in standalone mode\n"
                   " |\\  \\/      \\/  /|   Port: %s\n"
                   " | \\ / =.  .= \\ / |   PID: %d\n"
                   " \\( \\   o\\/o   / )/\n"
                   "  \\_, '-/  \\-' ,_/\n"
                   "    /   \\__/   \\\n"
                   "    \\ \\__/\\__/ /\n",
                   GOBLIN_VERSION, GOBLIN_REDIS_VERSION, buf_head(&port), (int)getpid());
    }
    buf_free(&port);
}

void daemon_ready(void)
{
    write_pidfile();
    if (supervisor == SUPERVISED_SYSTEMD) {
        if (sd_notify(0, "READY=1\nSTATUS=Ready to accept connections") <= 0)
            log_warning("sd_notify: readiness not reported (NOTIFY_SOCKET unset or unreachable)");
        else
            log_notice("Supervised by systemd. Please make sure you set appropriate values for "
                       "TimeoutStartSec and TimeoutStopSec in your service unit.");
    } else if (supervisor == SUPERVISED_UPSTART) {
        log_notice("supervised by upstart, will stop to signal readiness.");
        raise(SIGSTOP);
        unsetenv("UPSTART_JOB");
    }
}

void daemon_stop(void)
{
    if (supervisor == SUPERVISED_SYSTEMD) sd_notify(0, "STOPPING=1\nSTATUS=Shutting down");
    if (pidfile_written) {
        unlink(pidfile_path);
        pidfile_written = false;
    }
}

void daemon_housekeeping(void)
{
    if (watchdog_armed) watchdog_arm(daemon_settings.watchdog_period);
    if (log_reopen_if_requested()) log_notice("Received SIGHUP: log file reopened");
}

/* --- settings (core/config.h) ---------------------------------------- */

static void daemon_defaults(void)
{
    daemon_settings.pidfile = xstrdup("");
    daemon_settings.logfile = xstrdup("");
    daemon_settings.syslog_ident = xstrdup("redis");
    daemon_settings.syslog_facility = xstrdup("local0");
    daemon_settings.supervised = xstrdup("no");
    daemon_settings.crash_log_enabled = true;
}

static const char *const facilities[] = {"user",   "local0", "local1", "local2", "local3",
                                         "local4", "local5", "local6", "local7", NULL};
static const char *const supervised_modes[] = {"upstart", "systemd", "auto", "no", NULL};

#define STARTUP (CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE)

static const struct config_param daemon_params[] = {
    {.name = "daemonize",
     .kind = CFG_BOOL,
     .value = &daemon_settings.daemonize,
     .flags = STARTUP,
     .value_name = "yes|no",
     .help = "detach (double fork) and run in the background; the pidfile names the server "
             "(default no; ignored when supervised)"},
    {.name = "pidfile",
     .kind = CFG_STRING,
     .value = &daemon_settings.pidfile,
     .flags = STARTUP,
     .value_name = "FILE",
     .help = "write the server's pid there before serving, remove it at exit (default none; "
             "/var/run/redis.pid when daemonized)"},
    {.name = "logfile",
     .kind = CFG_STRING,
     .value = &daemon_settings.logfile,
     .flags = STARTUP,
     .value_name = "FILE",
     .help = "append the log there, reopened after SIGHUP (default \"\": standard output)"},
    {.name = "syslog-enabled",
     .kind = CFG_BOOL,
     .value = &daemon_settings.syslog_enabled,
     .flags = STARTUP,
     .value_name = "yes|no",
     .help = "also log to syslog (default no)"},
    {.name = "syslog-ident",
     .kind = CFG_STRING,
     .value = &daemon_settings.syslog_ident,
     .flags = STARTUP,
     .value_name = "NAME",
     .help = "syslog identity (default redis)"},
    {.name = "syslog-facility",
     .kind = CFG_ENUM,
     .value = &daemon_settings.syslog_facility,
     .flags = STARTUP,
     .value_name = "user|local0-local7",
     .help = "syslog facility (default local0)",
     .choices = facilities},
    {.name = "supervised",
     .kind = CFG_ENUM,
     .value = &daemon_settings.supervised,
     .flags = STARTUP,
     .value_name = "upstart|systemd|auto|no",
     .help = "report readiness to a supervisor: systemd (sd_notify READY=1 to NOTIFY_SOCKET), "
             "upstart (SIGSTOP), auto (by the environment) (default no)",
     .choices = supervised_modes},
    {.name = "always-show-logo",
     .kind = CFG_BOOL,
     .value = &daemon_settings.always_show_logo,
     .flags = STARTUP,
     .value_name = "yes|no",
     .help = "show the logo at startup even when the log is not a terminal (default no)"},
    {.name = "crash-log-enabled",
     .kind = CFG_BOOL,
     .value = &daemon_settings.crash_log_enabled,
     .value_name = "yes|no",
     .help = "on SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT log a stack trace before dying "
             "(default yes)",
     .apply = apply_crash_log},
    {.name = "watchdog-period",
     .kind = CFG_INT,
     .value = &daemon_settings.watchdog_period,
     .min = 0,
     .max = INT_MAX,
     .flags = CFG_HIDDEN,
     .value_name = "MS",
     .help = "testing: log a stack trace when the loop has not run its housekeeping for this long "
             "(Redis's software watchdog; 0: off, the default)",
     .apply = apply_watchdog},
};

const struct config_table daemon_config = CONFIG_TABLE(daemon_params, daemon_defaults);
