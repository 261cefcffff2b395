/* ring.c — shared-memory ring transport, server side; see ring.h and
 * include/goblin/ring_layout.h. */
#include "transport/ring.h"
#include "util/buf.h"
#include "util/numparse.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <goblin/ring_layout.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connection/conn_transport.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "transport/transport.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Everything the server reads from the file is input from whoever can
 * write it: the layout comes from `layout` (set at creation), never from the
 * header; record fields arrive through goblin_ring_peek() snapshots. */
struct ring_endpoint {
    char *path;
    struct goblin_ring_header *hdr;
    size_t map_bytes;
    struct goblin_ring_layout layout; /* private copy of what ring_create wrote */
    struct goblin_ring_queue sq;      /* we consume */
    struct goblin_ring_queue cq;      /* we produce */
    uint32_t epoch;                   /* last epoch acted on (served, detached or refused) */
    struct conn *conn;                /* the session's conn, NULL between sessions */
    bool framed;                      /* its wire is framed: one record, one frame (set_framed) */
    bool has_partial;                 /* `partial` holds a peeked SQ record */
    struct goblin_ring_view partial;  /* SQ record partly copied into the conn */
    uint32_t partial_offset;
    bool close_pending;          /* the session ended with the CQ full: CLOSE still owed */
    struct log_limiter warnings; /* the client can make these at will */
    bool want_read;              /* false while the conn is paused by output backpressure */
    bool want_write;             /* output is waiting for CQ room */
    /* The doorbell: FIFO <path>.wake, held open read-write (so it never
     * reports end of file); clients write a byte to it while the header
     * says the server sleeps. -1 when none was made. */
    char *doorbell_path;
    int doorbell_fd;
    struct ev_handler doorbell_handler;
};

/* A polled target: one ring, or every ring of a pool in index order. */
struct ring_target {
    char name[64];
    struct ring_endpoint *rings;
    int count;
};

static struct ring_target *targets;
static int target_count;

unsigned long long ring_round_size(unsigned long long bytes)
{
    unsigned long long size = (unsigned long long)sysconf(_SC_PAGESIZE);
    while (size < bytes) size <<= 1;
    return size;
}

/* --- conn transport ------------------------------------------------- */

static ssize_t ring_read(struct conn *c, void *dst, size_t cap)
{
    struct ring_endpoint *ep = conn_io(c)->transport_data;
    /* The common case of a framed conn (SBE): the record the poll peeked,
     * whole, as the loop below would take it (one copy of the snapshot
     * length, released, the next slot untouched). */
    const struct goblin_ring_view *p = &ep->partial;
    if (ep->framed && ep->has_partial && ep->partial_offset == 0 && p->kind == GOBLIN_RING_DATA &&
        p->len > 0 && p->len <= cap) {
        size_t n = p->len;
        memcpy(dst, p->payload, n);
        goblin_ring_consume(&ep->sq, p);
        ep->has_partial = false;
        return (ssize_t)n;
    }
    unsigned char *out = dst;
    size_t copied = 0;
    while (copied < cap) {
        if (!ep->has_partial) {
            if (!goblin_ring_peek(&ep->sq, &ep->partial)) {
                if (!ep->sq.corrupt) break;
                log_warning_limited(&ep->warnings,
                                    "%s: malformed SQ record at position %llu: session ended",
                                    ep->path, (unsigned long long)ep->sq.pos);
                errno = EPROTO;
                return -1;
            }
            ep->has_partial = true;
            ep->partial_offset = 0;
        }
        /* The snapshot, not the record: the client may rewrite len at any time. */
        const struct goblin_ring_view *v = &ep->partial;
        if (v->kind != GOBLIN_RING_DATA) { /* CLOSE is CQ only */
            ep->sq.corrupt = true;
            log_warning_limited(&ep->warnings, "%s: record of kind %u in the SQ: session ended",
                                ep->path, v->kind);
            errno = EPROTO;
            return -1;
        }
        size_t left = v->len - ep->partial_offset;
        size_t n = left < cap - copied ? left : cap - copied;
        memcpy(out + copied, v->payload + ep->partial_offset, n);
        copied += n;
        ep->partial_offset += (uint32_t)n;
        if (ep->partial_offset == v->len) {
            goblin_ring_consume(&ep->sq, v);
            ep->has_partial = false;
            /* A framed wire's record is one whole frame: serve it now,
             * without touching the next slot (the client's next write). */
            if (ep->framed) break;
        }
    }
    if (copied == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)copied;
}

static ssize_t ring_write(struct conn *c, const void *src, size_t len, enum out_unit_kind kind)
{
    (void)kind; /* RESP over a ring is one byte stream */
    struct ring_endpoint *ep = conn_io(c)->transport_data;
    size_t n = goblin_ring_write(&ep->cq, src, len);
    if (n == 0 && len > 0) {
        if (ep->cq.corrupt) {
            log_warning_limited(&ep->warnings,
                                "%s: impossible CQ head from the client: session ended", ep->path);
            errno = EPROTO;
            return -1;
        }
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)n;
}

/* A framed wire's unit is one record (SBE over a ring: one whole frame per
 * record, DESIGN §3): reserved whole or not at all. A unit larger than the
 * largest record cannot be framed on this ring and ends the session. */
static int ring_send_unit(struct conn *c, const struct out_unit *unit, const char *payload)
{
    struct ring_endpoint *ep = conn_io(c)->transport_data;
    if (unit->len > goblin_ring_max_payload(&ep->cq)) {
        log_warning_limited(
            &ep->warnings,
            "%s: a %u-byte reply does not fit one record of this ring (largest %llu): "
            "session ended; use a larger ring",
            ep->path, unit->len, (unsigned long long)goblin_ring_max_payload(&ep->cq));
        errno = EMSGSIZE;
        return -1;
    }
    struct goblin_ring_record *r = goblin_ring_reserve(&ep->cq, unit->len);
    if (!r) {
        if (ep->cq.corrupt) {
            errno = EPROTO;
            return -1;
        }
        return 0;
    }
    memcpy(r->payload, payload, unit->len);
    goblin_ring_publish(&ep->cq, r, unit->len);
    return 1;
}

static void ring_set_interest(struct conn *c, bool readable, bool writable)
{
    struct ring_endpoint *ep = conn_io(c)->transport_data;
    ep->want_read = readable;
    ep->want_write = writable;
}

/* Publishes the CLOSE record owed to the client; false while the CQ is full. */
static bool ring_publish_close(struct ring_endpoint *ep)
{
    struct goblin_ring_record *r = goblin_ring_reserve(&ep->cq, 0);
    if (!r) return false;
    goblin_ring_publish_kind(&ep->cq, r, 0, GOBLIN_RING_CLOSE);
    return true;
}

static void ring_close(struct conn *c)
{
    struct ring_endpoint *ep = conn_io(c)->transport_data;
    /* Tell the client the session is over. With the CQ full the CLOSE is
     * owed and published by the poll once the client makes room (unless a
     * new epoch comes first, or the client broke the CQ head). */
    ep->close_pending = !ring_publish_close(ep) && !ep->cq.corrupt;
    ep->conn = NULL;
    ep->has_partial = false;
    ep->framed = false;
    conn_io(c)->transport_data = NULL;
}

static void ring_set_framed(struct conn *c, bool framed)
{
    struct ring_endpoint *ep = conn_io(c)->transport_data;
    ep->framed = framed;
}

/* Both wires. */
static bool ring_skips_auth(bool sbe)
{
    (void)sbe;
    return config.no_auth_ring;
}

static bool ring_start(void);
static int ring_endpoint_count(void);
static void ring_housekeeping(void);
static void ring_stop(void);
static size_t ring_lock_memory(size_t budget, size_t *total);

/* The registry entry (transport.h). */
const struct transport ring_transport = {
    .name = "ring",
    .flags = TRANSPORT_POLLED,
    .start = ring_start,
    .endpoint_count = ring_endpoint_count,
    .housekeeping = ring_housekeeping,
    .stop = ring_stop,
    .lock_memory = ring_lock_memory,
};

/* A ring is a file in this host's memory: its peer is on this host
 * (CONN_TRANSPORT_LOCAL). */
static const struct conn_transport ring_conn_io = {
    .name = "ring",
    .flags = CONN_TRANSPORT_LOCAL | CONN_TRANSPORT_CARRIES_SBE,
    .skips_auth = ring_skips_auth,
    .read = ring_read,
    .write = ring_write,
    .set_interest = ring_set_interest,
    .close = ring_close,
    .send_unit = ring_send_unit,
    .set_framed = ring_set_framed,
    /* Replies are encoded aside and copied into a record: written in place
     * they share its first cache line with the tag the client spins on
     * (measured 3x slower, docs/sbe.md). */
    /* No peer_source: all ring clients are one AUTH source ("ring"). Ring
     * files are local and permission-guarded; a ring peer has no address. */
    .holds_input_under_backpressure = true, /* the SQ; clients drain the CQ when it is full */
};

/* --- sessions ------------------------------------------------------- */

static void session_end(struct ring_endpoint *ep, const char *reason)
{
    if (ep->conn) conn_close(ep->conn, reason);
}

/* Writes the header's identity and layout fields from the private copy. */
static void ring_header_write_layout(struct ring_endpoint *ep)
{
    struct goblin_ring_header *h = ep->hdr;
    h->version = GOBLIN_RING_VERSION;
    h->header_bytes = GOBLIN_RING_HEADER_BYTES;
    h->sq_offset = ep->layout.sq_offset;
    h->sq_bytes = ep->layout.sq_bytes;
    h->cq_offset = ep->layout.cq_offset;
    h->cq_bytes = ep->layout.cq_bytes;
}

/* Why a new epoch cannot start or end a session, or NULL when it can. The
 * header's layout is only compared, never used: a client that changed it
 * would map the queues somewhere the server does not, so it is refused (and
 * the fields restored for the next client). */
static const char *session_refusal(struct ring_endpoint *ep, uint32_t previous, uint32_t epoch)
{
    if (epoch == 0) return "epoch 0 means never attached";
    bool was_attached = previous != 0 && !(previous & GOBLIN_RING_EPOCH_DETACHED);
    if ((epoch & GOBLIN_RING_EPOCH_DETACHED) && !was_attached)
        return "epoch carries the DETACHED bit but no session is attached (clear the bit to "
               "connect)";
    struct goblin_ring_layout shared;
    if (!goblin_ring_layout_read(ep->hdr, ep->map_bytes, &shared) ||
        memcmp(&shared, &ep->layout, sizeof shared) != 0) {
        ep->hdr->magic = GOBLIN_RING_MAGIC;
        ring_header_write_layout(ep);
        return "header layout fields were changed";
    }
    return NULL;
}

/* Acts on a new epoch: drop the previous session; unless the epoch is
 * refused (then no acknowledgement: the client's wait times out) or the
 * client detached, start a fresh one on empty queues; acknowledge. */
static void session_restart(struct ring_endpoint *ep, uint32_t epoch)
{
    session_end(ep, "ring session replaced");
    ep->close_pending = false; /* the client has moved on to a new epoch */
    uint32_t previous = ep->epoch;
    ep->epoch = epoch;
    const char *refusal = session_refusal(ep, previous, epoch);
    if (refusal) {
        log_warning_limited(&ep->warnings, "%s: epoch %#x refused: %s", ep->path, epoch, refusal);
        return;
    }
    unsigned char *base = (unsigned char *)ep->hdr;
    goblin_ring_queue_init(&ep->sq, base + ep->layout.sq_offset, ep->layout.sq_bytes,
                           &ep->hdr->sq_head, epoch);
    goblin_ring_queue_init(&ep->cq, base + ep->layout.cq_offset, ep->layout.cq_bytes,
                           &ep->hdr->cq_head, epoch);
    /* relaxed: published to the client by the release of ready_epoch below. */
    atomic_store_explicit(&ep->hdr->sq_head, 0, memory_order_relaxed);
    atomic_store_explicit(&ep->hdr->cq_head, 0, memory_order_relaxed);
    if (!(epoch & GOBLIN_RING_EPOCH_DETACHED)) {
        struct conn *c = conn_create(&ring_conn_io, -1, ep);
        char addr[64];
        snprintf(addr, sizeof addr, "ring:%s", ep->path);
        conn_set_peer(c, addr, addr);
        ep->conn = c;
        ep->want_read = true;
        ep->want_write = false;
    }
    /* release: the client that sees its epoch here also sees both heads reset. */
    atomic_store_explicit(&ep->hdr->ready_epoch, epoch, memory_order_release);
}

static int ring_endpoint_poll(struct ring_endpoint *ep)
{
    /* A session whose command serves others meanwhile (ev_process_nested)
     * is left alone, restarts included, until the command ends. */
    if (ep->conn && conn_io_suspended(ep->conn)) return 0;
    /* acquire: pairs with the client's release when it advances the epoch. */
    uint32_t epoch = atomic_load_explicit(&ep->hdr->epoch, memory_order_acquire);
    if (epoch != ep->epoch) {
        session_restart(ep, epoch);
        return 1;
    }
    struct conn *c = ep->conn;
    if (!c) {
        if (!ep->close_pending || !ring_publish_close(ep)) return 0;
        ep->close_pending = false;
        return 1;
    }
    int work = 0;
    if (ep->want_write) {
        work += conn_on_writable(c);
        if (!ep->conn) return work;
    }
    if (ep->want_read) {
        /* The peeked record is kept for ring_read: its header is read once. */
        if (!ep->has_partial && goblin_ring_peek(&ep->sq, &ep->partial)) {
            ep->has_partial = true;
            ep->partial_offset = 0;
        }
        if (ep->has_partial) {
            work += conn_on_readable(c);
        } else if (!ep->sq.corrupt) {
            goblin_ring_prefetch_next(&ep->sq);
        } else {
            log_warning_limited(&ep->warnings,
                                "%s: malformed SQ record at position %llu: session ended", ep->path,
                                (unsigned long long)ep->sq.pos);
            session_end(ep, "malformed ring record");
            work++;
        }
    }
    return work;
}

static int ring_target_poll(void *arg)
{
    struct ring_target *t = arg;
    int work = 0;
    for (int i = 0; i < t->count; i++) work += ring_endpoint_poll(&t->rings[i]);
    return work;
}

/* --- sleeping (core/event_loop.h, "Idling") ------------------------- */

/* After the server's fence: anything the poll would act on. Reads as the
 * poll does (a peeked SQ record is kept for it). */
static bool ring_endpoint_has_work(struct ring_endpoint *ep)
{
    if (ep->conn && conn_io_suspended(ep->conn)) return false;
    if (atomic_load_explicit(&ep->hdr->epoch, memory_order_acquire) != ep->epoch) return true;
    /* Output waiting for CQ room: the client has consumed since the full CQ was seen. */
    if ((ep->close_pending || (ep->conn && ep->want_write)) &&
        atomic_load_explicit(&ep->hdr->cq_head, memory_order_acquire) != ep->cq.cached_head)
        return true;
    if (!ep->conn || !ep->want_read) return false;
    if (!ep->has_partial && goblin_ring_peek(&ep->sq, &ep->partial)) {
        ep->has_partial = true;
        ep->partial_offset = 0;
    }
    return ep->has_partial || ep->sq.corrupt;
}

static void ring_target_set_sleeping(struct ring_target *t, uint32_t sleeping)
{
    for (int i = 0; i < t->count; i++)
        atomic_store_explicit(&t->rings[i].hdr->server_sleeping, sleeping, memory_order_relaxed);
}

/* The server's half of the handshake in ring_layout.h: store the word,
 * fence, look at every queue again. */
static bool ring_target_sleep_begin(void *arg)
{
    struct ring_target *t = arg;
    ring_target_set_sleeping(t, 1);
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < t->count; i++) {
        if (ring_endpoint_has_work(&t->rings[i])) {
            ring_target_set_sleeping(t, 0);
            return false;
        }
    }
    return true;
}

static void ring_target_sleep_end(void *arg)
{
    ring_target_set_sleeping(arg, 0);
}

/* --- files ---------------------------------------------------------- */

/* pid comes from shared memory: one above INT_MAX would make kill() address
 * a process group, so it counts as no process. */
static bool pid_alive(uint32_t pid)
{
    return pid != 0 && pid <= INT32_MAX && (kill((pid_t)pid, 0) == 0 || errno != ESRCH);
}

/* A ring's doorbell: level-triggered, so one read per report (a writer
 * that never stops cannot hold the loop here). The sleeping loop only
 * needs to wake; the targets' scan finds what the client published. */
static void on_doorbell(struct ev_handler *handler, uint32_t mask)
{
    (void)mask;
    struct ring_endpoint *ep =
        (struct ring_endpoint *)((char *)handler -
                                 offsetof(struct ring_endpoint, doorbell_handler));
    char sink[4096];
    if (read(ep->doorbell_fd, sink, sizeof sink) < 0 && errno != EAGAIN && errno != EINTR)
        log_warning_limited(&ep->warnings, "%s: doorbell read failed: %s", ep->doorbell_path,
                            strerror(errno));
}

/* Makes <path>.wake, a FIFO of the server's user only (as the ring file),
 * and watches it. */
static bool doorbell_create(struct ring_endpoint *ep)
{
    size_t n = strlen(ep->path) + sizeof ".wake";
    ep->doorbell_path = xmalloc(n);
    snprintf(ep->doorbell_path, n, "%s.wake", ep->path);
    unlink(ep->doorbell_path);
    if (mkfifo(ep->doorbell_path, 0600) != 0) {
        log_warning("--ring %s: cannot create the doorbell %s: %s", ep->path, ep->doorbell_path,
                    strerror(errno));
        return false;
    }
    ep->doorbell_fd = open(ep->doorbell_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (ep->doorbell_fd < 0 || fstat(ep->doorbell_fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
        log_warning("--ring %s: cannot open the doorbell %s: %s", ep->path, ep->doorbell_path,
                    ep->doorbell_fd < 0 ? strerror(errno) : "not the FIFO just made");
        return false;
    }
    ep->doorbell_handler.on_event = on_doorbell;
    if (!ev_add(ep->doorbell_fd, EV_READABLE, &ep->doorbell_handler)) {
        log_warning("--ring %s: cannot watch the doorbell: %s", ep->path, strerror(errno));
        return false;
    }
    return true;
}

static bool ring_create(struct ring_endpoint *ep, const char *path, unsigned long long bytes)
{
    unsigned long long q = ring_round_size(bytes);
    size_t total = GOBLIN_RING_HEADER_BYTES + 2 * q;
    memset(ep, 0, sizeof *ep);
    ep->path = xstrdup(path);
    ep->doorbell_fd = -1;

    /* Refuse to take over a ring another live server is serving. */
    int old = open(path, O_RDONLY | O_CLOEXEC);
    if (old >= 0) {
        struct goblin_ring_header existing;
        bool served = pread(old, &existing, sizeof existing, 0) == (ssize_t)sizeof existing &&
                      existing.magic == GOBLIN_RING_MAGIC && pid_alive(existing.server_pid) &&
                      existing.server_pid != (uint32_t)getpid();
        close(old);
        if (served) {
            log_warning("--ring %s: already served by pid %u", path, existing.server_pid);
            return false;
        }
    }
    /* A fresh inode: clients still mapping an old file keep their pages
     * (and see its server_pid cleared) instead of faulting on a truncation. */
    unlink(path);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        log_warning("--ring %s: cannot create: %s", path, strerror(errno));
        return false;
    }
    if (ftruncate(fd, (off_t)total) != 0) {
        log_warning("--ring %s: cannot size to %zu bytes: %s", path, total, strerror(errno));
        close(fd);
        return false;
    }
    void *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        log_warning("--ring %s: mmap of %zu bytes failed: %s", path, total, strerror(errno));
        return false;
    }
    /* Prefault every page now so no request pays for a page fault. */
    memset(map, 0, total);
    ep->hdr = map;
    ep->map_bytes = total;
    struct goblin_ring_header *h = ep->hdr;
    ep->layout = (struct goblin_ring_layout){.sq_offset = GOBLIN_RING_HEADER_BYTES,
                                             .sq_bytes = q,
                                             .cq_offset = GOBLIN_RING_HEADER_BYTES + q,
                                             .cq_bytes = q};
    ring_header_write_layout(ep);
    atomic_store_explicit(&h->server_pid, (uint32_t)getpid(), memory_order_relaxed);
    /* release: a client that reads the magic sees a complete header. */
    atomic_thread_fence(memory_order_release);
    h->magic = GOBLIN_RING_MAGIC;
    /* Epoch 0 (zeroed) means "never attached": no session until a client advances it. */
    return doorbell_create(ep);
}

static void ring_destroy(struct ring_endpoint *ep, bool remove_file)
{
    session_end(ep, "server shutting down");
    /* Only a file this server created and mapped is removed (a failed
     * start must not unlink a ring another server is serving). */
    if (ep->hdr) {
        atomic_store_explicit(&ep->hdr->server_pid, 0, memory_order_release);
        munmap(ep->hdr, ep->map_bytes);
        if (remove_file && ep->path) unlink(ep->path);
    }
    if (ep->doorbell_fd >= 0) {
        ev_remove(ep->doorbell_fd);
        close(ep->doorbell_fd);
        if (remove_file) unlink(ep->doorbell_path);
    }
    xfree(ep->doorbell_path);
    xfree(ep->path);
}

/* Creates the rings of one --ring / --ring-pool flag as target t. */
static bool ring_target_create(struct ring_target *t, const struct polled_spec *ps)
{
    if (ps->kind == POLLED_RING) {
        t->rings = xcalloc(1, sizeof *t->rings);
        t->count = 1;
        snprintf(t->name, sizeof t->name, "ring:%s", ps->path);
        return ring_create(&t->rings[0], ps->path, ps->bytes);
    }
    if (mkdir(ps->path, 0700) != 0 && errno != EEXIST) {
        log_warning("--ring-pool %s: cannot create directory: %s", ps->path, strerror(errno));
        return false;
    }
    /* The rings are their own access control (0600 files of this user):
     * so must be the directory that names them, or another user could put
     * a file of theirs where a client looks for a ring. */
    struct stat dir = {0};
    if (stat(ps->path, &dir) != 0 || !S_ISDIR(dir.st_mode) || dir.st_uid != geteuid() ||
        ((dir.st_mode & 0022) && !(dir.st_mode & S_ISVTX))) {
        log_warning("--ring-pool %s: must be a directory of the server's user that others cannot "
                    "write to (mode %o, owner %u)",
                    ps->path, (unsigned)(dir.st_mode & 07777), (unsigned)dir.st_uid);
        return false;
    }
    t->rings = xcalloc((size_t)ps->count, sizeof *t->rings);
    snprintf(t->name, sizeof t->name, "ring-pool:%s", ps->path);
    for (int k = 0; k < ps->count; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ring-%d", ps->path, k);
        t->count = k + 1; /* ring_stop() destroys what was made */
        if (!ring_create(&t->rings[k], path, ps->bytes)) return false;
    }
    return true;
}

/* Each --ring/--ring-pool flag becomes one polled target whose priority is
 * the flag's position among all polled flags (transport.h). */
static bool ring_start(void)
{
    /* Sized once: the event loop keeps pointers to the targets. */
    if (config.polled_count > 0) targets = xcalloc((size_t)config.polled_count, sizeof *targets);
    for (int i = 0; i < config.polled_count; i++) {
        const struct polled_spec *ps = &config.polled[i];
        if (ps->kind != POLLED_RING && ps->kind != POLLED_RING_POOL) continue;
        struct ring_target *t = &targets[target_count++];
        if (!ring_target_create(t, ps)) return false;
        log_notice("serving %s (%llu bytes per direction)", t->name, ring_round_size(ps->bytes));
        struct poll_target pt = {.name = t->name,
                                 .poll = ring_target_poll,
                                 .arg = t,
                                 .reentrant = true,
                                 .sleep_begin = ring_target_sleep_begin,
                                 .sleep_end = ring_target_sleep_end};
        ev_add_polled(&pt, i);
    }
    return true;
}

static int ring_endpoint_count(void)
{
    return target_count;
}

/* mlock()s ring mappings in command-line order while their sum stays within
 * budget (a ring that does not fit is skipped; later smaller ones are still
 * tried). */
static size_t ring_lock_memory(size_t budget, size_t *total)
{
    size_t locked = 0;
    *total = 0;
    for (int i = 0; i < target_count; i++) {
        for (int k = 0; k < targets[i].count; k++) {
            struct ring_endpoint *ep = &targets[i].rings[k];
            *total += ep->map_bytes;
            if (locked + ep->map_bytes > budget) continue;
            if (mlock(ep->hdr, ep->map_bytes) == 0) locked += ep->map_bytes;
        }
    }
    return locked;
}

static void ring_housekeeping(void)
{
    for (int i = 0; i < target_count; i++) {
        for (int k = 0; k < targets[i].count; k++) {
            struct ring_endpoint *ep = &targets[i].rings[k];
            uint32_t owner = atomic_load_explicit(&ep->hdr->owner_pid, memory_order_acquire);
            if (owner == 0 || pid_alive(owner)) continue;
            /* The owner died without detaching: end its session and free the claim. */
            session_end(ep, "ring owner process is gone");
            uint32_t expected = owner;
            if (atomic_compare_exchange_strong(&ep->hdr->owner_pid, &expected, 0))
                log_verbose("reclaimed %s from dead pid %u", ep->path, owner);
        }
    }
}

static void ring_stop(void)
{
    for (int i = 0; i < target_count; i++) {
        for (int k = 0; k < targets[i].count; k++) ring_destroy(&targets[i].rings[k], true);
        xfree(targets[i].rings);
    }
    xfree(targets);
    targets = NULL;
    target_count = 0;
}

/* --ring PATH SIZE / --ring-pool DIR COUNT SIZE: appended in command-line
 * order, which is their polling priority. */
static bool ring_add(enum polled_kind kind, const char *const *v, struct config_error *err)
{
    struct polled_spec ps = {.kind = kind};
    const char *size = kind == POLLED_RING ? v[1] : v[2];
    if (!v[0][0]) return config_fail(err, "path must not be empty");
    if (!num_parse_memory(size, strlen(size), &ps.bytes) || ps.bytes == 0 ||
        ps.bytes > (1ULL << 32))
        return config_fail(err, "size '%s' must be 1..4gb (k/kb/m/mb/g/gb suffixes)", size);
    if (kind == POLLED_RING_POOL) {
        long long count;
        if (!num_parse_ll(v[1], strlen(v[1]), &count) || count < 1 || count > 4096)
            return config_fail(err, "count '%s' must be 1..4096", v[1]);
        ps.count = (int)count;
    }
    ps.path = xstrdup(v[0]);
    config_polled_add(&ps);
    return true;
}

static bool ring_parse(const char *const *values, struct config_error *err)
{
    return ring_add(POLLED_RING, values, err);
}

static bool ring_pool_parse(const char *const *values, struct config_error *err)
{
    return ring_add(POLLED_RING_POOL, values, err);
}

static void ring_render_kind(struct buf *out, enum polled_kind kind)
{
    bool first = true;
    for (int i = 0; i < config.polled_count; i++) {
        const struct polled_spec *ps = &config.polled[i];
        if (ps->kind != kind) continue;
        if (!first) buf_append_char(out, ' ');
        if (kind == POLLED_RING)
            buf_append_fmt(out, "%s %llu", ps->path, ps->bytes);
        else
            buf_append_fmt(out, "%s %d %llu", ps->path, ps->count, ps->bytes);
        first = false;
    }
}

static void ring_render(struct buf *out)
{
    ring_render_kind(out, POLLED_RING);
}

static void ring_pool_render(struct buf *out)
{
    ring_render_kind(out, POLLED_RING_POOL);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param ring_params[] = {
    {.name = "ring",
     .kind = CFG_CUSTOM,
     .flags = CFG_IMMUTABLE,
     .value_name = "PATH SIZE",
     .help =
         "shared-memory ring file for one client, SIZE per direction (k/kb/m/mb/g/gb); repeatable",
     .nargs = 2,
     .parse = ring_parse,
     .render = ring_render},
    {.name = "ring-pool",
     .kind = CFG_CUSTOM,
     .flags = CFG_IMMUTABLE,
     .value_name = "DIR COUNT SIZE",
     .help = "COUNT rings in DIR that clients claim and release; repeatable",
     .nargs = 3,
     .parse = ring_pool_parse,
     .render = ring_pool_render},
    {.name = "no-auth-ring",
     .kind = CFG_FLAG,
     .value = &config.no_auth_ring,
     .flags = CFG_IMMUTABLE,
     .value_name = "",
     .help = "RESP over rings needs no AUTH (trust the ring file's permissions)"},
};

const struct config_table ring_config = CONFIG_TABLE(ring_params, NULL);
