/* auth.c — password verification without clear-text storage; see auth.h. */
#include "server/auth.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/xmalloc.h"

struct auth_user {
    char *name;
    char *pwhash; /* crypto_pwhash_str output; NULL for the requirepass user */
    unsigned char digest[crypto_generichash_BYTES];
    bool has_digest; /* digest of the accepted password is known */
};

static unsigned char digest_key[crypto_generichash_KEYBYTES];
static struct auth_user default_user = {.name = "default"};
static bool default_from_requirepass;
static struct auth_user *file_users;
static size_t file_user_count;
static int64_t throttle_second;
static int throttle_used;

static bool initialised;

bool auth_init(void)
{
    /* Idempotent: the password may be set while flags are parsed, before startup. */
    if (initialised) return true;
    if (sodium_init() < 0) return false;
    randombytes_buf(digest_key, sizeof digest_key);
    initialised = true;
    return true;
}

static void password_digest(const char *pw, size_t len, unsigned char out[crypto_generichash_BYTES])
{
    crypto_generichash(out, crypto_generichash_BYTES, (const unsigned char *)pw, len, digest_key,
                       sizeof digest_key);
}

void auth_set_default_password(const char *password, size_t len)
{
    if (!auth_init()) abort();
    if (len == 0) {
        default_from_requirepass = false;
        default_user.has_digest = false;
        return;
    }
    password_digest(password, len, default_user.digest);
    default_user.has_digest = true;
    default_from_requirepass = true;
}

bool auth_default_password_set(void)
{
    return default_from_requirepass;
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
        if (strncmp(hash, "$argon2", 7) != 0 || strlen(hash) >= crypto_pwhash_STRBYTES) {
            snprintf(err, errlen,
                     "auth file '%s' line %d: '%s' has no crypto_pwhash_str hash (make one with "
                     "goblin-passwd)",
                     path, lineno, user);
            fclose(f);
            return false;
        }
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
    return default_from_requirepass || file_user_count > 0;
}

static struct auth_user *user_find(const char *name, size_t len)
{
    for (size_t i = 0; i < file_user_count; i++)
        if (strlen(file_users[i].name) == len && memcmp(file_users[i].name, name, len) == 0)
            return &file_users[i];
    if (len == 7 && memcmp(name, "default", 7) == 0 && default_from_requirepass)
        return &default_user;
    return NULL;
}

static bool throttle_allows(void)
{
    int64_t second = clock_mono_us() / 1000000;
    if (second != throttle_second) {
        throttle_second = second;
        throttle_used = 0;
    }
    return throttle_used++ < AUTH_PWHASH_PER_SECOND;
}

enum auth_result auth_check(const char *user, size_t user_len, const char *password,
                            size_t password_len)
{
    struct auth_user *u = user_find(user, user_len);
    if (!u) {
        if (user_len == 7 && memcmp(user, "default", 7) == 0 && !auth_required())
            return AUTH_NO_PASSWORD;
        return AUTH_WRONG;
    }
    unsigned char digest[crypto_generichash_BYTES];
    password_digest(password, password_len, digest);
    if (u->has_digest)
        return sodium_memcmp(digest, u->digest, sizeof digest) == 0 ? AUTH_OK : AUTH_WRONG;
    if (!throttle_allows()) return AUTH_THROTTLED;
    /* crypto_pwhash_str_verify wants a NUL-terminated password. */
    char *pw = xmemdup(password, password_len);
    int rc = crypto_pwhash_str_verify(u->pwhash, pw, password_len);
    sodium_memzero(pw, password_len);
    xfree(pw);
    if (rc != 0) return AUTH_WRONG;
    memcpy(u->digest, digest, sizeof digest);
    u->has_digest = true;
    return AUTH_OK;
}
