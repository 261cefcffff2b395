/*
 * aof.h — the append-only file in Redis 7.0's multi-part layout.
 *
 * Files, all in <dir>/<appenddirname> (default "appendonlydir"):
 *   <appendfilename>.manifest          which files make up the data set
 *   <appendfilename>.<n>.base.rdb      the keyspace when rewrite n began (RDB;
 *                                      .base.aof when Redis wrote it without
 *                                      the RDB preamble: read, not written)
 *   <appendfilename>.<n>.incr.aof      the writes since, as RESP commands
 * The manifest lists one line per file, "file <name> seq <n> type <b|h|i>",
 * exactly as Redis 7.0 writes it; it is replaced atomically (temp file,
 * fsync, rename, fsync of the directory), so a SIGKILL at any instant leaves
 * the old set or the new one.
 *
 * Writing: commands/propagate.c hands every write (already rewritten for
 * determinism) to aof_append(), which adds SELECT when the database
 * changes and buffers it. The buffer is written (write(2)) once per loop
 * pass, before any reply of the pass leaves the server, as Redis's
 * beforeSleep does: aof_append() requests the event loop's EV_PASS_FLUSH
 * stage (core/event_loop.h), the connection layer holds every reply while
 * it is requested, and the stage's hook, aof_flush_buffer(), runs before
 * the held replies are written. appendfsync:
 *   always    fdatasync on the server thread before the replies go out (one
 *             per pass however many writes it acknowledges);
 *   everysec  fdatasync at most once a second on the background thread
 *             (never on the server thread);
 *   no        the kernel decides.
 * A failed write under `always` ends the process (Redis 7.0: a partial
 * command cannot be taken back from clients that saw it acknowledged);
 * under everysec/no the data stays buffered, writes are refused with
 * MISCONF and the write is retried from housekeeping until it succeeds.
 *
 * BGREWRITEAOF forks: the parent first writes its buffer, then opens the
 * next incr file and records it in the manifest, so the child only writes
 * a new base (no rewrite buffer, as Redis 7.0). When the child succeeds, the
 * base is renamed into the directory, the manifest lists the new base and
 * the incr file opened at fork time, and the old files are deleted.
 *
 * Loading at start (AOF first when appendonly is yes, as Redis): the base,
 * then each incr file; a command cut short at the end of the last file is
 * dropped (aof-load-truncated yes: a warning, the file truncated) or
 * refused (no); anything else malformed is an error naming the file and
 * offset.
 */
#ifndef GOBLIN_AOF_H
#define GOBLIN_AOF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Config hooks (core/config.c rows). */
void aof_apply_appendonly(void);
const char *aof_validate_filename(const char *text);
const char *aof_validate_dirname(const char *text);

/* At startup, instead of the RDB when appendonly is yes: loads the files,
 * creates the first base when there is none, opens the incr file. False
 * (after logging why) when the server must not start. */
bool aof_startup(void);

/* DEBUG LOADAOF: writes out what is buffered, empties the data set
 * (functions too) and loads the append-only files again (the manifest
 * read from disk when the AOF is off), not propagating what it replays.
 * False when they do not load. */
bool aof_reload(void);

/* Adds one RESP-encoded command that ran in database db. */
void aof_append(int db, const char *resp, size_t len);

/* Writes (and under appendfsync always, fsyncs) what is buffered: the
 * event loop's EV_PASS_FLUSH hook, also called before forks and reloads. */
void aof_flush_buffer(void);

enum aof_rewrite_result {
    AOF_REWRITE_STARTED,
    AOF_REWRITE_SCHEDULED,   /* a BGSAVE runs: starts when it ends */
    AOF_REWRITE_IN_PROGRESS, /* a rewrite already runs */
    AOF_REWRITE_FAILED,      /* fork or file creation failed */
};

/* BGREWRITEAOF. */
enum aof_rewrite_result aof_bgrewrite(void);
bool aof_rewrite_in_progress(void);

/* Runs a rewrite from housekeeping as soon as no child runs. */
void aof_schedule_rewrite(void);

/* Housekeeping: buffered writes, everysec fsync, write retries, the
 * rewrite child, scheduled and automatic rewrites. */
void aof_housekeeping(void);

/* MISCONF text when writes must be refused because the AOF cannot be
 * written, else NULL. */
const char *aof_write_error(void);

/* Shutdown (Redis's finishShutdown): stops a rewrite child, then writes
 * and fsyncs what is buffered. False, with "Writing initial AOF, can't
 * exit." logged, while the first rewrite after turning the AOF on runs
 * (the only copy of the data being written), unless force. */
bool aof_shutdown(bool force);

/* INFO persistence aof_* lines. */
void aof_info(struct buf *b);

/* Bytes of the buffer of writes not yet written (MEMORY STATS aof.buffer). */
size_t aof_buffer_bytes(void);

/* Settings (core/config.h): appendonly, appendfsync, aof-*. */
struct config_table;
extern const struct config_table aof_config;

#endif
