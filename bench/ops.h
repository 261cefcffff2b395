/*
 * ops.h — the operations goblin-bench measures and the fixtures they use.
 *
 * The eight operations of the seeds (DESIGN.md §4):
 *   PING    PING                                   -> +PONG
 *   SET     SET of an existing string key, alternating two same-length
 *           16-byte values                         -> +OK
 *   GET     GET of that key (a hit)                -> the current value
 *   HSET    HSET of one existing field of a ten-field hash, alternating two
 *           16-byte values                         -> :0
 *   HGET    HGET of that field (a hit)             -> the current value
 *   ZADD    ZADD of an existing member of a ten-member sorted set,
 *           alternating scores 1 and 2             -> :0
 *   ZSCORE  ZSCORE of that member (a hit)          -> the current score
 *   PUBSUB  PUBLISH on one literal channel with one subscriber on a second
 *           connection, alternating two 16-byte payloads -> :1 on the
 *           publisher, and the message on the subscriber
 * plus a transaction
 *   MULTI   MULTI, SET of the string key (alternating as SET), GET of it and
 *           EXEC sent in one write, as a client library's transaction
 *           pipeline does -> +OK +QUEUED +QUEUED *2 +OK <value> (RESP)
 * and a script
 *   EVALSHA EVALSHA of "return redis.call('GET', KEYS[1])" (loaded with
 *           SCRIPT LOAD before the first EVALSHA) with the string
 *           key as KEYS[1]     -> the current value, as GET
 *   EVAL    EVAL of that script's body (the server hashes it to find the
 *           cached function)   -> the current value
 *   FCALL   FCALL of goblin_bench_get, a function doing the same GET
 *           (library goblinbench, FUNCTION LOAD REPLACE before the first
 *           FCALL)             -> the current value
 * and two stream operations (RESP only), each sample with its own ID so
 * the exact reply is known in advance:
 *   XADD    XADD of one 16-byte field/value pair with the explicit ID k-1
 *           (k counting samples) to a stream of its own -> that ID
 *   XREADGROUP  XREADGROUP GROUP g c COUNT 1 STREAMS key > on a stream
 *           preloaded with one entry per operation (IDs k-0): each sample
 *           is delivered the next entry, which becomes pending
 *           -> [[key, [[k-0, [field, value]]]]]
 * and the floor operation
 *   ECHO    a RESP PING's bytes sent to a plain echo server (echo_floor.c),
 *           which must come back unchanged
 *
 * Nothing changes size: writers replace a value with one of the same length,
 * so every sample of a distribution does the same work.
 *
 * Expected replies follow the alternation. The client keeps a model of what
 * the fixtures hold (struct bench_fixture_state); a writer's distribution
 * starts with the value not currently stored (so every write changes the
 * object) and alternates from there, and a reader run after it expects what
 * the last write left. Operations run one distribution at a time, so within
 * a reader's distribution the expectation is constant.
 */
#ifndef GOBLIN_BENCH_OPS_H
#define GOBLIN_BENCH_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport.h"
#include "wire.h"

enum bench_op_id {
    BENCH_OP_PING,
    BENCH_OP_SET,
    BENCH_OP_GET,
    BENCH_OP_HSET,
    BENCH_OP_HGET,
    BENCH_OP_ZADD,
    BENCH_OP_ZSCORE,
    BENCH_OP_PUBSUB,
    BENCH_OP_ECHO,
    BENCH_OP_MULTI,
    BENCH_OP_EVALSHA,
    BENCH_OP_EVAL,
    BENCH_OP_FCALL,
    BENCH_OP_XADD,
    BENCH_OP_XREADGROUP,
    BENCH_OP_COUNT
};

/* The default --ops: the seeds' eight, in the seeds' order. */
#define BENCH_OPS_DEFAULT "PING,SET,GET,HSET,HGET,ZADD,ZSCORE,PUBSUB"

/* Fixture names (fixed, so a second client can find them). */
#define BENCH_KEY_STRING "goblin-bench:string"
#define BENCH_KEY_HASH "goblin-bench:hash"
#define BENCH_KEY_ZSET "goblin-bench:zset"
#define BENCH_CHANNEL "goblin-bench:channel"
#define BENCH_KEY_XADD "goblin-bench:xadd"
#define BENCH_KEY_XREAD "goblin-bench:xread"

/* Index (0 or 1) of the value each fixture holds now. */
struct bench_fixture_state {
    unsigned string_value;
    unsigned hash_value;
    unsigned zset_score;
    uint64_t xadd_next;  /* XADD: samples done on its stream (the next ID is this + 1) */
    uint64_t xread_next; /* XREADGROUP: entries delivered so far */
    uint64_t per_op; /* operations per distribution (warmup + samples): what XREADGROUP's stream is
                        loaded with */
};

#define BENCH_STEP_CAP 256

/* One prepared request and the exact bytes expected back. */
struct bench_step {
    size_t request_len;
    size_t reply_len;    /* on the request's connection */
    size_t delivery_len; /* on the subscriber connection; 0 = none expected */
    unsigned replies;    /* replies that make up `reply` (0 counts as 1) */
    char request[BENCH_STEP_CAP];
    char reply[BENCH_STEP_CAP];
    char delivery[BENCH_STEP_CAP];
};

/* The prepared steps of one distribution: operation k (0-based, warmup
 * included) uses steps[(first + k) % count]. */
struct bench_plan {
    struct bench_step steps[2];
    unsigned count;
    unsigned first;
    /* Ops whose every sample differs (the stream ops): the step of
     * operation k is built by bench_plan_step() before it is timed. */
    enum bench_op_id generated; /* BENCH_OP_COUNT: none */
    uint64_t base;
    const struct bench_wire *wire;
};

/* The step of operation k of a generated plan, built into *step (outside
 * the timed region); -1 if it does not fit (a bug). */
int bench_plan_step(const struct bench_plan *plan, uint64_t k, struct bench_step *step);

/* Name of an op ("PING", ...). */
const char *bench_op_name(enum bench_op_id op);

/* Parses a comma-separated list of op names (case-insensitive) into ops[]
 * (at most BENCH_OP_COUNT, no duplicates); returns how many, or -1 with a
 * message in err. */
int bench_ops_parse(const char *list, enum bench_op_id *ops, char *err, size_t err_cap);

/* The fixture an op reads or writes. */
enum bench_fixture {
    BENCH_FIXTURE_NONE,
    BENCH_FIXTURE_STRING,
    BENCH_FIXTURE_HASH,
    BENCH_FIXTURE_ZSET,
    BENCH_FIXTURE_XADD,
    BENCH_FIXTURE_XREAD,
    BENCH_FIXTURE_COUNT
};

enum bench_fixture bench_op_fixture(enum bench_op_id op);

/* True when the op needs a subscriber connection. */
bool bench_op_needs_subscriber(enum bench_op_id op);

/* Prepares op's distribution from the current fixture state; -1 if a
 * request or reply does not fit BENCH_STEP_CAP (a bug). */
int bench_plan_build(enum bench_op_id op, const struct bench_wire *wire,
                     const struct bench_fixture_state *state, struct bench_plan *plan);

/* Updates the fixture model after `total` operations of op's distribution. */
void bench_fixture_advance(enum bench_op_id op, const struct bench_plan *plan, uint64_t total,
                           struct bench_fixture_state *state);

/* What a script op needs loaded first: SCRIPT LOAD of EVALSHA's script
 * (EVALSHA, EVAL: EVAL finds it cached from then on) or FUNCTION LOAD
 * REPLACE of FCALL's library; only for those ops, so a server without
 * scripting still measures the others. */
int bench_script_load(struct bench_conn *conn, const struct bench_wire *wire, enum bench_op_id op);

/*
 * (Re)creates one fixture on the server through conn (outside any timed
 * region), validating every reply: deletes its key, then writes the string,
 * the ten-field hash or the ten-member sorted set, and records the seeded
 * value in *state. Each fixture is seeded just before the first op that
 * uses it, so a server that lacks a type still has the ops before it
 * measured. Returns -1 with a message on stderr on failure.
 */
int bench_fixture_seed(struct bench_conn *conn, const struct bench_wire *wire,
                       enum bench_fixture fixture, struct bench_fixture_state *state);

/* Subscribes sub to BENCH_CHANNEL and validates the confirmation. */
int bench_subscriber_start(struct bench_conn *sub, const struct bench_wire *wire);

#endif
