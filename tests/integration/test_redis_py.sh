#!/usr/bin/env bash
# redis-py (Debian's python3-redis) running its own transaction idioms
# against goblin-core: pipeline(transaction=True), runtime and queue-time
# errors, transaction() with WATCH retries, concurrent WATCH/MULTI/EXEC
# increments, Lock.acquire. See py/redis_py_transactions.py.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
DIR=$(mktemp -d /tmp/goblin-redis-py-XXXXXX)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

launch_server() {
    "$GOBLIN_SERVER" --port "$PORT" >"$LOG" 2>&1 &
    PID=$!
}

# Debian's interpreter: python3-redis is installed for it (not for another
# python3 that may come first on PATH).
PY=/usr/bin/python3
$PY -c 'import redis' 2>/dev/null || fail "python3-redis is not installed (apt-get install python3-redis)"

start_server launch_server
out=$(timeout 60 $PY "$(dirname "$0")/py/redis_py_transactions.py" "$PORT" 2>&1) ||
    fail "redis-py transactions: $out"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "server exited with status $rc"
rm -rf "$DIR"
echo "test_redis_py: $out" >&2
