#!/usr/bin/env bash
# Node.js clients against goblin-core, judged by redis-server: ioredis 5,
# node-redis 4 (RESP2) and node-redis 5 (RESP3, client-side cache), pinned
# by tests/node/package-lock.json. Each script in tests/node runs once
# against goblin-core and once against redis-server 7.0; its transcript (one
# line per case: what the client library returned) must be identical, and
# its own assertions must hold against both. See tests/node/README.md.
#
# The packages are installed with `npm ci` on first use into a cache folder
# keyed by the lock file's hash (GOBLIN_NODE_CACHE, default
# ~/.cache/goblin-core/node-clients). Without the npm registry (and no
# cached install) the test is skipped (exit 77).
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
DIR=$(mktemp -d /tmp/goblin-node-clients-XXXXXX)
LOG=$DIR/server.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
NODE_DIR=$(cd "$(dirname "$0")/../node" && pwd)
SCRIPTS="ioredis.js node_redis.js node_redis_resp3.js"

command -v node >/dev/null && command -v npm >/dev/null ||
    fail "node and npm are not installed (make deps installs Debian's nodejs and npm)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || fail "Node.js $(node --version) is too old: the pinned clients need 18 or later"

# The pinned packages, installed once per lock file.
CACHE=${GOBLIN_NODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/goblin-core/node-clients}
KEY=$(cat "$NODE_DIR/package.json" "$NODE_DIR/package-lock.json" | sha1sum | cut -c1-16)
MODULES=$CACHE/$KEY
if [ ! -f "$MODULES/.installed" ]; then
    if ! timeout 30 npm ping --fetch-retries=0 >"$DIR/npm-ping.log" 2>&1; then
        echo "$TEST_NAME: SKIP: the npm registry is unreachable (npm ping failed or gave no answer" \
            "within 30 s) and no install is cached in $MODULES" >&2
        rm -rf "$DIR"
        exit 77
    fi
    mkdir -p "$CACHE"
    STAGE=$(mktemp -d "$CACHE/install-XXXXXX")
    cp "$NODE_DIR/package.json" "$NODE_DIR/package-lock.json" "$STAGE/"
    (cd "$STAGE" && timeout 300 npm ci --no-audit --no-fund --ignore-scripts) >"$DIR/npm.log" 2>&1 || {
        cat "$DIR/npm.log" >&2
        rm -rf "$STAGE"
        fail "npm ci of tests/node/package-lock.json failed"
    }
    touch "$STAGE/.installed"
    # Another run may have finished the same install meanwhile: keep one.
    mv -T "$STAGE" "$MODULES" 2>/dev/null || rm -rf "$STAGE"
fi
export NODE_PATH=$MODULES/node_modules

launch_goblin() {
    mkdir -p "$DIR/goblin"
    "$GOBLIN_SERVER" --port "$PORT" --save "" --dir "$DIR/goblin" >"$LOG" 2>&1 &
    PID=$!
}
launch_redis() {
    mkdir -p "$DIR/redis"
    "$REDIS_SERVER" --port "$PORT" --save "" --appendonly no --dir "$DIR/redis" >"$DIR/redis.log" 2>&1 &
    PID=$!
}
start_server launch_redis
REDIS_PORT=$PORT REDIS_PID=$PID
PID=
trap '[ -n "${REDIS_PID:-}" ] && kill -KILL "$REDIS_PID" 2>/dev/null' EXIT
start_server launch_goblin

cases=0
for script in $SCRIPTS; do
    for side in redis goblin; do
        port=$REDIS_PORT
        [ $side = goblin ] && port=$PORT
        PORT=$port timeout 120 node "$NODE_DIR/$script" >"$DIR/$script.$side" 2>"$DIR/$script.$side.err" || {
            st=$?
            cat "$DIR/$script.$side" "$DIR/$script.$side.err" >&2
            fail "$script against $side failed (exit status $st)"
        }
    done
    if ! cmp -s "$DIR/$script.redis" "$DIR/$script.goblin"; then
        diff "$DIR/$script.redis" "$DIR/$script.goblin" | cut -c1-2000 >&2
        fail "$script: goblin-core's transcript (>) differs from redis-server's (<)"
    fi
    n=$(wc -l <"$DIR/$script.goblin")
    cases=$((cases + n))
    echo "$TEST_NAME: $script: $n cases, same transcript as redis-server" >&2
done

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "goblin-core exited with status $rc"
rm -rf "$DIR"
echo "$TEST_NAME: $cases passed, 0 failed" >&2
