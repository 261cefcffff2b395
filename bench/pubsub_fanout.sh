#!/usr/bin/env bash
# pubsub_fanout.sh — Pub/Sub fan-out throughput and one-subscriber
# publish->delivery latency with build/goblin-pubsub-fanout, for every server
# of SERVERS in one run, each started fresh and pinned (bench/server_ctl.sh).
#
# Environment (defaults in brackets):
#   SERVERS      goblin,redis   goblin, goblin-spin, goblin-block, redis
#   SUBSCRIBERS  100            subscribers of the fan-out run
#   MESSAGES     200000         publishes of each run (fan-out and latency)
#   WARMUP       20000          unmeasured publishes of the latency run
#   SERVER_CPU   1, CLIENT_CPU 0  pinning (taskset; empty = not pinned)
#   RESULTS_ROOT <repo>/results
# Writes results/<timestamp>-fanout/:
#   fanout.out    the tool's output lines, each preceded by a "# SERVER ..."
#                 line naming the server and the run (the raw data)
#   metadata.txt  date, commit, machine, versions, the exact command
#   report.md     bench/report_fanout.py on the two files above
# and prints report.md. A smoke run: MESSAGES=2000 WARMUP=200 SUBSCRIBERS=10.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-${GOBLIN_BUILD_DIR:-$ROOT/build}}
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"
SERVERS=${SERVERS:-goblin,redis}
SUBSCRIBERS=${SUBSCRIBERS:-100}
MESSAGES=${MESSAGES:-200000}
WARMUP=${WARMUP:-20000}
SERVER_CPU=${SERVER_CPU-1}
CLIENT_CPU=${CLIENT_CPU-0}
FANOUT=$BUILD_DIR/goblin-pubsub-fanout
[ -x "$FANOUT" ] || { echo "pubsub_fanout.sh: $FANOUT not found; build first (make build)" >&2; exit 2; }
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-fanout
while [ -e "$OUT" ]; do OUT=$OUT-x; done
mkdir -p "$OUT/cells"

# run SERVER HEADING ARGS...: one goblin-pubsub-fanout run on a fresh server.
run() {
    local server=$1 heading=$2 dir=$OUT/cells/$1-$RANDOM
    shift 2
    local -a pin
    server_start "$server" "$SERVER_CPU" "$dir"
    read -r -a pin <<<"$(pin_command "$CLIENT_CPU")"
    echo "# $server $heading" >>"$OUT/fanout.out"
    "${pin[@]}" "$FANOUT" --port "$SERVER_PORT" "$@" >>"$OUT/fanout.out" 2>"$dir/stderr" || {
        echo "pubsub_fanout.sh: $server $heading failed: $(cat "$dir/stderr")" >&2
        server_stop || true
        exit 1
    }
    server_stop
}

: >"$OUT/fanout.out"
for server in $(tr ',' ' ' <<<"$SERVERS"); do
    run "$server" "$SUBSCRIBERS subscribers" --subscribers "$SUBSCRIBERS" --messages "$MESSAGES"
    run "$server" "1 subscriber latency" --subscribers 1 --latency --messages "$MESSAGES" \
        --warmup "$WARMUP"
done

{
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
    echo "kernel: $(uname -srvm)"
    echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)"
    echo "cpus_online: $(nproc)"
    echo "redis_server: $("$REDIS_SERVER" --version 2>/dev/null | head -n 1)"
    echo "goblin_core: $("$GOBLIN_SERVER" --version 2>/dev/null | head -n 1)"
    echo "server_cpu: ${SERVER_CPU:-not pinned}"
    echo "client_cpu: ${CLIENT_CPU:-not pinned}"
    echo "command: SERVERS=$SERVERS SUBSCRIBERS=$SUBSCRIBERS MESSAGES=$MESSAGES WARMUP=$WARMUP SERVER_CPU=$SERVER_CPU CLIENT_CPU=$CLIENT_CPU bash bench/pubsub_fanout.sh"
} >"$OUT/metadata.txt"
python3 "$ROOT/bench/report_fanout.py" "$OUT"
cat "$OUT/report.md"
echo "pubsub_fanout: results in $OUT" >&2
