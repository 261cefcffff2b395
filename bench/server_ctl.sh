# shellcheck shell=bash
# server_ctl.sh — start and stop the servers a benchmark measures (sourced by
# bench/matrix.sh and by the benchmark tests; bash).
#
#   server_start KIND CPU DIR [ARGS...]
#                               KIND is goblin (its default idle strategy),
#                               goblin-spin / goblin-block (goblin with
#                               --idle-strategy spin / block), goblin-base
#                               (GOBLIN_BASE_SERVER, an older build, default
#                               flags: before/after comparisons), redis or floor
#                               (the echo floor). Starts it pinned to CPU (empty = not
#                               pinned) on an ephemeral 127.0.0.1 port and on
#                               DIR/server.sock, logging to DIR/server.log;
#                               sets SERVER_PID, SERVER_PORT, SERVER_SOCKET,
#                               SERVER_LOG.
#                               ARGS are extra server flags (e.g. --ring;
#                               for redis too, e.g. --tls-port).
#   server_stop                 SIGTERM to SERVER_PID, SIGKILL after 10 s;
#                               returns the server's exit status.
#   data_server_start KIND DIR [ARGS...]
#                               server_start unpinned, with DIR/server.log
#                               emptied first: for benchmarks that restart a
#                               server on the same data and read its load
#                               time from the log (bench/persist.sh, aof.sh).
#   data_server_stop            SHUTDOWN NOSAVE, then server_stop.
#   pin_command CPU             the command prefix that pins to CPU (taskset,
#                               or numactl with NUMA_NODE set); empty for "".
#
# Binaries: GOBLIN_SERVER, GOBLIN_BASE_SERVER, REDIS_SERVER, ECHO_FLOOR (defaults under
# BUILD_DIR and on PATH).

: "${BUILD_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build}"
: "${GOBLIN_SERVER:=$BUILD_DIR/goblin-core}"
: "${REDIS_SERVER:=$(command -v redis-server || echo redis-server)}"
: "${ECHO_FLOOR:=$BUILD_DIR/goblin-echo-floor}"

# A free TCP port on 127.0.0.1 (bound, then released; a server that loses
# the race fails to start and server_start tries another).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pin_command() {
    local cpu=$1
    [ -n "$cpu" ] || return 0
    if [ -n "${NUMA_NODE:-}" ]; then
        echo "numactl --physcpubind=$cpu --membind=$NUMA_NODE"
    else
        echo "taskset -c $cpu"
    fi
}

# True once the server accepts TCP connections and its Unix socket exists.
server_ready() {
    [ -S "$SERVER_SOCKET" ] || return 1
    (exec 3<>"/dev/tcp/127.0.0.1/$SERVER_PORT") 2>/dev/null
}

server_start() {
    local kind=$1 cpu=$2 dir=$3 attempt
    shift 3
    local -a extra=("$@")
    local -a pin cmd
    read -r -a pin <<<"$(pin_command "$cpu")"
    mkdir -p "$dir"
    SERVER_SOCKET=$dir/server.sock
    SERVER_LOG=$dir/server.log
    for attempt in 1 2 3 4 5; do
        SERVER_PORT=$(free_port)
        rm -f "$SERVER_SOCKET"
        case $kind in
        goblin) cmd=("$GOBLIN_SERVER" --port "$SERVER_PORT" --bind 127.0.0.1
                     --unixsocket "$SERVER_SOCKET" --save '' --dir "$dir" "${extra[@]}") ;;
        goblin-base)
            [ -x "${GOBLIN_BASE_SERVER:-}" ] || { echo "server_start: GOBLIN_BASE_SERVER is not set" >&2; return 2; }
            cmd=("$GOBLIN_BASE_SERVER" --port "$SERVER_PORT" --bind 127.0.0.1
                 --unixsocket "$SERVER_SOCKET" "${extra[@]}") ;;
        goblin-spin|goblin-block)
            cmd=("$GOBLIN_SERVER" --port "$SERVER_PORT" --bind 127.0.0.1
                 --unixsocket "$SERVER_SOCKET" --save '' --dir "$dir"
                 --idle-strategy "${kind#goblin-}" "${extra[@]}") ;;
        redis) cmd=("$REDIS_SERVER" --port "$SERVER_PORT" --bind 127.0.0.1
                    --unixsocket "$SERVER_SOCKET" --save '' --appendonly no
                    --daemonize no --dir "$dir" "${extra[@]}") ;;
        floor) cmd=("$ECHO_FLOOR" --port "$SERVER_PORT" --socket "$SERVER_SOCKET") ;;
        *) echo "server_start: unknown server '$kind' (goblin, goblin-base, goblin-spin, goblin-block, redis, floor)" >&2; return 2 ;;
        esac
        echo "# attempt $attempt: ${pin[*]} ${cmd[*]}" >>"$dir/server.log"
        # exec through the pinning tool: $! is the server's own PID.
        "${pin[@]}" "${cmd[@]}" >>"$dir/server.log" 2>&1 &
        SERVER_PID=$!
        for _ in $(seq 1 1000); do
            if server_ready; then return 0; fi
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.01
        done
        if kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "server_start: $kind did not listen on port $SERVER_PORT within 10 s" >&2
            server_stop || true
            return 1
        fi
        wait "$SERVER_PID" 2>/dev/null || true # exited (port taken?): retry
    done
    echo "server_start: $kind failed to start; see $dir/server.log" >&2
    return 1
}

server_stop() {
    local rc=0
    [ -n "${SERVER_PID:-}" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 1000); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.01
    done
    kill -0 "$SERVER_PID" 2>/dev/null && kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null || rc=$?
    SERVER_PID=
    return $rc
}

data_server_start() {
    local kind=$1 dir=$2
    shift 2
    mkdir -p "$dir"
    : >"$dir/server.log"
    server_start "$kind" "" "$dir" "$@"
}

data_server_stop() {
    [ -n "${SERVER_PID:-}" ] || return 0
    redis-cli -p "$SERVER_PORT" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
    server_stop || true
}
