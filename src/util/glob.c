/* glob.c — Redis-compatible glob matching; see glob.h for semantics and cost. */
#include "util/glob.h"

#include <ctype.h>

/*
 * Bytes are compared as C `char` (signed on x86-64), exactly as Redis does,
 * so ranges involving bytes >= 0x80 order the same way.
 */
static int fold(int c, bool nocase)
{
    return nocase ? tolower((unsigned char)c) : c;
}

/* Matches one `[...]` class at *pp against ch; advances *pp and *plen to the
 * closing bracket (or the last pattern byte when unterminated). */
static bool match_class(const char **pp, size_t *plen, char ch, bool nocase)
{
    const char *p = *pp;
    size_t len = *plen;
    bool negate = len > 0 && p[0] == '^';
    bool hit = false;
    if (negate) p++, len--;
    for (;;) {
        if (len >= 2 && p[0] == '\\') {
            p++, len--;
            if (p[0] == ch) hit = true;
        } else if (len == 0) {
            /* Unterminated class: stay on the last byte so the caller's
             * step lands exactly on the end of the pattern. */
            p--, len++;
            break;
        } else if (p[0] == ']') {
            break;
        } else if (len >= 3 && p[1] == '-') {
            int lo = fold(p[0], nocase), hi = fold(p[2], nocase), c = fold(ch, nocase);
            if (lo > hi) {
                int t = lo;
                lo = hi;
                hi = t;
            }
            p += 2, len -= 2;
            if (c >= lo && c <= hi) hit = true;
        } else if (fold(p[0], nocase) == fold(ch, nocase)) {
            hit = true;
        }
        p++, len--;
    }
    *pp = p;
    *plen = len;
    return negate ? !hit : hit;
}

static bool match_impl(const char *p, size_t plen, const char *s, size_t slen, bool nocase,
                       bool *give_up, int nesting)
{
    if (nesting > GLOB_MAX_NESTING) return false;
    while (plen && slen) {
        switch (p[0]) {
        case '*':
            while (plen > 1 && p[1] == '*') p++, plen--;
            if (plen == 1) return true;
            while (slen) {
                if (match_impl(p + 1, plen - 1, s, slen, nocase, give_up, nesting + 1)) return true;
                if (*give_up) return false;
                s++, slen--;
            }
            /* The rest of the pattern failed against every suffix; a longer
             * expansion of any enclosing star cannot do better. */
            *give_up = true;
            return false;
        case '?':
            s++, slen--;
            break;
        case '[':
            p++, plen--;
            if (!match_class(&p, &plen, s[0], nocase)) return false;
            s++, slen--;
            break;
        case '\\':
            if (plen >= 2) p++, plen--;
            /* fall through */
        default:
            if (fold(p[0], nocase) != fold(s[0], nocase)) return false;
            s++, slen--;
            break;
        }
        p++, plen--;
        if (slen == 0) {
            while (plen && p[0] == '*') p++, plen--;
            break;
        }
    }
    return plen == 0 && slen == 0;
}

bool glob_match(const char *pattern, size_t pattern_len, const char *subject, size_t subject_len,
                bool nocase)
{
    bool give_up = false;
    return match_impl(pattern, pattern_len, subject, subject_len, nocase, &give_up, 0);
}
