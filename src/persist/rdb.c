/* rdb.c — RDB files and DUMP payloads; see rdb.h. */
#include "persist/rdb.h"
#include "core/config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "persist/crc64.h"
#include "core/version.h"
#include "store/db.h"
#include "store/evict.h"
#include "util/clock.h"
#include "util/rand.h"
#include "util/xmalloc.h"

/* Opcodes (rdb.h, Redis 7.0). */
#define RDB_OPCODE_FUNCTION2 245
#define RDB_OPCODE_FUNCTION_PRE_GA 246
#define RDB_OPCODE_MODULE_AUX 247
#define RDB_OPCODE_IDLE 248
#define RDB_OPCODE_FREQ 249
#define RDB_OPCODE_AUX 250
#define RDB_OPCODE_RESIZEDB 251
#define RDB_OPCODE_EXPIRETIME_MS 252
#define RDB_OPCODE_EXPIRETIME 253
#define RDB_OPCODE_SELECTDB 254
#define RDB_OPCODE_EOF 255

/* --- writing --------------------------------------------------------- */

static void write_aux(struct rdb_writer *w, const char *key, const char *value)
{
    rdbw_u8(w, RDB_OPCODE_AUX);
    rdbw_string(w, key, strlen(key));
    rdbw_string(w, value, strlen(value));
}

static void write_aux_ll(struct rdb_writer *w, const char *key, long long value)
{
    rdbw_u8(w, RDB_OPCODE_AUX);
    rdbw_string(w, key, strlen(key));
    rdbw_string_ll(w, value);
}

/* Redis 7.0's rdbSaveKeyValuePair: the expiry, then under an LRU policy
 * the idle seconds (RDB_OPCODE_IDLE) or under an LFU policy the decayed
 * counter (RDB_OPCODE_FREQ), then the key and value. Other policies
 * (noeviction, *-random, volatile-ttl) write neither, as Redis. */
long long rdb_key_save_delay;
static void debug_delay(long long us);

static void write_key(struct kv *kv, void *arg)
{
    struct rdb_writer *w = arg;
    if (rdb_key_save_delay) debug_delay(rdb_key_save_delay);
    if (kv->expire_ms) {
        rdbw_u8(w, RDB_OPCODE_EXPIRETIME_MS);
        rdbw_u64le(w, (uint64_t)kv->expire_ms);
    }
    enum evict_policy policy = evict_settings.policy;
    if (policy == EVICT_ALLKEYS_LRU || policy == EVICT_VOLATILE_LRU) {
        rdbw_u8(w, RDB_OPCODE_IDLE);
        rdbw_len(w, evict_idle_seconds(kv));
    } else if (evict_settings.lfu) {
        rdbw_u8(w, RDB_OPCODE_FREQ);
        rdbw_u8(w, (uint8_t)evict_lfu_decayed_counter(kv));
    }
    rdb_value_save(w, kv, true);
}

static const struct rdb_function_source *function_source;

bool rdb_filter_keys = true, rdb_filter_functions = true;
bool rdb_load_keep_expired;
bool rdb_load_merge;
void (*rdb_repl_aux)(struct rdb_writer *w);

void rdb_write_aux_field(struct rdb_writer *w, const char *key, const char *value)
{
    write_aux(w, key, value);
}

void rdb_set_function_source(const struct rdb_function_source *source)
{
    function_source = source;
}

const struct rdb_function_source *rdb_function_source(void)
{
    return function_source;
}

void rdb_write_function(struct rdb_writer *w, const char *code, size_t len)
{
    rdbw_u8(w, RDB_OPCODE_FUNCTION2);
    rdbw_string(w, code, len);
}

static void write_function(const char *code, size_t len, void *arg)
{
    rdb_write_function(arg, code, len);
}

bool rdb_write_keyspace(struct rdb_writer *w, bool checksum)
{
    char magic[16];
    snprintf(magic, sizeof magic, "REDIS%04d", RDB_VERSION);
    rdbw_raw(w, magic, 9);
    write_aux(w, "redis-ver", GOBLIN_REDIS_VERSION);
    write_aux_ll(w, "redis-bits", (long long)sizeof(void *) * 8);
    write_aux_ll(w, "ctime", (long long)time(NULL));
    write_aux_ll(w, "used-mem", (long long)xmalloc_used_bytes());
    if (rdb_repl_aux) rdb_repl_aux(w);
    write_aux_ll(w, "aof-base", 0);
    if (function_source && rdb_filter_functions) function_source->foreach (write_function, w);
    for (int i = 0; i < keyspace.count && rdb_filter_keys; i++) {
        struct db *db = keyspace_db(i);
        if (dict_size(&db->keys) == 0) continue;
        rdbw_u8(w, RDB_OPCODE_SELECTDB);
        rdbw_len(w, (uint64_t)i);
        rdbw_u8(w, RDB_OPCODE_RESIZEDB);
        rdbw_len(w, dict_size(&db->keys));
        rdbw_len(w, dict_size(&db->expires));
        db_foreach_key(db, write_key, w);
        if (w->error) return false;
    }
    rdbw_u8(w, RDB_OPCODE_EOF);
    if (!rdbw_flush(w)) return false;
    uint64_t crc = 0;
    if (checksum) crc = w->fd >= 0 ? w->crc : crc64(0, buf_head(&w->buf), buf_len(&w->buf));
    rdbw_u64le(w, crc);
    return rdbw_flush(w);
}

static bool fsync_dir_of(const char *path)
{
    char *copy = xstrdup(path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    xfree(copy);
    if (fd < 0) return false;
    bool ok = fsync(fd) == 0;
    close(fd);
    return ok;
}

bool rdb_save_file(const char *path, const char *tmp_path, bool compress, bool checksum, char *err,
                   size_t err_len)
{
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, err_len, "Failed opening the temp RDB file %s for saving: %s", tmp_path,
                 strerror(errno));
        return false;
    }
    struct rdb_writer w;
    rdbw_init(&w, fd, compress);
    bool ok = rdb_write_keyspace(&w, checksum);
    const char *step = "Write error saving DB on disk";
    int e = w.error;
    if (ok && fsync(fd) != 0) {
        ok = false;
        e = errno;
        step = "fsync of the temp RDB file failed";
    }
    rdbw_free(&w);
    if (close(fd) != 0 && ok) {
        ok = false;
        e = errno;
        step = "close of the temp RDB file failed";
    }
    if (ok && rename(tmp_path, path) != 0) {
        ok = false;
        e = errno;
        step = "Error moving temp DB file on the final destination";
    }
    if (!ok) {
        snprintf(err, err_len, "%s (%s -> %s): %s", step, tmp_path, path, strerror(e));
        unlink(tmp_path);
        return false;
    }
    fsync_dir_of(path); /* the rename is durable once the directory is */
    return true;
}

/* --- loading --------------------------------------------------------- */

/* The key as it may appear in a message: printable bytes, at most 64. */
static void quote_key(const char *key, size_t len, char *out, size_t out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 5 < out_len; i++) {
        unsigned char c = (unsigned char)key[i];
        if (i == 64) {
            o += (size_t)snprintf(out + o, out_len - o, "...");
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '\'')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, out_len - o, "\\x%02x", c);
    }
    out[o] = '\0';
}

struct load_state {
    struct rdb_reader r;
    struct rdb_load_info *info;
    struct db *dbs; /* the databases loaded into (the keyspace's, or a detached set) */
    struct db *db;
    int64_t expire_ms; /* pending EXPIRETIME for the next key, or -1 */
    long long idle_s;  /* pending RDB_OPCODE_IDLE (seconds) for the next key, or -1 */
    long long freq;    /* pending RDB_OPCODE_FREQ for the next key, or -1 */
    int64_t now_ms;
};

static bool load_aux(struct load_state *s)
{
    struct rdb_str k, v;
    if (!rdbr_string(&s->r, &k)) return false;
    if (!rdbr_string(&s->r, &v)) {
        rdb_str_free(&k);
        return false;
    }
    if (k.len == 9 && memcmp(k.ptr, "redis-ver", 9) == 0) {
        size_t n = v.len < sizeof s->info->redis_ver - 1 ? v.len : sizeof s->info->redis_ver - 1;
        memcpy(s->info->redis_ver, v.ptr, n);
        s->info->redis_ver[n] = '\0';
    }
    char num[32];
    size_t n = v.len < sizeof num - 1 ? v.len : sizeof num - 1;
    memcpy(num, v.ptr, n);
    num[n] = '\0';
    if (k.len == 7 && memcmp(k.ptr, "repl-id", 7) == 0 && v.len == 40) {
        memcpy(s->info->repl_id, v.ptr, 40);
        s->info->repl_id[40] = '\0';
    } else if (k.len == 11 && memcmp(k.ptr, "repl-offset", 11) == 0) {
        s->info->repl_offset = strtoll(num, NULL, 10);
    } else if (k.len == 14 && memcmp(k.ptr, "repl-stream-db", 14) == 0) {
        s->info->repl_stream_db = (int)strtol(num, NULL, 10);
    }
    /* Other fields (ctime, used-mem, aof-base, lua scripts) carry
     * nothing this server restores. */
    rdb_str_free(&k);
    rdb_str_free(&v);
    return true;
}

long long rdb_key_load_delay;
bool (*rdb_load_progress)(size_t loaded, size_t total);
long long rdb_load_events_interval = 2 * 1024 * 1024;

/* Redis's debugDelay: us microseconds, or (us < 0) one microsecond once in
 * -us calls. */
static void debug_delay(long long us)
{
    if (us < 0) us = rand_below((uint64_t)-us) == 0 ? 1 : 0;
    if (us) usleep((useconds_t)us);
}

static bool load_key(struct load_state *s, unsigned type)
{
    if (rdb_key_load_delay) debug_delay(rdb_key_load_delay);
    struct rdb_str key;
    size_t at = s->r.pos;
    if (!rdbr_string(&s->r, &key)) return false;
    struct kv *kv;
    enum rdb_load_status st = rdb_value_load(&s->r, type, key.ptr, key.len, &kv);
    char quoted[300];
    if (st == RDB_VALUE_ERROR) {
        quote_key(key.ptr, key.len, quoted, sizeof quoted);
        char why[sizeof s->r.err];
        memcpy(why, s->r.err, sizeof why);
        s->r.err[0] = '\0';
        rdbr_fail(&s->r, "key '%s' (%s, at offset %zu): %s", quoted, rdb_type_name(type), at, why);
        rdb_str_free(&key);
        return false;
    }
    int64_t expire = s->expire_ms;
    long long idle_s = s->idle_s, freq = s->freq;
    s->expire_ms = s->idle_s = s->freq = -1;
    if (st == RDB_VALUE_EMPTY) {
        s->info->keys_empty++;
    } else if (expire >= 0 && expire <= s->now_ms && !rdb_load_keep_expired) {
        s->info->keys_expired++;
        kv_free(kv);
    } else if (rdb_load_merge && db_lookup_quiet(s->db, key.ptr, key.len)) {
        db_replace(s->db, db_lookup_quiet(s->db, key.ptr, key.len), kv, false);
        if (expire >= 0) db_set_expire(s->db, kv, expire);
        evict_restore_stamp(kv, idle_s, freq);
        s->info->keys_loaded++;
    } else if (db_lookup_quiet(s->db, key.ptr, key.len)) {
        quote_key(key.ptr, key.len, quoted, sizeof quoted);
        kv_free(kv);
        rdbr_fail(&s->r, "duplicate key '%s' in database %d", quoted, s->db->id);
    } else {
        db_add(s->db, kv);
        if (expire >= 0) db_set_expire(s->db, kv, expire);
        /* Redis's objectSetLRUOrLFU on load: FREQ under an LFU policy,
         * IDLE under the others; what the policy does not use is dropped. */
        evict_restore_stamp(kv, idle_s, freq);
        s->info->keys_loaded++;
    }
    rdb_str_free(&key);
    return !s->r.err[0];
}

/* A FUNCTION2 record: the library's code, handed to the FUNCTION engine. */
static void load_function(struct load_state *s)
{
    size_t at = s->r.pos - 1;
    struct rdb_str code;
    if (!rdbr_string(&s->r, &code)) return;
    char why[1024];
    if (function_source && !function_source->load(code.ptr, code.len, why, sizeof why))
        rdbr_fail(&s->r, "Failed loading the function library at offset %zu: %s", at, why);
    rdb_str_free(&code);
}

/* The header: "REDIS" and four digits of version. */
static bool load_header(struct load_state *s)
{
    struct rdb_reader *r = &s->r;
    const unsigned char *magic;
    if (!rdbr_bytes(r, 9, &magic)) return false;
    if (memcmp(magic, "REDIS", 5) != 0)
        return rdbr_fail(r, "Wrong signature trying to load DB from file");
    int version = 0;
    for (int i = 5; i < 9; i++) {
        if (magic[i] < '0' || magic[i] > '9')
            return rdbr_fail(r, "Wrong signature trying to load DB from file");
        version = version * 10 + (magic[i] - '0');
    }
    s->info->version = version;
    if (version < 1 || version > RDB_VERSION)
        return rdbr_fail(r, "Can't handle RDB format version %d", version);
    return true;
}

enum load_step { STEP_MORE, STEP_EOF, STEP_FAILED };

/* One record after the header: an opcode and what it carries. Its
 * effects (a key added, a database selected) happen only once the whole
 * record was read, so a streamed load can read it again from its start
 * when the input ran out in its middle. */
static enum load_step load_record(struct load_state *s)
{
    struct rdb_reader *r = &s->r;
    unsigned op;
    uint64_t a, b;
    if (!rdbr_u8(r, &op)) return STEP_FAILED;
    if (op == RDB_OPCODE_EOF) return STEP_EOF;
    switch (op) {
    case RDB_OPCODE_EXPIRETIME: {
        uint32_t secs;
        if (rdbr_u32le(r, &secs)) s->expire_ms = (int64_t)secs * 1000;
        break;
    }
    case RDB_OPCODE_EXPIRETIME_MS:
        if (rdbr_u64le(r, &a)) s->expire_ms = a > INT64_MAX ? INT64_MAX : (int64_t)a;
        break;
    case RDB_OPCODE_FREQ:
        if (rdbr_u8(r, &op)) s->freq = op; /* one byte: 0..255 */
        break;
    case RDB_OPCODE_IDLE:
        /* Beyond LLONG_MAX is not a time (Redis's lru_idle goes
         * negative there and is ignored): ignored too. */
        if (rdbr_len(r, &a, NULL)) s->idle_s = a > LLONG_MAX ? -1 : (long long)a;
        break;
    case RDB_OPCODE_SELECTDB:
        if (!rdbr_len(r, &a, NULL)) break;
        if (a >= (uint64_t)keyspace.count)
            rdbr_fail(r,
                      "FATAL: Data file was created with a Redis server configured to "
                      "handle more than %d databases. Exiting",
                      keyspace.count);
        else
            s->db = &s->dbs[a];
        break;
    case RDB_OPCODE_RESIZEDB:
        /* Presize, trusting the declared count only as far as the
         * bytes left could hold that many keys. */
        if (rdbr_len(r, &a, NULL) && rdbr_len(r, &b, NULL)) {
            dict_reserve(&s->db->keys, a < rdbr_left(r) / 3 ? a : rdbr_left(r) / 3);
            dict_reserve(&s->db->expires, b < rdbr_left(r) / 12 ? b : rdbr_left(r) / 12);
        }
        break;
    case RDB_OPCODE_AUX:
        load_aux(s);
        break;
    case RDB_OPCODE_MODULE_AUX:
        rdbr_fail(r,
                  "the file holds module data (opcode %u at offset %zu), which goblin-core "
                  "cannot load",
                  op, r->pos - 1);
        break;
    case RDB_OPCODE_FUNCTION2:
        load_function(s);
        break;
    case RDB_OPCODE_FUNCTION_PRE_GA:
        rdbr_fail(r, "Pre-GA function format not supported (opcode %u at offset %zu)", op,
                  r->pos - 1);
        break;
    default:
        if (!rdb_type_known(op)) {
            rdbr_fail(r, "unknown opcode or value type %u at offset %zu", op, r->pos - 1);
            break;
        }
        load_key(s, op);
        break;
    }
    return r->err[0] ? STEP_FAILED : STEP_MORE;
}

static void load_state_init(struct load_state *s, struct db *dbs, struct rdb_load_info *info)
{
    memset(s, 0, sizeof *s);
    s->info = info;
    s->dbs = dbs ? dbs : keyspace.dbs;
    s->db = &s->dbs[0];
    s->expire_ms = s->idle_s = s->freq = -1;
    memset(info, 0, sizeof *info);
    info->repl_stream_db = -1;
    s->now_ms = clock_unix_ms();
}

bool rdb_load_buffer(const void *data, size_t len, bool verify_checksum, struct rdb_load_info *info,
                     char *err, size_t err_len)
{
    struct load_state s;
    load_state_init(&s, NULL, info);
    struct rdb_reader *r = &s.r;
    rdbr_init(r, data, len);
    if (!load_header(&s)) {
        snprintf(err, err_len, "%s",
                 r->short_input ? "Wrong signature trying to load DB from file" : r->err);
        return false;
    }
    size_t next_progress = (size_t)rdb_load_events_interval;
    for (;;) {
        if (rdb_load_progress && r->pos >= next_progress) {
            if (!rdb_load_progress(r->pos, len)) {
                rdbr_fail(r, "the load was abandoned (shutdown)");
                break;
            }
            next_progress = r->pos + (size_t)rdb_load_events_interval;
        }
        if (load_record(&s) != STEP_MORE) break;
    }
    if (!r->err[0] && info->version >= 5) {
        size_t covered = r->pos;
        uint64_t stored;
        if (rdbr_u64le(r, &stored) && verify_checksum && stored != 0) {
            uint64_t actual = crc64(0, data, covered);
            if (actual != stored)
                rdbr_fail(r, "Wrong RDB checksum expected: (%016llx) got: (%016llx)",
                          (unsigned long long)stored, (unsigned long long)actual);
            else
                info->checksum_verified = true;
        }
    }
    if (r->err[0]) {
        snprintf(err, err_len, "%s", r->err);
        return false;
    }
    return true;
}

/* A streamed load's input: what is buffered and how much of it is read. */
struct stream_input {
    const struct rdb_load_source *src;
    struct buf buf;    /* bytes received and not yet read */
    size_t consumed;   /* bytes read before buf's head (the RDB offset) */
    uint64_t crc;      /* CRC-64 of those bytes */
    bool ended;        /* the source has no more */
    char src_err[256]; /* why, when it ended on an error */
};

/* Reads one step (fn) from the buffered bytes; when the input ran out in
 * its middle, asks the source for more and reads it again from its
 * start. A retry waits for the buffer to double (or the source to end),
 * so a record of n bytes costs O(n) in all, and memory holds at most
 * about twice the largest record: the source's bytes, never a declared
 * length. */
static bool stream_step(struct load_state *s, struct stream_input *in,
                        bool (*fn)(struct load_state *s, void *arg), void *arg)
{
    size_t want = 0;
    for (;;) {
        /* Wait for one byte more, then take what is already there up to
         * `want`: the end of the input may come sooner. */
        for (bool block = want > 0; buf_len(&in->buf) < want && !in->ended; block = false) {
            size_t had = buf_len(&in->buf);
            if (!in->src->more(in->src->arg, &in->buf, block, in->src_err, sizeof in->src_err))
                in->ended = true;
            else if (!block && buf_len(&in->buf) == had)
                break;
        }
        rdbr_init(&s->r, buf_head(&in->buf), buf_len(&in->buf));
        bool ok = fn(s, arg);
        if (ok || !s->r.short_input || in->ended) return ok;
        size_t have = buf_len(&in->buf);
        want = have < 32 * 1024 ? have + 32 * 1024 : have * 2;
    }
}

static bool step_header(struct load_state *s, void *arg)
{
    (void)arg;
    return load_header(s);
}

static bool step_record(struct load_state *s, void *arg)
{
    return (*(enum load_step *)arg = load_record(s)) != STEP_FAILED;
}

static bool step_checksum(struct load_state *s, void *arg)
{
    return rdbr_u64le(&s->r, (uint64_t *)arg);
}

/* The step just read leaves the buffer (and enters the checksum). */
static void stream_advance(struct load_state *s, struct stream_input *in)
{
    in->crc = crc64(in->crc, buf_head(&in->buf), s->r.pos);
    in->consumed += s->r.pos;
    buf_consume(&in->buf, s->r.pos);
}

bool rdb_load_stream(const struct rdb_load_source *src, struct db *dbs, bool verify_checksum,
                     struct rdb_load_info *info, size_t *trailing, char *err, size_t err_len)
{
    struct load_state s;
    load_state_init(&s, dbs, info);
    struct stream_input in = {.src = src};
    buf_init(&in.buf, 64 * 1024); /* allocated: buf_head is never NULL */
    bool ok = stream_step(&s, &in, step_header, NULL);
    size_t next_progress = (size_t)rdb_load_events_interval;
    while (ok) {
        stream_advance(&s, &in);
        if (rdb_load_progress && in.consumed >= next_progress) {
            if (!rdb_load_progress(in.consumed, 0)) {
                rdbr_fail(&s.r, "the load was abandoned (shutdown)");
                ok = false;
                break;
            }
            next_progress = in.consumed + (size_t)rdb_load_events_interval;
        }
        enum load_step step = STEP_FAILED;
        ok = stream_step(&s, &in, step_record, &step);
        if (ok && step == STEP_EOF) {
            stream_advance(&s, &in);
            break;
        }
    }
    if (ok && info->version >= 5) {
        uint64_t stored = 0;
        uint64_t actual = in.crc;
        ok = stream_step(&s, &in, step_checksum, &stored);
        if (ok) {
            stream_advance(&s, &in);
            if (verify_checksum && stored != 0) {
                if (actual != stored)
                    ok = rdbr_fail(&s.r, "Wrong RDB checksum expected: (%016llx) got: (%016llx)",
                                   (unsigned long long)stored, (unsigned long long)actual);
                else
                    info->checksum_verified = true;
            }
        }
    }
    if (!ok) {
        if (s.r.short_input && in.src_err[0])
            snprintf(err, err_len, "%s", in.src_err);
        else
            snprintf(err, err_len, "%s (at offset %zu of the stream)", s.r.err,
                     in.consumed + (s.r.pos < s.r.len ? s.r.pos : s.r.len));
    }
    if (trailing) *trailing = buf_len(&in.buf);
    buf_free(&in.buf);
    return ok;
}

enum rdb_file_status rdb_load_file(const char *path, bool verify_checksum,
                                   struct rdb_load_info *info, char *err, size_t err_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return RDB_FILE_MISSING;
        snprintf(err, err_len, "cannot open %s: %s", path, strerror(errno));
        return RDB_FILE_ERROR;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, err_len, "cannot stat %s: %s", path, strerror(errno));
        close(fd);
        return RDB_FILE_ERROR;
    }
    if (st.st_size == 0) {
        close(fd);
        snprintf(err, err_len, "%s is empty (Short read or OOM loading DB)", path);
        return RDB_FILE_ERROR;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(err, err_len, "cannot map %s: %s", path, strerror(errno));
        return RDB_FILE_ERROR;
    }
    madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
    char why[512];
    bool ok = rdb_load_buffer(map, (size_t)st.st_size, verify_checksum, info, why, sizeof why);
    munmap(map, (size_t)st.st_size);
    if (!ok) {
        snprintf(err, err_len, "%s: %s", path, why);
        return RDB_FILE_ERROR;
    }
    return RDB_FILE_LOADED;
}

/* --- DUMP / RESTORE payloads ------------------------------------------ */

void rdb_payload_footer(struct rdb_writer *w)
{
    rdbw_u8(w, RDB_VERSION & 0xff);
    rdbw_u8(w, (RDB_VERSION >> 8) & 0xff);
    rdbw_u64le(w, crc64(0, buf_head(&w->buf), buf_len(&w->buf)));
}

void rdb_dump_payload(const struct kv *kv, bool compress, struct buf *out)
{
    struct rdb_writer w;
    rdbw_init(&w, -1, compress);
    rdb_value_save(&w, kv, false);
    rdb_payload_footer(&w);
    buf_append(out, buf_head(&w.buf), buf_len(&w.buf));
    rdbw_free(&w);
}

bool rdb_function_payload_foreach(const void *p, size_t len,
                                  bool (*fn)(const char *code, size_t len, void *arg), void *arg,
                                  char *err, size_t err_len)
{
    struct rdb_reader r;
    rdbr_init(&r, p, len >= 10 ? len - 10 : 0);
    while (rdbr_left(&r) > 0) {
        unsigned type;
        if (!rdbr_u8(&r, &type)) {
            snprintf(err, err_len, "can not read data type");
            return false;
        }
        if (type == RDB_OPCODE_FUNCTION_PRE_GA) {
            snprintf(err, err_len, "Pre-GA function format not supported");
            return false;
        }
        if (type != RDB_OPCODE_FUNCTION2) {
            snprintf(err, err_len, "given type is not a function");
            return false;
        }
        struct rdb_str code;
        if (!rdbr_string(&r, &code)) {
            snprintf(err, err_len, "Failed loading library payload");
            return false;
        }
        bool ok = fn(code.ptr, code.len, arg);
        rdb_str_free(&code);
        if (!ok) return false; /* fn wrote err */
    }
    return true;
}

bool rdb_payload_verify(const void *p, size_t len)
{
    const unsigned char *b = p;
    if (len < 10) return false;
    unsigned version = b[len - 10] | (unsigned)b[len - 9] << 8;
    if (version > RDB_VERSION) return false;
    uint64_t stored = 0;
    for (int i = 7; i >= 0; i--) stored = stored << 8 | b[len - 8 + i];
    return crc64(0, p, len - 8) == stored;
}

bool rdb_payload_decode(const void *p, size_t len, const char *key, size_t key_len, struct kv **out,
                        char *why, size_t why_len)
{
    struct rdb_reader r;
    rdbr_init(&r, p, len - 10);
    unsigned type;
    *out = NULL;
    enum rdb_load_status st = RDB_VALUE_ERROR;
    if (rdbr_u8(&r, &type)) st = rdb_value_load(&r, type, key, key_len, out);
    if (st == RDB_VALUE_OK && rdbr_left(&r) != 0) {
        kv_free(*out);
        *out = NULL;
        rdbr_fail(&r, "%zu bytes after the value", rdbr_left(&r));
        st = RDB_VALUE_ERROR;
    }
    if (st == RDB_VALUE_EMPTY) rdbr_fail(&r, "empty value");
    if (st != RDB_VALUE_OK) {
        snprintf(why, why_len, "%s", r.err);
        return false;
    }
    return true;
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param rdb_params[] = {
    {.name = "key-load-delay",
     .kind = CFG_INT,
     .value = &rdb_key_load_delay,
     .min = INT_MIN,
     .max = INT_MAX,
     .flags = CFG_HIDDEN,
     .value_name = "US",
     .help = "testing: sleep this long after each key an RDB load reads (negative: 1 us once in -N "
             "keys), as Redis (default 0)"},
    {.name = "rdb-key-save-delay",
     .kind = CFG_INT,
     .value = &rdb_key_save_delay,
     .min = INT_MIN,
     .max = INT_MAX,
     .flags = CFG_HIDDEN,
     .value_name = "US",
     .help = "testing: sleep this long before each key an RDB save (or an AOF rewrite's RDB "
             "preamble) writes (negative: 1 us once in -N keys), as Redis (default 0)"},
    {.name = "loading-process-events-interval-bytes",
     .kind = CFG_MEMORY,
     .value = &rdb_load_events_interval,
     .min = 1024,
     .max = INT_MAX,
     .flags = CFG_HIDDEN,
     .value_name = "BYTES",
     .help = "a replica loading its master's RDB serves other clients (-LOADING) each time this "
             "much more of it was read (default 2mb)"},
};

const struct config_table rdb_config = CONFIG_TABLE(rdb_params, NULL);
