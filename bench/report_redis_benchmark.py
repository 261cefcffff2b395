#!/usr/bin/env python3
"""report_redis_benchmark.py RUN_DIR — report.md of one bench/redis_benchmark.sh run.

Reads RUN_DIR/metadata.txt ("key: value" lines written by the run) and
RUN_DIR/raw/<server>-<transport>-<depth1|pipelined>.csv (redis-benchmark
--csv output, unchanged; with several rounds <...>.r<N>.csv, one per round,
and every figure is then the median over the rounds), writes
RUN_DIR/report.md. Every number in the
report is read from or computed on those CSVs. Python standard library only.
"""

import csv
import os
import re
import statistics
import sys


def read_metadata(run):
    meta = {}
    with open(os.path.join(run, "metadata.txt")) as f:
        for line in f:
            if ": " in line:
                key, value = line.rstrip("\n").split(": ", 1)
                meta[key] = value
    return meta


def load(run, name):
    rows = {}
    with open(os.path.join(run, "raw", name)) as f:
        lines = f.readlines()
    # redis-benchmark --cluster prints the cluster's nodes before its CSV.
    start = next((i for i, line in enumerate(lines) if line.startswith('"test"')), 0)
    for row in csv.DictReader(lines[start:]):
        rows[row["test"]] = row
    return rows


def rounds(run, name):
    """The rows of every round of one cell (NAME without .csv): one round
    when the run has NAME.csv, else NAME.r1.csv, NAME.r2.csv, ..."""
    raw = os.listdir(os.path.join(run, "raw"))
    if f"{name}.csv" in raw:
        return [load(run, f"{name}.csv")]
    files = sorted((f for f in raw if re.fullmatch(re.escape(name) + r"\.r\d+\.csv", f)),
                   key=lambda f: int(f.rsplit(".r", 1)[1][:-4]))
    return [load(run, f) for f in files]


def median_rows(per_round):
    """One row per test: the median over the rounds of rps and p50, and
    the rps of each round (for the ratio's range)."""
    out = {}
    for t in per_round[0]:
        rows = [r[t] for r in per_round if t in r]
        out[t] = {"rps": statistics.median(float(r["rps"]) for r in rows),
                  "p50_latency_ms": f'{statistics.median(float(r["p50_latency_ms"]) for r in rows):.3f}',
                  "rounds": [float(r["rps"]) for r in rows]}
    return out


def cell(run, name):
    per_round = rounds(run, name)
    return median_rows(per_round) if per_round else None


def ratio_range(g, r):
    """' (per round a–b×)' when there are several rounds."""
    if len(g["rounds"]) < 2 or len(g["rounds"]) != len(r["rounds"]):
        return ""
    ratios = [a / b for a, b in zip(g["rounds"], r["rounds"])]
    return f" ({min(ratios):.2f}–{max(ratios):.2f}×)"


def pipelined_table(run, base, transport, out, below):
    """The pipelined table of one transport, when that run exists; tests
    below parity are added to `below`."""
    g = cell(run, f"goblin-{transport}-pipelined")
    if not g:
        return
    r = cell(run, f"{base}-{transport}-pipelined")
    out += [f"## {transport}: pipelined", "",
            f"| test | goblin rps | {base} rps | ratio |", "|---|---|---|---|"]
    for t in g:
        if t in r:
            gr, rr = float(g[t]["rps"]), float(r[t]["rps"])
            out.append(f"| {t} | {gr:.0f} | {rr:.0f} | {gr / rr:.2f}×{ratio_range(g[t], r[t])} |")
            if gr < rr:
                below.append(f"{t} ({transport}, {gr / rr:.2f}×)")
    out.append("")


def render(run):
    meta = read_metadata(run)
    # The server goblin is compared with: redis-server, or an older goblin
    # build (BASELINE=goblin-base in bench/redis_benchmark.sh).
    base = "goblin-base" if any(n.startswith("goblin-base-") for n in os.listdir(os.path.join(run, "raw"))) \
        else "redis"
    title = "an older goblin-core build" if base == "goblin-base" else "redis-server"
    # Transports the run measured (TRANSPORTS in bench/redis_benchmark.sh).
    raw = os.listdir(os.path.join(run, "raw"))
    transports = [t for t in ("tcp", "unix", "tls")
                  if any(f.startswith((f"goblin-{t}-depth1.", f"goblin-{t}-pipelined.")) for f in raw)]
    n_rounds = len(rounds(run, "goblin-{}-{}".format(
        transports[0], "depth1" if any(f.startswith(f"goblin-{transports[0]}-depth1.") for f in raw)
        else "pipelined"))) if transports else 1
    over = "" if transports == ["tcp", "unix"] else f" over {', '.join(transports)}"
    out = [f"# redis-benchmark: goblin-core vs {title}{over}", ""]
    for key in ("date (UTC)", "commit", "machine", "redis-server", "pinning",
                "load average (1/5/15 min)"):
        if key == "load average (1/5/15 min)" and key not in meta:
            continue
        out.append(f"- {key}: {meta.get(key, 'unknown')}")
    if "load average (1, 5, 15 min)" in meta:
        out.append(f"- load average (1, 5, 15 min): {meta['load average (1, 5, 15 min)']}")
    out.append(f"- command: `{meta.get('command', 'unknown')}`")
    if n_rounds > 1:
        out.append(f"- rounds: {n_rounds}, goblin and {base} alternating; every figure is the median "
                   "over the rounds, the ratio is of the medians, and the range after it is the "
                   "lowest and highest per-round ratio")
    loadavg = meta.get("load average (1/5/15 min)", "").split()
    cpus = meta.get("machine", "").split(" CPUs")[0]
    if loadavg and cpus.isdigit() and max(float(loadavg[0]), float(loadavg[4])) > int(cpus):
        out += ["", f"**The machine was loaded** (1-minute load average {loadavg[0]} before, "
                f"{loadavg[4]} after, on {cpus} CPUs): other work shared the CPUs with both "
                "servers, unevenly over time, so these figures are not a quiet-machine "
                "comparison; re-run the command above on an idle machine."]
    out.append("")
    below = []
    for transport in transports:
        g = cell(run, f"goblin-{transport}-depth1")
        if not g:
            pipelined_table(run, base, transport, out, below)
            continue
        r = cell(run, f"{base}-{transport}-depth1")
        out += [f"## {transport}: depth one (`-c 1 -P 1`)", "",
                f"| test | goblin p50 ms | {base} p50 ms | goblin rps | {base} rps | rps ratio |",
                "|---|---|---|---|---|---|"]
        for t in g:
            if t in r:
                gr, rr = float(g[t]["rps"]), float(r[t]["rps"])
                out.append(f"| {t} | {g[t]['p50_latency_ms']} | {r[t]['p50_latency_ms']} "
                           f"| {gr:.0f} | {rr:.0f} | {gr / rr:.2f}×{ratio_range(g[t], r[t])} |")
        out.append("")
        pipelined_table(run, base, transport, out, below)
    if below:
        out += ["Below parity (rps ratio < 1.00): " + ", ".join(below) + ".", ""]
    elif any(n.endswith("-pipelined.csv") for n in os.listdir(os.path.join(run, "raw"))):
        out += ["Every pipelined test is at least at parity (rps ratio >= 1.00).", ""]
    out.append("redis-benchmark reports latency percentiles at its histogram's resolution; "
               "goblin-bench (docs/benchmarks.md) measures depth-one latency with nanosecond "
               "timestamps.")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report_redis_benchmark.py RUN_DIR")
    with open(os.path.join(sys.argv[1], "report.md"), "w") as f:
        f.write(render(sys.argv[1]))


if __name__ == "__main__":
    main()
