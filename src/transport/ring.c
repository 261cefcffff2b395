/* ring.c — shared-memory ring transport, server side; see ring.h and
 * include/goblin/ring_layout.h. */
#include "transport/ring.h"

#include <errno.h>
#include <fcntl.h>
#include <goblin/ring_layout.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connection/conn.h"
#include "server/auth.h"
#include "server/config.h"
#include "server/event_loop.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct ring_endpoint {
    char *path;
    struct goblin_ring_header *hdr;
    size_t map_bytes;
    struct goblin_ring_queue sq;        /* we consume */
    struct goblin_ring_queue cq;        /* we produce */
    uint32_t epoch;                     /* last epoch acted on */
    struct conn *conn;                  /* the session's conn, NULL between sessions */
    struct goblin_ring_record *partial; /* SQ record partly copied into the conn */
    uint32_t partial_offset;
    bool want_read;  /* false while the conn is paused by output backpressure */
    bool want_write; /* output is waiting for CQ room */
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
    struct ring_endpoint *ep = c->transport_data;
    unsigned char *out = dst;
    size_t copied = 0;
    while (copied < cap) {
        struct goblin_ring_record *r = ep->partial;
        if (!r) {
            bool corrupt = false;
            r = goblin_ring_peek(&ep->sq, &corrupt);
            if (corrupt) {
                errno = EPROTO;
                return -1;
            }
            if (!r) break;
            ep->partial = r;
            ep->partial_offset = 0;
        }
        size_t left = r->len - ep->partial_offset;
        size_t n = left < cap - copied ? left : cap - copied;
        memcpy(out + copied, r->payload + ep->partial_offset, n);
        copied += n;
        ep->partial_offset += (uint32_t)n;
        if (ep->partial_offset == r->len) {
            goblin_ring_consume(&ep->sq, r);
            ep->partial = NULL;
        }
    }
    if (copied == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)copied;
}

static ssize_t ring_write(struct conn *c, const void *src, size_t len)
{
    struct ring_endpoint *ep = c->transport_data;
    size_t n = goblin_ring_write(&ep->cq, src, len);
    if (n == 0 && len > 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)n;
}

static void ring_set_interest(struct conn *c, bool readable, bool writable)
{
    struct ring_endpoint *ep = c->transport_data;
    ep->want_read = readable;
    ep->want_write = writable;
}

static void ring_close(struct conn *c)
{
    struct ring_endpoint *ep = c->transport_data;
    /* Tell the client the session is over; if the CQ is full it learns by
     * the next reconnect instead. */
    struct goblin_ring_record *r = goblin_ring_reserve(&ep->cq, 0);
    if (r) goblin_ring_publish_kind(&ep->cq, r, 0, GOBLIN_RING_CLOSE);
    ep->conn = NULL;
    ep->partial = NULL;
    c->transport_data = NULL;
}

static const struct conn_transport ring_transport = {
    .name = "ring",
    .read = ring_read,
    .write = ring_write,
    .set_interest = ring_set_interest,
    .close = ring_close,
};

/* --- sessions ------------------------------------------------------- */

static void session_end(struct ring_endpoint *ep, const char *reason)
{
    if (ep->conn) conn_close(ep->conn, reason);
}

/* Acts on a new epoch: drop the previous session; unless the client
 * detached, start a fresh one on empty queues; acknowledge. */
static void session_restart(struct ring_endpoint *ep, uint32_t epoch)
{
    session_end(ep, "ring session replaced");
    ep->epoch = epoch;
    goblin_ring_queue_init(&ep->sq, (unsigned char *)ep->hdr + ep->hdr->sq_offset,
                           ep->hdr->sq_bytes, &ep->hdr->sq_head, epoch);
    goblin_ring_queue_init(&ep->cq, (unsigned char *)ep->hdr + ep->hdr->cq_offset,
                           ep->hdr->cq_bytes, &ep->hdr->cq_head, epoch);
    /* relaxed: published to the client by the release of ready_epoch below. */
    atomic_store_explicit(&ep->hdr->sq_head, 0, memory_order_relaxed);
    atomic_store_explicit(&ep->hdr->cq_head, 0, memory_order_relaxed);
    if (!(epoch & GOBLIN_RING_EPOCH_DETACHED)) {
        struct conn *c = conn_create(&ring_transport, -1, ep);
        snprintf(c->addr, sizeof c->addr, "ring:%s", ep->path);
        snprintf(c->laddr, sizeof c->laddr, "ring:%s", ep->path);
        if (config.no_auth_ring) c->authenticated = true;
        ep->conn = c;
        ep->want_read = true;
        ep->want_write = false;
    }
    /* release: the client that sees its epoch here also sees both heads reset. */
    atomic_store_explicit(&ep->hdr->ready_epoch, epoch, memory_order_release);
}

static int ring_endpoint_poll(struct ring_endpoint *ep)
{
    /* acquire: pairs with the client's release when it advances the epoch. */
    uint32_t epoch = atomic_load_explicit(&ep->hdr->epoch, memory_order_acquire);
    if (epoch != ep->epoch) {
        session_restart(ep, epoch);
        return 1;
    }
    struct conn *c = ep->conn;
    if (!c) return 0;
    int work = 0;
    if (ep->want_write) {
        size_t before = buf_len(&c->out);
        conn_on_writable(c);
        if (!ep->conn || buf_len(&c->out) != before) work++;
        if (!ep->conn) return work;
    }
    if (ep->want_read) {
        bool corrupt = false;
        if (ep->partial || goblin_ring_peek(&ep->sq, &corrupt)) {
            conn_on_readable(c);
            work++;
        } else if (corrupt) {
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

/* --- files ---------------------------------------------------------- */

static bool pid_alive(uint32_t pid)
{
    return pid != 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH);
}

static bool ring_create(struct ring_endpoint *ep, const char *path, unsigned long long bytes)
{
    unsigned long long q = ring_round_size(bytes);
    size_t total = GOBLIN_RING_HEADER_BYTES + 2 * q;
    memset(ep, 0, sizeof *ep);
    ep->path = xstrdup(path);

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
    h->version = GOBLIN_RING_VERSION;
    h->header_bytes = GOBLIN_RING_HEADER_BYTES;
    h->sq_offset = GOBLIN_RING_HEADER_BYTES;
    h->sq_bytes = q;
    h->cq_offset = GOBLIN_RING_HEADER_BYTES + q;
    h->cq_bytes = q;
    atomic_store_explicit(&h->server_pid, (uint32_t)getpid(), memory_order_relaxed);
    /* release: a client that reads the magic sees a complete header. */
    atomic_thread_fence(memory_order_release);
    h->magic = GOBLIN_RING_MAGIC;
    /* Epoch 0 (zeroed) means "never attached": no session until a client advances it. */
    return true;
}

static void ring_destroy(struct ring_endpoint *ep, bool remove_file)
{
    session_end(ep, "server shutting down");
    if (ep->hdr) {
        atomic_store_explicit(&ep->hdr->server_pid, 0, memory_order_release);
        munmap(ep->hdr, ep->map_bytes);
    }
    if (remove_file && ep->path) unlink(ep->path);
    xfree(ep->path);
}

bool ring_transports_start(void)
{
    for (int i = 0; i < config.polled_count; i++) {
        const struct polled_spec *ps = &config.polled[i];
        targets = xrealloc(targets, sizeof *targets * (size_t)(target_count + 1));
        struct ring_target *t = &targets[target_count];
        memset(t, 0, sizeof *t);
        if (ps->kind == POLLED_RING) {
            t->count = 1;
            t->rings = xcalloc(1, sizeof *t->rings);
            if (!ring_create(&t->rings[0], ps->path, ps->bytes)) return false;
            snprintf(t->name, sizeof t->name, "ring:%s", ps->path);
        } else {
            if (mkdir(ps->path, 0700) != 0 && errno != EEXIST) {
                log_warning("--ring-pool %s: cannot create directory: %s", ps->path,
                            strerror(errno));
                return false;
            }
            t->count = ps->count;
            t->rings = xcalloc((size_t)ps->count, sizeof *t->rings);
            for (int k = 0; k < ps->count; k++) {
                char path[4096];
                snprintf(path, sizeof path, "%s/ring-%d", ps->path, k);
                if (!ring_create(&t->rings[k], path, ps->bytes)) return false;
            }
            snprintf(t->name, sizeof t->name, "ring-pool:%s", ps->path);
        }
        target_count++;
        log_notice("serving %s (%llu bytes per direction)", t->name, ring_round_size(ps->bytes));
    }
    for (int i = 0; i < target_count; i++) {
        struct poll_target pt = {
            .name = targets[i].name, .poll = ring_target_poll, .arg = &targets[i]};
        ev_add_polled(&pt);
    }
    return true;
}

size_t ring_transports_lock_memory(size_t budget, size_t *total)
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

void ring_transports_housekeeping(void)
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

void ring_transports_stop(void)
{
    for (int i = 0; i < target_count; i++) {
        for (int k = 0; k < targets[i].count; k++) ring_destroy(&targets[i].rings[k], true);
        xfree(targets[i].rings);
    }
    xfree(targets);
    targets = NULL;
    target_count = 0;
}
