/*
 * fuzz_cluster_bus.c — libFuzzer harness for the cluster bus
 * (src/cluster/cluster_bus.c): the message checker and the handler behind
 * it, driven with messages a peer node chose, against a node table of four
 * (this node and three known peers).
 *
 * fuzz-sources: src/cluster/cluster_bus.c src/cluster/cluster.c src/cluster/cluster_failover.c
 * fuzz-sources: src/core/command_hooks.c src/util/log.c src/util/rand.c src/util/xmalloc.c
 * fuzz-sources: src/util/log_syslog.c
 *
 * Input: messages, each a control byte, a 16-bit little-endian length and
 * that many bytes (fewer at the end of the input). Control bits: 0-1 the
 * link it arrives on (inbound, or our link to peer 1..3); bit 2 writes the
 * right signature, total length and version over the message's first
 * bytes (so most inputs reach the handler); bits 3-4 copy a known node's
 * name into the sender field (none, peer 1, 2, 3); bit 5 does the same for
 * the first gossip entry or the FAIL/UPDATE subject. Each message is handed
 * over in a block of exactly its size, so ASan catches any read past it.
 *
 * An input whose first byte is 0xff is instead a nodes.conf (the rest of the
 * input, written to a temporary file) loaded into an empty table by
 * cluster_load_config(), with the same table invariants afterwards.
 *
 * Invariants: a message the checker refuses changes nothing; the node
 * table stays consistent (every slot owner is a known node whose bitmap
 * has that slot, slot counts match the bitmaps); this node stays in the
 * table; the table does not grow past one node per gossip entry and MEET
 * received.
 *
 * The event loop, the socket listener and Pub/Sub delivery are outside the
 * harness: their calls are the small stand-ins below (the published
 * message's bytes are read in full).
 */
#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "core/config.h"
#include "connection/session.h"
#include "core/event_loop.h"
#include "store/pubsub.h"
#include "transport/socket.h"

#include "fuzz_common.h"

#include <unistd.h>

struct config config;

bool ev_add(int fd, uint32_t mask, struct ev_handler *h)
{
    (void)fd, (void)mask, (void)h;
    return true;
}
bool ev_modify(int fd, uint32_t mask, struct ev_handler *h)
{
    (void)fd, (void)mask, (void)h;
    return true;
}
void ev_remove(int fd)
{
    (void)fd;
}
int socket_listen_tcp(const char *host, int port, int backlog)
{
    (void)host, (void)port, (void)backlog;
    return -1;
}
long long pubsub_publish(enum pubsub_kind kind, const char *channel, size_t channel_len,
                         const char *payload, size_t payload_len)
{
    unsigned sum = (unsigned)kind;
    for (size_t i = 0; i < channel_len; i++) sum += (unsigned char)channel[i];
    for (size_t i = 0; i < payload_len; i++) sum += (unsigned char)payload[i];
    return sum & 1;
}

/* A manual failover's pause of clients' writes (connection/session.h). */
enum session_pause session_pause_type;
void session_pause(enum session_pause_purpose purpose, enum session_pause type, int64_t end_ms)
{
    (void)purpose;
    (void)end_ms;
    session_pause_type = type;
}
void session_unpause(enum session_pause_purpose purpose)
{
    (void)purpose;
    session_pause_type = SESSION_PAUSE_OFF;
}

/* A vote is saved to nodes.conf before it is sent: in a directory of ours. */
static char conf_dir[] = "/tmp/fuzz_cluster_dir.XXXXXX";
static void remove_conf_dir(void)
{
    char path[sizeof conf_dir + 32];
    snprintf(path, sizeof path, "%s/nodes.conf", conf_dir);
    unlink(path);
    rmdir(conf_dir);
}

static const char *const names[4] = {
    "0000000000000000000000000000000000000000",
    "1111111111111111111111111111111111111111",
    "2222222222222222222222222222222222222222",
    "3333333333333333333333333333333333333333",
};

static void reset_cluster(void)
{
    while (cluster.node_count) cluster_node_delete(cluster.nodes[cluster.node_count - 1]);
    free(cluster.nodes);
    memset(&cluster, 0, sizeof cluster);
    for (int i = 0; i < 4; i++) {
        struct cluster_node *n = cluster_node_create(names[i], NODE_MASTER | (i ? 0 : NODE_MYSELF));
        snprintf(n->ip, sizeof n->ip, "127.0.0.%d", i + 1);
        n->port = 7000 + i;
        n->cport = 17000 + i;
        n->config_epoch = (uint64_t)i;
        for (int s = i * 4096; s < (i + 1) * 4096; s++) cluster_add_slot(n, s);
    }
    cluster.myself = cluster.nodes[0];
    cluster.current_epoch = 3;
}

static void check_table(void)
{
    int counts[64] = {0};
    FUZZ_CHECK(cluster.node_count < 64, "node table grew to %d", cluster.node_count);
    bool myself_found = false;
    for (int i = 0; i < cluster.node_count; i++)
        if (cluster.nodes[i] == cluster.myself) myself_found = true;
    FUZZ_CHECK(myself_found, "this node left the table");
    struct cluster_node *last = NULL;
    int idx = -1;
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        struct cluster_node *owner = cluster.slots[s];
        if (!owner) continue;
        if (owner != last) { /* owners come in runs: look each run up once */
            last = owner;
            idx = -1;
            for (int i = 0; i < cluster.node_count; i++)
                if (cluster.nodes[i] == owner) idx = i;
            FUZZ_CHECK(idx >= 0, "slot %d owned by a node not in the table", s);
        }
        FUZZ_CHECK((owner->slots[s >> 3] >> (s & 7)) & 1, "slot %d owner's bitmap lacks it", s);
        counts[idx]++;
    }
    for (int i = 0; i < cluster.node_count; i++)
        FUZZ_CHECK(cluster.nodes[i]->numslots == counts[i], "node %d counts %d slots, owns %d", i,
                   cluster.nodes[i]->numslots, counts[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool once;
    if (!once) {
        once = true;
        config.cluster_node_timeout = 15000;
        config.cluster_require_full_coverage = true;
        config.cluster_announce_ip = "";
        config.bind = "127.0.0.1";
        config.port = 7001;
        cluster_enabled = true;
        FUZZ_CHECK(mkdtemp(conf_dir), "mkdtemp");
        atexit(remove_conf_dir);
        config.dir = conf_dir;
        config.cluster_config_file = "nodes.conf";
    }
    if (size && data[0] == 0xff) {
        while (cluster.node_count) cluster_node_delete(cluster.nodes[cluster.node_count - 1]);
        free(cluster.nodes);
        memset(&cluster, 0, sizeof cluster);
        char path[] = "/tmp/fuzz_cluster_conf.XXXXXX";
        int fd = mkstemp(path);
        FUZZ_CHECK(fd >= 0, "mkstemp");
        FUZZ_CHECK(write(fd, data + 1, size - 1) == (ssize_t)(size - 1), "write");
        close(fd);
        int loaded = cluster_load_config(path);
        unlink(path);
        if (loaded == 1) {
            FUZZ_CHECK(cluster.myself, "a loaded table has this node");
            check_table();
        }
        return 0;
    }
    reset_cluster();
    size_t at = 0;
    while (at + 3 <= size) {
        uint8_t control = data[at];
        size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
        at += 3;
        if (control & 4) len += CLUSTERMSG_HEADER_LEN; /* room for a header */
        uint8_t *msg = calloc(1, len ? len : 1);
        size_t avail = size - at < len ? size - at : len;
        memcpy(msg, data + at, avail);
        at += avail;
        if ((control & 4) && len >= 10) {
            memcpy(msg, "RCmb", 4);
            msg[4] = (uint8_t)(len >> 24), msg[5] = (uint8_t)(len >> 16);
            msg[6] = (uint8_t)(len >> 8), msg[7] = (uint8_t)len;
            msg[8] = 0, msg[9] = 1;
        }
        int sender = (control >> 3) & 3;
        if (sender && len >= 80) memcpy(msg + 40, names[sender], CLUSTER_NAMELEN);
        if ((control & 32) && len >= CLUSTERMSG_HEADER_LEN + CLUSTER_NAMELEN + 8)
            memcpy(msg + CLUSTERMSG_HEADER_LEN + ((msg[13] == 7) ? 8 : 0),
                   names[1 + (control >> 6) % 3], CLUSTER_NAMELEN);
        int link = control & 3;
        int before = cluster.node_count;
        bool valid = cluster_msg_check(msg, len) == NULL;
        struct cluster_node *to = link ? cluster_lookup_node(names[link], CLUSTER_NAMELEN) : NULL;
        cluster_bus_feed(msg, len, to);
        if (!valid) FUZZ_CHECK(cluster.node_count == before, "a refused message added nodes");
        if (valid && len >= 16) {
            int entries = msg[14] << 8 | msg[15];
            FUZZ_CHECK(cluster.node_count <= before + entries + 1, "%d nodes from %d entries",
                       cluster.node_count - before, entries);
        }
        free(msg);
        check_table();
    }
    return 0;
}
