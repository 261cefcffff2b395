/* rdb_stream.c — streams in RDB encoding, both ways; see rdb_stream.h. */
#include "persist/rdb_stream.h"

#include <string.h>

#include "store/listpack.h"
#include "store/stream.h"
#include "store/stream_cgroup.h"
#include "util/numparse.h"

/* One node's listpack is built here, then written as one string (the
 * server thread and a snapshot child are each single-threaded). */
static struct buf scratch;

/* --- saving ------------------------------------------------------------- */

static void node_listpack(struct stream_walk *w, const struct stream_id *master, uint64_t live,
                          uint64_t deleted, size_t nmaster, struct buf *b)
{
    size_t start = lp_begin(b), count = 0;
    lp_append_int(b, (long long)live);
    lp_append_int(b, (long long)deleted);
    lp_append_int(b, (long long)nmaster);
    count += 3;
    for (size_t i = 0; i < nmaster; i++, count++) {
        const char *f;
        size_t len;
        stream_walk_master_field(w, &f, &len);
        lp_append(b, f, len);
    }
    lp_append_int(b, 0);
    count++;
    unsigned flags;
    struct stream_id id;
    size_t nf;
    while (stream_walk_entry(w, &flags, &id, &nf)) {
        bool same = flags & STREAM_ITEM_SAMEFIELDS;
        lp_append_int(b, (long long)flags);
        lp_append_int(b, (long long)(id.ms - master->ms));
        lp_append_int(b, (long long)(id.seq - master->seq));
        count += 3;
        if (!same) {
            lp_append_int(b, (long long)nf);
            count++;
        }
        for (size_t i = 0; i < nf; i++) {
            const char *f, *v;
            size_t fl, vl;
            stream_walk_field(w, &f, &fl, &v, &vl);
            if (!same) {
                lp_append(b, f, fl);
                count++;
            }
            lp_append(b, v, vl);
            count++;
        }
        lp_append_int(b, (long long)(nf + 3 + (same ? 0 : nf + 1)));
        count++;
    }
    lp_end(b, start, count);
}

static void write_id(struct rdb_writer *w, const struct stream_id *id)
{
    rdbw_len(w, id->ms);
    rdbw_len(w, id->seq);
}

static void write_raw_id(struct rdb_writer *w, const struct stream_id *id)
{
    unsigned char raw[16];
    stream_id_encode(raw, id);
    rdbw_raw(w, raw, 16);
}

static void save_groups(struct rdb_writer *w, const struct stream *s)
{
    size_t ng;
    struct stream_cgroup *const *groups = stream_cg_list(s, &ng);
    rdbw_len(w, ng);
    for (size_t i = 0; i < ng; i++) {
        const struct stream_cgroup *g = groups[i];
        rdbw_string(w, g->named.name, g->named.len);
        write_id(w, &g->last_id);
        rdbw_len(w, (uint64_t)g->entries_read); /* -1 is written as 2^64 - 1, as Redis does */
        rdbw_len(w, idtree_count(&g->pel));
        for (struct idtree_pos p = idtree_first(&g->pel); idtree_pos_valid(&p); idtree_next(&p)) {
            const struct stream_nack *n = idtree_pos_value(&p);
            write_raw_id(w, idtree_pos_key(&p));
            rdbw_u64le(w, (uint64_t)n->delivery_time);
            rdbw_len(w, n->delivery_count);
        }
        size_t nc;
        struct stream_consumer *const *cons = stream_consumer_list(g, &nc);
        rdbw_len(w, nc);
        for (size_t j = 0; j < nc; j++) {
            const struct stream_consumer *c = cons[j];
            rdbw_string(w, c->named.name, c->named.len);
            rdbw_u64le(w, (uint64_t)c->seen_time);
            rdbw_len(w, idtree_count(&c->pel));
            for (struct idtree_pos p = idtree_first(&c->pel); idtree_pos_valid(&p); idtree_next(&p))
                write_raw_id(w, idtree_pos_key(&p));
        }
    }
}

void rdb_stream_save(struct rdb_writer *w, const struct kv *kv)
{
    const struct stream *s = kv->v.ptr;
    rdbw_len(w, stream_node_count(s));
    if (!scratch.data) buf_init(&scratch, 4096);
    struct stream_walk walk;
    stream_walk_start(&walk, s);
    struct stream_id master;
    uint64_t live, deleted;
    size_t nmaster;
    while (stream_walk_node(&walk, &master, &live, &deleted, &nmaster)) {
        unsigned char key[16];
        stream_id_encode(key, &master);
        rdbw_string(w, key, 16);
        scratch.start = scratch.end = 0;
        node_listpack(&walk, &master, live, deleted, nmaster, &scratch);
        rdbw_string(w, buf_head(&scratch), buf_len(&scratch));
    }
    rdbw_len(w, s->length);
    write_id(w, &s->last_id);
    write_id(w, &s->first_id);
    write_id(w, &s->max_deleted_id);
    rdbw_len(w, s->entries_added);
    save_groups(w, s);
}

/* --- loading ------------------------------------------------------------ */

/* A listpack element that must be an integer (Redis's lpGetIntegerIfValid:
 * an integer encoding, or a string string2ll reads). */
static bool lp_int(const struct lp_entry *e, long long *v)
{
    if (e->is_int) {
        *v = e->value;
        return true;
    }
    return num_parse_ll(e->ptr, e->len, v);
}

/* Reads one node's listpack into the loader; NULL or why it is refused. */
static const char *load_node(struct stream_loader *l, const struct stream_id *master,
                             const struct rdb_str *blob)
{
    struct lp_iter it;
    if (!lp_iter_init(&it, blob->ptr, blob->len)) return it.err;
    struct lp_entry e;
    long long live, deleted, nmaster, v;
    size_t counts_at = it.pos;
    if (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &live) || live < 0) return "bad stream count";
    if (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &deleted) || deleted < 0)
        return "bad stream deleted count";
    size_t count_bytes = it.pos - counts_at;
    if (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &nmaster) || nmaster < 0 ||
        (size_t)nmaster > blob->len)
        return "bad stream master field count";
    const char *err = stream_loader_node(l, master, (size_t)nmaster);
    for (long long i = 0; !err && i < nmaster; i++) {
        if (lp_iter_next(&it, &e) != 1) return "stream master entry cut short";
        err = stream_loader_string(l, e.ptr, e.len);
    }
    if (err) return err;
    if (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &v) || v != 0)
        return "stream master entry without its terminator";
    /* Exactly live + deleted entries, then the end. */
    for (long long n = 0; n < live + deleted; n++) {
        long long flags, ms_delta, seq_delta, nf, lp_count;
        if (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &flags)) return "bad stream entry flags";
        if (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &ms_delta)) return "bad stream entry ID";
        if (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &seq_delta)) return "bad stream entry ID";
        bool same = flags & STREAM_ITEM_SAMEFIELDS;
        nf = nmaster;
        if (!same &&
            (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &nf) || nf < 0 || (size_t)nf > blob->len))
            return "bad stream entry field count";
        struct stream_id id = {master->ms + (uint64_t)ms_delta, master->seq + (uint64_t)seq_delta};
        if ((err = stream_loader_entry(l, (unsigned)(flags < 0 ? 0xff : flags), &id, (size_t)nf)))
            return err;
        for (long long i = 0; i < (same ? nf : nf * 2); i++) {
            if (lp_iter_next(&it, &e) != 1) return "stream entry cut short";
            if ((err = stream_loader_string(l, e.ptr, e.len))) return err;
        }
        if (lp_iter_next(&it, &e) != 1 || !lp_int(&e, &lp_count) ||
            lp_count != nf + 3 + (same ? 0 : nf + 1))
            return "bad stream entry lp-count";
    }
    if (lp_iter_next(&it, &e) != 0 || !lp_iter_end(&it))
        return it.err ? it.err : "stream listpack longer than its entries";
    return stream_loader_node_end(l, (uint64_t)live, (uint64_t)deleted, blob->len, count_bytes);
}

static bool read_id(struct rdb_reader *r, struct stream_id *id)
{
    return rdbr_len(r, &id->ms, NULL) && rdbr_len(r, &id->seq, NULL);
}

static bool read_raw_id(struct rdb_reader *r, struct stream_id *id)
{
    const unsigned char *raw;
    if (!rdbr_bytes(r, 16, &raw)) return false;
    stream_id_decode(raw, id);
    return true;
}

static bool load_consumers(struct rdb_reader *r, struct stream_cgroup *g)
{
    uint64_t n;
    if (!rdbr_count(r, &n)) return false;
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str name;
        if (!rdbr_string(r, &name)) return false;
        struct stream_consumer *c = stream_consumer_create(g, name.ptr, name.len, 0);
        rdb_str_free(&name);
        if (!c) return rdbr_fail(r, "duplicate stream consumer");
        uint64_t seen, pel;
        if (!rdbr_u64le(r, &seen) || !rdbr_count(r, &pel)) return false;
        c->seen_time = (int64_t)seen;
        for (uint64_t j = 0; j < pel; j++) {
            struct stream_id id;
            if (!read_raw_id(r, &id)) return false;
            struct stream_nack *nack = stream_pel_find(g, &id);
            if (!nack) return rdbr_fail(r, "consumer entry not in its group's PEL");
            if (nack->consumer) return rdbr_fail(r, "PEL entry owned by two consumers");
            stream_pel_assign(nack, &id, c);
        }
    }
    return true;
}

static bool load_groups(struct rdb_reader *r, unsigned type, struct stream *s)
{
    uint64_t n;
    if (!rdbr_count(r, &n)) return false;
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str name;
        if (!rdbr_string(r, &name)) return false;
        struct stream_id last;
        uint64_t read = 0;
        bool ok =
            read_id(r, &last) && (type == RDB_TYPE_STREAM_LISTPACKS || rdbr_len(r, &read, NULL));
        long long entries_read = type == RDB_TYPE_STREAM_LISTPACKS
                                     ? stream_estimate_distance(s, &last)
                                     : (long long)read;
        struct stream_cgroup *g =
            ok ? stream_cg_create(s, name.ptr, name.len, &last, entries_read) : NULL;
        rdb_str_free(&name);
        if (!ok) return false;
        if (!g) return rdbr_fail(r, "duplicate stream consumer group");
        uint64_t pel;
        if (!rdbr_count(r, &pel)) return false;
        for (uint64_t j = 0; j < pel; j++) {
            struct stream_id id;
            uint64_t when, count;
            if (!read_raw_id(r, &id) || !rdbr_u64le(r, &when) || !rdbr_len(r, &count, NULL))
                return false;
            if (!stream_pel_add_unowned(g, &id, (int64_t)when, count))
                return rdbr_fail(r, "duplicate stream PEL entry");
        }
        if (!load_consumers(r, g)) return false;
        for (struct idtree_pos p = idtree_first(&g->pel); idtree_pos_valid(&p); idtree_next(&p))
            if (!((struct stream_nack *)idtree_pos_value(&p))->consumer)
                return rdbr_fail(r, "stream PEL entry without a consumer");
    }
    return true;
}

static bool load_body(struct rdb_reader *r, unsigned type, struct stream *s)
{
    struct stream_loader l;
    stream_loader_init(&l, s);
    uint64_t nodes;
    if (!rdbr_count(r, &nodes)) return false;
    for (uint64_t i = 0; i < nodes; i++) {
        struct rdb_str key, blob;
        if (!rdbr_string(r, &key)) goto fail;
        if (key.len != 16) {
            rdb_str_free(&key);
            rdbr_fail(r, "stream node key is not the size of a stream ID");
            goto fail;
        }
        struct stream_id master;
        stream_id_decode((const unsigned char *)key.ptr, &master);
        rdb_str_free(&key);
        if (!rdbr_string(r, &blob)) goto fail;
        const char *err = load_node(&l, &master, &blob);
        rdb_str_free(&blob);
        if (err) {
            rdbr_fail(r, "%s", err);
            goto fail;
        }
    }
    uint64_t length;
    if (!rdbr_len(r, &length, NULL) || !read_id(r, &s->last_id)) goto fail;
    if (type == RDB_TYPE_STREAM_LISTPACKS_2) {
        if (!read_id(r, &s->first_id) || !read_id(r, &s->max_deleted_id) ||
            !rdbr_len(r, &s->entries_added, NULL))
            goto fail;
    }
    const char *err = stream_loader_finish(&l, length);
    if (err) {
        rdbr_fail(r, "%s", err);
        goto fail;
    }
    if (type == RDB_TYPE_STREAM_LISTPACKS) { /* pre-7.0: no offsets yet */
        s->entries_added = s->length;
        stream_edge_id(s, true, true, &s->first_id);
    }
    return load_groups(r, type, s);
fail:
    stream_loader_abort(&l);
    return false;
}

enum rdb_load_status rdb_stream_load(struct rdb_reader *r, unsigned type, const char *key,
                                     size_t key_len, struct kv **out)
{
    struct stream *s = stream_new();
    if (!load_body(r, type, s)) {
        stream_free(s);
        return RDB_VALUE_ERROR;
    }
    *out = kv_new_container(key, key_len, OBJ_STREAM, ENC_STREAM, s);
    return RDB_VALUE_OK;
}
