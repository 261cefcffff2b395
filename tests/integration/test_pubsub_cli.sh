#!/usr/bin/env bash
# Integration: redis-cli's `subscribe` and `psubscribe` modes against
# goblin-core receive published messages (redis-cli runs under `timeout`, so
# a server that never delivers fails the test instead of hanging it).
set -euo pipefail

: "${GOBLIN_SERVER:?GOBLIN_SERVER is not set}"
dir=$(mktemp -d /tmp/goblin-pubsub-cli-XXXXXX)
server_pid=""
cli_pids=()
cleanup() {
    for p in "${cli_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$dir"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    for f in "$dir"/*.out "$dir"/server.log; do [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
    exit 1
}

# A port nobody listens on; the server's own bind failure makes us retry.
start_server() {
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        port=$((20000 + RANDOM % 40000))
        "$GOBLIN_SERVER" --port "$port" --save "" >"$dir/server.log" 2>&1 &
        server_pid=$!
        for _ in $(seq 1 200); do
            if redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then return 0; fi
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.05
        done
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    done
    fail "server did not start"
}

# wait_until <description> <command...>: polls for up to 10 s.
wait_until() {
    local what=$1
    shift
    for _ in $(seq 1 200); do
        if "$@"; then return 0; fi
        sleep 0.05
    done
    fail "timed out waiting for $what"
}

numsub_is() { [ "$(redis-cli -p "$port" pubsub numsub "$1" | sed -n 2p)" = "$2" ]; }
numpat_is() { [ "$(redis-cli -p "$port" pubsub numpat)" = "$1" ]; }
has_line() { grep -qx -- "$2" "$1"; }

start_server

# SUBSCRIBE: redis-cli prints the acknowledgement, then each message.
timeout 20 redis-cli -p "$port" subscribe news >"$dir/sub.out" 2>&1 &
cli_pids+=($!)
wait_until "the SUBSCRIBE" numsub_is news 1
[ "$(redis-cli -p "$port" publish news "hello world")" = "1" ] || fail "PUBLISH did not reach redis-cli"
wait_until "the message in redis-cli subscribe" has_line "$dir/sub.out" "hello world"
has_line "$dir/sub.out" "subscribe" || fail "no subscribe acknowledgement"
has_line "$dir/sub.out" "message" || fail "no message kind line"

# PSUBSCRIBE: pmessage with the pattern and the channel.
timeout 20 redis-cli -p "$port" psubscribe 'ne*' >"$dir/psub.out" 2>&1 &
cli_pids+=($!)
wait_until "the PSUBSCRIBE" numpat_is 1
[ "$(redis-cli -p "$port" publish news second)" = "2" ] || fail "PUBLISH did not reach both"
wait_until "the message in redis-cli psubscribe" has_line "$dir/psub.out" "second"
has_line "$dir/psub.out" "pmessage" || fail "no pmessage kind line"
has_line "$dir/psub.out" "ne\*" || fail "no pattern line"
wait_until "the second message in redis-cli subscribe" has_line "$dir/sub.out" "second"

# Killing the clients releases their subscriptions.
for p in "${cli_pids[@]}"; do kill "$p" 2>/dev/null || true; done
wait_until "subscriptions released" numsub_is news 0
wait_until "pattern released" numpat_is 0
echo "pubsub cli: ok"
