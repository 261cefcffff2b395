/*
 * Differential test of scripts in cluster mode against redis-server (one
 * node each, slots 0-8000, cluster-require-full-coverage no), RESP2 and
 * RESP3, byte for byte: redis.call/pcall on a key this node does not serve
 * ("non local key"), a multi-key call across slots, keys of two slots
 * across calls (refused for shebang scripts and functions, allowed for an
 * EVAL without a shebang and with allow-cross-slot-keys), declared keys
 * fixing the slot, the 'no-cluster' flag, and EVAL's own routing of its
 * declared keys (CLUSTERDOWN for an unserved slot).
 * Slots: a 15495 (not served), b 3300, c 7365, {b}x 3300.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

static struct diff_pair d;

#define A(...) diff_check(&d, __VA_ARGS__, NULL)

static void wait_cluster_ok(struct rconn *c, const char *who)
{
    for (int i = 0; i < 500; i++) {
        char *info = rconn_call(c, "CLUSTER", "INFO", NULL);
        bool ok = strstr(info, "cluster_state:ok") != NULL;
        free(info);
        if (ok) return;
        usleep(20 * 1000);
    }
    CHECKF(false, "%s: cluster state never ok", who);
}

static void run_all(void)
{
    A("EVAL", "return redis.call('get','a')", "0");
    A("EVAL", "return redis.call('set','a','1')", "0");
    A("EVAL", "return redis.pcall('get','a')", "0");
    A("EVAL", "return redis.call('get','b')", "0");
    A("EVAL", "return redis.call('mget','b','c')", "0");
    A("EVAL", "return redis.call('mget','b','{b}x')", "0");
    A("EVAL", "return {redis.call('get','b'), redis.call('get','c')}", "0");
    A("EVAL", "return {redis.call('get',KEYS[1]), redis.call('get','c')}", "1", "b");
    A("EVAL", "return redis.call('ping')", "0");
    A("EVAL", "return redis.call('get','a')", "1", "a");
    A("EVAL", "return redis.call('get','b')", "1", "a");
    A("EVAL", "#!lua\nreturn {redis.call('get','b'), redis.call('get','c')}", "0");
    A("EVAL", "#!lua\nreturn {redis.call('get',KEYS[1]), redis.call('get','c')}", "1", "b");
    A("EVAL", "#!lua\nreturn {redis.call('get',KEYS[1]), redis.call('get','{b}x')}", "1", "b");
    A("EVAL", "#!lua\nreturn {redis.pcall('get','c'), redis.call('get','b')}", "1", "b");
    A("EVAL",
      "#!lua flags=allow-cross-slot-keys\nreturn {redis.call('get',KEYS[1]), "
      "redis.call('get','c')}",
      "1", "b");
    A("EVAL", "#!lua flags=allow-cross-slot-keys\nreturn redis.call('get','a')", "0");
    A("EVAL", "#!lua\nreturn redis.call('get','a')", "0");
    A("EVAL", "#!lua flags=no-cluster\nreturn 1", "0");
    A("EVAL", "#!lua flags=no-cluster,no-writes\nreturn 1", "0");
    A("FCALL", "touch_two", "1", "b");
    A("FCALL", "touch_far", "0");
    A("FCALL", "nocluster", "0");
    A("GET", "b");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_script_cluster");
    /* The bus on a free port of its own: port + 10000 may not exist. */
    char gbus[16], rbus[16];
    snprintf(gbus, sizeof gbus, "%d", test_free_port());
    snprintf(rbus, sizeof rbus, "%d", test_free_port());
    const char *const goblin_extra[] = {"--cluster-enabled",
                                        "yes",
                                        "--cluster-require-full-coverage",
                                        "no",
                                        "--cluster-port",
                                        gbus,
                                        NULL};
    const char *const redis_extra[] = {"--cluster-enabled",
                                       "yes",
                                       "--cluster-require-full-coverage",
                                       "no",
                                       "--cluster-port",
                                       rbus,
                                       NULL};
    diff_start(&d, "diff_script_cluster", seed, goblin_extra, redis_extra);
    A("CLUSTER", "ADDSLOTSRANGE", "0", "8000");
    wait_cluster_ok(&d.g, "goblin-core");
    wait_cluster_ok(&d.r, "redis-server");
    A("SET", "b", "vb");
    A("SET", "{b}x", "vbx");
    A("FUNCTION", "LOAD",
      "#!lua name=cl\n"
      "redis.register_function('touch_two', function(keys) return {redis.call('incr', keys[1]), "
      "redis.call('get', 'c')} end)\n"
      "redis.register_function('touch_far', function() return redis.call('get', 'a') end)\n"
      "redis.register_function{function_name='nocluster', callback=function() return 1 end, "
      "flags={'no-cluster'}}\n");
    run_all();
    diff_hello3(&d);
    run_all();
    diff_stop(&d);
    return 0;
}
