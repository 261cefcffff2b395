#!/usr/bin/env python3
"""report_sbe_auth.py DIR — report.md of a bench/sbe_auth_latency.sh run:
the median over rounds of each cell's depth-one p50 (raw.csv, goblin-bench
CSV rows labelled ROUND:CONFIG), and, when DIR holds instructions.out
(lines "CONFIG: TRANSPORT WIRE OP: N instructions per request", from
bench/instructions_per_request_wire.sh), the server's instructions per
request. CONFIG is before (the base build, no password), after (this
build, no password) or after-auth (this build, --requirepass, the session
authenticated once before the measured requests). Standard library only."""

import csv
import os
import re
import statistics
import sys


def main(d):
    meta = open(os.path.join(d, "metadata.txt")).read().splitlines()
    command = next((ln.split(":", 1)[1].strip() for ln in meta if ln.startswith("command:")), "")
    cells = {}
    with open(os.path.join(d, "raw.csv")) as f:
        for r in csv.DictReader(f):
            cfg = r["label"].split(":", 1)[1]
            cells.setdefault((r["transport"], r["op"]), {}).setdefault(cfg, []).append(
                float(r["p50_us"]))
    out = ["# SBE authentication: depth-one p50 and instructions per request, before and after",
           "", f"Command: `{command}`", ""]
    out += [ln for ln in meta if not ln.startswith(("command:", "report:"))]
    rounds = max(len(v) for c in cells.values() for v in c.values())
    out += ["", f"## p50 latency (µs), median of {rounds} rounds", "",
            "before: the base build (SBE unauthenticated, no password); after: this build, no "
            "password; after, authenticated: this build with --requirepass, the session having "
            "sent its Auth frame once before the measured requests.", "",
            "| transport | op | before | after | after, authenticated | authenticated ÷ before |",
            "|---|---|---|---|---|---|"]
    for (t, op), c in sorted(cells.items()):
        b, a, x = (statistics.median(c[k]) for k in ("before", "after", "after-auth"))
        out.append(f"| {t} | {op} | {b:.3f} | {a:.3f} | {x:.3f} | {x / b:.2f} |")
    path = os.path.join(d, "instructions.out")
    if os.path.exists(path):
        counts = {}
        for ln in open(path):
            m = re.match(r"(\S+): (\S+) (\S+) (\S+): (-?\d+) instructions per request", ln)
            if m:
                counts.setdefault((m[2], m[3], m[4]), {})[m[1]] = int(m[5])
        cfgs = ["before", "after", "after-auth"]
        out += ["", "## Server instructions per request (callgrind)", "",
                "| transport | wire | op | " + " | ".join(cfgs) + " |",
                "|---|---|---|" + "---|" * len(cfgs)]
        for key, c in sorted(counts.items()):
            out.append("| " + " | ".join(key) + " | " +
                       " | ".join(str(c.get(k, "—")) for k in cfgs) + " |")
    open(os.path.join(d, "report.md"), "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
