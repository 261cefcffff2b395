#!/usr/bin/env python3
"""geo_points.py N [SEED] — GEOADD commands (RESP, for redis-cli --pipe) of N
members m0..m{N-1} at seeded uniform points in longitude [-10, 10] and
latitude [35, 55] (western Europe: a 100 km radius around Paris holds about
1% of them), 100 members per command. The same N and SEED give the same
bytes, so both servers of bench/geo.sh load the same set."""

import random
import sys


def main():
    n = int(sys.argv[1])
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    out = sys.stdout.buffer
    for first in range(0, n, 100):
        args = [b"GEOADD", b"geo"]
        for i in range(first, min(n, first + 100)):
            args += [b"%.6f" % rng.uniform(-10, 10), b"%.6f" % rng.uniform(35, 55), b"m%d" % i]
        out.write(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))


if __name__ == "__main__":
    main()
