/*
 * auth.h — passwords, kept only as hashes.
 *
 * Two sources: `--requirepass` (the default user's password) and
 * `--auth-file FILE` (lines "user hash", hash from libsodium's
 * crypto_pwhash_str — see tools/goblin-passwd). Neither is kept in clear.
 *
 * Hazard (documented in README): verifying an Argon2 hash costs
 * milliseconds of the single server thread. After a user's first successful
 * AUTH the server caches a keyed BLAKE2b digest of the accepted password, so
 * later AUTHs (right or wrong) are a constant-time 32-byte compare. Until
 * then, Argon2 verifications are limited to AUTH_PWHASH_PER_SECOND; beyond
 * that AUTH answers an error instead of stalling every other client.
 */
#ifndef GOBLIN_AUTH_H
#define GOBLIN_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define AUTH_PWHASH_PER_SECOND 5

enum auth_result {
    AUTH_OK,
    AUTH_WRONG,       /* WRONGPASS */
    AUTH_NO_PASSWORD, /* default user without any password configured */
    AUTH_THROTTLED,   /* too many uncached verifications this second */
};

/* Initialises libsodium and the digest key. Returns false on failure. */
bool auth_init(void);

/* Sets (len > 0) or clears the default user's password. */
void auth_set_default_password(const char *password, size_t len);
bool auth_default_password_set(void);

/* Loads users from a file; on error writes a message to err and returns false. */
bool auth_load_file(const char *path, char *err, size_t errlen);

/* True when connections must authenticate before ordinary commands. */
bool auth_required(void);

enum auth_result auth_check(const char *user, size_t user_len, const char *password,
                            size_t password_len);

#endif
