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
command -v redis-cli >/dev/null || { echo "FAIL: redis-cli is required"; exit 1; }
dir=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill -9 "$server" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" --port "$port" --mlockall no --idle-strategy adaptive --idle-spin-us 1 >"$dir/server.log" 2>&1 &
server=$!
for _ in $(seq 1 200); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.05; done

zero_timeout_polls() {  # counts epoll_wait(..., 0) in the second after a PING
    local trace=$dir/trace.txt
    strace -qq -e trace=epoll_wait -o "$trace" -p "$server" &
    local tracer=$!
    sleep 0.5
    redis-cli -p "$port" PING >/dev/null
    sleep 1
    kill -INT "$tracer"
    wait "$tracer" 2>/dev/null || true
    grep -cE 'epoll_wait\([0-9]+, .*, [0-9]+, 0\)' "$trace" || true
}

[ "$(redis-cli -p "$port" CONFIG SET idle-spin-us 10000000)" = OK ] || { echo "FAIL: CONFIG SET"; exit 1; }
busy=$(zero_timeout_polls)
[ "$(redis-cli -p "$port" CONFIG SET idle-spin-us 1)" = OK ] || { echo "FAIL: CONFIG SET"; exit 1; }
redis-cli -p "$port" PING >/dev/null # the 10 s window is left by this request's pass
sleep 0.2
quiet=$(zero_timeout_polls)
echo "zero-timeout polls in the second after a PING: idle-spin-us 10 s: $busy; 1 us: $quiet"
[ "$busy" -ge 100 ] || { echo "FAIL: raising idle-spin-us did not keep the loop polling"; exit 1; }
[ "$quiet" -le 20 ] || { echo "FAIL: lowering idle-spin-us did not let the loop sleep"; exit 1; }
[ "$(redis-cli -p "$port" CONFIG GET socket-poll-interval-us | tail -1)" = 20 ] || exit 1
[ "$(redis-cli -p "$port" CONFIG SET socket-poll-interval-us 50)" = OK ] || exit 1
[ "$(redis-cli -p "$port" CONFIG GET socket-poll-interval-us | tail -1)" = 50 ] || exit 1
kill "$server"
wait "$server" || { echo "FAIL: server exit status $?"; exit 1; }
server=
echo "config live: ok"
