#!/usr/bin/env bash
# Redis 7.0.15's own test suite (tests/*.tcl, run by its `runtest` in
# external-server mode) against goblin-core.
#
# Fetches Debian's orig tarball of Redis 7.0.15 into a cache directory
# (verified by sha256), unpacks it into a scratch directory, starts
# goblin-core and runs each unit listed in UNITS below against it. Every
# listed unit must pass completely; a unit that fails or aborts fails the
# test. Tests the suite tags external:skip are skipped by runtest itself.
#
# Environment:
#   GOBLIN_SERVER          the server binary (ctest sets it)
#   REDIS_SUITE_CACHE      cache directory for the tarball
#                          (default ${XDG_CACHE_HOME:-~/.cache}/goblin-core)
#   REDIS_SUITE_TARBALL    use this local copy of the tarball instead (still
#                          checked against the sha256)
#   REDIS_SUITE_UNITS      run these units (space-separated) instead of UNITS
#   REDIS_SUITE_URL        fetch the tarball from here instead of the mirror
#
# Exits 77 (ctest: skipped) when the tarball cannot be fetched or tclsh is
# missing. docs/redis-suite.md lists the units left out and why.
set -u

# One unit per line: the units that pass completely against goblin-core
# (with SKIP_TESTS below left out). The longest first: the groups below
# take the next unit from this list as they finish one.
UNITS=(
    unit/type/list-3
    unit/geo
    unit/type/stream
    unit/type/stream-cgroups
    unit/keyspace
    unit/pubsub
    unit/type/zset
    unit/type/list
    unit/hyperloglog
    unit/sort
    unit/type/string
    unit/scan
    unit/type/hash
    unit/type/set
    unit/type/incr
    unit/type/list-2
    unit/bitops
    unit/bitfield
    unit/dump
    unit/latency-monitor
    unit/protocol
    unit/info-command
    unit/quit
)

# Tests left out, one per line with the reason (runtest --skiptest: a
# name, or a regexp after "/"). Tests tagged needs:repl are left out as a
# whole (--tags -needs:repl): goblin-core has no replication (no SYNC
# stream for attach_to_replication_stream).
SKIP_TESTS=(
    # no replication stream (attach_to_replication_stream), untagged:
    "/SWAPDB wants to wake blocked client, but the key already expired"
    "/MULTI . LPUSH . EXPIRE . DEBUG SLEEP on blocked client, key already expired"
    # needs a forked child's pid (BGSAVE with rdb-key-save-delay): fails
    # against redis-server in external mode too
    "SRANDMEMBER with a dict containing long chain"
    # runtime only (both pass): a 1000-round tcl loop (45 s against
    # redis-server too), and a 15 s sleep
    "Fuzzing dense/sparse encoding: Redis should always detect errors"
    "MIGRATE cached connections are released after some time"
)

# Units run in this many groups at once (every unit against a goblin-core
# of its own); each group takes the next unit of UNITS when it is done.
SUITE_GROUPS=${REDIS_SUITE_GROUPS:-2}

# runtest --tags: no replication tests (see above); no tests tagged slow
# (the long stress loops), to keep the run near a minute and a half.
TAGS=${REDIS_SUITE_TAGS:-"-needs:repl -slow"}

URL=${REDIS_SUITE_URL:-http://deb.debian.org/debian/pool/main/r/redis/redis_7.0.15.orig.tar.gz}
SHA256=4b1dc4ee6d622a09fff9c6777191209750fb5e5a725ef78ea012d6eef4c22982

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER not set}
CACHE=${REDIS_SUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/goblin-core}
TARBALL=${REDIS_SUITE_TARBALL:-$CACHE/redis_7.0.15.orig.tar.gz}
DIR=$(mktemp -d /tmp/goblin-redis-suite-XXXXXX)
LOG=$DIR/goblin.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
TEST_NAME=test_redis_suite
trap 'for j in $(jobs -p); do kill "$j"; done 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT

skip() {
    echo "$TEST_NAME: SKIP: $*"
    exit 77
}

command -v tclsh >/dev/null || skip "tclsh not installed (Debian package tcl)"

sha_ok() { [ -f "$1" ] && echo "$SHA256  $1" | sha256sum -c --status; }

if ! sha_ok "$TARBALL"; then
    [ -n "${REDIS_SUITE_TARBALL:-}" ] && fail "$TARBALL does not match sha256 $SHA256"
    mkdir -p "$CACHE" || skip "cannot create the cache directory $CACHE"
    if ! curl -fsSL --connect-timeout 10 --max-time 120 -o "$TARBALL.part" "$URL"; then
        rm -f "$TARBALL.part"
        skip "the Debian mirror is unreachable ($URL)"
    fi
    sha_ok "$TARBALL.part" || {
        rm -f "$TARBALL.part"
        fail "$URL does not match sha256 $SHA256"
    }
    mv "$TARBALL.part" "$TARBALL"
fi

tar -xzf "$TARBALL" -C "$DIR" || fail "cannot unpack $TARBALL"

if [ -n "${REDIS_SUITE_UNITS:-}" ]; then
    read -r -a UNITS <<<"$REDIS_SUITE_UNITS"
fi
SKIP_ARGS=()
for t in "${SKIP_TESTS[@]}"; do SKIP_ARGS+=(--skiptest "$t"); done

# claim: prints the index of the next unit nobody took yet (nothing when
# all are taken); the groups share the counter in $DIR/queue.next.
claim() {
    local n
    {
        flock 9
        n=$(cat "$DIR/queue.next")
        echo $((n + 1)) >"$DIR/queue.next"
    } 9>"$DIR/queue.lock"
    [ "$n" -lt "${#UNITS[@]}" ] && echo "$n"
}
echo 0 >"$DIR/queue.next"

# run_group G: runtest for the units it claims, one after the other, each
# against a goblin-core of its own (a unit may leave configuration behind,
# as hash.tcl leaves hash-max-listpack-entries at 2), in a tree of its own
# (runtest writes under tests/tmp); the output goes to $DIR/group.G.out,
# the number of failed units to $DIR/group.G.rc.
run_group() {
    local g=$1 tree=$DIR/tree.$1 failed=0 i pid=
    trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null' EXIT
    cp -r "$DIR/redis-7.0.15" "$tree"
    while i=$(claim) && [ -n "$i" ]; do
        local data=$DIR/data.$g.$i log=$DIR/goblin.$g.$i.log
        mkdir -p "$data"
        LOG=$log
        launch_goblin() {
            "$GOBLIN_SERVER" --port "$PORT" --dir "$data" --save "" \
                --enable-debug-command yes >"$log" 2>&1 &
            PID=$!
        }
        start_server launch_goblin
        pid=$PID
        (cd "$tree" && ./runtest --host 127.0.0.1 --port "$PORT" --clients 2 --timeout 120 \
            --baseport $((20000 + g * 1000 + RANDOM % 500)) --tags "$TAGS" \
            "${SKIP_ARGS[@]}" --single "${UNITS[$i]}") >>"$DIR/group.$g.out" 2>&1 ||
            failed=$((failed + 1))
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "goblin-core exited during ${UNITS[$i]}; its log:" >>"$DIR/group.$g.out"
            cat "$log" >>"$DIR/group.$g.out"
            failed=$((failed + 1))
        fi
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
        pid=
    done
    echo "$failed" >"$DIR/group.$g.rc"
}

for ((g = 0; g < SUITE_GROUPS; g++)); do run_group "$g" & done
wait
PID=
status=0
for ((g = 0; g < SUITE_GROUPS; g++)); do
    sed 's/\x1b\[[0-9;]*m//g' "$DIR/group.$g.out"
    rc=$(cat "$DIR/group.$g.rc" 2>/dev/null || echo 1)
    if [ "$rc" != 0 ] || grep -q '^\[err\]\|\[exception\]' "$DIR/group.$g.out"; then
        echo "$TEST_NAME: $rc unit(s) of group $g failed (see [err]/[exception] above)" >&2
        status=1
    fi
done
[ $status -eq 0 ] || exit 1
echo "$TEST_NAME: OK (${#UNITS[@]} units)"
