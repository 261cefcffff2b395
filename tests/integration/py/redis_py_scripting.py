"""redis-py's own scripting idioms against goblin-core (argv[1] is the port):
Lock acquire/extend/reacquire/release (EVALSHA of redis-py's scripts, with
the NOSCRIPT fallback to EVAL after SCRIPT FLUSH), register_script, the
script_* helpers, function_load / fcall / fcall_ro, and RESP3 replies."""
import sys
import time

import redis

port = int(sys.argv[1])
r = redis.Redis(port=port, decode_responses=True)
r.flushall()
r.script_flush()

# Lock: acquire is SET NX PX; extend, reacquire and release are EVALSHA of
# redis-py's Lua scripts (loaded on first use through NOSCRIPT -> EVAL).
lock = r.lock("resource", timeout=10)
assert lock.acquire(blocking=False)
other = r.lock("resource", timeout=10)
assert not other.acquire(blocking=False)
assert lock.extend(20)
assert 10000 < r.pttl("resource") <= 30000, r.pttl("resource")
assert lock.reacquire()
assert lock.owned()
other.local.token = b"not-the-owner"
try:
    other.release()
    raise AssertionError("releasing a lock owned by another token succeeded")
except redis.exceptions.LockNotOwnedError:
    pass
lock.release()
assert r.get("resource") is None
other.local.token = None
assert other.acquire(blocking=False)
other.release()
# SCRIPT FLUSH forgets redis-py's cached scripts: it must fall back to EVAL.
lock = r.lock("resource", timeout=10)
assert lock.acquire(blocking=False)
r.script_flush()
assert lock.extend(5)
lock.release()

# register_script: EVALSHA with NOSCRIPT fallback, keys and args.
incrby = r.register_script("return redis.call('incrby', KEYS[1], ARGV[1])")
assert incrby(keys=["counter"], args=[5]) == 5
assert incrby(keys=["counter"], args=[7]) == 12
r.script_flush()
assert incrby(keys=["counter"], args=[1]) == 13
sha = r.script_load("return {KEYS[1], ARGV[1], 3.7, {ok='fine'}, false}")
assert r.script_exists(sha, "0" * 40) == [True, False]
assert r.evalsha(sha, 1, "k", "a") == ["k", "a", 3, "fine", None], r.evalsha(sha, 1, "k", "a")
try:
    r.eval("return redis.call('incr', 'notanumber')", 0) if r.set("notanumber", "x") else None
    raise AssertionError("a failing redis.call did not raise")
except redis.exceptions.ResponseError as e:
    assert "value is not an integer" in str(e), e
try:
    r.eval_ro("return redis.call('set', 'a', 'b')", 0)
    raise AssertionError("a write in EVAL_RO succeeded")
except redis.exceptions.ResponseError as e:
    assert "Write commands are not allowed from read-only scripts" in str(e), e

# Functions.
r.function_flush()
code = """#!lua name=pylib
redis.register_function('hset_get', function(keys, args)
  redis.call('hset', keys[1], args[1], args[2])
  return redis.call('hget', keys[1], args[1])
end)
redis.register_function{function_name='hlen_ro', callback=function(keys)
  return redis.call('hlen', keys[1]) end, flags={'no-writes'}}
"""
assert r.function_load(code) == "pylib"
assert r.fcall("hset_get", 1, "h", "f", "v") == "v"
assert r.fcall_ro("hlen_ro", 1, "h") == 1
libs = r.function_list()
assert libs[0][:2] == ["library_name", "pylib"], libs
payload = redis.Redis(port=port).function_dump()
r.function_flush()
assert r.function_restore(payload)
assert r.fcall_ro("hlen_ro", 1, "h") == 1

print("ok: Lock extend/release via EVALSHA, register_script, script_*, eval_ro, functions")
