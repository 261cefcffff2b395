/*
 * fuzz_hll.c — libFuzzer harness for the HyperLogLog decoder and updater
 * (src/store/hll.c): an HLL is a plain string any client can SET to any
 * bytes and then hand to PFADD, PFCOUNT, PFMERGE or PFDEBUG.
 *
 * fuzz-sources: src/store/hll.c src/util/strbuf.c src/util/xmalloc.c src/util/rand.c
 *
 * Input: 1 control byte, then the value's bytes.
 *   byte 0  bits 0-1: hll-sparse-max-bytes (0, 40, 300, 3000);
 *           bits 2-4: how many elements to add (taken from the value's last bytes)
 *
 * The value lives in a buffer of exactly its size, so any read past it is
 * an ASan report. Invariants, for values whose header is valid: counting,
 * merging and conversion to dense agree on whether the registers are
 * corrupt, and on the count; adding to a valid value keeps it valid, never
 * lowers a register, and a dense result has exactly the dense size.
 *
 * One exception, Redis's own: a sparse value cut after the first byte of
 * its last XZERO reads as if the missing byte were 0 (Redis reads the
 * string's terminator there), so it can count as valid, but splitting that
 * run (as Redis's hllSparseSet does, byte for byte, which test_diff_hll
 * checks) can corrupt it. Adds to such a value are only checked for
 * memory safety and the header.
 */
#include "fuzz_common.h"
#include "store/hll.h"

static const long long limits[] = {0, 40, 300, 3000};

static struct strbuf *copy(const uint8_t *p, size_t n)
{
    return strbuf_new(p, n, n);
}

/* Whether a sparse value's opcodes end inside an XZERO (see above). */
static bool ends_in_cut_xzero(const struct strbuf *sb)
{
    const uint8_t *p = (const uint8_t *)sb->data + HLL_HDR_SIZE,
                  *end = (const uint8_t *)sb->data + sb->len;
    if (sb->data[4] != 1) return false; /* dense */
    while (p < end) {
        if ((*p & 0xc0) == 0x40) {
            if (p + 1 == end) return true;
            p += 2;
        } else {
            p++;
        }
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size, 0};
    uint8_t ctl = fuzz_u8(&in);
    size_t len;
    const uint8_t *v = fuzz_bytes(&in, 1 << 16, &len);
    hll_limits.sparse_max_bytes = limits[ctl & 3];
    if (!hll_header_valid(v, len)) return 0;

    static uint8_t max[HLL_REGISTERS], after[HLL_REGISTERS];
    struct strbuf *sb = copy(v, len);
    uint64_t card = 0, card2 = 0;
    bool counted = hll_count((unsigned char *)sb->data, sb->len, &card);
    memset(max, 0, sizeof max);
    bool merged = hll_merge_max(max, (unsigned char *)sb->data, sb->len);
    FUZZ_CHECK(counted == merged, "count %d but merge %d", counted, merged);
    if (merged) FUZZ_CHECK(hll_count_registers(max) == card, "merged registers count differently");
    (void)hll_cached((unsigned char *)sb->data, &card2);

    struct strbuf *dense = copy(v, len);
    bool converted = hll_to_dense(&dense);
    FUZZ_CHECK(converted == counted, "to_dense %d but count %d", converted, counted);
    if (converted) {
        FUZZ_CHECK(dense->len == HLL_DENSE_SIZE, "dense value of %zu bytes", dense->len);
        FUZZ_CHECK(hll_header_valid((unsigned char *)dense->data, dense->len), "bad dense header");
        FUZZ_CHECK(hll_count((unsigned char *)dense->data, dense->len, &card2) && card2 == card,
                   "dense counts %llu, sparse %llu", (unsigned long long)card2,
                   (unsigned long long)card);
    }
    strbuf_free(dense);

    /* PFDEBUG DECODE: inside its 8 bytes per value byte, whatever the opcodes. */
    if (v[4] == 1) {
        char *text = malloc(len * 8 + 1);
        size_t tn = hll_sparse_decode(v, len, text);
        FUZZ_CHECK(tn <= len * 8 && text[tn] == '\0', "decode wrote %zu bytes", tn);
        free(text);
    }

    int adds = (ctl >> 2) & 7;
    for (int i = 0; i < adds; i++) {
        size_t n = len > (size_t)i ? (size_t)i + 1 : len;
        if (ends_in_cut_xzero(sb)) merged = false;
        int r = hll_add(&sb, v + len - n, n);
        if (r < 0) break;
        FUZZ_CHECK(hll_header_valid((unsigned char *)sb->data, sb->len), "add broke the header");
        if (!merged) continue;
        memset(after, 0, sizeof after);
        FUZZ_CHECK(hll_merge_max(after, (unsigned char *)sb->data, sb->len),
                   "add made a valid value corrupt");
        for (long k = 0; k < HLL_REGISTERS; k++)
            FUZZ_CHECK(after[k] >= max[k], "register %ld went down", k);
        memcpy(max, after, sizeof max);
    }
    strbuf_free(sb);
    return 0;
}
