#!/usr/bin/env python3
"""report_geo.py RUN_DIR — report.md of one bench/geo.sh run.

Reads RUN_DIR/metadata.txt, RUN_DIR/raw/load.tsv and, per server, radius
and round, RUN_DIR/raw/<server>-r<R>km.r<k>.csv (redis-benchmark --csv,
unchanged) and .usec (INFO commandstats usec_per_call); every figure is
the median over the rounds. Standard library only.
"""

import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_redis_benchmark import load, read_metadata  # noqa: E402


def cells(run, server, radius):
    raw = os.path.join(run, "raw")
    names = sorted((f for f in os.listdir(raw)
                    if re.fullmatch(rf"{server}-r{radius}km\.r\d+\.csv", f)),
                   key=lambda f: int(f.rsplit(".r", 1)[1][:-4]))
    rows = [next(iter(load(run, f).values())) for f in names]
    usec = []
    for f in names:
        with open(os.path.join(raw, f[:-4] + ".usec")) as u:
            usec.append(float(u.read().strip()))
    return rows, usec


def med(rows, key):
    return statistics.median(float(r[key]) for r in rows)


def render(run):
    meta = read_metadata(run)
    out = ["# GEOSEARCH BYRADIUS over a large GEO set: goblin-core vs redis-server", ""]
    for key in ("date (UTC)", "commit", "machine", "redis-server", "pinning",
                "load average (1/5/15 min)", "results"):
        out.append(f"- {key}: {meta.get(key, 'unknown')}")
    out.append(f"- command: `{meta.get('command', 'unknown')}`")
    with open(os.path.join(run, "raw", "load.tsv")) as f:
        loads = [line.rstrip("\n").split("\t") for line in f][1:]
    out.append("- load (redis-cli --pipe of the GEOADDs): "
               + ", ".join(f"{s} {secs} s for {n} members" for s, secs, n in loads))
    out += ["", "Query: `GEOSEARCH geo FROMLONLAT 2.35 48.85 BYRADIUS <R> km` (member names "
            "only), redis-benchmark `-c 1 -n` per cell over TCP; medians over the rounds. "
            "Server µs/call: INFO commandstats of the cell (the command's own time, without "
            "the network or the client).", "",
            "| radius | goblin req/s | redis req/s | goblin ÷ redis | goblin p50 ms | redis p50 ms "
            "| goblin p99 ms | redis p99 ms | goblin server µs/call | redis server µs/call "
            "| redis ÷ goblin (server time) |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for radius in meta.get("radii", "1 100").split():
        g, gu = cells(run, "goblin", radius)
        r, ru = cells(run, "redis", radius)
        if not g or not r:
            continue
        grps, rrps = med(g, "rps"), med(r, "rps")
        gs, rs = statistics.median(gu), statistics.median(ru)
        out.append(f"| {radius} km | {grps:,.0f} | {rrps:,.0f} | {grps / rrps:.2f}× "
                   f"| {med(g, 'p50_latency_ms'):.3f} | {med(r, 'p50_latency_ms'):.3f} "
                   f"| {med(g, 'p99_latency_ms'):.3f} | {med(r, 'p99_latency_ms'):.3f} "
                   f"| {gs:,.1f} | {rs:,.1f} | {rs / gs:.2f}× |")
    out.append("")
    return "\n".join(out)


def main():
    run = sys.argv[1]
    with open(os.path.join(run, "report.md"), "w") as f:
        f.write(render(run))


if __name__ == "__main__":
    main()
