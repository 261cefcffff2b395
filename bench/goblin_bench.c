/*
 * goblin_bench.c — goblin-bench, the depth-one request/reply latency client.
 *
 * Implements the seeds' method (DESIGN.md §4; seeds 001 and 002, "Method"):
 * one persistent connection (plus a subscriber connection for PUBSUB), set
 * up outside every timed region; fixtures seeded by the tool; for each
 * operation in turn, --warmup unmeasured then --samples measured depth-one
 * round trips; every reply of warmup and measurement validated against the
 * exact expected bytes; every sample kept and summarized (stats.h). Works
 * against any RESP server, so redis-server is measured with the same client
 * and the same timer as goblin-core.
 *
 * Exit status: 0 on success, 1 when a measurement failed (mismatch,
 * transport error: the message names the op and the operation index), 2 on
 * a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure.h"
#include "ops.h"
#include "output.h"
#include "stats.h"
#include "transport.h"
#include "wire.h"

struct options {
    const char *transport;
    const char *wire;
    const char *send_mode;
    const char *ops;
    unsigned long long samples;
    unsigned long long warmup;
    const char *label;
    const char *server_name;
    int cpu;
    struct bench_target target;
    const char *csv_path;
    const char *password; /* AUTH after connecting (the SBE Auth template on --wire sbe) */
    const char *user;
};

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: goblin-bench [options]\n"
        "Depth-one request/reply latency of a RESP server (goblin-core, redis-server, ...).\n"
        "\n"
        "  --transport NAME    %s (default tcp)\n"
        "  --wire NAME         resp or sbe (default resp; sbe needs goblin-core --enable-sbe)\n"
        "  --send-mode MODE    send policy, for transports that have them\n"
        "  --ops LIST          comma-separated, default %s;\n"
        "                      ECHO measures an echo server (goblin-echo-floor);\n"
        "                      MULTI: MULTI, SET, GET, EXEC in one write;\n"
        "                      EVALSHA, EVAL, FCALL: a one-call script / function doing GET\n"
        "  --samples N         measured operations per op (default 200000)\n"
        "  --warmup N          unmeasured operations before them (default 20000)\n"
        "  --label TEXT        configuration name in the output (default server-transport-wire)\n"
        "  --server-name NAME  the CSV \"server\" column (default unknown)\n"
        "  --cpu K             pin the client to CPU K\n"
        "  --host ADDR         tcp: server address; fabric: bootstrap address (default 127.0.0.1)\n"
        "  --port P            tcp: server port; fabric: bootstrap port (default 6379)\n"
        "  --provider NAME     fabric: libfabric provider ('tcp;ofi_rxm', shm, efa, ...)\n"
        "  --local-address A   fabric: the client endpoint's address\n"
        "  --socket PATH       unix: server socket path\n"
        "  --ring PATH         ring: a ring file per connection (repeat: PUBSUB needs two)\n"
        "  --ring-pool DIR     ring: claim rings from a --ring-pool directory\n"
        "  --timeout MS        fail when a reply takes longer (default 10000)\n"
        "  --csv FILE          also write the results as CSV\n"
        "  -a, --password PASS authenticate each connection before anything else (AUTH;\n"
        "                      over --wire sbe the Auth template), outside every timed region\n"
        "  --user NAME         ... as this user (default: the default user)\n"
        "  --help              this text\n"
        "\n"
        "The seeds' positional form is accepted too:\n"
        "  goblin-bench fabric-sbe|fabric-resp PROVIDER SERVER_ADDR PORT CLIENT_ADDR LABEL\n"
        "               SAMPLES WARMUP auto|send\n"
        "\n"
        "The table goes to stdout; progress to stderr when it is a terminal.\n"
        "Exit status: 0 ok, 1 measurement failed (reply mismatch, connection), 2 usage.\n",
        bench_transport_names(), BENCH_OPS_DEFAULT);
}

static void usage_error(const char *fmt, const char *value)
{
    fprintf(stderr, "goblin-bench: ");
    fprintf(stderr, fmt, value);
    fprintf(stderr, "\n(see goblin-bench --help)\n");
    exit(2);
}

static unsigned long long parse_count(const char *flag, const char *text, unsigned long long max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v > max) {
        fprintf(stderr, "goblin-bench: %s: '%s' is not a number in 0..%llu\n", flag, text, max);
        exit(2);
    }
    return v;
}

/* CSV fields are written unquoted: refuse what would need quoting. */
static void check_csv_text(const char *flag, const char *text)
{
    if (text[0] == '\0' || strpbrk(text, ",\"\r\n")) {
        fprintf(stderr,
                "goblin-bench: %s: '%s' must be non-empty and without commas, quotes or "
                "newlines\n",
                flag, text);
        exit(2);
    }
}

/* The seeds' form, `goblin-bench fabric-sbe|fabric-resp PROVIDER SERVER_ADDR
 * PORT CLIENT_ADDR LABEL SAMPLES WARMUP auto|send`, rewritten as flags. */
static char **positional_to_flags(int *argc, char **argv)
{
    if (*argc < 2 || strncmp(argv[1], "fabric-", 7) != 0) return argv;
    if (*argc != 10)
        usage_error("%s: expected PROVIDER SERVER_ADDR PORT CLIENT_ADDR LABEL SAMPLES WARMUP "
                    "auto|send",
                    argv[1]);
    static char *flags[32];
    int n = 0;
    flags[n++] = argv[0];
    const char *const names[] = {"--provider", "--host",    "--port",   "--local-address",
                                 "--label",    "--samples", "--warmup", "--send-mode"};
    for (int i = 0; i < 8; i++) {
        flags[n++] = (char *)names[i];
        flags[n++] = argv[2 + i];
    }
    flags[n++] = (char *)"--transport";
    flags[n++] = (char *)"fabric";
    flags[n++] = (char *)"--wire";
    flags[n++] = argv[1] + 7; /* sbe or resp */
    flags[n] = NULL;
    *argc = n;
    return flags;
}

static void parse_options(int argc, char **argv, struct options *o)
{
    argv = positional_to_flags(&argc, argv);
    enum {
        OPT_TRANSPORT = 256,
        OPT_WIRE,
        OPT_SEND_MODE,
        OPT_OPS,
        OPT_SAMPLES,
        OPT_WARMUP,
        OPT_LABEL,
        OPT_SERVER_NAME,
        OPT_CPU,
        OPT_HOST,
        OPT_PORT,
        OPT_SOCKET,
        OPT_RING,
        OPT_RING_POOL,
        OPT_PROVIDER,
        OPT_LOCAL_ADDRESS,
        OPT_TIMEOUT,
        OPT_CSV,
        OPT_USER,
        OPT_HELP
    };
    static const struct option longopts[] = {
        {"transport", required_argument, NULL, OPT_TRANSPORT},
        {"wire", required_argument, NULL, OPT_WIRE},
        {"send-mode", required_argument, NULL, OPT_SEND_MODE},
        {"ops", required_argument, NULL, OPT_OPS},
        {"samples", required_argument, NULL, OPT_SAMPLES},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"label", required_argument, NULL, OPT_LABEL},
        {"server-name", required_argument, NULL, OPT_SERVER_NAME},
        {"cpu", required_argument, NULL, OPT_CPU},
        {"host", required_argument, NULL, OPT_HOST},
        {"port", required_argument, NULL, OPT_PORT},
        {"socket", required_argument, NULL, OPT_SOCKET},
        {"ring", required_argument, NULL, OPT_RING},
        {"ring-pool", required_argument, NULL, OPT_RING_POOL},
        {"provider", required_argument, NULL, OPT_PROVIDER},
        {"local-address", required_argument, NULL, OPT_LOCAL_ADDRESS},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"csv", required_argument, NULL, OPT_CSV},
        {"password", required_argument, NULL, 'a'},
        {"user", required_argument, NULL, OPT_USER},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){
        .transport = "tcp",
        .wire = "resp",
        .ops = BENCH_OPS_DEFAULT,
        .samples = 200000,
        .warmup = 20000,
        .server_name = "unknown",
        .cpu = -1,
        .target = {.host = "127.0.0.1", .port = 6379, .timeout_ms = 10000},
    };
    int c;
    while ((c = getopt_long(argc, argv, "a:", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_TRANSPORT:
            o->transport = optarg;
            break;
        case OPT_WIRE:
            o->wire = optarg;
            break;
        case OPT_SEND_MODE:
            o->send_mode = optarg;
            break;
        case OPT_OPS:
            o->ops = optarg;
            break;
        /* 2^32 samples of 8 bytes = 32 GiB: a generous sanity bound. */
        case OPT_SAMPLES:
            o->samples = parse_count("--samples", optarg, 1ull << 32);
            break;
        case OPT_WARMUP:
            o->warmup = parse_count("--warmup", optarg, 1ull << 40);
            break;
        case OPT_LABEL:
            o->label = optarg;
            break;
        case OPT_SERVER_NAME:
            o->server_name = optarg;
            break;
        case OPT_CPU:
            o->cpu = (int)parse_count("--cpu", optarg, CPU_SETSIZE - 1);
            break;
        case OPT_HOST:
            o->target.host = optarg;
            break;
        case OPT_PORT:
            o->target.port = (int)parse_count("--port", optarg, 65535);
            break;
        case OPT_SOCKET:
            o->target.socket_path = optarg;
            break;
        case OPT_RING:
            if (o->target.ring_count == 4) usage_error("--ring given more than 4 times%s", "");
            o->target.ring_paths[o->target.ring_count++] = optarg;
            break;
        case OPT_RING_POOL:
            o->target.ring_pool = optarg;
            break;
        case OPT_PROVIDER:
            o->target.provider = optarg;
            break;
        case OPT_LOCAL_ADDRESS:
            o->target.local_address = optarg;
            break;
        case OPT_TIMEOUT:
            o->target.timeout_ms = (int)parse_count("--timeout", optarg, 86400000);
            break;
        case OPT_CSV:
            o->csv_path = optarg;
            break;
        case 'a':
            o->password = optarg;
            break;
        case OPT_USER:
            o->user = optarg;
            break;
        case OPT_HELP:
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            exit(2);
        }
    }
    if (optind < argc) usage_error("unexpected argument '%s'", argv[optind]);
    if (o->samples == 0) usage_error("--samples must be at least 1%s", "");
    if (o->target.timeout_ms == 0) usage_error("--timeout must be at least 1 ms%s", "");
    check_csv_text("--server-name", o->server_name);
    if (o->label) check_csv_text("--label", o->label);
}

/* Picks the send mode: the transport's default, or the one asked for if the
 * transport offers it. Returns what the CSV records. */
static const char *resolve_send_mode(const struct bench_transport *t, const char *wanted)
{
    if (!t->send_modes) {
        if (wanted) usage_error("--send-mode: transport has no send modes (given '%s')", wanted);
        return "na";
    }
    if (!wanted) return t->send_modes[0];
    for (int i = 0; t->send_modes[i]; i++)
        if (strcmp(t->send_modes[i], wanted) == 0) return t->send_modes[i];
    usage_error("--send-mode: '%s' is not offered by this transport", wanted);
    return NULL;
}

static void pin_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "goblin-bench: --cpu %d: sched_setaffinity: %s\n", cpu, strerror(errno));
        exit(2);
    }
}

static struct bench_conn *open_conn(const struct bench_transport *t, const struct options *o,
                                    const struct bench_wire *wire, const char *what)
{
    const struct bench_target *target = &o->target;
    struct bench_conn *conn = malloc(sizeof *conn);
    if (!conn) {
        fprintf(stderr, "goblin-bench: out of memory\n");
        exit(1);
    }
    if (bench_conn_open(conn, t, target) != 0) {
        fprintf(stderr, "goblin-bench: %s connection (%s): %s\n", what, t->name, conn->error);
        exit(1);
    }
    if (wire->handshake && t->send(conn, wire->handshake, strlen(wire->handshake)) != 0) {
        fprintf(stderr, "goblin-bench: %s connection (%s): handshake: %s\n", what, t->name,
                conn->error);
        exit(1);
    }
    if (o->password) {
        /* Once per connection, before the fixtures: not in any timed region. */
        char expected[64];
        int n = wire->encode_status(expected, sizeof expected, "OK");
        const char *auth[] = {"AUTH", o->user ? o->user : o->password, o->password};
        if (bench_call(conn, wire, "AUTH", o->user ? 3 : 2, auth, expected, (size_t)n) != 0)
            exit(1);
    }
    return conn;
}

/* What lasts across the distributions of one run. */
struct run {
    const struct options *o;
    const struct bench_transport *transport;
    const struct bench_wire *wire;
    struct bench_run_meta meta;
    struct bench_conn *conn; /* requests (and PUBLISH) */
    struct bench_conn *sub;  /* the subscriber, once PUBSUB needs it */
    struct bench_fixture_state state;
    bool seeded[BENCH_FIXTURE_COUNT];
    bool script_loaded;   /* EVALSHA's and EVAL's script */
    bool library_loaded;  /* FCALL's library */
    uint64_t *samples_ns; /* o->samples entries, reused by every op */
    FILE *csv;
    bool progress;
};

/* Untimed setup before op's distribution: seeds its fixture, or connects
 * and subscribes the subscriber, the first time an op needs them. Doing it
 * per op rather than all up front lets a server that lacks a type or
 * Pub/Sub still have the ops before it measured. */
static int run_prepare(struct run *r, enum bench_op_id op)
{
    enum bench_fixture fixture = bench_op_fixture(op);
    if (fixture != BENCH_FIXTURE_NONE && !r->seeded[fixture]) {
        if (bench_fixture_seed(r->conn, r->wire, fixture, &r->state) != 0) {
            fprintf(stderr, "goblin-bench: %s: could not seed its fixture\n", bench_op_name(op));
            return -1;
        }
        r->seeded[fixture] = true;
    }
    if ((op == BENCH_OP_EVALSHA || op == BENCH_OP_EVAL) && !r->script_loaded) {
        if (bench_script_load(r->conn, r->wire, op) != 0) return -1;
        r->script_loaded = true;
    }
    if (op == BENCH_OP_FCALL && !r->library_loaded) {
        if (bench_script_load(r->conn, r->wire, op) != 0) return -1;
        r->library_loaded = true;
    }
    if (bench_op_needs_subscriber(op) && !r->sub) {
        r->sub = open_conn(r->transport, r->o, r->wire, "subscriber");
        if (bench_subscriber_start(r->sub, r->wire) != 0) return -1;
    }
    return 0;
}

/* One distribution: prepare, measure, summarize, print and write it. */
static int run_op(struct run *r, enum bench_op_id op)
{
    if (run_prepare(r, op) != 0) return -1;
    struct bench_plan plan;
    if (bench_plan_build(op, r->wire, &r->state, &plan) != 0) {
        fprintf(stderr, "goblin-bench: %s: request or reply too large\n", bench_op_name(op));
        return -1;
    }
    struct bench_measure_args args = {
        .op = op,
        .plan = &plan,
        .wire = r->wire,
        .conn = r->conn,
        .sub = bench_op_needs_subscriber(op) ? r->sub : NULL,
        .warmup = r->o->warmup,
        .samples = r->o->samples,
        .samples_ns = r->samples_ns,
        .progress = r->progress,
    };
    if (bench_measure(&args) != 0) return -1;
    bench_fixture_advance(op, &plan, r->o->warmup + r->o->samples, &r->state);
    struct bench_summary summary;
    bench_summarize(r->samples_ns, r->o->samples, &summary);
    bench_table_write_row(stdout, bench_op_name(op), &summary);
    if (r->csv) bench_csv_write_row(r->csv, &r->meta, bench_op_name(op), &summary);
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    parse_options(argc, argv, &o);
    struct run r = {.o = &o, .progress = isatty(STDERR_FILENO)};
    r.state.per_op = o.warmup + o.samples;

    r.transport = bench_transport_find(o.transport);
    if (!r.transport) usage_error("--transport: unknown transport '%s'", o.transport);
    r.wire = bench_wire_find(o.wire);
    if (!r.wire) usage_error("--wire: unknown wire '%s' (known: resp, sbe)", o.wire);
    bool is_unix = strcmp(r.transport->name, "unix") == 0;
    if (is_unix && !o.target.socket_path) usage_error("--transport unix needs --socket PATH%s", "");
    if (!is_unix && o.target.socket_path)
        usage_error("--socket applies to --transport unix (transport is '%s')", r.transport->name);
    bool is_ring = strcmp(r.transport->name, "ring") == 0;
    if (is_ring && !o.target.ring_count && !o.target.ring_pool)
        usage_error("--transport ring needs --ring PATH (twice for PUBSUB) or --ring-pool DIR%s",
                    "");
    if (!is_ring && (o.target.ring_count || o.target.ring_pool))
        usage_error("--ring/--ring-pool apply to --transport ring (transport is '%s')",
                    r.transport->name);
    const char *send_mode = resolve_send_mode(r.transport, o.send_mode);
    o.target.send_mode = send_mode;
    bool is_fabric = strcmp(r.transport->name, "fabric") == 0;
    if (is_fabric && !o.target.provider)
        usage_error("--transport fabric needs --provider NAME%s", "");
    if (!is_fabric && (o.target.provider || o.target.local_address))
        usage_error("--provider/--local-address apply to --transport fabric (transport is '%s')",
                    r.transport->name);

    enum bench_op_id ops[BENCH_OP_COUNT];
    char err[256];
    int op_count = bench_ops_parse(o.ops, ops, err, sizeof err);
    if (op_count < 0) usage_error("%s", err);

    char default_label[256];
    if (!o.label) {
        bool modes = r.transport->send_modes != NULL;
        snprintf(default_label, sizeof default_label, "%s-%s-%s%s%s", o.server_name,
                 r.transport->name, r.wire->name, modes ? "-" : "", modes ? send_mode : "");
        o.label = default_label;
    }
    r.meta = (struct bench_run_meta){
        .label = o.label,
        .server = o.server_name,
        .transport = r.transport->name,
        .wire = r.wire->name,
        .send_mode = send_mode,
        .warmup = o.warmup,
    };

    if (o.cpu >= 0) pin_cpu(o.cpu);

    /* Every sample is kept. The array is written once here so no page
     * fault lands inside a timed region. */
    r.samples_ns = malloc(o.samples * sizeof *r.samples_ns);
    if (!r.samples_ns) {
        fprintf(stderr, "goblin-bench: cannot allocate %llu samples\n", o.samples);
        return 1;
    }
    memset(r.samples_ns, 0, o.samples * sizeof *r.samples_ns);

    if (o.csv_path) {
        r.csv = fopen(o.csv_path, "w");
        if (!r.csv) {
            fprintf(stderr, "goblin-bench: --csv %s: %s\n", o.csv_path, strerror(errno));
            return 2;
        }
        bench_csv_write_header(r.csv);
    }

    /* The request connection is set up once, before any timing. */
    r.conn = open_conn(r.transport, &o, r.wire, "request");
    bench_table_write_header(stdout, &r.meta);
    int status = 0;
    for (int i = 0; i < op_count && status == 0; i++)
        if (run_op(&r, ops[i]) != 0) status = 1;

    if (r.csv && fclose(r.csv) != 0) {
        fprintf(stderr, "goblin-bench: --csv %s: %s\n", o.csv_path, strerror(errno));
        status = 1;
    }
    if (r.sub) bench_conn_close(r.sub);
    bench_conn_close(r.conn);
    free(r.sub);
    free(r.conn);
    free(r.samples_ns);
    return status;
}
