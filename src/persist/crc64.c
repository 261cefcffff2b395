/* crc64.c — CRC-64/Jones, slice-by-8; see crc64.h. */
#include "persist/crc64.h"

#include <pthread.h>
#include <string.h>

/* The polynomial reflected (bit 63 of the normal form is bit 0 here). */
#define CRC64_JONES_REFLECTED 0x95ac9329ac4bc9b5ULL

static uint64_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_build(void)
{
    for (int n = 0; n < 256; n++) {
        uint64_t c = (uint64_t)n;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ CRC64_JONES_REFLECTED : c >> 1;
        table[0][n] = c;
    }
    for (int n = 0; n < 256; n++) {
        uint64_t c = table[0][n];
        for (int k = 1; k < 8; k++) {
            c = table[0][c & 0xff] ^ (c >> 8);
            table[k][n] = c;
        }
    }
}

uint64_t crc64(uint64_t crc, const void *data, size_t len)
{
    pthread_once(&table_once, table_build);
    const unsigned char *p = data;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* little-endian host assumed (x86-64, aarch64) */
        w ^= crc;
        crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^ table[5][(w >> 16) & 0xff] ^
              table[4][(w >> 24) & 0xff] ^ table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
              table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
        p += 8;
        len -= 8;
    }
    while (len--) crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}
