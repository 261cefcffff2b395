#!/usr/bin/env bash
# repl-diskless-load on-empty-db | swapdb on a goblin-core replica, with a
# redis-server replica of the same master beside it as the reference
# (docs/replication.md), for a goblin-core and a redis-server master:
#   1. swapdb, first sync (the master's id is not ours): the RDB is parsed
#      from the socket ("to parser" in the log, no temp file); meanwhile
#      INFO says loading:1 async_loading:0 and GET / PING get -LOADING,
#      exactly as on the redis-server replica; afterwards the digest is
#      the master's;
#   2. swapdb, a full sync with the same id (the backlog overflowed while
#      the link was down): the old data set keeps serving while the new
#      one loads (async_loading:1, loading:0, GET answers the old value,
#      SAVE and BGSAVE get -LOADING, PING PONG, SET READONLY), as on the
#      redis-server replica; then the new data set and digest;
#   3. the master killed in the middle of a swapdb load: the replica keeps
#      its old data set whole (the partial one is discarded), as Redis;
#   4. on-empty-db: a replica with keys loads through the disk, an empty
#      one from the socket; a length-delimited transfer (master with
#      repl-diskless-sync no) with writes following it loads from the
#      socket too; digests equal the master's.
# key-load-delay makes each load last seconds;
# loading-process-events-interval-bytes 1024 serves clients often.
set -u

DIR=$(mktemp -d /tmp/goblin-repldl-XXXXXX)
LOG=$DIR/master.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
# shellcheck source=tests/lib/repl_testlib.sh
source "$(dirname "$0")/../lib/repl_testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

LOADFLAGS=(--repl-diskless-load swapdb --key-load-delay 200 --loading-process-events-interval-bytes 1024)
KEYS=8000

# observe PORT MODE OUT: polls the replica until its link is up; on the
# first poll that sees INFO's loading state MODE (loading or
# async_loading) at 1, records INFO's two fields and the answers of a
# fixed set of commands into OUT.
observe() {
    local port=$1 mode=$2 out=$3 info
    : >"$out"
    for _ in $(seq 1200); do
        info=$(cli "$port" INFO persistence | tr -d '\r')
        if [ ! -s "$out" ] && grep -q "^$mode:1\$" <<<"$info"; then
            {
                grep -E '^(loading|async_loading):' <<<"$info" | tr '\n' ' '
                grep -o '^loading_[a-z_]*' <<<"$info" | tr '\n' ' '
                echo
                for c in "GET marker" "DBSIZE" "PING" "SAVE" "BGSAVE" "SET x 1" "CONFIG GET repl-diskless-load" "EXISTS old"; do
                    # shellcheck disable=SC2086
                    echo "$c => $(cli "$port" $c 2>&1 | tr -d '\r' | tr '\n' ' ')"
                done
            } >"$out"
        fi
        [ "$(field "$port" replication master_link_status)" = up ] && break
        sleep 0.05
    done
}

# park / unpark MASTER_PORT: points both replicas ($G, $R) at a port
# nobody listens on, and back at the master.
park() {
    local dead
    dead=$(free_port)
    cli "$G" REPLICAOF 127.0.0.1 "$dead" >/dev/null
    cli "$R" REPLICAOF 127.0.0.1 "$dead" >/dev/null
}
unpark() {
    cli "$G" REPLICAOF 127.0.0.1 "$1" >/dev/null
    cli "$R" REPLICAOF 127.0.0.1 "$1" >/dev/null
}

# round MASTER_KIND: the swapdb steps 1-3 against a master of that kind.
round() {
    local kind=$1
    node "$kind" "m$kind" --repl-backlog-size 16kb
    local M=$NP MPID=$NPID
    LOG=$DIR/m$kind.log
    cli "$M" DEBUG POPULATE "$KEYS" key 16 >/dev/null
    cli "$M" HSET h f v >/dev/null
    cli "$M" SET marker before >/dev/null
    goblin "g$kind" "${LOADFLAGS[@]}"
    local G=$GP
    redis "r$kind" "${LOADFLAGS[@]}"
    local R=$RP
    cli "$G" SET old 1 >/dev/null
    cli "$R" SET old 1 >/dev/null

    # 1. The first sync: loading:1.
    cli "$G" REPLICAOF 127.0.0.1 "$M" >/dev/null
    cli "$R" REPLICAOF 127.0.0.1 "$M" >/dev/null
    observe "$G" loading "$DIR/g1.$kind" &
    local og=$!
    observe "$R" loading "$DIR/r1.$kind"
    wait "$og"
    [ -s "$DIR/g1.$kind" ] || fail "$kind master, first sync: goblin's load was not seen"
    [ -s "$DIR/r1.$kind" ] || fail "$kind master, first sync: redis-server's load was not seen"
    diff "$DIR/r1.$kind" "$DIR/g1.$kind" >&2 ||
        fail "$kind master, first swapdb sync: goblin answered otherwise than redis-server meanwhile"
    grep -q "^GET marker => LOADING" "$DIR/g1.$kind" || fail "no LOADING during the first sync"
    grep -q "receiving streamed RDB from master with EOF to parser" "$DIR/g$kind.log" ||
        fail "$kind master: the RDB was not parsed from the socket"
    grep -q "receiving .* to disk" "$DIR/g$kind.log" && fail "$kind master: a swapdb load went to disk"
    ls "$DIR/g$kind"/temp-*.rdb >/dev/null 2>&1 && fail "a diskless load wrote a temp file"
    same_digest "$M" "$G" "$kind master, first swapdb sync"
    same_digest "$M" "$R" "$kind master, first swapdb sync (redis-server replica)"
    [ "$(cli "$G" EXISTS old)" = 0 ] || fail "the replica's own key survived the full sync"

    # 2. A full sync with the same id: the backlog overflows while the
    # replicas are parked on a port nobody listens on (they keep the
    # master's id and offset, as after a lost link), then both come back
    # at once and share one transfer (the master waits for two).
    cli "$M" CONFIG SET repl-diskless-sync-delay 5 >/dev/null
    cli "$M" CONFIG SET repl-diskless-sync-max-replicas 2 >/dev/null
    park
    for _ in $(seq 20); do
        cli "$M" EVAL "for i=1,200 do redis.call('set','f'..i,string.rep('x',100)) end" 0 >/dev/null
    done
    cli "$M" SET marker after >/dev/null
    unpark "$M"
    observe "$G" async_loading "$DIR/g2.$kind" &
    og=$!
    observe "$R" async_loading "$DIR/r2.$kind"
    wait "$og"
    [ -s "$DIR/g2.$kind" ] || fail "$kind master, same-id sync: goblin's async load was not seen"
    [ -s "$DIR/r2.$kind" ] || fail "$kind master, same-id sync: redis-server's async load was not seen"
    diff "$DIR/r2.$kind" "$DIR/g2.$kind" >&2 ||
        fail "$kind master, async load: goblin answered otherwise than redis-server meanwhile"
    grep -q "^GET marker => before" "$DIR/g2.$kind" ||
        fail "the old data set was not served during the async load: $(cat "$DIR/g2.$kind")"
    same_digest "$M" "$G" "$kind master, swapdb sync with the same id"
    [ "$(cli "$G" GET marker)" = after ] || fail "the new data set was not swapped in"

    # 3. The master dies mid-load: the old data set stays whole. Both
    # replicas must be loading when it dies (one transfer for both:
    # otherwise one may have finished before the other began), and the
    # RDB (40 MB) must be far larger than what the loopback socket
    # buffers hold, or the replicas would read all of it after the
    # master's death and load it whole (as they should): uncompressed.
    # The master's children die with it.
    local before
    before=$(cli "$G" DEBUG DIGEST)
    cli "$M" CONFIG SET rdbcompression no >/dev/null
    park
    for b in 0 1 2 3; do
        cli "$M" EVAL "for i=1,100 do redis.call('set','g$b.'..i,string.rep('y',100000)) end" 0 >/dev/null
    done
    unpark "$M"
    for _ in $(seq 400); do
        [ "$(field "$G" persistence async_loading)" = 1 ] &&
            [ "$(field "$R" persistence async_loading)" = 1 ] && break
        sleep 0.025
    done
    [ "$(field "$G" persistence async_loading)" = 1 ] || fail "the third load was not seen"
    [ "$(field "$R" persistence async_loading)" = 1 ] ||
        fail "the third load was not seen on redis-server"
    pkill -KILL -P "$MPID"
    kill -KILL "$MPID"
    for _ in $(seq 400); do
        [ "$(field "$G" persistence async_loading)" = 0 ] &&
            [ "$(field "$R" persistence async_loading)" = 0 ] && break
        sleep 0.05
    done
    [ "$(field "$G" persistence async_loading)" = 0 ] || fail "the load did not end with its master"
    [ "$(cli "$G" DEBUG DIGEST)" = "$before" ] || fail "a failed swapdb load changed the data set"
    [ "$(cli "$G" GET marker)" = "$(cli "$R" GET marker)" ] ||
        fail "after a failed load goblin and redis-server differ"
    [ "$(cli "$G" DBSIZE)" = "$(cli "$R" DBSIZE)" ] || fail "after a failed load: DBSIZE differs"
    grep -q "Discarding temporary DB" "$DIR/g$kind.log" || fail "no log line of the discarded load"
    cli "$G" REPLICAOF NO ONE >/dev/null
    cli "$R" REPLICAOF NO ONE >/dev/null
    LOG=$DIR/master.log
}

round goblin
round redis

# 4. on-empty-db, and a length-delimited transfer with writes behind it.
goblin e --repl-diskless-sync no
E=$GP
cli "$E" DEBUG POPULATE 3000 key 16 >/dev/null
goblin full --repl-diskless-load on-empty-db
FULL=$GP
cli "$FULL" SET mine 1 >/dev/null
goblin empty --repl-diskless-load on-empty-db --key-load-delay 200
EMPTY=$GP
cli "$FULL" REPLICAOF 127.0.0.1 "$E" >/dev/null
cli "$EMPTY" REPLICAOF 127.0.0.1 "$E" >/dev/null
for i in $(seq 50); do cli "$E" INCR counter >/dev/null; cli "$E" SET "w$i" "$i" >/dev/null; done
same_digest "$E" "$FULL" "on-empty-db with keys (through the disk)"
same_digest "$E" "$EMPTY" "on-empty-db, empty (from the socket, length-delimited)"
grep -q "receiving [0-9]* bytes from master to disk" "$DIR/full.log" ||
    fail "on-empty-db with keys did not load through the disk"
grep -q "receiving [0-9]* bytes from master to parser" "$DIR/empty.log" ||
    fail "on-empty-db without keys did not load from the socket"
[ "$(cli "$EMPTY" CONFIG GET repl-diskless-load | tail -1)" = on-empty-db ] || fail "CONFIG GET"
redis plain
[ "$(cli "$EMPTY" CONFIG SET repl-diskless-load bogus 2>&1)" = "$(cli "$RP" CONFIG SET repl-diskless-load bogus 2>&1)" ] ||
    fail "CONFIG SET repl-diskless-load bogus differs from redis-server"
echo "test_replication_diskless_load: ok"
