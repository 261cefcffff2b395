#!/usr/bin/env bash
# matrix.sh — the latency matrix: every configured server x transport x wire
# (x send mode, x libfabric provider when those transports exist) measured
# by goblin-bench with the seeds' method, plus each transport's echo floor,
# in one run; then a ranking report with plots. See docs/benchmarks.md.
#
# Environment (defaults in brackets):
#   SERVERS      goblin,redis          servers to measure (goblin; goblin-spin and
#                                      goblin-block = goblin with --idle-strategy
#                                      spin / block; goblin-base = GOBLIN_BASE_SERVER,
#                                      an older build, for before/after; redis)
#   TRANSPORTS   tcp,unix              goblin-bench transports (tcp, unix, ring, fabric)
#   WIRES        resp                  wires: resp, sbe (goblin-core with --enable-sbe;
#                                      redis-server and goblin-base: resp only)
#   SEND_MODES   (transport default)   send modes, for transports that have them
#                                      (fabric: auto,send; "send" also starts the
#                                      server with --libfabric-force-send)
#   PROVIDERS    (none)                libfabric providers, for transport fabric
#                                      (e.g. 'tcp;ofi_rxm,shm,udp;ofi_rxd'); each
#                                      gets its fi_pingpong floor in the same run
#   OPS          the seeds' eight      goblin-bench --ops
#   SAMPLES      200000                measured operations per op
#   WARMUP       20000                 warmup operations per op
#   SERVER_CPU   0                     CPU the server is pinned to
#   CLIENT_CPU   1 (0 on one CPU)      CPU goblin-bench is pinned to
#   NUMA_NODE    (unset)               pin with numactl --membind as well
#   FLOORS       1                     0 skips the floors (echo for sockets,
#                                      cache-line ping-pong for rings; for libfabric
#                                      providers goblin-fabric-floor, the raw ping-pong
#                                      with percentiles, and fi_pingpong -e rdm)
#   PINGPONG_BYTES 64                  fi_pingpong message size
#   RING_SIZE    64k                   per-direction size of the rings of ring cells
#   RESULTS_ROOT <repo>/results        results/<UTC timestamp>/ is created there
#   BUILD_DIR    <repo>/build          goblin-bench, goblin-echo-floor, goblin-core
#   GOBLIN_SERVER, REDIS_SERVER        server binaries
#
# Every server is started by this script for its cell (fresh process,
# ephemeral port, its own Unix socket, pinned) and stopped by PID. A cell that
# fails is recorded with goblin-bench's message and the run continues; rows
# already measured are kept, never replaced. Exit status: 0 when every cell
# measured, 1 when any failed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-${GOBLIN_BUILD_DIR:-$ROOT/build}}
# shellcheck source=bench/server_ctl.sh
source "$ROOT/bench/server_ctl.sh"

SERVERS=${SERVERS:-goblin,redis}
TRANSPORTS=${TRANSPORTS:-tcp,unix}
WIRES=${WIRES:-resp}
SEND_MODES=${SEND_MODES:-}
PROVIDERS=${PROVIDERS:-}
OPS=${OPS:-PING,SET,GET,HSET,HGET,ZADD,ZSCORE,PUBSUB}
SAMPLES=${SAMPLES:-200000}
WARMUP=${WARMUP:-20000}
SERVER_CPU=${SERVER_CPU:-0}
if [ "$(nproc)" -gt 1 ]; then CLIENT_CPU=${CLIENT_CPU:-1}; else CLIENT_CPU=${CLIENT_CPU:-0}; fi
FLOORS=${FLOORS:-1}
RESULTS_ROOT=${RESULTS_ROOT:-$ROOT/results}
BENCH=$BUILD_DIR/goblin-bench
CACHELINE_FLOOR=$BUILD_DIR/goblin-cacheline-floor
FABRIC_FLOOR=$BUILD_DIR/goblin-fabric-floor
RING_SIZE=${RING_SIZE:-64k}
PINGPONG_BYTES=${PINGPONG_BYTES:-64}

for bin in "$BENCH" "$ECHO_FLOOR" "$CACHELINE_FLOOR" "$FABRIC_FLOOR"; do
    [ -x "$bin" ] || { echo "matrix.sh: $bin not found; build first (make build)" >&2; exit 2; }
done
command -v gnuplot >/dev/null || { echo "matrix.sh: gnuplot is required (make deps)" >&2; exit 2; }

OUT=$RESULTS_ROOT/$(date -u +%Y%m%dT%H%M%SZ)
while [ -e "$OUT" ]; do OUT=$OUT-x; done
mkdir -p "$OUT/csv" "$OUT/cells"
CELLS=$OUT/cells.tsv
printf 'label\tserver\ttransport\tprovider\twire\tsend_mode\tstatus\texit\tmessage\n' >"$CELLS"

# The environment the run used, for metadata.txt and report.py.
MATRIX_VARS=(SERVERS TRANSPORTS WIRES SEND_MODES PROVIDERS OPS SAMPLES WARMUP SERVER_CPU
             CLIENT_CPU NUMA_NODE FLOORS RING_SIZE PINGPONG_BYTES)
for v in "${MATRIX_VARS[@]}"; do printf '%s=%s\n' "$v" "${!v:-}"; done >"$OUT/matrix.env"

split() { tr ',' '\n' <<<"$1" | sed '/^$/d'; }

# Transports with send modes / providers.
transport_send_modes() { case $1 in fabric) split "${SEND_MODES:--}" ;; *) echo - ;; esac; }
# With no PROVIDERS a fabric cell still runs (and is recorded), never skipped.
transport_providers() { case $1 in fabric) split "${PROVIDERS:--}" ;; *) echo - ;; esac; }
# redis-server speaks RESP over kernel sockets only.
# Rings and libfabric endpoints always spin, so goblin-spin adds nothing there.
applicable() {
    case $1 in
    redis) [ "$3" = resp ] && case $2 in tcp|unix) true ;; *) false ;; esac ;;
    goblin-base) [ "$3" = resp ] ;;
    goblin-spin|goblin-block) [ "$2" != ring ] && [ "$2" != fabric ] ;;
    *) true ;;
    esac
}

FAILED=0
TOTAL=0

# The ring floor: two threads bouncing cache lines, pinned like the cells.
run_ring_floor() {
    local label=floor-ring dir=$OUT/cells/floor-ring status=ok rc=0 message=
    TOTAL=$((TOTAL + 1))
    mkdir -p "$dir"
    printf '[%s] %-28s ' "$(date -u +%H:%M:%S)" "$label" >&2
    local -a cmd=("$CACHELINE_FLOOR" --client-cpu "${CLIENT_CPU:--1}" --server-cpu "${SERVER_CPU:--1}"
                  --samples "$SAMPLES" --warmup "$WARMUP" --label "$label" --csv "$OUT/csv/$label.csv")
    echo "${cmd[*]}" >"$dir/command.txt"
    "${cmd[@]}" >"$dir/table.txt" 2>"$dir/bench.stderr" || rc=$?
    if [ "$rc" -ne 0 ]; then status=failed message=$(head -n 2 "$dir/bench.stderr" | tr '\n' ' '); FAILED=$((FAILED + 1)); fi
    printf '%s\n' "$status" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" floor ring - resp - "$status" "$rc" \
        "$message" >>"$CELLS"
}

# The libfabric floor of a provider: fi_pingpong -e rdm (fabtests), server and
# client pinned like the cells, SAMPLES iterations of PINGPONG_BYTES. It
# reports only a mean per transfer (one way: a round trip is two), recorded
# in pingpong.tsv as round_trip_us = 2 x usec/xfer.
run_pingpong_floor() {
    local provider=$1 label=floor-fabric-$(tr ';' '+' <<<"$1")
    local dir=$OUT/cells/$label status=ok rc=0 message= port
    TOTAL=$((TOTAL + 1))
    mkdir -p "$dir"
    printf '[%s] %-28s ' "$(date -u +%H:%M:%S)" "$label" >&2
    port=$(free_port)
    local -a spin cpin common=(-p "$provider" -e rdm -I "$SAMPLES" -S "$PINGPONG_BYTES")
    read -r -a spin <<<"$(pin_command "$SERVER_CPU")"
    read -r -a cpin <<<"$(pin_command "$CLIENT_CPU")"
    echo "${spin[*]} fi_pingpong ${common[*]} -B $port & ${cpin[*]} fi_pingpong ${common[*]} -P $port 127.0.0.1" \
        >"$dir/command.txt"
    "${spin[@]}" fi_pingpong "${common[@]}" -B "$port" >"$dir/server.txt" 2>&1 &
    local server=$!
    sleep 0.5
    timeout 600 "${cpin[@]}" fi_pingpong "${common[@]}" -P "$port" 127.0.0.1 >"$dir/table.txt" 2>&1 || rc=$?
    wait "$server" 2>/dev/null || true
    local usec
    usec=$(awk -v b="$PINGPONG_BYTES" '$1 == b { print $7 }' "$dir/table.txt" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$usec" ]; then
        status=failed message=$(tail -n 2 "$dir/table.txt" | tr '\t\n' '  ')
        FAILED=$((FAILED + 1))
    else
        printf '%s\t%s\t%s\t%s\t%s\n' "$provider" "$PINGPONG_BYTES" "$SAMPLES" "$usec" \
            "$(awk -v u="$usec" 'BEGIN { printf "%.2f", 2 * u }')" >>"$OUT/pingpong.tsv"
    fi
    printf '%s\n' "$status" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" floor fabric "$provider" resp - \
        "$status" "$rc" "$message" >>"$CELLS"
}

# The raw libfabric floor of a provider: goblin-fabric-floor (the shared
# endpoint module, fi_inject, a PING-sized envelope echoed), server and
# client pinned like the cells, every percentile (fi_pingpong has a mean).
run_fabric_floor() {
    local provider=$1 label=floor-fabric-raw-$(tr ';' '+' <<<"$1")
    local dir=$OUT/cells/$label status=ok rc=0 message= port
    TOTAL=$((TOTAL + 1))
    mkdir -p "$dir"
    printf '[%s] %-28s ' "$(date -u +%H:%M:%S)" "$label" >&2
    port=$(free_port)
    local -a spin cpin
    read -r -a spin <<<"$(pin_command "$SERVER_CPU")"
    read -r -a cpin <<<"$(pin_command "$CLIENT_CPU")"
    local -a serve=("$FABRIC_FLOOR" --serve --provider "$provider" --address 127.0.0.1 --port "$port")
    local -a client=("$FABRIC_FLOOR" --provider "$provider" --host 127.0.0.1 --port "$port"
                     --local-address 127.0.0.1 --samples "$SAMPLES" --warmup "$WARMUP"
                     --label "$label" --csv "$OUT/csv/$label.csv")
    echo "${spin[*]} ${serve[*]} & ${cpin[*]} ${client[*]}" >"$dir/command.txt"
    "${spin[@]}" "${serve[@]}" >"$dir/server.txt" 2>&1 &
    local server=$!
    timeout 600 "${cpin[@]}" "${client[@]}" >"$dir/table.txt" 2>"$dir/bench.stderr" || rc=$?
    wait "$server" 2>/dev/null || kill "$server" 2>/dev/null || true
    if [ "$rc" -ne 0 ]; then
        status=failed message=$(head -n 2 "$dir/bench.stderr" | tr '\t\n' '  ')
        FAILED=$((FAILED + 1))
    fi
    printf '%s\n' "$status" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" floor fabric "$provider" resp - \
        "$status" "$rc" "$message" >>"$CELLS"
}

# run_cell LABEL SERVER TRANSPORT PROVIDER WIRE SEND_MODE OPS
run_cell() {
    local label=$1 server=$2 transport=$3 provider=$4 wire=$5 mode=$6 ops=$7
    local dir=$OUT/cells/$label status=ok rc=0 message=
    local -a pin args server_args=()
    TOTAL=$((TOTAL + 1))
    mkdir -p "$dir"
    printf '[%s] %-28s ' "$(date -u +%H:%M:%S)" "$label" >&2
    local ring_a= ring_b=
    if [ "$transport" = ring ]; then
        # Rings live on tmpfs; one for requests, one for the Pub/Sub subscriber.
        ring_a=/dev/shm/goblin-matrix-$$-$label-a ring_b=/dev/shm/goblin-matrix-$$-$label-b
        server_args=(--ring "$ring_a" "$RING_SIZE" --ring "$ring_b" "$RING_SIZE")
    fi
    local boot=
    if [ "$transport" = fabric ]; then
        # Heartbeats off while measuring, as in the seeds; forced fi_send
        # on both sides for the "send" mode.
        boot=$(free_port)
        server_args=(--libfabric "$provider" 127.0.0.1 "$boot" --efa-heartbeat-timeout-ms 0)
        [ "$mode" = send ] && server_args+=(--libfabric-force-send)
    fi
    [ "$wire" = sbe ] && server_args+=(--enable-sbe)
    if ! server_start "$server" "$SERVER_CPU" "$dir" "${server_args[@]}" 2>>"$dir/server_start.err"; then
        status=failed rc=1 message="server did not start: $(tail -n 1 "$dir/server_start.err")"
    else
        args=(--transport "$transport" --wire "$wire" --ops "$ops" --samples "$SAMPLES"
              --warmup "$WARMUP" --label "$label" --server-name "$server"
              --csv "$OUT/csv/$label.csv")
        [ -n "$CLIENT_CPU" ] && args+=(--cpu "$CLIENT_CPU")
        [ "$mode" != - ] && args+=(--send-mode "$mode")
        [ "$provider" != - ] && args+=(--provider "$provider" --local-address 127.0.0.1)
        if [ "$transport" = unix ]; then args+=(--socket "$SERVER_SOCKET")
        elif [ "$transport" = fabric ]; then args+=(--host 127.0.0.1 --port "$boot")
        elif [ "$transport" = ring ]; then args+=(--ring "$ring_a" --ring "$ring_b")
        else args+=(--host 127.0.0.1 --port "$SERVER_PORT"); fi
        read -r -a pin <<<"$(pin_command "$CLIENT_CPU")"
        echo "${pin[*]} $BENCH ${args[*]}" >"$dir/command.txt"
        "${pin[@]}" "$BENCH" "${args[@]}" >"$dir/table.txt" 2>"$dir/bench.stderr" || rc=$?
        if [ "$rc" -eq 2 ]; then
            status=unavailable # goblin-bench refused the configuration
        elif [ "$rc" -ne 0 ]; then
            status=failed
        fi
        [ "$rc" -eq 0 ] || message=$(grep -v '^\s*$' "$dir/bench.stderr" | head -n 4 | tr '\t\n' '  ')
        local stop_rc=0
        server_stop || stop_rc=$?
        # Every server here exits 0 on SIGTERM; anything else is a crash
        # worth recording (the rows stay, the cell is marked).
        if [ "$stop_rc" -ne 0 ] && [ "$status" = ok ]; then
            status=failed message="server exited with status $stop_rc on SIGTERM"
        fi
    fi
    [ "$status" = failed ] && FAILED=$((FAILED + 1))
    printf '%s\n' "$status" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$server" "$transport" "$provider" \
        "$wire" "$mode" "$status" "$rc" "$message" >>"$CELLS"
}

echo "matrix: results in $OUT" >&2
for transport in $(split "$TRANSPORTS"); do
    for provider in $(transport_providers "$transport"); do
        tp=$transport
        [ "$provider" != - ] && tp=$transport-$(tr ';' '+' <<<"$provider")
        if [ "$FLOORS" = 1 ]; then
            case $transport in
            tcp|unix) run_cell "floor-$tp" floor "$transport" "$provider" resp - ECHO ;;
            ring) run_ring_floor ;;
            fabric) if [ "$provider" != - ]; then
                        run_fabric_floor "$provider"
                        run_pingpong_floor "$provider"
                    fi ;;
            esac
        fi
        for server in $(split "$SERVERS"); do
            for wire in $(split "$WIRES"); do
                applicable "$server" "$transport" "$wire" || continue
                for mode in $(transport_send_modes "$transport"); do
                    label=$server-$tp-$wire
                    [ "$mode" != - ] && label=$label-$mode
                    run_cell "$label" "$server" "$transport" "$provider" "$wire" "$mode" "$OPS"
                done
            done
        done
    done
done

# Aggregate CSV: the one header, then every cell's rows in run order.
first=1
: >"$OUT/aggregate.csv"
while IFS=$'\t' read -r label _; do
    [ "$label" = label ] && continue
    f=$OUT/csv/$label.csv
    [ -s "$f" ] || continue
    if [ $first = 1 ]; then head -n 1 "$f" >>"$OUT/aggregate.csv"; first=0; fi
    tail -n +2 "$f" >>"$OUT/aggregate.csv"
done <"$CELLS"

# metadata.txt: what ran, where, with what.
shell_word() { if [[ $1 =~ ^[A-Za-z0-9_,.:/+=@-]+$ ]]; then echo "$1"; else printf '%q' "$1"; fi; }
value_or() { local v; v=$("$@" 2>/dev/null | head -n 1) && [ -n "$v" ] && echo "$v" || echo "unavailable"; }
governor() {
    local cpu=$1 f=/sys/devices/system/cpu/cpu$1/cpufreq/scaling_governor
    [ -n "$cpu" ] && [ -r "$f" ] && cat "$f" || echo "not readable"
}
{
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD 2>/dev/null || echo ' (working tree modified)')"
    echo "kernel: $(uname -srvm)"
    echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)"
    echo "cpus_online: $(nproc)"
    echo "loadavg_at_end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "lscpu: $(lscpu 2>/dev/null | grep -E '^(Socket|Core|Thread|NUMA node\(s\))' | tr -s ' ' | tr '\n' ';' || echo unavailable)"
    echo "governor_server_cpu: $(governor "$SERVER_CPU")"
    echo "governor_client_cpu: $(governor "$CLIENT_CPU")"
    echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
    echo "redis_server: $(value_or "$REDIS_SERVER" --version)"
    echo "goblin_core: $(value_or "$GOBLIN_SERVER" --version)"
    echo "libfabric: $(value_or pkg-config --modversion libfabric)"
    echo "gnuplot: $(value_or gnuplot --version)"
    for bin in "$GOBLIN_SERVER" "$BENCH" "$ECHO_FLOOR" "$REDIS_SERVER"; do
        echo "sha256 $(basename "$bin"): $(sha256sum "$bin" 2>/dev/null | cut -d' ' -f1 || echo unavailable)"
    done
    echo "server_cpu: $SERVER_CPU"
    echo "client_cpu: $CLIENT_CPU"
    echo "numa_node: ${NUMA_NODE:-not set}"
    printf 'command: '
    for v in "${MATRIX_VARS[@]}"; do [ -n "${!v:-}" ] && printf '%s=%s ' "$v" "$(shell_word "${!v}")"; done
    printf 'bash bench/matrix.sh'
    for arg in "$@"; do printf ' %s' "$(shell_word "$arg")"; done
    echo
} >"$OUT/metadata.txt"

python3 "$ROOT/bench/report.py" "$OUT"
echo "matrix: $TOTAL cells, $FAILED failed; report: $OUT/report.md" >&2
[ "$FAILED" -eq 0 ]
