/*
 * cmd_multi.c — transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, with
 * Redis 7.0's replies and errors. The state and its rules are in multi.h;
 * the watched-key registry and the "key modified" signal in store/watch.h.
 */
#include <string.h>

#include "commands/acl_check.h"
#include "commands/command.h"
#include "commands/multi.h"
#include "connection/session.h"
#include "core/config.h"
#include "store/watch.h"
#include "util/xmalloc.h"

/* One queued command: argv and lengths point into the same allocation. */
struct queued_command {
    struct command *cmd;
    int argc;
    const char **argv;
    size_t *argv_len;
    size_t bytes; /* what it counts against the queue limit */
};

struct multi_state {
    struct conn *conn; /* whose state it is */
    bool queuing;      /* between MULTI and EXEC/DISCARD */
    bool aborted;      /* a queue-time error: EXEC answers EXECABORT */
    struct queued_command *queue;
    size_t count, cap;
    size_t bytes;
    struct watcher watcher;
};

bool multi_is_queuing(const struct multi_state *m)
{
    return m && m->queuing;
}

void multi_flag_error(struct multi_state *m)
{
    m->aborted = true;
}

static void free_queue(struct queued_command *queue, size_t count)
{
    for (size_t i = 0; i < count; i++) xfree(queue[i].argv);
    xfree(queue);
}

/* Back to no transaction; the watches stay (EXEC and DISCARD clear them too). */
static void end_transaction(struct multi_state *m)
{
    free_queue(m->queue, m->count);
    m->queue = NULL;
    m->count = m->cap = m->bytes = 0;
    m->queuing = m->aborted = false;
    session_set_text_argv(m->conn, false);
}

void multi_exec_rejected(struct multi_state *m, struct reply *r, const char *why)
{
    if (m) {
        end_transaction(m);
        watch_clear(&m->watcher);
    }
    reply_error_fmt(r, "EXECABORT Transaction discarded because of: %s", why);
}

void multi_discard(struct multi_state *m)
{
    if (!m) return;
    end_transaction(m);
    watch_clear(&m->watcher);
}

void multi_foreach_queued(const struct multi_state *m,
                          void (*fn)(const struct command *cmd, int argc, const char **argv,
                                     const size_t *argv_len, void *arg),
                          void *arg)
{
    if (!multi_is_queuing(m)) return;
    for (size_t i = 0; i < m->count; i++)
        fn(m->queue[i].cmd, m->queue[i].argc, m->queue[i].argv, m->queue[i].argv_len, arg);
}

void multi_state_destroy(void *state)
{
    struct multi_state *m = state;
    end_transaction(m);
    watch_clear(&m->watcher);
    xfree(m);
}

static struct multi_state *multi_of(const struct conn *c)
{
    return session_ext(c, MULTI_EXT_SLOT);
}

void multi_reset(struct conn *c)
{
    struct multi_state *m = multi_of(c);
    if (!m) return;
    session_set_ext(c, MULTI_EXT_SLOT, NULL);
    multi_state_destroy(m);
}

static struct multi_state *state_of(struct cmd_ctx *ctx)
{
    struct multi_state *m = multi_of(ctx->conn);
    if (!m) {
        m = xcalloc(1, sizeof *m);
        m->conn = ctx->conn;
        session_set_ext(ctx->conn, MULTI_EXT_SLOT, m);
    }
    return m;
}

void multi_queue(struct multi_state *m, struct reply *r, struct command *cmd, int argc,
                 const char **argv, const size_t *argv_len)
{
    size_t data = 0;
    for (int i = 0; i < argc; i++) data += argv_len[i];
    size_t bytes = (size_t)argc * (sizeof(char *) + sizeof(size_t)) + data;
    if (m->bytes + bytes > (size_t)config.client_query_buffer_limit) {
        reply_error(r, "ERR the queued transaction exceeds client-query-buffer-limit");
        m->aborted = true;
        return;
    }
    if (m->count == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->queue = xrealloc(m->queue, m->cap * sizeof *m->queue);
    }
    char *block = xmalloc(bytes ? bytes : 1);
    struct queued_command *q = &m->queue[m->count++];
    q->cmd = cmd;
    q->argc = argc;
    q->argv = (const char **)block;
    q->argv_len = (size_t *)(block + (size_t)argc * sizeof(char *));
    q->bytes = bytes;
    char *p = block + (size_t)argc * (sizeof(char *) + sizeof(size_t));
    for (int i = 0; i < argc; i++) {
        memcpy(p, argv[i], argv_len[i]);
        q->argv[i] = p;
        q->argv_len[i] = argv_len[i];
        p += argv_len[i];
    }
    m->bytes += bytes;
    reply_status(r, "QUEUED");
}

static void cmd_multi(struct cmd_ctx *ctx)
{
    struct multi_state *m = state_of(ctx);
    if (m->queuing) {
        reply_error(ctx->reply, "ERR MULTI calls can not be nested");
        return;
    }
    m->queuing = true;
    session_set_text_argv(ctx->conn, true); /* queued commands are kept as text */
    reply_ok(ctx->reply);
}

static void cmd_discard(struct cmd_ctx *ctx)
{
    struct multi_state *m = multi_of(ctx->conn);
    if (!multi_is_queuing(m)) {
        reply_error(ctx->reply, "ERR DISCARD without MULTI");
        return;
    }
    end_transaction(m);
    watch_clear(&m->watcher);
    reply_ok(ctx->reply);
}

static void cmd_exec(struct cmd_ctx *ctx)
{
    struct multi_state *m = multi_of(ctx->conn);
    if (!multi_is_queuing(m)) {
        reply_error(ctx->reply, "ERR EXEC without MULTI");
        return;
    }
    if (m->aborted) {
        end_transaction(m);
        watch_clear(&m->watcher);
        reply_error(ctx->reply, "EXECABORT Transaction discarded because of previous errors.");
        return;
    }
    bool dirty = m->watcher.dirty || watch_any_expired(&m->watcher);
    /* Take the queue and leave the state idle before running anything: the
     * commands may UNWATCH, RESET, or have this conn closed and its state
     * freed, and none of that may reach the queue being run. */
    struct queued_command *queue = m->queue;
    size_t count = m->count;
    m->queue = NULL;
    m->count = 0;
    end_transaction(m);
    watch_clear(&m->watcher);
    if (dirty) {
        free_queue(queue, count);
        reply_nil_array(ctx->reply);
        return;
    }
    reply_array_len(ctx->reply, (long long)count);
    for (size_t i = 0; i < count; i++) {
        struct cmd_ctx inner = {
            .conn = ctx->conn,
            .reply = ctx->reply,
            .db = keyspace_db(session_db_index(ctx->conn)), /* SELECT inside the queue */
            .argc = queue[i].argc,
            .argv = queue[i].argv,
            .argv_len = queue[i].argv_len,
            .cmd = queue[i].cmd,
            .deny_blocking = true,
        };
        /* ACL rules may have changed since the command was queued (Redis
         * checks again here). */
        enum acl_result acl =
            acl_check_nested(ctx->conn, inner.cmd, inner.argc, inner.argv, inner.argv_len, "multi");
        if (acl != ACL_OK) {
            reply_error_fmt(ctx->reply,
                            "NOPERM ACLs rules changed between the moment the transaction was "
                            "accumulated and the EXEC call. This command is no longer allowed for "
                            "the following reason: %s",
                            acl_exec_refusal(acl));
            continue;
        }
        command_call(&inner);
    }
    free_queue(queue, count);
}

static void cmd_watch(struct cmd_ctx *ctx)
{
    struct multi_state *m = state_of(ctx);
    if (m->queuing) {
        reply_error(ctx->reply, "ERR WATCH inside MULTI is not allowed");
        return;
    }
    for (int i = 1; i < ctx->argc; i++)
        watch_key(&m->watcher, ctx->db, ctx->argv[i], ctx->argv_len[i]);
    reply_ok(ctx->reply);
}

static void cmd_unwatch(struct cmd_ctx *ctx)
{
    struct multi_state *m = multi_of(ctx->conn);
    if (m) watch_clear(&m->watcher);
    reply_ok(ctx->reply);
}

#define TX_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

struct command multi_commands[] = {
    {.name = "multi",
     .arity = 1,
     .flags = CMD_ALLOW_BUSY | TX_FLAGS | CMD_FAST | CMD_NO_QUEUE,
     .fn = cmd_multi,
     .summary = "Start a transaction block",
     .since = "1.2.0",
     .group = "transactions",
     .complexity = "O(1)"},
    {.name = "exec",
     .arity = 1,
     .flags = TX_FLAGS | CMD_NO_QUEUE | CMD_SKIP_SLOWLOG,
     .fn = cmd_exec,
     .summary = "Execute all commands issued after MULTI",
     .since = "1.2.0",
     .group = "transactions",
     .complexity = "Depends on commands in the transaction"},
    {.name = "discard",
     .arity = 1,
     .flags = CMD_ALLOW_BUSY | TX_FLAGS | CMD_FAST | CMD_NO_QUEUE,
     .fn = cmd_discard,
     .summary = "Discard all commands issued after MULTI",
     .since = "2.0.0",
     .group = "transactions",
     .complexity = "O(N), when N is the number of queued commands"},
    {.name = "watch",
     .arity = -2,
     .flags = CMD_ALLOW_BUSY | TX_FLAGS | CMD_FAST | CMD_NO_QUEUE,
     .fn = cmd_watch,
     .first_key = 1,
     .last_key = -1,
     .key_step = 1,
     .summary = "Watch the given keys to determine execution of the MULTI/EXEC block",
     .since = "2.2.0",
     .group = "transactions",
     .complexity = "O(1) for every key."},
    {.name = "unwatch",
     .arity = 1,
     .flags = CMD_ALLOW_BUSY | TX_FLAGS | CMD_FAST,
     .fn = cmd_unwatch,
     .summary = "Forget about all watched keys",
     .since = "2.2.0",
     .group = "transactions",
     .complexity = "O(1)"},
    COMMAND_END,
};
