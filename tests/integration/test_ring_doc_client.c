/* Integration: a ring client written from docs/rings.md and the structure
 * definitions of include/goblin/ring_layout.h alone (issue 18) — not the
 * client library, and none of the header's queue functions: the producer
 * and consumer steps below are the document's, written out. It maps and
 * checks the file, claims it, connects, sends PING, SET and GET through a
 * small ring so records wrap, detaches (and sees the CLOSE and the
 * acknowledgement), checks the server refuses the two documented mistakes
 * (an epoch still carrying DETACHED, and epoch 0), and reattaches by the
 * documented rule. The server sleeps whenever it is idle (--idle-sleep-ms
 * 0) with no timed wake (DEBUG POLLED-SLEEP-UNTIMED 1), so every step
 * also rings the doorbell as "Sleeping" says, or hangs. If the document
 * and the server drift apart, this fails. */
#include <fcntl.h>
#include <goblin/ring_layout.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

struct doc_queue {
    unsigned char *base;
    uint64_t bytes;
    uint64_t pos;         /* bytes since the session began */
    uint64_t cached_head; /* producer only */
    _Atomic uint64_t *head;
};

struct doc_client {
    struct goblin_ring_header *h;
    size_t map_bytes;
    uint64_t sq_offset, sq_bytes, cq_offset, cq_bytes; /* read once at map time */
    uint32_t epoch;
    struct doc_queue sq, cq;
    char rx[1 << 16];
    size_t rx_len;
    bool closed;  /* a CLOSE record arrived */
    int doorbell; /* the FIFO <ring>.wake, write end */
};

/* Sleeping: after a publish, a consume or an epoch store, a full fence,
 * then the server's word; set, one byte to the doorbell. */
static void doc_wake(struct doc_client *c)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&c->h->server_sleeping, memory_order_relaxed))
        CHECK(write(c->doorbell, "", 1) == 1);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t doc_span(uint64_t len)
{
    return (16 + len + 63) / 64 * 64;
}

static uint64_t doc_tag(uint32_t epoch, uint64_t pos)
{
    return (uint64_t)epoch << 32 | (uint32_t)(pos / 64);
}

static bool queue_ok(uint64_t offset, uint64_t bytes, uint64_t map_bytes)
{
    return bytes >= 4096 && (bytes & (bytes - 1)) == 0 && offset % 64 == 0 && offset >= 4096 &&
           bytes <= map_bytes && offset <= map_bytes - bytes;
}

/* Step 1: map and check. */
static void doc_map(struct doc_client *c, const char *path)
{
    FILE *f = fopen(path, "r+");
    CHECK(f);
    struct stat st;
    CHECK(fstat(fileno(f), &st) == 0 && st.st_size >= 4096);
    c->map_bytes = (size_t)st.st_size;
    c->h = mmap(NULL, c->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
    CHECK(c->h != MAP_FAILED);
    fclose(f);
    struct goblin_ring_header *h = c->h;
    CHECK(*(volatile uint64_t *)&h->magic == GOBLIN_RING_MAGIC);
    atomic_thread_fence(memory_order_acquire); /* the server stored magic after a release fence */
    CHECK(h->version == 1 && h->header_bytes == 4096);
    c->sq_offset = h->sq_offset;
    c->sq_bytes = h->sq_bytes;
    c->cq_offset = h->cq_offset;
    c->cq_bytes = h->cq_bytes;
    CHECK(queue_ok(c->sq_offset, c->sq_bytes, c->map_bytes));
    CHECK(queue_ok(c->cq_offset, c->cq_bytes, c->map_bytes));
    CHECK(c->sq_offset + c->sq_bytes <= c->cq_offset || c->cq_offset + c->cq_bytes <= c->sq_offset);
    char doorbell[160];
    snprintf(doorbell, sizeof doorbell, "%s.wake", path);
    c->doorbell = open(doorbell, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    CHECKF(c->doorbell >= 0, "open %s", doorbell);
}

/* Step 2: claim. */
static void doc_claim(struct doc_client *c)
{
    uint32_t expected = 0;
    CHECK(atomic_compare_exchange_strong(&c->h->owner_pid, &expected, (uint32_t)getpid()));
}

/* Waits up to timeout_ms for ready_epoch == epoch. */
static bool doc_wait_ready(struct doc_client *c, uint32_t epoch, int timeout_ms)
{
    long long deadline = now_ms() + timeout_ms;
    while (atomic_load_explicit(&c->h->ready_epoch, memory_order_acquire) != epoch) {
        if (now_ms() >= deadline) return false;
        usleep(100);
    }
    return true;
}

/* Step 3: connect with the next epoch: clear DETACHED, add one, skip 0 and the bit. */
static void doc_connect(struct doc_client *c)
{
    struct goblin_ring_header *h = c->h;
    uint32_t e = atomic_load_explicit(&h->epoch, memory_order_relaxed);
    uint32_t n = (e & ~GOBLIN_RING_EPOCH_DETACHED) + 1;
    if (n == 0 || (n & GOBLIN_RING_EPOCH_DETACHED)) n = 1;
    atomic_store_explicit(&h->epoch, n, memory_order_release);
    doc_wake(c);
    CHECKF(doc_wait_ready(c, n, 10000), "connect with epoch %#x not acknowledged", n);
    c->epoch = n;
    c->sq = (struct doc_queue){(unsigned char *)h + c->sq_offset, c->sq_bytes, 0, 0, &h->sq_head};
    c->cq = (struct doc_queue){(unsigned char *)h + c->cq_offset, c->cq_bytes, 0, 0, &h->cq_head};
    c->rx_len = 0;
    c->closed = false;
}

static struct goblin_ring_record *doc_at(struct doc_queue *q, uint64_t pos)
{
    return (struct goblin_ring_record *)(q->base + pos % q->bytes);
}

/* Producer: publishes one record of len payload bytes (len <= a quarter of the queue). */
static void doc_publish(struct doc_client *c, const void *payload, uint32_t len)
{
    struct doc_queue *q = &c->sq;
    uint64_t span = doc_span(len), offset = q->pos % q->bytes;
    uint64_t filler = offset + span > q->bytes ? q->bytes - offset : 0;
    long long deadline = now_ms() + 10000;
    while (q->pos + filler + span - q->cached_head > q->bytes) {
        q->cached_head = atomic_load_explicit(q->head, memory_order_acquire);
        CHECKF(now_ms() < deadline, "SQ stayed full");
    }
    if (filler) {
        struct goblin_ring_record *w = doc_at(q, q->pos);
        w->len = (uint32_t)(filler - 16);
        w->kind = GOBLIN_RING_WRAP;
        atomic_store_explicit(&w->tag, doc_tag(c->epoch, q->pos), memory_order_release);
        q->pos += filler;
    }
    struct goblin_ring_record *r = doc_at(q, q->pos);
    memcpy(r->payload, payload, len);
    r->len = len;
    r->kind = GOBLIN_RING_DATA;
    atomic_store_explicit(&r->tag, doc_tag(c->epoch, q->pos), memory_order_release);
    q->pos += span;
    doc_wake(c);
}

/* Consumer: takes every published CQ record; appends DATA to rx. */
static void doc_drain(struct doc_client *c)
{
    struct doc_queue *q = &c->cq;
    for (;;) {
        struct goblin_ring_record *r = doc_at(q, q->pos);
        if (atomic_load_explicit(&r->tag, memory_order_acquire) != doc_tag(c->epoch, q->pos))
            return;
        uint32_t len = *(volatile uint32_t *)&r->len, kind = *(volatile uint32_t *)&r->kind;
        CHECKF(doc_span(len) <= q->bytes - q->pos % q->bytes, "CQ record len %u does not fit", len);
        CHECKF(kind == GOBLIN_RING_DATA || kind == GOBLIN_RING_WRAP || kind == GOBLIN_RING_CLOSE,
               "CQ record kind %u", kind);
        if (kind == GOBLIN_RING_WRAP) CHECK(q->pos % q->bytes + 16 + len == q->bytes);
        if (kind == GOBLIN_RING_CLOSE) {
            CHECK(len == 0);
            c->closed = true;
        }
        if (kind == GOBLIN_RING_DATA) {
            CHECK(c->rx_len + len <= sizeof c->rx);
            memcpy(c->rx + c->rx_len, r->payload, len);
            c->rx_len += len;
        }
        q->pos += doc_span(len);
        atomic_store_explicit(q->head, q->pos, memory_order_release);
        doc_wake(c);
    }
}

/* Sends a raw RESP command and checks the reply bytes exactly. */
static void doc_call(struct doc_client *c, const char *request, const char *reply)
{
    doc_publish(c, request, (uint32_t)strlen(request));
    size_t want = strlen(reply);
    long long deadline = now_ms() + 10000;
    while (c->rx_len < want && now_ms() < deadline && !c->closed) doc_drain(c);
    CHECKF(c->rx_len == want && memcmp(c->rx, reply, want) == 0, "sent %s got '%.*s' want '%s'",
           request, (int)c->rx_len, c->rx, reply);
    c->rx_len = 0;
}

static void doc_commands(struct doc_client *c)
{
    doc_call(c, "*1\r\n$4\r\nPING\r\n", "+PONG\r\n");
    doc_call(c, "*3\r\n$3\r\nSET\r\n$3\r\ndoc\r\n$5\r\nvalue\r\n", "+OK\r\n");
    doc_call(c, "*2\r\n$3\r\nGET\r\n$3\r\ndoc\r\n", "$5\r\nvalue\r\n");
    /* Enough traffic of odd sizes to wrap both 4 KiB queues several times. */
    char value[600], request[700], reply[700];
    for (int i = 0; i < 300; i++) {
        int n = 1 + i * 37 % 500;
        memset(value, 'a' + i % 26, (size_t)n);
        snprintf(request, sizeof request, "*3\r\n$3\r\nSET\r\n$4\r\nwrap\r\n$%d\r\n%.*s\r\n", n, n,
                 value);
        doc_call(c, request, "+OK\r\n");
        snprintf(reply, sizeof reply, "$%d\r\n%.*s\r\n", n, n, value);
        doc_call(c, "*2\r\n$3\r\nGET\r\n$4\r\nwrap\r\n", reply);
    }
    CHECK(c->sq.pos > 4 * c->sq_bytes && c->cq.pos > 4 * c->cq_bytes);
}

/* Step 4: detach; returns the detach value. */
static uint32_t doc_detach(struct doc_client *c)
{
    uint32_t value = (c->epoch + 1) | GOBLIN_RING_EPOCH_DETACHED;
    atomic_store_explicit(&c->h->epoch, value, memory_order_release);
    doc_wake(c);
    CHECKF(doc_wait_ready(c, value, 10000), "detach %#x not acknowledged", value);
    /* The CLOSE record precedes the acknowledgement. */
    doc_drain(c);
    CHECK(c->closed && c->rx_len == 0);
    return value;
}

/* The server refuses an epoch: it is never acknowledged. */
static void doc_expect_refused(struct doc_client *c, uint32_t epoch)
{
    uint32_t before = atomic_load(&c->h->ready_epoch);
    atomic_store_explicit(&c->h->epoch, epoch, memory_order_release);
    doc_wake(c);
    CHECKF(!doc_wait_ready(c, epoch, 300), "epoch %#x was acknowledged", epoch);
    CHECK(atomic_load(&c->h->ready_epoch) == before);
}

int main(void)
{
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "/dev/shm/goblin-doc-client-XXXXXX");
    CHECK(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/doc.ring", dir);
    const char *const extra[] = {
        "--ring", path, "4kb", "--idle-sleep-ms", "0", "--enable-debug-command", "local", NULL};
    struct test_server s;
    test_server_start(&s, TEST_SERVER_GOBLIN, extra);
    struct rconn admin;
    rconn_open_tcp(&admin, s.port);
    char *ok = rconn_call(&admin, "DEBUG", "POLLED-SLEEP-UNTIMED", "1", NULL);
    CHECK(strcmp(ok, "+OK\r\n") == 0);
    free(ok);
    rconn_close(&admin);

    static struct doc_client c;
    doc_map(&c, path);
    doc_claim(&c);
    doc_connect(&c);
    doc_commands(&c);
    uint32_t detached = doc_detach(&c);

    /* Issue 18 item 1: a plain +1 after a detach keeps the bit: refused. */
    doc_expect_refused(&c, detached + 1);
    /* Reattach by the documented rule: positions restart at 0, data persists. */
    doc_connect(&c);
    CHECK(c.epoch == (detached & ~GOBLIN_RING_EPOCH_DETACHED) + 2);
    doc_call(&c, "*1\r\n$4\r\nPING\r\n", "+PONG\r\n");
    doc_call(&c, "*2\r\n$3\r\nGET\r\n$3\r\ndoc\r\n", "$5\r\nvalue\r\n");
    CHECK(atomic_load(&c.h->sq_head) == doc_span(14) + doc_span(22));

    /* Epoch 0 means never attached: refused, and the session it replaced ends. */
    doc_expect_refused(&c, 0);
    doc_connect(&c);
    CHECK(c.epoch == 1);
    doc_call(&c, "*1\r\n$4\r\nPING\r\n", "+PONG\r\n");

    doc_detach(&c);
    uint32_t me = (uint32_t)getpid();
    CHECK(atomic_compare_exchange_strong(&c.h->owner_pid, &me, 0));
    munmap(c.h, c.map_bytes);

    /* The server is unharmed: TCP sees what the ring client wrote. */
    struct rconn tcp;
    rconn_open_tcp(&tcp, s.port);
    char *reply = rconn_call(&tcp, "GET", "doc", NULL);
    CHECK_STR(reply, "$5\r\nvalue\r\n");
    free(reply);
    rconn_close(&tcp);
    test_server_stop(&s);
    rmdir(dir);
    printf("ring doc client: ok\n");
    return 0;
}
