#!/usr/bin/env bash
# Integration: goblin-core started from redis.conf files as redis-server is
# (issue 32, items 1 and 2). Debian's own /etc/redis/redis.conf, with only
# port, dir, unixsocket, pidfile and logfile changed, starts both servers
# (daemonized, as the file says); CONFIG GET of every directive the file
# names (set or commented out) answers the same on both; CONFIG REWRITE
# writes a file redis-server starts from and goblin-core restarts from;
# malformed files refuse to start with Redis's own error block (compared
# byte for byte with redis-server's where Redis has one); command-line
# options override the file; "-" reads standard input; include, quoting and
# units; every setting accepted without effect is in docs/configuration.md.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
redis="${REDIS_SERVER:-/usr/bin/redis-server}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$(mktemp -d)
LOG=$DIR/g.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
command -v redis-cli >/dev/null || fail "redis-cli is required"
[ -x "$redis" ] || fail "redis-server is required ($redis)"
CONF=/etc/redis/redis.conf
[ -r "$CONF" ] || fail "$CONF missing (Debian's redis-server package installs it)"
RPID_FILE=$DIR/r/r.pid
GPID_FILE=$DIR/g/g.pid
cleanup() {
    for f in "$GPID_FILE" "$RPID_FILE" "$DIR"/x/*.pid; do
        [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
    done
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT
mkdir -p "$DIR/g" "$DIR/r" "$DIR/x"

# Debian's file with only the port and the paths changed (who = g or r).
derive() {
    local who=$1 port=$2
    sed -e "s/^port 6379\$/port $port/" \
        -e "s#^dir /var/lib/redis\$#dir $DIR/$who#" \
        -e "s#^pidfile .*#pidfile $DIR/$who/$who.pid#" \
        -e "s#^logfile .*#logfile $DIR/$who/$who.log#" \
        -e "s@^\# unixsocket /run/redis/redis-server.sock\$@unixsocket $DIR/$who/$who.sock@" \
        "$CONF"
}
wait_pong() {  # port pidfile
    for _ in $(seq 1 200); do
        [ -s "$2" ] && [ "$(redis-cli -p "$1" PING 2>/dev/null)" = "PONG" ] && return 0
        sleep 0.05
    done
    return 1
}
GPORT=$(free_port)
RPORT=$(free_port)
derive g "$GPORT" >"$DIR/g/g.conf"
derive r "$RPORT" >"$DIR/r/r.conf"
[ "$(diff "$CONF" "$DIR/g/g.conf" | grep -c '^>')" = 5 ] || fail "expected 5 changed lines"

"$bin" "$DIR/g/g.conf" || fail "goblin-core refused Debian's redis.conf"
"$redis" "$DIR/r/r.conf" || fail "redis-server refused its file"
LOG=$DIR/g/g.log
wait_pong "$GPORT" "$GPID_FILE" || fail "goblin-core (daemonized from the file) did not answer"
wait_pong "$RPORT" "$RPID_FILE" || fail "redis-server did not answer"
PID=$(cat "$GPID_FILE")

# --- CONFIG GET of every directive the file names ---------------------------
# Exceptions, each with its reason: port, pidfile, logfile, unixsocket and
# dir differ by construction (each server has its own; each must show its
# own value instead).
declare -A own=([port]="$GPORT" [pidfile]="$DIR/g/g.pid" [logfile]="$DIR/g/g.log"
                [unixsocket]="$DIR/g/g.sock" [dir]="$DIR/g")
names=$(grep -E '^(# ?)?[a-z][a-z0-9_-]+ ' "$CONF" | sed -E 's/^# ?//' | awk '{print $1}' | sort -u)
checked=0
for name in $names; do
    rv=$(redis-cli -p "$RPORT" CONFIG GET "$name")
    [ -z "$rv" ] && continue  # not a parameter (include, rename-command, a word of prose)
    gv=$(redis-cli -p "$GPORT" CONFIG GET "$name")
    if [ -n "${own[$name]+x}" ]; then
        [ "$gv" = "$(printf '%s\n%s' "$name" "${own[$name]}")" ] ||
            fail "CONFIG GET $name: goblin-core answers '$gv', expected its own ${own[$name]}"
    else
        [ "$gv" = "$rv" ] || fail "CONFIG GET $name: goblin-core '$gv', redis-server '$rv'"
    fi
    checked=$((checked + 1))
done
[ "$checked" -ge 150 ] || fail "only $checked directives compared (expected Debian's ~190)"
[ "$(redis-cli -p "$GPORT" INFO server | tr -d '\r' | grep '^config_file:')" = \
  "config_file:$DIR/g/g.conf" ] || fail "INFO server config_file"
redis-cli -p "$GPORT" INFO server | tr -d '\r' | grep -q "^executable:/.*goblin-core" ||
    fail "INFO server executable"

# --- CONFIG REWRITE ----------------------------------------------------------
cp "$DIR/g/g.conf" "$DIR/g/before.conf"
redis-cli -p "$GPORT" CONFIG SET maxmemory 3mb maxmemory-policy allkeys-lru hz 20 \
    notify-keyspace-events KEA save "60 5" client-output-buffer-limit "normal 1mb 0 0" \
    slowlog-max-len 200 >/dev/null
[ "$(redis-cli -p "$GPORT" CONFIG REWRITE)" = OK ] || fail "CONFIG REWRITE"
rw=$DIR/g/g.conf
grep -qx 'hz 20' "$rw" || fail "hz not rewritten in place"
# In place: hz's line stays under the comment it had (runs of blank lines
# become one, as Redis, so line numbers may shift); comments kept.
[ "$(grep -B2 '^hz ' "$DIR/g/before.conf" | head -n 2)" = "$(grep -B2 '^hz ' "$rw" | head -n 2)" ] ||
    fail "hz moved"
[ "$(grep -c '^#' "$rw")" -ge "$(($(grep -c '^#' "$DIR/g/before.conf") + 1))" ] ||
    fail "comments lost (or no signature)"
grep -qx '# Generated by CONFIG REWRITE' "$rw" || fail "no signature"
sed -n '/^# Generated by CONFIG REWRITE$/,$p' "$rw" | grep -qx 'maxmemory 3mb' ||
    fail "maxmemory not appended under the signature"
grep -qx 'save 60 5' "$rw" || fail "save not rewritten"
[ "$(grep -c '^save ' "$rw")" = 1 ] || fail "old save lines left"
grep -qx 'client-output-buffer-limit normal 1mb 0 0' "$rw" || fail "client-output-buffer-limit"
grep -qx 'notify-keyspace-events "AKE"' "$rw" || fail "notify-keyspace-events"
grep -qx 'slowlog-max-len 200' "$rw" || fail "slowlog-max-len"
ls "$DIR/g/"*.tmp-* >/dev/null 2>&1 && fail "temporary file left behind"
# redis-server starts from the rewritten file (its own port and paths).
sed -e "s/^port $GPORT\$/port $RPORT/" -e "s#$DIR/g/g\.#$DIR/x/r.#g" -e "s#^dir .*#dir \"$DIR/x\"#" \
    "$rw" >"$DIR/x/r.conf"
redis-cli -p "$RPORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
for _ in $(seq 1 100); do [ -f "$RPID_FILE" ] || break; sleep 0.05; done
"$redis" "$DIR/x/r.conf" || fail "redis-server refused goblin-core's rewritten file"
RPID_FILE=$DIR/x/r.pid
wait_pong "$RPORT" "$RPID_FILE" || fail "redis-server from the rewritten file did not answer"
for kv in "maxmemory 3145728" "maxmemory-policy allkeys-lru" "hz 20" "notify-keyspace-events AKE" \
          "save 60 5" "slowlog-max-len 200"; do
    k=${kv%% *} v=${kv#* }
    [ "$(redis-cli -p "$RPORT" CONFIG GET "$k" | tail -n 1)" = "$v" ] ||
        fail "redis-server from the rewritten file: $k is not $v"
done
# The file redis-server's own CONFIG REWRITE writes (its default user's
# line, latency-tracking-info-percentiles ...) starts goblin-core too.
redis-cli -p "$RPORT" CONFIG SET maxmemory 5mb >/dev/null
[ "$(redis-cli -p "$RPORT" CONFIG REWRITE)" = OK ] || fail "redis-server's CONFIG REWRITE"
grep -q '^user default ' "$DIR/x/r.conf" || fail "redis-server's rewrite wrote no user line"
sed -e "s/^port $RPORT\$/port 0/" -e "s#^daemonize yes#daemonize no#" -e "s#$DIR/x/r\.#$DIR/x/rg.#g" \
    "$DIR/x/r.conf" >"$DIR/x/rg.conf"
launch_from_redis_rewrite() {
    "$bin" "$DIR/x/rg.conf" --port "$PORT" --mlockall no >"$DIR/x/rg.out" 2>&1 &
    PID=$!
}
LOG=$DIR/x/rg.log
start_server launch_from_redis_rewrite
[ "$(redis-cli -p "$PORT" CONFIG GET maxmemory | tail -n 1)" = 5242880 ] ||
    fail "goblin-core from redis-server's rewritten file: maxmemory"
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=
LOG=$DIR/g/g.log
# goblin-core restarts from its own rewritten file with the same values.
redis-cli -p "$GPORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
for _ in $(seq 1 100); do [ -f "$GPID_FILE" ] || break; sleep 0.05; done
[ -f "$GPID_FILE" ] && fail "pidfile not removed at exit"
"$bin" "$rw" || fail "goblin-core refused its rewritten file"
wait_pong "$GPORT" "$GPID_FILE" || fail "goblin-core from its rewritten file did not answer"
PID=$(cat "$GPID_FILE")
for kv in "maxmemory 3145728" "hz 20" "save 60 5" "client-output-buffer-limit normal 1048576 0 0"; do
    k=${kv%% *} v=${kv#* }
    redis-cli -p "$GPORT" CONFIG GET "$k" | tail -n 1 | grep -q "^$v" ||
        fail "goblin-core restarted: $k is not $v"
done
# Setting a value back to its default keeps its line (Redis rewrites the
# line, it does not drop it) and a second rewrite is stable.
redis-cli -p "$GPORT" CONFIG SET hz 10 >/dev/null
redis-cli -p "$GPORT" CONFIG REWRITE >/dev/null
grep -qx 'hz 10' "$rw" || fail "hz set back to 10 not rewritten"
cp "$rw" "$DIR/g/once.conf"
redis-cli -p "$GPORT" CONFIG REWRITE >/dev/null
cmp -s "$rw" "$DIR/g/once.conf" || fail "a second CONFIG REWRITE changed the file"
redis-cli -p "$GPORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
redis-cli -p "$RPORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
PID=

# --- without a config file ----------------------------------------------------
launch_plain() {
    "$bin" --port "$PORT" --save "" --mlockall no --dir "$DIR/x" >"$DIR/x/plain.log" 2>&1 &
    PID=$!
}
LOG=$DIR/x/plain.log
start_server launch_plain
[ "$(redis-cli -p "$PORT" CONFIG REWRITE)" = "ERR The server is running without a config file" ] ||
    fail "CONFIG REWRITE without a file"
redis-cli -p "$PORT" INFO server | tr -d '\r' | grep -qx 'config_file:' || fail "config_file: not empty"
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=

# --- malformed files: Redis's error block, byte for byte ---------------------
refuses_as_redis() {  # name, file text
    local f=$DIR/x/$1.conf
    printf '%b' "$2" >"$f"
    set +e
    "$bin" "$f" >"$DIR/x/$1.g.out" 2>"$DIR/x/$1.g.err"
    local grc=$?
    "$redis" "$f" >"$DIR/x/$1.r.out" 2>"$DIR/x/$1.r.err"
    local rrc=$?
    set -e
    [ "$grc" = 1 ] || fail "$1: goblin-core exited $grc (expected 1)"
    [ "$rrc" = 1 ] || fail "$1: redis-server exited $rrc"
    cmp -s "$DIR/x/$1.g.err" "$DIR/x/$1.r.err" ||
        fail "$1: stderr differs: goblin '$(cat "$DIR/x/$1.g.err")' redis '$(cat "$DIR/x/$1.r.err")'"
    grep -q "at line" "$DIR/x/$1.g.err" || fail "$1: no line number"
}
refuses_as_redis unknown "port 0\n# a comment\n\nfoo bar \"baz qux\"\n"
refuses_as_redis badvalue "port 0\nmaxmemory abc\n"
refuses_as_redis badbool "port 0\n   appendonly  maybe\n"
refuses_as_redis badenum "port 0\nmaxmemory-policy sometimes\n"
refuses_as_redis range "port 0\ndatabases 0\n"
refuses_as_redis quotes "port 0\ndir \"/tmp\n"
refuses_as_redis arity "port 0\nhz 1 2\n"
refuses_as_redis arity_save "port 0\nsave 900\n"
# An unreadable include: the line of the include and the reason (Redis
# prints only the reason, without a line).
printf 'port 0\nhz 10\ninclude %s/x/missing.conf\n' "$DIR" >"$DIR/x/inc.conf"
set +e
"$bin" "$DIR/x/inc.conf" 2>"$DIR/x/inc.err" >/dev/null
rc=$?
set -e
[ "$rc" = 1 ] || fail "unreadable include: exit $rc"
grep -q "at line 3" "$DIR/x/inc.err" || fail "unreadable include: no line number: $(cat "$DIR/x/inc.err")"
grep -q "can't open config file '$DIR/x/missing.conf': No such file or directory" "$DIR/x/inc.err" ||
    fail "unreadable include: no reason"
# rename-command is refused by name.
printf 'port 0\nrename-command FLUSHALL ""\n' >"$DIR/x/rename.conf"
"$bin" "$DIR/x/rename.conf" 2>"$DIR/x/rename.err" >/dev/null && fail "rename-command accepted"
grep -q "rename-command is not supported" "$DIR/x/rename.err" || fail "rename-command: no reason"

# --- include, quoting, units, stdin, overrides --------------------------------
cat >"$DIR/x/inc2.conf" <<'EOF'
maxmemory 2mb
notify-keyspace-events "K\x45"
EOF
cat >"$DIR/x/main.conf" <<EOF
# the main file
PORT 0
bind * -::*
include $DIR/x/inc2.conf
save 900 1
save 300 10
proto-max-bulk-len 1gb
client-query-buffer-limit 3mb
slowlog-max-len 7
dbfilename 'my dump.rdb'
mlockall no
dir $DIR/x
EOF
launch_file() {
    "$bin" "$DIR/x/main.conf" --port "$PORT" --slowlog-max-len 9 --save 60 1 >"$DIR/x/file.log" 2>&1 &
    PID=$!
}
LOG=$DIR/x/file.log
start_server launch_file
get() { redis-cli -p "$PORT" CONFIG GET "$1" | tail -n 1; }
[ "$(get maxmemory)" = 2097152 ] || fail "include/units: maxmemory $(get maxmemory)"
[ "$(get notify-keyspace-events)" = KE ] || fail "escapes: notify-keyspace-events $(get notify-keyspace-events)"
[ "$(get proto-max-bulk-len)" = 1073741824 ] || fail "units: proto-max-bulk-len"
[ "$(get client-query-buffer-limit)" = 3145728 ] || fail "units: client-query-buffer-limit"
[ "$(get dbfilename)" = "my dump.rdb" ] || fail "single quotes: dbfilename $(get dbfilename)"
[ "$(get slowlog-max-len)" = 9 ] || fail "the command line does not override the file"
[ "$(get bind)" = "* -::*" ] || fail "bind * -::* (Redis 7.0's default form): $(get bind)"
# save lines add up, the command line's too (Redis's rule: one text).
[ "$(get save)" = "900 1 300 10 60 1" ] || fail "save lines: $(get save)"
# REPLICAOF at run time is what CONFIG REWRITE persists (Sentinel relies
# on it), and REPLICAOF NO ONE removes the line.
[ "$(redis-cli -p "$PORT" REPLICAOF 127.0.0.1 1)" = OK ] || fail "REPLICAOF"
redis-cli -p "$PORT" CONFIG REWRITE >/dev/null
grep -qx 'replicaof 127.0.0.1 1' "$DIR/x/main.conf" || fail "replicaof not rewritten"
redis-cli -p "$PORT" REPLICAOF NO ONE >/dev/null
redis-cli -p "$PORT" CONFIG REWRITE >/dev/null
grep -q '^replicaof' "$DIR/x/main.conf" && fail "replicaof left after REPLICAOF NO ONE"
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=
launch_stdin() {
    # `save` alone is an empty save (Redis's suite writes `save ` so).
    printf 'port %s\nhz 33\nmlockall no\nsave\n' "$PORT" | "$bin" - >"$DIR/x/stdin.log" 2>&1 &
    PID=$!
}
LOG=$DIR/x/stdin.log
start_server launch_stdin
[ "$(redis-cli -p "$PORT" CONFIG GET hz | tail -n 1)" = 33 ] || fail "stdin config not read"
[ -z "$(redis-cli -p "$PORT" CONFIG GET save | tail -n 1)" ] || fail "a bare save line kept save points"
[ "$(redis-cli -p "$PORT" CONFIG REWRITE)" = "ERR The server is running without a config file" ] ||
    fail "stdin only: no file to rewrite"
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=
# Goblin-only flags in a file, same syntax as the command line.
printf 'port 0\nmlockall no\nring %s/x/r1 64kb\nsave ""\nenable-sbe\n' "$DIR" >"$DIR/x/goblin.conf"
launch_goblin_only() {
    "$bin" "$DIR/x/goblin.conf" --port "$PORT" >"$DIR/x/goblin.log" 2>&1 &
    PID=$!
}
LOG=$DIR/x/goblin.log
start_server launch_goblin_only
redis-cli -p "$PORT" CONFIG GET ring | tail -n 1 | grep -q "^$DIR/x/r1 65536" ||
    fail "ring from a file: $(redis-cli -p "$PORT" CONFIG GET ring)"
[ "$(redis-cli -p "$PORT" CONFIG GET enable-sbe | tail -n 1)" = yes ] || fail "enable-sbe from a file"
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=

# requirepass from a file (a secret row: the same parser as the flag).
printf 'port 0\nmlockall no\nsave ""\nrequirepass "s3 cret"\n' >"$DIR/x/pw.conf"
launch_pw() {
    "$bin" "$DIR/x/pw.conf" --port "$PORT" >"$DIR/x/pw.log" 2>&1 &
    PID=$!
}
LOG=$DIR/x/pw.log
PID=
PORT=$(free_port)
launch_pw
for _ in $(seq 1 200); do
    redis-cli -p "$PORT" PING 2>/dev/null | grep -q NOAUTH && break
    sleep 0.05
done
redis-cli -p "$PORT" PING | grep -q NOAUTH || fail "requirepass from a file: no NOAUTH"
[ "$(redis-cli -p "$PORT" -a "s3 cret" --no-auth-warning PING)" = PONG ] ||
    fail "requirepass from a file: the password does not work"
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=

# --- deploy/goblin-core.conf: goblin-core and redis-server both start from it ---
# (with its directories moved under $DIR: they exist only after make install)
mkdir -p "$DIR/x/deploy"
sed -e "s#^dir .*#dir $DIR/x/deploy#" -e "s#^pidfile .*#pidfile $DIR/x/deploy/s.pid#" \
    -e "s#^logfile .*#logfile $DIR/x/deploy/s.log#" "$ROOT/deploy/goblin-core.conf" >"$DIR/x/deploy/d.conf"
[ "$(diff "$ROOT/deploy/goblin-core.conf" "$DIR/x/deploy/d.conf" | grep -c '^>')" = 3 ] ||
    fail "deploy/goblin-core.conf: dir, pidfile or logfile line missing"
launch_deploy() {
    "$bin" "$DIR/x/deploy/d.conf" --port "$PORT" --mlockall no >"$DIR/x/deploy.log" 2>&1 &
    PID=$!
}
LOG=$DIR/x/deploy/s.log
start_server launch_deploy
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=
rport=$(free_port)
timeout 10 "$redis" "$DIR/x/deploy/d.conf" --port "$rport" >"$DIR/x/deploy.r.log" 2>&1 &
rpid=$!
for _ in $(seq 1 100); do [ "$(redis-cli -p "$rport" PING 2>/dev/null)" = PONG ] && break; sleep 0.05; done
[ "$(redis-cli -p "$rport" PING 2>/dev/null)" = PONG ] ||
    fail "redis-server refused deploy/goblin-core.conf: $(cat "$DIR/x/deploy.r.log")"
kill "$rpid"
wait "$rpid" 2>/dev/null || true

# --- every setting without effect is documented -------------------------------
inert=$("$bin" --help | sed -n '/^Redis 7.0 settings accepted and kept/,/^$/p' |
        awk '/^  --/{print substr($1, 3)}')
[ "$(wc -w <<<"$inert")" -ge 50 ] || fail "--help lists too few inert settings"
for name in $inert; do
    grep -q "^| \`$name\`" "$ROOT/docs/configuration.md" ||
        fail "$name has no row in docs/configuration.md"
done
echo "test_config_file: OK ($checked directives compared)"
