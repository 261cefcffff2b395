/* conn_evict.c — maxmemory-clients: Redis 7.0's client eviction. While the
 * clients together hold at least the limit (bytes, or a percentage of
 * maxmemory; never below 128 KiB, as Redis), the largest client that did
 * not ask for CLIENT NO-EVICT is closed, until they are under it.
 *
 * Accounting: each conn remembers what it was last counted at
 * (session_memory(): the conn and its buffers' capacity) and the total
 * follows by differences. A conn is recounted after each read event and
 * write event of its own (conn.c), when it closes, and every conn on each
 * housekeeping run (buffers another client's command grew, a subscriber's
 * backlog, transports that feed input without a read event). Off (the
 * default, 0), the read and write paths pay one branch. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "connection/conn.h"
#include "connection/session.h"
#include "core/config.h"
#include "util/log.h"
#include "util/numparse.h"
#include "util/stats.h"
#include "util/xmalloc.h"

bool conn_evict_on;
char *conn_maxmemory_clients_text;
static long long maxmemory_clients; /* bytes; < 0: percent of maxmemory; 0: off */
static size_t clients_total;        /* sum of every conn's mem_accounted */

#define EVICT_LIMIT_FLOOR (128 * 1024)

/* Redis's getClientEvictionLimit: 0 when off. */
static size_t evict_limit(void)
{
    size_t limit;
    if (maxmemory_clients < 0 && config.maxmemory > 0)
        limit = (size_t)((double)config.maxmemory * -(double)maxmemory_clients / 100);
    else if (maxmemory_clients > 0)
        limit = (size_t)maxmemory_clients;
    else
        return 0;
    return limit < EVICT_LIMIT_FLOOR ? EVICT_LIMIT_FLOOR : limit;
}

/* Parses the parameter's text: "N%" (0..100) or a memory size. */
static const char *parse(const char *text, long long *out)
{
    size_t len = strlen(text);
    long long v;
    if (len > 1 && text[len - 1] == '%' && num_parse_ll(text, len - 1, &v) && v >= 0) {
        if (v > 100) return "percentage argument must be less or equal to 100";
        *out = -v;
        return NULL;
    }
    unsigned long long bytes;
    if (!num_parse_memory(text, len, &bytes) || bytes > (unsigned long long)INT64_MAX)
        return "argument must be a memory or percent value";
    *out = (long long)bytes;
    return NULL;
}

const char *conn_evict_validate(const char *text)
{
    long long v;
    return parse(text, &v);
}

static bool recount(struct conn *c, void *arg)
{
    (void)arg;
    conn_evict_account(c);
    return true;
}

void conn_evict_apply(void)
{
    long long v = 0;
    parse(conn_maxmemory_clients_text, &v); /* validated */
    maxmemory_clients = v;
    /* CONFIG GET shows it as Redis does: "N%" or bytes. */
    char text[32];
    if (v < 0)
        snprintf(text, sizeof text, "%lld%%", -v);
    else
        snprintf(text, sizeof text, "%lld", v);
    xfree(conn_maxmemory_clients_text);
    conn_maxmemory_clients_text = xstrdup(text);
    conn_evict_on = v != 0;
    if (conn_evict_on) session_foreach_client(recount, NULL);
}

/* The largest client eviction may take; NULL when there is none. */
static bool note_largest(struct conn *c, void *arg)
{
    struct conn **best = arg;
    if (c->flags & (CONN_NO_EVICT | CONN_CLOSED)) return true;
    if (!*best || c->mem_accounted > (*best)->mem_accounted) *best = c;
    return true;
}

static void evict_while_over(void)
{
    size_t limit = evict_limit();
    while (limit && clients_total >= limit) {
        struct conn *victim = NULL;
        session_foreach_client(note_largest, &victim);
        if (!victim) {
            log_warning("Over client maxmemory after evicting all evictable clients");
            return;
        }
        struct buf info;
        buf_init(&info, 256);
        session_describe(victim, &info);
        log_notice("Evicting client: %.*s", (int)buf_len(&info), buf_head(&info));
        buf_free(&info);
        stats.evicted_clients++;
        conn_close(victim, NULL); /* conn_evict_forget takes it out of the total */
    }
}

void conn_evict_account(struct conn *c)
{
    size_t now = session_memory(c);
    clients_total += now - c->mem_accounted; /* modular: a shrink subtracts */
    c->mem_accounted = now;
    evict_while_over();
}

void conn_evict_forget(struct conn *c)
{
    clients_total -= c->mem_accounted;
    c->mem_accounted = 0;
}

void conn_evict_housekeeping(void)
{
    if (!conn_evict_on) return;
    session_foreach_client(recount, NULL);
}

static void conn_evict_defaults(void)
{
    conn_maxmemory_clients_text = xstrdup("0");
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param conn_evict_params[] = {
    {.name = "maxmemory-clients",
     .kind = CFG_STRING,
     .value = &conn_maxmemory_clients_text,
     .value_name = "BYTES|N%",
     .help = "while clients hold this much (or N% of maxmemory; at least 128kb) the largest ones "
             "are closed, as Redis's client eviction (default 0 = off)",
     .apply = conn_evict_apply,
     .validate = conn_evict_validate},
};

const struct config_table conn_evict_config = CONFIG_TABLE(conn_evict_params, conn_evict_defaults);
