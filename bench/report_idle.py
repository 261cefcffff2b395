#!/usr/bin/env python3
"""report_idle.py DIR — report.md of a bench/idle.sh run from its raw output
(DIR/idle.txt: the machine lines, then per configuration its idle CPU ticks,
back-to-back PING round trips, first PING after 300 ms of silence, and the
server's sleep count). Deterministic: the same raw data gives the same page."""
import os
import statistics
import sys

TARGETS = [("ring", "ring"), ("fabric-tcp", "libfabric tcp;ofi_rxm"),
           ("fabric-shm", "libfabric shm")]


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p / 100.0 * len(v)))]


def main(d):
    meta, rows = {}, {}
    for line in open(os.path.join(d, "idle.txt")).read().splitlines():
        head, _, value = line.partition(": ")
        if " " in head:
            name, field = head.split(" ", 1)
            rows.setdefault(name, {}).setdefault(field, []).append(value)
        else:
            meta[head] = value
    tck = float(meta.get("clk_tck", "100"))
    idle_s = float(meta.get("idle_s", "5"))
    rounds = int(meta.get("rounds", "1"))
    out = ["# Idle and wake-up cost with polled targets: adaptive vs spin", "",
           "Command: `bench/idle.sh build > %s/idle.txt` (raw output: `idle.txt`), %s, %d rounds "
           "each running every configuration once. Per configuration and round the server (CPU 1, `--idle-sleep-ms 100`) runs with no client for %g s "
           "and its CPU time is read from /proc; then goblin-wake-latency (CPU 0) sends %s "
           "back-to-back PINGs (the server spinning) and, %s times, one PING after 300 ms of "
           "silence (under adaptive the server is asleep by then; under spin it is not, so the "
           "difference between the two is what the sleep itself costs). Report: "
           "`bench/report_idle.py`; the columns pool every round's samples." % (
               os.path.basename(os.path.normpath(d)), meta.get("date", "?"), rounds, idle_s,
               "%d" % len(rows.get("ring-spin", {}).get("spin_us", [""])[0].split()),
               "%d" % len(rows.get("ring-spin", {}).get("wake_us", [""])[0].split())), "",
           "Machine: %s CPUs (%s), kernel %s; %s; load average %s (1/5/15 min) at the start." % (
               meta.get("nproc", "?"), meta.get("cpu", "?"), meta.get("kernel", "?"),
               meta.get("goblin-core", "?"), meta.get("load", "?")), "",
           "| target | strategy | idle CPU (share of a core) | sleeps per round | back-to-back p50 µs | "
           "per round | "
           "after 300 ms p50 µs | after 300 ms p90 µs | after 300 ms max µs |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    summary = []
    for key, label in TARGETS:
        med = {}
        for strategy in ("adaptive", "spin"):
            r = rows.get("%s-%s" % (key, strategy))
            if not r:
                continue
            ticks = [float(x) for x in r["idle_ticks"]]
            cpu = sum(ticks) / tck / idle_s / len(ticks)
            spin = [float(x) for line in r["spin_us"] for x in line.split()]
            wake = [float(x) for line in r["wake_us"] for x in line.split()]
            sleeps = "/".join(r.get("polled_sleeps", ["?"]))
            med[strategy] = (statistics.median(spin), statistics.median(wake), cpu)
            per_round = "/".join("%.2f" % statistics.median([float(x) for x in line.split()])
                                 for line in r["spin_us"])
            out.append("| %s | %s | %.3f | %s | %.2f | %s | %.1f | %.1f | %.1f |" % (
                label, strategy, cpu, sleeps, statistics.median(spin), per_round,
                statistics.median(wake), pct(wake, 90), max(wake)))
        if len(med) == 2:
            summary.append("- %s: idle %.3f of a core under adaptive against %.3f under spin; "
                           "back-to-back p50 %.2f µs against %.2f (%.2fx); the first request "
                           "after an idle period %.1f µs at the median against %.1f when the "
                           "server did not sleep (%+.1f µs)." % (
                               label, med["adaptive"][2], med["spin"][2], med["adaptive"][0],
                               med["spin"][0], med["adaptive"][0] / med["spin"][0],
                               med["adaptive"][1], med["spin"][1],
                               med["adaptive"][1] - med["spin"][1]))
    out += [""] + summary + [""]
    open(os.path.join(d, "report.md"), "w").write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
