/*
 * master.c — the master side of replication: replicas, full and partial
 * synchronisation, the stream, acknowledgements, WAIT; contract in repl.h.
 *
 * A replica's life, as Redis 7.0's replstate:
 *   WAIT_BGSAVE_START  it asked for a full sync; no RDB child for it yet
 *                      (another child runs, or a diskless sync waits
 *                      repl-diskless-sync-delay for more replicas);
 *   WAIT_BGSAVE_END    +FULLRESYNC sent; the child writes its RDB; the
 *                      stream from the fork on collects in `pending`;
 *   SEND_BULK          disk sync: the file goes out a chunk at a time;
 *   ONLINE             the stream goes straight to the conn's output. A
 *                      diskless replica holds it in `pending` until its
 *                      first REPLCONF ACK (Redis's repl_start_cmd_stream_on_ack),
 *                      so the RDB's end mark is not glued to the stream.
 *
 * This file uses the connection layer's internals (conn.h), as transports
 * do: a replica link is a conn whose output this module feeds.
 */
#include "repl/repl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connection/conn.h"
#include "connection/session.h"
#include "core/command_hooks.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/propagation.h"
#include "core/server_state.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "repl/backlog.h"
#include "repl/repl_internal.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/numparse.h"
#include "util/rand.h"
#include "util/stats.h"
#include "util/xmalloc.h"

/* A replica's output moves on (a file chunk, a pipe read) only while less
 * than this is unsent, so a slow replica holds one chunk, not the file. */
#define BULK_CHUNK (64 * 1024)
#define DISKLESS_HOLD (1024 * 1024)
#define EOF_MARK_LEN 40

struct repl_settings repl_settings = {
    .backlog_size = 1024 * 1024,
    .backlog_ttl = 3600,
    .diskless_sync = true,
    .diskless_sync_delay = 5,
    .ping_replica_period = 10,
    .timeout = 60,
    .min_replicas_max_lag = 10,
};

enum replica_state {
    REPLICA_WAIT_BGSAVE_START,
    REPLICA_WAIT_BGSAVE_END,
    REPLICA_SEND_BULK,
    REPLICA_ONLINE,
};

/* REPLCONF rdb-filter-only: what the RDB of an rdb-only replica holds. */
enum rdb_filter { FILTER_ALL, FILTER_FUNCTIONS, FILTER_NOTHING };

struct replica {
    struct conn *c;
    enum replica_state state;
    bool pre_psync;     /* SYNC (no +FULLRESYNC line) */
    bool capa_eof;      /* REPLCONF capa eof: takes a diskless RDB */
    bool capa_psync2;   /* REPLCONF capa psync2: +CONTINUE carries the id */
    bool rdb_only;      /* REPLCONF rdb-only 1 (redis-cli --rdb): closed after the RDB */
    bool stream_on_ack; /* online, the stream held until the first ACK */
    bool diskless;      /* a target of the running diskless transfer */
    bool dirty;         /* output added since the last flush */
    enum rdb_filter filter;
    long long initial_offset; /* the stream offset its RDB reflects */
    long long ack_offset;
    int64_t ack_ms;   /* last REPLCONF ACK (or going online) */
    int64_t since_ms; /* when it asked for the sync */
    int listening_port;
    char ip[64];           /* REPLCONF ip-address, else the peer's */
    struct buf pending;    /* stream bytes not yet in the conn's output */
    int64_t soft_since_ms; /* over the replica soft limit since, 0: not */
    int bulk_fd;           /* disk sync: the RDB file */
    long long bulk_off, bulk_size;
    struct replica *next;
};

/* A conn's replication state, in its extension slot (session.h): the
 * REPLCONF options, which arrive before SYNC/PSYNC on a conn that is not a
 * replica yet, and the replica it becomes. The slot's destructor (the conn
 * closing) forgets both. */
struct link_options {
    struct conn *c;
    struct replica *replica; /* NULL until SYNC/PSYNC */
    int listening_port;
    char ip[64];
    bool capa_eof, capa_psync2, rdb_only;
    enum rdb_filter filter;
};
static int link_slot = -1;

static struct {
    struct backlog backlog;
    char replid2[41];
    long long second_offset; /* -1: no second id */
    int stream_db;           /* database of the stream's last SELECT, -1: none yet */
    struct replica *replicas;
    int count;
    bool flush_pending;  /* some replica has unflushed output or a bulk to pump */
    bool getack_pending; /* a WAIT wants acks: REPLCONF GETACK after this batch */
    int64_t no_replicas_since_ms;
    int64_t last_cron_ms;
    long long cron_runs;
    int good_replicas;
    /* the running replication child */
    bool child_running;
    bool child_diskless;
    enum rdb_filter child_filter;
    int pipe_fd; /* diskless: the read end, -1 when none */
    bool pipe_paused, pipe_eof, child_done, child_ok;
    char eof_mark[EOF_MARK_LEN + 1];
    struct ev_handler pipe_handler;
} m = {.second_offset = -1, .stream_db = -1, .pipe_fd = -1};

static void start_bgsave(void);

/* The replication AUX fields of every snapshot while there is a history
 * (Redis's rdbSaveInfoAuxFields; a SELECT-less stream says database 0). */
static void write_repl_aux(struct rdb_writer *w)
{
    char num[32];
    int db = repl_stream_db();
    snprintf(num, sizeof num, "%d", db < 0 ? 0 : db);
    rdb_write_aux_field(w, "repl-stream-db", num);
    rdb_write_aux_field(w, "repl-id", server.repl_id);
    snprintf(num, sizeof num, "%lld", m.backlog.offset);
    rdb_write_aux_field(w, "repl-offset", num);
}

const char *repl_id(void)
{
    return server.repl_id;
}

long long repl_offset(void)
{
    return m.backlog.offset;
}

static void clear_id2(void)
{
    memset(m.replid2, '0', 40);
    m.replid2[40] = '\0';
    m.second_offset = -1;
}

void repl_change_id(void)
{
    server_change_repl_id();
}

/* --- the stream ---------------------------------------------------------- */

/* repl_flush_replicas() runs at the end of this loop pass (EV_PASS_REPLICAS). */
static void request_flush(void)
{
    m.flush_pending = true;
    ev_pass_request(EV_PASS_REPLICAS);
}

static void mark_dirty(struct replica *r)
{
    r->dirty = true;
    request_flush();
}

/* Appends stream bytes to the backlog and to every replica past its fork. */
static void stream_emit(const char *p, size_t n)
{
    backlog_feed(&m.backlog, p, n);
    for (struct replica *r = m.replicas; r; r = r->next) {
        if (r->state == REPLICA_WAIT_BGSAVE_START) continue; /* its stream starts at its fork */
        /* redis-cli --rdb takes the RDB alone: a byte after the EOF mark
         * would hide the mark from it. */
        if (r->rdb_only) continue;
        if (r->state == REPLICA_ONLINE && !r->stream_on_ack) {
            buf_append(&r->c->out, p, n);
            repl_stats.output_bytes += (long long)n;
        } else {
            buf_append(&r->pending, p, n);
        }
        mark_dirty(r);
    }
}

/* --- the history as a replica moves it (repl_internal.h) ------------------ */

int repl_stream_db(void)
{
    return repl_is_replica ? repl_replica_stream_db() : m.stream_db;
}

void repl_disconnect_replicas(void)
{
    while (m.replicas) conn_close(m.replicas->c, "the replication history changed");
}

void repl_history_adopt(const char *replid, long long offset)
{
    repl_disconnect_replicas();
    memcpy(server.repl_id, replid, 40);
    server.repl_id[40] = '\0';
    clear_id2();
    if (m.backlog.ring) backlog_free(&m.backlog);
    m.backlog.offset = offset;
    backlog_create(&m.backlog, (size_t)repl_settings.backlog_size);
    rdb_repl_aux = write_repl_aux;
    m.no_replicas_since_ms = clock_unix_ms();
}

void repl_history_continue(const char *newid)
{
    memcpy(m.replid2, server.repl_id, 41);
    m.second_offset = m.backlog.offset + 1;
    memcpy(server.repl_id, newid, 40);
    server.repl_id[40] = '\0';
    repl_disconnect_replicas();
}

void repl_history_shift(void)
{
    memcpy(m.replid2, server.repl_id, 41);
    m.second_offset = m.backlog.offset + 1;
    server_change_repl_id();
    repl_disconnect_replicas();
    m.stream_db = -1; /* the new stream starts with a SELECT */
    if (m.backlog.ring) propagation_add_consumer(repl_feed, true);
    log_notice("Setting secondary replication ID to %s, valid up to offset: %lld. New "
               "replication ID is %s",
               m.replid2, m.second_offset, server.repl_id);
}

void repl_stream_proxy(const char *p, size_t n)
{
    stream_emit(p, n);
}

void repl_feed(int db, const char *resp, size_t len)
{
    if (!m.backlog.ring) return;
    if (db != m.stream_db) {
        char select[64];
        char num[16];
        int nlen = snprintf(num, sizeof num, "%d", db);
        int slen =
            snprintf(select, sizeof select, "*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n", nlen, num);
        stream_emit(select, (size_t)slen);
        m.stream_db = db;
    }
    stream_emit(resp, len);
}

/* --- replicas ------------------------------------------------------------- */

static struct link_options *options_of(struct conn *c, bool create)
{
    struct link_options *o = session_ext(c, link_slot);
    if (o || !create) return o;
    o = xcalloc(1, sizeof *o);
    o->c = c;
    session_set_ext(c, link_slot, o);
    return o;
}

static struct replica *replica_of(struct conn *c)
{
    struct link_options *o = options_of(c, false);
    return o ? o->replica : NULL;
}

/* The replica's address as INFO and ROLE show it. */
static void replica_ip(const struct replica *r, char *out, size_t cap)
{
    if (r->ip[0]) {
        snprintf(out, cap, "%s", r->ip);
        return;
    }
    const char *addr = r->c->addr;
    const char *colon = strrchr(addr, ':');
    size_t n = colon ? (size_t)(colon - addr) : strlen(addr);
    if (n && addr[0] == '[' && addr[n - 1] == ']') { /* [v6]:port */
        addr++;
        n -= 2;
    }
    snprintf(out, cap, "%.*s", (int)n, addr);
}

static void refresh_good_replicas(void)
{
    int good = 0;
    int64_t now = clock_unix_ms();
    for (struct replica *r = m.replicas; r; r = r->next)
        if (r->state == REPLICA_ONLINE &&
            (now - r->ack_ms) / 1000 <= repl_settings.min_replicas_max_lag)
            good++;
    m.good_replicas = good;
}

static void replica_free(struct replica *r)
{
    if (r->bulk_fd >= 0) close(r->bulk_fd);
    buf_free(&r->pending);
    xfree(r);
}

/* The slot's destructor: the conn is closing. */
static void link_options_destroy(void *state)
{
    struct link_options *o = state;
    struct replica *r = o->replica;
    xfree(o);
    if (!r) return;
    for (struct replica **p = &m.replicas; *p; p = &(*p)->next) {
        if (*p != r) continue;
        *p = r->next;
        m.count--;
        if (r->state == REPLICA_ONLINE)
            log_notice("Connection with replica %s lost.", conn_addr(r->c));
        replica_free(r);
        if (m.count == 0) m.no_replicas_since_ms = clock_unix_ms();
        refresh_good_replicas();
        return;
    }
}

void repl_master_init(void)
{
    link_slot = session_ext_register(link_options_destroy);
}

static void replica_drop(struct replica *r, const char *why)
{
    log_warning("Replica %s: %s; closing its link", r->c->addr, why);
    conn_close(r->c, why); /* link_options_destroy frees r */
}

/* The stream waiting in `pending` follows what the conn has sent. */
static void replica_release_pending(struct replica *r)
{
    if (buf_len(&r->pending)) {
        buf_append(&r->c->out, buf_head(&r->pending), buf_len(&r->pending));
        repl_stats.output_bytes += (long long)buf_len(&r->pending);
    }
    buf_reset(&r->pending, 0);
    mark_dirty(r);
}

static void replica_online(struct replica *r, bool hold_stream)
{
    r->state = REPLICA_ONLINE;
    r->ack_ms = clock_unix_ms();
    if (r->rdb_only) {
        /* redis-cli --rdb: the RDB was all it asked for. */
        session_close_after_reply(r->c);
        mark_dirty(r);
        return;
    }
    log_notice("Synchronization with replica %s succeeded", r->c->addr);
    r->stream_on_ack = hold_stream;
    if (!hold_stream) replica_release_pending(r);
    refresh_good_replicas();
}

/* The replica's RDB reflects the stream up to `offset`: +FULLRESYNC (not
 * for SYNC), and the stream from here on collects for it. */
static void replica_setup_full_resync(struct replica *r, long long offset)
{
    r->initial_offset = offset;
    r->state = REPLICA_WAIT_BGSAVE_END;
    buf_truncate(&r->pending, 0);
    m.stream_db = -1; /* its stream must start with a SELECT */
    if (!r->pre_psync)
        buf_append_fmt(&r->c->out, "+FULLRESYNC %s %lld\r\n", server.repl_id, offset);
    mark_dirty(r);
}

/* Whether the replica's output (unsent and pending) is past the replica
 * class of client-output-buffer-limit: the hard limit at once, the soft
 * one held for its seconds. While the RDB goes out its bytes do not count
 * (the relay and the file pump bound them), only the stream collected
 * meanwhile, as Redis counts a replica's buffer. */
static bool replica_over_limit(struct replica *r)
{
    const struct output_limit *l = &config.output_limits[OUTPUT_LIMIT_REPLICA];
    bool rdb_out = r->diskless || r->state == REPLICA_SEND_BULK;
    unsigned long long used = (rdb_out ? 0 : conn_output_bytes(r->c)) + buf_len(&r->pending);
    if (l->hard && used >= l->hard) return true;
    if (!l->soft || used < l->soft) {
        r->soft_since_ms = 0;
        return false;
    }
    int64_t now = clock_unix_ms();
    if (!r->soft_since_ms) r->soft_since_ms = now;
    return now - r->soft_since_ms > l->soft_seconds * 1000;
}

/* Disk sync: moves the file into the output a chunk at a time, writing
 * each (up to BULK_BURST chunks per call, then leaving one unsent so the
 * loop is woken when the socket can take it), until the socket is full:
 * its writability brings the next call. */
#define BULK_BURST 16

static bool replica_read_chunk(struct replica *r);

/* False when r was dropped (and freed). */
static bool replica_pump_bulk(struct replica *r)
{
    struct conn *c = r->c;
    for (int i = 0; i < BULK_BURST && r->state == REPLICA_SEND_BULK; i++) {
        if (buf_len(&c->out) < BULK_CHUNK && !replica_read_chunk(r)) return false;
        if (r->state != REPLICA_SEND_BULK) return true; /* the file is out */
        if (!conn_flush(c)) return false;
        if (buf_len(&c->out)) return true; /* the socket is full: writability resumes */
    }
    if (r->state == REPLICA_SEND_BULK && buf_len(&c->out) < BULK_CHUNK) {
        if (!replica_read_chunk(r)) return false;
        if (r->state == REPLICA_SEND_BULK) conn_update_interest(c);
    }
    return true;
}

/* False when r was dropped (and freed). */
static bool replica_read_chunk(struct replica *r)
{
    while (r->state == REPLICA_SEND_BULK && buf_len(&r->c->out) < BULK_CHUNK) {
        size_t want = BULK_CHUNK;
        if ((long long)want > r->bulk_size - r->bulk_off)
            want = (size_t)(r->bulk_size - r->bulk_off);
        buf_reserve(&r->c->out, want);
        ssize_t n = want ? pread(r->bulk_fd, buf_tail(&r->c->out), want, r->bulk_off) : 0;
        if (n < 0 || (n == 0 && want)) {
            replica_drop(r, n < 0 ? strerror(errno) : "the RDB file shrank while being sent");
            return false;
        }
        r->c->out.end += (size_t)n;
        r->bulk_off += n;
        repl_stats.output_bytes += n;
        if (r->bulk_off == r->bulk_size) {
            close(r->bulk_fd);
            r->bulk_fd = -1;
            replica_online(r, false);
        }
    }
    mark_dirty(r);
    return true;
}

/* --- WAIT ---------------------------------------------------------------- */

struct waiter {
    struct conn *c;
    long long offset;
    long long numreplicas;
    struct waiter *next;
};
static struct waiter *waiters;

static long long acks_at(long long offset)
{
    long long n = 0;
    for (struct replica *r = m.replicas; r; r = r->next)
        if (r->state == REPLICA_ONLINE && !r->rdb_only && r->ack_offset >= offset) n++;
    return n;
}

static void waiter_answer(struct conn *c, struct reply *r, void *arg)
{
    (void)c;
    struct waiter *w = arg;
    reply_int(r, acks_at(w->offset));
}

static void waiter_done(struct conn *c, void *arg)
{
    (void)c;
    for (struct waiter **p = &waiters; *p; p = &(*p)->next) {
        if (*p == arg) {
            *p = (*p)->next;
            break;
        }
    }
    xfree(arg);
}

static const struct session_block_custom waiter_block = {waiter_answer, waiter_done};

void repl_wait(struct conn *c, struct reply *r, long long numreplicas, long long timeout_ms,
               bool may_block)
{
    /* The stream up to now holds every write c made (Redis keeps c's own
     * last write offset; the whole stream is a later or equal point). */
    long long target = m.backlog.offset;
    long long acked = acks_at(target);
    if (acked >= numreplicas || !may_block || !c) {
        reply_int(r, acked);
        return;
    }
    struct waiter *w = xcalloc(1, sizeof *w);
    w->c = c;
    w->offset = target;
    w->numreplicas = numreplicas;
    w->next = waiters;
    waiters = w;
    session_block_custom(c, timeout_ms ? clock_unix_ms() + timeout_ms : 0, &waiter_block, w);
    m.getack_pending = true;
    request_flush();
}

/* Answers the WAITs the acks now satisfy (after a batch). */
static void waiters_serve(void)
{
    bool any = false;
    for (struct waiter *w = waiters, *next; w; w = next) {
        next = w->next;
        if (acks_at(w->offset) >= w->numreplicas) {
            session_unblock_custom(w->c); /* frees w (waiter_done) */
            any = true;
        }
    }
    if (any) conn_blocked_resume();
}

/* --- acknowledgements and options ---------------------------------------- */

void repl_master_ack(struct conn *c, long long offset)
{
    struct replica *r = replica_of(c);
    if (!r) return;
    if (offset > r->ack_offset) r->ack_offset = offset;
    r->ack_ms = clock_unix_ms();
    if (r->state == REPLICA_ONLINE && r->stream_on_ack) {
        r->stream_on_ack = false;
        replica_release_pending(r);
    }
    if (waiters || repl_failover_state == FAILOVER_WAIT_FOR_SYNC) request_flush();
}

static bool parse_ll(const char *p, size_t n, long long *out)
{
    char tmp[32];
    if (n == 0 || n >= sizeof tmp) return false;
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    long long v = strtoll(tmp, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

static bool word_is(const char *p, size_t n, const char *word)
{
    return n == strlen(word) && strncasecmp(p, word, n) == 0;
}

bool repl_master_replconf(struct conn *c, const char *opt, size_t opt_len, const char *val,
                          size_t val_len, bool *reply_ok, const char **err)
{
    long long v;
    struct replica *r = replica_of(c);
    *reply_ok = true;
    if (word_is(opt, opt_len, "ack")) {
        /* Replicas only; never answered. */
        *reply_ok = false;
        if (r && parse_ll(val, val_len, &v)) repl_master_ack(c, v);
        return true;
    }
    if (word_is(opt, opt_len, "getack")) {
        *reply_ok = false; /* answered by an ACK, after the batch */
        if (repl_is_replica && repl_conn_is_master(c)) repl_replica_getack();
        return true;
    }
    struct link_options *o = options_of(c, true);
    if (word_is(opt, opt_len, "listening-port")) {
        if (!parse_ll(val, val_len, &v)) {
            *err = "ERR value is not an integer or out of range";
            return false;
        }
        o->listening_port = (int)v;
    } else if (word_is(opt, opt_len, "ip-address")) {
        if (val_len >= sizeof o->ip) {
            *err = "ERR REPLCONF ip-address provided by replica instance is too long";
            return false;
        }
        memcpy(o->ip, val, val_len);
        o->ip[val_len] = '\0';
    } else if (word_is(opt, opt_len, "capa")) {
        if (word_is(val, val_len, "eof")) o->capa_eof = true;
        if (word_is(val, val_len, "psync2")) o->capa_psync2 = true;
        /* unknown capabilities are ignored, as Redis */
    } else if (word_is(opt, opt_len, "rdb-only")) {
        if (!parse_ll(val, val_len, &v)) {
            *err = "ERR value is not an integer or out of range";
            return false;
        }
        if (v != 0 && v != 1) {
            *err = "ERR value is out of range, value must between 0 and 1";
            return false;
        }
        o->rdb_only = v == 1;
    } else if (word_is(opt, opt_len, "rdb-filter-only")) {
        /* Space-separated include filters; none: an empty RDB. */
        enum rdb_filter filter = FILTER_NOTHING;
        for (size_t i = 0; i < val_len;) {
            while (i < val_len && val[i] == ' ') i++;
            size_t start = i;
            while (i < val_len && val[i] != ' ') i++;
            if (i == start) break;
            if (!word_is(val + start, i - start, "functions")) {
                static char text[160];
                snprintf(text, sizeof text, "ERR Unsupported rdb-filter-only option: %.*s",
                         (int)(i - start < 100 ? i - start : 100), val + start);
                *err = text;
                return false;
            }
            filter = FILTER_FUNCTIONS;
        }
        o->filter = filter;
    } else {
        static char text[160];
        snprintf(text, sizeof text, "ERR Unrecognized REPLCONF option: %.*s",
                 (int)(opt_len < 100 ? opt_len : 100), opt);
        *err = text;
        return false;
    }
    if (r) { /* options after SYNC: as Redis, they apply to the replica */
        r->listening_port = o->listening_port;
        memcpy(r->ip, o->ip, sizeof r->ip);
    }
    return true;
}

/* --- SYNC / PSYNC --------------------------------------------------------- */

static bool id_is(const char *id, const char *p, size_t n)
{
    return n == 40 && memcmp(id, p, 40) == 0;
}

static struct replica *replica_add(struct conn *c)
{
    struct replica *r = xcalloc(1, sizeof *r);
    r->c = c;
    r->bulk_fd = -1;
    r->since_ms = clock_unix_ms();
    buf_init(&r->pending, 0);
    struct link_options *o = options_of(c, true);
    o->replica = r;
    r->listening_port = o->listening_port;
    memcpy(r->ip, o->ip, sizeof r->ip);
    r->capa_eof = o->capa_eof;
    r->capa_psync2 = o->capa_psync2;
    r->rdb_only = o->rdb_only;
    r->filter = o->filter;
    r->next = m.replicas;
    m.replicas = r;
    m.count++;
    conn_mark_replication_link(c, CONN_REPLICA);
    return r;
}

/* Redis's masterTryPartialResynchronization. */
static bool partial_resync(struct conn *c, const char *replid, size_t replid_len, long long offset)
{
    bool same_history = id_is(server.repl_id, replid, replid_len) ||
                        (id_is(m.replid2, replid, replid_len) && offset <= m.second_offset);
    if (!same_history || !backlog_covers(&m.backlog, offset - 1)) return false;
    struct replica *r = replica_add(c);
    r->state = REPLICA_ONLINE;
    r->ack_ms = clock_unix_ms();
    r->ack_offset = offset - 1;
    if (r->capa_psync2)
        buf_append_fmt(&c->out, "+CONTINUE %s\r\n", server.repl_id);
    else
        buf_append(&c->out, "+CONTINUE\r\n", 11);
    size_t before = buf_len(&c->out);
    backlog_copy_from(&m.backlog, offset - 1, &c->out);
    repl_stats.output_bytes += (long long)(buf_len(&c->out) - before);
    mark_dirty(r);
    log_notice("Partial resynchronization request from %s accepted. Sending %lld bytes of backlog "
               "starting from offset %lld.",
               c->addr, m.backlog.offset - offset + 1, offset);
    refresh_good_replicas();
    return true;
}

static bool child_active(void)
{
    return persist_bgsave_in_progress() || aof_rewrite_in_progress();
}

int repl_replica_count(void)
{
    return m.count;
}

bool repl_replica_find(const char *host, int port, bool *online)
{
    for (struct replica *r = m.replicas; r; r = r->next) {
        char ip[64];
        replica_ip(r, ip, sizeof ip);
        if (strcasecmp(ip, host) == 0 && r->listening_port == port) {
            *online = r->state == REPLICA_ONLINE;
            return true;
        }
    }
    return false;
}

bool repl_replica_caught_up(char *host, size_t cap, int *port)
{
    for (struct replica *r = m.replicas; r; r = r->next) {
        if (r->state != REPLICA_ONLINE || r->ack_offset != m.backlog.offset) continue;
        char ip[64];
        replica_ip(r, ip, sizeof ip);
        if (host[0] && (strcasecmp(ip, host) != 0 || r->listening_port != *port)) continue;
        snprintf(host, cap, "%s", ip);
        *port = r->listening_port;
        return true;
    }
    return false;
}

void repl_master_sync(struct conn *c, struct reply *r, bool psync, const char *replid,
                      size_t replid_len, const char *offset_text, size_t offset_len, bool failover)
{
    if (replica_of(c)) return; /* already one: ignored, as Redis */
    if (failover) {            /* our master hands over: we become the master (FAILOVER) */
        if (!id_is(server.repl_id, replid, replid_len)) {
            reply_error(r, "ERR PSYNC FAILOVER replid must match my replid.");
            return;
        }
        repl_replica_back_to_master();
        log_notice("MASTER MODE enabled (failover request from %s)", c->addr);
    }
    if (repl_failover_state != FAILOVER_NONE) {
        reply_error(r, "NOMASTERLINK Can't SYNC while failing over");
        return;
    }
    if (c->framed || c->io.fd < 0) {
        reply_error(r, "ERR replication runs over TCP, TLS or Unix sockets with RESP");
        return;
    }
    if (repl_is_replica && !repl_replica_connected()) {
        reply_error(r, "NOMASTERLINK Can't SYNC while not connected with my master");
        return;
    }
    if (buf_len(&c->out) > 0) {
        reply_error(r, "ERR SYNC and PSYNC are invalid with pending output");
        return;
    }
    long long offset = 0;
    if (psync && !num_parse_ll(offset_text, offset_len, &offset)) {
        log_warning("Replica %s asks for synchronization but with a wrong offset", c->addr);
        reply_error(r, "ERR value is not an integer or out of range");
        return;
    }
    if (psync && partial_resync(c, replid, replid_len, offset)) {
        repl_stats.sync_partial_ok++;
        return;
    }
    if (psync && !(replid_len == 1 && replid[0] == '?')) {
        repl_stats.sync_partial_err++;
        log_notice("Partial resynchronization not accepted from %s: replication id or offset "
                   "not in my history",
                   c->addr);
    }
    repl_stats.sync_full++;
    log_notice("Replica %s asks for synchronization", c->addr);
    struct replica *rep = replica_add(c);
    rep->pre_psync = !psync;
    rep->state = REPLICA_WAIT_BGSAVE_START;
    if (!m.backlog.ring) {
        /* A new history: new id, no second one (Redis's createReplicationBacklog). */
        server_change_repl_id();
        clear_id2();
        backlog_create(&m.backlog, (size_t)repl_settings.backlog_size);
        propagation_add_consumer(repl_feed, true);
        rdb_repl_aux = write_repl_aux;
        log_notice("Replication backlog created, my new replication IDs are '%s' and '%s'",
                   server.repl_id, m.replid2);
    }
    /* A disk sync running for other replicas: this one shares its RDB and
     * copies their stream since the fork (Redis's case 1). */
    if (m.child_running && !m.child_diskless && rep->filter == FILTER_ALL) {
        for (struct replica *o = m.replicas; o; o = o->next) {
            if (o != rep && o->state == REPLICA_WAIT_BGSAVE_END && o->filter == FILTER_ALL) {
                replica_setup_full_resync(rep, o->initial_offset);
                buf_append(&rep->pending, buf_head(&o->pending), buf_len(&o->pending));
                log_notice("Waiting for end of BGSAVE for SYNC");
                return;
            }
        }
    }
    if (child_active()) {
        log_notice("Waiting for the running background child before the BGSAVE for SYNC");
        return;
    }
    if (repl_settings.diskless_sync && rep->capa_eof && repl_settings.diskless_sync_delay) {
        log_notice("Delay next BGSAVE for diskless SYNC");
        return;
    }
    start_bgsave();
}

/* --- the replication child ------------------------------------------------ */

/* The child ended: a disk sync sends the file to its replicas; a
 * diskless one ends when the pipe has been relayed too. */
static void finish_diskless(void);

static void child_done(bool ok)
{
    m.child_running = false;
    if (m.child_diskless) {
        m.child_done = true;
        m.child_ok = ok;
        finish_diskless();
        return;
    }
    char path[4096];
    persist_rdb_path(path, sizeof path);
    for (struct replica *r = m.replicas, *next; r; r = next) {
        next = r->next;
        if (r->state != REPLICA_WAIT_BGSAVE_END) continue;
        if (!ok) {
            replica_drop(r, "BGSAVE failed, replication can't continue");
            continue;
        }
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb) != 0) {
            if (fd >= 0) close(fd);
            replica_drop(r, "can't open the RDB file to send it");
            continue;
        }
        r->bulk_fd = fd;
        r->bulk_off = 0;
        r->bulk_size = sb.st_size;
        r->state = REPLICA_SEND_BULK;
        buf_append_fmt(&r->c->out, "$%lld\r\n", (long long)sb.st_size);
        mark_dirty(r);
    }
}

static void finish_diskless(void)
{
    if (!m.child_done || !m.pipe_eof) return;
    m.child_diskless = false;
    for (struct replica *r = m.replicas, *next; r; r = next) {
        next = r->next;
        if (!r->diskless) continue;
        r->diskless = false;
        if (!m.child_ok) {
            replica_drop(r, "Diskless BGSAVE failed, replication can't continue");
            continue;
        }
        buf_append(&r->c->out, m.eof_mark, EOF_MARK_LEN);
        mark_dirty(r);
        log_notice("Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF "
                   "ACK from replica to enable streaming",
                   r->c->addr);
        replica_online(r, true);
    }
}

static bool diskless_targets_drained(void)
{
    for (struct replica *r = m.replicas; r; r = r->next)
        if (r->diskless && buf_len(&r->c->out) >= DISKLESS_HOLD) return false;
    return true;
}

/* The pipe from the child: relayed to every diskless target, paused while
 * one of them holds DISKLESS_HOLD unsent (resumed by repl_flush_replicas). */
static void pipe_readable(struct ev_handler *h, uint32_t mask)
{
    (void)h, (void)mask;
    char chunk[BULK_CHUNK];
    ssize_t n = read(m.pipe_fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
        if (n < 0) log_warning("Diskless sync: reading the child's pipe: %s", strerror(errno));
        ev_remove(m.pipe_fd);
        close(m.pipe_fd);
        m.pipe_fd = -1;
        m.pipe_eof = true;
        finish_diskless();
        request_flush();
        return;
    }
    bool any = false;
    for (struct replica *r = m.replicas; r; r = r->next) {
        if (!r->diskless) continue;
        buf_append(&r->c->out, chunk, (size_t)n);
        repl_stats.output_bytes += n;
        mark_dirty(r);
        any = true;
    }
    if (!any) { /* every target went away: the child is not needed */
        log_warning("Diskless rdb transfer, last replica dropped, ending the child's transfer");
        ev_remove(m.pipe_fd);
        close(m.pipe_fd); /* its writes fail with EPIPE (it holds no read end): it exits */
        m.pipe_fd = -1;
        m.pipe_eof = true;
        return;
    }
    if (!diskless_targets_drained()) {
        ev_modify(m.pipe_fd, 0, &m.pipe_handler);
        m.pipe_paused = true;
    }
}

static void random_mark(char out[EOF_MARK_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < EOF_MARK_LEN; i++) out[i] = hex[rand_below(16)];
    out[EOF_MARK_LEN] = '\0';
}

/* Starts the child for the replicas waiting for one (those of the first
 * one's RDB filter), as Redis's startBgsaveForReplication. */
static void start_bgsave(void)
{
    struct replica *first = NULL;
    bool all_eof = true;
    for (struct replica *r = m.replicas; r; r = r->next) {
        if (r->state != REPLICA_WAIT_BGSAVE_START) continue;
        if (!first) first = r;
        if (r->filter == first->filter) all_eof &= r->capa_eof;
    }
    if (!first) return;
    enum rdb_filter filter = first->filter;
    bool diskless = (repl_settings.diskless_sync || filter != FILTER_ALL) && all_eof;
    int fds[2] = {-1, -1};
    if (diskless && pipe2(fds, O_CLOEXEC) != 0) {
        log_warning("Diskless sync: pipe: %s", strerror(errno));
        diskless = false;
    }
    enum persist_bgsave_result res = persist_bgsave_replication(
        diskless ? fds[1] : -1, fds[0], filter == FILTER_ALL, filter != FILTER_NOTHING, child_done);
    if (diskless) close(fds[1]);
    if (res != PERSIST_BGSAVE_STARTED) {
        if (diskless) close(fds[0]);
        for (struct replica *r = m.replicas, *next; r; r = next) {
            next = r->next;
            if (r->state == REPLICA_WAIT_BGSAVE_START && r->filter == filter)
                replica_drop(r, "BGSAVE failed, replication can't continue");
        }
        return;
    }
    m.child_running = true;
    m.child_diskless = diskless;
    m.child_filter = filter;
    long long offset = m.backlog.offset;
    if (diskless) {
        m.pipe_fd = fds[0];
        fcntl(m.pipe_fd, F_SETFL, O_NONBLOCK);
        m.pipe_handler.on_event = pipe_readable;
        ev_add(m.pipe_fd, EV_READABLE, &m.pipe_handler);
        m.pipe_paused = m.pipe_eof = m.child_done = false;
        random_mark(m.eof_mark);
    }
    for (struct replica *r = m.replicas; r; r = r->next) {
        if (r->state != REPLICA_WAIT_BGSAVE_START || r->filter != filter) continue;
        replica_setup_full_resync(r, offset);
        if (diskless) {
            r->diskless = true;
            buf_append_fmt(&r->c->out, "$EOF:%s\r\n", m.eof_mark);
        }
    }
    log_notice("Starting BGSAVE for SYNC with target: %s", diskless ? "replicas sockets" : "disk");
}

/* --- at the end of a loop pass (EV_PASS_REPLICAS) --------------------------- */

void repl_flush_replicas(void)
{
    if (repl_is_replica) repl_replica_flush();
    if (repl_failover_state == FAILOVER_WAIT_FOR_SYNC) repl_failover_update();
    if (!m.flush_pending) return;
    m.flush_pending = false;
    if (m.getack_pending) {
        m.getack_pending = false;
        if (m.count) stream_emit("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n", 37);
    }
    for (struct replica *r = m.replicas, *next; r; r = next) {
        next = r->next;
        if (r->state == REPLICA_SEND_BULK && !replica_pump_bulk(r)) continue;
        if (!r->dirty || (r->c->flags & CONN_CLOSED)) continue;
        r->dirty = false;
        if (replica_over_limit(r)) {
            conn_drop_over_output_limit(r->c);
            continue;
        }
        conn_flush(r->c);
    }
    if (m.pipe_paused && m.pipe_fd >= 0 && diskless_targets_drained()) {
        ev_modify(m.pipe_fd, EV_READABLE, &m.pipe_handler);
        m.pipe_paused = false;
    }
    if (m.pipe_paused) request_flush(); /* look again after the next pass */
    for (struct replica *r = m.replicas; r; r = r->next)
        if (r->state == REPLICA_SEND_BULK) request_flush();
    if (waiters) waiters_serve();
}

/* --- once a second --------------------------------------------------------- */

static void cron_second(int64_t now)
{
    /* PING the replicas every repl-ping-replica-period (in the stream, so
     * their offsets move), unless clients are paused (a failover reads
     * a still offset). */
    if (m.count && repl_settings.ping_replica_period &&
        m.cron_runs % repl_settings.ping_replica_period == 0 &&
        session_pause_type == SESSION_PAUSE_OFF)
        stream_emit("*1\r\n$4\r\nPING\r\n", 14);
    for (struct replica *r = m.replicas, *next; r; r = next) {
        next = r->next;
        /* Keep the link alive while the RDB is being made. */
        if (r->state == REPLICA_WAIT_BGSAVE_START ||
            (r->state == REPLICA_WAIT_BGSAVE_END && !r->diskless)) {
            buf_append(&r->c->out, "\n", 1);
            mark_dirty(r);
        }
        if (r->state == REPLICA_ONLINE && !r->pre_psync && !r->rdb_only &&
            now - r->ack_ms > repl_settings.timeout * 1000) {
            replica_drop(r, "Disconnecting timedout replica (streaming sync)");
        }
    }
    /* Start a delayed sync: no other child, and the delay passed (or
     * enough replicas wait). */
    if (!child_active()) {
        int waiting = 0;
        int64_t oldest = now;
        for (struct replica *r = m.replicas; r; r = r->next) {
            if (r->state != REPLICA_WAIT_BGSAVE_START) continue;
            waiting++;
            if (r->since_ms < oldest) oldest = r->since_ms;
        }
        if (waiting && (!repl_settings.diskless_sync ||
                        now - oldest >= repl_settings.diskless_sync_delay * 1000 ||
                        (repl_settings.diskless_sync_max_replicas &&
                         waiting >= repl_settings.diskless_sync_max_replicas)))
            start_bgsave();
    }
    /* A backlog nobody has used for repl-backlog-ttl goes, with its history. */
    if (!m.count && m.backlog.ring && repl_settings.backlog_ttl &&
        now - m.no_replicas_since_ms > repl_settings.backlog_ttl * 1000) {
        server_change_repl_id();
        clear_id2();
        backlog_free(&m.backlog);
        propagation_remove_consumer(repl_feed);
        rdb_repl_aux = NULL;
        m.stream_db = -1;
        log_notice("Replication backlog freed after %lld seconds without connected replicas.",
                   repl_settings.backlog_ttl);
    }
    refresh_good_replicas();
    repl_failover_update();
    m.cron_runs++;
}

void repl_housekeeping(void)
{
    repl_replica_housekeeping();
    int64_t now = clock_unix_ms();
    if (!m.replid2[0]) clear_id2();
    if (now - m.last_cron_ms >= 1000) {
        m.last_cron_ms = now;
        cron_second(now);
    }
    repl_flush_replicas();
}

/* --- configuration --------------------------------------------------------- */

void repl_apply_backlog_size(void)
{
    backlog_resize(&m.backlog, (size_t)repl_settings.backlog_size);
}

void repl_apply_min_replicas(void)
{
    command_hook_set(HOOK_MIN_REPLICAS,
                     repl_settings.min_replicas_to_write && repl_settings.min_replicas_max_lag);
    refresh_good_replicas();
}

bool repl_writes_refused(void)
{
    return repl_settings.min_replicas_to_write && repl_settings.min_replicas_max_lag &&
           m.good_replicas < repl_settings.min_replicas_to_write;
}

/* --- a shutdown waiting for the replicas (server/shutdown.c) -------------- */

bool repl_replicas_in_sync(void)
{
    for (struct replica *r = m.replicas; r; r = r->next)
        if (r->ack_offset != m.backlog.offset) return false;
    return true;
}

void repl_request_acks(void)
{
    if (!m.count) return;
    m.getack_pending = true;
    request_flush();
}

static const char *state_name(const struct replica *r);

void repl_log_shutdown_sync(void)
{
    int n = 0, lagging = 0;
    int64_t now = clock_unix_ms();
    for (struct replica *r = m.replicas; r; r = r->next) {
        n++;
        if (r->ack_offset == m.backlog.offset) continue;
        lagging++;
        char ip[64];
        replica_ip(r, ip, sizeof ip);
        long long lag = r->state == REPLICA_ONLINE ? (now - r->ack_ms) / 1000 : 0;
        log_warning("Lagging replica %s:%d reported offset %lld behind master, lag=%lld, state=%s.",
                    ip, r->listening_port, m.backlog.offset - r->ack_offset, lag, state_name(r));
    }
    if (n) log_notice("%d of %d replicas are in sync when shutting down.", n - lagging, n);
}

/* --- ROLE and INFO ---------------------------------------------------------- */

static const char *state_name(const struct replica *r)
{
    switch (r->state) {
    case REPLICA_WAIT_BGSAVE_START:
    case REPLICA_WAIT_BGSAVE_END:
        return "wait_bgsave";
    case REPLICA_SEND_BULK:
        return "send_bulk";
    case REPLICA_ONLINE:
        return "online";
    }
    return "unknown";
}

void repl_reply_role(struct reply *r)
{
    if (repl_is_replica) {
        repl_replica_role(r);
        return;
    }
    long long online = 0;
    for (struct replica *p = m.replicas; p; p = p->next) online += p->state == REPLICA_ONLINE;
    reply_array_len(r, 3);
    reply_bulk_cstr(r, "master");
    reply_int(r, m.backlog.offset);
    reply_array_len(r, online);
    /* Redis lists the newest replica last: ours are kept newest first. */
    struct replica *list[256];
    int n = 0;
    for (struct replica *p = m.replicas; p && n < 256; p = p->next)
        if (p->state == REPLICA_ONLINE) list[n++] = p;
    for (int i = n - 1; i >= 0; i--) {
        char ip[64];
        replica_ip(list[i], ip, sizeof ip);
        reply_array_len(r, 3);
        reply_bulk_cstr(r, ip);
        reply_bulk_ll(r, list[i]->listening_port);
        reply_bulk_ll(r, list[i]->ack_offset);
    }
}

void repl_info(struct buf *b)
{
    if (!m.replid2[0]) clear_id2();
    int64_t now = clock_unix_ms();
    buf_append_fmt(b, "# Replication\r\n");
    if (repl_is_replica)
        repl_replica_info(b);
    else
        buf_append_fmt(b, "role:master\r\n");
    buf_append_fmt(b, "connected_slaves:%d\r\n", m.count);
    if (repl_settings.min_replicas_to_write && repl_settings.min_replicas_max_lag)
        buf_append_fmt(b, "min_slaves_good_slaves:%d\r\n", m.good_replicas);
    struct replica *list[256];
    int n = 0;
    for (struct replica *p = m.replicas; p && n < 256; p = p->next) list[n++] = p;
    for (int i = n - 1, id = 0; i >= 0; i--, id++) {
        char ip[64];
        replica_ip(list[i], ip, sizeof ip);
        buf_append_fmt(b, "slave%d:ip=%s,port=%d,state=%s,offset=%lld,lag=%lld\r\n", id, ip,
                       list[i]->listening_port, state_name(list[i]), list[i]->ack_offset,
                       (long long)((now - list[i]->ack_ms) / 1000));
    }
    buf_append_fmt(b,
                   "master_failover_state:%s\r\n"
                   "master_replid:%s\r\n"
                   "master_replid2:%s\r\n"
                   "master_repl_offset:%lld\r\n"
                   "second_repl_offset:%lld\r\n"
                   "repl_backlog_active:%d\r\n"
                   "repl_backlog_size:%lld\r\n"
                   "repl_backlog_first_byte_offset:%lld\r\n"
                   "repl_backlog_histlen:%zu\r\n",
                   repl_failover_state_name(), server.repl_id, m.replid2, m.backlog.offset,
                   m.second_offset, m.backlog.ring ? 1 : 0, repl_settings.backlog_size,
                   m.backlog.ring ? backlog_first_offset(&m.backlog) : 0, m.backlog.histlen);
}
