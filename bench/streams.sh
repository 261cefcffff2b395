#!/usr/bin/env bash
# streams.sh — stream commands, goblin-core vs redis-server in one run:
#
# 1. pipelined throughput: redis-benchmark -P 16 -c 50 --csv of
#      XADD        XADD bench:s * f v                    (a fresh stream)
#      XRANGE      XRANGE bench:s - + COUNT 10           (a stream of 100000 entries)
#      XREADGROUP  XREADGROUP GROUP g c COUNT 10 STREAMS bench:s >
#                  (a stream preloaded with 10 entries per request, so every
#                  request is served 10 new entries, which become pending)
#    in ROUNDS rounds, goblin-core and redis-server alternating (goblin first
#    on odd rounds, redis first on even ones), each test on a fresh server;
# 2. depth one: goblin-bench --ops SET,XADD,XREADGROUP (DEPTH_SAMPLES
#    samples after DEPTH_WARMUP) over TCP against both servers, and over a
#    shared-memory ring against goblin-core (redis-server has no ring).
#
# Environment (defaults in brackets): REQUESTS [1000000] per XADD/XRANGE run,
# RG_REQUESTS [200000] per XREADGROUP run, ROUNDS [3], DEPTH_SAMPLES
# [200000], DEPTH_WARMUP [20000], BENCH_CPU (pin the servers; unset = not
# pinned), RESULTS_ROOT [<repo>/results].
# Output: results/<timestamp>-streams/{raw/*.csv,depth1-*.txt,metadata.txt,
# report.md}; report.md (bench/report_streams.py, which regenerates it from
# the others) is printed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
REQUESTS=${REQUESTS:-1000000}
RG_REQUESTS=${RG_REQUESTS:-200000}
ROUNDS=${ROUNDS:-3}
DEPTH_SAMPLES=${DEPTH_SAMPLES:-200000}
DEPTH_WARMUP=${DEPTH_WARMUP:-20000}
REDIS_CLI=${REDIS_CLI:-$(command -v redis-cli)}
REDIS_BENCHMARK=${REDIS_BENCHMARK:-$(command -v redis-benchmark)}
GOBLIN_BENCH=${GOBLIN_BENCH:-$BUILD_DIR/goblin-bench}
WORK=$(mktemp -d /tmp/goblin-streams.XXXXXX)
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-streams
while [ -e "$OUT" ]; do OUT=$OUT-x; done
mkdir -p "$OUT/raw"
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"
cleanup() {
    server_stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# load N: XADD bench:s with N entries through redis-cli --pipe.
load() {
    awk -v n="$1" 'BEGIN {
        for (i = 0; i < n; i++)
            printf "*5\r\n$4\r\nXADD\r\n$7\r\nbench:s\r\n$1\r\n*\r\n$1\r\nf\r\n$16\r\nv%015d\r\n", i
    }' | "$REDIS_CLI" -p "$SERVER_PORT" --pipe >/dev/null
}

# bench SERVER TEST ROUND: one redis-benchmark run on a fresh server.
bench() {
    local kind=$1 test=$2 round=$3 n=$REQUESTS
    server_start "$kind" "${BENCH_CPU:-}" "$WORK/$kind-$test-$round"
    local -a cmd
    case $test in
    XADD) cmd=(XADD bench:s '*' f v) ;;
    XRANGE)
        load 100000
        cmd=(XRANGE bench:s - + COUNT 10)
        ;;
    XREADGROUP)
        n=$RG_REQUESTS
        "$REDIS_CLI" -p "$SERVER_PORT" XGROUP CREATE bench:s g '$' MKSTREAM >/dev/null
        load $((RG_REQUESTS * 10 + 20000)) # redis-benchmark sends up to -c * -P more
        cmd=(XREADGROUP GROUP g c COUNT 10 STREAMS bench:s '>')
        ;;
    esac
    "$REDIS_BENCHMARK" -p "$SERVER_PORT" -P 16 -c 50 -n "$n" --csv "${cmd[@]}" \
        >"$OUT/raw/$kind-$test.r$round.csv"
    if [ "$test" = XREADGROUP ]; then # every request was served 10 entries, none ran dry
        local pending
        pending=$("$REDIS_CLI" -p "$SERVER_PORT" XPENDING bench:s g | head -1)
        [ "$pending" -ge $((n * 10)) ] && [ "$pending" -lt $((n * 10 + 20000)) ] &&
            [ $((pending % 10)) = 0 ] || {
            echo "streams.sh: $kind XREADGROUP left $pending pending for $n requests" >&2
            exit 1
        }
    fi
    server_stop || true
}

rps_of() {
    awk -F'","' 'NR == 2 { print $2 }' "$1"
}

for round in $(seq "$ROUNDS"); do
    order="goblin redis"
    [ $((round % 2)) = 0 ] && order="redis goblin"
    for test in XADD XRANGE XREADGROUP; do
        for kind in $order; do bench "$kind" "$test" "$round"; done
    done
done

# Depth one.
depth1() { # KIND TRANSPORT
    local kind=$1 transport=$2 dir=$WORK/depth1-$1-$2
    local -a extra=() target=(--port)
    if [ "$transport" = ring ]; then
        mkdir -p "$dir"
        extra=(--ring "/dev/shm/goblin-streams-$$.ring" 1m --no-auth-ring)
    fi
    server_start "$kind" "${BENCH_CPU:-}" "$dir" "${extra[@]}"
    if [ "$transport" = ring ]; then
        target=(--transport ring --ring "/dev/shm/goblin-streams-$$.ring")
    else
        target=(--port "$SERVER_PORT")
    fi
    "$GOBLIN_BENCH" "${target[@]}" --ops SET,XADD,XREADGROUP --samples "$DEPTH_SAMPLES" \
        --warmup "$DEPTH_WARMUP" --label "$kind-$transport" >"$OUT/depth1-$kind-$transport.txt"
    server_stop || true
    rm -f "/dev/shm/goblin-streams-$$.ring"
}
depth1 goblin tcp
depth1 redis tcp
depth1 goblin ring
{
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
    echo "kernel: $(uname -srvm)"
    echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)"
    echo "cpus_online: $(nproc)"
    echo "redis-server: $("$REDIS_SERVER" --version | head -n1)"
    echo "load average (1/5/15 min): $LOAD_BEFORE before, $(cut -d' ' -f1-3 /proc/loadavg) after"
    echo "command: REQUESTS=$REQUESTS RG_REQUESTS=$RG_REQUESTS ROUNDS=$ROUNDS DEPTH_SAMPLES=$DEPTH_SAMPLES DEPTH_WARMUP=$DEPTH_WARMUP${BENCH_CPU:+ BENCH_CPU=$BENCH_CPU} bash bench/streams.sh"
} >"$OUT/metadata.txt"
python3 "$ROOT/bench/report_streams.py" "$OUT"
cat "$OUT/report.md"
echo "streams.sh: results in $OUT" >&2
