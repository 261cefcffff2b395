/* settings.c — the list of settings tables; see settings.h. A module with
 * settings of its own defines a `struct config_table` of its rows and adds
 * one line here. */
#include "server/settings.h"

#include "cluster/cluster.h"
#include "commands/acl_check.h"
#include "commands/command.h"
#include "scripting/script_lua.h"
#include "scripting/script_sandbox.h"
#include "commands/slowlog.h"
#include "connection/conn.h"
#include "core/auth.h"
#include "core/config.h"
#include "core/event_loop.h"
#include "core/latency.h"
#include "core/latency_tracking.h"
#include "persist/aof.h"
#include "persist/persist.h"
#include "persist/rdb.h"
#include "repl/repl.h"
#include "server/placement.h"
#include "server/server.h"
#include "server/shutdown.h"
#include "store/db.h"
#include "store/evict.h"
#include "store/hash.h"
#include "store/hll.h"
#include "store/list.h"
#include "store/notify.h"
#include "store/set.h"
#include "store/stream.h"
#include "store/zset.h"
#include "transport/fabric.h"
#include "transport/ring.h"
#include "transport/socket.h"
#include "transport/tls.h"

static const struct config_table *const tables[] = {
    &socket_config,      &conn_config,           &db_config,
    &conn_output_config, &auth_config,           &tls_config,
    &ring_config,        &fabric_config,         &command_config,
    &placement_config,   &event_loop_config,     &server_config,
    &hash_config,        &zset_config,           &set_config,
    &list_config,        &stream_config,         &hll_config,
    &persist_config,     &notify_config,         &slowlog_config,
    &acl_config,         &latency_config,        &latency_tracking_config,
    &script_lua_config,  &script_sandbox_config, &cluster_config,
    &aof_config,         &evict_config,          &conn_evict_config,
    &rdb_config,         &conn_tracking_config,  &repl_config,
    &daemon_config,      &shutdown_config,       &inert_config,
};

void settings_init(void)
{
    config_init_defaults();
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) config_register(tables[i]);
}
