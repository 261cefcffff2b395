#!/usr/bin/env bash
# Integration: the libfabric transport across a real interface. Server and
# client run in two network namespaces joined by a veth pair (created here;
# needs root and iproute2), so tcp;ofi_rxm crosses the veth, not loopback:
# PING, an 8 KiB SET/GET, successive sessions, CLIENT LIST showing
# the client's veth address, and the veth's byte counters proving the
# traffic went over it. Locality (--enable-debug-command local): DEBUG from
# the other namespace is refused with Redis's error, over the server's own
# loopback (a second target at 127.0.0.1) it runs; SBE (no AUTH, trusted
# fabric) is still accepted from the other namespace with --enable-sbe
# alone. Skipped (77) only without root or netns support, or when fi_info
# reports the provider absent.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
cli="${GOBLIN_BUILD_DIR:?}/goblin-cli"
# shellcheck source=../lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

provider='tcp;ofi_rxm'
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
    echo "SKIP: needs root and iproute2 to create network namespaces"
    exit 77
fi
if ! fi_info -p "$provider" -t FI_EP_RDM >/dev/null 2>&1; then
    echo "SKIP: fi_info reports provider $provider absent"
    exit 77
fi

tag=$$
srv_ns="gfab-srv-$tag"
cli_ns="gfab-cli-$tag"
# A /30 of 10.200.0.0/16 picked from the pid, so parallel runs do not clash.
octet=$((tag % 250 + 1))
srv_ip="10.200.$octet.1"
cli_ip="10.200.$octet.2"
DIR=$(mktemp -d)
LOG="$DIR/server.log"

cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    ip netns del "$srv_ns" 2>/dev/null || true
    ip netns del "$cli_ns" 2>/dev/null || true
    rm -rf "$DIR"
}
trap cleanup EXIT

if ! ip netns add "$srv_ns" 2>/dev/null; then
    echo "SKIP: ip netns add is not permitted here"
    exit 77
fi
ip netns add "$cli_ns"
ip link add "gfs$tag" type veth peer name "gfc$tag"
ip link set "gfs$tag" netns "$srv_ns"
ip link set "gfc$tag" netns "$cli_ns"
ip -n "$srv_ns" addr add "$srv_ip/30" dev "gfs$tag"
ip -n "$cli_ns" addr add "$cli_ip/30" dev "gfc$tag"
for ns in "$srv_ns" "$cli_ns"; do ip -n "$ns" link set lo up; done
ip -n "$srv_ns" link set "gfs$tag" up
ip -n "$cli_ns" link set "gfc$tag" up

boot=17401 # the namespace is private: fixed ports cannot clash
loboot=17402
ip netns exec "$srv_ns" "$bin" --bind "$srv_ip" --port 6379 --mlockall no --save "" \
    --dir "$DIR" --enable-debug-command local --enable-sbe \
    --libfabric "$provider" "$srv_ip" "$boot" --libfabric "$provider" 127.0.0.1 "$loboot" \
    --efa-heartbeat-timeout-ms 0 >"$LOG" 2>&1 &
PID=$!
for _ in $(seq 1 300); do
    grep -qi "ready to accept" "$LOG" && break
    kill -0 "$PID" 2>/dev/null || fail "the server exited at startup"
    sleep 0.05
done
grep -qi "ready to accept" "$LOG" || fail "the server did not start"
grep -q "endpoint fi_sockaddr_in://$srv_ip:.*local peers: none" "$LOG" ||
    fail "the endpoint is not on $srv_ip, or its peers count as local: $(cat "$LOG")"

rx_bytes() { ip netns exec "$srv_ns" cat "/sys/class/net/gfs$tag/statistics/rx_bytes"; }
fab() { ip netns exec "$cli_ns" "$cli" --fabric "$provider" --fabric-local "$cli_ip" \
    -h "$srv_ip" -p "$boot" "$@"; }

before=$(rx_bytes)
[ "$(fab PING)" = "PONG" ] || fail "PING over the veth"
value=$(head -c 8192 /dev/zero | tr '\0' v)
[ "$(fab SET big "$value")" = "OK" ] || fail "8 KiB SET"
[ "$(fab GET big)" = "$value" ] || fail "8 KiB GET"
after=$(rx_bytes)
[ $((after - before)) -gt 8192 ] || fail "only $((after - before)) bytes crossed the veth"

# One session: CLIENT LIST names the client by its veth address.
list=$(printf 'CLIENT LIST\n' | fab)
echo "$list" | grep -q "addr=fi_sockaddr_in://$cli_ip:" || fail "CLIENT LIST: $list"

# A later session sees what an earlier one wrote.
printf 'SET held-by-first yes\nGET held-by-first\n' | fab >"$DIR/first.out"
[ "$(fab GET held-by-first)" = "yes" ] || fail "second session"

 # Locality: a peer in the other namespace is not local, whatever the
# provider; only DEBUG is refused, the session goes on.
printf 'DEBUG SLEEP 0\nPING\n' | fab >"$DIR/debug.out"
[ "$(sed -n 1p "$DIR/debug.out")" = 'ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.' ] ||
    fail "DEBUG from the other namespace: $(cat "$DIR/debug.out")"
[ "$(sed -n 2p "$DIR/debug.out")" = "PONG" ] || fail "after the refused DEBUG: $(cat "$DIR/debug.out")"
# Over the server namespace's loopback it is local: DEBUG runs.
lo=$(ip netns exec "$srv_ns" "$cli" --fabric "$provider" --fabric-local 127.0.0.1 \
    -h 127.0.0.1 -p "$loboot" DEBUG SLEEP 0)
[ "$lo" = "OK" ] || fail "DEBUG over loopback: $lo"
grep -q "endpoint fi_sockaddr_in://127.0.0.1:.*local peers: those at 127.0.0.1 or ::1" "$LOG" ||
    fail "loopback target's locality not logged: $(cat "$LOG")"

# SBE carries no AUTH and is trusted-fabric traffic (docs/sbe.md): with
# --enable-sbe it is accepted from the other namespace, no --sbe-allow-remote.
ip netns exec "$cli_ns" "$GOBLIN_BUILD_DIR/goblin-bench" fabric-sbe "$provider" "$srv_ip" "$boot" \
    "$cli_ip" netns-sbe 20 2 auto >"$DIR/sbe.txt" || fail "SBE over the veth: $(cat "$DIR/sbe.txt")"

kill "$PID"
wait "$PID" || fail "server exit status $?"
PID=
echo "test_fabric_netns: ok ($provider over veth $srv_ip <-> $cli_ip)"
