#!/usr/bin/env bash
# Every maxmemory-policy with redis-py (Debian python3-redis,
# eviction_policies.py): keys evicted past maxmemory follow the policy's
# order within sampling error (LRU keeps recently read keys, LFU frequently
# read ones, volatile-* never takes a key without a TTL and then refuses
# with OOM, volatile-ttl takes the shortest TTLs first, random takes from
# everywhere), used_memory stays within maxmemory, an evicted key fails a
# WATCH, noeviction refuses writes and keeps reads and deletes.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
DIR=$(mktemp -d /tmp/goblin-evict-XXXXXX)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

# eviction_policies.py sets maxmemory to the bytes in use (plus 16 KiB)
# after CONFIG RESETSTAT and counts on nothing but its writes allocating:
# latency-tracking's histograms (24 KiB at each command's first call after
# a RESETSTAT, as Redis's) would make it evict for them; it tests eviction,
# so it runs without them.
launch_server() {
    "$GOBLIN_SERVER" --port "$PORT" --save "" --dir "$DIR" --latency-tracking no >"$LOG" 2>&1 &
    PID=$!
}

start_server launch_server
out=$(timeout 300 /usr/bin/python3 "$(dirname "$0")/eviction_policies.py" "$PORT" 2>&1) ||
    fail "eviction policies: $out"
[ "$out" = ok ] || fail "eviction policies: $out"
kill "$PID"
wait "$PID" || fail "server exited with status $?"
rm -rf "$DIR"
echo "eviction: ok"
