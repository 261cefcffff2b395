#!/usr/bin/env bash
# Integration: the command line, as redis-server 7.0 reads it. --help lists
# every flag. The options become config lines after the file's ("--name"
# starts a line, other words are its values, the word after a bare "--name"
# is its value even when it starts with "--", a bare --save is save ""), so
# a bad option refuses the start with Redis's FATAL CONFIG FILE ERROR block,
# compared byte for byte with redis-server's (the error cases of Redis's
# unit/introspection); the suite's accepted shapes start and CONFIG GET
# shows their values; goblin-core's own flags (--enable-sbe alone,
# --name=value) still work.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
redis="${REDIS_SERVER:-/usr/bin/redis-server}"
DIR=$(mktemp -d)
LOG=$DIR/g.log
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
[ -x "$redis" ] || fail "redis-server is required ($redis)"
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT
cd "$DIR"

help=$("$bin" --help)
for flag in --port --bind --listen --unixsocket --maxclients --proto-max-bulk-len \
    --client-query-buffer-limit --databases --requirepass --auth-file --hz; do
    grep -q -- "$flag" <<<"$help" || fail "--help does not list $flag"
done
"$bin" --version | grep -q "goblin-core" || fail "--version"

# Refused by both, with the same block (exit status 1 as redis-server).
same_error() {
    local g r grc=0 rrc=0
    g=$(timeout 10 "$bin" "$@" 2>&1) || grc=$?
    r=$(timeout 10 "$redis" "$@" 2>&1) || rrc=$?
    [ "$grc" = 1 ] || fail "'$*' exited $grc: $g"
    [ "$rrc" = 1 ] || fail "redis-server '$*' exited $rrc: $r"
    [ "$g" = "$r" ] || fail "'$*': goblin-core printed
$g
redis-server printed
$r"
}
same_error --port
same_error --port 6380 --loglevel
same_error --port 6379 6380
same_error --port --loglevel verbose
same_error --port --bla --loglevel verbose
same_error --logfile --my--log--file --loglevel --bla
same_error --shutdown-on-sigint
same_error --shutdown-on-sigint "now force" --shutdown-on-sigterm
same_error --replicaof 127.0.0.1 abc
same_error --replicaof --127.0.0.1 abc
same_error --replicaof --127.0.0.1 --abc
same_error --no-such-flag 1
same_error --port notanumber
same_error --port 70000
same_error --maxclients 0
same_error --proto-max-bulk-len 12qb
same_error --databases
same_error --maxmemory 700mb bogus

# goblin-core's own settings: refused with the block too, naming the line.
own_error() {  # want args...
    local want=$1 out rc=0
    shift
    out=$(timeout 10 "$bin" "$@" 2>&1) || rc=$?
    [ "$rc" = 1 ] || fail "'$*' exited $rc: $out"
    grep -q "FATAL CONFIG FILE ERROR" <<<"$out" || fail "'$*': no FATAL block: $out"
    grep -qF -- "$want" <<<"$out" || fail "'$*' does not name '$want': $out"
}
own_error "'listen \"127.0.0.1\"'" --listen 127.0.0.1
own_error "'listen \"::1:6379\"'" --listen ::1:6379
own_error "'ring \"/dev/shm/x\"'" --ring /dev/shm/x
out=$("$bin" stray 2>&1) && fail "a missing config file started"
grep -qF "can't open config file '$DIR/stray'" <<<"$out" || fail "missing file: $out"

# Accepted shapes: started from a file holding the port (as the suite's
# servers are), the options after it.
cget() { redis-cli -p "$PORT" CONFIG GET "$1" | tail -n 1; }
ARGS=()
launch() {
    printf 'port %s\ndir %s\n' "$PORT" "$DIR" >"$DIR/base.conf"
    "$bin" "$DIR/base.conf" "${ARGS[@]}" >"$LOG" 2>&1 &
    PID=$!
}
with_args() {
    if [ -n "$PID" ]; then
        kill -9 "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    PID=
    ARGS=("$@")
    start_server launch
}
expect() {  # name value
    local got
    got=$(cget "$1")
    [ "$got" = "$2" ] || fail "${ARGS[*]}: CONFIG GET $1 is '$got', want '$2'"
}

with_args "--maxmemory 700mb" "--maxmemory-policy volatile-lru"
expect maxmemory 734003200
expect maxmemory-policy volatile-lru

with_args loglevel verbose "--maxmemory '700mb'" "--maxmemory-policy 'volatile-lru'"
expect loglevel verbose
expect maxmemory 734003200
expect maxmemory-policy volatile-lru

with_args --proc-title-template --my--title--template --loglevel verbose
expect proc-title-template --my--title--template
expect loglevel verbose

with_args "--proc-title-template --my--title--template" "--loglevel verbose"
expect proc-title-template --my--title--template

for shape in "--save --loglevel verbose" "--loglevel verbose --save" \
    "--save '' --loglevel verbose" "--loglevel verbose --save ''"; do
    eval "with_args $shape"
    expect save ""
    expect loglevel verbose
done

with_args --proc-title-template --save --save "" --loglevel verbose
expect proc-title-template --save
expect save ""
expect loglevel verbose

with_args --save 100 100
expect save "100 100"

with_args --shutdown-on-sigint nosave force now --shutdown-on-sigterm "nosave force"
expect shutdown-on-sigint "nosave now force"
expect shutdown-on-sigterm "nosave force"

# goblin-core's additions: a boolean flag alone does not take the next
# option as its value; --name=value.
with_args --enable-sbe --loglevel verbose --maxmemory=1mb
expect enable-sbe yes
expect loglevel verbose
expect maxmemory 1048576

# A secret given on the command line is not left readable in
# /proc/<pid>/cmdline.
for shape in "--requirepass cmdline-secret" "--requirepass=cmdline-secret" \
    "'--requirepass cmdline-secret'"; do
    eval "with_args $shape"
    tr '\0' ' ' </proc/"$PID"/cmdline | grep -q "secret" && fail "$shape stayed in cmdline"
    [ "$(redis-cli -p "$PORT" --no-auth-warning -a cmdline-secret PING)" = PONG ] ||
        fail "$shape: the password does not log in"
done
echo "flags: ok"
