/* goblin-wake-latency — the cost of a server's sleep with polled targets
 * (core/event_loop.h, "Idling"): the PING round trip of the first request
 * after GAP ms of silence (the server asleep when the gap exceeds its
 * --idle-sleep-ms) against back-to-back PINGs (the server spinning), over
 * a ring or a libfabric provider. Prints one line of microseconds each:
 *
 *   wake_us: <COUNT samples>
 *   spin_us: <SAMPLES samples>
 *
 * Usage: goblin-wake-latency (--ring PATH | --fabric PROVIDER --port P)
 *        [--gap-ms G] [--count N] [--samples S] [--cpu K]
 * bench/idle.sh runs it and records the results (docs/benchmarks/). */
#include <errno.h>
#include <goblin/fabric_client.h>
#include <goblin/ring_client.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct goblin_ring *ring;
static struct goblin_fabric *fabric;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* One PING and its +PONG; the round trip in microseconds. */
static double ping_us(void)
{
    static const char *const argv[] = {"PING"};
    const char *reply;
    long long t0 = now_ns();
    ssize_t n;
    if (ring) {
        if (goblin_ring_send_command(ring, 1, argv, NULL) != 0) goto failed;
        n = goblin_ring_read_reply(ring, &reply, 10 * 1000000LL);
    } else {
        if (goblin_fabric_send_command(fabric, 1, argv, NULL) != 0) goto failed;
        n = goblin_fabric_read_reply(fabric, &reply, 10 * 1000000LL);
    }
    if (n != 7 || memcmp(reply, "+PONG\r\n", 7) != 0) goto failed;
    return (double)(now_ns() - t0) / 1000.0;
failed:
    fprintf(stderr, "goblin-wake-latency: PING failed\n");
    exit(1);
}

static void usage(void)
{
    fprintf(stderr, "usage: goblin-wake-latency (--ring PATH | --fabric PROVIDER --port P) "
                    "[--gap-ms G] [--count N] [--samples S] [--cpu K]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *ring_path = NULL, *provider = NULL;
    int port = 0, gap_ms = 300, count = 30, samples = 20000, cpu = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage();
        if (strcmp(a, "--ring") == 0)
            ring_path = v;
        else if (strcmp(a, "--fabric") == 0)
            provider = v;
        else if (strcmp(a, "--port") == 0)
            port = atoi(v);
        else if (strcmp(a, "--gap-ms") == 0)
            gap_ms = atoi(v);
        else if (strcmp(a, "--count") == 0)
            count = atoi(v);
        else if (strcmp(a, "--samples") == 0)
            samples = atoi(v);
        else if (strcmp(a, "--cpu") == 0)
            cpu = atoi(v);
        else
            usage();
        i++;
    }
    if (!ring_path == !provider || count < 1 || samples < 1) usage();
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    int rc;
    char err[256] = "";
    if (ring_path)
        rc = goblin_ring_open(ring_path, 10000, &ring);
    else
        rc = goblin_fabric_connect(provider, "127.0.0.1", port, NULL, &fabric, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "goblin-wake-latency: connect: %s %s\n", strerror(-rc), err);
        return 1;
    }
    for (int i = 0; i < 1000; i++) ping_us(); /* warm-up */
    printf("spin_us:");
    for (int i = 0; i < samples; i++) printf(" %.2f", ping_us());
    printf("\nwake_us:");
    for (int i = 0; i < count; i++) {
        usleep((useconds_t)gap_ms * 1000);
        printf(" %.2f", ping_us());
    }
    printf("\n");
    if (ring) goblin_ring_close(ring);
    if (fabric) goblin_fabric_close(fabric);
    return 0;
}
