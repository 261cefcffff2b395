/* Unit tests of util/numparse: the fast paths for integral doubles agree
 * with strtod() and "%.17g" (Redis's conversions) on every case, and the
 * strict integer parser follows Redis's string2ll rules. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/numparse.h"

static void check_parse_double(const char *s)
{
    double fast;
    bool ok = num_parse_double(s, strlen(s), &fast);
    char *end;
    double ref = strtod(s, &end);
    bool ref_ok =
        *s && *s != ' ' && *end == '\0' && !isnan(ref); /* Redis refuses a leading space */
    CHECKF(ok == ref_ok, "'%s': accepted %d, strtod %d", s, ok, ref_ok);
    if (ok)
        CHECKF(memcmp(&fast, &ref, sizeof ref) == 0, "'%s': %.17g vs strtod %.17g", s, fast, ref);
}

static void check_format_double(double v)
{
    char fast[NUM_DOUBLE_STR_SIZE], ref[64];
    num_format_double(fast, sizeof fast, v);
    if (isinf(v))
        snprintf(ref, sizeof ref, "%s", v > 0 ? "inf" : "-inf");
    else
        snprintf(ref, sizeof ref, "%.17g", v);
    CHECKF(strcmp(fast, ref) == 0, "%.17g printed '%s', expected '%s'", v, fast, ref);
}

int main(void)
{
    static const char *const cases[] = {"0",
                                        "-0",
                                        "7",
                                        "007",
                                        "-12",
                                        "123456789012345",
                                        "-123456789012345",
                                        "1234567890123456",
                                        "1.5",
                                        "-",
                                        "",
                                        "1e3",
                                        "+5",
                                        " 1",
                                        "inf",
                                        "-inf",
                                        "0x10",
                                        "1a"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_parse_double(cases[i]);
    srand(12345);
    for (int i = 0; i < 200000; i++) {
        long long n = ((long long)rand() << 31 | rand()) % 2000000000000000LL - 1000000000000000LL;
        char s[32];
        snprintf(s, sizeof s, "%lld", n);
        check_parse_double(s);
        check_format_double((double)n);
        check_format_double((double)n / 8.0);
        check_format_double((double)n * 1e3);
    }
    static const double specials[] = {0.0,  -0.0, 1.0, -1.0, 1e15,   -1e15,    1e15 - 1,
                                      1e16, 1e17, 0.1, 1.1,  3.0e-5, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        check_format_double(specials[i]);

    long long v;
    CHECK(num_parse_ll("-9223372036854775808", 20, &v) && v == (-9223372036854775807LL - 1));
    CHECK(!num_parse_ll("9223372036854775808", 19, &v));
    CHECK(!num_parse_ll("-0", 2, &v) && !num_parse_ll("01", 2, &v) && !num_parse_ll("+1", 2, &v));
    CHECK(num_parse_ll("0", 1, &v) && v == 0);
    printf("numparse: ok\n");
    return 0;
}
