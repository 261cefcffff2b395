/* shutdown.c — Redis 7.0's shutdown sequence; see shutdown.h. */
#include "server/shutdown.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands/command.h"
#include "connection/conn.h"
#include "connection/session.h"
#include "core/event_loop.h"
#include "core/server_state.h"
#include "persist/persist.h"
#include "repl/repl.h"
#include "scripting/script_lua.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* SHUTDOWN's flags, and the words of shutdown-on-sigint/-sigterm. */
enum { SHUTDOWN_SAVE = 1, SHUTDOWN_NOSAVE = 2, SHUTDOWN_NOW = 4, SHUTDOWN_FORCE = 8 };

static struct {
    char *on_sigint;
    char *on_sigterm;
    long long timeout_s; /* shutdown-timeout */
} settings;

/* The shutdown in progress (server.shutdown_deadline_ms != 0 while the
 * replicas are waited for). */
static int shutdown_flags;

/* SHUTDOWN callers blocked until the shutdown ends or fails. */
struct caller {
    struct conn *c;
    struct caller *next;
};
static struct caller *callers;

/* --- the signals ---------------------------------------------------------- */

static void on_signal(int sig)
{
    if (server.shutdown_signal && sig == SIGINT) {
        /* Ctrl+C twice: the user wants out now, without the save or the
         * replicas (Redis's "You insist"); a save in progress leaves no
         * temp file behind. */
        log_from_signal_handler("You insist... exiting now.");
        persist_remove_save_temp();
        _exit(1);
    }
    log_from_signal_handler(sig == SIGINT    ? "Received SIGINT scheduling shutdown..."
                            : sig == SIGTERM ? "Received SIGTERM scheduling shutdown..."
                                             : "Received shutdown signal, scheduling shutdown...");
    server.shutdown_signal = sig;
    ev_wake(); /* a sleeping loop acts on it now, not at its next timed wake */
}

void shutdown_install_signal_handlers(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* shutdown-on-sigint/-sigterm: Redis's flag words, any combination of
 * save, nosave, now and force ("default": none). */
static const char *const shutdown_words[] = {"save", "nosave", "now", "force"};

/* The flags of text, or -1 with the reason in *why. */
static int shutdown_flags_parse(const char *text, const char **why)
{
    int flags = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " ");
        if (n == 0) break;
        int bit = -1;
        if (n == 7 && strncasecmp(p, "default", 7) == 0) bit = 0;
        for (int i = 0; i < 4 && bit < 0; i++)
            if (strlen(shutdown_words[i]) == n && strncasecmp(p, shutdown_words[i], n) == 0)
                bit = 1 << i;
        if (bit < 0) {
            *why = "argument(s) must be one of the following: default, save, nosave, now, force";
            return -1;
        }
        flags |= bit;
        p += n;
    }
    if (strspn(text, " ") == strlen(text)) { /* no word: Redis's enum refuses it */
        *why = "argument(s) must be one of the following: default, save, nosave, now, force";
        return -1;
    }
    if ((flags & SHUTDOWN_SAVE) && (flags & SHUTDOWN_NOSAVE)) {
        *why = "shutdown options SAVE and NOSAVE can't be used simultaneously";
        return -1;
    }
    return flags;
}

static const char *validate_shutdown_flags(const char *text)
{
    const char *why = NULL;
    return shutdown_flags_parse(text, &why) < 0 ? why : NULL;
}

/* Keeps the value as Redis shows it: the words in Redis's order, or
 * "default". */
static void canonical_shutdown_flags(char **value)
{
    const char *why;
    int flags = shutdown_flags_parse(*value, &why);
    if (flags < 0) return; /* not reached: validate_shutdown_flags refused it */
    char out[32] = "";
    for (int i = 0; i < 4; i++) {
        if (!(flags & (1 << i))) continue;
        if (*out) strcat(out, " ");
        strcat(out, shutdown_words[i]);
    }
    xfree(*value);
    *value = xstrdup(*out ? out : "default");
}

/* Either row's apply: both values kept in Redis's form (a no-op for the
 * one not just set). */
static void apply_shutdown_flags(void)
{
    canonical_shutdown_flags(&settings.on_sigint);
    canonical_shutdown_flags(&settings.on_sigterm);
}

/* --- the sequence ----------------------------------------------------------- */

static void caller_answer(struct conn *c, struct reply *r, void *arg)
{
    (void)c;
    (void)arg;
    reply_error(r, "ERR Errors trying to SHUTDOWN. Check logs.");
}

static void caller_done(struct conn *c, void *arg)
{
    (void)c;
    struct caller *w = arg;
    for (struct caller **p = &callers; *p; p = &(*p)->next) {
        if (*p == w) {
            *p = w->next;
            break;
        }
    }
    xfree(w);
}

static const struct session_block_custom caller_block = {.answer = caller_answer,
                                                         .done = caller_done};

/* The shutdown did not happen: callers answered, writes resumed. */
static void cancel(void)
{
    server.shutdown_signal = 0;
    server.shutdown_deadline_ms = 0;
    shutdown_flags = 0;
    while (callers) session_unblock_custom(callers->c); /* caller_done unlinks it */
    /* The callers and the writes released run when the current batch ends
     * (SHUTDOWN ABORT) or right after housekeeping (shutdown_housekeeping). */
    session_unpause(SESSION_PAUSE_SHUTDOWN);
}

/* Redis's finishShutdown: true when the loop is stopping. */
static bool finish(void)
{
    repl_log_shutdown_sync();
    bool save = (shutdown_flags & SHUTDOWN_SAVE) ||
                (!(shutdown_flags & SHUTDOWN_NOSAVE) && persist_has_save_points());
    if (!persist_prepare_shutdown(save, shutdown_flags & SHUTDOWN_FORCE)) {
        log_warning("Errors trying to shut down the server. Check the logs for more information.");
        cancel();
        return false;
    }
    repl_flush_replicas(); /* best effort: what the replicas have not been sent yet */
    log_warning("goblin-core is now ready to exit, bye bye...");
    ev_stop();
    return true;
}

enum begin_result { BEGIN_STOPPING, BEGIN_WAITING, BEGIN_FAILED, BEGIN_ALREADY };

/* Redis's prepareForShutdown. */
static enum begin_result begin(int flags)
{
    if (server.shutdown_deadline_ms) return BEGIN_ALREADY;
    shutdown_flags = flags;
    log_warning("User requested shutdown...");
    if (!(flags & SHUTDOWN_NOW) && settings.timeout_s != 0 && !repl_replicas_in_sync()) {
        server.shutdown_deadline_ms = clock_unix_ms() + settings.timeout_s * 1000;
        if (session_pause_type == SESSION_PAUSE_OFF) repl_request_acks();
        session_pause(SESSION_PAUSE_SHUTDOWN, SESSION_PAUSE_WRITE, INT64_MAX);
        log_notice("Waiting for replicas before shutting down.");
        return BEGIN_WAITING;
    }
    return finish() ? BEGIN_STOPPING : BEGIN_FAILED;
}

static int signal_flags(int sig)
{
    const char *why;
    int flags =
        shutdown_flags_parse(sig == SIGINT ? settings.on_sigint : settings.on_sigterm, &why);
    return flags < 0 ? 0 : flags;
}

void shutdown_housekeeping(void)
{
    if (server.shutdown_signal && !server.shutdown_deadline_ms) {
        if (begin(signal_flags(server.shutdown_signal)) == BEGIN_FAILED) conn_blocked_resume();
    } else if (server.shutdown_deadline_ms) {
        if ((clock_unix_ms() >= server.shutdown_deadline_ms || repl_replicas_in_sync()) &&
            !finish())
            conn_blocked_resume(); /* cancelled: the callers' errors, the paused writes */
    }
}

/* Redis's abortShutdown: false when none was asked for. */
static bool abort_shutdown(void)
{
    if (server.shutdown_deadline_ms)
        cancel();
    else if (server.shutdown_signal)
        server.shutdown_signal = 0; /* asked for, not begun yet */
    else
        return false;
    log_notice("Shutdown manually aborted.");
    return true;
}

/* --- SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] ------------------------- */

static void cmd_shutdown(struct cmd_ctx *ctx)
{
    int flags = 0;
    bool abort_requested = false;
    for (int j = 1; j < ctx->argc; j++) {
        if (arg_equals(ctx, j, "nosave")) {
            flags |= SHUTDOWN_NOSAVE;
        } else if (arg_equals(ctx, j, "save")) {
            flags |= SHUTDOWN_SAVE;
        } else if (arg_equals(ctx, j, "now")) {
            flags |= SHUTDOWN_NOW;
        } else if (arg_equals(ctx, j, "force")) {
            flags |= SHUTDOWN_FORCE;
        } else if (arg_equals(ctx, j, "abort")) {
            abort_requested = true;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    }
    if ((abort_requested && flags) || ((flags & SHUTDOWN_NOSAVE) && (flags & SHUTDOWN_SAVE))) {
        reply_error_syntax(ctx->reply);
        return;
    }
    if (abort_requested) {
        if (abort_shutdown())
            reply_ok(ctx->reply);
        else
            reply_error(ctx->reply, "ERR No shutdown in progress.");
        return;
    }
    if (!(flags & SHUTDOWN_NOW) && (ctx->deny_blocking || !ctx->conn)) {
        reply_error(ctx->reply,
                    "ERR SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client");
        return;
    }
    if (!(flags & SHUTDOWN_NOSAVE) && script_busy_reply) { /* a busy script: only NOSAVE */
        reply_error(ctx->reply, script_busy_reply);
        return;
    }
    switch (begin(flags)) {
    case BEGIN_STOPPING: /* no reply: the connection closes as the process exits */
        return;
    case BEGIN_FAILED:
        reply_error(ctx->reply, "ERR Errors trying to SHUTDOWN. Check logs.");
        return;
    case BEGIN_WAITING:
    case BEGIN_ALREADY: {
        if (!ctx->conn) return; /* SHUTDOWN NOW joining a wait, with no caller to block */
        struct caller *w = xcalloc(1, sizeof *w);
        w->c = ctx->conn;
        w->next = callers;
        callers = w;
        session_block_custom(ctx->conn, 0, &caller_block, w);
        return;
    }
    }
}

static struct command shutdown_commands[] = {
    {.name = "shutdown",
     .arity = -1,
     .flags = CMD_ALLOW_BUSY | CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_shutdown,
     .summary = "Synchronously saves the database(s) to disk and shuts down the server.",
     .since = "1.0.0",
     .group = "server",
     .complexity = "O(N) when saving, where N is the total number of keys in all databases"},
    COMMAND_END,
};

void shutdown_init(void)
{
    command_add_family(shutdown_commands);
}

/* --- settings (core/config.h) ---------------------------------------- */

static void shutdown_defaults(void)
{
    settings.on_sigint = xstrdup("default");
    settings.on_sigterm = xstrdup("default");
    settings.timeout_s = 10;
}

static const struct config_param shutdown_params[] = {
    {.name = "shutdown-on-sigint",
     .kind = CFG_STRING,
     .value = &settings.on_sigint,
     .flags = CFG_MULTI_ARG,
     .value_name = "default|[save|nosave] [now] [force]",
     .help = "what SIGINT's shutdown does, as SHUTDOWN's flags: save, nosave, or as the save "
             "points say (default); now skips the replica wait, force exits when the save fails",
     .validate = validate_shutdown_flags,
     .apply = apply_shutdown_flags},
    {.name = "shutdown-on-sigterm",
     .kind = CFG_STRING,
     .value = &settings.on_sigterm,
     .flags = CFG_MULTI_ARG,
     .value_name = "default|[save|nosave] [now] [force]",
     .help = "what SIGTERM's shutdown does, as shutdown-on-sigint",
     .validate = validate_shutdown_flags,
     .apply = apply_shutdown_flags},
    {.name = "shutdown-timeout",
     .kind = CFG_INT,
     .value = &settings.timeout_s,
     .min = 0,
     .max = INT_MAX,
     .value_name = "SECONDS",
     .help = "how long a shutdown waits, writes paused, for the replicas to acknowledge the "
             "whole stream (0: no wait; default 10)"},
};

const struct config_table shutdown_config = CONFIG_TABLE(shutdown_params, shutdown_defaults);
