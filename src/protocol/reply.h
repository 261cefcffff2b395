/*
 * reply.h — the reply sink: how every command answers.
 *
 * Command handlers describe a reply as typed values (an integer, a bulk
 * string, an array of n elements, a map, a double, a nil) and never format
 * protocol bytes themselves, nor ask which protocol the connection speaks.
 * Bytes are appended to the sink's output buffer (`out`, owned by the
 * caller — for a connection, its output buffer); the connection writes them
 * as soon as the command returns.
 *
 * Encoder tables
 * --------------
 * Each wire is one `const struct reply_encoder` (reply_resp2.c,
 * reply_resp3.c; the RESP primitives they share are in resp_encode.c). A
 * reply_* call is one indirect call through the sink's table: no copy, no
 * allocation beyond growing `out`. Every row must be filled; a row appends
 * exactly one encoded value (or header) at the end of `out` and nothing
 * else, except the defer rows below. Per row, what RESP2 / RESP3 produce:
 *
 *   status          +<s>                           (same)
 *   error           -<text>, CR/LF -> space        (same)
 *   integer         :<n>                           (same)
 *   floating        $ bulk "%.17g"/"inf"/"-inf"    ,<same text> ("nan" for NaN)
 *   bulk            $<n> <bytes>                   (same)
 *   nil             $-1                            _
 *   nil_array       *-1                            _
 *   boolean         :1 / :0                        #t / #f
 *   array_len       *<n>                           (same)
 *   map_len         *<2n> (flat key, value, ...)   %<n>
 *   set_len         *<n>                           ~<n>
 *   push_len        *<n>                           ><n>
 *   pair_array_len  *<2n> (flat)                   *<n> (each element a pair)
 *   pair_begin      nothing                        *2
 *   verbatim        $ bulk of the text             =<n+4> <fmt>:<text>
 *   defer           position mark (no bytes)       (same)
 *   defer_array/map/set  the header that array_len/map_len/set_len would
 *                   have written, inserted at the mark
 *
 * These are Redis 7.0's spellings; the differential tests hold them to
 * redis-server byte for byte. RESP3 big numbers and attributes are not rows:
 * no command answers with them yet.
 *
 * A pair array is Redis's "array of (member, score) / (field, value)"
 * (ZRANGE WITHSCORES, ZRANDMEMBER/HRANDFIELD with scores or values): the
 * handler calls reply_pair_array_len(n), then reply_pair_begin() before
 * each pair's two values, and the table decides flat vs nested.
 *
 * Lengths not known in advance (KEYS, SCAN) use a deferred header:
 * reply_defer() marks the spot, reply_defer_*() fills it when the count is
 * known. Marks stay valid until the command returns.
 *
 * Statistics (reply_error_count) are kept here, in front of the table, so
 * every wire counts the same way.
 *
 * Framed wires (SBE, reply_sbe.c) send one frame per reply, so the
 * table has two optional rows the caller brackets every reply with:
 * frame_begin(correlation) before the command runs and frame_end() after
 * (reply_frame_begin / reply_frame_end; no-ops for RESP, whose rows are
 * NULL). The frame's state (where it starts, how many values it holds)
 * lives in struct reply next to `enc`. A frame is written lazily, at its
 * first value, so a reply that writes nothing sends nothing.
 */
#ifndef GOBLIN_REPLY_H
#define GOBLIN_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/buf.h"

enum proto {
    PROTO_RESP2 = 2,
    PROTO_RESP3 = 3,
    PROTO_SBE = 4, /* the binary wire (RESP3's value types); HELLO does not change it */
};

typedef size_t reply_mark;

struct reply;

/* One wire's reply encoding; contract in the header comment. */
struct reply_encoder {
    enum proto proto;
    void (*status)(struct reply *r, const char *s, size_t n);
    void (*error)(struct reply *r, const char *text, size_t n);
    void (*integer)(struct reply *r, long long v);
    void (*floating)(struct reply *r, double d);
    void (*bulk)(struct reply *r, const void *p, size_t n);
    void (*nil)(struct reply *r);
    void (*nil_array)(struct reply *r);
    void (*boolean)(struct reply *r, bool v);
    void (*array_len)(struct reply *r, long long n);
    void (*map_len)(struct reply *r, long long n);
    void (*set_len)(struct reply *r, long long n);
    void (*push_len)(struct reply *r, long long n);
    void (*pair_array_len)(struct reply *r, long long n);
    void (*pair_begin)(struct reply *r);
    void (*verbatim)(struct reply *r, const char *p, size_t n, const char *format3);
    reply_mark (*defer)(struct reply *r);
    void (*defer_array)(struct reply *r, reply_mark m, long long n);
    void (*defer_map)(struct reply *r, reply_mark m, long long n);
    void (*defer_set)(struct reply *r, reply_mark m, long long n);
    /* Framed wires only (NULL otherwise): see "Framed wires" above. */
    void (*frame_begin)(struct reply *r, uint64_t correlation);
    void (*frame_end)(struct reply *r);
};

extern const struct reply_encoder reply_resp2;
extern const struct reply_encoder reply_resp3;
extern const struct reply_encoder reply_sbe;

struct reply {
    struct buf *out;
    const struct reply_encoder *enc; /* set through reply_init / reply_set_protocol */
    /* Framed wires: the frame being written (reply_sbe.c). */
    uint64_t correlation; /* what the open frame answers (0: a push) */
    size_t frame_at;      /* offset from out's head of its length prefix; SIZE_MAX: none yet */
    size_t group_at;      /* a values frame: offset of its group dimension */
    uint32_t values;      /* a values frame: entries so far */
    uint16_t template_id; /* of the open frame */
};

/* Counters for INFO stats (total_error_replies). */
extern long long reply_error_count;
/* Error replies sent by reply_error_uncounted() (counted earlier). */
extern long long reply_uncounted_errors;

/* INFO errorstats: error replies counted by their code (the text before the
 * first space, within the first 32 bytes; "ERR" when there is none), as
 * Redis 7.0 counts them. At most REPLY_ERROR_CODES_MAX distinct codes are
 * tracked (a peer cannot grow the table); replies with a new code past that
 * are only in reply_error_count. */
#define REPLY_ERROR_CODES_MAX 128
void reply_error_stats_foreach(void (*fn)(const char *code, long long count, void *arg), void *arg);
void reply_error_stats_reset(void);
/* Counts an error reply that is sent later, or never (a script's inner
 * command refused, its error caught by redis.pcall, as Redis counts it);
 * reply_error_uncounted() then sends it without counting it again. */
void reply_count_error(const char *text, size_t len);

/* The encoder table of each encoding, by its enum proto value (one row per
 * encoding in reply.c; NULL for a value that names none). */
const struct reply_encoder *reply_encoder_for(enum proto p);

/* The sink writes to `out` in protocol p. */
void reply_init(struct reply *r, struct buf *out, enum proto p);
/* Switches the sink's encoding (wire detection, HELLO, RESET: the wire
 * decides which, protocol/wire.h wire_encoder()); takes effect with the next
 * call. */
void reply_set_encoder(struct reply *r, const struct reply_encoder *enc);

static inline enum proto reply_protocol(const struct reply *r)
{
    return r->enc->proto;
}

/* Brackets one reply (or one push) on a framed wire; no-ops for RESP.
 * reply_frame_end returns the correlation the frame answered. */
static inline void reply_frame_begin(struct reply *r, uint64_t correlation)
{
    if (r->enc->frame_begin) r->enc->frame_begin(r, correlation);
}
static inline uint64_t reply_frame_end(struct reply *r)
{
    if (r->enc->frame_end) r->enc->frame_end(r);
    return r->correlation;
}

/* +<status>; inline so a literal's length is known at compile time. */
static inline void reply_status_len(struct reply *r, const char *s, size_t n)
{
    r->enc->status(r, s, n);
}
static inline void reply_status(struct reply *r, const char *status)
{
    r->enc->status(r, status, strlen(status));
}
static inline void reply_ok(struct reply *r)
{
    r->enc->status(r, "OK", 2);
}

/* `-<text>`: text starts with the error code ("ERR ...", "WRONGTYPE ...").
 * CR/LF inside text are replaced by spaces so the stream stays framed. */
void reply_error(struct reply *r, const char *text);
void reply_error_uncounted(struct reply *r, const char *text);
void reply_error_fmt(struct reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void reply_int(struct reply *r, long long v)
{
    r->enc->integer(r, v);
}
static inline void reply_bulk(struct reply *r, const void *p, size_t n)
{
    r->enc->bulk(r, p, n);
}
/* A bulk string, or nil for NULL. */
void reply_bulk_cstr(struct reply *r, const char *s);
void reply_bulk_ll(struct reply *r, long long v);
static inline void reply_double(struct reply *r, double d)
{
    r->enc->floating(r, d);
}
/* A bulk string in RESP2 and in RESP3 alike (e.g. INCRBYFLOAT's result). */
void reply_bulk_double_human(struct reply *r, long double v);
/* Redis's addReplyHumanLongDouble (GEOPOS, WITHCOORD): v in the human
 * form ("%.17Lf", trailing zeros trimmed) as a bulk string in RESP2 and a
 * RESP3 double; the native double on SBE. */
void reply_double_human(struct reply *r, long double v);
static inline void reply_bool(struct reply *r, bool v)
{
    r->enc->boolean(r, v);
}
static inline void reply_nil(struct reply *r) /* $-1 / _ */
{
    r->enc->nil(r);
}
static inline void reply_nil_array(struct reply *r) /* *-1 / _ */
{
    r->enc->nil_array(r);
}
static inline void reply_array_len(struct reply *r, long long n)
{
    r->enc->array_len(r, n);
}
static inline void reply_map_len(struct reply *r, long long n) /* n key/value pairs */
{
    r->enc->map_len(r, n);
}
static inline void reply_set_len(struct reply *r, long long n)
{
    r->enc->set_len(r, n);
}
static inline void reply_push_len(struct reply *r, long long n)
{
    r->enc->push_len(r, n);
}
/* An array of n pairs; each pair is reply_pair_begin() and two values. */
static inline void reply_pair_array_len(struct reply *r, long long n)
{
    r->enc->pair_array_len(r, n);
}
static inline void reply_pair_begin(struct reply *r)
{
    r->enc->pair_begin(r);
}
/* Text with a format hint: RESP3 verbatim string ("txt"), RESP2 bulk. */
static inline void reply_verbatim(struct reply *r, const char *p, size_t n, const char *format3)
{
    r->enc->verbatim(r, p, n, format3);
}

static inline reply_mark reply_defer(struct reply *r)
{
    return r->enc->defer(r);
}
static inline void reply_defer_array(struct reply *r, reply_mark m, long long n)
{
    r->enc->defer_array(r, m, n);
}
static inline void reply_defer_map(struct reply *r, reply_mark m, long long n)
{
    r->enc->defer_map(r, m, n);
}
static inline void reply_defer_set(struct reply *r, reply_mark m, long long n)
{
    r->enc->defer_set(r, m, n);
}

/* A map in RESP3 (and SBE) that RESP2 sends as an array of [key, value]
 * pairs, not flat (Redis's XREAD/XREADGROUP reply): reply_keyed_len(n) or
 * a deferred header (reply_defer, then reply_defer_keyed), and
 * reply_keyed_begin() before each pair's key. */
void reply_keyed_len(struct reply *r, long long n);
void reply_defer_keyed(struct reply *r, reply_mark m, long long n);
void reply_keyed_begin(struct reply *r);

/* A RESP3 big number ((<digits>), a bulk string in RESP2 and on SBE (Lua
 * scripts' {big_number=...}; no command answers with one). */
void reply_big_number(struct reply *r, const char *digits, size_t n);

/* A RESP3 attribute header (|<n>, n key/value pairs follow, then the real
 * reply); returns false and writes nothing on other wires, where the
 * caller leaves the attribute out (DEBUG PROTOCOL ATTRIB, as Redis). */
bool reply_attribute_len(struct reply *r, long long n);

/* Common Redis errors, texts exactly as redis-server sends them. */
void reply_error_wrongtype(struct reply *r);
void reply_error_not_integer(struct reply *r);
void reply_error_not_float(struct reply *r);
void reply_error_syntax(struct reply *r);
void reply_error_arity(struct reply *r, const char *command_name);

#endif
