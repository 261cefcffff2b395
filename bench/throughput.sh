#!/usr/bin/env bash
# throughput.sh — pipelined redis-benchmark throughput of the hash and
# sorted-set hot commands, goblin-core vs redis-server in the same run:
#
#   ZADD   ZADD bench:z __rand_int__ m:__rand_int__   (score and member random)
#   ZSCORE ZSCORE bench:z m:__rand_int__               (after the ZADD run)
#   HSET   HSET bench:h f:__rand_int__ v:__rand_int__
#   HGET   HGET bench:h f:__rand_int__                 (after the HSET run)
#
# Each server runs alone (fresh process, same flags, no pinning unless
# BENCH_CPU is set) while redis-benchmark drives it with
#   redis-benchmark -p PORT -P 16 -n REQUESTS -r 100000 -c 50 --csv <command>
# so -r 100000 draws members/fields from 100000 values: the sorted set and the
# hash hold up to 100000 entries (the indexed encodings). Requests per second
# are printed per command and server.
#
# Usage: bench/throughput.sh [REQUESTS]   (default 1000000; a smoke run: 100000)
set -euo pipefail

REQUESTS=${1:-${REQUESTS:-1000000}}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GOBLIN_SERVER=${GOBLIN_SERVER:-$ROOT/build/goblin-core}
REDIS_SERVER=${REDIS_SERVER:-$(command -v redis-server)}
REDIS_CLI=${REDIS_CLI:-$(command -v redis-cli)}
REDIS_BENCHMARK=${REDIS_BENCHMARK:-$(command -v redis-benchmark)}
WORK=$(mktemp -d /tmp/goblin-throughput.XXXXXX)
SERVER_PID=

cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_server() {
    local kind=$1
    local -a pin=()
    [ -n "${BENCH_CPU:-}" ] && pin=(taskset -c "$BENCH_CPU")
    PORT=$(free_port)
    if [ "$kind" = goblin ]; then
        "${pin[@]}" "$GOBLIN_SERVER" --port "$PORT" --bind 127.0.0.1 >"$WORK/$kind.log" 2>&1 &
    else
        "${pin[@]}" "$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
            --dir "$WORK" >"$WORK/$kind.log" 2>&1 &
    fi
    SERVER_PID=$!
    for _ in $(seq 100); do
        "$REDIS_CLI" -p "$PORT" PING >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "throughput.sh: $kind did not start (see $WORK/$kind.log)" >&2
    exit 1
}

stop_server() {
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

# Requests per second of one command line (redis-benchmark --csv).
rps() {
    "$REDIS_BENCHMARK" -p "$PORT" -P 16 -n "$REQUESTS" -r 100000 -c 50 --csv "$@" |
        awk -F'","' 'NR == 2 { print $2 }'
}

declare -A result
for kind in goblin redis; do
    start_server "$kind"
    result[$kind,ZADD]=$(rps ZADD bench:z __rand_int__ m:__rand_int__)
    result[$kind,ZSCORE]=$(rps ZSCORE bench:z m:__rand_int__)
    result[$kind,HSET]=$(rps HSET bench:h f:__rand_int__ v:__rand_int__)
    result[$kind,HGET]=$(rps HGET bench:h f:__rand_int__)
    stop_server
done

echo "throughput.sh: $REQUESTS requests per command, -P 16 -c 50 -r 100000"
printf '%-8s %14s %14s %8s\n' command goblin-core redis-server ratio
for cmd in ZADD ZSCORE HSET HGET; do
    g=${result[goblin,$cmd]} r=${result[redis,$cmd]}
    printf '%-8s %14s %14s %8s\n' "$cmd" "$g" "$r" "$(awk -v g="$g" -v r="$r" 'BEGIN { printf "%.2f", g / r }')"
done
echo "(requests per second; ratio = goblin-core / redis-server, higher is faster)"
