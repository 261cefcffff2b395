#!/usr/bin/env python3
"""report_streams.py RUN_DIR — report.md of one bench/streams.sh run.

Reads RUN_DIR/raw/<server>-<TEST>.r<round>.csv (redis-benchmark --csv),
RUN_DIR/depth1-<server>-<transport>.txt (goblin-bench tables) and
RUN_DIR/metadata.txt; writes RUN_DIR/report.md: the pipelined requests per
second (median over the rounds, the ratio, every round's ratio) against the
"at least parity" target, and the depth-one percentiles of SET, XADD and
XREADGROUP. Python standard library only.
"""

import csv
import glob
import os
import re
import statistics
import sys

TESTS = ["XADD", "XRANGE", "XREADGROUP"]
CELLS = ["goblin-tcp", "redis-tcp", "goblin-ring"]
DEPTH_OPS = ["SET", "XADD", "XREADGROUP"]


def rps(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return float(rows[1][1])


def depth_table(path):
    cols, table = None, {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts or line.startswith("#"):
                continue
            if parts[0] == "op":
                cols = parts
            elif cols:
                table[parts[0]] = dict(zip(cols[1:], parts[1:]))
    return table


def main(run):
    with open(os.path.join(run, "metadata.txt")) as f:
        meta = dict(line.rstrip("\n").split(": ", 1) for line in f if ": " in line)
    rounds = sorted({int(m.group(1)) for p in glob.glob(os.path.join(run, "raw", "*.csv"))
                     for m in [re.search(r"\.r(\d+)\.csv$", p)] if m})
    out = ["# Streams: goblin-core vs redis-server", "",
           f"Command: `{meta.get('command', '?')}` (commit {meta.get('commit', '?')}, "
           f"{meta.get('date_utc', '?')}, {meta.get('cpus_online', '?')} CPUs, "
           f"{meta.get('cpu_model', '?')}, kernel {meta.get('kernel', '?')}; "
           f"{meta.get('redis-server', '?')}; load average {meta.get('load average (1/5/15 min)', '?')}).",
           "",
           f"## Pipelined: redis-benchmark -P 16 -c 50, {len(rounds)} rounds, servers alternating",
           "",
           "| test | goblin-core req/s | redis-server req/s | ratio | per-round ratios | target >= 1.0 |",
           "|---|---|---|---|---|---|"]
    for test in TESTS:
        g = [rps(os.path.join(run, "raw", f"goblin-{test}.r{r}.csv")) for r in rounds]
        r_ = [rps(os.path.join(run, "raw", f"redis-{test}.r{r}.csv")) for r in rounds]
        gm, rm = statistics.median(g), statistics.median(r_)
        per = " ".join(f"{a / b:.2f}" for a, b in zip(g, r_))
        out.append(f"| {test} | {gm:.0f} | {rm:.0f} | {gm / rm:.2f} | {per} | "
                   f"{'met' if gm / rm >= 1.0 else 'missed'} |")
    out += ["", "XADD: `XADD bench:s * f v` on a fresh stream; XRANGE: `XRANGE bench:s - + COUNT 10` "
            "on 100000 entries; XREADGROUP: `XREADGROUP GROUP g c COUNT 10 STREAMS bench:s >` on a "
            "stream preloaded with ten entries per request (every request served ten new entries, "
            "which become pending; checked after each run). Medians over the rounds.", "",
            "## Depth one: goblin-bench, microseconds", "",
            "| server-transport | op | p50 | p90 | p99 | p99.9 | mean | ops/s |",
            "|---|---|---|---|---|---|---|---|"]
    for cell in CELLS:
        path = os.path.join(run, f"depth1-{cell}.txt")
        if not os.path.exists(path):
            continue
        t = depth_table(path)
        for op in DEPTH_OPS:
            row = t.get(op)
            if row:
                out.append(f"| {cell} | {op} | {row['p50']} | {row['p90']} | {row['p99']} | "
                           f"{row['p99.9']} | {row['mean']} | {row['ops/s']} |")
    out += ["", "XADD: explicit IDs k-1 and one 16-byte field/value pair; XREADGROUP: `COUNT 1 "
            "... >` over a stream preloaded with one entry per operation (bench/ops.h); every "
            "reply validated byte for byte. redis-server has no ring.", ""]
    with open(os.path.join(run, "report.md"), "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: report_streams.py RUN_DIR")
    main(sys.argv[1])
