/* conn.c — transport-neutral connection handling; contract in conn.h. */
#include "connection/conn.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands/command.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/server.h"
#include "store/db.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Buffers shrink back to this after a burst. */
#define CONN_BUF_KEEP (16 * 1024)

static struct conn *live_head;
static size_t live_count;
static struct conn *closed_head; /* torn down, awaiting conn_reap_closed() */

struct conn *conn_executing;

struct conn *conn_create(const struct conn_transport *transport, int fd, void *transport_data)
{
    struct conn *c = xcalloc(1, sizeof *c);
    c->id = server.next_client_id++;
    c->transport = transport;
    c->fd = fd;
    c->transport_data = transport_data;
    buf_init(&c->in, CONN_READ_CHUNK);
    buf_init(&c->out, CONN_BUF_KEEP);
    resp_parser_init(&c->parser);
    reply_init(&c->reply, &c->out, PROTO_RESP2);
    c->authenticated = !auth_required();
    conn_pubsub_init(c);
    c->created_ms = c->last_interaction_ms = clock_unix_ms();
    c->next = live_head;
    if (live_head) live_head->prev = c;
    live_head = c;
    live_count++;
    return c;
}

struct conn *conn_list_head(void)
{
    return live_head;
}

size_t conn_count(void)
{
    return live_count;
}

struct conn *conn_find_by_id(uint64_t id)
{
    for (struct conn *c = live_head; c; c = c->next)
        if (c->id == id) return c;
    return NULL;
}

bool conn_is_local(const struct conn *c)
{
    if (c->fd < 0 || strcmp(c->transport->name, "unix") == 0) return true;
    const char *port = strrchr(c->addr, ':');
    size_t host_len = port ? (size_t)(port - c->addr) : strlen(c->addr);
    return (host_len == 9 && memcmp(c->addr, "127.0.0.1", 9) == 0) ||
           (host_len == 3 && memcmp(c->addr, "::1", 3) == 0);
}

bool conn_auth_required(const struct conn *c)
{
    return !c->authenticated && auth_required();
}

void conn_mark_authenticated(struct conn *c)
{
    c->authenticated = true;
}

void conn_peer_source(const struct conn *c, char *out, size_t cap)
{
    if (c->transport->peer_source)
        c->transport->peer_source(c, out, cap);
    else
        snprintf(out, cap, "%s", c->transport->name);
}

void conn_close(struct conn *c, const char *reason)
{
    if (c->flags & CONN_CLOSED) return;
    c->flags |= CONN_CLOSED;
    if (reason)
        log_verbose("closing client id=%llu addr=%s: %s", (unsigned long long)c->id, c->addr,
                    reason);
    /* The registry must never deliver to a torn-down conn. */
    conn_pubsub_release(c);
    c->transport->close(c);
    if (c->prev)
        c->prev->next = c->next;
    else
        live_head = c->next;
    if (c->next) c->next->prev = c->prev;
    live_count--;
    c->prev = NULL;
    c->next = closed_head;
    closed_head = c;
}

void conn_reap_closed(void)
{
    while (closed_head) {
        struct conn *c = closed_head;
        closed_head = c->next;
        if (c->transport->release) c->transport->release(c);
        buf_free(&c->in);
        buf_free(&c->out);
        conn_pubsub_free(c);
        resp_parser_free(&c->parser);
        xfree(c->name);
        xfree(c->lib_name);
        xfree(c->lib_ver);
        xfree(c);
    }
}

static bool conn_output_pending(const struct conn *c)
{
    return buf_len(&c->out) > 0 || buf_len(&c->push_fifo) > 0;
}

/* Writability is what resumes a paused conn (conn_on_writable), so a paused
 * conn keeps asking for it even when its output was drained elsewhere (a
 * PUBLISH writing its pushes): otherwise it would wait for nothing. */
static bool conn_wants_writable(const struct conn *c)
{
    return conn_output_pending(c) || (c->flags & CONN_PAUSED_INPUT);
}

/* Tells the transport what to report next: writability while output is
 * pending (or input is paused), readability unless paused. */
void conn_update_interest(struct conn *c)
{
    bool want_write = conn_wants_writable(c);
    bool paused = (c->flags & CONN_PAUSED_INPUT) != 0;
    c->transport->set_interest(c, !paused, want_write);
    if (want_write)
        c->flags |= CONN_WANT_WRITE;
    else
        c->flags &= ~CONN_WANT_WRITE;
}

/* Writes as much of b as the transport takes now. On a write error, closes
 * c and returns false when close_on_error, else just stops (the next
 * conn_flush() meets the error again and closes). */
static bool conn_write_buf(struct conn *c, struct buf *b, bool close_on_error)
{
    while (buf_len(b) > 0) {
        ssize_t n = c->transport->write(c, buf_head(b), buf_len(b));
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || !close_on_error) break;
            conn_close(c, strerror(errno));
            return false;
        }
        if (n == 0) break; /* a transport with no room now */
        server.stats.net_output_bytes += n;
        buf_consume(b, (size_t)n);
    }
    return true;
}

bool conn_flush(struct conn *c)
{
    /* `out` is older than `push_fifo` (see conn.h): never start the FIFO
     * while replies are still unsent. */
    if (!conn_write_buf(c, &c->out, true)) return false;
    if (buf_len(&c->out) == 0) {
        if (c->out.cap > CONN_BUF_KEEP) buf_reset(&c->out, CONN_BUF_KEEP);
        if (!conn_write_buf(c, &c->push_fifo, true)) return false;
    }
    if (!conn_output_pending(c) && (c->flags & CONN_CLOSE_AFTER_REPLY)) {
        conn_close(c, NULL);
        return false;
    }
    bool want_write = conn_wants_writable(c);
    /* Interest changes cost a syscall; make them only on transitions. */
    if (want_write != ((c->flags & CONN_WANT_WRITE) != 0)) conn_update_interest(c);
    return true;
}

void conn_write_pending_quietly(struct conn *c)
{
    if (c->flags & CONN_CLOSED) return;
    conn_write_buf(c, &c->out, false);
    if (buf_len(&c->out) == 0) conn_write_buf(c, &c->push_fifo, false);
}

/* A command may run only when its reply cannot overtake queued pushes and
 * the reply backlog is under the backpressure bound (see conn.h). */
static bool conn_may_execute(const struct conn *c)
{
    return buf_len(&c->push_fifo) == 0 && buf_len(&c->out) < CONN_OUTPUT_BACKPRESSURE;
}

/* Runs the complete commands in c's input (see conn_process_input). */
static void conn_run_commands(struct conn *c)
{
    struct resp_limits limits = {
        .proto_max_bulk_len = config.proto_max_bulk_len,
    };
    while (buf_len(&c->in) > 0 && !(c->flags & (CONN_CLOSED | CONN_CLOSE_AFTER_REPLY))) {
        if (!conn_may_execute(c)) {
            /* Try to hand the backlog to the peer before running more. */
            if (!conn_flush(c)) return;
            if (!conn_may_execute(c)) {
                if (!(c->flags & CONN_PAUSED_INPUT)) {
                    c->flags |= CONN_PAUSED_INPUT;
                    conn_update_interest(c);
                }
                return;
            }
        }
        limits.auth_required = conn_auth_required(c);
        enum resp_status st = resp_parse(&c->parser, buf_head(&c->in), buf_len(&c->in), &limits);
        if (st == RESP_INCOMPLETE) break;
        if (st == RESP_ERROR) {
            reply_error_fmt(&c->reply, "ERR %s", c->parser.error);
            c->flags |= CONN_CLOSE_AFTER_REPLY;
            server.stats.protocol_error_disconnections++;
            log_verbose("protocol error from client id=%llu addr=%s: %s", (unsigned long long)c->id,
                        c->addr, c->parser.error);
            break;
        }
        if (st == RESP_COMMAND) {
            conn_executing = c;
            command_dispatch(c, c->parser.argc, c->parser.argv, c->parser.argv_len);
            conn_executing = NULL;
        }
        buf_consume(&c->in, c->parser.consumed);
    }
    if (c->flags & CONN_CLOSED) return;
    if (buf_len(&c->in) == 0 && c->in.cap > CONN_BUF_KEEP * 4) buf_reset(&c->in, CONN_READ_CHUNK);
}

void conn_process_input(struct conn *c)
{
    conn_run_commands(c);
    /* Messages those commands published go out now, before c's own
     * replies: one write per subscriber per batch of pipelined PUBLISHes. */
    conn_write_pending_pushes();
}

/* Room for the next read: a chunk; inside a large bulk argument, as much
 * again as has arrived (the buffer doubles with data actually received,
 * never with the length a peer merely declared: one `$536870912` header
 * reserves nothing), and never room past the query-buffer limit, so what a
 * client holds reserved is bounded by that limit too. */
static void conn_make_read_room(struct conn *c)
{
    size_t len = buf_len(&c->in);
    size_t want = resp_parser_pending_bulk(&c->parser, len);
    if (want <= CONN_READ_CHUNK) {
        buf_reserve(&c->in, CONN_READ_CHUNK);
        return;
    }
    if (buf_room(&c->in) >= CONN_READ_CHUNK) return; /* fill what was reserved first */
    if (want > len) want = len;
    size_t limit = (size_t)config.client_query_buffer_limit + 1; /* one byte past closes */
    if (len + want > limit) want = limit > len ? limit - len : 1;
    if (want < CONN_READ_CHUNK) want = CONN_READ_CHUNK;
    buf_reserve_exact(&c->in, want);
}

void conn_on_readable(struct conn *c)
{
    if (c->flags & (CONN_CLOSED | CONN_PAUSED_INPUT)) return;
    if (!resp_parser_mid_command(&c->parser) && buf_len(&c->in) == 0) c->in.start = c->in.end = 0;
    conn_make_read_room(c);
    ssize_t n = c->transport->read(c, buf_tail(&c->in), buf_room(&c->in));
    if (n == 0) {
        conn_close(c, "peer closed the connection");
        return;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        conn_close(c, strerror(errno));
        return;
    }
    c->in.end += (size_t)n;
    c->last_interaction_ms = clock_unix_ms_coarse(); /* idle timeouts are in seconds */
    server.stats.net_input_bytes += n;
    if ((long long)buf_len(&c->in) > config.client_query_buffer_limit) {
        log_warning(
            "closing client id=%llu addr=%s that reached max query buffer length (%zu bytes)",
            (unsigned long long)c->id, c->addr, buf_len(&c->in));
        server.stats.query_buffer_limit_disconnections++;
        conn_close(c, NULL);
        return;
    }
    conn_process_input(c);
    if (!(c->flags & CONN_CLOSED)) conn_flush(c);
}

void conn_on_writable(struct conn *c)
{
    if (c->flags & CONN_CLOSED) return;
    if (!conn_flush(c)) return;
    if ((c->flags & CONN_PAUSED_INPUT) && buf_len(&c->out) < CONN_OUTPUT_BACKPRESSURE / 2 && buf_len(&c->push_fifo) == 0) {
        c->flags &= ~CONN_PAUSED_INPUT;
        conn_update_interest(c);
        /* Commands already buffered run now; the next read waits for epoll. */
        conn_process_input(c);
        if (!(c->flags & CONN_CLOSED)) conn_flush(c);
    }
}

void conn_feed_input(struct conn *c, const void *data, size_t len)
{
    buf_append(&c->in, data, len);
    server.stats.net_input_bytes += (long long)len;
}

void conn_close_idle(void)
{
    if (config.timeout <= 0) return;
    int64_t now = clock_unix_ms();
    struct conn *c = live_head;
    while (c) {
        struct conn *next = c->next;
        /* Subscribers wait for messages, not commands: exempt, as in Redis. */
        bool subscriber = pubsub_total_subscription_count(&c->pubsub) > 0;
        if (!subscriber && now - c->last_interaction_ms > config.timeout * 1000)
            conn_close(c, "idle timeout");
        c = next;
    }
}

void conn_reset(struct conn *c)
{
    conn_pubsub_release(c);
    c->db_index = 0;
    reply_set_protocol(&c->reply, PROTO_RESP2);
    c->authenticated = !auth_required();
    xfree(c->name);
    c->name = NULL;
}

void conn_describe(const struct conn *c, struct buf *out)
{
    char line[1024];
    int64_t now = clock_unix_ms();
    int n = snprintf(line, sizeof line,
                     "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d "
                     "sub=%zu psub=%zu ssub=%zu multi=-1 qbuf=%zu qbuf-free=%zu argv-mem=0 "
                     "multi-mem=0 "
                     "rbs=%zu rbp=0 obl=%zu oll=0 omem=%zu tot-mem=%zu events=r cmd=%s "
                     "user=default redir=-1 resp=%d lib-name=%s lib-ver=%s",
                     (unsigned long long)c->id, c->addr, c->laddr, c->fd, c->name ? c->name : "",
                     (long long)((now - c->created_ms) / 1000),
                     (long long)((now - c->last_interaction_ms) / 1000),
                     pubsub_total_subscription_count(&c->pubsub) ? "P" : "N", c->db_index,
                     dict_size(&c->pubsub.links[PUBSUB_CHANNEL]),
                     dict_size(&c->pubsub.links[PUBSUB_PATTERN]),
                     dict_size(&c->pubsub.links[PUBSUB_SHARD]), buf_len(&c->in),
                     c->in.cap - c->in.end, c->in.cap, buf_len(&c->out), c->out.cap,
                     sizeof *c + c->in.cap + c->out.cap + c->push_fifo.cap,
                     c->last_command ? c->last_command : "NULL", (int)reply_protocol(&c->reply),
                     c->lib_name ? c->lib_name : "", c->lib_ver ? c->lib_ver : "");
    buf_append(out, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
}
