/*
 * fuzz_command_keys.c — libFuzzer harness for the key finder
 * (src/commands/command_keys.c): COMMAND GETKEYS hands it any argument
 * vector a client sends, and the cluster's slot check every request.
 *
 * fuzz-sources: src/commands/command_keys.c src/commands/generated/command_meta_table.c
 * fuzz-sources: src/util/numparse.c src/util/xmalloc.c
 *
 * Input: bytes 0-1 (little-endian) pick a row of the generated metadata
 * (modulo their count); byte 2 bits 0-6 give the capacity of the result
 * (0-127), bit 7 ignores the row's key specs (the legacy first/last/step
 * path of a command Redis lacks); the rest, split at '\n', is argv[1..].
 * argv[0] is the command's name.
 *
 * Contract checked: never more keys than the capacity; every position
 * names an argument after the name (1 <= pos < argc); flags only from the
 * known key spec bits; the positions-only wrapper agrees; the same call
 * twice gives the same answer.
 */
#include <stdbool.h>

#include "commands/command.h"
#include "commands/command_meta.h"
#include "fuzz_common.h"

#define ARGS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || command_meta_count == 0) return 0;
    size_t row = (size_t)(data[0] | data[1] << 8) % command_meta_count;
    const struct command_meta *meta = &command_meta_table[row];
    bool legacy = data[2] & 0x80;
    int cap = data[2] & 0x7f;
    const char *argv[ARGS_MAX];
    size_t argv_len[ARGS_MAX];
    int argc = 0;
    argv[argc] = meta->full_name;
    argv_len[argc++] = strlen(meta->full_name);
    const char *p = (const char *)data + 3, *end = (const char *)data + size;
    while (p <= end && argc < ARGS_MAX) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        argv[argc] = p;
        argv_len[argc++] = (size_t)(stop - p);
        if (!nl) break;
        p = nl + 1;
    }
    struct command cmd = {.name = meta->full_name, .arity = meta->info[1].n};
    snprintf(cmd.full_name, sizeof cmd.full_name, "%s", meta->full_name);
    command_keys_init(&cmd);
    FUZZ_CHECK(cmd.meta == meta, "%s: its own row not found", meta->full_name);
    if (legacy) {
        cmd.meta = NULL;
        cmd.first_key = meta->info[3].n;
        cmd.last_key = meta->info[4].n;
        cmd.key_step = meta->info[5].n;
    }
    struct key_ref keys[128], again[128];
    int positions[128];
    int n = command_keys(&cmd, argc, argv, argv_len, keys, cap);
    FUZZ_CHECK(n >= 0 && n <= cap, "%s: %d keys for capacity %d", meta->full_name, n, cap);
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(keys[i].pos >= 1 && keys[i].pos < argc, "%s: key at %d of %d arguments",
                   meta->full_name, keys[i].pos, argc);
        FUZZ_CHECK(keys[i].flags < (1u << KEY_SPEC_FLAG_COUNT), "%s: flags %x", meta->full_name,
                   keys[i].flags);
    }
    int m = command_keys(&cmd, argc, argv, argv_len, again, cap);
    FUZZ_CHECK(m == n && memcmp(keys, again, (size_t)n * sizeof keys[0]) == 0,
               "%s: a second call differs", meta->full_name);
    m = command_key_positions(&cmd, argc, argv, argv_len, positions, cap);
    FUZZ_CHECK(m == n, "%s: positions-only found %d, not %d", meta->full_name, m, n);
    for (int i = 0; i < n; i++) FUZZ_CHECK(positions[i] == keys[i].pos, "positions differ");
    (void)command_has_keys(&cmd);
    return 0;
}
