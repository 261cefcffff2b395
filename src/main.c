/* main.c — goblin-core: parse flags, start, serve until told to stop. */
#include <stdio.h>
#include <stdlib.h>

#include "core/config.h"
#include "server/server.h"
#include "server/settings.h"

int main(int argc, char **argv)
{
    settings_init();
    bool exit_now;
    if (!config_parse_args(argc - 1, argv + 1, &exit_now)) return 2;
    if (exit_now) return 0;
    if (!server_start()) return 1;
    server_run();
    server_stop();
    return 0;
}
