#!/usr/bin/env bash
# --unixsocketperm and CVE-2023-45145: started under a permissive umask
# (000), the Unix socket is never more open than the flag says, not even
# for an instant, and another user cannot connect through it:
#  - strace shows the order that closes the race: umask(~perm) before the
#    socket's bind(), chmod() after it, and listen() — the first moment a
#    peer can connect — only after chmod();
#  - the socket file's mode right after start is the flag's (700, 0770),
#    and CONFIG GET unixsocketperm answers as redis-server does (octal,
#    no leading zero), with redis-server started the same way beside it;
#  - as `nobody`, connecting through a 700 socket is refused (EACCES) while
#    root gets PONG; with 777 nobody gets in (the check is real);
#  - values that are not octal modes are refused at startup, as Redis does;
#  - a ring file (--ring) is 0600 and the server's: nobody cannot open it.
set -u

GOBLIN_SERVER=${GOBLIN_SERVER:?GOBLIN_SERVER is not set}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
# shellcheck source=tests/lib/testlib.sh
source "$(dirname "$0")/../lib/testlib.sh"
BUILD=${GOBLIN_BUILD_DIR:-$(dirname "$GOBLIN_SERVER")}

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (to act as another user)"; exit 77; }
id nobody >/dev/null 2>&1 || fail "there is no 'nobody' user"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is not installed"
command -v strace >/dev/null || fail "strace is not installed"
as_nobody=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)

DIR=$(mktemp -d /tmp/goblin-unixperm-XXXXXX)
chmod 755 "$DIR"
LOG=$DIR/goblin.log
RPID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    [ -n "$RPID" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT

PERM=700
launch_goblin() {
    rm -f "$DIR/g.sock"
    (umask 000 && exec strace -f -qq -e trace=umask,bind,chmod,fchmodat,listen -o "$DIR/trace" \
        "$GOBLIN_SERVER" --port "$PORT" --save '' --dir "$DIR" --unixsocket "$DIR/g.sock" \
        --unixsocketperm "$PERM" --ring "$DIR/a.ring" 64k) >"$LOG" 2>&1 &
    PID=$!
}

for PERM in 700 0770 777; do
    start_server launch_goblin
    want=${PERM#0}
    mode=$(stat -c %a "$DIR/g.sock")
    [ "$mode" = "$want" ] || fail "--unixsocketperm $PERM: socket mode $mode right after start"
    # The syscall order (strace's log of the whole start).
    order=$(grep -E "umask|bind\(.*g\.sock|chmod.*g\.sock|listen" "$DIR/trace" |
        grep -v "umask(0)" | sed -E 's/^[0-9]+ +//; s/\(.*//' | uniq | paste -sd, -)
    case $order in
    *umask,bind,*chmod,*listen*) ;;
    *) fail "--unixsocketperm $PERM: syscalls in order '$order' (want umask, bind, chmod, listen)" ;;
    esac
    grep -qE "umask\(0?0?$(printf '%o' $((~8#$want & 8#777)))\)" "$DIR/trace" ||
        fail "--unixsocketperm $PERM: the socket was not bound under umask ~$want: $(grep umask "$DIR/trace")"
    got=$(redis-cli -s "$DIR/g.sock" CONFIG GET unixsocketperm | tail -1)
    [ "$got" = "$want" ] || fail "CONFIG GET unixsocketperm: '$got' (want $want)"
    [ "$(redis-cli -s "$DIR/g.sock" PING)" = PONG ] || fail "root cannot use the socket"
    out=$("${as_nobody[@]}" redis-cli -s "$DIR/g.sock" PING 2>&1)
    if [ "$want" = 777 ]; then
        [ "$out" = PONG ] || fail "nobody cannot connect through a 777 socket: $out"
    else
        case $out in
        *"ermission denied"*) ;;
        *) fail "nobody through a $want socket: '$out' (want Permission denied)" ;;
        esac
    fi
    # The ring is its own access control: 0600, root's, closed to nobody.
    [ "$(stat -c '%a %u' "$DIR/a.ring")" = "600 0" ] ||
        fail "ring file: $(stat -c '%a %u' "$DIR/a.ring") (want 600 0)"
    out=$("${as_nobody[@]}" "$BUILD/goblin-cli" --ring "$DIR/a.ring" PING 2>&1)
    case $out in
    *"ermission denied"*) ;;
    *) fail "nobody opening the ring: '$out' (want Permission denied)" ;;
    esac
    redis-cli -p "$PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 # strace exits with its tracee
    wait "$PID" 2>/dev/null
    PID=

    # redis-server started the same way reads the value back the same.
    rport=$(free_port)
    (umask 000 && exec "$REDIS_SERVER" --port "$rport" --save '' --dir "$DIR" \
        --unixsocket "$DIR/r.sock" --unixsocketperm "$PERM") >"$DIR/redis.log" 2>&1 &
    RPID=$!
    for _ in $(seq 100); do [ -S "$DIR/r.sock" ] && break; sleep 0.05; done
    rgot=$(redis-cli -s "$DIR/r.sock" CONFIG GET unixsocketperm | tail -1)
    [ "$rgot" = "$got" ] || fail "CONFIG GET unixsocketperm: goblin '$got', redis-server '$rgot'"
    [ "$(stat -c %a "$DIR/r.sock")" = "$mode" ] || fail "redis-server's socket mode differs"
    redis-cli -s "$DIR/r.sock" SHUTDOWN NOSAVE >/dev/null 2>&1
    wait "$RPID" 2>/dev/null
    RPID=
done

for bad in 8 1777 abc -1; do
    if timeout 10 "$GOBLIN_SERVER" --port 0 --unixsocket "$DIR/x.sock" --unixsocketperm "$bad" \
        >"$DIR/bad.log" 2>&1; then
        fail "--unixsocketperm $bad was accepted"
    fi
    grep -q "unixsocketperm" "$DIR/bad.log" || fail "--unixsocketperm $bad: $(cat "$DIR/bad.log")"
done
echo "$TEST_NAME: ok"
