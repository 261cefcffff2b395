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
fail() { echo "FAIL: $*" >&2; [ -f "${log:-}" ] && tail -20 "$log" >&2; exit 1; }
command -v redis-cli >/dev/null || fail "redis-cli is required"
command -v prlimit >/dev/null || fail "prlimit (util-linux) is required"

dir=$(mktemp -d)
log="$dir/server.log"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT

# A subshell with a hard limit of 64: the server cannot raise it.
(ulimit -Sn 64; ulimit -Hn 64; exec "$bin" --port "$port" --mlockall no >"$log" 2>&1) &
pid=$!
for _ in $(seq 100); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.05; done
[ "$(redis-cli -p "$port" PING)" = PONG ] || fail "server did not start"

[ "$(grep -c 'maxclients reduced to 32' "$log")" -eq 1 ] || fail "no single warning about maxclients"
[ "$(redis-cli -p "$port" CONFIG GET maxclients | tail -1)" = 32 ] || fail "maxclients not lowered"

# Hold 32 clients: the next one is refused.
fds=()
for _ in $(seq 32); do exec {fd}<>"/dev/tcp/127.0.0.1/$port"; fds+=("$fd"); done
sleep 0.2
out=$(redis-cli -p "$port" PING 2>&1 || true)
grep -q "max number of clients reached" <<<"$out" || fail "client 33 was not refused: $out"
for fd in "${fds[@]}"; do exec {fd}>&-; done
sleep 0.2
[ "$(redis-cli -p "$port" PING)" = PONG ] || fail "not serving after clients left"

# Run-time EMFILE: lower the limit under the server so that accept() fails
# while connections are pending; a held client keeps being served.
exec {held}<>"/dev/tcp/127.0.0.1/$port"
printf 'PING\r\n' >&"$held"
read -r -t 5 line <&"$held" && [ "${line%$'\r'}" = "+PONG" ] || fail "held client not served"
used=$(ls "/proc/$pid/fd" | wc -l)
prlimit --pid "$pid" --nofile=$((used + 2)):64
fds=()
for _ in $(seq 10); do exec {fd}<>"/dev/tcp/127.0.0.1/$port"; fds+=("$fd"); done
sleep 2 # clients wait in the backlog; the listener backs off meanwhile
for _ in 1 2 3; do
  printf 'PING\r\n' >&"$held"
  read -r -t 5 line <&"$held" && [ "${line%$'\r'}" = "+PONG" ] || fail "held client starved"
done
failures=$(grep -c "accept on" "$log" || true)
[ "$failures" -ge 1 ] || fail "accept failure not logged"
[ "$failures" -le 3 ] || fail "accept failure logged $failures times in 2 s"
kill -0 "$pid" || fail "server died"

# Descriptors back: pending clients are accepted once the listener resumes.
prlimit --pid "$pid" --nofile=64:64
for fd in "${fds[@]}"; do exec {fd}>&-; done
sleep 0.3
[ "$(redis-cli -p "$port" PING)" = PONG ] || fail "not accepting after the limit was raised"
exec {held}>&-

kill "$pid"
wait "$pid" || fail "server exited with status $?"
pid=""
echo "fd limit: ok"
