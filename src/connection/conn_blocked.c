/* conn_blocked.c — conns blocked on keys (BLPOP & co) and conns paused by
 * CLIENT PAUSE; the states and their exits are described in conn.h
 * ("Blocked on keys", "Paused"). */
#include <stddef.h>
#include <string.h>

#include "core/command_hooks.h"
#include "connection/conn.h"
#include "store/db.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static struct conn *blocked_head;
static size_t blocked_count;
static struct conn *resume_head, *resume_tail;

static struct conn *conn_of_waiter(struct block_waiter *w)
{
    return (struct conn *)((char *)w - offsetof(struct conn, blocked.waiter));
}

size_t conn_blocked_count(void)
{
    return blocked_count;
}

static size_t paused_count;

size_t session_blocked_count(void)
{
    return blocked_count + paused_count; /* Redis counts postponed clients too */
}

size_t session_blocked_with_timeout_count(void)
{
    size_t n = 0;
    for (const struct conn *c = blocked_head; c; c = c->blocked.next)
        n += c->blocked.deadline_ms != 0;
    return n;
}

/* Copies argv into one allocation: pointers, lengths, then the bytes. */
static char *copy_command(int argc, const char *const *argv, const size_t *len)
{
    size_t bytes = 0;
    for (int i = 0; i < argc; i++) bytes += len[i] + 1;
    size_t head = (size_t)argc * (sizeof(char *) + sizeof(size_t));
    char *block = xmalloc(head + bytes);
    const char **ptrs = (const char **)block;
    size_t *lens = (size_t *)(block + (size_t)argc * sizeof(char *));
    char *p = block + head;
    for (int i = 0; i < argc; i++) {
        memcpy(p, argv[i], len[i]);
        p[len[i]] = '\0';
        ptrs[i] = p;
        lens[i] = len[i];
        p += len[i] + 1;
    }
    return block;
}

/* Joins the list of blocked conns (keys or custom): runs nothing more. */
static void enter_blocked(struct conn *c, int64_t deadline_ms)
{
    struct conn_blocked *b = &c->blocked;
    b->deadline_ms = deadline_ms;
    b->request = c->requests;
    c->flags |= CONN_BLOCKED_ON_KEYS;
    b->prev = NULL;
    b->next = blocked_head;
    if (blocked_head) blocked_head->blocked.prev = c;
    blocked_head = c;
    blocked_count++;
}

void session_block_on_keys(struct conn *c, enum obj_type type, int argc, const char *const *argv,
                           const size_t *argv_len, int first_key, int nkeys, int64_t deadline_ms)
{
    struct conn_blocked *b = &c->blocked;
    if (b->retrying) {
        b->reblocked = true;
        return;
    }
    b->command = copy_command(argc, argv, argv_len);
    b->argc = argc;
    const char *const *keys = (const char *const *)b->command + first_key;
    const size_t *lens = (const size_t *)(b->command + (size_t)argc * sizeof(char *)) + first_key;
    blocking_wait(&b->waiter, c->db_index, type, nkeys, keys, lens);
    enter_blocked(c, deadline_ms);
}

void session_block_custom(struct conn *c, int64_t deadline_ms,
                          const struct session_block_custom *how, void *arg)
{
    struct conn_blocked *b = &c->blocked;
    b->custom = how;
    b->custom_arg = arg;
    b->command = NULL; /* nothing runs again: the owner answers */
    enter_blocked(c, deadline_ms);
}

/* Leaves the state; the caller has answered (or the conn is closing). */
static void unblock(struct conn *c)
{
    struct conn_blocked *b = &c->blocked;
    if (b->custom) {
        const struct session_block_custom *how = b->custom;
        b->custom = NULL;
        how->done(c, b->custom_arg);
    }
    blocking_unwait(&b->waiter);
    xfree(b->command);
    b->command = NULL;
    if (b->prev)
        b->prev->blocked.next = b->next;
    else
        blocked_head = b->next;
    if (b->next) b->next->blocked.prev = b->prev;
    blocked_count--;
    c->flags &= ~CONN_BLOCKED_ON_KEYS;
}

static void schedule_resume(struct conn *c)
{
    if (c->blocked.resume_pending) return;
    c->blocked.resume_pending = true;
    c->blocked.resume_next = NULL;
    if (resume_tail)
        resume_tail->blocked.resume_next = c;
    else
        resume_head = c;
    resume_tail = c;
}

void conn_blocked_forget(struct conn *c)
{
    if (c->flags & CONN_BLOCKED_ON_KEYS) unblock(c);
}

/* Writes one reply to a blocked conn outside its own command (a unit of
 * its own on framed wires, correlated with the blocked request). */
static void answer_begin(struct conn *c)
{
    if (c->framed) conn_unit_open(c, OUT_REPLY, c->blocked.request);
}

static void answer_end(struct conn *c)
{
    if (c->framed) conn_unit_close(c);
    unblock(c);
    schedule_resume(c);
}

static void answer_timeout(struct conn *c)
{
    answer_begin(c);
    if (c->blocked.custom)
        c->blocked.custom->answer(c, &c->reply, c->blocked.custom_arg);
    else
        reply_nil_array(&c->reply); /* BRPOPLPUSH and BLMOVE too, as Redis 7.0 */
    answer_end(c);
}

void session_unblock_custom(struct conn *c)
{
    if ((c->flags & CONN_BLOCKED_ON_KEYS) && c->blocked.custom) answer_timeout(c);
}

bool session_block_retry_key(const struct conn *c, const char **key, size_t *len)
{
    if (!c || !c->blocked.retrying || !c->blocked.ready_key) return false;
    *key = c->blocked.ready_key;
    *len = c->blocked.ready_len;
    return true;
}

bool session_unblock(struct conn *c, bool error)
{
    if (!(c->flags & CONN_BLOCKED_ON_KEYS)) return false;
    if (error) {
        answer_begin(c);
        reply_error(&c->reply, "UNBLOCKED client unblocked via CLIENT UNBLOCK");
        answer_end(c);
    } else {
        answer_timeout(c);
    }
    return true;
}

/* Runs a copied command (copy_command) on c as its request `request`,
 * outside c's own batch: as c, in its database, its reply correlated with
 * that request; with `reply_mode`, CLIENT REPLY OFF/SKIP applies to it. */
static void run_copy(struct conn *c, char *command, int argc, uint64_t request, bool reply_mode,
                     bool rerun)
{
    struct conn *outer = conn_executing;
    struct cmd_request creq = {
        .conn = c,
        .reply = &c->reply,
        .db_index = c->db_index,
        .auth_required = conn_auth_required(c),
        .resp2_subscribed = conn_in_resp2_subscribed_mode(c),
        .ext = c->ext,
        .argc = argc,
        .argv = (const char **)command,
        .argv_len = (const size_t *)(command + (size_t)argc * sizeof(char *)),
        .last_command = &c->last_command,
        .rerun = rerun,
    };
    conn_executing = c;
    keyspace_begin_command();
    if (c->framed) conn_unit_open(c, OUT_REPLY, request);
    size_t out_before = buf_len(&c->out);
    conn_dispatch(&creq);
    if (reply_mode && !(c->flags & CONN_PAUSED)) conn_apply_reply_mode(c, out_before);
    if (c->framed) conn_unit_close(c);
    conn_executing = outer;
}

/* Runs a waiter's command again (blocking_serve_ready's callback) for
 * the key made ready. */
static void retry_blocked(struct block_waiter *w, const char *key, size_t len, void *arg)
{
    (void)arg;
    struct conn *c = conn_of_waiter(w);
    struct conn_blocked *b = &c->blocked;
    b->retrying = true;
    b->reblocked = false;
    b->ready_key = key;
    b->ready_len = len;
    run_copy(c, b->command, b->argc, b->request, false, true);
    b->retrying = false;
    b->ready_key = NULL;
    if (!b->reblocked) {
        unblock(c);
        schedule_resume(c);
    }
}

void conn_blocked_serve_ready(void)
{
    blocking_serve_ready(retry_blocked, NULL);
}

void conn_blocked_expire(void)
{
    if (!blocked_count) return;
    int64_t now = clock_unix_ms();
    for (struct conn *c = blocked_head, *next; c; c = next) {
        next = c->blocked.next;
        if (c->blocked.deadline_ms && c->blocked.deadline_ms <= now) answer_timeout(c);
    }
    conn_blocked_resume();
}

/* --- CLIENT PAUSE ------------------------------------------------------ */

enum session_pause session_pause_type;
static int64_t pause_end_ms;
static struct conn *paused_head, *paused_tail;

bool session_postpone(struct conn *c, int argc, const char *const *argv, const size_t *argv_len)
{
    struct conn_blocked *b = &c->blocked;
    if (b->retrying) return false;
    b->request = c->requests; /* run_postponed restores it for a command postponed again */
    b->command = copy_command(argc, argv, argv_len);
    b->argc = argc;
    c->flags |= CONN_PAUSED;
    b->paused_next = NULL;
    if (paused_tail)
        paused_tail->blocked.paused_next = c;
    else
        paused_head = c;
    paused_tail = c;
    paused_count++;
    return true;
}

/* Runs a resumed conn's postponed command (CLIENT REPLY applies to it
 * now: it was not answered when it arrived). */
static void run_postponed(struct conn *c)
{
    struct conn_blocked *b = &c->blocked;
    char *command = b->command;
    uint64_t request = b->request;
    b->command = NULL; /* the command may block on keys or be paused: copied again */
    run_copy(c, command, b->argc, request, true, false);
    if (c->flags & (CONN_PAUSED | CONN_BLOCKED_ON_KEYS)) b->request = request;
    xfree(command);
    if (!(c->flags & CONN_CLOSED) && conn_output_limit_reached(c)) conn_drop_over_output_limit(c);
    if (blocking_has_ready()) conn_blocked_serve_ready();
}

/* Leaves the FIFO; with `keep_command` the copy stays for run_postponed. */
static void unpause_conn(struct conn *c, bool keep_command)
{
    c->flags &= ~CONN_PAUSED;
    paused_count--;
    if (!keep_command) {
        xfree(c->blocked.command);
        c->blocked.command = NULL;
    }
}

void conn_pause_forget(struct conn *c)
{
    if (!(c->flags & CONN_PAUSED)) {
        /* Released but not run yet (the resume list skips closed conns). */
        if (c->blocked.command && !(c->flags & CONN_BLOCKED_ON_KEYS)) {
            xfree(c->blocked.command);
            c->blocked.command = NULL;
        }
        return;
    }
    struct conn **link = &paused_head, *prev = NULL;
    while (*link != c) {
        prev = *link;
        link = &(*link)->blocked.paused_next;
    }
    *link = c->blocked.paused_next;
    if (paused_tail == c) paused_tail = prev;
    unpause_conn(c, false);
}

/* Hands every paused conn, in order, to the resume list: each runs its
 * command again (a pause still holding it parks it anew, at the back of
 * the new FIFO, so the order is kept). */
static void release_paused(void)
{
    struct conn *c = paused_head;
    paused_head = paused_tail = NULL;
    while (c) {
        struct conn *next = c->blocked.paused_next;
        unpause_conn(c, true);
        schedule_resume(c);
        c = next;
    }
}

/* One pause per purpose (Redis's pause_event): the pause in force is the
 * most restrictive live one, ending at the furthest end among those of
 * that type. */
static struct {
    enum session_pause type;
    int64_t end_ms;
} pauses[SESSION_PAUSE_PURPOSES];

static void pause_update(void)
{
    enum session_pause old = session_pause_type, type = SESSION_PAUSE_OFF;
    int64_t now = clock_unix_ms(), end = 0;
    for (int i = 0; i < SESSION_PAUSE_PURPOSES; i++) {
        if (pauses[i].type != SESSION_PAUSE_OFF && pauses[i].end_ms < now)
            pauses[i].type = SESSION_PAUSE_OFF; /* expired */
        if (pauses[i].type > type) type = pauses[i].type;
    }
    for (int i = 0; i < SESSION_PAUSE_PURPOSES; i++)
        if (type != SESSION_PAUSE_OFF && pauses[i].type == type && pauses[i].end_ms > end)
            end = pauses[i].end_ms;
    session_pause_type = type;
    pause_end_ms = end;
    command_hook_set(HOOK_PAUSE, type != SESSION_PAUSE_OFF);
    keyspace.expire_paused = type != SESSION_PAUSE_OFF;
    if (type < old) release_paused();
}

void session_pause(enum session_pause_purpose purpose, enum session_pause type, int64_t end_ms)
{
    if (pauses[purpose].type == SESSION_PAUSE_OFF) {
        pauses[purpose].type = type;
        pauses[purpose].end_ms = end_ms;
    } else {
        if (type > pauses[purpose].type) pauses[purpose].type = type;
        if (end_ms > pauses[purpose].end_ms) pauses[purpose].end_ms = end_ms;
    }
    pause_update();
}

void session_unpause(enum session_pause_purpose purpose)
{
    if (pauses[purpose].type == SESSION_PAUSE_OFF) return;
    pauses[purpose].type = SESSION_PAUSE_OFF;
    pause_update();
}

void conn_pause_expire(void)
{
    if (session_pause_type == SESSION_PAUSE_OFF || clock_unix_ms() <= pause_end_ms) return;
    pause_update();
    conn_blocked_resume();
}

void conn_blocked_resume(void)
{
    static bool running;
    if (!resume_head || running)
        return; /* nothing to resume (most calls); or the outer call drains the list */
    running = true;
    while (resume_head) {
        struct conn *c = resume_head;
        resume_head = c->blocked.resume_next;
        if (!resume_head) resume_tail = NULL;
        c->blocked.resume_pending = false;
        if (c->flags & CONN_CLOSED) continue;
        if (c->blocked.command && !(c->flags & (CONN_PAUSED | CONN_BLOCKED_ON_KEYS)))
            run_postponed(c);
        conn_process_input(c);
        if (!(c->flags & CONN_CLOSED)) conn_flush(c);
    }
    running = false;
}
