#!/usr/bin/env bash
# goblin-core as a replica (REPLICAOF, Redis's PSYNC2), of a goblin-core
# master and of a redis-server 7.0 master (docs/replication.md):
#   1. goblin -> goblin (with a redis-server replica of the same master
#      beside it as the reference): digests equal after a seeded random
#      load; READONLY, ROLE, INFO replication's fields as redis-server's;
#   2. the link dropped from either end: partial resync (sync_partial_ok);
#   3. the replica restarted from its own RDB (repl-id / repl-offset AUX
#      fields): partial resync, no new full sync;
#   4. a failover chain: the replica promoted (REPLICAOF NO ONE), the old
#      master and the redis replica re-pointed at it continue partially
#      (replid2 / second_repl_offset);
#   5. redis-server master -> goblin replica (its link from the
#      bind-source-addr address): full sync, load, digests, partial resync
#      after a link drop;
#   6. expiry as Redis on a replica: an expired key reads nil but stays
#      until the master's DEL; replica-serve-stale-data no answers
#      MASTERDOWN as redis-server does;
#   7. bad masters (a fake one speaking garbage, a malformed PSYNC reply,
#      a huge bulk length then EOF, a truncated RDB): each attempt ends
#      with a logged error, the replica keeps serving and retries;
#   8. a replica loading its master's RDB serves other clients meanwhile,
#      as redis-server does (key-load-delay makes the load last seconds,
#      loading-process-events-interval-bytes 1024): INFO persistence says
#      loading:1 with the loading_* fields, GET and PING get redis-server's
#      -LOADING, a SHUTDOWN meanwhile does not overwrite the snapshot;
#      afterwards the data set is the master's;
#   9. PUBLISH and SPUBLISH on a master reach subscribers on its replicas
#      (goblin -> goblin and redis-server replicas, redis-server -> goblin),
#      and stay out of the master's AOF, as Redis 7.0 propagates them.
set -u

DIR=$(mktemp -d /tmp/goblin-replr-XXXXXX)
LOG=$DIR/master.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
# shellcheck source=tests/lib/repl_testlib.sh
source "$(dirname "$0")/../lib/repl_testlib.sh"
LOAD="/usr/bin/python3 $(dirname "$0")/repl_load.py"
PIDS=()
trap 'for p in "${PIDS[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

FUNC='#!lua name=repllib
redis.register_function("repl_bump", function(keys) return redis.call("incr", keys[1]) end)'

# 1. goblin -> goblin, a redis replica beside as the reference.
goblin m
M=$GP
MPID=$GPID
LOG=$DIR/m.log
cli "$M" FUNCTION LOAD "$FUNC" >/dev/null
$LOAD "$M" 11 2000 >/dev/null || fail "load before the sync"
goblin g1
G1=$GP
G1PID=$GPID
redis ref
REF=$RP
[ "$(cli "$G1" REPLICAOF 127.0.0.1 "$M")" = OK ] || fail "REPLICAOF"
[ "$(cli "$REF" REPLICAOF 127.0.0.1 "$M")" = OK ] || fail "REPLICAOF on the reference"
[ "$(cli "$G1" REPLICAOF 127.0.0.1 "$M")" = "$(cli "$REF" REPLICAOF 127.0.0.1 "$M")" ] ||
    fail "REPLICAOF to the same master differs"
wait_synced "$M" "$G1"
$LOAD "$M" 12 6000 3000 >/dev/null || fail "load"
same_digest "$M" "$G1" "goblin replica after the load"
same_digest "$M" "$REF" "redis replica after the load"
for cmd in "SET k v" "FCALL repl_bump 1 n:1" "ROLE"; do
    # shellcheck disable=SC2086
    g=$(cli "$G1" $cmd 2>&1 | sed 's/^[0-9]*$/N/')
    # shellcheck disable=SC2086
    r=$(cli "$REF" $cmd 2>&1 | sed 's/^[0-9]*$/N/' | sed "s/^$REF$/P/")
    g=$(echo "$g" | sed "s/^$G1$/P/")
    [ "$g" = "$r" ] || fail "$cmd on the replicas: '$g' vs '$r'"
done
gkeys=$(cli "$G1" INFO replication | tr -d '\r' | grep -v '^#' | cut -d: -f1 | tr '\n' ' ')
rkeys=$(cli "$REF" INFO replication | tr -d '\r' | grep -v '^#' | cut -d: -f1 | tr '\n' ' ')
[ "$gkeys" = "$rkeys" ] || fail "INFO replication fields: '$gkeys' vs '$rkeys'"
cli "$G1" CLIENT LIST | grep -q "flags=M " || fail "no master in CLIENT LIST"
[ "$(cli "$M" INFO replication | tr -d '\r' | grep -c '^slave[0-9]:.*state=online')" = 2 ] ||
    fail "the master does not list both replicas online"

# 2. The link dropped from either end: partial resyncs.
full=$(field "$M" stats sync_full)
$LOAD "$M" 13 3000 >/dev/null &
LOADPID=$!
sleep 0.3
cli "$G1" CLIENT KILL TYPE master >/dev/null
for _ in $(seq 100); do
    [ "$(field "$M" stats sync_partial_ok)" -ge 1 ] && [ "$(field "$M" replication connected_slaves)" = 2 ] && break
    sleep 0.05
done
cli "$M" CLIENT KILL TYPE replica >/dev/null
wait "$LOADPID" || fail "load during the drops"
same_digest "$M" "$G1" "after the link drops"
same_digest "$M" "$REF" "reference after the link drops"
[ "$(field "$M" stats sync_full)" = "$full" ] || fail "a link drop caused a full sync"
[ "$(field "$M" stats sync_partial_ok)" -ge 3 ] || fail "partial resyncs: $(field "$M" stats sync_partial_ok)"

# 3. The replica restarted from its own snapshot continues partially.
[ "$(cli "$G1" SAVE)" = OK ] || fail "SAVE on the replica"
kill "$G1PID"
wait "$G1PID" 2>/dev/null
cli "$M" SET while-down 1 >/dev/null
mkdir -p "$DIR/g1b"
cp "$DIR/g1/dump.rdb" "$DIR/g1b/dump.rdb"
goblin g1b --replicaof "127.0.0.1 $M"
G1=$GP
wait_synced "$M" "$G1"
[ "$(cli "$G1" GET while-down)" = 1 ] || fail "the restarted replica missed a write"
[ "$(field "$M" stats sync_full)" = "$full" ] || fail "the restart caused a full sync"
grep -q "Successful partial resynchronization with master" "$DIR/g1b.log" ||
    fail "the restarted replica did not continue partially"
same_digest "$M" "$G1" "after the restart"

# 4. Failover chain: G1 promoted; M and REF follow it, partially. (M's
#    PINGs stop first: a PING G1 missed would put the others ahead of it,
#    and a replica ahead of its new master needs a full sync, in Redis too.)
cli "$M" CONFIG SET repl-ping-replica-period 3600 >/dev/null
sleep 1.2 # a PING already due goes out, then no more
wait_synced "$M" "$G1"
wait_synced "$M" "$REF"
[ "$(cli "$G1" REPLICAOF NO ONE)" = OK ] || fail "REPLICAOF NO ONE"
[ "$(field "$G1" replication role)" = master ] || fail "not promoted"
old_id=$(field "$M" replication master_replid)
[ "$(field "$G1" replication master_replid2)" = "$old_id" ] || fail "replid2 after promotion"
[ "$(cli "$G1" SET promoted yes)" = OK ] || fail "writes on the promoted replica"
[ "$(cli "$M" REPLICAOF 127.0.0.1 "$G1")" = OK ] || fail "old master REPLICAOF"
[ "$(cli "$REF" REPLICAOF 127.0.0.1 "$G1")" = OK ] || fail "reference REPLICAOF"
wait_synced "$G1" "$M"
wait_synced "$G1" "$REF"
[ "$(cli "$M" GET promoted)" = yes ] || fail "the old master missed the new master's write"
[ "$(field "$G1" stats sync_full)" = 0 ] || fail "the failover chain needed a full sync"
[ "$(field "$G1" stats sync_partial_ok)" = 2 ] ||
    fail "partial resyncs after the failover: $(field "$G1" stats sync_partial_ok)"
$LOAD "$G1" 14 2000 >/dev/null || fail "load on the new master"
same_digest "$G1" "$M" "old master after the failover"
same_digest "$G1" "$REF" "reference after the failover"
cli "$M" REPLICAOF NO ONE >/dev/null
cli "$REF" REPLICAOF NO ONE >/dev/null

# 5. redis-server master -> goblin replica.
redis rm
RM=$RP
cli "$RM" FUNCTION LOAD "$FUNC" >/dev/null
$LOAD "$RM" 21 2000 >/dev/null || fail "load on the redis master"
goblin g2
G2=$GP
# bind-source-addr: the link comes from that address (127.0.0.2 is not
# Redis's loopback, so the master's protected mode is off).
cli "$RM" CONFIG SET protected-mode no >/dev/null
[ "$(cli "$G2" CONFIG SET bind-source-addr 127.0.0.2)" = OK ] || fail "CONFIG SET bind-source-addr"
[ "$(cli "$G2" REPLICAOF 127.0.0.1 "$RM")" = OK ] || fail "REPLICAOF redis"
wait_synced "$RM" "$G2"
cli "$RM" INFO replication | grep -q "^slave0:ip=127.0.0.2," ||
    fail "the link does not come from bind-source-addr: $(cli "$RM" INFO replication | grep slave0)"
$LOAD "$RM" 22 6000 3000 >/dev/null || fail "load on the redis master"
same_digest "$RM" "$G2" "goblin replica of redis"
cli "$RM" CLIENT KILL TYPE replica >/dev/null
$LOAD "$RM" 23 1000 >/dev/null || fail "load after the drop"
same_digest "$RM" "$G2" "goblin replica of redis after a drop"
[ "$(field "$RM" stats sync_partial_ok)" -ge 1 ] || fail "no partial resync with redis"
[ "$(field "$RM" stats sync_full)" = 1 ] || fail "full syncs with redis: $(field "$RM" stats sync_full)"

# 6. Expiry on a replica, and stale data.
cli "$RM" DEBUG SET-ACTIVE-EXPIRE 0 >/dev/null
cli "$RM" SET soon v PX 100 >/dev/null
wait_synced "$RM" "$G2"
sleep 0.3
[ "$(cli "$G2" GET soon)" = "" ] || fail "an expired key read on the replica"
[ "$(cli "$G2" EXISTS soon)" = 0 ] || fail "EXISTS of an expired key on the replica"
[ "$(cli "$G2" DBSIZE)" = "$(cli "$RM" DBSIZE)" ] || fail "the replica deleted an expired key itself"
cli "$RM" GET soon >/dev/null # the master expires it and sends DEL
cli "$RM" DEBUG SET-ACTIVE-EXPIRE 1 >/dev/null
same_digest "$RM" "$G2" "after the master's DEL"
redis ref2
REF2=$RP
for p in "$G2" "$REF2"; do
    cli "$p" CONFIG SET replica-serve-stale-data no >/dev/null
    cli "$p" REPLICAOF 127.0.0.1 1 >/dev/null # nobody listens there
done
sleep 0.5
for cmd in "GET k" "SET k v" "PING" "INFO server"; do
    # shellcheck disable=SC2086
    g=$(cli "$G2" $cmd 2>&1 | head -n 1)
    # shellcheck disable=SC2086
    r=$(cli "$REF2" $cmd 2>&1 | head -n 1)
    [ "$g" = "$r" ] || fail "$cmd with stale data refused: '$g' vs '$r'"
done
[ "$(field "$G2" replication master_link_status)" = down ] || fail "link status to nobody"
cli "$G2" CONFIG SET replica-serve-stale-data yes >/dev/null

# 7. Bad masters: each attempt fails with a logged error; still serving.
FAKE=$(free_port)
/usr/bin/python3 - "$FAKE" >"$DIR/fake.log" 2>&1 <<'PY' &
import socket, sys
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(sys.argv[1])))
srv.listen(8)
rdb_head = b"REDIS0010\xfa\x09redis-ver\x067.0.15"
scripts = [
    [b"-ERR go away\r\n"],                                        # PING refused
    [b"+PONG\r\n", b"+OK\r\n", b"+OK\r\n", b"+FULLRESYNC nothex 12\r\n"],
    [b"+PONG\r\n", b"+OK\r\n", b"+OK\r\n",
     b"+FULLRESYNC " + b"a" * 40 + b" 0\r\n$999999999999999999\r\n" + rdb_head],
    [b"+PONG\r\n", b"+OK\r\n", b"+OK\r\n",
     b"+FULLRESYNC " + b"b" * 40 + b" 0\r\n$%d\r\n" % (len(rdb_head) + 100) + rdb_head],
    [b"+PONG\r\n", b"+OK\r\n", b"+OK\r\n",
     b"+FULLRESYNC " + b"c" * 40 + b" 0\r\n$EOF:" + b"d" * 40 + b"\r\n" + rdb_head + b"d" * 40],
    [b"+PONG\r\n" + b"x" * 5000 + b"\r\n"],
]
for script in scripts:
    c, _ = srv.accept()
    c.settimeout(5)
    for reply in script:
        try:
            c.recv(4096)
        except OSError:
            break
        c.sendall(reply)
    c.close()
print("fake master done")
PY
FAKEPID=$!
PIDS+=("$FAKEPID")
sleep 0.3
cli "$G2" REPLICAOF 127.0.0.1 "$FAKE" >/dev/null
for _ in $(seq 200); do
    grep -q "fake master done" "$DIR/fake.log" && break
    sleep 0.1
done
grep -q "fake master done" "$DIR/fake.log" || fail "the replica did not retry through every bad master"
for why in "Error reply to PING from master: '-ERR go away'" "malformed reply to PSYNC" \
    "the master closed the link" "Failed trying to load the MASTER synchronization DB" \
    "a reply line from the master is too long"; do
    grep -qF "$why" "$DIR/g2.log" || fail "no log line: $why"
done
[ "$(cli "$G2" PING)" = PONG ] || fail "the replica stopped serving"
ls "$DIR"/g2/temp-*.rdb >/dev/null 2>&1 && fail "a temp file of a failed transfer was left"
[ "$(cli "$G2" REPLICAOF NO ONE)" = OK ] || fail "REPLICAOF NO ONE after the bad masters"
# 8. Loading a full sync serves other clients (-LOADING), goblin and redis.
goblin lm
LM=$GP
cli "$LM" DEBUG POPULATE 2500 key 64 >/dev/null
# watch_load PORT: polls the replica loading from $LM until its link is up;
# prints what it saw: GET's and PING's answers while loading, INFO fields.
watch_load() {
    local seen_get="" seen_ping="" seen_info=""
    cli "$1" REPLICAOF 127.0.0.1 "$LM" >/dev/null
    for _ in $(seq 600); do
        info=$(cli "$1" INFO persistence | tr -d '\r')
        if grep -q '^loading:1$' <<<"$info"; then
            seen_info=$(grep -o '^loading_[a-z_]*' <<<"$info" | tr '\n' ' ')
            g=$(cli "$1" GET key:7 2>&1 | tr -d '\0')
            p=$(cli "$1" PING 2>&1)
            [ "${g#LOADING}" != "$g" ] && seen_get=$g
            [ "${p#LOADING}" != "$p" ] && seen_ping=$p
        fi
        [ "$(field "$1" replication master_link_status)" = up ] && break
        sleep 0.05
    done
    echo "get=$seen_get|ping=$seen_ping|info=$seen_info"
}
goblin lg --key-load-delay 2000 --loading-process-events-interval-bytes 1024
LG=$GP
LGPID=$GPID
redis lr --key-load-delay 2000 --loading-process-events-interval-bytes 1024
LR=$RP
gseen=$(watch_load "$LG")
rseen=$(watch_load "$LR")
[ "$gseen" = "$rseen" ] || fail "while loading: goblin saw '$gseen', redis-server '$rseen'"
case $gseen in
"get=LOADING Redis is loading the dataset in memory|ping=LOADING"*"|info=loading_start_time "*) ;;
*) fail "a loading replica did not answer LOADING meanwhile: $gseen" ;;
esac
same_digest "$LM" "$LG" "goblin replica after a served load"
# A SHUTDOWN while loading keeps the last whole snapshot (Redis: NOSAVE).
cli "$LG" CONFIG SET key-load-delay 3000 >/dev/null
cli "$LG" SAVE >/dev/null
before=$(md5sum "$DIR/lg/dump.rdb" | cut -d' ' -f1)
cli "$LM" SET another key >/dev/null
cli "$LG" REPLICAOF NO ONE >/dev/null # a history of its own: the next sync is a full one
cli "$LG" REPLICAOF 127.0.0.1 "$LM" >/dev/null
for _ in $(seq 200); do
    [ "$(field "$LG" persistence loading)" = 1 ] && break
    sleep 0.05
done
[ "$(field "$LG" persistence loading)" = 1 ] || fail "the second load was not seen"
cli "$LG" SHUTDOWN SAVE >/dev/null 2>&1
for _ in $(seq 100); do
    kill -0 "$LGPID" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$LGPID" 2>/dev/null && fail "SHUTDOWN while loading did not exit"
grep -q "Not saving the final RDB snapshot: a load is in progress" "$DIR/lg.log" ||
    fail "no log line of the refused final save"
[ "$(md5sum "$DIR/lg/dump.rdb" | cut -d' ' -f1)" = "$before" ] ||
    fail "a SHUTDOWN while loading overwrote the snapshot"

# 9. Messages published on a master reach its replicas' subscribers.
goblin pm --appendonly yes
PM=$GP
goblin pg --replicaof "127.0.0.1 $PM"
PG=$GP
redis pr --replicaof 127.0.0.1 "$PM"
PR=$RP
redis prm
PRM=$RP
goblin pgr --replicaof "127.0.0.1 $PRM"
PGR=$GP
wait_synced "$PM" "$PG"
wait_synced "$PM" "$PR"
wait_synced "$PRM" "$PGR"
subs=()
for p in "$PG" "$PR" "$PGR"; do
    timeout 10 redis-cli -p "$p" SUBSCRIBE news >"$DIR/sub.$p" 2>&1 &
    subs+=($!)
    timeout 10 redis-cli -p "$p" SSUBSCRIBE shard >"$DIR/ssub.$p" 2>&1 &
    subs+=($!)
done
for p in "$PG" "$PR" "$PGR"; do
    for _ in $(seq 100); do
        [ "$(cli "$p" PUBSUB NUMSUB news | tail -n 1)" = 1 ] &&
            [ "$(cli "$p" PUBSUB SHARDNUMSUB shard | tail -n 1)" = 1 ] && break
        sleep 0.05
    done
done
[ "$(cli "$PM" PUBLISH news hello)" = 0 ] || fail "PUBLISH on the master counted replicas' subscribers"
cli "$PM" SPUBLISH shard sharded >/dev/null
printf 'MULTI\nSET k v\nPUBLISH news inside\nEXEC\n' | cli "$PM" >/dev/null
cli "$PRM" PUBLISH news hello >/dev/null
cli "$PRM" SPUBLISH shard sharded >/dev/null
printf 'MULTI\nSET k v\nPUBLISH news inside\nEXEC\n' | cli "$PRM" >/dev/null
wait_synced "$PM" "$PG"
wait_synced "$PRM" "$PGR"
for p in "$PG" "$PR" "$PGR"; do
    for _ in $(seq 100); do
        grep -q inside "$DIR/sub.$p" && grep -q sharded "$DIR/ssub.$p" && break
        sleep 0.05
    done
    [ "$(tr -d '\r' <"$DIR/sub.$p" | tr '\n' ' ')" = "subscribe news 1 message news hello message news inside " ] ||
        fail "subscriber on $p: $(tr '\n' ' ' <"$DIR/sub.$p")"
    [ "$(tr -d '\r' <"$DIR/ssub.$p" | tr '\n' ' ')" = "ssubscribe shard 1 smessage shard sharded " ] ||
        fail "shard subscriber on $p: $(tr '\n' ' ' <"$DIR/ssub.$p")"
done
kill "${subs[@]}" 2>/dev/null
grep -rqi publish "$DIR/pm/appendonlydir" && fail "PUBLISH written to the master's AOF"
grep -rq inside "$DIR/pm/appendonlydir" && fail "a transaction's PUBLISH in the master's AOF"
echo "test_replication_replica: ok"
