/*
 * fuzz_aof.c — libFuzzer harness for the AOF command parser
 * (src/persist/aof_parse.c), what reads incr files and .base.aof files.
 *
 * fuzz-sources: src/persist/aof_parse.c src/util/xmalloc.c
 *
 * Input: the bytes of an AOF file. Items are parsed from the start until
 * the input ends, is cut short (TRUNCATED) or is malformed.
 *
 * Properties: no crash, leak or sanitizer report; a parsed command encoded
 * accounts for exactly the bytes it consumed (nothing skipped or invented); a
 * cut inside the last parsed command makes it TRUNCATED, never MALFORMED
 * (what aof-load-truncated relies on); the arguments lie inside the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "persist/aof_load.h"

/* "<prefix><digits>\r\n" at p[*at..used) holding `value` (leading zeros
 * are accepted, as Redis's strtol does). */
static void expect_number(const uint8_t *p, size_t used, size_t *at, char prefix,
                          unsigned long long value)
{
    size_t i = *at;
    if (i >= used || p[i] != (uint8_t)prefix) __builtin_trap();
    unsigned long long v = 0;
    for (i++; i < used && p[i] >= '0' && p[i] <= '9'; i++) v = v * 10 + (p[i] - '0');
    if (v != value || i + 2 > used || p[i] != '\r' || p[i + 1] != '\n') __builtin_trap();
    *at = i + 2;
}

/* The command's arguments account for exactly the bytes it consumed. */
static void check_reencoding(const uint8_t *p, size_t used, const struct aof_command *c)
{
    size_t at = 0;
    expect_number(p, used, &at, '*', (unsigned long long)c->argc);
    for (int i = 0; i < c->argc; i++) {
        expect_number(p, used, &at, '$', c->len[i]);
        if ((const uint8_t *)c->argv[i] != p + at) __builtin_trap();
        at += c->len[i];
        if (at + 2 > used || p[at] != '\r' || p[at + 1] != '\n') __builtin_trap();
        at += 2;
    }
    if (at != used) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct aof_command c = {0};
    size_t at = 0, last_start = 0, last_used = 0;
    bool had_command = false;
    while (at < size) {
        size_t used = 0;
        const char *why = "";
        enum aof_item it = aof_parse_item((const char *)data + at, size - at, &used, &c, &why);
        if (it == AOF_ITEM_TRUNCATED || it == AOF_ITEM_MALFORMED) break;
        if (used == 0 || used > size - at) __builtin_trap();
        if (it == AOF_ITEM_COMMAND) {
            check_reencoding(data + at, used, &c);
            last_start = at;
            last_used = used;
            had_command = true;
        }
        at += used;
    }
    if (had_command) {
        /* Every cut inside the last command is a truncation. */
        for (size_t cut = 1; cut < last_used; cut += 1 + cut / 8) {
            size_t used;
            const char *why = "";
            if (aof_parse_item((const char *)data + last_start, cut, &used, &c, &why) !=
                AOF_ITEM_TRUNCATED)
                __builtin_trap();
        }
    }
    aof_command_free(&c);
    return 0;
}
