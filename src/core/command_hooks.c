/* command_hooks.c — the word of rarely-active features; see command_hooks.h
 * (a file of its own so that what sets a bit links without command.c). */
#include "core/command_hooks.h"

uint32_t command_hooks;
