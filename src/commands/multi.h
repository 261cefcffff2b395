/*
 * multi.h — a client's transaction state: MULTI's queue and WATCH's keys.
 *
 * A conn holds a `struct multi_state *` (NULL until its first MULTI or
 * WATCH) in its extension slot MULTI_EXT_SLOT (connection/session.h,
 * registered by command_table_init with multi_state_destroy as the
 * destructor the conn calls when it closes); a request carries its conn's
 * slots (cmd_request.ext) so that the per-command check is two loads and
 * a pointer test. While queuing, the conn is asked for text arguments
 * (session_set_text_argv: typed calls lowered). The state is small and separate from the other
 * "don't run now" states of a conn (output backpressure in conn.c, blocked
 * on keys, CLIENT PAUSE): queuing means "answer QUEUED and keep the
 * command for EXEC", nothing else.
 *
 * Queue. Each queued command is copied (its arguments into one block), so
 * the input buffer can move on. The queue's bytes are bounded by
 * client-query-buffer-limit: a command past it is refused with an error and
 * the transaction aborts (EXECABORT), so a peer cannot grow it without bound.
 *
 * Errors while queuing (unknown command or subcommand, arity, NOAUTH,
 * DEBUG refused, RESP2 subscribed context, queue limit) mark the
 * transaction aborted: EXEC then answers EXECABORT and runs nothing, as
 * Redis 7.0 does. Errors of a command while EXEC runs it are its reply in
 * EXEC's array; nothing is rolled back.
 *
 * Inside EXEC a command runs with cmd_ctx.deny_blocking set: a blocking
 * command must act as its non-blocking form (BLPOP answers nil at once).
 */
#ifndef GOBLIN_MULTI_H
#define GOBLIN_MULTI_H

#include <stdbool.h>
#include <stddef.h>

#include "connection/request.h"

struct command;
struct conn;
struct multi_state;
struct reply;

/* The extension slot of the state (session_ext): the first one registered
 * (command_table_init checks), so dispatch reads it at a constant offset. */
#define MULTI_EXT_SLOT 0

/* The state of a request's conn, NULL when it has none. */
static inline struct multi_state *multi_of_request(const struct cmd_request *req)
{
    return (struct multi_state *)req->ext[MULTI_EXT_SLOT];
}

/* In MULTI: dispatch queues every command but EXEC, DISCARD, MULTI, WATCH,
 * QUIT and RESET (flag CMD_NO_QUEUE). */
bool multi_is_queuing(const struct multi_state *m);

/* A queue-time error was answered: EXEC will answer EXECABORT. */
void multi_flag_error(struct multi_state *m);

/* EXEC itself refused (arity), in MULTI or not (m may be NULL): any
 * transaction is discarded
 * and the answer is "EXECABORT Transaction discarded because of: <why>". */
void multi_exec_rejected(struct multi_state *m, struct reply *r, const char *why);

/* Queues cmd with its arguments (copied) and answers QUEUED, or refuses it
 * (queue limit) with an error that aborts the transaction. */
void multi_queue(struct multi_state *m, struct reply *r, struct command *cmd, int argc,
                 const char **argv, const size_t *argv_len);

/* Ends any transaction without running it and unwatches (a cluster
 * redirection of EXEC, as Redis's discardTransaction). m may be NULL. */
void multi_discard(struct multi_state *m);

/* Visits the queued commands in order (cluster slot checks of EXEC). */
void multi_foreach_queued(const struct multi_state *m,
                          void (*fn)(const struct command *cmd, int argc, const char **argv,
                                     const size_t *argv_len, void *arg),
                          void *arg);

/* RESET: no transaction, nothing watched. */
void multi_reset(struct conn *c);

/* Frees the state (the conn is closing: the slot's destructor): its
 * watches leave the registry. */
void multi_state_destroy(void *state);

#endif
