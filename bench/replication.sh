#!/usr/bin/env bash
# bench/replication.sh [N] [OUT_DIR] — what replication costs
# (docs/replication.md), goblin-core and redis-server in one run:
#   1. depth-one SET latency (goblin-bench, TCP) on a master with no
#      replica and with two replicas of its own kind attached, in ROUNDS
#      alternating rounds (none, two, none, two, ...), each round a fresh
#      pair of replicas fully synced before it;
#   2. full sync of N keys (16-byte strings): from REPLICAOF on an empty
#      replica of the same kind until its link is up with the master's
#      offset, diskless (repl-diskless-sync yes, delay 0) and disk (no),
#      with the peak resident memory of the master and of the replica
#      (VmRSS sampled every 20 ms; the fork child's copy-on-write pages
#      are not in the master's figure, as neither server reports them live);
#   3. replication lag (bench/replication_lag.py): a master and one replica
#      of the same kind, a write load of 10k and 100k SETs/s for
#      LAG_SECONDS, probed every 10 ms (from the master's reply to the
#      replica answering the probe's value).
# SECTIONS (default "latency sync lag") picks which run.
# Raw data goes to OUT_DIR (default docs/benchmarks/<date>-replication):
# raw/<server>-<none|two|two-block>-r<round>.csv, sync.tsv,
# raw/<server>-lag-<rate>.csv, metadata.txt; then
# bench/report_replication.py writes report.md from them.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${1:-1000000}
OUT=${2:-$ROOT/docs/benchmarks/$(date -u +%Y-%m-%d)-replication}
GOBLIN_SERVER=${GOBLIN_SERVER:-$ROOT/build/goblin-core}
REDIS_SERVER=${REDIS_SERVER:-/usr/bin/redis-server}
BENCH=${BENCH:-$ROOT/build/goblin-bench}
SAMPLES=${SAMPLES:-200000}
WARMUP=${WARMUP:-20000}
ROUNDS=${ROUNDS:-3}
SECTIONS=${SECTIONS:-latency sync lag}
LAG_SECONDS=${LAG_SECONDS:-10}
section() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
WORK=$(mktemp -d /tmp/goblin-repl-bench.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
mkdir -p "$OUT/raw"

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
field() { redis-cli -p "$1" INFO replication | tr -d '\r' | sed -n "s/^$2://p"; }

# launch KIND NAME [FLAGS...]: a server in $WORK/NAME (a replica of
# $REPLICAOF_PORT when set); sets LP (port), LPID.
launch() {
    local kind=$1 name=$2
    shift 2
    mkdir -p "$WORK/$name"
    LP=$(port)
    local -a of=()
    if [ "$kind" = goblin ]; then
        [ -n "${REPLICAOF_PORT:-}" ] && of=(--replicaof "127.0.0.1 $REPLICAOF_PORT")
        "$GOBLIN_SERVER" --port "$LP" --dir "$WORK/$name" --save "" --repl-diskless-sync-delay 0 \
            "${of[@]}" "$@" >"$WORK/$name.log" 2>&1 &
    else
        [ -n "${REPLICAOF_PORT:-}" ] && of=(--replicaof 127.0.0.1 "$REPLICAOF_PORT")
        "$REDIS_SERVER" --port "$LP" --bind 127.0.0.1 --dir "$WORK/$name" --save "" \
            --appendonly no --repl-diskless-sync-delay 0 "${of[@]}" "$@" >"$WORK/$name.log" 2>&1 &
    fi
    LPID=$!
    PIDS+=("$LPID")
    for _ in $(seq 400); do
        [ "$(redis-cli -p "$LP" PING 2>/dev/null)" = PONG ] && return 0
        sleep 0.05
    done
    echo "replication.sh: $kind $name did not start" >&2
    exit 1
}

stop() { # PID PORT
    redis-cli -p "$2" SHUTDOWN NOSAVE >/dev/null 2>&1 || kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

synced() { # MASTER REPLICA
    for _ in $(seq 12000); do
        [ "$(field "$2" master_link_status)" = up ] &&
            [ "$(field "$2" slave_repl_offset)" = "$(field "$1" master_repl_offset)" ] && return 0
        sleep 0.02
    done
    echo "replication.sh: replica $2 did not catch up" >&2
    exit 1
}

rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null || echo 0; }

# 1. SET latency with no replica and with two. goblin-core replicas run
#    with the default idle strategy (adaptive: they spin 200 us after each
#    batch of the stream) and, as "two-block", with --idle-strategy block
#    (they sleep in epoll between batches).
two_replicas() { # KIND CFG ROUND [REPLICA FLAGS]
    local kind=$1 cfg=$2 round=$3
    shift 3
    REPLICAOF_PORT=$M launch "$kind" "$kind-r1-$cfg-$round" "$@"
    R1=$LP R1PID=$LPID
    REPLICAOF_PORT=$M launch "$kind" "$kind-r2-$cfg-$round" "$@"
    R2=$LP R2PID=$LPID
    synced "$M" "$R1"
    synced "$M" "$R2"
    "$BENCH" --port "$M" --ops SET --samples "$SAMPLES" --warmup "$WARMUP" --server-name "$kind" \
        --label "$kind-$cfg" --csv "$OUT/raw/$kind-$cfg-r$round.csv" >/dev/null
    synced "$M" "$R1"
    stop "$R1PID" "$R1"
    stop "$R2PID" "$R2"
}
for kind in goblin redis; do
    section latency || break
    launch "$kind" "$kind-m"
    M=$LP
    MPID=$LPID
    for round in $(seq "$ROUNDS"); do
        "$BENCH" --port "$M" --ops SET --samples "$SAMPLES" --warmup "$WARMUP" --server-name "$kind" \
            --label "$kind-none" --csv "$OUT/raw/$kind-none-r$round.csv" >/dev/null
        two_replicas "$kind" two "$round"
        [ "$kind" = goblin ] && two_replicas goblin two-block "$round" --idle-strategy block
        echo "replication.sh: $kind latency round $round done" >&2
    done
    stop "$MPID" "$M"
done

# 2. Full sync of N keys.
fill() {
    python3 - "$N" <<'PY' | redis-cli -p "$1" --pipe >/dev/null
import sys
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    k, v = b"key:%d" % i, b"v%015d" % i
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\n%s\r\n" % (len(k), k, v))
PY
}
section sync && printf 'server\tmode\tkeys\tsync_s\tmaster_rss_before_kb\tmaster_rss_peak_kb\treplica_rss_peak_kb\n' \
    >"$OUT/sync.tsv"
for kind in goblin redis; do
    section sync || break
    for mode in diskless disk; do
        diskless=yes
        [ "$mode" = disk ] && diskless=no
        launch "$kind" "$kind-sm-$mode" --repl-diskless-sync "$diskless"
        M=$LP MPID=$LPID
        fill "$M"
        keys=$(redis-cli -p "$M" DBSIZE)
        launch "$kind" "$kind-sr-$mode"
        R=$LP RPID=$LPID
        before=$(rss_kb "$MPID")
        mpeak=$before rpeak=0
        t0=$(date +%s.%N)
        redis-cli -p "$R" REPLICAOF 127.0.0.1 "$M" >/dev/null
        deadline=$(($(date +%s) + 600))
        while :; do
            [ "$(date +%s)" -lt "$deadline" ] || { echo "replication.sh: $kind $mode sync did not finish" >&2; exit 1; }
            m=$(rss_kb "$MPID") r=$(rss_kb "$RPID")
            [ "$m" -gt "$mpeak" ] && mpeak=$m
            [ "$r" -gt "$rpeak" ] && rpeak=$r
            if [ "$(field "$R" master_link_status)" = up ] &&
                [ "$(field "$R" slave_repl_offset)" = "$(field "$M" master_repl_offset)" ]; then
                break
            fi
            sleep 0.02
        done
        t1=$(date +%s.%N)
        r=$(rss_kb "$RPID") # after the load
        [ "$r" -gt "$rpeak" ] && rpeak=$r
        [ "$(redis-cli -p "$R" DBSIZE)" = "$keys" ] || { echo "replication.sh: $kind $mode lost keys" >&2; exit 1; }
        printf '%s\t%s\t%s\t%.3f\t%s\t%s\t%s\n' "$kind" "$mode" "$keys" "$(echo "$t1 - $t0" | bc)" \
            "$before" "$mpeak" "$rpeak" >>"$OUT/sync.tsv"
        stop "$RPID" "$R"
        stop "$MPID" "$M"
        echo "replication.sh: $kind $mode sync done" >&2
    done
done

# 3. Replication lag under a write load.
for kind in goblin redis; do
    section lag || break
    launch "$kind" "$kind-lm"
    M=$LP MPID=$LPID
    REPLICAOF_PORT=$M launch "$kind" "$kind-lr"
    R=$LP RPID=$LPID
    synced "$M" "$R"
    for rate in 10000 100000; do
        python3 "$ROOT/bench/replication_lag.py" "$M" "$R" "$rate" "$LAG_SECONDS" \
            "$OUT/raw/$kind-lag-$rate.csv"
        echo "replication.sh: $kind lag at $rate writes/s done" >&2
    done
    stop "$RPID" "$R"
    stop "$MPID" "$M"
done

{
    echo "report: replication"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "command: SECTIONS=\"$SECTIONS\" bench/replication.sh $N"
    echo "sections: $SECTIONS"
    echo "lag_seconds: $LAG_SECONDS"
    echo "keys: $N"
    echo "samples: $SAMPLES"
    echo "warmup: $WARMUP"
    echo "rounds: $ROUNDS"
    echo "goblin_core: $("$GOBLIN_SERVER" --version) ($(git -C "$ROOT" rev-parse --short HEAD))"
    echo "redis_server: $("$REDIS_SERVER" --version)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x $(nproc)"
    echo "kernel: $(uname -r)"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15-minute load average at the end)"
    echo "note: shared 2-core machine with other jobs running; master, replicas and client unpinned"
} >"$OUT/metadata.txt"
python3 "$ROOT/bench/report_replication.py" "$OUT"
echo "replication.sh: results in $OUT" >&2
