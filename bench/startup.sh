#!/usr/bin/env bash
# Server start-to-first-PONG: launches BIN (default build/goblin-core) RUNS
# times (default 9) on a free port with no persistence, polls with
# redis-cli PING until PONG, and prints each time and the median in
# milliseconds. Extra arguments go to the server (e.g. a --libfabric
# target). Usage: bench/startup.sh [BIN] [RUNS] [-- SERVER ARGS...]
# Measures process start, library loading (docs/libfabric.md "Startup
# cost") and listener setup; poll resolution is one redis-cli run (~ms).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$ROOT/build/goblin-core}
runs=${2:-9}
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = "--" ] && shift
[ -x "$bin" ] || { echo "startup.sh: $bin not found; build first" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
times=()
for _ in $(seq 1 "$runs"); do
    port=$(free_port)
    t0=$(date +%s%N)
    "$bin" --port "$port" --bind 127.0.0.1 --save "" --dir "$dir" --mlockall no "$@" \
        >"$dir/log" 2>&1 &
    pid=$!
    until [ "$(redis-cli -p "$port" PING 2>/dev/null)" = "PONG" ]; do
        kill -0 "$pid" 2>/dev/null || { cat "$dir/log" >&2; exit 1; }
    done
    t1=$(date +%s%N)
    kill "$pid"
    wait "$pid" || true
    times+=($(((t1 - t0) / 1000000)))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(((runs + 1) / 2))p")
echo "runs(ms): ${times[*]}"
echo "median_ms: $median"
