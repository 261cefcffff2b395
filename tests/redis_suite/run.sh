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

# One unit per line: the units that pass completely against goblin-core.
UNITS=(
    unit/type/incr
)

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
trap '[ -n "$PID" ] && { kill "$PID" && wait "$PID"; } 2>/dev/null; rm -rf "$DIR"' EXIT

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
SRC=$DIR/redis-7.0.15
mkdir -p "$DIR/data"

launch_goblin() {
    "$GOBLIN_SERVER" --port "$PORT" --dir "$DIR/data" --save "" --enable-debug-command yes \
        >"$LOG" 2>&1 &
    PID=$!
}
start_server launch_goblin

if [ -n "${REDIS_SUITE_UNITS:-}" ]; then
    read -r -a UNITS <<<"$REDIS_SUITE_UNITS"
fi
ARGS=()
for u in "${UNITS[@]}"; do ARGS+=(--single "$u"); done

cd "$SRC" || fail "no $SRC"
OUT=$DIR/runtest.out
./runtest --host 127.0.0.1 --port "$PORT" --clients 2 --tags -slow --timeout 120 \
    "${ARGS[@]}" >"$OUT" 2>&1
rc=$?
cat "$OUT"
kill -0 "$PID" 2>/dev/null || fail "goblin-core exited during the suite"
if [ $rc -ne 0 ] || grep -q '^\[err\]\|\[exception\]' "$OUT"; then
    fail "the Redis test suite failed (runtest exit $rc; see [err]/[exception] above)"
fi
echo "$TEST_NAME: OK (${#UNITS[@]} units)"
