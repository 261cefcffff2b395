/*
 * settings.h — every module's settings table registered with the engine
 * (core/config.h), in the order --help and CONFIG GET list them.
 */
#ifndef GOBLIN_SETTINGS_H
#define GOBLIN_SETTINGS_H

/* Fills the defaults and registers every table; before config_parse_args(). */
void settings_init(void);

/* Redis 7.0 settings accepted and kept that have no effect here
 * (inert_settings.c), and the daemon's own (daemon.c: daemonize, pidfile,
 * logfile, syslog, supervised, crash log, signals). */
struct config_table;
extern const struct config_table inert_config;
extern const struct config_table daemon_config;

#endif
