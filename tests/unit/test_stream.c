/* Unit tests of the stream type (store/stream.h, store/stream_cgroup.h)
 * against a reference model (an array of entries): seeded random appends
 * (generated, explicit and "<ms>-*" IDs, same and other fields than the
 * node's master entry, values up to a few KB), deletions, trims of every
 * kind, iteration forward and backward over random ranges, copies, under
 * node limits from one entry per node to none, with stream_verify()
 * (entry framing, ID order, counts) after every change; and consumer
 * groups: deliveries, acks, claims, consumer deletion, with
 * stream_cgroups_verify() (each pending entry in exactly its consumer's
 * PEL) after each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/stream.h"
#include "store/stream_cgroup.h"
#include "util/rand.h"

static size_t below(size_t n)
{
    return (size_t)(rand_u64() % n);
}

struct entry {
    struct stream_id id;
    int nf;
    char f[3][8], v[3][2100];
    size_t vl[3];
    bool live;
};

static struct entry *model;
static size_t nmodel;

static void check_all(struct stream *s)
{
    const char *err = stream_verify(s);
    CHECKF(!err, "%s", err);
    size_t live = 0;
    for (size_t i = 0; i < nmodel; i++) live += model[i].live;
    CHECK_EQ_LL(s->length, live);
}

static void check_range(struct stream *s, bool rev)
{
    struct stream_id lo = model[below(nmodel)].id, hi = model[below(nmodel)].id;
    if (stream_id_cmp(&lo, &hi) > 0) {
        struct stream_id t = lo;
        lo = hi;
        hi = t;
    }
    struct stream_iter it;
    stream_iter_start(&it, s, &lo, &hi, rev);
    struct stream_id id;
    size_t nf;
    size_t i = rev ? nmodel : 0;
    for (;;) {
        /* the next live model entry in range */
        const struct entry *e = NULL;
        while (rev ? i > 0 : i < nmodel) {
            const struct entry *c = rev ? &model[--i] : &model[i++];
            if (c->live && stream_id_cmp(&c->id, &lo) >= 0 && stream_id_cmp(&c->id, &hi) <= 0) {
                e = c;
                break;
            }
        }
        bool got = stream_iter_next(&it, &id, &nf);
        CHECK(got == (e != NULL));
        if (!e) break;
        CHECK(stream_id_cmp(&id, &e->id) == 0);
        CHECK_EQ_LL(nf, e->nf);
        for (int k = 0; k < e->nf; k++) {
            const char *f, *v;
            size_t fl, vl;
            stream_iter_field(&it, &f, &fl, &v, &vl);
            CHECK(fl == strlen(e->f[k]) && memcmp(f, e->f[k], fl) == 0);
            CHECK(vl == e->vl[k] && memcmp(v, e->v[k], vl) == 0);
        }
    }
    stream_iter_stop(&it);
}

static void append_one(struct stream *s, int64_t now)
{
    struct entry *e = &model[nmodel];
    e->nf = 1 + (int)below(below(4) ? 1 : 3);
    const char *fv[6];
    size_t fvl[6];
    for (int k = 0; k < e->nf; k++) {
        snprintf(e->f[k], sizeof e->f[k], "%s", below(3) ? "f" : (below(2) ? "g" : "123"));
        e->vl[k] = below(10) ? below(20) : below(2000);
        for (size_t j = 0; j < e->vl[k]; j++) e->v[k][j] = (char)('a' + below(26));
        if (e->vl[k] && below(5) == 0) snprintf(e->v[k], sizeof e->v[k], "%zu", below(100000));
        e->vl[k] = e->vl[k] ? strlen(e->v[k]) < e->vl[k] ? strlen(e->v[k]) : e->vl[k] : 0;
        fv[2 * k] = e->f[k];
        fvl[2 * k] = strlen(e->f[k]);
        fv[2 * k + 1] = e->v[k];
        fvl[2 * k + 1] = e->vl[k];
    }
    struct stream_id use = s->last_id, added;
    bool seq_given = true;
    const struct stream_id *use_id = NULL;
    switch (below(4)) {
    case 0:
        use.ms += below(3);
        use.seq += 1 + below(5);
        use_id = &use;
        break;
    case 1:
        use.ms += below(2);
        seq_given = false;
        use_id = &use;
        break;
    default:
        break;
    }
    CHECK(stream_append(s, fv, fvl, (size_t)e->nf, use_id, seq_given, now, &added) ==
          STREAM_APPEND_OK);
    e->id = added;
    e->live = true;
    nmodel++;
}

static void trim_model(struct stream *s, int64_t deleted)
{
    /* Whatever the trim removed is the oldest live entries. */
    for (size_t i = 0; i < nmodel && deleted > 0; i++)
        if (model[i].live) {
            model[i].live = false;
            deleted--;
        }
    (void)s;
}

static void run(long long max_bytes, long long max_entries, size_t ops)
{
    stream_limits.node_max_bytes = max_bytes;
    stream_limits.node_max_entries = max_entries;
    struct stream *s = stream_new();
    model = calloc(ops + 1, sizeof *model);
    nmodel = 0;
    int64_t now = 1000;
    for (size_t op = 0; op < ops; op++) {
        now += (int64_t)below(2);
        size_t r = below(20);
        if (r < 12 || nmodel == 0) {
            append_one(s, now);
        } else if (r < 15) {
            size_t i = below(nmodel);
            struct stream_id ids[2] = {model[i].id, model[below(nmodel)].id};
            size_t expect = model[i].live;
            model[i].live = false;
            for (size_t j = 0; j < nmodel; j++)
                if (stream_id_cmp(&model[j].id, &ids[1]) == 0 && model[j].live) {
                    model[j].live = false;
                    expect++;
                }
            CHECK_EQ_LL(stream_delete_ids(s, ids, 2), expect);
        } else if (r < 16) {
            struct stream_trim t = {.strategy = STREAM_TRIM_MAXLEN,
                                    .approx = below(2),
                                    .maxlen = (long long)(s->length > 5 ? s->length - 5 : 0)};
            trim_model(s, stream_trim(s, &t));
            if (!t.approx) CHECK(s->length <= (uint64_t)t.maxlen);
        } else if (r < 17) {
            struct stream_trim t = {.strategy = STREAM_TRIM_MINID,
                                    .approx = below(2),
                                    .minid = model[below(nmodel)].id};
            int64_t deleted = stream_trim(s, &t);
            for (size_t i = 0; i < nmodel && deleted > 0; i++)
                if (model[i].live && stream_id_cmp(&model[i].id, &t.minid) < 0) {
                    model[i].live = false;
                    deleted--;
                }
            CHECK(deleted == 0);
        } else {
            check_range(s, below(2));
        }
        check_all(s);
    }
    struct stream *copy = stream_dup(s);
    CHECK(stream_verify(copy) == NULL && copy->length == s->length);
    stream_free(s);
    check_range(copy, false);
    check_range(copy, true);
    stream_free(copy);
    free(model);
}

static void groups(void)
{
    stream_limits.node_max_bytes = 4096;
    stream_limits.node_max_entries = 100;
    struct stream *s = stream_new();
    model = calloc(501, sizeof *model);
    nmodel = 0;
    for (int i = 0; i < 500; i++) append_one(s, 1000 + i);
    struct stream_id zero = {0, 0};
    struct stream_cgroup *g = stream_cg_create(s, "g", 1, &zero, 0);
    CHECK(g && !stream_cg_create(s, "g", 1, &zero, 0));
    struct stream_consumer *c[3] = {stream_consumer_create(g, "a", 1, 1),
                                    stream_consumer_create(g, "b", 1, 1),
                                    stream_consumer_create(g, "c", 1, 1)};
    for (int op = 0; op < 5000; op++) {
        const struct stream_id *id = &model[below(nmodel)].id;
        switch (below(5)) {
        case 0:
        case 1:
            stream_pel_deliver(g, c[below(3)], id, op);
            break;
        case 2:
            stream_pel_ack(g, id);
            break;
        case 3: {
            struct stream_nack *n = stream_pel_find(g, id);
            if (n) stream_pel_assign(n, id, c[below(3)]);
            break;
        }
        default:
            if (below(50) == 0) {
                size_t k = below(3);
                stream_consumer_delete(g, c[k]);
                c[k] = stream_consumer_create(g, k == 0 ? "a" : k == 1 ? "b" : "c", 1, op);
            }
            break;
        }
        const char *err = stream_cgroups_verify(s);
        CHECKF(!err, "%s", err);
    }
    struct stream *copy = stream_dup(s);
    CHECK(stream_cgroups_verify(copy) == NULL);
    struct stream_cgroup *cg = stream_cg_find(copy, "g", 1);
    CHECK(cg && idtree_count(&cg->pel) == idtree_count(&g->pel));
    CHECK(stream_cg_destroy(s, "g", 1) && stream_cg_count(s) == 0);
    stream_free(s);
    stream_free(copy);
    free(model);
}

/* A big stream is freed off the request path: queued, then a step at a
 * time; a small one at once. */
static void lazy_free(void)
{
    stream_limits.node_max_bytes = 4096;
    stream_limits.node_max_entries = 10;
    struct stream *small = stream_new(), *big = stream_new();
    model = calloc(5051, sizeof *model);
    nmodel = 0;
    for (int i = 0; i < 50; i++) append_one(small, i);
    for (int i = 0; i < 5000; i++) append_one(big, i);
    CHECK(stream_node_count(big) > 64 && stream_node_count(small) <= 64);
    stream_release(small);
    CHECK_EQ_LL(stream_lazy_free_pending(), 0);
    stream_release(big);
    CHECK_EQ_LL(stream_lazy_free_pending(), 1);
    int steps = 0;
    while (stream_lazy_free_step(0)) steps++;
    CHECK(steps > 0);
    CHECK_EQ_LL(stream_lazy_free_pending(), 0);
    free(model);
}

int main(void)
{
    rand_seed(7);
    run(4096, 100, 4000);
    run(4096, 1, 1500);
    run(0, 0, 3000);
    run(200, 5, 3000);
    run(1, 0, 800);
    groups();
    lazy_free();
    printf("test_stream: ok\n");
    return 0;
}
