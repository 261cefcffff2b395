#!/usr/bin/env bash
# Redis Cluster replicas (docs/scale-out.md, "Replicas and failover"):
# tests/integration/cluster_replicas.py runs three clusters of six nodes, each
# made by `redis-cli --cluster create ... --cluster-replicas 1`:
#   - goblin-core only: replicas synced and listed (CLUSTER NODES, REPLICAS,
#     SLAVES, nodes.conf), writes read back on the replicas with READONLY
#     (MOVED without it), CLUSTER FAILOVER / FORCE / TAKEOVER, kill -9 of a
#     master under WAIT-acknowledged writes: its replica takes over, no slot
#     uncovered, no acknowledged write lost, the old master back as a replica;
#   - redis-server only, the same (the reference);
#   - mixed (three of each): a redis-server replica of a goblin-core master
#     and a goblin-core replica of a redis-server master, the refusals of
#     CLUSTER REPLICATE/REPLICAS/SLAVES/FAILOVER byte for byte as
#     redis-server's, CLUSTER NODES/SLOTS/SHARDS of a goblin-core and a
#     redis-server node equal, each kind of master killed in turn.
# Then the masked shapes (ids, ports, times, epochs, offsets) of the
# goblin-core-only and redis-server-only clusters must be equal.
set -u
GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
export GOBLIN_SERVER REDIS_SERVER=${REDIS_SERVER:-redis-server}
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
PY=/usr/bin/python3
$PY -c 'import redis.cluster' 2>/dev/null || fail "python3-redis is not installed"
DIR=$(mktemp -d /tmp/goblin-cluster-replicas.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
HERE=$(dirname "$0")

for mode in ${CLUSTER_REPLICAS_MODES:-goblin redis mixed}; do
    mkdir -p "$DIR/$mode"
    timeout 900 $PY "$HERE/cluster_replicas.py" "$DIR/$mode" "$mode" || fail "the $mode run failed"
done
if [ -f "$DIR/goblin/shape.goblin" ] && [ -f "$DIR/redis/shape.redis" ]; then
    diff -u "$DIR/redis/shape.redis" "$DIR/goblin/shape.goblin" >&2 ||
        fail "CLUSTER NODES/SLOTS/SHARDS shapes differ from redis-server's (- redis, + goblin)"
fi
echo "$TEST_NAME: ok" >&2
