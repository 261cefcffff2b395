/* Integration: a process that can write a ring file attacks the server
 * through it (issue 9 item 3). It rewrites the header's layout fields and
 * reconnects, rewrites a record's len after the server has begun reading the
 * record, publishes records that do not fit or have no valid kind, and writes
 * an impossible CQ consumer head. Each time the server must survive, refuse
 * or end only that session (the header fields restored for the next
 * client), and keep serving TCP clients and other rings. */
#include <errno.h>
#include <goblin/ring_client.h>
#include <goblin/ring_layout.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

enum { RING_BYTES = 65536, MAP_BYTES = GOBLIN_RING_HEADER_BYTES + 2 * RING_BYTES };
enum { BIG_VALUE = 100000 };

static char dir[128], victim_path[192], other_path[192];
static struct test_server server;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The attacker's own read-write mapping of the victim ring. */
/* Fails the test at once, with the cause, if the server process has died. */
static void check_server_alive(void)
{
    int status;
    pid_t pid = waitpid(server.pid, &status, WNOHANG);
    if (pid != server.pid) return;
    server.pid = 0;
    CHECKF(false, "the server died (%s %d)", WIFSIGNALED(status) ? "signal" : "exit status",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* Sleeps a millisecond, checking the server is still alive. */
static void pause_1ms(void)
{
    check_server_alive();
    usleep(1000);
}

static struct goblin_ring_header *map_victim(void)
{
    FILE *f = fopen(victim_path, "r+");
    CHECK(f);
    void *m = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
    CHECK(m != MAP_FAILED);
    fclose(f);
    return m;
}

static struct goblin_ring *open_ring(const char *path)
{
    struct goblin_ring *r = NULL;
    int rc = goblin_ring_open(path, 10000, &r);
    CHECKF(rc == 0, "goblin_ring_open(%s): %s", path, strerror(-rc));
    return r;
}

static void expect(struct goblin_ring *r, const char *want, size_t want_len)
{
    const char *reply;
    ssize_t n = goblin_ring_read_reply(r, &reply, 10 * 1000000LL);
    CHECKF(n > 0, "no reply (%zd)", n);
    CHECKF((size_t)n == want_len && memcmp(reply, want, want_len) == 0,
           "got '%.*s' expected '%.*s'", (int)(n < 80 ? n : 80), reply,
           (int)(want_len < 80 ? want_len : 80), want);
}

static void ring_ping(struct goblin_ring *r)
{
    const char *ping[] = {"PING"};
    CHECK(goblin_ring_send_command(r, 1, ping, NULL) == 0);
    expect(r, "+PONG\r\n", 7);
}

/* The server is alive and serves TCP and a ring nobody attacked. */
static void check_others_served(void)
{
    check_server_alive();
    struct rconn tcp;
    rconn_open_tcp(&tcp, server.port);
    char *reply = rconn_call(&tcp, "PING", NULL);
    CHECK_STR(reply, "+PONG\r\n");
    free(reply);
    rconn_close(&tcp);
    struct goblin_ring *other = open_ring(other_path);
    ring_ping(other);
    goblin_ring_close(other);
}

/* True when CLIENT LIST still shows a connection on the victim ring. */
static bool victim_session_listed(void)
{
    struct rconn tcp;
    rconn_open_tcp(&tcp, server.port);
    char *reply = rconn_call(&tcp, "CLIENT", "LIST", NULL);
    char needle[256];
    snprintf(needle, sizeof needle, "addr=ring:%s ", victim_path);
    bool listed = strstr(reply, needle) != NULL;
    free(reply);
    rconn_close(&tcp);
    return listed;
}

static uint32_t next_epoch(struct goblin_ring_header *h)
{
    uint32_t e = (atomic_load(&h->epoch) & ~GOBLIN_RING_EPOCH_DETACHED) + 1;
    return e == 0 || (e & GOBLIN_RING_EPOCH_DETACHED) ? 1 : e;
}

/* Corrupts one layout field, reconnects by hand, and checks the connect is
 * refused (never acknowledged) and the field restored by the server. */
static void corrupt_field_and_reconnect(size_t offset, uint64_t bad, const char *what)
{
    struct goblin_ring_header *h = map_victim();
    uint64_t *field = (uint64_t *)((char *)h + offset);
    uint64_t good = *field;
    *field = bad;
    uint32_t epoch = next_epoch(h);
    atomic_store(&h->epoch, epoch);
    long long deadline = now_ms() + 10000;
    while (goblin_ring_read_u64(field) != good && now_ms() < deadline) pause_1ms();
    CHECKF(goblin_ring_read_u64(field) == good, "%s = %#llx was not restored by the server", what,
           (unsigned long long)bad);
    usleep(50000);
    CHECKF(atomic_load(&h->ready_epoch) != epoch, "connect with %s = %#llx was acknowledged", what,
           (unsigned long long)bad);
    CHECK(!victim_session_listed());
    check_others_served();
    munmap(h, MAP_BYTES);
}

#define FIELD(name) offsetof(struct goblin_ring_header, name)

static void header_layout_attacks(void)
{
    corrupt_field_and_reconnect(FIELD(sq_offset), (uint64_t)1 << 40, "sq_offset");
    corrupt_field_and_reconnect(FIELD(cq_offset), (uint64_t)1 << 40, "cq_offset");
    corrupt_field_and_reconnect(FIELD(sq_bytes), (uint64_t)1 << 40, "sq_bytes");
    corrupt_field_and_reconnect(FIELD(cq_bytes), 3 * 4096, "cq_bytes");
    corrupt_field_and_reconnect(FIELD(cq_offset), GOBLIN_RING_HEADER_BYTES, "cq_offset");
    /* The ring works again for an honest client. */
    struct goblin_ring *r = open_ring(victim_path);
    ring_ping(r);
    goblin_ring_close(r);
}

/* Publishes a raw record at SQ position pos of the session `epoch`. */
static void publish_raw(struct goblin_ring_header *h, uint32_t epoch, uint64_t pos,
                        const void *payload, uint32_t payload_len, uint32_t len, uint32_t kind)
{
    struct goblin_ring_record *rec =
        (struct goblin_ring_record *)((char *)h + GOBLIN_RING_HEADER_BYTES + pos % RING_BYTES);
    memcpy(rec->payload, payload, payload_len);
    rec->len = len;
    rec->kind = kind;
    atomic_store_explicit(&rec->tag, goblin_ring_tag(epoch, pos), memory_order_release);
}

/* A record that does not fit, or whose kind is not DATA, ends the session
 * (the client sees CLOSE) and nothing else. */
static void malformed_records(void)
{
    static const struct {
        uint32_t len, kind;
    } bad[] = {
        {0xfffffff0u, GOBLIN_RING_DATA}, {RING_BYTES - 8, GOBLIN_RING_DATA}, {6, 0}, {6, 99},
        {6, GOBLIN_RING_CLOSE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct goblin_ring *r = open_ring(victim_path);
        struct goblin_ring_header *h = map_victim();
        publish_raw(h, atomic_load(&h->ready_epoch), 0, "PING\r\n", 6, bad[i].len, bad[i].kind);
        const char *reply;
        ssize_t n = goblin_ring_read_reply(r, &reply, 10 * 1000000LL);
        CHECKF(n == -EPIPE, "record len %u kind %u: session not ended (%zd)", bad[i].len,
               bad[i].kind, n);
        check_others_served();
        goblin_ring_close(r);
        munmap(h, MAP_BYTES);
    }
}

/* The server reads a long record in pieces: it stops mid-record while its
 * replies wait for CQ room. The attacker then rewrites the record's len; the
 * server must keep using the len it validated, not the new one. */
static void len_changed_mid_record(void)
{
    enum { GETS = 4000 };
    static const char get[] = "GET big\r\n";
    static char payload[GETS * (sizeof get - 1)];
    for (int i = 0; i < GETS; i++) memcpy(payload + i * (sizeof get - 1), get, sizeof get - 1);

    struct goblin_ring *r = open_ring(victim_path);
    struct goblin_ring_header *h = map_victim();
    uint32_t epoch = atomic_load(&h->ready_epoch);
    publish_raw(h, epoch, 0, payload, sizeof payload, sizeof payload, GOBLIN_RING_DATA);
    /* Replies appear in the CQ once the server has read the first piece; it
     * then fills the CQ and pauses (4000 replies of 100 KB do not fit). */
    struct goblin_ring_record *first_reply =
        (struct goblin_ring_record *)((char *)h + GOBLIN_RING_HEADER_BYTES + RING_BYTES);
    long long deadline = now_ms() + 10000;
    while (atomic_load(&first_reply->tag) != goblin_ring_tag(epoch, 0) && now_ms() < deadline)
        pause_1ms();
    CHECK(atomic_load(&first_reply->tag) == goblin_ring_tag(epoch, 0));
    usleep(100000);
    CHECKF(atomic_load(&h->sq_head) == 0, "server read the whole record without pausing");
    struct goblin_ring_record *rec =
        (struct goblin_ring_record *)((char *)h + GOBLIN_RING_HEADER_BYTES);
    rec->len = 0xffffff00u;

    char *want = malloc(BIG_VALUE + 32);
    int want_len = snprintf(want, 32, "$%d\r\n", BIG_VALUE);
    memset(want + want_len, 'v', BIG_VALUE);
    memcpy(want + want_len + BIG_VALUE, "\r\n", 2);
    want_len += BIG_VALUE + 2;
    for (int i = 0; i < GETS; i++) expect(r, want, (size_t)want_len);
    free(want);
    /* The session goes on after the record the server validated. */
    publish_raw(h, epoch, goblin_ring_record_span(sizeof payload), "PING\r\n", 6, 6,
                GOBLIN_RING_DATA);
    expect(r, "+PONG\r\n", 7);
    check_others_served();
    goblin_ring_close(r);
    munmap(h, MAP_BYTES);
}

/* The server, producer of the CQ, reads the client's cq_head when the CQ
 * is full; a head it cannot have been given ends that session. */
static void impossible_cq_head(void)
{
    static const uint64_t heads[] = {(uint64_t)1 << 40, RING_BYTES * 3};
    for (int i = 0; i < 2; i++) {
        struct goblin_ring *r = open_ring(victim_path);
        struct goblin_ring_header *h = map_victim();
        const char *get[] = {"GET", "big"};
        for (int k = 0; k < 3; k++) CHECK(goblin_ring_send_command(r, 2, get, NULL) == 0);
        /* The CQ is full when its last line carries a tag of this session. */
        long long deadline = now_ms() + 10000;
        while (atomic_load(&h->sq_head) == 0 && now_ms() < deadline) pause_1ms();
        usleep(50000);
        CHECK(victim_session_listed());
        atomic_store(&h->cq_head, heads[i]);
        deadline = now_ms() + 10000;
        while (victim_session_listed() && now_ms() < deadline) pause_1ms();
        CHECKF(!victim_session_listed(), "cq_head %#llx did not end the session",
               (unsigned long long)heads[i]);
        check_others_served();
        goblin_ring_close(r);
        munmap(h, MAP_BYTES);
    }
}

/* argv[1], when given, names the one scenario to run. */
int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    snprintf(dir, sizeof dir, "/dev/shm/goblin-ring-hostile-XXXXXX");
    CHECK(mkdtemp(dir));
    snprintf(victim_path, sizeof victim_path, "%s/victim.ring", dir);
    snprintf(other_path, sizeof other_path, "%s/other.ring", dir);
    const char *const extra[] = {"--ring", victim_path, "64kb", "--ring", other_path, "4kb", NULL};
    test_server_start(&server, TEST_SERVER_GOBLIN, extra);
    struct rconn tcp;
    rconn_open_tcp(&tcp, server.port);
    char *value = malloc(BIG_VALUE + 1);
    memset(value, 'v', BIG_VALUE);
    value[BIG_VALUE] = 0;
    char *reply = rconn_call(&tcp, "SET", "big", value, NULL);
    CHECK_STR(reply, "+OK\r\n");
    free(reply);
    free(value);
    rconn_close(&tcp);

    static const struct {
        const char *name;
        void (*run)(void);
    } scenarios[] = {
        {"header", header_layout_attacks},
        {"records", malformed_records},
        {"len-change", len_changed_mid_record},
        {"cq-head", impossible_cq_head},
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (!only || strcmp(only, scenarios[i].name) == 0) scenarios[i].run();
    check_others_served();
    test_server_stop(&server);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    printf("ring hostile: ok\n");
    return 0;
}
