#!/usr/bin/env bash
# Protected mode as Redis 7.0, from a second network namespace: a server
# bound to a non-loopback address with no password answers a remote TCP
# client with Redis's DENIED explanation and closes it (byte for byte what
# redis-server 7.0.15 sends, same setup, side by side), counted in
# rejected_connections, while loopback clients are served; CONFIG SET
# protected-mode no, a password (then NOAUTH, as Redis), or
# --protected-mode no let the remote client in. Loopback is what Redis
# 7.0.15 calls local: 127.0.0.1 and ::1 exactly (another 127.0.0.0/8
# source is denied, as redis-server does), the same peers that may run
# DEBUG under enable-debug-command local.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: network namespaces need root"
    exit 77
fi

tag=$$
srv_ns="gpm-srv-$tag"
cli_ns="gpm-cli-$tag"
octet=$((tag % 250 + 1)) # a /30 of 10.201.0.0/16 picked from the pid
srv_ip="10.201.$octet.1"
cli_ip="10.201.$octet.2"
DIR=$(mktemp -d /tmp/goblin-protected-XXXXXX)
LOG=$DIR/goblin.log
RPID=

cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    [ -n "$RPID" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null
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
ip link add "gps$tag" type veth peer name "gpc$tag"
ip link set "gps$tag" netns "$srv_ns"
ip link set "gpc$tag" netns "$cli_ns"
ip -n "$srv_ns" addr add "$srv_ip/30" dev "gps$tag"
ip -n "$cli_ns" addr add "$cli_ip/30" dev "gpc$tag"
for ns in "$srv_ns" "$cli_ns"; do ip -n "$ns" link set lo up; done
ip -n "$srv_ns" link set "gps$tag" up
ip -n "$cli_ns" link set "gpc$tag" up

# The namespaces are private: fixed ports cannot clash.
GPORT=6379
RPORT=6380

# raw NS HOST PORT [SOURCE [COMMAND]]: prints every byte received (repr,
# one line), then "closed" or "open". A server that speaks first (DENIED)
# is read until it closes without sending anything (a pending command would
# make its close a reset); otherwise COMMAND (words; default PING) is sent
# after 0.5 s and its reply read. SOURCE: the local address to connect from.
raw() {
    ip netns exec "$1" python3 - "$2" "$3" "${4:-}" "${5:-PING}" <<'PY'
import socket, sys
source = (sys.argv[3], 0) if sys.argv[3] else None
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5, source_address=source)
words = sys.argv[4].encode().split()
command = b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words)
data, state = b"", "open"
def read_until_quiet(timeout, one_reply=False):
    global data, state
    s.settimeout(timeout)
    try:
        while not (one_reply and data.endswith(b"\r\n")):
            chunk = s.recv(65536)
            if not chunk:
                state = "closed"
                return
            data += chunk
    except socket.timeout:
        pass
    except ConnectionResetError:
        state = "reset"
read_until_quiet(0.5)
if not data and state == "open":
    s.sendall(command)
    read_until_quiet(2, one_reply=True)
print(repr(data))
print(state)
PY
}

cli() { ip netns exec "$srv_ns" redis-cli -h 127.0.0.1 -p "$1" "${@:2}"; }

wait_ready() {
    for _ in $(seq 1 200); do
        [ "$(cli "$1" PING 2>/dev/null)" = PONG ] && return 0
        sleep 0.05
    done
    fail "server on port $1 did not start"
}

start_goblin() {
    ip netns exec "$srv_ns" "$GOBLIN_SERVER" --bind "$srv_ip 127.0.0.1 ::1" --port "$GPORT" \
        --save "" --dir "$DIR" --mlockall no "$@" >"$LOG" 2>&1 &
    PID=$!
    wait_ready "$GPORT"
}

start_goblin --enable-debug-command local
ip netns exec "$srv_ns" "$REDIS_SERVER" --bind "$srv_ip 127.0.0.1 ::1" --port "$RPORT" --save "" \
    --appendonly no --dir "$DIR" --enable-debug-command local >"$DIR/redis.log" 2>&1 &
RPID=$!
wait_ready "$RPORT"

# Remote, no password: Redis's DENIED text, then closed.
g=$(raw "$cli_ns" "$srv_ip" "$GPORT")
r=$(raw "$cli_ns" "$srv_ip" "$RPORT")
echo "$r" | grep -q "^b.-DENIED Redis is running in protected mode" ||
    fail "redis-server did not deny: $r"
[ "$g" = "$r" ] || fail "remote client, protected mode: goblin-core answered
$g
redis-server answered
$r"
[ "$(echo "$g" | tail -1)" = closed ] || fail "the denied client was not closed"
cli "$GPORT" INFO stats | grep -q '^rejected_connections:1' || fail "rejected_connections is not 1"
# Loopback clients are served (the test's own PINGs above), and CLIENT LIST
# holds no trace of the denied one.
[ "$(cli "$GPORT" CLIENT LIST | wc -l)" = 1 ] || fail "the denied client is still listed"

# Loopback is 127.0.0.1 and ::1 exactly, as Redis 7.0.15's
# clientAcceptHandler()/islocalClient() (7.2 widened it to 127.0.0.0/8):
# they pass protected mode and may run DEBUG under enable-debug-command
# local; another 127.0.0.0/8 source is denied. Byte for byte as redis-server.
for peer in "127.0.0.1 127.0.0.1 +" "::1 ::1 +" "127.0.0.1 127.0.0.5 -DENIED"; do
    read -r host source expect <<<"$peer"
    commands=(PING "DEBUG SLEEP 0")
    [ "$expect" = + ] || commands=(PING) # denied before any command
    for command in "${commands[@]}"; do
        g=$(raw "$srv_ns" "$host" "$GPORT" "$source" "$command")
        r=$(raw "$srv_ns" "$host" "$RPORT" "$source" "$command")
        [ "$g" = "$r" ] || fail "$command from $source: goblin-core $g, redis-server $r"
        [[ $g == b?"$expect"* ]] || fail "$command from $source: $g"
    done
done
cli "$GPORT" INFO stats | grep -q '^rejected_connections:2' || fail "rejected_connections is not 2"

# A password lets remote clients reach AUTH (NOAUTH before it), as Redis.
for port in "$GPORT" "$RPORT"; do cli "$port" CONFIG SET requirepass s3cret >/dev/null; done
g=$(raw "$cli_ns" "$srv_ip" "$GPORT")
r=$(raw "$cli_ns" "$srv_ip" "$RPORT")
[ "$g" = "$r" ] || fail "remote client with a password set: goblin-core $g, redis-server $r"
echo "$g" | grep -q NOAUTH || fail "remote client with a password: $g"
for port in "$GPORT" "$RPORT"; do cli "$port" -a s3cret --no-auth-warning CONFIG SET requirepass "" >/dev/null; done

# CONFIG SET protected-mode no from the loopback interface.
for port in "$GPORT" "$RPORT"; do cli "$port" CONFIG SET protected-mode no >/dev/null; done
[ "$(cli "$GPORT" CONFIG GET protected-mode | tail -1)" = no ] || fail "CONFIG GET protected-mode"
g=$(raw "$cli_ns" "$srv_ip" "$GPORT")
r=$(raw "$cli_ns" "$srv_ip" "$RPORT")
[ "$g" = "$r" ] || fail "protected-mode no: goblin-core $g, redis-server $r"
[ "$(echo "$g" | head -1)" = "b'+PONG\\r\\n'" ] || fail "protected-mode no: $g"
[ "$(ip netns exec "$cli_ns" redis-cli -h "$srv_ip" -p "$GPORT" PING)" = PONG ] ||
    fail "redis-cli from the other namespace"
# With protected mode off, a remote peer and a 127.0.0.0/8 source other
# than 127.0.0.1 are served but are not local: DEBUG is refused.
for peer in "$cli_ns $srv_ip -" "$srv_ns 127.0.0.1 127.0.0.5"; do
    read -r ns host source <<<"$peer"
    [ "$source" = - ] && source=
    g=$(raw "$ns" "$host" "$GPORT" "$source" "DEBUG SLEEP 0")
    r=$(raw "$ns" "$host" "$RPORT" "$source" "DEBUG SLEEP 0")
    [ "$g" = "$r" ] || fail "DEBUG from $host/$source: goblin-core $g, redis-server $r"
    echo "$g" | grep -q "DEBUG command not allowed" || fail "DEBUG from $host/$source: $g"
done

# --protected-mode no at startup.
kill "$PID"
wait "$PID" || fail "server exited with status $?"
start_goblin --protected-mode no
[ "$(ip netns exec "$cli_ns" redis-cli -h "$srv_ip" -p "$GPORT" PING)" = PONG ] ||
    fail "--protected-mode no: the remote client was refused"
kill "$PID"
wait "$PID" || fail "server exited with status $?"
PID=
echo "protected mode: ok"
