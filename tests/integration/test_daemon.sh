#!/usr/bin/env bash
# Integration: goblin-core as a service (issue 32, item 3). daemonize yes
# detaches (the launcher exits 0, the server is another process, not a
# session leader) and writes its pidfile before serving, removed at exit;
# the log file is reopened after SIGHUP (logrotate's move-and-signal);
# supervised systemd sends READY=1 to the NOTIFY_SOCKET datagram socket this
# test creates (systemd-notify's protocol) and STOPPING=1 at exit; a
# SIGSEGV writes the crash report with a stack trace; shutdown-on-sigterm
# save / nosave decide the snapshot at SIGTERM; crash-log-enabled no and
# always-show-logo yes.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
DIR=$(mktemp -d)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
command -v redis-cli >/dev/null || fail "redis-cli is required"
cleanup() {
    [ -f "$DIR/s.pid" ] && kill -9 "$(cat "$DIR/s.pid")" 2>/dev/null
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
    [ -n "${LISTENER:-}" ] && kill "$LISTENER" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT
wait_gone() {  # pid
    for _ in $(seq 1 200); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
    return 1
}

# --- daemonize yes, pidfile ----------------------------------------------------
PORT=$(free_port)
cat >"$DIR/d.conf" <<EOF
port $PORT
daemonize yes
pidfile $DIR/s.pid
logfile $LOG
dir $DIR
save ""
mlockall no
EOF
"$bin" "$DIR/d.conf" &
launcher=$!
wait "$launcher" || fail "the launching process exited $?"
for _ in $(seq 1 200); do [ -s "$DIR/s.pid" ] && break; sleep 0.05; done
[ -s "$DIR/s.pid" ] || fail "no pidfile"
PID=$(cat "$DIR/s.pid")
[ "$PID" != "$launcher" ] || fail "the server is the launching process"
kill -0 "$PID" 2>/dev/null || fail "the pid in the pidfile is not running"
for _ in $(seq 1 200); do [ "$(redis-cli -p "$PORT" PING 2>/dev/null)" = PONG ] && break; sleep 0.05; done
[ "$(redis-cli -p "$PORT" PING)" = PONG ] || fail "the daemon does not answer"
# Double fork: the server is not its session's leader.
sid=$(ps -o sid= -p "$PID" | tr -d ' ')
[ "$sid" != "$PID" ] || fail "the daemon is a session leader (single fork)"
[ "$(ps -o tty= -p "$PID" | tr -d ' ')" = "?" ] || fail "the daemon has a terminal"
grep -qi "ready to accept connections" "$LOG" || fail "nothing logged to the logfile"

# --- SIGHUP reopens the log file ------------------------------------------------
mv "$LOG" "$LOG.1"
kill -HUP "$PID"
for _ in $(seq 1 100); do [ -s "$LOG" ] && break; sleep 0.05; done
grep -q "Received SIGHUP: log file reopened" "$LOG" || fail "the log file was not reopened after SIGHUP"
kill -0 "$PID" 2>/dev/null || fail "SIGHUP stopped the server"
redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
wait_gone "$PID" || fail "SHUTDOWN did not stop the daemon"
[ -f "$DIR/s.pid" ] && fail "the pidfile is still there after exit"
PID=

# --- supervised systemd: READY=1 over NOTIFY_SOCKET ----------------------------
sock=$DIR/notify.sock
python3 - "$sock" "$DIR/notify.out" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(30)
with open(sys.argv[2], "w") as out:
    try:
        while True:
            msg = s.recv(4096).decode()
            out.write(msg.replace("\n", "|") + "\n")
            out.flush()
            if "STOPPING=1" in msg:
                break
    except socket.timeout:
        pass
EOF
LISTENER=$!
for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || fail "the test's notify socket did not appear"
launch_supervised() {
    NOTIFY_SOCKET=$sock "$bin" --port "$PORT" --supervised systemd --daemonize yes --save "" \
        --mlockall no --dir "$DIR" >"$LOG" 2>&1 &
    PID=$!
}
start_server launch_supervised  # daemonize is ignored when supervised: $! is the server
for _ in $(seq 1 100); do grep -q "READY=1" "$DIR/notify.out" 2>/dev/null && break; sleep 0.05; done
grep -q "READY=1" "$DIR/notify.out" || fail "no READY=1 on NOTIFY_SOCKET"
grep -q "STATUS=Ready to accept connections" "$DIR/notify.out" || fail "no STATUS"
redis-cli -p "$PORT" INFO server | tr -d '\r' | grep -qx "process_supervised:systemd" ||
    fail "INFO process_supervised"
kill -TERM "$PID"
wait "$PID" 2>/dev/null || true
PID=
wait "$LISTENER" 2>/dev/null || true
LISTENER=
grep -q "STOPPING=1" "$DIR/notify.out" || fail "no STOPPING=1 at exit"

# --- the crash report ------------------------------------------------------------
launch_crash() {
    "$bin" --port "$PORT" --save "" --mlockall no --dir "$DIR" --logfile "$LOG" \
        --pidfile "$DIR/c.pid" --enable-debug-command yes >/dev/null 2>&1 &
    PID=$!
}
start_server launch_crash
# watchdog-period (Redis's software watchdog): a loop held past the period
# logs where it is; once it is off again, a long command logs nothing.
[ "$(redis-cli -p "$PORT" CONFIG SET watchdog-period 200)" = OK ] || fail "watchdog-period refused"
redis-cli -p "$PORT" DEBUG SLEEP 1 >/dev/null
for _ in $(seq 50); do grep -q 'WATCHDOG TIMER EXPIRED' "$LOG" && break; sleep 0.1; done
grep -A3 'WATCHDOG TIMER EXPIRED' "$LOG" | grep -q 'goblin-core(' || fail "no watchdog stack trace"
redis-cli -p "$PORT" CONFIG SET watchdog-period 0 >/dev/null
# DEBUG PAUSE-CRON 1 stops housekeeping (the active expiry cycle with it):
# an expired key stays counted until it is resumed.
redis-cli -p "$PORT" DEBUG PAUSE-CRON 1 >/dev/null
redis-cli -p "$PORT" SET short v PX 50 >/dev/null
sleep 0.5
[ "$(redis-cli -p "$PORT" DBSIZE)" = 1 ] || fail "housekeeping ran under DEBUG PAUSE-CRON 1"
redis-cli -p "$PORT" DEBUG PAUSE-CRON 0 >/dev/null
for _ in $(seq 50); do [ "$(redis-cli -p "$PORT" DBSIZE)" = 0 ] && break; sleep 0.1; done
[ "$(redis-cli -p "$PORT" DBSIZE)" = 0 ] || fail "housekeeping not resumed by DEBUG PAUSE-CRON 0"
: >"$LOG"
redis-cli -p "$PORT" DEBUG SLEEP 1 >/dev/null
grep -q 'WATCHDOG' "$LOG" && fail "the watchdog fired after watchdog-period 0"
[ -s "$DIR/c.pid" ] || fail "pidfile (not daemonized) not written"
kill -SEGV "$PID"
wait "$PID" 2>/dev/null && fail "the server survived SIGSEGV"
PID=
grep -q "crashed by signal: 11" "$LOG" || fail "no crash report"
grep -q -- "------ STACK TRACE ------" "$LOG" || fail "no stack trace header"
sed -n '/STACK TRACE/,/BUG REPORT END/p' "$LOG" | grep -q "goblin-core(" ||
    fail "no frame of goblin-core in the stack trace"
[ -f "$DIR/c.pid" ] && fail "the crash handler left the pidfile"

# crash-log-enabled no (CONFIG SET at run time): the signal's default action
# alone, no report.
: >"$LOG"
start_server launch_crash
[ "$(redis-cli -p "$PORT" CONFIG SET crash-log-enabled no)" = OK ] || fail "CONFIG SET crash-log-enabled"
kill -SEGV "$PID"
wait "$PID" 2>/dev/null && fail "the server survived SIGSEGV"
PID=
grep -q "crashed by signal" "$LOG" && fail "crash report written with crash-log-enabled no"

# --- always-show-logo --------------------------------------------------------------
launch_logo() {
    "$bin" --port "$PORT" --save "" --mlockall no --dir "$DIR" --always-show-logo yes >"$LOG" 2>&1 &
    PID=$!
}
start_server launch_logo
grep -q "Running in standalone mode" "$LOG" || fail "always-show-logo yes: no logo"
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=

# --- shutdown-on-sigterm ---------------------------------------------------------
# Redis's flag words in any combination, shown in Redis's order (the
# replies redis-server 7.0.15 gives).
for mode in save "now nosave"; do
    rm -f "$DIR/dump.rdb"
    launch_term() {
        "$bin" --port "$PORT" --save "" --mlockall no --dir "$DIR" \
            --shutdown-on-sigterm "$mode" >"$LOG" 2>&1 &
        PID=$!
    }
    start_server launch_term
    redis-cli -p "$PORT" SET k v >/dev/null
    if [ "$mode" != save ]; then
        [ "$(redis-cli -p "$PORT" CONFIG GET shutdown-on-sigterm | tail -n 1)" = "nosave now" ] ||
            fail "shutdown-on-sigterm 'now nosave' not shown as Redis shows it"
        [ "$(redis-cli -p "$PORT" CONFIG SET shutdown-on-sigint "force now DEFAULT")" = OK ] ||
            fail "shutdown-on-sigint flag words refused"
        [ "$(redis-cli -p "$PORT" CONFIG GET shutdown-on-sigint | tail -n 1)" = "now force" ] ||
            fail "shutdown-on-sigint not in Redis's order"
        [ "$(redis-cli -p "$PORT" CONFIG SET shutdown-on-sigint "save nosave")" = \
            "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - shutdown options SAVE and NOSAVE can't be used simultaneously" ] ||
            fail "save nosave accepted"
        [ "$(redis-cli -p "$PORT" CONFIG SET shutdown-on-sigint bogus)" = \
            "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - argument(s) must be one of the following: default, save, nosave, now, force" ] ||
            fail "an unknown word accepted"
    fi
    kill -TERM "$PID"
    wait "$PID" 2>/dev/null || true
    PID=
    if [ "$mode" = save ]; then
        [ -f "$DIR/dump.rdb" ] || fail "shutdown-on-sigterm save (no save points) did not save"
    else
        [ -f "$DIR/dump.rdb" ] && fail "shutdown-on-sigterm nosave saved"
    fi
done
echo "test_daemon: OK"
