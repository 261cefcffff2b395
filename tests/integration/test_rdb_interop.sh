#!/usr/bin/env bash
# RDB snapshots between goblin-core and redis-server 7.0, both ways, each
# compared key by key (type, value, TTL) by rdb_compare.py:
#   goblin-core SAVE -> redis-check-rdb accepts it -> redis-server loads it
#     (with and without rdbcompression / rdbchecksum, and with
#     list-compress-depth 1: compressed list nodes save and reload);
#   redis-server SAVE -> goblin-core loads it at start;
#   DEBUG RELOAD and SHUTDOWN (default save points) keep every key;
#   LRU idle times and LFU counters travel both ways as Redis 7.0 writes
#     them (RDB_OPCODE_IDLE under an LRU policy, RDB_OPCODE_FREQ under an
#     LFU one, neither under the others);
#   function libraries (RDB_OPCODE_FUNCTION2) both ways, through SAVE,
#   BGSAVE, DEBUG RELOAD and the AOF rewrite's base;
#   streams with consumer groups, PELs and consumers (XINFO STREAM FULL
#     identical after the file moves, both ways);
#   RDB files of Redis < 7.0 (ziplists, quicklists of ziplists, zipmaps)
#     load to the data redis-server loads from them;
#   a type goblin-core does not implement (a module value), a ziplist with a bad
#   previous-entry length, a truncated file and a flipped byte stop the
#   start with an error naming the problem.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
DIR=$(mktemp -d /tmp/goblin-rdb-XXXXXX)
LOG=$DIR/goblin.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
COMPARE="python3 $(dirname "$0")/rdb_compare.py"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$DIR"' EXIT

# start_goblin DIR [flags...]: sets GPORT; the data directory is DIR.
start_goblin() {
    local d=$1
    shift
    GOBLIN_FLAGS=("$@") # launch_goblin's own "$@" is empty
    launch_goblin() {
        "$GOBLIN_SERVER" --port "$PORT" --dir "$d" --save "" --enable-debug-command yes \
            "${GOBLIN_FLAGS[@]}" >"$LOG" 2>&1 &
        PID=$!
    }
    start_server launch_goblin
    GPORT=$PORT
    GPID=$PID
    PIDS+=("$PID")
}

# start_redis DIR [flags...]: sets RPORT.
start_redis() {
    local d=$1
    shift
    RLOG=$d/redis.log
    REDIS_FLAGS=("$@")
    launch_redis() {
        "$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --dir "$d" --save "" --appendonly no \
            "${REDIS_FLAGS[@]}" >"$RLOG" 2>&1 &
        PID=$!
    }
    LOG=$RLOG start_server launch_redis
    RPORT=$PORT
    RPID=$PID
    PIDS+=("$PID")
}

cli() { timeout 20 redis-cli -p "$@"; }

stop() {
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

# 1. goblin-core writes, redis-server reads, in each writer variant.
for variant in "yes yes 0" "no no 0" "yes yes 1"; do
    read -r comp sum depth <<<"$variant"
    d=$DIR/g-$comp-$sum-$depth
    mkdir -p "$d"
    start_goblin "$d" --rdbcompression "$comp" --rdbchecksum "$sum" --list-compress-depth "$depth"
    $COMPARE fill "$GPORT" 7 || fail "fill goblin"
    usage=$(cli "$GPORT" MEMORY USAGE list:large)
    if [ "$depth" = 0 ]; then
        plain_usage=$usage
    else # the interior nodes are compressed: the same list takes less memory
        [ "$usage" -lt "$plain_usage" ] || fail "list-compress-depth 1: $usage bytes, plain $plain_usage"
    fi
    [ "$(cli "$GPORT" SAVE)" = OK ] || fail "SAVE"
    out=$(redis-check-rdb "$d/dump.rdb" 2>&1) || fail "redis-check-rdb ($variant): $out"
    grep -q "RDB looks OK" <<<"$out" || fail "redis-check-rdb ($variant): $out"
    start_redis "$d"
    $COMPARE compare "$GPORT" "$RPORT" || fail "goblin -> redis ($variant) differs"
    if [ "$depth" != 0 ]; then
        [ "$(cli "$GPORT" DEBUG RELOAD)" = OK ] || fail "DEBUG RELOAD ($variant)"
        $COMPARE compare "$GPORT" "$RPORT" || fail "goblin reloaded ($variant) differs"
        [ "$(cli "$GPORT" MEMORY USAGE list:large)" -lt "$plain_usage" ] ||
            fail "reloaded list:large is not compressed"
    fi
    stop "$RPID"
    stop "$GPID"
done

# 2. redis-server writes, goblin-core reads.
d=$DIR/r
mkdir -p "$d"
start_redis "$d"
$COMPARE fill "$RPORT" 11 || fail "fill redis"
[ "$(cli "$RPORT" SAVE)" = OK ] || fail "redis SAVE"
start_goblin "$d"
grep -q "DB loaded from disk" "$LOG" || fail "goblin did not report loading"
$COMPARE compare "$RPORT" "$GPORT" || fail "redis -> goblin differs"

# 3. DEBUG RELOAD keeps everything; so does SHUTDOWN with save points.
[ "$(cli "$GPORT" DEBUG RELOAD)" = OK ] || fail "DEBUG RELOAD"
$COMPARE compare "$RPORT" "$GPORT" || fail "after DEBUG RELOAD"
stop "$RPID"
[ "$(cli "$GPORT" CONFIG SET save "3600 1")" = OK ] || fail "CONFIG SET save"
cli "$GPORT" SET after-reload yes >/dev/null
cli "$GPORT" SHUTDOWN >/dev/null 2>&1
wait "$GPID" 2>/dev/null
start_goblin "$d"
[ "$(cli "$GPORT" GET after-reload)" = yes ] || fail "SHUTDOWN did not save"
[ "$(cli "$GPORT" SHUTDOWN NOSAVE SAVE 2>&1)" = "ERR syntax error" ] || fail "NOSAVE SAVE"
cli "$GPORT" SET lost yes >/dev/null
cli "$GPORT" SHUTDOWN NOSAVE >/dev/null 2>&1
wait "$GPID" 2>/dev/null
start_goblin "$d"
[ "$(cli "$GPORT" EXISTS lost)" = 0 ] || fail "SHUTDOWN NOSAVE saved"
stop "$GPID"

# 4. LRU/LFU metadata, both ways: WRITER_POLICY READER_POLICY KIND N. The
# writer stamps stamp:aged (RESTORE IDLETIME/FREQ) and saves; the reader
# loads the file under its policy and must show the same idle time or
# counter; a writer under noeviction writes neither (idle-dropped).
stamp_round() {
    local from=$1 to=$2 wpolicy=$3 rpolicy=$4 kind=$5 n=$6 d=$DIR/stamp-$1-$3
    local lfu=(--lfu-decay-time 0) # no decay at a minute boundary
    mkdir -p "$d"
    if [ "$from" = goblin ]; then
        start_goblin "$d" --maxmemory-policy "$wpolicy" "${lfu[@]}"
        wport=$GPORT wpid=$GPID
    else
        start_redis "$d" --maxmemory-policy "$wpolicy" "${lfu[@]}"
        wport=$RPORT wpid=$RPID
    fi
    $COMPARE stamp "$wport" "${kind%-dropped}" "$n" || fail "stamp ($from, $wpolicy)"
    [ "$(cli "$wport" SAVE)" = OK ] || fail "SAVE ($from, $wpolicy)"
    stop "$wpid"
    out=$(redis-check-rdb "$d/dump.rdb" 2>&1) || fail "redis-check-rdb ($from, $wpolicy): $out"
    if [ "$to" = goblin ]; then
        start_goblin "$d" --maxmemory-policy "$rpolicy" "${lfu[@]}"
        rport=$GPORT rpid=$GPID
    else
        start_redis "$d" --maxmemory-policy "$rpolicy" "${lfu[@]}"
        rport=$RPORT rpid=$RPID
    fi
    $COMPARE check-stamp "$rport" "$kind" "$n" || fail "$from ($wpolicy) -> $to ($rpolicy): $kind"
    stop "$rpid"
}
for dir in "goblin redis" "redis goblin"; do
    read -r from to <<<"$dir"
    stamp_round "$from" "$to" allkeys-lru volatile-lru idle 1000
    stamp_round "$from" "$to" volatile-lfu allkeys-lfu freq 200
    stamp_round "$from" "$to" noeviction allkeys-lru idle-dropped 1000
done

# 4b. RDB files of Redis before 7.0: ziplist hashes and sorted sets, a list
# as one ziplist and as a quicklist of ziplists, a zipmap hash (py/old_rdb.py writes every
# ziplist entry form); both servers load the same file to the same data.
d=$DIR/old
mkdir -p "$d/g" "$d/r"
python3 "$(dirname "$0")/py/old_rdb.py" "$d/g/dump.rdb" || fail "old_rdb.py"
cp "$d/g/dump.rdb" "$d/r/dump.rdb"
start_redis "$d/r" --enable-debug-command yes
start_goblin "$d/g"
[ "$(cli "$GPORT" DBSIZE)" = 6 ] || fail "old encodings: $(cli "$GPORT" DBSIZE) keys loaded, 6 written"
$COMPARE compare "$RPORT" "$GPORT" || fail "old encodings: goblin-core's data differs from redis-server's"
[ "$(cli "$GPORT" DEBUG DIGEST)" = "$(cli "$RPORT" DEBUG DIGEST)" ] || fail "old encodings: digests differ"
stop "$RPID"
stop "$GPID"

# 5. Refusals at start: exit status 1 and a message naming the problem.
expect_refusal() {
    local what=$1 pattern=$2 d=$3 rc=0
    timeout 30 "$GOBLIN_SERVER" --port 0 --dir "$d" --save "" >"$DIR/refusal.log" 2>&1 || rc=$?
    [ "$rc" = 1 ] || fail "$what: exit status $rc, expected 1: $(cat "$DIR/refusal.log")"
    grep -Eq "$pattern" "$DIR/refusal.log" || fail "$what: log lacks /$pattern/: $(cat "$DIR/refusal.log")"
}
d=$DIR/ziplist
mkdir -p "$d"
start_redis "$d" --rdbchecksum no
cli "$RPORT" HSET zhash f v >/dev/null
cli "$RPORT" SAVE >/dev/null
stop "$RPID"
# The same bytes under the type byte of a module value (7), which
# goblin-core has no module to read.
python3 - "$d/dump.rdb" <<'PY' || fail "patching the type byte"
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
at = b.index(b"\x10\x05zhash")
b[at] = 7
open(p, "wb").write(b)
PY
expect_refusal "a module value" "key 'zhash' \(module.*not implemented" "$d"
d=$DIR/badzl
mkdir -p "$d"
python3 "$(dirname "$0")/py/old_rdb.py" "$d/dump.rdb" corrupt || fail "old_rdb.py corrupt"
expect_refusal "a ziplist with a wrong previous length" "key 'oldhash' \(hash.*bad previous length" "$d"
d=$DIR/trunc
mkdir -p "$d"
head -c 1000 "$DIR/r/dump.rdb" >"$d/dump.rdb"
expect_refusal "a truncated file" "unexpected end of data|bytes left" "$d"
d=$DIR/flip
mkdir -p "$d"
cp "$DIR/r/dump.rdb" "$d/dump.rdb"
size=$(stat -c %s "$d/dump.rdb")
printf '\x5a' | dd of="$d/dump.rdb" bs=1 seek=$((size / 2)) conv=notrunc status=none
expect_refusal "a flipped byte" "checksum|key '|offset" "$d"

# 5. Functions: redis-server's libraries load here, ours load there; DEBUG
# RELOAD and the AOF base keep them. Compared per library, lines sorted
# (FUNCTION LIST orders libraries and functions by Redis's randomly seeded
# hash tables, ours by load and registration order).
LIB1='#!lua name=lib1
redis.register_function{function_name="f1", callback=function(keys, args) return "one:" .. (args[1] or "") end, flags={"no-writes"}, description="first"}
redis.register_function("f2", function(keys, args) return redis.call("INCR", keys[1]) end)'
LIB2='#!lua name=lib2
redis.register_function("g1", function() return 2 end)'
same_functions() { # PORT_A PORT_B
    for lib in lib1 lib2; do
        a=$(cli "$1" FUNCTION LIST LIBRARYNAME "$lib" WITHCODE | sort)
        b=$(cli "$2" FUNCTION LIST LIBRARYNAME "$lib" WITHCODE | sort)
        [ -n "$a" ] && [ "$a" = "$b" ] || fail "FUNCTION LIST $lib differs: '$a' vs '$b'"
    done
    [ "$(cli "$2" FCALL f1 0 x)" = "one:x" ] || fail "FCALL f1 after load"
}
d=$DIR/fr
mkdir -p "$d"
start_redis "$d"
[ "$(cli "$RPORT" FUNCTION LOAD "$LIB1")" = lib1 ] || fail "redis FUNCTION LOAD lib1"
[ "$(cli "$RPORT" FUNCTION LOAD "$LIB2")" = lib2 ] || fail "redis FUNCTION LOAD lib2"
cli "$RPORT" SET k v >/dev/null
[ "$(cli "$RPORT" SAVE)" = OK ] || fail "redis SAVE with functions"
start_goblin "$d"
same_functions "$RPORT" "$GPORT"
[ "$(cli "$GPORT" GET k)" = v ] || fail "the key next to the functions"
[ "$(cli "$GPORT" DEBUG RELOAD)" = OK ] || fail "DEBUG RELOAD with functions"
same_functions "$RPORT" "$GPORT"
[ "$(cli "$GPORT" FUNCTION LOAD "$LIB2" 2>&1)" = "ERR Library 'lib2' already exists" ] ||
    fail "DEBUG RELOAD duplicated or lost lib2"
stop "$RPID"
cli "$GPORT" FUNCTION DELETE lib2 >/dev/null
cli "$GPORT" FUNCTION LOAD "$LIB2" >/dev/null # now saved second, as redis had it
[ "$(cli "$GPORT" BGSAVE)" = "Background saving started" ] || fail "BGSAVE with functions"
for _ in $(seq 1 200); do
    [ "$(cli "$GPORT" INFO persistence | tr -d '\r' | grep rdb_bgsave_in_progress:)" = rdb_bgsave_in_progress:0 ] && break
    sleep 0.05
done
out=$(redis-check-rdb "$d/dump.rdb" 2>&1) || fail "redis-check-rdb with functions: $out"
d2=$DIR/fg
mkdir -p "$d2"
cp "$d/dump.rdb" "$d2/dump.rdb"
start_redis "$d2"
same_functions "$GPORT" "$RPORT"
stop "$RPID"
stop "$GPID"
# The AOF base: a rewrite keeps the functions, a restart loads them.
d=$DIR/faof
mkdir -p "$d"
start_goblin "$d" --appendonly yes
[ "$(cli "$GPORT" FUNCTION LOAD "$LIB1")" = lib1 ] || fail "FUNCTION LOAD lib1 (aof)"
[ "$(cli "$GPORT" FUNCTION LOAD "$LIB2")" = lib2 ] || fail "FUNCTION LOAD lib2 (aof)"
cli "$GPORT" BGREWRITEAOF >/dev/null
for _ in $(seq 1 200); do
    [ "$(cli "$GPORT" INFO persistence | tr -d '\r' | grep aof_rewrite_in_progress:)" = aof_rewrite_in_progress:0 ] && break
    sleep 0.05
done
before=$(cli "$GPORT" FUNCTION LIST WITHCODE)
stop "$GPID"
start_goblin "$d" --appendonly yes
[ "$(cli "$GPORT" FUNCTION LIST WITHCODE)" = "$before" ] || fail "functions lost across the AOF rewrite"
[ "$(cli "$GPORT" FCALL f2 1 counter)" = 1 ] || fail "FCALL f2 after the AOF load"
# FUNCTION DELETE/LOAD after the rewrite go to the incr file, as in Redis.
[ "$(cli "$GPORT" FUNCTION DELETE lib2)" = OK ] || fail "FUNCTION DELETE (aof)"
cli "$GPORT" FUNCTION LOAD "${LIB2//lib2/lib3}" >/dev/null
stop "$GPID"
start_goblin "$d" --appendonly yes
[ "$(cli "$GPORT" FUNCTION LIST LIBRARYNAME 'lib*' | grep -c '^lib[0-9]$')" = 2 ] &&
    [ -z "$(cli "$GPORT" FUNCTION LIST LIBRARYNAME lib2)" ] &&
    [ "$(cli "$GPORT" FCALL g1 0)" = 2 ] || fail "FUNCTION DELETE/LOAD not replayed from the AOF"
stop "$GPID"
echo "test_rdb_interop: ok"
