#!/usr/bin/env bash
# sbe_auth_latency.sh BASE_BUILD [ROUNDS] — SBE depth-one p50 of a build
# before SBE authentication (BASE_BUILD: its goblin-core and goblin-bench,
# no password) against this tree's build, once without a password and once
# with --requirepass (the session sends its Auth frame once, before the
# measured requests). The three servers alternate within each round, op by
# op, so drift of the machine lands on all three; each cell is a fresh
# server and a goblin-bench run of SAMPLES (default 50000) after WARMUP
# (5000). Transports: TRANSPORTS (default unix,tcp,ring); ops: OPS (default
# PING,GET,SET). Writes results/<timestamp>-sbe-auth/raw.csv (goblin-bench
# CSV rows, label = round:config), metadata.txt and report.md
# (bench/report_sbe_auth.py: median over rounds of each cell's p50, in
# microseconds; also instructions.out when added beside raw.csv) and
# prints the report.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE=${1:?usage: bench/sbe_auth_latency.sh BASE_BUILD [ROUNDS]}
ROUNDS=${2:-5}
NEW=${BUILD_DIR:-$ROOT/build}
SAMPLES=${SAMPLES:-50000} WARMUP=${WARMUP:-5000}
TRANSPORTS=${TRANSPORTS:-unix,tcp,ring} OPS=${OPS:-PING,GET,SET}
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-sbe-auth
mkdir -p "$OUT"
{
    echo "report: sbe-auth"
    echo "command: BUILD_DIR=$NEW SAMPLES=$SAMPLES WARMUP=$WARMUP TRANSPORTS=$TRANSPORTS OPS=$OPS bash bench/sbe_auth_latency.sh $BASE $ROUNDS"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "machine: nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "after: this tree at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo ?) ($NEW); before: $BASE"
} >"$OUT/metadata.txt"
raw=$OUT/raw.csv
first=1
run_cell() { # round config build password transport op
    local round=$1 cfg=$2 build=$3 pw=$4 t=$5 op=$6 d port
    d=$(mktemp -d)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    local -a srv=(--port "$port" --save "" --dir "$d" --enable-sbe --mlockall no
                  --unixsocket "$d/s.sock" --ring "$d/a.ring" 64k) cli=()
    [ -n "$pw" ] && srv+=(--requirepass "$pw") && cli+=(-a "$pw")
    "$build/goblin-core" "${srv[@]}" >"$d/log" 2>&1 &
    local pid=$!
    for _ in $(seq 300); do redis-cli -p "$port" PING 2>/dev/null | grep -q . && break; sleep 0.05; done
    case $t in
    unix) cli+=(--socket "$d/s.sock") ;;
    ring) cli+=(--ring "$d/a.ring") ;;
    esac
    "$build/goblin-bench" --transport "$t" --wire sbe --ops "$op" --port "$port" \
        --samples "$SAMPLES" --warmup "$WARMUP" --label "$round:$cfg" --server-name "$cfg" \
        --csv "$d/out.csv" "${cli[@]}" >/dev/null
    if [ $first = 1 ]; then head -1 "$d/out.csv" >"$raw"; first=0; fi
    tail -n +2 "$d/out.csv" >>"$raw"
    kill -INT "$pid"; wait "$pid" || true
    rm -rf "$d"
}
for round in $(seq "$ROUNDS"); do
    for t in ${TRANSPORTS//,/ }; do
        for op in ${OPS//,/ }; do
            run_cell "$round" before "$BASE" "" "$t" "$op"
            run_cell "$round" after "$NEW" "" "$t" "$op"
            run_cell "$round" after-auth "$NEW" secret "$t" "$op"
        done
    done
done
python3 "$ROOT/bench/report_sbe_auth.py" "$OUT"
cat "$OUT/metadata.txt" "$OUT/report.md"
