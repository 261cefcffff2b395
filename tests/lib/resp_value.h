/*
 * resp_value.h — a small RESP2/RESP3 reply parser for the differential
 * tests' checks by meaning (replies whose order or randomness legitimately
 * differ between servers), and aggregates compared as multisets.
 */
#ifndef GOBLIN_RESP_VALUE_H
#define GOBLIN_RESP_VALUE_H

#include <stdbool.h>
#include <stddef.h>

struct rv {
    char type;         /* '+', '-', ':', '$', '*', '%', '~', ',', '_', ... */
    long long integer; /* ':' value; '$' '*' '%' '~' length (-1 nil) */
    const char *str;   /* '+', '-', '$', ',' bytes */
    size_t len;
    struct rv *elems; /* '*', '%', '~' (a map has 2n elements) */
    size_t count;
};

/* Parses one reply at p into v (elements allocated); returns the byte after it. */
const char *rv_parse(const char *p, struct rv *v);
void rv_free(struct rv *v);
bool rv_is_nil(const struct rv *v);

struct bytes {
    const char *p;
    size_t n;
};

int bytes_cmp(const void *a, const void *b);

/* The elements of an aggregate taken `unit` at a time (pairs: 2) as sorted,
 * comparable byte strings; *arena holds their bytes (caller frees both). */
struct bytes *sorted_units(const struct rv *v, size_t unit, size_t *n_out, char **arena);

/* Same aggregate type and the same units, in any order. */
bool same_multiset(const struct rv *a, const struct rv *b, size_t unit);

#endif
