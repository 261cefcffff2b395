/* cmd_debug.c — DEBUG, the subcommands Redis 7.0's own test suite and its
 * users rely on, with Redis 7.0's replies (src/debug.c):
 *
 *   OBJECT key            "Value at:<addr> refcount:<n> encoding:<enc>
 *                         serializedlength:<n> lru:<n> lru_seconds_idle:<n>"
 *                         and, for lists, the ql_* fields
 *   DIGEST                the data set's digest, Redis's algorithm (SHA1
 *                         mixing per key and value), so it compares with
 *                         redis-server's for the same data
 *   DIGEST-VALUE key...   one value's digest per key (zeros when missing)
 *   SET-ACTIVE-EXPIRE 0|1 turns the active expiry cycle off and on
 *   QUICKLIST-PACKED-THRESHOLD <size>  list elements this large get a node
 *                         of their own (Redis's "plain" nodes)
 *   LISTPACK key, QUICKLIST key [full]  the structure, to the server log
 *   POPULATE n [prefix] [size]          n keys "prefix:i" = "value:i"
 *   PROTOCOL <type>       a sample reply of each RESP3 type
 *   STRINGMATCH-TEST      a randomised run of the glob matcher
 *   CHANGE-REPL-ID        a new master_replid (INFO replication)
 *   PAUSE-CRON 0|1        housekeeping (Redis's serverCron) stopped and resumed
 *   CONFIG-REWRITE-FORCE-ALL  CONFIG REWRITE writing every setting, defaults too
 *   REPLICATE cmd [arg ...]   cmd sent to the replicas only (divergence, for tests)
 *   REPLYBUFFER PEAK-RESET-TIME never|reset|ms, REPLYBUFFER RESIZING 0|1
 *                         the reply buffer sizing's knobs (session_reply_buffer)
 *   POLLED-SLEEP-UNTIMED 0|1  asleep with rings or libfabric, wait for a
 *                         wake-up without housekeeping's timeout (goblin-core's,
 *                         for the lost-wake-up test; core/event_loop.h)
 *   SLEEP s, RELOAD, HELP
 *
 * Differences: "Value at:" is the address of our kv (stable while the value
 * is changed in place, as Redis's robj); ql_uncompressed_size counts our
 * list node bytes, not listpack bytes; LISTPACK/QUICKLIST print our own
 * layout. Off unless --enable-debug-command allows (CMD_PROTECTED). */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands/command.h"
#include "scripting/script_lua.h"
#include "persist/aof.h"
#include "commands/server/debug.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "commands/propagate.h"
#include "connection/session.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/server_state.h"
#include "util/stats.h"
#include "persist/aof.h"
#include "store/evict.h"
#include "store/hash.h"
#include "store/list.h"
#include "store/stream.h"
#include "store/set.h"
#include "store/zset.h"
#include "util/buf.h"
#include "util/glob.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/numparse.h"
#include "util/rand.h"
#include "util/xmalloc.h"

/* --- SLEEP ------------------------------------------------------------ */

/* DEBUG SLEEP seconds: blocks the server thread (tests use it to hold the
 * loop still while clients queue work). The argument is read as Redis reads
 * it (strtod, no validation) and turned into microseconds as Redis does
 * (`long long utime = dtime * 1000000`): text, a negative value, NaN and
 * any value whose microseconds do not fit a long long (1e300, inf, 1e18)
 * sleep not at all — Redis's conversion gives a negative time there, which
 * nanosleep refuses — while one that fits sleeps that long (9e12 s is for
 * ever, as with Redis). A shutdown signal ends the sleep early. */
static void debug_sleep(double seconds)
{
    double micros = seconds * 1e6;
    if (!(micros >= 0 && micros < 9223372036854775807.0)) return; /* NaN fails both */
    long long utime = (long long)micros;
    struct timespec left = {(time_t)(utime / 1000000), (long)(utime % 1000000) * 1000};
    /* SIGINT/SIGTERM interrupt nanosleep (no SA_RESTART) and ask for a shutdown. */
    while (nanosleep(&left, &left) != 0 && errno == EINTR && !ev_stopping() &&
           !server.shutdown_signal) {
    }
}

/* An argument as a NUL-terminated string (truncated to the buffer), for
 * the strtod/atoi readings Redis does. */
static const char *arg_cstr(const struct cmd_ctx *ctx, int i, char *text, size_t cap)
{
    size_t n = ctx->argv_len[i] < cap - 1 ? ctx->argv_len[i] : cap - 1;
    memcpy(text, ctx->argv[i], n);
    text[n] = '\0';
    return text;
}

/* The key's kv, expired or not (Redis's dictFind: DEBUG looks at logically
 * expired keys too); NULL when absent. */
static struct kv *find_any(struct db *db, const char *key, size_t len)
{
    struct dict_node *n = dict_find(&db->keys, key, len, hash_bytes(key, len));
    return n ? kv_of_node(n) : NULL;
}

/* --- DIGEST ------------------------------------------------------------ */

/* Redis's debug.c digest: xor_digest folds SHA1(data) into the digest
 * (order-free), mix_digest also rehashes it (order matters). */
static void xor_digest(unsigned char digest[20], const void *p, size_t len)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(p, len, md, &n, EVP_sha1(), NULL);
    for (int i = 0; i < 20; i++) digest[i] ^= md[i];
}

static void mix_digest(unsigned char digest[20], const void *p, size_t len)
{
    xor_digest(digest, p, len);
    unsigned int n = 0;
    unsigned char md[EVP_MAX_MD_SIZE];
    EVP_Digest(digest, 20, md, &n, EVP_sha1(), NULL);
    memcpy(digest, md, 20);
}

static bool digest_hash_field(const char *f, size_t fl, const char *v, size_t vl, void *arg)
{
    unsigned char ele[20] = {0};
    mix_digest(ele, f, fl);
    mix_digest(ele, v, vl);
    xor_digest(arg, ele, 20);
    return true;
}

static bool digest_set_member(const char *m, size_t len, void *arg)
{
    xor_digest(arg, m, len);
    return true;
}

static bool digest_zset_member(const char *m, size_t len, double score, void *arg)
{
    unsigned char ele[20] = {0};
    char text[128];
    int n = snprintf(text, sizeof text, "%.17g", score);
    mix_digest(ele, m, len);
    mix_digest(ele, text, (size_t)n);
    xor_digest(arg, ele, 20);
    return true;
}

/* A stream's entries, each ID as "<ms>.<seq>" then its fields and values
 * (Redis's digest leaves consumer groups out). */
static void digest_stream_entry(const struct stream_id *id, size_t nfields, void *digest)
{
    (void)nfields;
    char text[STREAM_ID_STR_MAX];
    int n = snprintf(text, sizeof text, "%llu.%llu", (unsigned long long)id->ms,
                     (unsigned long long)id->seq);
    mix_digest(digest, text, (size_t)n);
}

static void digest_stream_field(const char *f, size_t fl, const char *v, size_t vl, void *digest)
{
    mix_digest(digest, f, fl);
    mix_digest(digest, v, vl);
}

/* Redis's xorObjectDigest: the value's type (Redis's numbering), its
 * contents, and a mark when the key has a TTL. */
static void value_digest(unsigned char digest[20], struct kv *kv)
{
    static const uint32_t redis_type[] = {
        [OBJ_STRING] = 0, [OBJ_LIST] = 1, [OBJ_SET] = 2,
        [OBJ_ZSET] = 3,   [OBJ_HASH] = 4, [OBJ_STREAM] = 6,
    };
    uint32_t aux = htonl(redis_type[kv->type]);
    mix_digest(digest, &aux, sizeof aux);
    if (kv->type == OBJ_STRING) {
        struct strview v;
        kv_string_view(kv, &v);
        mix_digest(digest, v.ptr, v.len);
    } else if (kv->type == OBJ_LIST) {
        struct list_iter it;
        struct strview v;
        list_iter_init(&it, kv->v.ptr, 0, false);
        while (list_len(kv->v.ptr) > 0 && list_iter_next(&it, &v)) mix_digest(digest, v.ptr, v.len);
        list_iter_release(&it);
    } else if (kv->type == OBJ_SET) {
        set_foreach(kv->v.ptr, digest_set_member, digest);
    } else if (kv->type == OBJ_ZSET) {
        zset_visit_ranks(kv->v.ptr, 0, zset_len(kv->v.ptr), false, digest_zset_member, digest);
    } else if (kv->type == OBJ_HASH) {
        hash_foreach(kv->v.ptr, digest_hash_field, digest);
    } else if (kv->type == OBJ_STREAM) {
        stream_foreach(kv->v.ptr, digest_stream_entry, digest_stream_field, digest);
    }
    if (kv->expire_ms) xor_digest(digest, "!!expire!!", 10);
}

static bool digest_key(struct dict_node *node, void *arg)
{
    struct kv *kv = kv_of_node(node);
    unsigned char d[20] = {0};
    mix_digest(d, kv->key, kv->key_len);
    value_digest(d, kv);
    xor_digest(arg, d, 20);
    return true;
}

static void reply_digest(struct reply *r, const unsigned char d[20])
{
    char hex[41];
    for (int i = 0; i < 20; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
    reply_status_len(r, hex, 40);
}

static void debug_digest(struct cmd_ctx *ctx)
{
    unsigned char final[20] = {0};
    for (int i = 0; i < keyspace.count; i++) {
        struct db *db = keyspace_db(i);
        if (dict_size(&db->keys) == 0) continue;
        uint32_t aux = htonl((uint32_t)i);
        mix_digest(final, &aux, sizeof aux);
        dict_foreach(&db->keys, digest_key, final);
    }
    reply_digest(ctx->reply, final);
}

static void debug_digest_value(struct cmd_ctx *ctx)
{
    reply_array_len(ctx->reply, ctx->argc - 2);
    for (int i = 2; i < ctx->argc; i++) {
        unsigned char d[20] = {0};
        struct kv *kv = find_any(ctx->db, ctx->argv[i], ctx->argv_len[i]);
        if (kv) value_digest(d, kv);
        reply_digest(ctx->reply, d);
    }
}

/* --- OBJECT, LISTPACK, QUICKLIST --------------------------------------- */

static void debug_object(struct cmd_ctx *ctx)
{
    struct kv *kv = find_any(ctx->db, ctx->argv[2], ctx->argv_len[2]);
    if (!kv) {
        reply_error(ctx->reply, "ERR no such key");
        return;
    }
    /* serializedlength is the value's RDB bytes: the DUMP payload less its
     * type byte, RDB version (2) and CRC64 (8). */
    struct buf payload;
    buf_init(&payload, 64);
    rdb_dump_payload(kv, config.rdbcompression, &payload);
    size_t serialized = buf_len(&payload) > 11 ? buf_len(&payload) - 11 : 0;
    buf_free(&payload);
    char extra[160] = "";
    if (kv->type == OBJ_LIST) {
        const struct list *l = kv->v.ptr;
        unsigned long bytes = 0;
        for (const struct list_node *n = l->head; n; n = n->next) bytes += n->used;
        snprintf(extra, sizeof extra,
                 " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%lld ql_compressed:%d"
                 " ql_uncompressed_size:%lu",
                 l->nodes, l->nodes ? (double)l->len / (double)l->nodes : 0.0, list_limits.fill,
                 l->compress != 0, bytes);
    }
    char line[512];
    snprintf(line, sizeof line,
             "Value at:%p refcount:%lld encoding:%s serializedlength:%zu lru:%u "
             "lru_seconds_idle:%u%s",
             (void *)kv, object_refcount(kv), kv_encoding_name(kv), serialized, (unsigned)kv->lru,
             (unsigned)evict_idle_seconds(kv), extra);
    reply_status(ctx->reply, line);
}

static bool log_hash_field(const char *f, size_t fl, const char *v, size_t vl, void *arg)
{
    log_msg(LOG_NOTICE, "  %s: \"%.*s\" -> \"%.*s\"", (const char *)arg, (int)fl, f, (int)vl, v);
    return true;
}

static bool log_zset_member(const char *m, size_t len, double score, void *arg)
{
    log_msg(LOG_NOTICE, "  %s: \"%.*s\" -> %.17g", (const char *)arg, (int)len, m, score);
    return true;
}

/* DEBUG LISTPACK key: the entries of a compact hash or sorted set, one log
 * line each (Redis prints the listpack's bytes on stdout). */
static void debug_listpack(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_quiet(ctx->db, ctx->argv[2], ctx->argv_len[2]);
    if (!kv) {
        reply_error(ctx->reply, "ERR no such key");
        return;
    }
    bool compact = (kv->type == OBJ_HASH && hash_is_compact(kv->v.ptr)) ||
                   (kv->type == OBJ_ZSET && zset_is_compact(kv->v.ptr));
    if (!compact) {
        reply_error(ctx->reply, "ERR Not a listpack encoded object.");
        return;
    }
    log_msg(LOG_NOTICE, "DEBUG LISTPACK %.*s (%s):", (int)kv->key_len, kv->key, kv_type_name(kv));
    if (kv->type == OBJ_HASH)
        hash_foreach(kv->v.ptr, log_hash_field, "field");
    else
        zset_visit_ranks(kv->v.ptr, 0, zset_len(kv->v.ptr), false, log_zset_member, "member");
    reply_status(ctx->reply, "Listpack structure printed on stdout");
}

/* DEBUG QUICKLIST key [full]: the list's nodes (and with full != 0 their
 * entries), one log line each. */
static void debug_quicklist(struct cmd_ctx *ctx)
{
    struct kv *kv = db_lookup_quiet(ctx->db, ctx->argv[2], ctx->argv_len[2]);
    if (!kv) {
        reply_error(ctx->reply, "ERR no such key");
        return;
    }
    if (kv->type != OBJ_LIST) {
        reply_error(ctx->reply, "ERR Not a quicklist encoded object.");
        return;
    }
    char text[32];
    bool full = ctx->argc == 4 && atoi(arg_cstr(ctx, 3, text, sizeof text)) != 0;
    struct list *l = kv->v.ptr;
    log_msg(LOG_NOTICE, "DEBUG QUICKLIST %.*s: len %zu, nodes %zu, fill %lld, compress %u",
            (int)kv->key_len, kv->key, l->len, l->nodes, list_limits.fill, l->compress);
    size_t i = 0, index = 0;
    for (struct list_node *n = l->head; n; n = n->next, i++) {
        log_msg(LOG_NOTICE, "  node %zu: count %u, bytes %u, compressed %u", i, n->count, n->used,
                n->zlen);
        if (!full) continue;
        struct list_iter it;
        struct strview v;
        list_iter_init(&it, l, index, false);
        for (uint32_t j = 0; j < n->count && list_iter_next(&it, &v); j++)
            log_msg(LOG_NOTICE, "    \"%.*s\"", (int)v.len, v.ptr);
        list_iter_release(&it);
        index += n->count;
    }
    reply_status(ctx->reply, "Quicklist structure printed on stdout");
}

/* --- POPULATE ------------------------------------------------------------ */

/* Redis's getPositiveLongFromObjectOrReply: one error for text and for a
 * negative number. */
static bool arg_positive(struct cmd_ctx *ctx, int i, long long *out)
{
    if (num_parse_ll(ctx->argv[i], ctx->argv_len[i], out) && *out >= 0) return true;
    reply_error(ctx->reply, "ERR value is out of range, must be positive");
    return false;
}

/* The memory DEBUG POPULATE may fill: maxmemory when set, else half of
 * the machine's physical memory. */
static size_t populate_budget(void)
{
    if (config.maxmemory) return (size_t)config.maxmemory;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages / 2 * (size_t)page : (size_t)1 << 30;
}

/* DEBUG POPULATE count [prefix] [size]: keys "<prefix>:<i>" ("key" by
 * default) holding "value:<i>" (or that text cut or zero-padded to size
 * bytes); existing keys are left alone.
 *
 * Redis allocates a value of any declared size (and aborts when it cannot)
 * and creates keys until the count is done (a count of 2^63 takes all the
 * machine's memory). Here both are bounded: a value is at most
 * proto-max-bulk-len, as any value a client sends; a count whose hash
 * table alone (8 bytes a key) would pass the budget (populate_budget())
 * gets Redis's answer for a table it cannot allocate (`OOM in
 * dictTryExpand`); and the keys stop, with an error, before used memory
 * and the next value would pass the budget. */
static void debug_populate(struct cmd_ctx *ctx)
{
    long long count, size = 0;
    if (!arg_positive(ctx, 2, &count)) return;
    if (ctx->argc == 5 && !arg_positive(ctx, 4, &size)) return;
    size_t budget = populate_budget();
    if ((unsigned long long)count > budget / 8) {
        reply_error(ctx->reply, "ERR OOM in dictTryExpand");
        return;
    }
    if (size > config.proto_max_bulk_len) {
        reply_error(ctx->reply, "ERR DEBUG POPULATE value size is larger than proto-max-bulk-len");
        return;
    }
    const char *prefix = ctx->argc >= 4 ? ctx->argv[3] : "key";
    size_t prefix_len = ctx->argc >= 4 ? ctx->argv_len[3] : 3;
    long long dirty = keyspace.stats.dirty; /* Redis's populate counts no change */
    struct buf key, val;
    buf_init(&key, prefix_len + 24);
    buf_init(&val, 32); /* a value's room is taken once the budget allows it */
    long long i;
    for (i = 0; i < count; i++) {
        if (xmalloc_used_bytes() + (size_t)size >= budget) break; /* a static read */
        char num[32];
        int nl = snprintf(num, sizeof num, ":%lld", i);
        buf_reset(&key, prefix_len + (size_t)nl);
        buf_append(&key, prefix, prefix_len);
        buf_append(&key, num, (size_t)nl);
        if (db_lookup_write(ctx->db, buf_head(&key), buf_len(&key))) continue;
        char text[40];
        int tl = snprintf(text, sizeof text, "value:%lld", i);
        buf_reset(&val, size ? (size_t)size : (size_t)tl);
        if (size == 0) {
            buf_append(&val, text, (size_t)tl);
        } else {
            size_t keep = (size_t)size < (size_t)tl ? (size_t)size : (size_t)tl;
            buf_reserve_exact(&val, (size_t)size);
            buf_append(&val, text, keep);
            memset(buf_tail(&val), 0, (size_t)size - keep);
            val.end += (size_t)size - keep;
        }
        db_set_string(ctx->db, buf_head(&key), buf_len(&key), buf_head(&val), buf_len(&val),
                      KV_STR_TRY_INT, false);
        db_signal_modified_key(ctx->db, buf_head(&key), buf_len(&key));
    }
    buf_free(&key);
    buf_free(&val);
    keyspace.stats.dirty = dirty;
    if (i < count)
        reply_error_fmt(ctx->reply,
                        "ERR DEBUG POPULATE stopped after %lld keys: used memory reached %s", i,
                        config.maxmemory ? "maxmemory" : "half of the physical memory");
    else
        reply_ok(ctx->reply);
}

/* --- PROTOCOL ------------------------------------------------------------ */

static void debug_protocol(struct cmd_ctx *ctx)
{
    struct reply *r = ctx->reply;
    if (arg_equals(ctx, 2, "string")) {
        reply_bulk_cstr(r, "Hello World");
    } else if (arg_equals(ctx, 2, "integer")) {
        reply_int(r, 12345);
    } else if (arg_equals(ctx, 2, "double")) {
        reply_double(r, 3.141);
    } else if (arg_equals(ctx, 2, "bignum")) {
        reply_big_number(r, "1234567999999999999999999999999999999", 37);
    } else if (arg_equals(ctx, 2, "null")) {
        reply_nil(r);
    } else if (arg_equals(ctx, 2, "array") || arg_equals(ctx, 2, "set")) {
        if (arg_equals(ctx, 2, "array"))
            reply_array_len(r, 3);
        else
            reply_set_len(r, 3);
        for (int j = 0; j < 3; j++) reply_int(r, j);
    } else if (arg_equals(ctx, 2, "map")) {
        reply_map_len(r, 3);
        for (int j = 0; j < 3; j++) {
            reply_int(r, j);
            reply_bool(r, j == 1);
        }
    } else if (arg_equals(ctx, 2, "attrib")) {
        if (reply_attribute_len(r, 1)) { /* RESP3 only */
            reply_bulk_cstr(r, "key-popularity");
            reply_array_len(r, 2);
            reply_bulk_cstr(r, "key:123");
            reply_int(r, 90);
        }
        reply_bulk_cstr(r, "Some real reply following the attribute");
    } else if (arg_equals(ctx, 2, "push")) {
        if (reply_protocol(r) != PROTO_RESP3) {
            reply_error(r, "ERR RESP2 is not supported by this command");
            return;
        }
        reply_push_len(r, 2);
        reply_bulk_cstr(r, "server-cpu-usage");
        reply_int(r, 42);
        reply_bulk_cstr(r, "Some real reply following the push reply");
    } else if (arg_equals(ctx, 2, "true") || arg_equals(ctx, 2, "false")) {
        reply_bool(r, arg_equals(ctx, 2, "true"));
    } else if (arg_equals(ctx, 2, "verbatim")) {
        reply_verbatim(r, "This is a verbatim\nstring", 25, "txt");
    } else {
        reply_error(r, "ERR Wrong protocol type name. Please use one of the following: "
                       "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|"
                       "true|false");
    }
}

/* --- STRINGMATCH-TEST ------------------------------------------------- */

/* Redis's stringmatchlen_fuzz_test: random patterns against random strings
 * through the glob matcher; the reply says it did not crash. */
static void debug_stringmatch_test(struct cmd_ctx *ctx)
{
    char str[32], pat[32];
    for (int i = 0; i < 100000; i++) {
        size_t sl = rand_u64() % sizeof str, pl = rand_u64() % sizeof pat;
        for (size_t j = 0; j < sl; j++) str[j] = (char)(rand_u64() % 128);
        for (size_t j = 0; j < pl; j++) pat[j] = (char)(rand_u64() % 128);
        glob_match(pat, pl, str, sl, false);
        glob_match(pat, pl, str, sl, true);
    }
    reply_status(ctx->reply, "Apparently Redis did not crash: test passed");
}

/* --- HELP and dispatch --------------------------------------------------- */

/* DEBUG REPLYBUFFER PEAK-RESET-TIME <never|reset|ms> | RESIZING <0|1>. */
static void debug_replybuffer(struct cmd_ctx *ctx)
{
    char text[32];
    if (arg_equals(ctx, 2, "peak-reset-time")) {
        long long ms;
        if (arg_equals(ctx, 3, "never"))
            session_reply_buffer.peak_reset_ms = -1;
        else if (arg_equals(ctx, 3, "reset"))
            session_reply_buffer.peak_reset_ms = SESSION_REPLY_PEAK_RESET_DEFAULT_MS;
        else if (arg_to_ll(ctx, 3, &ms))
            session_reply_buffer.peak_reset_ms = ms;
        else
            return;
    } else if (arg_equals(ctx, 2, "resizing")) {
        session_reply_buffer.resizing = atoi(arg_cstr(ctx, 3, text, sizeof text)) != 0;
    } else {
        reply_subcommand_syntax_error(ctx);
        return;
    }
    reply_ok(ctx->reply);
}

static void debug_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANGE-REPL-ID",
        "    Change the replication IDs of the instance.",
        "    Dangerous: should be used only for testing the replication subsystem.",
        "CONFIG-REWRITE-FORCE-ALL",
        "    Like CONFIG REWRITE but writes all configuration options, including",
        "    keywords not listed in original configuration file or default values.",
        "DIGEST",
        "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Output a hex signature of the values of all the specified keys.",
        "LOADAOF",
        "    Flush the AOF buffers on disk and reload the AOF in memory.",
        "LISTPACK <key>",
        "    Show low level info about the listpack encoding of <key>.",
        "OBJECT <key>",
        "    Show low level info about `key` and associated value.",
        "POPULATE <count> [<prefix>] [<size>]",
        "    Create <count> string keys named key:<num>. If <prefix> is specified then",
        "    it is used instead of the 'key' prefix. These are not propagated to",
        "    replicas. Cluster slots are not respected so keys not belonging to the",
        "    current node can be created in cluster mode.",
        "PROTOCOL <type>",
        "    Reply with a test value of the specified type. <type> can be: string,",
        "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
        "    true, false.",
        "QUICKLIST <key> [<0|1>]",
        "    Show low level info about the quicklist encoding of <key>.",
        "    The optional argument (0 by default) sets the level of detail",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Sets the threshold for elements to be inserted as plain vs packed nodes",
        "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
        "PAUSE-CRON <0|1>",
        "    Stop periodic cron job processing.",
        "POLLED-SLEEP-UNTIMED <0|1>",
        "    Asleep with ring or libfabric targets, wait for a client's wake-up only",
        "    (no housekeeping while asleep). goblin-core's, for tests.",
        "REPLICATE <string>",
        "    Replicates the provided string to replicas, allowing data divergence.",
        "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
        "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
        "    In case NEVER is provided the last observed peak will never be reset",
        "    In case RESET is provided the peak reset time will be restored to the default value",
        "REPLYBUFFER RESIZING <0|1>",
        "    Enable or disable the reply buffer resize cron job",
        "RELOAD",
        "    Save the RDB on disk and reload it back to memory.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "STRINGMATCH-TEST",
        "    Run a fuzz tester against the stringmatchlen() function.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

void cmd_debug(struct cmd_ctx *ctx)
{
    char text[64];
    int argc = ctx->argc;
    if (argc == 2 && arg_equals(ctx, 1, "help")) {
        debug_help(ctx);
    } else if (argc == 3 && arg_equals(ctx, 1, "sleep")) {
        debug_sleep(strtod(arg_cstr(ctx, 2, text, sizeof text), NULL));
        reply_ok(ctx->reply);
    } else if (argc >= 2 && arg_equals(ctx, 1, "reload")) {
        bool save = true, flush = true, merge = false;
        for (int j = 2; j < argc; j++) {
            if (arg_equals(ctx, j, "merge")) {
                merge = true;
            } else if (arg_equals(ctx, j, "noflush")) {
                flush = false;
            } else if (arg_equals(ctx, j, "nosave")) {
                save = false;
            } else {
                reply_error(
                    ctx->reply,
                    "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
                return;
            }
        }
        char err[1024];
        if (persist_debug_reload(save, flush, merge, err, sizeof err))
            reply_ok(ctx->reply);
        else
            reply_error(ctx->reply, "ERR Error trying to load the RDB dump");
    } else if (argc == 2 && arg_equals(ctx, 1, "loadaof")) {
        /* Redis exits when the files it just wrote do not load. */
        if (!aof_reload()) {
            log_warning("DEBUG LOADAOF: the append only files do not load; exiting");
            exit(1);
        }
        log_warning("Append Only File loaded by DEBUG LOADAOF");
        reply_ok(ctx->reply);
    } else if (argc == 3 && arg_equals(ctx, 1, "object")) {
        debug_object(ctx);
    } else if (argc == 2 && arg_equals(ctx, 1, "digest")) {
        debug_digest(ctx);
    } else if (arg_equals(ctx, 1, "digest-value")) {
        debug_digest_value(ctx);
    } else if (argc == 3 && arg_equals(ctx, 1, "polled-sleep-untimed")) {
        ev_set_sleep_untimed(atoi(arg_cstr(ctx, 2, text, sizeof text)) != 0);
        reply_ok(ctx->reply);
    } else if (argc == 3 && arg_equals(ctx, 1, "set-disable-deny-scripts")) {
        script_disable_deny_scripts = atoi(arg_cstr(ctx, 2, text, sizeof text)) != 0;
        reply_ok(ctx->reply);
    } else if (argc == 3 && arg_equals(ctx, 1, "pause-cron")) {
        server.cron_paused = atoi(arg_cstr(ctx, 2, text, sizeof text)) != 0;
        reply_ok(ctx->reply);
    } else if (argc == 3 && arg_equals(ctx, 1, "set-active-expire")) {
        keyspace.active_expire_disabled = atoi(arg_cstr(ctx, 2, text, sizeof text)) == 0;
        reply_ok(ctx->reply);
    } else if (argc == 3 && arg_equals(ctx, 1, "quicklist-packed-threshold")) {
        unsigned long long sz;
        if (!num_parse_memory(ctx->argv[2], ctx->argv_len[2], &sz) ||
            !list_set_packed_threshold(sz))
            reply_error(ctx->reply,
                        "ERR argument must be a memory value bigger than 1 and smaller than 4gb");
        else
            reply_ok(ctx->reply);
    } else if (argc == 3 && arg_equals(ctx, 1, "listpack")) {
        debug_listpack(ctx);
    } else if ((argc == 3 || argc == 4) && arg_equals(ctx, 1, "quicklist")) {
        debug_quicklist(ctx);
    } else if (argc >= 3 && argc <= 5 && arg_equals(ctx, 1, "populate")) {
        debug_populate(ctx);
    } else if (argc == 3 && arg_equals(ctx, 1, "protocol")) {
        debug_protocol(ctx);
    } else if (argc == 2 && arg_equals(ctx, 1, "stringmatch-test")) {
        debug_stringmatch_test(ctx);
    } else if (argc >= 3 && arg_equals(ctx, 1, "replicate")) {
        propagate_argv_to_replicas(ctx, argc - 2, (const char *const *)ctx->argv + 2,
                                   ctx->argv_len + 2);
        reply_ok(ctx->reply);
    } else if (argc == 4 && arg_equals(ctx, 1, "replybuffer")) {
        debug_replybuffer(ctx);
    } else if (argc == 2 && arg_equals(ctx, 1, "config-rewrite-force-all")) {
        struct config_error err;
        const char *why = config_rewrite(true, &err);
        if (why)
            reply_error_fmt(ctx->reply, "ERR CONFIG-REWRITE-FORCE-ALL failed: %s",
                            why + (strncmp(why, "ERR ", 4) == 0 ? 4 : 0));
        else
            reply_ok(ctx->reply);
    } else if (argc == 2 && arg_equals(ctx, 1, "change-repl-id")) {
        log_warning("Changing replication IDs after receiving DEBUG change-repl-id");
        server_change_repl_id();
        reply_ok(ctx->reply);
    } else {
        reply_error_fmt(ctx->reply,
                        "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                        "DEBUG HELP.",
                        (int)(ctx->argv_len[1] < 128 ? ctx->argv_len[1] : 128), ctx->argv[1]);
    }
}
