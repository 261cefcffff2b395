#!/usr/bin/env bash
# redis-py (Debian python3-redis) pipeline().execute() of 1M SETs and of
# 300k GETs of 1 KB values completes against goblin-core: the client writes
# the whole batch before reading a reply, which deadlocked a server that
# stopped reading under output backpressure (docs/flow-control.md). The
# server's RSS stays bounded (its own requests held unexecuted, not
# replies).
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
DIR=$(mktemp -d /tmp/goblin-flow-py-XXXXXX)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

launch_server() {
    "$GOBLIN_SERVER" --port "$PORT" --save "" --dir "$DIR" >"$LOG" 2>&1 &
    PID=$!
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status"; }

start_server launch_server
before=$(rss_kb)
# Debian's interpreter, where python3-redis is installed.
out=$(timeout 300 /usr/bin/python3 "$(dirname "$0")/flow_pipeline.py" "$PORT" 2>&1) ||
    fail "redis-py pipelines: $out"
[ "$out" = ok ] || fail "redis-py pipelines: $out"
after=$(rss_kb)
echo "server RSS ${before} kB -> ${after} kB"
[ $((after - before)) -lt $((192 * 1024)) ] || fail "server RSS grew from ${before} to ${after} kB"
kill "$PID"
wait "$PID" || fail "server exited with status $?"
rm -rf "$DIR"
echo "flow control (python): ok"
