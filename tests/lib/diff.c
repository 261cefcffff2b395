/* diff.c — goblin-core vs redis-server, reply by reply; see diff.h. */
#include "diff.h"

#include <goblin/sbe_client.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diff_start(struct diff_pair *d, const char *name, unsigned long long seed,
                const char *const *goblin_extra, const char *const *redis_extra)
{
    memset(d, 0, sizeof *d);
    d->name = name;
    d->seed = seed;
    const char *wire = getenv("GOBLIN_DIFF_WIRE");
    d->sbe_wanted = wire && strcmp(wire, "sbe") == 0;
    const char *extra[64];
    int n = 0;
    for (; goblin_extra && goblin_extra[n] && n < 62; n++) extra[n] = goblin_extra[n];
    if (d->sbe_wanted) extra[n++] = "--enable-sbe";
    extra[n] = NULL;
    test_server_start(&d->goblin, TEST_SERVER_GOBLIN, extra);
    test_server_start(&d->redis, TEST_SERVER_REDIS, redis_extra);
    rconn_open_tcp(&d->g, d->goblin.port);
    rconn_open_tcp(&d->r, d->redis.port);
    const char *password = NULL;
    for (int i = 0; redis_extra && redis_extra[i] && redis_extra[i + 1]; i++)
        if (strcmp(redis_extra[i], "--requirepass") == 0) password = redis_extra[i + 1];
    diff_check_reference_version(d, password);
}

void diff_check_reference_version(struct diff_pair *d, const char *password)
{
    /* Asked on a connection of its own: the test's connections stay untouched. */
    struct rconn c;
    rconn_open_unix(&c, d->redis.unix_path);
    if (password) free(rconn_call(&c, "AUTH", password, NULL));
    char *info = rconn_call(&c, "INFO", "server", NULL);
    if (!strstr(info, DIFF_REDIS_VERSION)) {
        fprintf(stderr,
                "%s: the reference redis-server ($REDIS_SERVER or redis-server) is not version "
                "%s; the differential tests are written against that version's replies. "
                "INFO server answered:\n%.600s\n",
                d->name, DIFF_REDIS_VERSION_NUMBER, info);
        exit(1);
    }
    free(info);
    rconn_close(&c);
}

void diff_reconnect_unix(struct diff_pair *d)
{
    rconn_close(&d->g);
    rconn_close(&d->r);
    rconn_open_unix(&d->g, d->goblin.unix_path);
    rconn_open_unix(&d->r, d->redis.unix_path);
    d->unix_socket = true;
}

void diff_stop(struct diff_pair *d)
{
    goblin_sbe_close(d->sbe);
    rconn_close(&d->g);
    rconn_close(&d->r);
    test_server_stop(&d->goblin);
    test_server_stop(&d->redis);
    fprintf(stderr, "%s: %lld commands matched redis-server%s\n", d->name, d->commands,
            d->sbe ? " (RESP3 ones over SBE)" : "");
}

static void describe_command(int argc, const char *const *argv, const size_t *lens, char *out,
                             size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < argc && o + 8 < cap; i++) {
        char part[256];
        size_t len = lens ? lens[i] : strlen(argv[i]);
        resp_render(argv[i], len > 200 ? 200 : len, part, sizeof part);
        o += (size_t)snprintf(out + o, cap - o, "%s'%s'%s", i ? " " : "", part,
                              len > 200 ? "..." : "");
    }
}

/* goblin's reply over SBE, rendered as RESP3 (malloc'd, length in *len);
 * NULL when none came. */
static char *sbe_call(struct diff_pair *d, int argc, const char *const *argv, const size_t *lens,
                      size_t *len)
{
    CHECK(goblin_sbe_command(d->sbe, argc, argv, lens) > 0);
    struct goblin_sbe_reply r;
    if (goblin_sbe_read_reply(d->sbe, &r, 10000000) != 0) return NULL;
    char *out = NULL;
    size_t cap = 0;
    *len = 0;
    for (size_t i = 0; i < r.count;) i = goblin_sbe_to_resp3(&r, i, &out, len, &cap);
    goblin_sbe_reply_free(&r);
    return out ? out : calloc(1, 1);
}

char *diff_send_both(struct diff_pair *d, int argc, const char *const *argv, const size_t *lens)
{
    if (d->sbe) {
        size_t len;
        rconn_send_argv(&d->r, argc, argv, lens);
        free(rconn_read_reply(&d->r, NULL));
        char *g = sbe_call(d, argc, argv, lens, &len);
        CHECK(g != NULL);
        return g;
    }
    rconn_send_argv(&d->g, argc, argv, lens);
    rconn_send_argv(&d->r, argc, argv, lens);
    char *rr = rconn_read_reply(&d->r, NULL);
    free(rr);
    return rconn_read_reply(&d->g, NULL);
}

void diff_exchange(struct diff_pair *d, int argc, const char *const *argv, const size_t *lens,
                   char **g, size_t *glen, char **r, size_t *rlen)
{
    if (d->sbe) {
        *g = sbe_call(d, argc, argv, lens, glen);
        CHECK(*g != NULL);
    } else {
        rconn_send_argv(&d->g, argc, argv, lens);
    }
    rconn_send_argv(&d->r, argc, argv, lens);
    if (!d->sbe) *g = rconn_read_reply(&d->g, glen);
    *r = rconn_read_reply(&d->r, rlen);
}

void diff_check_argv(struct diff_pair *d, int argc, const char *const *argv, const size_t *lens)
{
    free(diff_check_argv_reply(d, argc, argv, lens, NULL));
}

char *diff_check_argv_reply(struct diff_pair *d, int argc, const char *const *argv,
                            const size_t *lens, size_t *len)
{
    size_t glen, rlen;
    char *gr;
    if (d->sbe) {
        gr = sbe_call(d, argc, argv, lens, &glen);
    } else {
        rconn_send_argv(&d->g, argc, argv, lens);
        gr = rconn_try_read_reply(&d->g, &glen, 10000);
    }
    rconn_send_argv(&d->r, argc, argv, lens);
    char *rr = rconn_read_reply(&d->r, &rlen);
    if (!gr || glen != rlen || memcmp(gr, rr, glen) != 0) {
        char cmd[2048], gtext[4096], rtext[4096];
        describe_command(argc, argv, lens, cmd, sizeof cmd);
        fprintf(
            stderr,
            "%s: MISMATCH after %lld matching commands (seed %llu; rerun with TEST_SEED=%llu)\n"
            "  command:      %s\n  redis-server: %s\n  goblin-core:  %s\n",
            d->name, d->commands, d->seed, d->seed, cmd, resp_render(rr, rlen, rtext, sizeof rtext),
            gr ? resp_render(gr, glen, gtext, sizeof gtext) : "(no reply: closed or timed out)");
        exit(1);
    }
    free(gr);
    d->commands++;
    if (len) *len = rlen;
    return rr;
}

void diff_check(struct diff_pair *d, ...)
{
    const char *argv[256];
    int argc = 0;
    va_list ap;
    va_start(ap, d);
    for (const char *a; (a = va_arg(ap, const char *)) && argc < 256;) argv[argc++] = a;
    va_end(ap);
    diff_check_argv(d, argc, argv, NULL);
}

void diff_check_on(struct diff_pair *d, struct rconn *g, struct rconn *r, ...)
{
    const char *argv[256];
    int argc = 0;
    va_list ap;
    va_start(ap, r);
    for (const char *a; (a = va_arg(ap, const char *)) && argc < 256;) argv[argc++] = a;
    va_end(ap);
    struct rconn main_g = d->g, main_r = d->r;
    d->g = *g;
    d->r = *r;
    diff_check_argv(d, argc, argv, NULL);
    *g = d->g;
    *r = d->r;
    d->g = main_g;
    d->r = main_r;
}

void diff_hello3(struct diff_pair *d)
{
    /* HELLO's map names the server and its version, which differ; switch
     * both and compare only that each answered with a map. */
    const char *argv[] = {"HELLO", "3"};
    rconn_send_argv(&d->g, 2, argv, NULL);
    rconn_send_argv(&d->r, 2, argv, NULL);
    char *gr = rconn_read_reply(&d->g, NULL);
    char *rr = rconn_read_reply(&d->r, NULL);
    CHECKF(gr[0] == '%' && rr[0] == '%', "HELLO 3 did not answer a map: goblin '%c' redis '%c'",
           gr[0], rr[0]);
    free(gr);
    free(rr);
    if (d->sbe_wanted) {
        int rc = d->unix_socket ? goblin_sbe_connect_unix(d->goblin.unix_path, &d->sbe)
                                : goblin_sbe_connect_tcp("127.0.0.1", d->goblin.port, &d->sbe);
        CHECKF(rc == 0, "SBE connection to goblin-core: %s", strerror(-rc));
    }
}

void diff_open_extra(struct diff_pair *d, struct rconn *g, struct rconn *r)
{
    if (d->unix_socket) {
        rconn_open_unix(g, d->goblin.unix_path);
        rconn_open_unix(r, d->redis.unix_path);
        return;
    }
    rconn_open_tcp(g, d->goblin.port);
    rconn_open_tcp(r, d->redis.port);
}
