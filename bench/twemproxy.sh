#!/usr/bin/env bash
# twemproxy.sh — three nodes behind twemproxy and as a Redis Cluster against
# one node, goblin-core
# vs redis-server in the same topology, in one run, with the stock
# redis-benchmark (docs/scale-out.md):
#
#   topology direct1   one node on 127.0.0.1, redis-benchmark straight to it
#   topology proxy3    three nodes, each in a network namespace of its own
#                      (veth), behind nutcracker on 127.0.0.1
#                      (deploy/twemproxy/run.sh NETNS=1; needs root)
#   topology cluster3  the same three nodes with --cluster-enabled yes, formed
#                      by redis-cli --cluster create; redis-benchmark --cluster
#                      routes each key to its node (no proxy)
#   mode depth1        -c 1 -P 1 -n REQUESTS: the depth-one p50 through the
#                      proxy against direct
#   mode throughput    -c 50 -P 16 -n P_REQUESTS -r 100000
#
# Servers (SERVERS [goblin,goblin-block,redis]): goblin = goblin-core with its
# defaults (adaptive idle: each node polls for 200 µs after activity),
# goblin-block = --idle-strategy block, redis = redis-server.
# Environment (defaults in brackets): TESTS [set,get], REQUESTS [20000],
# P_REQUESTS [1000000], RESULTS_ROOT [<repo>/results], GOBLIN_ARGS (extra
# goblin-core flags) [].
# Writes results/<timestamp>-twemproxy/{raw/<server>-<topology>-<mode>.csv,
# metadata.txt,report.md}; report.md by bench/report_twemproxy.py.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"
TESTS=${TESTS:-set,get}
REQUESTS=${REQUESTS:-20000}
P_REQUESTS=${P_REQUESTS:-1000000}
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-twemproxy
mkdir -p "$OUT/raw"
LOAD_AT_START=$(cut -d" " -f1-3 /proc/loadavg)
[ "$(id -u)" = 0 ] || { echo "twemproxy.sh: the proxy3 topology needs root (namespaces)" >&2; exit 1; }

binary() { if [ "$1" = redis ]; then echo "$REDIS_SERVER"; else echo "$GOBLIN_SERVER"; fi; }
args() {
    case $1 in
    redis) echo "" ;;
    goblin-block) echo "--idle-strategy block ${GOBLIN_ARGS:-}" ;;
    *) echo "${GOBLIN_ARGS:-}" ;;
    esac
}
SERVERS=${SERVERS:-goblin,goblin-block,redis}

# bench SERVER TOPOLOGY HOST PORT [--cluster]: both modes against HOST:PORT.
bench() {
    local server=$1 topology=$2 host=$3 port=$4 cluster=${5:-}
    # shellcheck disable=SC2086 # $cluster is empty or one flag
    redis-benchmark $cluster -h "$host" -p "$port" -c 1 -P 1 -n "$REQUESTS" -t "$TESTS" --csv \
        >"$OUT/raw/$server-$topology-depth1.csv"
    # shellcheck disable=SC2086
    redis-benchmark $cluster -h "$host" -p "$port" -c 50 -P 16 -n "$P_REQUESTS" -r 100000 \
        -t "$TESTS" --csv >"$OUT/raw/$server-$topology-throughput.csv"
}

for server in ${SERVERS//,/ }; do
    dir=$OUT/cells/$server-direct1
    mkdir -p "$dir"
    SERVER=$(binary "$server") SERVER_ARGS=$(args "$server") PROXY_PORT=$(free_port) STATS_PORT=$(free_port) \
        NODE_PORT=$(free_port) bash "$ROOT/deploy/twemproxy/run.sh" start "$dir" 1 >/dev/null
    # shellcheck disable=SC1091
    (source "$dir/env" && bench "$server" direct1 "$NODE_HOST_1" "$NODE_PORT_1")
    bash "$ROOT/deploy/twemproxy/run.sh" stop "$dir"

    dir=$OUT/cells/$server-proxy3
    mkdir -p "$dir"
    SERVER=$(binary "$server") SERVER_ARGS=$(args "$server") PROXY_PORT=$(free_port) STATS_PORT=$(free_port) NETNS=1 \
        bash "$ROOT/deploy/twemproxy/run.sh" start "$dir" 3 >/dev/null
    # shellcheck disable=SC1091
    (source "$dir/env" && bench "$server" proxy3 "$PROXY_HOST" "$PROXY_PORT")
    bash "$ROOT/deploy/twemproxy/run.sh" stop "$dir"

    dir=$OUT/cells/$server-cluster3
    mkdir -p "$dir"
    SERVER=$(binary "$server") SERVER_ARGS="$(args "$server") --cluster-enabled yes" \
        PROXY_PORT=$(free_port) STATS_PORT=$(free_port) NETNS=1 \
        bash "$ROOT/deploy/twemproxy/run.sh" start "$dir" 3 >/dev/null
    (
        # shellcheck disable=SC1091
        source "$dir/env"
        redis-cli --cluster create "$NODE_HOST_1:$NODE_PORT_1" "$NODE_HOST_2:$NODE_PORT_2" \
            "$NODE_HOST_3:$NODE_PORT_3" --cluster-yes >"$dir/create.log" 2>&1
        for _ in $(seq 1 300); do
            ok=0
            for i in 1 2 3; do
                redis-cli -h "$(eval echo "\$NODE_HOST_$i")" -p "$NODE_PORT_1" CLUSTER INFO |
                    grep -q '^cluster_state:ok' && ok=$((ok + 1))
            done
            [ $ok = 3 ] && break
            sleep 0.1
        done
        bench "$server" cluster3 "$NODE_HOST_1" "$NODE_PORT_1" --cluster
    )
    bash "$ROOT/deploy/twemproxy/run.sh" stop "$dir"
done

{
    echo "report: twemproxy"
    echo "topologies: direct1,proxy3,cluster3"
    echo "servers: $SERVERS"
    echo "date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
    echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r)"
    echo "redis-server: $("$REDIS_SERVER" --version | head -n1)"
    echo "nutcracker: $(nutcracker --version 2>&1 | head -n1)"
    echo "pinning: none (three nodes, the proxy and redis-benchmark share the CPUs)"
    echo "load average at start: $LOAD_AT_START (1, 5, 15 min)"
    echo "command: SERVERS=$SERVERS TESTS=$TESTS REQUESTS=$REQUESTS P_REQUESTS=$P_REQUESTS GOBLIN_ARGS='${GOBLIN_ARGS:-}' bash bench/twemproxy.sh"
} >"$OUT/metadata.txt"
rm -rf "$OUT/cells"
python3 "$ROOT/bench/report_twemproxy.py" "$OUT"
cat "$OUT/report.md"
