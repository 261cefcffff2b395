#!/usr/bin/env bash
# deploy/twemproxy/run.sh — N goblin-core nodes behind twemproxy (Debian's
# `nutcracker`), sharded by key with ketama. See docs/scale-out.md.
#
#   run.sh start DIR [NODES]     start NODES (default 3) nodes and the proxy;
#                                state and logs go in DIR
#   run.sh stop DIR              stop the proxy and the nodes, remove namespaces
#   run.sh kill-node DIR I       SIGKILL node I (1-based), as a crash would
#   run.sh start-node DIR I      start node I again (empty: no persistence here)
#
# Environment (defaults in brackets):
#   SERVER        node binary [build/goblin-core]; redis-server works too
#   SERVER_ARGS   extra node flags []; with --cluster-enabled yes each node
#                 gets DIR/nodesI.conf (form the cluster with redis-cli --cluster
#                 create; with NETNS the nodes reach each other routed through
#                 this namespace: ip_forward is turned on)
#   NETNS         1 = each node in a network namespace of its own, joined to
#                 this one by a veth pair, listening on 10.SUBNET.I.2:6379, so
#                 proxy-to-node traffic crosses a real interface (root needed);
#                 0 = nodes on 127.0.0.1:NODE_PORT+I-1 [0]
#   SUBNET        second octet of the 10.SUBNET.I.0/30 links [the first one free
#                 from one picked by the PID]
#   NODE_PORT     first node port without NETNS [7001]
#   PROXY_ADDR    [127.0.0.1]   PROXY_PORT [22121]   STATS_PORT [22222]
#   NUTCRACKER    proxy binary [nutcracker]
#
# DIR/env is sourceable afterwards: NODES, NODE_HOST_I, NODE_PORT_I, NODE_PID_I,
# NETNS_I (empty without NETNS), PROXY_HOST, PROXY_PORT, PROXY_PID.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SERVER=${SERVER:-$ROOT/build/goblin-core}
SERVER_ARGS=${SERVER_ARGS:-}
NETNS=${NETNS:-0}
NODE_PORT=${NODE_PORT:-7001}
PROXY_ADDR=${PROXY_ADDR:-127.0.0.1}
PROXY_PORT=${PROXY_PORT:-22121}
STATS_PORT=${STATS_PORT:-22222}
NUTCRACKER=${NUTCRACKER:-nutcracker}

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# wait_ping HOST PORT: until the endpoint answers PING (10 s).
wait_ping() {
    for _ in $(seq 1 200); do
        [ "$(timeout 2 redis-cli -h "$1" -p "$2" PING 2>/dev/null)" = "PONG" ] && return 0
        sleep 0.05
    done
    echo "run.sh: $1:$2 did not answer PING" >&2
    return 1
}

# start_node DIR I: starts node I as recorded in DIR/env. The node must
# accept the proxy, which is not a loopback client when the node is in a
# namespace of its own: protected mode is turned off where the binary has it.
start_node() {
    local dir=$1 i=$2 host port ns
    host=$(eval echo "\$NODE_HOST_$i")
    port=$(eval echo "\$NODE_PORT_$i")
    ns=$(eval echo "\${NETNS_$i:-}")
    local -a cmd=() extra=()
    [ -n "$ns" ] && cmd=(ip netns exec "$ns")
    cmd+=("$SERVER" --bind "$host" --port "$port")
    if "$SERVER" --version 2>/dev/null | grep -q '^Redis server'; then
        cmd+=(--save "" --appendonly no --protected-mode no)
    elif "$SERVER" --help 2>&1 | grep -- '--protected-mode' >/dev/null; then
        cmd+=(--protected-mode no)
    fi
    # goblin-core with snapshots: none, and none read from the working directory.
    # (grep reads all of --help: with -q, pipefail would see the SIGPIPE.)
    if "$SERVER" --help 2>&1 | grep -- '--dbfilename' >/dev/null; then
        cmd+=(--save "" --dir "$dir" --dbfilename "node$i.rdb")
    fi
    read -ra extra <<<"$SERVER_ARGS"
    cmd+=("${extra[@]}")
    # Cluster nodes each keep their own nodes.conf.
    [[ "$SERVER_ARGS" == *cluster-enabled* ]] && cmd+=(--cluster-config-file "$dir/nodes$i.conf")
    "${cmd[@]}" >>"$dir/node$i.log" 2>&1 &
    echo "NODE_PID_$i=$!" >>"$dir/env"
    wait_ping "$host" "$port"
}

# make_link I: namespace gbtp$$-I with veth gbtpI-$$ (this side, .1) and
# .2 inside; prints the namespace name.
make_link() {
    local i=$1
    local ns="gbtp$$-$i" here="gbh$$-$i" there="gbn$$-$i"
    ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    ip link add "$here" type veth peer name "$there"
    ip link set "$there" netns "$ns"
    ip addr add "10.$SUBNET.$i.1/30" dev "$here"
    ip link set "$here" up
    ip netns exec "$ns" ip addr add "10.$SUBNET.$i.2/30" dev "$there"
    ip netns exec "$ns" ip link set "$there" up
    # Nodes reach each other through this namespace (the cluster bus, when
    # SERVER_ARGS has --cluster-enabled yes).
    ip netns exec "$ns" ip route add default via "10.$SUBNET.$i.1"
    echo "$ns"
}

# free_subnet: X of a 10.X.0.0/16 no interface here has an address in,
# from 100..249 starting at one picked from the pid (a stale deployment
# left by a killed run, or another namespace test, keeps its subnet).
free_subnet() {
    local start=$(($$ % 150)) used k
    used=$(ip -4 -o addr show 2>/dev/null | awk '{ print $4 }')
    for k in $(seq 0 149); do
        local s=$((100 + (start + k) % 150))
        grep -q "^10\.$s\." <<<"$used" || { echo "$s"; return; }
    done
    echo $((100 + start))
}

cmd_start() {
    local dir=$1 nodes=${2:-3}
    mkdir -p "$dir"
    : >"$dir/env"
    SUBNET=${SUBNET:-$(free_subnet)}
    echo "NODES=$nodes" >>"$dir/env"
    [ "$NETNS" = 1 ] && sysctl -qw net.ipv4.ip_forward=1
    local servers=""
    for i in $(seq 1 "$nodes"); do
        local host port ns=""
        if [ "$NETNS" = 1 ]; then
            ns=$(make_link "$i")
            host=10.$SUBNET.$i.2
            port=6379
        else
            host=127.0.0.1
            port=$((NODE_PORT + i - 1))
        fi
        {
            echo "NODE_HOST_$i=$host"
            echo "NODE_PORT_$i=$port"
            echo "NETNS_$i=$ns"
        } >>"$dir/env"
        # The name after the weight keys ketama, so a node keeps its share
        # of the keys whatever its address.
        servers+="    - $host:$port:1 node$i"$'\n'
    done
    # shellcheck disable=SC1091
    source "$dir/env"
    for i in $(seq 1 "$nodes"); do start_node "$dir" "$i"; done

    cat >"$dir/nutcracker.yml" <<EOF
goblin:
  listen: $PROXY_ADDR:$PROXY_PORT
  redis: true
  hash: fnv1a_64
  distribution: ketama
  # A node that fails twice in a row is taken out of the ring for 2 s,
  # then tried again; its keys go to the other nodes meanwhile.
  auto_eject_hosts: true
  server_failure_limit: 2
  server_retry_timeout: 2000
  timeout: 1000
  preconnect: true
  server_connections: 1
  servers:
$servers
EOF
    "$NUTCRACKER" -t -c "$dir/nutcracker.yml" >/dev/null 2>&1 ||
        { echo "run.sh: nutcracker rejects $dir/nutcracker.yml" >&2; return 1; }
    "$NUTCRACKER" -c "$dir/nutcracker.yml" -s "$STATS_PORT" -a 127.0.0.1 \
        -o "$dir/nutcracker.log" -v 5 </dev/null >>"$dir/nutcracker.log" 2>&1 &
    {
        echo "PROXY_PID=$!"
        echo "PROXY_HOST=$PROXY_ADDR"
        echo "PROXY_PORT=$PROXY_PORT"
    } >>"$dir/env"
    wait_ping "$PROXY_ADDR" "$PROXY_PORT"
    echo "twemproxy on $PROXY_ADDR:$PROXY_PORT in front of $nodes nodes (state in $dir)"
}

cmd_stop() {
    local dir=$1
    # shellcheck disable=SC1091
    source "$dir/env"
    [ -n "${PROXY_PID:-}" ] && kill "$PROXY_PID" 2>/dev/null || true
    for i in $(seq 1 "$NODES"); do
        local pid ns
        pid=$(eval echo "\${NODE_PID_$i:-}")
        ns=$(eval echo "\${NETNS_$i:-}")
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
        if [ -n "$ns" ]; then
            # Deleting the namespace removes its veth end and so the pair.
            for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
            ip netns del "$ns" 2>/dev/null || true
        fi
    done
}

[ $# -ge 2 ] || usage
case $1 in
start) cmd_start "$2" "${3:-3}" ;;
stop) cmd_stop "$2" ;;
kill-node)
    # shellcheck disable=SC1091
    source "$2/env"
    kill -KILL "$(eval echo "\$NODE_PID_$3")"
    ;;
start-node)
    # shellcheck disable=SC1091
    source "$2/env"
    start_node "$2" "$3"
    ;;
*) usage ;;
esac
