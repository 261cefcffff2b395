#!/usr/bin/env bash
# Integration (issue 9): the default --mlockall yes under Debian's default
# RLIMIT_MEMLOCK (8 MiB) for an unprivileged user. Locking must never make a
# later allocation fail: the server, run as `nobody` (or as the current user
# when that is already unprivileged) with `ulimit -l 8192` and default flags,
# takes 200k keys (~40 MB, far past the limit) and a redis-benchmark run,
# stays alive, answers correctly, and logs exactly one warning about what it
# could not lock.
#
# Skips (77) only when no unprivileged user can be had: running as root
# without setpriv/runuser or without a `nobody` user.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
KEYS=200000
DIR=$(mktemp -d /tmp/goblin-mlock-XXXXXX)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"

skip() {
    echo "test_mlock_unprivileged: SKIP: $*"
    rm -rf "$DIR"
    exit 77
}

# How to drop to an unprivileged user (no CAP_IPC_LOCK, so the limit binds).
as_user=()
if [ "$(id -u)" -eq 0 ]; then
    id nobody >/dev/null 2>&1 || skip "running as root and there is no 'nobody' user"
    if command -v setpriv >/dev/null; then
        as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
    elif command -v runuser >/dev/null; then
        as_user=(runuser -u nobody --)
    else
        skip "running as root and neither setpriv nor runuser is installed"
    fi
fi

# The build tree may not be readable by nobody: run a copy from our directory.
cp "$GOBLIN_SERVER" "$DIR/goblin-core" || fail "cannot copy $GOBLIN_SERVER"
chmod 755 "$DIR" "$DIR/goblin-core"

launch_server() {
    (
        ulimit -l 8192 || exit 1
        exec "${as_user[@]}" "$DIR/goblin-core" --port "$PORT" --save ""
    ) >"$LOG" 2>&1 &
    PID=$!
}

start_server launch_server

# The server really runs unprivileged, under the 8 MiB limit.
uid=$(awk '/^Uid:/{print $3}' "/proc/$PID/status")
[ "$uid" -ne 0 ] || fail "the server runs with effective uid 0"
grep -q '^Max locked memory  *8388608 ' "/proc/$PID/limits" ||
    fail "RLIMIT_MEMLOCK is not 8 MiB: $(grep 'locked memory' "/proc/$PID/limits")"

# 200k keys of 100-byte values through one pipe: the heap outgrows the limit
# several times over.
value=$(printf 'v%.0s' $(seq 1 100))
awk -v n="$KEYS" -v v="$value" 'BEGIN {
    for (i = 0; i < n; i++) {
        k = "key:" i
        printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v
    }
}' >"$DIR/keys.resp"
out=$(timeout 120 redis-cli -p "$PORT" --pipe <"$DIR/keys.resp" 2>&1) ||
    fail "redis-cli --pipe failed: $out"
grep -q "errors: 0, replies: $KEYS" <<<"$out" || fail "redis-cli --pipe: $out"

# And the load that aborted it at once: 50 clients, 1 KiB values.
out=$(timeout 120 redis-benchmark -p "$PORT" -t set,get -n 100000 -c 50 -d 1024 -r 100000 -q 2>&1) ||
    fail "redis-benchmark failed: $out"
grep -qi "error" <<<"$out" && fail "redis-benchmark reported errors: $out"

kill -0 "$PID" 2>/dev/null || fail "the server died under load"
[ "$(redis-cli -p "$PORT" PING)" = "PONG" ] || fail "no PONG after the load"
[ "$(redis-cli -p "$PORT" GET key:$((KEYS - 1)))" = "$value" ] || fail "GET key:$((KEYS - 1))"
[ "$(redis-cli -p "$PORT" GET key:0)" = "$value" ] || fail "GET key:0"
dbsize=$(redis-cli -p "$PORT" DBSIZE)
[ "$dbsize" -ge "$KEYS" ] || fail "DBSIZE $dbsize < $KEYS"
used=$(redis-cli -p "$PORT" INFO memory | tr -d '\r' | awk -F: '$1 == "used_memory" {print $2}')
[ "$used" -gt $((4 * 8388608)) ] || fail "used_memory $used: the heap never outgrew the lock limit"

# Exactly one warning (Redis's '#' mark) about memory locking.
warnings=$(grep -cE '^[0-9]+:M .* # .*(mlock|MEMLOCK)' "$LOG")
[ "$warnings" -eq 1 ] || fail "expected exactly one mlock warning in the log, found $warnings"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ "$rc" -eq 0 ] || fail "server exited with status $rc"
rm -rf "$DIR"
echo "mlock unprivileged: ok ($KEYS keys, used_memory $used under RLIMIT_MEMLOCK 8 MiB)"
