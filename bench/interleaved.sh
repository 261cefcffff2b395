#!/usr/bin/env bash
# interleaved.sh — a repeat of the latency matrix one operation at a time,
# the servers alternating within each operation (bench/matrix.sh with
# OPS=<one op>, once per op), so slow drift of the machine (a neighbour, the
# host's frequency) lands on both servers of an op instead of on one server's
# whole block. Used when two servers are close and one matrix run cannot
# tell them apart.
#
# With several WIRES (WIRES=resp,sbe) the wires alternate the same way, and
# against one server: each op's matrix.sh run starts one server per server x
# transport (SHARE_SERVER=1, --enable-sbe) and measures every wire on it one
# after another, so RESP and SBE of an op share the process, its warm caches
# and the same minute of the machine.
#
# Environment (defaults in brackets); everything else goes to matrix.sh as is:
#   SERVERS      goblin-block,redis   the servers compared (matrix.sh names)
#   TRANSPORTS   tcp,unix
#   WIRES        resp                 the wires compared (resp, sbe)
#   SHARE_SERVER 1                    0: a fresh server per wire (matrix.sh's default)
#   OPS          the seeds' eight     one matrix.sh run per op, in this order
#   ROUNDS       1                    repeat the whole sequence; even rounds run the
#                                     WIRES in reverse order. The report then gives
#                                     each op's medians over the rounds and, for two
#                                     columns, the per-round ratios
#   SAMPLES      100000, WARMUP 10000
#   FLOORS       0
#   SERVER_CPU   1, CLIENT_CPU 0
#   RESULTS_ROOT <repo>/results
# Writes results/<timestamp>-interleaved/:
#   runs/<n>-<op>/   each matrix.sh run (runs/r<k>-<n>-<op>/ with ROUNDS > 1), complete (aggregate.csv, cells.tsv,
#                    metadata.txt, report.md, csv/, cells/)
#   report.md        bench/report_interleaved.py on runs/
# and prints report.md. Exit status 1 when any run had a failed cell.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SERVERS=${SERVERS:-goblin-block,redis}
export TRANSPORTS=${TRANSPORTS:-tcp,unix}
export WIRES=${WIRES:-resp} SHARE_SERVER=${SHARE_SERVER:-1}
OPS=${OPS:-PING,SET,GET,HSET,HGET,ZADD,ZSCORE,PUBSUB}
ROUNDS=${ROUNDS:-1}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "interleaved.sh: ROUNDS must be a positive number" >&2; exit 2; }
export SAMPLES=${SAMPLES:-100000} WARMUP=${WARMUP:-10000} FLOORS=${FLOORS:-0}
export SERVER_CPU=${SERVER_CPU-1} CLIENT_CPU=${CLIENT_CPU-0}
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-interleaved
while [ -e "$OUT" ]; do OUT=$OUT-x; done
mkdir -p "$OUT/runs"
rounds_word=
[ "$ROUNDS" -gt 1 ] && rounds_word="ROUNDS=$ROUNDS "
echo "SERVERS=$SERVERS TRANSPORTS=$TRANSPORTS WIRES=$WIRES SHARE_SERVER=$SHARE_SERVER OPS=$OPS ${rounds_word}SAMPLES=$SAMPLES WARMUP=$WARMUP FLOORS=$FLOORS SERVER_CPU=$SERVER_CPU CLIENT_CPU=$CLIENT_CPU bash bench/interleaved.sh" >"$OUT/command.txt"

# The wires in reverse order (even rounds): which wire goes first in a
# shared server's minute alternates too.
reversed_wires=$(tr ',' '\n' <<<"$WIRES" | tac | paste -sd, -)
failed=0
for round in $(seq "$ROUNDS"); do
    wires=$WIRES prefix=
    if [ "$ROUNDS" -gt 1 ]; then
        prefix=r$round-
        [ $((round % 2)) -eq 0 ] && wires=$reversed_wires
    fi
    n=0
    for op in $(tr ',' ' ' <<<"$OPS"); do
        n=$((n + 1))
        # A short directory: the servers' Unix sockets live under it (108 bytes).
        tmp=$(mktemp -d /tmp/goblin-il.XXXXXX)
        WIRES=$wires OPS=$op RESULTS_ROOT=$tmp bash "$ROOT/bench/matrix.sh" || failed=1
        # matrix.sh made one <timestamp>/ under tmp: name it by round, position and op.
        mv "$tmp"/*/ "$OUT/runs/$prefix$(printf '%02d' "$n")-$op"
        rmdir "$tmp"
    done
done

python3 "$ROOT/bench/report_interleaved.py" "$OUT"
cat "$OUT/report.md"
echo "interleaved: results in $OUT" >&2
exit "$failed"
