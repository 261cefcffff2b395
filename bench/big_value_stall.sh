#!/usr/bin/env bash
# big_value_stall.sh — how long one huge SET (and its DEL) stalls the other
# clients: issue 9, item 9.
#
# For each server (goblin-core with --mlockall no, then redis-server with
# --save ""), a fresh process is started and two separate client processes
# run against it: a pinger sending PING at depth one for PINGER_SECONDS, and,
# half a second later, a sender doing one SET of SIZE_MB MiB, a 0.5 s pause,
# then DEL. Printed per server: the slowest PING in flight during the last
# second before the SET's reply (the end of the transfer and the command
# itself; "<1.00" = no PING slower than 1 ms), the slowest during the DEL,
# and the overall maximum with its time. PINGER_SECONDS must cover the
# transfer.
#
# Usage: bench/big_value_stall.sh [SIZE_MB] [PINGER_SECONDS] [RUNS]
#        (default 500 MiB, 30 s, 1 run per server)
# Binaries: GOBLIN_SERVER (default build/goblin-core), REDIS_SERVER.
set -euo pipefail

SIZE_MB=${1:-500}
SECONDS_PING=${2:-30}
RUNS=${3:-1}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d /tmp/goblin-stall.XXXXXX)
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"
PY=$ROOT/bench/big_value_stall.py

cleanup() {
    server_stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

for kind in goblin redis; do
    for run in $(seq 1 "$RUNS"); do
        if [ "$kind" = goblin ]; then
            server_start goblin "" "$WORK/$kind" --mlockall no
            label="goblin-core ($GOBLIN_SERVER)"
        else
            server_start redis "" "$WORK/$kind"
            label="redis-server ($("$REDIS_SERVER" --version | awk '{print $3}'))"
        fi
        echo "== $label, SET of $SIZE_MB MiB, run $run"
        python3 "$PY" ping "$SERVER_PORT" "$SECONDS_PING" "$WORK/pings" &
        pinger=$!
        sleep 0.5
        python3 "$PY" send "$SERVER_PORT" "$SIZE_MB" "$WORK/sends"
        wait "$pinger"
        python3 "$PY" report "$WORK/pings" "$WORK/sends"
        server_stop || true
    done
done
