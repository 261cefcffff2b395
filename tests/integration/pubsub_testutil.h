/*
 * pubsub_testutil.h — helpers shared by the Pub/Sub integration tests:
 * expected raw bytes of acknowledgements and messages (RESP2 arrays, RESP3
 * pushes), reading and comparing replies, switching to RESP3, and raising
 * the descriptor limit for fan-out tests.
 */
#ifndef GOBLIN_PUBSUB_TESTUTIL_H
#define GOBLIN_PUBSUB_TESTUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "testlib.h"

/* Appends "$<len>\r\n<s>\r\n" (or a nil in the protocol's spelling) to out. */
static inline void put_bulk(struct buf *out, bool resp3, const char *s)
{
    char head[32];
    if (!s) {
        buf_append(out, resp3 ? "_\r\n" : "$-1\r\n", resp3 ? 3 : 5);
        return;
    }
    int n = snprintf(head, sizeof head, "$%zu\r\n", strlen(s));
    buf_append(out, head, (size_t)n);
    buf_append(out, s, strlen(s));
    buf_append(out, "\r\n", 2);
}

static inline char *buf_take_cstr(struct buf *b)
{
    buf_append_char(b, '\0');
    char *s = strdup(buf_head(b));
    buf_free(b);
    return s;
}

/* ["message", channel, payload] or ["pmessage", pattern, channel, payload]
 * (pattern == NULL for the former); the caller frees. */
static inline char *fmt_message(bool resp3, const char *pattern, const char *channel,
                                const char *payload)
{
    struct buf b;
    buf_init(&b, 128);
    char head[16];
    int n = snprintf(head, sizeof head, "%c%d\r\n", resp3 ? '>' : '*', pattern ? 4 : 3);
    buf_append(&b, head, (size_t)n);
    put_bulk(&b, resp3, pattern ? "pmessage" : "message");
    if (pattern) put_bulk(&b, resp3, pattern);
    put_bulk(&b, resp3, channel);
    put_bulk(&b, resp3, payload);
    return buf_take_cstr(&b);
}

/* [kind, name-or-nil, count]: a (p)(un)subscribe acknowledgement. */
static inline char *fmt_ack(bool resp3, const char *kind, const char *name, long long count)
{
    struct buf b;
    buf_init(&b, 128);
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%c3\r\n", resp3 ? '>' : '*');
    buf_append(&b, tmp, (size_t)n);
    put_bulk(&b, resp3, kind);
    put_bulk(&b, resp3, name);
    n = snprintf(tmp, sizeof tmp, ":%lld\r\n", count);
    buf_append(&b, tmp, (size_t)n);
    return buf_take_cstr(&b);
}

/* Reads one reply from c and checks it is exactly `expected` (freed here). */
#define EXPECT_REPLY(c, expected)                                                                  \
    do {                                                                                           \
        char *exp_ = (expected);                                                                   \
        size_t got_len_;                                                                           \
        char *got_ = rconn_read_reply((c), &got_len_);                                             \
        char got_text_[4096], exp_text_[4096];                                                     \
        CHECKF(got_len_ == strlen(exp_) && memcmp(got_, exp_, got_len_) == 0,                      \
               "\n  got:      %s\n  expected: %s",                                                 \
               resp_render(got_, got_len_, got_text_, sizeof got_text_),                           \
               resp_render(exp_, strlen(exp_), exp_text_, sizeof exp_text_));                      \
        free(got_);                                                                                \
        free(exp_);                                                                                \
    } while (0)

/* Same with a literal expected text (not freed). */
#define EXPECT_REPLY_STR(c, literal) EXPECT_REPLY((c), strdup(literal))

/* Switches c to RESP3 with HELLO 3; fails the test unless the server
 * answers with a map (no skipping: HELLO is part of the contract). */
static inline void hello3(struct rconn *c)
{
    char *r = rconn_call(c, "HELLO", "3", NULL);
    CHECKF(r[0] == '%', "HELLO 3 failed: %s", r);
    free(r);
}

/* Raises this process's descriptor limit to at least n (up to the hard limit). */
static inline void raise_nofile(rlim_t n)
{
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    if (rl.rlim_cur >= n) return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= n ? n : rl.rlim_max;
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    CHECKF(rl.rlim_cur >= n, "descriptor limit %llu below the %llu this test needs",
           (unsigned long long)rl.rlim_cur, (unsigned long long)n);
}

#endif
