#!/usr/bin/env bash
# Integration: descriptor limits. Started under a low `ulimit -n`, the server
# lowers maxclients to what the limit allows with one warning (as Redis does)
# and refuses clients past it with Redis's error. When accept() itself runs
# out of descriptors at run time (the limit lowered under the running
# server with prlimit), the listener backs off: the log gets a bounded
# number of lines instead of one per failed accept, existing clients are
# served, and accepting resumes once descriptors are free again.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
DIR=$(mktemp -d)
LOG="$DIR/server.log"
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
command -v redis-cli >/dev/null || fail "redis-cli is required"
command -v prlimit >/dev/null || fail "prlimit (util-linux) is required"
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"; }
trap cleanup EXIT

# A subshell with a hard limit of 64: the server cannot raise it.
launch_server() {
    (ulimit -Sn 64; ulimit -Hn 64; exec "$bin" --port "$PORT" --mlockall no --save "" >"$LOG" 2>&1) &
    PID=$!
}
start_server launch_server

[ "$(grep -c 'maxclients reduced to 32' "$LOG")" -eq 1 ] || fail "no single warning about maxclients"
[ "$(redis-cli -p "$PORT" CONFIG GET maxclients | tail -1)" = 32 ] || fail "maxclients not lowered"

# Hold 32 clients: the next one is refused.
fds=()
for _ in $(seq 32); do exec {fd}<>"/dev/tcp/127.0.0.1/$PORT"; fds+=("$fd"); done
sleep 0.2
out=$(redis-cli -p "$PORT" PING 2>&1 || true)
grep -q "max number of clients reached" <<<"$out" || fail "client 33 was not refused: $out"
for fd in "${fds[@]}"; do exec {fd}>&-; done
sleep 0.2
[ "$(redis-cli -p "$PORT" PING)" = PONG ] || fail "not serving after clients left"

# Run-time EMFILE: lower the limit under the server so that accept() fails
# while connections are pending; a held client keeps being served.
exec {held}<>"/dev/tcp/127.0.0.1/$PORT"
printf 'PING\r\n' >&"$held"
read -r -t 5 line <&"$held" && [ "${line%$'\r'}" = "+PONG" ] || fail "held client not served"
used=$(ls "/proc/$PID/fd" | wc -l)
prlimit --pid "$PID" --nofile=$((used + 2)):64
fds=()
for _ in $(seq 10); do exec {fd}<>"/dev/tcp/127.0.0.1/$PORT"; fds+=("$fd"); done
sleep 2 # clients wait in the backlog; the listener backs off meanwhile
for _ in 1 2 3; do
  printf 'PING\r\n' >&"$held"
  read -r -t 5 line <&"$held" && [ "${line%$'\r'}" = "+PONG" ] || fail "held client starved"
done
failures=$(grep -c "accept on" "$LOG" || true)
[ "$failures" -ge 1 ] || fail "accept failure not logged"
[ "$failures" -le 3 ] || fail "accept failure logged $failures times in 2 s"
kill -0 "$PID" || fail "server died"

# Descriptors back: pending clients are accepted once the listener resumes.
prlimit --pid "$PID" --nofile=64:64
for fd in "${fds[@]}"; do exec {fd}>&-; done
sleep 0.3
[ "$(redis-cli -p "$PORT" PING)" = PONG ] || fail "not accepting after the limit was raised"
exec {held}>&-

kill "$PID"
wait "$PID" || fail "server exited with status $?"
PID=""
echo "fd limit: ok"
