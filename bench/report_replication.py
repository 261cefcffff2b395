#!/usr/bin/env python3
"""report_replication.py DIR — report.md of a bench/replication.sh run from
its raw data (raw/<server>-<none|two>-r<round>.csv, sync.tsv,
raw/<server>-lag-<rate>.csv, metadata.txt: the sections it names).
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
    sections = meta.get("sections", "latency sync").split()
    parts = {"latency": "SET with two replicas", "sync": "full sync of %s keys" % meta.get("keys", "?"),
             "lag": "lag under a write load"}
    out = ["# Replication: %s (%s)" % (", ".join(parts[x] for x in sections), meta.get("date", "?")), ""]
    out.append("Command: `%s`. %s; %s; %s; kernel %s; %s." % (
        meta.get("command", "?"), meta.get("goblin_core", "?"), meta.get("redis_server", "?"),
        meta.get("cpu", "?"), meta.get("kernel", "?"), meta.get("load", "?")))
    out.append("")
    if "note" in meta:
        out += ["Note: %s." % meta["note"], ""]
    if "latency" in sections:
        latency_section(d, meta, rounds, out)
    if "sync" in sections:
        sync_section(d, meta, out)
    if "lag" in sections:
        lag_section(d, meta, out)
    open(os.path.join(d, "report.md"), "w").write("\n".join(out))


def latency_section(d, meta, rounds, out):
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


def sync_section(d, meta, out):
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


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def lag_section(d, meta, out):
    out += ["## Replication lag under a write load (µs)", "",
            "A master and one replica of the same kind; a writer sends the rate of SETs for %s s; "
            "every 10 ms a probe SET on the master, then GETs on the replica until it answers the "
            "probe's value: the lag from the master's reply to the replica having applied it "
            "(resolution: one GET round trip)." % meta.get("lag_seconds", "?"), "",
            "| server | target writes/s | reached writes/s | probes | p50 | p90 | p99 | max |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    p50 = {}
    for server in ("goblin", "redis"):
        for rate in (10000, 100000):
            path = os.path.join(d, "raw", "%s-lag-%d.csv" % (server, rate))
            if not os.path.exists(path):
                continue
            lags, reached = [], "?"
            for row in rows(path):
                if row["probe"] == "write_rate":
                    reached = row["lag_us"]
                else:
                    lags.append(float(row["lag_us"]))
            lags.sort()
            p50[(server, rate)] = statistics.median(lags)
            out.append("| %s | %d | %s | %d | %.0f | %.0f | %.0f | %.0f |" % (
                server, rate, reached, len(lags), p50[(server, rate)], percentile(lags, 0.9),
                percentile(lags, 0.99), lags[-1]))
    out.append("")
    for rate in (10000, 100000):
        if ("goblin", rate) in p50 and ("redis", rate) in p50:
            out.append("At %d writes/s the median lag of goblin-core is %.2fx redis-server's." % (
                rate, p50[("goblin", rate)] / p50[("redis", rate)]))
    out.append("")


if __name__ == "__main__":
    main(sys.argv[1])
