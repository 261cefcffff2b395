/*
 * rdb.h — whole-keyspace snapshots and single-value payloads in Redis 7.0's
 * RDB format (version 10), so redis-server, redis-check-rdb and goblin-core
 * read each other's files.
 *
 * File layout: "REDIS0010", AUX fields (redis-ver, redis-bits, ctime,
 * used-mem, aof-base), then per non-empty database SELECTDB and RESIZEDB,
 * each key as [EXPIRETIME_MS][type][key][value], EOF, and the CRC-64 of
 * everything before it (zero when rdbchecksum is off; a zero checksum is
 * not verified on load, as in Redis).
 *
 * DUMP payload: [type][value][RDB version u16 LE][CRC-64 LE], the CRC over
 * all that precedes it.
 *
 * Loading works on the whole input in memory (the file is mapped); keys
 * whose TTL has passed are dropped, as a Redis master drops them. Errors
 * name the offset and, inside a value, the key and its type.
 */
#ifndef GOBLIN_RDB_H
#define GOBLIN_RDB_H

#include <stdbool.h>
#include <stddef.h>

#include "persist/rdb_io.h"
#include "persist/rdb_value.h"
#include "store/kv.h"

struct rdb_load_info {
    int version;            /* RDB version of the input */
    long long keys_loaded;  /* added to the keyspace */
    long long keys_expired; /* skipped: TTL already past */
    long long keys_empty;   /* skipped: a container without elements */
    char redis_ver[32];     /* the redis-ver AUX field, if any */
    bool checksum_verified;
    /* Replication AUX fields (repl-id, repl-offset, repl-stream-db), so a
     * restarted replica can continue with PSYNC; repl_stream_db -1: absent. */
    char repl_id[41];
    long long repl_offset;
    int repl_stream_db;
};

/* What a snapshot holds besides its header: the keys and the function
 * libraries (both by default; a replication child for REPLCONF
 * rdb-filter-only clears them in its own process). */
extern bool rdb_filter_keys, rdb_filter_functions;

/* While an RDB loads: called each time another
 * loading-process-events-interval-bytes of it were read (a replica's full
 * sync serves other clients there, as Redis's rdbLoadProgressCallback);
 * false ends the load as failed (the server is shutting down). NULL: none. */
extern bool (*rdb_load_progress)(size_t loaded, size_t total);
extern long long rdb_load_events_interval;

/* Loading keeps keys whose TTL has passed (a replica's load: its master's
 * DEL removes them, as Redis loads when it is not a master). */
extern bool rdb_load_keep_expired;
/* While set (DEBUG RELOAD MERGE), a loaded key replaces a key of its name
 * and the function source replaces a library of its name, where a
 * duplicate otherwise fails the load (Redis's RDBFLAGS_ALLOW_DUP). */
extern bool rdb_load_merge;

/* Replication writes its AUX fields (repl-stream-db, repl-id, repl-offset)
 * into every snapshot while it has a history (repl/): called after
 * used-mem, before aof-base, as Redis orders them. */
struct rdb_writer;
extern void (*rdb_repl_aux)(struct rdb_writer *w);
void rdb_write_aux_field(struct rdb_writer *w, const char *key, const char *value);

/* Writes the keyspace as an RDB file to w (header to checksum). False when
 * a write failed (w->error has the errno). */
bool rdb_write_keyspace(struct rdb_writer *w, bool checksum);

/* SAVE: writes the keyspace to `tmp_path`, fsyncs it, renames it to
 * `path` and fsyncs the directory, so `path` holds either the previous
 * snapshot or the complete new one at every instant. `compress`: LZF
 * (rdbcompression); `checksum`: the CRC-64 trailer (rdbchecksum). False
 * with err set. */
bool rdb_save_file(const char *path, const char *tmp_path, bool compress, bool checksum, char *err,
                   size_t err_len);

/* Loads an RDB image into the keyspace (added to what is there; a key that
 * already exists is an error). False with err set; the keys read before
 * the error stay loaded (callers at startup exit; tests flush). */
bool rdb_load_buffer(const void *data, size_t len, bool verify_checksum, struct rdb_load_info *info,
                     char *err, size_t err_len);

/* A streamed load's input (a replica's diskless load, repl/replica.c):
 * more() appends more bytes of the RDB to buf — at least one when
 * `block`, else what is there now, maybe none — or returns false when
 * there is no more (err says why: the link closed, a timeout); it decides
 * what belongs to the RDB (a length, an end mark held back). */
struct rdb_load_source {
    bool (*more)(void *arg, struct buf *buf, bool block, char *err, size_t err_len);
    void *arg;
};

/* Loads an RDB as its bytes arrive from src, one record at a time
 * (memory holds about twice the largest record, never the whole RDB),
 * into `dbs` (keyspace.count databases; NULL: the keyspace's own), calling
 * rdb_load_progress as a mapped load does. *trailing: bytes src gave past
 * the RDB's checksum. False with err set. */
struct db;
bool rdb_load_stream(const struct rdb_load_source *src, struct db *dbs, bool verify_checksum,
                     struct rdb_load_info *info, size_t *trailing, char *err, size_t err_len);

enum rdb_file_status { RDB_FILE_LOADED, RDB_FILE_MISSING, RDB_FILE_ERROR };

/* Maps `path` and loads it (RDB_FILE_MISSING when it does not exist). */
enum rdb_file_status rdb_load_file(const char *path, bool verify_checksum,
                                   struct rdb_load_info *info, char *err, size_t err_len);

/* Ends a DUMP-style payload held in w's buffer (fd -1): the RDB version
 * and the CRC-64 of everything before it (FUNCTION DUMP uses it too). */
struct rdb_writer;
void rdb_payload_footer(struct rdb_writer *w);

/* FUNCTION RESTORE: walks a verified FUNCTION DUMP payload (Redis's:
 * opcode FUNCTION2 and the library's code as a string, per library, then
 * the footer), calling fn with each library's code. Stops at fn's first
 * false. False with err set (Redis's texts) when the payload is malformed
 * or fn refused. */
bool rdb_function_payload_foreach(const void *p, size_t len,
                                  bool (*fn)(const char *code, size_t len, void *arg), void *arg,
                                  char *err, size_t err_len);

/* Redis Functions in snapshots: one RDB_OPCODE_FUNCTION2 record per
 * library (the opcode, then the library's code as a string), after the
 * AUX fields and before the databases, as Redis 7.0 writes them; FUNCTION
 * DUMP payloads hold the same records. The FUNCTION engine
 * (commands/scripting/cmd_function.c) provides the libraries: persist knows nothing
 * of Lua. Without a source (the fuzzers), snapshots carry no functions and
 * records read are checked and dropped. */
struct rdb_function_source {
    /* Calls fn with each library's code, in load order. */
    void (*foreach)(void (*fn)(const char *code, size_t len, void *arg), void *arg);
    /* Adds a library read from a snapshot; false with err set (a library
     * or function that exists, code that does not load). */
    bool (*load)(const char *code, size_t len, char *err, size_t err_len);
    /* Drops every library (DEBUG RELOAD replaces the whole data set). */
    void (*flush)(void);
};
void rdb_set_function_source(const struct rdb_function_source *source);
const struct rdb_function_source *rdb_function_source(void);

/* Appends one FUNCTION2 record (snapshots and FUNCTION DUMP). */
void rdb_write_function(struct rdb_writer *w, const char *code, size_t len);

/* DUMP: kv's value as a payload appended to out. */
void rdb_dump_payload(const struct kv *kv, bool compress, struct buf *out);

/* Checks a payload's footer (version at most ours, CRC-64 matches). */
bool rdb_payload_verify(const void *p, size_t len);

/* RESTORE: decodes a verified payload into a new kv named key. False with
 * *why set when the body is malformed or has bytes left over. */
bool rdb_payload_decode(const void *p, size_t len, const char *key, size_t key_len, struct kv **out,
                        char *why, size_t why_len);

/* key-load-delay: microseconds slept after each key a load reads (< 0:
 * one microsecond with probability 1/-N), Redis's testing aid. */
extern long long rdb_key_load_delay;
/* rdb-key-save-delay: the same before each key a save writes. */
extern long long rdb_key_save_delay;

/* The key-load-delay setting (core/config.h). */
struct config_table;
extern const struct config_table rdb_config;

#endif
