/*
 * stream_id.h — a stream entry ID, <ms>-<seq>: two unsigned 64-bit
 * numbers ordered as one 128-bit number (ms first), as Redis's streamID.
 *
 * Text forms are Redis's: "<ms>-<seq>" with decimal digits, "<ms>" alone
 * (the sequence then defaults to what the caller says), "-" and "+" for
 * the smallest and largest IDs, and, where XADD allows it, "<ms>-*".
 * Parsing follows Redis's string2ull: digits only, no sign, no spaces, at
 * most 20 digits per part; values over UINT64_MAX fail.
 */
#ifndef GOBLIN_STREAM_ID_H
#define GOBLIN_STREAM_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stream_id {
    uint64_t ms;
    uint64_t seq;
};

/* -1, 0 or 1 as a < b, a == b, a > b. */
static inline int stream_id_cmp(const struct stream_id *a, const struct stream_id *b)
{
    if (a->ms != b->ms) return a->ms > b->ms ? 1 : -1;
    if (a->seq != b->seq) return a->seq > b->seq ? 1 : -1;
    return 0;
}

static inline bool stream_id_is_zero(const struct stream_id *id)
{
    return id->ms == 0 && id->seq == 0;
}

/* The next ID; false (and 0-0) when id was the largest (Redis's streamIncrID). */
bool stream_id_incr(struct stream_id *id);

/* The previous ID; false (and the largest ID) when id was 0-0 (streamDecrID). */
bool stream_id_decr(struct stream_id *id);

/* Longest text form: two 20-digit numbers and the dash. */
#define STREAM_ID_STR_MAX 42

/* Writes "<ms>-<seq>" (no NUL needed by the caller); returns its length. */
size_t stream_id_format(char *out, const struct stream_id *id);

/* How a text ID may look where it is parsed. */
enum stream_id_parse_flags {
    STREAM_ID_STRICT = 1u << 0,   /* "-" and "+" are refused */
    STREAM_ID_SEQ_STAR = 1u << 1, /* "<ms>-*" is accepted (XADD): *seq_given = false */
};

/* Parses an ID; a missing "-<seq>" part means missing_seq. seq_given may
 * be NULL unless STREAM_ID_SEQ_STAR. False for anything Redis refuses
 * with "Invalid stream ID specified as stream command argument". */
bool stream_id_parse(const char *s, size_t len, uint64_t missing_seq, unsigned flags,
                     struct stream_id *out, bool *seq_given);

/* The ID as the 16 big-endian bytes Redis uses for radix-tree keys and
 * RDB PEL entries. */
void stream_id_encode(unsigned char out[16], const struct stream_id *id);
void stream_id_decode(const unsigned char in[16], struct stream_id *id);

#endif
