# shellcheck shell=bash
# testlib.sh — helpers shared by the shell integration tests (sourced).
#
#   fail MSG...        prints "<test>: FAIL: MSG", the server log ($LOG) if
#                      there is one, kills $PID and exits 1
#   free_port          a free TCP port on 127.0.0.1 (bound, then released)
#   start_server FN    calls FN, which must start a server on $PORT logging
#                      to $LOG in the background and set PID; waits until it
#                      answers PING (PONG, or NOAUTH with requirepass);
#                      retries on another port when it exited because the
#                      port was taken meanwhile (up to 10 times)
#
# The test sets LOG (and may set DIR, removed by fail) before using them.

TEST_NAME=$(basename "$0" .sh)
PID=
PORT=

fail() {
    echo "$TEST_NAME: FAIL: $*" >&2
    if [ -n "${LOG:-}" ] && [ -f "$LOG" ]; then
        echo "--- server log ---" >&2
        cat "$LOG" >&2
    fi
    [ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
    [ -n "${DIR:-}" ] && rm -rf "$DIR"
    exit 1
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_server() {
    local launch=$1
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        PORT=$(free_port)
        "$launch"
        for _ in $(seq 1 200); do
            if ! kill -0 "$PID" 2>/dev/null; then
                wait "$PID" 2>/dev/null || true
                PID=
                break
            fi
            case "$(timeout 5 redis-cli -p "$PORT" PING 2>/dev/null)" in
            PONG | NOAUTH*) return 0 ;; # answering (NOAUTH: a requirepass server)
            esac
            sleep 0.05
        done
        [ -n "$PID" ] && fail "server did not answer PING on port $PORT"
        grep -q "Address already in use" "$LOG" || fail "the server exited at startup"
    done
    fail "could not start the server"
}
