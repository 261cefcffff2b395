#!/usr/bin/env python3
"""report_persist.py DIR — report.md of a bench/persist.sh run from its raw
data (save_load.tsv, latency-idle.csv, latency-bgsave.csv, forks.txt,
metadata.txt). Deterministic: the same raw data gives the same page."""
import csv
import os
import sys


def main(d):
    meta = dict(line.split(": ", 1) for line in open(os.path.join(d, "metadata.txt")).read().splitlines() if ": " in line)
    rows = list(csv.DictReader(open(os.path.join(d, "save_load.tsv")), delimiter="\t"))
    out = ["# Persistence: SAVE, load and latency during BGSAVE (%s)" % meta.get("date", "?"), ""]
    out.append("Command: `%s`. %s; %s; %s." % (meta.get("command", "?"), meta.get("goblin_core", "?"),
                                             meta.get("redis_server", "?"), meta.get("cpu", "?")))
    out.append("")
    if "note" in meta:
        out += ["Note: %s." % meta["note"], ""]
    out += ["## SAVE and load at start, %s keys per type" % meta.get("keys", "?"), "",
            "| type | server | SAVE (s) | load (s) | RDB size (bytes) |",
            "|---|---|---:|---:|---:|"]
    for t in ("string", "hash", "zset"):
        for r in rows:
            if r["type"] == t:
                out.append("| %s | %s | %s | %s | %s |" % (t, r["server"], r["save_s"], r["load_s"], r["rdb_bytes"]))
    out.append("")
    out += ["## Depth-one latency (µs), goblin-core with %s strings" % meta.get("keys", "?"), "",
            "| op | condition | p50 | p99 | p99.9 | p99.99 | max |", "|---|---|---:|---:|---:|---:|---:|"]
    for cond in ("idle", "bgsave"):
        path = os.path.join(d, "latency-%s.csv" % cond)
        for r in csv.DictReader(open(path)):
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                r["op"], "no save" if cond == "idle" else "back-to-back BGSAVE",
                r["p50_us"], r["p99_us"], r["p999_us"], r["p9999_us"], r["max_us"]))
    forks = [int(x) for x in open(os.path.join(d, "forks.txt")).read().split()]
    out.append("")
    if forks:
        forks.sort()
        out.append("fork() during the BGSAVE run: %d forks, median %d µs, max %d µs "
                   "(the server thread is stopped for that long)." % (len(forks), forks[len(forks) // 2], forks[-1]))
    out.append("")
    out.append("Raw data: save_load.tsv, latency-idle.csv, latency-bgsave.csv, forks.txt, metadata.txt.")
    open(os.path.join(d, "report.md"), "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
