#!/usr/bin/env bash
# instructions_per_request.sh BINARY [REQUESTS] — instructions the server
# executes for REQUESTS (default 20000) each of PING, SET and GET (TESTS)
# (redis-benchmark over TCP, depth one by default), counted by valgrind's
# callgrind with --idle-strategy block so idle polling adds nothing.
# Instruction counts are repeatable on a noisy machine where wall-clock
# latency is not: use it to compare two builds of the hot path.
#
#   CLIENTS=1 PIPELINE=1   redis-benchmark's -c and -P (e.g. 50 and 16 for
#                          the pipelined throughput runs of redis_benchmark.sh)
#   TESTS=ping_mbulk,set,get  redis-benchmark's -t (the count is per test)
#   COMMAND='...'          instead of TESTS, one command of your own for
#                          redis-benchmark, in shell words (quotes kept), e.g.
#                          COMMAND="EVALSHA d3c21d0c2b9ca22f82737626a27bcaf5d288f99f 1 k"
#   SETUP='...'            a redis-cli command run once before (same form), e.g.
#                          SETUP="SCRIPT LOAD \"return redis.call('GET', KEYS[1])\""
#   SERVER_ARGS=           extra server flags, split on spaces (e.g.
#                          "--latency-tracking no" to price a feature)
#   EXCLUDE_STARTUP=0      1: also count a run that serves one SET only and
#                          report the per-request figure without startup and
#                          shutdown (otherwise included; the same for two
#                          builds within a few thousand instructions per run)
#
# A binary that knows --save gets --save "" (no snapshot at shutdown);
# older builds without persistence are run as they are.
set -euo pipefail
bin=${1:?usage: bench/instructions_per_request.sh BINARY [REQUESTS]}
n=${2:-20000}
CLIENTS=${CLIENTS:-1}
PIPELINE=${PIPELINE:-1}
TESTS=${TESTS:-ping_mbulk,set,get}
IFS=, read -r -a test_list <<<"$TESTS"
tests=${#test_list[@]}
COMMAND=${COMMAND:-}
SETUP=${SETUP:-}
command_words=() setup_words=()
[ -n "$COMMAND" ] && { eval "command_words=($COMMAND)"; tests=1; }
[ -n "$SETUP" ] && eval "setup_words=($SETUP)"
EXCLUDE_STARTUP=${EXCLUDE_STARTUP:-0}
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
server_args=(--mlockall no --idle-strategy block)
read -r -a extra_args <<<"${SERVER_ARGS:-}"
server_args+=("${extra_args[@]}")
# Read all of --help (grep -q under pipefail could see SIGPIPE).
if "$bin" --help 2>&1 | grep -c -- '--save' >/dev/null; then server_args+=(--save "" --dir "$out"); fi

# count REQUESTS_PER_TEST: total instructions of one server run.
count() {
    local port pid
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$bin" --port "$port" \
        "${server_args[@]}" >"$out/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 150); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.2; done
    redis-cli -p "$port" SET key:__rand_int__ xxxxxxxxxxxxxxxx >/dev/null
    if [ ${#setup_words[@]} -gt 0 ]; then redis-cli -p "$port" "${setup_words[@]}" >/dev/null; fi
    if [ "$1" -gt 0 ] && [ ${#command_words[@]} -gt 0 ]; then
        redis-benchmark -p "$port" -c "$CLIENTS" -P "$PIPELINE" -n "$1" -q \
            "${command_words[@]}" >/dev/null
    elif [ "$1" -gt 0 ]; then
        redis-benchmark -p "$port" -c "$CLIENTS" -P "$PIPELINE" -n "$1" -t "$TESTS" \
            -q >/dev/null
    fi
    kill -INT "$pid"
    wait "$pid" || true
    callgrind_annotate "$out/cg.out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}

total=$(count "$n")
shape="-c $CLIENTS -P $PIPELINE"
if [ "$EXCLUDE_STARTUP" = 1 ]; then
    startup=$(count 0)
    echo "$bin: $total instructions for $((tests * n)) requests ($shape), $startup for startup" \
        "and shutdown alone ($(((total - startup) / (tests * n))) per request, startup excluded)"
else
    echo "$bin: $total instructions for $((tests * n)) requests ($shape) ($((total / (tests * n)))" \
        "per request, startup included)"
fi
