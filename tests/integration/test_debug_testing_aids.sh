#!/usr/bin/env bash
# Redis's DEBUG testing aids that its suite relies on:
#   - DEBUG REPLICATE cmd ...: the command reaches the replicas only (the
#     master's data does not change); a command the replica refuses is
#     logged there as Redis's "== CRITICAL ==" line, naming the error, and
#     the link stays up;
#   - DEBUG CONFIG-REWRITE-FORCE-ALL: the config file gets every setting,
#     defaults too, and a server started from it has the same CONFIG GET *.
set -u

DIR=$(mktemp -d /tmp/goblin-debugaids-XXXXXX)
LOG=$DIR/g.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
# shellcheck source=tests/lib/repl_testlib.sh
source "$(dirname "$0")/../lib/repl_testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

# --- DEBUG REPLICATE --------------------------------------------------------
goblin m
M=$GP
goblin r --replicaof "127.0.0.1 $M"
R=$GP
wait_synced "$M" "$R"
[ "$(cli "$M" DEBUG REPLICATE SET diverged yes)" = OK ] || fail "DEBUG REPLICATE"
cli "$M" SET after 1 >/dev/null
wait_synced "$M" "$R"
[ "$(cli "$R" GET diverged)" = yes ] || fail "the replicated command did not reach the replica"
[ "$(cli "$M" EXISTS diverged)" = 0 ] || fail "DEBUG REPLICATE ran the command on the master"
cli "$M" DEBUG REPLICATE fake-command-1 x >/dev/null
cli "$M" INCR after >/dev/null
wait_synced "$M" "$R"
[ "$(cli "$R" GET after)" = 2 ] || fail "the stream stopped after a refused command"
grep -q "== CRITICAL == This replica is sending an error to its master: 'ERR unknown command 'fake-command-1'" \
    "$DIR/r.log" || fail "no CRITICAL line for the refused command"
[ "$(grep -c "== CRITICAL ==" "$DIR/r.log")" = 1 ] || fail "CRITICAL lines for commands that succeeded"
[ "$(field "$R" replication master_link_status)" = up ] || fail "the link went down"

# --- DEBUG CONFIG-REWRITE-FORCE-ALL --------------------------------------------
PORT=$(free_port)
printf 'port %s\ndir %s\nenable-debug-command yes\nmaxmemory 3mb\n' "$PORT" "$DIR" >"$DIR/c.conf"
"$GOBLIN_SERVER" "$DIR/c.conf" >>"$LOG" 2>&1 &
PID=$!
PIDS+=("$PID")
for _ in $(seq 200); do [ "$(cli "$PORT" PING 2>/dev/null)" = PONG ] && break; sleep 0.05; done
cli "$PORT" CONFIG GET '*' | paste - - | sort >"$DIR/before"
lines=$(wc -l <"$DIR/c.conf")
[ "$(cli "$PORT" DEBUG CONFIG-REWRITE-FORCE-ALL)" = OK ] || fail "DEBUG CONFIG-REWRITE-FORCE-ALL"
[ "$(wc -l <"$DIR/c.conf")" -gt $((lines + 100)) ] || fail "the defaults were not written"
grep -qx "hz 10" "$DIR/c.conf" || fail "a default (hz 10) not written"
grep -qx "maxmemory 3mb" "$DIR/c.conf" || fail "a set value lost"
cli "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1
for _ in $(seq 200); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
"$GOBLIN_SERVER" "$DIR/c.conf" >>"$LOG" 2>&1 &
PID=$!
PIDS+=("$PID")
for _ in $(seq 200); do [ "$(cli "$PORT" PING 2>/dev/null)" = PONG ] && break; sleep 0.05; done
[ "$(cli "$PORT" PING)" = PONG ] || fail "no start from the force-all file"
cli "$PORT" CONFIG GET '*' | paste - - | sort >"$DIR/after"
diff "$DIR/before" "$DIR/after" >&2 || fail "CONFIG GET * differs after the restart"
echo "$TEST_NAME: OK"
