/*
 * fuzz_rdb.c — libFuzzer harness for the RDB loader, the RESTORE payload
 * decoder and the FUNCTION RESTORE payload walker (src/persist/: rdb.c,
 * rdb_value.c, rdb_io.c, listpack.c).
 *
 * fuzz-sources: src/persist/rdb.c src/persist/rdb_value.c src/persist/rdb_io.c
 * fuzz-sources: src/store/listpack.c src/persist/ziplist.c src/persist/crc64.c
 * fuzz-sources: src/store/db.c src/store/dict.c src/store/kv.c src/store/hash.c
 * fuzz-sources: src/store/zset.c src/store/zindex.c src/store/packed.c src/store/set.c
 * fuzz-sources: src/store/sample.c src/store/list.c src/store/blocking.c src/store/watch.c
 * fuzz-sources: src/store/evict.c src/store/notify.c src/store/pubsub.c
 * fuzz-sources: src/util/buf.c src/util/numparse.c src/util/strbuf.c src/util/xmalloc.c
 * fuzz-sources: src/util/hash.c src/util/rand.c src/util/glob.c
 * fuzz-sources: src/core/latency.c src/util/cycles.c src/core/config.c src/core/command_hooks.c
 * fuzz-sources: src/persist/rdb_stream.c src/store/stream.c src/store/stream_cgroup.c
 * fuzz-sources: src/store/stream_id.c src/store/idtree.c
 * fuzz-sources: src/core/config_file.c src/util/split_args.c
 *
 * Input: the bytes of an RDB file (starting "REDIS") or of a DUMP payload
 * (anything else; its footer is not checked, so the decoder itself is
 * reached). Checksums are not verified: the point is the parser.
 *
 * Properties: no crash, leak or sanitizer report; a file that loads is
 * written back, and that snapshot loads again with the same key count
 * (whatever the loader accepts, the writer can express); the same file
 * fed to the streamed loader (rdb_load_stream, a replica's diskless load)
 * in pieces of sizes taken from its own bytes, into a detached set of
 * databases, loads or fails as the whole-buffer load does, with the same
 * key count.
 */
#include <stdbool.h>

#include "fuzz_common.h"
#include "persist/rdb.h"
#include "store/db.h"
#include "store/stream.h"

static void round_trip(long long keys)
{
    struct rdb_writer w;
    rdbw_init(&w, -1, true);
    if (!rdb_write_keyspace(&w, true)) __builtin_trap();
    keyspace_flush_all();
    struct rdb_load_info info;
    char err[512];
    if (!rdb_load_buffer(buf_head(&w.buf), buf_len(&w.buf), true, &info, err, sizeof err)) {
        fprintf(stderr, "rewritten snapshot refused: %s\n", err);
        __builtin_trap();
    }
    if (info.keys_loaded + info.keys_expired != keys) __builtin_trap();
    rdbw_free(&w);
}

/* Each library's code of a FUNCTION payload: touched, so a bad length
 * shows up under ASan. */
static bool touch_library(const char *code, size_t len, void *arg)
{
    size_t *sum = arg;
    for (size_t i = 0; i < len; i++) *sum += (unsigned char)code[i];
    return true;
}

/* The input in pieces: 1..64 bytes, sometimes none (a socket with
 * nothing to read yet), never past the end. */
struct pieces {
    const uint8_t *data;
    size_t size, at, turn;
};

static bool pieces_more(void *arg, struct buf *out, bool block, char *err, size_t err_len)
{
    struct pieces *p = arg;
    if (p->at >= p->size) {
        snprintf(err, err_len, "end of input");
        return false;
    }
    uint8_t pick = p->data[p->turn++ % p->size];
    if (!block && (pick & 3) == 0) return true;
    size_t n = 1 + (size_t)(pick % 64);
    if (n > p->size - p->at) n = p->size - p->at;
    buf_append(out, p->data + p->at, n);
    p->at += n;
    return true;
}

static void stream_compare(const uint8_t *data, size_t size, bool loaded, long long keys)
{
    struct pieces p = {.data = data, .size = size};
    struct rdb_load_source src = {.more = pieces_more, .arg = &p};
    struct db *dbs = keyspace_detached_create();
    struct rdb_load_info info;
    char err[512];
    size_t trailing;
    bool ok = rdb_load_stream(&src, dbs, false, &info, &trailing, err, sizeof err);
    keyspace_detached_free(dbs);
    stream_lazy_free_all();
    if (ok != loaded || (ok && info.keys_loaded != keys)) {
        fprintf(stderr, "streamed load: %s, %lld keys; whole buffer: %s, %lld keys (%s)\n",
                ok ? "loaded" : "failed", ok ? info.keys_loaded : 0, loaded ? "loaded" : "failed",
                keys, ok ? "" : err);
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        keyspace_init(16);
        ready = true;
    }
    if (size >= 5 && memcmp(data, "REDIS", 5) == 0) {
        struct rdb_load_info info;
        char err[512];
        bool loaded = rdb_load_buffer(data, size, false, &info, err, sizeof err);
        long long keys = info.keys_loaded;
        keyspace_flush_all();
        stream_lazy_free_all(); /* big streams' freeing is queued */
        stream_compare(data, size, loaded, keys);
        if (loaded) {
            rdb_load_buffer(data, size, false, &info, err, sizeof err);
            round_trip(info.keys_loaded);
        }
        keyspace_flush_all();
        stream_lazy_free_all();
        return 0;
    }
    if (size < 10) return 0;
    size_t sum = 0;
    char ferr[256];
    (void)rdb_function_payload_foreach(data, size, touch_library, &sum, ferr, sizeof ferr);
    struct kv *kv;
    char why[512];
    if (rdb_payload_decode(data, size, "k", 1, &kv, why, sizeof why)) {
        struct buf again;
        buf_init(&again, 64);
        rdb_dump_payload(kv, true, &again);
        if (!rdb_payload_verify(buf_head(&again), buf_len(&again))) __builtin_trap();
        kv_free(kv);
        stream_lazy_free_all();
        buf_free(&again);
    }
    return 0;
}
