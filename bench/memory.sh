#!/usr/bin/env bash
# memory.sh — resident bytes per element, goblin-core vs redis-server,
# measured the same way in the same run:
#
#   zset    one sorted set of N members   (ZADD z <random score> <16-byte member>)
#   hash    one hash of N fields          (HSET h <16-byte field> <16-byte value>)
#   string  N keys                        (SET <16-byte key> <16-byte value>)
#   set-int one set of N integers         (SADD s <integer 0..N-1, spread>)
#   set-str one set of N short strings    (SADD s <16-byte member>)
#   list-int  one list of N integers      (RPUSH l 0, RPUSH l 1, ... RPUSH l N-1)
#   list-str  one list of N strings       (RPUSH l <16-byte string>)
#   stream1   one stream of N entries      (XADD s * <16-byte field> <16-byte value>; the
#             field name is the same in every entry, the value differs)
#   stream5   one stream of N entries of five pairs (five fixed 16-byte field names,
#             five distinct 16-byte values per entry)
#
# For every workload and server a fresh server process is started, its
# VmRSS read from /proc/<pid>/status when idle, the workload loaded through
# `redis-cli --pipe` (one command per element, pipelined), the element count
# checked, and VmRSS read again: (after - before) / N is printed. A fresh
# process per cell keeps one workload's freed-but-kept heap out of the next.
#
# Usage: bench/memory.sh [N]         (default 1000000; a smoke run: 100000)
# WORKLOADS="set-int set-str" (or "list-int list-str", ...) measures only those (default: all).
# Output: stdout and results/<timestamp>-memory/{memory.out,metadata.txt}
# (RESULTS_ROOT overrides results/).
# Binaries: GOBLIN_SERVER (default build/goblin-core), REDIS_SERVER,
# REDIS_CLI (default from PATH). Both servers use their default encodings.
set -euo pipefail

N=${1:-${N:-1000000}}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GOBLIN_SERVER=${GOBLIN_SERVER:-$ROOT/build/goblin-core}
REDIS_SERVER=${REDIS_SERVER:-$(command -v redis-server)}
REDIS_CLI=${REDIS_CLI:-$(command -v redis-cli)}
WORK=$(mktemp -d /tmp/goblin-memory.XXXXXX)
# The printed table is the run's raw data: it also goes to
# results/<timestamp>-memory/memory.out, with metadata.txt beside it.
OUT=${RESULTS_ROOT:-$ROOT/results}/$(date -u +%Y%m%dT%H%M%SZ)-memory
while [ -e "$OUT" ]; do OUT=$OUT-x; done
mkdir -p "$OUT"
emit() { "$@" | tee -a "$OUT/memory.out"; }
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"

cleanup() {
    server_stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

rss_bytes() {
    awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status"
}

# The RESP stream of one workload (awk: no dependency beyond coreutils).
generate() {
    awk -v n="$N" -v kind="$1" 'BEGIN {
        srand(42)
        for (i = 0; i < n; i++) {
            if (kind == "zset") {
                score = sprintf("%d", int(rand() * 1000000000))
                printf "*4\r\n$4\r\nZADD\r\n$1\r\nz\r\n$%d\r\n%s\r\n$16\r\nm%015d\r\n", length(score), score, i
            } else if (kind == "set-int") {
                v = sprintf("%d", (i * 7919) % 100000007)
                printf "*3\r\n$4\r\nSADD\r\n$1\r\ns\r\n$%d\r\n%s\r\n", length(v), v
            } else if (kind == "set-str") {
                printf "*3\r\n$4\r\nSADD\r\n$1\r\ns\r\n$16\r\nm%015d\r\n", i
            } else if (kind == "list-int") {
                printf "*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$%d\r\n%d\r\n", length(i ""), i
            } else if (kind == "list-str") {
                printf "*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$16\r\ne%015d\r\n", i
            } else if (kind == "stream1") {
                printf "*5\r\n$4\r\nXADD\r\n$1\r\ns\r\n$1\r\n*\r\n$16\r\nfield-name-00001\r\n$16\r\nv%015d\r\n", i
            } else if (kind == "stream5") {
                printf "*13\r\n$4\r\nXADD\r\n$1\r\ns\r\n$1\r\n*\r\n"
                for (f = 1; f <= 5; f++)
                    printf "$16\r\nfield-name-0000%d\r\n$16\r\nv%d%014d\r\n", f, f, i
            } else if (kind == "hash") {
                printf "*4\r\n$4\r\nHSET\r\n$1\r\nh\r\n$16\r\nf%015d\r\n$16\r\nv%015d\r\n", i, i
            } else {
                printf "*3\r\n$3\r\nSET\r\n$16\r\nk%015d\r\n$16\r\nv%015d\r\n", i, i
            }
        }
    }'
}

count_of() {
    case $1 in
    zset) "$REDIS_CLI" -p "$SERVER_PORT" ZCARD z ;;
    hash) "$REDIS_CLI" -p "$SERVER_PORT" HLEN h ;;
    list-*) "$REDIS_CLI" -p "$SERVER_PORT" LLEN l ;;
    string) "$REDIS_CLI" -p "$SERVER_PORT" DBSIZE ;;
    set-*) "$REDIS_CLI" -p "$SERVER_PORT" SCARD s ;;
    stream*) "$REDIS_CLI" -p "$SERVER_PORT" XLEN s ;;
    esac
}

# Prints bytes per element for one server and workload.
measure() {
    local kind=$1 workload=$2 before after count
    server_start "$kind" "${BENCH_CPU:-}" "$WORK/$kind"
    sleep 0.3
    before=$(rss_bytes "$SERVER_PID")
    "$REDIS_CLI" -p "$SERVER_PORT" --pipe <"$WORK/$workload.resp" >"$WORK/pipe.out"
    count=$(count_of "$workload")
    if [ "$count" != "$N" ]; then
        echo "memory.sh: $kind holds $count elements after loading $workload, expected $N" >&2
        exit 1
    fi
    sleep 0.5
    after=$(rss_bytes "$SERVER_PID")
    server_stop || true
    awk -v a="$after" -v b="$before" -v n="$N" 'BEGIN { printf "%.1f", (a - b) / n }'
}

emit echo "memory.sh: N=$N, goblin-core $GOBLIN_SERVER, redis-server $("$REDIS_SERVER" --version | awk '{ sub("v=", "", $3); print $3 }')"
emit printf '%-8s %12s %12s %8s\n' workload goblin-core redis-server ratio
for workload in ${WORKLOADS:-zset hash string set-int set-str list-int list-str stream1 stream5}; do
    generate "$workload" >"$WORK/$workload.resp"
    g=$(measure goblin "$workload")
    r=$(measure redis "$workload")
    ratio=$(awk -v g="$g" -v r="$r" 'BEGIN { printf "%.2f", g / r }')
    emit printf '%-8s %12s %12s %8s\n' "$workload" "$g" "$r" "$ratio"
    rm -f "$WORK/$workload.resp"
done
emit echo "(resident bytes per element; ratio = goblin-core / redis-server, lower is leaner)"
{
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
    echo "kernel: $(uname -srvm)"
    echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)"
    echo "cpus_online: $(nproc)"
    echo "command: ${WORKLOADS:+WORKLOADS=\"$WORKLOADS\" }bash bench/memory.sh $N"
} >"$OUT/metadata.txt"
echo "memory.sh: results in $OUT" >&2
