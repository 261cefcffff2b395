#!/usr/bin/env python3
"""rdb_compare.py — fill a server with every type and encoding, or compare
two servers key by key (type, value, TTL), over a minimal RESP client.

  rdb_compare.py fill PORT [SEED]     write the data set
  rdb_compare.py writes PORT          the writes an AOF rewrites on the way
                                      (TTLs, pops, floats, transactions...)
  rdb_compare.py compare PORT_A PORT_B  exit 1 listing every difference
  rdb_compare.py stamp PORT idle|freq N   stamp:aged restored with IDLETIME N
                                      or FREQ N, stamp:fresh just written
  rdb_compare.py check-stamp PORT idle|freq|idle-dropped N
                                      exit 1 unless stamp:aged still has that
                                      idle time (within 120 s) or counter, or
                                      (idle-dropped) lost it
"""
import os
import random
import socket
import sys


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb")

    def call(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if not isinstance(a, bytes):
                a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.s.sendall(b"".join(out))
        return self.read()

    def read(self):
        line = self.f.readline()
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError("unexpected reply %r" % line)


def fill(port, seed):
    rnd = random.Random(seed)
    c = Conn(port)
    c.call("SELECT", 0)
    c.call("SET", "str:int", 12345)
    c.call("SET", "str:bigint", -9223372036854775808)
    c.call("SET", "str:emb", "hello world")
    c.call("SET", "str:empty", "")
    c.call("SET", "str:raw", "abc" * 1000)  # compressible
    c.call("SET", "str:random", bytes(rnd.getrandbits(8) for _ in range(3000)))
    c.call("SET", b"bin\x00key\xff", b"\x00\x01\xfe")
    c.call("SET", "str:ttl", "v", "PX", 3600000)
    c.call("HSET", "hash:small", "a", 1, "b", "two", "c", "", "n", -7000)
    args = []
    for i in range(1000):
        args += ["field:%d" % i, rnd.randrange(-10**12, 10**12)]
    c.call("HSET", "hash:large", *args)
    c.call("HSET", "hash:longvalue", "f", "x" * 100)
    c.call("ZADD", "zset:small", 0, "zero", 1, "one", -2.5, "neg", "1e300", "big",
           "inf", "pinf", "-inf", "ninf", 0.1, "tenth")
    args = []
    for i in range(300):
        args += [repr(rnd.uniform(-1e6, 1e6)), "member:%d" % i]
    c.call("ZADD", "zset:large", *args)
    c.call("ZADD", "zset:longmember", 1, "m" * 100)
    c.call("SADD", "set:ints", 1, -2, 300000, 9223372036854775807)
    c.call("SADD", "set:strs", "a", "b", "12")
    c.call("SADD", "set:large", *range(0, 3000, 3))
    c.call("RPUSH", "list:small", "a", 1, -2, "", "x" * 70, 9223372036854775807)
    c.call("RPUSH", "list:large", *[rnd.choice(["v%d" % i, i, "w" * (i % 90)])
                                    for i in range(5000)])
    c.call("LPUSH", "list:long", "y" * 20000, "z")
    c.call("EXPIRE", "list:small", 9000)
    c.call("EXPIRE", "zset:small", 7200)
    c.call("EXPIRE", "hash:large", 100000)
    # Streams: several nodes, tombstones, groups with pending entries,
    # consumers (one without pending entries), an empty stream with a group.
    for i in range(1, 400):
        fields = ["f", "v%d" % i] if i % 5 else ["f", rnd.randrange(10**9), "extra", "x" * (i % 70)]
        c.call("XADD", "stream:big", "%d-%d" % (1000 + i // 3, i % 3), *fields)
    c.call("XDEL", "stream:big", "1010-1", "1011-2", "1050-0")
    c.call("XGROUP", "CREATE", "stream:big", "g1", "0")
    c.call("XGROUP", "CREATE", "stream:big", "g2", "$", "ENTRIESREAD", "7")
    c.call("XREADGROUP", "GROUP", "g1", "alice", "COUNT", 30, "STREAMS", "stream:big", ">")
    c.call("XREADGROUP", "GROUP", "g1", "bob", "COUNT", 5, "STREAMS", "stream:big", ">")
    c.call("XREADGROUP", "GROUP", "g1", "carol", "COUNT", 5, "NOACK", "STREAMS", "stream:big", ">")
    c.call("XACK", "stream:big", "g1", "1001-0", "1001-1")
    c.call("XCLAIM", "stream:big", "g1", "bob", 0, "1003-0", "TIME", 1700000000000, "RETRYCOUNT", 4)
    c.call("XGROUP", "CREATECONSUMER", "stream:big", "g2", "idle")
    c.call("XADD", "stream:empty", "MAXLEN", 0, "5-5", "f", "v")
    c.call("XGROUP", "CREATE", "stream:empty", "g", "$")
    c.call("XADD", "stream:small", "1-1", "a", 1)
    c.call("XSETID", "stream:small", "99-0", "ENTRIESADDED", 12, "MAXDELETEDID", "50-0")
    c.call("EXPIRE", "stream:small", 7000)
    c.call("SELECT", 5)
    for i in range(200):
        c.call("SET", "k%d" % i, "v%d" % (i * i))
    c.call("SELECT", 15)
    c.call("HSET", "h15", "x", "y")


def writes(port):
    """Writes that Redis propagates rewritten (absolute TTLs, pops, floats,
    SPOP, blocking pops, transactions, expired keys), in database 3."""
    import time
    c, waiter = Conn(port), Conn(port)
    c.call("SELECT", 3)
    waiter.call("SELECT", 3)
    c.call("SET", "w:ex", "v", "EX", 5000)
    c.call("SET", "w:pxnx", "v", "PX", 5000000, "NX", "GET")
    c.call("SETEX", "w:setex", 6000, "v")
    c.call("PSETEX", "w:psetex", 7000000, "v")
    c.call("SET", "w:getex", "v")
    c.call("GETEX", "w:getex", "EX", 8000)
    c.call("SET", "w:persist", "v", "EX", 100)
    c.call("GETEX", "w:persist", "PERSIST")
    c.call("SET", "w:getdel", "v")
    c.call("GETDEL", "w:getdel")
    c.call("SET", "w:exp", "v")
    c.call("EXPIRE", "w:exp", 9000, "NX")
    c.call("PEXPIRE", "w:exp", 9500000, "GT")
    c.call("SET", "w:gone", "v")
    c.call("EXPIRE", "w:gone", -1)
    c.call("SET", "w:short", "v", "PX", 20)
    time.sleep(0.05)
    c.call("GET", "w:short")
    for _ in range(3):
        c.call("INCRBYFLOAT", "w:float", "1.1")
    c.call("HINCRBYFLOAT", "w:hf", "f", "2.5")
    c.call("HINCRBYFLOAT", "w:hf", "f", "0.25")
    c.call("SADD", "w:spop", *range(60))
    c.call("SPOP", "w:spop")
    c.call("SPOP", "w:spop", 5)
    c.call("SPOP", "w:spop", 50)
    c.call("SADD", "w:spopall", "a", "b", "c")
    c.call("SPOP", "w:spopall", 10)
    c.call("RPUSH", "w:l", *range(12))
    c.call("BLPOP", "w:none", "w:l", 0)
    c.call("BRPOP", "w:l", 0)
    c.call("BLMOVE", "w:l", "w:l2", "LEFT", "RIGHT", 0)
    c.call("BRPOPLPUSH", "w:l", "w:l2", 0)
    c.call("LMPOP", 2, "w:none", "w:l", "RIGHT", "COUNT", 2)
    c.call("BLMPOP", 0, 1, "w:l", "LEFT")
    c.call("ZADD", "w:z", 1, "a", 2, "b", 3, "c", 4, "d", 5, "e", 6, "f")
    c.call("BZPOPMIN", "w:z", 0)
    c.call("BZPOPMAX", "w:z", 0)
    c.call("ZMPOP", 1, "w:z", "MIN", "COUNT", 1)
    c.call("BZMPOP", 0, 1, "w:z", "MAX")
    c.call("MULTI")
    c.call("SET", "w:m1", "1")
    c.call("INCR", "w:m2")
    c.call("EXPIRE", "w:m2", 4000)
    c.call("EXEC")
    payload = c.call("DUMP", "w:z")
    c.call("RESTORE", "w:restored", 500000, payload)
    c.call("MOVE", "w:m1", 6)
    c.call("COPY", "w:m2", "w:m2copy")
    c.call("RENAME", "w:l2", "w:renamed")
    # A client blocked first, served by a later push.
    waiter.s.sendall(b"*3\r\n$5\r\nBLPOP\r\n$6\r\nw:wait\r\n$1\r\n0\r\n")
    time.sleep(0.1)
    c.call("RPUSH", "w:wait", "x", "y", "z")
    waiter.read()
    # Streams, with what Redis writes in other forms: XADD * (the ID it
    # generated), trimming with ~ (exact), XREADGROUP (XCLAIM ... JUSTID,
    # XGROUP SETID / CREATECONSUMER for NOACK), XCLAIM and XAUTOCLAIM.
    for i in range(300):
        c.call("XADD", "w:s", "MAXLEN", "~", 150, "*", "f", i, "g", "x" * (i % 40))
    c.call("XTRIM", "w:s", "MINID", "~", "0-1")
    c.call("XGROUP", "CREATE", "w:s", "g", "0")
    c.call("XREADGROUP", "GROUP", "g", "a", "COUNT", 10, "STREAMS", "w:s", ">")
    c.call("XREADGROUP", "GROUP", "g", "b", "COUNT", 10, "NOACK", "STREAMS", "w:s", ">")
    # (No history read, XREADGROUP ... 0: Redis 7.0 writes nothing for its
    # delivery count and time, so no replay reproduces them.)
    first = c.call("XRANGE", "w:s", "-", "+", "COUNT", 3)
    c.call("XACK", "w:s", "g", first[0][0])
    c.call("XDEL", "w:s", first[1][0])
    c.call("XCLAIM", "w:s", "g", "c", 0, first[1][0], first[2][0], "TIME", 1700000000000)
    c.call("XAUTOCLAIM", "w:s", "g", "d", 0, "0", "COUNT", 3)
    c.call("MULTI")
    c.call("XADD", "w:s", "*", "in", "multi")
    c.call("XSETID", "w:s", "18446744073709551615-0")
    c.call("EXEC")
    c.call("XGROUP", "CREATE", "w:s2", "g", "$", "MKSTREAM")
    waiter.s.sendall(b"*9\r\n$10\r\nXREADGROUP\r\n$5\r\nGROUP\r\n$1\r\ng\r\n$1\r\nw\r\n"
                     b"$5\r\nBLOCK\r\n$1\r\n0\r\n$7\r\nSTREAMS\r\n$4\r\nw:s2\r\n$1\r\n>\r\n")
    time.sleep(0.1)
    c.call("XADD", "w:s2", "*", "for", "the waiter")
    waiter.read()
    c.call("XGROUP", "CREATE", "w:s2", "gone", "0")
    c.call("XGROUP", "DESTROY", "w:s2", "gone")
    c.call("SELECT", 7)
    c.call("SET", "flushed", "1")
    c.call("FLUSHDB")


REPLAY_UNKNOWN = (b"seen-time", b"entries-read", b"lag")


def mask_seen_time(v):
    """With RDB_COMPARE_REPLAYED=1, what Redis 7.0's append-only file does
    not carry is left out: a replay recreates consumers at its own clock
    (seen-time), and XCLAIM ... LASTID moves a group's last ID without its
    read counter (entries-read, and the lag computed from it)."""
    if os.environ.get("RDB_COMPARE_REPLAYED") != "1" or not isinstance(v, list):
        return v
    out, hide = [], False
    for e in v:
        out.append(None if hide else mask_seen_time(e))
        hide = e in REPLAY_UNKNOWN
    return out


def value_of(c, key, kind):
    if kind == "string":
        return c.call("GET", key)
    if kind == "hash":
        flat = c.call("HGETALL", key)
        return sorted(zip(flat[0::2], flat[1::2]))
    if kind == "zset":
        return c.call("ZRANGE", key, 0, -1, "WITHSCORES")
    if kind == "list":
        return c.call("LRANGE", key, 0, -1)
    if kind == "set":
        return sorted(c.call("SMEMBERS", key))
    if kind == "stream":  # every field, groups, PELs and times included
        return mask_seen_time(c.call("XINFO", "STREAM", key, "FULL", "COUNT", 0))
    raise RuntimeError("no comparison for type %s" % kind)


def keys_of(c):
    keys, cursor = set(), b"0"
    while True:
        cursor, batch = c.call("SCAN", cursor, "COUNT", 1000)
        keys.update(batch)
        if cursor == b"0":
            return keys


def compare(port_a, port_b):
    a, b = Conn(port_a), Conn(port_b)
    problems, checked = [], 0
    for db in range(16):
        a.call("SELECT", db)
        b.call("SELECT", db)
        ka, kb = keys_of(a), keys_of(b)
        for k in sorted(ka ^ kb):
            problems.append("db%d key %r only on %s" % (db, k, port_a if k in ka else port_b))
        for k in sorted(ka & kb):
            checked += 1
            ta, tb = a.call("TYPE", k), b.call("TYPE", k)
            if ta != tb:
                problems.append("db%d key %r type %s vs %s" % (db, k, ta, tb))
                continue
            if value_of(a, k, ta) != value_of(b, k, tb):
                problems.append("db%d key %r (%s) values differ" % (db, k, ta))
            pa, pb = a.call("PTTL", k), b.call("PTTL", k)
            if (pa < 0 or pb < 0) and pa != pb or abs(pa - pb) > 10000:
                problems.append("db%d key %r TTL %d vs %d ms" % (db, k, pa, pb))
    for p in problems:
        print(p)
    print("compared %d keys: %d differences" % (checked, len(problems)))
    return 1 if problems or checked == 0 else 0


def stamp(port, kind, n):
    c = Conn(port)
    c.call("SET", "stamp:fresh", "v")
    c.call("SET", "stamp:aged", "v")
    payload = c.call("DUMP", "stamp:aged")
    c.call("RESTORE", "stamp:aged", 0, payload, "REPLACE", "IDLETIME" if kind == "idle" else "FREQ", n)


def check_stamp(port, kind, n):
    c = Conn(port)
    if kind == "freq":  # LFU_INIT_VAL for the fresh key; lfu-decay-time 0 on both sides
        got = (c.call("OBJECT", "FREQ", "stamp:aged"), c.call("OBJECT", "FREQ", "stamp:fresh"))
        ok = got == (n, 5)
    else:
        got = (c.call("OBJECT", "IDLETIME", "stamp:aged"), c.call("OBJECT", "IDLETIME", "stamp:fresh"))
        ok = got[1] < 120 and (n <= got[0] < n + 120 if kind == "idle" else got[0] < 120)
    if not ok:
        print("port %d: stamp:aged/stamp:fresh %s %s, expected %s %d" % (port, kind, got, kind, n))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "fill":
        fill(int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    elif sys.argv[1] == "writes":
        writes(int(sys.argv[2]))
    elif sys.argv[1] == "compare":
        sys.exit(compare(int(sys.argv[2]), int(sys.argv[3])))
    elif sys.argv[1] == "stamp":
        stamp(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "check-stamp":
        sys.exit(check_stamp(int(sys.argv[2]), sys.argv[3], int(sys.argv[4])))
    else:
        sys.exit("usage: rdb_compare.py fill PORT [SEED] | writes PORT | compare PORT_A PORT_B | "
                 "stamp PORT KIND N | check-stamp PORT KIND N")
