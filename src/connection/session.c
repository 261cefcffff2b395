/* session.c — the commands layer's view of a connection; contract in session.h. */
#include "connection/session.h"

#include <stdio.h>
#include <string.h>

#include "connection/conn.h"
#include "core/auth.h"
#include "util/clock.h"
#include "util/xmalloc.h"

uint64_t session_id(const struct conn *c)
{
    return c->id;
}

void session_select_db(struct conn *c, int index)
{
    c->db_index = index;
}

void session_set_reply_mode(struct conn *c, enum session_reply_mode mode)
{
    switch (mode) {
    case SESSION_REPLY_ON:
        c->flags &= ~(CONN_REPLY_OFF | CONN_REPLY_SKIP | CONN_REPLY_SKIP_NEXT);
        break;
    case SESSION_REPLY_OFF:
        c->flags |= CONN_REPLY_OFF;
        break;
    case SESSION_REPLY_SKIP:
        if (!(c->flags & CONN_REPLY_OFF)) c->flags |= CONN_REPLY_SKIP_NEXT;
        break;
    }
}

void session_reply_is_push(struct conn *c)
{
    if (c) c->flags |= CONN_REPLY_PUSHED;
}

void *session_ext(const struct conn *c, int slot)
{
    return c->ext[slot];
}

void session_set_ext(struct conn *c, int slot, void *state)
{
    c->ext[slot] = state;
}

void session_set_text_argv(struct conn *c, bool on)
{
    if (on)
        c->flags |= CONN_TEXT_ARGV;
    else
        c->flags &= ~CONN_TEXT_ARGV;
}

int session_db_index(const struct conn *c)
{
    return c->db_index;
}

void session_set_asking(struct conn *c, bool on)
{
    if (on)
        c->flags |= CONN_ASKING;
    else
        c->flags &= ~CONN_ASKING;
}

void session_protect(struct conn *c, bool on)
{
    if (on)
        c->flags |= CONN_PROTECTED;
    else
        c->flags &= ~CONN_PROTECTED;
}

bool session_asking(const struct conn *c)
{
    return c->flags & CONN_ASKING;
}

void session_set_readonly(struct conn *c, bool on)
{
    if (on)
        c->flags |= CONN_READONLY;
    else
        c->flags &= ~CONN_READONLY;
}

bool session_readonly(const struct conn *c)
{
    return c->flags & CONN_READONLY;
}

void session_set_protocol(struct conn *c, enum proto proto)
{
    /* The wire decides: HELLO/RESET switch RESP2/RESP3, SBE keeps its own. */
    reply_set_encoder(&c->reply, wire_encoder(c->wire ? c->wire : &resp_wire, proto));
}

enum proto session_protocol(const struct conn *c)
{
    return reply_protocol(&c->reply);
}

static void set_owned_string(char **slot, const char *s, size_t n)
{
    xfree(*slot);
    *slot = n ? xmemdup(s, n) : NULL;
}

void session_mark_authenticated(struct conn *c, const char *user, size_t user_len)
{
    c->authenticated = true;
    /* "default" is the NULL user: no copy for the common case. */
    if (user_len == 7 && memcmp(user, "default", 7) == 0) user_len = 0;
    set_owned_string(&c->user, user, user_len);
}

bool session_auth_required(const struct conn *c)
{
    return conn_auth_required(c);
}

void session_peer_source(const struct conn *c, char *out, size_t cap)
{
    conn_peer_source(c, out, cap);
}

bool session_is_local(const struct conn *c)
{
    return conn_is_local(c);
}

void session_close_after_reply(struct conn *c)
{
    c->flags |= CONN_CLOSE_AFTER_REPLY;
}

void session_reset(struct conn *c)
{
    conn_pubsub_release(c);
    conn_tracking_forget(c);
    session_select_db(c, 0);
    session_set_protocol(c, PROTO_RESP2);
    c->authenticated = conn_starts_authenticated(c);
    set_owned_string(&c->user, NULL, 0);
    set_owned_string(&c->name, NULL, 0);
}

const char *session_name(const struct conn *c)
{
    return c->name;
}

void session_set_name(struct conn *c, const char *name, size_t len)
{
    set_owned_string(&c->name, name, len);
}

void session_set_lib_name(struct conn *c, const char *name, size_t len)
{
    set_owned_string(&c->lib_name, name, len);
}

void session_set_lib_version(struct conn *c, const char *version, size_t len)
{
    set_owned_string(&c->lib_ver, version, len);
}

/* --- Pub/Sub -------------------------------------------------------------- */

bool session_in_resp2_subscribed_mode(const struct conn *c)
{
    return conn_in_resp2_subscribed_mode(c);
}

bool session_monitor_start(struct conn *c)
{
    return conn_monitor_start(c);
}

void session_monitor_feed(const char *line, size_t len)
{
    conn_monitor_feed(line, len);
}

bool session_subscribe(struct conn *c, enum pubsub_kind kind, const char *name, size_t len)
{
    return conn_subscribe(c, kind, name, len);
}

struct pubsub_subscriber *session_subscriber(struct conn *c)
{
    return &c->pubsub;
}

long long session_publish(enum pubsub_kind kind, const char *channel, size_t channel_len,
                          const char *payload, size_t payload_len)
{
    return conn_publish(kind, channel, channel_len, payload, payload_len);
}

/* --- every client ----------------------------------------------------------- */

size_t session_client_count(void)
{
    return conn_count() - conn_replica_link_count(); /* Redis: replicas are not clients */
}

void session_foreach_client(bool (*fn)(struct conn *c, void *arg), void *arg)
{
    struct conn *c = conn_list_head();
    while (c) {
        /* Read before fn: a killed conn leaves the live list (conn_close). */
        struct conn *next = c->next;
        if (!fn(c, arg)) return;
        c = next;
    }
}

struct conn *session_find_client(uint64_t id)
{
    return conn_find_by_id(id);
}

void session_kill(struct conn *victim, struct conn *caller, const char *reason)
{
    if (victim == caller)
        session_close_after_reply(victim);
    else
        conn_close(victim, reason);
}

enum session_client_type session_client_type(const struct conn *c)
{
    if (c->flags & CONN_REPLICA) return SESSION_CLIENT_REPLICA;
    if (c->flags & CONN_MASTER) return SESSION_CLIENT_MASTER;
    return pubsub_total_subscription_count(&c->pubsub) > 0 ? SESSION_CLIENT_PUBSUB
                                                           : SESSION_CLIENT_NORMAL;
}

const char *session_addr(const struct conn *c)
{
    return c->addr;
}

const char *session_laddr(const struct conn *c)
{
    return c->laddr;
}

const char *session_user(const struct conn *c)
{
    return c->user ? c->user : "default";
}

void session_set_no_evict(struct conn *c, bool on)
{
    if (on)
        c->flags |= CONN_NO_EVICT;
    else
        c->flags &= ~CONN_NO_EVICT;
}

size_t session_memory(const struct conn *c)
{
    size_t big_cap = c->big_arg ? c->big_arg->cap : 0;
    return sizeof *c + c->in.cap + big_cap + c->out.cap + c->push_fifo.cap;
}

static bool add_client_memory(struct conn *c, void *arg)
{
    size_t *totals = arg;
    totals[(c->flags & CONN_REPLICA) ? 1 : 0] += session_memory(c);
    return true;
}

struct buffer_maxima {
    size_t in, out;
};

static bool note_buffers(struct conn *c, void *arg)
{
    struct buffer_maxima *m = arg;
    size_t in = c->in.cap + (c->big_arg ? c->big_arg->cap : 0), out = conn_output_bytes(c);
    if (in > m->in) m->in = in;
    if (out > m->out) m->out = out;
    return true;
}

void session_clients_max_buffers(size_t *in, size_t *out)
{
    struct buffer_maxima m = {0, 0};
    session_foreach_client(note_buffers, &m);
    *in = m.in;
    *out = m.out;
}

void session_clients_memory(size_t *normal, size_t *replicas)
{
    size_t totals[2] = {0, 0};
    session_foreach_client(add_client_memory, totals);
    *normal = totals[0];
    *replicas = totals[1];
}

void session_describe(const struct conn *c, struct buf *out)
{
    int64_t now = clock_unix_ms();
    /* A big argument being received counts as query buffer, as in Redis. */
    size_t big_free = c->big_arg ? c->big_arg->cap - c->big_arg->len : 0;
    /* Names and library fields are unbounded: appended as they are, never
     * through a fixed-size line. */
    buf_append_fmt(out, "id=%llu addr=%s laddr=%s fd=%d name=", (unsigned long long)c->id, c->addr,
                   c->laddr, c->io.fd);
    if (c->name) buf_append(out, c->name, strlen(c->name));
    /* Redis's letters, in its order; N when none applies. */
    char flags[16], *f = flags;
    if (c->flags & CONN_REPLICA) *f++ = 'S';
    if (c->flags & CONN_MASTER) *f++ = 'M';
    if (session_client_type(c) == SESSION_CLIENT_PUBSUB) *f++ = 'P';
    if (c->flags & (CONN_BLOCKED_ON_KEYS | CONN_PAUSED)) *f++ = 'b';
    session_tracking_flags(c, &f);
    if (c->flags & CONN_READONLY) *f++ = 'r';
    if (c->flags & CONN_NO_EVICT) *f++ = 'e';
    if (f == flags) *f++ = 'N';
    *f = '\0';
    buf_append_fmt(out,
                   " age=%lld idle=%lld flags=%s db=%d sub=%zu psub=%zu ssub=%zu multi=-1 "
                   "qbuf=%zu qbuf-free=%zu argv-mem=0 multi-mem=0 rbs=%zu rbp=%zu obl=%zu oll=0 "
                   "omem=%zu tot-mem=%zu events=r cmd=%s user=%s redir=%lld resp=%d lib-name=",
                   (long long)((now - c->created_ms) / 1000),
                   (long long)((now - c->last_interaction_ms) / 1000), flags, c->db_index,
                   dict_size(&c->pubsub.links[PUBSUB_CHANNEL]),
                   dict_size(&c->pubsub.links[PUBSUB_PATTERN]),
                   dict_size(&c->pubsub.links[PUBSUB_SHARD]), conn_query_bytes(c),
                   c->in.cap - c->in.end + big_free, conn_reply_buffer_size(c),
                   conn_reply_buffer_peak(c), buf_len(&c->out), conn_output_bytes(c),
                   session_memory(c), c->last_command ? c->last_command : "NULL", session_user(c),
                   session_tracking_redirect(c), (int)session_protocol(c));
    if (c->lib_name) buf_append(out, c->lib_name, strlen(c->lib_name));
    buf_append(out, " lib-ver=", 9);
    if (c->lib_ver) buf_append(out, c->lib_ver, strlen(c->lib_ver));
}
