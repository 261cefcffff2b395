#!/usr/bin/env python3
"""report_aof.py DIR — report.md of a bench/aof.sh run from its raw data
(latency-<server>-<mode>.csv, rewrite_load.tsv, metadata.txt).
Deterministic: the same raw data gives the same page."""
import csv
import os
import sys


def main(d):
    meta = dict(line.split(": ", 1) for line in open(os.path.join(d, "metadata.txt")).read().splitlines() if ": " in line)
    out = ["# Append-only file: SET latency per appendfsync, rewrite and load (%s)" % meta.get("date", "?"), ""]
    out.append("Command: `%s`. %s; %s; %s; %s filesystem." % (
        meta.get("command", "?"), meta.get("goblin_core", "?"), meta.get("redis_server", "?"),
        meta.get("cpu", "?"), meta.get("filesystem", "?")))
    out.append("")
    out.append("Load average (1/5/15 min) before: %s; after: %s." % (
        meta.get("loadavg_before", "?"), meta.get("loadavg_after", "?")))
    out.append("")
    if "note" in meta:
        out += ["Note: %s." % meta["note"], ""]
    out += ["## Depth-one SET latency (µs), samples: %s" % meta.get("samples", "?"), "",
            "| server | appendonly / appendfsync | p50 | p99 | p99.9 | p99.99 | max |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for server in ("goblin", "redis"):
        for mode in ("no", "everysec", "always"):
            path = os.path.join(d, "latency-%s-%s.csv" % (server, mode))
            if not os.path.exists(path):
                continue
            for r in csv.DictReader(open(path)):
                label = "no" if mode == "no" else "yes / " + mode
                out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                    "goblin-core" if server == "goblin" else "redis-server", label,
                    r["p50_us"], r["p99_us"], r["p999_us"], r["p9999_us"], r["max_us"]))
    out.append("")
    rows = list(csv.DictReader(open(os.path.join(d, "rewrite_load.tsv")), delimiter="\t"))
    out += ["## BGREWRITEAOF and load at start, %s strings" % meta.get("keys", "?"), "",
            "| server | keys | BGREWRITEAOF (s) | load (s) | base size (bytes) |",
            "|---|---:|---:|---:|---:|"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s |" % (
            "goblin-core" if r["server"] == "goblin" else "redis-server",
            r["keys"], r["rewrite_s"], r["load_s"], r["base_bytes"]))
    out.append("")
    out.append("BGREWRITEAOF time: from the command to `aof_rewrite_in_progress:0` (polled every "
               "10 ms). Load: the server's own log line.")
    out.append("")
    out.append("Raw data: latency-*.csv, rewrite_load.tsv, metadata.txt.")
    open(os.path.join(d, "report.md"), "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
