/* memory_report.c — Redis 7.0's memory overhead figures and MEMORY DOCTOR;
 * see memory_report.h. */
#include "commands/server/memory_report.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster_bus.h"
#include "scripting/script_lua.h"
#include "connection/session.h"
#include "persist/aof.h"
#include "core/config.h"
#include "core/server_state.h"
#include "store/stream.h"
#include "store/evict.h"
#include "store/db.h"
#include "util/xmalloc.h"

static size_t startup_bytes, peak_bytes;

size_t memory_resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long pages_total = 0, pages_rss = 0;
    int ok = fscanf(f, "%lu %lu", &pages_total, &pages_rss);
    fclose(f);
    return ok == 2 ? pages_rss * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

void memory_report_note_startup(void)
{
    startup_bytes = xmalloc_used_bytes();
    memory_report_update_peak();
}

void memory_report_update_peak(void)
{
    size_t used = xmalloc_used_bytes();
    if (used > peak_bytes) peak_bytes = used;
}

/* A hash table's own bytes: a pointer per bucket and each entry's header. */
static size_t table_bytes(const struct dict *d, size_t entry)
{
    return dict_bucket_count(d) * sizeof(void *) + dict_size(d) * entry;
}

void memory_report_compute(struct memory_report *m)
{
    memset(m, 0, sizeof *m);
    memory_report_update_peak();
    m->used = xmalloc_used_bytes();
    m->peak = peak_bytes;
    m->startup = startup_bytes;
    m->rss = memory_resident_bytes();
    if (!allocator_stats_read(&m->alloc)) {
        m->alloc.resident = m->rss;
        m->alloc.active = m->rss;
        m->alloc.allocated = m->used;
    }
    size_t overhead = m->startup;
    session_clients_memory(&m->clients_normal, &m->clients_replicas);
    m->repl_backlog = repl_stats.backlog_bytes;
    m->aof_buffer = aof_buffer_bytes();
    size_t links;
    cluster_bus_links_stats(&links, &m->cluster_links);
    script_cache_stats(&m->cached_scripts, &m->vm_eval);
    function_stats(&m->functions, &m->libraries, &m->functions_bytes, &m->vm_functions);
    overhead += m->clients_normal + m->clients_replicas + m->repl_backlog + m->cluster_links +
                m->aof_buffer + m->scripts_eval + m->functions_bytes;
    for (int i = 0; i < keyspace.count; i++) {
        struct db *db = keyspace_db(i);
        size_t keys = dict_size(&db->keys);
        if (!keys) continue;
        m->keys += keys;
        m->dbs = xrealloc(m->dbs, sizeof *m->dbs * (size_t)(m->db_count + 1));
        struct memory_report_db *d = &m->dbs[m->db_count++];
        d->id = i;
        d->main = table_bytes(&db->keys, sizeof(struct kv));
        d->expires = table_bytes(&db->expires, sizeof(struct dict_node) + sizeof(int64_t));
        d->slot_to_keys = 0;
        overhead += d->main + d->expires;
    }
    m->overhead = overhead;
    m->dataset = m->used > overhead ? m->used - overhead : 0;
    m->peak_perc = m->peak ? (float)m->used * 100 / m->peak : 0;
    /* Per key and as a share of what the data set grew, past startup. */
    size_t net = m->used > m->startup ? m->used - m->startup : 1;
    m->bytes_per_key = m->keys ? net / m->keys : 0;
    m->dataset_perc = (float)m->dataset * 100 / net;
}

void memory_report_release(struct memory_report *m)
{
    xfree(m->dbs);
    m->dbs = NULL;
}

static double ratio(size_t a, size_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

void memory_report_doctor(struct buf *out)
{
    struct memory_report m;
    memory_report_compute(&m);
    bool empty = false, big_peak = false, high_frag = false, high_alloc_frag = false;
    bool high_alloc_rss = false, high_proc_rss = false, big_client_buf = false;
    bool many_scripts = false;
    int reports = 0;
    const size_t ten_mb = 10u << 20;
    if (m.used < 5u * 1024 * 1024) {
        empty = true;
        reports++;
    } else {
        if ((float)m.peak / m.used > 1.5) big_peak = true, reports++;
        if (ratio(m.rss, m.used) > 1.4 && m.rss > m.used + ten_mb) high_frag = true, reports++;
        if (ratio(m.alloc.active, m.alloc.allocated) > 1.1 &&
            m.alloc.active > m.alloc.allocated + ten_mb)
            high_alloc_frag = true, reports++;
        if (ratio(m.alloc.resident, m.alloc.active) > 1.1 &&
            m.alloc.resident > m.alloc.active + ten_mb)
            high_alloc_rss = true, reports++;
        if (ratio(m.rss, m.alloc.resident) > 1.1 && m.rss > m.alloc.resident + ten_mb)
            high_proc_rss = true, reports++;
        size_t clients = session_client_count();
        if (clients && m.clients_normal / clients > 1024 * 200) big_client_buf = true, reports++;
        if (m.cached_scripts > 1000) many_scripts = true, reports++;
    }
    memory_report_release(&m);
    if (reports == 0) {
        buf_append_fmt(out, "Hi Sam, I can't find any memory issue in your instance. I can only "
                            "account for what occurs on this base.\n");
        return;
    }
    if (empty) {
        buf_append_fmt(out, "Hi Sam, this instance is empty or is using very little memory, my "
                            "issues detector can't be used in these conditions. Please, leave for "
                            "your mission on Earth and fill it with some data. The new Sam and I "
                            "will be back to our programming as soon as I finished rebooting.\n");
        return;
    }
    buf_append_fmt(out, "Sam, I detected a few issues in this Redis instance memory implants:\n\n");
    if (big_peak)
        buf_append_fmt(
            out, " * Peak memory: In the past this instance used more than 150%% the memory that "
                 "is currently using. The allocator is normally not able to release memory after "
                 "a peak, so you can expect to see a big fragmentation ratio, however this is "
                 "actually harmless and is only due to the memory peak, and if the Redis instance "
                 "Resident Set Size (RSS) is currently bigger than expected, the memory will be "
                 "used as soon as you fill the Redis instance with more data. If the memory peak "
                 "was only occasional and you want to try to reclaim memory, please try the "
                 "MEMORY PURGE command, otherwise the only other option is to shutdown and "
                 "restart the instance.\n\n");
    if (high_frag)
        buf_append_fmt(
            out,
            " * High total RSS: This instance has a memory fragmentation and RSS overhead greater "
            "than 1.4 (this means that the Resident Set Size of the Redis process is much larger "
            "than the sum of the logical allocations Redis performed). This problem is usually "
            "due either to a large peak memory (check if there is a peak memory entry above in "
            "the report) or may result from a workload that causes the allocator to fragment "
            "memory a lot. If the problem is a large peak memory, then there is no issue. "
            "Otherwise, make sure you are using the Jemalloc allocator and not the default libc "
            "malloc. Note: The currently used allocator is \"%s\".\n\n",
            xmalloc_allocator_name());
    if (high_alloc_frag)
        buf_append_fmt(
            out, " * High allocator fragmentation: This instance has an allocator external "
                 "fragmentation greater than 1.1. This problem is usually due either to a large "
                 "peak memory (check if there is a peak memory entry above in the report) or may "
                 "result from a workload that causes the allocator to fragment memory a lot. You "
                 "can try enabling 'activedefrag' config option.\n\n");
    if (high_alloc_rss)
        buf_append_fmt(
            out, " * High allocator RSS overhead: This instance has an RSS memory overhead is "
                 "greater than 1.1 (this means that the Resident Set Size of the allocator is much "
                 "larger than the sum what the allocator actually holds). This problem is usually "
                 "due to a large peak memory (check if there is a peak memory entry above in the "
                 "report), you can try the MEMORY PURGE command to reclaim it.\n\n");
    if (high_proc_rss)
        buf_append_fmt(
            out, " * High process RSS overhead: This instance has non-allocator RSS memory "
                 "overhead is greater than 1.1 (this means that the Resident Set Size of the "
                 "Redis process is much larger than the RSS the allocator holds). This problem "
                 "may be due to Lua scripts or Modules.\n\n");
    if (big_client_buf)
        buf_append_fmt(
            out,
            " * Big client buffers: The clients output buffers in this instance are greater than "
            "200K per client (on average). This may result from different causes, like Pub/Sub "
            "clients subscribed to channels bot not receiving data fast enough, so that data "
            "piles on the Redis instance output buffer, or clients sending commands with large "
            "replies or very large sequences of commands in the same pipeline. Please use the "
            "CLIENT LIST command in order to investigate the issue if it causes problems in your "
            "instance, or to understand better why certain clients are using a big amount of "
            "memory.\n\n");
    if (many_scripts)
        buf_append_fmt(
            out, " * Many scripts: There seem to be many cached scripts in this instance (more "
                 "than 1000). This may be because scripts are generated and `EVAL`ed, instead of "
                 "being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. "
                 "Unless `SCRIPT FLUSH` is called periodically, the scripts' caches may end up "
                 "consuming most of your memory.\n\n");
    buf_append_fmt(out, "I'm here to keep you safe, Sam. I want to help you.\n");
}

/* Redis's bytesToHuman: B below 1024, then K, M, G, T, P with two decimals. */
static void human(char *out, size_t cap, double n)
{
    const char *units = "BKMGTP";
    int u = 0;
    while (n >= 1024 && u < 5) n /= 1024, u++;
    if (u == 0)
        snprintf(out, cap, "%.0fB", n);
    else
        snprintf(out, cap, "%.2f%c", n, units[u]);
}

static long long difference(size_t a, size_t b)
{
    return (long long)a - (long long)b;
}

#define LINE(...)                                                                                  \
    do {                                                                                           \
        buf_append_fmt(b, __VA_ARGS__);                                                            \
        buf_append(b, "\r\n", 2);                                                                  \
    } while (0)

void memory_report_info(struct buf *b)
{
    struct memory_report m;
    memory_report_compute(&m);
    size_t system = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    size_t vm_total = m.vm_eval + m.vm_functions, scripts = m.scripts_eval + m.functions_bytes;
    char h_used[32], h_rss[32], h_peak[32], h_system[32], h_lua[32], h_vm[32], h_scripts[32],
        h_max[32];
    human(h_used, sizeof h_used, (double)m.used);
    human(h_rss, sizeof h_rss, (double)m.rss);
    human(h_peak, sizeof h_peak, (double)m.peak);
    human(h_system, sizeof h_system, (double)system);
    human(h_lua, sizeof h_lua, (double)m.vm_eval);
    human(h_vm, sizeof h_vm, (double)vm_total);
    human(h_scripts, sizeof h_scripts, (double)scripts);
    human(h_max, sizeof h_max, (double)config.maxmemory);
    LINE("# Memory");
    LINE("used_memory:%zu", m.used);
    LINE("used_memory_human:%s", h_used);
    LINE("used_memory_rss:%zu", m.rss);
    LINE("used_memory_rss_human:%s", h_rss);
    LINE("used_memory_peak:%zu", m.peak);
    LINE("used_memory_peak_human:%s", h_peak);
    LINE("used_memory_peak_perc:%.2f%%", m.peak_perc);
    LINE("used_memory_overhead:%zu", m.overhead);
    LINE("used_memory_startup:%zu", m.startup);
    LINE("used_memory_dataset:%zu", m.dataset);
    LINE("used_memory_dataset_perc:%.2f%%", m.dataset_perc);
    LINE("allocator_allocated:%zu", m.alloc.allocated);
    LINE("allocator_active:%zu", m.alloc.active);
    LINE("allocator_resident:%zu", m.alloc.resident);
    LINE("total_system_memory:%zu", system);
    LINE("total_system_memory_human:%s", h_system);
    LINE("used_memory_lua:%zu", m.vm_eval);
    LINE("used_memory_vm_eval:%zu", m.vm_eval);
    LINE("used_memory_lua_human:%s", h_lua);
    LINE("used_memory_scripts_eval:%zu", m.scripts_eval);
    LINE("number_of_cached_scripts:%zu", m.cached_scripts);
    LINE("number_of_functions:%zu", m.functions);
    LINE("number_of_libraries:%zu", m.libraries);
    LINE("used_memory_vm_functions:%zu", m.vm_functions);
    LINE("used_memory_vm_total:%zu", vm_total);
    LINE("used_memory_vm_total_human:%s", h_vm);
    LINE("used_memory_functions:%zu", m.functions_bytes);
    LINE("used_memory_scripts:%zu", scripts);
    LINE("used_memory_scripts_human:%s", h_scripts);
    LINE("maxmemory:%lld", config.maxmemory);
    LINE("maxmemory_human:%s", h_max);
    LINE("maxmemory_policy:%s", evict_policy_names[evict_settings.policy]);
    LINE("allocator_frag_ratio:%.2f", ratio(m.alloc.active, m.alloc.allocated));
    LINE("allocator_frag_bytes:%lld", difference(m.alloc.active, m.alloc.allocated));
    LINE("allocator_rss_ratio:%.2f", ratio(m.alloc.resident, m.alloc.active));
    LINE("allocator_rss_bytes:%lld", difference(m.alloc.resident, m.alloc.active));
    LINE("rss_overhead_ratio:%.2f", ratio(m.rss, m.alloc.resident));
    LINE("rss_overhead_bytes:%lld", difference(m.rss, m.alloc.resident));
    LINE("mem_fragmentation_ratio:%.2f", ratio(m.rss, m.used));
    LINE("mem_fragmentation_bytes:%lld", difference(m.rss, m.used));
    /* maxmemory counts every allocation (store/evict.h): nothing is left out. */
    LINE("mem_not_counted_for_evict:0");
    LINE("mem_replication_backlog:%zu", m.repl_backlog);
    /* Redis 7.0's shared replication buffer: the backlog and what the
     * replicas have not been sent. */
    LINE("mem_total_replication_buffers:%zu", m.repl_backlog + m.clients_replicas);
    LINE("mem_clients_slaves:%zu", m.clients_replicas);
    LINE("mem_clients_normal:%zu", m.clients_normal);
    LINE("mem_cluster_links:%zu", m.cluster_links);
    LINE("mem_aof_buffer:%zu", m.aof_buffer);
    LINE("mem_allocator:%s", xmalloc_allocator_name());
    /* No active defragmentation; big streams are freed lazily by
     * housekeeping (store/stream.h), other values at once. */
    LINE("active_defrag_running:0");
    LINE("lazyfree_pending_objects:%zu", stream_lazy_free_pending());
    LINE("lazyfreed_objects:%lld", stream_lazyfreed);
    memory_report_release(&m);
}
