/* aof_rewrite.c — an AOF base as commands (aof-use-rdb-preamble no), as
 * Redis 7.0's rewriteAppendOnlyFileRio writes it; see aof_rewrite.h. */
#include "persist/aof_rewrite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "persist/rdb.h"
#include "persist/rdb_io.h"
#include "store/db.h"
#include "store/hash.h"
#include "store/list.h"
#include "store/set.h"
#include "store/stream.h"
#include "store/stream_cgroup.h"
#include "store/zset.h"

/* Redis's AOF_REWRITE_ITEMS_PER_CMD: elements per RPUSH, SADD, ZADD, HMSET. */
#define ITEMS_PER_CMD 64

/* The rdb_writer is used as a buffered file writer only (its CRC unused). */
static void w_count(struct rdb_writer *w, long long n)
{
    char t[32];
    rdbw_raw(w, t, (size_t)snprintf(t, sizeof t, "*%lld\r\n", n));
}

static void w_bulk(struct rdb_writer *w, const void *p, size_t n)
{
    char t[32];
    rdbw_raw(w, t, (size_t)snprintf(t, sizeof t, "$%zu\r\n", n));
    rdbw_raw(w, p, n);
    rdbw_raw(w, "\r\n", 2);
}

static void w_str(struct rdb_writer *w, const char *s)
{
    w_bulk(w, s, strlen(s));
}

static void w_ll(struct rdb_writer *w, long long v)
{
    char t[32];
    w_bulk(w, t, (size_t)snprintf(t, sizeof t, "%lld", v));
}

static void w_id(struct rdb_writer *w, const struct stream_id *id)
{
    char t[STREAM_ID_STR_MAX];
    w_bulk(w, t, stream_id_format(t, id));
}

/* A batch of ITEMS_PER_CMD elements: the next command's header when a
 * batch begins (per element `unit` bulks; `left` elements remain). */
struct batch {
    struct rdb_writer *w;
    const struct kv *kv;
    const char *cmd;
    size_t left, in_cmd, unit;
};

static void batch_next(struct batch *b)
{
    if (b->in_cmd == 0) {
        size_t n = b->left < ITEMS_PER_CMD ? b->left : ITEMS_PER_CMD;
        w_count(b->w, (long long)(2 + n * b->unit));
        w_str(b->w, b->cmd);
        w_bulk(b->w, b->kv->key, b->kv->key_len);
    }
    if (++b->in_cmd == ITEMS_PER_CMD) b->in_cmd = 0;
    b->left--;
}

static bool set_member(const char *m, size_t len, void *arg)
{
    struct batch *b = arg;
    batch_next(b);
    w_bulk(b->w, m, len);
    return true;
}

static bool hash_field(const char *f, size_t fl, const char *v, size_t vl, void *arg)
{
    struct batch *b = arg;
    batch_next(b);
    w_bulk(b->w, f, fl);
    w_bulk(b->w, v, vl);
    return true;
}

static bool zset_member(const char *m, size_t len, double score, void *arg)
{
    struct batch *b = arg;
    batch_next(b);
    char t[64];
    w_bulk(b->w, t, (size_t)snprintf(t, sizeof t, "%.17g", score));
    w_bulk(b->w, m, len);
    return true;
}

/* Each stream entry as one XADD key id field value ... (of the batch, w
 * and kv alone: one entry is one command). */
static void stream_entry_xadd(const struct stream_id *id, size_t nfields, void *arg)
{
    struct batch *b = arg;
    w_count(b->w, (long long)(3 + nfields * 2));
    w_str(b->w, "XADD");
    w_bulk(b->w, b->kv->key, b->kv->key_len);
    w_id(b->w, id);
}

static void stream_field_args(const char *f, size_t fl, const char *v, size_t vl, void *arg)
{
    struct batch *b = arg;
    w_bulk(b->w, f, fl);
    w_bulk(b->w, v, vl);
}

/* rewriteStreamObject: the entries as XADD (an empty stream through XADD
 * MAXLEN 0), XSETID for the last ID and counters, then each group's
 * XGROUP CREATE ... ENTRIESREAD, its pending entries as XCLAIM ... JUSTID
 * FORCE and its consumers without any as XGROUP CREATECONSUMER. */
static void write_stream(struct rdb_writer *w, const struct kv *kv)
{
    const struct stream *s = kv->v.ptr;
    if (s->length) {
        struct batch b = {.w = w, .kv = kv};
        stream_foreach(s, stream_entry_xadd, stream_field_args, &b);
    } else {
        w_count(w, 7);
        w_str(w, "XADD");
        w_bulk(w, kv->key, kv->key_len);
        w_str(w, "MAXLEN");
        w_str(w, "0");
        w_str(w, "0-1");
        w_str(w, "x");
        w_str(w, "y");
    }
    w_count(w, 7);
    w_str(w, "XSETID");
    w_bulk(w, kv->key, kv->key_len);
    w_id(w, &s->last_id);
    w_str(w, "ENTRIESADDED");
    w_ll(w, (long long)s->entries_added);
    w_str(w, "MAXDELETEDID");
    w_id(w, &s->max_deleted_id);
    size_t ng;
    struct stream_cgroup *const *groups = stream_cg_list(s, &ng);
    for (size_t i = 0; i < ng; i++) {
        const struct stream_cgroup *g = groups[i];
        w_count(w, 7);
        w_str(w, "XGROUP");
        w_str(w, "CREATE");
        w_bulk(w, kv->key, kv->key_len);
        w_bulk(w, g->named.name, g->named.len);
        w_id(w, &g->last_id);
        w_str(w, "ENTRIESREAD");
        w_ll(w, g->entries_read);
        size_t nc;
        struct stream_consumer *const *cons = stream_consumer_list(g, &nc);
        for (size_t j = 0; j < nc; j++) {
            const struct stream_consumer *c = cons[j];
            if (idtree_count(&c->pel) == 0) {
                w_count(w, 5);
                w_str(w, "XGROUP");
                w_str(w, "CREATECONSUMER");
                w_bulk(w, kv->key, kv->key_len);
                w_bulk(w, g->named.name, g->named.len);
                w_bulk(w, c->named.name, c->named.len);
                continue;
            }
            for (struct idtree_pos p = idtree_first(&c->pel); idtree_pos_valid(&p);
                 idtree_next(&p)) {
                const struct stream_nack *n = idtree_pos_value(&p);
                w_count(w, 12);
                w_str(w, "XCLAIM");
                w_bulk(w, kv->key, kv->key_len);
                w_bulk(w, g->named.name, g->named.len);
                w_bulk(w, c->named.name, c->named.len);
                w_str(w, "0");
                w_id(w, idtree_pos_key(&p));
                w_str(w, "TIME");
                w_ll(w, n->delivery_time);
                w_str(w, "RETRYCOUNT");
                w_ll(w, (long long)n->delivery_count);
                w_str(w, "JUSTID");
                w_str(w, "FORCE");
            }
        }
    }
}

static void write_value(struct rdb_writer *w, struct kv *kv)
{
    struct batch b = {.w = w, .kv = kv, .unit = 1};
    switch (kv->type) {
    case OBJ_STRING: {
        struct strview v;
        kv_string_view(kv, &v);
        w_count(w, 3);
        w_str(w, "SET");
        w_bulk(w, kv->key, kv->key_len);
        w_bulk(w, v.ptr, v.len);
        break;
    }
    case OBJ_LIST: {
        struct list *l = kv->v.ptr;
        b.cmd = "RPUSH";
        b.left = list_len(l);
        struct list_iter it;
        struct strview v;
        list_iter_init(&it, l, 0, false);
        while (b.left && list_iter_next(&it, &v)) {
            batch_next(&b);
            w_bulk(w, v.ptr, v.len);
        }
        list_iter_release(&it);
        break;
    }
    case OBJ_SET:
        b.cmd = "SADD";
        b.left = set_len(kv->v.ptr);
        set_foreach(kv->v.ptr, set_member, &b);
        break;
    case OBJ_ZSET:
        b.cmd = "ZADD";
        b.unit = 2;
        b.left = zset_len(kv->v.ptr);
        zset_visit_ranks(kv->v.ptr, 0, b.left, false, zset_member, &b);
        break;
    case OBJ_HASH:
        b.cmd = "HMSET";
        b.unit = 2;
        b.left = hash_len(kv->v.ptr);
        hash_foreach(kv->v.ptr, hash_field, &b);
        break;
    case OBJ_STREAM:
        write_stream(w, kv);
        break;
    default:
        break;
    }
    if (kv->expire_ms) {
        w_count(w, 3);
        w_str(w, "PEXPIREAT");
        w_bulk(w, kv->key, kv->key_len);
        w_ll(w, kv->expire_ms);
    }
}

static bool write_key(struct dict_node *n, void *arg)
{
    write_value(arg, kv_of_node(n));
    return true;
}

static void write_function(const char *code, size_t len, void *arg)
{
    struct rdb_writer *w = arg;
    w_count(w, 3);
    w_str(w, "FUNCTION");
    w_str(w, "LOAD");
    w_bulk(w, code, len);
}

bool aof_rewrite_commands_file(const char *path, const char *tmp_path, char *err, size_t err_len)
{
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, err_len, "Failed opening the temp AOF file %s: %s", tmp_path,
                 strerror(errno));
        return false;
    }
    struct rdb_writer w;
    rdbw_init(&w, fd, false);
    const struct rdb_function_source *fs = rdb_function_source();
    if (fs) fs->foreach (write_function, &w);
    for (int i = 0; i < keyspace.count; i++) {
        struct db *db = keyspace_db(i);
        if (dict_size(&db->keys) == 0) continue;
        w_count(&w, 2);
        w_str(&w, "SELECT");
        w_ll(&w, i);
        dict_foreach(&db->keys, write_key, &w);
    }
    bool ok = rdbw_flush(&w);
    int e = w.error;
    if (ok && fsync(fd) != 0) {
        ok = false;
        e = errno;
    }
    rdbw_free(&w);
    if (close(fd) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (ok && rename(tmp_path, path) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        snprintf(err, err_len, "Write error writing the AOF base %s: %s", tmp_path, strerror(e));
        unlink(tmp_path);
    }
    return ok;
}
