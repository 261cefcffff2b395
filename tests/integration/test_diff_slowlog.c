/*
 * Differential test of SLOWLOG against redis-server, RESP2 and RESP3: with
 * slowlog-log-slower-than 0 every command is logged, so the same commands
 * give the same entries — ids, argument arrays (trimmed to 32 arguments and
 * 128 bytes with Redis's "... (N more ...)" texts, AUTH redacted), client
 * names — compared byte for byte once the fields that legitimately differ
 * (unix time, microseconds, the client's port) are normalised. Also
 * SLOWLOG LEN/RESET/HELP, GET counts and errors, slowlog-max-len trimming,
 * the CONFIG range errors, EXEC skipped while its commands are logged,
 * and a negative threshold logging nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "goblin/resp_reader.h"

static struct diff_pair d;
static bool resp3;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)

/* Copies one RESP element from *p to out; inside a slowlog entry (depth 2
 * array of 6) the time, duration and address are replaced by constants. */
static void copy_elem(const char **p, char **out, int depth, int pos)
{
    const char *s = *p;
    const char *eol = strstr(s, "\r\n");
    CHECK(eol != NULL);
    long long n = atoll(s + 1);
    if (depth == 2 && (pos == 1 || pos == 2)) {
        *out += sprintf(*out, ":0\r\n");
        *p = eol + 2;
        return;
    }
    if (depth == 2 && pos == 4) {
        CHECK(s[0] == '$');
        *out += sprintf(*out, "$4\r\naddr\r\n");
        *p = eol + 2 + n + 2;
        return;
    }
    memcpy(*out, s, (size_t)(eol + 2 - s));
    *out += eol + 2 - s;
    *p = eol + 2;
    if (s[0] == '*') {
        for (long long i = 0; i < n; i++) copy_elem(p, out, depth + 1, (int)i);
    } else if (s[0] == '$' && n >= 0) {
        memcpy(*out, *p, (size_t)n + 2);
        *out += n + 2;
        *p += n + 2;
    }
}

static char *normalise(const char *raw, size_t len)
{
    char *out = malloc(len * 2 + 64), *o = out;
    const char *p = raw;
    copy_elem(&p, &o, 0, 0);
    *o = '\0';
    return out;
}

static void check_get(const char *count)
{
    const char *argv[] = {"SLOWLOG", "GET", count};
    int argc = count ? 3 : 2;
    char *g, *r;
    size_t glen, rlen;
    diff_exchange(&d, argc, argv, NULL, &g, &glen, &r, &rlen);
    if (r[0] == '-') {
        CHECK(glen == rlen && memcmp(g, r, glen) == 0);
    } else {
        char *gn = normalise(g, glen), *rn = normalise(r, rlen);
        if (strcmp(gn, rn) != 0) {
            static char gt[16384], rt[16384];
            fprintf(stderr,
                    "diff_slowlog: MISMATCH in SLOWLOG GET %s\n  redis-server: %s\n  goblin-core:  "
                    "%s\n",
                    count ? count : "", resp_render(rn, strlen(rn), rt, sizeof rt),
                    resp_render(gn, strlen(gn), gt, sizeof gt));
            exit(1);
        }
        free(gn);
        free(rn);
    }
    free(g);
    free(r);
    d.commands++;
}

static void run(void)
{
    C("CONFIG", "SET", "slowlog-log-slower-than", "0");
    C("SLOWLOG", "RESET");
    C("SLOWLOG", "LEN");
    C("SET", "k", "v");
    C("GET", "k");
    C("CLIENT", "SETNAME", "named");
    C("INCR", "n");
    /* 40 arguments: 31 kept, the 32nd says how many more. */
    const char *many[40];
    many[0] = "SADD";
    many[1] = "s";
    for (int i = 2; i < 40; i++) many[i] = "m";
    diff_check_argv(&d, 40, many, NULL);
    /* A 300-byte argument: 128 bytes kept. */
    char big[301];
    memset(big, 'x', 300);
    big[300] = '\0';
    C("SET", "big", big);
    C("AUTH", "nobody", "wrongpass");
    C("AUTH", "wrongpass");
    /* The reply carries the client id: only the entry is compared. */
    const char *const hello[] = {"HELLO", resp3 ? "3" : "2", "AUTH", "default", "pass"};
    free(diff_send_both(&d, 5, hello, NULL));
    C("MULTI");
    C("SET", "t", "1");
    C("GET", "t");
    C("EXEC");
    C("CLIENT", "SETNAME", "");
    C("SLOWLOG", "LEN");
    check_get(NULL);
    check_get("-1");
    check_get("3");
    check_get("0");
    check_get("-2");
    check_get("x");
    C("SLOWLOG", "LEN", "1");
    C("SLOWLOG", "HELP");
    C("SLOWLOG", "NOPE");
    C("CONFIG", "SET", "slowlog-max-len", "3");
    C("SLOWLOG", "LEN");
    check_get("-1");
    C("CONFIG", "SET", "slowlog-max-len", "-1");
    C("CONFIG", "SET", "slowlog-log-slower-than", "-2");
    C("CONFIG", "GET", "slowlog-max-len");
    C("CONFIG", "GET", "slowlog-log-slower-than");
    C("CONFIG", "SET", "slowlog-log-slower-than", "-1");
    C("SLOWLOG", "RESET");
    C("SET", "k", "v");
    C("SLOWLOG", "LEN");
    C("CONFIG", "SET", "slowlog-log-slower-than", "10000");
    C("CONFIG", "SET", "slowlog-max-len", "128");
}

int main(void)
{
    unsigned long long seed = test_seed("diff_slowlog");
    diff_start(&d, "diff_slowlog", seed, NULL, NULL);
    run();
    diff_hello3(&d);
    resp3 = true;
    run();
    diff_stop(&d);
    return 0;
}
