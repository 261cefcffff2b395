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
# Output: stdout and results/<timestamp>-throughput/{throughput.out,metadata.txt}
# (RESULTS_ROOT overrides results/).
set -euo pipefail

REQUESTS=${1:-${REQUESTS:-1000000}}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GOBLIN_SERVER=${GOBLIN_SERVER:-$ROOT/build/goblin-core}
REDIS_SERVER=${REDIS_SERVER:-$(command -v redis-server)}
REDIS_CLI=${REDIS_CLI:-$(command -v redis-cli)}
REDIS_BENCHMARK=${REDIS_BENCHMARK:-$(command -v redis-benchmark)}
WORK=$(mktemp -d /tmp/goblin-throughput.XXXXXX)
# The printed table is the run's raw data: it also goes to
# results/<timestamp>-throughput/throughput.out, with metadata.txt beside it.
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-throughput
while [ -e "$OUT" ]; do OUT=$OUT-x; done
mkdir -p "$OUT"
emit() { "$@" | tee -a "$OUT/throughput.out"; }
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"

cleanup() {
    server_stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# Requests per second of one command line (redis-benchmark --csv).
rps() {
    "$REDIS_BENCHMARK" -p "$SERVER_PORT" -P 16 -n "$REQUESTS" -r 100000 -c 50 --csv "$@" |
        awk -F'","' 'NR == 2 { print $2 }'
}

declare -A result
for kind in goblin redis; do
    server_start "$kind" "${BENCH_CPU:-}" "$WORK/$kind"
    result[$kind,ZADD]=$(rps ZADD bench:z __rand_int__ m:__rand_int__)
    result[$kind,ZSCORE]=$(rps ZSCORE bench:z m:__rand_int__)
    result[$kind,HSET]=$(rps HSET bench:h f:__rand_int__ v:__rand_int__)
    result[$kind,HGET]=$(rps HGET bench:h f:__rand_int__)
    server_stop || true
done

emit echo "throughput.sh: $REQUESTS requests per command, -P 16 -c 50 -r 100000"
emit printf '%-8s %14s %14s %8s\n' command goblin-core redis-server ratio
for cmd in ZADD ZSCORE HSET HGET; do
    g=${result[goblin,$cmd]} r=${result[redis,$cmd]}
    emit printf '%-8s %14s %14s %8s\n' "$cmd" "$g" "$r" "$(awk -v g="$g" -v r="$r" 'BEGIN { printf "%.2f", g / r }')"
done
emit echo "(requests per second; ratio = goblin-core / redis-server, higher is faster)"
{
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
    echo "kernel: $(uname -srvm)"
    echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)"
    echo "cpus_online: $(nproc)"
    echo "command: bash bench/throughput.sh $REQUESTS"
} >"$OUT/metadata.txt"
echo "throughput.sh: results in $OUT" >&2
