#!/usr/bin/env python3
"""report_interleaved.py RUN_DIR — report.md of one bench/interleaved.sh run.

Reads RUN_DIR/runs/*/aggregate.csv (one bench/matrix.sh run per operation,
the servers alternating inside each) and RUN_DIR/command.txt; writes
RUN_DIR/report.md: per transport, each op's p50, p99.99 and min for every
server (server-wire, e.g. goblin-sbe, when the runs measured more than
one wire), and the average of the per-op p50s (the seeds' ranking number).
Floors, if a run measured them, are left out. Python standard library only.
"""

import csv
import glob
import os
import sys


def load(run):
    """{transport: {column: {op: row}}} and the column order of the runs; a
    column is a server, or server-wire when more than one wire was measured
    (then the third value is True)."""
    rows = []
    for aggregate in sorted(glob.glob(os.path.join(run, "runs", "*", "aggregate.csv"))):
        with open(aggregate) as f:
            rows += [row for row in csv.DictReader(f) if row["server"] != "floor"]
    wires = {row.get("wire", "resp") for row in rows}
    data, servers = {}, []
    for row in rows:
        column = row["server"] if len(wires) < 2 else f"{row['server']}-{row['wire']}"
        if column not in servers:
            servers.append(column)
        by_op = data.setdefault(row["transport"], {}).setdefault(column, {})
        if row["op"] in by_op:
            sys.exit(f"report_interleaved.py: {column} {row['transport']} "
                     f"{row['op']} measured twice")
        by_op[row["op"]] = row
    return data, servers, len(wires) > 1


def render(run):
    data, servers, wires = load(run)
    title = "servers and wires alternating" if wires else "servers alternating"
    out = [f"# Interleaved repeat: one operation at a time, {title}", ""]
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
                cells += [f"{float(by_server[s][op][column]):.{digits}f}"
                          if op in by_server[s] else "—" for s in present]
            out.append("| " + " | ".join(cells) + " |")
        averages = []
        for s in present:
            common = [op for op in ops if all(op in by_server[t] for t in present)]
            values = [float(by_server[s][op]["p50_us"]) for op in common]
            averages.append(f"**{sum(values) / len(values):.1f}**" if values else "—")
        out.append("| " + " | ".join(["**average**"] + averages + [""] * (2 * len(present)))
                   + " |")
        out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report_interleaved.py RUN_DIR")
    with open(os.path.join(sys.argv[1], "report.md"), "w") as f:
        f.write(render(sys.argv[1]))


if __name__ == "__main__":
    main()
