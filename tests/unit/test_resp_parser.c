/* Unit tests of the RESP request parser: every split point of pipelined
 * input, inline commands, and malformed input of every kind. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "protocol/resp_parser.h"
#include "util/split_args.h"
#include "util/buf.h"

static const struct request_limits limits = {.proto_max_bulk_len = 512LL * 1024 * 1024};

struct parsed {
    int commands;
    char text[8192]; /* "arg|arg;arg;" rendering of every command */
};

/* Feeds `input` to a fresh parser in pieces split at each offset of `splits`
 * (like reads arriving), consuming as a connection would. */
static enum resp_status feed(const char *input, size_t len, const size_t *splits, int nsplits,
                             struct parsed *out, const struct request_limits *lim)
{
    struct resp_parser p;
    resp_parser_init(&p);
    struct buf in;
    buf_init(&in, 16);
    out->commands = 0;
    out->text[0] = '\0';
    size_t fed = 0;
    enum resp_status st = RESP_INCOMPLETE;
    for (int s = 0; s <= nsplits; s++) {
        size_t upto = s < nsplits ? splits[s] : len;
        buf_append(&in, input + fed, upto - fed);
        fed = upto;
        /* Move the buffer between reads to prove offsets are relative. */
        buf_compact(&in);
        for (;;) {
            st = resp_parse(&p, buf_head(&in), buf_len(&in), lim);
            if (st == RESP_INCOMPLETE) break;
            if (st == RESP_ERROR) goto done;
            if (st == RESP_COMMAND) {
                out->commands++;
                /* Render only what fits; deep pipelines are checked by count. */
                for (int i = 0; i < p.argc; i++) {
                    size_t used = strlen(out->text);
                    if (used + p.argv_len[i] + 2 >= sizeof out->text) break;
                    strncat(out->text, p.argv[i], p.argv_len[i]);
                    strcat(out->text, i + 1 < p.argc ? "|" : ";");
                }
            }
            buf_consume(&in, p.consumed);
        }
    }
done:
    if (st == RESP_ERROR) snprintf(out->text, sizeof out->text, "ERROR:%s", p.error);
    resp_parser_free(&p);
    buf_free(&in);
    return st;
}

static void expect_parse(const char *input, const char *expected_text, int expected_commands)
{
    size_t len = strlen(input);
    struct parsed whole;
    feed(input, len, NULL, 0, &whole, &limits);
    CHECK_STR(whole.text, expected_text);
    CHECK_EQ_LL(whole.commands, expected_commands);
    /* Every single split point and every pair of split points gives the same result. */
    for (size_t a = 1; a < len; a++) {
        struct parsed part;
        size_t one[1] = {a};
        feed(input, len, one, 1, &part, &limits);
        CHECKF(strcmp(part.text, expected_text) == 0, "split at %zu: got %s", a, part.text);
        for (size_t b = a + 1; b < len && len < 200; b++) {
            size_t two[2] = {a, b};
            feed(input, len, two, 2, &part, &limits);
            CHECKF(strcmp(part.text, expected_text) == 0, "split at %zu,%zu: got %s", a, b,
                   part.text);
        }
    }
    /* Byte at a time. */
    size_t *every = malloc(sizeof(size_t) * len);
    for (size_t i = 0; i < len; i++) every[i] = i;
    struct parsed bytes;
    feed(input, len, every, (int)len, &bytes, &limits);
    CHECK_STR(bytes.text, expected_text);
    free(every);
}

static void expect_error(const char *input, size_t len, const char *error,
                         const struct request_limits *lim)
{
    struct parsed out;
    enum resp_status st = feed(input, len, NULL, 0, &out, lim);
    CHECKF(st == RESP_ERROR, "expected error for %s, got %s", input, out.text);
    char want[256];
    snprintf(want, sizeof want, "ERROR:%s", error);
    CHECK_STR(out.text, want);
}

static void test_multibulk(void)
{
    expect_parse("*1\r\n$4\r\nPING\r\n", "PING;", 1);
    expect_parse("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", "SET|k|;", 1);
    expect_parse("*2\r\n$3\r\nGET\r\n$3\r\na\r\n\r\n", "GET|a\r\n;", 1);
    /* Pipelined, with empty commands between. */
    expect_parse("*1\r\n$4\r\nPING\r\n*0\r\n*-1\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n",
                 "PING;ECHO|hi;", 2);
    /* Binary payload containing CR, LF, NUL-free. */
    expect_parse("*2\r\n$4\r\nECHO\r\n$5\r\na\r\nb\n\r\n", "ECHO|a\r\nb\n;", 1);
}

static void test_inline(void)
{
    expect_parse("PING\r\n", "PING;", 1);
    expect_parse("PING\n", "PING;", 1);
    expect_parse("SET k v\r\nGET k\r\n", "SET|k|v;GET|k;", 2);
    expect_parse("  set   a   b  \r\n", "set|a|b;", 1);
    expect_parse("\r\n\r\nPING\r\n", "PING;", 1);
    expect_parse("ECHO \"a b\\n\\x41\"\r\n", "ECHO|a b\nA;", 1);
    expect_parse("ECHO 'it\\'s'\r\n", "ECHO|it's;", 1);
    expect_parse("ECHO a\"b c\"\r\n", "ECHO|ab c;", 1);
    expect_parse("ECHO \"\"\r\n", "ECHO|;", 1);
    /* Mixed inline and multibulk. */
    expect_parse("PING\r\n*1\r\n$4\r\nPING\r\nPING\r\n", "PING;PING;PING;", 3);
}

static void test_deep_pipeline(void)
{
    struct buf in;
    buf_init(&in, 0);
    for (int i = 0; i < 5000; i++) buf_append(&in, "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n", 22);
    struct parsed out;
    size_t splits[3] = {7, 50000, 100001};
    CHECK(feed(buf_head(&in), buf_len(&in), splits, 3, &out, &limits) == RESP_INCOMPLETE);
    CHECK_EQ_LL(out.commands, 5000);
    buf_free(&in);
}

/* Feeds input in reads of `step` bytes as conn.c does with big bulks:
 * when the parser waits for one, what arrived of it moves into a strbuf,
 * the rest of it goes there directly, and the parser gets it back as an
 * external argument. Renders commands as feed() does, big arguments as
 * "<len:first byte>" (arguments over 32 bytes, all one byte: checked). Returns the number of
 * external arguments. */
static int feed_external(const char *input, size_t len, size_t step, struct parsed *out)
{
    struct resp_parser p;
    resp_parser_init(&p);
    struct buf in;
    buf_init(&in, 16);
    struct strbuf *big = NULL;
    size_t big_need = 0, fed = 0;
    int externals = 0;
    out->commands = 0;
    out->text[0] = '\0';
    while (fed < len) {
        size_t n = len - fed < step ? len - fed : step;
        if (big) {
            /* Reads into the argument's buffer stop at its end. */
            if (n > big_need - big->len) n = big_need - big->len;
            big = strbuf_resize(big, big->len + n);
            memcpy(big->data + big->len, input + fed, n);
            big->len += n;
            fed += n;
            if (big->len < big_need) continue;
            big->len -= 2;
            resp_parser_bulk_external(&p, big);
            big = NULL;
            externals++;
        } else {
            buf_append(&in, input + fed, n);
            fed += n;
        }
        for (;;) {
            enum resp_status st = resp_parse(&p, buf_head(&in), buf_len(&in), &limits);
            CHECK(st != RESP_ERROR);
            if (st == RESP_INCOMPLETE) {
                size_t at;
                long long blen = resp_parser_big_bulk(&p, buf_len(&in), &at);
                if (blen >= 0) {
                    CHECK(blen >= RESP_BIG_ARG);
                    big = strbuf_new(buf_head(&in) + at, buf_len(&in) - at, buf_len(&in) - at);
                    big_need = (size_t)blen + 2;
                    in.end = in.start + at;
                }
                break;
            }
            if (st == RESP_COMMAND) {
                out->commands++;
                for (int i = 0; i < p.argc; i++) {
                    char arg[64];
                    if (p.argv_len[i] > 32) {
                        bool same = true;
                        for (size_t j = 0; j < p.argv_len[i]; j++)
                            same &= p.argv[i][j] == p.argv[i][0];
                        CHECK(same);
                        snprintf(arg, sizeof arg, "<%zu:%c>", p.argv_len[i], p.argv[i][0]);
                    } else {
                        snprintf(arg, sizeof arg, "%.*s", (int)p.argv_len[i], p.argv[i]);
                    }
                    strcat(out->text, arg);
                    strcat(out->text, i + 1 < p.argc ? "|" : ";");
                }
                if (p.external.count) resp_parser_release_external(&p);
            }
            buf_consume(&in, p.consumed);
        }
    }
    CHECK(big == NULL);
    resp_parser_free(&p);
    buf_free(&in);
    return externals;
}

static void append_str(struct buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

static void append_bulk(struct buf *b, char fill, size_t len)
{
    char head[32];
    int n = snprintf(head, sizeof head, "$%zu\r\n", len);
    buf_append(b, head, (size_t)n);
    for (size_t i = 0; i < len; i++) buf_append_char(b, fill);
    buf_append(b, "\r\n", 2);
}

static void test_external_args(void)
{
    /* SET k <big> EX 10, then PING; MSET with two big values; a bulk one
     * byte short of the threshold (never external) and one at it. */
    struct buf in;
    buf_init(&in, 0);
    append_str(&in, "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n");
    append_bulk(&in, 'a', 100000);
    append_str(&in, "$2\r\nEX\r\n$2\r\n10\r\n*1\r\n$4\r\nPING\r\n");
    append_str(&in, "*5\r\n$4\r\nMSET\r\n$1\r\na\r\n");
    append_bulk(&in, 'b', 70000);
    append_str(&in, "$1\r\nc\r\n");
    append_bulk(&in, 'c', RESP_BIG_ARG);
    append_str(&in, "*2\r\n$4\r\nECHO\r\n");
    append_bulk(&in, 'd', RESP_BIG_ARG - 1);
    const char *expected =
        "SET|k|<100000:a>|EX|10;PING;MSET|a|<70000:b>|c|<32768:c>;ECHO|<32767:d>;";
    static const size_t steps[] = {16384, 4096, 1000, 65536, 1 << 20};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        struct parsed out;
        int externals = feed_external(buf_head(&in), buf_len(&in), steps[i], &out);
        CHECKF(strcmp(out.text, expected) == 0, "step %zu: got %s", steps[i], out.text);
        CHECK_EQ_LL(out.commands, 4);
        /* Reads shorter than any big bulk leave each incomplete once; one
         * read of everything leaves none incomplete. */
        if (steps[i] < RESP_BIG_ARG)
            CHECKF(externals == 3, "step %zu: %d externals", steps[i], externals);
        else if (steps[i] >= buf_len(&in))
            CHECK_EQ_LL(externals, 0);
    }
    /* The plain path parses the same bytes the same way. */
    struct parsed plain;
    feed(buf_head(&in), buf_len(&in), NULL, 0, &plain, &limits);
    CHECK_EQ_LL(plain.commands, 4);
    buf_free(&in);

    /* A protocol error after an external argument frees it (ASan run). */
    struct resp_parser p;
    resp_parser_init(&p);
    const char *head = "*3\r\n$3\r\nSET\r\n$40000\r\n";
    CHECK(resp_parse(&p, head, strlen(head), &limits) == RESP_INCOMPLETE);
    size_t at;
    CHECK_EQ_LL(resp_parser_big_bulk(&p, strlen(head), &at), 40000);
    CHECK_EQ_LL(at, strlen(head));
    struct strbuf *sb = strbuf_new(NULL, 0, 40002);
    memset(sb->data, 'z', 40002);
    sb->len = 40000;
    resp_parser_bulk_external(&p, sb);
    CHECK_EQ_LL(p.external.count, 1);
    char rest[64];
    snprintf(rest, sizeof rest, "%s+x\r\n", head);
    CHECK(resp_parse(&p, rest, strlen(rest), &limits) == RESP_ERROR);
    CHECK_EQ_LL(p.external.count, 0);
    resp_parser_free(&p);
}

static void test_malformed(void)
{
    expect_error("*x\r\n", 4, "Protocol error: invalid multibulk length", &limits);
    expect_error("*2147483648\r\n", 13, "Protocol error: invalid multibulk length", &limits);
    expect_error("*01\r\n", 5, "Protocol error: invalid multibulk length", &limits);
    expect_error("*1\r\n:1\r\n", 8, "Protocol error: expected '$', got ':'", &limits);
    expect_error("*1\r\n$-1\r\n", 9, "Protocol error: invalid bulk length", &limits);
    expect_error("*1\r\n$abc\r\n", 10, "Protocol error: invalid bulk length", &limits);
    expect_error("*1\r\n$536870913\r\n", 16, "Protocol error: invalid bulk length", &limits);
    expect_error("ECHO \"abc\r\n", 11, "Protocol error: unbalanced quotes in request", &limits);
    expect_error("ECHO \"a\"b\r\n", 11, "Protocol error: unbalanced quotes in request", &limits);
    expect_error("ECHO 'a\r\n", 9, "Protocol error: unbalanced quotes in request", &limits);

    /* Unauthenticated limits. */
    struct request_limits unauth = limits;
    unauth.auth_required = true;
    expect_error("*11\r\n", 5, "Protocol error: unauthenticated multibulk length", &unauth);
    expect_error("*1\r\n$16385\r\n", 12, "Protocol error: unauthenticated bulk length", &unauth);
    struct parsed ok;
    CHECK(feed("*10\r\n", 5, NULL, 0, &ok, &unauth) == RESP_INCOMPLETE);

    /* Oversized lines without a terminator. */
    size_t big = RESP_INLINE_MAX + 10;
    char *junk = malloc(big);
    memset(junk, 'a', big);
    expect_error(junk, big, "Protocol error: too big inline request", &limits);
    junk[0] = '*';
    expect_error(junk, big, "Protocol error: too big mbulk count string", &limits);
    memcpy(junk, "*1\r\n$", 5);
    expect_error(junk, big, "Protocol error: too big bulk count string", &limits);
    /* A NUL before the newline hides it, as Redis's strchr() does: the
     * line waits for more data, and past the inline limit it is an error. */
    struct parsed nul;
    CHECK(feed("GET\0k\r\n", 7, NULL, 0, &nul, &limits) == RESP_INCOMPLETE);
    memset(junk, 'a', big);
    junk[3] = '\0';
    junk[10] = '\n';
    expect_error(junk, big, "Protocol error: too big inline request", &limits);
    free(junk);
    /* A blank line is an empty command (with a non-NULL base: no NULL+0). */
    struct resp_parser p;
    resp_parser_init(&p);
    CHECK(resp_parse(&p, "\r\n", 2, &limits) == RESP_EMPTY);
    CHECK_EQ_LL(p.consumed, 2);
    resp_parser_free(&p);
}

static void test_split_args(void)
{
    struct buf out;
    buf_init(&out, 0);
    size_t *lens = NULL;
    int cap = 0;
    CHECK_EQ_LL(split_args("", 0, &out, &lens, &cap), 0);
    CHECK_EQ_LL(split_args("a \"b\" 'c d'", 11, &out, &lens, &cap), 3);
    CHECK_EQ_LL(lens[2], 3);
    CHECK(memcmp(buf_head(&out), "abc d", 5) == 0);
    buf_free(&out);
    free(lens);
}

int main(void)
{
    test_external_args();
    test_multibulk();
    test_inline();
    test_deep_pipeline();
    test_malformed();
    test_split_args();
    printf("resp parser: ok\n");
    return 0;
}
