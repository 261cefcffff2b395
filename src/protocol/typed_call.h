/*
 * typed_call.h — a hot command called with typed arguments (the SBE wire's
 * typed templates; command_dispatch() in command.c is the jump table). No
 * dependencies but numparse, so a wire can fill one without the command
 * layer.
 *
 * A binary wire's typed templates name their command by op, not by text:
 * command_dispatch() jumps on the op to the command (no name lookup, no
 * subcommand or arity check: a template's shape is its arity), runs the
 * same admission checks as any request (auth, maxmemory, MISCONF, ...) and
 * calls the command's typed core when it has numbers (SET, INCRBY, ZADD:
 * native, never formatted or parsed as text), else its handler over the
 * byte fields. Byte fields point into the request, in the slots the RESP
 * form has (argv[0] the command's name), so one core serves both wires.
 *
 * Inside MULTI the wire lowers a typed call to its RESP form's argv (the
 * numbers formatted) before dispatch, so the queued command is exactly the
 * one its generic form queues; SLOWLOG shows a typed call lowered too.
 */
#ifndef GOBLIN_TYPED_CALL_H
#define GOBLIN_TYPED_CALL_H

#include <stdbool.h>
#include <stddef.h>

enum typed_op {
    TYPED_PING,    /* PING */
    TYPED_GET,     /* GET key */
    TYPED_SET,     /* SET key value; flags TYPED_SET_*, expire_kind, number = expire */
    TYPED_DEL,     /* DEL key... */
    TYPED_INCR,    /* INCR key */
    TYPED_INCRBY,  /* INCRBY key; number = delta (slot 2 unused) */
    TYPED_HSET,    /* HSET key field value */
    TYPED_HGET,    /* HGET key field */
    TYPED_ZADD,    /* ZADD key - member (slot 2 unused); flags TYPED_ZADD_*, score */
    TYPED_ZSCORE,  /* ZSCORE key member */
    TYPED_PUBLISH, /* PUBLISH channel message */
    TYPED_SUBSCRIBE,
    TYPED_UNSUBSCRIBE,
    TYPED_PSUBSCRIBE,
    TYPED_PUNSUBSCRIBE, /* the subscribe family: name... */
    TYPED_OP_COUNT
};

/* SET flags and expire kinds (the SBE schema's values). */
enum { TYPED_SET_NX = 1 << 0, TYPED_SET_XX = 1 << 1, TYPED_SET_GET = 1 << 2 };
enum typed_expire {
    TYPED_EXPIRE_NONE,
    TYPED_EXPIRE_EX,
    TYPED_EXPIRE_PX,
    TYPED_EXPIRE_EXAT,
    TYPED_EXPIRE_PXAT,
    TYPED_EXPIRE_KEEPTTL,
};
/* ZADD flags (the SBE schema's bit order). */
enum {
    TYPED_ZADD_NX = 1 << 0,
    TYPED_ZADD_XX = 1 << 1,
    TYPED_ZADD_GT = 1 << 2,
    TYPED_ZADD_LT = 1 << 3,
    TYPED_ZADD_CH = 1 << 4,
    TYPED_ZADD_INCR = 1 << 5,
};

struct typed_call {
    enum typed_op op;
    int argc; /* byte slots in use, argv[0] the command name */
    const char **argv;
    const size_t *argv_len;
    unsigned flags;
    enum typed_expire expire_kind;
    long long number; /* SET expire, INCRBY delta */
    double score;     /* ZADD */
};

/* Lowering (typed_call.c): a typed call as the argv of its RESP form, what
 * MULTI queues and SLOWLOG shows: option words, and the number formatted as
 * Redis reads it back (SET's expiry, INCRBY's delta, ZADD's score) into
 * `number`. Only the ops with numbers change (typed_call_has_numbers());
 * any other op is its argv already and is returned as is (its argc, argv
 * untouched). argv/argv_len hold TYPED_LOWERED_MAX slots and may be
 * t->argv itself. */
#define TYPED_LOWERED_MAX 10 /* ZADD key NX XX GT LT CH INCR score member */
#define TYPED_NUMBER_CAP 32
bool typed_call_has_numbers(enum typed_op op);
int typed_call_lower(const struct typed_call *t, const char **argv, size_t *argv_len,
                     char number[TYPED_NUMBER_CAP]);

#endif
