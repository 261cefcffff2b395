/* auth.c — password verification without clear-text storage, at a cost that
 * does not depend on whether the user exists; see auth.h. */
#include "core/auth.h"
#include "util/buf.h"
#include "core/config.h"

#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/acl.h"
#include "core/auth_throttle.h"
#include "util/clock.h"
#include "util/xmalloc.h"

struct auth_user {
    char *name;
    char *pwhash; /* crypto_pwhash_str output */
    unsigned char digest[crypto_generichash_BYTES];
    bool has_digest; /* digest of the accepted password is known */
};

struct auth_stats auth_stats;

static unsigned char digest_key[crypto_generichash_KEYBYTES];
static unsigned char budget_key[crypto_shorthash_KEYBYTES]; /* throttle table keys */
static struct auth_user *file_users;
static size_t file_user_count;

/* Verified for unknown users so that they cost what a wrong password does.
 * Its parameters are the largest of every hash configured so far. */
static char dummy_pwhash[crypto_pwhash_STRBYTES];
static unsigned long long dummy_opslimit;
static size_t dummy_memlimit;

static struct auth_throttle source_budgets;
static int64_t pwhash_paid_at_us; /* server-wide verification budget (GCRA) */

static bool initialised;

bool auth_init(void)
{
    /* Idempotent: the password may be set while flags are parsed, before startup. */
    if (initialised) return true;
    if (sodium_init() < 0) return false;
    randombytes_buf(digest_key, sizeof digest_key);
    randombytes_buf(budget_key, sizeof budget_key);
    auth_throttle_init(&source_budgets, 1, AUTH_FAIL_SOURCE_INTERVAL_US);
    initialised = true;
    return true;
}

static void password_digest(const char *pw, size_t len, unsigned char out[crypto_generichash_BYTES])
{
    crypto_generichash(out, crypto_generichash_BYTES, (const unsigned char *)pw, len, digest_key,
                       sizeof digest_key);
}

/* Raises the dummy hash's parameters to cover a hash made with (ops, mem),
 * re-making it when they grow: one Argon2 computation, at configuration time. */
static void dummy_cover(unsigned long long ops, size_t mem)
{
    if (ops <= dummy_opslimit && mem <= dummy_memlimit) return;
    if (ops > dummy_opslimit) dummy_opslimit = ops;
    if (mem > dummy_memlimit) dummy_memlimit = mem;
    unsigned char random_password[32];
    randombytes_buf(random_password, sizeof random_password);
    if (crypto_pwhash_str(dummy_pwhash, (const char *)random_password, sizeof random_password,
                          dummy_opslimit, dummy_memlimit) != 0)
        abort(); /* out of memory */
}

/* Reads "m=KiB,t=passes" from a crypto_pwhash_str string. */
static bool pwhash_parameters(const char *hash, unsigned long long *ops, size_t *mem)
{
    const char *m = strstr(hash, "$m=");
    unsigned kib, passes;
    if (!m || sscanf(m, "$m=%u,t=%u", &kib, &passes) != 2) return false;
    *ops = passes;
    *mem = (size_t)kib * 1024;
    return true;
}

void auth_set_default_password(const char *password, size_t len)
{
    if (!auth_init()) abort();
    /* Redis's ACLUpdateDefaultUserPassword: resetpass, then >password or
     * nopass. The password is kept as its SHA-256, as Redis keeps it. */
    struct acl_user *u = acl_default_user();
    char err[128];
    acl_user_apply(u, "resetpass", 9, err, sizeof err);
    if (len == 0) {
        acl_user_apply(u, "nopass", 6, err, sizeof err);
    } else {
        char *rule = xmalloc(len + 1);
        rule[0] = '>';
        memcpy(rule + 1, password, len);
        acl_user_apply(u, rule, len + 1, err, sizeof err);
        sodium_memzero(rule, len + 1);
        xfree(rule);
    }
}

bool auth_default_password_set(void)
{
    return !(acl_default_user()->flags & ACL_USER_NOPASS);
}

bool auth_load_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open auth file '%s': %m", path);
        return false;
    }
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\0') continue;
        char *user = strtok(p, " \t\r\n");
        char *hash = strtok(NULL, " \t\r\n");
        if (!user || !hash || strtok(NULL, " \t\r\n")) {
            snprintf(err, errlen, "auth file '%s' line %d: expected 'user password-hash'", path,
                     lineno);
            fclose(f);
            return false;
        }
        unsigned long long ops;
        size_t mem;
        if (strncmp(hash, "$argon2", 7) != 0 || strlen(hash) >= crypto_pwhash_STRBYTES ||
            !pwhash_parameters(hash, &ops, &mem)) {
            snprintf(err, errlen,
                     "auth file '%s' line %d: '%s' has no crypto_pwhash_str hash (make one with "
                     "goblin-passwd)",
                     path, lineno, user);
            fclose(f);
            return false;
        }
        dummy_cover(ops, mem);
        /* An ACL user with every permission whose password is this hash. */
        struct acl_user *au = acl_user_create(user, strlen(user));
        static const char *const rules[] = {"reset", "on", "~*", "&*", "+@all"};
        for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
            acl_user_apply(au, rules[r], strlen(rules[r]), err, errlen);
        file_users = xrealloc(file_users, sizeof *file_users * (file_user_count + 1));
        file_users[file_user_count++] = (struct auth_user){
            .name = xstrdup(user),
            .pwhash = xstrdup(hash),
        };
    }
    fclose(f);
    return true;
}

bool auth_required(void)
{
    const struct acl_user *d = acl_default_user();
    return file_user_count > 0 || !(d->flags & ACL_USER_NOPASS) || !(d->flags & ACL_USER_ENABLED);
}

static struct auth_user *user_find(const char *name, size_t len)
{
    for (size_t i = 0; i < file_user_count; i++)
        if (strlen(file_users[i].name) == len && memcmp(file_users[i].name, name, len) == 0)
            return &file_users[i];
    return NULL;
}

bool auth_user_exists(const char *name, size_t len)
{
    return acl_user_find(name, len) != NULL;
}

/* Key of a name in a throttle table: keyed SipHash, so a peer cannot choose
 * names that land in one set. */
static uint64_t budget_key_of(const char *s, size_t len)
{
    unsigned char h[crypto_shorthash_BYTES];
    crypto_shorthash(h, (const unsigned char *)s, len, budget_key);
    uint64_t k;
    memcpy(&k, h, sizeof k);
    return k;
}

/* One Argon2 verification; true when `password` matches `pwhash`. */
static bool pwhash_verify(const char *pwhash, const char *password, size_t password_len)
{
    auth_stats.pwhash_verifications++;
    char *pw = xmemdup(password, password_len); /* the API wants it NUL-terminated */
    int rc = crypto_pwhash_str_verify(pwhash, pw, password_len);
    sodium_memzero(pw, password_len);
    xfree(pw);
    return rc == 0;
}

enum auth_result auth_check(const char *source, int conn_failures, const char *user,
                            size_t user_len, const char *password, size_t password_len,
                            struct auth_failure *fail)
{
    const struct acl_user *au = acl_user_find(user, user_len);
    /* Redis: a user that is on with nopass takes any password. */
    if (au && (au->flags & ACL_USER_ENABLED) && (au->flags & ACL_USER_NOPASS))
        return user_len == 7 && memcmp(user, "default", 7) == 0 && !auth_required()
                   ? AUTH_NO_PASSWORD
                   : AUTH_OK;

    int64_t now = clock_mono_us();
    bool enabled = au && (au->flags & ACL_USER_ENABLED);
    /* The SHA-256 passwords (ACL rules, requirepass): one hash and a
     * constant-time compare per password, computed for an unknown user too
     * (against the default user's). */
    bool sha_match =
        acl_user_password_matches(au ? au : acl_default_user(), password, password_len);
    if (enabled && sha_match) return AUTH_OK;

    struct auth_user *u = enabled ? user_find(user, user_len) : NULL;
    unsigned char digest[crypto_generichash_BYTES];
    password_digest(password, password_len, digest);
    if (u && u->has_digest && sodium_memcmp(digest, u->digest, sizeof digest) == 0) return AUTH_OK;

    /* With --auth-file users, every other path costs one Argon2
     * verification — unknown users and SHA-256 users included — so that a
     * failure costs the same whether or not the user exists. */
    if (file_user_count > 0) {
        int64_t interval = 1000000 / AUTH_PWHASH_PER_SECOND;
        if (!auth_budget_allows(pwhash_paid_at_us, AUTH_PWHASH_PER_SECOND, interval, now)) {
            auth_stats.throttled++;
            return AUTH_BUSY;
        }
        auth_budget_spend(&pwhash_paid_at_us, interval, now);
        bool match = pwhash_verify(u ? u->pwhash : dummy_pwhash, password, password_len);
        if (match && u) {
            memcpy(u->digest, digest, sizeof digest);
            u->has_digest = true;
            return AUTH_OK;
        }
    }
    /* The failure's answer: after the connection's own back-off and after
     * the source's previous failure answer. */
    int shift = conn_failures < 10 ? conn_failures : 10;
    int64_t conn_delay = AUTH_FAIL_CONN_BASE_US << shift;
    if (conn_delay > AUTH_FAIL_CONN_MAX_US) conn_delay = AUTH_FAIL_CONN_MAX_US;
    uint64_t source_key = budget_key_of(source, strlen(source));
    int64_t at = auth_throttle_schedule(&source_budgets, source_key, now + conn_delay, now);
    fail->answer_at_us = at;
    fail->close_after =
        (at - now - conn_delay) / AUTH_FAIL_SOURCE_INTERVAL_US >= AUTH_FAIL_SOURCE_FAILING_MAX;
    auth_stats.failures++;
    auth_stats.delayed++;
    return AUTH_WRONG;
}

/* requirepass: kept only as a hash (auth_set_default_password); CONFIG GET
 * shows whether one is set. */
static bool requirepass_parse_bytes(const char *value, size_t len, struct config_error *err)
{
    (void)err;
    auth_set_default_password(value, len);
    xfree(config.requirepass);
    config.requirepass = len ? xstrdup("(hashed)") : NULL;
    return true;
}

static bool requirepass_parse(const char *const *values, struct config_error *err)
{
    return requirepass_parse_bytes(values[0], strlen(values[0]), err);
}

static void requirepass_render(struct buf *out)
{
    if (auth_default_password_set()) buf_append(out, "(hashed)", 8);
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param auth_params[] = {
    {.name = "requirepass",
     .kind = CFG_CUSTOM,
     .flags = CFG_SECRET,
     .value_name = "PASSWORD",
     .help = "password of the default user (kept only as a hash)",
     .parse = requirepass_parse,
     .parse_bytes = requirepass_parse_bytes,
     .render = requirepass_render},
    {.name = "auth-file",
     .kind = CFG_STRING,
     .value = &config.auth_file,
     .flags = CFG_IMMUTABLE,
     .value_name = "FILE",
     .help = "users file: lines 'user password-hash' (libsodium crypto_pwhash_str)"},
};

const struct config_table auth_config = CONFIG_TABLE(auth_params, NULL);
