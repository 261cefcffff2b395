/* varint.h — unsigned LEB128: 7 bits a byte, low bits first, the high bit
 * set on every byte but the last (1 byte below 128, at most 10 for 64
 * bits). The length prefix of store/packed.h's strings and the ID deltas
 * and string lengths of store/stream.c's nodes. Decoding trusts its input:
 * only bytes the server wrote itself are read this way. */
#ifndef GOBLIN_VARINT_H
#define GOBLIN_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Bytes varint_put will write for v. */
static inline size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 128) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes v at p; returns the bytes written. */
static inline size_t varint_put(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 128) {
        p[n++] = (unsigned char)(v | 128);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

/* Reads the varint at *pp and moves *pp past it. */
static inline uint64_t varint_get(const unsigned char **pp)
{
    const unsigned char *p = *pp;
    uint64_t v = 0;
    unsigned shift = 0;
    while (*p & 128) {
        v |= (uint64_t)(*p++ & 127) << shift;
        shift += 7;
    }
    v |= (uint64_t)*p++ << shift;
    *pp = p;
    return v;
}

#endif
