#!/usr/bin/env bash
# Integration: goblin-cli over TCP, the Unix socket and a ring (one-shot and
# line by line), and the placement flags (--cpu, --numa) of goblin-core.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
cli="${GOBLIN_BUILD_DIR:?}/goblin-cli"
dir=$(mktemp -d /dev/shm/goblin-cli-test-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$dir/server.log" ] && cat "$dir/server.log" >&2; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

"$bin" --port "$port" --save "" --unixsocket "$dir/s.sock" --ring "$dir/r.ring" 16k --cpu 0 --numa 0 \
    --mlockall no >"$dir/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 500); do "$cli" -p "$port" PING >/dev/null 2>&1 && break; sleep 0.02; done

expect() {  # expect WANT ARGS...
    local want=$1 got
    shift
    got=$("$cli" "$@") || fail "goblin-cli $* exited non-zero"
    [ "$got" = "$want" ] || fail "goblin-cli $*: got '$got', want '$want'"
}
expect OK -p "$port" SET k "hello world"
expect "hello world" -s "$dir/s.sock" GET k
expect "hello world" --ring "$dir/r.ring" GET k
expect '"hello world"' --ring "$dir/r.ring" --no-raw GET k
expect "(integer) 1" --ring "$dir/r.ring" --no-raw EXISTS k
expect "(nil)" -s "$dir/s.sock" --no-raw GET missing
expect "(error) ERR unknown command 'NOPE', with args beginning with: " -p "$port" --no-raw NOPE
# Line by line over the ring: quoting as redis-cli's, one reply per line.
out=$(printf 'SET q "two words"\nGET q\nDEL q\n' | "$cli" --ring "$dir/r.ring")
[ "$out" = $'OK\ntwo words\n1' ] || fail "piped ring session printed: $out"
# The ring is free again once each goblin-cli exits.
expect PONG --ring "$dir/r.ring" PING

kill -TERM "$pid"
wait "$pid" || fail "server exited non-zero"
pid=

# Placement errors name the flag.
out=$("$bin" --port 0 --unixsocket "$dir/x.sock" --numa 999 2>&1) && fail "--numa 999 started"
grep -q -- "--numa 999" <<<"$out" || fail "--numa error does not name the flag: $out"
out=$("$bin" --port 0 --unixsocket "$dir/x.sock" --cpu 4095 2>&1) && fail "--cpu 4095 started"
grep -q -- "--cpu 4095" <<<"$out" || fail "--cpu error does not name the flag: $out"
echo "goblin-cli and placement: ok"
