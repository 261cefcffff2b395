#!/usr/bin/env bash
# redis-py (Debian's python3-redis) running its own transaction idioms
# against goblin-core: pipeline(transaction=True), runtime and queue-time
# errors, transaction() with WATCH retries, concurrent WATCH/MULTI/EXEC
# increments, Lock.acquire. See py/redis_py_transactions.py.
# Then its stream API and a stream job queue (py/redis_py_streams.py), and
# RQ (Debian's python3-rq: a burst worker storing each job's result in a
# stream inside MULTI, py/rq_jobs.py), run against goblin-core and against
# redis-server: the two transcripts of each must be identical.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
DIR=$(mktemp -d /tmp/goblin-redis-py-XXXXXX)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

launch_server() {
    "$GOBLIN_SERVER" --port "$PORT" >"$LOG" 2>&1 &
    PID=$!
}
launch_redis() {
    mkdir -p "$DIR/redis"
    "$REDIS_SERVER" --port "$PORT" --save "" --appendonly no --dir "$DIR/redis" >"$DIR/redis.log" 2>&1 &
    PID=$!
}

# Debian's interpreter: python3-redis is installed for it (not for another
# python3 that may come first on PATH).
PY=/usr/bin/python3
$PY -c 'import redis' 2>/dev/null || fail "python3-redis is not installed (apt-get install python3-redis)"
$PY -c 'import rq' 2>/dev/null || fail "python3-rq is not installed (apt-get install python3-rq)"

# run_apps SIDE: the transcript scripts against the server on $PORT.
run_apps() {
    timeout 120 $PY "$(dirname "$0")/py/redis_py_streams.py" "$PORT" >"$DIR/streams.$1" 2>"$DIR/streams.err" ||
        fail "redis-py streams against $1: $(cat "$DIR/streams.err")"
    timeout 120 $PY "$(dirname "$0")/py/rq_jobs.py" "$PORT" >"$DIR/rq.$1" 2>"$DIR/rq.err" ||
        fail "RQ against $1: $(cat "$DIR/rq.err")"
}

start_server launch_server
out=$(timeout 60 $PY "$(dirname "$0")/py/redis_py_transactions.py" "$PORT" 2>&1) ||
    fail "redis-py transactions: $out"
run_apps goblin

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "server exited with status $rc"

start_server launch_redis
run_apps redis
kill -TERM "$PID"
wait "$PID"
PID=
diff "$DIR/streams.redis" "$DIR/streams.goblin" >&2 ||
    fail "redis-py streams: goblin-core's transcript (>) differs from redis-server's (<)"
diff "$DIR/rq.redis" "$DIR/rq.goblin" >&2 ||
    fail "RQ: goblin-core's transcript (>) differs from redis-server's (<)"
rm -rf "$DIR"
echo "test_redis_py: $out" >&2
