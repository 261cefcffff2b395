#!/usr/bin/env python3
"""report_interleaved.py RUN_DIR — report.md of one bench/interleaved.sh run.

Reads RUN_DIR/runs/*/aggregate.csv (one bench/matrix.sh run per operation,
the servers alternating inside each; runs/r<k>-... when the sequence was
repeated ROUNDS times) and RUN_DIR/command.txt; writes RUN_DIR/report.md:
per transport, each op's p50, p99.99 and min for every server
(server-wire, e.g. goblin-sbe, when the runs measured more than one wire),
and the average of the per-op p50s (the seeds' ranking number). Over
several rounds each figure is the median of the rounds' values, and two
columns are also compared round by round (the range of the second's p50
over the first's, and in how many rounds the second's p50 and p99.99 were
no higher). Floors, if a run measured them, are left out. Python standard
library only.
"""

import csv
import glob
import os
import re
import statistics
import sys


def load(run):
    """{transport: {column: {op: [row of each round]}}}, the column order of
    the runs, whether more than one wire was measured (a column is then
    server-wire) and the number of rounds."""
    rows = []
    for aggregate in sorted(glob.glob(os.path.join(run, "runs", "*", "aggregate.csv"))):
        m = re.match(r"r(\d+)-", os.path.basename(os.path.dirname(aggregate)))
        with open(aggregate) as f:
            rows += [(int(m.group(1)) if m else 1, row) for row in csv.DictReader(f)
                     if row["server"] != "floor"]
    wires = {row.get("wire", "resp") for _, row in rows}
    data, servers, rounds = {}, [], max([r for r, _ in rows], default=1)
    for r, row in rows:
        column = row["server"] if len(wires) < 2 else f"{row['server']}-{row['wire']}"
        if column not in servers:
            servers.append(column)
        by_round = data.setdefault(row["transport"], {}).setdefault(column, {}).setdefault(
            row["op"], {})
        if r in by_round:
            sys.exit(f"report_interleaved.py: {column} {row['transport']} "
                     f"{row['op']} measured twice in round {r}")
        by_round[r] = row
    data = {t: {c: {op: [by_round[r] for r in sorted(by_round)] for op, by_round in ops.items()}
                for c, ops in cols.items()} for t, cols in data.items()}
    return data, servers, len(wires) > 1, rounds


def value(rows, column):
    """One figure of an op: the value of its one round, or the median of its rounds."""
    return statistics.median(float(row[column]) for row in rows)


def figure(v, digits):
    """v with `digits` decimals, two more below 1 µs (ring round trips)."""
    return f"{v:.{digits + 2 if 0 < v < 1 else digits}f}"


def comparison(first, second, by_server, ops, rounds):
    """The round-by-round comparison table of two columns."""
    out = [f"Round by round ({rounds} rounds), {second} against {first}:", "",
           f"| op | {second} ÷ {first} p50, median (range) | rounds {second} p50 ≤ | "
           f"rounds {second} p99.99 ≤ |", "|---|---|---|---|"]
    for op in ops:
        a, b = by_server[first].get(op), by_server[second].get(op)
        if not a or not b or len(a) != len(b):
            continue
        ratios = [float(y["p50_us"]) / float(x["p50_us"]) for x, y in zip(a, b)]
        p50 = sum(float(y["p50_us"]) <= float(x["p50_us"]) for x, y in zip(a, b))
        tail = sum(float(y["p9999_us"]) <= float(x["p9999_us"]) for x, y in zip(a, b))
        out.append(f"| {op} | {statistics.median(ratios):.3f} ({min(ratios):.3f}–"
                   f"{max(ratios):.3f}) | {p50}/{len(a)} | {tail}/{len(a)} |")
    out.append("")
    return out


def render(run):
    data, servers, wires, rounds = load(run)
    title = "servers and wires alternating" if wires else "servers alternating"
    out = [f"# Interleaved repeat: one operation at a time, {title}", ""]
    if rounds > 1:
        out += [f"{rounds} rounds of the whole sequence (even rounds run the wires in reverse "
                "order); every figure below is the median of the rounds' values.", ""]
    command = os.path.join(run, "command.txt")
    if os.path.exists(command):
        with open(command) as f:
            out += [f"Command: `{f.read().strip()}`. Each operation's matrix run is in "
                    "`runs/` with its own metadata.txt and report.md.", ""]
    failed = []
    for cells in sorted(glob.glob(os.path.join(run, "runs", "*", "cells.tsv"))):
        with open(cells) as f:
            failed += [f"`{os.path.basename(os.path.dirname(cells))}` {c['label']}: {c['status']}"
                       for c in csv.DictReader(f, delimiter="\t") if c["status"] != "ok"]
    if failed:
        out += ["Cells that did not measure (their messages are in each run's cells.tsv): "
                + "; ".join(failed) + ".", ""]
    if not data:
        out += ["No operation was measured.", ""]
    for transport, by_server in data.items():
        present = [s for s in servers if s in by_server]
        ops = []
        for s in present:
            ops += [op for op in by_server[s] if op not in ops]
        out += [f"## {transport}", ""]
        header = (["op"] + [f"{s} p50" for s in present] + [f"{s} p99.99" for s in present]
                  + [f"{s} min" for s in present])
        out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for op in ops:
            cells = [op]
            for column, digits in (("p50_us", 1), ("p9999_us", 0), ("min_us", 1)):
                cells += [figure(value(by_server[s][op], column), digits)
                          if op in by_server[s] else "—" for s in present]
            out.append("| " + " | ".join(cells) + " |")
        averages = []
        for s in present:
            common = [op for op in ops if all(op in by_server[t] for t in present)]
            values = [value(by_server[s][op], "p50_us") for op in common]
            averages.append(f"**{figure(sum(values) / len(values), 1)}**" if values else "—")
        out.append("| " + " | ".join(["**average**"] + averages + [""] * (2 * len(present)))
                   + " |")
        out.append("")
        if rounds > 1 and len(present) == 2:
            out += comparison(present[0], present[1], by_server, ops, rounds)
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report_interleaved.py RUN_DIR")
    with open(os.path.join(sys.argv[1], "report.md"), "w") as f:
        f.write(render(sys.argv[1]))


if __name__ == "__main__":
    main()
