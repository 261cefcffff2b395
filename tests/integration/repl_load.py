#!/usr/bin/env python3
"""repl_load.py PORT SEED OPS [FLUSHALL_AT] — a seeded random write load for
the replication tests: strings, hashes, lists, sets, sorted sets, streams,
TTLs (relative, absolute, short ones that expire during the load), MULTI/EXEC,
EVAL and FCALL (effects replication), SELECT of other databases, and one
FLUSHALL at op FLUSHALL_AT (-1: none). Prints the number of ops sent."""
import random
import sys

import redis

port, seed, ops = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
flush_at = int(sys.argv[4]) if len(sys.argv) > 4 else -1
rnd = random.Random(seed)
conns = [redis.Redis(port=port, db=d, decode_responses=False) for d in (0, 3)]

SCRIPT = "redis.call('set', KEYS[1], ARGV[1]); redis.call('incrby', KEYS[2], ARGV[2]); " \
         "if tonumber(ARGV[2]) % 3 == 0 then redis.call('del', KEYS[1]) end; return 1"


def key(kind):
    return "%s:%d" % (kind, rnd.randrange(60))


def one(r):
    op = rnd.randrange(24)
    if op == 0:
        r.set(key("s"), rnd.randbytes(rnd.randrange(1, 40)))
    elif op == 1:
        r.set(key("s"), "v%d" % rnd.randrange(1000), ex=rnd.randrange(50, 500))
    elif op == 2:  # expires during the load: the master's DEL reaches the replica
        r.set(key("t"), "short", px=rnd.randrange(1, 30))
    elif op == 3:
        r.incrby(key("n"), rnd.randrange(-5, 50))
    elif op == 4:
        r.incrbyfloat(key("f"), rnd.random())
    elif op == 5:
        r.hset(key("h"), "f%d" % rnd.randrange(20), rnd.randrange(10 ** 6))
    elif op == 6:
        r.hincrbyfloat(key("h"), "float", 1.5)
    elif op == 7:
        r.rpush(key("l"), *["e%d" % rnd.randrange(100) for _ in range(rnd.randrange(1, 5))])
    elif op == 8:
        r.lpop(key("l"))
    elif op == 9:
        r.sadd(key("set"), *[rnd.randrange(50) for _ in range(3)])
    elif op == 10:
        r.spop(key("set"), rnd.randrange(1, 3))
    elif op == 11:
        r.zadd(key("z"), {"m%d" % rnd.randrange(30): rnd.random() * 100})
    elif op == 12:
        r.zpopmin(key("z"))
    elif op == 13:
        r.expire(key("s"), rnd.randrange(100, 1000))
    elif op == 14:
        r.pexpireat(key("h"), 4102444800000 + rnd.randrange(10 ** 6))
    elif op == 15:
        r.delete(key("s"), key("n"))
    elif op == 16:
        r.getex(key("s"), persist=True)
    elif op == 17:
        p = r.pipeline(transaction=True)
        p.incr(key("n"))
        p.hset(key("h"), "m", "x")
        p.set(key("s"), "in-multi")
        p.execute()
    elif op == 18:
        r.eval(SCRIPT, 2, key("s"), key("n"), "v%d" % rnd.randrange(100), rnd.randrange(100))
    elif op == 19:
        r.fcall("repl_bump", 1, key("n"))
    elif op == 20:
        r.xadd(key("x"), {"a": rnd.randrange(100)}, maxlen=20, approximate=False)
    elif op == 21:
        r.setex(key("t"), 1, "one-second")
    elif op == 22:
        r.append(key("s"), "+")
    else:
        r.getdel(key("s"))


sent = 0
for i in range(ops):
    if i == flush_at:
        conns[0].flushall()
    one(conns[rnd.randrange(2)])
    sent += 1
print(sent)
