/* main.c — goblin-core: read the config file and flags, start, serve until
 * told to stop. */
#include <stdio.h>
#include <stdlib.h>

#include "core/config.h"
#include "server/daemon.h"
#include "server/server.h"
#include "server/settings.h"

int main(int argc, char **argv)
{
    settings_init();
    bool exit_now;
    if (!config_parse_args(argc - 1, argv + 1, &exit_now)) return 1;
    if (exit_now) return 0;
    if (!daemon_start()) return 1;
    if (!server_start()) {
        daemon_stop();
        return 1;
    }
    daemon_ready();
    server_run();
    server_stop();
    daemon_stop();
    return 0;
}
