#!/usr/bin/env bash
# Cluster mode with a static slot map (docs/scale-out.md): three nodes on
# loopback share one hand-written cluster-config-file that names no node
# `myself`; each finds its own line by its port. No bus runs; redirections,
# CLUSTER SLOTS/NODES and cluster-aware clients work from the map, and the
# map is not rewritten by the nodes.
set -euo pipefail
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
PID=

DIR=$(mktemp -d /tmp/goblin-cluster-static.XXXXXX)
declare -a PORTS NODE_PID
cleanup() {
    for pid in "${NODE_PID[@]:-}"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$DIR"
}
trap cleanup EXIT

# Ports below 55536 (the bus port would be port + 10000).
for i in 1 2 3; do
    while :; do
        p=$(free_port)
        [ "$p" -lt 55000 ] && break
    done
    PORTS[$i]=$p
done
MAP=$DIR/nodes.conf
cat >"$MAP" <<EOF
1111111111111111111111111111111111111111 127.0.0.1:${PORTS[1]}@$((PORTS[1] + 10000)) master - 0 0 1 connected 0-5460
2222222222222222222222222222222222222222 127.0.0.1:${PORTS[2]}@$((PORTS[2] + 10000)) master - 0 0 2 connected 5461-10922
3333333333333333333333333333333333333333 127.0.0.1:${PORTS[3]}@$((PORTS[3] + 10000)) master - 0 0 3 connected 10923-16383
EOF
cp "$MAP" "$DIR/nodes.conf.orig"
for i in 1 2 3; do
    "$GOBLIN_SERVER" --port "${PORTS[$i]}" --cluster-enabled yes --cluster-config-file "$MAP" \
        --dir "$DIR" --save "" >"$DIR/log$i" 2>&1 &
    NODE_PID[$i]=$!
done
for i in 1 2 3; do
    for _ in $(seq 1 200); do
        [ "$(redis-cli -p "${PORTS[$i]}" PING 2>/dev/null)" = PONG ] && break
        sleep 0.05
    done
    [ "$(redis-cli -p "${PORTS[$i]}" CLUSTER MYID)" = "$(printf "$i%.0s" $(seq 40))" ] ||
        fail "node $i is not the map's line for port ${PORTS[$i]}: $(cat "$DIR/log$i")"
done
cli() { local i=$1; shift; redis-cli -p "${PORTS[$i]}" "$@"; }

info=$(cli 2 CLUSTER INFO | tr -d '\r')
grep -qx "cluster_state:ok" <<<"$info" || fail "static cluster not ok: $info"
grep -qx "cluster_known_nodes:3" <<<"$info" || fail "$info"
# foo hashes to 12182 (node 3), bar to 5061 (node 1).
[ "$(cli 1 GET foo)" = "MOVED 12182 127.0.0.1:${PORTS[3]}" ] || fail "GET foo on node 1: $(cli 1 GET foo)"
[ "$(cli 1 -c SET foo 1)" = OK ] || fail "redis-cli -c SET foo"
[ "$(cli 3 GET foo)" = 1 ] || fail "foo is not on node 3"
[ "$(cli 2 -c GET bar)" = "" ] || fail "GET bar"
[ "$(cli 2 CLUSTER SLOTS | sed -n '1,2p' | tr '\n' ' ')" = "0 5460 " ] || fail "CLUSTER SLOTS"
out=$(cli 1 CLUSTER MEET 127.0.0.1 1)
[[ "$out" == "ERR Invalid node address specified"* ]] || fail "MEET in static mode: $out"
out=$(cli 1 CLUSTER ADDSLOTS 1)
[[ "$out" == *"static map"* ]] || fail "ADDSLOTS in static mode: $out"
bad=$($PY - "${PORTS[1]}" <<'EOF'
import sys
from redis.cluster import RedisCluster
rc = RedisCluster(host="127.0.0.1", port=int(sys.argv[1]))
for i in range(3000):
    rc.set(f"k{i}", i)
print(sum(1 for i in range(3000) if int(rc.get(f"k{i}")) != i))
EOF
) || fail "RedisCluster against the static map failed"
[ "$bad" = 0 ] || fail "RedisCluster read back $bad wrong keys"
for i in 1 2 3; do [ "$(cli "$i" DBSIZE)" -gt 500 ] || fail "node $i holds $(cli "$i" DBSIZE) keys"; done
cmp -s "$MAP" "$DIR/nodes.conf.orig" || fail "a node rewrote the static map"
echo "$TEST_NAME: OK" >&2
