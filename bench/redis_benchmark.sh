#!/usr/bin/env bash
# redis_benchmark.sh — goblin-core vs redis-server with the stock
# redis-benchmark, in one run: depth one (-c 1 -P 1) and pipelined (-P 16),
# over TCP, the Unix socket and (TRANSPORTS) TLS, each server started fresh
# and pinned.
#
# Environment (defaults in brackets):
#   TESTS       ping,set,get    redis-benchmark -t; "default" = redis-benchmark's
#                               own default test list (no -t)
#   REQUESTS    200000          requests per depth-one test (-n)
#   PIPELINE    16              depth of the pipelined run (-P)
#   P_REQUESTS  2000000         requests per pipelined test
#   CLIENTS     1               connections of the pipelined run (-c)
#   SERVER_CPU  1, CLIENT_CPU 0 pinning (taskset)
#   EXTRA       (empty)         extra redis-benchmark flags (e.g. "-r 100000")
#   MODES       depth1 pipelined  which runs (space separated)
#   TRANSPORTS  tcp unix        any of tcp, unix, tls (TLS: both servers get
#                               --tls-port with certificates made by
#                               tests/integration/tls_certs.sh; redis-benchmark
#                               --tls presents a client certificate)
#   ROUNDS      1               rounds: each round runs every cell once, goblin
#                               and the baseline alternating; with ROUNDS > 1 the
#                               report gives each test's median over the rounds
#                               (and the range of the per-round ratios)
#   BASELINE    redis           the server compared with goblin: redis, or
#                               goblin-base (an older build, GOBLIN_BASE_SERVER)
#   RESULTS_ROOT <repo>/results
# Writes results/<timestamp>-redis-benchmark/{raw/*.csv,metadata.txt,report.md}
# (report.md by bench/report_redis_benchmark.py, which regenerates it from
# raw/ and metadata.txt) and prints the report.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"
TESTS=${TESTS:-ping,set,get}
REQUESTS=${REQUESTS:-200000}
PIPELINE=${PIPELINE:-16}
P_REQUESTS=${P_REQUESTS:-2000000}
CLIENTS=${CLIENTS:-1}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
EXTRA=${EXTRA:-}
MODES=${MODES:-depth1 pipelined}
TRANSPORTS=${TRANSPORTS:-tcp unix}
BASELINE=${BASELINE:-redis}
ROUNDS=${ROUNDS:-1}
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-redis-benchmark
mkdir -p "$OUT/raw"

# run SERVER TRANSPORT MODE ROUND: one redis-benchmark invocation, CSV into
# raw/ (named .rROUND.csv when there are several rounds).
run() {
    local server=$1 transport=$2 mode=$3 dir=$OUT/cells/$1-$2-$3-r$4 suffix=""
    [ "$ROUNDS" -gt 1 ] && suffix=.r$4
    local -a target args tls=() tests=(-t "$TESTS")
    [ "$TESTS" = default ] && tests=()
    if [ "$transport" = tls ]; then
        local tls_port
        tls_port=$(free_port)
        tls=(--tls-port "$tls_port" --tls-cert-file "$CERTS/server.crt" --tls-key-file "$CERTS/server.key"
             --tls-ca-cert-file "$CERTS/ca.crt")
    fi
    server_start "$server" "$SERVER_CPU" "$dir" "${tls[@]}"
    case $transport in
    unix) target=(-s "$SERVER_SOCKET") ;;
    tls) target=(-h 127.0.0.1 -p "$tls_port" --tls --cacert "$CERTS/ca.crt" --cert "$CERTS/client.crt"
                 --key "$CERTS/client.key") ;;
    *) target=(-h 127.0.0.1 -p "$SERVER_PORT") ;;
    esac
    if [ "$mode" = depth1 ]; then args=(-c 1 -P 1 -n "$REQUESTS")
    else args=(-c "$CLIENTS" -P "$PIPELINE" -n "$P_REQUESTS"); fi
    # shellcheck disable=SC2086
    taskset -c "$CLIENT_CPU" redis-benchmark "${target[@]}" "${args[@]}" "${tests[@]}" $EXTRA --csv \
        >"$OUT/raw/$server-$transport-$mode$suffix.csv" 2>"$dir/stderr"
    server_stop
}

CERTS=$OUT/cells/certs
case " $TRANSPORTS " in *" tls "*) bash "$ROOT/tests/integration/tls_certs.sh" "$CERTS" ;; esac
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

for round in $(seq "$ROUNDS"); do
    for transport in $TRANSPORTS; do
        for mode in $MODES; do
            for server in goblin "$BASELINE"; do run "$server" "$transport" "$mode" "$round"; done
        done
    done
done

{
    echo "date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
    echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r)"
    echo "redis-server: $("$REDIS_SERVER" --version | head -n1)"
    echo "pinning: server CPU $SERVER_CPU, redis-benchmark CPU $CLIENT_CPU"
    echo "load average (1/5/15 min): $LOAD_BEFORE before, $(cut -d' ' -f1-3 /proc/loadavg) after"
    echo "command: TESTS=$TESTS REQUESTS=$REQUESTS PIPELINE=$PIPELINE P_REQUESTS=$P_REQUESTS CLIENTS=$CLIENTS EXTRA='$EXTRA'$([ "$MODES" = "depth1 pipelined" ] || echo " MODES='$MODES'")$([ "$TRANSPORTS" = "tcp unix" ] || echo " TRANSPORTS='$TRANSPORTS'")$([ "$BASELINE" = redis ] || echo " BASELINE=$BASELINE")$([ "$ROUNDS" = 1 ] || echo " ROUNDS=$ROUNDS") bash bench/redis_benchmark.sh"
} >"$OUT/metadata.txt"
python3 "$ROOT/bench/report_redis_benchmark.py" "$OUT"
cat "$OUT/report.md"
