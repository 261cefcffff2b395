#!/usr/bin/env bash
# geo.sh — GEOSEARCH ... BYRADIUS over a large GEO set, goblin-core vs
# redis-server in one run.
#
# Both servers are started (pinned to SERVER_CPU, one after the other on
# the same CPU: only one is ever busy) and loaded with the same MEMBERS
# points (bench/geo_points.py: seeded, uniform over lon [-10, 10] x lat
# [35, 55]) through redis-cli --pipe. Before timing, each query's reply is
# compared between the two servers (they must be byte-identical). Then for
# ROUNDS rounds, each query runs on each server (the order alternating
# between rounds) as redis-benchmark -c 1 -n REQUESTS over TCP (depth
# one), pinned to CLIENT_CPU; the server's own time per call is read from
# INFO commandstats (CONFIG RESETSTAT before each cell).
#
# Environment (defaults in brackets):
#   MEMBERS   1000000     points in the set
#   REQUESTS  2000        requests per cell
#   ROUNDS    5           rounds (the report gives medians over them)
#   RADII     "1 100"     radii in km of GEOSEARCH geo FROMLONLAT 2.35 48.85 BYRADIUS R km
#   SERVER_CPU 1, CLIENT_CPU 0
#   RESULTS_ROOT <repo>/results
# Writes results/<timestamp>-geo/{raw/<server>-r<R>km.r<k>.csv (redis-benchmark
# --csv), raw/<server>-r<R>km.r<k>.usec (usec_per_call), raw/load.tsv,
# metadata.txt, report.md}; report.md by bench/report_geo.py.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"
MEMBERS=${MEMBERS:-1000000}
REQUESTS=${REQUESTS:-2000}
ROUNDS=${ROUNDS:-5}
RADII=${RADII:-"1 100"}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-geo
mkdir -p "$OUT/raw" "$OUT/cells"
POINTS=$OUT/cells/points.resp
python3 "$ROOT/bench/geo_points.py" "$MEMBERS" >"$POINTS"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

declare -A PORT PID
cleanup() {
    for s in "${!PID[@]}"; do SERVER_PID=${PID[$s]} server_stop || true; done
    rm -f "$POINTS"
}
trap cleanup EXIT
printf 'server\tload_seconds\tmembers\n' >"$OUT/raw/load.tsv"
for s in goblin redis; do
    server_start "$s" "$SERVER_CPU" "$OUT/cells/$s"
    PORT[$s]=$SERVER_PORT
    PID[$s]=$SERVER_PID
    start=$(date +%s.%N)
    redis-cli -p "$SERVER_PORT" --pipe <"$POINTS" >"$OUT/cells/$s/load.out"
    end=$(date +%s.%N)
    members=$(redis-cli -p "$SERVER_PORT" ZCARD geo)
    [ "$members" = "$MEMBERS" ] || { echo "geo.sh: $s holds $members members, not $MEMBERS" >&2; exit 1; }
    printf '%s\t%.2f\t%s\n' "$s" "$(echo "$end - $start" | bc)" "$members" >>"$OUT/raw/load.tsv"
done

query() { echo GEOSEARCH geo FROMLONLAT 2.35 48.85 BYRADIUS "$1" km; }
# The servers must agree before they are timed.
for r in $RADII; do
    # shellcheck disable=SC2046
    for s in goblin redis; do redis-cli -p "${PORT[$s]}" $(query "$r") >"$OUT/cells/$s/reply-$r.txt"; done
    cmp -s "$OUT/cells/goblin/reply-$r.txt" "$OUT/cells/redis/reply-$r.txt" ||
        { echo "geo.sh: the replies to '$(query "$r")' differ" >&2; exit 1; }
    echo "$r km: $(grep -c . "$OUT/cells/goblin/reply-$r.txt" || true) members" >>"$OUT/cells/replies.txt"
done

for round in $(seq "$ROUNDS"); do
    order=(goblin redis)
    [ $((round % 2)) = 0 ] && order=(redis goblin)
    for r in $RADII; do
        for s in "${order[@]}"; do
            redis-cli -p "${PORT[$s]}" CONFIG RESETSTAT >/dev/null
            # shellcheck disable=SC2046
            taskset -c "$CLIENT_CPU" redis-benchmark -p "${PORT[$s]}" -c 1 -n "$REQUESTS" --csv \
                $(query "$r") >"$OUT/raw/$s-r${r}km.r$round.csv" 2>/dev/null
            redis-cli -p "${PORT[$s]}" INFO commandstats | tr -d '\r' |
                sed -n 's/^cmdstat_geosearch:.*usec_per_call=\([0-9.]*\).*/\1/p' \
                    >"$OUT/raw/$s-r${r}km.r$round.usec"
        done
    done
done

{
    echo "report: geo"
    echo "date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
    echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r)"
    echo "redis-server: $("$REDIS_SERVER" --version | head -n1)"
    echo "pinning: servers CPU $SERVER_CPU, redis-benchmark CPU $CLIENT_CPU"
    echo "load average (1/5/15 min): $LOAD_BEFORE before, $(cut -d' ' -f1-3 /proc/loadavg) after"
    echo "results: $(paste -sd';' "$OUT/cells/replies.txt") (identical on both servers)"
    echo "radii: $RADII"
    echo "command: MEMBERS=$MEMBERS REQUESTS=$REQUESTS ROUNDS=$ROUNDS RADII='$RADII' bash bench/geo.sh"
} >"$OUT/metadata.txt"
python3 "$ROOT/bench/report_geo.py" "$OUT"
cat "$OUT/report.md"
