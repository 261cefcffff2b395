"""redis-py's own transaction idioms against a server on 127.0.0.1:PORT.

Run by test_redis_py.sh with Debian's python3-redis. Exits non-zero (an
AssertionError or a redis exception) when the server departs from what
redis-py expects of Redis: pipeline(transaction=True) sends MULTI, the
commands and EXEC in one batch; transaction() retries on WatchError.
"""
import sys
import threading

import redis

port = int(sys.argv[1])
r = redis.Redis(host="127.0.0.1", port=port)
other = redis.Redis(host="127.0.0.1", port=port)
r.flushall()

# pipeline(transaction=True): one round trip, replies in order.
with r.pipeline(transaction=True) as p:
    p.set("a", "1").incr("a").get("a").hset("h", "f", "v").hget("h", "f")
    assert p.execute() == [True, 2, b"2", 1, b"v"]

# A runtime error inside EXEC: the other commands still ran (no rollback);
# redis-py raises it after EXEC unless raise_on_error=False.
with r.pipeline(transaction=True) as p:
    p.set("s", "text").incr("s").set("after", "yes")
    res = p.execute(raise_on_error=False)
    assert res[0] is True and isinstance(res[1], redis.ResponseError) and res[2] is True, res
assert r.get("after") == b"yes"

# A queue-time error aborts the whole transaction (EXECABORT): nothing ran.
with r.pipeline(transaction=True) as p:
    p.set("never", "1")
    p.execute_command("SET", "onlykey")
    try:
        p.execute()
        raise AssertionError("EXECABORT not raised")
    except redis.ResponseError as e:
        assert "EXECABORT" in str(e) or "wrong number of arguments" in str(e), e
assert r.exists("never") == 0

# Optimistic locking: WATCH, a concurrent write, WatchError, retry.
r.set("counter", 0)
attempts = []


def incr_counter(pipe):
    value = int(pipe.get("counter"))
    if not attempts:
        other.incr("counter")  # another client changes the watched key
    attempts.append(value)
    pipe.multi()
    pipe.set("counter", value + 1)


r.transaction(incr_counter, "counter")
assert len(attempts) == 2, attempts
assert int(r.get("counter")) == 2

# Many clients incrementing through WATCH/MULTI/EXEC never lose an update.
r.set("shared", 0)


def add_one(pipe):
    value = int(pipe.get("shared"))  # immediate mode: WATCHed read
    pipe.multi()
    pipe.set("shared", value + 1)


errors = []


def worker():
    try:
        c = redis.Redis(host="127.0.0.1", port=port)
        for _ in range(50):
            c.transaction(add_one, "shared")
    except Exception as e:  # reported by the main thread
        errors.append(e)


threads = [threading.Thread(target=worker) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
assert int(r.get("shared")) == 200, r.get("shared")

# Lock.acquire is SET NX PX (no scripting needed).
lock = r.lock("resource", timeout=10)
assert lock.acquire(blocking=False)
assert not r.lock("resource", timeout=10).acquire(blocking=False)
print("redis-py transactions: ok")
