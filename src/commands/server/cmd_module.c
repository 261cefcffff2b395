/* cmd_module.c — MODULE: goblin-core has no module ABI (Redis modules are
 * shared objects linked against redis-server's RedisModule_* API, which
 * this server does not provide), so no module is ever loaded. MODULE LIST
 * answers the empty list Redis gives with none loaded, MODULE HELP Redis's
 * text, and MODULE LOAD/LOADEX refuse with that reason; UNLOAD answers
 * Redis's "no such module" (there never is one). As in Redis 7.0,
 * LOAD, LOADEX and UNLOAD are protected: enable-module-command (default
 * no) refuses them before they run (command.c). */
#include "commands/command.h"

static void cmd_module_list(struct cmd_ctx *ctx)
{
    reply_array_len(ctx->reply, 0);
}

static void cmd_module_load(struct cmd_ctx *ctx)
{
    reply_error(ctx->reply, "ERR Error loading the extension. goblin-core has no module ABI: "
                            "Redis modules cannot be loaded.");
}

static void cmd_module_unload(struct cmd_ctx *ctx)
{
    reply_error(ctx->reply, "ERR Error unloading module: no such module with that name");
}

static void cmd_module_help(struct cmd_ctx *ctx)
{
    static const char *const lines[] = {
        "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "LIST",
        "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load a module library from <path>, while passing it module configurations and "
        "optional arguments.",
        "UNLOAD <name>",
        "    Unload a module.",
        "HELP",
        "    Prints this help.",
        NULL,
    };
    reply_help(ctx->reply, lines);
}

#define MODULE_DOC(s, v) .summary = s, .since = v, .group = "server"

static struct command module_subcommands[] = {
    {.name = "help",
     .arity = 2,
     .flags = CMD_LOADING | CMD_STALE,
     .fn = cmd_module_help,
     MODULE_DOC("Returns helpful text about the different subcommands.", "5.0.0"),
     .complexity = "O(1)"},
    {.name = "list",
     .arity = 2,
     .flags = CMD_ADMIN | CMD_NOSCRIPT,
     .fn = cmd_module_list,
     MODULE_DOC("Returns all loaded modules.", "4.0.0"),
     .complexity = "O(N) where N is the number of loaded modules."},
    {.name = "load",
     .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_PROTECTED,
     .fn = cmd_module_load,
     MODULE_DOC("Loads a module.", "4.0.0"),
     .complexity = "O(1)"},
    {.name = "loadex",
     .arity = -3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_PROTECTED,
     .fn = cmd_module_load,
     MODULE_DOC("Loads a module using extended parameters.", "7.0.0"),
     .complexity = "O(1)"},
    {.name = "unload",
     .arity = 3,
     .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_PROTECTED,
     .fn = cmd_module_unload,
     MODULE_DOC("Unloads a module.", "4.0.0"),
     .complexity = "O(1)"},
    COMMAND_END,
};

struct command module_commands[] = {
    {.name = "module",
     .arity = -2,
     .subcommands = module_subcommands,
     MODULE_DOC("A container for module commands.", "4.0.0"),
     .complexity = "Depends on subcommand."},
    COMMAND_END,
};
