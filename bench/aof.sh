#!/usr/bin/env bash
# bench/aof.sh [N] [OUT_DIR] — append-only file costs, goblin-core and
# redis-server in one run (docs/persistence.md, "Append-only file"):
#   1. depth-one SET latency (goblin-bench, TCP) with appendonly no, and
#      yes with appendfsync everysec and always;
#   2. for N strings (16-byte values) written with appendonly yes:
#      BGREWRITEAOF time (command to aof_rewrite_in_progress:0), the new
#      base's size, and the load time at start (each server's own "DB loaded
#      from append only file" line).
# Raw data goes to OUT_DIR (default docs/benchmarks/<date>-aof):
# latency-<server>-<mode>.csv, rewrite_load.tsv, metadata.txt (with the load
# average before and after); then bench/report_aof.py writes report.md.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${1:-1000000}
OUT=${2:-$ROOT/docs/benchmarks/$(date -u +%Y-%m-%d)-aof}
GOBLIN_SERVER=${GOBLIN_SERVER:-$ROOT/build/goblin-core}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
BENCH=${BENCH:-$ROOT/build/goblin-bench}
SAMPLES=${SAMPLES:-100000}
ALWAYS_SAMPLES=${ALWAYS_SAMPLES:-20000} # one fdatasync each
WORK=$(mktemp -d /tmp/goblin-aof-bench.XXXXXX)
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"
trap '[ -n "${SERVER_PID:-}" ] && kill -KILL "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# start KIND [FLAGS...]: a server with its data in $WORK/KIND (bench/server_ctl.sh).
start() { data_server_start "$1" "$WORK/$1" "${@:2}"; }
stop() { data_server_stop; }

info_field() { redis-cli -p "$SERVER_PORT" INFO persistence | tr -d '\r' | sed -n "s/^$1://p"; }

now() { date +%s.%N; }

# 1. Latency.
for kind in goblin redis; do
    for mode in no everysec always; do
        rm -rf "${WORK:?}/$kind"
        if [ "$mode" = no ]; then
            start "$kind" --appendonly no
        else
            start "$kind" --appendonly yes --appendfsync "$mode"
        fi
        samples=$SAMPLES
        [ "$mode" = always ] && samples=$ALWAYS_SAMPLES
        "$BENCH" --port "$SERVER_PORT" --ops SET --samples "$samples" --warmup 2000 \
            --server-name "$kind" --label "$mode" --csv "$OUT/latency-$kind-$mode.csv" >/dev/null
        stop
        echo "aof.sh: $kind appendfsync $mode done" >&2
    done
done

# 2. Rewrite and load of N keys.
printf 'server\tkeys\trewrite_s\tload_s\tbase_bytes\n' >"$OUT/rewrite_load.tsv"
for kind in goblin redis; do
    rm -rf "${WORK:?}/$kind"
    start "$kind" --appendonly yes --appendfsync everysec --auto-aof-rewrite-percentage 0
    python3 - "$N" <<'PY' | redis-cli -p "$SERVER_PORT" --pipe >/dev/null
import sys
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    k, v = b"s:%d" % i, b"v%015d" % i
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\n%s\r\n" % (len(k), k, v))
PY
    keys=$(redis-cli -p "$SERVER_PORT" DBSIZE)
    t0=$(now)
    redis-cli -p "$SERVER_PORT" BGREWRITEAOF >/dev/null
    while [ "$(info_field aof_rewrite_in_progress)" != 0 ] || [ "$(info_field aof_rewrite_scheduled)" != 0 ]; do
        sleep 0.01
    done
    t1=$(now)
    [ "$(info_field aof_last_bgrewrite_status)" = ok ] || { echo "aof.sh: $kind rewrite failed" >&2; exit 1; }
    stop
    bytes=$(stat -c %s "$WORK/$kind"/appendonlydir/*.base.rdb)
    start "$kind" --appendonly yes
    load=$(sed -n 's/.*DB loaded from append only file: \([0-9.]*\) seconds.*/\1/p' "$SERVER_LOG" | tail -n 1)
    [ "$(redis-cli -p "$SERVER_PORT" DBSIZE)" = "$keys" ] || { echo "aof.sh: $kind reload lost keys" >&2; exit 1; }
    stop
    printf '%s\t%s\t%.3f\t%s\t%s\n' "$kind" "$keys" "$(echo "$t1 - $t0" | bc)" "$load" "$bytes" \
        >>"$OUT/rewrite_load.tsv"
    echo "aof.sh: $kind rewrite/load done" >&2
done

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "command: bench/aof.sh $N"
    echo "keys: $N"
    echo "samples: $SAMPLES (appendfsync always: $ALWAYS_SAMPLES)"
    echo "goblin_core: $("$GOBLIN_SERVER" --version) ($(git -C "$ROOT" rev-parse --short HEAD))"
    echo "redis_server: $("$REDIS_SERVER" --version)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x $(nproc)"
    echo "kernel: $(uname -r)"
    echo "filesystem: $(df -T "$WORK" | awk 'NR==2 {print $2}')"
    echo "loadavg_before: $LOAD_BEFORE"
    echo "loadavg_after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "note: shared 2-core machine (other jobs running); goblin-core default --mlockall yes"
} >"$OUT/metadata.txt"
python3 "$ROOT/bench/report_aof.py" "$OUT"
echo "aof.sh: results in $OUT" >&2
