#!/usr/bin/env bash
# instructions_per_request.sh BINARY [REQUESTS] — instructions the server
# executes for REQUESTS (default 20000) each of PING, SET and GET at depth
# one (redis-benchmark -c 1 over TCP), counted by valgrind's callgrind with
# --idle-strategy block so idle polling adds nothing. Instruction counts are
# repeatable on a noisy machine where wall-clock latency is not: use it to
# compare two builds of the hot path (startup is included; it is the same
# for both within a few thousand instructions per request run).
set -euo pipefail
bin=${1:?usage: bench/instructions_per_request.sh BINARY [REQUESTS]}
n=${2:-20000}
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$bin" --port "$port" \
    --mlockall no --idle-strategy block >"$out/server.log" 2>&1 &
pid=$!
for _ in $(seq 150); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.2; done
redis-cli -p "$port" SET key:__rand_int__ xxxxxxxxxxxxxxxx >/dev/null
redis-benchmark -p "$port" -c 1 -n "$n" -t ping_mbulk,set,get -q >/dev/null
kill -INT "$pid"
wait "$pid" || true
total=$(callgrind_annotate "$out/cg.out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
echo "$bin: $total instructions for $((3 * n)) requests ($((total / (3 * n))) per request, startup included)"
