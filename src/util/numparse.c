/* numparse.c — number parsing and printing with Redis's acceptance rules. */
#include "util/numparse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/xmalloc.h"

bool num_parse_ll(const char *s, size_t len, long long *out)
{
    if (len == 0 || len > 20) return false;
    size_t i = 0;
    bool negative = false;
    if (s[0] == '-') {
        negative = true;
        if (++i == len) return false;
    }
    /* "0" is the only number allowed to start with 0 (so "-0" and "01" fail). */
    if (s[i] == '0') {
        if (len == 1) {
            *out = 0;
            return true;
        }
        return false;
    }
    unsigned long long v = 0;
    for (; i < len; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9) return false;
        if (v > (ULLONG_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (negative) {
        if (v > (unsigned long long)LLONG_MAX + 1) return false;
        *out = (long long)(0 - v);
    } else {
        if (v > (unsigned long long)LLONG_MAX) return false;
        *out = (long long)v;
    }
    return true;
}

bool num_parse_ull(const char *s, size_t len, unsigned long long *out)
{
    long long v;
    if (!num_parse_ll(s, len, &v) || v < 0) return false;
    *out = (unsigned long long)v;
    return true;
}

/* strtod needs a NUL-terminated copy; values longer than this are not numbers
 * Redis accepts either (MAX_LONG_DOUBLE_CHARS). */
#define NUM_MAX_INPUT 5 * 1024

bool num_parse_double(const char *s, size_t len, double *out)
{
    /* Fast path: an optional '-' and up to 15 digits is an integer strtod
     * would convert exactly (below 2^53); scores are often such. */
    if (len && len <= 15) {
        size_t i = s[0] == '-';
        if (i < len) {
            unsigned long long v = 0;
            size_t k = i;
            while (k < len && (unsigned)(s[k] - '0') < 10) v = v * 10 + (unsigned)(s[k++] - '0');
            if (k == len) {
                *out = i ? -(double)v : (double)v; /* "-0" is -0.0, as strtod says */
                return true;
            }
        }
    }
    char tmp[NUM_MAX_INPUT + 1];
    if (len == 0 || len > NUM_MAX_INPUT || isspace((unsigned char)s[0])) return false;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if ((size_t)(end - tmp) != len || isnan(v)) return false;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || fpclassify(v) == FP_ZERO))
        return false;
    *out = v;
    return true;
}

bool num_parse_long_double(const char *s, size_t len, long double *out)
{
    char tmp[NUM_MAX_INPUT + 1];
    if (len == 0 || len >= NUM_MAX_INPUT || isspace((unsigned char)s[0])) return false;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    errno = 0;
    long double v = strtold(tmp, &end);
    if ((size_t)(end - tmp) != len || isnan(v)) return false;
    if (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || v == 0)) return false;
    *out = v;
    return true;
}

size_t num_ll_len(long long v)
{
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    size_t n = v < 0 ? 2 : 1;
    while (u >= 10) u /= 10, n++;
    return n;
}

size_t num_format_ll(char *dst, long long v)
{
    char tmp[NUM_LL_STR_SIZE];
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t len = 0;
    if (v < 0) dst[len++] = '-';
    while (n) dst[len++] = tmp[--n];
    dst[len] = '\0';
    return len;
}

size_t num_format_double(char *dst, size_t cap, double v)
{
    if (isinf(v)) return (size_t)snprintf(dst, cap, "%s", v > 0 ? "inf" : "-inf");
    /* Integral values below 1e15 print under "%.17g" as plain integers:
     * format them without snprintf (but -0 keeps its sign there). */
    if (v > -1e15 && v < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v)) &&
        cap >= NUM_LL_STR_SIZE)
        return num_format_ll(dst, (long long)v);
    return (size_t)snprintf(dst, cap, "%.17g", v);
}

size_t num_format_long_double_human(char *dst, size_t cap, long double v)
{
    if (isinf(v) || isnan(v)) return 0;
    int n = snprintf(dst, cap, "%.17Lf", v);
    if (n < 0 || (size_t)n >= cap) return 0;
    if (strchr(dst, '.')) {
        while (n > 0 && dst[n - 1] == '0') n--;
        if (n > 0 && dst[n - 1] == '.') n--;
        dst[n] = '\0';
    }
    /* "-0" is printed as "0", as Redis does. */
    if (n == 2 && dst[0] == '-' && dst[1] == '0') {
        dst[0] = '0';
        dst[1] = '\0';
        n = 1;
    }
    return (size_t)n;
}

size_t num_format_fixed(char *dst, double v, int digits)
{
    static const double powers[] = {1e0, 1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
                                    1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
    size_t n = 0;
    if (v == 0) {
        dst[n++] = '0';
        dst[n++] = '.';
        for (int i = 0; i < digits; i++) dst[n++] = '0';
        dst[n] = '\0';
        return n;
    }
    /* llrint's out-of-range result (LLONG_MIN on x86-64) prints as Redis
     * prints it, as the magnitude 2^63. */
    long long scaled = llrint(v * powers[digits]);
    unsigned long long magnitude = (unsigned long long)scaled;
    if (scaled < 0) {
        dst[n++] = '-';
        magnitude =
            scaled == LLONG_MIN ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)-scaled;
    }
    unsigned long long unit = (unsigned long long)powers[digits];
    n += (size_t)snprintf(dst + n, 24, "%llu", magnitude / unit);
    dst[n++] = '.';
    unsigned long long fraction = magnitude % unit;
    for (int i = digits - 1; i >= 0; i--) {
        dst[n + (size_t)i] = (char)('0' + fraction % 10);
        fraction /= 10;
    }
    n += (size_t)digits;
    dst[n] = '\0';
    return n;
}

bool num_parse_memory(const char *s, size_t len, unsigned long long *out)
{
    size_t digits = 0;
    while (digits < len && isdigit((unsigned char)s[digits])) digits++;
    if (digits == 0) return false;
    unsigned long long mul;
    size_t slen = len - digits;
    const char *suffix = s + digits;
    if (slen == 0 || (slen == 1 && tolower((unsigned char)suffix[0]) == 'b'))
        mul = 1;
    else if (slen == 1 && tolower((unsigned char)suffix[0]) == 'k')
        mul = 1000ULL;
    else if (slen == 2 && strncasecmp(suffix, "kb", 2) == 0)
        mul = 1024ULL;
    else if (slen == 1 && tolower((unsigned char)suffix[0]) == 'm')
        mul = 1000ULL * 1000;
    else if (slen == 2 && strncasecmp(suffix, "mb", 2) == 0)
        mul = 1024ULL * 1024;
    else if (slen == 1 && tolower((unsigned char)suffix[0]) == 'g')
        mul = 1000ULL * 1000 * 1000;
    else if (slen == 2 && strncasecmp(suffix, "gb", 2) == 0)
        mul = 1024ULL * 1024 * 1024;
    else
        return false;
    unsigned long long v = 0;
    for (size_t i = 0; i < digits; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (ULLONG_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (v > ULLONG_MAX / mul) return false;
    *out = v * mul;
    return true;
}

/* Redis parses a SCAN cursor with strtoul(): no leading space, an optional
 * sign (negative values wrap), digits up to the first NUL, and "" is 0. */
bool num_parse_scan_cursor(const char *s, size_t len, unsigned long long *out)
{
    char small[64];
    len = strnlen(s, len);
    char *copy = len < sizeof small ? small : xmalloc(len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    char *end;
    errno = 0;
    *out = strtoull(copy, &end, 10);
    bool ok = !(len && (copy[0] == ' ' || (copy[0] >= '\t' && copy[0] <= '\r'))) && *end == '\0' &&
              errno != ERANGE;
    if (copy != small) xfree(copy);
    return ok;
}
