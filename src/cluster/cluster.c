/* cluster.c — slots, the node table and nodes.conf; see cluster.h. */
#include "cluster/cluster.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cluster/cluster_bus.h"
#include "core/command_hooks.h"
#include "core/config.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct cluster_state cluster;
bool cluster_enabled;
struct cluster_settings cluster_settings = {
    .replica_validity_factor = 10,
    .allow_replica_migration = true,
    .migration_barrier = 1,
};
const struct cluster_replication *cluster_replication;

void cluster_set_replication(const struct cluster_replication *r)
{
    cluster_replication = r;
}

/* CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), as Redis Cluster
 * hashes keys; the table is built once at start. */
static uint16_t crc16_table[256];

static void crc16_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        uint16_t crc = (uint16_t)(i << 8);
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
        crc16_table[i] = crc;
    }
}

static uint16_t crc16(const char *buf, size_t len)
{
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++)
        crc = (uint16_t)((crc << 8) ^ crc16_table[((crc >> 8) ^ (unsigned char)buf[i]) & 0xff]);
    return crc;
}

unsigned cluster_keyslot(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len);
    if (open) {
        size_t from = (size_t)(open - key) + 1;
        const char *close = memchr(key + from, '}', len - from);
        if (close && close > key + from)
            return crc16(key + from, (size_t)(close - (key + from))) & (CLUSTER_SLOTS - 1);
    }
    return crc16(key, len) & (CLUSTER_SLOTS - 1);
}

void cluster_random_name(char out[CLUSTER_NAMELEN])
{
    unsigned char raw[CLUSTER_NAMELEN / 2];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        for (size_t i = 0; i < sizeof raw; i++) raw[i] = (unsigned char)rand();
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
}

/* ---- the node table ---- */

struct cluster_node *cluster_node_create(const char *name, unsigned flags)
{
    struct cluster_node *n = xcalloc(1, sizeof *n);
    if (name)
        memcpy(n->name, name, CLUSTER_NAMELEN);
    else
        cluster_random_name(n->name);
    n->flags = flags;
    n->created_ms = clock_unix_ms();
    cluster.nodes =
        xrealloc(cluster.nodes, sizeof *cluster.nodes * (size_t)(cluster.node_count + 1));
    cluster.nodes[cluster.node_count++] = n;
    return n;
}

struct cluster_node *cluster_lookup_node(const char *name, size_t len)
{
    if (len != CLUSTER_NAMELEN) return NULL;
    for (int i = 0; i < cluster.node_count; i++)
        if (memcmp(cluster.nodes[i]->name, name, CLUSTER_NAMELEN) == 0) return cluster.nodes[i];
    return NULL;
}

void cluster_node_delete(struct cluster_node *n)
{
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (cluster.slots[s] == n) cluster.slots[s] = NULL;
        if (cluster.migrating_to[s] == n) cluster.migrating_to[s] = NULL;
        if (cluster.importing_from[s] == n) cluster.importing_from[s] = NULL;
    }
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *other = cluster.nodes[i];
        for (int r = 0; r < other->fail_report_count; r++)
            if (other->fail_reports[r].reporter == n)
                other->fail_reports[r--] = other->fail_reports[--other->fail_report_count];
    }
    for (int i = 0; i < cluster.node_count; i++)
        if (cluster.nodes[i] == n) {
            cluster.nodes[i] = cluster.nodes[--cluster.node_count];
            break;
        }
    if (cluster.mf_replica == n) cluster.mf_replica = NULL;
    cluster_bus_node_deleted(n);
    xfree(n->fail_reports);
    xfree(n);
}

void cluster_node_rename(struct cluster_node *n, const char *name)
{
    memcpy(n->name, name, CLUSTER_NAMELEN);
}

bool cluster_node_has_slot(const struct cluster_node *n, int slot)
{
    return (n->slots[slot >> 3] >> (slot & 7)) & 1;
}

bool cluster_add_slot(struct cluster_node *n, int slot)
{
    if (cluster.slots[slot]) return false;
    n->slots[slot >> 3] |= (unsigned char)(1u << (slot & 7));
    n->numslots++;
    cluster.slots[slot] = n;
    return true;
}

bool cluster_del_slot(int slot)
{
    struct cluster_node *n = cluster.slots[slot];
    if (!n) return false;
    n->slots[slot >> 3] &= (unsigned char)~(1u << (slot & 7));
    n->numslots--;
    cluster.slots[slot] = NULL;
    return true;
}

/* ---- replicas ---- */

struct cluster_node *cluster_node_master(const struct cluster_node *n)
{
    if (!(n->flags & NODE_REPLICA) || !n->master[0]) return NULL;
    struct cluster_node *m = cluster_lookup_node(n->master, CLUSTER_NAMELEN);
    return m == n ? NULL : m;
}

int cluster_node_replicas(const struct cluster_node *master, struct cluster_node **out, int cap)
{
    int count = 0;
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if (!(n->flags & NODE_REPLICA) || memcmp(n->master, master->name, CLUSTER_NAMELEN) != 0)
            continue;
        if (count < cap) {
            int at = count;
            while (at > 0 && memcmp(out[at - 1]->name, n->name, CLUSTER_NAMELEN) > 0) {
                out[at] = out[at - 1];
                at--;
            }
            out[at] = n;
        }
        count++;
    }
    return count;
}

void cluster_set_node_as_master(struct cluster_node *n)
{
    if ((n->flags & NODE_MASTER) && !n->master[0]) return;
    n->flags = (n->flags & ~NODE_REPLICA) | NODE_MASTER;
    memset(n->master, 0, sizeof n->master);
    cluster_config_changed();
}

void cluster_set_my_master(struct cluster_node *master)
{
    struct cluster_node *me = cluster.myself;
    if (me->flags & NODE_MASTER) {
        me->flags &= ~(NODE_MASTER | NODE_MIGRATE_TO);
        me->flags |= NODE_REPLICA;
        for (int s = 0; s < CLUSTER_SLOTS; s++)
            cluster.migrating_to[s] = cluster.importing_from[s] = NULL;
    }
    memcpy(me->master, master->name, CLUSTER_NAMELEN);
    master->flags |= NODE_MIGRATE_TO;
    if (cluster_replication && master->ip[0] && master->port)
        cluster_replication->follow(master->ip, master->port);
    cluster_failover_reset_manual();
    cluster_update_state();
    cluster_config_changed();
}

/* A replica whose replication is not (yet) pointed at its master: started
 * from nodes.conf, or the master's address changed. Idempotent. */
static void replication_follow_master(void)
{
    if (!cluster_replication || !(cluster.myself->flags & NODE_REPLICA)) return;
    const struct cluster_node *m = cluster_node_master(cluster.myself);
    if (m && m->ip[0] && m->port && !(m->flags & (NODE_NOADDR | NODE_HANDSHAKE)))
        cluster_replication->follow(m->ip, m->port);
}

void cluster_node_flags_text(const struct cluster_node *n, char *out, size_t len)
{
    static const struct {
        unsigned flag;
        const char *name;
    } names[] = {
        {NODE_MYSELF, "myself"}, {NODE_MASTER, "master"},
        {NODE_REPLICA, "slave"}, {NODE_PFAIL, "fail?"},
        {NODE_FAIL, "fail"},     {NODE_HANDSHAKE, "handshake"},
        {NODE_NOADDR, "noaddr"}, {NODE_NOFAILOVER, "nofailover"},
    };
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(n->flags & names[i].flag)) continue;
        int w = snprintf(out + used, len - used, "%s%s", used ? "," : "", names[i].name);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
    if (!used) snprintf(out, len, "noflags");
}

const char *cluster_node_ip(const struct cluster_node *n)
{
    if ((n->flags & NODE_MYSELF) && config.cluster_announce_ip && *config.cluster_announce_ip)
        return config.cluster_announce_ip;
    return n->ip;
}

void cluster_update_state(void)
{
    int size = 0;
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *n = cluster.nodes[i];
        if ((n->flags & NODE_MASTER) && n->numslots) size++;
    }
    cluster.size = size;
    int state = CLUSTER_OK;
    if (config.cluster_require_full_coverage) {
        for (int s = 0; s < CLUSTER_SLOTS; s++) {
            struct cluster_node *n = cluster.slots[s];
            if (!n || (n->flags & NODE_FAIL)) {
                state = CLUSTER_FAIL;
                break;
            }
        }
    }
    /* A minority partition stops serving, as Redis: it cannot reach most
     * masters that serve slots. */
    if (state == CLUSTER_OK && size > 0) {
        int reachable = 0;
        for (int i = 0; i < cluster.node_count; i++) {
            struct cluster_node *n = cluster.nodes[i];
            if ((n->flags & NODE_MASTER) && n->numslots && !(n->flags & (NODE_FAIL | NODE_PFAIL)))
                reachable++;
        }
        if (reachable < size / 2 + 1) state = CLUSTER_FAIL;
    }
    if (state != cluster.state)
        log_notice("Cluster state changed: %s", state == CLUSTER_OK ? "ok" : "fail");
    cluster.state = state;
}

/* ---- nodes.conf ---- */

static bool static_map; /* the file names no node `myself`: read-only slot map */

static void config_path(char *out, size_t len)
{
    const char *file = config.cluster_config_file;
    if (file[0] == '/') {
        snprintf(out, len, "%s", file);
        return;
    }
    size_t d = strlen(config.dir);
    snprintf(out, len, "%s%s%s", config.dir, d && config.dir[d - 1] == '/' ? "" : "/", file);
}

/* Appends the slot ranges of n (" 0-5460 5461") to out. */
static size_t append_slot_ranges(const struct cluster_node *n, char *out, size_t cap)
{
    size_t used = 0;
    for (int s = 0; s < CLUSTER_SLOTS && used + 16 < cap; s++) {
        if (!cluster_node_has_slot(n, s)) continue;
        int e = s;
        while (e + 1 < CLUSTER_SLOTS && cluster_node_has_slot(n, e + 1)) e++;
        used += (size_t)(e == s ? snprintf(out + used, cap - used, " %d", s)
                                : snprintf(out + used, cap - used, " %d-%d", s, e));
        s = e;
    }
    return used;
}

size_t cluster_node_line(const struct cluster_node *n, char *out, size_t cap, bool for_file)
{
    char flags[96];
    cluster_node_flags_text(n, flags, sizeof flags);
    bool connected = (n->flags & NODE_MYSELF) || cluster_bus_node_connected(n);
    /* A replica shows its master's config epoch, as Redis. */
    const struct cluster_node *master = cluster_node_master(n);
    uint64_t epoch = master ? master->config_epoch : n->config_epoch;
    int w =
        snprintf(out, cap, "%.40s %s:%d@%d %s %.40s %lld %lld %llu %s", n->name, cluster_node_ip(n),
                 n->port, n->cport, flags, n->master[0] ? n->master : "-",
                 (long long)n->ping_sent_ms, (long long)n->pong_received_ms,
                 (unsigned long long)epoch, connected || for_file ? "connected" : "disconnected");
    if (w < 0 || (size_t)w >= cap) return 0;
    size_t used = (size_t)w;
    used += append_slot_ranges(n, out + used, cap - used);
    if (n->flags & NODE_MYSELF) {
        for (int s = 0; s < CLUSTER_SLOTS && used + 64 < cap; s++) {
            if (cluster.migrating_to[s])
                used += (size_t)snprintf(out + used, cap - used, " [%d->-%.40s]", s,
                                         cluster.migrating_to[s]->name);
            else if (cluster.importing_from[s])
                used += (size_t)snprintf(out + used, cap - used, " [%d-<-%.40s]", s,
                                         cluster.importing_from[s]->name);
        }
    }
    return used;
}

bool cluster_save_config(bool force)
{
    if (static_map || (!force && !cluster.config_dirty)) return true;
    char path[4096], tmp[4200];
    config_path(path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        log_warning("Could not open cluster config file %s: %s", tmp, strerror(errno));
        return false;
    }
    size_t cap = 128 * 1024;
    char *line = xmalloc(cap);
    for (int i = 0; i < cluster.node_count; i++) {
        if (cluster.nodes[i]->flags & NODE_HANDSHAKE) continue;
        size_t n = cluster_node_line(cluster.nodes[i], line, cap, true);
        fwrite(line, 1, n, f);
        fputc('\n', f);
    }
    xfree(line);
    fprintf(f, "vars currentEpoch %llu lastVoteEpoch %llu\n",
            (unsigned long long)cluster.current_epoch, (unsigned long long)cluster.last_vote_epoch);
    bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        log_warning("Could not write cluster config file %s: %s", path, strerror(errno));
        unlink(tmp);
        return false;
    }
    cluster.config_dirty = false;
    return true;
}

void cluster_config_changed(void)
{
    cluster.config_dirty = true;
}

static bool parse_flags(struct cluster_node *n, char *text)
{
    for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ",")) {
        if (strcmp(tok, "myself") == 0)
            n->flags |= NODE_MYSELF;
        else if (strcmp(tok, "master") == 0)
            n->flags |= NODE_MASTER;
        else if (strcmp(tok, "slave") == 0)
            n->flags |= NODE_REPLICA;
        else if (strcmp(tok, "fail?") == 0)
            n->flags |= NODE_PFAIL;
        else if (strcmp(tok, "fail") == 0)
            n->flags |= NODE_FAIL;
        else if (strcmp(tok, "handshake") == 0)
            n->flags |= NODE_HANDSHAKE;
        else if (strcmp(tok, "noaddr") == 0)
            n->flags |= NODE_NOADDR;
        else if (strcmp(tok, "nofailover") == 0)
            n->flags |= NODE_NOFAILOVER;
        else if (strcmp(tok, "noflags") != 0)
            return false;
    }
    return true;
}

/* "ip:port@cport[,hostname]" (IPv6 addresses keep their colons: the port
 * follows the last one). */
static bool parse_address(struct cluster_node *n, const char *text)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    char *comma = strchr(buf, ',');
    if (comma) *comma = '\0';
    char *at = strchr(buf, '@');
    char *colon = strrchr(buf, ':');
    if (!colon || (at && at < colon)) return false;
    *colon = '\0';
    if (at) *at = '\0';
    if (strlen(buf) >= CLUSTER_IPLEN) return false;
    snprintf(n->ip, sizeof n->ip, "%s", buf);
    n->port = atoi(colon + 1);
    n->cport = at ? atoi(at + 1) : n->port + CLUSTER_PORT_INCR;
    return n->port >= 0 && n->port <= 65535 && n->cport >= 0 && n->cport <= 65535;
}

static bool is_node_name(const char *s)
{
    if (strlen(s) != CLUSTER_NAMELEN) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
    return true;
}

/* Slot fields: "N", "A-B", "[N->-id]" (migrating), "[N-<-id]" (importing). */
static bool parse_slot_field(struct cluster_node *n, const char *tok)
{
    if (tok[0] == '[') {
        int slot = atoi(tok + 1);
        const char *arrow = strstr(tok, "->-");
        bool migrating = arrow != NULL;
        if (!arrow) arrow = strstr(tok, "-<-");
        if (!arrow || slot < 0 || slot >= CLUSTER_SLOTS) return false;
        char id[CLUSTER_NAMELEN + 1];
        snprintf(id, sizeof id, "%.40s", arrow + 3);
        if (!is_node_name(id)) return false;
        struct cluster_node *peer = cluster_lookup_node(id, CLUSTER_NAMELEN);
        if (!peer) peer = cluster_node_create(id, 0);
        if (migrating)
            cluster.migrating_to[slot] = peer;
        else
            cluster.importing_from[slot] = peer;
        return true;
    }
    char *end;
    long a = strtol(tok, &end, 10), b = a;
    if (*end == '-') b = strtol(end + 1, &end, 10);
    if (*end || a < 0 || b >= CLUSTER_SLOTS || a > b) return false;
    for (long s = a; s <= b; s++) cluster_add_slot(n, (int)s);
    return true;
}

/* Which line of a static map is this server: the one with our port and
 * (when given) our announced address. */
static bool is_me(const struct cluster_node *n)
{
    if (n->port != config.port) return false;
    if (config.cluster_announce_ip && *config.cluster_announce_ip)
        return strcmp(n->ip, config.cluster_announce_ip) == 0;
    return strstr(config.bind, n->ip) != NULL;
}

int cluster_load_config(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0;
        log_warning("Can't open cluster config file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[65536];
    int lineno = 0;
    bool any = false;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *fields[20000];
        int nf = 0;
        for (char *tok = strtok(line, " "); tok && nf < 20000; tok = strtok(NULL, " "))
            fields[nf++] = tok;
        if (nf == 0) continue;
        if (strcmp(fields[0], "vars") == 0) {
            for (int i = 1; i + 1 < nf; i += 2) {
                if (strcmp(fields[i], "currentEpoch") == 0)
                    cluster.current_epoch = strtoull(fields[i + 1], NULL, 10);
                else if (strcmp(fields[i], "lastVoteEpoch") == 0)
                    cluster.last_vote_epoch = strtoull(fields[i + 1], NULL, 10);
            }
            continue;
        }
        if (nf < 8 || !is_node_name(fields[0])) goto bad;
        struct cluster_node *n = cluster_lookup_node(fields[0], CLUSTER_NAMELEN);
        if (!n) n = cluster_node_create(fields[0], 0);
        if (!parse_address(n, fields[1]) || !parse_flags(n, fields[2])) goto bad;
        if (strcmp(fields[3], "-") != 0) {
            if (!is_node_name(fields[3])) goto bad;
            memcpy(n->master, fields[3], CLUSTER_NAMELEN);
        }
        n->config_epoch = strtoull(fields[6], NULL, 10);
        n->flags &= ~NODE_HANDSHAKE;
        for (int i = 8; i < nf; i++)
            if (!parse_slot_field(n, fields[i])) goto bad;
        if (n->flags & NODE_MYSELF) {
            if (cluster.myself) goto bad;
            cluster.myself = n;
        }
        any = true;
        continue;
    bad:
        log_warning("Unrecoverable error: corrupted cluster config file \"%s\" (line %d).", path,
                    lineno);
        fclose(f);
        return -1;
    }
    fclose(f);
    if (!any) return 0;
    for (int i = 0; i < cluster.node_count; i++) {
        struct cluster_node *m = cluster_node_master(cluster.nodes[i]);
        if (m && (m->flags & NODE_MASTER)) m->flags |= NODE_MIGRATE_TO;
    }
    if (!cluster.myself) {
        /* A static map shared by every node: find our own line. */
        for (int i = 0; i < cluster.node_count && !cluster.myself; i++)
            if (is_me(cluster.nodes[i])) cluster.myself = cluster.nodes[i];
        if (!cluster.myself) {
            log_warning("Cluster config file %s has no 'myself' line and no line for port %lld",
                        path, config.port);
            return -1;
        }
        cluster.myself->flags |= NODE_MYSELF;
        static_map = true;
    }
    return 1;
}

bool cluster_start(void)
{
    cluster_enabled = config.cluster_enabled;
    command_hook_set(HOOK_CLUSTER, cluster_enabled);
    if (!cluster_enabled) return true;
    crc16_init();
    cluster_failover_reset_manual();
    /* As Redis: only when the bus port is derived from the port. */
    if (!config.cluster_port && (config.port == 0 || config.port > 65535 - CLUSTER_PORT_INCR)) {
        log_warning("Redis port number too high. Cluster communication port is 10,000 port "
                    "numbers higher than your Redis port. Your Redis port number must be 55535 "
                    "or less.");
        return false;
    }
    char path[4096];
    config_path(path, sizeof path);
    int loaded = cluster_load_config(path);
    if (loaded < 0) return false;
    if (loaded == 0) {
        cluster.myself = cluster_node_create(NULL, NODE_MYSELF | NODE_MASTER);
        log_notice("No cluster configuration found, I'm %.40s", cluster.myself->name);
        cluster.config_dirty = true;
    } else {
        log_notice("Node configuration loaded, I'm %.*s", CLUSTER_NAMELEN, cluster.myself->name);
    }
    struct cluster_node *me = cluster.myself;
    me->port = config.cluster_announce_port ? (int)config.cluster_announce_port : config.port;
    me->cport = config.cluster_announce_bus_port ? (int)config.cluster_announce_bus_port
                : config.cluster_port            ? (int)config.cluster_port
                                                 : config.port + CLUSTER_PORT_INCR;
    if (!cluster_save_config(false)) return false;
    cluster_update_state();
    if (static_map) {
        log_notice("Static cluster map from %s: no cluster bus", path);
        return true;
    }
    return cluster_bus_start();
}

void cluster_stop(void)
{
    if (!cluster_enabled) return;
    cluster_bus_stop();
    cluster_save_config(false);
}

void cluster_housekeeping(void)
{
    if (!cluster_enabled) return;
    if (!static_map) {
        /* cluster-replica-no-failover shows (and travels) as our nofailover flag. */
        if (cluster_settings.replica_no_failover)
            cluster.myself->flags |= NODE_NOFAILOVER;
        else
            cluster.myself->flags &= ~NODE_NOFAILOVER;
        cluster_bus_cron();
        replication_follow_master();
        cluster_failover_cron();
    }
    cluster_update_state();
    cluster_save_config(false);
}

bool cluster_is_static(void)
{
    return static_map;
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param cluster_params[] = {
    {.name = "cluster-enabled",
     .kind = CFG_BOOL,
     .value = &config.cluster_enabled,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "yes|no",
     .help = "Redis Cluster mode: 16384 hash slots, MOVED/CROSSSLOT redirections, the cluster bus "
             "on port+10000, database 0 only (default no; docs/scale-out.md)"},
    {.name = "cluster-config-file",
     .kind = CFG_STRING,
     .value = &config.cluster_config_file,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "FILE",
     .help =
         "the node table in Redis's nodes.conf format, in --dir unless absolute (default "
         "nodes.conf); a file without a 'myself' line is a static slot map shared by every node"},
    {.name = "cluster-node-timeout",
     .kind = CFG_INT,
     .value = &config.cluster_node_timeout,
     .min = 1,
     .max = LLONG_MAX,
     .value_name = "MS",
     .help = "a node silent this long is suspected failing (default 15000)"},
    {.name = "cluster-port",
     .kind = CFG_INT,
     .value = &config.cluster_port,
     .max = 65535,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "PORT",
     .help = "cluster bus port (default 0: --port + 10000)"},
    {.name = "cluster-announce-ip",
     .kind = CFG_STRING,
     .value = &config.cluster_announce_ip,
     .value_name = "ADDR",
     .help = "address other nodes and clients are given for this node (default: as seen by peers)"},
    {.name = "cluster-announce-port",
     .kind = CFG_INT,
     .value = &config.cluster_announce_port,
     .max = 65535,
     .flags = CFG_IMMUTABLE,
     .value_name = "PORT",
     .help = "client port announced to the cluster (default 0: --port)"},
    {.name = "cluster-announce-bus-port",
     .kind = CFG_INT,
     .value = &config.cluster_announce_bus_port,
     .max = 65535,
     .flags = CFG_IMMUTABLE,
     .value_name = "PORT",
     .help = "bus port announced to the cluster (default 0: the bus port)"},
    {.name = "cluster-require-full-coverage",
     .kind = CFG_BOOL,
     .value = &config.cluster_require_full_coverage,
     .value_name = "yes|no",
     .help = "the cluster is down while any slot is unserved (default yes)"},
    {.name = "cluster-allow-reads-when-down",
     .kind = CFG_BOOL,
     .value = &config.cluster_allow_reads_when_down,
     .value_name = "yes|no",
     .help = "serve reads while the cluster is down (default no)"},
    {.name = "cluster-replica-validity-factor",
     .alias = "cluster-slave-validity-factor",
     .kind = CFG_INT,
     .value = &cluster_settings.replica_validity_factor,
     .max = INT_MAX,
     .value_name = "N",
     .help = "a replica whose master link has been down longer than repl-ping-replica-period + "
             "N x cluster-node-timeout does not fail over automatically (default 10; 0: always "
             "may)"},
    {.name = "cluster-replica-no-failover",
     .alias = "cluster-slave-no-failover",
     .kind = CFG_BOOL,
     .value = &cluster_settings.replica_no_failover,
     .value_name = "yes|no",
     .help = "this replica never fails over its master automatically (CLUSTER FAILOVER still "
             "works; default no)"},
    {.name = "cluster-allow-replica-migration",
     .kind = CFG_BOOL,
     .value = &cluster_settings.allow_replica_migration,
     .value_name = "yes|no",
     .help = "a master that lost all its slots to another becomes its replica, and a replica of "
             "a master with more than cluster-migration-barrier working replicas moves to a "
             "master left with none (default yes)"},
    {.name = "cluster-migration-barrier",
     .kind = CFG_INT,
     .value = &cluster_settings.migration_barrier,
     .max = INT_MAX,
     .value_name = "N",
     .help = "working replicas a master keeps before one may move to an orphaned master "
             "(default 1)"},
};

const struct config_table cluster_config = CONFIG_TABLE(cluster_params, NULL);
