/* ops.c — operations, their prepared requests/replies, and the fixtures; see ops.h. */
#include "ops.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "measure.h"

/* Two same-length 16-byte values: string value, hash field value and
 * Pub/Sub payload alternate between them. */
static const char *const values[2] = {"goblin-bench-v-1", "goblin-bench-v-2"};
#define VALUE_LEN 16

/* The sorted-set member ZADD/ZSCORE use alternates between these scores; the
 * other nine members sit at 10..18, so the order never changes. */
static const double scores[2] = {1, 2};

#define HASH_FIELDS 10
#define ZSET_MEMBERS 10
#define OP_FIELD "field-0"
#define OP_MEMBER "member-0"

/* The floor's message: exactly the bytes of a RESP PING request. */
static const char echo_message[] = "*1\r\n$4\r\nPING\r\n";

static const char *const op_names[BENCH_OP_COUNT] = {
    "PING", "SET",   "GET",     "HSET", "HGET",  "ZADD", "ZSCORE",     "PUBSUB",
    "ECHO", "MULTI", "EVALSHA", "EVAL", "FCALL", "XADD", "XREADGROUP",
};

/* EVALSHA's one-call script and its SHA1 (what SCRIPT LOAD answers). */
#define BENCH_SCRIPT "return redis.call('GET', KEYS[1])"
#define BENCH_SCRIPT_SHA "d3c21d0c2b9ca22f82737626a27bcaf5d288f99f"

/* FCALL's library: one function doing the script's GET. */
#define BENCH_LIBRARY "goblinbench"
#define BENCH_FUNCTION "goblin_bench_get"
#define BENCH_LIBRARY_CODE                                                                         \
    "#!lua name=" BENCH_LIBRARY "\nredis.register_function('" BENCH_FUNCTION                       \
    "', function(keys) return redis.call('GET', keys[1]) end)"

const char *bench_op_name(enum bench_op_id op)
{
    return op_names[op];
}

int bench_ops_parse(const char *list, enum bench_op_id *ops, char *err, size_t err_cap)
{
    int count = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int i = 0; i < BENCH_OP_COUNT; i++)
            if (strlen(op_names[i]) == len && strncasecmp(op_names[i], p, len) == 0) found = i;
        if (found < 0) {
            snprintf(
                err, err_cap,
                "--ops: unknown operation '%.*s' (known: %s,ECHO,MULTI,EVALSHA,EVAL,FCALL,XADD,"
                "XREADGROUP)",
                (int)len, p, BENCH_OPS_DEFAULT);
            return -1;
        }
        for (int i = 0; i < count; i++) {
            if (ops[i] == (enum bench_op_id)found) {
                snprintf(err, err_cap, "--ops: '%s' is listed twice", op_names[found]);
                return -1;
            }
        }
        ops[count++] = (enum bench_op_id)found;
        p += len;
        if (*p == ',') p++;
    }
    if (count == 0) {
        snprintf(err, err_cap, "--ops: no operation given");
        return -1;
    }
    return count;
}

enum bench_fixture bench_op_fixture(enum bench_op_id op)
{
    switch (op) {
    case BENCH_OP_SET:
    case BENCH_OP_GET:
    case BENCH_OP_MULTI:
    case BENCH_OP_EVALSHA:
    case BENCH_OP_EVAL:
    case BENCH_OP_FCALL:
        return BENCH_FIXTURE_STRING;
    case BENCH_OP_HSET:
    case BENCH_OP_HGET:
        return BENCH_FIXTURE_HASH;
    case BENCH_OP_ZADD:
    case BENCH_OP_ZSCORE:
        return BENCH_FIXTURE_ZSET;
    case BENCH_OP_XADD:
        return BENCH_FIXTURE_XADD;
    case BENCH_OP_XREADGROUP:
        return BENCH_FIXTURE_XREAD;
    default:
        return BENCH_FIXTURE_NONE;
    }
}

bool bench_op_needs_subscriber(enum bench_op_id op)
{
    return op == BENCH_OP_PUBSUB;
}

/* Encodes argv as a request into step. */
static int step_request(struct bench_step *step, const struct bench_wire *wire,
                        int argc, /* argc <= 16 */
                        const char *const *argv)
{
    size_t lens[16];
    for (int i = 0; i < argc; i++) lens[i] = strlen(argv[i]);
    int n = wire->encode_command(step->request, sizeof step->request, argc, argv, lens);
    step->request_len = n < 0 ? 0 : (size_t)n;
    return n < 0 ? -1 : 0;
}

static int step_reply(struct bench_step *step, int n)
{
    step->reply_len = n < 0 ? 0 : (size_t)n;
    return n < 0 ? -1 : 0;
}

/* MULTI: four commands in one request, their five replies in one expected
 * byte string (EXEC's array header is RESP's: the op is RESP-only). */
static int step_transaction(const struct bench_wire *wire, unsigned v, struct bench_step *step)
{
    const char *multi[] = {"MULTI"}, *set[] = {"SET", BENCH_KEY_STRING, values[v]},
               *get[] = {"GET", BENCH_KEY_STRING}, *exec[] = {"EXEC"};
    const char *const *cmds[] = {multi, set, get, exec};
    const int argcs[] = {1, 3, 2, 1};
    size_t used = 0;
    for (int c = 0; c < 4; c++) {
        size_t lens[3];
        for (int i = 0; i < argcs[c]; i++) lens[i] = strlen(cmds[c][i]);
        int n = wire->encode_command(step->request + used, sizeof step->request - used, argcs[c],
                                     cmds[c], lens);
        if (n < 0) return -1;
        used += (size_t)n;
    }
    step->request_len = used;
    step->replies = 4; /* +OK, +QUEUED, +QUEUED, EXEC's array */
    char *r = step->reply;
    size_t cap = sizeof step->reply, got = 0;
    int n;
    const char *statuses[] = {"OK", "QUEUED", "QUEUED"};
    for (int i = 0; i < 3; i++) {
        if ((n = wire->encode_status(r + got, cap - got, statuses[i])) < 0) return -1;
        got += (size_t)n;
    }
    if (cap - got < 5) return -1;
    memcpy(r + got, "*2\r\n", 4);
    got += 4;
    if ((n = wire->encode_status(r + got, cap - got, "OK")) < 0) return -1;
    got += (size_t)n;
    if ((n = wire->encode_bulk(r + got, cap - got, values[v], VALUE_LEN)) < 0) return -1;
    got += (size_t)n;
    return step_reply(step, (int)got);
}

/* Builds the step of op that uses value/score index v. */
static int step_build(enum bench_op_id op, const struct bench_wire *wire, unsigned v,
                      struct bench_step *step)
{
    char score[32];
    snprintf(score, sizeof score, "%.17g", scores[v]);
    char *reply = step->reply;
    size_t cap = sizeof step->reply;
    step->delivery_len = 0;
    step->replies = 1;

    switch (op) {
    case BENCH_OP_PING: {
        const char *argv[] = {"PING"};
        if (step_request(step, wire, 1, argv) < 0) return -1;
        return step_reply(step, wire->encode_status(reply, cap, "PONG"));
    }
    case BENCH_OP_SET: {
        const char *argv[] = {"SET", BENCH_KEY_STRING, values[v]};
        if (step_request(step, wire, 3, argv) < 0) return -1;
        return step_reply(step, wire->encode_status(reply, cap, "OK"));
    }
    case BENCH_OP_GET: {
        const char *argv[] = {"GET", BENCH_KEY_STRING};
        if (step_request(step, wire, 2, argv) < 0) return -1;
        return step_reply(step, wire->encode_bulk(reply, cap, values[v], VALUE_LEN));
    }
    case BENCH_OP_HSET: {
        const char *argv[] = {"HSET", BENCH_KEY_HASH, OP_FIELD, values[v]};
        if (step_request(step, wire, 4, argv) < 0) return -1;
        return step_reply(step, wire->encode_integer(reply, cap, 0)); /* no new field */
    }
    case BENCH_OP_HGET: {
        const char *argv[] = {"HGET", BENCH_KEY_HASH, OP_FIELD};
        if (step_request(step, wire, 3, argv) < 0) return -1;
        return step_reply(step, wire->encode_bulk(reply, cap, values[v], VALUE_LEN));
    }
    case BENCH_OP_ZADD: {
        const char *argv[] = {"ZADD", BENCH_KEY_ZSET, score, OP_MEMBER};
        if (step_request(step, wire, 4, argv) < 0) return -1;
        return step_reply(step, wire->encode_integer(reply, cap, 0)); /* no new member */
    }
    case BENCH_OP_ZSCORE: {
        const char *argv[] = {"ZSCORE", BENCH_KEY_ZSET, OP_MEMBER};
        if (step_request(step, wire, 3, argv) < 0) return -1;
        return step_reply(step, wire->encode_score(reply, cap, scores[v]));
    }
    case BENCH_OP_PUBSUB: {
        const char *argv[] = {"PUBLISH", BENCH_CHANNEL, values[v]};
        if (step_request(step, wire, 3, argv) < 0) return -1;
        if (step_reply(step, wire->encode_integer(reply, cap, 1)) < 0) return -1; /* 1 receiver */
        int n = wire->encode_message(step->delivery, sizeof step->delivery, BENCH_CHANNEL,
                                     values[v], VALUE_LEN);
        step->delivery_len = n < 0 ? 0 : (size_t)n;
        return n < 0 ? -1 : 0;
    }
    case BENCH_OP_ECHO:
        /* Raw bytes, not a wire encoding: the echo server returns them as is. */
        memcpy(step->request, echo_message, sizeof echo_message - 1);
        memcpy(step->reply, echo_message, sizeof echo_message - 1);
        step->request_len = step->reply_len = sizeof echo_message - 1;
        return 0;
    case BENCH_OP_MULTI:
        return step_transaction(wire, v, step);
    case BENCH_OP_EVALSHA:
    case BENCH_OP_EVAL:
    case BENCH_OP_FCALL: {
        const char *argv[] = {op == BENCH_OP_EVALSHA ? "EVALSHA"
                              : op == BENCH_OP_EVAL  ? "EVAL"
                                                     : "FCALL",
                              op == BENCH_OP_EVALSHA ? BENCH_SCRIPT_SHA
                              : op == BENCH_OP_EVAL  ? BENCH_SCRIPT
                                                     : BENCH_FUNCTION,
                              "1", BENCH_KEY_STRING};
        if (step_request(step, wire, 4, argv) < 0) return -1;
        return step_reply(step, wire->encode_bulk(reply, cap, values[v], VALUE_LEN));
    }
    case BENCH_OP_XADD:
    case BENCH_OP_XREADGROUP:
    case BENCH_OP_COUNT:
        break; /* generated per sample: bench_plan_step */
    }
    return -1;
}

#define STREAM_FIELD "field-0"
#define STREAM_GROUP "goblin-bench"
#define STREAM_CONSUMER "c"

int bench_plan_step(const struct bench_plan *plan, uint64_t k, struct bench_step *step)
{
    char id[48];
    uint64_t n = plan->base + k + 1;
    step->delivery_len = 0;
    step->replies = 1;
    if (plan->generated == BENCH_OP_XADD) {
        snprintf(id, sizeof id, "%llu-1", (unsigned long long)n);
        const char *argv[] = {"XADD", BENCH_KEY_XADD, id, STREAM_FIELD, values[k % 2]};
        if (step_request(step, plan->wire, 5, argv) < 0) return -1;
        return step_reply(step,
                          plan->wire->encode_bulk(step->reply, sizeof step->reply, id, strlen(id)));
    }
    /* XREADGROUP: the nested arrays are RESP's (the op is RESP-only). */
    const char *argv[] = {"XREADGROUP",    "GROUP",         STREAM_GROUP,
                          STREAM_CONSUMER, "COUNT",         "1",
                          "STREAMS",       BENCH_KEY_XREAD, ">"};
    if (step_request(step, plan->wire, 9, argv) < 0) return -1;
    snprintf(id, sizeof id, "%llu-0", (unsigned long long)n);
    int len = snprintf(step->reply, sizeof step->reply,
                       "*1\r\n*2\r\n$%zu\r\n%s\r\n*1\r\n*2\r\n$%zu\r\n%s\r\n*2\r\n$%zu\r\n%s\r\n"
                       "$%d\r\n%s\r\n",
                       strlen(BENCH_KEY_XREAD), BENCH_KEY_XREAD, strlen(id), id,
                       strlen(STREAM_FIELD), STREAM_FIELD, VALUE_LEN, values[n % 2]);
    return step_reply(step, len > 0 && (size_t)len < sizeof step->reply ? len : -1);
}

/* The model's current value index of the fixture op works on. */
static unsigned *fixture_slot(enum bench_op_id op, struct bench_fixture_state *state)
{
    switch (bench_op_fixture(op)) {
    case BENCH_FIXTURE_STRING:
        return &state->string_value;
    case BENCH_FIXTURE_HASH:
        return &state->hash_value;
    case BENCH_FIXTURE_ZSET:
        return &state->zset_score;
    default:
        return NULL;
    }
}

static bool op_alternates(enum bench_op_id op)
{
    return op == BENCH_OP_SET || op == BENCH_OP_MULTI || op == BENCH_OP_HSET ||
           op == BENCH_OP_ZADD || op == BENCH_OP_PUBSUB;
}

int bench_plan_build(enum bench_op_id op, const struct bench_wire *wire,
                     const struct bench_fixture_state *state, struct bench_plan *plan)
{
    plan->generated = BENCH_OP_COUNT;
    plan->wire = wire;
    if (op == BENCH_OP_XADD || op == BENCH_OP_XREADGROUP) {
        if (op == BENCH_OP_XREADGROUP && strcmp(wire->name, "resp") != 0) return -1;
        plan->generated = op;
        plan->base = op == BENCH_OP_XADD ? state->xadd_next : state->xread_next;
        plan->count = 1;
        plan->first = 0;
        return 0;
    }
    struct bench_fixture_state copy = *state;
    unsigned *slot = fixture_slot(op, &copy);
    unsigned current = slot ? *slot : 0;
    if (op_alternates(op)) {
        plan->count = 2;
        /* A writer starts with the value not stored now, so each write
         * changes the object; PUBSUB has no fixture and starts at 0. */
        plan->first = slot ? current ^ 1u : 0;
        for (unsigned v = 0; v < 2; v++)
            if (step_build(op, wire, v, &plan->steps[v]) < 0) return -1;
    } else {
        plan->count = 1;
        plan->first = 0;
        if (step_build(op, wire, current, &plan->steps[0]) < 0) return -1;
    }
    return 0;
}

void bench_fixture_advance(enum bench_op_id op, const struct bench_plan *plan, uint64_t total,
                           struct bench_fixture_state *state)
{
    if (op == BENCH_OP_XADD) state->xadd_next += total;
    if (op == BENCH_OP_XREADGROUP) state->xread_next += total;
    unsigned *slot = fixture_slot(op, state);
    if (!slot || !op_alternates(op) || total == 0) return;
    *slot = (unsigned)((plan->first + total - 1) % plan->count);
}

static int seed_string(struct bench_conn *conn, const struct bench_wire *wire)
{
    char expected[BENCH_STEP_CAP];
    int n = wire->encode_status(expected, sizeof expected, "OK");
    const char *set[] = {"SET", BENCH_KEY_STRING, values[0]};
    return bench_call(conn, wire, "fixture SET", 3, set, expected, (size_t)n);
}

int bench_script_load(struct bench_conn *conn, const struct bench_wire *wire, enum bench_op_id op)
{
    char expected[BENCH_STEP_CAP];
    if (op == BENCH_OP_FCALL) {
        int n = wire->encode_bulk(expected, sizeof expected, BENCH_LIBRARY, strlen(BENCH_LIBRARY));
        const char *load[] = {"FUNCTION", "LOAD", "REPLACE", BENCH_LIBRARY_CODE};
        return bench_call(conn, wire, "fixture FUNCTION LOAD", 4, load, expected, (size_t)n);
    }
    int n = wire->encode_bulk(expected, sizeof expected, BENCH_SCRIPT_SHA, 40);
    const char *load[] = {"SCRIPT", "LOAD", BENCH_SCRIPT};
    return bench_call(conn, wire, "fixture SCRIPT LOAD", 3, load, expected, (size_t)n);
}

/* HSET key field-0 v1 field-1 v1 ... field-9 v1: ten 16-byte values. */
static int seed_hash(struct bench_conn *conn, const struct bench_wire *wire)
{
    char expected[64];
    char fields[HASH_FIELDS][16];
    const char *hset[2 + 2 * HASH_FIELDS] = {"HSET", BENCH_KEY_HASH};
    for (int i = 0; i < HASH_FIELDS; i++) {
        snprintf(fields[i], sizeof fields[i], "field-%d", i);
        hset[2 + 2 * i] = fields[i];
        hset[3 + 2 * i] = values[0];
    }
    int n = wire->encode_integer(expected, sizeof expected, HASH_FIELDS);
    return bench_call(conn, wire, "fixture HSET", 2 + 2 * HASH_FIELDS, hset, expected, (size_t)n);
}

/* ZADD key 1 member-0 10 member-1 ... 18 member-9. */
static int seed_zset(struct bench_conn *conn, const struct bench_wire *wire)
{
    char expected[64];
    char members[ZSET_MEMBERS][16], member_scores[ZSET_MEMBERS][32];
    const char *zadd[2 + 2 * ZSET_MEMBERS] = {"ZADD", BENCH_KEY_ZSET};
    for (int i = 0; i < ZSET_MEMBERS; i++) {
        snprintf(members[i], sizeof members[i], "member-%d", i);
        snprintf(member_scores[i], sizeof member_scores[i], "%.17g", i == 0 ? scores[0] : 9.0 + i);
        zadd[2 + 2 * i] = member_scores[i];
        zadd[3 + 2 * i] = members[i];
    }
    int n = wire->encode_integer(expected, sizeof expected, ZSET_MEMBERS);
    return bench_call(conn, wire, "fixture ZADD", 2 + 2 * ZSET_MEMBERS, zadd, expected, (size_t)n);
}

/* XREADGROUP's stream: a group at 0-0 and `n` entries k-0 (k = 1..n),
 * value alternating as its replies expect, loaded in pipelined batches. */
static int seed_xread(struct bench_conn *conn, const struct bench_wire *wire, uint64_t n)
{
    const char *create[] = {"XGROUP", "CREATE", BENCH_KEY_XREAD, STREAM_GROUP, "0", "MKSTREAM"};
    if (bench_call(conn, wire, "fixture XGROUP CREATE", 6, create, NULL, 0) < 0) return -1;
    static char batch[256 * 100];
    for (uint64_t k = 1; k <= n;) {
        size_t used = 0;
        unsigned in_batch = 0;
        for (; in_batch < 100 && k <= n; in_batch++, k++) {
            char id[48];
            snprintf(id, sizeof id, "%llu-0", (unsigned long long)k);
            const char *argv[] = {"XADD", BENCH_KEY_XREAD, id, STREAM_FIELD, values[k % 2]};
            size_t lens[5];
            for (int i = 0; i < 5; i++) lens[i] = strlen(argv[i]);
            int len = wire->encode_command(batch + used, sizeof batch - used, 5, argv, lens);
            if (len < 0) return -1;
            used += (size_t)len;
        }
        if (conn->transport->send(conn, batch, used) != 0) {
            fprintf(stderr, "goblin-bench: fixture XADD: %s\n", conn->error);
            return -1;
        }
        for (unsigned i = 0; i < in_batch; i++) {
            long long got = bench_conn_read_reply(conn, wire->frame);
            if (got < 0 || wire->is_error(conn->rx, (size_t)got)) {
                fprintf(stderr, "goblin-bench: fixture XADD failed\n");
                return -1;
            }
            bench_conn_consume(conn, (size_t)got);
        }
    }
    return 0;
}

int bench_fixture_seed(struct bench_conn *conn, const struct bench_wire *wire,
                       enum bench_fixture fixture, struct bench_fixture_state *state)
{
    static const char *const keys[BENCH_FIXTURE_COUNT] = {
        [BENCH_FIXTURE_STRING] = BENCH_KEY_STRING, [BENCH_FIXTURE_HASH] = BENCH_KEY_HASH,
        [BENCH_FIXTURE_ZSET] = BENCH_KEY_ZSET,     [BENCH_FIXTURE_XADD] = BENCH_KEY_XADD,
        [BENCH_FIXTURE_XREAD] = BENCH_KEY_XREAD,
    };
    if (fixture == BENCH_FIXTURE_NONE || fixture >= BENCH_FIXTURE_COUNT) return 0;
    /* Whatever the key held before (another type, another size) goes. */
    const char *del[] = {"DEL", keys[fixture]};
    if (bench_call(conn, wire, "fixture DEL", 2, del, NULL, 0) < 0) return -1;
    switch (fixture) {
    case BENCH_FIXTURE_STRING:
        if (seed_string(conn, wire) < 0) return -1;
        state->string_value = 0;
        break;
    case BENCH_FIXTURE_HASH:
        if (seed_hash(conn, wire) < 0) return -1;
        state->hash_value = 0;
        break;
    case BENCH_FIXTURE_ZSET:
        if (seed_zset(conn, wire) < 0) return -1;
        state->zset_score = 0;
        break;
    case BENCH_FIXTURE_XADD:
        state->xadd_next = 0; /* the stream is created by the first sample */
        break;
    case BENCH_FIXTURE_XREAD:
        if (seed_xread(conn, wire, state->per_op) < 0) return -1;
        state->xread_next = 0;
        break;
    default:
        break;
    }
    return 0;
}

int bench_subscriber_start(struct bench_conn *sub, const struct bench_wire *wire)
{
    char expected[BENCH_STEP_CAP]; /* an SBE push frame is ~140 bytes */
    int n = wire->encode_subscribed(expected, sizeof expected, BENCH_CHANNEL, 1);
    const char *argv[] = {"SUBSCRIBE", BENCH_CHANNEL};
    return bench_call(sub, wire, "SUBSCRIBE", 2, argv, expected, (size_t)n);
}
