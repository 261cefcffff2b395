#!/usr/bin/env bash
# aclfile against redis-server 7.0.15: the same file loaded at startup gives
# the same ACL LIST; ACL SAVE writes the same file; ACL LOAD of a malformed
# file answers the same error (path masked) and keeps the old users; a
# malformed file refuses startup with the same message. Each user has one
# single-command rule: Redis orders several at random (docs/acl.md).
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
TEST_NAME=test_diff_aclfile
DIR=$(mktemp -d /tmp/goblin-aclfile-XXXXXX)
LOG=$DIR/goblin.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

GOOD='user default on nopass ~* &* +@all
user alice on >pw ~k* %R~r* +get (~s* +hget)
user bob off resetchannels &news.* -@all +@read'
BAD='user bob on +nosuch
user x badrule
foo'
printf '%s\n' "$GOOD" >"$DIR/g.acl"
printf '%s\n' "$GOOD" >"$DIR/r.acl"
printf '%s\n' "$BAD" >"$DIR/bad.acl"

launch_goblin() {
    "$GOBLIN_SERVER" --port "$PORT" --dir "$DIR" --save "" --aclfile "$DIR/g.acl" >"$LOG" 2>&1 &
    PID=$!
}
launch_redis() {
    "$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --dir "$DIR" --save "" \
        --aclfile "$DIR/r.acl" >"$DIR/redis.log" 2>&1 &
    PID=$!
}
start_server launch_goblin
GPORT=$PORT
PIDS+=("$PID")
LOG=$DIR/redis.log start_server launch_redis
RPORT=$PORT
PIDS+=("$PID")
PID=

same() { # what, goblin output, redis output
    [ "$2" = "$3" ] || fail "$1 differs: goblin [$2] redis [$3]"
}
mask() { sed "s#$DIR/[gr]\.acl#FILE#g"; }

same "ACL LIST" "$(redis-cli -p "$GPORT" ACL LIST)" "$(redis-cli -p "$RPORT" ACL LIST)"
same "NOPERM" "$(redis-cli -p "$GPORT" --user alice --pass pw --no-auth-warning GET r1)" \
    "$(redis-cli -p "$RPORT" --user alice --pass pw --no-auth-warning GET r1)"
for p in "$GPORT" "$RPORT"; do
    redis-cli -p "$p" ACL SETUSER carol on '>x' '~c*' +incr >/dev/null
    redis-cli -p "$p" CONFIG SET acllog-max-len 3 >/dev/null
done
same "ACL SAVE" "$(redis-cli -p "$GPORT" ACL SAVE)" "$(redis-cli -p "$RPORT" ACL SAVE)"
same "saved file" "$(cat "$DIR/g.acl")" "$(cat "$DIR/r.acl")"
same "CONFIG GET acllog-max-len" "$(redis-cli -p "$GPORT" CONFIG GET acllog-max-len)" \
    "$(redis-cli -p "$RPORT" CONFIG GET acllog-max-len)"
cp "$DIR/bad.acl" "$DIR/g.acl"
cp "$DIR/bad.acl" "$DIR/r.acl"
same "ACL LOAD of a bad file" "$(redis-cli -p "$GPORT" ACL LOAD | mask)" \
    "$(redis-cli -p "$RPORT" ACL LOAD | mask)"
same "users after a bad LOAD" "$(redis-cli -p "$GPORT" ACL LIST)" "$(redis-cli -p "$RPORT" ACL LIST)"
printf '%s\n' "$GOOD" >"$DIR/g.acl"
printf '%s\n' "$GOOD" >"$DIR/r.acl"
same "ACL LOAD" "$(redis-cli -p "$GPORT" ACL LOAD)" "$(redis-cli -p "$RPORT" ACL LOAD)"
same "users after LOAD" "$(redis-cli -p "$GPORT" ACL USERS)" "$(redis-cli -p "$RPORT" ACL USERS)"

"$GOBLIN_SERVER" --port "$(free_port)" --save "" --aclfile "$DIR/bad.acl" >"$DIR/gbad.log" 2>&1 &&
    fail "goblin started with a bad aclfile"
"$REDIS_SERVER" --port "$(free_port)" --save "" --aclfile "$DIR/bad.acl" >"$DIR/rbad.log" 2>&1
g=$(grep -o 'Aborting Redis startup because of ACL errors.*' "$DIR/gbad.log")
r=$(grep -o 'Aborting Redis startup because of ACL errors.*' "$DIR/rbad.log")
[ -n "$g" ] || fail "no startup error logged"
same "startup error" "$g" "$r"
echo "$TEST_NAME: OK"
