#!/usr/bin/env python3
"""replication_lag.py MASTER_PORT REPLICA_PORT RATE SECONDS OUT.csv — replication
lag under a write load (bench/replication.sh, section 3).

A writer process sends RATE SETs a second to the master (batches every
millisecond, pipelined, replies drained), over SECONDS. Meanwhile a probe, in
this process, every 10 ms: SET lag:probe <n> on the master; once the master's
+OK is read (t0), GET lag:probe on the replica, again and again, until it
answers <n> (t1). The lag of that probe is t1 - t0: from the master's reply to
the replica having applied the write, with the resolution of one GET round
trip. OUT.csv gets one row per probe (lag_us) and a last row with the write
rate the writer reached."""
import multiprocessing
import socket
import sys
import time


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def writer(port, rate, seconds, done):
    s = connect(port)
    per_ms = max(1, rate // 1000)
    cmd = b"*3\r\n$3\r\nSET\r\n$8\r\nlag:load\r\n$16\r\n0123456789abcdef\r\n"
    batch = cmd * per_ms
    sent = 0
    pending = 0
    start = time.monotonic()
    s.setblocking(False)
    while True:
        now = time.monotonic()
        if now - start >= seconds:
            break
        due = int((now - start) * 1000) + 1
        while sent // per_ms < due:
            s.setblocking(True)
            s.sendall(batch)
            s.setblocking(False)
            sent += per_ms
            pending += len(b"+OK\r\n") * per_ms
        try:
            while pending:
                got = s.recv(1 << 20)
                if not got:
                    raise SystemExit("writer: the master closed the connection")
                pending -= len(got)
        except BlockingIOError:
            pass
        time.sleep(0.0002)
    s.setblocking(True)
    while pending > 0:
        pending -= len(s.recv(1 << 20))
    done.value = sent / (time.monotonic() - start)


def read_line(s, buf):
    while b"\r\n" not in buf[0]:
        chunk = s.recv(65536)
        if not chunk:
            raise SystemExit("probe: connection closed")
        buf[0] += chunk
    line, buf[0] = buf[0].split(b"\r\n", 1)
    return line


def read_bulk(s, buf):
    head = read_line(s, buf)
    if head == b"$-1":
        return None
    n = int(head[1:])
    while len(buf[0]) < n + 2:
        buf[0] += s.recv(65536)
    value, buf[0] = buf[0][:n], buf[0][n + 2:]
    return value


def main():
    mport, rport, rate, seconds, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    done = multiprocessing.Value("d", 0.0)
    w = multiprocessing.Process(target=writer, args=(mport, rate, seconds, done))
    m, r = connect(mport), connect(rport)
    mb, rb = [b""], [b""]
    lags = []
    w.start()
    time.sleep(0.2)  # the load reaches its rate
    n = 0
    end = time.monotonic() + seconds - 0.4
    while time.monotonic() < end:
        n += 1
        v = b"%d" % n
        m.sendall(b"*3\r\n$3\r\nSET\r\n$9\r\nlag:probe\r\n$%d\r\n%s\r\n" % (len(v), v))
        assert read_line(m, mb) == b"+OK"
        t0 = time.perf_counter_ns()
        while True:
            r.sendall(b"*2\r\n$3\r\nGET\r\n$9\r\nlag:probe\r\n")
            if read_bulk(r, rb) == v:
                break
        lags.append((time.perf_counter_ns() - t0) / 1000.0)
        time.sleep(0.01)
    w.join()
    if w.exitcode != 0:
        raise SystemExit("writer failed")
    with open(out, "w") as f:
        f.write("probe,lag_us\n")
        for i, lag in enumerate(lags, 1):
            f.write("%d,%.1f\n" % (i, lag))
        f.write("write_rate,%.0f\n" % done.value)


if __name__ == "__main__":
    main()
