#!/usr/bin/env bash
# instructions_per_request_wire.sh BUILD_DIR TRANSPORT WIRE OP [N] — server
# instructions per request of one goblin-bench op at depth one (tcp or unix;
# resp or sbe), counted by valgrind's callgrind with --idle-strategy block:
# two runs of N and 2N requests (default 5000), differenced, so start-up and
# shutdown cancel. Repeatable on a loaded machine where latency is not; use
# it to compare two builds of a wire's hot path (docs/sbe.md, Measurements).
set -euo pipefail
B=${1:?usage: bench/instructions_per_request_wire.sh BUILD_DIR TRANSPORT WIRE OP [N]}
T=${2:?transport}
W=${3:?wire}
OP=${4:?op}
N=${5:-5000}
command -v valgrind >/dev/null || { echo "valgrind is required" >&2; exit 2; }
res=()
for n in "$N" $((2 * N)); do
    d=$(mktemp -d)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    valgrind --tool=callgrind --callgrind-out-file="$d/cg.out" "$B/goblin-core" --port "$port" \
        --save "" --dir "$d" --enable-sbe --idle-strategy block --mlockall no \
        --unixsocket "$d/s.sock" >"$d/log" 2>&1 &
    pid=$!
    for _ in $(seq 300); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.2; done
    "$B/goblin-bench" --transport "$T" --wire "$W" --ops "$OP" --warmup 10 --port "$port" \
        --socket "$d/s.sock" --samples "$n" >/dev/null
    kill -INT "$pid"
    wait "$pid" || true
    res+=("$(callgrind_annotate "$d/cg.out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')")
    rm -rf "$d"
done
echo "$T $W $OP: $(((res[1] - res[0]) / N)) instructions per request"
