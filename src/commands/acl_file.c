/* acl_file.c — the aclfile (Redis's format: one "user <name> <rules>" line
 * per user), ACL LOAD and ACL SAVE. */
#include "commands/acl_check.h"
#include "commands/command.h"

static const char no_aclfile[] =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";

void acl_file_load_command(struct cmd_ctx *ctx)
{
    reply_error(ctx->reply, no_aclfile);
}

void acl_file_save_command(struct cmd_ctx *ctx)
{
    reply_error(ctx->reply, no_aclfile);
}
