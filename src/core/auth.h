/*
 * auth.h — passwords, kept only as hashes, and what a guess costs.
 *
 * Two sources: `--requirepass` (the default user's password) and
 * `--auth-file FILE` (lines "user hash", hash from libsodium's
 * crypto_pwhash_str — see tools/goblin-passwd). Neither is kept in clear:
 * the requirepass is hashed with Argon2id (AUTH_PWHASH_OPSLIMIT/MEMLIMIT,
 * goblin-passwd's defaults) when it is set, and the flag's bytes are
 * overwritten in argv after parsing (config.c).
 *
 * Cost model (hazard, documented in README): an Argon2 verification costs
 * milliseconds of the single server thread.
 *  - A right password for a user whose digest is known (a keyed BLAKE2b
 *    digest cached after the user's first success; the requirepass digest is
 *    known from the start) is a constant-time 32-byte compare.
 *  - Every other attempt — first login, wrong password (cached or not),
 *    unknown user — costs exactly one Argon2id verification: against the
 *    user's hash, or for an unknown user against a dummy hash whose
 *    parameters are the most expensive of the configured hashes. A failure
 *    therefore costs the same whether or not the user exists, and answers
 *    the same WRONGPASS text. (With every hash made with the same
 *    parameters the costs are equal; a cheaper hash is cheaper to fail.)
 *  - Before any evaluation, failure budgets are checked (auth_throttle.h):
 *    per source (the peer's IPv4 address, IPv6 /64, Unix peer uid — see
 *    conn_peer_source()) AUTH_SOURCE_BURST failures, then one per
 *    AUTH_SOURCE_INTERVAL_US; per user name (known or not, so the budget
 *    reveals nothing) AUTH_USER_BURST, then one per AUTH_USER_INTERVAL_US.
 *    A spent budget answers AUTH_THROTTLED without looking at the password
 *    (not even the cached digest). The user budget is the larger one, so
 *    one source alone can never spend it; once many sources have spent it,
 *    it refuses only sources with unforgiven failures of their own — a
 *    clean source is still evaluated, so guessers cannot lock a user out
 *    (with --requirepass every client is "default"), and each guessing
 *    address gets one guess per source interval instead of a burst.
 *  - Server-wide, Argon2 verifications are capped at AUTH_PWHASH_PER_SECOND
 *    (AUTH_BUSY beyond) to bound how long guesses can stall the loop.
 *    One source's budget is far below it: exhausting it takes
 *    AUTH_PWHASH_PER_SECOND * AUTH_SOURCE_INTERVAL_US / 1 s sources.
 * Nothing sleeps: a throttled attempt is answered at once with an error.
 */
#ifndef GOBLIN_AUTH_H
#define GOBLIN_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#define AUTH_SOURCE_BURST 5
#define AUTH_SOURCE_INTERVAL_US 2000000LL /* then one failure per 2 s per source */
#define AUTH_USER_BURST 10
#define AUTH_USER_INTERVAL_US 1000000LL /* then one failure per second per user name */
#define AUTH_PWHASH_PER_SECOND 20
#define AUTH_PWHASH_OPSLIMIT 2                   /* requirepass hash: as goblin-passwd */
#define AUTH_PWHASH_MEMLIMIT (16u * 1024 * 1024) /* bytes */

enum auth_result {
    AUTH_OK,
    AUTH_WRONG,       /* WRONGPASS: wrong password or no such user */
    AUTH_NO_PASSWORD, /* default user without any password configured */
    AUTH_THROTTLED,   /* the source's or the user's failure budget is spent */
    AUTH_BUSY,        /* the server-wide verification cap is reached this second */
};

/* Counters for INFO. */
struct auth_stats {
    long long pwhash_verifications; /* Argon2 verifications run */
    long long failures;             /* AUTH_WRONG answers */
    long long throttled;            /* AUTH_THROTTLED and AUTH_BUSY answers */
};
extern struct auth_stats auth_stats;

/* Initialises libsodium, the digest key and the throttle tables. Returns
 * false on failure. Idempotent. */
bool auth_init(void);

/* Sets (len > 0) or clears the default user's password. Hashing it with
 * Argon2id takes milliseconds (a CONFIG SET requirepass stalls that long). */
void auth_set_default_password(const char *password, size_t len);
bool auth_default_password_set(void);

/* Loads users from a file; on error writes a message to err and returns false. */
bool auth_load_file(const char *path, char *err, size_t errlen);

/* Whether a user of this name exists: "default" always does (as in Redis,
 * with or without a password), and so does every --auth-file user. For
 * CLIENT KILL USER, which names users, not guesses: no throttle. */
bool auth_user_exists(const char *name, size_t len);

/* True when connections must authenticate before ordinary commands. */
bool auth_required(void);

/* Checks user/password for a peer identified by `source` (a NUL-terminated
 * text from conn_peer_source()). See the cost model above. */
enum auth_result auth_check(const char *source, const char *user, size_t user_len,
                            const char *password, size_t password_len);

/* Settings (core/config.h): requirepass, auth-file. */
struct config_table;
extern const struct config_table auth_config;

#endif
