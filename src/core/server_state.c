/* server_state.c — the process's identity; see server_state.h. */
#include "core/server_state.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "util/clock.h"

struct server server;
struct repl_stats repl_stats;

static void make_random_id(char id[41])
{
    unsigned char raw[20];
    if (getrandom(raw, sizeof raw, 0) != sizeof raw) memset(raw, 0x5a, sizeof raw);
    for (int i = 0; i < 20; i++) snprintf(id + 2 * i, 3, "%02x", raw[i]);
}

void server_state_init(void)
{
    server.start_ms = clock_unix_ms();
    server.start_mono_us = clock_mono_us();
    make_random_id(server.run_id);
    memcpy(server.repl_id, server.run_id, sizeof server.repl_id);
}

void server_change_repl_id(void)
{
    make_random_id(server.repl_id);
}
