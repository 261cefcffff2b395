/* socket.c — TCP and Unix listeners and their conn transport; see socket.h. */
#include "transport/socket.h"
#include "util/buf.h"
#include "util/numparse.h"

#include <limits.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "connection/conn_transport.h"
#include "core/sockets.h"
#include "core/auth.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/server_state.h" /* server.tcp_port */
#include "transport/transport.h"
#include "util/stats.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* How long a listener rests after accept() ran out of descriptors. */
#define LISTENER_BACKOFF_MS 100

struct listener {
    struct ev_handler handler; /* first: the event loop hands this back */
    int fd;
    bool is_unix;
    socket_accept_fn on_accept; /* another transport's (TLS); NULL: plain TCP or Unix */
    int64_t paused_until_ms;    /* 0 = in the event loop */
    char *path;                 /* Unix socket path to unlink on stop */
    char desc[160];
    /* Opened for an address of the bind list (the host as listed, "-"
     * marker included): CONFIG SET port/bind reopens these. */
    bool from_bind;
    bool opening; /* opened by the CONFIG SET being committed, not yet swapped in */
    char bind_host[64];
    int port;
};

struct socket_conn {
    struct ev_handler handler;
    struct conn *conn;
    uint32_t mask; /* current epoll interest */
    bool local;    /* TCP from 127.0.0.1 or ::1 (conn_is_local) */
};

/* Separately allocated: the event loop holds each one's handler. */
static struct listener **listeners;
static int listener_count;
/* The TLS transport's accept, when it listens at the bind addresses. */
static socket_accept_fn bind_tls_accept;

/* --- the conn transport --------------------------------------------- */

static ssize_t sock_read(struct conn *c, void *dst, size_t cap)
{
    ssize_t n;
    do n = read(conn_io(c)->fd, dst, cap);
    while (n < 0 && errno == EINTR);
    return n;
}

static ssize_t sock_write(struct conn *c, const void *src, size_t len, enum out_unit_kind kind)
{
    (void)kind; /* one byte stream for replies and pushes */
    ssize_t n;
    do n = write(conn_io(c)->fd, src, len);
    while (n < 0 && errno == EINTR);
    return n;
}

static void sock_set_interest(struct conn *c, bool readable, bool writable)
{
    struct socket_conn *sc = conn_io(c)->transport_data;
    uint32_t mask = (readable ? EV_READABLE : 0) | (writable ? EV_WRITABLE : 0);
    if (mask == sc->mask) return;
    sc->mask = mask;
    /* A conn the loop no longer reports would stall for ever: close it.
     * conn_close() is idempotent and the conn's memory outlives this pass. */
    if (!ev_modify(conn_io(c)->fd, mask, &sc->handler)) {
        log_warning("epoll_ctl for client id=%llu addr=%s failed: %s",
                    (unsigned long long)conn_id(c), conn_addr(c), strerror(errno));
        conn_close(c, "event registration failed");
    }
}

static void sock_close(struct conn *c)
{
    struct conn_io *io = conn_io(c);
    ev_remove(io->fd);
    close(io->fd);
    io->fd = -1;
}

/* The epoll batch being dispatched may still hold an event pointing at this
 * handler (one client's command closing another, a PUBLISH meeting a reset
 * subscriber): it is freed only when the pass is over (conn.h, Lifetime). */
static void sock_release(struct conn *c)
{
    xfree(conn_io(c)->transport_data);
    conn_io(c)->transport_data = NULL;
}

/* A TCP peer's AUTH source: its IPv4 address, or for IPv6 its /64 — one
 * host usually holds a whole /64, so per-address budgets would be free to
 * multiply. An IPv4-mapped IPv6 address counts as the IPv4 address. Runs on
 * AUTH only (one getpeername), never per request. */
void socket_tcp_peer_source(const struct conn *c, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?";
    if (getpeername(conn_io_const(c)->fd, (struct sockaddr *)&ss, &len) != 0) {
        snprintf(out, cap, "tcp:?");
        return;
    }
    if (ss.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
        snprintf(out, cap, "%s", host);
        return;
    }
    struct in6_addr a = ((struct sockaddr_in6 *)&ss)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
        inet_ntop(AF_INET, &a.s6_addr[12], host, sizeof host);
        snprintf(out, cap, "%s", host);
        return;
    }
    memset(&a.s6_addr[8], 0, 8);
    inet_ntop(AF_INET6, &a, host, sizeof host);
    snprintf(out, cap, "%s/64", host);
}

/* A Unix peer's AUTH source: its uid (SO_PEERCRED), so one local user's
 * guesses do not spend another's budget. Peers whose credentials cannot be
 * read share one source. */
static void unix_peer_source(const struct conn *c, char *out, size_t cap)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(conn_io_const(c)->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
        snprintf(out, cap, "unix:uid=%u", (unsigned)cred.uid);
    else
        snprintf(out, cap, "unix:?");
}

static bool socket_start(void);
static int socket_endpoint_count(void);
static void socket_housekeeping(void);
static void socket_stop(void);

/* The registry entry (transport.h): TCP and Unix listeners. SBE may come
 * over them only when --enable-sbe says so (a trusted network). */
/* RESP over sockets always authenticates when a password is set;
 * SBE too, unless --no-auth-sbe declares every local peer trusted. */
static bool socket_skips_auth(bool sbe)
{
    return sbe && config.no_auth_sbe;
}

static bool tcp_is_local(const struct conn *c)
{
    const struct socket_conn *sc = conn_io_const(c)->transport_data;
    return sc->local;
}

const struct transport socket_transport = {
    .name = "socket",
    .start = socket_start,
    .endpoint_count = socket_endpoint_count,
    .housekeeping = socket_housekeeping,
    .stop = socket_stop,
};

static const struct conn_transport tcp_transport = {
    .name = "tcp",
    .flags = CONN_TRANSPORT_CARRIES_SBE,
    .skips_auth = socket_skips_auth,
    .is_local = tcp_is_local,
    .read = sock_read,
    .write = sock_write,
    .set_interest = sock_set_interest,
    .close = sock_close,
    .release = sock_release,
    .peer_source = socket_tcp_peer_source,
};

static const struct conn_transport unix_transport = {
    .name = "unix",
    .flags = CONN_TRANSPORT_LOCAL | CONN_TRANSPORT_CARRIES_SBE,
    .skips_auth = socket_skips_auth,
    .read = sock_read,
    .write = sock_write,
    .set_interest = sock_set_interest,
    .close = sock_close,
    .release = sock_release,
    .peer_source = unix_peer_source,
};

static void on_conn_event(struct ev_handler *h, uint32_t mask)
{
    struct socket_conn *sc = (struct socket_conn *)h;
    struct conn *c = sc->conn;
    /* Either is a no-op once the conn is closed (an event of this batch). */
    if (mask & EV_WRITABLE) conn_on_writable(c);
    if (mask & EV_READABLE) conn_on_readable(c);
}

/* --- addresses ------------------------------------------------------ */

void socket_conn_set_addresses(struct conn *c, const struct sockaddr_storage *peer)
{
    struct sockaddr_storage local;
    socklen_t llen = sizeof local;
    char addr[64], laddr[64] = "";
    socket_format_addr(peer, addr, sizeof addr);
    if (getsockname(conn_io(c)->fd, (struct sockaddr *)&local, &llen) == 0)
        socket_format_addr(&local, laddr, sizeof laddr);
    conn_set_peer(c, addr, laddr);
}

/* --- listeners ------------------------------------------------------ */

static void reject_over_limit(int fd)
{
    static const char msg[] = "-ERR max number of clients reached\r\n";
    /* Best effort: a fresh socket's send buffer takes this without blocking. */
    ssize_t n = write(fd, msg, sizeof msg - 1);
    (void)n;
    close(fd);
    stats.rejected_connections++;
}

/* Protected mode, as Redis 7.0's clientAcceptHandler(): with protected-mode
 * on and no password, a TCP peer that is not on the loopback interface gets
 * Redis's explanation and is closed before any command; counted in
 * rejected_connections. */
static bool protected_mode_refuses(int fd, const struct sockaddr_storage *peer)
{
    if (!config.protected_mode || auth_required() || socket_addr_is_loopback(peer)) return false;
    static const char msg[] =
        "-DENIED Redis is running in protected mode because protected mode is enabled and no "
        "password is set for the default user. In this mode connections are only accepted from "
        "the loopback interface. If you want to connect from external computers to Redis you may "
        "adopt one of the following solutions: 1) Just disable protected mode sending the "
        "command 'CONFIG SET protected-mode no' from the loopback interface by connecting to "
        "Redis from the same host the server is running, however MAKE SURE Redis is not "
        "publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change "
        "permanent. 2) Alternatively you can just disable the protected mode by editing the "
        "Redis configuration file, and setting the protected mode option to 'no', and then "
        "restarting the server. 3) If you started the server manually just for testing, "
        "restart it with the '--protected-mode no' option. 4) Setup a an authentication "
        "password for the default user. NOTE: You only need to do one of the above things in order "
        "for the server to start accepting connections from the outside.\r\n";
    /* ("Setup a an": Redis 7.0's words, kept byte for byte.) Best effort,
     * as reject_over_limit(). */
    ssize_t n = write(fd, msg, sizeof msg - 1);
    (void)n;
    close(fd);
    stats.rejected_connections++;
    return true;
}

/* The connection that could not be accepted stays queued, so the listener
 * stays readable: rest it instead of failing again on every pass; the log
 * gets one line per LOG_LIMIT_INTERVAL_MS however long the shortage lasts. */
static void listener_pause(struct listener *l, int err)
{
    static struct log_limiter warnings;
    log_warning_limited(&warnings,
                        "accept on %s failed: %s; pausing accepts for %d ms each time (raise "
                        "ulimit -n or lower maxclients)",
                        l->desc, strerror(err), LISTENER_BACKOFF_MS);
    ev_remove(l->fd);
    l->paused_until_ms = clock_mono_us() / 1000 + LISTENER_BACKOFF_MS;
}

static void socket_housekeeping(void)
{
    int64_t now_ms = clock_mono_us() / 1000;
    for (int i = 0; i < listener_count; i++) {
        struct listener *l = listeners[i];
        if (!l->paused_until_ms || now_ms < l->paused_until_ms) continue;
        if (!ev_add(l->fd, EV_READABLE, &l->handler)) {
            log_warning("epoll_ctl for listener %s failed: %s", l->desc, strerror(errno));
            l->paused_until_ms = now_ms + LISTENER_BACKOFF_MS;
            continue;
        }
        l->paused_until_ms = 0;
    }
}

static void on_listener_readable(struct ev_handler *h, uint32_t mask)
{
    (void)mask;
    struct listener *l = (struct listener *)h;
    struct sockaddr_storage peer;
    socklen_t plen = sizeof peer;
    /* One accept per readiness report: it can only fail if the peer vanished
     * between the report and the call. */
    int fd = accept4(l->fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            listener_pause(l, errno);
        else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED && errno != EINTR)
            log_warning("accept on %s failed: %s", l->desc, strerror(errno));
        return;
    }
    stats.connections_received++;
    if ((long long)conn_count() >= config.maxclients) {
        reject_over_limit(fd);
        return;
    }
    if (!l->is_unix && protected_mode_refuses(fd, &peer)) return;
    if (!l->is_unix) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (config.tcp_keepalive > 0) {
            int idle = (int)config.tcp_keepalive;
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
        }
    }
    if (l->on_accept) {
        l->on_accept(fd, &peer);
        return;
    }
    struct socket_conn *sc = xcalloc(1, sizeof *sc);
    sc->handler.on_event = on_conn_event;
    sc->mask = EV_READABLE;
    sc->local = !l->is_unix && socket_addr_is_loopback(&peer);
    struct conn *c = conn_create(l->is_unix ? &unix_transport : &tcp_transport, fd, sc);
    sc->conn = c;
    if (l->is_unix) {
        char path[64];
        snprintf(path, sizeof path, "%.61s:0", l->path);
        conn_set_peer(c, path, path);
    } else {
        socket_conn_set_addresses(c, &peer);
    }
    if (!ev_add(fd, EV_READABLE, &sc->handler)) {
        log_warning("epoll_ctl for client %s failed: %s", conn_addr(c), strerror(errno));
        conn_close(c, "epoll registration failed");
    }
}

static void listener_add(struct listener *l)
{
    listeners = xrealloc(listeners, sizeof *listeners * (size_t)(listener_count + 1));
    listeners[listener_count++] = l;
}

static void listener_close(struct listener *l)
{
    ev_remove(l->fd);
    close(l->fd);
    if (l->path) {
        unlink(l->path);
        xfree(l->path);
    }
    xfree(l);
}

/* Opens a TCP listener on host:port, not yet in the list or the event loop.
 * NULL with *failed set after logging why; NULL with *failed clear for an
 * optional ("-"-marked) address this host does not have. */
static struct listener *open_tcp(const char *host, int port, socket_accept_fn on_accept,
                                 bool *failed)
{
    *failed = false;
    const char *h = host[0] == '-' ? host + 1 : host; /* Redis's optional-bind marker */
    /* Redis 7.0's wildcards (its default `bind * -::*`): every IPv4, every
     * IPv6 address (IPV6_V6ONLY, so both can be bound on one port). */
    if (strcmp(h, "*") == 0)
        h = "0.0.0.0";
    else if (strcmp(h, "::*") == 0)
        h = "::";
    int fd = socket_listen_tcp(h, port, (int)config.tcp_backlog);
    if (fd < 0) {
        int err = errno;
        if (err == EINVAL) {
            log_warning("invalid listen address '%s' (numeric IPv4 or IPv6 expected)", h);
            *failed = true;
            return NULL;
        }
        if (host[0] == '-' && (err == EADDRNOTAVAIL || err == EAFNOSUPPORT)) return NULL;
        log_warning("could not listen on %s:%d: %s", h, port, strerror(err));
        *failed = true;
        return NULL;
    }
    struct listener *l = xcalloc(1, sizeof *l);
    l->handler.on_event = on_listener_readable;
    l->fd = fd;
    l->on_accept = on_accept;
    l->port = port;
    snprintf(l->desc, sizeof l->desc, strchr(h, ':') ? "[%s]:%d%s" : "%s:%d%s", h, port,
             on_accept ? " (TLS)" : "");
    return l;
}

static bool listen_tcp(const char *host, int port, socket_accept_fn on_accept)
{
    bool failed;
    struct listener *l = open_tcp(host, port, on_accept, &failed);
    if (l) listener_add(l);
    if (l && !server.tcp_port && !on_accept) server.tcp_port = port;
    return !failed;
}

/* The bind list's listeners for port and on_accept appended to *out: each
 * one already open for the same address taken out of the list, the others
 * opened (marked `opening`). False when one cannot be opened. */
static bool open_bind_group(int port, socket_accept_fn on_accept, struct listener ***out, int *n)
{
    bool ok = true;
    char *addrs = xstrdup(config.bind ? config.bind : "127.0.0.1");
    char *save = NULL;
    for (char *tok = strtok_r(addrs, " ", &save); tok && ok; tok = strtok_r(NULL, " ", &save)) {
        struct listener *l = NULL;
        for (int i = 0; i < listener_count && !l; i++) {
            struct listener *old = listeners[i];
            if (old->from_bind && old->port == port && old->on_accept == on_accept &&
                strcmp(old->bind_host, tok) == 0) {
                l = old;
                listeners[i] = listeners[--listener_count];
            }
        }
        if (!l) {
            bool failed;
            l = open_tcp(tok, port, on_accept, &failed);
            ok = !failed;
            if (l) l->opening = true;
        }
        if (!l) continue;
        l->from_bind = true;
        snprintf(l->bind_host, sizeof l->bind_host, "%s", tok);
        *out = xrealloc(*out, sizeof **out * (size_t)(*n + 1));
        (*out)[(*n)++] = l;
    }
    xfree(addrs);
    return ok;
}

bool socket_listen_bind_addresses(int port, socket_accept_fn on_accept)
{
    struct listener **group = NULL;
    int n = 0;
    bool ok = open_bind_group(port, on_accept, &group, &n);
    for (int i = 0; i < n; i++) {
        group[i]->opening = false; /* socket_start adds them to the event loop */
        listener_add(group[i]);
        if (!server.tcp_port && !on_accept) server.tcp_port = port;
    }
    if (on_accept) bind_tls_accept = on_accept;
    xfree(group);
    return ok;
}

/* The bind list the listeners were last opened for. */
static char *active_bind;

/* CONFIG SET port / bind (Redis's changeListener and changeBindAddr): the
 * bind list's listeners, plain and TLS, reopened for the new values —
 * addresses kept are not closed — and swapped in only when every one
 * opened; else the old ones stay and the values are put back. */
static const char *socket_commit_listeners(void)
{
    bool bind_changed = strcmp(active_bind ? active_bind : "", config.bind ? config.bind : "");
    struct listener **group = NULL;
    int n = 0;
    bool ok = true;
    if (config.port > 0) ok = open_bind_group((int)config.port, NULL, &group, &n);
    if (ok && bind_tls_accept)
        ok = open_bind_group((int)config.tls_port, bind_tls_accept, &group, &n);
    for (int i = 0; ok && i < n; i++) {
        if (!group[i]->opening) continue;
        if (!ev_add(group[i]->fd, EV_READABLE, &group[i]->handler)) {
            log_warning("epoll_ctl for listener %s failed: %s", group[i]->desc, strerror(errno));
            ok = false;
        }
    }
    if (!ok) {
        for (int i = 0; i < n; i++) {
            if (group[i]->opening)
                listener_close(group[i]);
            else
                listener_add(group[i]);
        }
    } else {
        /* What is left of the old bind listeners is closed. */
        for (int i = 0; i < listener_count;) {
            if (listeners[i]->from_bind) {
                log_notice("closed listener %s", listeners[i]->desc);
                listener_close(listeners[i]);
                listeners[i] = listeners[--listener_count];
            } else {
                i++;
            }
        }
        for (int i = 0; i < n; i++) {
            listener_add(group[i]);
            if (group[i]->opening) log_notice("listening on %s", group[i]->desc);
            group[i]->opening = false;
        }
        if (config.port > 0) server.tcp_port = (int)config.port;
        xfree(active_bind);
        active_bind = xstrdup(config.bind ? config.bind : "");
    }
    xfree(group);
    if (ok) return NULL;
    return bind_changed ? "Failed to bind to specified addresses."
                        : "Unable to listen on this port. Check server logs.";
}

static bool listen_unix(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        log_warning("unix socket path too long: %s", path);
        return false;
    }
    strcpy(a.sun_path, path);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    /* CVE-2023-45145: the socket file must never be more open than
     * --unixsocketperm, not even for an instant. bind() creates it under a
     * umask that leaves at most those bits (umask is process-wide: this
     * runs at startup, before any thread that creates files), chmod() then
     * sets exactly them, and only listen() lets a peer connect — so no
     * connection is possible through a mode that is not the final one. */
    mode_t perm = (mode_t)config.unixsocketperm;
    mode_t old_umask = perm ? umask(~perm & 0777) : 0;
    int bound = fd >= 0 ? bind(fd, (struct sockaddr *)&a, sizeof a) : -1;
    int bind_errno = errno;
    if (perm) umask(old_umask);
    errno = bind_errno;
    if (bound < 0 || (perm && chmod(path, perm) != 0) || listen(fd, (int)config.tcp_backlog) < 0) {
        log_warning("could not listen on unix socket %s (--unixsocketperm %llo): %s", path,
                    config.unixsocketperm, strerror(errno));
        if (fd >= 0) close(fd);
        if (bound == 0) unlink(path);
        return false;
    }
    struct listener *l = xcalloc(1, sizeof *l);
    l->handler.on_event = on_listener_readable;
    l->fd = fd;
    l->is_unix = true;
    l->path = xstrdup(path);
    snprintf(l->desc, sizeof l->desc, "%s", path);
    listener_add(l);
    return true;
}

static bool socket_start(void)
{
    bool ok = true;
    if (config.port > 0) ok = socket_listen_bind_addresses(config.port, NULL);
    for (int i = 0; ok && i < config.listen_count; i++)
        ok = listen_tcp(config.listen[i].host, config.listen[i].port, NULL);
    for (int i = 0; ok && i < config.unixsocket_count; i++) ok = listen_unix(config.unixsocket[i]);
    if (!ok) return false;
    for (int i = 0; i < listener_count; i++) {
        struct listener *l = listeners[i];
        if (!ev_add(l->fd, EV_READABLE, &l->handler)) {
            log_warning("epoll_ctl for listener %s failed: %s", l->desc, strerror(errno));
            return false;
        }
        log_notice("listening on %s", l->desc);
    }
    active_bind = xstrdup(config.bind ? config.bind : "");
    return true;
}

static int socket_endpoint_count(void)
{
    return listener_count;
}

static void socket_stop(void)
{
    for (int i = 0; i < listener_count; i++) listener_close(listeners[i]);
    xfree(listeners);
    listeners = NULL;
    listener_count = 0;
    xfree(active_bind);
    active_bind = NULL;
}

/* --listen ADDR:PORT, IPv4 or [IPv6]:PORT. */
static bool parse_listen(const char *s, struct listen_addr *out)
{
    const char *colon;
    size_t hostlen;
    const char *host = s;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':') return false;
        host = s + 1;
        hostlen = (size_t)(close - host);
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon || strchr(s, ':') != colon) return false; /* IPv6 needs brackets */
        hostlen = (size_t)(colon - s);
    }
    if (hostlen == 0 || hostlen >= sizeof out->host) return false;
    long long port;
    if (!num_parse_ll(colon + 1, strlen(colon + 1), &port) || port < 1 || port > 65535)
        return false;
    memcpy(out->host, host, hostlen);
    out->host[hostlen] = '\0';
    out->port = (int)port;
    return true;
}

static bool listen_parse(const char *const *values, struct config_error *err)
{
    struct listen_addr a;
    if (!parse_listen(values[0], &a)) return config_fail(err, "expected ADDR:PORT or [IPV6]:PORT");
    config.listen = xrealloc(config.listen, sizeof a * (size_t)(config.listen_count + 1));
    config.listen[config.listen_count++] = a;
    return true;
}

static void listen_render(struct buf *out)
{
    for (int i = 0; i < config.listen_count; i++) {
        const struct listen_addr *a = &config.listen[i];
        if (i) buf_append_char(out, ' ');
        buf_append_fmt(out, strchr(a->host, ':') ? "[%s]:%d" : "%s:%d", a->host, a->port);
    }
}

static bool unixsocket_parse(const char *const *values, struct config_error *err)
{
    if (!values[0][0]) return config_fail(err, "path must not be empty");
    config.unixsocket =
        xrealloc(config.unixsocket, sizeof(char *) * (size_t)(config.unixsocket_count + 1));
    config.unixsocket[config.unixsocket_count++] = xstrdup(values[0]);
    return true;
}

static void unixsocket_render(struct buf *out)
{
    for (int i = 0; i < config.unixsocket_count; i++) {
        if (i) buf_append_char(out, ' ');
        buf_append(out, config.unixsocket[i], strlen(config.unixsocket[i]));
    }
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param socket_params[] = {
    {.name = "port",
     .kind = CFG_INT,
     .value = &config.port,
     .max = 65535,
     .value_name = "P",
     .help = "TCP port on the --bind addresses (default 6379; 0 = none); CONFIG SET reopens "
             "the listeners",
     .commit = socket_commit_listeners},
    {.name = "bind",
     .kind = CFG_STRING,
     .value = &config.bind,
     .flags = CFG_MULTI_ARG,
     .value_name = "ADDRS",
     .help = "addresses for --port and --tls-port, space-separated (default 127.0.0.1); "
             "CONFIG SET reopens the listeners",
     .commit = socket_commit_listeners},
    {.name = "listen",
     .kind = CFG_CUSTOM,
     .flags = CFG_IMMUTABLE,
     .value_name = "ADDR:PORT",
     .help = "extra TCP listener, IPv4 or [IPv6]; repeatable",
     .parse = listen_parse,
     .render = listen_render},
    {.name = "unixsocket",
     .alias = "uds-listen",
     .kind = CFG_CUSTOM,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "PATH",
     .help = "Unix stream socket listener; repeatable (alias --uds-listen)",
     .parse = unixsocket_parse,
     .render = unixsocket_render},
    {.name = "unixsocketperm",
     .kind = CFG_OCTAL,
     .value = &config.unixsocketperm,
     .max = 0777,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "MODE",
     .help = "permissions of Unix sockets, octal as in redis.conf (700, 0770; default 0 = the "
             "umask's); the socket is created with them, never more open"},
    {.name = "tcp-backlog",
     .kind = CFG_INT,
     .value = &config.tcp_backlog,
     .max = INT_MAX,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "N",
     .help = "listen() backlog (default 511)"},
    {.name = "tcp-keepalive",
     .kind = CFG_INT,
     .value = &config.tcp_keepalive,
     .max = INT_MAX,
     .value_name = "SECONDS",
     .help = "TCP keepalive interval for clients (default 300; 0 = off)"},
    {.name = "protected-mode",
     .kind = CFG_BOOL,
     .value = &config.protected_mode,
     .value_name = "yes|no",
     .help = "without a password, refuse TCP clients not on the loopback interface with Redis's "
             "DENIED explanation (default yes, as Redis)"},
    {.name = "no-auth-sbe",
     .kind = CFG_FLAG,
     .value = &config.no_auth_sbe,
     .flags = CFG_IMMUTABLE,
     .value_name = "",
     .help = "SBE over TCP and Unix sockets needs no Auth frame (every peer that can connect is "
             "trusted; rings follow --no-auth-ring, libfabric --no-auth-libfabric)"},
};

const struct config_table socket_config = CONFIG_TABLE(socket_params, NULL);
