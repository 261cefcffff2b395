/*
 * fuzz_acl_rules.c — libFuzzer harness for the ACL rule parser
 * (src/core/acl.c): ACL SETUSER's arguments and the aclfile's lines reach
 * it from any client allowed to run ACL, or from the file at ACL LOAD.
 *
 * fuzz-sources: src/core/acl.c src/commands/generated/command_meta_table.c
 * fuzz-sources: src/util/buf.c src/util/glob.c src/util/split_args.c src/util/xmalloc.c
 *
 * Input: lines, each as an aclfile line without "user": a name, then rules
 * separated by single spaces (selectors "( ... )" spanning words merged
 * first, as ACL SETUSER and the aclfile loader merge them). The command ids are the generated
 * metadata's rows (every command and subcommand Redis 7.0 has).
 *
 * Contract checked: a line either sets the user or leaves it as it was
 * (its ACL LIST description unchanged); a user set from its own
 * description describes the same (ACL LIST -> aclfile -> ACL LOAD is
 * lossless) unless a rule holds a parenthesis that is not its selector's
 * (ambiguous in Redis's format as well); every user is deleted again
 * without leaks.
 */
#include <stdbool.h>

#include "commands/command_meta.h"
#include "core/acl.h"
#include "fuzz_common.h"
#include "util/buf.h"
#include "util/xmalloc.h"

#define WORDS_MAX 128

static struct acl_command_info rows[ACL_COMMAND_BITS];

static void install_commands(void)
{
    static bool done;
    if (done) return;
    int n = 0;
    for (size_t i = 0; i < command_meta_count && n < ACL_COMMAND_BITS - 1; i++)
        rows[n++] = (struct acl_command_info){
            .full_name = command_meta_table[i].full_name, .parent = -1, .in_redis = true};
    acl_set_commands(rows, n);
    done = true;
}

static int split_words(const char *p, size_t len, const char **w, size_t *wl)
{
    int n = 0;
    size_t i = 0;
    while (i <= len && n < WORDS_MAX) {
        size_t j = i;
        while (j < len && p[j] != ' ') j++;
        if (j > i) {
            w[n] = p + i;
            wl[n++] = j - i;
        }
        i = j + 1;
    }
    return n;
}

/* Joins "(" ... ")" spanning words into one argument with single spaces,
 * as ACL SETUSER and the aclfile loader do before the rules are applied
 * (Redis's ACLMergeSelectorArguments); -1 on an unmatched "(". The merged
 * words point into scratch (room for len bytes). */
static int merge_selectors(const char **w, size_t *wl, int n, char *scratch)
{
    int out = 0;
    for (int i = 0; i < n; i++) {
        if (wl[i] == 0 || w[i][0] != '(' || w[i][wl[i] - 1] == ')') {
            w[out] = w[i];
            wl[out++] = wl[i];
            continue;
        }
        char *start = scratch;
        int j = i;
        for (;; j++) {
            if (j == n) return -1;
            if (j > i) *scratch++ = ' ';
            memcpy(scratch, w[j], wl[j]);
            scratch += wl[j];
            if (j > i && w[j][wl[j] - 1] == ')') break;
        }
        w[out] = start;
        wl[out++] = (size_t)(scratch - start);
        i = j;
    }
    return out;
}

/* Whether an ACL LIST line (split at spaces) holds a parenthesis that is
 * not a selector's own "(" or ")": then the line is ambiguous in Redis's
 * format too ("(~a) +get)" reads back as a selector "(~a)" and a stray
 * "+get)"), and is not read back. */
static bool ambiguous_parens(const char *const *w, const size_t *wl, int n)
{
    bool open = false;
    for (int i = 0; i < n; i++) {
        size_t from = 0, to = wl[i];
        if (w[i][0] == '(') {
            if (open) return true;
            open = true;
            from = 1;
        }
        if (open && to > from && w[i][to - 1] == ')') {
            open = false;
            to--;
        }
        for (size_t k = from; k < to; k++)
            if (w[i][k] == '(' || w[i][k] == ')') return true;
    }
    return open;
}

static void describe(const char *name, size_t len, struct buf *out)
{
    buf_truncate(out, 0);
    struct acl_user *u = acl_user_find(name, len);
    if (u) acl_describe_user(u, out);
}

static void one_line(const char *p, size_t len)
{
    const char *w[WORDS_MAX];
    size_t wl[WORDS_MAX];
    char *scratch = xmalloc(len + 1);
    int n = split_words(p, len, w, wl);
    if (n > 1) n = 1 + merge_selectors(w + 1, wl + 1, n - 1, scratch);
    if (n < 1) {
        xfree(scratch);
        return;
    }
    char err[512];
    struct buf before, after, again;
    buf_init(&before, 64);
    buf_init(&after, 64);
    buf_init(&again, 64);
    describe(w[0], wl[0], &before);
    bool existed = acl_user_find(w[0], wl[0]) != NULL;
    bool set = acl_setuser(w[0], wl[0], n - 1, w + 1, wl + 1, err, sizeof err);
    if (set) {
        describe(w[0], wl[0], &after);
        /* Its own description, applied to a fresh user, describes the same. */
        static const char copy[] = "fuzz-copy";
        const char *cw[WORDS_MAX + 1];
        size_t cwl[WORDS_MAX + 1];
        char *cscratch = xmalloc(buf_len(&after) + 1);
        int cn = split_words(buf_head(&after), buf_len(&after), cw, cwl);
        bool readable = cn < WORDS_MAX && !ambiguous_parens(cw, cwl, cn);
        if (readable) {
            cn = merge_selectors(cw, cwl, cn, cscratch);
            FUZZ_CHECK(cn >= 0, "its own description has an unmatched '('");
            acl_user_delete(copy, sizeof copy - 1);
            FUZZ_CHECK(acl_setuser(copy, sizeof copy - 1, cn, cw, cwl, err, sizeof err),
                       "its own description is refused: %s", err);
            describe(copy, sizeof copy - 1, &again);
            FUZZ_CHECK(buf_len(&again) == buf_len(&after) &&
                           memcmp(buf_head(&again), buf_head(&after), buf_len(&after)) == 0,
                       "description does not round-trip (%zu -> %zu bytes)", buf_len(&after),
                       buf_len(&again));
            acl_user_delete(copy, sizeof copy - 1);
        }
        xfree(cscratch);
    } else {
        describe(w[0], wl[0], &after);
        FUZZ_CHECK(existed == (acl_user_find(w[0], wl[0]) != NULL), "a refused line made a user");
        FUZZ_CHECK(buf_len(&before) == buf_len(&after) &&
                       memcmp(buf_head(&before), buf_head(&after), buf_len(&after)) == 0,
                   "a refused line changed the user");
    }
    buf_free(&before);
    buf_free(&after);
    buf_free(&again);
    xfree(scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    install_commands();
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        one_line(p, (size_t)(stop - p));
        p = stop + 1;
    }
    /* Every user but default goes again (default cannot be deleted). */
    for (int i = acl_user_count() - 1; i >= 0; i--) {
        struct acl_user *u = acl_user_at(i);
        if (u != acl_default_user()) acl_user_delete(u->name, u->name_len);
    }
    FUZZ_CHECK(acl_user_count() == 1, "%d users left", acl_user_count());
    return 0;
}
