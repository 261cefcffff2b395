/*
 * aof_rewrite.h — an append-only file base written as commands, for
 * aof-use-rdb-preamble no: what Redis 7.0's rewriteAppendOnlyFileRio
 * writes, in its forms (FUNCTION LOAD of each library, then per database
 * SELECT and per key SET / RPUSH / SADD / ZADD / HMSET in batches of 64,
 * a stream as XADD, XSETID, XGROUP CREATE ... ENTRIESREAD, XCLAIM ...
 * JUSTID FORCE and XGROUP CREATECONSUMER, and PEXPIREAT for a TTL).
 * Replaying it rebuilds the keyspace; aof.c writes it as the base
 * "<name>.<seq>.base.aof".
 */
#ifndef GOBLIN_AOF_REWRITE_H
#define GOBLIN_AOF_REWRITE_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the keyspace as commands to tmp_path, fsyncs it and renames it
 * to path; false with err set (the temp file removed) on failure. */
bool aof_rewrite_commands_file(const char *path, const char *tmp_path, char *err, size_t err_len);

#endif
