#!/usr/bin/env bash
# Redis Cluster mode (docs/scale-out.md): four nodes, each in a network
# namespace of its own joined to a bridge by a veth pair, so client and
# cluster-bus traffic cross real interfaces. Three goblin-core nodes are
# formed into a cluster by redis-cli --cluster create; a redis-server 7.0
# node joins later (a mixed cluster).
#
#   1. create + check with redis-cli; CLUSTER KEYSLOT agrees with
#      redis-server's for every key tried (hash tags included);
#   2. redis-cli -c and python3-redis RedisCluster write and read back
#      COUNT keys across all slots; every node holds a share;
#   3. redirections as Redis words them: MOVED to the owner named by
#      CLUSTER SLOTS, CROSSSLOT, hash tags keep keys together, SELECT refused;
#   4. a hand-driven migration: ASK from the source for a moved key, MOVED
#      from the target without ASKING, served with ASKING, then MOVED once
#      the slot is handed over (CLUSTER SETSLOT ... NODE);
#   5. redis-cli --cluster reshard moves slots with their keys (MIGRATE);
#      every key reads back through RedisCluster;
#   6. redis-cli --cluster add-node brings in a redis-server node, reshard
#      moves slots from goblin-core to it; every node agrees (check), every
#      key reads back;
#   7. a node killed is marked failing by the others (the cluster goes
#      down: CLUSTERDOWN), and the cluster is ok again once it is back.
set -euo pipefail
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
COUNT=${COUNT:-100000}
PY=/usr/bin/python3
PID=

if [ "$(id -u)" != 0 ]; then
    echo "$TEST_NAME: SKIP: network namespaces need root" >&2
    exit 77
fi
$PY -c 'import redis.cluster' 2>/dev/null || fail "python3-redis is not installed"

DIR=$(mktemp -d /tmp/goblin-cluster.XXXXXX)
SUB=$((100 + $$ % 100))
BR=gbcl$$
PORT=7000
declare -a NODE_PID
ns_of() { echo "gbcl$$-$1"; }
ip_of() { echo "10.$SUB.77.$((10 + $1))"; }

cleanup() {
    for pid in "${NODE_PID[@]:-}"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true; done
    for i in 1 2 3 4; do ip netns del "$(ns_of "$i")" 2>/dev/null || true; done
    ip link del "$BR" 2>/dev/null || true
    rm -rf "$DIR"
}
trap cleanup EXIT
fail_logs() {
    for i in 1 2 3 4; do
        [ -f "$DIR/$i/log" ] && { echo "--- node $i log ---" >&2; tail -n 30 "$DIR/$i/log" >&2; }
    done
    fail "$@"
}

ip link add "$BR" type bridge
ip addr add "10.$SUB.77.1/24" dev "$BR"
ip link set "$BR" up
for i in 1 2 3 4; do
    ns=$(ns_of "$i")
    ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    ip link add "gbc$i-$$" type veth peer name "gbp$i-$$"
    ip link set "gbp$i-$$" netns "$ns"
    ip link set "gbc$i-$$" master "$BR" up
    ip netns exec "$ns" ip addr add "$(ip_of "$i")/24" dev "gbp$i-$$"
    ip netns exec "$ns" ip link set "gbp$i-$$" up
    mkdir -p "$DIR/$i"
done

# start_node I [redis]: node I listening on its address, port 7000.
start_node() {
    local i=$1 ns
    ns=$(ns_of "$i")
    if [ "${2:-}" = redis ]; then
        (cd "$DIR/$i" && exec ip netns exec "$ns" "$REDIS_SERVER" --bind "$(ip_of "$i")" \
            --port "$PORT" --cluster-enabled yes --cluster-node-timeout 3000 --save "" \
            --appendonly no --protected-mode no >"$DIR/$i/log" 2>&1) &
    else
        ip netns exec "$ns" "$GOBLIN_SERVER" --bind "$(ip_of "$i")" --port "$PORT" \
            --cluster-enabled yes --cluster-node-timeout 3000 --dir "$DIR/$i" --save "" --protected-mode no \
            >>"$DIR/$i/log" 2>&1 &
    fi
    NODE_PID[$i]=$!
    for _ in $(seq 1 200); do
        [ "$(redis-cli -h "$(ip_of "$i")" -p $PORT PING 2>/dev/null)" = PONG ] && return 0
        sleep 0.05
    done
    fail_logs "node $i did not start"
}
cli() { local i=$1; shift; redis-cli -h "$(ip_of "$i")" -p $PORT "$@"; }
# wait_for SECONDS DESCRIPTION COMMAND...: polls until COMMAND succeeds.
wait_for() {
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@"; do
        [ $SECONDS -lt $deadline ] || fail_logs "timed out waiting for $what"
        sleep 0.2
    done
}
consistent() { redis-cli --cluster check "$(ip_of 1):$PORT" >"$DIR/check" 2>&1; }
state_is() { [ "$(cli "$1" CLUSTER INFO | tr -d '\r' | sed -n 's/^cluster_state://p')" = "$2" ]; }

for i in 1 2 3; do start_node "$i"; done
start_node 4 redis

# 1. Create and check with redis-cli; key slots as redis-server computes them.
out=$(redis-cli --cluster create "$(ip_of 1):$PORT" "$(ip_of 2):$PORT" "$(ip_of 3):$PORT" \
    --cluster-yes 2>&1) || fail_logs "redis-cli --cluster create failed: $out"
grep -q "All 16384 slots covered" <<<"$out" || fail_logs "create: $out"
wait_for 30 "every node to agree" consistent
for i in 1 2 3; do wait_for 30 "node $i to say ok" state_is "$i" ok; done
for key in foo bar '{user1000}.following' '{user1000}.followers' 'a{}b' '{}x' 'x{y' '}z{w}' \
    "$(head -c 300 /dev/zero | tr '\0' k)" 123456789 '{{a}}'; do
    ours=$(cli 1 CLUSTER KEYSLOT "$key") theirs=$(cli 4 CLUSTER KEYSLOT "$key")
    [ "$ours" = "$theirs" ] || fail "CLUSTER KEYSLOT '$key': $ours, redis-server says $theirs"
done
echo "$TEST_NAME: cluster created and checked" >&2

# 2. COUNT keys through redis-cli -c and through RedisCluster.
# In slot order: redis-cli -c reconnects on every redirection, and COUNT
# reconnections in random order would exhaust the client's ephemeral ports.
$PY -c "
import sys
from redis.crc import key_slot
keys = sorted(range(1, int(sys.argv[1]) + 1), key=lambda i: key_slot(b'cli:%d' % i))
print('\n'.join(str(i) for i in keys))" "$COUNT" >"$DIR/cli-order"
sed 's/.*/SET cli:& v&/' "$DIR/cli-order" | cli 1 -c >/dev/null
got=$(sed 's/.*/GET cli:&/' "$DIR/cli-order" | cli 2 -c | grep -c '^v') || true
[ "$got" = "$COUNT" ] || fail_logs "redis-cli -c read back $got of $COUNT keys"
cat >"$DIR/rc.py" <<'EOF'
import sys
from redis.cluster import RedisCluster, ClusterNode
mode, host, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
rc = RedisCluster(startup_nodes=[ClusterNode(host, 7000)])
batch = 2000
if mode == "write":
    for start in range(0, count, batch):
        p = rc.pipeline()
        for i in range(start, min(count, start + batch)):
            p.set(f"py:{i}", i)
        p.execute()
bad = 0
for start in range(0, count, batch):
    p = rc.pipeline()
    for i in range(start, min(count, start + batch)):
        p.get(f"py:{i}")
    for i, v in zip(range(start, count), p.execute()):
        if v is None or int(v) != i:
            if not bad:
                print(f"py:{i} read {v!r} (slot {rc.keyslot(f'py:{i}')})", file=sys.stderr)
            bad += 1
print(bad)
EOF
bad=$($PY "$DIR/rc.py" write "$(ip_of 1)" "$COUNT") || fail_logs "RedisCluster write failed"
[ "$bad" = 0 ] || fail_logs "RedisCluster read back $bad wrong keys"
total=0
for i in 1 2 3; do
    n=$(cli "$i" DBSIZE)
    [ "$n" -gt $((COUNT / 3)) ] || fail "node $i holds only $n of $((2 * COUNT)) keys"
    total=$((total + n))
done
[ "$total" = $((2 * COUNT)) ] || fail "the nodes hold $total keys, expected $((2 * COUNT))"
echo "$TEST_NAME: $((2 * COUNT)) keys written and read back (redis-cli -c, RedisCluster)" >&2

# 3. Redirections.
slot=$(cli 1 CLUSTER KEYSLOT foo)
owner=$(cli 1 CLUSTER NODES | awk -v s="$slot" '{for (i = 9; i <= NF; i++) {split($i, r, "-");
    if (r[2] == "") r[2] = r[1]; if (s >= r[1] && s <= r[2]) print $2}}' | cut -d@ -f1)
for i in 1 2 3; do
    out=$(cli "$i" GET foo)
    if [ "$(ip_of "$i"):$PORT" = "$owner" ]; then
        [ -z "$out" ] || fail "GET foo on its owner: $out"
    else
        [ "$out" = "MOVED $slot $owner" ] || fail "GET foo on node $i: '$out', expected MOVED $slot $owner"
    fi
done
out=$(cli 1 -c MSET a 1 b 2)
[ "$out" = "CROSSSLOT Keys in request don't hash to the same slot" ] || fail "MSET a b: $out"
[ "$(cli 1 -c MSET '{t}a' 1 '{t}b' 2)" = OK ] || fail "MSET with a hash tag refused"
[ "$(cli 1 -c MGET '{t}a' '{t}b' | tr '\n' ' ')" = "1 2 " ] || fail "MGET with a hash tag"
[ "$(cli 1 SELECT 1)" = "ERR SELECT is not allowed in cluster mode" ] || fail "SELECT 1 allowed"
out=$(printf 'MULTI\nSET {t}a 5\nSET {t}b 6\nEXEC\n' | cli 1 -c | tr '\n' ' ')
case "$out" in *CROSSSLOT* | *MOVED*) ;; *) [[ "$out" == *"OK OK"* ]] || fail "MULTI on {t}: $out" ;; esac
echo "$TEST_NAME: MOVED, CROSSSLOT, hash tags as Redis" >&2

# 4. A migration by hand: slot of key "mig" from its owner to another node.
key=mig
cli 1 -c SET "$key" value >/dev/null
cli 1 -c SET "{$key}2" value2 >/dev/null
slot=$(cli 1 CLUSTER KEYSLOT "$key")
src= dst=
for i in 1 2 3; do
    if [ -z "$(cli "$i" GET "$key" | grep MOVED || true)" ]; then src=$i; fi
done
dst=$((src % 3 + 1))
src_id=$(cli "$src" CLUSTER MYID) dst_id=$(cli "$dst" CLUSTER MYID)
[ "$(cli "$dst" CLUSTER SETSLOT "$slot" IMPORTING "$src_id")" = OK ] || fail "SETSLOT IMPORTING"
[ "$(cli "$src" CLUSTER SETSLOT "$slot" MIGRATING "$dst_id")" = OK ] || fail "SETSLOT MIGRATING"
[ "$(cli "$src" MIGRATE "$(ip_of "$dst")" $PORT "$key" 0 5000)" = OK ] || fail "MIGRATE $key"
[ "$(cli "$src" GET "$key")" = "ASK $slot $(ip_of "$dst"):$PORT" ] || fail "no ASK: $(cli "$src" GET "$key")"
[ "$(cli "$src" GET "{$key}2")" = value2 ] || fail "a key not yet moved is not served by its source"
[ "$(cli "$dst" GET "$key")" = "MOVED $slot $(ip_of "$src"):$PORT" ] ||
    fail "target without ASKING: $(cli "$dst" GET "$key")"
[ "$(printf 'ASKING\nGET %s\n' "$key" | cli "$dst" | tail -n1)" = value ] ||
    fail "target with ASKING did not serve $key"
out=$(cli "$src" MGET "$key" "{$key}2")
[ "$out" = "TRYAGAIN Multiple keys request during rehashing of slot" ] || fail "MGET mid-migration: $out"
# The rest of the slot's keys (other tests' keys may share it), as redis-cli does.
mapfile -t rest < <(cli "$src" CLUSTER GETKEYSINSLOT "$slot" 1000)
[ "$(printf '%s\n' "${rest[@]}" | grep -cx "{$key}2")" = 1 ] || fail "GETKEYSINSLOT: ${rest[*]}"
[ "$(cli "$src" MIGRATE "$(ip_of "$dst")" $PORT "" 0 5000 KEYS "${rest[@]}")" = OK ] ||
    fail "MIGRATE KEYS"
[ "$(cli "$src" CLUSTER COUNTKEYSINSLOT "$slot")" = 0 ] || fail "keys left in slot $slot"
for i in 1 2 3; do
    [ "$(cli "$i" CLUSTER SETSLOT "$slot" NODE "$dst_id")" = OK ] || fail "SETSLOT NODE on node $i"
done
[ "$(cli "$src" GET "$key")" = "MOVED $slot $(ip_of "$dst"):$PORT" ] || fail "no MOVED after handover"
[ "$(cli "$dst" GET "$key")" = value ] || fail "$key not served by its new owner"
wait_for 30 "every node to agree after the handover" consistent
echo "$TEST_NAME: migration by hand: ASK, ASKING, TRYAGAIN, MOVED after handover" >&2

# 5. redis-cli --cluster reshard: 300 slots from node 1 to node 3, with keys.
out=$(redis-cli --cluster reshard "$(ip_of 1):$PORT" --cluster-from "$(cli 1 CLUSTER MYID)" \
    --cluster-to "$(cli 3 CLUSTER MYID)" --cluster-slots 300 --cluster-yes 2>&1) ||
    fail_logs "reshard failed: $(tail -n 5 <<<"$out")"
wait_for 30 "every node to agree after reshard" consistent
bad=$($PY "$DIR/rc.py" read "$(ip_of 2)" "$COUNT") || fail_logs "RedisCluster read failed"
[ "$bad" = 0 ] || fail "after reshard, $bad keys read back wrong"
echo "$TEST_NAME: reshard of 300 slots, every key still reads back" >&2

# 6. A redis-server node joins and takes slots from goblin-core.
out=$(redis-cli --cluster add-node "$(ip_of 4):$PORT" "$(ip_of 1):$PORT" 2>&1) ||
    fail_logs "add-node failed: $out"
wait_for 30 "the redis-server node to be known to all" \
    bash -c "consistent() { redis-cli --cluster check $(ip_of 1):$PORT >/dev/null 2>&1; }; consistent &&
    [ \$(redis-cli -h $(ip_of 2) -p $PORT CLUSTER NODES | wc -l) = 4 ]"
wait_for 30 "the redis-server node to see the cluster ok" state_is 4 ok
out=$(redis-cli --cluster reshard "$(ip_of 1):$PORT" --cluster-from "$(cli 2 CLUSTER MYID)" \
    --cluster-to "$(cli 4 CLUSTER MYID)" --cluster-slots 200 --cluster-yes 2>&1) ||
    fail_logs "reshard to redis-server failed: $(tail -n 5 <<<"$out")"
wait_for 30 "every node to agree with redis-server in" consistent
[ "$(cli 4 DBSIZE)" -gt 0 ] || fail "the redis-server node received no keys"
bad=$($PY "$DIR/rc.py" read "$(ip_of 4)" "$COUNT") || fail_logs "RedisCluster read (mixed) failed"
[ "$bad" = 0 ] || fail "in the mixed cluster, $bad keys read back wrong"
echo "$TEST_NAME: mixed cluster: redis-server holds $(cli 4 DBSIZE) keys, all read back" >&2

# 7. Node 3 fails: the others mark it and the cluster goes down; it returns.
kill -KILL "${NODE_PID[3]}"
wait "${NODE_PID[3]}" 2>/dev/null || true
wait_for 60 "node 1 to mark node 3 failing" state_is 1 fail
wait_for 60 "node 4 (redis-server) to mark node 3 failing" state_is 4 fail
out=$(cli 1 GET anything)
[ "$out" = "CLUSTERDOWN The cluster is down" ] || fail "down cluster answered: $out"
start_node 3
wait_for 60 "the cluster to be ok again" state_is 1 ok
wait_for 60 "redis-server to see it ok again" state_is 4 ok
echo "$TEST_NAME: OK" >&2
