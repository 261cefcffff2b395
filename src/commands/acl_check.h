/*
 * acl_check.h — ACL enforcement in the command layer (docs/acl.md): the
 * admission check at dispatch, the same check for EXEC's queued commands,
 * scripts' redis.call and ACL DRYRUN, Redis's NOPERM texts, the ACL LOG,
 * the aclfile, and the clients a change of rules disconnects.
 *
 * Cost: acl_admit runs only while some user is restricted (the admission
 * bit of the hook word); for an unrestricted caller it is one lookup of
 * its user. For a restricted one it is O(selectors x patterns) per key or
 * channel, with no allocation (the key list buffer grows to the largest
 * request seen and is reused).
 */
#ifndef GOBLIN_ACL_CHECK_H
#define GOBLIN_ACL_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/acl.h"

struct buf;
struct cmd_ctx;
struct cmd_request;
struct command;
struct conn;
struct config_table;

/* The admission hook (command.h): NOPERM for what the caller's user may
 * not do, logged in the ACL LOG. */
bool acl_admit(const struct cmd_request *req, const struct command *cmd);

/* Redis's ACLCheckAllUserCommandPerm: ACL_OK, or why not, with the
 * argument position of the key or channel refused in *pos. */
enum acl_result acl_check_call(const struct acl_user *u, const struct command *cmd, int argc,
                               const char *const *argv, const size_t *lens, int *pos);

/* The check for the caller of a command run from inside another (EXEC's
 * queue, a script): ACL_OK or why not; logs a refusal (context "multi",
 * "lua") with the argument refused. */
enum acl_result acl_check_nested(struct conn *caller, const struct command *cmd, int argc,
                                 const char *const *argv, const size_t *lens, const char *context);

/* Redis's refusal of a script's call (scriptVerifyACL) and of a queued
 * command at EXEC (execCommand), without the error code. */
const char *acl_script_refusal(enum acl_result res);
const char *acl_exec_refusal(enum acl_result res);

/* Redis's getAclErrorMessage (verbose: ACL DRYRUN's wording) into out. */
void acl_denial_text(enum acl_result res, const struct command *cmd, const char *arg,
                     size_t arg_len, bool verbose, struct buf *out);

/* The row of an ACL command id (cmd_acl.c). */
struct command *acl_command_row(int id);

/* Closes every client authenticated as the user (ACL DELUSER, ACL LOAD);
 * the caller itself after its reply. */
void acl_kill_user_clients(const char *name, size_t len, struct conn *caller);

/* Redis's ACLKillPubsubClientsIfNeeded: after u's rules changed from
 * `old`, the clients of u subscribed to a channel or pattern u may no
 * longer use are closed. */
void acl_kill_pubsub_clients_if_needed(const struct acl_user *u, const struct acl_user *old);

/* Records a refusal in the ACL LOG (reason "command", "key", "channel",
 * "auth"; context "toplevel", "multi", "lua"; object). */
void acl_log_add(struct conn *c, const char *reason, const char *context, const char *object,
                 size_t object_len, const char *username, size_t username_len);

/* A failed AUTH (or HELLO AUTH: `command` as typed, the log's object) of c
 * naming `user`: counted, logged, and remembered for c's back-off
 * (acl_conn_auth_failures: failures of c so far). */
void acl_auth_failed(struct conn *c, const char *command, size_t command_len, const char *user,
                     size_t user_len);
int acl_conn_auth_failures(const struct conn *c);
/* The per-conn slot (session_ext) of that count; acl_commands_init. */
void acl_check_init(void);

/* INFO stats' acl_access_denied_* (goblin-core's own: Redis 7.2's names). */
struct acl_stats {
    long long denied_auth, denied_cmd, denied_key, denied_channel;
};
extern struct acl_stats acl_stats;

/* ACL LOG, ACL LOAD, ACL SAVE (acl_file.c / acl_log.c). */
void acl_log_command(struct cmd_ctx *ctx);
void acl_file_load_command(struct cmd_ctx *ctx);
/* The aclfile setting's path, NULL when none. */
const char *acl_file_path(void);
/* Loads the aclfile at startup (after the command table exists): false,
 * with Redis's message logged, when it is malformed. */
bool acl_file_load_startup(void);
/* ACL LOG's bound (acllog-max-len). */
extern long long acl_log_max_len;
/* aclfile, acllog-max-len, acl-pubsub-default. */
extern const struct config_table acl_config;
void acl_file_save_command(struct cmd_ctx *ctx);

#endif
