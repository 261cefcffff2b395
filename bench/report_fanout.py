#!/usr/bin/env python3
"""report_fanout.py RUN_DIR — report.md of one bench/pubsub_fanout.sh run.

Reads RUN_DIR/fanout.out: goblin-pubsub-fanout's output lines, each preceded
by a "# SERVER N subscribers" or "# SERVER 1 subscriber latency" line (as
bench/pubsub_fanout.sh writes them), and RUN_DIR/metadata.txt when present;
writes RUN_DIR/report.md. parse() is also what bench/summary.py reads the
run with. Python standard library only.
"""

import os
import re
import sys

FANOUT = re.compile(r"fan-out to (\d+) subscribers, payload (\d+) B, window (\d+): (\d+) publishes "
                    r"in ([\d.]+) s = (\d+) publishes/s, (\d+) deliveries/s")
LATENCY = re.compile(r"publish->delivery, (\d+) subscriber\(s\), payload (\d+) B, (\d+) samples: "
                     r"min ([\d.]+) us\s+p50 ([\d.]+) us\s+p99 ([\d.]+) us\s+p99.9 ([\d.]+) us\s+"
                     r"max ([\d.]+) us")


def parse(run):
    """{server: {"fanout": {...}, "latency": {...}}} in the order of fanout.out."""
    result, server = {}, None
    with open(os.path.join(run, "fanout.out")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# "):
                server = line[2:].split()[0]
                result.setdefault(server, {})
            elif m := FANOUT.match(line):
                keys = ("subscribers", "payload", "window", "messages", "seconds",
                        "publishes_per_sec", "deliveries_per_sec")
                result[server]["fanout"] = dict(zip(keys, map(float, m.groups())))
            elif m := LATENCY.match(line):
                keys = ("subscribers", "payload", "samples", "min", "p50", "p99", "p999", "max")
                result[server]["latency"] = dict(zip(keys, map(float, m.groups())))
            elif line:
                sys.exit(f"report_fanout.py: unrecognised line in fanout.out: {line!r}")
    return result


def render(run):
    data = parse(run)
    meta = {}
    if os.path.exists(os.path.join(run, "metadata.txt")):
        with open(os.path.join(run, "metadata.txt")) as f:
            meta = dict(line.rstrip("\n").split(": ", 1) for line in f if ": " in line)
    out = ["# Pub/Sub fan-out: goblin-pubsub-fanout", ""]
    if meta:
        for key in ("date_utc", "commit", "kernel", "redis_server", "goblin_core"):
            out.append(f"- {key}: {meta.get(key, 'unknown')}")
        out += [f"- command: `{meta.get('command', 'unknown')}`", ""]
    else:
        out += ["No metadata.txt in this run (recorded before bench/pubsub_fanout.sh "
                "existed); the command is in docs/benchmarks/README.md.", ""]
    fan = [(s, d["fanout"]) for s, d in data.items() if "fanout" in d]
    if fan:
        # Ratios to redis-server when it ran, else to the first server.
        ref_server, ref = next(((s, r) for s, r in fan if s == "redis"), fan[0])
        base = ref["publishes_per_sec"]
        out += ["## Fan-out throughput", "",
                "| server | subscribers | publishes | seconds | publishes/s | deliveries/s "
                f"| ÷ {ref_server} |", "|---|---|---|---|---|---|---|"]
        for server, r in fan:
            out.append(f"| {server} | {r['subscribers']:.0f} | {r['messages']:.0f} "
                       f"| {r['seconds']:.3f} | {r['publishes_per_sec']:.0f} "
                       f"| {r['deliveries_per_sec']:.0f} | {r['publishes_per_sec'] / base:.2f}× |")
        out.append("")
    lat = [(s, d["latency"]) for s, d in data.items() if "latency" in d]
    if lat:
        out += ["## Publish → delivery latency, depth one (µs)", "",
                "| server | subscribers | samples | min | p50 | p99 | p99.9 | max |",
                "|---|---|---|---|---|---|---|---|"]
        for server, r in lat:
            out.append(f"| {server} | {r['subscribers']:.0f} | {r['samples']:.0f} | {r['min']:.1f} "
                       f"| {r['p50']:.1f} | {r['p99']:.1f} | {r['p999']:.1f} | {r['max']:.1f} |")
        out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report_fanout.py RUN_DIR")
    with open(os.path.join(sys.argv[1], "report.md"), "w") as f:
        f.write(render(sys.argv[1]))


if __name__ == "__main__":
    main()
