/* typed_call.c — a typed call as the argv of its RESP form; see typed_call.h. */
#include "protocol/typed_call.h"

#include <string.h>

#include "util/numparse.h"

static const char *const set_expire_words[] = {NULL, "EX", "PX", "EXAT", "PXAT", "KEEPTTL"};
static const char *const zadd_flag_words[] = {"NX", "XX", "GT", "LT", "CH", "INCR"};

bool typed_call_has_numbers(enum typed_op op)
{
    return op == TYPED_SET || op == TYPED_INCRBY || op == TYPED_ZADD;
}

static void put(const char **argv, size_t *argv_len, int *argc, const char *data, size_t len)
{
    argv[*argc] = data;
    argv_len[*argc] = len;
    (*argc)++;
}

static void put_word(const char **argv, size_t *argv_len, int *argc, const char *word)
{
    put(argv, argv_len, argc, word, strlen(word));
}

int typed_call_lower(const struct typed_call *t, const char **argv, size_t *argv_len,
                     char number[TYPED_NUMBER_CAP])
{
    if (!typed_call_has_numbers(t->op)) return t->argc;
    /* ZADD's member moves (slot 3 to the end): read it before any write,
     * argv may be t->argv. */
    const char *member = t->argv[3];
    size_t member_len = t->argv_len[3];
    int argc = t->op == TYPED_SET ? 3 : 2;
    if (argv != t->argv) {
        memcpy(argv, t->argv, sizeof *argv * (size_t)argc);
        memcpy(argv_len, t->argv_len, sizeof *argv_len * (size_t)argc);
    }
    switch (t->op) {
    case TYPED_SET:
        if (t->flags & TYPED_SET_NX) put_word(argv, argv_len, &argc, "NX");
        if (t->flags & TYPED_SET_XX) put_word(argv, argv_len, &argc, "XX");
        if (t->flags & TYPED_SET_GET) put_word(argv, argv_len, &argc, "GET");
        if (t->expire_kind != TYPED_EXPIRE_NONE)
            put_word(argv, argv_len, &argc, set_expire_words[t->expire_kind]);
        if (t->expire_kind != TYPED_EXPIRE_NONE && t->expire_kind != TYPED_EXPIRE_KEEPTTL)
            put(argv, argv_len, &argc, number, num_format_ll(number, t->number));
        break;
    case TYPED_INCRBY:
        put(argv, argv_len, &argc, number, num_format_ll(number, t->number));
        break;
    default: /* TYPED_ZADD */
        for (unsigned i = 0; i < sizeof zadd_flag_words / sizeof zadd_flag_words[0]; i++)
            if (t->flags & (1u << i)) put_word(argv, argv_len, &argc, zadd_flag_words[i]);
        put(argv, argv_len, &argc, number, num_format_double(number, TYPED_NUMBER_CAP, t->score));
        put(argv, argv_len, &argc, member, member_len);
        break;
    }
    return argc;
}
