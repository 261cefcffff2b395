#!/usr/bin/env python3
"""report_replication.py DIR — report.md of a bench/replication.sh run from
its raw data (raw/<server>-<none|two>-r<round>.csv, sync.tsv, metadata.txt).
Deterministic: the same raw data gives the same page."""
import csv
import os
import statistics
import sys


def rows(path):
    return list(csv.DictReader(open(path)))


def main(d):
    meta = dict(l.split(": ", 1) for l in open(os.path.join(d, "metadata.txt")).read().splitlines() if ": " in l)
    rounds = int(meta.get("rounds", "1"))
    out = ["# Replication: SET with two replicas, full sync of %s keys (%s)" % (meta.get("keys", "?"), meta.get("date", "?")), ""]
    out.append("Command: `%s`. %s; %s; %s; kernel %s; %s." % (
        meta.get("command", "?"), meta.get("goblin_core", "?"), meta.get("redis_server", "?"),
        meta.get("cpu", "?"), meta.get("kernel", "?"), meta.get("load", "?")))
    out.append("")
    if "note" in meta:
        out += ["Note: %s." % meta["note"], ""]
    out += ["## Depth-one SET (µs), %s samples after %s warmups per run, %d alternating rounds" % (
        meta.get("samples", "?"), meta.get("warmup", "?"), rounds), "",
        "| server | replicas | round | p50 | p99 | p99.9 | p99.99 | max | ops/s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    med = {}
    labels = {"none": "0", "two": "2", "two-block": "2 (block)"}
    for server in ("goblin", "redis"):
        for cfg in ("none", "two", "two-block"):
            p50s, p9999s = [], []
            for r in range(1, rounds + 1):
                path = os.path.join(d, "raw", "%s-%s-r%d.csv" % (server, cfg, r))
                if not os.path.exists(path):
                    continue
                for row in rows(path):
                    if row["op"] != "SET":
                        continue
                    p50s.append(float(row["p50_us"]))
                    p9999s.append(float(row["p9999_us"]))
                    out.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
                        server, labels[cfg], r, row["p50_us"], row["p99_us"],
                        row["p999_us"], row["p9999_us"], row["max_us"], row.get("ops_per_sec", "?")))
            if p50s:
                med[(server, cfg)] = (statistics.median(p50s), statistics.median(p9999s))
    out.append("")
    out += ["Medians over the rounds:", "",
            "| server | replicas | p50, no replica | p50, two replicas | ratio | p99.99, no replica | p99.99, two replicas |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for server in ("goblin", "redis"):
        for cfg in ("two", "two-block"):
            if (server, "none") in med and (server, cfg) in med:
                a, b = med[(server, "none")], med[(server, cfg)]
                out.append("| %s | %s | %.2f | %.2f | %.2fx | %.2f | %.2f |" % (
                    server, labels[cfg], a[0], b[0], b[0] / a[0], a[1], b[1]))
    out.append("")
    sync = list(csv.DictReader(open(os.path.join(d, "sync.tsv")), delimiter="\t"))
    out += ["## Full sync of %s keys (16-byte string values)" % meta.get("keys", "?"), "",
            "From `REPLICAOF` on an empty replica of the same kind until its link is up at the master's "
            "offset; resident memory sampled every 20 ms (the fork child's pages not included).", "",
            "| server | mode | keys | seconds | master RSS before (MB) | master RSS peak (MB) | replica RSS peak (MB) |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for r in sync:
        out.append("| %s | %s | %s | %s | %.1f | %.1f | %.1f |" % (
            r["server"], r["mode"], r["keys"], r["sync_s"], int(r["master_rss_before_kb"]) / 1024,
            int(r["master_rss_peak_kb"]) / 1024, int(r["replica_rss_peak_kb"]) / 1024))
    out.append("")
    open(os.path.join(d, "report.md"), "w").write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
