/* cmd_latency.c — LATENCY DOCTOR/GRAPH/HISTORY/LATEST/RESET/HELP over the latency
 * monitor (core/latency.h), with Redis 7.0's replies and report texts. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "commands/command.h"
#include "core/config.h"
#include "core/latency_series.h"
#include "util/histogram.h"
#include "util/clock.h"
#include "util/buf.h"

static void reply_samples(struct reply *r, const struct latency_series *ts)
{
    reply_mark m = reply_defer(r);
    long long n = 0;
    for (int j = 0; j < LATENCY_SAMPLES; j++) {
        const struct latency_sample *s = &ts->samples[(ts->idx + j) % LATENCY_SAMPLES];
        if (s->time == 0) continue;
        reply_array_len(r, 2);
        reply_int(r, s->time);
        reply_int(r, s->latency);
        n++;
    }
    reply_defer_array(r, m, n);
}

static void cmd_latency_history(struct cmd_ctx *ctx)
{
    const struct latency_series *ts = latency_find(ctx->argv[2], ctx->argv_len[2]);
    if (ts)
        reply_samples(ctx->reply, ts);
    else
        reply_array_len(ctx->reply, 0);
}

/* LATENCY GRAPH: Redis's filled ASCII sparkline of a series, 80 columns
 * by 4 rows (3 levels each), each column labelled vertically with how long
 * ago its sample was taken. */
#define GRAPH_COLUMNS 80
#define GRAPH_ROWS 4

static const char graph_levels[] = "_o#"; /* a column's top, by level */

struct graph_point {
    uint32_t value;
    char label[24];
};

/* One band of at most GRAPH_COLUMNS points (Redis's sparklineRenderRange
 * with SPARKLINE_FILL): the curve rows, a blank row, then the labels. */
static void graph_band(struct buf *out, const struct graph_point *p, int len, uint32_t min,
                       uint32_t max)
{
    double range = max - min ? (double)(max - min) : 1;
    int steps = 3 * GRAPH_ROWS;
    char line[GRAPH_COLUMNS];
    for (int row = 0;; row++) {
        bool more = false;
        memset(line, ' ', (size_t)len);
        for (int j = 0; j < len; j++) {
            int step = (int)((double)(int)((p[j].value - min) * (double)steps) / range);
            if (step >= steps) step = steps - 1;
            if (row < GRAPH_ROWS) {
                int level = step - (GRAPH_ROWS - row - 1) * 3;
                more = true;
                if (level >= 0 && level < 3)
                    line[j] = graph_levels[level];
                else if (level >= 3)
                    line[j] = '|';
            } else if (row == GRAPH_ROWS) {
                more = true; /* the blank row above the labels */
                break;
            } else if ((int)strlen(p[j].label) > row - GRAPH_ROWS - 1) {
                more = true;
                line[j] = p[j].label[row - GRAPH_ROWS - 1];
            }
        }
        if (!more) return;
        buf_append(out, line, (size_t)len);
        buf_append_char(out, '\n');
    }
}

static void cmd_latency_graph(struct cmd_ctx *ctx)
{
    const struct latency_series *ts = latency_find(ctx->argv[2], ctx->argv_len[2]);
    if (!ts) {
        reply_error_fmt(ctx->reply, "ERR No samples available for event '%.*s'",
                        (int)ctx->argv_len[2], ctx->argv[2]);
        return;
    }
    struct graph_point points[LATENCY_SAMPLES];
    int n = 0;
    uint32_t min = 0, max = 0;
    long long now = clock_unix_ms() / 1000;
    for (int j = 0; j < LATENCY_SAMPLES; j++) {
        const struct latency_sample *s = &ts->samples[(ts->idx + j) % LATENCY_SAMPLES];
        if (s->time == 0) continue;
        if (n == 0 || s->latency > max) max = s->latency;
        if (n == 0 || s->latency < min) min = s->latency;
        long long ago = now - s->time;
        struct graph_point *p = &points[n++];
        p->value = s->latency;
        if (ago < 60)
            snprintf(p->label, sizeof p->label, "%llds", ago);
        else if (ago < 3600)
            snprintf(p->label, sizeof p->label, "%lldm", ago / 60);
        else if (ago < 86400)
            snprintf(p->label, sizeof p->label, "%lldh", ago / 3600);
        else
            snprintf(p->label, sizeof p->label, "%lldd", ago / 86400);
    }
    struct buf out;
    buf_init(&out, 1024);
    buf_append_fmt(&out, "%s - high %lu ms, low %lu ms (all time high %lu ms)\n", ts->event,
                   (unsigned long)max, (unsigned long)min, (unsigned long)ts->max);
    for (int j = 0; j < GRAPH_COLUMNS; j++) buf_append_char(&out, '-');
    buf_append_char(&out, '\n');
    for (int j = 0; j < n; j += GRAPH_COLUMNS) {
        if (j) buf_append_char(&out, '\n');
        graph_band(&out, points + j, n - j < GRAPH_COLUMNS ? n - j : GRAPH_COLUMNS, min, max);
    }
    reply_verbatim(ctx->reply, buf_head(&out), buf_len(&out), "txt");
    buf_free(&out);
}

static void cmd_latency_latest(struct cmd_ctx *ctx)
{
    reply_array_len(ctx->reply, latency_event_count);
    for (int i = 0; i < latency_event_count; i++) {
        const struct latency_series *ts = &latency_events[i];
        int last = (ts->idx + LATENCY_SAMPLES - 1) % LATENCY_SAMPLES;
        reply_array_len(ctx->reply, 4);
        reply_bulk_cstr(ctx->reply, ts->event);
        reply_int(ctx->reply, ts->samples[last].time);
        reply_int(ctx->reply, ts->samples[last].latency);
        reply_int(ctx->reply, ts->max);
    }
}

static void cmd_latency_reset(struct cmd_ctx *ctx)
{
    if (ctx->argc == 2) {
        reply_int(ctx->reply, latency_reset(NULL, 0));
        return;
    }
    long long resets = 0;
    for (int j = 2; j < ctx->argc; j++) resets += latency_reset(ctx->argv[j], ctx->argv_len[j]);
    reply_int(ctx->reply, resets);
}

static void append_text(struct buf *out, const char *text)
{
    buf_append(out, text, strlen(text));
}

/* Redis's analyzeLatencyForEvent: samples, average, mean absolute
 * deviation, and the seconds since the oldest sample. */
struct latency_stats {
    long long samples, avg, mad, period;
};

static struct latency_stats analyze(const struct latency_series *ts)
{
    struct latency_stats ls = {0};
    unsigned long long sum = 0;
    long long oldest = 0;
    for (int j = 0; j < LATENCY_SAMPLES; j++) {
        const struct latency_sample *s = &ts->samples[j];
        if (s->time == 0) continue;
        ls.samples++;
        sum += s->latency;
        if (oldest == 0 || s->time < oldest) oldest = s->time;
    }
    if (!ls.samples) return ls;
    ls.avg = (long long)(sum / (unsigned long long)ls.samples);
    ls.period = clock_unix_ms() / 1000 - oldest;
    if (ls.period == 0) ls.period = 1;
    sum = 0;
    for (int j = 0; j < LATENCY_SAMPLES; j++) {
        const struct latency_sample *s = &ts->samples[j];
        if (s->time == 0) continue;
        long long delta = ls.avg - (long long)s->latency;
        sum += (unsigned long long)(delta < 0 ? -delta : delta);
    }
    ls.mad = (long long)(sum / (unsigned long long)ls.samples);
    return ls;
}

/* Whether this process has transparent huge pages mapped (they make fork
 * and copy-on-write slow: DOCTOR advises disabling them). */
static bool anon_huge_pages_used(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return false;
    char line[256];
    long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %lld kB", &kb) == 1) break;
    fclose(f);
    return kb > 0;
}

/* The advices in the order Redis prints them. */
enum advice {
    ADVISE_BETTER_VM,
    ADVISE_SLOWLOG_ENABLED,
    ADVISE_SLOWLOG_TUNING,
    ADVISE_SLOWLOG_INSPECT,
    ADVISE_SCHEDULER,
    ADVISE_LOCAL_DISK,
    ADVISE_SSD,
    ADVISE_DATA_WRITEBACK,
    ADVISE_DISK_CONTENTION,
    ADVISE_NO_APPENDFSYNC,
    ADVISE_RELAX_FSYNC_POLICY,
    ADVISE_WRITE_LOAD_INFO,
    ADVISE_HZ,
    ADVISE_LARGE_OBJECTS,
    ADVISE_MASS_EVICTION,
    ADVISE_DISABLE_THP,
    ADVICE_COUNT
};

static const char *const advice_texts[ADVICE_COUNT] = {
    [ADVISE_BETTER_VM] =
        "- If you are using a virtual machine, consider upgrading it with a faster one using a "
        "hypervisior that provides less latency during fork() calls. Xen is known to have poor "
        "fork() performance. Even in the context of the same VM provider, certain kinds of "
        "instances can execute fork faster than others.\n",
    [ADVISE_SLOWLOG_ENABLED] =
        "- There are latency issues with potentially slow commands you are using. Try to enable "
        "the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %llu'. "
        "If the Slow log is disabled Redis is not able to log slow commands execution for you.\n",
    [ADVISE_SLOWLOG_TUNING] =
        "- Your current Slow Log configuration only logs events that are slower than your "
        "configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than "
        "%llu'.\n",
    [ADVISE_SLOWLOG_INSPECT] =
        "- Check your Slow Log to understand what are the commands you are running which are too "
        "slow to execute. Please check https://redis.io/commands/slowlog for more information.\n",
    [ADVISE_SCHEDULER] =
        "- The system is slow to execute Redis code paths not containing system calls. This "
        "usually means the system does not provide Redis CPU time to run for long periods. You "
        "should try to:\n"
        "  1) Lower the system load.\n"
        "  2) Use a computer / VM just for Redis if you are running other software in the same "
        "system.\n"
        "  3) Check if you have a \"noisy neighbour\" problem.\n"
        "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in "
        "your system.\n"
        "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if "
        "you are using Jemalloc. However this may create fragmentation problems.\n",
    [ADVISE_LOCAL_DISK] =
        "- It is strongly advised to use local disks for persistence, especially if you are "
        "using AOF. Remote disks provided by platform-as-a-service providers are known to be "
        "slow.\n",
    [ADVISE_SSD] =
        "- SSD disks are able to reduce fsync latency, and total time needed for snapshotting "
        "and AOF log rewriting (resulting in smaller memory usage). With extremely high write "
        "load SSD disks can be a good option. However Redis should perform reasonably with high "
        "load using normal disks. Use this advice as a last resort.\n",
    [ADVISE_DATA_WRITEBACK] =
        "- Mounting ext3/4 filesystems with data=writeback can provide a performance boost "
        "compared to data=ordered, however this mode of operation provides less guarantees, and "
        "sometimes it can happen that after a hard crash the AOF file will have a half-written "
        "command at the end and will require to be repaired before Redis restarts.\n",
    [ADVISE_DISK_CONTENTION] =
        "- Try to lower the disk contention. This is often caused by other disk intensive "
        "processes running in the same computer (including other Redis instances).\n",
    [ADVISE_NO_APPENDFSYNC] =
        "- Assuming from the point of view of data safety this is viable in your environment, "
        "you could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not "
        "be performed while there is a child rewriting the AOF file or producing an RDB file "
        "(the moment where there is high disk contention).\n",
    [ADVISE_RELAX_FSYNC_POLICY] =
        "- Your fsync policy is set to 'always'. It is very hard to get good performances with "
        "such a setup, if possible try to relax the fsync policy to 'onesec'.\n",
    [ADVISE_WRITE_LOAD_INFO] =
        "- Latency during the AOF atomic rename operation or when the final difference is "
        "flushed to the AOF file at the end of the rewrite, sometimes is caused by very high "
        "write load, causing the AOF buffer to get very large. If possible try to send less "
        "commands to accomplish the same work, or use Lua scripts to group multiple operations "
        "into a single EVALSHA call.\n",
    [ADVISE_HZ] = "- In order to make the Redis keys expiring process more incremental, try to "
                  "set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n",
    [ADVISE_LARGE_OBJECTS] =
        "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
        "blocking operation. If you have very large objects that are often deleted, expired, or "
        "evicted, try to fragment those objects into multiple smaller objects.\n",
    [ADVISE_MASS_EVICTION] =
        "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large "
        "objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster "
        "large keys migrations (RESTORE command), may create sudden memory pressure forcing the "
        "server to block trying to evict keys. \n",
    [ADVISE_DISABLE_THP] =
        "- I detected a non zero amount of anonymous huge pages used by your process. This "
        "creates very serious latency events in different conditions, especially when Redis is "
        "persisting on disk. To disable THP support use the command 'echo never > "
        "/sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into "
        "/etc/rc.local so that the command will be executed again after a reboot. Note that "
        "even if you have already disabled THP, you still need to restart the Redis process to "
        "get rid of the huge pages already created.\n",
};

/* Which advices an event class calls for (Redis's createLatencyReport). */
static const struct {
    const char *event;
    enum advice advices[4];
    int count;
} event_advices[] = {
    {"fast-command", {ADVISE_SCHEDULER}, 1},
    {"aof-write-pending-fsync",
     {ADVISE_LOCAL_DISK, ADVISE_DISK_CONTENTION, ADVISE_SSD, ADVISE_DATA_WRITEBACK},
     4},
    {"aof-write-active-child", {ADVISE_NO_APPENDFSYNC, ADVISE_DATA_WRITEBACK, ADVISE_SSD}, 3},
    {"aof-write-alone", {ADVISE_LOCAL_DISK, ADVISE_DATA_WRITEBACK, ADVISE_SSD}, 3},
    {"aof-fsync-always", {ADVISE_RELAX_FSYNC_POLICY}, 1},
    {"aof-fstat", {ADVISE_DISK_CONTENTION, ADVISE_LOCAL_DISK}, 2},
    {"rdb-unlink-temp-file", {ADVISE_DISK_CONTENTION, ADVISE_LOCAL_DISK}, 2},
    {"aof-rewrite-diff-write",
     {ADVISE_WRITE_LOAD_INFO, ADVISE_DATA_WRITEBACK, ADVISE_SSD, ADVISE_LOCAL_DISK},
     4},
    {"aof-rename",
     {ADVISE_WRITE_LOAD_INFO, ADVISE_DATA_WRITEBACK, ADVISE_SSD, ADVISE_LOCAL_DISK},
     4},
    {"expire-cycle", {ADVISE_HZ, ADVISE_LARGE_OBJECTS}, 2},
    {"eviction-del", {ADVISE_LARGE_OBJECTS}, 1},
    {"eviction-cycle", {ADVISE_MASS_EVICTION}, 1},
};

/* The events' lines; sets the advices they call for, returns their count. */
static int report_events(struct buf *out, bool *advise)
{
    int advices = 0;
    for (int i = 0; i < latency_event_count; i++) {
        const struct latency_series *ts = &latency_events[i];
        struct latency_stats ls = analyze(ts);
        if (i == 0)
            append_text(out, "Dave, I have observed latency spikes in this Redis "
                             "instance. You don't mind talking about it, do you Dave?\n\n");
        buf_append_fmt(out,
                       "%d. %s: %lld latency spikes (average %lldms, mean deviation %lldms, "
                       "period %.2f sec). Worst all time event %lums.",
                       i + 1, ts->event, ls.samples, ls.avg, ls.mad,
                       (double)ls.period / (double)ls.samples, (unsigned long)ts->max);
        if (strcasecmp(ts->event, "fork") == 0) {
            const char *quality;
            double rate = latency_fork_rate_gb;
            if (rate < 25) {
                quality = rate < 10 ? "terrible" : "poor";
                advise[ADVISE_BETTER_VM] = true;
                advices++;
            } else {
                quality = rate < 100 ? "good" : "excellent";
            }
            buf_append_fmt(out, " Fork rate is %.2f GB/sec (%s).", rate, quality);
        }
        if (strcasecmp(ts->event, "command") == 0) {
            if (config.slowlog_log_slower_than < 0) {
                advise[ADVISE_SLOWLOG_ENABLED] = true;
                advices++;
            } else if (config.slowlog_log_slower_than / 1000 > config.latency_monitor_threshold) {
                advise[ADVISE_SLOWLOG_TUNING] = true;
                advices++;
            }
            advise[ADVISE_SLOWLOG_INSPECT] = advise[ADVISE_LARGE_OBJECTS] = true;
            advices += 2;
        }
        for (size_t e = 0; e < sizeof event_advices / sizeof event_advices[0]; e++) {
            if (strcasecmp(ts->event, event_advices[e].event) != 0) continue;
            for (int a = 0; a < event_advices[e].count; a++)
                advise[event_advices[e].advices[a]] = true;
            advices += event_advices[e].count;
        }
        append_text(out, "\n");
    }
    return advices;
}

static void cmd_latency_doctor(struct cmd_ctx *ctx)
{
    struct buf out;
    buf_init(&out, 1024);
    if (latency_event_count == 0 && config.latency_monitor_threshold == 0) {
        append_text(
            &out, "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
                  "instance. You may use \"CONFIG SET latency-monitor-threshold "
                  "<milliseconds>.\" in order to enable it. If we weren't in a deep space "
                  "mission I'd suggest to take a look at "
                  "https://redis.io/topics/latency-monitor.\n");
    } else {
        bool advise[ADVICE_COUNT] = {0};
        int advices = report_events(&out, advise);
        if (anon_huge_pages_used()) {
            advise[ADVISE_DISABLE_THP] = true;
            advices++;
        }
        if (latency_event_count == 0 && advices == 0) {
            append_text(&out, "Dave, no latency spike was observed during the lifetime "
                              "of this Redis instance, not in the slightest bit. I "
                              "honestly think you ought to sit down calmly, take a "
                              "stress pill, and think things over.\n");
        } else if (latency_event_count > 0 && advices == 0) {
            append_text(&out, "\nWhile there are latency events logged, I'm not able to "
                              "suggest any easy fix. Please use the Redis community to "
                              "get some help, providing this report in your help "
                              "request.\n");
        } else {
            append_text(&out, "\nI have a few advices for you:\n\n");
            unsigned long long slowlog_us =
                (unsigned long long)config.latency_monitor_threshold * 1000;
            for (int a = 0; a < ADVICE_COUNT; a++) {
                if (!advise[a]) continue;
                if (a == ADVISE_SLOWLOG_ENABLED || a == ADVISE_SLOWLOG_TUNING)
                    buf_append_fmt(&out, advice_texts[a], slowlog_us);
                else
                    append_text(&out, advice_texts[a]);
            }
        }
    }
    reply_verbatim(ctx->reply, buf_head(&out), buf_len(&out), "txt");
    buf_free(&out);
}

/* One command's cumulative distribution (Redis's fillCommandCDF): its
 * calls, then a map of microseconds (the highest value counted at each
 * power-of-two level from 1024 ns) to the count of calls up to there,
 * levels that add no call left out. */
static void reply_command_cdf(struct reply *r, const struct command *cmd)
{
    const struct histogram *h = cmd->latency_histogram;
    reply_bulk(r, cmd->full_name, strlen(cmd->full_name));
    reply_map_len(r, 2);
    reply_bulk(r, "calls", 5);
    reply_int(r, h->total);
    reply_bulk(r, "histogram_usec", 14);
    reply_mark m = reply_defer(r);
    long long levels = 0;
    int64_t previous = 0;
    struct histogram_log_iter it;
    histogram_log_iter_init(&it, h, 1024);
    while (histogram_log_iter_next(&it)) {
        if (it.cumulative > previous) {
            reply_int(r, it.highest_equivalent / 1000);
            reply_int(r, it.cumulative);
            levels++;
        }
        previous = it.cumulative;
    }
    reply_defer_map(r, m, levels);
}

/* A command and its subcommands that have a histogram; returns how many. */
static long long reply_command_tree_cdf(struct reply *r, const struct command *cmd)
{
    long long n = 0;
    if (cmd->latency_histogram) {
        reply_command_cdf(r, cmd);
        n++;
    }
    if (cmd->subcommands)
        for (const struct command *sub = cmd->subcommands; sub->name; sub++)
            n += reply_command_tree_cdf(r, sub);
    return n;
}

struct cdf_visit {
    struct reply *reply;
    long long n;
};

static void visit_cdf(struct command *cmd, void *arg)
{
    struct cdf_visit *v = arg;
    v->n += reply_command_tree_cdf(v->reply, cmd);
}

/* LATENCY HISTOGRAM [command ...]: a map of every named command (a
 * container: its subcommands too; unknown names skipped) that has
 * samples, or of every command without names. */
static void cmd_latency_histogram(struct cmd_ctx *ctx)
{
    struct cdf_visit v = {ctx->reply, 0};
    reply_mark m = reply_defer(ctx->reply);
    if (ctx->argc == 2) {
        command_foreach(visit_cdf, &v);
    } else {
        for (int j = 2; j < ctx->argc; j++) {
            const struct command *cmd = command_lookup_full(ctx->argv[j], ctx->argv_len[j]);
            if (cmd) v.n += reply_command_tree_cdf(ctx->reply, cmd);
        }
    }
    reply_defer_map(ctx->reply, m, v.n);
}

static void cmd_latency_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of a histogram for the "
        "specified command names.",
        "    If no commands are specified then all histograms are replied.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

#define LATENCY_SUB(n, a, f)                                                                       \
    {                                                                                              \
        .name = n, .arity = a, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,        \
        .fn = f                                                                                    \
    }

static struct command latency_subcommands[] = {
    LATENCY_SUB("doctor", 2, cmd_latency_doctor),
    LATENCY_SUB("history", 3, cmd_latency_history),
    LATENCY_SUB("graph", 3, cmd_latency_graph),
    LATENCY_SUB("latest", 2, cmd_latency_latest),
    LATENCY_SUB("reset", -2, cmd_latency_reset),
    LATENCY_SUB("histogram", -2, cmd_latency_histogram),
    LATENCY_SUB("help", 2, cmd_latency_help),
    COMMAND_END,
};

struct command latency_commands[] = {
    {.name = "latency", .arity = -2, .subcommands = latency_subcommands, .group = "server"},
    COMMAND_END,
};
