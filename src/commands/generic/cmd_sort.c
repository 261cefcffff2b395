/* cmd_sort.c — SORT and SORT_RO over lists, sets and sorted sets, with
 * Redis 7.0's options (BY, LIMIT, GET, ASC/DESC, ALPHA), "*" and "->"
 * patterns, ordering rules and errors; SORT ... STORE stores the result
 * as a list (a set sorted without BY is then sorted ALPHA, as Redis does so
 * that the stored order is deterministic; so is a set sorted from a script). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands/command.h"
#include "commands/typed_args.h"
#include "store/hash.h"
#include "store/list.h"
#include "store/set.h"
#include "store/zset.h"
#include "util/xmalloc.h"

struct sort_item {
    char *elem; /* NUL-terminated copy */
    size_t len;
    double score;
    char *cmp; /* ALPHA BY: the BY value (NUL-terminated copy), or NULL */
};

struct sort_spec {
    bool desc, alpha, by_pattern;
};

/* The value a pattern names for one element: "#" is the element itself;
 * "prefix*suffix" a string key, "prefix*suffix->field" a hash field; NULL
 * when there is no '*', no such key or field, or a key of another type.
 * The returned bytes are copied into *out (caller frees). */
static bool pattern_lookup(struct cmd_ctx *ctx, const char *pat, size_t pat_len, const char *elem,
                           size_t elem_len, char **out, size_t *out_len)
{
    if (pat_len == 1 && pat[0] == '#') {
        *out = xmalloc(elem_len + 1);
        memcpy(*out, elem, elem_len);
        (*out)[elem_len] = '\0';
        *out_len = elem_len;
        return true;
    }
    /* Redis reads the pattern as a C string: it ends at a NUL byte. */
    size_t plen = strnlen(pat, pat_len);
    const char *star = memchr(pat, '*', plen);
    if (!star) return false;
    const char *arrow = NULL;
    for (const char *q = star + 1; q + 1 < pat + plen; q++)
        if (q[0] == '-' && q[1] == '>') {
            arrow = q;
            break;
        }
    if (arrow && arrow + 2 == pat + plen) arrow = NULL; /* "->" with no field */
    size_t prefix = (size_t)(star - pat);
    size_t suffix = (size_t)((arrow ? arrow : pat + plen) - (star + 1));
    size_t key_len = prefix + elem_len + suffix;
    char *key = xmalloc(key_len + 1);
    memcpy(key, pat, prefix);
    memcpy(key + prefix, elem, elem_len);
    memcpy(key + prefix + elem_len, star + 1, suffix);
    struct kv *kv = db_lookup_read(ctx->db, key, key_len);
    xfree(key);
    const char *v = NULL;
    size_t vlen = 0;
    struct strview view;
    if (!kv) return false;
    if (arrow) {
        if (kv->type != OBJ_HASH) return false;
        const char *field = arrow + 2;
        if (!hash_get(kv->v.ptr, field, (size_t)(pat + plen - field), &v, &vlen)) return false;
    } else {
        if (kv->type != OBJ_STRING) return false;
        kv_string_view(kv, &view);
        v = view.ptr;
        vlen = view.len;
    }
    *out = xmalloc(vlen + 1);
    memcpy(*out, v, vlen);
    (*out)[vlen] = '\0';
    *out_len = vlen;
    return true;
}

static int binary_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

static const struct sort_spec *cmp_spec;

static int sort_cmp(const void *x, const void *y)
{
    const struct sort_item *a = x, *b = y;
    int cmp;
    if (!cmp_spec->alpha) {
        if (a->score > b->score)
            cmp = 1;
        else if (a->score < b->score)
            cmp = -1;
        else
            cmp = binary_cmp(a->elem, a->len, b->elem, b->len);
    } else if (cmp_spec->by_pattern) {
        if (!a->cmp || !b->cmp)
            cmp = a->cmp == b->cmp ? 0 : a->cmp ? 1 : -1;
        else
            cmp = strcoll(a->cmp, b->cmp);
    } else {
        cmp = strcoll(a->elem, b->elem);
    }
    return cmp_spec->desc ? -cmp : cmp;
}

struct loader {
    struct sort_item *items;
    size_t n;
};

static void load(struct loader *l, const char *m, size_t len)
{
    struct sort_item *it = &l->items[l->n++];
    it->elem = xmalloc(len + 1);
    memcpy(it->elem, m, len);
    it->elem[len] = '\0';
    it->len = len;
    it->score = 0;
    it->cmp = NULL;
}

static bool load_member(const char *m, size_t len, void *arg)
{
    load(arg, m, len);
    return true;
}

static bool load_scored(const char *m, size_t len, double score, void *arg)
{
    (void)score;
    load(arg, m, len);
    return true;
}

/* Loads `count` elements of list l from index `from`, towards the head
 * when reverse. */
static void load_list(struct loader *ld, struct list *l, size_t from, size_t count, bool reverse)
{
    if (count == 0) return;
    struct list_iter it;
    list_iter_init(&it, l, from, reverse);
    struct strview v;
    while (count-- > 0 && list_iter_next(&it, &v)) load(ld, v.ptr, v.len);
    list_iter_release(&it);
}

/* Stable merge sort (glibc's qsort is one: equal elements keep their order). */
static void stable_sort(struct sort_item *v, size_t n)
{
    if (n < 2) return;
    struct sort_item *tmp = xmalloc(n * sizeof *tmp);
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n,
                   hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = sort_cmp(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
            while (i < mid) tmp[k++] = v[i++];
            while (j < hi) tmp[k++] = v[j++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
    xfree(tmp);
}

static void sort_generic(struct cmd_ctx *ctx, bool readonly)
{
    struct sort_spec spec = {0};
    long long limit_start = 0, limit_count = -1;
    const char *by = NULL;
    size_t by_len = 0;
    bool dontsort = false;
    int store_i = 0;
    int *gets = xmalloc(sizeof(int) * (size_t)ctx->argc);
    size_t ngets = 0;
    struct sort_item *items = NULL;
    size_t n = 0;
    for (int j = 2; j < ctx->argc; j++) {
        int left = ctx->argc - j - 1;
        if (arg_equals(ctx, j, "asc")) {
            spec.desc = false;
        } else if (arg_equals(ctx, j, "desc")) {
            spec.desc = true;
        } else if (arg_equals(ctx, j, "alpha")) {
            spec.alpha = true;
        } else if (arg_equals(ctx, j, "limit") && left >= 2) {
            if (!arg_to_ll(ctx, j + 1, &limit_start) || !arg_to_ll(ctx, j + 2, &limit_count))
                goto out;
            j += 2;
        } else if (!readonly && arg_equals(ctx, j, "store") && left >= 1) {
            store_i = ++j;
        } else if (arg_equals(ctx, j, "by") && left >= 1) {
            by = ctx->argv[j + 1];
            by_len = ctx->argv_len[j + 1];
            dontsort = memchr(by, '*', strnlen(by, by_len)) == NULL;
            j++;
        } else if (arg_equals(ctx, j, "get") && left >= 1) {
            gets[ngets++] = ++j;
        } else {
            reply_error_syntax(ctx->reply);
            goto out;
        }
    }
    struct kv *kv = db_lookup_read(ctx->db, ctx->argv[1], ctx->argv_len[1]);
    if (kv && kv->type != OBJ_SET && kv->type != OBJ_ZSET && kv->type != OBJ_LIST) {
        reply_error_wrongtype(ctx->reply);
        goto out;
    }
    size_t len = !kv                    ? 0
                 : kv->type == OBJ_SET  ? set_len(kv->v.ptr)
                 : kv->type == OBJ_LIST ? list_len(kv->v.ptr)
                                        : zset_len(kv->v.ptr);
    if (kv && kv->type == OBJ_ZSET) zset_convert_to_index(kv->v.ptr);
    if (dontsort && (store_i || ctx->script_caller) && kv && kv->type == OBJ_SET) {
        /* A set's own order is not deterministic: STORE, and a script (its
         * effects are replicated), sort it ALPHA, as Redis. */
        dontsort = false;
        spec.alpha = true;
        by = NULL;
    }
    long long vlen = (long long)len;
    /* Redis's clamps: both within the length first, so a huge LIMIT
     * cannot overflow start + count. */
    long long start = limit_start < 0 ? 0 : limit_start < vlen ? limit_start : vlen;
    if (limit_count > vlen) limit_count = vlen;
    long long end = limit_count < 0 ? vlen - 1 : start + limit_count - 1;
    if (start >= vlen) {
        start = vlen - 1;
        end = vlen - 2;
    }
    if (end >= vlen) end = vlen - 1;
    struct loader l = {xmalloc(sizeof(struct sort_item) * (len ? len : 1)), 0};
    if (kv && kv->type == OBJ_SET) {
        set_foreach(kv->v.ptr, load_member, &l);
    } else if (kv && kv->type == OBJ_LIST && dontsort) {
        /* A list not sorted: its own order (DESC: from the tail), the LIMIT range only. */
        if (end >= start)
            load_list(&l, kv->v.ptr, spec.desc ? len - 1 - (size_t)start : (size_t)start,
                      (size_t)(end - start + 1), spec.desc);
        end -= start;
        start = 0;
    } else if (kv && kv->type == OBJ_LIST) {
        load_list(&l, kv->v.ptr, 0, len, false);
    } else if (kv && dontsort) {
        /* A sorted set not sorted again: its own order, the LIMIT range only. */
        if (end >= start) {
            /* DESC counts the LIMIT from the highest rank. */
            size_t first = spec.desc ? len - 1 - (size_t)end : (size_t)start;
            size_t last = spec.desc ? len - 1 - (size_t)start : (size_t)end;
            zset_visit_ranks(kv->v.ptr, first, last + 1, spec.desc, load_scored, &l);
        }
        end -= start;
        start = 0;
    } else if (kv) {
        zset_visit_ranks(kv->v.ptr, 0, len, false, load_scored, &l);
    }
    items = l.items;
    n = l.n;
    bool conversion_error = false;
    if (!dontsort) {
        spec.by_pattern = by != NULL;
        for (size_t j = 0; j < n; j++) {
            char *val = items[j].elem;
            size_t val_len = items[j].len;
            char *looked = NULL;
            if (by) {
                if (!pattern_lookup(ctx, by, by_len, items[j].elem, items[j].len, &looked,
                                    &val_len))
                    continue;
                val = looked;
            }
            if (spec.alpha) {
                items[j].cmp = looked;
                continue;
            }
            char *endp;
            errno = 0;
            items[j].score = strtod(val, &endp);
            if (*endp != '\0' || errno == ERANGE || isnan(items[j].score)) conversion_error = true;
            xfree(looked);
        }
        cmp_spec = &spec;
        stable_sort(items, n);
    }
    if (conversion_error) {
        reply_error(ctx->reply, "ERR One or more scores can't be converted into double");
        goto out;
    }
    long long count = end >= start ? end - start + 1 : 0;
    struct list *stored = store_i ? list_new() : NULL;
    if (!stored) reply_array_len(ctx->reply, ngets ? (long long)ngets * count : count);
    for (long long j = start; j <= end; j++) {
        const struct sort_item *it = &items[j];
        if (!ngets) {
            if (stored)
                list_push(stored, LIST_TAIL, it->elem, it->len);
            else
                reply_bulk(ctx->reply, it->elem, it->len);
        }
        for (size_t g = 0; g < ngets; g++) {
            char *v;
            size_t vl;
            bool found = pattern_lookup(ctx, ctx->argv[gets[g]], ctx->argv_len[gets[g]], it->elem,
                                        it->len, &v, &vl);
            if (stored) /* a missing value is stored as an empty string */
                list_push(stored, LIST_TAIL, found ? v : "", found ? vl : 0);
            else if (found)
                reply_bulk(ctx->reply, v, vl);
            else
                reply_nil(ctx->reply);
            if (found) xfree(v);
        }
    }
    if (stored) {
        size_t stored_len = list_len(stored);
        store_container_result(ctx, store_i, OBJ_LIST, ENC_QUICKLIST, stored, stored_len);
        if (stored_len == 0) list_free(stored);
        /* Redis counts one change per element stored (the store counted one). */
        if (stored_len > 1) keyspace.stats.dirty += (long long)stored_len - 1;
    }
out:
    for (size_t j = 0; j < n; j++) {
        xfree(items[j].elem);
        xfree(items[j].cmp);
    }
    xfree(items);
    xfree(gets);
}

static void cmd_sort(struct cmd_ctx *ctx)
{
    sort_generic(ctx, false);
}

static void cmd_sort_ro(struct cmd_ctx *ctx)
{
    sort_generic(ctx, true);
}

struct command sort_commands[] = {
    {.name = "sort",
     .arity = -2,
     .flags = CMD_WRITE | CMD_DENYOOM,
     .fn = cmd_sort,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Sorts the elements in a list, a set, or a sorted set, optionally storing the "
                "result.",
     .since = "1.0.0",
     .group = "generic",
     .complexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, "
                   "and M the number of returned elements. When the elements are not sorted, "
                   "complexity is O(N)."},
    {.name = "sort_ro",
     .arity = -2,
     .flags = CMD_READONLY,
     .fn = cmd_sort_ro,
     .first_key = 1,
     .last_key = 1,
     .key_step = 1,
     .summary = "Returns the sorted elements of a list, a set, or a sorted set.",
     .since = "7.0.0",
     .group = "generic",
     .complexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, "
                   "and M the number of returned elements. When the elements are not sorted, "
                   "complexity is O(N)."},
    COMMAND_END,
};
