/* propagate.c — Redis 7.0's command propagation into the AOF; see propagate.h. */
#include "commands/propagate.h"

#include <stdio.h>
#include <string.h>

#include "commands/command.h"
#include "core/command_hooks.h"
#include "core/propagation.h"
#include "store/db.h"
#include "store/geohash.h"
#include "store/hash.h"
#include "store/list.h"
#include "store/zset.h"
#include "util/numparse.h"
#include "util/buf.h"
#include "util/xmalloc.h"

bool propagate_on;

/* How a leaf write is written. */
enum rule {
    RULE_VERBATIM,
    RULE_EXPIRE,       /* PEXPIREAT key ms, or DEL key */
    RULE_SET,          /* SET key value PXAT ms when an expiry option was given */
    RULE_SETEX,        /* SET key argv[3] PXAT ms */
    RULE_GETEX,        /* PEXPIREAT / PERSIST / DEL */
    RULE_DEL,          /* DEL key (GETDEL) */
    RULE_INCRBYFLOAT,  /* SET key value KEEPTTL */
    RULE_HINCRBYFLOAT, /* HSET key field value */
    RULE_RESTORE,      /* absolute TTL */
    RULE_SPOP,         /* SREM key members (named by the handler) or DEL */
    RULE_BPOP_LEFT,    /* BLPOP: LPOP served-key */
    RULE_BPOP_RIGHT,   /* BRPOP: RPOP served-key */
    RULE_BZPOP_MIN,    /* BZPOPMIN: ZPOPMIN served-key */
    RULE_BZPOP_MAX,    /* BZPOPMAX */
    RULE_LMPOP,        /* LMPOP numkeys key.. LEFT|RIGHT [COUNT c]: [LR]POP key c */
    RULE_BLMPOP,       /* BLMPOP timeout numkeys ... */
    RULE_ZMPOP,        /* ZMPOP numkeys key.. MIN|MAX [COUNT c]: ZPOPMIN/MAX key c */
    RULE_BZMPOP,       /* BZMPOP timeout numkeys ... */
    RULE_BLMOVE,       /* LMOVE src dst from to */
    RULE_BRPOPLPUSH,   /* RPOPLPUSH src dst */
    RULE_MIGRATE,      /* MIGRATE ...: DEL of each key it moved away */
    RULE_GEOADD,       /* zadd key [NX|XX] [CH] score member ... */
    RULE_FORCED,       /* verbatim, even when nothing changed (FLUSHALL/FLUSHDB) */
    RULE_ARBITRARY,    /* reads that may expire any key: their DELs are not a transaction */
};

static const struct {
    const char *name;
    enum rule rule;
} rule_names[] = {
    {"expire", RULE_EXPIRE},
    {"pexpire", RULE_EXPIRE},
    {"expireat", RULE_EXPIRE},
    {"pexpireat", RULE_EXPIRE},
    {"set", RULE_SET},
    {"setex", RULE_SETEX},
    {"psetex", RULE_SETEX},
    {"getex", RULE_GETEX},
    {"getdel", RULE_DEL},
    {"incrbyfloat", RULE_INCRBYFLOAT},
    {"hincrbyfloat", RULE_HINCRBYFLOAT},
    {"restore", RULE_RESTORE},
    {"restore-asking", RULE_RESTORE},
    {"migrate", RULE_MIGRATE},
    {"spop", RULE_SPOP},
    {"blpop", RULE_BPOP_LEFT},
    {"brpop", RULE_BPOP_RIGHT},
    {"bzpopmin", RULE_BZPOP_MIN},
    {"bzpopmax", RULE_BZPOP_MAX},
    {"lmpop", RULE_LMPOP},
    {"blmpop", RULE_BLMPOP},
    {"zmpop", RULE_ZMPOP},
    {"bzmpop", RULE_BZMPOP},
    {"blmove", RULE_BLMOVE},
    {"brpoplpush", RULE_BRPOPLPUSH},
    {"geoadd", RULE_GEOADD},
    /* Redis's forceCommandPropagation: an empty keyspace still flushes
     * the replicas' and the AOF's. */
    {"flushall", RULE_FORCED},
    {"flushdb", RULE_FORCED},
    /* Redis's CMD_TOUCHES_ARBITRARY_KEYS: the keys these lazily expire
     * go out one DEL at a time, as active expiry's do. */
    {"scan", RULE_ARBITRARY},
    {"randomkey", RULE_ARBITRARY},
    {"keys", RULE_ARBITRARY},
};

#define RULES (sizeof rule_names / sizeof rule_names[0])

static struct {
    const struct command *cmds[RULES]; /* resolved when propagation turns on */
    bool resolved;
    long long calls;  /* calls begun */
    int depth;        /* nesting of command_call */
    struct buf ops;   /* pending unit: RESP commands */
    struct buf spans; /* per op: struct op_span */
    struct buf spop;  /* members SPOP named in the running call, as RESP bulks */
    long long spop_count;
    struct propagate_frame *current; /* the innermost call running */
} p;

struct op_span {
    int db;
    enum propagation_target target;
    size_t start, len;
};

static enum rule rule_of(const struct command *cmd)
{
    for (size_t i = 0; i < RULES; i++)
        if (p.cmds[i] == cmd) return rule_names[i].rule;
    return RULE_VERBATIM;
}

/* The listener of core/propagation.h: the stream starts or stops. */
static void propagate_set(bool on)
{
    if (on && !p.resolved) {
        for (size_t i = 0; i < RULES; i++)
            p.cmds[i] = command_lookup(rule_names[i].name, strlen(rule_names[i].name));
        p.resolved = true;
    }
    propagate_on = on;
    keyspace.on_expire = on ? propagate_expired_key : NULL;
    buf_truncate(&p.ops, 0);
    buf_truncate(&p.spans, 0);
    p.depth = 0;
    p.current = NULL;
}

/* --- building ops ------------------------------------------------------- */

static void op_begin(int db, int argc)
{
    struct op_span s = {.db = db, .target = PROPAGATION_ALL, .start = buf_len(&p.ops)};
    buf_append(&p.spans, &s, sizeof s);
    buf_append_fmt(&p.ops, "*%d\r\n", argc);
}

static void op_arg(const char *a, size_t len)
{
    buf_append_fmt(&p.ops, "$%zu\r\n", len);
    buf_append(&p.ops, a, len);
    buf_append(&p.ops, "\r\n", 2);
}

static void op_arg_str(const char *s)
{
    op_arg(s, strlen(s));
}

static void op_arg_ll(long long v)
{
    char tmp[32];
    op_arg(tmp, (size_t)snprintf(tmp, sizeof tmp, "%lld", v));
}

static void op_end(void)
{
    struct op_span *s = (struct op_span *)(buf_tail(&p.spans) - sizeof *s);
    s->len = buf_len(&p.ops) - s->start;
}

static void op_argv(int db, int argc, const char *const *argv, const size_t *len)
{
    op_begin(db, argc);
    for (int i = 0; i < argc; i++) op_arg(argv[i], len[i]);
    op_end();
}

static void op_key(int db, const char *name, const char *key, size_t key_len)
{
    op_begin(db, 2);
    op_arg_str(name);
    op_arg(key, key_len);
    op_end();
}

/* Hands the pending unit to the stream's consumers (core/propagation.h):
 * MULTI/EXEC around more than one op when `transaction`. */
static void flush_unit(bool transaction)
{
    size_t n = buf_len(&p.spans) / sizeof(struct op_span);
    const struct op_span *s = (const struct op_span *)buf_head(&p.spans);
    if (n < 2) transaction = false;
    if (transaction) propagation_feed(s[0].db, "*1\r\n$5\r\nMULTI\r\n", 15, PROPAGATION_ALL);
    for (size_t i = 0; i < n; i++)
        propagation_feed(s[i].db, buf_head(&p.ops) + s[i].start, s[i].len, s[i].target);
    if (transaction) propagation_feed(s[n - 1].db, "*1\r\n$4\r\nEXEC\r\n", 14, PROPAGATION_ALL);
    buf_truncate(&p.ops, 0);
    buf_truncate(&p.spans, 0);
}

void propagate_init(void)
{
    propagation_set_listener(propagate_set);
}

void propagate_expired_key(struct db *db, const char *key, size_t len)
{
    op_key(db->id, "DEL", key, len);
    if (p.depth == 0) flush_unit(false); /* active expiry, outside any command */
}

void propagate_spop_member(struct cmd_ctx *ctx, const char *member, size_t len)
{
    (void)ctx;
    if (!propagate_on) return;
    buf_append_fmt(&p.spop, "$%zu\r\n", len);
    buf_append(&p.spop, member, len);
    buf_append(&p.spop, "\r\n", 2);
    p.spop_count++;
}

/* --- rewrites ----------------------------------------------------------- */

static bool arg_is(const struct cmd_ctx *ctx, int i, const char *word)
{
    return i < ctx->argc && arg_equals(ctx, i, word);
}

/* The first of argc keys from argv[first] that holds a value now (the one
 * a pop serves: Redis serves the first non-empty key in order). */
static int first_present_key(struct cmd_ctx *ctx, int first, long long n)
{
    for (long long i = 0; i < n && first + i < ctx->argc; i++) {
        int k = first + (int)i;
        if (db_lookup_quiet(ctx->db, ctx->argv[k], ctx->argv_len[k])) return k;
    }
    return 0;
}

/* The length of a list or sorted set at argv[i] (0 when gone). */
static long long length_at(struct cmd_ctx *ctx, int i)
{
    struct kv *kv = db_lookup_quiet(ctx->db, ctx->argv[i], ctx->argv_len[i]);
    if (!kv) return 0;
    if (kv->type == OBJ_LIST) return (long long)list_len((const struct list *)kv->v.ptr);
    if (kv->type == OBJ_ZSET) return (long long)zset_len((const struct zset *)kv->v.ptr);
    return 0;
}

static long long numkeys_at(const struct cmd_ctx *ctx, int i)
{
    long long n = 0;
    if (i >= ctx->argc) return 0;
    for (size_t k = 0; k < ctx->argv_len[i]; k++) {
        char c = ctx->argv[i][k];
        if (c < '0' || c > '9' || n > 1000000000) return 0;
        n = n * 10 + (c - '0');
    }
    return n;
}

void propagate_begin(struct propagate_frame *f, struct cmd_ctx *ctx)
{
    f->active = true;
    f->dirty = keyspace.stats.dirty;
    f->signals = keyspace.modified_signals;
    f->calls = p.calls++;
    f->db = ctx->db->id;
    f->served_key = 0;
    f->served_len = 0;
    f->prevented = false;
    f->outer = p.current;
    p.current = f;
    p.depth++;
    if (!(ctx->cmd->flags & CMD_WRITE)) return;
    switch (rule_of(ctx->cmd)) {
    case RULE_BPOP_LEFT:
    case RULE_BPOP_RIGHT:
    case RULE_BZPOP_MIN:
    case RULE_BZPOP_MAX:
        f->served_key = first_present_key(ctx, 1, ctx->argc - 2);
        break;
    case RULE_LMPOP:
    case RULE_ZMPOP:
        f->served_key = first_present_key(ctx, 2, numkeys_at(ctx, 1));
        if (f->served_key) f->served_len = length_at(ctx, f->served_key);
        break;
    case RULE_BLMPOP:
    case RULE_BZMPOP:
        f->served_key = first_present_key(ctx, 3, numkeys_at(ctx, 2));
        if (f->served_key) f->served_len = length_at(ctx, f->served_key);
        break;
    default:
        break;
    }
}

/* [LR]POP / ZPOP{MIN,MAX} key count for the multi-key pops, with the
 * count of elements that went (Redis writes min(COUNT, length)). */
static void op_mpop(struct cmd_ctx *ctx, const struct propagate_frame *f, int dir_at, bool list)
{
    bool first_side = arg_is(ctx, dir_at, list ? "left" : "min");
    const char *name = list ? (first_side ? "LPOP" : "RPOP") : (first_side ? "ZPOPMIN" : "ZPOPMAX");
    op_begin(f->db, 3);
    op_arg_str(name);
    op_arg(ctx->argv[f->served_key], ctx->argv_len[f->served_key]);
    op_arg_ll(f->served_len - length_at(ctx, f->served_key));
    op_end();
}

static void op_pexpireat_or_del(int db, const char *key, size_t key_len, const struct kv *kv)
{
    if (!kv) {
        op_key(db, "DEL", key, key_len);
        return;
    }
    if (!kv->expire_ms) {
        op_key(db, "PERSIST", key, key_len);
        return;
    }
    op_begin(db, 3);
    op_arg_str("PEXPIREAT");
    op_arg(key, key_len);
    op_arg_ll(kv->expire_ms);
    op_end();
}

static void op_set_pxat(int db, const char *key, size_t key_len, const char *val, size_t val_len,
                        const struct kv *kv)
{
    if (!kv) {
        op_key(db, "DEL", key, key_len);
        return;
    }
    op_begin(db, 5);
    op_arg_str("SET");
    op_arg(key, key_len);
    op_arg(val, val_len);
    op_arg_str("PXAT");
    op_arg_ll(kv->expire_ms);
    op_end();
}

static bool set_has_expiry(const struct cmd_ctx *ctx)
{
    for (int i = 3; i < ctx->argc; i++)
        if (arg_is(ctx, i, "ex") || arg_is(ctx, i, "px") || arg_is(ctx, i, "exat") ||
            arg_is(ctx, i, "pxat"))
            return true;
    return false;
}

static void op_spop(int db, const char *key, size_t key_len)
{
    if (p.spop_count == 0) {
        op_key(db, "DEL", key, key_len); /* every member went at once */
        return;
    }
    op_begin(db, (int)(p.spop_count + 2));
    op_arg_str("SREM");
    op_arg(key, key_len);
    buf_append(&p.ops, buf_head(&p.spop), buf_len(&p.spop));
    op_end();
}

/* GEOADD as the ZADD Redis turns it into: its options, then each
 * member's geohash score (the coordinates were valid: it wrote). */
static void op_geoadd(struct cmd_ctx *ctx, int db)
{
    int first = 2;
    while (first < ctx->argc &&
           (arg_is(ctx, first, "nx") || arg_is(ctx, first, "xx") || arg_is(ctx, first, "ch")))
        first++;
    int elements = (ctx->argc - first) / 3;
    op_begin(db, first + 2 * elements);
    op_arg_str("zadd");
    for (int i = 1; i < first; i++) op_arg(ctx->argv[i], ctx->argv_len[i]);
    for (int j = 0; j < elements; j++) {
        int i = first + 3 * j;
        double lon = 0, lat = 0;
        num_parse_double(ctx->argv[i], ctx->argv_len[i], &lon);
        num_parse_double(ctx->argv[i + 1], ctx->argv_len[i + 1], &lat);
        op_arg_ll((long long)geo_score_of(lon, lat));
        op_arg(ctx->argv[i + 2], ctx->argv_len[i + 2]);
    }
    op_end();
}

static void op_rewritten(struct cmd_ctx *ctx, const struct propagate_frame *f)
{
    int db = f->db;
    const char **argv = ctx->argv;
    const size_t *len = ctx->argv_len;
    struct db *d = keyspace_db(db);
    enum rule rule = rule_of(ctx->cmd);
    struct kv *kv = NULL;
    if (rule != RULE_VERBATIM && ctx->argc > 1) kv = db_lookup_quiet(d, argv[1], len[1]);
    switch (rule) {
    case RULE_VERBATIM:
    case RULE_FORCED:
    case RULE_ARBITRARY:
        break;
    case RULE_EXPIRE:
    case RULE_GETEX:
        op_pexpireat_or_del(db, argv[1], len[1], kv);
        return;
    case RULE_SET:
        if (!set_has_expiry(ctx)) break;
        op_set_pxat(db, argv[1], len[1], argv[2], len[2], kv);
        return;
    case RULE_SETEX:
        op_set_pxat(db, argv[1], len[1], argv[3], len[3], kv);
        return;
    case RULE_DEL:
        op_key(db, "DEL", argv[1], len[1]);
        return;
    case RULE_INCRBYFLOAT:
        if (kv && kv->type == OBJ_STRING) {
            struct strview v;
            kv_string_view(kv, &v);
            op_begin(db, 4);
            op_arg_str("SET");
            op_arg(argv[1], len[1]);
            op_arg(v.ptr, v.len);
            op_arg_str("KEEPTTL");
            op_end();
            return;
        }
        break;
    case RULE_HINCRBYFLOAT: {
        const char *v;
        size_t vlen;
        if (kv && kv->type == OBJ_HASH &&
            hash_get((struct hash *)kv->v.ptr, argv[2], len[2], &v, &vlen)) {
            op_begin(db, 4);
            op_arg_str("HSET");
            op_arg(argv[1], len[1]);
            op_arg(argv[2], len[2]);
            op_arg(v, vlen);
            op_end();
            return;
        }
        break;
    }
    case RULE_RESTORE: {
        bool absttl = false;
        for (int i = 4; i < ctx->argc; i++) absttl |= arg_is(ctx, i, "absttl");
        if (!kv) {
            op_key(db, "DEL", argv[1], len[1]);
            return;
        }
        if (absttl || !kv->expire_ms) break;
        op_begin(db, ctx->argc + 1);
        for (int i = 0; i < ctx->argc; i++) {
            if (i == 2)
                op_arg_ll(kv->expire_ms);
            else
                op_arg(argv[i], len[i]);
        }
        op_arg_str("ABSTTL");
        op_end();
        return;
    }
    case RULE_SPOP:
        op_spop(db, argv[1], len[1]);
        return;
    case RULE_BPOP_LEFT:
    case RULE_BPOP_RIGHT:
    case RULE_BZPOP_MIN:
    case RULE_BZPOP_MAX: {
        static const char *const names[] = {"LPOP", "RPOP", "ZPOPMIN", "ZPOPMAX"};
        if (!f->served_key) return; /* nothing served (its key expired, say) */
        op_key(db, names[rule - RULE_BPOP_LEFT], argv[f->served_key], len[f->served_key]);
        return;
    }
    case RULE_LMPOP:
    case RULE_ZMPOP:
    case RULE_BLMPOP:
    case RULE_BZMPOP: {
        if (!f->served_key) return;
        bool blocking = rule == RULE_BLMPOP || rule == RULE_BZMPOP;
        int dir_at = (blocking ? 3 : 2) + (int)numkeys_at(ctx, blocking ? 2 : 1);
        op_mpop(ctx, f, dir_at, rule == RULE_LMPOP || rule == RULE_BLMPOP);
        return;
    }
    case RULE_BLMOVE:
        op_begin(db, 5);
        op_arg_str("LMOVE");
        for (int i = 1; i <= 4; i++) op_arg(argv[i], len[i]);
        op_end();
        return;
    case RULE_MIGRATE: {
        /* Never replay a transfer: what left this server is deleted. */
        int pos[256];
        int n = command_key_positions(ctx->cmd, ctx->argc, argv, len, pos, 256);
        for (int i = 0; i < n; i++)
            if (!db_lookup_quiet(ctx->db, argv[pos[i]], len[pos[i]]))
                op_key(db, "DEL", argv[pos[i]], len[pos[i]]);
        return;
    }
    case RULE_GEOADD:
        op_geoadd(ctx, db);
        return;
    case RULE_BRPOPLPUSH:
        op_begin(db, 3);
        op_arg_str("RPOPLPUSH");
        op_arg(argv[1], len[1]);
        op_arg(argv[2], len[2]);
        op_end();
        return;
    }
    op_argv(db, ctx->argc, argv, len);
}

void propagate_prevent(struct cmd_ctx *ctx)
{
    (void)ctx;
    if (propagate_on && p.current) p.current->prevented = true;
}

void propagate_command(struct cmd_ctx *ctx, int argc, const char *const *argv, const size_t *len)
{
    if (!propagate_on || !p.current) return;
    (void)ctx;
    op_argv(p.current->db, argc, argv, len);
}

void propagate_to_replicas(struct cmd_ctx *ctx)
{
    propagate_argv_to_replicas(ctx, ctx->argc, (const char *const *)ctx->argv, ctx->argv_len);
}

void propagate_argv_to_replicas(struct cmd_ctx *ctx, int argc, const char *const *argv,
                                const size_t *len)
{
    (void)ctx;
    if (!propagate_on || !p.current || !propagation_feeds_replicas()) return;
    op_argv(p.current->db, argc, argv, len);
    struct op_span *s = (struct op_span *)(buf_tail(&p.spans) - sizeof *s);
    s->target = PROPAGATION_REPLICAS;
}

void propagate_end(struct propagate_frame *f, struct cmd_ctx *ctx)
{
    if (p.current == f) p.current = f->outer;
    if (!f->active || !propagate_on) return; /* (turned off meanwhile: nothing pending) */
    bool leaf = p.calls == f->calls + 1;
    bool wrote = keyspace.stats.dirty != f->dirty || keyspace.modified_signals != f->signals ||
                 (leaf && rule_of(ctx->cmd) == RULE_FORCED);
    if (leaf && wrote && !f->prevented && (ctx->cmd->flags & CMD_WRITE)) op_rewritten(ctx, f);
    if (leaf) { /* SPOP's members belong to this call only */
        buf_truncate(&p.spop, 0);
        p.spop_count = 0;
    }
    if (p.depth > 0) p.depth--;
    if (p.depth == 0 && buf_len(&p.spans)) flush_unit(rule_of(ctx->cmd) != RULE_ARBITRARY);
}
