/*
 * acl.h — Redis 7.0's ACL users: their rules, how they are described, and
 * the per-selector checks (docs/acl.md).
 *
 * A user has flags (on/off, nopass, [skip-]sanitize-payload), passwords
 * (SHA-256, as Redis keeps them; an --auth-file user has an Argon2id hash
 * instead, core/auth.h) and selectors: the root one and any added with
 * "(...)". A selector allows commands (a bitmap indexed by command id, with
 * a reserved bit for commands to come that only +@all sets), key patterns
 * with read/write permissions, channel patterns, and first arguments of
 * otherwise refused commands (+select|0).
 *
 * This layer knows no command table: the command layer, at table init,
 * describes its commands once (acl_set_commands: full names, parents,
 * subcommands, ACL categories from the metadata COMMAND INFO carries), and
 * ids are indexes into that description. The order of that description is
 * the order ACL LIST emits single-command rules in (Redis's is the order of
 * a randomly seeded dict).
 *
 * Cost: the checks here are O(patterns) per key or channel, and allocate
 * nothing. Users are kept in an array sorted by name (ACL LIST/USERS order).
 */
#ifndef GOBLIN_ACL_H
#define GOBLIN_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;

#define ACL_COMMAND_BITS 1024 /* the last bit: commands to come (+@all) */
#define ACL_CATEGORY_COUNT 21

/* Redis 7.0's categories, in its order (ACL CAT). */
extern const char *const acl_category_names[ACL_CATEGORY_COUNT];

/* One command (or subcommand) as the command layer describes it. */
struct acl_command_info {
    const char *full_name; /* "get", "config|get" */
    int parent;            /* id of the container, -1 for a top-level command */
    int first_sub;         /* id of the first subcommand (they follow each other) */
    int sub_count;
    uint32_t categories; /* bit i: acl_category_names[i] */
    bool no_auth;        /* Redis's no_auth flag: allowed to every user */
    /* Redis 7.0 has it: only these weigh in the choice of categories when
     * rules are described (so descriptions are Redis's), all obey them. */
    bool in_redis;
};

/* Installs the commands (ids are indexes; count < ACL_COMMAND_BITS). The
 * array stays the caller's. */
void acl_set_commands(const struct acl_command_info *cmds, int count);
const struct acl_command_info *acl_command(int id);
int acl_command_count(void);
/* Id of a full name ("config|get", case-insensitive); -1 when unknown. */
int acl_command_lookup(const char *name, size_t len);
/* The category bit of a name without '@' (case-insensitive); -1 unknown. */
int acl_category_lookup(const char *name, size_t len);

enum acl_user_flag {
    ACL_USER_ENABLED = 1u << 0,
    ACL_USER_DISABLED = 1u << 1,
    ACL_USER_NOPASS = 1u << 2,
    ACL_USER_SKIP_SANITIZE = 1u << 3,
    ACL_USER_SANITIZE = 1u << 4,
};

enum acl_selector_flag {
    ACL_SELECTOR_ROOT = 1u << 0,
    ACL_SELECTOR_ALLKEYS = 1u << 1,
    ACL_SELECTOR_ALLCOMMANDS = 1u << 2,
    ACL_SELECTOR_ALLCHANNELS = 1u << 3,
};

enum acl_key_perm { ACL_KEY_READ = 1u << 0, ACL_KEY_WRITE = 1u << 1 };

struct acl_pattern {
    char *s;
    size_t len;
    unsigned perm; /* keys: enum acl_key_perm; channels: unused */
};

struct acl_firstarg {
    int id;
    char *arg; /* binary: may hold NUL bytes (a client's first argument may) */
    size_t len;
};

struct acl_selector {
    unsigned flags;
    uint64_t allowed[ACL_COMMAND_BITS / 64];
    struct acl_pattern *keys;
    int key_count;
    struct acl_pattern *channels;
    int channel_count;
    struct acl_firstarg *firstargs;
    int firstarg_count;
};

#define ACL_PASSWORD_HEX 64

/* A rule naming an unknown command or category (Redis's ENOENT). */
#define ACL_ERR_UNKNOWN "Unknown command or category name in ACL"

struct acl_user {
    char *name;
    size_t name_len;
    unsigned flags;
    char (*passwords)[ACL_PASSWORD_HEX + 1]; /* SHA-256, lowercase hex */
    int password_count;
    char *pwhash;                   /* an --auth-file user's Argon2id hash, else NULL */
    struct acl_selector *selectors; /* [0] is the root selector */
    int selector_count;
};

/* Why a check refused, Redis's ACL_DENIED_* values (their order matters:
 * the highest over all selectors is reported). */
enum acl_result {
    ACL_OK = 0,
    ACL_DENIED_CMD = 1,
    ACL_DENIED_KEY = 2,
    ACL_DENIED_AUTH = 3,
    ACL_DENIED_CHANNEL = 4,
};

/* acl-pubsub-default: allchannels (ACL_SELECTOR_ALLCHANNELS) or 0
 * (resetchannels, 7.0's default). */
extern unsigned acl_pubsub_default;

/* The default user (made on first use: on nopass ~* &* +@all). */
struct acl_user *acl_default_user(void);

/* A user by name; NULL when none. */
struct acl_user *acl_user_find(const char *name, size_t len);

/* Users in name order. */
int acl_user_count(void);
struct acl_user *acl_user_at(int i);

/* ACL SETUSER name args...: every argument applied to a copy, the copy
 * kept only when all succeed. On error writes Redis's message (without
 * "ERR ") into err and returns false. *created tells whether the user is
 * new. Arguments are rules as Redis parses them ("(" ... ")" merged). */
bool acl_setuser(const char *name, size_t name_len, int argc, const char *const *argv,
                 const size_t *lens, char *err, size_t errlen);

/* Applies one rule to u (no copy): false with errno-like reason in err. */
bool acl_user_apply(struct acl_user *u, const char *op, size_t len, char *err, size_t errlen);

/* Creates (or, with replace, empties) a user with Redis's new-user state
 * (off, no passwords, no keys, channels by acl-pubsub-default, -@all). */
struct acl_user *acl_user_create(const char *name, size_t len);

/* A user in Redis's new-user state that is in no table (ACL LOAD stages
 * the file's users in such; acl_replace_users adopts them). */
struct acl_user *acl_user_new(const char *name, size_t len);

/* Removes a user (never "default"); false when none. The struct stays
 * valid until acl_user_release (connections may still name it). */
bool acl_user_delete(const char *name, size_t len);

/* Copies and frees (for staging and ACL LOAD). */
struct acl_user *acl_user_clone(const struct acl_user *u);
void acl_user_free(struct acl_user *u);

/* Replaces the whole user set (ACL LOAD): users[] becomes the table; the
 * default user's contents are taken from the one named "default" in it
 * (or reset to Redis's default), keeping its address. Old users other than
 * default are freed. */
void acl_replace_users(struct acl_user **users, int count);

/* Writes the user's ACL LIST line without "user <name> ". */
void acl_describe_user(const struct acl_user *u, struct buf *out);

/* Parses an aclfile's text (core/acl_file_parse.c) into new users, not
 * installed (*users, *count; the caller frees them with acl_user_free and
 * the array with xfree): false, with Redis's messages in errors and
 * nothing left allocated, when any line is bad. A NUL ends the text, as
 * in Redis. */
bool acl_file_parse(const char *text, size_t len, const char *path, struct acl_user ***users,
                    int *count, struct buf *errors);
/* A selector's parts, as ACL GETUSER shows them. */
void acl_describe_commands(const struct acl_selector *s, struct buf *out);
void acl_describe_keys(const struct acl_selector *s, struct buf *out);
void acl_describe_channels(const struct acl_selector *s, struct buf *out);

/* Whether a password matches one of the user's SHA-256 ones (constant
 * time per password). NOPASS users match anything. */
bool acl_user_password_matches(const struct acl_user *u, const char *pw, size_t len);

/* Whether some user has a restriction (the admission check is needed). */
bool acl_any_restricted(void);
/* Whether u may do everything (one selector, all commands, keys, channels). */
bool acl_user_unrestricted(const struct acl_user *u);

/* Selector checks. argv1 is the first argument after the command name
 * (after the subcommand for one), NULL when none. */
bool acl_selector_allows_command(const struct acl_selector *s, int id, const char *arg,
                                 size_t arg_len);
bool acl_selector_allows_key(const struct acl_selector *s, const char *key, size_t len,
                             unsigned perm);
/* is_pattern: PSUBSCRIBE's argument, matched literally against patterns. */
bool acl_selector_allows_channel(const struct acl_selector *s, const char *ch, size_t len,
                                 bool is_pattern);

/* ACL GENPASS's hex text of `bits` random bits ((bits+3)/4 characters). */
void acl_genpass(int bits, char *out);

/* The SHA-256 hex of a password (">pass" rules). */
void acl_hash_password(const char *pw, size_t len, char out[ACL_PASSWORD_HEX + 1]);

/* Called after every change of the user set or of a user's rules (the
 * command layer installs the admission check when something is restricted). */
void acl_set_change_listener(void (*fn)(void));

#endif
