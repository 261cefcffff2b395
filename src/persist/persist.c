/* persist.c — SAVE, BGSAVE, save points, loading at start; see persist.h. */
#include "persist/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/command_hooks.h"
#include "persist/aof.h"
#include "persist/rdb.h"
#include "core/config.h"
#include "core/latency.h"
#include "store/db.h"
#include "util/allocator.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

/* After a failed background save, save points wait this long before the
 * next attempt (Redis's CONFIG_BGSAVE_RETRY_DELAY). */
#define BGSAVE_RETRY_DELAY_S 5
#define SAVE_POINTS_MAX 64

struct save_point {
    long long seconds;
    long long changes;
};

static struct {
    struct save_point points[SAVE_POINTS_MAX];
    int npoints;
    long long dirty_at_save;      /* keyspace.stats.dirty the last snapshot reflects */
    long long dirty_at_fork;      /* ... the running child's snapshot reflects */
    int64_t lastsave_s;           /* last successful save */
    int64_t last_bgsave_try_s;    /* last BGSAVE attempt */
    bool last_bgsave_ok;          /* rdb_last_bgsave_status */
    bool scheduled;               /* BGSAVE SCHEDULE pending */
    pid_t child;                  /* running BGSAVE child, or 0 */
    int child_pipe;               /* read end: the child's copy-on-write bytes */
    int64_t child_start_us;       /* monotonic */
    long long last_bgsave_time_s; /* duration of the last one, -1 = none yet */
    long long last_fork_us;
    long long last_cow_bytes;
    long long saves;            /* successful saves, either kind */
    long long load_keys_loaded; /* last load's counts */
    long long load_keys_expired;
    /* the running child saves for replication (persist_bgsave_replication) */
    int child_target_fd;     /* the pipe it writes, -1: the file */
    int child_parent_end_fd; /* that pipe's other end, closed in the child */
    bool child_keys, child_functions;
    void (*child_done)(bool ok);
} st = {.last_bgsave_ok = true,
        .last_bgsave_time_s = -1,
        .child_pipe = -1,
        .child_target_fd = -1,
        .child_parent_end_fd = -1};

/* The outcome of the last save, which may refuse writes (persist_writes_refused()). */
static void set_bgsave_ok(bool ok)
{
    st.last_bgsave_ok = ok;
    command_hook_set(HOOK_BGSAVE_FAILED, !ok);
}

/* --- configuration --------------------------------------------------- */

static const char *parse_save_points(const char *text, struct save_point *out, int *count)
{
    char *copy = xstrdup(text);
    const char *err = NULL;
    int n = 0;
    long long pair[2];
    int half = 0;
    for (char *save = NULL, *tok = strtok_r(copy, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        if (!num_parse_ll(tok, strlen(tok), &pair[half]) || pair[half] < 0) {
            err = "Invalid save parameters";
            break;
        }
        if (half == 1) {
            if (n == SAVE_POINTS_MAX) {
                err = "too many save points";
                break;
            }
            out[n].seconds = pair[0];
            out[n].changes = pair[1];
            n++;
        }
        half ^= 1;
    }
    if (!err && half) err = "Invalid save parameters";
    xfree(copy);
    *count = n;
    return err;
}

const char *persist_validate_save_points(const char *text)
{
    struct save_point tmp[SAVE_POINTS_MAX];
    int n;
    return parse_save_points(text, tmp, &n);
}

void persist_apply_save_points(void)
{
    parse_save_points(config.save, st.points, &st.npoints);
}

bool persist_has_save_points(void)
{
    return st.npoints > 0;
}

const char *persist_validate_dir(const char *text)
{
    struct stat sb;
    if (!*text) return "directory must not be empty";
    if (stat(text, &sb) != 0 || !S_ISDIR(sb.st_mode)) return "No such file or directory";
    return NULL;
}

const char *persist_validate_dbfilename(const char *text)
{
    if (strchr(text, '/')) return "dbfilename can't be a path, just a filename";
    if (!*text) return "dbfilename can't be empty";
    return NULL;
}

static void path_in_dir(char *out, size_t len, const char *name)
{
    size_t d = strlen(config.dir);
    bool slash = d > 0 && config.dir[d - 1] == '/';
    snprintf(out, len, "%s%s%s", config.dir, slash ? "" : "/", name);
}

static void rdb_paths(char *final, char *tmp, size_t len, pid_t pid)
{
    char name[64];
    path_in_dir(final, len, config.dbfilename);
    snprintf(name, sizeof name, "temp-%d.rdb", (int)pid);
    path_in_dir(tmp, len, name);
}

/* --- loading --------------------------------------------------------- */

static struct rdb_load_info loaded_info;
static bool loaded;

const struct rdb_load_info *persist_last_load(void)
{
    return loaded ? &loaded_info : NULL;
}

static bool load_rdb(const char *path)
{
    struct rdb_load_info info;
    char err[1024];
    int64_t start = clock_mono_us();
    enum rdb_file_status s = rdb_load_file(path, config.rdbchecksum, &info, err, sizeof err);
    if (s == RDB_FILE_MISSING) {
        log_notice("no snapshot at %s: starting empty", path);
        return true;
    }
    if (s == RDB_FILE_ERROR) {
        log_warning("cannot load the snapshot: %s", err);
        return false;
    }
    st.load_keys_loaded = info.keys_loaded;
    st.load_keys_expired = info.keys_expired;
    loaded_info = info;
    loaded = true;
    log_notice("DB loaded from disk: %.3f seconds (%s, RDB v%d%s%s; %lld keys, %lld expired, "
               "%lld empty skipped)",
               (double)(clock_mono_us() - start) / 1e6, path, info.version,
               info.redis_ver[0] ? ", redis-ver " : "", info.redis_ver, info.keys_loaded,
               info.keys_expired, info.keys_empty);
    return true;
}

bool persist_startup(void)
{
    const char *why = persist_validate_dir(config.dir);
    if (why) {
        log_warning("Can't chdir to '%s': %s (--dir)", config.dir, why);
        return false;
    }
    persist_apply_save_points();
    st.lastsave_s = clock_unix_ms() / 1000;
    char path[4096], tmp[4096];
    rdb_paths(path, tmp, sizeof path, getpid());
    /* The AOF, when on, is the data set (Redis's precedence). */
    if (config.appendonly ? !aof_startup() : !load_rdb(path) || !aof_startup()) return false;
    st.dirty_at_save = keyspace.stats.dirty;
    return true;
}

/* --- saving ---------------------------------------------------------- */

static void saved(long long dirty_then)
{
    st.dirty_at_save = dirty_then;
    st.lastsave_s = clock_unix_ms() / 1000;
    st.saves++;
}

/* The temp file of the synchronous save in progress ("" between saves),
 * for a signal handler that exits during it. */
static char sync_save_tmp[4096];

void persist_remove_save_temp(void)
{
    if (sync_save_tmp[0]) unlink(sync_save_tmp);
}

bool persist_save(char *err, size_t err_len)
{
    if (st.child) {
        snprintf(err, err_len, "Background save already in progress");
        return false;
    }
    char path[4096], tmp[4096];
    rdb_paths(path, tmp, sizeof path, getpid());
    long long dirty = keyspace.stats.dirty;
    memcpy(sync_save_tmp, tmp, sizeof sync_save_tmp);
    bool ok = rdb_save_file(path, tmp, config.rdbcompression, config.rdbchecksum, err, err_len);
    sync_save_tmp[0] = '\0';
    if (!ok) {
        log_warning("%s", err);
        return false;
    }
    log_notice("DB saved on disk");
    saved(dirty);
    set_bgsave_ok(true); /* a good snapshot exists: writes may resume */
    return true;
}

/* Private_Dirty of this process: in a fork child, the pages copied on
 * write since the fork (both sides' writes count; as Redis's estimate). */
long long persist_private_dirty_bytes(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return 0;
    char line[256];
    long long kb = 0, total = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Private_Dirty: %lld kB", &kb) == 1) total += kb;
    fclose(f);
    return total * 1024;
}

void persist_rdb_path(char *out, size_t len)
{
    path_in_dir(out, len, config.dbfilename);
}

/* A diskless child: the RDB into the pipe, in the writer's chunks. */
static bool child_write_pipe(char *err, size_t err_len)
{
    struct rdb_writer w;
    rdbw_init(&w, st.child_target_fd, config.rdbcompression);
    rdb_filter_keys = st.child_keys; /* (this process only: the child) */
    rdb_filter_functions = st.child_functions;
    bool ok = rdb_write_keyspace(&w, config.rdbchecksum);
    if (!ok) snprintf(err, err_len, "writing the RDB to the replicas' pipe: %s", strerror(w.error));
    rdbw_free(&w);
    return ok;
}

static void child_main(int pipe_fd)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    char path[4096], tmp[4096], err[1024];
    rdb_paths(path, tmp, sizeof path, getpid());
    bool ok = st.child_target_fd >= 0 ? child_write_pipe(err, sizeof err)
                                      : rdb_save_file(path, tmp, config.rdbcompression,
                                                      config.rdbchecksum, err, sizeof err);
    if (!ok) log_warning("background save failed: %s", err);
    long long cow = persist_private_dirty_bytes();
    ssize_t w = write(pipe_fd, &cow, sizeof cow);
    (void)w;
    _exit(ok ? 0 : 1);
}

enum persist_bgsave_result persist_bgsave(void)
{
    if (st.child || aof_rewrite_in_progress()) return PERSIST_BGSAVE_IN_PROGRESS;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        log_warning("Can't save in background: pipe: %s", strerror(errno));
        return PERSIST_BGSAVE_FAILED;
    }
    st.last_bgsave_try_s = clock_unix_ms() / 1000;
    int64_t start = clock_mono_us();
    pid_t pid = fork();
    if (pid < 0) {
        log_warning("Can't save in background: fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        set_bgsave_ok(false);
        return PERSIST_BGSAVE_FAILED;
    }
    if (pid == 0) {
        close(fds[0]);
        if (st.child_parent_end_fd >= 0) close(st.child_parent_end_fd);
        child_main(fds[1]);
    }
    close(fds[1]);
    st.last_fork_us = clock_mono_us() - start;
    latency_record_fork(st.last_fork_us);
    st.child = pid;
    st.child_pipe = fds[0];
    st.child_start_us = start;
    st.dirty_at_fork = keyspace.stats.dirty;
    st.scheduled = false;
    log_notice("Background saving started by pid %d (fork took %lld us)", (int)pid,
               st.last_fork_us);
    return PERSIST_BGSAVE_STARTED;
}

enum persist_bgsave_result persist_bgsave_replication(int target_fd, int parent_end_fd, bool keys,
                                                      bool functions, void (*done)(bool ok))
{
    if (st.child || aof_rewrite_in_progress()) return PERSIST_BGSAVE_IN_PROGRESS;
    st.child_target_fd = target_fd;
    st.child_parent_end_fd = parent_end_fd;
    st.child_keys = keys;
    st.child_functions = functions;
    enum persist_bgsave_result res = persist_bgsave();
    st.child_parent_end_fd = -1;
    if (res == PERSIST_BGSAVE_STARTED)
        st.child_done = done;
    else
        st.child_target_fd = -1;
    return res;
}

void persist_schedule_bgsave(void)
{
    st.scheduled = true;
}

bool persist_bgsave_in_progress(void)
{
    return st.child != 0;
}

static void child_finished(int status)
{
    long long cow = 0;
    if (read(st.child_pipe, &cow, sizeof cow) == (ssize_t)sizeof cow) st.last_cow_bytes = cow;
    close(st.child_pipe);
    st.child_pipe = -1;
    st.last_bgsave_time_s = (clock_mono_us() - st.child_start_us) / 1000000;
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    void (*done)(bool) = st.child_done;
    bool to_pipe = st.child_target_fd >= 0;
    st.child_done = NULL;
    st.child_target_fd = -1;
    if (to_pipe) { /* a diskless sync: no snapshot on disk changed */
        if (!ok) log_warning("Background RDB transfer to the replicas terminated with error");
        st.child = 0;
        done(ok);
        return;
    }
    if (ok) {
        log_notice("Background saving terminated with success");
        saved(st.dirty_at_fork);
        set_bgsave_ok(true);
    } else {
        char path[4096], tmp[4096];
        rdb_paths(path, tmp, sizeof path, st.child);
        unlink(tmp);
        if (WIFSIGNALED(status))
            log_warning("Background saving terminated by signal %d", WTERMSIG(status));
        else
            log_warning("Background saving error");
        /* SIGUSR1 is the server's own abort (FLUSHALL): not a failed save. */
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGUSR1) set_bgsave_ok(false);
    }
    st.child = 0;
    if (done) done(ok);
}

void persist_after_flushall(void)
{
    bool save = st.npoints > 0;
    if (st.child) {
        /* The snapshot being made is of data that no longer exists. */
        kill(st.child, SIGUSR1);
        int status;
        /* Reaped by housekeeping, unless the save below needs it gone. */
        if (save && waitpid(st.child, &status, 0) == st.child) child_finished(status);
    }
    if (save && !st.child) {
        char err[1024];
        persist_save(err, sizeof err);
    }
}

static bool save_point_reached(int64_t now_s)
{
    long long changes = keyspace.stats.dirty - st.dirty_at_save;
    for (int i = 0; i < st.npoints; i++) {
        const struct save_point *p = &st.points[i];
        if (changes >= p->changes && now_s - st.lastsave_s > p->seconds &&
            (st.last_bgsave_ok || now_s - st.last_bgsave_try_s > BGSAVE_RETRY_DELAY_S)) {
            log_notice("%lld changes in %lld seconds. Saving...", p->changes, p->seconds);
            return true;
        }
    }
    return false;
}

void persist_housekeeping(void)
{
    if (st.child) {
        int status;
        pid_t r = waitpid(st.child, &status, WNOHANG);
        if (r == st.child) child_finished(status);
        if (st.child) return;
    }
    if (st.scheduled || save_point_reached(clock_unix_ms() / 1000)) persist_bgsave();
}

long long persist_lastsave(void)
{
    return st.lastsave_s;
}

bool persist_writes_refused(void)
{
    return config.stop_writes_on_bgsave_error && st.npoints > 0 && !st.last_bgsave_ok;
}

static void kill_child(void)
{
    if (!st.child) return;
    char path[4096], tmp[4096];
    rdb_paths(path, tmp, sizeof path, st.child);
    kill(st.child, SIGKILL);
    int status;
    waitpid(st.child, &status, 0);
    unlink(tmp);
    close(st.child_pipe);
    st.child_pipe = -1;
    st.child = 0;
    log_notice("There is a child saving an .rdb. Killing it!");
}

/* --- a load serving clients (persist.h) ------------------------------ */

static struct {
    bool active;
    bool async;
    int64_t start_s;
    int64_t start_mono_us;
    size_t total, loaded;
    size_t used_mem; /* the RDB's used-mem: not kept by the loader, 0 */
} loading;

void persist_loading_begin(size_t total, bool async)
{
    loading.active = true;
    loading.async = async;
    loading.start_s = clock_unix_ms() / 1000;
    loading.start_mono_us = clock_mono_us();
    loading.total = total;
    loading.loaded = 0;
    command_hook_set(async ? HOOK_ASYNC_LOADING : HOOK_LOADING, true);
}

void persist_loading_progress(size_t bytes)
{
    loading.loaded = bytes;
}

void persist_loading_end(void)
{
    command_hook_set(loading.async ? HOOK_ASYNC_LOADING : HOOK_LOADING, false);
    loading.active = false;
    loading.async = false;
}

bool persist_loading_async(void)
{
    return loading.active && loading.async;
}

bool persist_loading(void)
{
    return loading.active;
}

/* Redis 7.0's loading fields, after the AOF's, while a load runs. */
void persist_loading_info(struct buf *b)
{
    if (!loading.active) return;
    double perc = loading.total ? (double)loading.loaded * 100 / (double)loading.total : 0;
    int64_t elapsed_s = (clock_mono_us() - loading.start_mono_us) / 1000000;
    long long eta = 1;
    if (loading.loaded && elapsed_s)
        eta = (long long)((double)elapsed_s * (double)(loading.total - loading.loaded) /
                          (double)loading.loaded);
    buf_append_fmt(b, "loading_start_time:%lld\r\n", (long long)loading.start_s);
    buf_append_fmt(b, "loading_total_bytes:%zu\r\n", loading.total);
    buf_append_fmt(b, "loading_rdb_used_mem:%zu\r\n", loading.used_mem);
    buf_append_fmt(b, "loading_loaded_bytes:%zu\r\n", loading.loaded);
    buf_append_fmt(b, "loading_loaded_perc:%.2f\r\n", perc);
    buf_append_fmt(b, "loading_eta_seconds:%lld\r\n", eta);
}

bool persist_prepare_shutdown(bool save, bool force)
{
    if (save && loading.active) {
        /* The data set is partial: the snapshot on disk stays the last whole one. */
        log_warning("Not saving the final RDB snapshot: a load is in progress.");
        save = false;
    }
    kill_child();
    if (!aof_shutdown(force)) return false;
    if (!save) return true;
    log_notice("Saving the final RDB snapshot before exiting.");
    char err[1024];
    if (!persist_save(err, sizeof err)) {
        if (force) {
            log_warning("Error trying to save the DB. Exit anyway.");
            return true;
        }
        log_warning("Error trying to save the DB, can't exit.");
        return false;
    }
    return true;
}

bool persist_debug_reload(bool save, bool flush, bool merge, char *err, size_t err_len)
{
    if (loading.active) {
        snprintf(err, err_len, "a load is in progress");
        return false;
    }
    if (save && !persist_save(err, err_len)) return false;
    if (flush) {
        keyspace_flush_all();
        const struct rdb_function_source *functions = rdb_function_source();
        if (functions) functions->flush(); /* Redis's emptyData: the functions go too */
    }
    char path[4096], tmp[4096];
    rdb_paths(path, tmp, sizeof path, getpid());
    struct rdb_load_info info;
    rdb_load_merge = merge;
    enum rdb_file_status status = rdb_load_file(path, config.rdbchecksum, &info, err, err_len);
    rdb_load_merge = false;
    if (status != RDB_FILE_LOADED) {
        log_warning("DEBUG RELOAD: %s", err);
        return false;
    }
    st.dirty_at_save = keyspace.stats.dirty;
    return true;
}

void persist_info(struct buf *b)
{
    buf_append_fmt(b, "rdb_changes_since_last_save:%lld\r\n",
                   keyspace.stats.dirty - st.dirty_at_save);
    buf_append_fmt(b, "rdb_bgsave_in_progress:%d\r\n", st.child ? 1 : 0);
    buf_append_fmt(b, "rdb_last_save_time:%lld\r\n", (long long)st.lastsave_s);
    buf_append_fmt(b, "rdb_last_bgsave_status:%s\r\n", st.last_bgsave_ok ? "ok" : "err");
    buf_append_fmt(b, "rdb_last_bgsave_time_sec:%lld\r\n", st.last_bgsave_time_s);
    buf_append_fmt(b, "rdb_current_bgsave_time_sec:%lld\r\n",
                   st.child ? (clock_mono_us() - st.child_start_us) / 1000000 : -1LL);
    buf_append_fmt(b, "rdb_saves:%lld\r\n", st.saves);
    buf_append_fmt(b, "rdb_last_cow_size:%lld\r\n", st.last_cow_bytes);
    buf_append_fmt(b, "rdb_last_load_keys_expired:%lld\r\n", st.load_keys_expired);
    buf_append_fmt(b, "rdb_last_load_keys_loaded:%lld\r\n", st.load_keys_loaded);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param persist_params[] = {
    {.name = "dir",
     .kind = CFG_STRING,
     .value = &config.dir,
     .flags = CFG_PROTECTED,
     .value_name = "DIR",
     .help = "directory of the RDB snapshot and the AOF (default ./); CONFIG SET only as "
             "--enable-protected-configs allows",
     .validate = persist_validate_dir},
    {.name = "dbfilename",
     .kind = CFG_STRING,
     .value = &config.dbfilename,
     .flags = CFG_PROTECTED,
     .value_name = "FILE",
     .help = "RDB snapshot file name in --dir (default dump.rdb); CONFIG SET only as "
             "--enable-protected-configs allows",
     .validate = persist_validate_dbfilename},
    {.name = "save",
     .kind = CFG_STRING,
     .value = &config.save,
     .flags = CFG_MULTI_ARG | CFG_ACCUMULATES,
     .value_name = "\"SEC CHANGES ...\"",
     .help = "snapshot (BGSAVE) after SEC seconds and CHANGES writes, per pair; \"\" = never "
             "(default \"3600 1 300 100 60 10000\", as Redis 7.0)",
     .apply = persist_apply_save_points,
     .validate = persist_validate_save_points},
    {.name = "rdbcompression",
     .kind = CFG_BOOL,
     .value = &config.rdbcompression,
     .value_name = "yes|no",
     .help = "LZF-compress strings in snapshots (default yes)"},
    {.name = "rdbchecksum",
     .kind = CFG_BOOL,
     .value = &config.rdbchecksum,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "yes|no",
     .help = "write and verify the CRC-64 of snapshots (default yes)"},
    {.name = "stop-writes-on-bgsave-error",
     .kind = CFG_BOOL,
     .value = &config.stop_writes_on_bgsave_error,
     .value_name = "yes|no",
     .help = "refuse writes (MISCONF) while the last background save failed (default yes)"},
};

const struct config_table persist_config = CONFIG_TABLE(persist_params, NULL);
