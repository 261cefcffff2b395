#!/usr/bin/env bash
# ACL against redis-server 7.0.15 (tests/integration/py/acl_diff.py): every
# ACL SETUSER rule and error, GETUSER/LIST/USERS/WHOAMI/DELUSER/CAT/GENPASS/
# DRYRUN/HELP, AUTH and HELLO AUTH, requirepass as the default user's
# password, CLIENT LIST user= and CLIENT KILL USER; enforcement (NOPERM for
# commands, subcommands, keys read/write, channels, selectors, MULTI,
# scripts, revoked channels); ACL LOG; and seeded random rule sequences —
# each in RESP2 and RESP3, on fresh servers per part.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
DIR=$(mktemp -d /tmp/goblin-acl-XXXXXX)
LOG=$DIR/goblin.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT
SEED=${GOBLIN_TEST_SEED:-$RANDOM}

launch_goblin() {
    "$GOBLIN_SERVER" --port "$PORT" --dir "$DIR" --save "" >"$LOG" 2>&1 &
    PID=$!
}
launch_redis() {
    "$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --dir "$DIR" --save "" >"$DIR/redis.log" 2>&1 &
    PID=$!
}

for part in ${ACL_DIFF_PARTS:-rules enforce log random}; do
    start_server launch_goblin
    GPORT=$PORT
    GPID=$PID
    PIDS+=("$PID")
    LOG=$DIR/redis.log start_server launch_redis
    RPORT=$PORT
    RPID=$PID
    PIDS+=("$PID")
    PID=
    /usr/bin/python3 "$(dirname "$0")/py/acl_diff.py" "$GPORT" "$RPORT" "$part" "$SEED" ||
        fail "ACL differs from redis-server in part '$part' (seed $SEED)"
    kill "$GPID" "$RPID"
    wait "$GPID" 2>/dev/null
    status=$?
    # SIGTERM's orderly shutdown: exit status 0 (a crash or sanitizer report is not).
    [ "$status" -eq 0 ] || { LOG=$DIR/goblin.log; fail "goblin-core exited with $status"; }
    wait "$RPID" 2>/dev/null
done
echo "$TEST_NAME: ok"
