/*
 * script_sandbox.h — what a script can reach, and what it cannot do
 * (docs/scripting.md, "The sandbox").
 *
 * Redis ships a patched Lua 5.1 (read-only tables, no bytecode loader,
 * fixed library functions). goblin-core links Debian's stock liblua5.1,
 * lua-bitop and lua-cjson, so the same guarantees are made here, outside
 * Lua, by what a script is given:
 *
 *  - Read-only shared tables. The globals, every library table (string,
 *    table, math, coroutine, cjson, bit, cmsgpack, struct, redis) and the
 *    string metatable are reached only through proxies: empty tables whose
 *    __index reads the real table and whose __newindex is Redis's "Attempt
 *    to modify a readonly table". Every function that writes without
 *    __newindex (rawset, setmetatable, table.insert) refuses a proxy;
 *    those that read raw (next, pairs, rawget, table.foreach) read the real
 *    table, so pairs(_G) lists what Redis lists; getmetatable answers what
 *    Redis answers (the string metatable and _G's, both read-only; nil for
 *    a library) and never the real metatable.
 *  - Redis 7.0.15's globals exactly: no getfenv, setfenv, newproxy (so no
 *    script-defined finalizer exists), dofile, loadfile, print.
 *  - No bytecode: every chunk that starts with ESC (EVAL bodies, SCRIPT
 *    LOAD, FUNCTION LOAD, loadstring, load with a string or a reader) gets
 *    the text parser's error, as in Redis ("unexpected symbol near
 *    'char(27)'"). Chunks are at most SANDBOX_MAX_CHUNK bytes (Lua 5.1's
 *    lexer overflows an int on brackets of 2^30 '=', CVE-2025-46819), and
 *    the chunk name is a string anchored on the stack while the parser
 *    runs (a reader calling collectgarbage() freed it: CVE-2025-49844).
 *  - Fixed library functions: unpack with any range (CVE-2025-46817),
 *    bit.tohex with INT32_MIN (CVE-2024-31449), cjson.encode whose output
 *    could overflow lua-cjson's int-sized buffer or cjson.decode of input
 *    that could (CVE-2022-24834) refused with an error.
 *  - A bounded heap: each engine's allocator counts its Lua heap and,
 *    while a script runs (script_sandbox_enforce), refuses to grow it past
 *    lua-memory-limit, so no single C call (string.rep, table.concat,
 *    cmsgpack.pack of a shared subtable) can take the server's memory
 *    where SCRIPT KILL cannot reach it: the script fails with Lua's "not
 *    enough memory".
 */
#ifndef GOBLIN_SCRIPT_SANDBOX_H
#define GOBLIN_SCRIPT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

struct lua_State;

/* The largest chunk any load path compiles: Redis's default
 * proto-max-bulk-len, the largest script a client can send by default. */
#define SANDBOX_MAX_CHUNK (512u * 1024 * 1024)

/* A Lua state on the counting allocator; aborts on allocation failure. */
struct lua_State *script_sandbox_newstate(void);

/* Makes lua-memory-limit apply (a script or a library's top-level code is
 * running inside a protected call) or not (the server's own work on the
 * state, which must never fail half-way). */
void script_sandbox_enforce(struct lua_State *L, bool on);

/* A refused allocation makes the run's count hook fire at the next
 * instruction; each count hook calls this first to put its period back. */
void script_sandbox_hook_period(struct lua_State *L, int count);

/* Bytes the state's Lua heap holds. */
size_t script_sandbox_heap_bytes(struct lua_State *L);

/* Installs the sandbox on a state whose libraries are open and whose
 * `redis` global is set: replaces the unsafe functions, removes what
 * Redis does not have, puts every library table and the string metatable
 * behind proxies and makes the globals table read-only (the state's
 * LUA_GLOBALSINDEX becomes its proxy; the real table stays in the
 * registry under REG_SANDBOX_GLOBALS). */
void script_sandbox_install(struct lua_State *L);
#define REG_SANDBOX_GLOBALS "goblin.globals"

/* Pushes a read-only proxy of the table at `index`. */
void script_sandbox_push_proxy(struct lua_State *L, int index);

/* Gives the table at `index` a metatable whose __index raises Redis's
 * "Script attempted to access nonexistent global variable" error. */
void script_sandbox_missing_is_error(struct lua_State *L, int index);

/* Points what the globals proxy reads at the table on top of the stack
 * (FUNCTION LOAD's load-time globals, or back to the real globals), and
 * pops it. */
void script_sandbox_set_globals(struct lua_State *L);

/* The compile path of every load: a binary chunk gets the text parser's
 * error, a chunk over SANDBOX_MAX_CHUNK is refused, the name is anchored.
 * Returns lua_load's status with the function or the message pushed. */
int script_sandbox_load(struct lua_State *L, const char *code, size_t len, const char *chunkname);

/* After each run (and FUNCTION LOAD's top-level code): one incremental
 * GC step, or a full collection when the heap holds more than half of
 * lua-memory-limit, in a protected call. */
void script_sandbox_after_run(struct lua_State *L);

/* Closes a state: a full collection in a protected call first (Redis's
 * CVE-2024-46981 fix), then lua_close and the allocator's bookkeeping. */
void script_sandbox_close(struct lua_State *L);

/* The lua-memory-limit setting (core/config.h). */
struct config_table;
extern const struct config_table script_sandbox_config;

#endif
