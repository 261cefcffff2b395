/*
 * script_libs.h — the two Lua libraries Redis 7.0 bundles that Debian does
 * not package: `cmsgpack` (lua-cmsgpack 0.4.0: MessagePack) and `struct`
 * (Roberto Ierusalimschy's struct: binary packing). Written here to behave
 * as Redis's copies do, byte for byte and error text for error text
 * (tests/integration/test_diff_script_libs.c), including their quirks:
 *
 *  cmsgpack.pack(v, ...)   each value encoded and the results concatenated;
 *      a number that is an int64 is the smallest integer encoding, else a
 *      float when float holds it exactly, else a double; a table whose keys
 *      are exactly 1..n is an array, any other a map (lua_next order);
 *      tables nested 16 deep, functions, userdata and threads are nil.
 *  cmsgpack.unpack(s)      every value in s, as multiple results;
 *  cmsgpack.unpack_one(s [, offset]) / unpack_limit(s, limit [, offset]):
 *      the next offset (-1 at the end) and at most limit values. uint 64
 *      reads as a signed integer (Redis's lua_pushinteger); bin and ext
 *      types are "Bad data format in input."; a truncated value is
 *      "Missing bytes in input."; nesting is bounded by the Lua stack.
 *  struct.pack(fmt, ...), struct.unpack(fmt, s [, pos]), struct.size(fmt):
 *      options < > ! x b B h H l L T i[n] I[n] (n <= 32) f d s c[n] and ' ';
 *      integers are converted from doubles as x86-64 converts them
 *      (out-of-range and NaN give INT64_MIN's bits; unsigned conversion of
 *      2^63 and above subtracts 2^63 first), so results match redis-server
 *      on x86-64 on any machine.
 *
 * cmsgpack.unpack decodes bytes a client chose: tests/fuzz/fuzz_cmsgpack.c.
 */
#ifndef GOBLIN_SCRIPT_LIBS_H
#define GOBLIN_SCRIPT_LIBS_H

struct lua_State;

/* Each pushes its library's table (the caller names it as a global). */
int script_open_cmsgpack(struct lua_State *L);
int script_open_struct(struct lua_State *L);

#endif
