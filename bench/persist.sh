#!/usr/bin/env bash
# bench/persist.sh [N] [OUT_DIR] — persistence costs, goblin-core and
# redis-server in one run (docs/persistence.md):
#   1. for N keys of each type (string: 16-byte values; hash: 3 fields,
#      listpack; zset: 3 members, listpack): SAVE time, RDB file size, and
#      load time at start (each server's own "DB loaded from disk" line);
#   2. depth-one GET and SET latency (goblin-bench, TCP) against goblin-core
#      holding N strings, without and then during back-to-back BGSAVEs,
#      with the fork() times the server logged.
# Raw data goes to OUT_DIR (default docs/benchmarks/<date>-persist):
# save_load.tsv, latency-{idle,bgsave}.csv, forks.txt, metadata.txt; then
# bench/report_persist.py writes report.md from them.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${1:-1000000}
OUT=${2:-$ROOT/docs/benchmarks/$(date -u +%Y-%m-%d)-persist}
GOBLIN_SERVER=${GOBLIN_SERVER:-$ROOT/build/goblin-core}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
BENCH=${BENCH:-$ROOT/build/goblin-bench}
SAMPLES=${SAMPLES:-200000}
WORK=$(mktemp -d /tmp/goblin-persist-bench.XXXXXX)
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"
trap '[ -n "${SERVER_PID:-}" ] && kill -KILL "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$OUT"

# start KIND [FLAGS...]: a server with its data in $WORK/KIND (bench/server_ctl.sh).
start() { data_server_start "$1" "$WORK/$1" "${@:2}"; }
stop() { data_server_stop; }

fill() {
    python3 - "$1" "$N" <<'PY' | redis-cli -p "$SERVER_PORT" --pipe >/dev/null
import sys
kind, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout.buffer
def cmd(*a):
    out.write(b"*%d\r\n" % len(a) + b"".join(b"$%d\r\n%s\r\n" % (len(x), x) for x in a))
for i in range(n):
    if kind == "string":
        cmd(b"SET", b"s:%d" % i, b"v%015d" % i)
    elif kind == "hash":
        cmd(b"HSET", b"h:%d" % i, b"f1", b"%d" % i, b"f2", b"value-%d" % i, b"f3", b"x")
    else:
        cmd(b"ZADD", b"z:%d" % i, b"1", b"a", b"2.5", b"b%d" % i, b"%d" % i, b"c")
PY
}

now() { date +%s.%N; }

printf 'server\ttype\tkeys\tsave_s\tload_s\trdb_bytes\n' >"$OUT/save_load.tsv"
for kind in goblin redis; do
    for type in string hash zset; do
        rm -rf "${WORK:?}/$kind"
        start "$kind"
        fill "$type"
        keys=$(redis-cli -p "$SERVER_PORT" DBSIZE)
        t0=$(now)
        [ "$(redis-cli -p "$SERVER_PORT" SAVE)" = OK ] || { echo "SAVE failed" >&2; exit 1; }
        t1=$(now)
        stop
        bytes=$(stat -c %s "$WORK/$kind/dump.rdb")
        start "$kind"
        load=$(sed -n 's/.*DB loaded from disk: \([0-9.]*\) seconds.*/\1/p' "$SERVER_LOG" | tail -n 1)
        [ "$(redis-cli -p "$SERVER_PORT" DBSIZE)" = "$keys" ] || { echo "$kind $type: reload lost keys" >&2; exit 1; }
        stop
        printf '%s\t%s\t%s\t%.3f\t%s\t%s\n' "$kind" "$type" "$keys" \
            "$(echo "$t1 - $t0" | bc)" "$load" "$bytes" >>"$OUT/save_load.tsv"
        echo "persist.sh: $kind $type done" >&2
    done
done

# Latency with and without a background save running.
rm -rf "${WORK:?}/goblin"
start goblin
fill string
"$BENCH" --port "$SERVER_PORT" --ops GET,SET --samples "$SAMPLES" --server-name goblin \
    --label idle --csv "$OUT/latency-idle.csv" >/dev/null
( while kill -0 "$SERVER_PID" 2>/dev/null; do
      redis-cli -p "$SERVER_PORT" BGSAVE >/dev/null 2>&1 || true
      sleep 0.05
  done ) &
saver=$!
"$BENCH" --port "$SERVER_PORT" --ops GET,SET --samples "$SAMPLES" --server-name goblin \
    --label bgsave --csv "$OUT/latency-bgsave.csv" >/dev/null
kill "$saver" 2>/dev/null || true
wait "$saver" 2>/dev/null || true
grep -o 'fork took [0-9]* us' "$SERVER_LOG" | awk '{print $3}' >"$OUT/forks.txt"
stop

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "command: bench/persist.sh $N"
    echo "keys: $N"
    echo "samples: $SAMPLES"
    echo "goblin_core: $("$GOBLIN_SERVER" --version) ($(git -C "$ROOT" rev-parse --short HEAD))"
    echo "redis_server: $("$REDIS_SERVER" --version)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x $(nproc)"
    echo "kernel: $(uname -r)"
    echo "note: shared 2-core machine (other jobs running); goblin-core default --mlockall yes"
} >"$OUT/metadata.txt"
python3 "$ROOT/bench/report_persist.py" "$OUT"
echo "persist.sh: results in $OUT" >&2
