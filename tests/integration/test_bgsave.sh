#!/usr/bin/env bash
# BGSAVE by fork(): the server keeps serving (TCP and a ring client) while
# the child writes; BGSAVE SCHEDULE, LASTSAVE, the INFO persistence fields;
# a save point fires; a child killed mid-save leaves the previous snapshot
# byte for byte and makes writes fail with MISCONF (stop-writes-on-bgsave-
# error), the same text redis-server 7.0 gives in the same situation;
# SIGKILL of the server and its child mid-save keeps the previous snapshot
# valid; SHUTDOWN during a save stops the child and removes its temp file;
# rdb-key-save-delay slows a save down as Redis's does; FLUSHALL aborts a
# running BGSAVE and, with save points, saves the empty data set.
#
# The child is held with SIGSTOP so the "during the save" checks do not
# depend on timing; the data set is big enough that the child is still
# running when it is found (retried otherwise).
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
CLI="${GOBLIN_BUILD_DIR:?}/goblin-cli"
DIR=$(mktemp -d /dev/shm/goblin-bgsave-XXXXXX)
LOG=$DIR/goblin.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

cli() { timeout 20 redis-cli -p "$PORT" "$@"; }
info_field() { cli INFO persistence | tr -d '\r' | sed -n "s/^$1://p"; }

launch_goblin() {
    "$GOBLIN_SERVER" --port "$PORT" --dir "$DIR" --save "" --mlockall no \
        --ring "$DIR/r.ring" 64k --no-auth-ring >>"$LOG" 2>&1 &
    PID=$!
}

# load N: N string keys plus a few containers, through one pipe.
load() {
    python3 - "$1" <<'PY' | timeout 120 redis-cli -p "$PORT" --pipe >/dev/null
import sys
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    k, v = b"key:%d" % i, b"value-%d-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" % i
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
PY
}

# hold_child: starts BGSAVE and stops its child; sets CHILD. Retries with
# more data when the child was already gone.
hold_child() {
    for _ in 1 2 3; do
        [ "$(cli BGSAVE)" = "Background saving started" ] || fail "BGSAVE did not start"
        CHILD=$(pgrep -P "$PID" | head -n 1)
        if [ -n "$CHILD" ] && kill -STOP "$CHILD" 2>/dev/null &&
            [ "$(info_field rdb_bgsave_in_progress)" = 1 ]; then
            return 0
        fi
        [ -n "$CHILD" ] && kill -CONT "$CHILD" 2>/dev/null
        wait_save_done
        load 100000
    done
    fail "could not catch the BGSAVE child running"
}

wait_save_done() {
    for _ in $(seq 600); do
        [ "$(info_field rdb_bgsave_in_progress)" = 0 ] && return 0
        sleep 0.05
    done
    fail "background save did not finish"
}

start_server launch_goblin
PIDS+=("$PID")
load 100000
[ "$(cli SAVE)" = OK ] || fail "SAVE"
[ "$(info_field rdb_changes_since_last_save)" = 0 ] || fail "changes after SAVE"
first=$(md5sum <"$DIR/dump.rdb")
lastsave=$(cli LASTSAVE)

# 1. A save in progress: PING, writes and the ring are served; a second
#    BGSAVE is refused; SCHEDULE is accepted.
cli SET during before >/dev/null
hold_child
[ "$(cli PING)" = PONG ] || fail "PING during BGSAVE"
[ "$(cli SET during yes)" = OK ] || fail "SET during BGSAVE"
[ "$(timeout 10 "$CLI" --ring "$DIR/r.ring" GET during)" = yes ] || fail "ring client during BGSAVE"
[ "$(cli BGSAVE)" = "ERR Background save already in progress" ] || fail "second BGSAVE"
[ "$(cli SAVE)" = "ERR Background save already in progress" ] || fail "SAVE during BGSAVE"
[ "$(cli BGSAVE SCHEDULE)" = "Background saving scheduled" ] || fail "BGSAVE SCHEDULE"
[ "$(cli BGSAVE NOW)" = "ERR syntax error" ] || fail "BGSAVE NOW"
kill -CONT "$CHILD"
wait_save_done
sleep 0.3 # housekeeping starts the scheduled save
wait_save_done
[ "$(info_field rdb_last_bgsave_status)" = ok ] || fail "bgsave status"
[ "$(info_field rdb_saves)" -ge 3 ] || fail "rdb_saves: $(info_field rdb_saves)"
[ "$(cli LASTSAVE)" -ge "$lastsave" ] || fail "LASTSAVE went back"
out=$(redis-check-rdb "$DIR/dump.rdb" 2>&1) || fail "redis-check-rdb after BGSAVE: $out"
ls "$DIR"/temp-*.rdb >/dev/null 2>&1 && fail "temp file left after BGSAVE"

# 2. The child killed mid-save: previous snapshot intact, writes refused
#    with MISCONF while save points are configured.
[ "$(cli CONFIG SET save "3600 1000000")" = OK ] || fail "CONFIG SET save"
cli SET more data >/dev/null
hold_child
# The file as it is while the child is held (hold_child may have let
# earlier attempts finish) must be the file after it is killed.
good=$(md5sum <"$DIR/dump.rdb")
kill -KILL "$CHILD"
wait_save_done
[ "$(info_field rdb_last_bgsave_status)" = err ] || fail "status after a killed child"
[ "$(md5sum <"$DIR/dump.rdb")" = "$good" ] || fail "snapshot changed by a killed child"
ls "$DIR"/temp-*.rdb >/dev/null 2>&1 && fail "temp file of the killed child left"
goblin_misconf=$(cli SET x y)
goblin_ping=$(cli PING)
[ "$(cli GET more)" = data ] || fail "reads refused after a failed BGSAVE"
[ "$(cli CONFIG SET stop-writes-on-bgsave-error no)" = OK ] || fail "CONFIG SET stop-writes"
[ "$(cli SET x y)" = OK ] || fail "writes with stop-writes-on-bgsave-error no"
[ "$(cli CONFIG SET stop-writes-on-bgsave-error yes)" = OK ] || fail "CONFIG SET stop-writes"
[ "$(cli SAVE)" = OK ] || fail "SAVE after the failure"
[ "$(cli SET x z)" = OK ] || fail "writes after a good SAVE"

# The same through redis-server: the same MISCONF text, PING included.
launch_redis() {
    "$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --dir "$DIR/redis" --save "3600 1000000" \
        --appendonly no >"$DIR/redis.log" 2>&1 &
    PID=$!
}
mkdir -p "$DIR/redis"
GPID=$PID GPORT=$PORT
LOG=$DIR/redis.log start_server launch_redis
PIDS+=("$PID")
load 100000
hold_child
kill -KILL "$CHILD"
wait_save_done
[ "$(cli SET x y)" = "$goblin_misconf" ] || fail "MISCONF differs: '$goblin_misconf' vs '$(cli SET x y)'"
[ "$(cli PING)" = "$goblin_ping" ] || fail "PING after failure differs: '$goblin_ping'"
kill -KILL "$PID"
wait "$PID" 2>/dev/null
PID=$GPID PORT=$GPORT

# 3. A save point fires from housekeeping.
saves=$(info_field rdb_saves)
[ "$(cli CONFIG SET save "1 1")" = OK ] || fail "CONFIG SET save 1 1"
cli SET trigger 1 >/dev/null
for _ in $(seq 100); do
    [ "$(info_field rdb_saves)" -gt "$saves" ] &&
        [ "$(info_field rdb_changes_since_last_save)" = 0 ] && break
    sleep 0.1
done
[ "$(info_field rdb_saves)" -gt "$saves" ] || fail "save point did not fire"
[ "$(cli CONFIG GET save | tail -n 1)" = "1 1" ] || fail "CONFIG GET save"
cli CONFIG SET save "" >/dev/null
wait_save_done
[ "$(cli CONFIG SET save "1 2 3")" != OK ] || fail "odd save parameters accepted"

# 4. SHUTDOWN during a save stops the child and removes its temp file;
#    the shutdown save itself lands.
hold_child
cli SET final yes >/dev/null
cli SHUTDOWN SAVE >/dev/null 2>&1
wait "$PID" 2>/dev/null
ls "$DIR"/temp-*.rdb >/dev/null 2>&1 && fail "temp file left by SHUTDOWN"
kill -0 "$CHILD" 2>/dev/null && fail "child survived SHUTDOWN"

# 5. SIGKILL of the server and its child mid-save: the last snapshot is
#    intact and loads.
start_server launch_goblin
PIDS+=("$PID")
[ "$(cli GET final)" = yes ] || fail "SHUTDOWN SAVE lost a key"
hold_child
snap=$(md5sum <"$DIR/dump.rdb")
cli SET after-snapshot 1 >/dev/null # after the fork: in no snapshot
kill -KILL "$PID"
kill -KILL "$CHILD"
wait "$PID" 2>/dev/null
[ "$(md5sum <"$DIR/dump.rdb")" = "$snap" ] || fail "snapshot changed by SIGKILL mid-save"
out=$(redis-check-rdb "$DIR/dump.rdb" 2>&1) || fail "redis-check-rdb after SIGKILL: $out"
rm -f "$DIR"/temp-*.rdb
start_server launch_goblin
PIDS+=("$PID")
[ "$(cli GET final)" = yes ] || fail "snapshot after SIGKILL lacks a key"
[ "$(cli EXISTS after-snapshot)" = 0 ] || fail "unsaved key appeared"
# rdb-key-save-delay (Redis's testing aid, its suite's way to keep a save
# going): 20 keys at 100 ms each keep the child busy for 2 s; without the
# delay the snapshot above takes well under a second to write.
cli FLUSHALL >/dev/null
for i in $(seq 20); do cli SET "d$i" "$i" >/dev/null; done
[ "$(cli CONFIG SET rdb-key-save-delay 100000)" = OK ] || fail "rdb-key-save-delay refused"
[ "$(cli CONFIG GET rdb-key-save-delay | tail -n 1)" = 100000 ] || fail "rdb-key-save-delay not kept"
cli BGSAVE >/dev/null
sleep 1
[ "$(info_field rdb_bgsave_in_progress)" = 1 ] || fail "rdb-key-save-delay did not slow the save"
# FLUSHALL aborts the save of data that no longer exists (Redis's
# flushAllDataAndResetRDB): the child ends at once, its temp file goes, the
# abort is not a failed save (writes stay allowed), the changes stay unsaved.
cli FLUSHALL >/dev/null
for _ in $(seq 20); do [ "$(info_field rdb_bgsave_in_progress)" = 0 ] && break; sleep 0.05; done
[ "$(info_field rdb_bgsave_in_progress)" = 0 ] || fail "FLUSHALL did not abort the BGSAVE"
[ "$(info_field rdb_last_bgsave_status)" = ok ] || fail "an aborted BGSAVE counted as failed"
[ "$(info_field rdb_changes_since_last_save)" -ge 20 ] || fail "the aborted save reset the changes"
ls "$DIR"/temp-*.rdb >/dev/null 2>&1 && fail "the aborted save left its temp file"
[ "$(cli SET after-abort 1)" = OK ] || fail "writes refused after the aborted save"
# With save points, FLUSHALL then saves the empty data set at once.
cli CONFIG SET save "900 1" >/dev/null
for i in $(seq 20); do cli SET "e$i" "$i" >/dev/null; done
cli BGSAVE >/dev/null
[ "$(info_field rdb_bgsave_in_progress)" = 1 ] || fail "no BGSAVE to abort"
cli FLUSHALL >/dev/null
for _ in $(seq 20); do [ "$(info_field rdb_bgsave_in_progress)" = 0 ] && break; sleep 0.05; done
[ "$(info_field rdb_bgsave_in_progress)" = 0 ] || fail "FLUSHALL with save points left the BGSAVE"
[ "$(info_field rdb_changes_since_last_save)" = 0 ] || fail "FLUSHALL with save points did not save"
cli CONFIG SET save "" >/dev/null
kill "$PID"
wait "$PID" 2>/dev/null
out=$(redis-check-rdb "$DIR/dump.rdb" 2>&1) || fail "the snapshot FLUSHALL saved: $out"
start_server launch_goblin
PIDS+=("$PID")
[ "$(cli DBSIZE)" = 0 ] || fail "the snapshot FLUSHALL saved is not empty"
cli CONFIG SET rdb-key-save-delay 0 >/dev/null
kill "$PID"
wait "$PID" 2>/dev/null
echo "test_bgsave: ok"
