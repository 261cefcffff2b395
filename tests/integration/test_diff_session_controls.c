/*
 * Differential test against redis-server, RESP2 then RESP3: CLIENT REPLY
 * ON/OFF/SKIP (a command whose reply is suppressed is sent without reading;
 * the next compared reply would be off by one if either server answered it)
 * and the cluster-disabled answers of CLUSTER (every subcommand, arity and
 * unknown-subcommand errors), READONLY, READWRITE and ASKING; INFO
 * errorstats after a known sequence of errors (counted by code, listed in
 * byte order, reset by CONFIG RESETSTAT).
 */
#include <stdlib.h>

#include "diff.h"

static struct diff_pair d;

#define A(...) diff_check(&d, __VA_ARGS__, NULL)

/* Sends to both servers a command neither may answer. */
#define SILENT(...)                                                                                \
    do {                                                                                           \
        rconn_send(&d.g, __VA_ARGS__, NULL);                                                       \
        rconn_send(&d.r, __VA_ARGS__, NULL);                                                       \
    } while (0)

static void client_reply(void)
{
    A("DEL", "a");
    SILENT("CLIENT", "REPLY", "OFF");
    SILENT("SET", "a", "1");
    SILENT("INCR", "a");
    SILENT("NOSUCHCOMMAND"); /* errors are suppressed too */
    A("CLIENT", "REPLY", "ON");
    A("GET", "a");
    SILENT("CLIENT", "REPLY", "SKIP");
    SILENT("INCR", "a");
    A("GET", "a");
    SILENT("CLIENT", "REPLY", "SKIP");
    SILENT("CLIENT", "REPLY", "SKIP"); /* a second SKIP skips only itself... */
    SILENT("PING");                    /* ...and this */
    A("PING");
    SILENT("CLIENT", "REPLY", "OFF");
    SILENT("CLIENT", "REPLY", "SKIP"); /* no effect while OFF */
    A("CLIENT", "REPLY", "ON");
    A("PING");
    A("CLIENT", "REPLY", "MAYBE");
    A("CLIENT", "REPLY");
    A("CLIENT", "REPLY", "ON", "x");
    /* Pub/Sub acknowledgements are pushes: OFF and SKIP do not drop them
     * (Redis's CLIENT_PUSHING), in RESP2 as in RESP3. */
    SILENT("CLIENT", "REPLY", "OFF");
    A("SUBSCRIBE", "rc1"); /* one ack per command: A() reads one reply */
    SILENT("CLIENT", "REPLY", "SKIP");
    A("PSUBSCRIBE", "rc*");
    A("UNSUBSCRIBE");
    A("PUNSUBSCRIBE", "rc*");
    A("PUNSUBSCRIBE");
    A("CLIENT", "REPLY", "ON");
    A("PING");
    /* Inside a transaction the queued reply mode applies from EXEC on. */
    A("MULTI");
    A("CLIENT", "REPLY", "ON");
    A("EXEC");
}

static void cluster_disabled(void)
{
    static const char *const subs[][5] = {
        {"INFO"},
        {"MYID"},
        {"NODES"},
        {"SLOTS"},
        {"SHARDS"},
        {"LINKS"},
        {"HELP"},
        {"KEYSLOT", "k"},
        {"COUNTKEYSINSLOT", "1"},
        {"GETKEYSINSLOT", "1", "2"},
        {"ADDSLOTS", "1"},
        {"DELSLOTS", "1"},
        {"ADDSLOTSRANGE", "1", "2"},
        {"DELSLOTSRANGE", "1", "2"},
        {"BUMPEPOCH"},
        {"COUNT-FAILURE-REPORTS", "x"},
        {"FAILOVER"},
        {"FLUSHSLOTS"},
        {"FORGET", "x"},
        {"MEET", "127.0.0.1", "1"},
        {"REPLICAS", "x"},
        {"SLAVES", "x"},
        {"REPLICATE", "x"},
        {"RESET"},
        {"SAVECONFIG"},
        {"SET-CONFIG-EPOCH", "1"},
        {"SETSLOT", "1", "NODE", "x"},
    };
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        const char *argv[6] = {"CLUSTER"};
        int argc = 1;
        for (int k = 0; k < 5 && subs[i][k]; k++) argv[argc++] = subs[i][k];
        diff_check_argv(&d, argc, argv, NULL);
        diff_check_argv(&d, argc == 2 ? 3 : 2, (const char *const[]){"CLUSTER", subs[i][0], "x"},
                        NULL); /* arity where it is fixed, or a short form */
    }
    A("CLUSTER");
    A("CLUSTER", "NOSUCH");
    A("READONLY");
    A("READWRITE");
    A("ASKING");
    A("READONLY", "x");
}

static void errorstats(void)
{
    A("CONFIG", "RESETSTAT");
    A("INFO", "errorstats");
    A("SET", "str", "x");
    A("HGET", "str", "f");    /* WRONGTYPE */
    A("INCR", "str");         /* ERR */
    A("NOSUCHCOMMAND");       /* ERR */
    A("GET");                 /* ERR (arity) */
    A("CONFIG", "NOSUCHSUB"); /* ERR */
    A("MULTI");
    A("GET");
    A("EXEC"); /* EXECABORT */
    A("EXEC", "x");
    A("ZADD", "str", "1", "m");
    A("INFO", "errorstats");
    A("CONFIG", "RESETSTAT");
    A("INFO", "errorstats");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_session_controls");
    diff_start(&d, "diff_session_controls", seed, NULL, NULL);
    client_reply();
    cluster_disabled();
    errorstats();
    diff_hello3(&d);
    client_reply();
    cluster_disabled();
    errorstats();
    diff_stop(&d);
    return 0;
}
