#!/usr/bin/env bash
# Integration: bench/matrix.sh with tiny counts against redis-server only
# (plus the echo floors) produces the whole results directory: one CSV per
# cell, the aggregate CSV, metadata.txt, report.md ranking the
# configurations by the average of their per-op p50s, and the PNG plots
# report.md references.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${GOBLIN_BUILD_DIR:?}"
TMP=$(mktemp -d /tmp/goblin-bench-matrix-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

SERVERS=redis TRANSPORTS=tcp,unix SAMPLES=300 WARMUP=30 RESULTS_ROOT=$TMP \
    BUILD_DIR=$GOBLIN_BUILD_DIR bash "$ROOT/bench/matrix.sh" \
    || fail "matrix.sh exited $?"

dirs=("$TMP"/*/)
[ ${#dirs[@]} -eq 1 ] || fail "expected one results directory, got ${#dirs[@]}"
OUT=${dirs[0]%/}
echo "results: $OUT"

header='label,server,transport,wire,send_mode,op,samples,warmup,min_us,p50_us,p75_us,p90_us,p95_us,p99_us,p999_us,p9999_us,max_us,mean_us,ops_per_sec'
for cell in floor-tcp floor-unix redis-tcp-resp redis-unix-resp; do
    f=$OUT/csv/$cell.csv
    [ -s "$f" ] || fail "missing $f"
    [ "$(head -n 1 "$f")" = "$header" ] || fail "$f: wrong header"
done
[ "$(wc -l <"$OUT/csv/floor-tcp.csv")" -eq 2 ] || fail "floor CSV should hold one ECHO row"
grep -q '^floor-unix,floor,unix,resp,na,ECHO,300,30,' "$OUT/csv/floor-unix.csv" || fail "floor row"
[ "$(head -n 1 "$OUT/aggregate.csv")" = "$header" ] || fail "aggregate header"
# 2 floors x 1 op + 2 redis configurations x 8 ops, one header.
[ "$(wc -l <"$OUT/aggregate.csv")" -eq 19 ] || fail "aggregate.csv: $(wc -l <"$OUT/aggregate.csv") lines, want 19"
[ "$(grep -c '^redis-' "$OUT/aggregate.csv")" -eq 16 ] || fail "aggregate.csv: redis rows"

for key in date_utc commit kernel cpu_model cpus_online governor_server_cpu clocksource \
    redis_server libfabric command; do
    grep -q "^$key: ." "$OUT/metadata.txt" || fail "metadata.txt lacks $key"
done
grep -q '^command: .*SAMPLES=300 WARMUP=30 .*bash bench/matrix.sh' "$OUT/metadata.txt" \
    || fail "metadata.txt: command line"
awk -F'\t' 'NR > 1 && $7 != "ok" { bad = 1 } END { exit bad }' "$OUT/cells.tsv" \
    || fail "a cell did not measure: $(cat "$OUT/cells.tsv")"

R=$OUT/report.md
for section in '## Ranking' '## Transport floors' '## Operation latency: p50 / p99.99' \
    '## p50 ratios per operation' '## Plots' '## Cells'; do
    grep -qF "$section" "$R" || fail "report.md lacks '$section'"
done

# The ranking must order the configurations by the arithmetic average of
# their per-op p50s, computed here independently from aggregate.csv.
expected=$(awk -F, 'NR > 1 && $2 != "floor" { s[$1] += $10; n[$1]++ }
    END { for (l in s) printf "%s %.2f\n", l, s[l] / n[l] }' "$OUT/aggregate.csv" |
    sort -k2,2g -k1,1 | awk '{ printf "%d %s %s\n", NR, $1, $2 }')
ranked=$(grep -E '^\| [0-9]+ \| ' "$R" | awk -F' \\| ' '{ gsub(/^\| /, "", $1); print $1, $2, $8 }')
[ "$expected" = "$ranked" ] || fail "ranking differs:
expected:
$expected
report.md:
$ranked"
# Ratios: redis to itself is 1.00x; to its floor, its p50 over the floor's.
grep -E '^\| 1 \| redis-' "$R" | grep -q '| 1.00× |$' || fail "redis ÷ redis should be 1.00×"

for png in average_p50 percentiles_PING percentiles_SET percentiles_GET percentiles_HSET \
    percentiles_HGET percentiles_ZADD percentiles_ZSCORE percentiles_PUBSUB; do
    f=$OUT/plots/$png.png
    [ -s "$f" ] || fail "missing plot $f"
    [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$f is not a PNG"
    grep -qF "(plots/$png.png)" "$R" || fail "report.md does not reference $png.png"
done
echo "matrix.sh: OK"

# The ring floor (matrix.sh runs it for ring cells): its three modes, each
# with every round trip checked (RECORD compares each echoed record with
# what it sent and exits 1 on a difference).
"$GOBLIN_BUILD_DIR/goblin-cacheline-floor" --samples 300 --warmup 30 --csv "$TMP/ring-floor.csv" \
    >"$TMP/ring-floor.txt" || fail "goblin-cacheline-floor exited $?"
for op in LINE ECHO RECORD; do
    grep -q "^floor-ring,floor,ring,resp,na,$op,300,30," "$TMP/ring-floor.csv" \
        || fail "ring floor CSV lacks $op: $(cat "$TMP/ring-floor.csv")"
done
echo "goblin-cacheline-floor: OK"

# A ring cell: the ring floor runs before the cells and again after them,
# and the report says when the two disagree (the host moved the vCPUs).
SERVERS=goblin TRANSPORTS=ring WIRES=resp OPS=PING SAMPLES=200 WARMUP=20 SERVER_CPU= CLIENT_CPU= \
    RESULTS_ROOT=$TMP/ring BUILD_DIR=$GOBLIN_BUILD_DIR bash "$ROOT/bench/matrix.sh" \
    || fail "ring matrix.sh exited $?"
RING=$(echo "$TMP"/ring/*/)
[ "$(cut -f1,7 "$RING/cells.tsv" | tail -n +2 | paste -sd' ')" = \
    "floor-ring	ok goblin-ring-resp	ok floor-ring-after	ok" ] || fail "ring cells: $(cat "$RING/cells.tsv")"
grep -q '^| floor-ring-after | ring |' "$RING/report.md" || fail "report lacks the after floor"
# Same placement in this run's two floors unless the host moved the vCPUs:
# double the after floor's ECHO p50 and the report must flag it.
python3 - "$RING/aggregate.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["label"] == "floor-ring-after" and r["op"] == "ECHO":
        r["p50_us"] = str(float(r["p50_us"]) * 2)
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
PY
python3 "$ROOT/bench/report.py" "$RING" >/dev/null || fail "report.py on the edited ring run"
grep -q '^\*\*floor-ring moved during the run\*\*: ECHO p50 ' "$RING/report.md" \
    || fail "report does not flag a floor that moved"
echo "matrix.sh ring floors: OK"
