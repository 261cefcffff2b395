/*
 * reply_resp2.c — the RESP2 encoder table (the default wire).
 *
 * RESP2 has no map, set, push, double, boolean or null types; the
 * fallbacks are Redis's: maps and pair arrays flat, sets and pushes plain
 * arrays, doubles as bulk strings, booleans as 1/0, and two nils ($-1 for a
 * missing string, *-1 for a missing array). Contract in reply.h.
 */
#include "protocol/resp_encode.h"
#include "util/numparse.h"

static void resp2_floating(struct reply *r, double d)
{
    char tmp[NUM_DOUBLE_STR_SIZE];
    size_t n = num_format_double(tmp, sizeof tmp, d);
    resp_bulk(r, tmp, n);
}

static void resp2_nil(struct reply *r)
{
    buf_append(r->out, "$-1\r\n", 5);
}

static void resp2_nil_array(struct reply *r)
{
    buf_append(r->out, "*-1\r\n", 5);
}

static void resp2_boolean(struct reply *r, bool v)
{
    buf_append(r->out, v ? ":1\r\n" : ":0\r\n", 4);
}

/* A map of n pairs and an array of n pairs are both 2n flat elements. */
static void resp2_flat_pairs_len(struct reply *r, long long n)
{
    resp_header(r, '*', n * 2);
}

static void resp2_pair_begin(struct reply *r)
{
    (void)r; /* pairs are flat: no header */
}

static void resp2_verbatim(struct reply *r, const char *p, size_t n, const char *format3)
{
    resp_bulk(r, p, n);
}

static void resp2_defer_map(struct reply *r, reply_mark m, long long n)
{
    resp_header_at(r, m, '*', n * 2);
}

const struct reply_encoder reply_resp2 = {
    .proto = PROTO_RESP2,
    .status = resp_status,
    .error = resp_error,
    .integer = resp_integer,
    .floating = resp2_floating,
    .bulk = resp_bulk,
    .nil = resp2_nil,
    .nil_array = resp2_nil_array,
    .boolean = resp2_boolean,
    .array_len = resp_array_len,
    .map_len = resp2_flat_pairs_len,
    .set_len = resp_array_len,
    .push_len = resp_array_len,
    .pair_array_len = resp2_flat_pairs_len,
    .pair_begin = resp2_pair_begin,
    .verbatim = resp2_verbatim,
    .defer = resp_defer,
    .defer_array = resp_defer_array,
    .defer_map = resp2_defer_map,
    .defer_set = resp_defer_array,
};
