/* Unit tests of the glob matcher against Redis 7 stringmatchlen() semantics.
 * Every case-sensitive row was checked against redis-server 7.0.15 by
 * PSUBSCRIBE <pattern> + PUBLISH <subject> (pattern matching there has no
 * "*" shortcut, unlike KEYS and SCAN). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "util/glob.h"

struct glob_case {
    const char *pattern;
    const char *subject;
    bool nocase;
    bool match;
};

static const struct glob_case cases[] = {
    {"*", "anything", false, true},
    {"*", "", false, false}, /* Redis quirk: empty subject never matches */
    {"", "", false, true},
    {"", "a", false, false},
    {"a*", "a", false, true},
    {"a**", "a", false, true},
    {"h?llo", "hello", false, true},
    {"h?llo", "hllo", false, false},
    {"h*llo", "hllo", false, true},
    {"h*llo", "heeeello", false, true},
    {"h[ae]llo", "hello", false, true},
    {"h[ae]llo", "hillo", false, false},
    {"h[^e]llo", "hallo", false, true},
    {"h[^e]llo", "hello", false, false},
    {"h[a-b]llo", "hbllo", false, true},
    {"h[b-a]llo", "hallo", false, true}, /* reversed range */
    {"h[a-b]llo", "hcllo", false, false},
    {"h\\*llo", "h*llo", false, true},
    {"h\\*llo", "hello", false, false},
    {"[abc", "a", false, true}, /* unterminated class runs to the end */
    {"[abc", "d", false, false},
    {"[]", "a", false, false},
    {"[\\]]", "]", false, true},
    {"a[", "a", false, false},
    {"HELLO", "hello", true, true},
    {"HELLO", "hello", false, false},
    {"h[A-Z]llo", "hello", true, true},
    {"*a*b*c*", "xxaxxbxxcxx", false, true},
    {"*a*b*c*", "xxaxxcxxbxx", false, false},
    {"news.*", "news.tech", false, true},
    {"news.*", "new.tech", false, false},
    {"*?", "a", false, true},
    {"?*", "", false, false},
    {"\\", "\\", false, true},
    {"a\\", "a\\", false, true},
};

static void test_table(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct glob_case *c = &cases[i];
        bool got =
            glob_match(c->pattern, strlen(c->pattern), c->subject, strlen(c->subject), c->nocase);
        CHECKF(got == c->match, "pattern '%s' subject '%s' nocase=%d: got %d", c->pattern,
               c->subject, c->nocase, got);
    }
}

/* A pathological pattern must stay fast (pruning), not go exponential. */
static void test_no_exponential_backtracking(void)
{
    char pattern[200], subject[200];
    memset(pattern, 0, sizeof pattern);
    for (int i = 0; i < 30; i++) strcat(pattern, "a*");
    strcat(pattern, "b");
    memset(subject, 'a', 150);
    subject[150] = '\0';
    CHECK(!glob_match(pattern, strlen(pattern), subject, strlen(subject), false));
}

int main(void)
{
    test_table();
    test_no_exponential_backtracking();
    printf("glob: ok\n");
    return 0;
}
