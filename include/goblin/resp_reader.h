/*
 * goblin/resp_reader.h — client-side RESP2/RESP3 reply framing (client library, tools, tests).
 *
 * resp_reply_length() tells whether buf holds one complete reply and how
 * long it is, without interpreting it, so tests can compare raw reply bytes
 * from two servers exactly (the differential tests) and tools can validate
 * replies byte for byte.
 */
#ifndef GOBLIN_RESP_READER_H
#define GOBLIN_RESP_READER_H

#include <stddef.h>

/* >0: length of the complete reply at buf; 0: incomplete; -1: malformed. */
long long resp_reply_length(const char *buf, size_t len);

/* Renders a raw reply readably (escapes CR/LF/binary) into out; returns out. */
char *resp_render(const char *raw, size_t len, char *out, size_t cap);

/* Encodes a command as a RESP multibulk (lens may be NULL for C strings)
 * into small when it fits small_cap, else into a malloc()ed buffer the
 * caller frees when it is not small. Returns the buffer (NULL: out of
 * memory) and its length in *len. */
char *resp_format_command(int argc, const char *const *argv, const size_t *lens, char *small,
                          size_t small_cap, size_t *len);

#endif
