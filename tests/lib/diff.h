/*
 * diff.h — differential testing against a real redis-server.
 *
 * A diff_pair runs goblin-core and redis-server side by side (ephemeral
 * loopback ports) and sends both the same command on connections in the same
 * protocol (RESP2, or RESP3 after diff_hello3()). Replies are compared as raw
 * bytes: Redis is the judge of compatibility, byte for byte. On a mismatch
 * the command, both replies and the seed are printed and the test exits 1.
 *
 * Two wires, one store: with GOBLIN_DIFF_WIRE=sbe in the environment,
 * goblin-core runs with --enable-sbe and, from diff_hello3() on, every
 * compared command goes to it over the SBE wire instead (a connection of
 * its own, same store); its typed reply, rendered as RESP3
 * (goblin_sbe_to_resp3), must equal redis-server's RESP3 bytes. CTest runs
 * each test_diff_* suite once more that way (sbe.integration.*).
 */
#ifndef GOBLIN_DIFF_H
#define GOBLIN_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "testlib.h"

struct diff_pair {
    struct test_server goblin, redis;
    struct rconn g, r;
    unsigned long long seed;
    long long commands; /* compared so far */
    const char *name;
    bool unix_socket;       /* connections (and extra ones) over the Unix sockets */
    bool sbe_wanted;        /* GOBLIN_DIFF_WIRE=sbe */
    struct goblin_sbe *sbe; /* goblin's SBE connection once RESP3 comparisons start */
};

/* The reference: every expected reply in these tests is redis-server 7.0.15's. */
#define DIFF_REDIS_VERSION_NUMBER "7.0.15"
#define DIFF_REDIS_VERSION "redis_version:" DIFF_REDIS_VERSION_NUMBER "\r\n"

/* Starts both servers (extra args may be NULL) and connects to each. */
void diff_start(struct diff_pair *d, const char *name, unsigned long long seed,
                const char *const *goblin_extra, const char *const *redis_extra);

/* Fails the test (with a clear message) unless the reference redis-server
 * says redis_version:7.0.15 in INFO server; diff_start() calls it (with the
 * --requirepass it gave redis-server, when any). */
void diff_check_reference_version(struct diff_pair *d, const char *password);

/* Replaces both connections with connections over the servers' Unix
 * sockets; diff_open_extra() then opens Unix connections too. */
void diff_reconnect_unix(struct diff_pair *d);

/* Closes connections and stops both servers (checking goblin's exit status). */
void diff_stop(struct diff_pair *d);

/* Sends argv to both; fails the test unless the raw replies are identical. */
void diff_check_argv(struct diff_pair *d, int argc, const char *const *argv, const size_t *lens);

/* The same, returning the reply both sent (caller frees; its length in
 * *len when len is not NULL): for suites that also look at it. */
char *diff_check_argv_reply(struct diff_pair *d, int argc, const char *const *argv,
                            const size_t *lens, size_t *len);

/* Same with a NULL-terminated list of C strings. */
void diff_check(struct diff_pair *d, ...);

/* diff_check() on another pair of connections (g to goblin-core, r to
 * redis-server: a second client of each), compared the same way. */
void diff_check_on(struct diff_pair *d, struct rconn *g, struct rconn *r, ...);

/* Sends argv to both and returns goblin's raw reply (caller frees) without
 * comparing — for commands whose replies legitimately differ (INFO, TIME). */
char *diff_send_both(struct diff_pair *d, int argc, const char *const *argv, const size_t *lens);

/* Sends argv to both and returns both raw replies (caller frees), goblin's
 * over SBE once that is on: for suites that compare replies their own way. */
void diff_exchange(struct diff_pair *d, int argc, const char *const *argv, const size_t *lens,
                   char **g, size_t *glen, char **r, size_t *rlen);

/* Switches both connections to RESP3 (HELLO 3); the replies are compared too. */
void diff_hello3(struct diff_pair *d);

/* Opens a second pair of connections (e.g. for another client's view). */
void diff_open_extra(struct diff_pair *d, struct rconn *g, struct rconn *r);

#endif
