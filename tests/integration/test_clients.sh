#!/usr/bin/env bash
# Real Redis command-line clients against goblin-core, over TCP and a Unix
# socket: redis-cli one-shot commands with their output checked, and
# redis-benchmark (SET, GET, INCR, MSET) completing without errors.
#
# The script starts its own server on a free loopback port, stops it by PID
# at the end and requires it to exit with status 0. Every client runs under
# `timeout`, so a hang fails the test instead of stalling CI.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
DIR=$(mktemp -d /tmp/goblin-clients-XXXXXX)
SOCK=$DIR/goblin.sock
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

launch_server() {
    "$GOBLIN_SERVER" --port "$PORT" --unixsocket "$SOCK" --save "" >"$LOG" 2>&1 &
    PID=$!
}

# expect <what> <expected output> <redis-cli args...>
expect() {
    local what=$1 want=$2
    shift 2
    local got
    got=$(timeout 10 redis-cli "$@" 2>&1) || fail "$what: redis-cli $* exited with $?: $got"
    [ "$got" = "$want" ] || fail "$what: redis-cli $*: got '$got', expected '$want'"
}

# expect_match <what> <extended regex> <redis-cli args...>
expect_match() {
    local what=$1 pattern=$2
    shift 2
    local got
    got=$(timeout 10 redis-cli "$@" 2>&1) || fail "$what: redis-cli $* exited with $?: $got"
    [[ "$got" =~ $pattern ]] || fail "$what: redis-cli $*: got '$got', expected /$pattern/"
}

# One-shot redis-cli commands over one transport (args select it).
cli_round() {
    local via=$1
    shift
    expect "$via" "OK" "$@" FLUSHALL
    expect "$via" "OK" "$@" SET greeting "hello world"
    expect "$via" "hello world" "$@" GET greeting
    expect "$via" "" "$@" GET missing
    expect "$via" "1" "$@" INCR counter
    expect "$via" "2" "$@" INCR counter
    expect "$via" "12" "$@" INCRBY counter 10
    expect "$via" "OK" "$@" MSET a 1 b 2 c three
    expect "$via" $'1\n2\n\nthree' "$@" MGET a b missing c
    expect "$via" "-1" "$@" TTL a
    expect "$via" "-2" "$@" TTL missing
    expect "$via" "1" "$@" EXPIREAT a 4102444800
    expect "$via" "4102444800" "$@" EXPIRETIME a
    expect_match "$via" '^[1-9][0-9]*$' "$@" TTL a
    expect "$via" "ERR value is not an integer or out of range" "$@" INCR greeting
    expect "$via" "ERR wrong number of arguments for 'get' command" "$@" GET
}

check_benchmark() {
    local via=$1
    shift
    local out
    out=$(timeout 300 redis-benchmark "$@" -t set,get,incr,mset -n 20000 -q 2>&1)
    local rc=$?
    [ $rc -eq 0 ] || fail "redis-benchmark over $via exited with $rc: $out"
    # -q prints progress with carriage returns; keep the final lines.
    out=$(printf '%s' "$out" | tr '\r' '\n')
    for test in "SET" "GET" "INCR" "MSET (10 keys)"; do
        printf '%s\n' "$out" | grep -q "^$test: [0-9.]* requests per second" ||
            fail "redis-benchmark over $via: no result line for $test in: $out"
    done
    if printf '%s\n' "$out" | grep -qiE "err|error|unexpected|refused|reset"; then
        fail "redis-benchmark over $via reported an error: $out"
    fi
    printf '%s\n' "$out" | grep "requests per second" | sed "s/^/test_clients: $via: /" >&2
}

command -v redis-cli >/dev/null || fail "redis-cli is not installed"
command -v redis-benchmark >/dev/null || fail "redis-benchmark is not installed"

start_server launch_server
cli_round "tcp" -p "$PORT"
cli_round "unix" -s "$SOCK"
check_benchmark "tcp" -p "$PORT"
check_benchmark "unix" -s "$SOCK"

# The data written through one transport is visible through the other.
expect "cross" "OK" -p "$PORT" SET shared-key via-tcp
expect "cross" "via-tcp" -s "$SOCK" GET shared-key

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "server exited with status $rc"
rm -rf "$DIR"
echo "test_clients: ok (port $PORT, socket $SOCK)" >&2
