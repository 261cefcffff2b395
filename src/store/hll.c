/* hll.c — HyperLogLog values in the HYLL format; contract in hll.h. */
#include "store/hll.h"
#include "core/config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/rand.h"
#include "util/xmalloc.h"

struct hll_limits hll_limits = {.sparse_max_bytes = 3000};

enum { HLL_DENSE = 0, HLL_SPARSE = 1 };

#define HLL_P 14
#define HLL_Q (64 - HLL_P)
#define HLL_HASH_SEED 0xadc83b19ULL
#define SPARSE_VAL_MAX_VALUE 32
#define SPARSE_VAL_MAX_LEN 4
#define SPARSE_ZERO_MAX_LEN 64
#define SPARSE_XZERO_MAX_LEN 16384

/* ---- sparse opcodes ---- */

static bool op_is_zero(uint8_t b)
{
    return (b & 0xc0) == 0;
}

static bool op_is_xzero(uint8_t b)
{
    return (b & 0xc0) == 0x40;
}

static int zero_len(uint8_t b)
{
    return (b & 0x3f) + 1;
}

/* An XZERO at p whose second byte may lie at `end` (a truncated value):
 * that byte reads as 0, as after a Redis string's terminator. */
static int xzero_len(const uint8_t *p, const uint8_t *end)
{
    return (((p[0] & 0x3f) << 8) | (p + 1 < end ? p[1] : 0)) + 1;
}

static int val_value(uint8_t b)
{
    return ((b >> 2) & 0x1f) + 1;
}

static int val_len(uint8_t b)
{
    return (b & 3) + 1;
}

static uint8_t op_val(int value, int len)
{
    return (uint8_t)(0x80 | ((value - 1) << 2) | (len - 1));
}

/* Writes a ZERO or XZERO run of len registers at n; returns bytes used. */
static int put_zero_run(uint8_t *n, int len)
{
    if (len > SPARSE_ZERO_MAX_LEN) {
        n[0] = (uint8_t)(0x40 | ((len - 1) >> 8));
        n[1] = (uint8_t)((len - 1) & 0xff);
        return 2;
    }
    n[0] = (uint8_t)(len - 1);
    return 1;
}

/* ---- dense registers ---- */

static uint8_t dense_get(const uint8_t *regs, long i)
{
    size_t bit = (size_t)i * 6, byte = bit >> 3;
    unsigned fb = bit & 7;
    unsigned v = regs[byte] >> fb;
    if (fb > 2) v |= (unsigned)regs[byte + 1] << (8 - fb);
    return (uint8_t)(v & 63);
}

static void dense_put(uint8_t *regs, long i, uint8_t val)
{
    size_t bit = (size_t)i * 6, byte = bit >> 3;
    unsigned fb = bit & 7;
    regs[byte] = (uint8_t)((regs[byte] & ~(63u << fb)) | ((unsigned)val << fb));
    if (fb > 2)
        regs[byte + 1] = (uint8_t)((regs[byte + 1] & ~(63u >> (8 - fb))) | (val >> (8 - fb)));
}

static int dense_set(uint8_t *regs, long i, uint8_t val)
{
    if (val <= dense_get(regs, i)) return 0;
    dense_put(regs, i, val);
    return 1;
}

/* ---- header ---- */

bool hll_header_valid(const unsigned char *p, size_t len)
{
    if (len < HLL_HDR_SIZE || memcmp(p, "HYLL", 4) != 0) return false;
    if (p[4] == HLL_DENSE) return len == HLL_DENSE_SIZE;
    return p[4] == HLL_SPARSE;
}

struct strbuf *hll_new(void)
{
    int ops = (HLL_REGISTERS + SPARSE_XZERO_MAX_LEN - 1) / SPARSE_XZERO_MAX_LEN;
    struct strbuf *sb = strbuf_new(NULL, 0, HLL_HDR_SIZE + 2 * ops);
    memset(sb->data, 0, HLL_HDR_SIZE);
    memcpy(sb->data, "HYLL", 4);
    sb->data[4] = HLL_SPARSE;
    uint8_t *n = (uint8_t *)sb->data + HLL_HDR_SIZE;
    for (int left = HLL_REGISTERS; left > 0; left -= SPARSE_XZERO_MAX_LEN) {
        int run = left < SPARSE_XZERO_MAX_LEN ? left : SPARSE_XZERO_MAX_LEN;
        n[0] = (uint8_t)(0x40 | ((run - 1) >> 8));
        n[1] = (uint8_t)((run - 1) & 0xff);
        n += 2;
    }
    sb->len = HLL_HDR_SIZE + 2 * (size_t)ops;
    return sb;
}

bool hll_cached(const unsigned char *p, uint64_t *card)
{
    if (p[15] & 0x80) return false;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[8 + i];
    *card = v;
    return true;
}

void hll_set_cached(unsigned char *p, uint64_t card)
{
    for (int i = 0; i < 8; i++) p[8 + i] = (unsigned char)(card >> (8 * i));
}

void hll_invalidate(unsigned char *p)
{
    p[15] |= 0x80;
}

/* ---- hashing ---- */

uint64_t hll_murmur64a(const void *key, size_t len, uint64_t seed)
{
    const uint64_t m = 0xc6a4a7935bd1e995ULL;
    const int r = 47;
    const uint8_t *data = key;
    uint64_t h = seed ^ (len * m);
    size_t blocks = len / 8;
    for (size_t b = 0; b < blocks; b++, data += 8) {
        uint64_t k = 0;
        for (int i = 7; i >= 0; i--) k = (k << 8) | data[i];
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    size_t tail = len & 7;
    if (tail) {
        for (size_t i = tail; i > 0; i--) h ^= (uint64_t)data[i - 1] << (8 * (i - 1));
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

/* The register an element lands in and the run length it proposes. */
static uint8_t element_pattern(const void *ele, size_t len, long *index)
{
    uint64_t hash = hll_murmur64a(ele, len, HLL_HASH_SEED);
    *index = (long)(hash & (HLL_REGISTERS - 1));
    hash >>= HLL_P;
    hash |= 1ULL << HLL_Q; /* bounds the run at Q + 1 */
    return (uint8_t)(__builtin_ctzll(hash) + 1);
}

/* ---- sparse → dense ---- */

bool hll_to_dense(struct strbuf **sbp)
{
    struct strbuf *sb = *sbp;
    if ((uint8_t)sb->data[4] == HLL_DENSE) return true;
    struct strbuf *dense = strbuf_new(NULL, 0, HLL_DENSE_SIZE);
    memset(dense->data, 0, HLL_DENSE_SIZE);
    memcpy(dense->data, sb->data, HLL_HDR_SIZE);
    dense->data[4] = HLL_DENSE;
    dense->len = HLL_DENSE_SIZE;
    uint8_t *regs = (uint8_t *)dense->data + HLL_HDR_SIZE;
    const uint8_t *p = (const uint8_t *)sb->data + HLL_HDR_SIZE;
    const uint8_t *end = (const uint8_t *)sb->data + sb->len;
    long idx = 0;
    while (p < end) {
        if (op_is_zero(*p)) {
            idx += zero_len(*p);
            p++;
        } else if (op_is_xzero(*p)) {
            idx += xzero_len(p, end);
            p += 2;
        } else {
            int run = val_len(*p), v = val_value(*p);
            if (idx + run > HLL_REGISTERS) break; /* corrupt: fails below */
            while (run--) dense_put(regs, idx++, (uint8_t)v);
            p++;
        }
    }
    if (p < end || idx != HLL_REGISTERS) {
        strbuf_free(dense);
        return false;
    }
    strbuf_free(sb);
    *sbp = dense;
    return true;
}

/* ---- sparse update ---- */

/* Merges adjacent VAL opcodes of equal value from `from` on (at most five
 * opcodes looked at); returns the new end. */
static uint8_t *sparse_compact(uint8_t *p, uint8_t *end)
{
    for (int scan = 5; p < end && scan--;) {
        if (op_is_xzero(*p)) {
            p += 2;
            continue;
        }
        if (op_is_zero(*p)) {
            p++;
            continue;
        }
        if (p + 1 < end && !op_is_zero(p[1]) && !op_is_xzero(p[1]) &&
            val_value(p[0]) == val_value(p[1])) {
            int len = val_len(p[0]) + val_len(p[1]);
            if (len <= SPARSE_VAL_MAX_LEN) {
                p[1] = op_val(val_value(p[0]), len);
                memmove(p, p + 1, (size_t)(end - p - 1));
                end--;
                continue; /* the merged run may merge with the next one too */
            }
        }
        p++;
    }
    return end;
}

static int promote_and_set(struct strbuf **sbp, long index, uint8_t value)
{
    if (!hll_to_dense(sbp)) return -1;
    return dense_set((uint8_t *)(*sbp)->data + HLL_HDR_SIZE, index, value);
}

static int sparse_set(struct strbuf **sbp, long index, uint8_t value)
{
    if (value > SPARSE_VAL_MAX_VALUE) return promote_and_set(sbp, index, value);
    struct strbuf *sb = *sbp;
    if (sb->cap < sb->len + 5) { /* a split grows the value by 3 bytes at most */
        sb = *sbp = strbuf_resize(sb, sb->len + 5 + sb->len / 2);
    }
    uint8_t *sparse = (uint8_t *)sb->data + HLL_HDR_SIZE;
    uint8_t *end = (uint8_t *)sb->data + sb->len;
    uint8_t *p = sparse, *prev = NULL;
    long first = 0, span = 0;
    /* Find the opcode covering `index`. */
    while (p < end) {
        int oplen = 1;
        if (op_is_zero(*p)) {
            span = zero_len(*p);
        } else if (op_is_xzero(*p)) {
            span = xzero_len(p, end);
            oplen = 2;
        } else {
            span = val_len(*p);
        }
        if (index <= first + span - 1) break;
        prev = p;
        p += oplen;
        first += span;
    }
    if (span == 0 || p >= end) return -1;
    bool is_xzero = op_is_xzero(*p), is_zero = op_is_zero(*p), is_val = !is_zero && !is_xzero;
    uint8_t *next = p + (is_xzero ? 2 : 1);
    if (next >= end) next = NULL;
    long runlen = is_zero ? zero_len(*p) : is_xzero ? xzero_len(p, end) : val_len(*p);

    if (is_val && val_value(*p) >= value) return 0;
    if ((is_val || is_zero) && runlen == 1) {
        *p = op_val(value, 1);
    } else {
        /* Split the run into [left part] VAL(value) [right part]. */
        uint8_t seq[5], *n = seq;
        long last = first + span - 1;
        if (is_val) {
            int cur = val_value(*p);
            if (index != first) *n++ = op_val(cur, (int)(index - first));
            *n++ = op_val(value, 1);
            if (index != last) *n++ = op_val(cur, (int)(last - index));
        } else {
            if (index != first) n += put_zero_run(n, (int)(index - first));
            *n++ = op_val(value, 1);
            if (index != last) n += put_zero_run(n, (int)(last - index));
        }
        long seqlen = n - seq, delta = seqlen - (is_xzero ? 2 : 1);
        if (delta > 0 && (long long)sb->len + delta > hll_limits.sparse_max_bytes)
            return promote_and_set(sbp, index, value);
        if (delta && next) memmove(next + delta, next, (size_t)(end - next));
        sb->len = (size_t)((long)sb->len + delta);
        memcpy(p, seq, (size_t)seqlen);
        end += delta;
    }
    end = sparse_compact(prev ? prev : sparse, end);
    sb->len = (size_t)(end - (uint8_t *)sb->data);
    hll_invalidate((unsigned char *)sb->data); /* as Redis: even if a later add fails */
    return 1;
}

int hll_set_register(struct strbuf **sb, long index, uint8_t value)
{
    switch ((uint8_t)(*sb)->data[4]) {
    case HLL_DENSE:
        return dense_set((uint8_t *)(*sb)->data + HLL_HDR_SIZE, index, value);
    case HLL_SPARSE:
        return sparse_set(sb, index, value);
    default:
        return -1;
    }
}

int hll_add(struct strbuf **sb, const void *ele, size_t len)
{
    long index;
    uint8_t value = element_pattern(ele, len, &index);
    return hll_set_register(sb, index, value);
}

/* ---- reading ---- */

/* Adds the sparse registers to the histogram; false unless they cover
 * exactly HLL_REGISTERS. */
static bool sparse_histogram(const uint8_t *p, const uint8_t *end, long long histo[64])
{
    long long idx = 0;
    while (p < end) {
        int run;
        if (op_is_zero(*p)) {
            run = zero_len(*p);
            histo[0] += run;
            p++;
        } else if (op_is_xzero(*p)) {
            run = xzero_len(p, end);
            histo[0] += run;
            p += 2;
        } else {
            run = val_len(*p);
            histo[val_value(*p)] += run;
            p++;
        }
        idx += run;
    }
    return idx == HLL_REGISTERS;
}

bool hll_merge_max(uint8_t max[HLL_REGISTERS], const unsigned char *v, size_t len)
{
    if (v[4] == HLL_DENSE) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            uint8_t r = dense_get(v + HLL_HDR_SIZE, i);
            if (r > max[i]) max[i] = r;
        }
        return true;
    }
    const uint8_t *p = v + HLL_HDR_SIZE, *end = v + len;
    long i = 0;
    while (p < end) {
        if (op_is_zero(*p)) {
            i += zero_len(*p);
            p++;
        } else if (op_is_xzero(*p)) {
            i += xzero_len(p, end);
            p += 2;
        } else {
            int run = val_len(*p);
            uint8_t r = (uint8_t)val_value(*p);
            if (i + run > HLL_REGISTERS) return false;
            for (; run--; i++)
                if (r > max[i]) max[i] = r;
            p++;
        }
    }
    return i == HLL_REGISTERS;
}

/* Ertl's sigma and tau (Algorithm 6 of the paper), iterated to a fixed point. */
static double hll_sigma(double x)
{
    if (x == 1.) return INFINITY;
    double y = 1, z = x, prev;
    do {
        x *= x;
        prev = z;
        z += x * y;
        y += y;
    } while (prev != z);
    return z;
}

static double hll_tau(double x)
{
    if (x == 0. || x == 1.) return 0.;
    double y = 1.0, z = 1 - x, prev;
    do {
        x = sqrt(x);
        prev = z;
        y *= 0.5;
        z -= pow(1 - x, 2) * y;
    } while (prev != z);
    return z / 3;
}

static uint64_t estimate(const long long histo[64])
{
    const double m = HLL_REGISTERS;
    const double alpha_inf = 0.721347520444481703680; /* 1 / (2 ln 2) */
    double z = m * hll_tau((m - (double)histo[HLL_Q + 1]) / m);
    for (int j = HLL_Q; j >= 1; --j) {
        z += (double)histo[j];
        z *= 0.5;
    }
    z += m * hll_sigma((double)histo[0] / m);
    return (uint64_t)llround(alpha_inf * m * m / z);
}

bool hll_count(const unsigned char *v, size_t len, uint64_t *card)
{
    long long histo[64] = {0};
    if (v[4] == HLL_DENSE) {
        for (long i = 0; i < HLL_REGISTERS; i++) histo[dense_get(v + HLL_HDR_SIZE, i)]++;
    } else if (!sparse_histogram(v + HLL_HDR_SIZE, v + len, histo)) {
        return false;
    }
    *card = estimate(histo);
    return true;
}

uint64_t hll_count_registers(const uint8_t regs[HLL_REGISTERS])
{
    long long histo[64] = {0};
    for (long i = 0; i < HLL_REGISTERS; i++) histo[regs[i] & 63]++;
    return estimate(histo);
}

size_t hll_sparse_decode(const unsigned char *v, size_t len, char *out)
{
    const uint8_t *p = v + HLL_HDR_SIZE, *end = v + len;
    size_t n = 0;
    while (p < end) {
        if (op_is_zero(*p)) {
            n += (size_t)sprintf(out + n, "z:%d ", zero_len(*p));
            p++;
        } else if (op_is_xzero(*p)) {
            n += (size_t)sprintf(out + n, "Z:%d ", xzero_len(p, end));
            p += 2;
        } else {
            n += (size_t)sprintf(out + n, "v:%d,%d ", val_value(*p), val_len(*p));
            p++;
        }
    }
    if (n) n--; /* the trailing space */
    out[n] = '\0';
    return n;
}

#define HLL_TEST_CYCLES 1000
#define HLL_REGISTER_MAX 63

const char *hll_selftest(char *err, size_t cap)
{
    uint8_t regs[HLL_DENSE_SIZE - HLL_HDR_SIZE + 1] = {0}, bytes[HLL_REGISTERS];
    const char *failed = NULL;
    /* 1: every register keeps its value without touching its neighbours. */
    for (int j = 0; j < HLL_TEST_CYCLES && !failed; j++) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            bytes[i] = (uint8_t)(rand_u64() & HLL_REGISTER_MAX);
            dense_put(regs, i, bytes[i]);
        }
        for (long i = 0; i < HLL_REGISTERS; i++) {
            uint8_t val = dense_get(regs, i);
            if (val == bytes[i]) continue;
            snprintf(err, cap, "TESTFAILED Register %ld should be %d but is %d", i, bytes[i], val);
            return err;
        }
    }
    /* 2: a dense and a sparse value fed the same elements agree, sparse
     * stays sparse while small, and the estimate is within bounds. */
    struct strbuf *dense = hll_new(), *sparse = hll_new();
    if (!hll_to_dense(&dense)) failed = "TESTFAILED dense conversion";
    double relerr = 1.04 / sqrt(HLL_REGISTERS);
    int64_t checkpoint = 1;
    uint64_t seed = rand_u64(), card_dense = 0, card_sparse = 0;
    for (uint64_t j = 1; j <= 10000000 && !failed; j++) {
        uint64_t ele = j ^ seed;
        hll_add(&dense, &ele, sizeof ele);
        hll_add(&sparse, &ele, sizeof ele);
        if ((int64_t)j != checkpoint) continue;
        const unsigned char *d = (const unsigned char *)dense->data,
                            *s = (const unsigned char *)sparse->data;
        if ((long long)j < hll_limits.sparse_max_bytes / 2 && s[4] != HLL_SPARSE) {
            failed = "TESTFAILED sparse encoding not used";
            break;
        }
        if (!hll_count(d, dense->len, &card_dense) || !hll_count(s, sparse->len, &card_sparse) ||
            card_dense != card_sparse) {
            failed = "TESTFAILED dense/sparse disagree";
            break;
        }
        int64_t abserr = checkpoint - (int64_t)card_dense;
        uint64_t maxerr = (uint64_t)ceil(relerr * 6 * (double)checkpoint);
        if (j == 10) maxerr = 1; /* collisions make a larger error likely at 10 */
        if (abserr < 0) abserr = -abserr;
        if (abserr > (int64_t)maxerr) {
            snprintf(err, cap, "TESTFAILED Too big error. card:%llu abserr:%llu",
                     (unsigned long long)checkpoint, (unsigned long long)abserr);
            failed = err;
        }
        checkpoint *= 10;
    }
    strbuf_free(dense);
    strbuf_free(sparse);
    return failed;
}

/* --- settings (core/config.h) ---------------------------------------- */

static const struct config_param hll_params[] = {
    {.name = "hll-sparse-max-bytes",
     .kind = CFG_MEMORY,
     .value = &hll_limits.sparse_max_bytes,
     .max = LLONG_MAX,
     .value_name = "BYTES",
     .help = "HyperLogLogs whose sparse form would grow past this turn dense (default 3000)"},
};

const struct config_table hll_config = CONFIG_TABLE(hll_params, NULL);
