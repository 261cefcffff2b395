#!/usr/bin/env bash
# Start-up to the first PONG, from a config file vs from flags, goblin-core
# vs redis-server (issue 32). Each run launches the server on a free port
# with no persistence, then connects and sends PING in a tight loop (one
# Python process, perf_counter_ns) until +PONG; the time from fork to the
# reply is the run's. The config file holds exactly the flags' settings
# (port, bind, save "", dir, plus --mlockall no for goblin-core, whose
# default locks memory), so the difference is the reading of the file.
# Runs interleave the four configurations so that load drift on a shared
# machine hits all of them alike. Prints the machine, every run, and per
# configuration min / median / max in milliseconds; bench/report_startup.py
# writes report.md from that output (startup_config.txt in the run's
# directory).
# Usage: bench/startup_config.sh [GOBLIN_BIN] [REDIS_BIN] [RUNS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
goblin=${1:-$ROOT/build/goblin-core}
redis=${2:-/usr/bin/redis-server}
runs=${3:-21}
[ -x "$goblin" ] || { echo "startup_config.sh: $goblin not found; build first" >&2; exit 2; }
[ -x "$redis" ] || { echo "startup_config.sh: $redis not found" >&2; exit 2; }
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "command: bench/startup_config.sh $*"
echo "nproc: $(nproc)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "kernel: $(uname -r)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "goblin-core: $("$goblin" --version)"
echo "redis-server: $("$redis" --version)"
exec python3 - "$goblin" "$redis" "$runs" <<'EOF'
import os, socket, statistics, subprocess, sys, tempfile, time

goblin, redis, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
work = tempfile.mkdtemp()

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p

def settings(port, is_goblin):
    rows = [("port", str(port)), ("bind", "127.0.0.1"), ("save", '""'), ("dir", work)]
    if is_goblin:
        rows.append(("mlockall", "no"))
    return rows

def argv_for(kind, port):
    is_goblin = kind.startswith("goblin")
    binary = goblin if is_goblin else redis
    rows = settings(port, is_goblin)
    if kind.endswith("file"):
        path = os.path.join(work, f"{kind}.conf")
        with open(path, "w") as f:
            for k, v in rows:
                f.write(f"{k} {v}\n")
        return [binary, path]
    out = [binary]
    for k, v in rows:
        out += [f"--{k}", "" if v == '""' else v]
    return out

def one_run(kind):
    port = free_port()
    argv = argv_for(kind, port)
    t0 = time.perf_counter_ns()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"{kind}: the server exited ({argv})")
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=1)
            except OSError:
                continue
            try:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return (time.perf_counter_ns() - t0) / 1e6
            except OSError:
                pass
            finally:
                s.close()
    finally:
        proc.terminate()
        proc.wait()

kinds = ["goblin-flags", "goblin-file", "redis-flags", "redis-file"]
times = {k: [] for k in kinds}
for i in range(runs):
    for k in kinds:
        times[k].append(one_run(k))
for k in kinds:
    print(f"{k} runs_ms: " + " ".join(f"{t:.2f}" for t in times[k]))
print(f"{'configuration':<14} {'min_ms':>8} {'median_ms':>10} {'max_ms':>8}")
for k in kinds:
    t = times[k]
    print(f"{k:<14} {min(t):8.2f} {statistics.median(t):10.2f} {max(t):8.2f}")
EOF
