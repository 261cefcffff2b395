/* conn_output.c — a conn's output flow control: the backpressured state
 * (not executing, still reading) and client-output-buffer-limit. Contract
 * in conn.h, "Flow control" and "Output limits". */
#include "connection/conn.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

#include "util/xmalloc.h"
#include "util/numparse.h"
#include "core/config.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/stats.h"

void conn_backpressure_enter(struct conn *c)
{
    if (c->flags & CONN_OUTPUT_BACKPRESSURED) return;
    c->flags |= CONN_OUTPUT_BACKPRESSURED;
    conn_update_interest(c); /* writability is what releases it */
}

/* Hysteresis: resume at half the mark, so a peer draining slowly costs one
 * transition per half-mark of output, not one per reply. */
bool conn_backpressure_release(struct conn *c)
{
    if (!(c->flags & CONN_OUTPUT_BACKPRESSURED)) return false;
    if (buf_len(&c->out) >= CONN_OUTPUT_BACKPRESSURE / 2 || buf_len(&c->push_fifo) > 0)
        return false;
    c->flags &= ~CONN_OUTPUT_BACKPRESSURED;
    conn_update_interest(c);
    return true;
}

static enum output_limit_class conn_output_class(const struct conn *c)
{
    /* Redis's getClientType: a replica's link, else pubsub (subscribed in
     * either protocol), else normal. */
    if (c->flags & CONN_REPLICA) return OUTPUT_LIMIT_REPLICA;
    return pubsub_total_subscription_count(&c->pubsub) > 0 || (c->flags & CONN_MONITOR)
               ? OUTPUT_LIMIT_PUBSUB /* a monitor is bounded like a subscriber */
               : OUTPUT_LIMIT_NORMAL;
}

/* Redis's checkClientOutputBufferLimits: the hard limit at once; the soft
 * one when it has held since more than soft_seconds ago (the clock starts at
 * the first check above it and resets at the first check below). */
bool conn_output_limit_check(struct conn *c)
{
    const struct output_limit *l = &config.output_limits[conn_output_class(c)];
    if (!l->hard && !l->soft) return false; /* this class has no limits (normal by default) */
    size_t used = conn_output_bytes(c);
    if (l->hard && used >= l->hard) return true;
    if (!l->soft || used < l->soft) {
        c->output_soft_limit_since_ms = 0;
        return false;
    }
    int64_t now = clock_unix_ms_coarse();
    if (!c->output_soft_limit_since_ms) {
        c->output_soft_limit_since_ms = now;
        return false;
    }
    return now - c->output_soft_limit_since_ms > l->soft_seconds * 1000;
}

void conn_drop_over_output_limit(struct conn *c)
{
    static struct log_limiter limiter;
    static const char *const class_names[] = {"normal", "replica", "pubsub"};
    stats.output_buffer_limit_disconnections++;
    log_warning_limited(&limiter,
                        "Client id=%llu addr=%s closed for overcoming of output buffer limits "
                        "(%zu bytes pending, class %s; client-output-buffer-limit)",
                        (unsigned long long)c->id, c->addr, conn_output_bytes(c),
                        class_names[conn_output_class(c)]);
    conn_close(c, NULL);
}

/* Recomputes config.output_limit_floor after output_limits changed. */
static void output_limits_derive_floor(void)
{
    unsigned long long floor = ULLONG_MAX;
    for (int k = 0; k < OUTPUT_LIMIT_CLASSES; k++) {
        const struct output_limit *l = &config.output_limits[k];
        if (l->hard && l->hard < floor) floor = l->hard;
        if (l->soft && l->soft < floor) floor = l->soft;
    }
    config.output_limit_floor = floor;
}

/* client-output-buffer-limit "<class> <hard> <soft> <soft seconds>" ...:
 * every class named is replaced, the others are kept; nothing changes when
 * any group is invalid. Errors are Redis's texts. */
static bool output_limits_parse(const char *const *values, struct config_error *err)
{
    static const char *const class_names[] = {"normal", "slave", "replica", "pubsub"};
    static const enum output_limit_class class_of[] = {OUTPUT_LIMIT_NORMAL, OUTPUT_LIMIT_REPLICA,
                                                       OUTPUT_LIMIT_REPLICA, OUTPUT_LIMIT_PUBSUB};
    struct output_limit next[OUTPUT_LIMIT_CLASSES];
    memcpy(next, config.output_limits, sizeof next);
    char *text = xstrdup(values[0]);
    char *words[4], *save = NULL;
    int count = 0;
    const char *why = NULL;
    for (char *w = strtok_r(text, " ", &save); w && !why; w = strtok_r(NULL, " ", &save)) {
        words[count++] = w;
        if (count < 4) continue;
        count = 0;
        size_t k = 0;
        while (k < 4 && strcasecmp(words[0], class_names[k]) != 0) k++;
        if (k == 4) {
            why = "Invalid client class specified in buffer limit configuration.";
            break;
        }
        unsigned long long hard, soft;
        long long seconds;
        if (!num_parse_memory(words[1], strlen(words[1]), &hard) ||
            !num_parse_memory(words[2], strlen(words[2]), &soft) ||
            !num_parse_ll(words[3], strlen(words[3]), &seconds) || seconds < 0) {
            why = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
            break;
        }
        next[class_of[k]] = (struct output_limit){hard, soft, seconds};
    }
    if (!why && count != 0) why = "Wrong number of arguments in buffer limit configuration.";
    xfree(text);
    if (why) return config_fail(err, "%s", why);
    memcpy(config.output_limits, next, sizeof next);
    output_limits_derive_floor();
    return true;
}

static void output_limits_render(struct buf *out)
{
    static const char *const shown[] = {"normal", "slave", "pubsub"};
    for (int k = 0; k < OUTPUT_LIMIT_CLASSES; k++) {
        const struct output_limit *l = &config.output_limits[k];
        buf_append_fmt(out, "%s%s %llu %llu %lld", k ? " " : "", shown[k], l->hard, l->soft,
                       l->soft_seconds);
    }
}

/* Redis's defaults: replicas 256mb hard, 64mb for 60 s; Pub/Sub 32mb, 8mb for 60 s. */
static void output_limits_defaults(void)
{
    config.output_limits[OUTPUT_LIMIT_NORMAL] = (struct output_limit){0, 0, 0};
    config.output_limits[OUTPUT_LIMIT_REPLICA] =
        (struct output_limit){256ULL * 1024 * 1024, 64ULL * 1024 * 1024, 60};
    config.output_limits[OUTPUT_LIMIT_PUBSUB] =
        (struct output_limit){32ULL * 1024 * 1024, 8ULL * 1024 * 1024, 60};
    output_limits_derive_floor();
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param conn_output_params[] = {
    {.name = "unsolicited-output-buffer-bytes",
     .kind = CFG_MEMORY,
     .value = &config.unsolicited_output_buffer_bytes,
     .max = 1LL << 30,
     .value_name = "BYTES",
     .help =
         "0 (default): Pub/Sub backlog grows as needed up to the pubsub output limit; N: a fixed, "
         "prefaulted FIFO of N bytes (whole pages), no allocation on delivery, but a subscriber "
         "whose next message does not fit is disconnected; applies to clients subscribing later"},
    {.name = "client-output-buffer-limit",
     .kind = CFG_CUSTOM,
     .flags = CFG_MULTI_ARG,
     .value_name = "'CLASS HARD SOFT SECONDS ...'",
     .help = "limits on a client's pending output by class (normal, replica, pubsub), as Redis "
             "(default 'normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60')",
     .parse = output_limits_parse,
     .render = output_limits_render},
};

const struct config_table conn_output_config =
    CONFIG_TABLE(conn_output_params, output_limits_defaults);
