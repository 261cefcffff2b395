/*
 * script_convert.h — Redis 7.0's conversion tables between replies and Lua
 * values (script_lua.h), both directions, RESP2 and RESP3.
 *
 * Reply -> Lua (what redis.call returns): integer -> number; bulk ->
 * string; null bulk / null array (RESP2) -> false; RESP3 null -> nil;
 * array -> table; status -> {ok=s}; error -> {err=s}; RESP3 map ->
 * {map={...}}, set -> {set={m=true}}, double -> {double=n}, boolean ->
 * boolean, big number -> {big_number=s}, verbatim ->
 * {verbatim_string={format=f, string=s}}; attributes are dropped.
 *
 * Lua -> reply (a script's result): string -> bulk; number -> integer
 * (truncated); boolean -> 1 / null (setresp 2) or a boolean (setresp 3);
 * table -> the first of err, ok, double, big_number, verbatim_string, map,
 * set that is present, else an array up to the first nil; anything else ->
 * null.
 */
#ifndef GOBLIN_SCRIPT_CONVERT_H
#define GOBLIN_SCRIPT_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

struct lua_State;
struct reply;

/* Pushes Redis's error table for "-CODE msg" or "msg" (code ERR). */
void script_push_error_table(struct lua_State *L, const char *text, size_t len);

/* Decodes one RESP2/RESP3 reply (as our encoders write it) and pushes it;
 * returns true when it is an error (an error table was pushed). */
bool script_push_reply(struct lua_State *L, const char *p, size_t len);

/* Answers the value on top of L's stack (not popped); `resp` is the
 * script's redis.setresp. */
void script_reply_value(struct lua_State *L, struct reply *r, int resp);

/* Answers the error a run raised (top of L's stack, as the message handler
 * left it): "<err> script: <name>, on <source>:<line>." */
void script_reply_error(struct lua_State *L, struct reply *r, const char *name);

#endif
