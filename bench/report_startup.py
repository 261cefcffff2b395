#!/usr/bin/env python3
"""report_startup.py DIR — report.md of a bench/startup_config.sh run from its
raw output (DIR/startup_config.txt: the machine lines, then one
"<configuration> runs_ms: ..." line per configuration). Deterministic: the
same raw data gives the same page."""
import os
import statistics
import sys

NAMES = {
    "goblin-flags": "goblin-core, flags",
    "goblin-file": "goblin-core, config file",
    "redis-flags": "redis-server, flags",
    "redis-file": "redis-server, config file",
}


def main(d):
    meta, runs = {}, {}
    for line in open(os.path.join(d, "startup_config.txt")).read().splitlines():
        if " runs_ms: " in line:
            name, values = line.split(" runs_ms: ", 1)
            runs[name] = [float(v) for v in values.split()]
        elif ": " in line and not runs:
            key, value = line.split(": ", 1)
            meta[key] = value
    count = max(len(v) for v in runs.values())
    command = meta.get("command", "bench/startup_config.sh build/goblin-core /usr/bin/redis-server %d" % count)
    out = ["# Start-up to the first PONG: config file vs flags, goblin-core vs redis-server", "",
           "Command: `%s` (raw output: `startup_config.txt`), %s. Each run forks the server with the "
           "same settings (port, bind 127.0.0.1, save \"\", dir; goblin-core also `mlockall no`), given "
           "as flags or as a config file holding exactly those lines, and a Python loop connects and "
           "sends PING until `+PONG`; the time from fork to the reply is the run's. The four "
           "configurations are interleaved run by run." % (command, meta.get("date", "?")), "",
           "Machine: %s CPUs (%s), kernel %s; %s; %s; load average %s (1/5/15 min) at the start." % (
               meta.get("nproc", "?"), meta.get("cpu", "?"), meta.get("kernel", "?"),
               meta.get("goblin-core", "?"), meta.get("redis-server", "?"), meta.get("load", "?")), "",
           "| configuration | runs | min ms | median ms | max ms |",
           "|---|---:|---:|---:|---:|"]
    med = {}
    for key, label in NAMES.items():
        if key not in runs:
            continue
        v = runs[key]
        med[key] = statistics.median(v)
        out.append("| %s | %d | %.2f | %.2f | %.2f |" % (label, len(v), min(v), med[key], max(v)))
    out.append("")
    if len(med) == 4:
        spread = max(max(v) - min(v) for v in runs.values())
        out.append("The file costs goblin-core %+.1f ms and redis-server %+.1f ms at the median, against a "
                   "run-to-run spread of up to %.0f ms; goblin-core's median from flags is %.2fx "
                   "redis-server's, from a file %.2fx." % (
                       med["goblin-file"] - med["goblin-flags"], med["redis-file"] - med["redis-flags"],
                       spread, med["goblin-flags"] / med["redis-flags"],
                       med["goblin-file"] / med["redis-file"]))
        out.append("")
    open(os.path.join(d, "report.md"), "w").write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
