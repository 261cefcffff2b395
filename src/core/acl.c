/* acl.c — Redis 7.0's ACL users and rules (acl.h): parsing every SETUSER
 * rule, describing users as ACL LIST does, and the selector checks. The
 * rule semantics follow Redis 7.0.15's acl.c function by function. */
#include "core/acl.h"

#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/glob.h"
#include "util/split_args.h"
#include "util/xmalloc.h"

const char *const acl_category_names[ACL_CATEGORY_COUNT] = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting",
};

unsigned acl_pubsub_default; /* 7.0's default: resetchannels */

static const struct acl_command_info *commands;
static int command_total;

static struct acl_user **users; /* sorted by name */
static int user_count, user_cap;
static struct acl_user *default_user;
static void (*change_listener)(void);

#define FUTURE_BIT (ACL_COMMAND_BITS - 1)

void acl_set_commands(const struct acl_command_info *cmds, int count)
{
    if (count >= FUTURE_BIT) abort(); /* the bitmap is too small for the table */
    commands = cmds;
    command_total = count;
}

const struct acl_command_info *acl_command(int id)
{
    return &commands[id];
}

int acl_command_count(void)
{
    return command_total;
}

int acl_command_lookup(const char *name, size_t len)
{
    for (int i = 0; i < command_total; i++) {
        const char *n = commands[i].full_name;
        if (strlen(n) == len && strncasecmp(n, name, len) == 0) return i;
    }
    return -1;
}

int acl_category_lookup(const char *name, size_t len)
{
    for (int i = 0; i < ACL_CATEGORY_COUNT; i++)
        if (strlen(acl_category_names[i]) == len &&
            strncasecmp(acl_category_names[i], name, len) == 0)
            return i;
    return -1;
}

void acl_set_change_listener(void (*fn)(void))
{
    change_listener = fn;
}

static void changed(void)
{
    if (change_listener) change_listener();
}

/* --- selectors ------------------------------------------------------- */

static bool bit_get(const struct acl_selector *s, int id)
{
    return (s->allowed[id / 64] >> (id % 64)) & 1;
}

static void bit_set(struct acl_selector *s, int id, bool on)
{
    if (on) {
        s->allowed[id / 64] |= 1ull << (id % 64);
    } else {
        s->allowed[id / 64] &= ~(1ull << (id % 64));
        s->flags &= ~ACL_SELECTOR_ALLCOMMANDS;
    }
}

static void patterns_free(struct acl_pattern *p, int n)
{
    for (int i = 0; i < n; i++) xfree(p[i].s);
    xfree(p);
}

/* Case-insensitive equality of n bytes, NUL bytes included (strncasecmp
 * would stop at the first). */
static bool bytes_equal_nocase(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return false;
    return true;
}

static void firstargs_reset(struct acl_selector *s, int id)
{
    int w = 0;
    for (int i = 0; i < s->firstarg_count; i++) {
        if (id < 0 || s->firstargs[i].id == id)
            xfree(s->firstargs[i].arg);
        else
            s->firstargs[w++] = s->firstargs[i];
    }
    s->firstarg_count = w;
}

static void selector_clear(struct acl_selector *s)
{
    patterns_free(s->keys, s->key_count);
    patterns_free(s->channels, s->channel_count);
    firstargs_reset(s, -1);
    xfree(s->firstargs);
    memset(s, 0, sizeof *s);
}

static void selector_init(struct acl_selector *s, unsigned flags)
{
    memset(s, 0, sizeof *s);
    s->flags = flags | acl_pubsub_default;
}

static void selector_copy(struct acl_selector *dst, const struct acl_selector *src)
{
    *dst = *src;
    dst->keys = xmalloc(sizeof *dst->keys * (size_t)(src->key_count + 1));
    for (int i = 0; i < src->key_count; i++) {
        dst->keys[i] = src->keys[i];
        dst->keys[i].s = xmemdup(src->keys[i].s, src->keys[i].len);
    }
    dst->channels = xmalloc(sizeof *dst->channels * (size_t)(src->channel_count + 1));
    for (int i = 0; i < src->channel_count; i++) {
        dst->channels[i] = src->channels[i];
        dst->channels[i].s = xmemdup(src->channels[i].s, src->channels[i].len);
    }
    dst->firstargs = xmalloc(sizeof *dst->firstargs * (size_t)(src->firstarg_count + 1));
    for (int i = 0; i < src->firstarg_count; i++) {
        dst->firstargs[i].id = src->firstargs[i].id;
        dst->firstargs[i].arg = xmemdup(src->firstargs[i].arg, src->firstargs[i].len);
        dst->firstargs[i].len = src->firstargs[i].len;
    }
}

/* Redis's ACLChangeSelectorPerm: the command, its first args, and every
 * subcommand of a container. */
static void change_perm(struct acl_selector *s, int id, bool allow)
{
    bit_set(s, id, allow);
    firstargs_reset(s, id);
    const struct acl_command_info *c = &commands[id];
    for (int i = 0; i < c->sub_count; i++) bit_set(s, c->first_sub + i, allow);
}

/* Redis's ACLSetSelectorCommandBitsForCategory over commands and then
 * their subcommands (the description's order is the table's). */
static void set_category(struct acl_selector *s, int cat, bool allow)
{
    for (int id = 0; id < command_total; id++)
        if (commands[id].categories & (1u << cat)) change_perm(s, id, allow);
}

static void count_category(const struct acl_selector *s, int cat, unsigned long *on,
                           unsigned long *off)
{
    *on = *off = 0;
    for (int id = 0; id < command_total; id++)
        if ((commands[id].categories & (1u << cat)) && commands[id].in_redis) {
            if (bit_get(s, id))
                (*on)++;
            else
                (*off)++;
        }
}

static void add_firstarg(struct acl_selector *s, int id, const char *arg, size_t len)
{
    for (int i = 0; i < s->firstarg_count; i++)
        if (s->firstargs[i].id == id && s->firstargs[i].len == len &&
            bytes_equal_nocase(s->firstargs[i].arg, arg, len))
            return;
    s->firstargs = xrealloc(s->firstargs, sizeof *s->firstargs * (size_t)(s->firstarg_count + 1));
    s->firstargs[s->firstarg_count].id = id;
    s->firstargs[s->firstarg_count].arg = xmemdup(arg, len);
    s->firstargs[s->firstarg_count].len = len;
    s->firstarg_count++;
}

static int pattern_find(const struct acl_pattern *p, int n, const char *s, size_t len)
{
    for (int i = 0; i < n; i++)
        if (p[i].len == len && memcmp(p[i].s, s, len) == 0) return i;
    return -1;
}

static void pattern_add(struct acl_pattern **p, int *n, const char *s, size_t len, unsigned perm)
{
    int at = pattern_find(*p, *n, s, len);
    if (at >= 0) {
        (*p)[at].perm |= perm;
        return;
    }
    *p = xrealloc(*p, sizeof **p * (size_t)(*n + 1));
    (*p)[*n] = (struct acl_pattern){.s = xmemdup(s, len), .len = len, .perm = perm};
    (*n)++;
}

static bool op_is(const char *op, size_t len, const char *word)
{
    return strlen(word) == len && strncasecmp(op, word, len) == 0;
}

#define ERR_SYNTAX "Syntax error"
#define ERR_UNKNOWN ACL_ERR_UNKNOWN
#define ERR_KEYS_AFTER_ALL                                                                         \
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not "      \
    "have any effect. Try 'resetkeys' to start with an empty list of patterns"
#define ERR_CHANNELS_AFTER_ALL                                                                     \
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not "  \
    "have any effect. Try 'resetchannels' to start with an empty list of channels"
#define ERR_NO_PASSWORD "The password you are trying to remove from the user does not exist"
#define ERR_BAD_HASH                                                                               \
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "      \
    "characters"
#define ERR_FIRSTARG_SUB "Allowing first-arg of a subcommand is not supported"

static bool fail(char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s", why);
    return false;
}

/* Redis's ACLSetSelector: a rule about commands, keys or channels. */
static bool selector_apply(struct acl_selector *s, const char *op, size_t len, char *err,
                           size_t errlen)
{
    if (op_is(op, len, "allkeys") || op_is(op, len, "~*")) {
        s->flags |= ACL_SELECTOR_ALLKEYS;
        patterns_free(s->keys, s->key_count);
        s->keys = NULL;
        s->key_count = 0;
    } else if (op_is(op, len, "resetkeys")) {
        s->flags &= ~ACL_SELECTOR_ALLKEYS;
        patterns_free(s->keys, s->key_count);
        s->keys = NULL;
        s->key_count = 0;
    } else if (op_is(op, len, "allchannels") || op_is(op, len, "&*")) {
        s->flags |= ACL_SELECTOR_ALLCHANNELS;
        patterns_free(s->channels, s->channel_count);
        s->channels = NULL;
        s->channel_count = 0;
    } else if (op_is(op, len, "resetchannels")) {
        s->flags &= ~ACL_SELECTOR_ALLCHANNELS;
        patterns_free(s->channels, s->channel_count);
        s->channels = NULL;
        s->channel_count = 0;
    } else if (op_is(op, len, "allcommands") || op_is(op, len, "+@all")) {
        memset(s->allowed, 0xff, sizeof s->allowed);
        s->flags |= ACL_SELECTOR_ALLCOMMANDS;
        firstargs_reset(s, -1);
    } else if (op_is(op, len, "nocommands") || op_is(op, len, "-@all")) {
        memset(s->allowed, 0, sizeof s->allowed);
        s->flags &= ~ACL_SELECTOR_ALLCOMMANDS;
        firstargs_reset(s, -1);
    } else if (op[0] == '~' || op[0] == '%') {
        if (s->flags & ACL_SELECTOR_ALLKEYS) return fail(err, errlen, ERR_KEYS_AFTER_ALL);
        unsigned perm = 0;
        size_t off = 1;
        if (op[0] == '%') {
            for (; off < len; off++) {
                char ch = (char)toupper((unsigned char)op[off]);
                if (ch == 'R' && !(perm & ACL_KEY_READ)) {
                    perm |= ACL_KEY_READ;
                } else if (ch == 'W' && !(perm & ACL_KEY_WRITE)) {
                    perm |= ACL_KEY_WRITE;
                } else if (op[off] == '~') {
                    off++;
                    break;
                } else {
                    return fail(err, errlen, ERR_SYNTAX);
                }
            }
            if (!perm) return fail(err, errlen, ERR_SYNTAX);
        } else {
            perm = ACL_KEY_READ | ACL_KEY_WRITE;
        }
        if (len - off == 1 && op[off] == '*' && perm == (ACL_KEY_READ | ACL_KEY_WRITE)) {
            s->flags |= ACL_SELECTOR_ALLKEYS;
            patterns_free(s->keys, s->key_count);
            s->keys = NULL;
            s->key_count = 0;
        } else {
            pattern_add(&s->keys, &s->key_count, op + off, len - off, perm);
        }
    } else if (op[0] == '&') {
        if (s->flags & ACL_SELECTOR_ALLCHANNELS) return fail(err, errlen, ERR_CHANNELS_AFTER_ALL);
        pattern_add(&s->channels, &s->channel_count, op + 1, len - 1, 0);
    } else if (op[0] == '+' && (len < 2 || op[1] != '@')) {
        const char *bar = NULL;
        for (size_t i = len; i > 1; i--)
            if (op[i - 1] == '|') {
                bar = op + i - 1;
                break;
            }
        if (!bar) {
            int id = acl_command_lookup(op + 1, len - 1);
            if (id < 0) return fail(err, errlen, ERR_UNKNOWN);
            change_perm(s, id, true);
        } else {
            int id = acl_command_lookup(op + 1, (size_t)(bar - op - 1));
            if (id < 0) return fail(err, errlen, ERR_UNKNOWN);
            if (commands[id].parent >= 0) return fail(err, errlen, ERR_FIRSTARG_SUB);
            size_t sub_len = len - (size_t)(bar + 1 - op);
            if (sub_len == 0) return fail(err, errlen, ERR_SYNTAX);
            if (commands[id].sub_count) {
                int sub = acl_command_lookup(op + 1, len - 1);
                if (sub < 0) return fail(err, errlen, ERR_UNKNOWN);
                change_perm(s, sub, true);
            } else {
                add_firstarg(s, id, bar + 1, sub_len);
            }
        }
    } else if (op[0] == '-' && (len < 2 || op[1] != '@')) {
        int id = acl_command_lookup(op + 1, len - 1);
        if (id < 0) return fail(err, errlen, ERR_UNKNOWN);
        change_perm(s, id, false);
    } else if ((op[0] == '+' || op[0] == '-') && len >= 2 && op[1] == '@') {
        int cat = acl_category_lookup(op + 2, len - 2);
        if (cat < 0) return fail(err, errlen, ERR_UNKNOWN);
        set_category(s, cat, op[0] == '+');
    } else {
        return fail(err, errlen, ERR_SYNTAX);
    }
    return true;
}

/* --- users ----------------------------------------------------------- */

void acl_hash_password(const char *pw, size_t len, char out[ACL_PASSWORD_HEX + 1])
{
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)pw, len);
    sodium_bin2hex(out, ACL_PASSWORD_HEX + 1, h, sizeof h);
}

static bool hash_is_valid(const char *h, size_t len)
{
    if (len != ACL_PASSWORD_HEX) return false;
    for (size_t i = 0; i < len; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f'))) return false;
    return true;
}

static int password_find(const struct acl_user *u, const char *hex)
{
    for (int i = 0; i < u->password_count; i++)
        if (memcmp(u->passwords[i], hex, ACL_PASSWORD_HEX) == 0) return i;
    return -1;
}

static void passwords_clear(struct acl_user *u)
{
    sodium_memzero(u->passwords, sizeof *u->passwords * (size_t)u->password_count);
    xfree(u->passwords);
    u->passwords = NULL;
    u->password_count = 0;
}

static void selectors_clear_extra(struct acl_user *u)
{
    for (int i = 1; i < u->selector_count; i++) selector_clear(&u->selectors[i]);
    u->selector_count = 1;
}

static struct acl_user *user_new(const char *name, size_t len)
{
    struct acl_user *u = xcalloc(1, sizeof *u);
    u->name = xmemdup(name, len);
    u->name_len = len;
    u->flags = ACL_USER_DISABLED;
    u->selectors = xmalloc(sizeof *u->selectors);
    u->selector_count = 1;
    selector_init(&u->selectors[0], ACL_SELECTOR_ROOT);
    return u;
}

void acl_user_free(struct acl_user *u)
{
    if (!u) return;
    passwords_clear(u);
    for (int i = 0; i < u->selector_count; i++) selector_clear(&u->selectors[i]);
    xfree(u->selectors);
    xfree(u->pwhash);
    xfree(u->name);
    xfree(u);
}

struct acl_user *acl_user_clone(const struct acl_user *src)
{
    struct acl_user *u = xcalloc(1, sizeof *u);
    u->name = xmemdup(src->name, src->name_len);
    u->name_len = src->name_len;
    u->flags = src->flags;
    u->password_count = src->password_count;
    u->passwords = xmalloc(sizeof *u->passwords * (size_t)(src->password_count + 1));
    if (src->password_count) /* none: src->passwords may be NULL */
        memcpy(u->passwords, src->passwords, sizeof *u->passwords * (size_t)src->password_count);
    u->pwhash = src->pwhash ? xstrdup(src->pwhash) : NULL;
    u->selector_count = src->selector_count;
    u->selectors = xmalloc(sizeof *u->selectors * (size_t)src->selector_count);
    for (int i = 0; i < src->selector_count; i++)
        selector_copy(&u->selectors[i], &src->selectors[i]);
    return u;
}

/* A selector "(rule rule ...)": Redis's aclCreateSelectorFromOpSet. */
static bool selector_add(struct acl_user *u, const char *op, size_t len, char *err, size_t errlen)
{
    struct acl_selector s;
    selector_init(&s, 0);
    struct buf words;
    buf_init(&words, 64);
    size_t *lens = NULL;
    int lens_cap = 0;
    int n = split_args(op + 1, len - 2, &words, &lens, &lens_cap);
    bool ok = n >= 0;
    if (!ok) fail(err, errlen, ERR_SYNTAX);
    const char *w = buf_head(&words);
    for (int i = 0; ok && i < n; i++) {
        if (lens[i]) ok = selector_apply(&s, w, lens[i], err, errlen);
        w += lens[i];
    }
    xfree(lens);
    buf_free(&words);
    if (!ok) {
        selector_clear(&s);
        return false;
    }
    u->selectors = xrealloc(u->selectors, sizeof *u->selectors * (size_t)(u->selector_count + 1));
    u->selectors[u->selector_count++] = s;
    return true;
}

bool acl_user_apply(struct acl_user *u, const char *op, size_t len, char *err, size_t errlen)
{
    if (len == 0) return true; /* Redis: an empty rule does nothing */
    if (op_is(op, len, "on")) {
        u->flags = (u->flags | ACL_USER_ENABLED) & ~ACL_USER_DISABLED;
    } else if (op_is(op, len, "off")) {
        u->flags = (u->flags | ACL_USER_DISABLED) & ~ACL_USER_ENABLED;
    } else if (op_is(op, len, "skip-sanitize-payload")) {
        u->flags = (u->flags | ACL_USER_SKIP_SANITIZE) & ~ACL_USER_SANITIZE;
    } else if (op_is(op, len, "sanitize-payload")) {
        u->flags = (u->flags | ACL_USER_SANITIZE) & ~ACL_USER_SKIP_SANITIZE;
    } else if (op_is(op, len, "nopass")) {
        u->flags |= ACL_USER_NOPASS;
        passwords_clear(u);
    } else if (op_is(op, len, "resetpass")) {
        u->flags &= ~ACL_USER_NOPASS;
        passwords_clear(u);
        xfree(u->pwhash);
        u->pwhash = NULL;
    } else if (op[0] == '>' || op[0] == '#') {
        char hex[ACL_PASSWORD_HEX + 1];
        if (op[0] == '>') {
            acl_hash_password(op + 1, len - 1, hex);
        } else {
            if (!hash_is_valid(op + 1, len - 1)) return fail(err, errlen, ERR_BAD_HASH);
            memcpy(hex, op + 1, ACL_PASSWORD_HEX);
            hex[ACL_PASSWORD_HEX] = '\0';
        }
        if (password_find(u, hex) < 0) {
            u->passwords =
                xrealloc(u->passwords, sizeof *u->passwords * (size_t)(u->password_count + 1));
            memcpy(u->passwords[u->password_count++], hex, sizeof hex);
        }
        sodium_memzero(hex, sizeof hex);
        u->flags &= ~ACL_USER_NOPASS;
    } else if (op[0] == '<' || op[0] == '!') {
        char hex[ACL_PASSWORD_HEX + 1];
        if (op[0] == '<') {
            acl_hash_password(op + 1, len - 1, hex);
        } else {
            if (!hash_is_valid(op + 1, len - 1)) return fail(err, errlen, ERR_BAD_HASH);
            memcpy(hex, op + 1, ACL_PASSWORD_HEX);
        }
        int at = password_find(u, hex);
        if (at < 0) return fail(err, errlen, ERR_NO_PASSWORD);
        memmove(u->passwords[at], u->passwords[at + 1],
                sizeof *u->passwords * (size_t)(u->password_count - at - 1));
        u->password_count--;
    } else if (op[0] == '(' && op[len - 1] == ')') {
        return selector_add(u, op, len, err, errlen);
    } else if (op_is(op, len, "clearselectors")) {
        selectors_clear_extra(u);
    } else if (op_is(op, len, "reset")) {
        struct acl_selector *root = &u->selectors[0];
        acl_user_apply(u, "resetpass", 9, err, errlen);
        selector_apply(root, "resetkeys", 9, err, errlen);
        selector_apply(root, "resetchannels", 13, err, errlen);
        if (acl_pubsub_default & ACL_SELECTOR_ALLCHANNELS)
            selector_apply(root, "allchannels", 11, err, errlen);
        acl_user_apply(u, "off", 3, err, errlen);
        acl_user_apply(u, "sanitize-payload", 16, err, errlen);
        selectors_clear_extra(u);
        selector_apply(root, "-@all", 5, err, errlen);
    } else {
        return selector_apply(&u->selectors[0], op, len, err, errlen);
    }
    return true;
}

static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

/* Index of name in users, or -(insertion point)-1. */
static int user_index(const char *name, size_t len)
{
    int lo = 0, hi = user_count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = name_cmp(users[mid]->name, users[mid]->name_len, name, len);
        if (c == 0) return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

static void user_insert(struct acl_user *u)
{
    int at = user_index(u->name, u->name_len);
    if (at >= 0) abort();
    at = -at - 1;
    if (user_count == user_cap) {
        user_cap = user_cap ? user_cap * 2 : 8;
        users = xrealloc(users, sizeof *users * (size_t)user_cap);
    }
    memmove(users + at + 1, users + at, sizeof *users * (size_t)(user_count - at));
    users[at] = u;
    user_count++;
}

static void default_reset(struct acl_user *u)
{
    char err[8];
    acl_user_apply(u, "+@all", 5, err, sizeof err);
    acl_user_apply(u, "~*", 2, err, sizeof err);
    acl_user_apply(u, "&*", 2, err, sizeof err);
    acl_user_apply(u, "on", 2, err, sizeof err);
    acl_user_apply(u, "nopass", 6, err, sizeof err);
}

struct acl_user *acl_default_user(void)
{
    if (!default_user) {
        default_user = user_new("default", 7);
        default_reset(default_user);
        user_insert(default_user);
    }
    return default_user;
}

struct acl_user *acl_user_find(const char *name, size_t len)
{
    acl_default_user();
    int at = user_index(name, len);
    return at >= 0 ? users[at] : NULL;
}

int acl_user_count(void)
{
    acl_default_user();
    return user_count;
}

struct acl_user *acl_user_at(int i)
{
    return users[i];
}

struct acl_user *acl_user_new(const char *name, size_t len)
{
    return user_new(name, len);
}

struct acl_user *acl_user_create(const char *name, size_t len)
{
    struct acl_user *u = acl_user_find(name, len);
    if (u) return u;
    u = user_new(name, len);
    user_insert(u);
    changed();
    return u;
}

/* Moves src's contents into dst (keeping dst's address) and frees src. */
static void user_take(struct acl_user *dst, struct acl_user *src)
{
    passwords_clear(dst);
    for (int i = 0; i < dst->selector_count; i++) selector_clear(&dst->selectors[i]);
    xfree(dst->selectors);
    xfree(dst->pwhash);
    dst->flags = src->flags;
    dst->passwords = src->passwords;
    dst->password_count = src->password_count;
    dst->pwhash = src->pwhash;
    dst->selectors = src->selectors;
    dst->selector_count = src->selector_count;
    xfree(src->name);
    xfree(src);
}

bool acl_setuser(const char *name, size_t name_len, int argc, const char *const *argv,
                 const size_t *lens, char *err, size_t errlen)
{
    struct acl_user *u = acl_user_find(name, name_len);
    struct acl_user *t = u ? acl_user_clone(u) : user_new(name, name_len);
    bool ok = true;
    for (int i = 0; ok && i < argc; i++) {
        char why[512];
        if (!acl_user_apply(t, argv[i], lens[i], why, sizeof why)) {
            snprintf(err, errlen, "Error in ACL SETUSER modifier '%.*s': %s", (int)lens[i], argv[i],
                     why);
            ok = false;
        }
    }
    if (!ok) {
        acl_user_free(t);
        return false;
    }
    if (u)
        user_take(u, t);
    else
        user_insert(t);
    changed();
    return true;
}

bool acl_user_delete(const char *name, size_t len)
{
    int at = user_index(name, len);
    if (at < 0 || users[at] == default_user) return false;
    struct acl_user *u = users[at];
    memmove(users + at, users + at + 1, sizeof *users * (size_t)(user_count - at - 1));
    user_count--;
    acl_user_free(u);
    changed();
    return true;
}

void acl_replace_users(struct acl_user **list, int count)
{
    acl_default_user();
    struct acl_user *fresh_default = NULL;
    for (int i = 0; i < user_count; i++)
        if (users[i] != default_user) acl_user_free(users[i]);
    user_count = 0;
    for (int i = 0; i < count; i++) {
        if (list[i]->name_len == 7 && memcmp(list[i]->name, "default", 7) == 0)
            fresh_default = list[i];
        else
            user_insert(list[i]);
    }
    if (fresh_default) {
        user_take(default_user, fresh_default);
    } else {
        struct acl_user *d = user_new("default", 7);
        default_reset(d);
        user_take(default_user, d);
    }
    user_insert(default_user);
    changed();
}

bool acl_user_password_matches(const struct acl_user *u, const char *pw, size_t len)
{
    if (u->flags & ACL_USER_NOPASS) return true;
    char hex[ACL_PASSWORD_HEX + 1];
    acl_hash_password(pw, len, hex);
    bool match = false;
    for (int i = 0; i < u->password_count; i++)
        match |= sodium_memcmp(hex, u->passwords[i], ACL_PASSWORD_HEX) == 0;
    sodium_memzero(hex, sizeof hex);
    return match;
}

bool acl_user_unrestricted(const struct acl_user *u)
{
    const unsigned all = ACL_SELECTOR_ALLKEYS | ACL_SELECTOR_ALLCOMMANDS | ACL_SELECTOR_ALLCHANNELS;
    return u->selector_count == 1 && (u->selectors[0].flags & all) == all;
}

bool acl_any_restricted(void)
{
    acl_default_user();
    for (int i = 0; i < user_count; i++)
        if (!acl_user_unrestricted(users[i])) return true;
    return false;
}

/* --- describing ------------------------------------------------------ */

static const struct {
    unsigned flag;
    const char *name;
} user_flag_names[] = {
    {ACL_USER_ENABLED, "on"},
    {ACL_USER_DISABLED, "off"},
    {ACL_USER_NOPASS, "nopass"},
    {ACL_USER_SKIP_SANITIZE, "skip-sanitize-payload"},
    {ACL_USER_SANITIZE, "sanitize-payload"},
};

static void append_str(struct buf *out, const char *s)
{
    buf_append(out, s, strlen(s));
}

/* Redis's ACLDescribeSelectorCommandRules: start from +@all or -@all, add
 * the category that best fits what is left, again and again, then the
 * single commands that still differ (in table order), then first args. */
void acl_describe_commands(const struct acl_selector *s, struct buf *out)
{
    struct acl_selector fake, temp;
    memset(&fake, 0, sizeof fake);
    memset(&temp, 0, sizeof temp);
    size_t start = buf_len(out);
    bool additive = !bit_get(s, FUTURE_BIT);
    char err[8];
    if (additive) {
        append_str(out, "-@all ");
    } else {
        append_str(out, "+@all ");
        selector_apply(&fake, "+@all", 5, err, sizeof err);
    }
    memcpy(temp.allowed, s->allowed, sizeof temp.allowed);
    bool applied[ACL_CATEGORY_COUNT] = {false};
    for (;;) {
        int best = -1;
        unsigned long mindiff = (unsigned long)-1, maxsame = 0;
        for (int j = 0; j < ACL_CATEGORY_COUNT; j++) {
            if (applied[j]) continue;
            unsigned long on, off;
            count_category(&temp, j, &on, &off);
            unsigned long diff = additive ? off : on, same = additive ? on : off;
            if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
                best = j;
                mindiff = diff;
                maxsame = same;
            }
        }
        if (best < 0) break;
        set_category(&fake, best, additive);
        set_category(&temp, best, !additive);
        buf_append_fmt(out, "%c@%s ", additive ? '+' : '-', acl_category_names[best]);
        applied[best] = true;
    }
    for (int id = 0; id < command_total; id++) {
        const struct acl_command_info *c = &commands[id];
        bool user_bit = bit_get(s, id);
        if (user_bit != bit_get(&fake, id)) {
            buf_append_fmt(out, "%c%s ", user_bit ? '+' : '-', c->full_name);
            change_perm(&fake, id, user_bit);
        }
        if (!user_bit)
            for (int i = 0; i < s->firstarg_count; i++)
                if (s->firstargs[i].id == id) {
                    buf_append_fmt(out, "+%s|", c->full_name);
                    buf_append(out, s->firstargs[i].arg, s->firstargs[i].len);
                    buf_append_char(out, ' ');
                }
    }
    xfree(fake.firstargs);
    if (buf_len(out) > start) buf_truncate(out, buf_len(out) - 1);
}

static void append_key_pattern(struct buf *out, const struct acl_pattern *p)
{
    if (p->perm == (ACL_KEY_READ | ACL_KEY_WRITE))
        buf_append_char(out, '~');
    else if (p->perm == ACL_KEY_READ)
        append_str(out, "%R~");
    else
        append_str(out, "%W~");
    buf_append(out, p->s, p->len);
}

void acl_describe_keys(const struct acl_selector *s, struct buf *out)
{
    if (s->flags & ACL_SELECTOR_ALLKEYS) {
        append_str(out, "~*");
        return;
    }
    for (int i = 0; i < s->key_count; i++) {
        if (i) buf_append_char(out, ' ');
        append_key_pattern(out, &s->keys[i]);
    }
}

void acl_describe_channels(const struct acl_selector *s, struct buf *out)
{
    if (s->flags & ACL_SELECTOR_ALLCHANNELS) {
        append_str(out, "&*");
        return;
    }
    for (int i = 0; i < s->channel_count; i++) {
        if (i) buf_append_char(out, ' ');
        buf_append_char(out, '&');
        buf_append(out, s->channels[i].s, s->channels[i].len);
    }
}

/* Redis's ACLDescribeSelector. */
static void describe_selector(const struct acl_selector *s, struct buf *out)
{
    if (s->flags & ACL_SELECTOR_ALLKEYS) {
        append_str(out, "~* ");
    } else {
        for (int i = 0; i < s->key_count; i++) {
            append_key_pattern(out, &s->keys[i]);
            buf_append_char(out, ' ');
        }
    }
    if (s->flags & ACL_SELECTOR_ALLCHANNELS) {
        append_str(out, "&* ");
    } else {
        append_str(out, "resetchannels ");
        for (int i = 0; i < s->channel_count; i++) {
            buf_append_char(out, '&');
            buf_append(out, s->channels[i].s, s->channels[i].len);
            buf_append_char(out, ' ');
        }
    }
    acl_describe_commands(s, out);
}

void acl_describe_user(const struct acl_user *u, struct buf *out)
{
    for (size_t j = 0; j < sizeof user_flag_names / sizeof user_flag_names[0]; j++)
        if (u->flags & user_flag_names[j].flag) {
            append_str(out, user_flag_names[j].name);
            buf_append_char(out, ' ');
        }
    for (int i = 0; i < u->password_count; i++) {
        buf_append_char(out, '#');
        buf_append(out, u->passwords[i], ACL_PASSWORD_HEX);
        buf_append_char(out, ' ');
    }
    for (int i = 0; i < u->selector_count; i++) {
        if (i == 0) {
            describe_selector(&u->selectors[i], out);
        } else {
            append_str(out, " (");
            describe_selector(&u->selectors[i], out);
            buf_append_char(out, ')');
        }
    }
}

/* --- checks ---------------------------------------------------------- */

bool acl_selector_allows_command(const struct acl_selector *s, int id, const char *arg,
                                 size_t arg_len)
{
    if ((s->flags & ACL_SELECTOR_ALLCOMMANDS) || commands[id].no_auth || bit_get(s, id))
        return true;
    if (!arg) return false;
    for (int i = 0; i < s->firstarg_count; i++)
        if (s->firstargs[i].id == id && s->firstargs[i].len == arg_len &&
            bytes_equal_nocase(s->firstargs[i].arg, arg, arg_len))
            return true;
    return false;
}

bool acl_selector_allows_key(const struct acl_selector *s, const char *key, size_t len,
                             unsigned perm)
{
    if (s->flags & ACL_SELECTOR_ALLKEYS) return true;
    for (int i = 0; i < s->key_count; i++) {
        if ((s->keys[i].perm & perm) != perm) continue;
        if (glob_match(s->keys[i].s, s->keys[i].len, key, len, false)) return true;
    }
    return false;
}

bool acl_selector_allows_channel(const struct acl_selector *s, const char *ch, size_t len,
                                 bool is_pattern)
{
    if (s->flags & ACL_SELECTOR_ALLCHANNELS) return true;
    for (int i = 0; i < s->channel_count; i++) {
        const struct acl_pattern *p = &s->channels[i];
        if (is_pattern ? (p->len == len && memcmp(p->s, ch, len) == 0)
                       : glob_match(p->s, p->len, ch, len, false))
            return true;
    }
    return false;
}

void acl_genpass(int bits, char *out)
{
    int chars = (bits + 3) / 4;
    unsigned char raw[512];
    size_t bytes = (size_t)(chars + 1) / 2;
    randombytes_buf(raw, bytes);
    char hex[1025];
    sodium_bin2hex(hex, sizeof hex, raw, bytes);
    memcpy(out, hex, (size_t)chars);
    out[chars] = '\0';
}
