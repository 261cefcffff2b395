/* conn_output.c — a conn's output flow control: the backpressured state
 * (not executing, still reading) and client-output-buffer-limit. Contract
 * in conn.h, "Flow control" and "Output limits". */
#include "connection/conn.h"
#include "server/config.h"
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
