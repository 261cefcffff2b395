#!/usr/bin/env bash
# tests/fuzz/make_stream_seeds.sh — regenerates tests/fuzz/corpus/fuzz_stream_rdb/:
# stream values as redis-server 7.0 and goblin-core write them (DUMP
# payloads less the type byte and the version/CRC footer, behind a control
# byte of 0: type 19, default node limits): one entry, several nodes with
# tombstones, other field sets and integer fields, big values (LZF), an
# empty stream with a group, groups with pending entries and consumers.
#   tests/fuzz/make_stream_seeds.sh [GOBLIN_SERVER]   (default build/goblin-core)
set -euo pipefail
# shellcheck source=tests/fuzz/seed_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/seed_lib.sh"
seed_setup fuzz_stream_rdb "${1:-}"

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

# dump_to PORT KEY FILE: the value's RDB bytes behind the control byte.
dump_to() {
    dump_payload "$1" "$2" "$tmp/payload"
    [ "$(head -c 1 "$tmp/payload" | od -An -tu1 | tr -d ' ')" = 19 ] || exit 1
    { printf '\0'; tail -c +2 "$tmp/payload" | head -c -10; } >"$3"
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
