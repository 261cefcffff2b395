#!/usr/bin/env bash
# instructions_per_request_wire.sh BUILD_DIR TRANSPORT WIRE OP [N] — server
# instructions per request of one goblin-bench op at depth one (tcp, unix or
# ring; resp or sbe), counted by valgrind's callgrind: two runs of N and 2N
# requests (default 5000), differenced, so start-up and shutdown cancel.
# Repeatable on a loaded machine where latency is not; use it to compare two
# builds of a wire's hot path (docs/sbe.md, Measurements).
#
# Sockets: the whole server with --idle-strategy block (no idle polling).
# Ring: a polled transport spins between requests, so only the serving of a
# request is counted (callgrind --toggle-collect on the ring's per-record
# entry points: conn_on_readable and ring_serve*), not the empty polls.
#
# PASSWORD=... runs the server with --requirepass and goblin-bench with -a,
# so each session authenticates once (AUTH, or the SBE Auth template)
# before the counted requests: the cost of an authenticated session.
set -euo pipefail
PASSWORD=${PASSWORD:-}
auth_server=() auth_client=()
if [ -n "$PASSWORD" ]; then
    auth_server=(--requirepass "$PASSWORD")
    auth_client=(-a "$PASSWORD")
fi
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
    cg=() server=(--idle-strategy block) client=(--socket "$d/s.sock")
    [ "$T" = tcp ] && client=() # goblin-bench takes --socket for unix only
    if [ "$T" = ring ]; then
        cg=(--toggle-collect=conn_on_readable --toggle-collect='ring_serve*')
        server=(--ring "$d/a.ring" 64k --ring "$d/b.ring" 64k)
        client=(--ring "$d/a.ring" --ring "$d/b.ring")
    fi
    valgrind --tool=callgrind "${cg[@]}" --callgrind-out-file="$d/cg.out" "$B/goblin-core" \
        --port "$port" --save "" --dir "$d" --enable-sbe --mlockall no \
        --unixsocket "$d/s.sock" "${server[@]}" ${auth_server[@]+"${auth_server[@]}"} >"$d/log" 2>&1 &
    pid=$!
    for _ in $(seq 300); do redis-cli -p "$port" PING 2>/dev/null | grep -q . && break; sleep 0.2; done
    "$B/goblin-bench" --transport "$T" --wire "$W" --ops "$OP" --warmup 10 --port "$port" \
        "${client[@]}" ${auth_client[@]+"${auth_client[@]}"} --samples "$n" >/dev/null
    kill -INT "$pid"
    wait "$pid" || true
    res+=("$(callgrind_annotate "$d/cg.out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')")
    rm -rf "$d"
done
echo "$T $W $OP: $(((res[1] - res[0]) / N)) instructions per request"
