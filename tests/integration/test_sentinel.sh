#!/usr/bin/env bash
# Redis Sentinel 7.0 (Debian's redis-sentinel) watching a goblin-core master
# with two goblin-core replicas (docs/replication.md):
#   - Sentinel discovers the replicas from the master's INFO and talks to
#     every node (INFO, PING, PUBLISH/SUBSCRIBE __sentinel__:hello);
#   - a client writes through the master found with SENTINEL
#     get-master-addr-by-name, each write followed by WAIT 2 (every replica);
#   - kill -9 of the master under that load: Sentinel promotes a replica
#     (MULTI; REPLICAOF NO ONE; CONFIG REWRITE; CLIENT KILL TYPE normal /
#     pubsub; EXEC), re-points the other one, the client reconnects to the
#     new master and goes on writing (a second failover between the two
#     former replicas, which Sentinel starts when the promoted one misses a
#     second of PINGs on a loaded machine, is allowed);
#   - no write WAIT acknowledged is missing on the new master, and the
#     other replica replicates it (digests equal).
set -u

SENTINEL=${REDIS_SENTINEL:-/usr/bin/redis-sentinel}
[ -x "$SENTINEL" ] || {
    echo "test_sentinel: FAIL: $SENTINEL not found (make deps installs redis-sentinel)" >&2
    exit 1
}
DIR=$(mktemp -d /tmp/goblin-sentinel-XXXXXX)
LOG=$DIR/m.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
# shellcheck source=tests/lib/repl_testlib.sh
source "$(dirname "$0")/../lib/repl_testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

goblin m
M=$GP
MPID=$GPID
goblin r1 --replicaof "127.0.0.1 $M"
R1=$GP
goblin r2 --replicaof "127.0.0.1 $M"
R2=$GP
for _ in $(seq 200); do
    [ "$(field "$M" replication connected_slaves)" = 2 ] &&
        [ "$(field "$R1" replication master_link_status)" = up ] &&
        [ "$(field "$R2" replication master_link_status)" = up ] && break
    sleep 0.05
done
[ "$(field "$M" replication connected_slaves)" = 2 ] || fail "the replicas did not connect"

SP=$(free_port)
cat >"$DIR/sentinel.conf" <<EOF
port $SP
bind 127.0.0.1
dir $DIR
sentinel monitor gm 127.0.0.1 $M 1
sentinel down-after-milliseconds gm 1000
sentinel failover-timeout gm 20000
sentinel parallel-syncs gm 1
EOF
"$SENTINEL" "$DIR/sentinel.conf" >"$DIR/sentinel.log" 2>&1 &
SPID=$!
PIDS+=("$SPID")
for _ in $(seq 200); do
    [ "$(cli "$SP" SENTINEL replicas gm 2>/dev/null | grep -c '^name$')" = 2 ] && break
    sleep 0.1
done
[ "$(cli "$SP" SENTINEL replicas gm | grep -c '^name$')" = 2 ] ||
    fail "Sentinel did not discover both replicas: $(cat "$DIR/sentinel.log")"
cli "$SP" SENTINEL master gm | grep -qx master || fail "Sentinel does not see a master"

# The writer: WAIT 2 after each write; acknowledged keys listed in acked.txt.
: >"$DIR/acked.txt"
/usr/bin/python3 - "$SP" "$DIR" <<'PY' &
import sys, time, redis
from redis.sentinel import Sentinel
sp, d = int(sys.argv[1]), sys.argv[2]
sentinel = Sentinel([("127.0.0.1", sp)], socket_timeout=2)
acked = open(d + "/acked.txt", "w")
i, failovers, start = 0, 0, time.time()
master = None
while time.time() - start < 60:
    try:
        if master is None:
            host, port = sentinel.discover_master("gm")
            master = redis.Redis(host=host, port=port, socket_timeout=2)
        master.set("key:%d" % i, i)
        if master.execute_command("WAIT", 2, 500) == 2:
            acked.write("key:%d %d\n" % (i, port))
            acked.flush()
        i += 1
        if failovers and i > after + 20:
            break
    except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError,
            redis.sentinel.MasterNotFoundError):
        if master is not None:
            failovers += 1
            after = i
        master = None
        time.sleep(0.2)
open(d + "/writer.done", "w").write("%d %d\n" % (i, failovers))
PY
WPID=$!
PIDS+=("$WPID")
for _ in $(seq 100); do
    [ "$(wc -l <"$DIR/acked.txt" 2>/dev/null || echo 0)" -ge 200 ] && break
    sleep 0.1
done
[ "$(wc -l <"$DIR/acked.txt")" -ge 200 ] || fail "the writer did not get WAIT acks"
echo "$(date +%T) killing the master" >&2
kill -9 "$MPID"
wait "$WPID" || fail "the writer failed"
echo "$(date +%T) writer done" >&2
read -r total failovers <"$DIR/writer.done"
[ "$failovers" -ge 1 ] || fail "the writer never saw the master go"
# Sentinel's final master: a former replica, a master, the other replica
# following it. (On a loaded machine the promoted node can miss one
# second's PINGs and Sentinel fails over again, to the other replica:
# legitimate, so the state is read once it has settled.)
settled=
for _ in $(seq 300); do
    new=$(cli "$SP" SENTINEL get-master-addr-by-name gm | tail -n 1)
    other=$R1
    [ "$new" = "$R1" ] && other=$R2
    if { [ "$new" = "$R1" ] || [ "$new" = "$R2" ]; } &&
        [ "$(field "$new" replication role)" = master ] &&
        [ "$(field "$other" replication master_port)" = "$new" ] &&
        [ "$(field "$other" replication master_link_status)" = up ] &&
        [ "$(cli "$SP" SENTINEL get-master-addr-by-name gm | tail -n 1)" = "$new" ]; then
        settled=1
        break
    fi
    sleep 0.1
done
[ -n "$settled" ] || fail "no settled failover: Sentinel's master is $new; log: $(cat "$DIR/sentinel.log")"
grep -q "+switch-master gm 127.0.0.1 $M 127.0.0.1 [0-9]*$" "$DIR/sentinel.log" ||
    fail "no +switch-master away from the killed master: $(cat "$DIR/sentinel.log")"
grep -q "+switch-master gm 127.0.0.1 [0-9]* 127.0.0.1 $new$" "$DIR/sentinel.log" ||
    fail "no +switch-master to $new: $(cat "$DIR/sentinel.log")"
# Every write WAIT acknowledged is on the new master.
missing=0
while read -r key _; do
    [ "$(cli "$new" EXISTS "$key")" = 1 ] || missing=$((missing + 1))
done <"$DIR/acked.txt"
[ "$missing" = 0 ] || fail "$missing WAIT-acknowledged writes lost in the failover"
for _ in $(seq 200); do
    [ "$(field "$other" replication slave_repl_offset)" = "$(field "$new" replication master_repl_offset)" ] && break
    sleep 0.05
done
[ "$(cli "$new" DEBUG DIGEST)" = "$(cli "$other" DEBUG DIGEST)" ] || fail "digests differ after the failover"
echo "test_sentinel: ok ($total writes, $(wc -l <"$DIR/acked.txt") acknowledged by WAIT 2, failover to $new)"
