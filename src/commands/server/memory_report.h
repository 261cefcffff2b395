/*
 * memory_report.h — where the server's memory goes, in Redis 7.0's terms:
 * the figures INFO memory, MEMORY STATS and MEMORY DOCTOR share (Redis's
 * getMemoryOverheadData), computed on demand from the allocator's
 * statistics, the clients, the scripts and the key space.
 *
 * Terms, as Redis defines them: used (every allocation the server made,
 * INFO used_memory), startup (used once startup was done), overhead
 * (startup plus client buffers, the AOF buffer, script caches and the
 * key-space hash tables), dataset (used minus overhead). goblin-core has
 * no replication backlog or replicas (those figures are 0) and does not
 * account cluster-bus links separately (0; they are in used). The hash
 * table overhead is that of goblin-core's own tables: each key's fixed
 * header (struct kv) and a pointer per bucket, where Redis counts its
 * dictEntry and robj.
 */
#ifndef GOBLIN_MEMORY_REPORT_H
#define GOBLIN_MEMORY_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/allocator.h"
#include "util/buf.h"

struct memory_report_db {
    int id;
    size_t main, expires, slot_to_keys;
};

struct memory_report {
    size_t used, peak, startup, rss;
    struct allocator_stats alloc; /* Redis's stand-ins without allocator statistics */
    size_t clients_normal, clients_replicas, repl_backlog, cluster_links, aof_buffer;
    size_t scripts_eval, cached_scripts, vm_eval;
    size_t functions_bytes, functions, libraries, vm_functions;
    size_t overhead, dataset, keys, bytes_per_key;
    double dataset_perc, peak_perc;
    struct memory_report_db *dbs; /* databases holding keys */
    int db_count;
};

/* Startup is done: what is allocated now is "startup" memory. */
void memory_report_note_startup(void);

/* Raises the peak to the current usage (housekeeping, and every report). */
void memory_report_update_peak(void);

/* Fills *m; memory_report_release() frees its database list. */
void memory_report_compute(struct memory_report *m);
void memory_report_release(struct memory_report *m);

/* INFO's "# Memory" section, Redis 7.0's fields in its order. */
void memory_report_info(struct buf *b);

/* MEMORY DOCTOR's report (Redis's texts and thresholds) into out. */
void memory_report_doctor(struct buf *out);

/* The process's resident set size in bytes (0 if /proc cannot tell). */
size_t memory_resident_bytes(void);

#endif
