#!/usr/bin/env bash
# The shutdown sequence as Redis 7.0's (server/shutdown.h,
# docs/configuration.md "Shutdown"), with a stopped replica (SIGSTOP) so
# that the master must wait:
#   - SHUTDOWN blocks its caller (flags=b), pauses writes, shows
#     shutdown_in_milliseconds; the replica (a redis-server) woken up gets
#     the last write before the master exits; "1 of 1 replicas are in sync";
#   - SHUTDOWN ABORT: the blocked callers get Redis's error, the writes the
#     shutdown paused run, a user's own CLIENT PAUSE keeps holding;
#   - shutdown-timeout: SIGTERM gives up on a lagging replica ("Lagging
#     replica", "0 of 1"); SHUTDOWN NOW does not wait at all;
#   - a final save that fails keeps the server up (signal and command),
#     SHUTDOWN FORCE exits anyway;
#   - a second SIGINT during the final save exits 1 at once, temp file gone;
#   - INFO connected_clients leaves the replicas' links out and
#     mem_total_replication_buffers counts what they have not been sent.
set -u

DIR=$(mktemp -d /tmp/goblin-shutdown-XXXXXX)
LOG=$DIR/g.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
# shellcheck source=tests/lib/repl_testlib.sh
source "$(dirname "$0")/../lib/repl_testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

wait_log() { # FILE PATTERN
    for _ in $(seq 400); do
        grep -q -- "$2" "$1" && return 0
        sleep 0.05
    done
    fail "'$2' not logged in $1"
}
wait_gone() { # PID
    for _ in $(seq 400); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.05
    done
    fail "process $1 did not exit"
}
wait_field() { # PORT SECTION NAME VALUE
    for _ in $(seq 400); do
        [ "$(field "$1" "$2" "$3")" = "$4" ] && return 0
        sleep 0.05
    done
    fail "INFO $2 $3 on $1 is '$(field "$1" "$2" "$3")', not '$4'"
}
# A master with a stopped replica whose link cannot take more: the next
# write reaches the replica only if the master waits for it.
stop_and_fill() { # MASTER REPLICA_PID
    kill -STOP "$2"
    local i=0
    while [ "$(field "$1" memory mem_total_replication_buffers)" -le $((2 * 1024 * 1024)) ]; do
        i=$((i + 1))
        [ $i -le 200 ] || fail "the replication buffers never grew past 2 MB"
        python3 -c 'import sys; v = "x" * 1024; sys.stdout.write("".join("SET junk%s:%d %s\r\n" % (sys.argv[1], j, v) for j in range(1024)))' "$i" |
            timeout 20 redis-cli -p "$1" --pipe >/dev/null
        sleep 0.01
    done
}

# --- SHUTDOWN waits for a redis-server replica ---------------------------------
goblin m --shutdown-timeout 300 --repl-backlog-size 1 --hz 100
M=$GP
MPID=$GPID
redis r --replicaof "127.0.0.1 $M"
R=$RP
wait_synced "$M" "$R"
[ "$(field "$M" clients connected_clients)" = 1 ] ||
    fail "connected_clients counts the replica's link: $(field "$M" clients connected_clients)"
cli "$M" SET k 1 >/dev/null
wait_synced "$M" "$R"
stop_and_fill "$M" "$RPID"
cli "$M" INCR k >/dev/null
cli "$M" SHUTDOWN >"$DIR/shutdown.out" 2>&1 &
wait_field "$M" clients blocked_clients 1
ms=$(field "$M" server shutdown_in_milliseconds)
[ -n "$ms" ] && [ "$ms" -gt 0 ] || fail "shutdown_in_milliseconds while waiting: '$ms'"
cli "$M" CLIENT LIST | grep "cmd=shutdown" | grep -q "flags=b" || fail "the SHUTDOWN caller is not blocked"
# Writes wait (the shutdown's pause), reads do not.
cli "$M" SET paused 1 >"$DIR/set.out" 2>&1 &
wait_field "$M" clients blocked_clients 2
[ "$(cli "$M" GET k)" = 2 ] || fail "reads are held by the shutdown's pause"
kill -CONT "$RPID"
wait_gone "$MPID"
[ "$(cli "$R" GET k)" = 2 ] || fail "the master exited before its replica got the last write"
[ "$(cli "$R" EXISTS paused)" = 0 ] || fail "a write paused by the shutdown ran"
grep -q "1 of 1 replicas are in sync when shutting down" "$DIR/m.log" || fail "no '1 of 1 replicas are in sync'"
grep -q "Lagging replica" "$DIR/m.log" && fail "a replica was reported lagging"
grep -q "ready to exit, bye bye" "$DIR/m.log" || fail "no 'ready to exit' line"
kill -KILL "$RPID" 2>/dev/null

# --- SHUTDOWN ABORT ------------------------------------------------------------
goblin m2 --shutdown-timeout 300
M=$GP
MPID=$GPID
goblin r2 --replicaof "127.0.0.1 $M"
R=$GP
RPID=$GPID
wait_synced "$M" "$R"
kill -STOP "$RPID"
cli "$M" INCR k >/dev/null
cli "$M" SHUTDOWN >"$DIR/s1.out" 2>&1 &
cli "$M" SHUTDOWN >"$DIR/s2.out" 2>&1 &
wait_field "$M" clients blocked_clients 2
cli "$M" CLIENT PAUSE 100000 WRITE >/dev/null # the user's own pause, beside the shutdown's
cli "$M" SET after 1 >"$DIR/set2.out" 2>&1 &
wait_field "$M" clients blocked_clients 3
[ "$(cli "$M" SHUTDOWN ABORT)" = OK ] || fail "SHUTDOWN ABORT while waiting"
for f in s1 s2; do
    for _ in $(seq 100); do [ -s "$DIR/$f.out" ] && break; sleep 0.05; done
    [ "$(cat "$DIR/$f.out")" = "ERR Errors trying to SHUTDOWN. Check logs." ] ||
        fail "an aborted SHUTDOWN's caller got '$(cat "$DIR/$f.out")'"
done
wait_log "$DIR/m2.log" "Shutdown manually aborted"
wait_field "$M" clients blocked_clients 1 # the SET: CLIENT PAUSE still holds it
[ "$(cli "$M" EXISTS after)" = 0 ] || fail "the user's CLIENT PAUSE ended with the shutdown's"
cli "$M" CLIENT UNPAUSE >/dev/null
wait_field "$M" clients blocked_clients 0
[ "$(cli "$M" GET after)" = 1 ] || fail "the paused SET did not run"
[ "$(cli "$M" SHUTDOWN ABORT 2>&1)" = "ERR No shutdown in progress." ] || fail "ABORT with no shutdown"
[ -z "$(field "$M" server shutdown_in_milliseconds)" ] || fail "shutdown_in_milliseconds after the abort"
# SIGTERM, then ABORT before the housekeeping runs it.
cli "$M" DEBUG PAUSE-CRON 1 >/dev/null
kill -TERM "$MPID"
wait_log "$DIR/m2.log" "signal-handler ([0-9]*) Received SIGTERM scheduling shutdown"
[ "$(cli "$M" SHUTDOWN ABORT)" = OK ] || fail "SHUTDOWN ABORT of a signal's shutdown"
# Housekeeping runs again (its active expiry removes a key set to expire)
# and does not shut down.
expired=$(field "$M" stats expired_keys)
cli "$M" SET gone 1 PX 1 >/dev/null
cli "$M" DEBUG PAUSE-CRON 0 >/dev/null
wait_field "$M" stats expired_keys $((expired + 1))
[ "$(cli "$M" PING)" = PONG ] || fail "the aborted SIGTERM stopped the server"

# --- shutdown-timeout gives up; NOW does not wait -------------------------------
cli "$M" CONFIG SET shutdown-timeout 1 >/dev/null
cli "$M" INCR k >/dev/null
kill -TERM "$MPID"
wait_gone "$MPID"
grep -q "Lagging replica 127.0.0.1:[0-9]* reported offset [0-9]* behind master" "$DIR/m2.log" ||
    fail "no 'Lagging replica' line"
grep -q "0 of 1 replicas are in sync when shutting down" "$DIR/m2.log" || fail "no '0 of 1 replicas'"

goblin m3 --shutdown-timeout 300
M=$GP
MPID=$GPID
kill -CONT "$RPID"
cli "$R" REPLICAOF 127.0.0.1 "$M" >/dev/null
wait_synced "$M" "$R"
kill -STOP "$RPID"
cli "$M" INCR k >/dev/null
cli "$M" SHUTDOWN NOW >/dev/null 2>&1
wait_gone "$MPID"
grep -q "Waiting for replicas" "$DIR/m3.log" && fail "SHUTDOWN NOW waited for the replicas"
kill -CONT "$RPID"

# --- a failed final save keeps the server up; FORCE exits -----------------------
goblin m4 --shutdown-on-sigint save
M=$GP
MPID=$GPID
cli "$M" SET a 1 >/dev/null
mkdir "$DIR/m4/dump.rdb" # the rename onto it fails
kill -INT "$MPID"
wait_log "$DIR/m4.log" "Error trying to save the DB, can't exit"
[ "$(cli "$M" PING)" = PONG ] || fail "a signal's failed save stopped the server"
[ "$(cli "$M" SHUTDOWN SAVE 2>&1)" = "ERR Errors trying to SHUTDOWN. Check logs." ] ||
    fail "SHUTDOWN SAVE with a failing save"
[ "$(cli "$M" PING)" = PONG ] || fail "SHUTDOWN's failed save stopped the server"
cli "$M" SHUTDOWN SAVE FORCE >/dev/null 2>&1
wait_gone "$MPID"
grep -q "Error trying to save the DB. Exit anyway." "$DIR/m4.log" || fail "FORCE: no 'Exit anyway'"

# --- a second SIGINT during the final save ---------------------------------------
goblin m5 --rdb-key-save-delay 100000 --shutdown-on-sigint save
M=$GP
MPID=$GPID
cli "$M" DEBUG POPULATE 50 >/dev/null
kill -INT "$MPID"
for _ in $(seq 200); do ls "$DIR"/m5/temp-*.rdb >/dev/null 2>&1 && break; sleep 0.05; done
ls "$DIR"/m5/temp-*.rdb >/dev/null 2>&1 || fail "the final save did not start"
kill -INT "$MPID"
wait "$MPID" 2>/dev/null
rc=$?
[ "$rc" = 1 ] || fail "a second SIGINT exited with $rc, not 1"
ls "$DIR"/m5/temp-*.rdb >/dev/null 2>&1 && fail "the temp file of the save was left behind"
grep -q "signal-handler ([0-9]*) You insist... exiting now." "$DIR/m5.log" || fail "no 'You insist' line"
[ -e "$DIR/m5/dump.rdb" ] && fail "the interrupted save left a dump.rdb"

echo "$TEST_NAME: OK"
