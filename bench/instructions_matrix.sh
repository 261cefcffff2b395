#!/usr/bin/env bash
# instructions_matrix.sh NAME=BUILD_DIR... — server instructions per request
# of several builds side by side, one line per (build, transport, wire, op):
# depth one over tcp (RESP) and the ring (RESP and SBE) through
# bench/instructions_per_request_wire.sh, then pipelined TCP (redis-benchmark
# -c 50 -P 16, PING/SET/GET) through bench/instructions_per_request.sh.
# Callgrind counts do not depend on the machine's load, so two builds
# measured on a busy machine still compare. N=requests per depth-one run
# (default 2000), NP=pipelined requests per op (default 50000).
# Output: a header of # lines (date, machine, builds' commits) and TSV rows
#   build  transport  wire  op  instructions_per_request
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
N=${N:-2000}
NP=${NP:-50000}
OPS=${OPS:-PING SET GET ZADD}
[ $# -ge 1 ] || { echo "usage: bench/instructions_matrix.sh NAME=BUILD_DIR..." >&2; exit 2; }
echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# machine: nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg) (instruction counts do not depend on it)"
echo "# command: N=$N NP=$NP OPS=\"$OPS\" bash bench/instructions_matrix.sh $*"
for spec in "$@"; do
    name=${spec%%=*} dir=${spec#*=}
    rev=$(git -C "$dir/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
    echo "# $name = $dir (source at $rev)"
done
printf 'build\ttransport\twire\top\tinstructions_per_request\n'
for spec in "$@"; do
    name=${spec%%=*} dir=${spec#*=}
    for tw in "tcp resp" "ring resp" "ring sbe"; do
        set -- $tw
        for op in $OPS; do
            line=$(bash "$HERE/instructions_per_request_wire.sh" "$dir" "$1" "$2" "$op" "$N")
            printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$1" "$2" "$op" "$(echo "$line" | awk '{print $(NF-3)}')"
        done
    done
    line=$(CLIENTS=50 PIPELINE=16 EXCLUDE_STARTUP=1 bash "$HERE/instructions_per_request.sh" "$dir/goblin-core" "$NP")
    printf '%s\ttcp-P16\tresp\tPING,SET,GET\t%s\n' "$name" "$(echo "$line" | sed -n 's/.*(\([0-9]*\) per request.*/\1/p')"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
