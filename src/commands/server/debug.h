/* debug.h — DEBUG (cmd_debug.c) and what it shares with OBJECT. */
#ifndef GOBLIN_COMMANDS_DEBUG_H
#define GOBLIN_COMMANDS_DEBUG_H

#include "commands/command.h"

void cmd_debug(struct cmd_ctx *ctx);

/* OBJECT REFCOUNT's answer for kv (cmd_object.c): Redis's shared-integer
 * count for 0..9999, 1 otherwise. DEBUG OBJECT prints it too. */
long long object_refcount(const struct kv *kv);

#endif
