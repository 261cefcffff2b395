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
#   SHARE_SERVER 0                     1: the wires of a server x transport run one
#                                      after another against one server process
#                                      (--enable-sbe if any is sbe) instead of a
#                                      fresh server per cell (bench/interleaved.sh)
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
SHARE_SERVER=${SHARE_SERVER:-0}
PINGPONG_BYTES=${PINGPONG_BYTES:-64}

# Only the binaries the requested cells use: goblin-bench always, each
# floor only when its transport is measured with FLOORS=1.
needed=("$BENCH")
if [ "$FLOORS" = 1 ]; then
    for t in ${TRANSPORTS//,/ }; do
        case $t in
        tcp|unix) needed+=("$ECHO_FLOOR") ;;
        ring) needed+=("$CACHELINE_FLOOR") ;;
        fabric) [ -n "$PROVIDERS" ] && needed+=("$FABRIC_FLOOR") ;;
        esac
    done
fi
for bin in "${needed[@]}"; do
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
             CLIENT_CPU NUMA_NODE FLOORS RING_SIZE PINGPONG_BYTES SHARE_SERVER)
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
# Run before the ring cells and again after every cell (floor-ring-after):
# the host may move the vCPUs meanwhile, which changes every ring figure
# (docs/benchmarks.md), and report.py says so when the two differ.
run_ring_floor() {
    local label=${1:-floor-ring} status=ok rc=0 message=
    local dir=$OUT/cells/$label
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

# cell_server_args TRANSPORT PROVIDER MODE NAME SBE — the server flags of a
# cell (or of a shared server, NAME naming its rings) into SERVER_ARGS, its
# rings into RING_A and RING_B (empty off rings), BOOT_PORT for libfabric.
cell_server_args() {
    local transport=$1 provider=$2 mode=$3 name=$4 sbe=$5
    SERVER_ARGS=() RING_A= RING_B= BOOT_PORT=
    if [ "$transport" = ring ]; then
        # Rings live on tmpfs; one for requests, one for the Pub/Sub subscriber.
        RING_A=/dev/shm/goblin-matrix-$$-$name-a RING_B=/dev/shm/goblin-matrix-$$-$name-b
        SERVER_ARGS=(--ring "$RING_A" "$RING_SIZE" --ring "$RING_B" "$RING_SIZE")
    fi
    if [ "$transport" = fabric ]; then
        # Heartbeats off while measuring, as in the seeds; forced fi_send
        # on both sides for the "send" mode.
        BOOT_PORT=$(free_port)
        SERVER_ARGS=(--libfabric "$provider" 127.0.0.1 "$BOOT_PORT" --efa-heartbeat-timeout-ms 0)
        [ "$mode" = send ] && SERVER_ARGS+=(--libfabric-force-send)
    fi
    [ "$sbe" = 1 ] && SERVER_ARGS+=(--enable-sbe)
    return 0
}

# SHARE_SERVER=1: every wire of a server x transport (x provider, x send
# mode) is measured against one server process, started here for the group
# (with --enable-sbe when a wire is sbe: such a server answers RESP too) and
# stopped after its last wire; run_cell then uses it instead of starting its
# own. SHARED is 1 while one runs, SHARED_ERROR holds why it did not start.
SHARED=0 SHARED_ERROR=
shared_start() {
    local server=$1 transport=$2 provider=$3 mode=$4 name=$5 sbe=$6
    local dir=$OUT/cells/$name-server
    mkdir -p "$dir"
    cell_server_args "$transport" "$provider" "$mode" "$name" "$sbe"
    SHARED_ERROR=
    if server_start "$server" "$SERVER_CPU" "$dir" "${SERVER_ARGS[@]}" 2>>"$dir/server_start.err"; then
        SHARED=1
    else
        SHARED=0 SHARED_ERROR="server did not start: $(tail -n 1 "$dir/server_start.err")"
    fi
}
shared_stop() {
    local rc=0
    if [ "$SHARED" = 1 ]; then server_stop || rc=$?; fi
    SHARED=0 SHARED_ERROR=
    [ "$rc" -eq 0 ] || echo "matrix.sh: shared server exited with status $rc on SIGTERM" >&2
    return 0
}

# cell_label SERVER TP WIRE MODE: a cell's label (the send mode only when
# the transport has one).
cell_label() {
    local label=$1-$2-$3
    [ "$4" != - ] && label=$label-$4
    echo "$label"
}

# run_cell LABEL SERVER TRANSPORT PROVIDER WIRE SEND_MODE OPS
run_cell() {
    local label=$1 server=$2 transport=$3 provider=$4 wire=$5 mode=$6 ops=$7
    local dir=$OUT/cells/$label status=ok rc=0 message=
    local -a pin args
    TOTAL=$((TOTAL + 1))
    mkdir -p "$dir"
    printf '[%s] %-28s ' "$(date -u +%H:%M:%S)" "$label" >&2
    local shared=$SHARED
    local started=$shared
    if [ "$shared" = 1 ]; then
        : # the group's server (shared_start) set SERVER_*, RING_A, RING_B, BOOT_PORT
    elif [ -n "$SHARED_ERROR" ]; then
        status=failed rc=1 message=$SHARED_ERROR
    else
        cell_server_args "$transport" "$provider" "$mode" "$label" "$([ "$wire" = sbe ] && echo 1)"
        if server_start "$server" "$SERVER_CPU" "$dir" "${SERVER_ARGS[@]}" 2>>"$dir/server_start.err"; then
            started=1
        else
            status=failed rc=1 message="server did not start: $(tail -n 1 "$dir/server_start.err")"
        fi
    fi
    local ring_a=$RING_A ring_b=$RING_B boot=$BOOT_PORT
    if [ "$started" = 1 ]; then
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
        [ "$shared" = 1 ] || server_stop || stop_rc=$?
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
            if [ "$SHARE_SERVER" = 1 ]; then
                # One server per send mode, every applicable wire against it.
                for mode in $(transport_send_modes "$transport"); do
                    wires=() sbe=
                    for wire in $(split "$WIRES"); do
                        applicable "$server" "$transport" "$wire" || continue
                        wires+=("$wire")
                        [ "$wire" = sbe ] && sbe=1
                    done
                    [ ${#wires[@]} -gt 0 ] || continue
                    name=$server-$tp
                    [ "$mode" != - ] && name=$name-$mode
                    shared_start "$server" "$transport" "$provider" "$mode" "$name" "$sbe"
                    for wire in "${wires[@]}"; do
                        run_cell "$(cell_label "$server" "$tp" "$wire" "$mode")" "$server" \
                            "$transport" "$provider" "$wire" "$mode" "$OPS"
                    done
                    shared_stop
                done
                continue
            fi
            for wire in $(split "$WIRES"); do
                applicable "$server" "$transport" "$wire" || continue
                for mode in $(transport_send_modes "$transport"); do
                    run_cell "$(cell_label "$server" "$tp" "$wire" "$mode")" "$server" \
                        "$transport" "$provider" "$wire" "$mode" "$OPS"
                done
            done
        done
    done
done

if [ "$FLOORS" = 1 ] && [[ ",$TRANSPORTS," == *,ring,* ]]; then run_ring_floor floor-ring-after; fi

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
