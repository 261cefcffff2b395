/*
 * cmd_cluster.c — CLUSTER, READONLY, READWRITE, ASKING, and the cluster
 * redirection of keyed commands (cluster/cluster.h).
 *
 * Without --cluster-enabled every one of them answers Redis 7.0's "ERR This
 * instance has cluster support disabled" — what cluster-aware clients probe
 * for before falling back to a single node. Every CLUSTER subcommand is
 * known either way, so arity and unknown-subcommand errors are Redis's.
 *
 * With it, they answer as Redis 7.0 does: REPLICATE makes this node a
 * replica (cluster_set_my_master, which starts replication through the
 * hooks repl/ installed), FAILOVER runs cluster_failover.c, READONLY lets
 * a replica serve reads of its master's slots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "commands/command.h"
#include "commands/multi.h"
#include "connection/session.h"
#include "core/config.h"
#include "store/db.h"
#include "store/dict.h"
#include "store/kv.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/numparse.h"
#include "util/xmalloc.h"

static void cmd_asking(struct cmd_ctx *ctx);

static void cmd_cluster_disabled(struct cmd_ctx *ctx)
{
    reply_error(ctx->reply, "ERR This instance has cluster support disabled");
}

/* Every handler starts here: false (answered) when cluster mode is off. */
static bool enabled_or_reply(struct cmd_ctx *ctx)
{
    if (cluster_enabled) return true;
    cmd_cluster_disabled(ctx);
    return false;
}

/* ---- redirection ---- */

enum redirect {
    REDIRECT_NONE,
    REDIRECT_MOVED,
    REDIRECT_CROSS_SLOT,
    REDIRECT_DOWN_STATE,
    REDIRECT_DOWN_RO_STATE,
    REDIRECT_DOWN_UNBOUND,
    REDIRECT_ASK,
    REDIRECT_UNSTABLE,
};

struct slot_check {
    int slot; /* -1: no key seen yet */
    enum redirect error;
    bool write;
    bool asking;       /* ASKING sent, or the command is RESTORE-ASKING */
    bool readonly;     /* READONLY sent: reads may be served by a replica */
    int keys, missing; /* in a migrating or importing slot: keys named, absent here */
};

static void check_keys(const struct command *cmd, int argc, const char **argv,
                       const size_t *argv_len, void *arg)
{
    struct slot_check *sc = arg;
    if (sc->error != REDIRECT_NONE) return;
    int pos[256];
    int n = command_key_positions(cmd, argc, argv, argv_len, pos, 256);
    if (cmd->flags & CMD_WRITE) sc->write = true;
    for (int i = 0; i < n; i++) {
        int slot = (int)cluster_keyslot(argv[pos[i]], argv_len[pos[i]]);
        if (sc->slot < 0) {
            sc->slot = slot;
            if (!cluster.slots[slot]) {
                sc->error = REDIRECT_DOWN_UNBOUND;
                return;
            }
        } else if (slot != sc->slot) {
            sc->error = REDIRECT_CROSS_SLOT;
            return;
        }
        sc->keys++;
        if ((cluster.migrating_to[slot] || cluster.importing_from[slot]) &&
            !db_lookup_quiet(keyspace_db(0), argv[pos[i]], argv_len[pos[i]]))
            sc->missing++;
    }
    if (cmd->flags & CMD_ASKING) sc->asking = true;
}

/* Where the keys check_keys saw go (Redis's getNodeByQuery): leaves
 * sc->error REDIRECT_NONE when this node serves them (or there are none). */
static void route(struct slot_check *sc)
{
    if (sc->error == REDIRECT_NONE && sc->slot < 0) return; /* no keys */
    if (sc->error == REDIRECT_NONE && cluster.state != CLUSTER_OK) {
        if (!config.cluster_allow_reads_when_down)
            sc->error = REDIRECT_DOWN_STATE;
        else if (sc->write)
            sc->error = REDIRECT_DOWN_RO_STATE;
    }
    if (sc->error != REDIRECT_NONE) return;
    int slot = sc->slot;
    bool mine = cluster.slots[slot] == cluster.myself;
    if (mine && cluster.migrating_to[slot] && sc->missing) {
        /* Keys already moved: ask the target; some moved: try again. */
        sc->error = sc->missing < sc->keys ? REDIRECT_UNSTABLE : REDIRECT_ASK;
    } else if (!mine && cluster.importing_from[slot] && sc->asking) {
        if (sc->keys > 1 && sc->missing) sc->error = REDIRECT_UNSTABLE;
    } else if (!mine && sc->readonly && !sc->write && (cluster.myself->flags & NODE_REPLICA) &&
               cluster_node_master(cluster.myself) == cluster.slots[slot]) {
        /* READONLY: a replica serves reads of its master's slots. */
    } else if (!mine) {
        sc->error = REDIRECT_MOVED;
    }
}

const char *cluster_script_check(const struct command *cmd, int argc, const char **argv,
                                 const size_t *argv_len, struct conn *caller, int *slot,
                                 bool cross_slot)
{
    struct slot_check sc = {
        .slot = -1, .asking = session_asking(caller), .readonly = session_readonly(caller)};
    check_keys(cmd, argc, argv, argv_len, &sc);
    route(&sc);
    if (sc.error == REDIRECT_DOWN_RO_STATE)
        return "Script attempted to execute a write command while the cluster is down and "
               "readonly";
    if (sc.error == REDIRECT_DOWN_STATE)
        return "Script attempted to execute a command while the cluster is down";
    if (sc.error != REDIRECT_NONE)
        return "Script attempted to access a non local key in a cluster node";
    if (sc.slot >= 0 && !cross_slot) {
        if (*slot < 0)
            *slot = sc.slot;
        else if (*slot != sc.slot)
            return "Script attempted to access keys that do not hash to the same slot";
    }
    return NULL;
}

bool cluster_request_allowed(const struct cmd_request *req, const struct command *cmd)
{
    /* The master's stream is applied whatever the slots (Redis's mustObeyClient). */
    if (session_client_type(req->conn) == SESSION_CLIENT_MASTER) return true;
    struct slot_check sc = {
        .slot = -1, .asking = session_asking(req->conn), .readonly = session_readonly(req->conn)};
    if (strcmp(cmd->full_name, "exec") == 0) {
        multi_foreach_queued(multi_of_request(req), check_keys, &sc);
    } else {
        if (cmd->first_key <= 0) {
            int probe;
            if (command_key_positions(cmd, req->argc, req->argv, req->argv_len, &probe, 1) == 0)
                return true;
        }
        check_keys(cmd, req->argc, req->argv, req->argv_len, &sc);
    }
    route(&sc);
    if (sc.error == REDIRECT_NONE) return true;
    if (strcmp(cmd->full_name, "exec") == 0) multi_discard(multi_of_request(req));
    struct reply *r = req->reply;
    switch (sc.error) {
    case REDIRECT_CROSS_SLOT:
        reply_error(r, "CROSSSLOT Keys in request don't hash to the same slot");
        break;
    case REDIRECT_DOWN_STATE:
        reply_error(r, "CLUSTERDOWN The cluster is down");
        break;
    case REDIRECT_DOWN_RO_STATE:
        reply_error(r, "CLUSTERDOWN The cluster is down and only accepts read commands");
        break;
    case REDIRECT_DOWN_UNBOUND:
        reply_error(r, "CLUSTERDOWN Hash slot not served");
        break;
    case REDIRECT_UNSTABLE:
        reply_error(r, "TRYAGAIN Multiple keys request during rehashing of slot");
        break;
    case REDIRECT_ASK: {
        const struct cluster_node *n = cluster.migrating_to[sc.slot];
        reply_error_fmt(r, "ASK %d %s:%d", sc.slot, cluster_node_ip(n), n->port);
        break;
    }
    default: {
        const struct cluster_node *n = cluster.slots[sc.slot];
        reply_error_fmt(r, "MOVED %d %s:%d", sc.slot, cluster_node_ip(n), n->port);
        break;
    }
    }
    return false;
}

void cluster_after_command(const struct cmd_request *req, const struct command *cmd)
{
    if (cmd->fn == cmd_asking || multi_is_queuing(multi_of_request(req))) return;
    session_set_asking(req->conn, false);
}

/* ---- information ---- */

static void cmd_cluster_info(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    int assigned = 0, ok = 0, pfail = 0, fail = 0;
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        const struct cluster_node *n = cluster.slots[s];
        if (!n) continue;
        assigned++;
        if (n->flags & NODE_FAIL)
            fail++;
        else if (n->flags & NODE_PFAIL)
            pfail++;
        else
            ok++;
    }
    struct buf b;
    buf_init(&b, 1024);
    buf_append_fmt(&b,
                   "cluster_state:%s\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\n"
                   "cluster_slots_pfail:%d\r\ncluster_slots_fail:%d\r\ncluster_known_nodes:%d\r\n"
                   "cluster_size:%d\r\ncluster_current_epoch:%llu\r\ncluster_my_epoch:%llu\r\n",
                   cluster.state == CLUSTER_OK ? "ok" : "fail", assigned, ok, pfail, fail,
                   cluster.node_count, cluster.size, (unsigned long long)cluster.current_epoch,
                   (unsigned long long)cluster.myself->config_epoch);
    long long sent = 0, received = 0;
    for (int t = 0; t < CLUSTERMSG_TYPE_COUNT; t++) {
        if (!cluster.messages_sent[t]) continue;
        sent += cluster.messages_sent[t];
        buf_append_fmt(&b, "cluster_stats_messages_%s_sent:%lld\r\n", cluster_msg_type_names[t],
                       cluster.messages_sent[t]);
    }
    buf_append_fmt(&b, "cluster_stats_messages_sent:%lld\r\n", sent);
    for (int t = 0; t < CLUSTERMSG_TYPE_COUNT; t++) {
        if (!cluster.messages_received[t]) continue;
        received += cluster.messages_received[t];
        buf_append_fmt(&b, "cluster_stats_messages_%s_received:%lld\r\n", cluster_msg_type_names[t],
                       cluster.messages_received[t]);
    }
    buf_append_fmt(&b, "cluster_stats_messages_received:%lld\r\n", received);
    buf_append_fmt(&b, "total_cluster_links_buffer_limit_exceeded:0\r\n");
    reply_verbatim(ctx->reply, buf_head(&b), buf_len(&b), "txt");
    buf_free(&b);
}

static void cmd_cluster_myid(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    reply_bulk(ctx->reply, cluster.myself->name, CLUSTER_NAMELEN);
}

static void cmd_cluster_nodes(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    struct buf b;
    buf_init(&b, 4096);
    size_t cap = 128 * 1024;
    char *line = xmalloc(cap);
    for (int i = 0; i < cluster.node_count; i++) {
        size_t n = cluster_node_line(cluster.nodes[i], line, cap, false);
        buf_append(&b, line, n);
        buf_append_char(&b, '\n');
    }
    xfree(line);
    reply_verbatim(ctx->reply, buf_head(&b), buf_len(&b), "txt");
    buf_free(&b);
}

#define MAX_REPLICAS_SHOWN 1024

static void reply_node_endpoint(struct reply *r, const struct cluster_node *n)
{
    reply_array_len(r, 4);
    reply_bulk_cstr(r, cluster_node_ip(n));
    reply_int(r, n->port);
    reply_bulk(r, n->name, CLUSTER_NAMELEN);
    reply_map_len(r, 0);
}

static void cmd_cluster_slots(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    int ranges = 0;
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (!cluster.slots[s]) continue;
        int e = s;
        while (e + 1 < CLUSTER_SLOTS && cluster.slots[e + 1] == cluster.slots[s]) e++;
        ranges++;
        s = e;
    }
    reply_array_len(ctx->reply, ranges);
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        const struct cluster_node *n = cluster.slots[s];
        if (!n) continue;
        int e = s;
        while (e + 1 < CLUSTER_SLOTS && cluster.slots[e + 1] == n) e++;
        /* The master, then its replicas that are not failing, as Redis. */
        struct cluster_node *replicas[MAX_REPLICAS_SHOWN];
        int count = cluster_node_replicas(n, replicas, MAX_REPLICAS_SHOWN);
        if (count > MAX_REPLICAS_SHOWN) count = MAX_REPLICAS_SHOWN;
        int shown = 0;
        for (int i = 0; i < count; i++)
            if (!(replicas[i]->flags & NODE_FAIL)) shown++;
        reply_array_len(ctx->reply, 3 + shown);
        reply_int(ctx->reply, s);
        reply_int(ctx->reply, e);
        reply_node_endpoint(ctx->reply, n);
        for (int i = 0; i < count; i++)
            if (!(replicas[i]->flags & NODE_FAIL)) reply_node_endpoint(ctx->reply, replicas[i]);
        s = e;
    }
}

/* One node of a CLUSTER SHARDS entry (Redis's addNodeDetailsToShardReply). */
static void reply_shard_node(struct reply *r, const struct cluster_node *n)
{
    long long offset = n->repl_offset;
    if ((n->flags & NODE_MYSELF) && cluster_replication) offset = cluster_replication->offset();
    bool replica = (n->flags & NODE_REPLICA) != 0;
    reply_map_len(r, 7);
    reply_bulk_cstr(r, "id");
    reply_bulk(r, n->name, CLUSTER_NAMELEN);
    reply_bulk_cstr(r, "port");
    reply_int(r, n->port);
    reply_bulk_cstr(r, "ip");
    reply_bulk_cstr(r, cluster_node_ip(n));
    reply_bulk_cstr(r, "endpoint");
    reply_bulk_cstr(r, cluster_node_ip(n));
    reply_bulk_cstr(r, "role");
    reply_bulk_cstr(r, replica ? "replica" : "master");
    reply_bulk_cstr(r, "replication-offset");
    reply_int(r, offset);
    reply_bulk_cstr(r, "health");
    reply_bulk_cstr(r, (n->flags & NODE_FAIL)   ? "fail"
                       : replica && offset == 0 ? "loading"
                                                : "online");
}

static void cmd_cluster_shards(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    struct reply *r = ctx->reply;
    int masters = 0;
    for (int i = 0; i < cluster.node_count; i++)
        if ((cluster.nodes[i]->flags & NODE_MASTER) &&
            !(cluster.nodes[i]->flags & (NODE_HANDSHAKE | NODE_NOADDR)))
            masters++;
    reply_array_len(r, masters);
    for (int i = 0; i < cluster.node_count; i++) {
        const struct cluster_node *n = cluster.nodes[i];
        if (!(n->flags & NODE_MASTER) || (n->flags & (NODE_HANDSHAKE | NODE_NOADDR))) continue;
        reply_map_len(r, 2);
        reply_bulk_cstr(r, "slots");
        int ranges = 0;
        for (int s = 0; s < CLUSTER_SLOTS; s++) {
            if (!cluster_node_has_slot(n, s)) continue;
            while (s + 1 < CLUSTER_SLOTS && cluster_node_has_slot(n, s + 1)) s++;
            ranges++;
        }
        reply_array_len(r, 2LL * ranges);
        for (int s = 0; s < CLUSTER_SLOTS; s++) {
            if (!cluster_node_has_slot(n, s)) continue;
            int e = s;
            while (e + 1 < CLUSTER_SLOTS && cluster_node_has_slot(n, e + 1)) e++;
            reply_int(r, s);
            reply_int(r, e);
            s = e;
        }
        reply_bulk_cstr(r, "nodes");
        struct cluster_node *replicas[MAX_REPLICAS_SHOWN];
        int count = cluster_node_replicas(n, replicas, MAX_REPLICAS_SHOWN);
        if (count > MAX_REPLICAS_SHOWN) count = MAX_REPLICAS_SHOWN;
        reply_array_len(r, 1 + count);
        reply_shard_node(r, n);
        for (int k = 0; k < count; k++) reply_shard_node(r, replicas[k]);
    }
}

static void cmd_cluster_keyslot(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    reply_int(ctx->reply, cluster_keyslot(ctx->argv[2], ctx->argv_len[2]));
}

struct slot_keys {
    unsigned slot;
    long long count, max;
    struct reply *reply; /* NULL: count only */
};

static void visit_slot_key(struct kv *kv, void *arg)
{
    struct slot_keys *sk = arg;
    if (sk->reply && sk->count >= sk->max) return;
    if (kv_is_expired(kv)) return;
    if (cluster_keyslot(kv->key, kv->key_len) != sk->slot) return;
    sk->count++;
}

static void collect_slot_key(struct kv *kv, void *arg)
{
    struct slot_keys *sk = arg;
    if (sk->count >= sk->max || kv_is_expired(kv)) return;
    if (cluster_keyslot(kv->key, kv->key_len) != sk->slot) return;
    reply_bulk(sk->reply, kv->key, kv->key_len);
    sk->count++;
}

/* COUNTKEYSINSLOT and GETKEYSINSLOT walk database 0 (goblin-core keeps no
 * per-slot key index): O(keys), meant for cluster tooling, not hot paths. */
static void cmd_cluster_countkeysinslot(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    long long slot;
    if (!arg_to_ll(ctx, 2, &slot)) return;
    if (slot < 0 || slot >= CLUSTER_SLOTS) {
        reply_error(ctx->reply, "ERR Invalid slot");
        return;
    }
    struct slot_keys sk = {.slot = (unsigned)slot};
    db_foreach_key(keyspace_db(0), visit_slot_key, &sk);
    reply_int(ctx->reply, sk.count);
}

static void cmd_cluster_getkeysinslot(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    long long slot, max;
    if (!arg_to_ll(ctx, 2, &slot) || !arg_to_ll(ctx, 3, &max)) return;
    if (slot < 0 || slot >= CLUSTER_SLOTS || max < 0) {
        reply_error(ctx->reply, "ERR Invalid slot or number of keys");
        return;
    }
    struct slot_keys count = {.slot = (unsigned)slot, .max = max, .reply = ctx->reply};
    db_foreach_key(keyspace_db(0), visit_slot_key, &count);
    reply_array_len(ctx->reply, count.count);
    struct slot_keys sk = {.slot = (unsigned)slot, .max = count.count, .reply = ctx->reply};
    db_foreach_key(keyspace_db(0), collect_slot_key, &sk);
}

/* The node argv[2] names, or NULL after Redis's "Unknown node" error. */
static struct cluster_node *node_arg_or_reply(struct cmd_ctx *ctx)
{
    struct cluster_node *n = cluster_lookup_node(ctx->argv[2], ctx->argv_len[2]);
    if (!n)
        reply_error_fmt(ctx->reply, "ERR Unknown node %.*s", (int)ctx->argv_len[2], ctx->argv[2]);
    return n;
}

static void cmd_cluster_count_failure_reports(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    struct cluster_node *n = node_arg_or_reply(ctx);
    if (!n) return;
    reply_int(ctx->reply, n->fail_report_count);
}

static void cmd_cluster_links(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    int links = 0;
    for (int i = 0; i < cluster.node_count; i++)
        if (cluster.nodes[i]->link) links++;
    reply_array_len(ctx->reply, links);
    for (int i = 0; i < cluster.node_count; i++) {
        const struct cluster_node *n = cluster.nodes[i];
        if (!n->link) continue;
        reply_map_len(ctx->reply, 3);
        reply_bulk_cstr(ctx->reply, "direction");
        reply_bulk_cstr(ctx->reply, "to");
        reply_bulk_cstr(ctx->reply, "node");
        reply_bulk(ctx->reply, n->name, CLUSTER_NAMELEN);
        reply_bulk_cstr(ctx->reply, "events");
        reply_bulk_cstr(ctx->reply, cluster_bus_node_connected(n) ? "rw" : "w");
    }
}

/* ---- changing the configuration ---- */

static bool parse_port(const char *text, size_t len, long long *out)
{
    return num_parse_ll(text, len, out) && *out >= 0 && *out <= 65535;
}

static void cmd_cluster_meet(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    if (ctx->argc > 5) {
        reply_error_syntax(ctx->reply);
        return;
    }
    long long port, cport;
    if (!parse_port(ctx->argv[3], ctx->argv_len[3], &port)) {
        reply_error_fmt(ctx->reply, "ERR Invalid TCP base port specified: %.*s",
                        (int)ctx->argv_len[3], ctx->argv[3]);
        return;
    }
    cport = port + CLUSTER_PORT_INCR;
    if (ctx->argc == 5 && !parse_port(ctx->argv[4], ctx->argv_len[4], &cport)) {
        reply_error_fmt(ctx->reply, "ERR Invalid TCP bus port specified: %.*s",
                        (int)ctx->argv_len[4], ctx->argv[4]);
        return;
    }
    char ip[CLUSTER_IPLEN];
    snprintf(ip, sizeof ip, "%.*s", (int)ctx->argv_len[2], ctx->argv[2]);
    if (cluster_is_static() || ctx->argv_len[2] >= CLUSTER_IPLEN ||
        !cluster_bus_meet(ip, (int)port, (int)cport)) {
        reply_error_fmt(ctx->reply, "ERR Invalid node address specified: %.*s:%.*s",
                        (int)ctx->argv_len[2], ctx->argv[2], (int)ctx->argv_len[3], ctx->argv[3]);
        return;
    }
    reply_ok(ctx->reply);
}

static bool static_refused(struct cmd_ctx *ctx)
{
    if (!cluster_is_static()) return false;
    reply_error(ctx->reply, "ERR The cluster configuration is a static map (cluster-config-file "
                            "without a 'myself' line): edit the file and restart the nodes");
    return true;
}

static bool slot_arg(struct cmd_ctx *ctx, int i, int *slot)
{
    long long v;
    if (!num_parse_ll(ctx->argv[i], ctx->argv_len[i], &v) || v < 0 || v >= CLUSTER_SLOTS) {
        reply_error(ctx->reply, "ERR Invalid or out of range slot");
        return false;
    }
    *slot = (int)v;
    return true;
}

/* ADDSLOTS/DELSLOTS and their RANGE forms share the checks: every slot is
 * validated (and none named twice) before any changes. */
static void change_slots(struct cmd_ctx *ctx, bool add, bool ranges)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    if (ranges && ctx->argc % 2 == 1) {
        reply_error_arity(ctx->reply, ctx->cmd->full_name);
        return;
    }
    unsigned char *named = xcalloc(CLUSTER_SLOTS, 1);
    for (int i = 2; i < ctx->argc; i += ranges ? 2 : 1) {
        int from, to;
        if (!slot_arg(ctx, i, &from)) goto done;
        to = from;
        if (ranges) {
            if (!slot_arg(ctx, i + 1, &to)) goto done;
            if (from > to) {
                reply_error_fmt(ctx->reply,
                                "ERR start slot number %d is greater than end slot number %d", from,
                                to);
                goto done;
            }
        }
        for (int s = from; s <= to; s++) {
            if (add && cluster.slots[s]) {
                reply_error_fmt(ctx->reply, "ERR Slot %d is already busy", s);
                goto done;
            }
            if (!add && !cluster.slots[s]) {
                reply_error_fmt(ctx->reply, "ERR Slot %d is already unassigned", s);
                goto done;
            }
            if (named[s]++) {
                reply_error_fmt(ctx->reply, "ERR Slot %d specified multiple times", s);
                goto done;
            }
        }
    }
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        if (!named[s]) continue;
        if (add) {
            cluster.importing_from[s] = NULL;
            cluster_add_slot(cluster.myself, s);
        } else {
            cluster_del_slot(s);
        }
    }
    cluster_update_state();
    cluster_config_changed();
    cluster_save_config(false);
    reply_ok(ctx->reply);
done:
    xfree(named);
}

static void cmd_cluster_addslots(struct cmd_ctx *ctx)
{
    change_slots(ctx, true, false);
}
static void cmd_cluster_addslotsrange(struct cmd_ctx *ctx)
{
    change_slots(ctx, true, true);
}
static void cmd_cluster_delslots(struct cmd_ctx *ctx)
{
    change_slots(ctx, false, false);
}
static void cmd_cluster_delslotsrange(struct cmd_ctx *ctx)
{
    change_slots(ctx, false, true);
}

static void cmd_cluster_flushslots(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    if (dict_size(&keyspace_db(0)->keys) != 0) {
        reply_error(ctx->reply, "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
        return;
    }
    for (int s = 0; s < CLUSTER_SLOTS; s++)
        if (cluster.slots[s] == cluster.myself) cluster_del_slot(s);
    cluster_update_state();
    cluster_config_changed();
    reply_ok(ctx->reply);
}

static void cmd_cluster_set_config_epoch(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    long long epoch;
    if (!arg_to_ll(ctx, 2, &epoch)) return;
    if (epoch < 0) {
        reply_error_fmt(ctx->reply, "ERR Invalid config epoch specified: %lld", epoch);
    } else if (cluster.node_count > 1) {
        reply_error(ctx->reply, "ERR The user can assign a config epoch only when the node "
                                "does not know any other node.");
    } else if (cluster.myself->config_epoch != 0) {
        reply_error(ctx->reply, "ERR Node config epoch is already non-zero");
    } else {
        cluster.myself->config_epoch = (uint64_t)epoch;
        if (cluster.current_epoch < (uint64_t)epoch) cluster.current_epoch = (uint64_t)epoch;
        cluster_config_changed();
        cluster_save_config(false);
        reply_ok(ctx->reply);
    }
}

static void cmd_cluster_bumpepoch(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    /* Bumped unless this node already has the greatest epoch, unshared. */
    bool unique_max = cluster.myself->config_epoch != 0;
    for (int i = 0; i < cluster.node_count && unique_max; i++) {
        const struct cluster_node *n = cluster.nodes[i];
        if (n != cluster.myself && n->config_epoch >= cluster.myself->config_epoch)
            unique_max = false;
    }
    char text[64];
    if (unique_max) {
        snprintf(text, sizeof text, "STILL %llu", (unsigned long long)cluster.myself->config_epoch);
    } else {
        cluster.current_epoch++;
        cluster.myself->config_epoch = cluster.current_epoch;
        cluster_config_changed();
        cluster_save_config(false);
        snprintf(text, sizeof text, "BUMPED %llu",
                 (unsigned long long)cluster.myself->config_epoch);
    }
    reply_status(ctx->reply, text);
}

static void cmd_cluster_forget(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    struct cluster_node *n = node_arg_or_reply(ctx);
    if (!n) return;
    if (n == cluster.myself) {
        reply_error(ctx->reply, "ERR I tried hard but I can't forget myself...");
        return;
    }
    if ((cluster.myself->flags & NODE_REPLICA) && cluster_node_master(cluster.myself) == n) {
        reply_error(ctx->reply, "ERR Can't forget my master!");
        return;
    }
    cluster_node_delete(n);
    cluster_update_state();
    cluster_config_changed();
    reply_ok(ctx->reply);
}

static void cmd_cluster_reset(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    bool hard = false;
    if (ctx->argc == 3) {
        if (arg_equals(ctx, 2, "hard")) {
            hard = true;
        } else if (!arg_equals(ctx, 2, "soft")) {
            reply_error_syntax(ctx->reply);
            return;
        }
    } else if (ctx->argc > 3) {
        reply_error_syntax(ctx->reply);
        return;
    }
    if ((cluster.myself->flags & NODE_MASTER) && dict_size(&keyspace_db(0)->keys) != 0) {
        reply_error(ctx->reply,
                    "ERR CLUSTER RESET can't be called with master nodes containing keys");
        return;
    }
    if (cluster.myself->flags & NODE_REPLICA) {
        /* A replica is turned into an empty master, as Redis. */
        cluster_set_node_as_master(cluster.myself);
        if (cluster_replication) cluster_replication->follow(NULL, 0);
        keyspace_flush_all();
    }
    for (int s = 0; s < CLUSTER_SLOTS; s++) {
        cluster_del_slot(s);
        cluster.migrating_to[s] = cluster.importing_from[s] = NULL;
    }
    for (int i = cluster.node_count - 1; i >= 0; i--)
        if (cluster.nodes[i] != cluster.myself) cluster_node_delete(cluster.nodes[i]);
    if (hard) {
        cluster.current_epoch = cluster.last_vote_epoch = 0;
        cluster.myself->config_epoch = 0;
        char name[CLUSTER_NAMELEN];
        cluster_random_name(name);
        cluster_node_rename(cluster.myself, name);
    }
    cluster_update_state();
    cluster_config_changed();
    cluster_save_config(true);
    reply_ok(ctx->reply);
}

static void cmd_cluster_saveconfig(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    if (!cluster_save_config(true)) {
        reply_error(ctx->reply, "ERR error saving the cluster node config: see the log");
        return;
    }
    reply_ok(ctx->reply);
}

static void cmd_cluster_setslot(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    if (cluster.myself->flags & NODE_REPLICA) {
        reply_error(ctx->reply, "ERR Please use SETSLOT only with masters.");
        return;
    }
    int slot;
    if (!slot_arg(ctx, 2, &slot)) return;
    struct cluster_node *n = NULL;
    if (ctx->argc == 5) {
        n = cluster_lookup_node(ctx->argv[4], ctx->argv_len[4]);
        if (!n) {
            reply_error_fmt(ctx->reply, "ERR I don't know about node %.*s", (int)ctx->argv_len[4],
                            ctx->argv[4]);
            return;
        }
    }
    if (arg_equals(ctx, 3, "migrating") && n) {
        if (cluster.slots[slot] != cluster.myself) {
            reply_error_fmt(ctx->reply, "ERR I'm not the owner of hash slot %d", slot);
            return;
        }
        cluster.migrating_to[slot] = n;
    } else if (arg_equals(ctx, 3, "importing") && n) {
        if (cluster.slots[slot] == cluster.myself) {
            reply_error_fmt(ctx->reply, "ERR I'm already the owner of hash slot %d", slot);
            return;
        }
        cluster.importing_from[slot] = n;
    } else if (arg_equals(ctx, 3, "stable") && ctx->argc == 4) {
        cluster.migrating_to[slot] = cluster.importing_from[slot] = NULL;
    } else if (arg_equals(ctx, 3, "node") && n) {
        if (cluster.slots[slot] == cluster.myself && n != cluster.myself) {
            struct slot_keys sk = {.slot = (unsigned)slot};
            db_foreach_key(keyspace_db(0), visit_slot_key, &sk);
            if (sk.count) {
                reply_error_fmt(ctx->reply,
                                "ERR Can't assign hashslot %d to a different node while I still "
                                "hold keys for this hash slot.",
                                slot);
                return;
            }
        }
        if (n == cluster.myself && cluster.importing_from[slot]) {
            /* The import is over: take the slot with a new epoch so every
             * node learns this owner wins. */
            cluster.importing_from[slot] = NULL;
            cluster.current_epoch++;
            cluster.myself->config_epoch = cluster.current_epoch;
        }
        if (cluster.migrating_to[slot] && n != cluster.myself) cluster.migrating_to[slot] = NULL;
        cluster_del_slot(slot);
        cluster_add_slot(n, slot);
    } else {
        reply_error(ctx->reply, "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try "
                                "CLUSTER HELP");
        return;
    }
    cluster_update_state();
    cluster_config_changed();
    cluster_save_config(false);
    reply_ok(ctx->reply);
}

/* CLUSTER REPLICATE <node-id>: Redis 7.0's checks, in its order. */
static void cmd_cluster_replicate(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    struct cluster_node *n = node_arg_or_reply(ctx);
    if (!n) return;
    if (n == cluster.myself) {
        reply_error(ctx->reply, "ERR Can't replicate myself");
        return;
    }
    if (n->flags & NODE_REPLICA) {
        reply_error(ctx->reply, "ERR I can only replicate a master, not a replica.");
        return;
    }
    if ((cluster.myself->flags & NODE_MASTER) &&
        (cluster.myself->numslots != 0 || dict_size(&keyspace_db(0)->keys) != 0)) {
        reply_error(ctx->reply,
                    "ERR To set a master the node must be empty and without assigned slots.");
        return;
    }
    cluster_set_my_master(n);
    cluster_save_config(false);
    cluster_bus_broadcast_pong();
    reply_ok(ctx->reply);
}

/* CLUSTER REPLICAS / SLAVES <node-id>: each replica's CLUSTER NODES line. */
static void cmd_cluster_replicas(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    struct cluster_node *n = node_arg_or_reply(ctx);
    if (!n) return;
    if (n->flags & NODE_REPLICA) {
        reply_error(ctx->reply, "ERR The specified node is not a master");
        return;
    }
    struct cluster_node *replicas[MAX_REPLICAS_SHOWN];
    int count = cluster_node_replicas(n, replicas, MAX_REPLICAS_SHOWN);
    if (count > MAX_REPLICAS_SHOWN) count = MAX_REPLICAS_SHOWN;
    size_t cap = 128 * 1024;
    char *line = xmalloc(cap);
    reply_array_len(ctx->reply, count);
    for (int i = 0; i < count; i++) {
        size_t len = cluster_node_line(replicas[i], line, cap, false);
        reply_bulk(ctx->reply, line, len);
    }
    xfree(line);
}

/* CLUSTER FAILOVER [FORCE|TAKEOVER]. */
static void cmd_cluster_failover(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx) || static_refused(ctx)) return;
    bool force = false, takeover = false;
    if (ctx->argc == 3) {
        if (arg_equals(ctx, 2, "force")) {
            force = true;
        } else if (arg_equals(ctx, 2, "takeover")) {
            force = takeover = true;
        } else {
            reply_error_syntax(ctx->reply);
            return;
        }
    } else if (ctx->argc > 3) {
        reply_error_fmt(ctx->reply,
                        "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                        "CLUSTER HELP.",
                        (int)ctx->argv_len[1], ctx->argv[1]);
        return;
    }
    const char *err = cluster_failover_manual(force, takeover);
    if (err)
        reply_error(ctx->reply, err);
    else
        reply_ok(ctx->reply);
}

static void cmd_cluster_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ADDSLOTS <slot> [<slot> ...]",
        "    Assign slots to current node.",
        "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
        "    Assign slots which are between <start-slot> and <end-slot> to current node.",
        "BUMPEPOCH",
        "    Advance the cluster config epoch.",
        "COUNT-FAILURE-REPORTS <node-id>",
        "    Return number of failure reports for <node-id>.",
        "COUNTKEYSINSLOT <slot>",
        "    Return the number of keys in <slot>.",
        "DELSLOTS <slot> [<slot> ...]",
        "    Delete slots information from current node.",
        "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
        "    Delete slots information which are between <start-slot> and <end-slot> from current "
        "node.",
        "FAILOVER [FORCE|TAKEOVER]",
        "    Promote current replica node to being a master.",
        "FORGET <node-id>",
        "    Remove a node from the cluster.",
        "GETKEYSINSLOT <slot> <count>",
        "    Return key names stored by current node in a slot.",
        "FLUSHSLOTS",
        "    Delete current node own slots information.",
        "INFO",
        "    Return information about the cluster.",
        "KEYSLOT <key>",
        "    Return the hash slot for <key>.",
        "MEET <ip> <port> [<bus-port>]",
        "    Connect nodes into a working cluster.",
        "MYID",
        "    Return the node id.",
        "NODES",
        "    Return cluster configuration seen by node. Output format:",
        "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
        "REPLICATE <node-id>",
        "    Configure current node as replica to <node-id>.",
        "RESET [HARD|SOFT]",
        "    Reset current node (default: soft).",
        "SET-CONFIG-EPOCH <epoch>",
        "    Set config epoch of current node.",
        "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
        "    Set slot state.",
        "REPLICAS <node-id>",
        "    Return <node-id> replicas.",
        "SAVECONFIG",
        "    Force saving cluster configuration on disk.",
        "SLOTS",
        "    Return information about slots range mappings. Each range is made of:",
        "    start, end, master and replicas IP addresses, ports and ids",
        "SHARDS",
        "    Return information about slot range mappings and the nodes associated with them.",
        "LINKS",
        "    Return information about all network links between this node and its peers.",
        "    Output format is an array where each array element is a map containing attributes of "
        "a link",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    if (!enabled_or_reply(ctx)) return;
    reply_help(ctx->reply, lines);
}

static void cmd_readonly(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    session_set_readonly(ctx->conn, true);
    reply_ok(ctx->reply);
}

static void cmd_readwrite(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    session_set_readonly(ctx->conn, false);
    reply_ok(ctx->reply);
}

static void cmd_asking(struct cmd_ctx *ctx)
{
    if (!enabled_or_reply(ctx)) return;
    session_set_asking(ctx->conn, true);
    reply_ok(ctx->reply);
}

#define CLUSTER_SUB(n, a, f, fn_)                                                                  \
    {                                                                                              \
        .name = n, .arity = a, .flags = (f) | CMD_STALE, .fn = fn_,                                \
        .summary = "Cluster subcommand (see CLUSTER HELP)", .since = "3.0.0", .group = "cluster",  \
        .complexity = "O(1)"                                                                       \
    }

static struct command cluster_subcommands[] = {
    CLUSTER_SUB("addslots", -3, CMD_ADMIN, cmd_cluster_addslots),
    CLUSTER_SUB("addslotsrange", -4, CMD_ADMIN, cmd_cluster_addslotsrange),
    CLUSTER_SUB("bumpepoch", 2, CMD_ADMIN, cmd_cluster_bumpepoch),
    CLUSTER_SUB("count-failure-reports", 3, CMD_ADMIN, cmd_cluster_count_failure_reports),
    CLUSTER_SUB("countkeysinslot", 3, 0, cmd_cluster_countkeysinslot),
    CLUSTER_SUB("delslots", -3, CMD_ADMIN, cmd_cluster_delslots),
    CLUSTER_SUB("delslotsrange", -4, CMD_ADMIN, cmd_cluster_delslotsrange),
    CLUSTER_SUB("failover", -2, CMD_ADMIN, cmd_cluster_failover),
    CLUSTER_SUB("flushslots", 2, CMD_ADMIN, cmd_cluster_flushslots),
    CLUSTER_SUB("forget", 3, CMD_ADMIN, cmd_cluster_forget),
    CLUSTER_SUB("getkeysinslot", 4, 0, cmd_cluster_getkeysinslot),
    CLUSTER_SUB("help", 2, CMD_LOADING, cmd_cluster_help),
    CLUSTER_SUB("info", 2, 0, cmd_cluster_info),
    CLUSTER_SUB("keyslot", 3, 0, cmd_cluster_keyslot),
    CLUSTER_SUB("links", 2, 0, cmd_cluster_links),
    CLUSTER_SUB("meet", -4, CMD_ADMIN, cmd_cluster_meet),
    CLUSTER_SUB("myid", 2, 0, cmd_cluster_myid),
    CLUSTER_SUB("nodes", 2, 0, cmd_cluster_nodes),
    CLUSTER_SUB("replicas", 3, CMD_ADMIN, cmd_cluster_replicas),
    CLUSTER_SUB("replicate", 3, CMD_ADMIN, cmd_cluster_replicate),
    CLUSTER_SUB("reset", -2, CMD_ADMIN | CMD_NOSCRIPT, cmd_cluster_reset),
    CLUSTER_SUB("saveconfig", 2, CMD_ADMIN, cmd_cluster_saveconfig),
    CLUSTER_SUB("set-config-epoch", 3, CMD_ADMIN, cmd_cluster_set_config_epoch),
    CLUSTER_SUB("setslot", -4, CMD_ADMIN, cmd_cluster_setslot),
    CLUSTER_SUB("shards", 2, 0, cmd_cluster_shards),
    CLUSTER_SUB("slaves", 3, CMD_ADMIN, cmd_cluster_replicas),
    CLUSTER_SUB("slots", 2, 0, cmd_cluster_slots),
    COMMAND_END,
};

struct command cluster_commands[] = {
    {.name = "cluster",
     .arity = -2,
     .subcommands = cluster_subcommands,
     .summary = "A container for cluster commands",
     .since = "3.0.0",
     .group = "cluster",
     .complexity = "Depends on subcommand."},
    {.name = "readonly",
     .arity = 1,
     .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .fn = cmd_readonly,
     .summary = "Enables read queries for a connection to a cluster replica node",
     .since = "3.0.0",
     .group = "cluster",
     .complexity = "O(1)"},
    {.name = "readwrite",
     .arity = 1,
     .flags = CMD_FAST | CMD_LOADING | CMD_STALE,
     .fn = cmd_readwrite,
     .summary = "Disables read queries for a connection to a cluster replica node",
     .since = "3.0.0",
     .group = "cluster",
     .complexity = "O(1)"},
    {.name = "asking",
     .arity = 1,
     .flags = CMD_FAST,
     .fn = cmd_asking,
     .summary = "Sent by cluster clients after an -ASK redirect",
     .since = "3.0.0",
     .group = "cluster",
     .complexity = "O(1)"},
    COMMAND_END,
};
