#!/usr/bin/env bash
# FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms] as Redis 7.0
# (docs/replication.md), with goblin-core and redis-server nodes mixed:
#   - every refusal answers redis-server's text (a redis-server master with
#     a replica beside as the reference);
#   - FAILOVER TO a goblin-core replica: writes paused meanwhile, then the
#     roles swap, the old master continues partially, digests equal;
#   - FAILOVER (any replica) from a goblin-core master to a redis-server
#     replica, and back from redis-server to goblin-core;
#   - a replica that cannot catch up (SIGSTOP): TIMEOUT aborts, the master
#     stays one and takes writes again; ABORT answers as Redis.
set -u

DIR=$(mktemp -d /tmp/goblin-failover-XXXXXX)
LOG=$DIR/g.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
# shellcheck source=tests/lib/repl_testlib.sh
source "$(dirname "$0")/../lib/repl_testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

role_is() { # PORT ROLE: waits for it
    for _ in $(seq 200); do
        [ "$(field "$1" replication role)" = "$2" ] && return 0
        sleep 0.05
    done
    fail "$1 is $(field "$1" replication role), not $2"
}

node goblin g
G=$NP
node goblin g2 --replicaof "127.0.0.1 $G"
G2=$NP
node redis ref
REF=$NP
node redis ref2 --replicaof "127.0.0.1 $REF"
REF2=$NP
wait_synced "$G" "$G2"
wait_synced "$REF" "$REF2"

# Refusals, against redis-server's.
for args in "TO 127.0.0.1 1" "FORCE" "TO 127.0.0.1 1 FORCE" "TIMEOUT 0" "TIMEOUT -5" "TIMEOUT x" \
    "ABORT" "TO 127.0.0.1" "NOSUCH" "TO 127.0.0.1 x"; do
    # shellcheck disable=SC2086
    g=$(cli "$G" FAILOVER $args 2>&1)
    # shellcheck disable=SC2086
    r=$(cli "$REF" FAILOVER $args 2>&1)
    [ "$g" = "$r" ] || fail "FAILOVER $args: '$g' vs redis-server '$r'"
done
[ "$(cli "$G2" FAILOVER 2>&1)" = "$(cli "$REF2" FAILOVER 2>&1)" ] || fail "FAILOVER on a replica"

# FAILOVER TO the goblin replica, writes running.
/usr/bin/python3 - "$G" "$DIR" <<'PY' &
import sys, redis
r = redis.Redis(port=int(sys.argv[1]), socket_timeout=10)
ok = ro = 0
for i in range(3000):
    try:
        r.set("w:%d" % i, i)
        ok += 1
        if ok == 100:
            open(sys.argv[2] + "/writer.started", "w").close()
    except redis.exceptions.ReadOnlyError:
        ro += 1
        break
open(sys.argv[2] + "/writer.txt", "w").write("%d %d\n" % (ok, ro))
PY
WPID=$!
for _ in $(seq 200); do
    [ -f "$DIR/writer.started" ] && break
    sleep 0.05
done
[ "$(cli "$G" FAILOVER TO 127.0.0.1 "$G2")" = OK ] || fail "FAILOVER TO"
role_is "$G2" master
role_is "$G" slave
wait "$WPID" || fail "the writer failed"
[ "$(field "$G" replication master_failover_state)" = no-failover ] || fail "state after failover"
wait_synced "$G2" "$G"
[ "$(cli "$G" DEBUG DIGEST)" = "$(cli "$G2" DEBUG DIGEST)" ] || fail "digests after FAILOVER TO"
[ "$(field "$G2" stats sync_partial_ok)" -ge 1 ] || fail "the old master did not continue partially"
[ "$(field "$G2" stats sync_full)" = 0 ] || fail "FAILOVER needed a full sync"
read -r ok _ <"$DIR/writer.txt"
[ "$(cli "$G2" EXISTS "w:$((ok - 1))")" = 1 ] || fail "the last acknowledged write before the switch (w:$((ok - 1)), $(cat "$DIR/writer.txt")) is lost: $(cli "$G2" DBSIZE) keys"

# goblin master -> redis-server replica, and back.
cli "$REF2" REPLICAOF 127.0.0.1 "$G2" >/dev/null
wait_synced "$G2" "$REF2"
cli "$G" REPLICAOF NO ONE >/dev/null # one replica: the redis one
[ "$(cli "$G2" FAILOVER)" = OK ] || fail "FAILOVER to any replica"
role_is "$REF2" master
role_is "$G2" slave
cli "$REF2" SET from-redis 1 >/dev/null
wait_synced "$REF2" "$G2"
[ "$(cli "$G2" GET from-redis)" = 1 ] || fail "goblin did not follow the promoted redis-server"
[ "$(cli "$REF2" FAILOVER TO 127.0.0.1 "$G2")" = OK ] || fail "FAILOVER from redis-server"
role_is "$G2" master
role_is "$REF2" slave
cli "$G2" SET back 1 >/dev/null
wait_synced "$G2" "$REF2"
[ "$(cli "$REF2" DEBUG DIGEST)" = "$(cli "$G2" DEBUG DIGEST)" ] || fail "digests after the round trip"

# A replica that never catches up: TIMEOUT aborts.
RPID=$(cli "$REF2" INFO server | tr -d '\r' | sed -n 's/^process_id://p')
kill -STOP "$RPID"
cli "$G2" SET lagging 1 >/dev/null
[ "$(cli "$G2" FAILOVER TIMEOUT 4000)" = OK ] || fail "FAILOVER TIMEOUT"
[ "$(field "$G2" replication master_failover_state)" = waiting-for-sync ] || fail "not waiting"
[ "$(cli "$G2" FAILOVER)" = "ERR FAILOVER already in progress." ] || fail "second FAILOVER"
[ "$(cli "$G2" REPLICAOF NO ONE)" = "ERR REPLICAOF not allowed while failing over." ] ||
    fail "REPLICAOF while failing over"
for _ in $(seq 300); do
    [ "$(field "$G2" replication master_failover_state)" = no-failover ] && break
    sleep 0.05
done
[ "$(field "$G2" replication role)" = master ] || fail "not a master after the timeout"
grep -q "Replica never caught up before timeout" "$DIR/g2.log" || fail "no timeout log line"
[ "$(cli "$G2" SET after-abort 1)" = OK ] || fail "writes after the aborted failover"
[ "$(cli "$G2" FAILOVER TIMEOUT 60000)" = OK ] || fail "FAILOVER to abort"
[ "$(cli "$G2" FAILOVER ABORT)" = OK ] || fail "FAILOVER ABORT"
[ "$(cli "$G2" SET after-abort 2)" = OK ] || fail "writes after ABORT"
kill -CONT "$RPID"
echo "test_failover: ok"
