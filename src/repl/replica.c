/*
 * replica.c — the replica side: REPLICAOF, the link to the master, the
 * handshake, the full sync's transfer and load, then the command stream
 * run as the master's commands (repl.h, docs/replication.md).
 *
 * The link, as Redis 7.0's repl_state:
 *   CONNECT     to be connected (housekeeping connects, once a second);
 *   CONNECTING  a nonblocking connect() in flight;
 *   HANDSHAKE   PING, AUTH (masterauth/masteruser), REPLCONF listening-port,
 *               ip-address, capa eof capa psync2, PSYNC: one request, one
 *               reply line (replica_proto.h) at a time;
 *   TRANSFER    the RDB: `$<length>` or `$EOF:<mark>`, written to a temp
 *               file in --dir as it arrives (memory stays flat whatever
 *               the master claims), then loaded (repl-diskless-load
 *               disabled: as Redis, the load runs on the server thread);
 *   CONNECTED   the socket is a conn (CONN_MASTER, CLIENT LIST flags=M)
 *               whose commands run through command_dispatch; its replies
 *               are discarded (CLIENT REPLY OFF), its bytes counted as the
 *               replication offset once a command has run, and proxied
 *               as they came into the backlog and to our own replicas.
 * Any malformed reply, a transfer cut short, a load that fails or silence
 * past repl-timeout ends the link with a logged error; the next try comes
 * from housekeeping. A dropped link keeps the master's id and our offset
 * (Redis's cached master) for the PSYNC of the next try.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands/multi.h"
#include "connection/conn.h"
#include "connection/session.h"
#include "core/command_hooks.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/propagation.h"
#include "core/server_state.h"
#include "core/sockets.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "repl/repl.h"
#include "repl/repl_internal.h"
#include "repl/replica_proto.h"
#include "store/db.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define LINK_READ_CHUNK (16 * 1024)

enum link_state {
    LINK_NONE,
    LINK_CONNECT,
    LINK_CONNECTING,
    LINK_HANDSHAKE,
    LINK_TRANSFER,
    LINK_CONNECTED
};
enum handshake_step { HS_PING, HS_AUTH, HS_PORT, HS_IP, HS_CAPA, HS_PSYNC };

struct repl_replica_settings repl_replica_settings = {
    .read_only = true,
    .serve_stale_data = true,
    .priority = 100,
    .announced = true,
};

static struct {
    char host[256];
    int port;
    enum link_state state;
    enum handshake_step step;
    int fd;
    struct ev_handler handler;
    struct buf in;  /* handshake and preamble bytes */
    struct buf out; /* handshake requests not yet written */
    /* the transfer */
    bool usemark;
    char mark[REPL_EOF_MARK_LEN + 1];
    long long transfer_size, transfer_read;
    char tail[REPL_EOF_MARK_LEN]; /* the last bytes received (mark detection) */
    int tmp_fd;
    char tmp_path[4096];
    int64_t transfer_last_io_ms;
    char master_id[REPL_ID_LEN + 1]; /* +FULLRESYNC's id */
    long long master_offset;
    /* connected */
    struct conn *master;
    struct buf raw;         /* bytes fed to the master conn and not yet applied */
    long long read_reploff; /* bytes of the stream read (slave_read_repl_offset) */
    int64_t last_io_ms;     /* the master was last heard */
    bool ack_due;           /* REPLCONF GETACK asked: ACK after this batch */
    bool loading;           /* the transferred RDB is loading (load_progress) */
    int64_t loading_newline_ms;
    /* the history a PSYNC asks to continue (Redis's cached master) */
    bool cached;
    char cached_id[REPL_ID_LEN + 1];
    long long cached_offset;
    int cached_db;
    int64_t down_since_ms;
    int64_t last_cron_ms;
} s = {.fd = -1, .tmp_fd = -1, .cached_db = -1};

bool repl_is_replica;

/* --- the master conn's transport --------------------------------------- */

static ssize_t link_read(struct conn *c, void *dst, size_t cap)
{
    return read(conn_io(c)->fd, dst, cap);
}

/* The replies are off (CLIENT REPLY OFF): what reaches the socket is our
 * REPLCONF ACK. */
static ssize_t link_write(struct conn *c, const void *src, size_t len, enum out_unit_kind kind)
{
    (void)kind;
    return write(conn_io(c)->fd, src, len);
}

static void link_set_interest(struct conn *c, bool readable, bool writable)
{
    int fd = conn_io(c)->fd;
    if (fd < 0) return;
    ev_modify(fd, (readable ? EV_READABLE : 0) | (writable ? EV_WRITABLE : 0), &s.handler);
}

static void master_link_closed(struct conn *c);

/* The conn's own descriptor: the link may already be another one. */
static void link_close(struct conn *c)
{
    struct conn_io *io = conn_io(c);
    master_link_closed(c);
    if (io->fd < 0) return;
    ev_remove(io->fd);
    close(io->fd);
    if (s.fd == io->fd) s.fd = -1;
    io->fd = -1;
}

/* The master is who we asked for: its commands need no AUTH. */
static bool link_skips_auth(bool sbe)
{
    (void)sbe;
    return true;
}

static void master_request_done(struct conn *c);
static void ack_soon(void);

static const struct conn_transport master_link_transport = {
    .name = "tcp",
    .skips_auth = link_skips_auth,
    .read = link_read,
    .write = link_write,
    .set_interest = link_set_interest,
    .close = link_close,
    .request_done = master_request_done,
};

/* --- link lifetime ------------------------------------------------------- */

static void transfer_cleanup(void)
{
    if (s.tmp_fd >= 0) {
        close(s.tmp_fd);
        s.tmp_fd = -1;
        unlink(s.tmp_path);
    }
}

/* Ends the link (any state but CONNECTED, whose conn closes through
 * conn_close); the next attempt comes from housekeeping. */
static void link_abort(const char *why)
{
    if (why) log_warning("Replication with MASTER %s:%d: %s", s.host, s.port, why);
    transfer_cleanup();
    if (s.fd >= 0) {
        ev_remove(s.fd);
        close(s.fd);
        s.fd = -1;
    }
    buf_reset(&s.in, 0);
    buf_reset(&s.out, 0);
    if (s.state != LINK_NONE) s.state = LINK_CONNECT;
    if (!s.down_since_ms) s.down_since_ms = clock_unix_ms();
}

bool repl_conn_is_master(const struct conn *c)
{
    return c && c == s.master;
}

/* The master conn closed (conn_close): its history is kept for PSYNC. */
static void master_link_closed(struct conn *c)
{
    if (c != s.master) return;
    s.master = NULL;
    s.cached = true;
    memcpy(s.cached_id, server.repl_id, sizeof s.cached_id);
    s.cached_offset = repl_offset();
    s.cached_db = c->db_index;
    buf_reset(&s.raw, 0);
    s.down_since_ms = clock_unix_ms();
    if (s.state == LINK_CONNECTED) {
        s.state = LINK_CONNECT;
        log_notice("Connection with master lost; the next PSYNC asks for offset %lld",
                   s.cached_offset + 1);
    }
}

/* --- handshake ----------------------------------------------------------- */

static void send_command(int argc, const char *const *argv)
{
    buf_append_fmt(&s.out, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++)
        buf_append_fmt(&s.out, "$%zu\r\n%s\r\n", strlen(argv[i]), argv[i]);
}

static bool flush_out(void)
{
    while (buf_len(&s.out)) {
        ssize_t n = write(s.fd, buf_head(&s.out), buf_len(&s.out));
        if (n < 0) {
            if (errno == EAGAIN) break;
            link_abort(strerror(errno));
            return false;
        }
        buf_consume(&s.out, (size_t)n);
    }
    ev_modify(s.fd, EV_READABLE | (buf_len(&s.out) ? EV_WRITABLE : 0), &s.handler);
    return true;
}

/* Sends the request of the current step (skipping those with nothing to
 * say: AUTH without masterauth, ip-address without an announced one). */
static void handshake_send(void)
{
    char port[16];
    for (;;) {
        switch (s.step) {
        case HS_PING: {
            const char *argv[] = {"PING"};
            send_command(1, argv);
            return;
        }
        case HS_AUTH:
            if (!repl_replica_settings.masterauth || !*repl_replica_settings.masterauth) {
                s.step = HS_PORT;
                continue;
            }
            if (repl_replica_settings.masteruser && *repl_replica_settings.masteruser) {
                const char *argv[] = {"AUTH", repl_replica_settings.masteruser,
                                      repl_replica_settings.masterauth};
                send_command(3, argv);
            } else {
                const char *argv[] = {"AUTH", repl_replica_settings.masterauth};
                send_command(2, argv);
            }
            return;
        case HS_PORT: {
            snprintf(port, sizeof port, "%lld",
                     repl_replica_settings.announce_port ? repl_replica_settings.announce_port
                                                         : (long long)config.port);
            const char *argv[] = {"REPLCONF", "listening-port", port};
            send_command(3, argv);
            return;
        }
        case HS_IP:
            if (!repl_replica_settings.announce_ip || !*repl_replica_settings.announce_ip) {
                s.step = HS_CAPA;
                continue;
            }
            {
                const char *argv[] = {"REPLCONF", "ip-address", repl_replica_settings.announce_ip};
                send_command(3, argv);
            }
            return;
        case HS_CAPA: {
            const char *argv[] = {"REPLCONF", "capa", "eof", "capa", "psync2"};
            send_command(5, argv);
            return;
        }
        case HS_PSYNC: {
            char offset[32];
            if (s.cached) {
                snprintf(offset, sizeof offset, "%lld", s.cached_offset + 1);
                const char *argv[] = {"PSYNC", s.cached_id, offset, "FAILOVER"};
                /* FAILOVER's switch: the target promotes itself first. */
                send_command(repl_failover_state == FAILOVER_IN_PROGRESS ? 4 : 3, argv);
                log_notice("Trying a partial resynchronization (request %s:%s).", s.cached_id,
                           offset);
            } else {
                const char *argv[] = {"PSYNC", "?", "-1"};
                send_command(3, argv);
                log_notice("Partial resynchronization not possible (no cached master)");
            }
            return;
        }
        }
    }
}

static void become_connected(int db);

/* One reply line of the handshake. */
static void handshake_reply(const char *line, size_t len)
{
    switch (s.step) {
    case HS_PING:
        /* -NOAUTH and -NOPERM are fine here: AUTH comes next (Redis). */
        if (len && line[0] == '-' && strncmp(line, "-NOAUTH", 7) != 0 &&
            strncmp(line, "-NOPERM", 7) != 0 &&
            strncmp(line, "-ERR operation not permitted", 28) != 0) {
            char why[REPL_LINE_MAX + 64];
            snprintf(why, sizeof why, "Error reply to PING from master: '%.*s'", (int)len, line);
            link_abort(why);
            return;
        }
        log_notice("Master replied to PING, replication can continue...");
        s.step = HS_AUTH;
        break;
    case HS_AUTH:
        if (len && line[0] == '-') {
            char why[REPL_LINE_MAX + 64];
            snprintf(why, sizeof why, "Unable to AUTH to MASTER: %.*s", (int)len, line);
            link_abort(why);
            return;
        }
        s.step = HS_PORT;
        break;
    case HS_PORT:
    case HS_IP:
    case HS_CAPA:
        /* Not critical, as Redis: an older master ignores what it lacks. */
        if (len && line[0] == '-')
            log_notice("(Non critical) Master does not understand REPLCONF: %.*s", (int)len, line);
        s.step = (enum handshake_step)(s.step + 1);
        break;
    case HS_PSYNC: {
        if (len == 0) return; /* a newline the master sends while preparing */
        char id[REPL_ID_LEN + 1];
        long long offset = 0;
        switch (repl_proto_psync_reply(line, len, id, &offset)) {
        case PSYNC_FULLRESYNC:
            repl_failover_psync_answered(true);
            memcpy(s.master_id, id, sizeof s.master_id);
            s.master_offset = offset;
            log_notice("Full resync from master: %s:%lld", id, offset);
            s.state = LINK_TRANSFER;
            s.transfer_size = -1;
            s.transfer_read = 0;
            s.usemark = false;
            s.transfer_last_io_ms = clock_unix_ms();
            return;
        case PSYNC_CONTINUE:
            repl_failover_psync_answered(true);
            log_notice("Successful partial resynchronization with master.");
            if (id[0] && strcmp(id, server.repl_id) != 0) {
                log_warning("Master replication ID changed to %s", id);
                repl_history_continue(id);
            }
            log_notice("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
            become_connected(s.cached_db);
            return;
        case PSYNC_TRY_LATER:
            repl_failover_psync_answered(false);
            link_abort("the master cannot serve PSYNC now; retrying later");
            return;
        case PSYNC_NOT_SUPPORTED: {
            repl_failover_psync_answered(false);
            char why[REPL_LINE_MAX + 64];
            snprintf(why, sizeof why, "unexpected reply to PSYNC from master: %.*s", (int)len,
                     line);
            link_abort(why);
            return;
        }
        case PSYNC_INVALID:
            repl_failover_psync_answered(false);
            link_abort("malformed reply to PSYNC");
            return;
        }
        return;
    }
    }
    handshake_send();
    flush_out();
}

/* --- transfer ------------------------------------------------------------ */

static bool transfer_open(void)
{
    snprintf(s.tmp_path, sizeof s.tmp_path, "%s%stemp-%lld.%d.rdb", config.dir,
             config.dir[strlen(config.dir) - 1] == '/' ? "" : "/", (long long)clock_unix_ms(),
             (int)getpid());
    s.tmp_fd = open(s.tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (s.tmp_fd < 0) {
        char why[4200];
        snprintf(why, sizeof why,
                 "Opening the temp file needed for MASTER <-> REPLICA "
                 "synchronization: %s",
                 strerror(errno));
        link_abort(why);
        return false;
    }
    return true;
}

static bool load_transferred(void);
static bool diskless_load_wanted(void);
static void load_from_socket(void);

static void master_apply(const char *p, size_t n);

/* Payload bytes: to the file, the last ones kept for the mark. Bytes past
 * a length-delimited RDB are the stream's: applied once loaded. */
static void transfer_bytes(const char *p, size_t total)
{
    size_t n = total;
    if (!s.usemark && s.transfer_read + (long long)n > s.transfer_size)
        n = (size_t)(s.transfer_size - s.transfer_read);
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(s.tmp_fd, p + off, n - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            char why[256];
            snprintf(why, sizeof why, "Write error writing to the DB file received from MASTER: %s",
                     strerror(errno));
            link_abort(why);
            return;
        }
        off += (size_t)w;
    }
    s.transfer_read += (long long)n;
    if (n >= REPL_EOF_MARK_LEN) {
        memcpy(s.tail, p + n - REPL_EOF_MARK_LEN, REPL_EOF_MARK_LEN);
    } else {
        memmove(s.tail, s.tail + n, REPL_EOF_MARK_LEN - n);
        memcpy(s.tail + REPL_EOF_MARK_LEN - n, p, n);
    }
    bool done = s.usemark
                    ? s.transfer_read >= REPL_EOF_MARK_LEN && repl_proto_is_mark(s.tail, s.mark)
                    : s.transfer_read == s.transfer_size;
    if (!done) return;
    if (s.usemark && ftruncate(s.tmp_fd, s.transfer_read - REPL_EOF_MARK_LEN) != 0) {
        link_abort("cannot truncate the end mark off the received RDB");
        return;
    }
    if (load_transferred() && total > n && s.master) master_apply(p + n, total - n);
}

/* Bytes in s.in while waiting for the preamble or in the payload. */
static void transfer_input(void)
{
    while (s.state == LINK_TRANSFER && s.tmp_fd < 0 && buf_len(&s.in)) {
        size_t len, used;
        enum repl_line_status ls = repl_proto_line(buf_head(&s.in), buf_len(&s.in), &len, &used);
        if (ls == REPL_LINE_INCOMPLETE) return;
        if (ls == REPL_LINE_TOO_LONG) {
            link_abort("the master's bulk preamble is too long");
            return;
        }
        long long size = 0;
        enum bulk_preamble b = repl_proto_bulk_preamble(buf_head(&s.in), len, &size, s.mark);
        bool diskless = diskless_load_wanted();
        char line[REPL_LINE_MAX + 1];
        memcpy(line, buf_head(&s.in), len);
        line[len] = '\0';
        buf_consume(&s.in, used);
        switch (b) {
        case BULK_KEEPALIVE:
            continue;
        case BULK_ERROR: {
            char why[REPL_LINE_MAX + 64];
            snprintf(why, sizeof why, "MASTER aborted replication with an error: %s", line + 1);
            link_abort(why);
            return;
        }
        case BULK_INVALID: {
            char why[REPL_LINE_MAX + 64];
            snprintf(why, sizeof why,
                     "Bad protocol from MASTER, the first byte is not '$' (we "
                     "received '%.60s'), are you sure the host and port are right?",
                     line);
            link_abort(why);
            return;
        }
        case BULK_EOF_MARK:
            s.usemark = true;
            log_notice("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to %s",
                       diskless ? "parser" : "disk");
            break;
        case BULK_LENGTH:
            s.usemark = false;
            s.transfer_size = size;
            log_notice("MASTER <-> REPLICA sync: receiving %lld bytes from master to %s", size,
                       diskless ? "parser" : "disk");
            break;
        }
        if (diskless) {
            load_from_socket();
            return;
        }
        if (!transfer_open()) return;
        memset(s.tail, 0, sizeof s.tail);
        if (!s.usemark && s.transfer_size == 0) {
            struct buf rest = s.in;
            buf_init(&s.in, 0);
            if (load_transferred() && s.master && buf_len(&rest))
                master_apply(buf_head(&rest), buf_len(&rest));
            buf_free(&rest);
            return;
        }
    }
    if (s.state == LINK_TRANSFER && s.tmp_fd >= 0 && buf_len(&s.in)) {
        struct buf pending = s.in; /* what came after the preamble in the same read */
        buf_init(&s.in, 0);
        transfer_bytes(buf_head(&pending), buf_len(&pending));
        buf_free(&pending);
    }
}

/* Once a second while loading, a newline tells the master we are alive
 * (Redis's replicationSendNewlineToMaster). */
static void loading_newline(void)
{
    int64_t now = clock_unix_ms();
    if (now - s.loading_newline_ms < 1000) return;
    s.loading_newline_ms = now;
    if (write(s.fd, "\n", 1) < 0 && errno != EAGAIN)
        log_warning("Replication: the newline to the master: %s", strerror(errno));
}

/* Every loading-process-events-interval-bytes of the load (Redis's
 * rdbLoadProgressCallback): other clients are served (-LOADING but for
 * the loading commands), and once a second a newline tells the master we
 * are alive (replicationSendNewlineToMaster). The link's own events wait
 * (link_event) until the load is over; a SHUTDOWN meanwhile ends it. */
static bool load_progress(size_t loaded, size_t total)
{
    (void)total;
    persist_loading_progress(loaded);
    loading_newline();
    ev_process_nested();
    return !ev_stopping(); /* a SHUTDOWN meanwhile: the partial load is dropped */
}

/* The RDB is complete: our data set becomes it (Redis's readSyncBulkPayload
 * with repl-diskless-load disabled). */
static bool load_transferred(void)
{
    if (fsync(s.tmp_fd) != 0) log_warning("fsync of the received RDB failed: %s", strerror(errno));
    close(s.tmp_fd);
    s.tmp_fd = -1;
    log_notice("MASTER <-> REPLICA sync: Flushing old data");
    repl_disconnect_replicas(); /* their data is about to change under them */
    keyspace_flush_all();
    const struct rdb_function_source *functions = rdb_function_source();
    if (functions) functions->flush();
    log_notice("MASTER <-> REPLICA sync: Loading DB in memory");
    struct rdb_load_info info;
    char err[1024];
    int64_t start = clock_mono_us();
    rdb_load_keep_expired = true; /* the master's DELs remove them */
    struct stat sb;
    persist_loading_begin(stat(s.tmp_path, &sb) == 0 ? (size_t)sb.st_size : 0, false);
    s.loading = true;
    s.loading_newline_ms = clock_unix_ms();
    rdb_load_progress = load_progress;
    enum rdb_file_status st = rdb_load_file(s.tmp_path, config.rdbchecksum, &info, err, sizeof err);
    rdb_load_progress = NULL;
    s.loading = false;
    persist_loading_end();
    rdb_load_keep_expired = false;
    if (st != RDB_FILE_LOADED) {
        unlink(s.tmp_path);
        keyspace_flush_all();
        char why[1200];
        snprintf(why, sizeof why,
                 "Failed trying to load the MASTER synchronization DB from "
                 "disk: %s",
                 st == RDB_FILE_MISSING ? "the file is missing" : err);
        link_abort(why);
        return false;
    }
    char final[4096];
    persist_rdb_path(final, sizeof final);
    if (rename(s.tmp_path, final) != 0)
        log_warning("Failed trying to rename the temp DB into %s: %s", final, strerror(errno));
    log_notice("MASTER <-> REPLICA sync: Finished with success (%lld keys, %.3f seconds)",
               info.keys_loaded, (double)(clock_mono_us() - start) / 1e6);
    repl_history_adopt(s.master_id, s.master_offset);
    /* The stream from here starts with a SELECT (the master forces one
     * after a full resync); until then, the RDB's stream database. */
    become_connected(info.repl_stream_db >= 0 ? info.repl_stream_db : 0);
    return true;
}

/* --- diskless load (repl-diskless-load on-empty-db | swapdb) ------------- */

static bool diskless_load_wanted(void)
{
    const char *mode = repl_replica_settings.diskless_load;
    if (strcmp(mode, "swapdb") == 0) return true;
    if (strcmp(mode, "on-empty-db") != 0) return false;
    for (int i = 0; i < keyspace.count; i++)
        if (dict_size(&keyspace_db(i)->keys)) return false;
    return true;
}

/* The socket as the loader's input (rdb_load_source): RDB bytes only. A
 * length-delimited transfer hands on its length and keeps what follows
 * (the stream) for after the load; an end-marked one holds back the last
 * REPL_EOF_MARK_LEN bytes received, so what the loader gets never
 * includes the mark, and once the RDB is read they must be it. */
struct socket_source {
    struct buf first;             /* bytes that came with the preamble */
    char hold[REPL_EOF_MARK_LEN]; /* end-marked: the last bytes received */
    size_t hold_len;
    long long given;  /* length-delimited: RDB bytes handed on */
    struct buf after; /* length-delimited: stream bytes past the RDB */
};

static void source_take(struct socket_source *src, const char *p, size_t n, struct buf *out)
{
    if (!s.usemark) {
        long long left = s.transfer_size - src->given;
        size_t take = (long long)n < left ? n : (size_t)left;
        buf_append(out, p, take);
        src->given += (long long)take;
        if (take < n) buf_append(&src->after, p + take, n - take);
        return;
    }
    size_t total = src->hold_len + n;
    if (total <= REPL_EOF_MARK_LEN) {
        memcpy(src->hold + src->hold_len, p, n);
        src->hold_len = total;
        return;
    }
    size_t give = total - REPL_EOF_MARK_LEN;
    size_t from_hold = give < src->hold_len ? give : src->hold_len;
    buf_append(out, src->hold, from_hold);
    buf_append(out, p, give - from_hold);
    char held[REPL_EOF_MARK_LEN];
    size_t kept = src->hold_len - from_hold;
    memcpy(held, src->hold + from_hold, kept);
    memcpy(held + kept, p + (give - from_hold), REPL_EOF_MARK_LEN - kept);
    memcpy(src->hold, held, REPL_EOF_MARK_LEN);
    src->hold_len = REPL_EOF_MARK_LEN;
}

/* More RDB bytes from the socket. While the master is silent the other
 * clients are served (ev_wait_readable_nested) — Redis blocks in read()
 * meanwhile — and the master gets its newline once a second; silence past
 * repl-timeout, the link closing or a SHUTDOWN ends the load. */
static bool source_more(void *arg, struct buf *out, bool block, char *err, size_t err_len)
{
    struct socket_source *src = arg;
    size_t before = buf_len(out);
    if (buf_len(&src->first)) {
        source_take(src, buf_head(&src->first), buf_len(&src->first), out);
        buf_reset(&src->first, 0);
        if (buf_len(out) > before) return true;
    }
    for (;;) {
        if (!s.usemark && src->given >= s.transfer_size) {
            snprintf(err, err_len, "the RDB goes on past the %lld bytes the master announced",
                     s.transfer_size);
            return false;
        }
        char chunk[LINK_READ_CHUNK];
        ssize_t n = read(s.fd, chunk, sizeof chunk);
        if (n > 0) {
            s.transfer_last_io_ms = clock_unix_ms();
            s.transfer_read += n;
            source_take(src, chunk, (size_t)n, out);
            if (buf_len(out) > before) return true;
            continue;
        }
        if (n == 0) {
            snprintf(err, err_len,
                     "the master closed the link during the transfer (%lld bytes read)",
                     s.transfer_read);
            return false;
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN) {
            snprintf(err, err_len, "I/O error reading bulk payload from MASTER: %s",
                     strerror(errno));
            return false;
        }
        if (!block) return true;
        if (clock_unix_ms() - s.transfer_last_io_ms > repl_settings.timeout * 1000) {
            snprintf(err, err_len,
                     "Timeout receiving bulk data from MASTER... If the problem persists try to "
                     "set the 'repl-timeout' parameter in redis.conf to a larger value.");
            return false;
        }
        loading_newline();
        ev_wait_readable_nested(s.fd, 100);
        if (ev_stopping() || server.shutdown_signal) {
            snprintf(err, err_len, "the load was abandoned (shutdown)");
            return false;
        }
    }
}

/* swapdb: the RDB's function libraries wait here until the load is whole,
 * while the live ones keep serving (Redis's temporary functions context). */
static const struct rdb_function_source *live_functions;
static struct buf held_functions; /* per library: its length (size_t), then its code */

static void held_foreach(void (*fn)(const char *code, size_t len, void *arg), void *arg)
{
    live_functions->foreach (fn, arg); /* a snapshot meanwhile holds the live ones */
}

static bool held_load(const char *code, size_t len, char *err, size_t err_len)
{
    (void)err, (void)err_len;
    buf_append(&held_functions, &len, sizeof len);
    buf_append(&held_functions, code, len);
    return true;
}

static void held_flush(void)
{
    buf_reset(&held_functions, 0);
}

static const struct rdb_function_source held_function_source = {
    .foreach = held_foreach, .load = held_load, .flush = held_flush};

/* The held libraries replace the live ones. */
static void held_functions_install(void)
{
    live_functions->flush();
    const char *p = buf_head(&held_functions), *end = p + buf_len(&held_functions);
    while (p < end) {
        size_t len;
        memcpy(&len, p, sizeof len);
        p += sizeof len;
        char why[1024];
        if (!live_functions->load(p, len, why, sizeof why))
            log_warning("MASTER <-> REPLICA sync: a function library did not load: %s", why);
        p += len;
    }
    buf_free(&held_functions);
}

/* The RDB is read from the socket as it arrives (Redis's readSyncBulkPayload
 * with use_diskless_load): on-empty-db (an empty data set) and swapdb
 * without the master's id ours load with -LOADING for clients, as
 * repl-diskless-load disabled does; swapdb with the same id (the data set
 * we serve is an earlier point of the one arriving) loads asynchronously:
 * clients keep reading the live data set (INFO async_loading:1; the
 * no_async_loading commands get -LOADING). swapdb loads into a detached
 * set, swapped in once whole; a failed load leaves the old data set. */
static void load_from_socket(void)
{
    bool swapdb = strcmp(repl_replica_settings.diskless_load, "swapdb") == 0;
    bool async = swapdb && strcmp(repl_id(), s.master_id) == 0;
    struct db *target = NULL;
    const struct rdb_function_source *functions = rdb_function_source();
    if (!swapdb) {
        repl_disconnect_replicas(); /* their data is about to change under them */
        log_notice("MASTER <-> REPLICA sync: Flushing old data");
        keyspace_flush_all();
        if (functions) functions->flush();
    } else {
        target = keyspace_detached_create();
        if (functions) {
            live_functions = functions;
            buf_init(&held_functions, 0);
            rdb_set_function_source(&held_function_source);
        }
    }
    struct socket_source src = {.hold_len = 0};
    src.first = s.in; /* the first RDB bytes, if they came with the preamble */
    buf_init(&s.in, 0);
    buf_init(&src.after, 0);
    struct rdb_load_source source = {.more = source_more, .arg = &src};
    log_notice("MASTER <-> REPLICA sync: Loading DB in memory");
    ev_modify(s.fd, 0, &s.handler); /* the loader reads the socket itself */
    struct rdb_load_info info;
    char err[1024];
    size_t trailing = 0;
    int64_t start = clock_mono_us();
    rdb_load_keep_expired = true; /* the master's DELs remove them */
    persist_loading_begin(s.usemark ? 0 : (size_t)s.transfer_size, async);
    s.loading = true;
    s.loading_newline_ms = clock_unix_ms();
    rdb_load_progress = load_progress;
    bool ok =
        rdb_load_stream(&source, target, config.rdbchecksum, &info, &trailing, err, sizeof err);
    rdb_load_progress = NULL;
    s.loading = false;
    rdb_load_keep_expired = false;
    if (ok && trailing) {
        snprintf(err, sizeof err, "%zu bytes follow the RDB's checksum in the transfer", trailing);
        ok = false;
    }
    if (ok && s.usemark &&
        (src.hold_len != REPL_EOF_MARK_LEN || !repl_proto_is_mark(src.hold, s.mark))) {
        snprintf(err, sizeof err, "Replication stream EOF marker is broken");
        ok = false;
    }
    persist_loading_end();
    buf_free(&src.first);
    if (swapdb && functions) rdb_set_function_source(functions);
    if (!ok) {
        buf_free(&src.after);
        if (swapdb) {
            keyspace_detached_free(target);
            if (functions) buf_free(&held_functions);
            log_notice("MASTER <-> REPLICA sync: Discarding temporary DB in background");
        } else {
            keyspace_flush_all(); /* the half-loaded data */
            if (functions) functions->flush();
        }
        char why[1200];
        snprintf(why, sizeof why,
                 "Failed trying to load the MASTER synchronization DB from socket: %s", err);
        link_abort(why);
        return;
    }
    if (swapdb) {
        repl_disconnect_replicas();
        log_notice("MASTER <-> REPLICA sync: Swapping active DB with loaded DB");
        keyspace_swap_detached(target);
        if (functions) held_functions_install();
        keyspace_detached_free(target);
        log_notice("MASTER <-> REPLICA sync: Discarding old DB in background");
    }
    log_notice("MASTER <-> REPLICA sync: Finished with success (%lld keys, %.3f seconds)",
               info.keys_loaded, (double)(clock_mono_us() - start) / 1e6);
    repl_history_adopt(s.master_id, s.master_offset);
    s.in = src.after; /* stream bytes past a length-delimited RDB */
    become_connected(info.repl_stream_db >= 0 ? info.repl_stream_db : 0);
}

/* --- connected: the master's commands ------------------------------------ */

static void become_connected(int db)
{
    struct conn *c = conn_create(&master_link_transport, s.fd, NULL);
    struct sockaddr_storage peer, local;
    socklen_t plen = sizeof peer, llen = sizeof local;
    char addr[64] = "", laddr[64] = "";
    if (getpeername(s.fd, (struct sockaddr *)&peer, &plen) == 0)
        socket_format_addr(&peer, addr, sizeof addr);
    if (getsockname(s.fd, (struct sockaddr *)&local, &llen) == 0)
        socket_format_addr(&local, laddr, sizeof laddr);
    conn_set_peer(c, addr, laddr);
    conn_mark_replication_link(c, CONN_MASTER);
    session_set_reply_mode(c, SESSION_REPLY_OFF); /* the master hears only our ACKs */
    session_select_db(c, db >= 0 && db < keyspace.count ? db : 0);
    s.master = c;
    s.state = LINK_CONNECTED;
    s.cached = false;
    s.down_since_ms = 0;
    s.last_io_ms = clock_unix_ms();
    s.read_reploff = repl_offset();
    ev_modify(s.fd, EV_READABLE, &s.handler);
    /* Acknowledge at once (a diskless master streams after the first ACK). */
    ack_soon();
    repl_replica_flush();
    if (buf_len(&s.in) && s.master) { /* stream bytes that came with +CONTINUE */
        struct buf rest = s.in;
        buf_init(&s.in, 0);
        master_apply(buf_head(&rest), buf_len(&rest));
        buf_free(&rest);
    }
}

int repl_replica_stream_db(void)
{
    return s.master ? s.master->db_index : s.cached_db;
}

bool repl_replica_connected(void)
{
    return s.state == LINK_CONNECTED;
}

/* Stream bytes from the master: run what is complete; the bytes of the
 * commands that ran become our offset and go on to our replicas. */
static void master_apply(const char *p, size_t n)
{
    struct conn *c = s.master;
    s.last_io_ms = clock_unix_ms();
    s.read_reploff += (long long)n;
    buf_append(&s.raw, p, n);
    conn_feed_input(c, p, n);
    keyspace.master_applying = true;
    conn_process_input(c);
    keyspace.master_applying = false;
    if (s.master != c) return; /* it closed: the cached offset is what was applied */
    master_request_done(c);
    if (c->flags & CONN_CLOSE_AFTER_REPLY) conn_flush(c);
}

/* After each command of the master (the link transport's request_done):
 * the bytes of the commands that ran are applied — our offset, our
 * backlog, our replicas — except inside MULTI, whose commands count only
 * once EXEC ran (Redis's commandProcessed), so a link lost mid-transaction
 * asks for the whole transaction again. */
static void master_request_done(struct conn *c)
{
    if (c != s.master || multi_is_queuing(session_ext(c, MULTI_EXT_SLOT))) return;
    size_t unapplied = conn_query_bytes(c);
    size_t applied = buf_len(&s.raw) > unapplied ? buf_len(&s.raw) - unapplied : 0;
    if (!applied) return;
    repl_stream_proxy(buf_head(&s.raw), applied);
    buf_consume(&s.raw, applied);
}

static void master_readable(void)
{
    char chunk[LINK_READ_CHUNK];
    ssize_t n = read(s.fd, chunk, sizeof chunk);
    if (n == 0) {
        conn_close(s.master, "the master closed the link");
        return;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) return;
        conn_close(s.master, strerror(errno));
        return;
    }
    master_apply(chunk, (size_t)n);
}

/* An ACK at the end of this loop pass (EV_PASS_REPLICAS). */
static void ack_soon(void)
{
    s.ack_due = true;
    ev_pass_request(EV_PASS_REPLICAS);
}

void repl_replica_getack(void)
{
    ack_soon();
}

/* REPLCONF ACK <offset> (after a batch, or once a second). */
static void send_ack(void)
{
    struct conn *c = s.master;
    char num[32];
    int len = snprintf(num, sizeof num, "%lld", repl_offset());
    buf_append_fmt(&c->out, "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$%d\r\n%s\r\n", len, num);
    conn_flush(c);
}

void repl_replica_flush(void)
{
    if (s.ack_due && s.master && !(s.master->flags & CONN_CLOSED)) {
        s.ack_due = false;
        send_ack();
    }
}

/* --- the socket's events before CONNECTED -------------------------------- */

static void link_event(struct ev_handler *h, uint32_t mask)
{
    (void)h;
    if (s.loading) return; /* the RDB of this link is loading: its bytes wait in the socket */
    if (s.state == LINK_CONNECTED) {
        struct conn *c = s.master;
        if ((mask & EV_WRITABLE) && c) conn_on_writable(c);
        if ((mask & EV_READABLE) && s.master == c && c && !(c->flags & CONN_CLOSED))
            master_readable();
        return;
    }
    if (s.state == LINK_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err) {
            char why[256];
            snprintf(why, sizeof why, "Error condition on socket for SYNC: %s",
                     strerror(err ? err : errno));
            link_abort(why);
            return;
        }
        log_notice("Non blocking connect for SYNC fired the event.");
        s.state = LINK_HANDSHAKE;
        s.step = HS_PING;
        handshake_send();
        flush_out();
        return;
    }
    if ((mask & EV_WRITABLE) && !flush_out()) return;
    if (!(mask & EV_READABLE)) return;
    char chunk[LINK_READ_CHUNK];
    ssize_t n = read(s.fd, chunk, sizeof chunk);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        link_abort(n == 0 ? "the master closed the link" : strerror(errno));
        return;
    }
    if (n < 0) return;
    s.transfer_last_io_ms = clock_unix_ms();
    if (s.state == LINK_TRANSFER && s.tmp_fd >= 0) {
        transfer_bytes(chunk, (size_t)n);
        return;
    }
    buf_append(&s.in, chunk, (size_t)n);
    while (s.state == LINK_HANDSHAKE && buf_len(&s.in)) {
        size_t len, used;
        enum repl_line_status ls = repl_proto_line(buf_head(&s.in), buf_len(&s.in), &len, &used);
        if (ls == REPL_LINE_INCOMPLETE) return;
        if (ls == REPL_LINE_TOO_LONG) {
            link_abort("a reply line from the master is too long");
            return;
        }
        char line[REPL_LINE_MAX + 1];
        memcpy(line, buf_head(&s.in), len);
        line[len] = '\0';
        buf_consume(&s.in, used);
        handshake_reply(line, len);
    }
    if (s.state == LINK_TRANSFER) transfer_input();
}

/* --- connecting ---------------------------------------------------------- */

static void link_connect(void)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    char port[16];
    snprintf(port, sizeof port, "%d", s.port);
    log_notice("Connecting to MASTER %s:%d", s.host, s.port);
    int rc = getaddrinfo(s.host, port, &hints, &res);
    if (rc != 0 || !res) {
        log_warning("Unable to connect to MASTER %s:%d: %s", s.host, s.port, gai_strerror(rc));
        if (!s.down_since_ms) s.down_since_ms = clock_unix_ms();
        return;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const char *source = repl_replica_settings.bind_source_addr;
    if (fd >= 0 && *source && !socket_bind_source(fd, res->ai_family, source))
        log_verbose("bind-source-addr %s could not be bound (%s): connecting from the kernel's "
                    "address",
                    source, strerror(errno));
    if (fd < 0 || (connect(fd, res->ai_addr, res->ai_addrlen) != 0 && errno != EINPROGRESS)) {
        log_warning("Unable to connect to MASTER %s:%d: %s", s.host, s.port, strerror(errno));
        if (fd >= 0) close(fd);
        freeaddrinfo(res);
        if (!s.down_since_ms) s.down_since_ms = clock_unix_ms();
        return;
    }
    freeaddrinfo(res);
    int one = 1;
    if (!repl_settings.disable_tcp_nodelay)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    s.fd = fd;
    s.handler.on_event = link_event;
    ev_add(fd, EV_READABLE | EV_WRITABLE, &s.handler);
    s.state = LINK_CONNECTING;
    s.transfer_last_io_ms = clock_unix_ms();
    log_notice("MASTER <-> REPLICA sync started");
}

/* Forgets the link in whatever state (REPLICAOF to another master, or NO ONE). */
static void link_drop(void)
{
    if (s.master) {
        struct conn *c = s.master;
        conn_close(c, "REPLICAOF changed the master"); /* caches the history */
    }
    link_abort(NULL);
}

/* Our own history as the one to continue (Redis's
 * replicationCacheMasterUsingMyself): a master turned replica asks its new
 * master to continue from its own offset. */
static void cache_myself(void)
{
    s.cached = true;
    memcpy(s.cached_id, server.repl_id, sizeof s.cached_id);
    s.cached_offset = repl_offset();
    s.cached_db = repl_stream_db();
}

void repl_replica_back_to_master(void)
{
    if (!repl_is_replica) return;
    link_drop();
    s.state = LINK_NONE;
    s.cached = false;
    repl_is_replica = false;
    keyspace.replica = false;
    command_hook_set(HOOK_REPLICA, false);
    repl_history_shift();
    /* CONFIG GET replicaof and CONFIG REWRITE show the current role, as
     * Redis (Sentinel persists a failover with CONFIG REWRITE). */
    xfree(repl_replica_settings.replicaof);
    repl_replica_settings.replicaof = xstrdup("");
}

static void set_master(const char *host, size_t host_len, long long port);

void repl_replicaof_for_failover(const char *host, int port)
{
    set_master(host, strlen(host), port);
}

const char *repl_replicaof(const char *host, size_t host_len, long long port, struct buf *ok_text)
{
    if (repl_failover_state != FAILOVER_NONE)
        return "ERR REPLICAOF not allowed while failing over.";
    if (!host) { /* NO ONE */
        if (repl_is_replica) {
            repl_replica_back_to_master();
            log_notice("MASTER MODE enabled (user request from REPLICAOF NO ONE)");
        }
        buf_append_fmt(ok_text, "OK");
        return NULL;
    }
    if (host_len >= sizeof s.host) return "ERR Invalid master host";
    if (repl_is_replica && host_len == strlen(s.host) && strncasecmp(host, s.host, host_len) == 0 &&
        s.port == port) {
        log_notice("REPLICAOF would result into synchronization with the master we are already "
                   "connected with. No operation performed.");
        buf_append_fmt(ok_text, "OK Already connected to specified master");
        return NULL;
    }
    set_master(host, host_len, port);
    buf_append_fmt(ok_text, "OK");
    return NULL;
}

/* Redis's replicationSetMaster. */
static void set_master(const char *host, size_t host_len, long long port)
{
    bool was_master = !repl_is_replica;
    link_drop();
    memcpy(s.host, host, host_len);
    s.host[host_len] = '\0';
    s.port = (int)port;
    char *now = xmalloc(host_len + 24);
    snprintf(now, host_len + 24, "%s %d", s.host, s.port);
    xfree(repl_replica_settings.replicaof);
    repl_replica_settings.replicaof = now; /* what CONFIG REWRITE writes */
    if (was_master) cache_myself();
    repl_is_replica = true;
    keyspace.replica = true;
    command_hook_set(HOOK_REPLICA, true);
    propagation_remove_consumer(repl_feed); /* our replicas get the master's own bytes */
    s.state = LINK_CONNECT;
    s.down_since_ms = clock_unix_ms();
    log_notice("REPLICAOF %s:%d enabled", s.host, s.port);
    link_connect();
}

void repl_replica_follow(const char *host, int port)
{
    if (repl_is_replica && strcasecmp(host, s.host) == 0 && s.port == port) return;
    set_master(host, strlen(host), port);
}

long long repl_replica_data_age_ms(void)
{
    int64_t now = clock_unix_ms();
    if (s.state == LINK_CONNECTED && s.master) return now - s.last_io_ms;
    return s.down_since_ms ? now - s.down_since_ms : 0;
}

/* --- once a second ------------------------------------------------------- */

void repl_replica_housekeeping(void)
{
    if (!repl_is_replica) return;
    int64_t now = clock_unix_ms();
    if (now - s.last_cron_ms < 1000) return;
    s.last_cron_ms = now;
    long long timeout_ms = repl_settings.timeout * 1000;
    if ((s.state == LINK_CONNECTING || s.state == LINK_HANDSHAKE || s.state == LINK_TRANSFER) &&
        now - s.transfer_last_io_ms > timeout_ms) {
        link_abort(s.state == LINK_TRANSFER
                       ? "Timeout receiving bulk data from MASTER... If the problem persists try "
                         "to set the 'repl-timeout' parameter in redis.conf to a larger value."
                       : "Timeout connecting to the MASTER...");
    }
    if (s.state == LINK_CONNECTED && s.master && now - s.last_io_ms > timeout_ms) {
        log_warning("MASTER timeout: no data nor PING received...");
        conn_close(s.master, "MASTER timeout");
    }
    if (s.state == LINK_CONNECT) link_connect();
    if (s.state == LINK_CONNECTED && s.master) send_ack();
}

/* --- INFO and ROLE ------------------------------------------------------- */

static const char *role_state(void)
{
    switch (s.state) {
    case LINK_NONE:
        return "none";
    case LINK_CONNECT:
        return "connect";
    case LINK_CONNECTING:
        return "connecting";
    case LINK_HANDSHAKE:
        return "handshake";
    case LINK_TRANSFER:
        return "sync";
    case LINK_CONNECTED:
        return "connected";
    }
    return "unknown";
}

void repl_replica_role(struct reply *r)
{
    reply_array_len(r, 5);
    reply_bulk_cstr(r, "slave");
    reply_bulk_cstr(r, s.host);
    reply_int(r, s.port);
    reply_bulk_cstr(r, role_state());
    reply_int(r, s.master ? repl_offset() : -1);
}

void repl_replica_info(struct buf *b)
{
    int64_t now = clock_unix_ms();
    long long offset = s.master ? repl_offset() : s.cached ? s.cached_offset : 0;
    long long read_offset = s.master ? s.read_reploff : offset;
    buf_append_fmt(b,
                   "role:slave\r\nmaster_host:%s\r\nmaster_port:%d\r\nmaster_link_status:%s\r\n"
                   "master_last_io_seconds_ago:%d\r\nmaster_sync_in_progress:%d\r\n"
                   "slave_read_repl_offset:%lld\r\nslave_repl_offset:%lld\r\n",
                   s.host, s.port, s.state == LINK_CONNECTED ? "up" : "down",
                   s.master ? (int)((now - s.last_io_ms) / 1000) : -1,
                   s.state == LINK_TRANSFER ? 1 : 0, read_offset, offset);
    if (s.state == LINK_TRANSFER) {
        long long size = s.usemark ? 0 : s.transfer_size < 0 ? 0 : s.transfer_size;
        buf_append_fmt(b,
                       "master_sync_total_bytes:%lld\r\nmaster_sync_read_bytes:%lld\r\n"
                       "master_sync_left_bytes:%lld\r\nmaster_sync_perc:%.2f\r\n"
                       "master_sync_last_io_seconds_ago:%d\r\n",
                       s.usemark ? -1LL : size, s.transfer_read, size - s.transfer_read,
                       size ? (double)s.transfer_read / (double)size * 100 : 0.0,
                       (int)((now - s.transfer_last_io_ms) / 1000));
    }
    if (s.state != LINK_CONNECTED)
        buf_append_fmt(b, "master_link_down_since_seconds:%lld\r\n",
                       s.down_since_ms ? (long long)((now - s.down_since_ms) / 1000) : -1LL);
    buf_append_fmt(b, "slave_priority:%lld\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
                   repl_replica_settings.priority, repl_replica_settings.read_only ? 1 : 0,
                   repl_replica_settings.announced ? 1 : 0);
}

/* --- the command path ---------------------------------------------------- */

const char *repl_readonly_refusal(const struct conn *c)
{
    if (!repl_replica_settings.read_only || repl_conn_is_master(c)) return NULL;
    return "READONLY You can't write against a read only replica.";
}

const char *repl_stale_refusal(const struct conn *c)
{
    if (repl_replica_settings.serve_stale_data || s.state == LINK_CONNECTED ||
        repl_conn_is_master(c))
        return NULL;
    return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
}

/* --- startup ------------------------------------------------------------- */

void repl_start(void)
{
    if (!repl_replica_settings.replicaof || !*repl_replica_settings.replicaof) return;
    char text[300]; /* a copy: becoming a replica rewrites the setting */
    snprintf(text, sizeof text, "%s", repl_replica_settings.replicaof);
    char host[256];
    long long port;
    if (sscanf(text, "%255s %lld", host, &port) != 2) {
        log_warning("replicaof: expected 'HOST PORT', got '%s'", text);
        return;
    }
    struct buf ok;
    buf_init(&ok, 16);
    const char *err = repl_replicaof(host, strlen(host), port, &ok);
    if (err) log_warning("replicaof %s: %s", text, err);
    buf_free(&ok);
}

void repl_start_early(void)
{
    repl_master_init();
    const char *text = repl_replica_settings.replicaof;
    /* A replica keeps the keys its snapshot holds past their TTL: the
     * master's DEL removes them (Redis loads so when not a master). */
    if (text && *text) rdb_load_keep_expired = keyspace.replica = true;
}

void repl_after_load(const struct rdb_load_info *info)
{
    rdb_load_keep_expired = false;
    const char *text = repl_replica_settings.replicaof;
    if (!text || !*text || !info || !info->repl_id[0] || info->repl_stream_db < 0) return;
    /* Restarted from its own snapshot: continue the master's history from
     * the offset it reflects (PSYNC2 after a restart). */
    memcpy(server.repl_id, info->repl_id, sizeof server.repl_id);
    repl_history_adopt(info->repl_id, info->repl_offset);
    s.cached = true;
    memcpy(s.cached_id, info->repl_id, sizeof s.cached_id);
    s.cached_offset = info->repl_offset;
    s.cached_db = info->repl_stream_db;
}
