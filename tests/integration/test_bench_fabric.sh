#!/usr/bin/env bash
# Integration: goblin-bench over the libfabric transport (tcp;ofi_rxm on
# loopback) in both its flag form and the seeds' positional form, send modes
# auto and send, every reply validated; and bench/matrix.sh with
# TRANSPORTS=fabric producing a fabric cell (send mode: forced on the server), the fi_pingpong floor
# (pingpong.tsv) and its section of report.md. Tiny counts: this checks the
# tools, it measures nothing. Skipped (77) only when fi_info reports the
# provider absent.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${GOBLIN_BUILD_DIR:?}"
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
bench=$GOBLIN_BUILD_DIR/goblin-bench
provider='tcp;ofi_rxm'
# shellcheck source=../lib/testlib.sh
source "$ROOT/tests/lib/testlib.sh"
if ! fi_info -p "$provider" -t FI_EP_RDM >/dev/null 2>&1; then
    echo "SKIP: fi_info reports provider $provider absent"
    exit 77
fi
# Short: the matrix puts Unix sockets under RESULTS_ROOT (108-byte path limit).
DIR=$(mktemp -d /tmp/gbf-XXXXXX)
LOG=$DIR/server.log
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT

boot=$(free_port)
launch() {
    "$bin" --port "$PORT" --mlockall no --save "" --dir "$DIR" --enable-sbe \
        --libfabric "$provider" 127.0.0.1 "$boot" --efa-heartbeat-timeout-ms 0 >"$LOG" 2>&1 &
    PID=$!
}
start_server launch

"$bench" --transport fabric --provider "$provider" --host 127.0.0.1 --port "$boot" \
    --ops PING,SET,GET,PUBSUB --samples 50 --warmup 5 --send-mode auto --server-name goblin \
    --csv "$DIR/flags.csv" >"$DIR/flags.txt" || fail "flag form: $(cat "$DIR/flags.txt")"
grep -q '^goblin-fabric-resp-auto,goblin,fabric,resp,auto,PUBSUB,50,5,' "$DIR/flags.csv" ||
    fail "flag form CSV: $(cat "$DIR/flags.csv")"

"$bench" fabric-resp "$provider" 127.0.0.1 "$boot" 127.0.0.1 seeds-form 40 4 send \
    >"$DIR/positional.txt" || fail "positional form: $(cat "$DIR/positional.txt")"
grep -q '^# seeds-form: .*transport fabric, wire resp, send mode send' "$DIR/positional.txt" ||
    fail "positional form header: $(head -n 1 "$DIR/positional.txt")"
[ "$(grep -c '^[A-Z]* *40 ' "$DIR/positional.txt")" -eq 8 ] ||
    fail "positional form: the eight ops: $(cat "$DIR/positional.txt")"

# The SBE wire over the fabric (the server has --enable-sbe).
"$bench" fabric-sbe "$provider" 127.0.0.1 "$boot" 127.0.0.1 sbe-form 40 4 auto \
    >"$DIR/sbe.txt" || fail "fabric-sbe positional form: $(cat "$DIR/sbe.txt")"
[ "$(grep -c '^[A-Z]* *40 ' "$DIR/sbe.txt")" -eq 8 ] ||
    fail "fabric-sbe: the eight ops: $(cat "$DIR/sbe.txt")"

# Usage errors are refusals (2), not substitutions.
rc=0
"$bench" --transport fabric --host 127.0.0.1 --port "$boot" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "--transport fabric without --provider: exit $rc, want 2"
kill "$PID"
wait "$PID" || fail "server exit status $?"
PID=

SERVERS=goblin TRANSPORTS=fabric WIRES=resp PROVIDERS="$provider" SEND_MODES=send \
    OPS=PING,GET SAMPLES=40 WARMUP=4 RESULTS_ROOT=$DIR/m BUILD_DIR=$GOBLIN_BUILD_DIR \
    bash "$ROOT/bench/matrix.sh" >"$DIR/matrix.log" 2>&1 ||
    fail "matrix.sh: $(cat "$DIR/matrix.log" "$DIR"/m/*/cells.tsv)"
OUT=$(echo "$DIR"/m/*/)
OUT=${OUT%/}
for cell in goblin-fabric-tcp+ofi_rxm-resp-send; do
    [ "$(grep -c "^$cell," "$OUT/aggregate.csv")" -eq 2 ] || fail "$cell rows in aggregate.csv"
done
grep -q $'^tcp;ofi_rxm\t64\t40\t[0-9.]*\t[0-9.]*$' "$OUT/pingpong.tsv" ||
    fail "pingpong.tsv: $(cat "$OUT/pingpong.tsv")"
grep -q '^## libfabric floors (fi_pingpong)' "$OUT/report.md" || fail "report.md: no fi_pingpong section"
grep -q 'every frame by fi_send' "$OUT/cells/goblin-fabric-tcp+ofi_rxm-resp-send/server.log" ||
    fail "send mode did not start the server with --libfabric-force-send"
echo "test_bench_fabric: ok"
