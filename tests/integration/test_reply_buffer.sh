#!/usr/bin/env bash
# Integration: reply buffers sized as Redis 7.0's (issue 30, unit/replybufsize),
# on goblin-core and on redis-server side by side: with DEBUG REPLYBUFFER
# PEAK-RESET-TIME 100 an idle client's buffer (CLIENT LIST rbs) shrinks from
# 16 KB to between 1 KB and 2 KB; with the peak never reset, a client
# reading a 32 KB value grows it back to 16 KB (not beyond); INFO stats
# counts the shrinks and expands; DEBUG REPLYBUFFER's errors as Redis's.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
redis="${REDIS_SERVER:-/usr/bin/redis-server}"
DIR=$(mktemp -d)
LOG=$DIR/g.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
[ -x "$redis" ] || fail "redis-server is required ($redis)"
RPID=
IDLE=
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; [ -n "$RPID" ] && kill -9 "$RPID" 2>/dev/null;
      [ -n "$IDLE" ] && kill "$IDLE" 2>/dev/null; rm -rf "$DIR"' EXIT

launch() {
    "$bin" --port "$PORT" --dir "$DIR" --save "" --enable-debug-command yes >"$LOG" 2>&1 &
    PID=$!
}
start_server launch
GPORT=$PORT
RPORT=$(free_port)
"$redis" --port "$RPORT" --dir "$DIR" --save "" --enable-debug-command yes >"$DIR/r.log" 2>&1 &
RPID=$!
for _ in $(seq 1 100); do
    [ "$(redis-cli -p "$RPORT" PING 2>/dev/null)" = PONG ] && break
    sleep 0.05
done

rbs() {  # port name: the named client's rbs
    redis-cli -p "$1" CLIENT LIST | tr ' ' '\n' | awk -v n="name=$2" '
        $0 == n { found = 1 } found && /^rbs=/ { print substr($0, 5); exit }'
}
wait_rbs() {  # port name low high: waits up to 3 s for low <= rbs < high
    local v
    for _ in $(seq 1 30); do
        v=$(rbs "$1" "$2")
        [ -n "$v" ] && [ "$v" -ge "$3" ] && [ "$v" -lt "$4" ] && return 0
        [ -n "${5:-}" ] && redis-cli -p "$1" GET bigval >/dev/null
        sleep 0.1
    done
    echo "$v"
    return 1
}

for port in "$GPORT" "$RPORT"; do
    who=goblin-core
    [ "$port" = "$RPORT" ] && who=redis-server
    [ "$(redis-cli -p "$port" DEBUG REPLYBUFFER PEAK-RESET-TIME 100)" = OK ] ||
        fail "$who: DEBUG REPLYBUFFER PEAK-RESET-TIME"
    # An idle named client: a redis-cli reading commands from a FIFO.
    mkfifo "$DIR/fifo.$port"
    redis-cli -p "$port" <"$DIR/fifo.$port" >/dev/null &
    IDLE=$!
    exec 4>"$DIR/fifo.$port"
    echo "CLIENT SETNAME idle_client" >&4
    got=$(wait_rbs "$port" idle_client 1024 2046) || fail "$who: idle client's rbs is $got"
    redis-cli -p "$port" SET bigval "$(head -c 32768 /dev/zero | tr '\0' x)" >/dev/null
    [ "$(redis-cli -p "$port" DEBUG REPLYBUFFER PEAK-RESET-TIME never)" = OK ] ||
        fail "$who: PEAK-RESET-TIME never"
    for _ in $(seq 1 30); do
        echo "GET bigval" >&4
        v=$(rbs "$port" idle_client)
        [ "$v" -ge 16384 ] && break
        sleep 0.1
    done
    [ "$v" -ge 16384 ] && [ "$v" -lt 32768 ] || fail "$who: busy client's rbs is $v"
    exec 4>&-
    wait "$IDLE" 2>/dev/null || true
    IDLE=
    info=$(redis-cli -p "$port" INFO stats | tr -d '\r')
    grep -q "^reply_buffer_shrinks:[1-9]" <<<"$info" || fail "$who: no reply_buffer_shrinks"
    grep -q "^reply_buffer_expands:[1-9]" <<<"$info" || fail "$who: no reply_buffer_expands"
    [ "$(redis-cli -p "$port" DEBUG REPLYBUFFER PEAK-RESET-TIME reset)" = OK ] ||
        fail "$who: PEAK-RESET-TIME reset"
done

for args in "PEAK-RESET-TIME abc" "BOGUS 1" "RESIZING 0" "PEAK-RESET-TIME"; do
    # shellcheck disable=SC2086
    g=$(redis-cli -p "$GPORT" DEBUG REPLYBUFFER $args 2>&1)
    # shellcheck disable=SC2086
    r=$(redis-cli -p "$RPORT" DEBUG REPLYBUFFER $args 2>&1)
    [ "$g" = "$r" ] || fail "DEBUG REPLYBUFFER $args: '$g', redis-server '$r'"
done
echo "reply_buffer: ok"
