/*
 * Differential test of the bitmap commands (SETBIT, GETBIT, BITCOUNT,
 * BITPOS, BITOP, BITFIELD, BITFIELD_RO) and LCS against redis-server, byte for
 * byte: directed edge cases (limits, errors, overflow modes, encodings),
 * then a seeded random stream over a few keys holding short strings,
 * integers and other types, in RESP2 and RESP3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "util/rand.h"

static struct diff_pair d;

#define C(...) diff_check(&d, __VA_ARGS__, NULL)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static size_t pick(size_t n)
{
    return (size_t)(rand_u64() % n);
}

static void directed(void)
{
    C("FLUSHALL");
    C("SETBIT", "b", "7", "1");
    C("SETBIT", "b", "7", "0");
    C("SETBIT", "b", "100", "1");
    C("GET", "b");
    C("OBJECT", "ENCODING", "b");
    C("SETBIT", "b", "-1", "1");
    C("SETBIT", "b", "x", "1");
    C("SETBIT", "b", "1", "2");
    C("SETBIT", "b", "1", "-1");
    C("SETBIT", "b", "4294967296", "1");
    C("SETBIT", "b", "4294967295", "x");
    C("GETBIT", "b", "4294967296");
    C("GETBIT", "b", "100");
    C("GETBIT", "b", "100000");
    C("GETBIT", "nokey", "3");
    C("SET", "n", "123");
    C("GETBIT", "n", "2");
    C("SETBIT", "n", "0", "1");
    C("GET", "n");
    C("OBJECT", "ENCODING", "n");
    C("SET", "e", "");
    C("BITCOUNT", "e");
    C("BITPOS", "e", "0");
    C("BITPOS", "e", "1");
    C("SET", "ff", "\xff\xff\xff");
    C("BITPOS", "ff", "0");
    C("BITPOS", "ff", "0", "0");
    C("BITPOS", "ff", "0", "0", "-1");
    C("BITPOS", "ff", "0", "3", "5", "BIT");
    C("BITPOS", "ff", "1", "3", "5", "BIT");
    C("BITPOS", "ff", "0", "1", "BIT");
    C("BITPOS", "ff", "2");
    C("BITPOS", "ff", "x");
    C("BITPOS", "ff", "1", "x");
    C("BITPOS", "ff", "1", "0", "x");
    C("BITPOS", "ff", "1", "0", "1", "WORD");
    C("BITPOS", "ff", "1", "0", "1", "BIT", "x");
    C("BITPOS", "nokey", "0");
    C("BITPOS", "nokey", "1");
    C("BITPOS", "nokey", "1", "x");
    C("BITCOUNT", "ff", "1");
    C("BITCOUNT", "ff", "x", "y");
    C("BITCOUNT", "nokey", "x", "y");
    C("BITCOUNT", "ff", "0", "0", "WORD");
    C("BITCOUNT", "ff", "-1", "-2");
    C("BITCOUNT", "ff", "5", "2", "BIT");
    C("BITCOUNT", "ff", "0", "-1", "BIT", "x");
    C("BITOP", "AND", "d", "b", "ff");
    C("OBJECT", "ENCODING", "d");
    C("GET", "d");
    C("BITOP", "OR", "d", "b", "ff", "n", "nokey");
    C("GET", "d");
    C("BITOP", "XOR", "d", "b", "ff");
    C("GET", "d");
    C("BITOP", "NOT", "d", "n");
    C("GET", "d");
    C("BITOP", "NOT", "d", "b", "ff");
    C("BITOP", "NAND", "d", "b");
    C("BITOP", "AND", "d", "nokey", "nokey2");
    C("EXISTS", "d");
    C("BITOP", "AND", "d", "e");
    C("HSET", "h", "f", "v");
    C("BITOP", "AND", "d", "b", "h");
    C("SETBIT", "h", "1", "1");
    C("GETBIT", "h", "1");
    C("BITCOUNT", "h");
    C("BITPOS", "h", "1");
    C("BITFIELD", "h", "GET", "u8", "0");
    C("BITFIELD_RO", "h", "GET", "u8", "0");
    /* BITFIELD: types, offsets, overflow modes. */
    C("BITFIELD", "bf", "SET", "i8", "0", "-100", "INCRBY", "i8", "0", "-100", "OVERFLOW", "SAT",
      "INCRBY", "i8", "0", "-100", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "-100", "INCRBY", "u4",
      "#3", "20", "GET", "u4", "#3", "SET", "u8", "8", "-1", "GET", "i64", "0");
    C("GET", "bf");
    C("BITFIELD", "bf", "OVERFLOW", "SAT", "SET", "u8", "8", "-1", "SET", "u8", "8", "256", "SET",
      "i8", "8", "200", "SET", "i8", "8", "-200", "INCRBY", "i64", "0", "9223372036854775807",
      "INCRBY", "i64", "0", "9223372036854775807");
    C("BITFIELD", "bf", "OVERFLOW", "WRAP", "SET", "i64", "0", "-9223372036854775808", "INCRBY",
      "i64", "0", "-1", "INCRBY", "u63", "0", "-1", "INCRBY", "u1", "5", "3", "INCRBY", "i1", "5",
      "1", "INCRBY", "i1", "5", "1");
    C("BITFIELD", "bf", "OVERFLOW", "FAIL", "SET", "u2", "100", "4", "GET", "u2", "100");
    C("BITFIELD", "nokey2", "OVERFLOW", "FAIL", "SET", "u2", "100", "4");
    C("EXISTS", "nokey2");
    C("GET", "nokey2");
    C("BITFIELD", "bf");
    C("BITFIELD", "bf", "OVERFLOW", "SAT");
    C("BITFIELD", "nokey", "GET", "u8", "0");
    C("EXISTS", "nokey");
    C("BITFIELD", "bf", "GET", "u64", "0");
    C("BITFIELD", "bf", "GET", "i65", "0");
    C("BITFIELD", "bf", "GET", "i0", "0");
    C("BITFIELD", "bf", "GET", "x8", "0");
    C("BITFIELD", "bf", "GET", "i", "0");
    C("BITFIELD", "bf", "GET", "i8", "-1");
    C("BITFIELD", "bf", "GET", "i8", "#-1");
    C("BITFIELD", "bf", "GET", "i8", "#x");
    C("BITFIELD", "bf", "GET", "i8", "4294967296");
    C("BITFIELD", "bf", "GET", "i8", "#536870912");
    C("BITFIELD", "bf", "SET", "i8", "0", "x");
    C("BITFIELD", "bf", "OVERFLOW", "x");
    C("BITFIELD", "bf", "OVERFLOW");
    C("BITFIELD", "bf", "GET", "i8");
    C("BITFIELD", "bf", "SET", "i8", "0");
    C("BITFIELD", "bf", "FOO", "i8", "0");
    C("BITFIELD_RO", "bf", "GET", "i8", "0", "GET", "u3", "#2");
    C("BITFIELD_RO", "bf", "GET", "i8", "0", "SET", "i8", "0", "1");
    C("BITFIELD_RO", "bf", "INCRBY", "i8", "0", "1");
    C("BITFIELD_RO", "bf", "OVERFLOW", "SAT");
    C("CONFIG", "SET", "proto-max-bulk-len", "1mb");
    C("SETBIT", "big", "8388608", "1");
    C("SETBIT", "big", "8388607", "1");
    C("STRLEN", "big");
    C("CONFIG", "SET", "proto-max-bulk-len", "512mb");
    C("MSET", "key1", "ohmytext", "key2", "mynewtext");
    C("LCS", "key1", "key2");
    C("LCS", "key1", "key2", "LEN");
    C("LCS", "key1", "key2", "IDX");
    C("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN");
    C("LCS", "key1", "key2", "IDX", "LEN");
    C("LCS", "key1", "nokey", "IDX");
    C("LCS", "key1", "h");
    C("LCS", "key1", "key2", "MINMATCHLEN");
    C("LCS", "key1", "key2", "MINMATCHLEN", "x");
    C("LCS", "key1", "key2", "FOO");
}

static const char *const keys[] = {"k0", "k1", "k2", "n", "h", "none"};
static const char *const offsets[] = {"0",  "1",  "7",  "8",  "9",   "15", "23",
                                      "31", "40", "63", "64", "100", "-1", "x"};
static const char *const indexes[] = {"0",   "1",  "2",  "3",  "-1",  "-2",   "-3", "5",
                                      "-10", "10", "13", "20", "100", "-100", "x"};
static const char *const types[] = {"i1", "i3", "i8", "i16", "i32", "i63", "i64", "u1",
                                    "u2", "u7", "u8", "u16", "u31", "u63", "u64", "i0"};
static const char *const fields[] = {"0", "1", "5", "8", "13", "#0", "#1", "#3", "20", "#x", "-1"};
static const char *const values[] = {"0",
                                     "1",
                                     "-1",
                                     "3",
                                     "127",
                                     "128",
                                     "-128",
                                     "255",
                                     "-129",
                                     "1000",
                                     "-77",
                                     "x",
                                     "65535",
                                     "4294967295",
                                     "9223372036854775807",
                                     "-9223372036854775808"};
#define S(lit)                                                                                     \
    {                                                                                              \
        lit, sizeof(lit) - 1                                                                       \
    }
static const struct {
    const char *p;
    size_t len;
} strings[] = {S(""),
               S("a"),
               S("\xff"),
               S("\x00\x01"),
               S("hello world"),
               S("\xf0\x0f\xaa"),
               S("1"),
               S("123"),
               S("-5"),
               S("\xff\xff\xff\xff\xff\xff\xff\xff\x01")};
#undef S

static const char *const overflows[] = {"WRAP", "SAT", "FAIL"};

#define MAX_ARGS 40

static void random_command(void)
{
    const char *argv[MAX_ARGS];
    size_t lens[MAX_ARGS];
    int argc = 0;
#define A(x) (argv[argc] = (x), lens[argc] = strlen(argv[argc]), argc++)
    const char *key = keys[pick(ARRAY_LEN(keys))];
    switch (pick(13)) {
    case 0:
    case 1:
        A("SETBIT"), A(key), A(offsets[pick(ARRAY_LEN(offsets))]), A(pick(8) ? "1" : "0");
        break;
    case 2:
        A("GETBIT"), A(key), A(offsets[pick(ARRAY_LEN(offsets))]);
        break;
    case 3:
        A("BITCOUNT"), A(key);
        if (pick(3)) {
            A(indexes[pick(ARRAY_LEN(indexes))]), A(indexes[pick(ARRAY_LEN(indexes))]);
            if (pick(2)) A(pick(2) ? "BIT" : "BYTE");
        }
        break;
    case 4:
    case 5:
        A("BITPOS"), A(key), A(pick(2) ? "1" : "0");
        if (pick(3)) A(indexes[pick(ARRAY_LEN(indexes))]);
        if (argc == 4 && pick(2)) A(indexes[pick(ARRAY_LEN(indexes))]);
        if (argc == 5 && pick(2)) A(pick(2) ? "BIT" : "BYTE");
        break;
    case 6: {
        static const char *const ops[] = {"AND", "OR", "XOR", "NOT"};
        const char *op = ops[pick(4)];
        A("BITOP"), A(op), A(keys[pick(3)]), A(key);
        if (strcmp(op, "NOT") != 0)
            for (size_t i = 0, n = pick(3); i < n; i++) A(keys[pick(ARRAY_LEN(keys))]);
        break;
    }
    case 7:
    case 8: {
        A(pick(5) ? "BITFIELD" : "BITFIELD_RO"), A(key);
        for (size_t i = 0, n = 1 + pick(4); i < n && argc + 4 < MAX_ARGS; i++) {
            switch (pick(4)) {
            case 0:
                A("OVERFLOW");
                A(pick(10) ? overflows[pick(3)] : "BAD");
                break;
            case 1:
                A("GET"), A(types[pick(ARRAY_LEN(types))]), A(fields[pick(ARRAY_LEN(fields))]);
                break;
            default:
                A(pick(2) ? "SET" : "INCRBY"), A(types[pick(ARRAY_LEN(types))]);
                A(fields[pick(ARRAY_LEN(fields))]), A(values[pick(ARRAY_LEN(values))]);
                break;
            }
        }
        break;
    }
    case 9:
        A(pick(2) ? "SET" : "APPEND"), A(keys[pick(3)]);
        {
            size_t k = pick(ARRAY_LEN(strings));
            argv[argc] = strings[k].p;
            lens[argc++] = strings[k].len;
        }
        break;
    case 10:
        if (pick(2))
            A("GET"), A(key);
        else
            A("OBJECT"), A("ENCODING"), A(key);
        break;
    case 11: {
        static const char *const opts[] = {"LEN", "IDX", "WITHMATCHLEN", "MINMATCHLEN", "2",
                                           "-1",  "x",   "IDX"};
        A("LCS"), A(key), A(keys[pick(ARRAY_LEN(keys))]);
        for (size_t i = 0, n = pick(4); i < n; i++) A(opts[pick(ARRAY_LEN(opts))]);
        break;
    }
    default:
        A(pick(5) ? "STRLEN" : "DEL"), A(key);
        break;
    }
#undef A
    if (getenv("DIFF_TRACE")) {
        for (int i = 0; i < argc; i++) fprintf(stderr, "%s ", argv[i]);
        fputc('\n', stderr);
    }
    diff_check_argv(&d, argc, argv, lens);
}

static void run_all(int n)
{
    directed();
    C("FLUSHALL");
    C("HSET", "h", "f", "v");
    C("SET", "n", "42");
    for (int i = 0; i < n; i++) random_command();
}

int main(void)
{
    unsigned long long seed = test_seed("diff_bitmap");
    rand_seed(seed);
    diff_start(&d, "diff_bitmap", seed, NULL, NULL);
    int n = getenv("GOBLIN_ASAN") ? 3000 : 6000;
    run_all(n);
    diff_hello3(&d);
    run_all(n);
    diff_stop(&d);
    return 0;
}
