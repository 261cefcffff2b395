#!/usr/bin/env bash
# Node.js clients against goblin-core, judged by redis-server: ioredis 5
# (standalone, and Redis.Cluster against three masters of each server),
# node-redis 4 (RESP2) and node-redis 5 (RESP3, client-side cache), pinned
# by tests/node/package-lock.json. Each script in tests/node runs once
# against goblin-core and once against redis-server 7.0; its transcript (one
# line per case: what the client library returned) must be identical, and
# its own assertions must hold against both. See tests/node/README.md.
#
# The packages are installed with `npm ci` on first use into a cache folder
# keyed by the lock file's hash (GOBLIN_NODE_CACHE, default
# ~/.cache/goblin-core/node-clients). Without the npm registry (and no
# cached install) the test is skipped (exit 77).
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
DIR=$(mktemp -d /tmp/goblin-node-clients-XXXXXX)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
NODE_DIR=$(cd "$(dirname "$0")/../node" && pwd)
SCRIPTS="ioredis.js node_redis.js node_redis_resp3.js ioredis_cluster.js bullmq.js"

command -v node >/dev/null && command -v npm >/dev/null ||
    fail "node and npm are not installed (make deps installs Debian's nodejs and npm)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || fail "Node.js $(node --version) is too old: the pinned clients need 18 or later"

# The pinned packages, installed once per lock file.
CACHE=${GOBLIN_NODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/goblin-core/node-clients}
KEY=$(cat "$NODE_DIR/package.json" "$NODE_DIR/package-lock.json" | sha1sum | cut -c1-16)
MODULES=$CACHE/$KEY
if [ ! -f "$MODULES/.installed" ]; then
    if ! timeout 30 npm ping --fetch-retries=0 >"$DIR/npm-ping.log" 2>&1; then
        echo "$TEST_NAME: SKIP: the npm registry is unreachable (npm ping failed or gave no answer" \
            "within 30 s) and no install is cached in $MODULES" >&2
        rm -rf "$DIR"
        exit 77
    fi
    mkdir -p "$CACHE"
    STAGE=$(mktemp -d "$CACHE/install-XXXXXX")
    cp "$NODE_DIR/package.json" "$NODE_DIR/package-lock.json" "$STAGE/"
    (cd "$STAGE" && timeout 300 npm ci --no-audit --no-fund --ignore-scripts) >"$DIR/npm.log" 2>&1 || {
        cat "$DIR/npm.log" >&2
        rm -rf "$STAGE"
        fail "npm ci of tests/node/package-lock.json failed"
    }
    touch "$STAGE/.installed"
    # Another run may have finished the same install meanwhile: keep one.
    mv -T "$STAGE" "$MODULES" 2>/dev/null || rm -rf "$STAGE"
fi
export NODE_PATH=$MODULES/node_modules

# free_ports N: N distinct free loopback ports, held open together while
# chosen (node starts faster than the python3 of testlib's free_port).
free_ports() {
    node -e '
        const net = require("net");
        const servers = [];
        const listen = () => new Promise((resolve) => {
            const s = net.createServer().listen(0, "127.0.0.1", () => resolve(s));
        });
        (async () => {
            for (let i = 0; i < Number(process.argv[1]); i++) servers.push(await listen());
            console.log(servers.map((s) => s.address().port).join(" "));
            servers.forEach((s) => s.close());
        })();' "$1"
}
free_port() { free_ports 1; }

launch_goblin() {
    mkdir -p "$DIR/goblin"
    "$GOBLIN_SERVER" --port "$PORT" --save "" --dir "$DIR/goblin" >"$LOG" 2>&1 &
    PID=$!
}
launch_redis() {
    mkdir -p "$DIR/redis"
    "$REDIS_SERVER" --port "$PORT" --save "" --appendonly no --dir "$DIR/redis" >"$DIR/redis.log" 2>&1 &
    PID=$!
}
declare -a NODE_PIDS=()
cleanup() {
    for pid in "${NODE_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    return 0
}
trap cleanup EXIT
start_server launch_redis
REDIS_PORT=$PORT
NODE_PIDS+=("$PID")
PID=
start_server launch_goblin

# start_cluster SIDE: three masters (goblin or redis) on loopback, a third
# of the slots each (CLUSTER ADDSLOTSRANGE), joined by CLUSTER MEET; sets
# CLUSTER_PORTS (comma-separated).
start_cluster() {
    local side=$1 i port bus node ports=() buses=() free
    read -ra free <<<"$(free_ports 6)"
    for i in 1 2 3; do
        port=${free[$((2 * i - 2))]} bus=${free[$((2 * i - 1))]} node=$DIR/$side-node$i
        mkdir -p "$node"
        if [ "$side" = goblin ]; then
            "$GOBLIN_SERVER" --port "$port" --cluster-enabled yes --cluster-port "$bus" \
                --cluster-node-timeout 3000 --dir "$node" --save "" >"$node/log" 2>&1 &
        else
            "$REDIS_SERVER" --port "$port" --cluster-enabled yes --cluster-port "$bus" \
                --cluster-node-timeout 3000 --dir "$node" --save "" --appendonly no >"$node/log" 2>&1 &
        fi
        NODE_PIDS+=("$!")
        ports+=("$port")
        buses+=("$bus")
    done
    for port in "${ports[@]}"; do
        for _ in $(seq 1 200); do
            [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && break
            sleep 0.05
        done
    done
    local ranges=("0 5460" "5461 10922" "10923 16383")
    for i in 0 1 2; do
        # shellcheck disable=SC2086 # the range is two words
        out=$(redis-cli -p "${ports[$i]}" CLUSTER ADDSLOTSRANGE ${ranges[$i]} 2>&1)
        [ "$out" = OK ] || fail "$side node ${ports[$i]}: CLUSTER ADDSLOTSRANGE ${ranges[$i]}: $out"
    done
    for i in 1 2; do
        out=$(redis-cli -p "${ports[0]}" CLUSTER MEET 127.0.0.1 "${ports[$i]}" "${buses[$i]}" 2>&1)
        [ "$out" = OK ] || fail "$side node ${ports[0]}: CLUSTER MEET ${ports[$i]}: $out"
    done
    for port in "${ports[@]}"; do
        for _ in $(seq 1 300); do
            redis-cli -p "$port" CLUSTER INFO | grep -q "^cluster_state:ok" && break
            sleep 0.1
        done
        redis-cli -p "$port" CLUSTER INFO | grep -q "^cluster_state:ok" || {
            tail -n 20 "$DIR/$side"-node*/log >&2
            fail "$side cluster node $port never says cluster_state:ok"
        }
    done
    CLUSTER_PORTS=$(IFS=,; echo "${ports[*]}")
}

start_cluster redis
REDIS_CLUSTER_PORTS=$CLUSTER_PORTS
start_cluster goblin
GOBLIN_CLUSTER_PORTS=$CLUSTER_PORTS

cases=0
for script in $SCRIPTS; do
    for side in redis goblin; do
        port=$REDIS_PORT cluster=$REDIS_CLUSTER_PORTS
        [ $side = goblin ] && port=$PORT cluster=$GOBLIN_CLUSTER_PORTS
        [ "$script" = ioredis_cluster.js ] && port=${cluster%%,*}
        CLUSTER_PORTS=$cluster PORT=$port timeout 120 node "$NODE_DIR/$script" >"$DIR/$script.$side" 2>"$DIR/$script.$side.err" || {
            st=$?
            cat "$DIR/$script.$side" "$DIR/$script.$side.err" >&2
            fail "$script against $side failed (exit status $st)"
        }
    done
    if ! cmp -s "$DIR/$script.redis" "$DIR/$script.goblin"; then
        diff "$DIR/$script.redis" "$DIR/$script.goblin" | cut -c1-2000 >&2
        fail "$script: goblin-core's transcript (>) differs from redis-server's (<)"
    fi
    n=$(wc -l <"$DIR/$script.goblin")
    cases=$((cases + n))
    echo "$TEST_NAME: $script: $n cases, same transcript as redis-server" >&2
done

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "goblin-core exited with status $rc"
rm -rf "$DIR"
echo "$TEST_NAME: $cases passed, 0 failed" >&2
