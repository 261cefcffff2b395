#!/usr/bin/env bash
# notify_cost.sh BASE_BINARY [OUT_DIR] — the cost of keyspace notifications
# while disabled: SET/GET depth-one p50 over TCP of BASE_BINARY (goblin-base,
# e.g. main's build) against build/goblin-core (notifications off, the
# default) in one interleaved run (bench/interleaved.sh), then the server
# instructions per request of each (bench/instructions_per_request.sh,
# callgrind: a load-independent number) into OUT_DIR/instructions.txt.
# docs/benchmarks/2026-12-01-notify-off-before-after/ was made this way.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=${1:?usage: bench/notify_cost.sh BASE_BINARY [OUT_DIR]}
out=${2:-$ROOT/results/$(date -u +%Y%m%dT%H%M%SZ)-notify-off}
tmp=$(mktemp -d /tmp/goblin-nc.XXXXXX)
RESULTS_ROOT=$tmp GOBLIN_BASE_SERVER=$base GOBLIN_SERVER=$ROOT/build/goblin-core \
    SERVERS=goblin-base,goblin TRANSPORTS=tcp OPS=SET,GET SAMPLES=${SAMPLES:-10000} \
    WARMUP=${WARMUP:-1000} bash "$ROOT/bench/interleaved.sh"
mkdir -p "$out"
cp -r "$tmp"/*/* "$out"/
rm -rf "$tmp"
{
    echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    bash "$ROOT/bench/instructions_per_request.sh" "$base" 10000
    bash "$ROOT/bench/instructions_per_request.sh" "$ROOT/build/goblin-core" 10000
    echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/instructions.txt"
cat "$out/report.md" "$out/instructions.txt"
