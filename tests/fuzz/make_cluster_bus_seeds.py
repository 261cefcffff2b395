#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_cluster_bus (tests/fuzz/fuzz_cluster_bus.c).

Each seed is one or more harness records: a control byte, a 16-bit
little-endian length (the body after the 2256-byte header when control bit 2
is set) and the message bytes, laid out as Redis 7.0's clusterMsg.
Usage: python3 tests/fuzz/make_cluster_bus_seeds.py [DIR]
"""
import os
import struct
import sys

HEADER = 2256


def header(mtype, count=0, sender=b"1" * 40, slots=(), epoch=1, slaveof=None, flags=1,
           mflags=4, current=5):
    h = bytearray(HEADER)
    h[0:4] = b"RCmb"
    struct.pack_into(">HHHH", h, 8, 1, 7001, mtype, count)
    struct.pack_into(">QQQ", h, 16, current, epoch, 0)
    h[40:80] = sender
    for s in slots:
        h[80 + s // 8] |= 1 << (s % 8)
    struct.pack_into(">HHH", h, 2246, 0, 17001, flags)
    if slaveof:
        h[2128:2168] = slaveof  # a replica: its master's name
    h[2253] = mflags  # 4: extensions supported; 1: paused; 2: force ack
    return h


def gossip(name, ip=b"127.0.0.9", port=7009, flags=1):
    g = bytearray(104)
    g[0:40] = name
    g[48:48 + len(ip)] = ip
    struct.pack_into(">HHHH", g, 94, port, port + 10000, flags, 0)
    return g


def record(control, msg):
    body = len(msg) - HEADER if control & 4 else len(msg)
    return bytes([control]) + struct.pack("<H", body) + bytes(msg)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "corpus", "fuzz_cluster_bus")
    os.makedirs(out, exist_ok=True)
    seeds = {
        "ping_empty": record(4 | 8, header(0)),
        "meet_unknown": record(4, header(2, 1, b"a" * 40) + gossip(b"b" * 40)),
        "pong_gossip_outbound": record(4 | 8 | 1, header(1, 2, slots=range(0, 4096), epoch=9)
                                       + gossip(b"2" * 40, flags=4) + gossip(b"c" * 40)),
        "fail": record(4 | 16 | 32, header(3) + b"3" * 40),
        "update": record(4 | 8, header(7) + struct.pack(">Q", 50) + b"2" * 40 + bytes(2048)),
        "publish": record(4 | 8, header(4) + struct.pack(">II", 3, 5) + b"chanhello" + bytes(7)),
        "ping_ext": record(4 | 8, header(0) + struct.pack(">IHH", 16, 0, 0) + b"host\0\0\0\0"),
    }
    # extensions count for ping_ext
    m = bytearray(seeds["ping_ext"])
    struct.pack_into(">H", m, 3 + 2214, 1)
    seeds["ping_ext"] = bytes(m)
    # Replicas and failover: peer 2 a replica of peer 1, peer 1 failing, an
    # election (auth request, ack); peer 2 a replica of this node asking
    # for a manual failover (MFSTART); a paused master's ping.
    replica_of_1 = record(4 | 16, header(0, slaveof=b"1" * 40, flags=2,
                                         slots=range(4096, 8192)))
    seeds["replica_ping"] = replica_of_1
    seeds["failover_election"] = (
        record(4 | 24, header(3) + b"1" * 40) + replica_of_1
        + record(4 | 16, header(5, flags=2, slaveof=b"1" * 40, slots=range(4096, 8192),
                                current=9))
        + record(4 | 24, header(6, current=9)))
    seeds["manual_failover"] = (
        record(4 | 16, header(0, slaveof=b"0" * 40, flags=2, slots=range(0, 4096)))
        + record(4 | 16, header(8, flags=2, slaveof=b"0" * 40))
        + record(4 | 16, header(5, flags=2, slaveof=b"0" * 40, mflags=4 | 2, current=9)))
    seeds["paused_master_ping"] = record(4 | 8, header(0, mflags=4 | 1, slots=range(4096, 8192)))
    seeds["sequence"] = seeds["meet_unknown"] + seeds["pong_gossip_outbound"] + seeds["fail"]
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
