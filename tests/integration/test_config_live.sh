#!/usr/bin/env bash
# Integration: CONFIG SET of the idle-strategy knobs takes effect at once
# (it used to answer OK and change nothing). Counted in system calls, not
# time: under strace, the adaptive loop keeps polling with zero-timeout
# epoll_wait calls for idle-spin-us after a request, then sleeps in a
# blocking epoll_wait. With idle-spin-us raised to 10 s by CONFIG SET, the
# second after a PING is all zero-timeout polls; lowered back to 1 µs, it is
# a handful of calls at most.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
    echo "SKIP: strace cannot trace here (ptrace not permitted)"
    exit 77
fi
DIR=$(mktemp -d)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
command -v redis-cli >/dev/null || fail "redis-cli is required"
cleanup() {
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT
launch_server() {
    "$bin" --port "$PORT" --mlockall no --save "" --idle-strategy adaptive --idle-spin-us 1 >"$LOG" 2>&1 &
    PID=$!
}
start_server launch_server

zero_timeout_polls() {  # counts epoll_wait(..., 0) in the second after a PING
    local trace=$DIR/trace.txt
    strace -qq -e trace=epoll_wait -o "$trace" -p "$PID" &
    local tracer=$!
    sleep 0.5
    redis-cli -p "$PORT" PING >/dev/null
    sleep 1
    kill -INT "$tracer"
    wait "$tracer" 2>/dev/null || true
    grep -cE 'epoll_wait\([0-9]+, .*, [0-9]+, 0\)' "$trace" || true
}

[ "$(redis-cli -p "$PORT" CONFIG SET idle-spin-us 10000000)" = OK ] || fail "CONFIG SET"
busy=$(zero_timeout_polls)
[ "$(redis-cli -p "$PORT" CONFIG SET idle-spin-us 1)" = OK ] || fail "CONFIG SET"
redis-cli -p "$PORT" PING >/dev/null # the 10 s window is left by this request's pass
sleep 0.2
quiet=$(zero_timeout_polls)
echo "zero-timeout polls in the second after a PING: idle-spin-us 10 s: $busy; 1 us: $quiet"
[ "$busy" -ge 100 ] || fail "raising idle-spin-us did not keep the loop polling"
[ "$quiet" -le 20 ] || fail "lowering idle-spin-us did not let the loop sleep"
[ "$(redis-cli -p "$PORT" CONFIG GET socket-poll-interval-us | tail -1)" = 20 ] || fail "socket-poll-interval-us default"
[ "$(redis-cli -p "$PORT" CONFIG SET socket-poll-interval-us 50)" = OK ] || fail "CONFIG SET socket-poll-interval-us"
[ "$(redis-cli -p "$PORT" CONFIG GET socket-poll-interval-us | tail -1)" = 50 ] || fail "socket-poll-interval-us not set"
kill "$PID"
wait "$PID" || fail "server exit status $?"
PID=
echo "config live: ok"
