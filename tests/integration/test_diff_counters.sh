#!/usr/bin/env bash
# INFO's change and lookup counters, command by command, against
# redis-server 7.0: for each command, how much it moves keyspace_hits,
# keyspace_misses and rdb_changes_since_last_save (the "dirty" counter that
# drives save points and AOF rewrites) must be the same on both servers.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
DIR=$(mktemp -d /tmp/goblin-counters-XXXXXX)
LOG=$DIR/goblin.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

launch_goblin() {
    "$GOBLIN_SERVER" --port "$PORT" --dir "$DIR" --save "" >"$LOG" 2>&1 &
    PID=$!
}
launch_redis() {
    "$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --dir "$DIR" --save "" >"$DIR/redis.log" 2>&1 &
    PID=$!
}
start_server launch_goblin
GPORT=$PORT
PIDS+=("$PID")
LOG=$DIR/redis.log start_server launch_redis
RPORT=$PORT
PIDS+=("$PID")
PID=

# counters PORT: "hits misses changes"
counters() {
    redis-cli -p "$1" INFO | tr -d '\r' |
        awk -F: '/^keyspace_hits:/ {h = $2} /^keyspace_misses:/ {m = $2}
                 /^rdb_changes_since_last_save:/ {c = $2} END {print h, m, c}'
}

# delta PORT ARGS...: how far ARGS moves each counter on the server at PORT.
delta() {
    local port=$1
    shift
    read -r h0 m0 c0 <<<"$(counters "$port")"
    redis-cli -p "$port" "$@" >/dev/null
    read -r h1 m1 c1 <<<"$(counters "$port")"
    echo "hits+$((h1 - h0)) misses+$((m1 - m0)) changes+$((c1 - c0))"
}

n=0
while IFS= read -r line; do
    [ -z "$line" ] && continue
    # shellcheck disable=SC2086 # each line is a command's words
    set -- $line
    want=$(delta "$RPORT" "$@")
    got=$(delta "$GPORT" "$@")
    [ "$got" = "$want" ] || fail "'$line': redis-server $want, goblin-core $got"
    n=$((n + 1))
done <<'EOF'
SET k v
TYPE k
TYPE nokey
TTL k
PTTL nokey
EXPIRETIME k
PEXPIRETIME nokey
OBJECT ENCODING k
OBJECT ENCODING nokey
OBJECT FREQ k
MEMORY USAGE k
EXISTS k nokey
EXPIRE k 1000
EXPIRE k 1000 NX
EXPIRE nokey 5
PEXPIRE k 100000
PERSIST k
PERSIST k
PERSIST nokey
GETEX k EX 100
GETEX k PERSIST
GETEX k PERSIST
GETEX nokey EX 5
EXPIREAT k 1
SET k v EX 100
SET k v KEEPTTL
GET k
STRLEN nokey
HSET h f v
HGET h f
HGET h nofield
DEL k h nokey
HSET h f v
HSET h f v2 g w
HSETNX h z 1
HDEL h f nof
HINCRBY h n 1
LPUSH l a b c
RPUSH l d
LPOP l
RPOP l 2
LSET l 0 x
LREM l 0 x
RPUSH l e f g
SADD s a b
SADD s a
SREM s a
SPOP s
SADD s a b c
ZADD z 1 a 2 b
ZADD z 1 a
ZINCRBY z 1 a
ZREM z a
INCR n
INCRBY n 5
INCRBYFLOAT n 1.5
APPEND n 1
APPEND newstr abc
SETRANGE n 0 9
SETRANGE newrange 2 x
GETDEL newrange
GETDEL newrange
MSET a 1 b 2
MSETNX c 1 d 2
SETNX a 3
GETSET a 4
RENAME a aa
RENAME b aa
COPY aa ab
COPY aa ab REPLACE
MOVE ab 1
SWAPDB 0 1
SWAPDB 0 1
SETBIT bits 7 1
SETBIT bits 7 1
BITOP OR bits2 bits
BITOP OR bits2 nokey
BITOP OR bits3 nokey
PFADD hll a b
PFADD hll a
SORT l ALPHA STORE sorted
LMOVE l l2 LEFT RIGHT
RPOPLPUSH l2 l3
SMOVE s s2 b
SINTERSTORE s3 s s2
SINTERSTORE s3 s nokey
SUNIONSTORE s4 s s2
ZUNIONSTORE z2 1 z
ZUNIONSTORE z2 1 nokey
ZRANGESTORE z3 z 0 -1
DUMP z
UNLINK s4 nokey
FLUSHDB
SET x 1
FLUSHALL
EOF
echo "test_diff_counters: $n commands move the counters as redis-server's do"
