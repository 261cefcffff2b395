#!/usr/bin/env bash
# Integration: a polling server never calls accept() speculatively — with a
# ring configured, with --idle-strategy spin, and with --idle-strategy
# adaptive (polling for 2 s after each connection).
# Under strace, after an idle period of spinning and three TCP connections,
# the server must have made exactly three accept4 calls, none failing with
# EAGAIN (seed 000: failing accept()s in a spin loop caused millisecond RCU
# stalls).
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
# Without ptrace (a locked-down container) the syscalls cannot be counted:
# report a skip (CTest SKIP_RETURN_CODE 77), not a pass.
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
    echo "SKIP: strace cannot trace here (ptrace not permitted)"
    exit 77
fi
cli="${GOBLIN_BUILD_DIR:?}/goblin-cli"
dir=$(mktemp -d /dev/shm/goblin-accept-XXXXXX)
pid= server=
cleanup() {
    [ -n "$server" ] && kill -9 "$server" 2>/dev/null
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
check_mode() {  # check_mode NAME SERVER-FLAGS...
    local name=$1
    shift
    trace=$dir/strace-$name.txt
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

    strace -f -qq -e trace=accept,accept4 -o "$trace" \
        "$bin" --port "$port" --mlockall no --save "" "$@" \
        >"$dir/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 500); do "$cli" -p "$port" PING >/dev/null 2>&1 && break; sleep 0.02; done
    server=$(pgrep -P "$pid" | head -n 1) # the traced server, child of strace
    sleep 1 # the loop spins and makes ~50,000 socket passes meanwhile
    for i in 1 2; do [ "$("$cli" -p "$port" PING)" = PONG ] || { echo "FAIL: PING $i"; exit 1; }; done
    kill -TERM "$server"
    wait "$pid" || true # strace exits with its tracee
    pid= server=
    calls=$(grep -cE 'accept4?\(' "$trace" || true)
    failed=$(grep -E 'accept4?\(' "$trace" | grep -c 'EAGAIN' || true)
    # Readiness probe (first successful PING) + two PINGs = 3 connections; the
    # probe loop may have connected before the listener existed only by failing
    # to connect, which makes no accept call.
    if [ "$failed" -ne 0 ] || [ "$calls" -ne 3 ]; then
        echo "FAIL: $calls accept calls ($failed EAGAIN); expected exactly 3, none failing"
        cat "$trace"
        exit 1
    fi
    echo "accept only when readable ($name): ok ($calls calls)"
}

check_mode ring --ring "$dir/r.ring" 16k --socket-poll-interval-us 20
check_mode spin --idle-strategy spin
check_mode adaptive --idle-strategy adaptive --idle-spin-us 2000000
