#!/usr/bin/env bash
# Idle cost and wake-up cost of a server with polled targets (a ring,
# libfabric tcp;ofi_rxm and shm), under --idle-strategy adaptive
# (--idle-sleep-ms 100) and spin: the server's CPU seconds over IDLE_S
# seconds with no client (from /proc/<pid>/stat), then goblin-wake-latency's
# back-to-back PING round trips (the server spinning) and the round trip of
# the first PING after 300 ms of silence (asleep under adaptive; under spin
# the same gap without a sleep, so the difference is the sleep's own cost).
# Server on CPU 1, client on CPU 0; ROUNDS rounds (default 3), each running
# every configuration once, so drift on a shared machine spreads evenly.
# Prints raw lines that bench/report_idle.py turns into a report:
#   bench/idle.sh [BUILD_DIR] > docs/benchmarks/<date>-idle/idle.txt
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$ROOT/build}
IDLE_S=${IDLE_S:-3}
ROUNDS=${ROUNDS:-3}
COUNT=${COUNT:-30}
SAMPLES=${SAMPLES:-20000}
server=$build/goblin-core
client=$build/goblin-wake-latency
[ -x "$server" ] && [ -x "$client" ] || { echo "idle.sh: build $build first" >&2; exit 2; }
dir=$(mktemp -d /dev/shm/goblin-idle-bench.XXXXXX)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$dir"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "command: bench/idle.sh"
echo "nproc: $(nproc)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "kernel: $(uname -r)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "goblin-core: $("$server" --version 2>&1 | head -1)"
echo "clk_tck: $(getconf CLK_TCK)"
echo "idle_s: $IDLE_S"
echo "rounds: $ROUNDS"

run() { # name strategy target-kind [provider]
    local name=$1 strategy=$2 kind=$3 provider=${4:-}
    local port boot target_args client_args
    port=$(free_port)
    if [ "$kind" = ring ]; then
        target_args=(--ring "$dir/r" 64k)
        client_args=(--ring "$dir/r")
    else
        boot=$(free_port)
        while [ "$boot" = "$port" ]; do boot=$(free_port); done
        target_args=(--libfabric "$provider" 127.0.0.1 "$boot" --efa-heartbeat-timeout-ms 0)
        client_args=(--fabric "$provider" --port "$boot")
    fi
    taskset -c 1 "$server" --port "$port" --save "" --appendonly no --dir "$dir" --mlockall no \
        --idle-strategy "$strategy" --idle-sleep-ms 100 "${target_args[@]}" >"$dir/log" 2>&1 &
    pid=$!
    until [ "$(redis-cli -p "$port" PING 2>/dev/null)" = "PONG" ]; do
        kill -0 "$pid" 2>/dev/null || { cat "$dir/log" >&2; exit 1; }
        sleep 0.1
    done
    sleep 0.5
    local t0 t1
    t0=$(cpu_ticks "$pid")
    sleep "$IDLE_S"
    t1=$(cpu_ticks "$pid")
    echo "$name idle_ticks: $((t1 - t0))"
    taskset -c 0 "$client" "${client_args[@]}" --count "$COUNT" --samples "$SAMPLES" |
        sed "s/^/$name /"
    echo "$name polled_sleeps: $(redis-cli -p "$port" INFO stats | tr -d '\r' |
        sed -n 's/^polled_sleeps://p')"
    kill "$pid"
    wait "$pid" || true
    pid=
}

for _ in $(seq 1 "$ROUNDS"); do
    for strategy in adaptive spin; do
        run "ring-$strategy" "$strategy" ring
        for provider in "tcp;ofi_rxm" shm; do
            run "fabric-${provider%%;*}-$strategy" "$strategy" fabric "$provider"
        done
    done
done
