#!/usr/bin/env bash
# Integration: with appendfsync always, no reply leaves the server before
# the write it acknowledges is in the AOF and fsynced — also now that the
# AOF is flushed once per loop pass and replies wait for it (core/
# event_loop.h EV_PASS_FLUSH; connection/conn.h "Held output").
# Under strace, several clients (one pipelining) run SETs; in the traced
# order of write(2) and fdatasync(2) calls, at every write to a client the
# SETs fsynced into the incr file must be at least all the +OK replies
# written so far. A reply written first, or before the fsync, fails.
set -euo pipefail
bin="${GOBLIN_SERVER:?GOBLIN_SERVER not set}"
# Without ptrace the order cannot be seen: a skip (77), not a pass.
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
    echo "SKIP: strace cannot trace here (ptrace not permitted)"
    exit 77
fi
. "$(dirname "$0")/../lib/testlib.sh"
DIR=$(mktemp -d)
LOG=$DIR/server.log
trace=$DIR/strace.txt
STRACE_PID=
cleanup() {
    [ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
    [ -n "$STRACE_PID" ] && kill -KILL "$STRACE_PID" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT

launch() {
    strace -f -qq -s 65536 -e trace=openat,write,fdatasync -o "$trace" \
        "$bin" --port "$PORT" --mlockall no --save "" --dir "$DIR" \
        --appendonly yes --appendfsync always >"$LOG" 2>&1 &
    STRACE_PID=$!
    PID=$STRACE_PID
}
start_server launch
PID=$(pgrep -P "$STRACE_PID" | head -n 1) # the traced server, child of strace

redis-benchmark -p "$PORT" -c 8 -n 2000 -t set -q >/dev/null
redis-benchmark -p "$PORT" -c 4 -P 16 -n 2000 -t set -q >/dev/null
[ "$(redis-cli -p "$PORT" SET last 1)" = OK ] || fail "SET after the benchmark"
kill -TERM "$PID"
wait "$STRACE_PID" || true
PID= STRACE_PID=

python3 - "$trace" <<'EOF' || fail "order of AOF writes, fsyncs and replies (trace above)"
import re, sys
aof = set()          # fds of incr files
written = 0          # SETs written to the AOF
synced = 0           # ... and fsynced
acked = 0            # +OK replies written to clients
client_writes = fsyncs = 0
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r'\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)', line)
    if not m:
        continue
    call, args, ret = m.group(1), m.group(2), int(m.group(3))
    if call == "openat" and ".incr.aof" in args and ret >= 0:
        aof.add(ret)
        continue
    fd = int(args.split(",", 1)[0]) if args[:1].isdigit() else -1
    if call == "fdatasync" and fd in aof and ret == 0:
        synced = written
        fsyncs += 1
    elif call == "write" and fd in aof and ret > 0:
        written += args.count("SET\\r\\n")
    elif call == "write" and fd > 2 and fd not in aof and ret > 0:
        acked += args.count("+OK\\r\\n")
        client_writes += 1
        if acked > synced:
            print(f"reply before its fsync: {acked} +OK written, {synced} SETs fsynced "
                  f"({written} written): {line.strip()[:200]}")
            sys.exit(1)
if acked < 4001 or fsyncs == 0:
    print(f"too little seen: {acked} replies, {fsyncs} fsyncs, {written} SETs written")
    sys.exit(1)
print(f"aof fsync order: ok ({acked} replies in {client_writes} writes, {written} SETs, "
      f"{fsyncs} fsyncs)")
EOF
echo "$TEST_NAME: ok"
