/*
 * fuzz_stream_rdb.c — libFuzzer harness for the stream decoder of RDB
 * files and RESTORE payloads (src/persist/rdb_stream.c, the listpack
 * iterator, and the loader of src/store/stream.c).
 *
 * fuzz-sources: src/persist/rdb_stream.c src/persist/rdb_value.c src/persist/rdb_io.c
 * fuzz-sources: src/store/listpack.c src/persist/ziplist.c src/persist/crc64.c
 * fuzz-sources: src/store/stream.c src/store/stream_cgroup.c src/store/stream_id.c
 * fuzz-sources: src/store/idtree.c src/store/kv.c src/store/hash.c src/store/zset.c
 * fuzz-sources: src/store/zindex.c src/store/packed.c src/store/set.c src/store/list.c
 * fuzz-sources: src/store/dict.c src/store/evict.c src/store/sample.c src/store/db.c
 * fuzz-sources: src/store/blocking.c src/store/watch.c src/store/notify.c src/store/pubsub.c
 * fuzz-sources: src/util/buf.c src/util/numparse.c src/util/strbuf.c src/util/xmalloc.c
 * fuzz-sources: src/util/hash.c src/util/rand.c src/util/glob.c
 * fuzz-sources: src/core/latency.c src/util/cycles.c src/core/config.c src/core/command_hooks.c
 * fuzz-sources: src/core/config_file.c src/util/split_args.c
 *
 * Input: a control byte, then the body of a stream value (what follows the
 * type byte in an RDB file or a DUMP payload): the first control bit picks
 * type 19 (RDB_TYPE_STREAM_LISTPACKS_2) or 15 (the pre-7.0 form), the
 * others the node limits the accepted stream is then appended to with.
 *
 * Properties: no crash, leak or sanitizer report; a body that loads is a
 * sound stream (stream_verify, stream_cgroups_verify); written back it
 * loads again to a stream that is written as the same bytes (whatever the
 * loader accepts, the writer expresses); iteration both ways agrees with
 * the length; appends and trims on the loaded stream keep it sound.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "persist/rdb_value.h"
#include "store/stream.h"
#include "store/stream_cgroup.h"

/* Every field and value byte is read, so a bad length shows under ASan. */
static volatile size_t touched;

static void check_sound(const struct stream *s)
{
    const char *err = stream_verify(s);
    FUZZ_CHECK(!err, "%s", err);
    err = stream_cgroups_verify(s);
    FUZZ_CHECK(!err, "%s", err);
    for (int rev = 0; rev < 2; rev++) {
        struct stream_iter it;
        struct stream_id id;
        size_t nf, n = 0;
        stream_iter_start(&it, s, NULL, NULL, rev);
        while (stream_iter_next(&it, &id, &nf)) {
            for (size_t i = 0; i < nf; i++) {
                const char *f, *v;
                size_t fl, vl;
                stream_iter_field(&it, &f, &fl, &v, &vl);
                for (size_t k = 0; k < fl; k++) touched += (unsigned char)f[k];
                for (size_t k = 0; k < vl; k++) touched += (unsigned char)v[k];
            }
            n++;
        }
        stream_iter_stop(&it);
        FUZZ_CHECK(n == s->length, "iterated %zu of %llu", n, (unsigned long long)s->length);
    }
}

static void save(const struct kv *kv, struct buf *out)
{
    struct rdb_writer w;
    rdbw_init(&w, -1, true);
    rdb_value_save(&w, kv, false);
    buf_append(out, buf_head(&w.buf) + 1, buf_len(&w.buf) - 1); /* less the type byte */
    rdbw_free(&w);
}

static struct kv *load(const void *p, size_t n, unsigned type)
{
    struct rdb_reader r;
    rdbr_init(&r, p, n);
    struct kv *kv;
    if (rdb_value_load(&r, type, "k", 1, &kv) != RDB_VALUE_OK) return NULL;
    return kv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned control = data[0];
    unsigned type = control & 1 ? RDB_TYPE_STREAM_LISTPACKS : RDB_TYPE_STREAM_LISTPACKS_2;
    struct kv *kv = load(data + 1, size - 1, type);
    if (!kv) return 0;
    struct stream *s = kv->v.ptr;
    check_sound(s);

    /* Written back, it reads back to what is written the same way. */
    struct buf once, twice;
    buf_init(&once, 256);
    buf_init(&twice, 256);
    save(kv, &once);
    struct kv *again = load(buf_head(&once), buf_len(&once), RDB_TYPE_STREAM_LISTPACKS_2);
    FUZZ_CHECK(again, "a stream written back does not load");
    check_sound(again->v.ptr);
    save(again, &twice);
    FUZZ_CHECK(buf_len(&once) == buf_len(&twice) &&
                   memcmp(buf_head(&once), buf_head(&twice), buf_len(&once)) == 0,
               "written twice, %zu and %zu bytes", buf_len(&once), buf_len(&twice));
    kv_free(again);
    stream_lazy_free_all();
    buf_free(&once);
    buf_free(&twice);

    /* Appends to the loaded tail node and trims keep it sound. */
    static const long long bytes[] = {4096, 64, 0, 1};
    static const long long entries[] = {100, 2, 0, 1};
    stream_limits.node_max_bytes = bytes[(control >> 1) & 3];
    stream_limits.node_max_entries = entries[(control >> 3) & 3];
    const char *fv[] = {"f", "value", "g", "12"};
    const size_t fvl[] = {1, 5, 1, 2};
    for (int i = 0; i < 8; i++) {
        struct stream_id added;
        if (s->last_id.ms == UINT64_MAX) break;
        struct stream_id use = {s->last_id.ms + 1, 0};
        stream_append(s, fv, fvl, 1 + (size_t)(i & 1), &use, true, 0, &added);
    }
    struct stream_trim t = {.strategy = STREAM_TRIM_MAXLEN, .approx = control & 32, .maxlen = 3};
    stream_trim(s, &t);
    check_sound(s);
    kv_free(kv);
    stream_lazy_free_all(); /* a big stream's freeing is queued */
    stream_limits.node_max_bytes = 4096;
    stream_limits.node_max_entries = 100;
    return 0;
}
