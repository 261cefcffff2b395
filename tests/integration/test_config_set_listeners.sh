#!/usr/bin/env bash
# Integration: CONFIG SET port and bind at run time, as Redis 7.0's
# changeListener/changeBindAddr (issue 30). The listeners move to the new
# port or addresses (an address kept is not reopened); a port another
# socket holds answers "Unable to listen on this port", an address that
# cannot be bound "Failed to bind to specified addresses." (both compared
# with redis-server's replies), and then the server still listens where it
# did and every setting of that CONFIG SET is rolled back. bind "" leaves
# no TCP listener while connected clients keep working. With TLS on, a
# bind change moves the TLS listener too.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
redis="${REDIS_SERVER:-/usr/bin/redis-server}"
DIR=$(mktemp -d)
LOG=$DIR/g.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
[ -x "$redis" ] || fail "redis-server is required ($redis)"
HOLDER=
RPID=
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; [ -n "$RPID" ] && kill -9 "$RPID" 2>/dev/null;
      [ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null; rm -rf "$DIR"' EXIT

launch() {
    "$bin" --port "$PORT" --dir "$DIR" --save "" >"$LOG" 2>&1 &
    PID=$!
}
start_server launch
RPORT=$(free_port)
"$redis" --port "$RPORT" --dir "$DIR" --save "" --bind 127.0.0.1 >"$DIR/r.log" 2>&1 &
RPID=$!
for _ in $(seq 1 100); do
    [ "$(redis-cli -p "$RPORT" PING 2>/dev/null)" = PONG ] && break
    sleep 0.05
done
g() { redis-cli -h "${GHOST:-127.0.0.1}" -p "$PORT" "$@" 2>&1; }
ping_at() { [ "$(timeout 5 redis-cli -h "$1" -p "$2" PING 2>/dev/null)" = PONG ]; }

# A port another socket holds (a listener of this test).
BUSY=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
time.sleep(600)' "$BUSY" &
HOLDER=$!
for _ in $(seq 1 100); do
    python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' \
        "$BUSY" 2>/dev/null && break
    sleep 0.05
done

# The port moves.
NEW=$(free_port)
[ "$(g CONFIG SET port "$NEW")" = OK ] || fail "CONFIG SET port"
OLD=$PORT
PORT=$NEW
ping_at 127.0.0.1 "$PORT" || fail "no PONG on the new port"
ping_at 127.0.0.1 "$OLD" && fail "the old port still answers"
[ "$(g CONFIG GET port | tail -n 1)" = "$PORT" ] || fail "CONFIG GET port"
g INFO server | grep -q "^tcp_port:$PORT" || fail "INFO tcp_port is not the new port"

# A held port: Redis's error, nothing changed (maxmemory rolled back too).
before=$(g CONFIG GET maxmemory | tail -n 1)
want=$(redis-cli -p "$RPORT" CONFIG SET maxmemory 10000001 port "$BUSY" 2>&1)
got=$(g CONFIG SET maxmemory 10000001 port "$BUSY")
[ "$got" = "$want" ] || fail "held port: '$got', redis-server '$want'"
grep -q "Unable to listen on this port" <<<"$got" || fail "held port: $got"
ping_at 127.0.0.1 "$PORT" || fail "the server stopped listening after a failed port change"
[ "$(g CONFIG GET maxmemory | tail -n 1)" = "$before" ] || fail "maxmemory not rolled back"
[ "$(g CONFIG GET port | tail -n 1)" = "$PORT" ] || fail "port not rolled back"

# An address that cannot be bound.
want=$(redis-cli -p "$RPORT" CONFIG SET bind 999.999.999.999 2>&1)
got=$(g CONFIG SET bind 999.999.999.999)
[ "$got" = "$want" ] || fail "bad bind: '$got', redis-server '$want'"
ping_at 127.0.0.1 "$PORT" || fail "the server stopped listening after a failed bind"
[ "$(g CONFIG GET bind | tail -n 1)" = "127.0.0.1" ] || fail "bind not rolled back"

# More addresses: the kept one is not reopened, the added one answers.
[ "$(g CONFIG SET bind "127.0.0.1 127.0.0.2")" = OK ] || fail "CONFIG SET bind two addresses"
ping_at 127.0.0.2 "$PORT" || fail "no PONG on the added address"
[ "$(grep -c "listening on 127.0.0.1:$PORT" "$LOG")" = 1 ] || fail "the kept address was reopened"

# bind "": no TCP listener; a connected client keeps its connection.
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
[ "$(g CONFIG SET bind "")" = OK ] || fail "CONFIG SET bind \"\""
ping_at 127.0.0.1 "$PORT" && fail "bind \"\" still accepts"
printf 'CONFIG SET bind 127.0.0.1\r\n' >&3
read -r -t 5 reply <&3 || fail "the connected client got no reply"
[ "${reply%$'\r'}" = "+OK" ] || fail "CONFIG SET bind from the connected client: $reply"
exec 3<&-
ping_at 127.0.0.1 "$PORT" || fail "no PONG after bind is back"
ping_at 127.0.0.2 "$PORT" && fail "127.0.0.2 still answers"

# TLS: the TLS port's listeners follow the bind list.
kill -9 "$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
PID=
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$DIR/k.pem" -out "$DIR/c.pem" -days 1 \
    -subj /CN=localhost 2>/dev/null || fail "openssl could not make a certificate"
TPORT=$(free_port)
launch_tls() {
    "$bin" --port "$PORT" --tls-port "$TPORT" --tls-cert-file "$DIR/c.pem" \
        --tls-key-file "$DIR/k.pem" --tls-ca-cert-file "$DIR/c.pem" --tls-auth-clients no \
        --dir "$DIR" --save "" >"$LOG" 2>&1 &
    PID=$!
}
start_server launch_tls
tping() {
    [ "$(timeout 5 redis-cli --tls --cacert "$DIR/c.pem" -h "$1" -p "$TPORT" PING 2>/dev/null)" = PONG ]
}
tping 127.0.0.1 || fail "no TLS PONG"
[ "$(g CONFIG SET bind 127.0.0.2)" = OK ] || fail "CONFIG SET bind with TLS on"
GHOST=127.0.0.2
tping 127.0.0.2 || fail "no TLS PONG on the new address"
tping 127.0.0.1 && fail "the TLS listener stayed on the old address"
ping_at 127.0.0.2 "$PORT" || fail "no plain PONG on the new address"
echo "config_set_listeners: ok"
