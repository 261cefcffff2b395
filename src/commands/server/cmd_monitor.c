/*
 * cmd_monitor.c — MONITOR, and the line every monitor gets per command:
 * Redis 7.0's `+<sec>.<usec> [<db> <addr>] "arg" "arg"...`, arguments quoted
 * as Redis's sdscatrepr does, AUTH's (and HELLO's AUTH pair) replaced by
 * "(redacted)". Fed by command_call() after the command ran, except for
 * admin commands, as Redis does; EVAL and FCALL (skip_monitor) feed their
 * line as they start, and a script's own commands follow it as from
 * "lua" (Redis's script client); delivery and its bound are the connection
 * layer's (conn_monitor_feed).
 */
#include "commands/monitor.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

#include "commands/command.h"
#include "connection/session.h"
#include "util/buf.h"

/* The line being built; kept between commands (no allocation once grown). */
static struct buf line;

static void put(const char *p, size_t n)
{
    buf_reserve(&line, n);
    memcpy(buf_tail(&line), p, n);
    line.end += n;
}

static void put_quoted(const char *p, size_t n)
{
    put("\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        char esc[5];
        switch (ch) {
        case '\\':
            put("\\\\", 2);
            break;
        case '"':
            put("\\\"", 2);
            break;
        case '\n':
            put("\\n", 2);
            break;
        case '\r':
            put("\\r", 2);
            break;
        case '\t':
            put("\\t", 2);
            break;
        case '\a':
            put("\\a", 2);
            break;
        case '\b':
            put("\\b", 2);
            break;
        default:
            if (isprint(ch)) {
                put((const char *)&ch, 1);
            } else {
                snprintf(esc, sizeof esc, "\\x%02x", ch);
                put(esc, 4);
            }
        }
    }
    put("\"", 1);
}

static void monitor_feed_line(const struct cmd_ctx *ctx)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    char head[160];
    int n = snprintf(head, sizeof head, "+%ld.%06ld [%d %s] ", (long)tv.tv_sec, (long)tv.tv_usec,
                     session_db_index(ctx->conn), /* after SELECT: its new db, as Redis */
                     ctx->script_caller ? "lua" : session_addr(ctx->conn));
    line.start = line.end = 0;
    put(head, (size_t)n);
    for (int i = 0; i < ctx->argc; i++) {
        if (command_arg_redacted(ctx, i))
            put("\"(redacted)\"", 12);
        else
            put_quoted(ctx->argv[i], ctx->argv_len[i]);
        if (i != ctx->argc - 1) put(" ", 1);
    }
    put("\r\n", 2);
    session_monitor_feed(buf_head(&line), buf_len(&line));
}

void monitor_feed_command(const struct cmd_ctx *ctx)
{
    if (ctx->cmd->flags & (CMD_ADMIN | CMD_SKIP_MONITOR)) return;
    monitor_feed_line(ctx);
}

void monitor_feed_script_call(const struct cmd_ctx *ctx)
{
    if (__builtin_expect(conn_monitor_count != 0, 0)) monitor_feed_line(ctx);
}

static void cmd_monitor(struct cmd_ctx *ctx)
{
    /* Already a monitor: Redis answers nothing. */
    if (session_monitor_start(ctx->conn)) reply_ok(ctx->reply);
}

struct command monitor_commands[] = {
    {.name = "monitor",
     .arity = 1,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE,
     .fn = cmd_monitor,
     .summary = "Listen for all requests received by the server in real time",
     .since = "1.0.0",
     .group = "server",
     .complexity = ""},
    COMMAND_END,
};
