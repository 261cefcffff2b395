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
 * Users and their passwords are core/acl.h's: SHA-256 passwords (ACL
 * rules, requirepass, as Redis keeps them) and, for --auth-file users,
 * Argon2id hashes (a keyed BLAKE2b digest of the accepted password is
 * cached after the first success, so later logins are a 32-byte compare).
 *
 * Failures are slowed, never the right password (docs/acl.md, "Login
 * throttle"):
 *  - A correct credential is answered at once, whatever other clients of
 *    the same address did: nothing is checked before the password.
 *  - A failure (wrong password, unknown or disabled user: the same work,
 *    the same answer, the same schedule) is answered WRONGPASS after a
 *    delay, without blocking the loop (the connection waits as a blocked
 *    client): at least AUTH_FAIL_CONN_BASE_US doubling with each failure
 *    of the connection up to AUTH_FAIL_CONN_MAX_US, and never sooner than
 *    AUTH_FAIL_SOURCE_INTERVAL_US after the previous failure answer to the
 *    same source (the peer's IPv4 address, IPv6 /64, Unix peer uid — see
 *    conn_peer_source()). So one source learns at most
 *    1 s / AUTH_FAIL_SOURCE_INTERVAL_US wrong guesses per second however
 *    many connections it opens, and one connection far fewer.
 *  - A source with more than AUTH_FAIL_SOURCE_FAILING_MAX failure answers
 *    queued has each further failing connection closed after its answer.
 *  - With --auth-file users, a failure costs one Argon2id verification
 *    (against a dummy hash for an unknown user) whoever it names, so the
 *    work does not tell users apart; those verifications are capped at
 *    AUTH_PWHASH_PER_SECOND server-wide (AUTH_BUSY beyond, the one answer
 *    that can refuse an --auth-file user's first login of a process).
 */
#ifndef GOBLIN_AUTH_H
#define GOBLIN_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUTH_FAIL_CONN_BASE_US 100000LL      /* a connection's first failure: 100 ms */
#define AUTH_FAIL_CONN_MAX_US 5000000LL      /* doubling up to 5 s */
#define AUTH_FAIL_SOURCE_INTERVAL_US 50000LL /* one failure answer per 50 ms per source */
#define AUTH_FAIL_SOURCE_FAILING_MAX 16      /* queued failure answers per source */
#define AUTH_PWHASH_PER_SECOND 20
#define AUTH_PWHASH_OPSLIMIT 2                   /* requirepass hash: as goblin-passwd */
#define AUTH_PWHASH_MEMLIMIT (16u * 1024 * 1024) /* bytes */

enum auth_result {
    AUTH_OK,
    AUTH_WRONG,       /* WRONGPASS: wrong password or no such user */
    AUTH_NO_PASSWORD, /* default user without any password configured */
    AUTH_BUSY,        /* the server-wide verification cap is reached this second */
};

/* Counters for INFO. */
struct auth_stats {
    long long pwhash_verifications; /* Argon2 verifications run */
    long long failures;             /* AUTH_WRONG answers */
    long long throttled;            /* AUTH_BUSY answers */
    long long delayed;              /* failure answers delayed */
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

/* When a failure is to be answered (AUTH_WRONG): at answer_at_us
 * (monotonic), the connection closed after it when close_after. */
struct auth_failure {
    int64_t answer_at_us;
    bool close_after;
};

/* Checks user/password for a peer identified by `source` (a NUL-terminated
 * text from conn_peer_source()) whose connection failed `conn_failures`
 * times before. See the schedule above; *fail is set for AUTH_WRONG. */
enum auth_result auth_check(const char *source, int conn_failures, const char *user,
                            size_t user_len, const char *password, size_t password_len,
                            struct auth_failure *fail);

/* Settings (core/config.h): requirepass, auth-file. */
struct config_table;
extern const struct config_table auth_config;

#endif
