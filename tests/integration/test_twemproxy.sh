#!/usr/bin/env bash
# twemproxy (Debian nutcracker) in front of three goblin-core nodes, each in
# a network namespace of its own joined by a veth pair, so proxy-to-node
# traffic crosses real interfaces (deploy/twemproxy/run.sh, docs/scale-out.md):
#
#   1. COUNT keys of every type the server has, written through the proxy
#      and every value read back; the keys are spread over all three nodes;
#   2. redis-benchmark through the proxy completes without errors;
#   3. node 3 killed: exactly the keys it held read as missing or error,
#      every other key still reads back; writes of its keys go to the other
#      nodes once the proxy has ejected it (each one counted);
#   4. node 3 restarted (empty): the proxy routes its share of the keys to it
#      again; they read as missing until rewritten, then everything reads back.
set -euo pipefail
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN=$ROOT/deploy/twemproxy/run.sh
CHECK=$GOBLIN_BUILD_DIR/tests/keyset_check
COUNT=${COUNT:-100000}

if [ "$(id -u)" != 0 ]; then
    echo "$TEST_NAME: SKIP: network namespaces need root" >&2
    exit 77
fi
command -v nutcracker >/dev/null || fail "nutcracker (Debian package) is not installed"

TPDIR=$(mktemp -d /tmp/goblin-twemproxy.XXXXXX)
LOG=$TPDIR/nutcracker.log
cleanup() {
    bash "$RUN" stop "$TPDIR" >/dev/null 2>&1 || true
    rm -rf "$TPDIR"
}
trap cleanup EXIT

PROXY_PORT=$(free_port) STATS_PORT=$(free_port) NETNS=1 SERVER=$GOBLIN_SERVER \
    bash "$RUN" start "$TPDIR" 3 >/dev/null || fail "the deployment did not start"
# shellcheck disable=SC1091
source "$TPDIR/env"
proxy=(-h "$PROXY_HOST" -p "$PROXY_PORT")

node_keys() { redis-cli -h "$(eval echo "\$NODE_HOST_$1")" -p "$(eval echo "\$NODE_PORT_$1")" DBSIZE; }
# count FIELD OUTPUT: the value of FIELD=N in keyset_check's output line.
count() { sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p" <<<"$2"; }

# Every type the nodes implement (lists and sets when they exist).
types=string,hash,zset
[ "$(redis-cli -h "$NODE_HOST_1" -p "$NODE_PORT_1" COMMAND INFO rpush | head -n1)" = rpush ] &&
    types+=,list
[ "$(redis-cli -h "$NODE_HOST_1" -p "$NODE_PORT_1" COMMAND INFO sadd | head -n1)" = sadd ] &&
    types+=,set
ntypes=$(tr ',' '\n' <<<"$types" | wc -l)
total=$((COUNT * ntypes))

# 1. Every key written and read back through the proxy.
out=$("$CHECK" write "$PROXY_HOST" "$PROXY_PORT" "$COUNT" "$types") || fail "write: $out"
out=$("$CHECK" read "$PROXY_HOST" "$PROXY_PORT" "$COUNT" "$types") || fail "read: $out"
[ "$(count ok "$out")" = "$total" ] || fail "read back $out, expected ok=$total"
n1=$(node_keys 1) n2=$(node_keys 2) n3=$(node_keys 3)
[ $((n1 + n2 + n3)) = "$total" ] || fail "nodes hold $n1+$n2+$n3 keys, expected $total"
for n in "$n1" "$n2" "$n3"; do
    [ "$n" -gt $((total / 6)) ] || fail "uneven spread over the nodes: $n1 $n2 $n3"
done
echo "$TEST_NAME: $total keys ($types) through the proxy, nodes hold $n1/$n2/$n3" >&2

# 2. redis-benchmark through the proxy (no inline PING: twemproxy refuses it).
bench=$(redis-benchmark "${proxy[@]}" -t set,get,incr,mset -n 20000 -c 20 -P 4 -q 2>&1) ||
    fail "redis-benchmark through the proxy failed: $bench"
[ "$(grep -c 'requests per second' <<<"$bench")" = 4 ] ||
    fail "redis-benchmark through the proxy: $bench"

# 3. Node 3 fails.
bash "$RUN" kill-node "$TPDIR" 3
out=$("$CHECK" read "$PROXY_HOST" "$PROXY_PORT" "$COUNT" "$types") || true
[ "$(count ok "$out")" = $((total - n3)) ] ||
    fail "with node 3 down: $out, expected ok=$((total - n3)) (the keys of nodes 1 and 2)"
[ $(($(count missing "$out") + $(count errors "$out"))) = "$n3" ] ||
    fail "with node 3 down: $out, expected missing+errors=$n3 (node 3's keys)"
[ "$(count wrong "$out")" = 0 ] || fail "with node 3 down: wrong values: $out"
before=$(($(node_keys 1) + $(node_keys 2)))
out=$("$CHECK" write "$PROXY_HOST" "$PROXY_PORT" "$COUNT" "$types") || true
failed=$(count errors "$out")
after=$(($(node_keys 1) + $(node_keys 2)))
# Only node 3's keys are new to nodes 1 and 2; each write that did not fail
# (the proxy re-probes the dead node every 2 s) put one there.
[ $((after - before)) = $((n3 - failed)) ] ||
    fail "node 3's keys rerouted: nodes 1+2 grew by $((after - before)), expected $n3 - $failed"
[ "$failed" -lt "$n3" ] || fail "no write of node 3's keys was rerouted: $out"
echo "$TEST_NAME: node 3 down: its $n3 keys unreadable, $((n3 - failed)) rewritten to nodes 1-2" >&2

# 4. Node 3 comes back empty; the proxy routes its share to it again after
# server_retry_timeout (2 s).
bash "$RUN" start-node "$TPDIR" 3 >/dev/null || fail "node 3 did not restart"
deadline=$((SECONDS + 30))
while :; do
    out=$("$CHECK" read "$PROXY_HOST" "$PROXY_PORT" "$COUNT" "$types") || true
    [ "$(count errors "$out")" = 0 ] && [ "$(count missing "$out")" = "$n3" ] && break
    [ $SECONDS -lt $deadline ] || fail "node 3 not back in the ring after 30 s: $out"
    sleep 0.5
done
out=$("$CHECK" write "$PROXY_HOST" "$PROXY_PORT" "$COUNT" "$types") || fail "rewrite: $out"
out=$("$CHECK" read "$PROXY_HOST" "$PROXY_PORT" "$COUNT" "$types") || fail "read after rewrite: $out"
[ "$(node_keys 3)" = "$n3" ] || fail "node 3 holds $(node_keys 3) keys after the rewrite, expected $n3"
echo "$TEST_NAME: OK" >&2
