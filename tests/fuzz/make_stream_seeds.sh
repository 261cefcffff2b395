#!/usr/bin/env bash
# tests/fuzz/make_stream_seeds.sh — regenerates tests/fuzz/corpus/fuzz_stream_rdb/:
# stream values as redis-server 7.0 and goblin-core write them (DUMP
# payloads less the type byte and the version/CRC footer, behind a control
# byte of 0: type 19, default node limits): one entry, several nodes with
# tombstones, other field sets and integer fields, big values (LZF), an
# empty stream with a group, groups with pending entries and consumers.
#   tests/fuzz/make_stream_seeds.sh [GOBLIN_SERVER]   (default build/goblin-core)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
goblin="${1:-$root/build/goblin-core}"
out="$here/corpus/fuzz_stream_rdb"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$out"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 100); do redis-cli -p "$1" PING >/dev/null 2>&1 && return; sleep 0.05; done; exit 1; }

fill() {
    local c=(redis-cli -p "$1")
    "${c[@]}" CONFIG SET stream-node-max-entries 10 >/dev/null
    "${c[@]}" XADD one 1-1 f v >/dev/null
    for i in $(seq 1 60); do
        "${c[@]}" XADD nodes "$i-$((i % 3))" f "v$i" n "$i" >/dev/null
        [ $((i % 7)) = 0 ] && "${c[@]}" XADD nodes "$i-9" other "$((i * 1000))" >/dev/null
    done
    "${c[@]}" XDEL nodes 3-0 4-1 30-0 >/dev/null
    "${c[@]}" XTRIM nodes MINID 5 >/dev/null
    "${c[@]}" XADD big 1-1 f "$(printf 'abcdefgh%.0s' {1..200})" >/dev/null
    "${c[@]}" XADD empty MAXLEN 0 5-5 f v >/dev/null
    "${c[@]}" XGROUP CREATE empty g '$' >/dev/null
    for i in $(seq 1 30); do "${c[@]}" XADD groups "$i-0" job "$i" >/dev/null; done
    "${c[@]}" XGROUP CREATE groups g1 0 >/dev/null
    "${c[@]}" XGROUP CREATE groups g2 '$' ENTRIESREAD 5 >/dev/null
    "${c[@]}" XREADGROUP GROUP g1 alice COUNT 5 STREAMS groups '>' >/dev/null
    "${c[@]}" XREADGROUP GROUP g1 bob COUNT 3 STREAMS groups '>' >/dev/null
    "${c[@]}" XGROUP CREATECONSUMER groups g2 idle >/dev/null
    "${c[@]}" XACK groups g1 2-0 >/dev/null
}

dump_to() { # PORT KEY FILE
    python3 - "$@" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
k = sys.argv[2].encode()
s.sendall(b"*2\r\n$4\r\nDUMP\r\n$%d\r\n%s\r\n" % (len(k), k))
f = s.makefile("rb")
n = int(f.readline()[1:-2])
payload = f.read(n)
assert payload[0] == 19
open(sys.argv[3], "wb").write(b"\x00" + payload[1:-10])
PY
}

for server in redis goblin; do
    p=$(port)
    if [ "$server" = redis ]; then
        redis-server --port "$p" --dir "$tmp" --save "" --appendonly no >/dev/null &
    else
        "$goblin" --port "$p" --dir "$tmp" --save "" >/dev/null 2>&1 &
    fi
    wait_up "$p"
    fill "$p"
    for k in one nodes big empty groups; do dump_to "$p" "$k" "$out/$server-$k"; done
    redis-cli -p "$p" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
done
ls "$out"
