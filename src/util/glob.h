/*
 * glob.h — the one glob matcher (KEYS, SCAN MATCH, CONFIG GET, PSUBSCRIBE,
 * PUBSUB CHANNELS, HSCAN/ZSCAN MATCH).
 *
 * Semantics are Redis 7's stringmatchlen(): `*`, `?`, `[abc]`, `[^abc]`,
 * `[a-z]` (reversed ranges accepted), `\x` escapes; an unterminated `[`
 * class runs to the end of the pattern. Quirk kept for compatibility: an
 * empty subject never matches a non-empty pattern, not even "*".
 *
 * Cost: a failed `*` expansion that reached the end of the subject prunes
 * every outer `*` (no exponential backtracking), so a match is
 * O(pattern * subject) in the worst case; nesting deeper than
 * GLOB_MAX_NESTING stars reports no match instead of recursing further.
 */
#ifndef GOBLIN_GLOB_H
#define GOBLIN_GLOB_H

#include <stdbool.h>
#include <stddef.h>

#define GLOB_MAX_NESTING 1000

bool glob_match(const char *pattern, size_t pattern_len, const char *subject, size_t subject_len,
                bool nocase);

/* True when the pattern is exactly "*" (callers skip matching entirely). */
static inline bool glob_is_match_all(const char *pattern, size_t pattern_len)
{
    return pattern_len == 1 && pattern[0] == '*';
}

#endif
