#!/usr/bin/env bash
# tests/fuzz/make_rdb_seeds.sh — regenerates tests/fuzz/corpus/fuzz_rdb/:
# small RDB files written by redis-server 7.0 and by goblin-core (every
# type and encoding both implement, TTLs, two databases, compressed or
# not), and DUMP payloads of one value of each kind from redis-server.
#   tests/fuzz/make_rdb_seeds.sh [GOBLIN_SERVER]   (default build/goblin-core)
set -euo pipefail
# shellcheck source=tests/fuzz/seed_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/seed_lib.sh"
seed_setup fuzz_rdb "${1:-}"

fill() {
    local c=(redis-cli -p "$1")
    "${c[@]}" SET int 12345 >/dev/null
    "${c[@]}" SET str hello >/dev/null
    "${c[@]}" SET long "$(printf 'abcabcabc%.0s' {1..10})" >/dev/null
    "${c[@]}" SET ttl v PX 99999999 >/dev/null
    "${c[@]}" HSET h a 1 b two c -300 >/dev/null
    "${c[@]}" HSET hbig f "$(printf 'x%.0s' {1..80})" >/dev/null
    "${c[@]}" ZADD z 1 a 2.5 b -inf c 1e100 d >/dev/null
    "${c[@]}" ZADD zbig 1 "$(printf 'm%.0s' {1..80})" 2 n >/dev/null
    "${c[@]}" -n 3 SET other db3 >/dev/null
}

for comp in yes no; do
    p=$(port)
    redis-server --port "$p" --dir "$tmp" --save "" --appendonly no --rdbcompression "$comp" \
        --dbfilename "redis-$comp.rdb" >/dev/null &
    wait_up "$p"
    fill "$p"
    redis-cli -p "$p" SAVE >/dev/null
    if [ "$comp" = yes ]; then
        for k in int str long h hbig z zbig; do
            dump_payload "$p" "$k" "$out/dump-$k"
        done
    fi
    redis-cli -p "$p" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
    cp "$tmp/redis-$comp.rdb" "$out/redis-$comp.rdb"

    p=$(port)
    "$goblin" --port "$p" --dir "$tmp" --save "" --rdbcompression "$comp" \
        --dbfilename "goblin-$comp.rdb" >/dev/null 2>&1 &
    wait_up "$p"
    fill "$p"
    redis-cli -p "$p" SAVE >/dev/null
    redis-cli -p "$p" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
    cp "$tmp/goblin-$comp.rdb" "$out/goblin-$comp.rdb"
done
# Redis < 7.0's encodings (ziplists, a quicklist of ziplists), as
# tests/integration/py/old_rdb.py writes them.
python3 "$(dirname "$0")/../integration/py/old_rdb.py" "$out/old-encodings.rdb"
ls -l "$out"
