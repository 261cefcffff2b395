/*
 * persist.h — when and where snapshots are taken: SAVE, BGSAVE by fork(),
 * save points, loading at start, shutdown saves, and the state INFO
 * persistence reports. The format itself is rdb.h.
 *
 * Background saves fork the whole process: the child writes
 * <dir>/temp-<child pid>.rdb from its copy-on-write view of the keyspace,
 * fsyncs it and renames it over <dir>/<dbfilename>, so the file on disk is
 * the previous snapshot or the complete new one at any instant, a SIGKILL
 * of either process included. The parent keeps serving every transport
 * (polled rings too) and reaps the child in housekeeping.
 *
 * Hazards (also in docs/persistence.md):
 *   - fork() copies the page tables: its cost grows with the resident set
 *     (about 10-20 ms per GB on current x86), paid on the server thread.
 *   - Every page the parent writes while the child runs is copied once
 *     (rdb_last_cow_size); a write-heavy load can double memory at worst.
 *   - Memory locks are not inherited by the child; the parent's locked
 *     pages stay locked, and a page copied on write is locked again in
 *     the parent (MCL_FUTURE), so --mlockall adds no failure mode but the
 *     copies count against RLIMIT_MEMLOCK.
 */
#ifndef GOBLIN_PERSIST_H
#define GOBLIN_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Config hooks (core/config.c rows). */
const char *persist_validate_dir(const char *text);
const char *persist_validate_dbfilename(const char *text);
const char *persist_validate_save_points(const char *text);
void persist_apply_save_points(void);

/* At startup, after the keyspace exists: loads <dir>/<dbfilename> if it
 * exists. False (after logging the reason, which names the key and type
 * when a value is at fault) when the server must not start. */
bool persist_startup(void);

/* SAVE on the server thread. False with err set. */
bool persist_save(char *err, size_t err_len);

enum persist_bgsave_result {
    PERSIST_BGSAVE_STARTED,
    PERSIST_BGSAVE_IN_PROGRESS, /* a save is already running */
    PERSIST_BGSAVE_FAILED,      /* fork() failed */
};

/* BGSAVE: forks a child that writes the snapshot. */
enum persist_bgsave_result persist_bgsave(void);

/* A background save for replication (repl/): as BGSAVE, but when
 * target_fd >= 0 the child writes the RDB there (diskless: a pipe the
 * parent relays to replicas; the child closes the parent's end,
 * parent_end_fd, so that the parent closing it ends the child's writes
 * with EPIPE) instead of the file, and the RDB holds the
 * keys only with `keys`, the function libraries only with `functions`
 * (REPLCONF rdb-filter-only). `done` runs from housekeeping when the child
 * has ended, with whether it succeeded. A save to the file counts as a
 * BGSAVE (LASTSAVE, rdb_changes_since_last_save); one to a pipe does not,
 * as in Redis. */
enum persist_bgsave_result persist_bgsave_replication(int target_fd, int parent_end_fd, bool keys,
                                                      bool functions, void (*done)(bool ok));

/* What the snapshot loaded at start held (NULL: none was loaded). */
struct rdb_load_info;
const struct rdb_load_info *persist_last_load(void);

/* The path of <dir>/<dbfilename>. */
void persist_rdb_path(char *out, size_t len);

/* BGSAVE SCHEDULE: run a BGSAVE as soon as the running one ends. */
void persist_schedule_bgsave(void);

bool persist_bgsave_in_progress(void);

/* Housekeeping: reaps a finished child, runs a scheduled save, checks the
 * save points. */
void persist_housekeeping(void);

/* Unix time (seconds) of the last successful save (LASTSAVE). */
long long persist_lastsave(void);

/* Whether writes must be refused (stop-writes-on-bgsave-error). */
bool persist_writes_refused(void);

/* FLUSHALL (Redis's flushAllDataAndResetRDB): a running RDB child is
 * aborted (SIGUSR1, not counted as a failed save; a diskless transfer's
 * replicas see it fail), then, with save points configured, the empty data
 * set is saved at once. */
void persist_after_flushall(void);

/* Removes the temp file of a synchronous save in progress, if any
 * (async-signal-safe: a second SIGINT exits in the middle of the save). */
void persist_remove_save_temp(void);

/* The data's last steps before exit (server/shutdown.c): stops a running
 * child (its temp file removed), ends the AOF (aof_shutdown) and, when
 * `save` (SHUTDOWN SAVE, or save points configured and not NOSAVE), saves.
 * False when the process must keep running: the initial AOF is being
 * written or the save failed (each logged), unless force (SHUTDOWN
 * FORCE), which exits anyway. */
bool persist_prepare_shutdown(bool save, bool force);

/* Whether any save point is configured (SHUTDOWN's default). */
bool persist_has_save_points(void);

/* DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save (unless !save), empty the
 * keyspace and the functions (unless !flush), load the file back; with
 * merge a key or library of the file replaces the one of its name, else
 * it fails the load. */
bool persist_debug_reload(bool save, bool flush, bool merge, char *err, size_t err_len);

/* Private_Dirty of this process: in a fork child, the pages copied on
 * write since the fork (rdb_last_cow_size, aof_last_cow_size). */
long long persist_private_dirty_bytes(void);

/* INFO persistence lines, appended to b (each with its CRLF). */
void persist_info(struct buf *b);

/* A load that serves clients meanwhile (a replica's full sync,
 * repl/replica.c; Redis's startLoading / stopLoading). While it runs,
 * every command without the loading flag is refused with -LOADING
 * (HOOK_LOADING, commands/command.c), INFO shows loading:1 and the
 * loading_* fields (persist_loading_info, after the AOF's), the final
 * snapshot of a SHUTDOWN and DEBUG RELOAD are refused (the data set is
 * partial). `total` is the RDB's size in bytes. */
/* `async`: the load goes into a detached set while clients keep the live
 * data set (repl-diskless-load swapdb, Redis's async_loading): only the
 * no_async_loading commands are refused (HOOK_ASYNC_LOADING), INFO shows
 * async_loading:1 and loading:0. */
void persist_loading_begin(size_t total, bool async);
bool persist_loading_async(void);
void persist_loading_progress(size_t loaded);
void persist_loading_end(void);
bool persist_loading(void);
void persist_loading_info(struct buf *b);

/* Settings (core/config.h): dir, dbfilename, save, rdb*, stop-writes-on-bgsave-error. */
struct config_table;
extern const struct config_table persist_config;

#endif
