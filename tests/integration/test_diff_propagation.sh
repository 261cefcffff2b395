#!/usr/bin/env bash
# The replication stream a SYNC replica reads, goblin-core vs redis-server
# 7.0.15, command by command (tests/integration/py/repl_stream_diff.py):
# FLUSHALL/FLUSHDB of empty data, SET's expiry options as PXAT, the counts
# ZMPOP/LMPOP write, lazy expiry inside SCAN/RANDOMKEY outside a
# transaction, and waiters woken by SWAPDB/EXEC onto keys that expired.
set -u
DIR=$(mktemp -d /tmp/goblin-diff-propagation-XXXXXX)
LOG=$DIR/goblin.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
command -v "$REDIS_SERVER" >/dev/null || {
    echo "$TEST_NAME: SKIP: no redis-server"
    exit 77
}
trap 'for j in $(jobs -p); do kill "$j"; done 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT

launch_goblin() {
    "$GOBLIN_SERVER" --port "$PORT" --dir "$DIR" --save "" --enable-debug-command yes >"$LOG" 2>&1 &
    PID=$!
}
launch_redis() {
    mkdir -p "$DIR/redis"
    "$REDIS_SERVER" --port "$PORT" --dir "$DIR/redis" --save "" --enable-debug-command yes \
        >"$DIR/redis.log" 2>&1 &
    PID=$!
}
start_server launch_goblin
GPORT=$PORT GPID=$PID
start_server launch_redis
RPORT=$PORT
PID=$GPID
python3 "$(dirname "$0")/py/repl_stream_diff.py" "$GPORT" "$RPORT" || fail "the streams differ (above)"
kill -0 "$GPID" || fail "goblin-core exited"
echo "$TEST_NAME: OK"
