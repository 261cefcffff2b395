/*
 * numparse.h — the one place that turns bytes into numbers and back, with
 * Redis's exact acceptance rules (so error replies match redis-server).
 */
#ifndef GOBLIN_NUMPARSE_H
#define GOBLIN_NUMPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest decimal int64 plus sign and NUL. */
#define NUM_LL_STR_SIZE 21
/* Room for any double/long double printed by this module. */
#define NUM_DOUBLE_STR_SIZE 5120

/* Strict signed 64-bit decimal: optional '-', no '+', no spaces, no leading
 * zeros (except "0"), no "-0". Returns false on anything else or overflow. */
bool num_parse_ll(const char *s, size_t len, long long *out);

/* Same but for unsigned values that must fit int64 and be >= 0. */
bool num_parse_ull(const char *s, size_t len, unsigned long long *out);

/* A double as Redis's getDoubleFromObject accepts it: strtod of the whole
 * string, no leading space, not NaN. "inf"/"-inf"/"+inf" are accepted. */
bool num_parse_double(const char *s, size_t len, double *out);

/* A long double as getLongDoubleFromObject: like num_parse_double; "inf" is
 * accepted here (INCRBYFLOAT rejects an infinite result itself). */
bool num_parse_long_double(const char *s, size_t len, long double *out);

/* Writes v in decimal to dst (no NUL needed by callers, but one is written);
 * returns the length. dst must hold NUM_LL_STR_SIZE bytes. */
size_t num_format_ll(char *dst, long long v);

/* Number of decimal bytes num_format_ll would write. */
size_t num_ll_len(long long v);

/* A double as Redis 7.0 replies it: "%.17g", and "inf"/"-inf". Returns length. */
size_t num_format_double(char *dst, size_t cap, double v);

/* A long double in Redis's "human" form (INCRBYFLOAT): "%.17Lf" with trailing
 * zeros and a trailing dot removed. Returns 0 when not representable. */
size_t num_format_long_double_human(char *dst, size_t cap, long double v);

/* v rounded to `digits` (1..17) decimals as Redis's fixedpoint_d2string
 * writes it (GEODIST, WITHDIST: "0.0000", "12.3457"): llrint(v * 10^digits)
 * split at the decimal point. dst must hold 24 + digits bytes. */
size_t num_format_fixed(char *dst, double v, int digits);

/* A memory size as Redis's config files write it: "123", "123b", "1k" (1000),
 * "1kb" (1024), "m", "mb", "g", "gb", case-insensitive. Returns false on a
 * bad number, unknown suffix or overflow. */
bool num_parse_memory(const char *s, size_t len, unsigned long long *out);

/* A SCAN/HSCAN/ZSCAN cursor as Redis reads it (strtoul semantics: optional
 * sign, negative values wrap, "" is 0, no leading space). */
bool num_parse_scan_cursor(const char *s, size_t len, unsigned long long *out);

#endif
