/*
 * hll.h — HyperLogLog values in Redis's HYLL string format, byte for byte,
 * so a value moves between goblin-core and Redis (GET/SET, DUMP/RESTORE)
 * and counts the same on both.
 *
 *   [ "HYLL" | encoding | 3 unused | cached cardinality, 8 bytes LE ]
 *   [ registers: dense or sparse ]
 *
 * encoding 0 (dense): 16384 registers of 6 bits, register i at bit 6*i,
 * least significant bits first; the value is exactly 16 + 12288 bytes.
 * encoding 1 (sparse): run-length opcodes covering the 16384 registers:
 *   00xxxxxx           ZERO:  xxxxxx + 1 (1..64) registers at 0
 *   01xxxxxx yyyyyyyy  XZERO: the 14 bits + 1 (1..16384) registers at 0
 *   1vvvvvxx           VAL:   xx + 1 (1..4) registers at vvvvv + 1 (1..32)
 * A sparse value turns dense when a register needs more than 32 or the
 * value would grow past hll_limits.sparse_max_bytes (hll-sparse-max-bytes).
 * The high bit of the last cardinality byte marks the cache stale.
 *
 * An element is hashed with MurmurHash64A (seed 0xadc83b19): the low 14
 * bits pick the register, the trailing zeros of the other 50 (plus one)
 * are the candidate value. Counting uses Ertl's improved estimator
 * ("New cardinality estimation algorithms for HyperLogLog sketches").
 *
 * Functions taking a value's bytes expect hll_header_valid() to hold for
 * them; beyond that they read only inside the value, however corrupt the
 * registers (a sparse value that does not cover exactly 16384 registers is
 * reported as corrupt).
 */
#ifndef GOBLIN_HLL_H
#define GOBLIN_HLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

#define HLL_REGISTERS 16384
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + HLL_REGISTERS * 6 / 8)

struct hll_limits {
    long long sparse_max_bytes; /* hll-sparse-max-bytes (3000) */
};

extern struct hll_limits hll_limits;

/* Magic, a known encoding, and the exact size of a dense value. */
bool hll_header_valid(const unsigned char *p, size_t len);

/* An empty sparse HLL (cached cardinality 0). */
struct strbuf *hll_new(void);

/* Adds one element: 1 when a register changed, 0 when none did, -1 when
 * the value is corrupt. *sb may be reallocated or replaced (promotion to
 * dense). Does not touch the cached cardinality. */
int hll_add(struct strbuf **sb, const void *ele, size_t len);

/* Raises register `index` to `value` if lower (same results as hll_add). */
int hll_set_register(struct strbuf **sb, long index, uint8_t value);

/* Converts a sparse value to dense in place of *sb; false when corrupt. */
bool hll_to_dense(struct strbuf **sb);

/* The cached cardinality, false when marked stale. */
bool hll_cached(const unsigned char *p, uint64_t *card);
void hll_set_cached(unsigned char *p, uint64_t card);
void hll_invalidate(unsigned char *p);

/* Raises max[i] to each register of the value; false when corrupt. */
bool hll_merge_max(uint8_t max[HLL_REGISTERS], const unsigned char *p, size_t len);

/* The estimated cardinality of a value; false when corrupt. */
bool hll_count(const unsigned char *p, size_t len, uint64_t *card);

/* The estimated cardinality of plain registers (one byte each). */
uint64_t hll_count_registers(const uint8_t regs[HLL_REGISTERS]);

/* PFDEBUG DECODE: the sparse opcodes as Redis prints them ("z:N", "Z:N",
 * "v:VALUE,N", space separated) into out, which must hold 8 bytes per
 * byte of the value; returns the text's length. */
size_t hll_sparse_decode(const unsigned char *p, size_t len, char *out);

/* PFSELFTEST: Redis's self test (dense register access with random values;
 * dense and sparse values fed the same 10M elements agree, and the error
 * stays within six standard errors at every power of ten). NULL when it
 * passes, else the error text (Redis's "TESTFAILED ..."), in err. */
const char *hll_selftest(char *err, size_t cap);

/* MurmurHash64A over little-endian 8-byte blocks. */
uint64_t hll_murmur64a(const void *key, size_t len, uint64_t seed);

/* The rows of hll_limits (core/config.h). */
struct config_table;
extern const struct config_table hll_config;

#endif
