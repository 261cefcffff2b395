#!/usr/bin/env python3
"""big_value_stall.py — one side of bench/big_value_stall.sh (see there).

  big_value_stall.py ping PORT SECONDS OUT   PING at depth one for SECONDS;
                                             writes "start end" (Unix s) per
                                             PING slower than 1 ms, then the
                                             count and the maximum, to OUT
  big_value_stall.py send PORT SIZE_MB OUT   one SET of SIZE_MB MiB, a pause,
                                             then DEL; writes its timestamps
  big_value_stall.py report PINGS SENDS      the stalls in the SET's last
                                             second and during the DEL, and
                                             the overall maximum

Two processes, never threads: one interpreter's lock would make the pinger
wait for the sender and measure Python, not the server.
"""
import socket
import sys
import time


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_reply(s):
    data = b""
    while not data.endswith(b"\r\n"):
        chunk = s.recv(4096)
        if not chunk:
            raise SystemExit("server closed the connection")
        data += chunk
    return data


def ping(port, seconds, out):
    s = connect(port)
    slow, n, worst = [], 0, (0.0, 0.0)
    end = time.time() + seconds
    while time.time() < end:
        t0 = time.time()
        s.sendall(b"PING\r\n")
        if read_reply(s) != b"+PONG\r\n":
            raise SystemExit("bad PING reply")
        t1 = time.time()
        n += 1
        if t1 - t0 > 0.001:
            slow.append((t0, t1))
        if t1 - t0 > worst[0]:
            worst = (t1 - t0, t1)
    with open(out, "w") as f:
        for a, b in slow:
            f.write("%.6f %.6f\n" % (a, b))
        f.write("# pings %d max %.6f at %.6f\n" % (n, worst[0], worst[1]))


def send(port, size_mb, out):
    size = size_mb * 1024 * 1024
    payload = b"x" * size
    s = connect(port)
    t0 = time.time()
    s.sendall(b"*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$%d\r\n" % size)
    s.sendall(payload)
    s.sendall(b"\r\n")
    if read_reply(s) != b"+OK\r\n":
        raise SystemExit("bad SET reply")
    t1 = time.time()
    time.sleep(0.5)
    t2 = time.time()
    s.sendall(b"*2\r\n$3\r\nDEL\r\n$3\r\nbig\r\n")
    if read_reply(s) != b":1\r\n":
        raise SystemExit("bad DEL reply")
    t3 = time.time()
    with open(out, "w") as f:
        f.write("%.6f %.6f %.6f %.6f\n" % (t0, t1, t2, t3))


def report(pings, sends):
    with open(sends) as f:
        t0, t1, t2, t3 = map(float, f.read().split())
    slow, total, worst, worst_at = [], 0, 0.0, 0.0
    with open(pings) as f:
        for line in f:
            if line.startswith("#"):
                w = line.split()
                total, worst, worst_at = int(w[2]), float(w[4]), float(w[6])
            else:
                slow.append(tuple(map(float, line.split())))

    def during(a0, a1):
        # The slowest PING in flight at some point in [a0, a1]. The reply
        # that ends a stall may reach the sender a little after the PING's,
        # so windows end 5 ms late.
        hit = [b - a for a, b in slow if a <= a1 + 0.005 and b >= a0]
        return max(hit) * 1e3 if hit else 1.0

    # The SET's last second (the end of the transfer and the command itself)
    # and the whole DEL.
    at_set, at_del = during(t1 - 1.0, t1), during(t2, t3)
    print("transfer+SET %.0f ms, DEL %.1f ms, %d pings" % ((t1 - t0) * 1e3, (t3 - t2) * 1e3, total))
    print("max PING in the SET's last second: %s%.2f ms" % ("<" if at_set == 1.0 else "", at_set))
    print("max PING during the DEL:           %s%.2f ms" % ("<" if at_del == 1.0 else "", at_del))
    print("max PING overall:                 %.2f ms, %+.0f ms from SET start (SET reply at %+.0f ms)"
          % (worst * 1e3, (worst_at - t0) * 1e3, (t1 - t0) * 1e3))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "ping":
        ping(int(sys.argv[2]), float(sys.argv[3]), sys.argv[4])
    elif mode == "send":
        send(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif mode == "report":
        report(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
