/* ring_client.c — client side of the shared-memory ring; contract in
 * include/goblin/ring_client.h, layout and ordering in goblin/ring_layout.h. */
#include <goblin/ring_client.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <goblin/resp_reader.h>
#include <goblin/ring_layout.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rx_buffer.h"

struct goblin_ring {
    char *path;
    struct goblin_ring_header *hdr;
    size_t map_bytes;
    struct goblin_ring_layout layout; /* validated once at map time */
    struct goblin_ring_queue sq;      /* we produce */
    struct goblin_ring_queue cq;      /* we consume */
    uint32_t pid;
    int doorbell_fd;     /* <path>.wake, write end; -1 when the server made none */
    bool closed;         /* the server ended the session */
    struct rx_buffer rx; /* bytes received but not yet handed to the caller */
};

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static bool pid_alive(uint32_t pid)
{
    return pid != 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH);
}

/* The ring's doorbell FIFO, opened for writing without blocking (the
 * server holds it open, so the open does not fail for want of a reader);
 * -1 when there is none (a server that never sleeps) or it is not a FIFO. */
static int open_doorbell(const char *path)
{
    char name[4096];
    if (snprintf(name, sizeof name, "%s.wake", path) >= (int)sizeof name) return -1;
    int fd = open(name, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* After a publish, a consume or an epoch change: wakes a sleeping server
 * (ring_layout.h, "doorbell"). A full FIFO means a wake-up is pending
 * already. */
static void wake_server(struct goblin_ring *r)
{
    if (goblin_ring_server_sleeping(r->hdr) && r->doorbell_fd >= 0) {
        ssize_t n = write(r->doorbell_fd, "", 1);
        (void)n;
    }
}

static int map_ring(const char *path, struct goblin_ring **out)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < GOBLIN_RING_HEADER_BYTES) {
        close(fd);
        return -EPROTO;
    }
    void *map =
        mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return -errno;
    struct goblin_ring_header *h = map;
    atomic_thread_fence(memory_order_acquire); /* pairs with the server's fence before magic */
    struct goblin_ring_layout layout;
    if (!goblin_ring_layout_read(h, (uint64_t)st.st_size, &layout)) {
        munmap(map, (size_t)st.st_size);
        return -EPROTO;
    }
    struct goblin_ring *r = calloc(1, sizeof *r);
    if (!r) {
        munmap(map, (size_t)st.st_size);
        return -ENOMEM;
    }
    r->path = strdup(path);
    r->hdr = h;
    r->layout = layout;
    r->map_bytes = (size_t)st.st_size;
    r->pid = (uint32_t)getpid();
    r->doorbell_fd = open_doorbell(path);
    *out = r;
    return 0;
}

static void unmap_ring(struct goblin_ring *r)
{
    if (r->doorbell_fd >= 0) close(r->doorbell_fd);
    munmap(r->hdr, r->map_bytes);
    free(r->path);
    rx_buffer_free(&r->rx);
    free(r);
}

/* Takes the claim word: free, or held by a process that no longer exists. */
static int claim(struct goblin_ring *r)
{
    for (;;) {
        uint32_t owner = atomic_load_explicit(&r->hdr->owner_pid, memory_order_acquire);
        /* Held by a live process (this one included: one session per ring). */
        if (owner != 0 && pid_alive(owner)) return -EBUSY;
        if (atomic_compare_exchange_strong(&r->hdr->owner_pid, &owner, r->pid)) return 0;
    }
}

int goblin_ring_reconnect(struct goblin_ring *r, int timeout_ms)
{
    struct goblin_ring_header *h = r->hdr;
    uint32_t epoch =
        (atomic_load_explicit(&h->epoch, memory_order_relaxed) & ~GOBLIN_RING_EPOCH_DETACHED) + 1;
    if (epoch == 0 || (epoch & GOBLIN_RING_EPOCH_DETACHED)) epoch = 1;
    /* release: orders our claim before the server can act on the epoch. */
    atomic_store_explicit(&h->epoch, epoch, memory_order_release);
    wake_server(r);
    long long deadline = now_us() + (long long)timeout_ms * 1000;
    long long next_check = 0;
    /* acquire: pairs with the server's release of ready_epoch after resetting heads. */
    while (atomic_load_explicit(&h->ready_epoch, memory_order_acquire) != epoch) {
        long long t = now_us();
        if (t >= next_check) {
            if (!pid_alive(atomic_load_explicit(&h->server_pid, memory_order_relaxed)))
                return -EPIPE;
            if (t >= deadline) return -ETIMEDOUT;
            next_check = t + 1000;
        }
        relax();
    }
    unsigned char *base = (unsigned char *)h;
    goblin_ring_queue_init(&r->sq, base + r->layout.sq_offset, r->layout.sq_bytes, &h->sq_head,
                           epoch);
    goblin_ring_queue_init(&r->cq, base + r->layout.cq_offset, r->layout.cq_bytes, &h->cq_head,
                           epoch);
    r->closed = false;
    r->rx.start = r->rx.end = r->rx.reply_len = 0;
    return 0;
}

int goblin_ring_open(const char *path, int timeout_ms, struct goblin_ring **out)
{
    struct goblin_ring *r = NULL;
    int rc = map_ring(path, &r);
    if (rc) return rc;
    if ((rc = claim(r)) != 0 || (rc = goblin_ring_reconnect(r, timeout_ms)) != 0) {
        if (rc != -EBUSY) {
            uint32_t me = r->pid;
            atomic_compare_exchange_strong(&r->hdr->owner_pid, &me, 0);
        }
        unmap_ring(r);
        return rc;
    }
    *out = r;
    return 0;
}

int goblin_ring_open_pool(const char *dir, int timeout_ms, struct goblin_ring **out)
{
    /* Rings are ring-0, ring-1, ...: try them in order. */
    int last = -ENOENT;
    for (int i = 0;; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ring-%d", dir, i);
        if (access(path, F_OK) != 0) break;
        int rc = goblin_ring_open(path, timeout_ms, out);
        if (rc == 0) return 0;
        last = rc;
        if (rc != -EBUSY) return rc;
    }
    return last;
}

void goblin_ring_close(struct goblin_ring *r)
{
    if (!r) return;
    struct goblin_ring_header *h = r->hdr;
    uint32_t epoch = atomic_load_explicit(&h->epoch, memory_order_relaxed);
    /* Detach while still owning the ring, then release the claim. A ring
     * already detached (the bit set) stays as it is: a second detach value
     * would be refused, not acknowledged. */
    if (!(epoch & GOBLIN_RING_EPOCH_DETACHED)) {
        atomic_store_explicit(&h->epoch, (epoch + 1) | GOBLIN_RING_EPOCH_DETACHED,
                              memory_order_release);
        wake_server(r);
    }
    uint32_t me = r->pid;
    atomic_compare_exchange_strong(&h->owner_pid, &me, 0);
    unmap_ring(r);
}

const char *goblin_ring_path(const struct goblin_ring *r)
{
    return r->path;
}

/* --- receive side ----------------------------------------------------- */

/* Moves every published CQ record into the receive buffer; returns bytes moved
 * or -EPIPE/-EPROTO. */
static ssize_t drain_cq(struct goblin_ring *r)
{
    ssize_t moved = 0;
    bool consumed = false;
    for (;;) {
        struct goblin_ring_view rec;
        if (!goblin_ring_peek(&r->cq, &rec)) {
            if (r->cq.corrupt) return -EPROTO;
            break;
        }
        if (rec.kind == GOBLIN_RING_CLOSE) {
            goblin_ring_consume(&r->cq, &rec);
            r->closed = true;
            return moved;
        }
        if (rx_buffer_append(&r->rx, rec.payload, rec.len) != 0) return -ENOMEM;
        moved += rec.len;
        goblin_ring_consume(&r->cq, &rec);
        consumed = true;
    }
    /* A server asleep with output waiting for CQ room needs to hear of it. */
    if (consumed) wake_server(r);
    return moved;
}

/* rx_wait_fn: drains the CQ until the receive buffer holds more than
 * `have` bytes. */
static int wait_rx(void *arg, size_t have, long long timeout_us)
{
    struct goblin_ring *r = arg;
    long long deadline = timeout_us < 0 ? -1 : now_us() + timeout_us;
    unsigned spins = 0;
    for (;;) {
        ssize_t n = drain_cq(r);
        if (n < 0) return (int)n;
        if (rx_buffer_len(&r->rx) > have) return 1;
        if (r->closed) return -EPIPE;
        if ((++spins & 1023) == 0) {
            if (!pid_alive(atomic_load_explicit(&r->hdr->server_pid, memory_order_relaxed)))
                return -EPIPE;
            if (deadline >= 0 && now_us() >= deadline) return 0;
        }
        relax();
    }
}

ssize_t goblin_ring_recv(struct goblin_ring *r, void *buf, size_t cap, long long timeout_us)
{
    rx_buffer_release(&r->rx);
    if (rx_buffer_len(&r->rx) == 0 && !r->closed) {
        /* Fast path: nothing buffered, so copy the next record straight to
         * the caller (one copy, no look past it). */
        unsigned spins = 0;
        long long deadline = -1;
        for (;;) {
            struct goblin_ring_view rec;
            if (goblin_ring_peek(&r->cq, &rec)) {
                if (rec.kind != GOBLIN_RING_DATA || rec.len > cap) break;
                memcpy(buf, rec.payload, rec.len);
                goblin_ring_consume(&r->cq, &rec);
                wake_server(r);
                if (rec.len > 0) return (ssize_t)rec.len;
                continue;
            }
            if (r->cq.corrupt) return -EPROTO;
            if ((++spins & 1023) == 0) {
                if (!pid_alive(atomic_load_explicit(&r->hdr->server_pid, memory_order_relaxed)))
                    return -EPIPE;
                if (timeout_us >= 0) {
                    long long now = now_us();
                    if (deadline < 0)
                        deadline = now + timeout_us;
                    else if (now >= deadline)
                        return 0;
                }
            }
            relax();
        }
    }
    return rx_buffer_recv(&r->rx, wait_rx, r, buf, cap, timeout_us);
}

ssize_t goblin_ring_read_reply(struct goblin_ring *r, const char **reply, long long timeout_us)
{
    return rx_buffer_read_reply(&r->rx, wait_rx, r, reply, timeout_us);
}

/* --- send side -------------------------------------------------------- */

int goblin_ring_send(struct goblin_ring *r, const void *data, size_t len)
{
    const char *p = data;
    unsigned spins = 0;
    while (len > 0) {
        if (r->closed) return -EPIPE;
        size_t n = goblin_ring_write(&r->sq, p, len);
        if (n) wake_server(r);
        p += n;
        len -= n;
        if (len == 0) break;
        if (r->sq.corrupt) return -EPROTO; /* the server's SQ head is impossible */
        /* SQ full: keep the server able to make progress by taking its replies. */
        ssize_t moved = drain_cq(r);
        if (moved < 0) return (int)moved;
        if ((++spins & 1023) == 0 &&
            !pid_alive(atomic_load_explicit(&r->hdr->server_pid, memory_order_relaxed)))
            return -EPIPE;
        relax();
    }
    return 0;
}

int goblin_ring_send_command(struct goblin_ring *r, int argc, const char *const *argv,
                             const size_t *lens)
{
    char small[512];
    size_t o;
    char *buf = resp_format_command(argc, argv, lens, small, sizeof small, &o);
    if (!buf) return -ENOMEM;
    int rc = goblin_ring_send(r, buf, o);
    if (buf != small) free(buf);
    return rc;
}
