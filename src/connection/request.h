/*
 * request.h — the one seam from the connection layer into the command
 * layer: what a parsed request is when the connection hands it over, and
 * the entry that takes it.
 *
 * The connection layer includes nothing of commands/. The command layer
 * installs its dispatcher once at startup (conn_set_dispatch(), from
 * command_table_init()); every request a conn parses, and every command a
 * blocked or paused conn runs again, goes through that entry with a
 * struct cmd_request the conn fills. Anything a command does to the conn
 * goes back through connection/session.h. So the include arrows are:
 *   connection/ files -> connection/request.h          (no commands/ header)
 *   commands/ files   -> connection/request.h, connection/session.h
 *
 * What the command layer keeps per conn (a transaction's queue and
 * watches) is a per-conn extension slot of session.h with its own
 * destructor; the request carries the conn's slots (`ext`) so dispatch
 * reads them without a call.
 */
#ifndef GOBLIN_REQUEST_H
#define GOBLIN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

struct conn;
struct reply;
struct strbuf_set;
struct typed_call;

/* Per-conn extension slots (session_ext_register). */
#define SESSION_EXT_SLOTS 4

/* One parsed request as the connection layer hands it over. */
struct cmd_request {
    struct conn *conn;     /* the caller (opaque) */
    struct reply *reply;   /* its reply sink */
    int db_index;          /* its selected database */
    bool auth_required;    /* not authenticated where authentication is required */
    bool resp2_subscribed; /* in RESP2 subscribed context */
    /* The conn's extension slots (session_ext); never NULL: every request
     * dispatched has a conn. */
    void *const *ext;
    int argc;
    const char **argv;
    const size_t *argv_len;
    /* Arguments held in buffers of their own (may be NULL): a handler may
     * take one (arg_take_buffer); the rest stay the caller's. */
    struct strbuf_set *owned;
    /* Set to the command's full name just before its handler runs (CLIENT
     * LIST cmd=, which shows "client|list" for CLIENT LIST itself). */
    const char **last_command;
    /* A typed call (binary wires, protocol/typed_call.h): the command is
     * its op's, argc/argv are its byte slots; NULL for a text request. */
    const struct typed_call *typed;
    /* A blocked command run again (conn_blocked.c): its call was counted
     * when it blocked, as Redis counts a blocked command once. */
    bool rerun;
};

/* Runs one request: every check, then the handler; answers through
 * req->reply. */
typedef void conn_dispatch_fn(const struct cmd_request *req);

/* Installs the entry (the command layer, once at startup). */
void conn_set_dispatch(conn_dispatch_fn *dispatch);

#endif
