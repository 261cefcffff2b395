/* replica_proto.c — the master's replies as a replica reads them; see replica_proto.h. */
#include "repl/replica_proto.h"

#include <string.h>

enum repl_line_status repl_proto_line(const char *p, size_t n, size_t *len, size_t *consumed)
{
    size_t scan = n < REPL_LINE_MAX + 2 ? n : REPL_LINE_MAX + 2;
    const char *nl = memchr(p, '\n', scan);
    if (!nl) return n > REPL_LINE_MAX ? REPL_LINE_TOO_LONG : REPL_LINE_INCOMPLETE;
    size_t l = (size_t)(nl - p);
    *consumed = l + 1;
    if (l && p[l - 1] == '\r') l--;
    if (l > REPL_LINE_MAX) return REPL_LINE_TOO_LONG;
    *len = l;
    return REPL_LINE_OK;
}

static bool starts(const char *line, size_t len, const char *word)
{
    size_t n = strlen(word);
    return len >= n && memcmp(line, word, n) == 0;
}

/* A decimal of 1..18 digits with an optional '-' (offsets, lengths). */
static bool decimal(const char *p, size_t n, long long *out)
{
    bool neg = n && p[0] == '-';
    if (neg) p++, n--;
    if (n == 0 || n > 18) return false;
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        v = v * 10 + (p[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

static bool hex_id(const char *p, size_t n)
{
    if (n != REPL_ID_LEN) return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return true;
}

enum psync_reply repl_proto_psync_reply(const char *line, size_t len, char id[REPL_ID_LEN + 1],
                                        long long *offset)
{
    id[0] = '\0';
    if (starts(line, len, "+FULLRESYNC ")) {
        const char *p = line + 12;
        size_t rest = len - 12;
        if (rest < REPL_ID_LEN + 2 || !hex_id(p, REPL_ID_LEN) || p[REPL_ID_LEN] != ' ')
            return PSYNC_INVALID;
        if (!decimal(p + REPL_ID_LEN + 1, rest - REPL_ID_LEN - 1, offset) || *offset < 0)
            return PSYNC_INVALID;
        memcpy(id, p, REPL_ID_LEN);
        id[REPL_ID_LEN] = '\0';
        return PSYNC_FULLRESYNC;
    }
    if (len == 9 && memcmp(line, "+CONTINUE", 9) == 0) return PSYNC_CONTINUE;
    if (starts(line, len, "+CONTINUE ")) {
        const char *p = line + 10;
        size_t rest = len - 10;
        while (rest && p[rest - 1] == ' ') rest--;
        if (!hex_id(p, rest)) return PSYNC_INVALID;
        memcpy(id, p, REPL_ID_LEN);
        id[REPL_ID_LEN] = '\0';
        return PSYNC_CONTINUE;
    }
    if (starts(line, len, "-NOMASTERLINK") || starts(line, len, "-LOADING")) return PSYNC_TRY_LATER;
    if (starts(line, len, "-")) return PSYNC_NOT_SUPPORTED;
    return PSYNC_INVALID;
}

enum bulk_preamble repl_proto_bulk_preamble(const char *line, size_t len, long long *size,
                                            char mark[REPL_EOF_MARK_LEN + 1])
{
    if (len == 0) return BULK_KEEPALIVE;
    if (line[0] == '-') return BULK_ERROR;
    if (line[0] != '$') return BULK_INVALID;
    if (len == 5 + REPL_EOF_MARK_LEN && memcmp(line, "$EOF:", 5) == 0) {
        memcpy(mark, line + 5, REPL_EOF_MARK_LEN);
        mark[REPL_EOF_MARK_LEN] = '\0';
        return BULK_EOF_MARK;
    }
    if (!decimal(line + 1, len - 1, size) || *size < 0) return BULK_INVALID;
    return BULK_LENGTH;
}

bool repl_proto_is_mark(const char *tail, const char *mark)
{
    return memcmp(tail, mark, REPL_EOF_MARK_LEN) == 0;
}
