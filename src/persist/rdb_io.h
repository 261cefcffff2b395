/*
 * rdb_io.h — the primitives of Redis's RDB encoding, both directions:
 * lengths (6/14/32/64-bit), strings (raw, int8/16/32, LZF), binary doubles,
 * little-endian integers. Everything above this file (values, the file
 * layout, DUMP payloads) is built from these calls.
 *
 * Writer: appends to a buffer; with an fd the buffer is written out (and
 * the CRC-64 advanced) whenever it passes RDB_WRITER_CHUNK, so a snapshot
 * of any size needs a fixed amount of memory. Without an fd (DUMP) the
 * whole encoding stays in the buffer. A failed write() is remembered and
 * every later call does nothing; rdbw_finish reports it.
 *
 * Reader: decodes a byte range that is wholly in memory (a mapped file, a
 * RESTORE payload). Every read is bounds-checked against the input before
 * anything is allocated: a declared length larger than the bytes left is
 * an error, never an allocation, so hostile input costs at most its own
 * size. The first error is kept in r->err and every later read fails.
 */
#ifndef GOBLIN_RDB_IO_H
#define GOBLIN_RDB_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Redis 7.0's format (rdb.h): RDB_VERSION 10. */
#define RDB_VERSION 10

/* Length encodings (first two bits) and the special string encodings. */
#define RDB_6BITLEN 0
#define RDB_14BITLEN 1
#define RDB_32BITLEN 0x80
#define RDB_64BITLEN 0x81
#define RDB_ENCVAL 3
#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

#define RDB_WRITER_CHUNK (64 * 1024)

struct rdb_writer {
    int fd;         /* -1: keep everything in buf */
    struct buf buf; /* bytes not yet written to fd */
    uint64_t crc;   /* CRC-64 of the bytes already written to fd */
    bool compress;  /* rdbcompression: LZF for strings over 20 bytes */
    unsigned long long written;
    int error; /* errno of the first failed write, or 0 */
    char *lzf_out;
    size_t lzf_cap;
};

void rdbw_init(struct rdb_writer *w, int fd, bool compress);
void rdbw_free(struct rdb_writer *w);

void rdbw_raw(struct rdb_writer *w, const void *p, size_t n);
void rdbw_u8(struct rdb_writer *w, unsigned v);
void rdbw_u32le(struct rdb_writer *w, uint32_t v);
void rdbw_u64le(struct rdb_writer *w, uint64_t v);
void rdbw_len(struct rdb_writer *w, uint64_t len);
/* A string as Redis writes it: an int encoding when the bytes are a
 * canonical integer in int32 range, LZF when compressing and worthwhile,
 * raw otherwise. */
void rdbw_string(struct rdb_writer *w, const void *p, size_t n);
/* An integer written as a string (int-encoded when it fits in 32 bits). */
void rdbw_string_ll(struct rdb_writer *w, long long v);
/* Redis's RDB_TYPE_ZSET_2 score: the 8 bytes of an IEEE double, LE. */
void rdbw_binary_double(struct rdb_writer *w, double v);

/* Writes out what is buffered (fd mode). False once a write has failed. */
bool rdbw_flush(struct rdb_writer *w);

struct rdb_reader {
    const unsigned char *p;
    size_t len;
    size_t pos;
    char err[256]; /* first error, "" while none */
    /* The first error was the input ending (a read or a count past the
     * bytes left): a streamed load (rdb_load_stream) retries with more. */
    bool short_input;
};

void rdbr_init(struct rdb_reader *r, const void *p, size_t len);

/* Records the first error (printf-style); returns false. */
bool rdbr_fail(struct rdb_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline size_t rdbr_left(const struct rdb_reader *r)
{
    return r->len - r->pos;
}

bool rdbr_bytes(struct rdb_reader *r, size_t n, const unsigned char **out);
bool rdbr_u8(struct rdb_reader *r, unsigned *out);
bool rdbr_u32le(struct rdb_reader *r, uint32_t *out);
bool rdbr_u64le(struct rdb_reader *r, uint64_t *out);
/* A length; *encoded is set when it is a special string encoding
 * (RDB_ENC_*) instead (may be NULL where no encoding is allowed). */
bool rdbr_len(struct rdb_reader *r, uint64_t *len, bool *encoded);
/* A length used as an element count: also bounded by the bytes left (each
 * element takes at least one byte), so no loop runs on a forged count. */
bool rdbr_count(struct rdb_reader *r, uint64_t *count);

/* A decoded string: points into the input, into tmp (integers) or into
 * owned (LZF), which rdb_str_free releases. */
struct rdb_str {
    const char *ptr;
    size_t len;
    char *owned;
    char tmp[24];
};

bool rdbr_string(struct rdb_reader *r, struct rdb_str *out);
void rdb_str_free(struct rdb_str *s);
bool rdbr_binary_double(struct rdb_reader *r, double *out);
/* RDB_TYPE_ZSET's score: a length byte, then ASCII (253 nan, 254 +inf, 255 -inf). */
bool rdbr_ascii_double(struct rdb_reader *r, double *out);

#endif
