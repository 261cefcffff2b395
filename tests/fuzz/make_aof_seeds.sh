#!/usr/bin/env bash
# tests/fuzz/make_aof_seeds.sh — regenerates tests/fuzz/corpus/fuzz_aof/:
# incr files written by goblin-core (with #TS annotations) and by
# redis-server 7.0, a plain .base.aof from redis-server, and a copy of each
# incr file cut inside its last command.
#   tests/fuzz/make_aof_seeds.sh [GOBLIN_SERVER]   (default build/goblin-core)
set -euo pipefail
# shellcheck source=tests/fuzz/seed_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/seed_lib.sh"
seed_setup fuzz_aof "${1:-}"
mkdir -p "$tmp/g" "$tmp/r"

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
