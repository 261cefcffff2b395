# shellcheck shell=bash
# repl_testlib.sh — helpers of the replication, failover and Sentinel tests
# (sourced after testlib.sh; the test sets DIR and PIDS=()):
#
#   cli PORT ARGS...          redis-cli on 127.0.0.1:PORT, bounded to 20 s
#   field PORT SECTION NAME   one field of INFO SECTION
#   node KIND NAME [flags]    a goblin-core (KIND goblin) or redis-server
#                             (KIND redis) in $DIR/NAME logging to
#                             $DIR/NAME.log, with DEBUG on and no diskless
#                             sync delay; sets NP (port) and NPID, adds the
#                             pid to PIDS
#   goblin NAME [flags]       node goblin ...; sets GP, GPID
#   redis NAME [flags]        node redis ...; sets RP, RPID
#   wait_synced MASTER REPLICA
#                             waits until the replica's link is up and its
#                             offset is the master's
#   same_digest MASTER REPLICA WHAT
#                             DEBUG DIGEST equal (and not empty), read with
#                             the master's active expiry paused

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
REDIS_SERVER=${REDIS_SERVER:-redis-server}

cli() { timeout 20 redis-cli -p "$@"; }
field() { cli "$1" INFO "$2" | tr -d '\r' | sed -n "s/^$3://p"; }

node() {
    local kind=$1 name=$2
    shift 2
    mkdir -p "$DIR/$name"
    NODE_DIR=$DIR/$name
    NODE_FLAGS=("$@")
    if [ "$kind" = goblin ]; then
        launch() {
            "$GOBLIN_SERVER" --port "$PORT" --dir "$NODE_DIR" --save "" --enable-debug-command yes \
                --repl-diskless-sync-delay 0 "${NODE_FLAGS[@]}" >>"$NODE_DIR.log" 2>&1 &
            PID=$!
        }
    else
        launch() {
            "$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --dir "$NODE_DIR" --save "" \
                --appendonly no --enable-debug-command yes --repl-diskless-sync-delay 0 \
                "${NODE_FLAGS[@]}" >>"$NODE_DIR.log" 2>&1 &
            PID=$!
        }
    fi
    LOG=$NODE_DIR.log start_server launch
    NP=$PORT
    NPID=$PID
    PIDS+=("$PID")
    PID=
}

goblin() {
    node goblin "$@"
    GP=$NP
    GPID=$NPID
}

redis() {
    node redis "$@"
    RP=$NP
    RPID=$NPID
}

wait_synced() {
    for _ in $(seq 400); do
        if [ "$(field "$2" replication master_link_status)" = up ] &&
            [ "$(field "$2" replication slave_repl_offset)" = "$(field "$1" replication master_repl_offset)" ]; then
            return 0
        fi
        sleep 0.05
    done
    fail "replica $2 did not catch up with $1: $(cli "$2" INFO replication | tr -d '\r' | tr '\n' ' ')"
}

same_digest() {
    cli "$1" DEBUG SET-ACTIVE-EXPIRE 0 >/dev/null
    wait_synced "$1" "$2"
    local a b
    a=$(cli "$1" DEBUG DIGEST)
    b=$(cli "$2" DEBUG DIGEST)
    cli "$1" DEBUG SET-ACTIVE-EXPIRE 1 >/dev/null
    [ "$a" = "$b" ] || fail "digests differ ($3): master $a replica $b"
    [ "$a" != 0000000000000000000000000000000000000000 ] || fail "empty data set ($3)"
}
