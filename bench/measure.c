/*
 * measure.c — the timed depth-one loop; see measure.h.
 *
 * Timer: clock_gettime(CLOCK_MONOTONIC) (util/clock.h), not a calibrated
 * rdtscp. Reasons: it is read through the vDSO without a syscall (about
 * 20-30 ns on a TSC clocksource, well under 1% of a loopback round trip),
 * it has nanosecond resolution, it is already calibrated and corrected by
 * the kernel, and it is the same call on x86 and on Arm (the seeds' AWS run
 * used Graviton hosts, where rdtscp does not exist). rdtscp would save a few
 * nanoseconds per sample at the price of a calibration step, a dependency on
 * an invariant TSC and an x86-only code path. The clocksource in use is
 * recorded in the matrix metadata: on a machine whose clocksource is not
 * vDSO-capable (e.g. "xen", "acpi_pm") every read is a syscall and the
 * numbers must be read with that in mind.
 *
 * One sample is one depth-one round trip: the clock starts before the
 * request is handed to the transport and stops after the complete reply has
 * been received and compared with the expected bytes (for PUBSUB: after the
 * publisher's reply and the subscriber's validated delivery). Nothing is
 * allocated in the loop; requests and expected replies are prepared bytes.
 */
#include "measure.h"

#include <stdio.h>
#include <string.h>

#include "util/clock.h"

/* Diagnostics render at most this much of each side. */
#define RENDER_CAP 2048

static void print_bytes(const struct bench_wire *wire, const char *label, const char *raw,
                        size_t len)
{
    char text[RENDER_CAP];
    wire->render(raw, len, text, sizeof text);
    /* The renderer stops a few bytes short of a full buffer. */
    bool truncated = strlen(text) + 6 >= sizeof text;
    fprintf(stderr, "  %s (%zu bytes): \"%s\"%s\n", label, len, text,
            truncated ? " (truncated)" : "");
}

/* Names operation k of a distribution: "warmup operation 12 of 20000" or
 * "measured sample 7 of 200000" (0-based indexes). */
static void print_position(const struct bench_measure_args *args, uint64_t k)
{
    if (k < args->warmup)
        fprintf(stderr, "warmup operation %llu of %llu", (unsigned long long)k,
                (unsigned long long)args->warmup);
    else
        fprintf(stderr, "measured sample %llu of %llu", (unsigned long long)(k - args->warmup),
                (unsigned long long)args->samples);
}

static int fail_transport(const struct bench_measure_args *args, uint64_t k,
                          const struct bench_conn *conn, const char *which)
{
    fprintf(stderr, "%sgoblin-bench: %s: ", args->progress ? "\n" : "", bench_op_name(args->op));
    print_position(args, k);
    fprintf(stderr, ": %s connection: %s\n", which, conn->error);
    return -1;
}

static int fail_mismatch(const struct bench_measure_args *args, uint64_t k,
                         const struct bench_conn *conn, const char *which, const char *expected,
                         size_t expected_len)
{
    fprintf(stderr, "%sgoblin-bench: %s: reply mismatch at ", args->progress ? "\n" : "",
            bench_op_name(args->op));
    print_position(args, k);
    fprintf(stderr, " (%s connection)\n", which);
    print_bytes(args->wire, "expected", expected, expected_len);
    /* Everything received, including bytes after the reply: at depth one
     * nothing may follow it. */
    print_bytes(args->wire, "received", conn->rx, conn->rx_len);
    return -1;
}

/* The reply framed at conn->rx[0..n) is exactly `expected` and nothing else
 * was received. */
static inline bool reply_matches(const struct bench_conn *conn, long long n, const char *expected,
                                 size_t expected_len)
{
    return (size_t)n == expected_len && conn->rx_len == expected_len &&
           memcmp(conn->rx, expected, expected_len) == 0;
}

/* Progress on stderr: the op, the phase and a percentage, redrawn at each
 * whole percent between samples (never inside a timed region). */
struct progress {
    bool enabled;
    uint64_t total;
    uint64_t next; /* operation index of the next redraw */
    unsigned percent;
};

static void progress_draw(struct progress *p, const struct bench_measure_args *args, uint64_t k)
{
    p->percent = (unsigned)(k * 100 / p->total);
    fprintf(stderr, "\r%-7s %-8s %3u%%", bench_op_name(args->op),
            k < args->warmup ? "warmup" : "measure", p->percent);
    fflush(stderr);
    p->next = ((uint64_t)p->percent + 1) * p->total / 100;
    if (p->next <= k) p->next = k + 1;
}

int bench_measure(const struct bench_measure_args *args)
{
    const struct bench_plan *plan = args->plan;
    struct bench_conn *conn = args->conn, *sub = args->sub;
    const bench_frame_fn frame = args->wire->frame;
    const uint64_t total = args->warmup + args->samples;
    struct progress progress = {.enabled = args->progress, .total = total, .next = 0};

    static struct bench_step generated;
    for (uint64_t k = 0; k < total; k++) {
        const struct bench_step *step = &plan->steps[(plan->first + k) % plan->count];
        if (plan->generated != BENCH_OP_COUNT) { /* built before the clock starts */
            if (bench_plan_step(plan, k, &generated) < 0) return -1;
            step = &generated;
        }

        uint64_t t0 = (uint64_t)clock_mono_ns();
        if (conn->transport->send(conn, step->request, step->request_len) != 0)
            return fail_transport(args, k, conn, "request");
        long long n = bench_conn_read_replies(conn, frame, step->replies ? step->replies : 1);
        if (n < 0) return fail_transport(args, k, conn, "request");
        bool ok = reply_matches(conn, n, step->reply, step->reply_len);
        long long delivered = 0;
        bool delivery_ok = true;
        if (ok && step->delivery_len) {
            delivered = bench_conn_read_reply(sub, frame);
            if (delivered < 0) return fail_transport(args, k, sub, "subscriber");
            delivery_ok = reply_matches(sub, delivered, step->delivery, step->delivery_len);
        }
        uint64_t t1 = (uint64_t)clock_mono_ns();

        if (!ok) return fail_mismatch(args, k, conn, "request", step->reply, step->reply_len);
        if (!delivery_ok)
            return fail_mismatch(args, k, sub, "subscriber", step->delivery, step->delivery_len);
        conn->rx_len = 0; /* reply_matches() saw exactly one reply and nothing after it */
        if (sub) sub->rx_len = 0;
        if (k >= args->warmup) args->samples_ns[k - args->warmup] = t1 - t0;
        if (progress.enabled && k >= progress.next) progress_draw(&progress, args, k);
    }
    if (progress.enabled) fprintf(stderr, "\r\033[K"); /* erase the progress line */
    return 0;
}

int bench_expect(struct bench_conn *conn, const struct bench_wire *wire, const char *what,
                 const char *expected, size_t expected_len)
{
    long long n = bench_conn_read_reply(conn, wire->frame);
    if (n < 0) {
        fprintf(stderr, "goblin-bench: %s: %s\n", what, conn->error);
        return -1;
    }
    bool ok = expected ? (size_t)n == expected_len && memcmp(conn->rx, expected, expected_len) == 0
                       : !wire->is_error(conn->rx, (size_t)n);
    if (!ok) {
        fprintf(stderr, "goblin-bench: %s: unexpected reply\n", what);
        if (expected) print_bytes(wire, "expected", expected, expected_len);
        print_bytes(wire, "received", conn->rx, (size_t)n);
        return -1;
    }
    bench_conn_consume(conn, (size_t)n);
    return 0;
}

int bench_call(struct bench_conn *conn, const struct bench_wire *wire, const char *what, int argc,
               const char *const *argv, const char *expected, size_t expected_len)
{
    char request[4096];
    size_t lens[64];
    if (argc > 64) return -1;
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    int len = wire->encode_command(request, sizeof request, argc, argv, lens);
    if (len < 0) {
        fprintf(stderr, "goblin-bench: %s: request too large\n", what);
        return -1;
    }
    if (conn->transport->send(conn, request, (size_t)len) != 0) {
        fprintf(stderr, "goblin-bench: %s: %s\n", what, conn->error);
        return -1;
    }
    return bench_expect(conn, wire, what, expected, expected_len);
}
