/*
 * Differential test of the cmsgpack and struct Lua libraries
 * (src/scripting/script_cmsgpack.c, script_struct.c) against redis-server,
 * RESP2 and RESP3, byte for byte: each script below runs by EVAL on both.
 * cmsgpack: every integer width at its boundaries, floats vs doubles,
 * NaN/inf, 2^53 and 2^63, strings at 31/32/65536+ bytes, arrays vs maps
 * (holes make a map), empty and nested tables, the 16-level nesting cut
 * (a cycle), functions as nil, map key order, unpack of every type byte
 * including uint 64 read as signed, bin (refused), truncated input, nil
 * keys, unpack_one/unpack_limit offsets and their error texts, the Lua
 * stack bound on deep nesting, read-only library tables. struct: every
 * option both endians, alignment, i/I sizes 0..16 (beyond 8 bytes),
 * out-of-range and NaN integers, c0 and s, size(), every error text.
 * Client bytes with NULs go through ARGV.
 */
#include <string.h>

#include "diff.h"

static struct diff_pair d;

static const char *const scripts[] = {
    "return struct.size('>iIhHbBlLTfdxc5')",
    "return struct.size('!4bi')",
    "return struct.size('s')",
    "return struct.size('c0')",
    "return struct.size('i33')",
    "return struct.size('!3')",
    "return struct.size('y')",
    "return struct.size('i99999999999')",
    "return {struct.pack('<i16', -2)}",
    "return {struct.pack('>i9', -2)}",
    "return {struct.unpack('<i9', struct.pack('<i9', -2))}",
    "return {struct.unpack('<i0', 'abc')}",
    "return {struct.unpack('>I9', '\\255\\255\\255\\255\\255\\255\\255\\255\\255')}",
    "return {struct.unpack('>i9', '\\255\\255\\255\\255\\255\\255\\255\\255\\255')}",
    "return {struct.unpack('b', 'abc', 0)}",
    "return {struct.unpack('bc0', '\\3abcd')}",
    "return {struct.unpack('c0', 'abcd')}",
    "return {struct.unpack('s', 'abcd')}",
    "return {struct.pack('c', '')}",
    "return {struct.pack('i', 'x')}",
    "return {struct.pack('i')}",
    "return struct._VERSION",
    "return cmsgpack._VERSION",
    "return {cmsgpack._NAME, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}",
    "return {struct.pack('<L', 2^64)}",
    "return {struct.pack('<l', -2^63)}",
    "return {struct.pack('<L', 1e300)}",
    "return {struct.pack('<l', 0/0)}",
    "return {struct.unpack('>L', struct.pack('>L', 2^63+2^20))}",
    "return struct.pack('Q')",
    "return {cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255')}",
    "return {cmsgpack.unpack('\\207\\127\\255\\255\\255\\255\\255\\255\\255')}",
    "return cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255') > 0",
    "return cmsgpack.unpack('\\206\\255\\255\\255\\255') > 0",
    "return {cmsgpack.pack()}",
    "return {cmsgpack.unpack('')}",
    "return {cmsgpack.unpack('\\193')}",
    "return {cmsgpack.unpack('\\146\\1')}",
    "return {cmsgpack.unpack_one('\\1\\2\\3', 1)}",
    "return {cmsgpack.unpack_one('\\1\\2\\3', 3)}",
    "return {cmsgpack.unpack_one('\\1\\2\\3', 4)}",
    "return {cmsgpack.unpack_one('\\1\\2\\3', -1)}",
    "return {cmsgpack.unpack_limit('\\1\\2\\3', 2, 1)}",
    "return {cmsgpack.unpack_limit('\\1\\2\\3', 0)}",
    "return {cmsgpack.unpack_limit('\\1\\2\\3', -1)}",
    "return {cmsgpack.unpack_one(5)}",
    "return {cmsgpack.unpack({})}",
    "return {cmsgpack.unpack('\\129\\192\\1')}",
    "local t={} t[1]=t return cmsgpack.pack(t)",
    "return cmsgpack.pack(0/0, 1/0, -1/0, 0.5, 0.1, 2^53, -2^63, 2^63)",
    "return {cmsgpack.unpack(cmsgpack.pack(1/0))}",
    "return cmsgpack.pack({1,2,nil,4})",
    "return cmsgpack.pack({[1]=1,[2]=2,[4]=4})",
    "return cmsgpack.pack({a=1,b={1,2},[3]=true})",
    "return {cmsgpack.unpack('\\202\\63\\128\\0\\0')}",
    "return cmsgpack.pack(string.rep('x',31), string.rep('y', 32))",
    "return cmsgpack.unpack_one('\\1', 1.5)",
    "cmsgpack.foo = 1",
    "return cmsgpack.pack(redis.call, true, false, nil)",
    "return {cmsgpack.unpack(string.rep('\\145', 5000) .. '\\1')}",
    "return #cmsgpack.pack(string.rep('x', 70000))",
    "return {cmsgpack.unpack(cmsgpack.pack(string.rep('x', 70000)))} [1] == string.rep('x', 70000)",
    "return {cmsgpack.unpack('\\220\\0\\2\\1\\2', '\\221\\0\\0\\0\\1\\3')}",
    "return {cmsgpack.unpack('\\222\\0\\1\\1\\2\\223\\0\\0\\0\\1\\3\\4')}",
    "return cmsgpack.unpack('\\223\\0\\0\\0\\1\\3\\4')[3]",
    "return {cmsgpack.unpack('\\218\\0\\2ab\\219\\0\\0\\0\\1c\\217\\1d')}",
    "return {cmsgpack.unpack('\\219\\255\\255\\255\\255')}",
    "return {cmsgpack.unpack('\\196\\1a')}",
    "return "
    "{cmsgpack.unpack('\\208\\128\\209\\128\\0\\210\\128\\0\\0\\0\\211\\128\\0\\0\\0\\0\\0\\0\\0')"
    "}",
    "return {cmsgpack.unpack('\\204\\255\\205\\255\\255\\224\\255')}",
    "return {cmsgpack.unpack('\\203\\64\\9\\33\\251\\84\\68\\45\\24')}",
    "return cmsgpack.pack(-1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, 127, "
    "128, 255, 256, 65535, 65536, 4294967295, 4294967296)",
    "return cmsgpack.pack({}, {{}}, {a={b={c={}}}})",
    "return struct.pack('>bBhHlLTiIi3I5', -1, 255, -2, 65535, -3, 2^40, 7, -4, 4, -5, 6)",
    "return {struct.unpack('>bBhHlLTiIi3I5', struct.pack('>bBhHlLTiIi3I5', -1, 255, -2, 65535, -3, "
    "2^40, 7, -4, 4, -5, 6))}",
    "return {struct.unpack('<bBhHlLTiIi3I5', struct.pack('<bBhHlLTiIi3I5', -1, 255, -2, 65535, -3, "
    "2^40, 7, -4, 4, -5, 6))}",
    "return struct.pack('!8bdbi', 1, 1.5, 2, 3)",
    "return {struct.unpack('!8bdbi', struct.pack('!8bdbi', 1, 1.5, 2, 3))}",
    "return struct.pack('>fd<fd', 1.5, 2.25, -0.5, 1e300)",
    "return {struct.unpack('>fd<fd', struct.pack('>fd<fd', 1.5, 2.25, -0.5, 1e300))}",
    "return struct.pack('sc3 x c0', 'a\\0b', 'xyz', 'tail')",
    "return {struct.unpack('sc3xc4', struct.pack('sc3xc4', 'ab', 'xyz', 'tail'))}",
    "return {struct.unpack('i', 'ab')}",
    "return {struct.unpack('b', 'abc', 3)}",
    "return {struct.unpack('b', 'abc', 4)}",
    "return {struct.unpack('bb', 'abc', 2)}",
    "return struct.size('!')",
    "return struct.size('!2hb!8d')",
    "return struct.pack('!2hb!8d', 1, 2, 3)",
    "return {struct.pack()}",
    "return {struct.unpack('i')}",
    "return {struct.pack('s', 1234)}",
    "return {struct.pack('c2', 'a')}",
    "return struct.pack('i', '12')",
    "return {struct.unpack('i3', '\\255\\255\\127')}",
    "return {struct.unpack('I3', '\\255\\255\\255')}",
    "return {struct.unpack('i3', '\\255\\255\\255')}",
    "struct.x = 1",
};

static void eval(const char *script)
{
    diff_check(&d, "EVAL", script, "0", NULL);
}

static void run_all(void)
{
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) eval(scripts[i]);
    /* Arguments with NULs, round trips through both libraries. */
    const char *argv[] = {
        "EVAL",
        "local s = cmsgpack.pack(ARGV[1], {ARGV[1], ARGV[2]}) "
        "local a, t = cmsgpack.unpack(s) "
        "return {s, a, t[1], t[2], struct.pack('>sc0I2', ARGV[1], ARGV[2], #ARGV[2])}",
        "0", "a\0b\0", "\0\xff\x80"};
    size_t lens[] = {4, strlen(argv[1]), 1, 5, 3};
    diff_check_argv(&d, 5, argv, lens);
    const char *unpack[] = {"EVAL", "return {pcall(cmsgpack.unpack, ARGV[1])}", "0",
                            "\x92\xa1\0\xc4"};
    size_t unpack_lens[] = {4, strlen(unpack[1]), 1, 4};
    diff_check_argv(&d, 4, unpack, unpack_lens);
}

int main(void)
{
    unsigned long long seed = test_seed("diff_script_libs");
    diff_start(&d, "diff_script_libs", seed, NULL, NULL);
    run_all();
    diff_hello3(&d);
    run_all();
    diff_stop(&d);
    return 0;
}
