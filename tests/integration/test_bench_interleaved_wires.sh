#!/usr/bin/env bash
# Integration: bench/interleaved.sh with WIRES=resp,sbe (tiny counts, goblin
# over a Unix socket and a ring, PING): per op, one matrix run whose RESP and SBE
# cells both measured against one shared server process (SHARE_SERVER=1:
# one server log per server x transport, none per cell), and a report with a
# goblin-resp and a goblin-sbe column per transport.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${GOBLIN_BUILD_DIR:?}"
TMP=$(mktemp -d /tmp/goblin-bench-il-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

SERVERS=goblin TRANSPORTS=unix,ring WIRES=resp,sbe OPS=PING ROUNDS=2 SAMPLES=100 WARMUP=10 \
    SERVER_CPU= CLIENT_CPU= RESULTS_ROOT=$TMP BUILD_DIR=$GOBLIN_BUILD_DIR \
    bash "$ROOT/bench/interleaved.sh" >"$TMP/out.txt" || fail "interleaved.sh exited $?"

dirs=("$TMP"/*-interleaved/)
[ ${#dirs[@]} -eq 1 ] || fail "expected one results directory, got ${#dirs[@]}"
OUT=${dirs[0]%/}
for run in r1-01-PING r2-01-PING; do
    R=$OUT/runs/$run
    for t in unix ring; do
        for w in resp sbe; do
            grep -q "^goblin-$t-$w	goblin	$t	-	$w	-	ok	" "$R/cells.tsv" \
                || fail "$run: cell goblin-$t-$w did not measure: $(cat "$R/cells.tsv")"
            [ ! -e "$R/cells/goblin-$t-$w/server.log" ] || fail "$run: goblin-$t-$w started its own server"
        done
        # One server for both wires: it started once and served both.
        [ "$(grep -c '^# attempt' "$R/cells/goblin-$t-server/server.log")" -ge 1 ] \
            || fail "$run: no shared server for $t"
        grep -q -- '--enable-sbe' "$R/cells/goblin-$t-server/server.log" \
            || fail "$run: the shared $t server lacks --enable-sbe"
    done
    op=${run##*-}
    [ "$(grep -c ",goblin,[a-z]*,\(resp\|sbe\),na,$op," "$R/aggregate.csv")" -eq 4 ] \
        || fail "$run: want 4 rows of $op in aggregate.csv"
done
grep -q '^command: .*SHARE_SERVER=1 ' "$OUT/runs/r1-01-PING/metadata.txt" || fail "metadata lacks SHARE_SERVER"
# Round 2 runs the wires in reverse order.
[ "$(awk -F'\t' '$1 ~ /^goblin-unix-(resp|sbe)$/ { print $5 }' "$OUT/runs/r1-01-PING/cells.tsv" | paste -sd,)" = resp,sbe ] \
    || fail "round 1 wire order: $(cat "$OUT/runs/r1-01-PING/cells.tsv")"
[ "$(awk -F'\t' '$1 ~ /^goblin-unix-(resp|sbe)$/ { print $5 }' "$OUT/runs/r2-01-PING/cells.tsv" | paste -sd,)" = sbe,resp ] \
    || fail "round 2 wire order: $(cat "$OUT/runs/r2-01-PING/cells.tsv")"
R=$OUT/report.md
grep -qF '# Interleaved repeat: one operation at a time, servers and wires alternating' "$R" \
    || fail "report title"
for t in unix ring; do
    awk -v t="## $t" '$0 == t { s = 1; next } /^## / { s = 0 } s' "$R" >"$TMP/$t.md"
    grep -qF '| op | goblin-resp p50 | goblin-sbe p50 |' "$TMP/$t.md" || fail "$t: columns"
    grep -qE '^\| PING \| [0-9.]+ \| [0-9.]+ \|' "$TMP/$t.md" || fail "$t: PING row"
    grep -qF 'Round by round (2 rounds), goblin-sbe against goblin-resp:' "$TMP/$t.md" \
        || fail "$t: round comparison"
    grep -qE '^\| PING \| [0-9.]+ \([0-9.]+–[0-9.]+\) \| [0-2]/2 \| [0-2]/2 \|$' "$TMP/$t.md" \
        || fail "$t: PING round comparison row"
done
# Each figure is the median of the rounds (here: of two, their mean), recomputed
# from the runs' aggregate.csv.
want=$(awk -F, '$3 == "unix" && $4 == "resp" && $6 == "PING" { s += $10; n++ } END { printf "%.1f", s / n }' \
    "$OUT"/runs/r*-01-PING/aggregate.csv)
grep -qE "^\| PING \| $want \|" "$TMP/unix.md" || fail "unix PING p50 is not the median of the rounds ($want)"
echo "interleaved.sh WIRES=resp,sbe: OK"
