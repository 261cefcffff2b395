#!/usr/bin/env bash
# tests/fuzz/make_aof_seeds.sh — regenerates tests/fuzz/corpus/fuzz_aof/:
# incr files written by goblin-core (with #TS annotations) and by
# redis-server 7.0, a plain .base.aof from redis-server, and a copy of each
# incr file cut inside its last command.
#   tests/fuzz/make_aof_seeds.sh [GOBLIN_SERVER]   (default build/goblin-core)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
goblin="${1:-$root/build/goblin-core}"
out="$here/corpus/fuzz_aof"
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$out" "$tmp/g" "$tmp/r"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 100); do redis-cli -p "$1" PING >/dev/null 2>&1 && return; sleep 0.05; done; exit 1; }

gp=$(port)
"$goblin" --port "$gp" --dir "$tmp/g" --save "" --appendonly yes --aof-timestamp-enabled yes \
    >/dev/null 2>&1 &
rp=$(port)
redis-server --port "$rp" --dir "$tmp/r" --save "" --appendonly yes --aof-use-rdb-preamble no \
    >/dev/null 2>&1 &
wait_up "$gp"
wait_up "$rp"
for p in "$gp" "$rp"; do
    redis-cli -p "$p" HSET h a 1 b two >/dev/null
    redis-cli -p "$p" ZADD z 1 a 2.5 b >/dev/null
    redis-cli -p "$p" SADD s x y 3 >/dev/null
done
redis-cli -p "$rp" BGREWRITEAOF >/dev/null # its base: a .base.aof
sleep 1
for p in "$gp" "$rp"; do python3 "$root/tests/integration/rdb_compare.py" writes "$p"; done
cp "$tmp"/g/appendonlydir/*.incr.aof "$out/goblin.incr.aof"
cp "$tmp"/r/appendonlydir/appendonly.aof.2.incr.aof "$out/redis.incr.aof"
cp "$tmp"/r/appendonlydir/*.base.aof "$out/redis.base.aof"
for f in goblin redis; do
    size=$(stat -c %s "$out/$f.incr.aof")
    head -c $((size - 5)) "$out/$f.incr.aof" >"$out/$f.truncated.aof"
done
ls -la "$out"
