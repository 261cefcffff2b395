/* aof.c — the append-only file: files, writing, fsync, rewrite; see aof.h. */
#include "persist/aof.h"
#include "persist/aof_rewrite.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/propagation.h"
#include "persist/aof_load.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/latency.h"
#include "store/db.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define PATH_LEN 4096
#define MANIFEST_LINE_MAX 1024
/* After a failed rewrite, automatic ones wait this long (Redis's
 * AOF_REWRITE_RETRY delay for the consecutive-failure case is similar). */
#define REWRITE_RETRY_DELAY_S 5

enum aof_state { AOF_OFF, AOF_ON, AOF_WAIT_REWRITE };

struct aof_file {
    char *name;
    long long seq;
    char type; /* 'b' base, 'h' history, 'i' incr */
};

struct manifest {
    struct aof_file base; /* name NULL: none */
    struct aof_file *incr, *hist;
    int nincr, nhist;
    long long base_seq, incr_seq; /* highest used */
};

static size_t aof_buffered; /* bytes waiting to be written */

static struct {
    enum aof_state state;
    bool started; /* aof_startup ran: configuration changes act */
    struct manifest m;
    int fd;                 /* the incr file being appended, or -1 */
    struct buf buf;         /* written before the next reply */
    int selected_db;        /* SELECT last written to the incr file, -1: none */
    long long incr_size;    /* bytes in the open incr file */
    long long current_size; /* base + every incr file */
    long long base_size;    /* current_size after the last rewrite or load */
    long long synced_size;  /* incr_size at the last fsync request */
    int64_t last_fsync_ms;  /* everysec: when the last fsync was requested */
    int64_t last_ts_s;      /* aof-timestamp-enabled: last annotation */
    bool write_ok;          /* aof_last_write_status */
    int write_errno;
    /* rewrite */
    pid_t child;
    const char *child_base_kind; /* "base.rdb" or "base.aof": what the child writes */
    int child_pipe;
    int64_t child_start_us;
    bool scheduled;
    bool last_rewrite_ok;
    long long rewrites, consecutive_failures;
    long long last_rewrite_time_s;
    long long last_cow_bytes;
    int64_t last_try_s;
    char *pending_incr; /* WAIT_REWRITE: the incr file opened, not yet in a manifest */
} a = {.fd = -1,
       .selected_db = -1,
       .write_ok = true,
       .last_rewrite_ok = true,
       .last_rewrite_time_s = -1,
       .child_pipe = -1};

/* --- background fsync thread (Redis's bio) ------------------------------ */

enum bio_kind { BIO_FSYNC, BIO_CLOSE };

#define BIO_QUEUE 64

static struct {
    pthread_t thread;
    bool running;
    pthread_mutex_t lock;
    pthread_cond_t wake, drained;
    struct {
        enum bio_kind kind;
        int fd;
    } jobs[BIO_QUEUE];
    int head, count;
    atomic_int pending_fsyncs; /* aof_pending_bio_fsync */
    atomic_int fsync_errno;    /* last background fsync error, 0 = fine */
} bio = {.lock = PTHREAD_MUTEX_INITIALIZER,
         .wake = PTHREAD_COND_INITIALIZER,
         .drained = PTHREAD_COND_INITIALIZER};

static void *bio_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals are the server thread's */
    pthread_mutex_lock(&bio.lock);
    for (;;) {
        while (bio.count == 0) pthread_cond_wait(&bio.wake, &bio.lock);
        enum bio_kind kind = bio.jobs[bio.head].kind;
        int fd = bio.jobs[bio.head].fd;
        pthread_mutex_unlock(&bio.lock);
        /* Outside the lock: the server thread only queues. */
        int rc = fdatasync(fd);
        if (kind == BIO_FSYNC) {
            /* relaxed: the value is a status for INFO/MISCONF, it orders nothing */
            atomic_store_explicit(&bio.fsync_errno, rc == 0 ? 0 : errno, memory_order_relaxed);
            atomic_fetch_sub_explicit(&bio.pending_fsyncs, 1, memory_order_relaxed);
        } else {
            close(fd);
        }
        pthread_mutex_lock(&bio.lock);
        bio.head = (bio.head + 1) % BIO_QUEUE;
        bio.count--;
        if (bio.count == 0) pthread_cond_broadcast(&bio.drained);
    }
    return NULL;
}

static void bio_submit(enum bio_kind kind, int fd)
{
    if (!bio.running) {
        if (pthread_create(&bio.thread, NULL, bio_main, NULL) != 0) {
            /* No thread: do it here rather than lose it. */
            fdatasync(fd);
            if (kind == BIO_CLOSE) close(fd);
            return;
        }
        bio.running = true;
    }
    pthread_mutex_lock(&bio.lock);
    while (bio.count == BIO_QUEUE) pthread_cond_wait(&bio.drained, &bio.lock);
    int slot = (bio.head + bio.count) % BIO_QUEUE;
    bio.jobs[slot].kind = kind;
    bio.jobs[slot].fd = fd;
    bio.count++;
    if (kind == BIO_FSYNC) atomic_fetch_add_explicit(&bio.pending_fsyncs, 1, memory_order_relaxed);
    pthread_cond_signal(&bio.wake);
    pthread_mutex_unlock(&bio.lock);
}

/* Waits for every queued job (shutdown, turning the AOF off). */
static void bio_drain(void)
{
    if (!bio.running) return;
    pthread_mutex_lock(&bio.lock);
    while (bio.count) pthread_cond_wait(&bio.drained, &bio.lock);
    pthread_mutex_unlock(&bio.lock);
}

/* --- names and paths ---------------------------------------------------- */

const char *aof_validate_filename(const char *text)
{
    /* Redis refuses paths; names needing quotes in the manifest are refused
     * too (goblin-core writes manifest names unquoted). */
    if (!*text || strcmp(text, ".") == 0 || strcmp(text, "..") == 0)
        return "appendfilename can't be empty, '.' or '..'";
    for (const char *c = text; *c; c++)
        if (*c == '/' || *c == '\\' || *c == '"' || *c == '\'' || (unsigned char)*c <= ' ')
            return "appendfilename can't be a path or contain spaces or quotes, just a filename";
    return NULL;
}

const char *aof_validate_dirname(const char *text)
{
    if (aof_validate_filename(text))
        return "appenddirname can't be a path or contain spaces or quotes, just a directory name";
    return NULL;
}

static void dir_path(char *out, size_t len)
{
    size_t d = strlen(config.dir);
    snprintf(out, len, "%s%s%s", config.dir, d && config.dir[d - 1] == '/' ? "" : "/",
             config.appenddirname);
}

static void file_path(char *out, size_t len, const char *name)
{
    size_t d = strlen(config.dir);
    int n = snprintf(out, len, "%s%s%s/%s", config.dir, d && config.dir[d - 1] == '/' ? "" : "/",
                     config.appenddirname, name);
    if (n < 0 || (size_t)n >= len) out[0] = '\0'; /* too long: opening "" fails, and says so */
}

static char *file_name(long long seq, const char *kind)
{
    char name[PATH_LEN];
    snprintf(name, sizeof name, "%s.%lld.%s", config.appendfilename, seq, kind);
    return xstrdup(name);
}

static long long size_of(const char *name)
{
    char path[PATH_LEN];
    struct stat sb;
    file_path(path, sizeof path, name);
    return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

static void fsync_dir(void)
{
    char dir[PATH_LEN];
    dir_path(dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* --- manifest ----------------------------------------------------------- */

static void manifest_clear(struct manifest *m)
{
    xfree(m->base.name);
    for (int i = 0; i < m->nincr; i++) xfree(m->incr[i].name);
    for (int i = 0; i < m->nhist; i++) xfree(m->hist[i].name);
    xfree(m->incr);
    xfree(m->hist);
    memset(m, 0, sizeof *m);
}

static void manifest_push(struct aof_file **list, int *n, char *name, long long seq, char type)
{
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[*n] = (struct aof_file){.name = name, .seq = seq, .type = type};
    ++*n;
}

static void manifest_format(const struct manifest *m, struct buf *out)
{
    if (m->base.name) buf_append_fmt(out, "file %s seq %lld type b\n", m->base.name, m->base.seq);
    for (int i = 0; i < m->nhist; i++)
        buf_append_fmt(out, "file %s seq %lld type h\n", m->hist[i].name, m->hist[i].seq);
    for (int i = 0; i < m->nincr; i++)
        buf_append_fmt(out, "file %s seq %lld type i\n", m->incr[i].name, m->incr[i].seq);
}

/* Parses one manifest line's "key value" pairs. False with *why. */
static bool manifest_parse_line(char *line, struct manifest *m, const char **why)
{
    char *name = NULL, *tok, *save = NULL;
    long long seq = -1;
    char type = 0;
    int words = 0;
    for (tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        char *value = strtok_r(NULL, " \t\r\n", &save);
        words += 2;
        if (!value) break;
        if (strcmp(tok, "file") == 0)
            name = value;
        else if (strcmp(tok, "seq") == 0)
            seq = strtoll(value, NULL, 10);
        else if (strcmp(tok, "type") == 0)
            type = value[0];
    }
    if (words < 6 || !name || seq <= 0 || !type || (words & 1)) {
        *why = "Invalid AOF manifest file format";
        return false;
    }
    if (aof_validate_filename(name)) {
        *why = "a file name in the manifest is not a plain file name";
        return false;
    }
    switch (type) {
    case 'b':
        if (m->base.name) {
            *why = "Found duplicate base file information";
            return false;
        }
        m->base = (struct aof_file){.name = xstrdup(name), .seq = seq, .type = 'b'};
        if (seq > m->base_seq) m->base_seq = seq;
        return true;
    case 'h':
        manifest_push(&m->hist, &m->nhist, xstrdup(name), seq, 'h');
        return true;
    case 'i':
        if (seq <= m->incr_seq) {
            *why = "Found a non-monotonic sequence number";
            return false;
        }
        manifest_push(&m->incr, &m->nincr, xstrdup(name), seq, 'i');
        m->incr_seq = seq;
        return true;
    default:
        *why = "Unknown AOF file type";
        return false;
    }
}

enum manifest_status { MANIFEST_LOADED, MANIFEST_MISSING, MANIFEST_ERROR };

static enum manifest_status manifest_load(struct manifest *m)
{
    char path[PATH_LEN], name[PATH_LEN];
    snprintf(name, sizeof name, "%s.manifest", config.appendfilename);
    file_path(path, sizeof path, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return MANIFEST_MISSING;
        log_warning("Fail to open AOF manifest %s: %s", path, strerror(errno));
        return MANIFEST_ERROR;
    }
    char line[MANIFEST_LINE_MAX + 2];
    const char *why = NULL;
    int lines = 0;
    while (!why && fgets(line, sizeof line, f)) {
        if (!strchr(line, '\n') && !feof(f)) {
            why = "The AOF manifest file contains too long line";
            break;
        }
        if (line[0] == '#') continue;
        if (line[0] == '\n' || line[0] == '\0') continue;
        lines++;
        manifest_parse_line(line, m, &why);
    }
    fclose(f);
    if (!why && lines == 0) why = "Found an empty AOF manifest";
    if (why) {
        log_warning("%s (%s)", why, path);
        manifest_clear(m);
        return MANIFEST_ERROR;
    }
    return MANIFEST_LOADED;
}

/* Replaces the manifest atomically. False with errno's reason logged. */
static bool manifest_persist(const struct manifest *m)
{
    char path[PATH_LEN], tmp[PATH_LEN], name[PATH_LEN];
    snprintf(name, sizeof name, "%s.manifest", config.appendfilename);
    file_path(path, sizeof path, name);
    snprintf(name, sizeof name, "temp-%s.manifest", config.appendfilename);
    file_path(tmp, sizeof tmp, name);
    struct buf text;
    buf_init(&text, 256);
    manifest_format(m, &text);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    size_t off = 0;
    while (ok && off < buf_len(&text)) {
        ssize_t n = write(fd, buf_head(&text) + off, buf_len(&text) - off);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) off += (size_t)n;
    }
    if (ok) ok = fsync(fd) == 0;
    if (fd >= 0) close(fd);
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        log_warning("Can't persist the AOF manifest %s: %s", path, strerror(errno));
        unlink(tmp);
    } else {
        fsync_dir();
    }
    buf_free(&text);
    return ok;
}

/* --- loading ------------------------------------------------------------ */

static bool load_aof_file(const char *name, bool last, long long *commands)
{
    char path[PATH_LEN], err[1024];
    file_path(path, sizeof path, name);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        log_warning("The AOF file %s doesn't exist or can't be opened: %s", path, strerror(errno));
        return false;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        log_warning("Unable to stat the AOF file %s: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    size_t len = (size_t)sb.st_size;
    if (len == 0) {
        close(fd);
        return true;
    }
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        log_warning("Unable to map the AOF file %s: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    size_t valid = 0;
    enum aof_load_status s = aof_load_buffer(map, len, name, &valid, commands, err, sizeof err);
    munmap(map, len);
    bool ok = s == AOF_LOAD_OK;
    if (s == AOF_LOAD_ERROR) log_warning("%s", err);
    if (s == AOF_LOAD_TRUNCATED) {
        if (!last) {
            log_warning("Fatal error: the truncated file %s is not the last file", name);
        } else if (!config.aof_load_truncated) {
            log_warning("Unexpected end of file reading the append only file %s. You can: 1) "
                        "Make a backup of your AOF file, then use ./redis-check-aof --fix "
                        "<filename.manifest>. 2) Alternatively you can set the "
                        "'aof-load-truncated' configuration option to yes and restart the server.",
                        name);
        } else {
            log_warning("!!! Warning: short read while loading the AOF file %s!!!", name);
            log_warning("!!! Truncating the AOF %s at offset %zu !!!", name, valid);
            if (ftruncate(fd, (off_t)valid) != 0) {
                log_warning("Error truncating the AOF file %s: %s", name, strerror(errno));
            } else {
                log_warning("AOF %s loaded anyway because aof-load-truncated is enabled", name);
                ok = true;
            }
        }
    }
    close(fd);
    return ok;
}

static bool load_base(const char *name, long long *keys)
{
    char path[PATH_LEN], head[5] = {0}, err[1024];
    file_path(path, sizeof path, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        log_warning("The AOF file %s doesn't exist: %s", path, strerror(errno));
        return false;
    }
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got == 5 && memcmp(head, "REDIS", 5) == 0) {
        struct rdb_load_info info;
        if (rdb_load_file(path, config.rdbchecksum, &info, err, sizeof err) != RDB_FILE_LOADED) {
            log_warning("Bad base file %s: %s", name, err);
            return false;
        }
        *keys = info.keys_loaded;
        return true;
    }
    return load_aof_file(name, false, keys);
}

static bool load_files(void)
{
    int64_t start = clock_mono_us();
    long long base_keys = 0, commands = 0;
    if (a.m.base.name && !load_base(a.m.base.name, &base_keys)) return false;
    for (int i = 0; i < a.m.nincr; i++) {
        long long n = 0;
        if (!load_aof_file(a.m.incr[i].name, i == a.m.nincr - 1, &n)) return false;
        commands += n;
    }
    log_notice("DB loaded from append only file: %.3f seconds (base %s: %lld keys; %d incr "
               "files: %lld commands)",
               (double)(clock_mono_us() - start) / 1e6, a.m.base.name ? a.m.base.name : "none",
               base_keys, a.m.nincr, commands);
    return true;
}

/* Deletes the files marked history and writes the manifest without them
 * (as Redis 7.0's aofDelHistoryFiles; a crash in between leaves "type h"
 * lines, which loading ignores). */
static void delete_history(void)
{
    if (a.m.nhist == 0) return;
    for (int i = 0; i < a.m.nhist; i++) {
        char path[PATH_LEN];
        file_path(path, sizeof path, a.m.hist[i].name);
        if (unlink(path) == 0 || errno == ENOENT)
            log_notice("Removing the history file %s", a.m.hist[i].name);
        xfree(a.m.hist[i].name);
    }
    a.m.nhist = 0;
    manifest_persist(&a.m);
}

/* --- the incr file ------------------------------------------------------ */

static int open_incr(const char *name)
{
    char path[PATH_LEN];
    file_path(path, sizeof path, name);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) log_warning("Can't open the append-only file %s: %s", path, strerror(errno));
    return fd;
}

/* Hands the open incr file to the background thread (fsync, close). */
static void retire_fd(void)
{
    if (a.fd < 0) return;
    bio_submit(BIO_CLOSE, a.fd);
    a.fd = -1;
}

static void use_incr(int fd, long long size)
{
    retire_fd();
    a.fd = fd;
    a.incr_size = a.synced_size = size;
    a.selected_db = -1; /* a new file starts with SELECT */
}

/* The kind of base aof-use-rdb-preamble asks for: an RDB file, or
 * commands (aof_rewrite.h); named for it. */
static const char *base_kind(void)
{
    return config.aof_use_rdb_preamble ? "base.rdb" : "base.aof";
}

static bool write_base(const char *path, const char *tmp, char *err, size_t err_len)
{
    if (config.aof_use_rdb_preamble)
        return rdb_save_file(path, tmp, config.rdbcompression, config.rdbchecksum, err, err_len);
    return aof_rewrite_commands_file(path, tmp, err, err_len);
}

/* Writes a base of the current keyspace synchronously (a fresh AOF). */
static bool write_base_now(const char *name)
{
    char path[PATH_LEN], tmp[PATH_LEN], err[1024], tname[64];
    file_path(path, sizeof path, name);
    snprintf(tname, sizeof tname, "temp-rewriteaof-%d.aof", (int)getpid());
    file_path(tmp, sizeof tmp, tname);
    if (!write_base(path, tmp, err, sizeof err)) {
        log_warning("Can't write the AOF base %s: %s", name, err);
        return false;
    }
    return true;
}

static bool ensure_dir(void)
{
    char dir[PATH_LEN];
    dir_path(dir, sizeof dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        log_warning("Can't create the append-only dir %s: %s", dir, strerror(errno));
        return false;
    }
    return true;
}

/* The AOF consumes the propagated stream (core/propagation.h). */
static void turn_on(void)
{
    propagation_add_consumer(aof_append, false);
}

bool aof_startup(void)
{
    a.started = true;
    if (!config.appendonly) {
        /* Known even when off: a later rewrite continues its numbering. */
        if (manifest_load(&a.m) == MANIFEST_ERROR) manifest_clear(&a.m);
        return true;
    }
    if (!ensure_dir()) return false;
    enum manifest_status ms = manifest_load(&a.m);
    if (ms == MANIFEST_ERROR) return false;
    if (ms == MANIFEST_LOADED && !load_files()) return false;
    if (!a.m.base.name && a.m.nincr == 0) {
        /* A fresh AOF: its base is what is in memory now (empty), as Redis 7.0. */
        char *name = file_name(++a.m.base_seq, base_kind());
        if (!write_base_now(name)) {
            xfree(name);
            return false;
        }
        a.m.base = (struct aof_file){.name = name, .seq = a.m.base_seq, .type = 'b'};
    }
    if (a.m.nincr == 0) {
        long long seq = ++a.m.incr_seq;
        manifest_push(&a.m.incr, &a.m.nincr, file_name(seq, "incr.aof"), seq, 'i');
    }
    const char *incr = a.m.incr[a.m.nincr - 1].name;
    int fd = open_incr(incr);
    if (fd < 0) return false;
    if (!manifest_persist(&a.m)) {
        close(fd);
        return false;
    }
    delete_history();
    use_incr(fd, size_of(incr));
    a.current_size = a.m.base.name ? size_of(a.m.base.name) : 0;
    for (int i = 0; i < a.m.nincr; i++) a.current_size += size_of(a.m.incr[i].name);
    a.base_size = a.current_size;
    a.state = AOF_ON;
    turn_on();
    return true;
}

/* --- writing ------------------------------------------------------------ */

void aof_append(int db, const char *resp, size_t len)
{
    if (a.state == AOF_OFF) return;
    if (config.aof_timestamp_enabled) {
        int64_t now_s = clock_unix_ms() / 1000;
        if (now_s != a.last_ts_s) {
            buf_append_fmt(&a.buf, "#TS:%lld\r\n", (long long)now_s);
            a.last_ts_s = now_s;
        }
    }
    if (db != a.selected_db) {
        char digits[16];
        int n = snprintf(digits, sizeof digits, "%d", db);
        buf_append_fmt(&a.buf, "*2\r\n$6\r\nSELECT\r\n$%d\r\n%s\r\n", n, digits);
        a.selected_db = db;
    }
    buf_append(&a.buf, resp, len);
    aof_buffered = buf_len(&a.buf);
    ev_pass_request(EV_PASS_FLUSH); /* before this pass's replies (aof.h) */
}

static void fsync_if_due(bool force)
{
    if (a.fd < 0 || a.synced_size == a.incr_size) return;
    if (strcmp(config.appendfsync, "always") == 0) {
        int64_t start = latency_enabled() ? clock_mono_us() : 0;
        int rc = fdatasync(a.fd);
        if (start) latency_consider("aof-fsync-always", clock_mono_us() - start);
        if (rc != 0) {
            log_warning("Can't persist AOF for fsync error when the AOF fsync policy is "
                        "'always': %s. Exiting...",
                        strerror(errno));
            exit(1);
        }
        a.synced_size = a.incr_size;
        a.last_fsync_ms = clock_unix_ms();
        return;
    }
    if (strcmp(config.appendfsync, "everysec") != 0) return;
    int64_t now = clock_unix_ms();
    if (!force && now - a.last_fsync_ms < 1000) return;
    if (!force && atomic_load_explicit(&bio.pending_fsyncs, memory_order_relaxed) > 0) return;
    bio_submit(BIO_FSYNC, a.fd);
    a.synced_size = a.incr_size;
    a.last_fsync_ms = now;
}

void aof_flush_buffer(void)
{
    if (a.fd < 0 || buf_len(&a.buf) == 0) return;
    size_t off = 0, len = buf_len(&a.buf);
    int64_t start = latency_enabled() ? clock_mono_us() : 0;
    while (off < len) {
        ssize_t n = write(a.fd, buf_head(&a.buf) + off, len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            if (strcmp(config.appendfsync, "always") == 0) {
                log_warning("Can't recover from AOF write error when the AOF fsync policy is "
                            "'always': %s. Exiting...",
                            strerror(e));
                exit(1);
            }
            /* Take a partial command back so the file ends on a boundary. */
            if (off && ftruncate(a.fd, (off_t)a.incr_size) == 0) off = 0;
            a.incr_size += (long long)off;
            a.current_size += (long long)off;
            buf_consume(&a.buf, off);
            aof_buffered = buf_len(&a.buf);
            if (a.write_ok) log_warning("Error writing to the AOF file: %s", strerror(e));
            a.write_ok = false;
            a.write_errno = e;
            return;
        }
        off += (size_t)n;
    }
    if (start) latency_consider("aof-write", clock_mono_us() - start);
    a.incr_size += (long long)len;
    a.current_size += (long long)len;
    buf_truncate(&a.buf, 0);
    if (a.buf.cap > 1 << 20) buf_reset(&a.buf, 4096);
    aof_buffered = 0;
    if (!a.write_ok) {
        log_warning("AOF write error looks solved, Redis can write again.");
        a.write_ok = true;
    }
    fsync_if_due(false);
}

const char *aof_write_error(void)
{
    static char text[256];
    if (a.state == AOF_OFF) return NULL;
    int e =
        a.write_ok ? atomic_load_explicit(&bio.fsync_errno, memory_order_relaxed) : a.write_errno;
    if (!e) return NULL;
    snprintf(text, sizeof text, "MISCONF Errors writing to the AOF file: %s", strerror(e));
    return text;
}

bool aof_reload(void)
{
    bool on = a.state != AOF_OFF;
    if (on) {
        aof_flush_buffer();
        fsync_if_due(true);
    } else {
        manifest_clear(&a.m);
        if (manifest_load(&a.m) == MANIFEST_ERROR) return false;
    }
    keyspace_flush_all();
    const struct rdb_function_source *fs = rdb_function_source();
    if (fs) fs->flush();
    /* What the replay runs is not written again. */
    bool propagating = propagation_has_consumer(aof_append);
    if (propagating) propagation_remove_consumer(aof_append);
    bool ok = load_files();
    if (propagating) propagation_add_consumer(aof_append, false);
    keyspace.stats.dirty = 0;
    return ok;
}

/* --- rewrite ------------------------------------------------------------ */

static void rewrite_temp_path(char *out, size_t len, pid_t pid)
{
    size_t d = strlen(config.dir);
    snprintf(out, len, "%s%stemp-rewriteaof-bg-%d.aof", config.dir,
             d && config.dir[d - 1] == '/' ? "" : "/", (int)pid);
}

static void child_main(int pipe_fd)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    char path[PATH_LEN], tmp[PATH_LEN], err[1024];
    rewrite_temp_path(path, sizeof path, getpid());
    bool ok = snprintf(tmp, sizeof tmp, "%s.tmp", path) < (int)sizeof tmp;
    ok = ok && write_base(path, tmp, err, sizeof err);
    if (!ok) log_warning("AOF rewrite failed: %s", err);
    long long cow = persist_private_dirty_bytes();
    ssize_t w = write(pipe_fd, &cow, sizeof cow);
    (void)w;
    _exit(ok ? 0 : 1);
}

/* The next incr file, opened before the fork: from now on writes go there. */
static bool open_next_incr(void)
{
    char *name = file_name(a.m.incr_seq + 1, "incr.aof");
    int fd = open_incr(name);
    if (fd < 0) {
        xfree(name);
        return false;
    }
    if (a.state == AOF_ON) {
        manifest_push(&a.m.incr, &a.m.nincr, name, a.m.incr_seq + 1, 'i');
        a.m.incr_seq++;
        if (!manifest_persist(&a.m)) {
            a.m.nincr--;
            a.m.incr_seq--;
            xfree(name);
            close(fd);
            return false;
        }
    } else {
        /* Turning on: the manifest is written once the base exists. */
        if (a.pending_incr) {
            char path[PATH_LEN];
            file_path(path, sizeof path, a.pending_incr);
            unlink(path);
            xfree(a.pending_incr);
        }
        a.pending_incr = name;
        a.m.incr_seq++;
    }
    use_incr(fd, 0);
    return true;
}

enum aof_rewrite_result aof_bgrewrite(void)
{
    if (a.child) return AOF_REWRITE_IN_PROGRESS;
    if (persist_bgsave_in_progress()) {
        a.scheduled = true;
        return AOF_REWRITE_SCHEDULED;
    }
    a.last_try_s = clock_unix_ms() / 1000;
    if (a.state != AOF_OFF) {
        aof_flush_buffer();
        fsync_if_due(true);
    }
    if (!ensure_dir() || (a.state != AOF_OFF && !open_next_incr())) {
        a.last_rewrite_ok = false;
        a.consecutive_failures++;
        return AOF_REWRITE_FAILED;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        log_warning("Can't rewrite append only file in background: pipe: %s", strerror(errno));
        a.last_rewrite_ok = false;
        return AOF_REWRITE_FAILED;
    }
    int64_t start = clock_mono_us();
    pid_t pid = fork();
    if (pid < 0) {
        log_warning("Can't rewrite append only file in background: fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        a.last_rewrite_ok = false;
        a.consecutive_failures++;
        return AOF_REWRITE_FAILED;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1]);
    }
    close(fds[1]);
    a.child = pid;
    a.child_base_kind = base_kind(); /* what the child writes, whatever changes meanwhile */
    a.child_pipe = fds[0];
    a.child_start_us = start;
    a.scheduled = false;
    latency_record_fork(clock_mono_us() - start);
    log_notice("Background append only file rewriting started by pid %d (fork took %lld us)",
               (int)pid, (long long)(clock_mono_us() - start));
    return AOF_REWRITE_STARTED;
}

void aof_schedule_rewrite(void)
{
    a.scheduled = true;
    a.consecutive_failures = 0;
}

bool aof_rewrite_in_progress(void)
{
    return a.child != 0;
}

static void rewrite_done(int status)
{
    long long cow = 0;
    if (read(a.child_pipe, &cow, sizeof cow) == (ssize_t)sizeof cow) a.last_cow_bytes = cow;
    close(a.child_pipe);
    a.child_pipe = -1;
    a.last_rewrite_time_s = (clock_mono_us() - a.child_start_us) / 1000000;
    char tmp[PATH_LEN];
    rewrite_temp_path(tmp, sizeof tmp, a.child);
    a.child = 0;
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok) {
        char *base = file_name(a.m.base_seq + 1, a.child_base_kind);
        char path[PATH_LEN];
        file_path(path, sizeof path, base);
        struct manifest next = {0};
        if (rename(tmp, path) != 0) {
            log_warning("Error trying to rename the temporary AOF base file %s into %s: %s", tmp,
                        base, strerror(errno));
            xfree(base);
            ok = false;
        } else {
            /* The new set: the new base and the incr file opened at fork. */
            next.base = (struct aof_file){.name = base, .seq = a.m.base_seq + 1, .type = 'b'};
            next.base_seq = next.base.seq;
            next.incr_seq = a.m.incr_seq;
            if (a.m.base.name)
                manifest_push(&next.hist, &next.nhist, xstrdup(a.m.base.name), a.m.base.seq, 'h');
            /* Every incr file before the one opened at fork is history. */
            int keep = a.state == AOF_ON ? a.m.nincr - 1 : a.m.nincr;
            for (int i = 0; i < keep; i++)
                manifest_push(&next.hist, &next.nhist, xstrdup(a.m.incr[i].name), a.m.incr[i].seq,
                              'h');
            if (a.state == AOF_ON)
                manifest_push(&next.incr, &next.nincr, xstrdup(a.m.incr[a.m.nincr - 1].name),
                              a.m.incr[a.m.nincr - 1].seq, 'i');
            else if (a.state == AOF_WAIT_REWRITE)
                manifest_push(&next.incr, &next.nincr, xstrdup(a.pending_incr), a.m.incr_seq, 'i');
            if (!manifest_persist(&next)) {
                manifest_clear(&next);
                unlink(path);
                ok = false;
            }
        }
        if (ok) {
            manifest_clear(&a.m);
            a.m = next;
            delete_history();
            xfree(a.pending_incr);
            a.pending_incr = NULL;
            a.current_size = size_of(a.m.base.name) + a.incr_size;
            a.base_size = a.current_size;
            if (a.state == AOF_WAIT_REWRITE) {
                a.state = AOF_ON;
                log_notice("AOF rewrite done: the append only file is on");
            }
            log_notice("Background AOF rewrite finished successfully");
            a.rewrites++;
            a.consecutive_failures = 0;
            a.last_rewrite_ok = true;
            return;
        }
    }
    unlink(tmp);
    if (WIFSIGNALED(status))
        log_warning("Background AOF rewrite terminated by signal %d", WTERMSIG(status));
    else
        log_warning("Background AOF rewrite terminated with error");
    a.last_rewrite_ok = false;
    a.consecutive_failures++;
    if (a.state == AOF_WAIT_REWRITE) a.scheduled = true; /* turning on keeps trying */
}

static void kill_child(void)
{
    if (!a.child) return;
    kill(a.child, SIGKILL);
    int status;
    waitpid(a.child, &status, 0);
    char tmp[PATH_LEN];
    rewrite_temp_path(tmp, sizeof tmp, a.child);
    unlink(tmp);
    strncat(tmp, ".tmp", sizeof tmp - strlen(tmp) - 1);
    unlink(tmp);
    close(a.child_pipe);
    a.child_pipe = -1;
    a.child = 0;
}

static bool growth_reached(void)
{
    if (a.state != AOF_ON || !config.auto_aof_rewrite_percentage) return false;
    if (a.current_size < config.auto_aof_rewrite_min_size) return false;
    long long base = a.base_size ? a.base_size : 1;
    long long growth = (a.current_size * 100 / base) - 100;
    if (growth < config.auto_aof_rewrite_percentage) return false;
    if (!a.last_rewrite_ok && clock_unix_ms() / 1000 - a.last_try_s < REWRITE_RETRY_DELAY_S)
        return false;
    log_notice("Starting automatic rewriting of AOF on %lld%% growth", growth);
    return true;
}

void aof_housekeeping(void)
{
    if (a.child) {
        int status;
        if (waitpid(a.child, &status, WNOHANG) == a.child) rewrite_done(status);
    }
    if (a.state == AOF_OFF) return;
    aof_flush_buffer();
    fsync_if_due(false);
    if (!a.child && !persist_bgsave_in_progress() && (a.scheduled || growth_reached()))
        aof_bgrewrite();
}

/* --- on and off --------------------------------------------------------- */

static void stop(void)
{
    aof_flush_buffer();
    fsync_if_due(true);
    kill_child();
    retire_fd();
    bio_drain();
    if (a.pending_incr) {
        char path[PATH_LEN];
        file_path(path, sizeof path, a.pending_incr);
        unlink(path);
        xfree(a.pending_incr);
        a.pending_incr = NULL;
    }
    buf_truncate(&a.buf, 0);
    aof_buffered = 0;
    a.state = AOF_OFF;
    a.scheduled = false;
    propagation_remove_consumer(aof_append);
    log_notice("The append only file is off");
}

void aof_apply_appendonly(void)
{
    if (!a.started) return; /* startup reads the setting itself */
    if (!config.appendonly && a.state != AOF_OFF) {
        stop();
        return;
    }
    if (config.appendonly && a.state == AOF_OFF) {
        /* Redis's startAppendOnly: a rewrite writes the base; writes from
         * now on go to the incr file opened for it. */
        manifest_clear(&a.m);
        if (manifest_load(&a.m) == MANIFEST_ERROR) manifest_clear(&a.m);
        a.state = AOF_WAIT_REWRITE;
        turn_on();
        enum aof_rewrite_result r = aof_bgrewrite();
        if (r == AOF_REWRITE_FAILED) {
            log_warning("Redis needs to enable the AOF but can't trigger a background AOF "
                        "rewrite operation. Check the above logs for more info about the error.");
            a.scheduled = true;
        }
    }
}

bool aof_shutdown(bool force)
{
    if (a.child) {
        if (a.state == AOF_WAIT_REWRITE) {
            /* The AOF being written is the only one: exiting would lose the data. */
            if (!force) {
                log_warning("Writing initial AOF, can't exit.");
                return false;
            }
            log_warning("Writing initial AOF. Exit anyway.");
        }
        log_warning("There is a child rewriting the AOF. Killing it!");
        kill_child();
    }
    if (a.state == AOF_OFF) return true;
    log_notice("Calling fsync() on the AOF file.");
    aof_flush_buffer();
    if (a.fd >= 0 && fdatasync(a.fd) != 0) log_warning("Fail to fsync the AOF file: %m.");
    bio_drain();
    return true;
}

/* --- INFO --------------------------------------------------------------- */

void aof_info(struct buf *b)
{
    long long current_rewrite = a.child ? (clock_mono_us() - a.child_start_us) / 1000000 : -1;
    buf_append_fmt(b, "aof_enabled:%d\r\n", a.state != AOF_OFF);
    buf_append_fmt(b, "aof_rewrite_in_progress:%d\r\n", a.child != 0);
    buf_append_fmt(b, "aof_rewrite_scheduled:%d\r\n", a.scheduled);
    buf_append_fmt(b, "aof_last_rewrite_time_sec:%lld\r\n", a.last_rewrite_time_s);
    buf_append_fmt(b, "aof_current_rewrite_time_sec:%lld\r\n", current_rewrite);
    buf_append_fmt(b, "aof_last_bgrewrite_status:%s\r\n", a.last_rewrite_ok ? "ok" : "err");
    buf_append_fmt(b, "aof_rewrites:%lld\r\n", a.rewrites);
    buf_append_fmt(b, "aof_rewrites_consecutive_failures:%lld\r\n", a.consecutive_failures);
    buf_append_fmt(b, "aof_last_write_status:%s\r\n", aof_write_error() ? "err" : "ok");
    buf_append_fmt(b, "aof_last_cow_size:%lld\r\n", a.last_cow_bytes);
    buf_append_fmt(b, "module_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n");
    if (a.state == AOF_OFF) return;
    buf_append_fmt(b, "aof_current_size:%lld\r\n", a.current_size + (long long)buf_len(&a.buf));
    buf_append_fmt(b, "aof_base_size:%lld\r\n", a.base_size);
    buf_append_fmt(b, "aof_pending_rewrite:%d\r\n", a.scheduled);
    buf_append_fmt(b, "aof_buffer_length:%zu\r\n", buf_len(&a.buf));
    buf_append_fmt(b, "aof_pending_bio_fsync:%d\r\n",
                   atomic_load_explicit(&bio.pending_fsyncs, memory_order_relaxed));
    buf_append_fmt(b, "aof_delayed_fsync:0\r\n");
}

size_t aof_buffer_bytes(void)
{
    return a.state == AOF_OFF ? 0 : a.buf.cap;
}

static const char *const fsync_policies[] = {"always", "everysec", "no", NULL};

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param aof_params[] = {
    {.name = "appendonly",
     .kind = CFG_BOOL,
     .value = &config.appendonly,
     .value_name = "yes|no",
     .help = "append-only file (Redis 7 multi-part layout); CONFIG SET yes starts a rewrite "
             "(default no)",
     .apply = aof_apply_appendonly},
    {.name = "appendfsync",
     .kind = CFG_ENUM,
     .value = &config.appendfsync,
     .value_name = "always|everysec|no",
     .help = "fsync of the append-only file: before replies, once a second (background thread), or "
             "by the kernel (default everysec)",
     .choices = fsync_policies},
    {.name = "appendfilename",
     .kind = CFG_STRING,
     .value = &config.appendfilename,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "NAME",
     .help = "base name of the append-only files (default appendonly.aof)",
     .validate = aof_validate_filename},
    {.name = "appenddirname",
     .kind = CFG_STRING,
     .value = &config.appenddirname,
     .flags = CFG_IMMUTABLE | CFG_REDIS_IMMUTABLE,
     .value_name = "NAME",
     .help = "directory of the append-only files, in --dir (default appendonlydir)",
     .validate = aof_validate_dirname},
    {.name = "auto-aof-rewrite-percentage",
     .kind = CFG_INT,
     .value = &config.auto_aof_rewrite_percentage,
     .max = INT_MAX,
     .value_name = "PERCENT",
     .help = "BGREWRITEAOF when the AOF grew this much since the last rewrite; 0 = never (default "
             "100)"},
    {.name = "auto-aof-rewrite-min-size",
     .kind = CFG_MEMORY,
     .value = &config.auto_aof_rewrite_min_size,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help = "no automatic rewrite below this AOF size (default 64mb)"},
    {.name = "aof-load-truncated",
     .kind = CFG_BOOL,
     .value = &config.aof_load_truncated,
     .value_name = "yes|no",
     .help = "at start, drop a command cut short at the end of the AOF (yes) or refuse to start "
             "(default yes)"},
    {.name = "aof-use-rdb-preamble",
     .kind = CFG_BOOL,
     .value = &config.aof_use_rdb_preamble,
     .value_name = "yes|no",
     .help = "AOF bases (rewrites) are RDB files; no: commands, as Redis writes a .base.aof"},
    {.name = "aof-timestamp-enabled",
     .kind = CFG_BOOL,
     .value = &config.aof_timestamp_enabled,
     .value_name = "yes|no",
     .help = "write #TS:<unix time> annotations into the AOF (default no)"},
};

const struct config_table aof_config = CONFIG_TABLE(aof_params, NULL);
