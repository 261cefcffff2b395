/*
 * crc64.h — the CRC-64 of Redis's RDB files and DUMP payloads ("Jones"
 * polynomial 0xad93d23594c935a9, reflected in and out, initial value 0, no
 * final xor). Check value: crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9ca,
 * the test vector Redis's crc64.c documents.
 *
 * Written from the polynomial with slice-by-8 tables (built once, on first
 * use): about 1 byte per cycle, so the checksum of a snapshot costs a small
 * fraction of writing it.
 */
#ifndef GOBLIN_CRC64_H
#define GOBLIN_CRC64_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc over len bytes (start with crc = 0). */
uint64_t crc64(uint64_t crc, const void *data, size_t len);

#endif
