#!/usr/bin/env bash
# goblin-core as the master of redis-server 7.0 replicas (Redis's PSYNC
# protocol, docs/replication.md):
#   1. a diskless full sync, then a seeded random write load (every type,
#      TTLs that expire during it, MULTI, EVAL, FCALL, SELECT, FLUSHALL):
#      DEBUG DIGEST of the replica equals the master's; INFO replication,
#      ROLE and CLIENT LIST describe the replica;
#   2. the link killed mid-load: the replica continues with a partial
#      resync (+CONTINUE, INFO sync_partial_ok), digests equal again;
#   3. a second replica by a disk sync (repl-diskless-sync no) while the
#      load runs; WAIT 2 under load answers 2;
#   4. redis-cli --rdb (diskless and disk) and --functions-rdb fetch
#      snapshots redis-check-rdb accepts, holding the keys / functions;
#   5. min-replicas-to-write: NOREPLICAS with redis-server's text, EXEC
#      aborted; REPLCONF's, REPLICAOF's and PSYNC's errors are redis-server's;
#   6. a replica past the replica output limit is closed, counted, and
#      syncs again;
#   7. the backlog outlives its replicas by repl-backlog-ttl only;
#   8. repl-diskless-sync-max-replicas cuts the delay short;
#   9. a diskless transfer whose only replica leaves ends its child.
set -u

DIR=$(mktemp -d /tmp/goblin-replm-XXXXXX)
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
# shellcheck source=tests/lib/repl_testlib.sh
source "$(dirname "$0")/../lib/repl_testlib.sh"
LOAD="/usr/bin/python3 $(dirname "$0")/repl_load.py"
PIDS=()
trap 'for p in "${PIDS[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

goblin g
M=$GP
MPID=$GPID
LOG=$DIR/g.log
PID=$MPID

# start_replica NAME: a redis-server replica of the master; sets RPORT, RPID.
start_replica() {
    redis "$1" --replicaof 127.0.0.1 "$M"
    RPORT=$RP
    PID=$MPID
}

FUNC='#!lua name=repllib
redis.register_function("repl_bump", function(keys) return redis.call("incr", keys[1]) end)'
[ "$(cli "$M" FUNCTION LOAD "$FUNC")" = repllib ] || fail "FUNCTION LOAD"
$LOAD "$M" 1 2000 >/dev/null || fail "load before the sync"

# 1. Diskless full sync, then the load.
start_replica r1
R1=$RPORT
wait_synced "$M" "$R1"
[ "$(cli "$R1" FCALL repl_bump 1 n:0 2>&1)" = "READONLY You can't write against a read only replica." ] ||
    fail "the function did not reach the replica"
$LOAD "$M" 2 6000 3000 >/dev/null || fail "load"
same_digest "$M" "$R1" "after the load"
info=$(cli "$M" INFO replication | tr -d '\r')
echo "$info" | grep -q "^connected_slaves:1$" || fail "connected_slaves: $info"
echo "$info" | grep -Eq "^slave0:ip=127.0.0.1,port=$R1,state=online,offset=[0-9]+,lag=[0-9]+$" ||
    fail "slave0 line: $info"
echo "$info" | grep -q "^repl_backlog_active:1$" || fail "backlog not active: $info"
[ "$(field "$M" replication master_replid)" = "$(field "$R1" replication master_replid)" ] ||
    fail "replication ids differ"
role=$(cli "$M" ROLE | tr '\n' ' ')
[[ "$role" =~ ^master\ [0-9]+\ 127.0.0.1\ $R1\ [0-9]+\ $ ]] || fail "ROLE: $role"
cli "$M" CLIENT LIST | grep -q "flags=S " || fail "no replica in CLIENT LIST"
[ "$(field "$M" stats sync_full)" = 1 ] || fail "sync_full: $(field "$M" stats sync_full)"
grep -q "Streamed RDB transfer with replica" "$LOG" || fail "not a diskless sync"

# 2. The link dropped mid-load: a partial resync.
$LOAD "$M" 3 8000 >/dev/null &
LOADPID=$!
sleep 0.5
cli "$M" CLIENT KILL TYPE replica >/dev/null
wait "$LOADPID" || fail "load during the link drop"
same_digest "$M" "$R1" "after the link drop"
[ "$(field "$M" stats sync_partial_ok)" -ge 1 ] || fail "no partial resync"
[ "$(field "$M" stats sync_full)" = 1 ] || fail "the link drop caused a full sync"
grep -q "Successful partial resynchronization with master" "$DIR/r1.log" ||
    fail "the replica did not log a partial resync"

# 3. A disk sync for a second replica during the load; WAIT under load.
[ "$(cli "$M" CONFIG SET repl-diskless-sync no)" = OK ] || fail "CONFIG SET repl-diskless-sync"
$LOAD "$M" 4 8000 >/dev/null &
LOADPID=$!
start_replica r2
R2=$RPORT
R2PID=$RPID
waited=$(cli "$M" WAIT 2 20000)
wait "$LOADPID" || fail "load during the disk sync"
[ "$waited" = 2 ] || fail "WAIT 2 under load answered $waited"
grep -q "Starting BGSAVE for SYNC with target: disk" "$LOG" || fail "not a disk sync"
same_digest "$M" "$R2" "disk-synced replica"
same_digest "$M" "$R1" "first replica after the second sync"
[ "$(field "$M" replication connected_slaves)" = 2 ] || fail "connected_slaves after the second"
[ "$(cli "$M" WAIT 3 300)" = 2 ] || fail "WAIT 3 timeout did not answer the count"
cli "$M" SET wait-key 1 >/dev/null
[ "$(cli "$M" WAIT 2 0)" = 2 ] || fail "WAIT 2 0"

# 4. redis-cli --rdb and --functions-rdb, diskless and disk.
for mode in yes no; do
    cli "$M" CONFIG SET repl-diskless-sync "$mode" >/dev/null
    rm -f "$DIR/dump-$mode.rdb"
    timeout 30 redis-cli -p "$M" --rdb "$DIR/dump-$mode.rdb" >/dev/null 2>&1 ||
        fail "redis-cli --rdb (diskless $mode)"
    out=$(redis-check-rdb "$DIR/dump-$mode.rdb" 2>&1) || fail "redis-check-rdb (diskless $mode): $out"
    keys=$(echo "$out" | sed -n 's/.*\[info\] \([0-9]*\) keys read.*/\1/p')
    [ "$keys" -gt 0 ] || fail "no keys in the --rdb snapshot: $out"
done
timeout 30 redis-cli -p "$M" --functions-rdb "$DIR/functions.rdb" >/dev/null 2>&1 ||
    fail "redis-cli --functions-rdb"
out=$(redis-check-rdb "$DIR/functions.rdb" 2>&1) || fail "redis-check-rdb functions: $out"
echo "$out" | grep -q "\[info\] 0 keys read" || fail "keys in the functions snapshot: $out"
[ "$(field "$M" replication connected_slaves)" = 2 ] || fail "an --rdb client stayed a replica"

# 5. min-replicas-to-write and REPLCONF's errors, against redis-server's.
# (The reference server starts from the --functions-rdb snapshot.)
mkdir -p "$DIR/ref"
cp "$DIR/functions.rdb" "$DIR/ref/dump.rdb"
redis ref
REF=$RP
PID=$MPID
cli "$REF" FUNCTION LIST | grep -q repl_bump || fail "the function is not in the --functions-rdb snapshot"
[ "$(cli "$REF" DBSIZE)" = 0 ] || fail "keys in the --functions-rdb snapshot"
for p in "$M" "$REF"; do cli "$p" CONFIG SET min-replicas-to-write 3 >/dev/null; done
for cmd in "SET k v" "INCR n:0" "GET k"; do
    # shellcheck disable=SC2086
    g=$(cli "$M" $cmd 2>&1)
    # shellcheck disable=SC2086
    r=$(cli "$REF" $cmd 2>&1)
    [ "$g" = "$r" ] || fail "$cmd with min-replicas-to-write: '$g' vs '$r'"
done
# Scripts: a write through redis.call / redis.pcall in a script without
# flags is refused there, a shebang script that may write before it runs.
for body in "return redis.call('set','k','v')" "return redis.pcall('incr','n:0')" \
    "redis.call('get','k'); return redis.call('del','k')" "return redis.call('get','k')" \
    $'#!lua\nreturn redis.call(\'set\',\'k\',\'v\')' \
    $'#!lua flags=no-writes\nreturn redis.call(\'get\',\'k\')'; do
    g=$(cli "$M" EVAL "$body" 0 2>&1)
    r=$(cli "$REF" EVAL "$body" 0 2>&1)
    [ "$g" = "$r" ] || fail "EVAL $body with min-replicas-to-write: '$g' vs '$r'"
done
rejected() { cli "$1" INFO commandstats | grep -oE '^cmdstat_(set|incr|del):.*rejected_calls=[0-9]+' |
    sed 's/:.*rejected/ rejected/' | sort; }
[ "$(rejected "$M")" = "$(rejected "$REF")" ] ||
    fail "rejected_calls after refused writes: '$(rejected "$M")' vs '$(rejected "$REF")'"
multi() { printf 'MULTI\nSET k v\nEXEC\n' | cli "$1" 2>&1; }
[ "$(multi "$M")" = "$(multi "$REF")" ] || fail "EXEC with min-replicas-to-write: $(multi "$M")"
[ "$(field "$M" replication min_slaves_good_slaves)" = 2 ] || fail "min_slaves_good_slaves"
for p in "$M" "$REF"; do cli "$p" CONFIG SET min-replicas-to-write 2 >/dev/null; done
[ "$(cli "$M" SET k v)" = OK ] || fail "SET with enough replicas"
cli "$M" CONFIG SET min-replicas-to-write 0 >/dev/null
for args in "listening-port x" "rdb-only 5" "rdb-only x" "rdb-filter-only keys" "nosuch 1" \
    "capa" "capa whatever" "listening-port 12"; do
    # shellcheck disable=SC2086
    g=$(cli "$M" REPLCONF $args 2>&1)
    # shellcheck disable=SC2086
    r=$(cli "$REF" REPLCONF $args 2>&1)
    [ "$g" = "$r" ] || fail "REPLCONF $args: '$g' vs '$r'"
done
# REPLICAOF's port range and PSYNC's offset, refused as redis-server refuses them
# (no globbing of PSYNC's "?").
set -f
for args in "REPLICAOF 127.0.0.1 70000" "REPLICAOF 127.0.0.1 -1" "REPLICAOF 127.0.0.1 x" \
    "PSYNC ? x" "PSYNC ? 99999999999999999999"; do
    # shellcheck disable=SC2086
    g=$(cli "$M" $args 2>&1 | tr -d '\r')
    # shellcheck disable=SC2086
    r=$(cli "$REF" $args 2>&1 | tr -d '\r')
    [ "$g" = "$r" ] || fail "$args: '$g' vs '$r'"
done
set +f
[ "$(field "$M" replication role)" = master ] || fail "a refused REPLICAOF changed the role"

# 6. Past the replica output limit: closed, counted, synced again.
cli "$M" CONFIG SET repl-diskless-sync yes >/dev/null
drops=$(field "$M" stats client_output_buffer_limit_disconnections)
cli "$M" CONFIG SET client-output-buffer-limit "replica 65536 0 0" >/dev/null
kill -STOP "$R2PID"
/usr/bin/python3 - "$M" <<'PY'
import sys, redis
r = redis.Redis(port=int(sys.argv[1]))
p = r.pipeline(transaction=False)
for i in range(1500):
    p.set("big:%d" % i, "x" * 16384)
p.execute()
PY
for _ in $(seq 100); do
    [ "$(field "$M" stats client_output_buffer_limit_disconnections)" -gt "$drops" ] && break
    sleep 0.05
done
[ "$(field "$M" stats client_output_buffer_limit_disconnections)" -gt "$drops" ] ||
    fail "the stalled replica was not closed at its output limit"
grep -q "class replica" "$LOG" || fail "the drop did not name the replica class"
kill -CONT "$R2PID"
cli "$M" CONFIG SET client-output-buffer-limit "replica 256mb 64mb 60" >/dev/null
same_digest "$M" "$R2" "after the output-limit drop"
same_digest "$M" "$R1" "first replica at the end"

# 7. The backlog's TTL: kept while replicas come and go, freed after it.
cli "$M" CONFIG SET repl-backlog-ttl 1 >/dev/null
cli "$R1" SHUTDOWN NOSAVE >/dev/null 2>&1
cli "$R2" SHUTDOWN NOSAVE >/dev/null 2>&1
for _ in $(seq 100); do
    [ "$(field "$M" replication repl_backlog_active)" = 0 ] && break
    sleep 0.1
done
[ "$(field "$M" replication repl_backlog_active)" = 0 ] || fail "backlog not freed after its TTL"
grep -q "Replication backlog freed after 1 seconds without connected replicas" "$LOG" ||
    fail "no backlog-freed log line"
# 8. repl-diskless-sync-max-replicas: a long delay, cut short when that
#    many replicas wait; one child serves both.
cli "$M" CONFIG SET repl-diskless-sync-delay 60 >/dev/null
cli "$M" CONFIG SET repl-diskless-sync-max-replicas 2 >/dev/null
children=$(grep -c "Starting BGSAVE for SYNC with target: replicas sockets" "$LOG")
start_replica r3
R3=$RPORT
start_replica r4
R4=$RPORT
same_digest "$M" "$R3" "max-replicas, first"
same_digest "$M" "$R4" "max-replicas, second"
[ "$(grep -c "Starting BGSAVE for SYNC with target: replicas sockets" "$LOG")" = $((children + 1)) ] ||
    fail "two replicas waiting did not share one diskless child"

# 9. The only replica of a diskless transfer leaves mid-way: the child's
#    transfer ends (it holds no read end of its pipe: EPIPE), and the next
#    replica gets a child of its own.
cli "$M" CONFIG SET repl-diskless-sync-delay 0 >/dev/null
cli "$M" CONFIG SET repl-diskless-sync-max-replicas 0 >/dev/null
cli "$M" DEBUG POPULATE 300000 bulk 100 >/dev/null
/usr/bin/python3 - "$M" <<'PY' || fail "the fake replica did not get a diskless transfer"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
f = s.makefile("rb")
s.sendall(b"REPLCONF capa eof capa psync2\r\n")
assert f.readline() == b"+OK\r\n"
s.sendall(b"PSYNC ? -1\r\n")
while True:
    line = f.readline()
    if line.startswith(b"$EOF:"):
        break
    assert line in (b"\n", b"\r\n") or line.startswith(b"+FULLRESYNC"), line
f.read(65536)  # a little of the RDB, then gone
s.close()
PY
for _ in $(seq 300); do
    [ "$(field "$M" persistence rdb_bgsave_in_progress)" = 0 ] && break
    sleep 0.1
done
[ "$(field "$M" persistence rdb_bgsave_in_progress)" = 0 ] ||
    fail "the diskless child outlived its last replica"
grep -q "Diskless rdb transfer, last replica dropped" "$LOG" || fail "no log line of the dropped transfer"
start_replica r5
R5=$RPORT
same_digest "$M" "$R5" "after an abandoned diskless transfer"
kill "$MPID"
wait "$MPID" 2>/dev/null
echo "test_replication_master: ok"
