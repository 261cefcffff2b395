/* Differential: connection and server commands (PING/ECHO/SELECT/SWAPDB/
 * FLUSHALL/FLUSHDB/CONFIG/CLIENT/HELLO/AUTH/COMMAND and dispatch errors) answer exactly
 * as redis-server does, with and without a password, in RESP2 and RESP3. */
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static void common_commands(struct diff_pair *d)
{
    diff_check(d, "PING", NULL);
    diff_check(d, "PING", "x", NULL);
    diff_check(d, "PING", "x", "y", NULL);
    diff_check(d, "ECHO", NULL);
    diff_check(d, "ECHO", "a b", NULL);
    diff_check(d, "NOSUCH", NULL);
    diff_check(d, "nosuch", "with", "args", NULL);
    diff_check(d, "SELECT", "-1", NULL);
    diff_check(d, "SELECT", "16", NULL);
    diff_check(d, "SELECT", "1.5", NULL);
    diff_check(d, "SELECT", "2147483648", NULL);
    diff_check(d, "SELECT", "-2147483649", NULL);
    diff_check(d, "SELECT", "99999999999999999999", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "-1", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "0", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "abc", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "123456789", "x", NULL);
    diff_check(d, "DEBUG", "SLEEP", "0", NULL);
    diff_check(d, "DEBUG", NULL);
    diff_check(d, "SELECT", "15", NULL);
    diff_check(d, "SET", "k", "in15", NULL);
    diff_check(d, "SWAPDB", "0", "15", NULL);
    diff_check(d, "SWAPDB", "0", "16", NULL);
    diff_check(d, "SWAPDB", "x", "1", NULL);
    diff_check(d, "SWAPDB", "1", "x", NULL);
    diff_check(d, "SWAPDB", "1", NULL);
    diff_check(d, "GET", "k", NULL);
    diff_check(d, "SELECT", "0", NULL);
    diff_check(d, "GET", "k", NULL);
    diff_check(d, "DBSIZE", NULL);
    diff_check(d, "DBSIZE", "x", NULL);
    diff_check(d, "FLUSHDB", "bogus", NULL);
    diff_check(d, "FLUSHDB", "ASYNC", "SYNC", NULL);
    diff_check(d, "FLUSHDB", "SYNC", NULL);
    diff_check(d, "FLUSHALL", "async", NULL);
    diff_check(d, "FLUSHALL", NULL);
    diff_check(d, "DBSIZE", NULL);

    /* CONFIG: the parameters both servers share, and the error paths. */
    diff_check(d, "CONFIG", NULL);
    diff_check(d, "CONFIG", "GET", NULL);
    diff_check(d, "CONFIG", "BOGUS", NULL);
    diff_check(d, "CONFIG", "GET", "maxclients", NULL);
    /* One parameter per GET: with several, Redis orders the pairs by its
     * internal table, not by the request. */
    static const char *const shared_params[] = {
        "databases", "timeout", "save", "appendonly", "proto-max-bulk-len",
        "client-query-buffer-limit", "maxmemory", "maxmemory-policy", "hz", "TIMEOUT",
        "tcp-keepalive", "tcp-backlog", NULL};
    for (int i = 0; shared_params[i]; i++) diff_check(d, "CONFIG", "GET", shared_params[i], NULL);
    diff_check(d, "CONFIG", "GET", "no-such-parameter", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "5", "hz", NULL);
    diff_check(d, "CONFIG", "SET", "no-such", "1", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "abc", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "-1", NULL);
    diff_check(d, "CONFIG", "SET", "databases", "4", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "1", "timeout", "2", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "30", "maxclients", "many", NULL);
    diff_check(d, "CONFIG", "GET", "timeout", NULL); /* unchanged: all or nothing */
    diff_check(d, "CONFIG", "SET", "timeout", "30", "hz", "20", NULL);
    diff_check(d, "CONFIG", "GET", "timeout", NULL);
    diff_check(d, "CONFIG", "GET", "hz", NULL);
    diff_check(d, "CONFIG", "SET", "hz", "5000", NULL);
    diff_check(d, "CONFIG", "GET", "hz", NULL);
    diff_check(d, "CONFIG", "SET", "hz", "0", NULL);
    diff_check(d, "CONFIG", "GET", "hz", NULL);
    diff_check(d, "CONFIG", "SET", "timeout", "0", "hz", "10", NULL);
    diff_check(d, "CONFIG", "SET", "maxclients", "0", NULL);
    diff_check(d, "CONFIG", "SET", "save", "", "appendonly", "no", NULL);
    diff_check(d, "CONFIG", "RESETSTAT", NULL);
    diff_check(d, "CONFIG", "RESETSTAT", "x", NULL);
    diff_check(d, "CONFIG", "REWRITE", NULL);

    /* CLIENT. */
    diff_check(d, "CLIENT", NULL);
    diff_check(d, "CLIENT", "BOGUS", NULL);
    diff_check(d, "CLIENT", "GETNAME", NULL);
    diff_check(d, "CLIENT", "SETNAME", "has space", NULL);
    diff_check(d, "CLIENT", "SETNAME", "new\nline", NULL);
    diff_check(d, "CLIENT", "SETNAME", "ok-name", NULL);
    diff_check(d, "CLIENT", "GETNAME", NULL);
    diff_check(d, "CLIENT", "SETNAME", "", NULL);
    diff_check(d, "CLIENT", "GETNAME", NULL);
    diff_check(d, "CLIENT", "KILL", "1.2.3.4:5", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "999999", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "0", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", "1", "SKIPME", "maybe", NULL);
    diff_check(d, "CLIENT", "KILL", "ID", NULL);
    diff_check(d, "CLIENT", "KILL", "TYPE", "bogus", NULL);
    diff_check(d, "CLIENT", "KILL", "BOGUS", "1", NULL);
    diff_check(d, "CLIENT", "LIST", "TYPE", "bogus", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "abc", NULL);
    diff_check(d, "CLIENT", "LIST", "ID", "999999", NULL);
    diff_check(d, "CLIENT", "LIST", "BOGUS", NULL);
    diff_check(d, "CLIENT", "NO-EVICT", "on", NULL);
    diff_check(d, "CLIENT", "NO-EVICT", "maybe", NULL);
    diff_check(d, "CLIENT", "ID", "extra", NULL);

    /* HELLO errors (the success map names the server and differs). */
    diff_check(d, "HELLO", "4", NULL);
    diff_check(d, "HELLO", "1", NULL);
    diff_check(d, "HELLO", "abc", NULL);
    diff_check(d, "HELLO", "3", "BOGUS", NULL);
    diff_check(d, "HELLO", "3", "SETNAME", NULL);
    diff_check(d, "HELLO", "3", "SETNAME", "bad name", NULL);

    /* COMMAND lookups whose answers do not depend on the table's size. */
    diff_check(d, "COMMAND", "INFO", "nosuch", NULL);
    diff_check(d, "COMMAND", "DOCS", "nosuch", NULL);
    diff_check(d, "COMMAND", "BOGUS", NULL);
    diff_check(d, "COMMAND", "COUNT", "x", NULL);
}

static void auth_commands(const char *name, unsigned long long seed)
{
    const char *const extra[] = {"--requirepass", "s3cret", NULL};
    struct diff_pair d;
    diff_start(&d, name, seed, extra, extra);
    /* Existence and arity are checked before authentication, as Redis does. */
    diff_check(&d, "NOSUCH", NULL);
    diff_check(&d, "GET", NULL);
    diff_check(&d, "GET", "k", NULL);
    diff_check(&d, "PING", NULL);
    diff_check(&d, "CONFIG", "GET", "timeout", NULL);
    diff_check(&d, "CLIENT", "ID", NULL);
    diff_check(&d, "HELLO", "3", NULL);
    diff_check(&d, "HELLO", "2", "AUTH", "default", "wrong", NULL);
    diff_check(&d, "AUTH", "wrong", NULL);
    diff_check(&d, "AUTH", "nobody", "s3cret", NULL);
    diff_check(&d, "AUTH", "a", "b", "c", NULL);
    diff_check(&d, "GET", "k", NULL);
    diff_check(&d, "AUTH", "s3cret", NULL);
    diff_check(&d, "GET", "k", NULL);
    diff_check(&d, "SET", "k", "v", NULL);
    diff_check(&d, "AUTH", "default", "s3cret", NULL);
    diff_check(&d, "AUTH", "default", "wrong", NULL);
    diff_check(&d, "GET", "k", NULL); /* a failed AUTH does not log the client out */

    /* HELLO with AUTH on a fresh connection authenticates it. */
    struct rconn g, r;
    diff_open_extra(&d, &g, &r);
    const char *hello[] = {"HELLO", "2", "AUTH", "default", "s3cret"};
    rconn_send_argv(&g, 5, hello, NULL);
    rconn_send_argv(&r, 5, hello, NULL);
    char *gr = rconn_read_reply(&g, NULL), *rr = rconn_read_reply(&r, NULL);
    CHECKF(gr[0] == '*' && rr[0] == '*', "HELLO 2 AUTH answered %c / %c", gr[0], rr[0]);
    free(gr);
    free(rr);
    const char *get[] = {"GET", "k"};
    rconn_send_argv(&g, 2, get, NULL);
    gr = rconn_read_reply(&g, NULL);
    CHECK_STR(gr, "$1\r\nv\r\n");
    free(gr);
    rconn_close(&g);
    rconn_close(&r);
    diff_stop(&d);
}

static void nopass_auth(struct diff_pair *d)
{
    diff_check(d, "AUTH", "x", NULL);
    diff_check(d, "AUTH", "default", "anything", NULL);
    diff_check(d, "AUTH", "someone", "x", NULL);
}

int main(void)
{
    unsigned long long seed = test_seed("diff_server");
    struct diff_pair d;
    diff_start(&d, "diff_server/resp2", seed, NULL, NULL);
    common_commands(&d);
    nopass_auth(&d);
    diff_check(&d, "QUIT", NULL);
    CHECK(rconn_wait_closed(&d.g, 5000));
    CHECK(rconn_wait_closed(&d.r, 5000));
    diff_stop(&d);

    diff_start(&d, "diff_server/resp3", seed, NULL, NULL);
    diff_hello3(&d);
    common_commands(&d);
    diff_stop(&d);

    auth_commands("diff_server/auth", seed);
    return 0;
}
