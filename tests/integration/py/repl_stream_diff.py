"""The replication stream as a SYNC replica reads it, goblin-core vs
redis-server: each scenario runs the same commands on both servers with a
fresh stream attached and compares what arrives (absolute expiry times
masked). Used by tests/integration/test_diff_propagation.sh.

Usage: repl_stream_diff.py GOBLIN_PORT REDIS_PORT
"""
import re
import socket
import sys
import threading
import time


def encode(args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            d = self.s.recv(65536)
            if not d:
                raise EOFError
            self.buf += d
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln

    def exact(self, n):
        while len(self.buf) < n:
            self.buf += self.s.recv(65536)
        d, self.buf = self.buf[:n], self.buf[n:]
        return d

    def reply(self):
        ln = self.line()
        t = ln[:1]
        if t == b"$":
            n = int(ln[1:])
            return None if n < 0 else self.exact(n + 2)[:-2]
        if t == b"*":
            n = int(ln[1:])
            return None if n < 0 else [self.reply() for _ in range(n)]
        return ln

    def call(self, *args):
        self.s.sendall(encode(args))
        return self.reply()


def attach(port):
    """A SYNC replica: returns the conn positioned after the RDB payload."""
    c = Conn(port)
    c.call("config", "set", "repl-ping-replica-period", "3600")
    c.s.sendall(b"SYNC\r\n")
    while True:
        ln = c.line().lstrip(b"\n")
        if ln:
            break
    assert ln.startswith(b"$"), ln
    c.exact(int(ln[1:]))
    return c


def drain(c, quiet=1.0):
    """Commands of the stream until it has been quiet for `quiet` s."""
    c.s.settimeout(quiet)
    cmds = []
    try:
        while True:
            r = c.reply()
            cmds.append(r)
    except (socket.timeout, TimeoutError):
        pass
    return cmds


def masked(cmds):
    out = []
    for cmd in cmds:
        words = [w.decode(errors="replace") for w in cmd]
        words[0] = words[0].lower()
        for i, w in enumerate(words):
            if i > 0 and re.fullmatch(r"1[0-9]{12}", w):
                words[i] = "<ms>"
        if words[0] == "ping":
            continue
        out.append(" ".join(words))
    # Keys a SCAN finds expired go in hash order, which differs between
    # servers (and runs): each run of DELs is compared as a set.
    i = 0
    while i < len(out):
        j = i
        while j < len(out) and out[j].startswith("del "):
            j += 1
        out[i:j] = sorted(out[i:j])
        i = j + 1
    return out


# Each scenario: setup commands (before the stream attaches), then steps:
# a list of commands, "sleep S", or ("blocked", cmd...) run on a second
# connection that blocks (its reply is not awaited).
SCENARIOS = {
    "FLUSHALL of an empty keyspace is propagated": (
        ["flushall"],
        [["select", "9"], ["flushall"], ["select", "1"], ["rpush", "k", "hello"]],
    ),
    "FLUSHDB of an empty db is propagated": (
        ["flushall"],
        [["flushdb"], ["set", "a", "1"]],
    ),
    "SET with any expiry option is SET ... PXAT": (
        ["flushall"],
        [["set", "foo", "bar", "ex", "200"], ["set", "foo", "bar", "px", "100000"],
         ["set", "foo", "bar", "exat", str(int(time.time()) + 100)],
         ["set", "foo", "bar", "pxat", str(int(time.time() * 1000) + 100000)],
         ["set", "foo", "bar", "keepttl"]],
    ),
    "ZMPOP/LMPOP propagate the count that was popped": (
        ["flushall"],
        [["zadd", "z", "1", "a", "2", "b", "3", "c"], ["zmpop", "1", "z", "min"],
         ["zmpop", "2", "z", "z2", "min", "count", "10"],
         ["zmpop", "2", "z", "z2", "max", "count", "10"],
         ["rpush", "l", "a", "b", "c"], ["lmpop", "1", "l", "left", "count", "2"],
         ["lmpop", "1", "l", "right", "count", "5"]],
    ),
    "lazy expiry in SCAN and RANDOMKEY is not a transaction": (
        ["flushall", "debug set-active-expire 0", "set foo1 bar PX 1", "set foo2 bar PX 1",
         "sleep 0.01"],
        [["scan", "0"], ["set", "foo3", "bar", "PX", "1"], "sleep 0.01", ["randomkey"],
         ["debug", "set-active-expire", "1"]],
    ),
    "SWAPDB waking a waiter whose key expired: SWAPDB, then the DEL": (
        ["flushall", "debug set-active-expire 0"],
        [["select", "1"], ["rpush", "k", "hello"], ["pexpire", "k", "50"],
         ("blocked", 9, "brpop", "k", "1"), "sleep 0.2", ["swapdb", "1", "9"], "sleep 1",
         ["debug", "set-active-expire", "1"]],
    ),
    "EXEC waking a waiter whose key expired: the DEL alone, no BRPOP": (
        ["flushall", "debug set-active-expire 0"],
        [("blocked", 0, "brpop", "k", "1"), "sleep 0.1", ["multi"], ["rpush", "k", "hello"],
         ["pexpire", "k", "100"], ["debug", "sleep", "0.2"], ["exec"], "sleep 1",
         ["debug", "set-active-expire", "1"]],
    ),
}


def run(port, setup, steps):
    c = Conn(port)
    for line in setup:
        if line.startswith("sleep "):
            time.sleep(float(line[6:]))
        else:
            c.call(*line.split())
    stream = attach(port)
    side = []
    for step in steps:
        if isinstance(step, str):
            time.sleep(float(step[6:]))
        elif isinstance(step, tuple):
            b = Conn(port)
            b.call("select", str(step[1]))
            b.s.sendall(encode(step[2:]))
            side.append(b)
            time.sleep(0.1)
        else:
            c.call(*step)
    cmds = masked(drain(stream))
    c.call("select", "0")
    return cmds


def main():
    gport, rport = int(sys.argv[1]), int(sys.argv[2])
    failed = 0
    for name, (setup, steps) in SCENARIOS.items():
        got = run(gport, setup, steps)
        want = run(rport, setup, steps)
        if got != want:
            failed += 1
            print("FAIL: %s\n  goblin-core:  %s\n  redis-server: %s" % (name, got, want))
        else:
            print("ok: %s (%d commands)" % (name, len(got)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
