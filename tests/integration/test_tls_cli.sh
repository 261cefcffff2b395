#!/usr/bin/env bash
# TLS with stock clients: Debian's redis-cli --tls (with and without a
# client certificate), redis-benchmark --tls pipelining (hiredis with
# hiredis_ssl, as redis-tools builds it), a plaintext redis-cli on the TLS port (refused, the
# server unaffected), redis-py with ssl=True (py/redis_py_tls.py), and the
# tls-* parameters' CONFIG GET compared with redis-server started with the
# same TLS flags.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
DIR=$(mktemp -d /tmp/goblin-tls-cli-XXXXXX)
LOG=$DIR/server.log
CERTS=$DIR/certs
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

bash "$(dirname "$0")/tls_certs.sh" "$CERTS" || fail "could not make certificates"
TLS_PORT=$(free_port)
# Incomplete TLS settings stop the start, with Redis's reasons.
timeout 20 "$GOBLIN_SERVER" --port 0 --tls-port "$TLS_PORT" --save '' --dir "$DIR" >"$DIR/bad.log" 2>&1 &&
    fail "started with --tls-port and no certificate"
grep -q "No tls-cert-file configured!" "$DIR/bad.log" || fail "no reason logged: $(cat "$DIR/bad.log")"
timeout 20 "$GOBLIN_SERVER" --port 0 --tls-port "$TLS_PORT" --tls-cert-file "$CERTS/server.crt" \
    --tls-key-file "$CERTS/server.key" --save '' --dir "$DIR" >"$DIR/bad.log" 2>&1 &&
    fail "started with tls-auth-clients yes and no CA"
grep -q "Either tls-ca-cert-file or tls-ca-cert-dir must be specified" "$DIR/bad.log" ||
    fail "no reason logged: $(cat "$DIR/bad.log")"
TLS_FLAGS=(--tls-port "$TLS_PORT" --tls-cert-file "$CERTS/server.crt" --tls-key-file "$CERTS/server.key"
           --tls-ca-cert-file "$CERTS/ca.crt" --tls-protocols "TLSv1.2 TLSv1.3")
launch_server() {
    "$GOBLIN_SERVER" --port "$PORT" --save '' --dir "$DIR" "${TLS_FLAGS[@]}" >"$LOG" 2>&1 &
    PID=$!
}
start_server launch_server

cli() { timeout 20 redis-cli -p "$TLS_PORT" --tls --cacert "$CERTS/ca.crt" "$@"; }
cli_cert() { cli --cert "$CERTS/client.crt" --key "$CERTS/client.key" "$@"; }

[ "$(cli_cert PING)" = PONG ] || fail "redis-cli --tls PING"
[ "$(cli_cert SET k hello)" = OK ] || fail "redis-cli --tls SET"
[ "$(cli_cert GET k)" = hello ] || fail "redis-cli --tls GET"
[ "$(printf 'INCR n\nINCR n\nINCR n\n' | cli_cert)" = "$(printf '1\n2\n3')" ] || fail "redis-cli --tls batch"
# Debian's libhiredis (0.14) has no hiredis_ssl, but redis-tools links its
# own hiredis with hiredis_ssl: redis-benchmark --tls is a hiredis TLS
# client, here pipelining (4 connections, 16 deep); every INCR counted.
timeout 120 redis-benchmark -p "$TLS_PORT" --tls --cacert "$CERTS/ca.crt" --cert "$CERTS/client.crt" \
    --key "$CERTS/client.key" -c 4 -P 16 -n 4000 -t incr -q >"$DIR/bench.out" 2>&1 ||
    fail "redis-benchmark --tls: $(cat "$DIR/bench.out")"
[ "$(cli_cert GET counter:__rand_int__)" = 4000 ] ||
    fail "redis-benchmark --tls -P 16: counter $(cli_cert GET counter:__rand_int__), expected 4000"

out=$(cli PING 2>&1)
[ "$out" != PONG ] || fail "a client without a certificate was served (tls-auth-clients yes)"
out=$(timeout 20 redis-cli -p "$TLS_PORT" PING 2>&1)
[ "$out" != PONG ] || fail "a plaintext client was served on the TLS port"
kill -0 "$PID" || fail "the server died"
[ "$(redis-cli -p "$PORT" PING)" = PONG ] || fail "plaintext port after the refusals"
[ "$(cli_cert PING)" = PONG ] || fail "TLS port after the refusals"
grep -q "Error accepting a client connection" "$LOG" || fail "no log line for the refused handshake"

[ "$(cli_cert CONFIG SET tls-auth-clients optional)" = OK ] || fail "CONFIG SET tls-auth-clients optional"
[ "$(cli PING)" = PONG ] || fail "no certificate with tls-auth-clients optional"
[ "$(cli_cert CONFIG SET tls-auth-clients yes)" = OK ] || fail "CONFIG SET tls-auth-clients yes"

PY=/usr/bin/python3
$PY -c 'import redis' 2>/dev/null || fail "python3-redis is not installed (apt-get install python3-redis)"
out=$(timeout 120 $PY "$(dirname "$0")/py/redis_py_tls.py" "$TLS_PORT" "$CERTS" 2>&1) ||
    fail "redis-py over TLS: $out"
echo "$TEST_NAME: $out" >&2

# CONFIG GET of every tls-* parameter goblin has, against redis-server
# with the same flags (tls-port aside: a different port).
RPORT=$(free_port)
RTLS=$(free_port)
"$REDIS_SERVER" --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$DIR" \
    "${TLS_FLAGS[@]}" --tls-port "$RTLS" >"$DIR/redis.log" 2>&1 &
RPID=$!
for _ in $(seq 1 200); do
    [ "$(redis-cli -p "$RPORT" PING 2>/dev/null)" = PONG ] && break
    sleep 0.05
done
for name in tls-cert-file tls-key-file tls-ca-cert-file tls-ca-cert-dir tls-auth-clients \
    tls-protocols tls-ciphers tls-ciphersuites tls-prefer-server-ciphers; do
    g=$(redis-cli -p "$PORT" CONFIG GET "$name")
    r=$(redis-cli -p "$RPORT" CONFIG GET "$name")
    [ "$g" = "$r" ] || { kill "$RPID"; fail "CONFIG GET $name: goblin '$g', redis '$r'"; }
done
kill -TERM "$RPID"
wait "$RPID"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "server exited with status $rc"
rm -rf "$DIR"
echo "$TEST_NAME: ok" >&2
