#!/usr/bin/env python3
"""report.py [--no-png] RESULTS_DIR — report.md and plots for one bench/matrix.sh run.

Reads RESULTS_DIR/aggregate.csv (goblin-bench rows), cells.tsv (every cell
and its status), matrix.env and metadata.txt; writes RESULTS_DIR/report.md
and RESULTS_DIR/plots/*.png (through gnuplot, from the plots/*.dat and
plots/plots.gp it also writes). Re-running it on the same directory
regenerates all of them. --no-png writes everything but skips gnuplot (the
docs check: text output is compared, PNG bytes depend on the cairo build).
Python standard library only.

Ranking follows the seeds (001/002, "Complete ranking"): configurations are
ranked by the arithmetic average of their per-operation p50s; the average
p99.99 is likewise an average of per-operation percentiles, not a merged
distribution; sequential ops/s is the average over operations of each
operation's 1e6 / mean. Every measured number is reported as measured:
nothing is dropped, smoothed or replaced. A configuration that did not
measure every requested operation is shown but not ranked.
"""

import csv
import math
import os
import subprocess
import sys

PERCENTILES = [  # (CSV column, label, p)
    ("p50_us", "p50", 0.50),
    ("p75_us", "p75", 0.75),
    ("p90_us", "p90", 0.90),
    ("p95_us", "p95", 0.95),
    ("p99_us", "p99", 0.99),
    ("p999_us", "p99.9", 0.999),
    ("p9999_us", "p99.99", 0.9999),
]
NUMERIC = ["samples", "warmup", "min_us", "max_us", "mean_us", "ops_per_sec"] + [
    c for c, _, _ in PERCENTILES
]
FLOOR_GOAL = 1.15  # issue 5: goblin-core within 1.15x of the echo floor at p50
# issue 12, per libfabric provider: PING p50 within 1.3x of the fi_pingpong
# round trip, the eight-operation average p50 within 1.6x.
PINGPONG_PING_GOAL = 1.3
PINGPONG_AVERAGE_GOAL = 1.6
# issue 11, SBE against RESP on the same transport: on a ring the average p50
# at least 1.3x faster and PING p50 within 2x of the SQ/CQ cache-line floor;
# on sockets no slower at p50 and p99.99.
SBE_RING_SPEEDUP_GOAL = 1.3
SBE_RING_FLOOR_GOAL = 2.0


class Config:
    """One measured configuration (a matrix cell) and its per-op rows."""

    def __init__(self, cell):
        self.label = cell["label"]
        self.server = cell["server"]
        self.transport = cell["transport"]
        self.provider = cell["provider"]
        self.wire = cell["wire"]
        self.send_mode = cell["send_mode"]
        self.status = cell["status"]
        self.message = cell["message"]
        self.ops = {}  # op -> row (numbers as float)

    @property
    def path(self):
        """The transport path a floor and a redis reference must share."""
        return (self.transport, self.provider)

    def average(self, column, ops=None):
        values = [self.ops[op][column] for op in (ops or self.ops) if op in self.ops]
        return sum(values) / len(values) if values else None

    def worst(self, column):
        return max(row[column] for row in self.ops.values()) if self.ops else None


def read_kv(path, sep):
    result = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if sep in line:
                    key, value = line.rstrip("\n").split(sep, 1)
                    result[key.strip()] = value.strip()
    return result


def load(results):
    configs = []
    by_label = {}
    with open(os.path.join(results, "cells.tsv")) as f:
        for cell in csv.DictReader(f, delimiter="\t"):
            config = Config(cell)
            configs.append(config)
            by_label[config.label] = config
    aggregate = os.path.join(results, "aggregate.csv")
    if os.path.exists(aggregate) and os.path.getsize(aggregate) > 0:
        with open(aggregate) as f:
            for row in csv.DictReader(f):
                config = by_label.get(row["label"])
                if config is None:
                    sys.exit(f"report.py: row for unknown cell {row['label']!r}")
                for column in NUMERIC:
                    row[column] = float(row[column])
                config.ops[row["op"]] = row
    return configs


def load_pingpong(results):
    """fi_pingpong floors: provider -> row (bytes, iterations, usec/xfer, round trip)."""
    floors = {}
    path = os.path.join(results, "pingpong.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                provider, size, iterations, usec, round_trip = line.rstrip("\n").split("\t")
                floors[provider] = {"bytes": int(size), "iterations": int(iterations),
                                    "usec_per_xfer": float(usec), "round_trip_us": float(round_trip)}
    return floors


def fmt(value, digits=2):
    return "—" if value is None else f"{value:.{digits}f}"


def ratio(a, b):
    return None if a is None or not b else a / b


def fmt_ratio(value):
    return "—" if value is None else f"{value:.2f}×"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def gnuplot_quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def placement_warnings(floors):
    """Sentences for floors measured before and after the cells (the ring's)
    whose ECHO p50 differ by more than a quarter: the host moved the vCPUs
    during the run."""
    by_label = {f.label: f for f in floors}
    out = []
    for after in (f for f in floors if f.label.endswith("-after")):
        before = by_label.get(after.label[:-len("-after")])
        if not before or "ECHO" not in before.ops or "ECHO" not in after.ops:
            continue
        a, b = before.ops["ECHO"]["p50_us"], after.ops["ECHO"]["p50_us"]
        if max(a, b) > 1.25 * min(a, b):
            out.append(f"**{before.label} moved during the run**: ECHO p50 {fmt(a)} µs before "
                       f"the cells, {fmt(b)} µs after. The host placed the vCPUs differently "
                       "between the two (docs/benchmarks.md, Floors), so this run's "
                       f"{before.transport} figures may mix two placements; compare them only "
                       "with a run whose floors agree.")
    return out


def write_plots(results, ranked, incomplete, floors, ops, requested, render):
    """Percentile curves per op and the average-p50 bar chart (PNG)."""
    plots = os.path.join(results, "plots")
    os.makedirs(plots, exist_ok=True)
    script = [
        "set terminal pngcairo size 1100,650 font ',10'",
        "set termoption noenhanced",
        "set grid",
        "set key outside right top",
        "set logscale y",
        "set ylabel 'latency (µs, log scale)'",
        "set xlabel 'percentile'",
        "set xtics (" + ", ".join(
            f"'{label}' {-math.log10(1 - p):.6f}" for _, label, p in PERCENTILES) + ")",
        f"set xrange [0.2:{-math.log10(1 - 0.9999) + 0.1:.3f}]",
    ]
    images = {}
    for op in ops:
        series = [(c.label, c.ops[op]) for c in ranked + incomplete if op in c.ops]
        series += [(f"{f.label} (ECHO)", f.ops["ECHO"]) for f in floors if "ECHO" in f.ops]
        if not series:
            continue
        data = f"percentiles_{op}.dat"
        with open(os.path.join(plots, data), "w") as f:
            for label, row in series:
                f.write(f"# {label}\n")
                for column, _, p in PERCENTILES:
                    f.write(f"{-math.log10(1 - p):.6f} {row[column]:.3f}\n")
                f.write("\n\n")
        image = f"percentiles_{op}.png"
        images[op] = image
        curves = []
        for i, (label, _) in enumerate(series):
            dash = " dt 2" if label.endswith("(ECHO)") else ""
            curves.append(f"{gnuplot_quote(data)} index {i} using 1:2 with linespoints lw 2{dash} "
                          f"title {gnuplot_quote(label)}")
        script += [f"set output {gnuplot_quote(image)}",
                   f"set title {gnuplot_quote(op + ': latency by percentile')}",
                   "plot " + ", \\\n     ".join(curves)]

    # Configurations in rank order (colour 1), incomplete ones marked with
    # their op count (colour 3: their average is not comparable), floors
    # (colour 2).
    bars = [(c.label, c.average("p50_us"), 1) for c in ranked]
    bars += [(f"{c.label} ({len(c.ops)}/{len(requested)} ops)", c.average("p50_us"), 3)
             for c in incomplete]
    bars += [(f.label, f.average("p50_us"), 2) for f in floors]
    bars = [bar for bar in bars if bar[1] is not None]
    if bars:
        with open(os.path.join(plots, "average_p50.dat"), "w") as f:
            for label, value, colour in bars:
                f.write(f"{gnuplot_quote(label)} {value:.3f} {colour}\n")
        images["average_p50"] = "average_p50.png"
        script += [
            "unset logscale y", "unset xrange", "unset xlabel", "set xtics auto",
            "set key off", "set yrange [0:*]",
            "set ylabel 'average of per-op p50 (µs); floors: ECHO p50'",
            "set style fill solid 0.7 border -1", "set boxwidth 0.6",
            "set xtics rotate by -30 left",
            "set output 'average_p50.png'",
            "set title 'Average p50 per configuration (ranked), and transport floors'",
            "plot 'average_p50.dat' using 0:2:3:xtic(1) with boxes lc variable, "
            "'' using 0:2:(sprintf('%.2f', $2)) with labels offset 0,1",
        ]
    with open(os.path.join(plots, "plots.gp"), "w") as f:
        f.write("\n".join(script) + "\n")
    if render:
        subprocess.run(["gnuplot", "plots.gp"], cwd=plots, check=True)
    return images


def main():
    args = sys.argv[1:]
    render = "--no-png" not in args
    args = [a for a in args if a != "--no-png"]
    if len(args) != 1:
        sys.exit("usage: report.py [--no-png] RESULTS_DIR")
    results = args[0]
    env = read_kv(os.path.join(results, "matrix.env"), "=")
    meta = read_kv(os.path.join(results, "metadata.txt"), ":")
    configs = load(results)
    requested = [op for op in env.get("OPS", "").split(",") if op]

    floors = [c for c in configs if c.server == "floor"]
    servers = [c for c in configs if c.server != "floor"]
    # A floor measured again after the cells (floor-ring-after) is shown and
    # compared, never used as a divisor.
    floor_of = {f.path: f for f in floors if "ECHO" in f.ops and not f.label.endswith("-after")}
    placement_moved = placement_warnings(floors)
    pingpong = load_pingpong(results)
    redis_of = {c.path: c for c in servers if c.server == "redis" and c.wire == "resp"}

    def complete(c):
        return c.status == "ok" and bool(c.ops) and all(op in c.ops for op in requested)

    ranked = sorted((c for c in servers if complete(c)), key=lambda c: c.average("p50_us"))
    unranked = [c for c in servers if not complete(c)]
    shown = ranked + [c for c in unranked if c.ops]
    ops = requested + sorted({op for c in servers for op in c.ops} - set(requested))

    def floor_p50(c):
        f = floor_of.get(c.path)  # libfabric: goblin-fabric-floor when it ran
        if f:
            return f.ops["ECHO"]["p50_us"]
        if c.transport == "fabric":
            p = pingpong.get(c.provider)
            return p["round_trip_us"] if p else None
        return None

    def redis_ratio(c, op=None):
        r = redis_of.get(c.path)
        if r is None:
            return None
        if op is not None:
            if op not in c.ops or op not in r.ops:
                return None
            return c.ops[op]["p50_us"] / r.ops[op]["p50_us"]
        common = [o for o in c.ops if o in r.ops]
        return ratio(c.average("p50_us", common), r.average("p50_us", common))

    out = []
    out.append(f"# Latency matrix — {meta.get('date_utc', 'unknown date')}\n")
    out.append(
        "Depth-one request/reply latency measured by `goblin-bench` with the seeds' method "
        "(persistent connections, connection setup outside every timed region, "
        f"{env.get('WARMUP', '?')} warmup then {env.get('SAMPLES', '?')} measured operations per "
        "operation, every reply validated byte for byte). See `docs/benchmarks.md` for the "
        "method and how to read this report; `metadata.txt` for the full environment.\n")
    out.append(table(["", ""], [
        ["commit", meta.get("commit", "unknown")],
        ["CPU", f"{meta.get('cpu_model', '?')} ({meta.get('cpus_online', '?')} CPUs online)"],
        ["kernel", meta.get("kernel", "?")],
        ["clocksource", meta.get("clocksource", "?")],
        ["pinning", f"server CPU {env.get('SERVER_CPU') or 'unpinned'}, "
                    f"client CPU {env.get('CLIENT_CPU') or 'unpinned'}, "
                    f"NUMA node {env.get('NUMA_NODE') or 'not set'}"],
        ["governor", f"server CPU: {meta.get('governor_server_cpu', '?')}; "
                     f"client CPU: {meta.get('governor_client_cpu', '?')}"],
        ["redis-server", meta.get("redis_server", "?")],
        ["goblin-core", meta.get("goblin_core", "?")],
        ["libfabric", meta.get("libfabric", "?")],
        ["command", f"`{meta.get('command', '?')}`"],
    ]) + "\n")

    out.append("## Ranking\n")
    out.append(
        "Ranked by the arithmetic average of the per-operation p50s. Average p99.99 is an "
        "average of per-operation percentiles, not a merged distribution; sequential ops/s is "
        "the average over operations of 1e6 / mean. \"÷ floor\" divides the average p50 by the "
        "echo floor's p50 on the same transport (libfabric: goblin-fabric-floor's p50, or the "
        "provider's fi_pingpong round trip where that floor did not run); \"÷ redis\" by redis-server's average p50 on "
        "the same transport (over the operations both measured).\n")
    rows = []
    for rank, c in enumerate(shown, 1):
        is_ranked = c in ranked
        note = "" if is_ranked else f" (not ranked: {len(c.ops)}/{len(requested)} ops, {c.status})"
        rows.append([
            rank if is_ranked else "—", f"{c.label}{note}", c.server, c.transport,
            c.provider, c.wire, c.send_mode,
            fmt(c.average("p50_us")), fmt(c.average("mean_us")),
            fmt(c.average("ops_per_sec"), 0), fmt(c.average("p9999_us")), fmt(c.worst("max_us")),
            fmt_ratio(ratio(c.average("p50_us"), floor_p50(c))), fmt_ratio(redis_ratio(c)),
        ])
    out.append(table(["rank", "configuration", "server", "transport", "provider", "wire",
                      "send mode", "avg p50 µs", "avg mean µs", "avg ops/s", "avg p99.99 µs",
                      "worst max µs", "÷ floor", "÷ redis"], rows) + "\n")

    if floors:
        out.append("## Transport floors\n")
        out.append("`goblin-echo-floor` returns every byte unchanged; `goblin-bench --ops ECHO` "
                   "sends it the 14 bytes of a RESP PING with the same client, timer and "
                   "pinning. This is what the transport alone costs per round trip.\n")
        rows = []
        # fabric: goblin-fabric-floor rows here; fi_pingpong (no rows) below
        for f in (f for f in floors if f.transport != "fabric" or "ECHO" in f.ops):
            # The ring floor's RECORD: its protocol's records echoed (no server).
            for op in ("ECHO", "RECORD") if "RECORD" in f.ops else ("ECHO",):
                r = f.ops.get(op)
                label = f.label if op == "ECHO" else f"{f.label} ({op})"
                rows.append([label, f.transport, f.provider, f.status] + (
                    [fmt(r["min_us"]), fmt(r["p50_us"]), fmt(r["p99_us"]), fmt(r["p9999_us"]),
                     fmt(r["max_us"]), fmt(r["mean_us"])] if r else ["—"] * 6))
        out.append(table(["floor", "transport", "provider", "status", "min µs", "p50 µs",
                          "p99 µs", "p99.99 µs", "max µs", "mean µs"], rows) + "\n")
        out += [w + "\n" for w in placement_moved]

    raw_floors = [f for f in floors if f.transport == "fabric" and "ECHO" in f.ops]
    if raw_floors:
        out.append("## libfabric floors (goblin-fabric-floor)\n")
        out.append("`goblin-fabric-floor`: raw `FI_EP_RDM` ping-pong on the server's own endpoint "
                   "module (same provider, hints and slot pools, `fi_inject`), a PING-sized "
                   "envelope echoed, timed and summarized like `goblin-bench`. Targets of issue "
                   f"12: PING p50 within {PINGPONG_PING_GOAL:.1f}× of the floor's p50, the average "
                   f"p50 of the operations within {PINGPONG_AVERAGE_GOAL:.1f}×.\n")
        rows = []
        for f in raw_floors:
            e = f.ops["ECHO"]
            for c in (c for c in shown if c.transport == "fabric" and c.provider == f.provider):
                ping = ratio(c.ops.get("PING", {}).get("p50_us"), e["p50_us"])
                avg = ratio(c.average("p50_us"), e["p50_us"])
                met = (ping is not None and avg is not None and ping <= PINGPONG_PING_GOAL
                       and avg <= PINGPONG_AVERAGE_GOAL)
                rows.append([f.provider, fmt(e["p50_us"]), fmt(e["p99_us"]), fmt(e["p9999_us"]),
                             c.label, fmt_ratio(ping), fmt_ratio(avg), "yes" if met else "no"])
        out.append(table(["provider", "floor p50 µs", "floor p99 µs", "floor p99.99 µs",
                          "configuration", "PING p50 ÷ floor p50", "avg p50 ÷ floor p50",
                          "targets met"], rows) + "\n")

    if pingpong:
        out.append("## libfabric floors (fi_pingpong)\n")
        out.append("`fi_pingpong -e rdm` (fabtests) on each provider, pinned like the cells. It "
                   "reports only a mean time per transfer (one way); the round trip is twice "
                   "that. Targets of issue 12: PING p50 within "
                   f"{PINGPONG_PING_GOAL:.1f}× of the round trip, the average p50 of the "
                   f"operations within {PINGPONG_AVERAGE_GOAL:.1f}×. fi_pingpong's figure is a "
                   "mean, so the means are divided too: on a loaded machine the p50 and the "
                   "mean part ways and only mean ÷ mean compares like with like.\n")
        rows = []
        for provider, p in pingpong.items():
            for c in (c for c in shown if c.transport == "fabric" and c.provider == provider):
                ping = c.ops.get("PING", {})
                rt = p["round_trip_us"]
                rows.append([provider, p["bytes"], p["iterations"], fmt(p["usec_per_xfer"]),
                             fmt(rt), c.label,
                             fmt_ratio(ratio(ping.get("p50_us"), rt)),
                             fmt_ratio(ratio(c.average("p50_us"), rt)),
                             fmt_ratio(ratio(ping.get("mean_us"), rt)),
                             fmt_ratio(ratio(c.average("mean_us"), rt))])
            if not any(c.transport == "fabric" and c.provider == provider for c in shown):
                rows.append([provider, p["bytes"], p["iterations"], fmt(p["usec_per_xfer"]),
                             fmt(p["round_trip_us"])] + ["—"] * 5)
        out.append(table(["provider", "bytes", "iterations", "µs/xfer (one way)",
                          "round trip µs", "configuration", "PING p50 ÷ round trip",
                          "avg p50 ÷ round trip", "PING mean ÷ round trip",
                          "avg mean ÷ round trip"], rows) + "\n")

    if shown:
        out.append("## Operation latency: p50 / p99.99 (µs)\n")
        rows = [[op] + [f"{fmt(c.ops[op]['p50_us'])} / {fmt(c.ops[op]['p9999_us'])}"
                        if op in c.ops else "—" for c in shown] for op in ops]
        out.append(table(["op"] + [c.label for c in shown], rows) + "\n")

        out.append("## Full distributions (µs)\n")
        for c in shown:
            out.append(f"### {c.label}\n")
            rows = [[op, int(r["samples"]), fmt(r["min_us"])]
                    + [fmt(r[col]) for col, _, _ in PERCENTILES]
                    + [fmt(r["max_us"]), fmt(r["mean_us"]), fmt(r["ops_per_sec"], 0)]
                    for op, r in ((op, c.ops[op]) for op in ops if op in c.ops)]
            out.append(table(["op", "samples", "min"] + [l for _, l, _ in PERCENTILES]
                             + ["max", "mean", "ops/s"], rows) + "\n")

        out.append("## p50 ratios per operation\n")
        out.append("To the echo floor of the same transport:\n")
        rows = [[op] + [fmt_ratio(ratio(c.ops[op]["p50_us"], floor_p50(c))) if op in c.ops
                        else "—" for c in shown] for op in ops]
        out.append(table(["op"] + [c.label for c in shown], rows) + "\n")
        out.append("To redis-server on the same transport:\n")
        rows = [[op] + [fmt_ratio(redis_ratio(c, op)) for c in shown] for op in ops]
        out.append(table(["op"] + [c.label for c in shown], rows) + "\n")

    goblins = [c for c in shown if c.server == "goblin"]
    if goblins:
        out.append("## Against the goal of issue 5\n")
        out.append(f"Goal: goblin-core ahead of redis-server on every operation's p50 and p99.99, "
                   f"and within {FLOOR_GOAL:.2f}× of the echo floor at p50.\n")
        for c in goblins:
            r = redis_of.get(c.path)
            behind = []
            if r is not None:
                for op in ops:
                    if op in c.ops and op in r.ops:
                        for col, label in (("p50_us", "p50"), ("p9999_us", "p99.99")):
                            if c.ops[op][col] >= r.ops[op][col]:
                                behind.append(f"{op} {label} ({fmt(c.ops[op][col])} vs "
                                              f"{fmt(r.ops[op][col])})")
            fp = floor_p50(c)
            over = [f"{op} ({fmt_ratio(c.ops[op]['p50_us'] / fp)})" for op in ops
                    if fp and op in c.ops and c.ops[op]["p50_us"] / fp > FLOOR_GOAL]
            vs_redis = ("no redis-server reference" if r is None else
                        "ahead on every p50 and p99.99" if not behind else
                        "not ahead on: " + "; ".join(behind))
            vs_floor = ("no floor" if not fp else
                        f"every p50 within {FLOOR_GOAL:.2f}× of the floor" if not over else
                        f"p50 above {FLOOR_GOAL:.2f}× the floor: " + "; ".join(over))
            out.append(f"- **{c.label}**: {vs_redis}; {vs_floor}.")
        out.append("")

    pairs = [(c, s) for c in shown if c.wire == "resp" for s in shown
             if s.wire == "sbe" and s.server == c.server and s.path == c.path
             and s.send_mode == c.send_mode]
    if pairs:
        out.append("## Against the goals of issue 11 (SBE against RESP)\n")
        out.append(f"Goals: on a ring, SBE's average p50 at least {SBE_RING_SPEEDUP_GOAL:.1f}× "
                   f"faster than RESP's and SBE's PING p50 within {SBE_RING_FLOOR_GOAL:.0f}× of "
                   "the SQ/CQ cache-line floor (the ring floor's ECHO) of the same run; on TCP "
                   "and Unix sockets SBE no slower than RESP at p50 and p99.99, operation by "
                   f"operation. Load average at the end of the run: "
                   f"{meta.get('loadavg_at_end', 'not recorded')}.\n")
        for resp, sbe in pairs:
            common = [op for op in ops if op in resp.ops and op in sbe.ops]
            speedup = ratio(resp.average("p50_us", common), sbe.average("p50_us", common))
            line = (f"- **{sbe.transport}** ({sbe.label} vs {resp.label}): average p50 "
                    f"{fmt(sbe.average('p50_us', common))} vs {fmt(resp.average('p50_us', common))}"
                    f" µs, RESP ÷ SBE {fmt_ratio(speedup)}")
            if sbe.transport == "ring":
                fp = floor_p50(sbe)
                ping = sbe.ops.get("PING", {}).get("p50_us")
                floor_ratio = ratio(ping, fp) if fp else None
                met = (speedup is not None and speedup >= SBE_RING_SPEEDUP_GOAL
                       and floor_ratio is not None and floor_ratio <= SBE_RING_FLOOR_GOAL)
                if placement_moved:
                    line += " (the ring floor moved during this run: see Transport floors)"
                line += (f"; SBE PING p50 {fmt(ping)} µs, ÷ floor {fmt(fp)} µs = "
                         f"{fmt_ratio(floor_ratio)}: {'met' if met else 'missed'}.")
                record = next((f.ops["RECORD"]["p50_us"] for f in floors
                               if f.transport == "ring" and "RECORD" in f.ops), None)
                resp_avg = resp.average("p50_us", common)
                if record is not None and resp_avg is not None:
                    sbe_avg = sbe.average("p50_us", common)
                    line += (f" The speed-up needs SBE's average p50 at or below "
                             f"{fmt(resp_avg / SBE_RING_SPEEDUP_GOAL)} µs; the ring protocol's own "
                             f"round trip with no server (RECORD floor) is {fmt(record)} µs. Above "
                             f"that floor: SBE {fmt(sbe_avg - record)} µs, RESP "
                             f"{fmt(resp_avg - record)} µs (SBE ÷ RESP "
                             f"{fmt_ratio(ratio(sbe_avg - record, resp_avg - record))}).")
            else:
                slower = [f"{op} {label} ({fmt(sbe.ops[op][col])} vs {fmt(resp.ops[op][col])})"
                          for op in common for col, label in (("p50_us", "p50"),
                                                              ("p9999_us", "p99.99"))
                          if sbe.ops[op][col] > resp.ops[op][col]]
                line += ("; no slower on any p50 or p99.99: met." if not slower else
                         "; slower on: " + "; ".join(slower) + ": missed.")
            out.append(line)
        out.append("")

    images = write_plots(results, ranked, shown[len(ranked):], floors, ops, requested, render)
    if images:
        out.append("## Plots\n")
        if "average_p50" in images:
            out.append(f"![average p50 per configuration](plots/{images['average_p50']})\n")
        for op in ops:
            if op in images:
                out.append(f"![{op} latency by percentile](plots/{images[op]})\n")

    out.append("## Cells\n")
    out.append("Every cell of the matrix as it ran. A failed or unavailable cell keeps the rows "
               "it measured (in `csv/` and `aggregate.csv`) and its messages (in `cells/`).\n")
    rows = [[c.label, c.status, len(c.ops), c.message.replace("|", "\\|") or ""]
            for c in configs]
    out.append(table(["cell", "status", "ops measured", "message"], rows) + "\n")

    with open(os.path.join(results, "report.md"), "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
