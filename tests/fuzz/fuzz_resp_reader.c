/*
 * fuzz_resp_reader.c — libFuzzer harness for the client-side reply reader
 * (client/resp_reader.c, include/goblin/resp_reader.h): replies from a
 * server are untrusted bytes to every client, tool and test that frames them.
 *
 * fuzz-sources: client/resp_reader.c
 *
 * Input: 2 control bytes, then a stream of RESP2/RESP3 replies.
 *   byte 0  resp_render's output capacity (1..256)
 *   byte 1  where to cut each complete reply to check its prefix
 *
 * The stream is framed reply by reply, each call seeing the rest of the
 * stream in a block of exactly that size. Invariants: a length is within
 * what was given; a complete reply is complete at exactly its length and a
 * strict prefix of it is not (it is incomplete or malformed, never a shorter
 * reply); rendering stays within its buffer and is NUL-terminated.
 */
#include <goblin/resp_reader.h>

#include "fuzz_common.h"

static void check_render(const char *raw, size_t len, size_t cap)
{
    char *out = malloc(cap);
    if (!out) abort();
    char *r = resp_render(raw, len, out, cap);
    FUZZ_CHECK(r == out, "resp_render returned another buffer");
    FUZZ_CHECK(memchr(out, '\0', cap) != NULL, "render output not NUL-terminated");
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size, 0};
    size_t render_cap = 1 + (size_t)fuzz_u8(&in);
    uint8_t cut = fuzz_u8(&in);
    size_t len;
    const char *stream = (const char *)fuzz_bytes(&in, SIZE_MAX, &len);

    check_render(stream, len, render_cap);
    size_t off = 0;
    while (off < len) {
        char *copy = fuzz_exact_copy(stream + off, len - off);
        long long n = resp_reply_length(copy, len - off);
        FUZZ_CHECK(n >= -1, "length %lld", n);
        FUZZ_CHECK(n <= (long long)(len - off), "reply of %lld bytes in %zu", n, len - off);
        free(copy);
        if (n <= 0) break;

        copy = fuzz_exact_copy(stream + off, (size_t)n);
        long long again = resp_reply_length(copy, (size_t)n);
        FUZZ_CHECK(again == n, "reply of %lld bytes measures %lld on its own", n, again);
        size_t prefix = (size_t)cut % (size_t)n;
        long long shorter = resp_reply_length(copy, prefix);
        FUZZ_CHECK(shorter <= 0, "%zu-byte prefix of a %lld-byte reply measures %lld", prefix, n,
                   shorter);
        check_render(copy, (size_t)n, render_cap);
        free(copy);
        off += (size_t)n;
    }
    return 0;
}
