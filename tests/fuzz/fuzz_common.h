/*
 * fuzz_common.h — the little every libFuzzer harness in tests/fuzz shares.
 *
 * A harness is one file `fuzz_<parser>.c` that defines
 * LLVMFuzzerTestOneInput and names, on a line of its own,
 *
 *     fuzz-sources: src/a.c src/b.c
 *
 * the repository sources it links (tests/fuzz/run.sh compiles exactly those
 * with clang and -fsanitize=fuzzer,address,undefined). Its seed corpus is
 * tests/fuzz/corpus/<harness>/ and its replayed crash inputs are
 * tests/fuzz/regressions/<harness>/ (docs/fuzzing.md).
 *
 * Harnesses check the parser's contract, not only memory safety: a broken
 * invariant calls FUZZ_CHECK, which aborts so libFuzzer records the input.
 */
#ifndef GOBLIN_FUZZ_COMMON_H
#define GOBLIN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz invariant failed at %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Reads the fuzzer's input front to back: control bytes first, then the
 * payload under test. Reading past the end yields zeros, so every input is
 * valid and short inputs still reach the parser. */
struct fuzz_input {
    const uint8_t *data;
    size_t size;
    size_t pos;
};

static inline uint8_t fuzz_u8(struct fuzz_input *in)
{
    return in->pos < in->size ? in->data[in->pos++] : 0;
}

static inline uint32_t fuzz_u32(struct fuzz_input *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fuzz_u8(in) << (8 * i);
    return v;
}

/* Up to max bytes of the rest of the input (fewer when it ends); *n gets the count. */
static inline const uint8_t *fuzz_bytes(struct fuzz_input *in, size_t max, size_t *n)
{
    size_t left = in->size - in->pos;
    *n = left < max ? left : max;
    const uint8_t *p = in->data + in->pos;
    in->pos += *n;
    return p;
}

/* A private copy of n bytes in a block of exactly n bytes, so that ASan
 * reports any read past what the parser was given (the fuzzer's own buffer
 * may have slack). Caller frees. */
static inline char *fuzz_exact_copy(const void *src, size_t n)
{
    char *p = malloc(n ? n : 1);
    if (!p) abort();
    if (n) memcpy(p, src, n);
    return p;
}

/* Deterministic split points from a fuzzer-chosen seed (xorshift32). */
static inline uint32_t fuzz_next_random(uint32_t *state)
{
    uint32_t x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

#endif
