#!/usr/bin/env python3
"""report_twemproxy.py RUN_DIR — report.md of one bench/twemproxy.sh run.

Reads RUN_DIR/metadata.txt and RUN_DIR/raw/<server>-<topology>-<mode>.csv
(redis-benchmark --csv output, unchanged) and writes RUN_DIR/report.md.
Every number is read from or computed on those CSVs. Standard library only.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_redis_benchmark import load, read_metadata  # noqa: E402

WHO = {"goblin": "goblin-core (defaults: adaptive idle)",
       "goblin-block": "goblin-core --idle-strategy block", "redis": "redis-server"}


def render(run):
    meta = read_metadata(run)
    servers = meta.get("servers", "goblin,redis").split(",")
    topologies = meta.get("topologies", "direct1,proxy3").split(",")
    out = ["# Scale-out: three nodes behind twemproxy and as a Redis Cluster against one node"
           if "cluster3" in topologies else
           "# twemproxy: three nodes behind the proxy against one node", ""]
    for key in ("date (UTC)", "commit", "machine", "redis-server", "nutcracker", "pinning",
                "load average at start"):
        out.append(f"- {key}: {meta.get(key, 'unknown')}")
    out.append(f"- command: `{meta.get('command', 'unknown')}`")
    out += ["", "`direct1`: one node, redis-benchmark straight to it. `proxy3`: three nodes, "
            "each in a network namespace of its own (veth), behind nutcracker. Servers: "
            + "; ".join(f"`{s}` = {WHO.get(s, s)}" for s in servers) + ".", ""]
    cells = {(s, t, m): load(run, f"{s}-{t}-{m}.csv")
             for s in servers for t in topologies for m in ("depth1", "throughput")}
    tests = list(cells[(servers[0], "direct1", "depth1")])

    out += ["## Depth one (`-c 1 -P 1`): p50 ms through the proxy against direct", "",
            "| server | test | direct1 p50 ms | proxy3 p50 ms | proxy3 ÷ direct1 |",
            "|---|---|---|---|---|"]
    for s in servers:
        for t in tests:
            d = float(cells[(s, "direct1", "depth1")][t]["p50_latency_ms"])
            p = float(cells[(s, "proxy3", "depth1")][t]["p50_latency_ms"])
            out.append(f"| {s} | {t} | {d:.3f} | {p:.3f} | {p / d:.2f}× |")

    out += ["", "## Throughput (`-c 50 -P 16 -r 100000`), requests per second", "",
            "| server | test | direct1 | proxy3 | proxy3 ÷ direct1 | proxy3 ÷ redis proxy3 |",
            "|---|---|---|---|---|---|"]
    for s in servers:
        for t in tests:
            d = float(cells[(s, "direct1", "throughput")][t]["rps"])
            p = float(cells[(s, "proxy3", "throughput")][t]["rps"])
            vs = "—"
            if "redis" in servers:
                vs = f"{p / float(cells[('redis', 'proxy3', 'throughput')][t]['rps']):.2f}×"
            out.append(f"| {s} | {t} | {d:.0f} | {p:.0f} | {p / d:.2f}× | {vs} |")
    if "cluster3" in topologies:
        out += ["", "## Redis Cluster (`cluster3`: the three nodes with `--cluster-enabled yes`, "
                "`redis-benchmark --cluster` routing each key)", "",
                "| server | test | depth-one p50 ms | cluster3 ÷ direct1 p50 | rps (-c 50 -P 16) "
                "| cluster3 ÷ direct1 rps | cluster3 ÷ redis cluster3 rps |",
                "|---|---|---|---|---|---|---|"]
        for s in servers:
            for t in tests:
                d50 = float(cells[(s, "direct1", "depth1")][t]["p50_latency_ms"])
                c50 = float(cells[(s, "cluster3", "depth1")][t]["p50_latency_ms"])
                d = float(cells[(s, "direct1", "throughput")][t]["rps"])
                c = float(cells[(s, "cluster3", "throughput")][t]["rps"])
                vs = "—"
                if "redis" in servers:
                    vs = f"{c / float(cells[('redis', 'cluster3', 'throughput')][t]['rps']):.2f}×"
                out.append(f"| {s} | {t} | {c50:.3f} | {c50 / d50:.2f}× | {c:.0f} | {d and c / d:.2f}× "
                           f"| {vs} |")
    out += ["", "All processes share the machine's CPUs (see `machine`); on a machine with "
            "fewer cores than nodes + proxy + client, proxy3 measures CPU sharing as much as "
            "sharding, and a node that polls after activity (goblin's adaptive default) takes "
            "CPU time the proxy and the other nodes need."]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report_twemproxy.py RUN_DIR")
    with open(os.path.join(sys.argv[1], "report.md"), "w") as f:
        f.write(render(sys.argv[1]))


if __name__ == "__main__":
    main()
