#!/usr/bin/env bash
# Redis 7.0.15's own test suite (tests/*.tcl, run by its `runtest`)
# against goblin-core, unit by unit, with per-unit counts.
#
# Fetches Debian's orig tarball of Redis 7.0.15 into a cache directory
# (verified by sha256), unpacks it into a scratch directory and runs every
# unit the suite's own test_helper.tcl lists (its ::all_tests), one runtest
# per unit. In external mode (the default, what ctest runs) only tests/unit
# runs, each unit against a goblin-core this script starts, and tests
# tagged external:skip are left out by runtest. In its own mode
# (REDIS_SUITE_MODE=own) the suite starts its servers itself, from its
# config files, as it does for Redis, and runs tests/integration too:
# src/redis-server in the checkout is a symlink to goblin-core, redis-cli,
# redis-benchmark and redis-check-* symlinks to Debian's (redis-tools).
# For each unit it counts the tests that passed ([ok]) and whether the
# unit ran to its end. It fails when a unit passes fewer tests
# than its recorded count (tests/redis_suite/counts.own or counts), or
# stops early (an [exception], a timeout, the server gone) where the counts
# do not record that it stops, with the reason. docs/redis-suite.md
# explains the counts and what is left out.
#
# Environment:
#   GOBLIN_SERVER          the server binary (ctest sets it)
#   REDIS_SUITE_MODE       external (default, what ctest runs) or own
#   REDIS_SUITE_CACHE      cache directory for the tarball
#                          (default ${XDG_CACHE_HOME:-~/.cache}/goblin-core)
#   REDIS_SUITE_TARBALL    use this local copy of the tarball instead (still
#                          checked against the sha256)
#   REDIS_SUITE_UNITS      run these units (space-separated) instead of all
#   REDIS_SUITE_URL        fetch the tarball from here instead of the mirror
#   REDIS_SUITE_KEEP       set: keep the scratch directory (each unit's
#                          output in unit.N.out)
#   REDIS_SUITE_RECORD     set: print "unit ok stopped" per unit and judge
#                          nothing (how counts is made, for goblin-core and
#                          with GOBLIN_SERVER=/usr/bin/redis-server)
#
# Exits 77 (ctest: skipped) when the tarball cannot be fetched or tclsh is
# missing.
set -u

# Tests left out, one per line with the reason (runtest --skiptest: a
# name, or a regexp after "/").
SKIP_TESTS=(
    # needs a forked child's pid (BGSAVE with rdb-key-save-delay): fails
    # against redis-server in external mode too
    "SRANDMEMBER with a dict containing long chain"
    # runtime only (both pass): a 1000-round tcl loop (45 s against
    # redis-server too), and a 15 s sleep
    "Fuzzing dense/sparse encoding: Redis should always detect errors"
    "MIGRATE cached connections are released after some time"
)

# Units run in this many groups at once (every unit against a goblin-core
# of its own); each group takes the next unit when it is done.
SUITE_GROUPS=${REDIS_SUITE_GROUPS:-2}

# runtest --tags: no tests tagged slow (the long stress loops), to keep the
# run near two minutes.
TAGS=${REDIS_SUITE_TAGS:-"-slow"}

MODE=${REDIS_SUITE_MODE:-external}
case $MODE in
own) COUNTS=$(dirname "$0")/counts.own ;;
external) COUNTS=$(dirname "$0")/counts ;;
*)
    echo "REDIS_SUITE_MODE: own or external, not $MODE" >&2
    exit 2
    ;;
esac

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
trap 'for j in $(jobs -p); do kill "$j"; done 2>/dev/null; wait 2>/dev/null
      if [ -n "${REDIS_SUITE_KEEP:-}" ]; then echo "kept $DIR"; else rm -rf "$DIR"; fi' EXIT

skip() {
    echo "$TEST_NAME: SKIP: $*"
    exit 77
}

command -v tclsh >/dev/null || skip "tclsh not installed (Debian package tcl)"
# The suite's own mode runs Redis's tools from src/ (redis-cli for
# integration/redis-cli, redis-check-aof for the AOF units, ...).
TOOLS=(redis-cli redis-benchmark redis-check-aof redis-check-rdb)
if [ "$MODE" = own ]; then
    for t in "${TOOLS[@]}"; do
        command -v "$t" >/dev/null || fail "$t not installed (Debian package redis-tools)"
    done
    SERVER_PATH=$(readlink -f "$GOBLIN_SERVER") || fail "no server at $GOBLIN_SERVER"
fi

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
else
    # Every unit the suite itself runs (its ::all_tests); tests/integration
    # needs the suite's own mode (servers it starts).
    units_re='unit/[A-Za-z0-9/_-]*'
    [ "$MODE" = own ] && units_re='\(unit\|integration\)/[A-Za-z0-9/_-]*'
    mapfile -t UNITS < <(sed -n '/^set ::all_tests {/,/^}/p' "$DIR/redis-7.0.15/tests/test_helper.tcl" |
        grep -o "$units_re")
    [ "${#UNITS[@]}" -gt 40 ] || fail "found ${#UNITS[@]} units in test_helper.tcl"
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

# run_own G I OUT: unit I in the suite's own mode, in group G's tree; the
# suite starts its servers (src/redis-server, goblin-core) on group G's own
# port range (cluster units add 10000 for the bus).
run_own() {
    local g=$1 i=$2 out=$3
    (cd "$DIR/tree.$g" && timeout 900 ./runtest --clients 2 --timeout 120 \
        --baseport $((21000 + g * 4000)) --portcount 4000 --tags "$TAGS" \
        "${SKIP_ARGS[@]}" --single "${UNITS[$i]}") >"$out" 2>&1
}

# run_external G I OUT: unit I in external mode against a goblin-core of
# its own (a unit may leave configuration behind, as hash.tcl leaves
# hash-max-listpack-entries at 2).
run_external() {
    local g=$1 i=$2 out=$3 data=$DIR/data.$1.$2 log=$DIR/goblin.$1.$2.log
    mkdir -p "$data"
    LOG=$log
    launch_goblin() {
        "$GOBLIN_SERVER" --port "$PORT" --dir "$data" --save "" \
            --enable-debug-command yes >"$log" 2>&1 &
        PID=$!
    }
    start_server launch_goblin
    pid=$PID
    (cd "$DIR/tree.$g" && timeout 900 ./runtest --host 127.0.0.1 --port "$PORT" --clients 2 \
        --timeout 120 --baseport $((20000 + g * 1000 + RANDOM % 500)) --tags "$TAGS" \
        "${SKIP_ARGS[@]}" --single "${UNITS[$i]}") >"$out" 2>&1
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "goblin-core exited during ${UNITS[$i]}; its log:" >>"$out"
        cat "$log" >>"$out"
        echo "[exception]: the server is gone" >>"$out"
    fi
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    pid=
}

# run_group G: runtest for the units it claims, one after the other, in a
# tree of its own (runtest writes under tests/tmp); unit I's output goes to
# $DIR/unit.I.out, "unit ok stopped" to $DIR/unit.I.result.
run_group() {
    local g=$1 tree=$DIR/tree.$1 i pid=
    trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null' EXIT
    cp -r "$DIR/redis-7.0.15" "$tree"
    if [ "$MODE" = own ]; then
        ln -sf "$SERVER_PATH" "$tree/src/redis-server"
        for t in "${TOOLS[@]}"; do ln -sf "$(command -v "$t")" "$tree/src/$t"; done
    fi
    while i=$(claim) && [ -n "$i" ]; do
        local out=$DIR/unit.$i.out ok stopped=no
        "run_$MODE" "$g" "$i" "$out"
        sed -i 's/\x1b\[[0-9;]*m//g' "$out"
        ok=$(grep -c '^\[ok\]' "$out")
        grep -q '\[exception\]\|\[TIMEOUT\]' "$out" && stopped=yes
        grep -q 'All tests passed\|The following tests failed' "$out" || stopped=yes
        echo "${UNITS[$i]} $ok $stopped" >"$DIR/unit.$i.result"
    done
}

for ((g = 0; g < SUITE_GROUPS; g++)); do run_group "$g" & done
wait
PID=

if [ -n "${REDIS_SUITE_RECORD:-}" ]; then
    for ((i = 0; i < ${#UNITS[@]}; i++)); do cat "$DIR/unit.$i.result" 2>/dev/null; done
    exit 0
fi

# counts: "unit goblin-ok redis-ok [stops: reason]" per line, # comments.
status=0
for ((i = 0; i < ${#UNITS[@]}; i++)); do
    unit=${UNITS[$i]}
    read -r _ ok stopped <"$DIR/unit.$i.result" 2>/dev/null || {
        echo "$TEST_NAME: $unit: no result" >&2
        status=1
        continue
    }
    line=$(grep -v '^#' "$COUNTS" | awk -v u="$unit" '$1 == u' | head -1)
    if [ -z "$line" ]; then
        echo "$TEST_NAME: $unit: not in $COUNTS ($ok passed, stopped: $stopped)" >&2
        status=1
        continue
    fi
    read -r _ want redis_ok rest <<<"$line"
    bad=
    [ "$ok" -lt "$want" ] && bad="$ok passed, $want recorded"
    if [ "$stopped" = yes ] && [[ "$rest" != stops:* ]]; then
        bad="${bad:+$bad; }stopped early (redis-server runs it to its end)"
    fi
    if [ -n "$bad" ]; then
        echo "$TEST_NAME: FAIL $unit: $bad; its output:" >&2
        grep -A8 '^\[err\]\|\[exception\]\|\[TIMEOUT\]\|goblin-core exited' "$DIR/unit.$i.out" | head -60 >&2
        status=1
    else
        note=
        [ "$ok" -gt "$want" ] && note=" (more than the $want recorded: raise counts)"
        echo "$TEST_NAME: $unit: $ok passed (redis-server $redis_ok)$note"
    fi
done
[ $status -eq 0 ] || exit 1
echo "$TEST_NAME: OK (${#UNITS[@]} units)"
