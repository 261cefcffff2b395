#!/usr/bin/env bash
# redis-py (Debian's python3-redis) running its scripting idioms against
# goblin-core (py/redis_py_scripting.py: Lock extend/release through
# EVALSHA, register_script, functions), then redis-cli --eval with keys and
# arguments, as a user would run a script file.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
DIR=$(mktemp -d /tmp/goblin-redis-py-scripting-XXXXXX)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

launch_server() {
    "$GOBLIN_SERVER" --port "$PORT" --save "" --dir "$DIR" >"$LOG" 2>&1 &
    PID=$!
}

PY=/usr/bin/python3
$PY -c 'import redis' 2>/dev/null || fail "python3-redis is not installed (apt-get install python3-redis)"

start_server launch_server
out=$(timeout 60 $PY "$(dirname "$0")/py/redis_py_scripting.py" "$PORT" 2>&1) ||
    fail "redis-py scripting: $out"

# redis-cli --eval FILE key1 key2 , arg1 arg2
cat >"$DIR/script.lua" <<'LUA'
redis.call('set', KEYS[1], ARGV[1])
redis.call('set', KEYS[2], ARGV[2])
return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], redis.call('get', KEYS[2])}
LUA
got=$(redis-cli -p "$PORT" --eval "$DIR/script.lua" k1 k2 , a1 a2) || fail "redis-cli --eval failed"
want=$(printf 'k1\nk2\na1\na2\na2')
[ "$got" = "$want" ] || fail "redis-cli --eval: got [$got], want [$want]"
got=$(redis-cli -p "$PORT" get k1)
[ "$got" = "a1" ] || fail "redis-cli --eval did not write k1: [$got]"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "server exited with status $rc"
rm -rf "$DIR"
echo "test_redis_py_scripting: $out" >&2
