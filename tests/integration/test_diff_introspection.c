/*
 * Differential test of the introspection and admin surface against
 * redis-server, in RESP2 and RESP3:
 *
 *  - INFO: every section Redis prints, field for field: each field name
 *    redis-server prints (after the same commands on both, so commandstats,
 *    errorstats, latencystats and keyspace lines name the same things) must
 *    be there, in the same order; goblin-core's own extra fields are a
 *    fixed list. Values are not compared (they measure each server), but
 *    latencystats lines must have Redis's shape for the configured
 *    percentiles.
 *  - LATENCY HISTOGRAM [command ...]: the same commands with the same
 *    call counts; each histogram_usec a map of increasing power-of-two
 *    microsecond levels to increasing cumulative counts ending at the calls
 *    (the levels themselves are timings: masked). latency-tracking and
 *    latency-tracking-info-percentiles: CONFIG GET/SET exact, errors too.
 *  - MEMORY STATS: the same keys in the same order with values of the same
 *    types (numbers measured per server); MEMORY DOCTOR on a near-empty
 *    server, MEMORY HELP and errors exact; MEMORY MALLOC-STATS is
 *    jemalloc's report (the libc text in the sanitizer build).
 *  - LOLWUT: exact where Redis's art is deterministic (the default, other
 *    versions, Schotter with at most two rows of squares), the shape of the
 *    skyline (one ANSI-coloured cell per column, the caption).
 *  - MODULE: HELP and LIST exact; LOAD/LOADEX/UNLOAD refused exactly as
 *    redis-server refuses them under enable-module-command no; with it
 *    yes, goblin-core's own refusal (no module ABI).
 *  - COMMAND LIST FILTERBY ACLCAT/PATTERN/MODULE: Redis's list restricted
 *    to the commands goblin-core has, as a set; errors exact.
 *  - maxmemory-clients: CONFIG SET/GET exact, and a client whose query
 *    buffer passes the limit is evicted by both (INFO evicted_clients),
 *    unless it set CLIENT NO-EVICT on. key-load-delay and CONFIG SET of a
 *    startup-only parameter (to its value: accepted where Redis lets it be
 *    set; otherwise refused) exact.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "diff.h"
#include "resp_value.h"

static struct diff_pair d;
static bool resp3;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)
#define MAX_FIELDS 2048

static void fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "diff_introspection (%s): ", resp3 ? "RESP3" : "RESP2");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(1);
}

/* Both servers' replies to argv (NULL-terminated C strings). */
static void exchange(char **g, char **r, ...)
{
    const char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, r);
    for (const char *a; (a = va_arg(ap, const char *)) && argc < 32;) argv[argc++] = a;
    va_end(ap);
    size_t gl, rl;
    diff_exchange(&d, argc, argv, NULL, g, &gl, r, &rl);
}

/* --- INFO ------------------------------------------------------------------------- */

/* Fields goblin-core prints that Redis does not (section, field). */
static const char *const goblin_only[][2] = {
    {"Server", "goblin_version"},
    {"Stats", "pubsub_slow_consumer_disconnections"},
    {"Stats", "client_query_buffer_limit_disconnections"},
    {"Stats", "client_output_buffer_limit_disconnections"},
    {"Stats", "client_protocol_error_disconnections"},
    {"Stats", "auth_pwhash_verifications"},
    {"Stats", "auth_failures"},
    {"Stats", "auth_throttled"},
    {"Stats", "auth_failures_delayed"},
    {"Stats", "acl_access_denied_auth"},
    {"Stats", "acl_access_denied_cmd"},
    {"Stats", "acl_access_denied_key"},
    {"Stats", "acl_access_denied_channel"},
    {"Stats", "string_values_adopted"},
    {"Stats", "sbe_typed_calls"},
    {"Stats", "polled_sleep_enabled"},
    {"Stats", "polled_sleeps"},
    {"Stats", "polled_sleeps_refused"},
    {"Stats", "polled_slept_usec"},
    {"Libfabric", "*"},
};

static bool is_goblin_only(const char *section, const char *field)
{
    for (size_t i = 0; i < sizeof goblin_only / sizeof goblin_only[0]; i++)
        if (strcmp(goblin_only[i][0], section) == 0 &&
            (strcmp(goblin_only[i][1], "*") == 0 || strcmp(goblin_only[i][1], field) == 0))
            return true;
    return false;
}

static bool unordered_section(const char *section)
{
    return strcmp(section, "Commandstats") == 0 || strcmp(section, "Latencystats") == 0;
}

struct info_field {
    char section[32];
    char name[128];
    char value[512];
};

/* The text of an INFO reply (a bulk in RESP2, a verbatim string in RESP3). */
static char *info_text(char *raw)
{
    char *body = strstr(raw, "\r\n");
    if (!body || (raw[0] != '$' && raw[0] != '=')) fail("INFO answered %s%s", raw, "");
    body += 2;
    if (raw[0] == '=') body += 4; /* "txt:" */
    return body;
}

static int parse_info(char *raw, struct info_field *out)
{
    char *text = info_text(raw);
    char section[32] = "";
    int n = 0;
    for (char *line = strtok(text, "\r\n"); line && n < MAX_FIELDS; line = strtok(NULL, "\r\n")) {
        if (line[0] == '#') {
            snprintf(section, sizeof section, "%s", line + 2);
            continue;
        }
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = '\0';
        snprintf(out[n].section, sizeof out[n].section, "%s", section);
        snprintf(out[n].name, sizeof out[n].name, "%s", line);
        snprintf(out[n].value, sizeof out[n].value, "%s", colon + 1);
        n++;
    }
    return n;
}

/* "latency_percentiles_usec_<cmd>:p50=1.003,p99=..." with the configured
 * percentile names, three decimals each. */
static void check_latency_line(const struct info_field *f, const char *const *names, int count)
{
    const char *p = f->value;
    for (int i = 0; i < count; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(p, names[i], n) != 0 || p[n] != '=')
            fail("latencystats line %s has the wrong shape (%s)", f->name, f->value);
        p += n + 1;
        const char *dot = strchr(p, '.');
        if (!dot || strspn(p, "0123456789") != (size_t)(dot - p) ||
            strspn(dot + 1, "0123456789") != 3)
            fail("latencystats value in %s: %s", f->name, f->value);
        p = dot + 4;
        if (i + 1 < count) {
            if (*p != ',') fail("latencystats separator in %s: %s", f->name, f->value);
            p++;
        }
    }
    if (*p) fail("latencystats line %s ends with %s", f->name, p);
}

static void compare_info(const char *const *percentiles, int count)
{
    static struct info_field g[MAX_FIELDS], r[MAX_FIELDS];
    char *graw, *rraw;
    exchange(&graw, &rraw, "INFO", "everything", NULL);
    int gn = parse_info(graw, g), rn = parse_info(rraw, r);
    /* Redis's fields, in order, each found in goblin's same section after
     * the previous one; commandstats and latencystats list commands in
     * Redis's hash table order, so there only the names must be there. */
    int gi = 0;
    for (int i = 0; i < rn; i++) {
        if (unordered_section(r[i].section)) {
            bool found = false;
            for (int j = 0; j < gn && !found; j++)
                found =
                    strcmp(g[j].section, r[i].section) == 0 && strcmp(g[j].name, r[i].name) == 0;
            if (!found) fail("INFO %s line %s missing", r[i].section, r[i].name);
            continue;
        }
        int j = gi;
        while (j < gn &&
               !(strcmp(g[j].section, r[i].section) == 0 && strcmp(g[j].name, r[i].name) == 0))
            j++;
        if (j == gn) {
            char what[200];
            snprintf(what, sizeof what, "%s / %s", r[i].section, r[i].name);
            fail("INFO field %s missing (or out of Redis's order)%s", what, "");
        }
        gi = j + 1;
    }
    /* Every goblin field is Redis's or a known goblin-only one. */
    for (int j = 0; j < gn; j++) {
        bool found = is_goblin_only(g[j].section, g[j].name);
        for (int i = 0; i < rn && !found; i++)
            found = strcmp(g[j].section, r[i].section) == 0 && strcmp(g[j].name, r[i].name) == 0;
        if (!found) fail("INFO field %s / %s is not Redis's", g[j].section, g[j].name);
        if (strncmp(g[j].name, "latency_percentiles_usec_", 25) == 0)
            check_latency_line(&g[j], percentiles, count);
    }
    for (int i = 0; i < rn; i++)
        if (strncmp(r[i].name, "latency_percentiles_usec_", 25) == 0)
            check_latency_line(&r[i], percentiles, count);
    free(graw);
    free(rraw);
}

static void info_cases(void)
{
    C("CONFIG", "RESETSTAT");
    C("FLUSHALL");
    C("SET", "k", "v");
    C("GET", "k");
    C("HSET", "h", "f", "v");
    C("GEOADD", "g", "1", "2", "m");
    C("EXPIRE", "k", "1000");
    C("SELECT", "3");
    C("SET", "k3", "v");
    C("SELECT", "0");
    C("INCR", "h"); /* an error: errorstats */
    C("CONFIG", "GET", "maxmemory");
    C("NOSUCHCOMMAND");
    C("GET"); /* rejected: cmdstat with rejected_calls */
    const char *defaults[] = {"p50", "p99", "p99.9"};
    compare_info(defaults, 3);
    C("CONFIG", "SET", "latency-tracking-info-percentiles", "0 12.5 100 99.999");
    C("CONFIG", "GET", "latency-tracking-info-percentiles");
    const char *custom[] = {"p0", "p12.5", "p100", "p99.999"};
    compare_info(custom, 4);
    C("CONFIG", "SET", "latency-tracking-info-percentiles", "");
    C("CONFIG", "GET", "latency-tracking-info-percentiles");
    compare_info(custom, 0);
    C("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9");
    C("CONFIG", "SET", "latency-tracking-info-percentiles", "50 x");
    C("CONFIG", "SET", "latency-tracking-info-percentiles", "101");
    C("CONFIG", "SET", "latency-tracking-info-percentiles", "-1");
    C("CONFIG", "GET", "latency-tracking-info-percentiles");
    C("CONFIG", "GET", "latency-tracking");
    C("CONFIG", "SET", "latency-tracking", "maybe");
    /* Off: no new histograms (RESETSTAT freed the old ones). */
    C("CONFIG", "SET", "latency-tracking", "no");
    C("CONFIG", "RESETSTAT");
    C("SET", "k", "v");
    C("INFO", "latencystats");
    C("LATENCY", "HISTOGRAM");
    C("CONFIG", "SET", "latency-tracking", "yes");
}

/* --- LATENCY HISTOGRAM ------------------------------------------------------------- */

/* A histogram_usec map: levels rising, counts rising to `calls`. */
static void check_cdf(const struct rv *m, long long calls, const char *who)
{
    if ((m->type != '%' && m->type != '*') || m->count % 2)
        fail("%s histogram_usec is not a map%s", who, "");
    long long level = -1, cumulative = 0;
    for (size_t i = 0; i < m->count; i += 2) {
        const struct rv *k = &m->elems[i], *v = &m->elems[i + 1];
        if (k->type != ':' || v->type != ':')
            fail("%s histogram_usec holds a non-integer%s", who, "");
        if (k->integer <= level || v->integer <= cumulative)
            fail("%s histogram_usec does not rise%s", who, "");
        level = k->integer;
        cumulative = v->integer;
    }
    if (cumulative != calls) fail("%s histogram_usec does not end at the calls%s", who, "");
}

/* name -> calls of a LATENCY HISTOGRAM reply, in sorted "name=calls" text. */
static void histogram_summary(const char *raw, const char *who, char *out, size_t cap)
{
    struct rv v;
    rv_parse(raw, &v);
    if ((v.type != '%' && v.type != '*') || v.count % 2)
        fail("%s LATENCY HISTOGRAM: not a map%s", who, "");
    size_t n = v.count / 2;
    char(*lines)[96] = calloc(n ? n : 1, sizeof *lines);
    for (size_t i = 0; i < n; i++) {
        const struct rv *name = &v.elems[2 * i], *body = &v.elems[2 * i + 1];
        if (body->count != 4 || body->elems[0].len != 5 || memcmp(body->elems[0].str, "calls", 5) ||
            body->elems[2].len != 14 || memcmp(body->elems[2].str, "histogram_usec", 14))
            fail("%s LATENCY HISTOGRAM entry shape (%s)", who, raw);
        check_cdf(&body->elems[3], body->elems[1].integer, who);
        snprintf(lines[i], sizeof lines[i], "%.*s=%lld", (int)name->len, name->str,
                 body->elems[1].integer);
    }
    qsort(lines, n, sizeof *lines, (int (*)(const void *, const void *))strcmp);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s ", lines[i]);
    free(lines);
    rv_free(&v);
}

static void compare_histogram(const char *const *argv, int argc)
{
    char *g, *r;
    size_t gl, rl;
    diff_exchange(&d, argc, argv, NULL, &g, &gl, &r, &rl);
    char gs[4096], rs[4096];
    histogram_summary(g, "goblin-core", gs, sizeof gs);
    histogram_summary(r, "redis-server", rs, sizeof rs);
    if (strcmp(gs, rs) != 0) fail("LATENCY HISTOGRAM: goblin-core %s, redis-server %s", gs, rs);
    free(g);
    free(r);
}

static void latency_histogram_cases(void)
{
    C("CONFIG", "RESETSTAT");
    for (int i = 0; i < 5; i++) C("SET", "a", "b");
    for (int i = 0; i < 3; i++) C("GET", "a");
    C("HSET", "hh", "f", "v");
    C("CONFIG", "GET", "port-not-a-param");
    C("CLIENT", "GETNAME");
    C("GET"); /* rejected: not a call */
    const char *all[] = {"LATENCY", "HISTOGRAM"};
    compare_histogram(all, 2);
    const char *some[] = {"LATENCY", "HISTOGRAM", "set", "GET", "nosuch", "hset"};
    compare_histogram(some, 6);
    const char *container[] = {"LATENCY", "HISTOGRAM", "config", "client|getname", "config|set"};
    compare_histogram(container, 5);
    C("LATENCY", "HISTOGRAM", "nosuch");
    C("LATENCY", "HELP");
}

/* --- MEMORY -------------------------------------------------------------------------- */

/* The keys of a MEMORY STATS reply and each value's type, nested maps
 * included: "peak.allocated:i total.allocated:i ... db.0:{...}". */
static void stats_shape(const struct rv *v, char *out, size_t cap, size_t *used)
{
    for (size_t i = 0; i + 1 < v->count; i += 2) {
        const struct rv *k = &v->elems[i], *val = &v->elems[i + 1];
        *used += (size_t)snprintf(out + *used, cap - *used, "%.*s:", (int)k->len, k->str);
        if (val->type == '%' || val->type == '*') {
            *used += (size_t)snprintf(out + *used, cap - *used, "{");
            stats_shape(val, out, cap, used);
            *used += (size_t)snprintf(out + *used, cap - *used, "} ");
        } else {
            *used += (size_t)snprintf(out + *used, cap - *used, "%c ", val->type);
        }
    }
}

static void compare_memory_stats(void)
{
    char *g, *r;
    exchange(&g, &r, "MEMORY", "STATS", NULL);
    struct rv gv, rv;
    rv_parse(g, &gv);
    rv_parse(r, &rv);
    char gs[8192], rs[8192];
    size_t gu = 0, ru = 0;
    stats_shape(&gv, gs, sizeof gs, &gu);
    stats_shape(&rv, rs, sizeof rs, &ru);
    if (strcmp(gs, rs) != 0)
        fail("MEMORY STATS shape:\n  goblin-core  %s\n  redis-server %s", gs, rs);
    rv_free(&gv);
    rv_free(&rv);
    free(g);
    free(r);
}

static void memory_cases(void)
{
    C("FLUSHALL");
    compare_memory_stats();
    C("SET", "x", "1");
    C("SELECT", "5");
    C("SET", "y", "1");
    C("EXPIRE", "y", "100");
    C("SELECT", "0");
    compare_memory_stats();
    C("FLUSHALL");
    C("MEMORY", "DOCTOR"); /* both near empty: Redis's empty-instance text */
    C("MEMORY", "HELP");
    C("MEMORY", "STATS", "extra");
    C("MEMORY", "DOCTOR", "extra");
    C("MEMORY", "MALLOC-STATS", "extra");
    C("MEMORY", "NOSUCH");
    C("MEMORY");
    const char *argv[] = {"MEMORY", "MALLOC-STATS"};
    char *g = diff_send_both(&d, 2, argv, NULL);
    const char *want = getenv("GOBLIN_ASAN") ? "Stats not supported for the current allocator"
                                             : "___ Begin jemalloc statistics ___";
    if (!strstr(g, want)) fail("MEMORY MALLOC-STATS lacks %s%s", want, "");
    free(g);
}

/* --- LOLWUT, MODULE, COMMAND LIST ------------------------------------------------------------ */

static void lolwut_cases(void)
{
    C("LOLWUT");
    C("LOLWUT", "VERSION", "7");
    C("LOLWUT", "VERSION", "66");
    C("LOLWUT", "VERSION", "-1");
    C("LOLWUT", "VERSION", "x");
    C("LOLWUT", "VERSION");
    C("LOLWUT", "5", "1", "1");
    C("LOLWUT", "VERSION", "5", "1", "1", "1");
    C("LOLWUT", "VERSION", "5", "10", "3", "2");
    C("LOLWUT", "VERSION", "5", "40", "5", "1");
    C("LOLWUT", "VERSION", "5", "2000", "300", "2");
    C("LOLWUT", "VERSION", "5", "-5", "0", "1");
    C("LOLWUT", "VERSION", "5", "x");
    C("LOLWUT", "VERSION", "6", "x");
    C("LOLWUT", "VERSION", "6", "10", "y");
    /* The skyline is random: its shape. */
    const char *argv[] = {"LOLWUT", "VERSION", "6", "7", "3"};
    char *g = diff_send_both(&d, 5, argv, NULL);
    const char *cell = "\033[0;";
    int cells = 0, lines = 0;
    for (const char *p = g; (p = strstr(p, cell)); p += 4) cells++;
    for (const char *p = g; (p = strchr(p, '\n')); p++) lines++;
    /* Line feeds: the reply's header and end, two between the three rows,
     * one before the caption and two in it. */
    if (cells != 7 * 3 || lines != 2 + 2 + 3 ||
        !strstr(g,
                "\nDedicated to the 8 bit game developers of past and present.\nOriginal 8 bit "
                "image from Plaguemon by hikikomori. Redis ver. " DIFF_REDIS_VERSION_NUMBER "\n"))
        fail("LOLWUT VERSION 6 shape: %s%s", g, "");
    free(g);
}

static void module_cases(void)
{
    C("MODULE", "HELP");
    C("MODULE", "LIST");
    C("MODULE", "NOSUCH");
    C("MODULE");
    C("MODULE", "LOAD");
    C("MODULE", "UNLOAD");
    C("MODULE", "LIST", "extra");
    /* enable-module-command no (the default): both refuse before running. */
    C("MODULE", "LOAD", "/tmp/no-such-module.so");
    C("MODULE", "LOADEX", "/tmp/no-such-module.so", "ARGS");
    C("MODULE", "UNLOAD", "mymodule");
    /* Allowed, goblin-core refuses for its reason: it has no module ABI
     * (redis-server would try to dlopen the path). */
    struct test_server s;
    const char *const extra[] = {"--enable-module-command", "yes", NULL};
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn c;
    rconn_open_tcp(&c, s.port);
    static const char *const refused[][3] = {{"LOAD", "/tmp/no-such-module.so", NULL},
                                             {"LOADEX", "/tmp/no-such-module.so", "ARGS"},
                                             {"UNLOAD", "mymodule", NULL}};
    for (int i = 0; i < 3; i++) {
        const char *argv[] = {"MODULE", refused[i][0], refused[i][1], refused[i][2]};
        rconn_send_argv(&c, refused[i][2] ? 4 : 3, argv, NULL);
        char *g = rconn_read_reply(&c, NULL);
        const char *want = i < 2 ? "-ERR Error loading the extension. goblin-core has no module ABI"
                                 : "-ERR Error unloading module: no such module with that name";
        if (strncmp(g, want, strlen(want)) != 0) fail("MODULE %s answered %s", refused[i][0], g);
        free(g);
    }
    rconn_close(&c);
    test_server_stop(&s);
}

/* A COMMAND LIST reply, parsed; its strings point into *raw (the caller
 * frees both). */
static struct rv list_of(struct rconn *c, const char *const *argv, int argc, char **raw)
{
    rconn_send_argv(c, argc, argv, NULL);
    *raw = rconn_read_reply(c, NULL);
    struct rv v;
    rv_parse(*raw, &v);
    return v;
}

static bool list_has(const struct rv *v, const char *s, size_t n)
{
    for (size_t i = 0; i < v->count; i++)
        if (v->elems[i].len == n && memcmp(v->elems[i].str, s, n) == 0) return true;
    return false;
}

/* goblin-core's filtered list = redis-server's restricted to the commands
 * goblin-core has (and its own commands Redis lacks are not in it). */
static void compare_filtered(const char *kind, const char *arg)
{
    const char *all[] = {"COMMAND", "LIST"};
    const char *filtered[] = {"COMMAND", "LIST", "FILTERBY", kind, arg};
    char *raw[4];
    struct rv g_all = list_of(&d.g, all, 2, &raw[0]), r_all = list_of(&d.r, all, 2, &raw[1]);
    struct rv g = list_of(&d.g, filtered, 5, &raw[2]), r = list_of(&d.r, filtered, 5, &raw[3]);
    for (size_t i = 0; i < r.count; i++)
        if (list_has(&g_all, r.elems[i].str, r.elems[i].len) &&
            !list_has(&g, r.elems[i].str, r.elems[i].len))
            fail("COMMAND LIST FILTERBY %s: goblin-core lacks one of redis-server's (%s)", kind,
                 arg);
    for (size_t i = 0; i < g.count; i++)
        if (!list_has(&r, g.elems[i].str, g.elems[i].len) &&
            list_has(&r_all, g.elems[i].str, g.elems[i].len))
            fail("COMMAND LIST FILTERBY %s: goblin-core lists one redis-server does not (%s)", kind,
                 arg);
    rv_free(&g_all);
    rv_free(&r_all);
    rv_free(&g);
    rv_free(&r);
    for (int i = 0; i < 4; i++) free(raw[i]);
}

static void command_list_cases(void)
{
    static const char *const categories[] = {
        "read",        "write",  "geo",       "keyspace",      "admin",      "dangerous",
        "fast",        "slow",   "sortedset", "scripting",     "connection", "pubsub",
        "hyperloglog", "bitmap", "GEO",       "nosuchcategory"};
    for (size_t i = 0; i < sizeof categories / sizeof categories[0]; i++)
        compare_filtered("ACLCAT", categories[i]);
    static const char *const patterns[] = {"geo*", "*|*", "client|*", "z?dd", "[gs]et", "*"};
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        compare_filtered("PATTERN", patterns[i]);
    C("COMMAND", "LIST", "FILTERBY", "MODULE", "anything");
    C("COMMAND", "LIST", "FILTERBY", "PATTERN");
    C("COMMAND", "LIST", "FILTERBY", "BOGUS", "x");
    C("COMMAND", "LIST", "FILTERBY", "PATTERN", "a", "b");
    C("COMMAND", "LIST", "FILTERBY");
    C("COMMAND", "LIST", "NOFILTER", "x", "y");
}

/* --- CONFIG: maxmemory-clients, key-load-delay, startup-only parameters -------------------- */

/* Sends what the peer takes; a peer that closed (evicted us) ends it. */
static void send_until_closed(struct rconn *c, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

/* A client sends most of a 2 MB argument; with the limit at 300kb both
 * servers close it (or keep it, with CLIENT NO-EVICT on). */
static void eviction_case(bool no_evict)
{
    struct rconn g, r;
    diff_open_extra(&d, &g, &r);
    /* The test's own connections are never the ones to go. */
    C("CLIENT", "NO-EVICT", "on");
    if (no_evict) {
        free(rconn_call(&g, "CLIENT", "NO-EVICT", "on", NULL));
        free(rconn_call(&r, "CLIENT", "NO-EVICT", "on", NULL));
    }
    C("CONFIG", "SET", "maxmemory-clients", "300kb");
    static char big[600000];
    memset(big, 'x', sizeof big);
    const char head[] = "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$2000000\r\n";
    send_until_closed(&g, head, sizeof head - 1);
    send_until_closed(&r, head, sizeof head - 1);
    send_until_closed(&g, big, sizeof big);
    send_until_closed(&r, big, sizeof big);
    bool g_closed = rconn_wait_closed(&g, 3000), r_closed = rconn_wait_closed(&r, 3000);
    if (g_closed != r_closed || g_closed == no_evict)
        fail("maxmemory-clients: goblin-core %s the client, redis-server %s it",
             g_closed ? "closed" : "kept", r_closed ? "closed" : "kept");
    C("CONFIG", "SET", "maxmemory-clients", "0");
    rconn_close(&g);
    rconn_close(&r);
}

static long long info_int(struct rconn *c, const char *field)
{
    char *raw = rconn_call(c, "INFO", "stats", NULL);
    const char *p = strstr(raw, field);
    long long v = p ? strtoll(p + strlen(field) + 1, NULL, 10) : -1;
    free(raw);
    return v;
}

static void config_cases(void)
{
    static const char *const values[] = {"10%", "101%", "1mb",     "abc",  "-5",
                                         "0%",  "150%", "1000000", "100%", "0"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        C("CONFIG", "SET", "maxmemory-clients", values[i]);
        C("CONFIG", "GET", "maxmemory-clients");
    }
    C("CONFIG", "RESETSTAT");
    eviction_case(false);
    if (info_int(&d.g, "evicted_clients") != 1 || info_int(&d.r, "evicted_clients") != 1)
        fail("evicted_clients is not 1 on both%s%s", "", "");
    eviction_case(true);
    if (info_int(&d.g, "evicted_clients") != 1) fail("a NO-EVICT client was evicted%s%s", "", "");
    C("CONFIG", "GET", "key-load-delay");
    static const char *const delays[] = {"5", "-5", "abc", "99999999999", "0"};
    for (size_t i = 0; i < sizeof delays / sizeof delays[0]; i++)
        C("CONFIG", "SET", "key-load-delay", delays[i]);
    /* Startup-only here; settable in Redis (to its value: a no-op) or not. */
    char *g = rconn_call(&d.g, "CONFIG", "GET", "databases", NULL);
    free(g);
    C("CONFIG", "SET", "databases", "16");
    C("CONFIG", "SET", "daemonize", "no");
    C("CONFIG", "SET", "rdbchecksum", "yes");
    C("CONFIG", "SET", "tcp-backlog", "511");
    C("CONFIG", "SET", "appendfilename", "appendonly.aof");
    C("CONFIG", "SET", "daemonize", "yes");
    char *gp = rconn_call(&d.g, "CONFIG", "GET", "cluster-announce-port", NULL);
    free(gp);
    C("CONFIG", "SET", "cluster-announce-port", "0");
    C("CONFIG", "SET", "cluster-announce-bus-port", "0");
}

static void run_all(void)
{
    info_cases();
    latency_histogram_cases();
    memory_cases();
    lolwut_cases();
    module_cases();
    command_list_cases();
    config_cases();
}

int main(void)
{
    unsigned long long seed = test_seed("diff_introspection");
    diff_start(&d, "diff_introspection", seed, NULL, NULL);
    run_all();
    diff_hello3(&d);
    resp3 = true;
    run_all();
    diff_stop(&d);
    return 0;
}
