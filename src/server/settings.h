/*
 * settings.h — every module's settings table registered with the engine
 * (core/config.h), in the order --help and CONFIG GET list them.
 */
#ifndef GOBLIN_SETTINGS_H
#define GOBLIN_SETTINGS_H

/* Fills the defaults and registers every table; before config_parse_args(). */
void settings_init(void);

#endif
